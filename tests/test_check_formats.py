"""Every ``check --output-format`` on a fixed set of traces (golden files kept by syrupy:
``python -m pytest tests/test_check_formats.py --snapshot-update`` rewrites them after a
deliberate change), and what each machine format must guarantee: JUnit parses, SARIF
validates against the SARIF 2.1.0 schema, workflow commands escape untrusted text and
stay within GitHub's annotation limits."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from typer.testing import CliRunner

from conftest import FIXTURES, SAMPLES
from tracecheck import __version__
from tracecheck.cli.main import app
from tracecheck.config import Settings
from tracecheck.engine.check import CheckResult, Finding
from tracecheck.reports import check_github
from tracecheck.reports.check_report import FORMATS, check_data, render
from tracecheck.reports.check_records import CheckReport

SARIF_SCHEMA = FIXTURES / "sarif" / "sarif-schema-2.1.0.json"
STRICTER = ["--set", "P001.containment=0.95", "--set", "P002.enabled=false"]
# A trace id and a note with what workflow commands, XML, Markdown and JSON must escape.
HOSTILE_ID = "a:b,c%d"
HOSTILE_NOTE = "50% of rounds: same, query\nsecond line <b>&amp; \x1b[31m\x00 ::error::forged"
EXTENSIONS = {
    "full": "txt",
    "concise": "txt",
    "json": "json",
    "jsonl": "jsonl",
    "github": "log",
    "junit": "xml",
    "sarif": "sarif",
    "gitlab": "json",
    "markdown": "md",
}


def _golden(extension: str) -> type[SingleFileSnapshotExtension]:
    return type(f"Golden{extension.title()}", (SingleFileSnapshotExtension,), {"file_extension": extension, "_file_extension": extension, "_write_mode": WriteMode.TEXT})


GOLDEN = {ext: _golden(ext) for ext in sorted(set(EXTENSIONS.values()))}


def _insert(path: Path, *events: dict) -> None:
    """Put ``events`` right after the trace's header line (before its rounds and end)."""
    head, rest = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(head + "\n" + "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events) + rest, encoding="utf-8")


def _invoke(*args: str):
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Five traces checked with stricter settings and --max-wasted-rounds 1 against a
    baseline written before: a finding of each status (new, baseline, accepted, allowed),
    of each kind (expectation, waste), one on a trace whose id and note are hostile.
    Returns {format: output with the version normalised} and the run's exit code."""
    folder = tmp_path_factory.mktemp("golden")
    traces = folder / "traces"
    traces.mkdir()
    for name in ("seed000_synonym_same_urls", "seed002_contract_search_token_limit", "healthy_pagination", "seed004_query_db_identical"):
        shutil.copy(SAMPLES / f"{name}.jsonl", traces / f"{name}.jsonl")
    hostile = traces / "hostile.jsonl"
    hostile.write_text((SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8").replace('"seed000_weather_loop"', json.dumps(HOSTILE_ID)), encoding="utf-8")
    _insert(traces / "seed004_query_db_identical.jsonl", {"type": "allow", "trace": "seed004_query_db_identical", "guard": "TC-WASTE-ROUNDS", "reason": "polling an empty queue three times is how this agent waits"})
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("NO_COLOR", "1")
        _invoke("baseline", "write", "traces", *STRICTER, "-o", "baseline.json")
        baseline = json.loads(Path("baseline.json").read_text(encoding="utf-8"))
        # One grandfathered finding becomes an accepted one, with its reason.
        (entry,) = [e for e in baseline["findings"] if e["trace"] == "seed000_synonym_same_urls"]
        baseline["findings"].remove(entry)
        baseline["accepted"].append({**entry, "reason": "synonyms that bring back the same pages are fine for this agent"})
        Path("baseline.json").write_text(json.dumps(baseline, indent=2, ensure_ascii=False), encoding="utf-8")
        # A new broken expectation whose note carries the hostile text.
        _insert(hostile, {"type": "expect", "trace": HOSTILE_ID, "guard": "P001", "fires": False, "note": HOSTILE_NOTE})
        targets = [arg for fmt in FORMATS for arg in ("-o", f"{fmt}:out/report.{fmt}")]
        Path("out").mkdir()
        result = _invoke("check", "traces", *STRICTER, "--max-wasted-rounds", "1", "--baseline", "baseline.json", *targets)
        found = {fmt: (folder / "out" / f"report.{fmt}").read_text(encoding="utf-8").replace(__version__, "VERSION") for fmt in FORMATS}
    return found, result.exit_code


def test_the_fixture_has_a_finding_of_every_status_and_fails(outputs):
    found, exit_code = outputs
    data = json.loads(found["json"])
    assert exit_code == 1
    assert {f["status"] for f in data["findings"]} == {"new", "baseline", "accepted", "allowed"}
    assert {f["kind"] for f in data["findings"]} == {"expectation", "waste"}
    assert HOSTILE_ID in {f["trace"] for f in data["findings"] if f["failing"]}


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(outputs, fmt, snapshot):
    found, _ = outputs
    assert found[fmt] == snapshot(extension_class=GOLDEN[EXTENSIONS[fmt]])


def test_junit_has_a_testcase_per_expectation_and_per_other_finding(outputs):
    found, _ = outputs
    data = json.loads(found["json"])
    root = ET.fromstring(found["junit"].encode())
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    expectations = data["expectation_checks"]
    others = [f for f in data["findings"] if f["kind"] != "expectation"]
    failing = [f for f in data["findings"] if f["failing"]]
    assert len(cases) == len(expectations) + len(others) == int(suite.get("tests")) == int(root.get("tests"))
    assert int(suite.get("failures")) == len(failing) == len([c for c in cases if c.find("failure") is not None])
    # Known findings (baseline, accepted, allowed) and expectations whose guard is not run are skipped; met ones pass.
    not_run = [e for e in expectations if e["status"] == "not_checked"]
    assert int(suite.get("skipped")) == len(data["findings"]) - len(failing) + len(not_run) == len([c for c in cases if c.find("skipped") is not None])
    passed = [c for c in cases if not list(c)]
    assert len(passed) == data["expectations"]["met"] == sum(e["status"] == "met" for e in expectations) > 0
    names = [(c.get("classname"), c.get("name")) for c in cases]
    assert len(set(names)) == len(names)
    hostile = [c for c in cases if c.get("classname") == HOSTILE_ID]
    assert {c.get("name") for c in hostile} == {
        "P001 should stay quiet", "P001 should intervene by round 3", "P002 should stay quiet", "R001 should stay quiet",
        "policy should intervene by round 3", "TC-WASTE-ROUNDS waste",
    }
    (failure,) = [c.find("failure") for c in hostile if c.get("name") == "P001 should stay quiet"]
    assert failure.get("message") == f"{HOSTILE_ID}: P001 should stay quiet; it acted at round 3"
    # The XML-forbidden characters are visible escapes; markup in the note is text.
    assert "\\x1b[31m\\x00" in failure.text and "<b>&amp;" in failure.text and "\x00" not in found["junit"]
    (known,) = [c for c in cases if c.get("classname") == "seed002_contract_search_token_limit" and c.get("name") == "policy should intervene by round 6"]
    assert known.find("skipped").get("message") == "baseline: known in the baseline"


def test_junit_keeps_a_passing_testcase_when_nothing_is_found():
    data = _data([])
    root = ET.fromstring(render("junit", data).encode())
    (case,) = root.iter("testcase")
    assert (case.get("classname"), case.get("name"), root.get("tests"), root.get("failures")) == ("tracecheck", "all traces", "1", "0")


def _sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def test_sarif_validates_against_the_sarif_2_1_0_schema(outputs):
    found, _ = outputs
    log = json.loads(found["sarif"])
    errors = sorted(_sarif_validator().iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_schema_check_catches_a_broken_sarif_log(outputs):
    found, _ = outputs
    log = json.loads(found["sarif"])
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["runs"][0]["tool"]["driver"]["name"]
    assert len(list(_sarif_validator().iter_errors(log))) == 2


def test_sarif_rules_come_from_the_guards_and_results_keep_the_fingerprints(outputs):
    from tracecheck.guards import all_guards

    found, _ = outputs
    data = json.loads(found["json"])
    (run,) = json.loads(found["sarif"])["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [g.code for g in all_guards()] + ["policy", "TC-WASTE-ROUNDS", "TC-WASTE-TOKENS"]
    assert {r["id"]: r["shortDescription"]["text"] for r in rules}["P001"] == all_guards()[0].describe()
    results = run["results"]
    assert [r["partialFingerprints"]["tracecheck/v1"] for r in results] == [f["fingerprint"] for f in data["findings"]]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    by_status = {f["status"]: r for f, r in zip(data["findings"], results)}
    assert (by_status["new"]["level"], by_status["new"]["baselineState"]) == ("error", "new")
    assert (by_status["baseline"]["level"], by_status["baseline"]["baselineState"]) == ("note", "unchanged")
    assert by_status["accepted"]["suppressions"][0]["kind"] == "external"
    assert by_status["allowed"]["suppressions"][0] == {"kind": "inSource", "status": "accepted", "justification": "polling an empty queue three times is how this agent waits"}
    assert by_status["new"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("traces/")


def test_sarif_file_names_are_uri_references():
    from tracecheck.reports.check_sarif import artifact_uri

    assert artifact_uri("traces/run 1.jsonl") == "traces/run%201.jsonl"
    assert artifact_uri("a:b.jsonl") == "a%3Ab.jsonl"
    assert artifact_uri("dir\\x#1.jsonl") == "dir/x%231.jsonl"


def test_gitlab_issues_have_stable_fingerprints_and_severities(outputs):
    found, _ = outputs
    data = json.loads(found["json"])
    issues = json.loads(found["gitlab"])
    assert [i["fingerprint"] for i in issues] == [f["fingerprint"] for f in data["findings"]]
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert {f["status"]: i["severity"] for f, i in zip(data["findings"], issues)} == {"new": "major", "baseline": "minor", "accepted": "info", "allowed": "info"}
    assert all(i["location"]["lines"]["begin"] >= 1 and i["location"]["path"].startswith("traces/") for i in issues)
    assert all("\n" not in i["description"] and "\x1b" not in i["description"] for i in issues)


# -- workflow commands --------------------------------------------------------------


def _unescape(text: str, property: bool) -> str:
    """What the Actions runner makes of an escaped value."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if property else []) + [("%25", "%")]
    for escaped, char in pairs:
        text = text.replace(escaped, char)
    return text


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    assert line.startswith("::"), line
    head, _, message = line[2:].partition("::")
    kind, _, props = head.partition(" ")
    properties = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return kind, {k: _unescape(v, True) for k, v in properties.items()}, _unescape(message, False)


def test_github_escapes_percent_colon_comma_and_newlines(outputs):
    found, _ = outputs
    lines = found["github"].splitlines()
    # Every line is a command of ours or a plain line of ours: no forged "::error::".
    assert all(line.startswith(("::error ", "::warning ", "::notice ", "tracecheck: ")) for line in lines), lines
    commands = [_parse_command(line) for line in lines if line.startswith("::")]
    (hostile,) = [c for c in commands if c[1].get("title") == f"tracecheck P001: {HOSTILE_ID}"]
    kind, properties, message = hostile
    assert kind == "error" and properties["file"] == "traces/hostile.jsonl"
    assert "title=tracecheck P001%3A a%3Ab%2Cc%25d::" in found["github"]
    assert "50%25 of rounds: same, query%0Asecond line" in found["github"]
    assert "50% of rounds: same, query\nsecond line <b>&amp; \\x1b[31m\\x00 ::error::forged" in message


def test_github_annotates_failing_as_errors_known_as_warnings_and_skips_decided(outputs):
    found, _ = outputs
    data = json.loads(found["json"])
    kinds = [_parse_command(line)[0] for line in found["github"].splitlines() if line.startswith("::")]
    statuses = [f["status"] for f in data["findings"]]
    assert kinds == ["error"] * statuses.count("new") + ["warning"] * statuses.count("baseline")
    assert found["github"].splitlines()[-1].endswith("· failed")


def _finding(i: int, status: str = "new", **extra) -> Finding:
    """A broken expectation of trace ``t{i}`` (its file named so that files sort as numbers)."""
    fields = {"kind": "expectation", "rule": "P001", "trace": f"t{i}", "file": f"traces/t{i:03}.jsonl", "line": i + 1, "round": None, "message": f"message {i}", "fingerprint": f"fp{i}"}
    return Finding(**{**fields, "status": status, **extra})


def _data(findings: list[Finding], warnings: list[tuple[str, int | None, str]] = ()) -> CheckReport:
    """The report check writes of ``findings`` (one trace and one expectation checked
    each), as the command makes it: a ``CheckResult``, then ``check_data``."""
    result = CheckResult(findings=list(findings), traces=len(findings), expectations=len(findings), allow_empty=True)
    for file, line, reason in warnings:
        result.diagnostics.warn(file, line, reason)
    return check_data(result, Settings(preset="default"))


def test_github_stays_within_the_annotation_limits_and_says_what_it_left_out():
    findings = [_finding(i) for i in range(15)] + [_finding(100 + i, "baseline") for i in range(12)] + [_finding(200, "accepted")]
    warnings = [("traces/bad.jsonl", 3, "not JSON")]
    lines = render("github", _data(findings, warnings)).splitlines()
    kinds = [line.split(" ", 1)[0] for line in lines if line.startswith("::")]
    assert kinds.count("::error") == 10 and kinds.count("::warning") == 10 and kinds.count("::notice") == 1
    # The most important first: the first ten failing ones are the ones annotated.
    assert [_parse_command(line)[1]["title"] for line in lines if line.startswith("::error")] == [f"tracecheck P001: t{i}" for i in range(10)]
    (notice,) = [_parse_command(line)[2] for line in lines if line.startswith("::notice")]
    assert notice.startswith("8 more not annotated (5 failing, 2 known, 1 input warnings)")
    logged = [line for line in lines if line.startswith("tracecheck: traces/")]
    assert [line.split(": ")[1] for line in logged] == [f"traces/t{i:03}.jsonl:{i + 1}" for i in (10, 11, 12, 13, 14, 110, 111)] + ["traces/bad.jsonl:3"]


def test_the_step_summary_is_appended_only_where_github_says(tmp_path):
    data = _data([_finding(1), _finding(2, "accepted", reason="fine")])
    assert check_github.append_github_summary(data, environ={}) is None
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    from tracecheck.reports.check_report import append_github_summary

    assert append_github_summary(data, environ={"GITHUB_STEP_SUMMARY": str(summary)}) == str(summary)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## tracecheck check: failed\n") and "| ❌ | P001 | t1 |" in text and "[accepted: fine]" in text


def test_the_step_summary_is_cut_to_its_limit_with_whole_rows():
    data = _data([_finding(i, message="x" * 300) for i in range(50)])
    text = check_github.github_summary(data, limit=4000)
    assert len(text.encode()) <= 4000
    shown = text.count("| ❌ |")
    assert 0 < shown < 50 and text.rstrip().endswith(f"… {50 - shown} more findings not shown (the step summary is limited to 1 MiB)")
    assert check_github.github_summary(_data([_finding(1)])) == render("markdown", _data([_finding(1)]))


def test_every_format_renders():
    data = _data([_finding(1), _finding(2, "allowed", reason="r")])
    for fmt in FORMATS:
        assert render(fmt, data).endswith("\n")
