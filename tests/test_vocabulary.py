"""One vocabulary across commands: ``-f/--format``, ``-o/--output`` (the format from the
file's name, a name a command cannot write refused) and ``-j/--jobs`` on every command
that reads traces and writes a report; ``show --format json``; check's JUnit report with
a testcase per expectation."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import SAMPLES

LOOP = "seed004_query_db_identical"
SELECT = ["--select", "R001,R002"]  # seed004 under R001 and R002 alone: R002 blocks round 2, R001 stops round 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A few samples, a file with a bad line (a warning) and a labels file for one trace."""
    root = tmp_path_factory.mktemp("vocabulary")
    traces = root / "traces"
    traces.mkdir()
    for name in (LOOP, "seed000_weather_loop", "healthy_pagination", "seed002_contract_search_token_limit"):
        shutil.copy(SAMPLES / f"{name}.jsonl", traces / f"{name}.jsonl")
    good = (SAMPLES / "alternating_ab_loop.jsonl").read_text(encoding="utf-8").splitlines()
    (traces / "warned.jsonl").write_text("\n".join([good[0], "{not json", *good[1:]]) + "\n", encoding="utf-8")
    labels = {"version": 1, "traces": [{"trace": "seed000_weather_loop", "outcome": "failure", "expect": [{"guard": "policy", "by_round": 2}]}]}
    (root / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    return root


def _run(cli, *args: str):
    result = cli(*args)
    return result.exit_code, result.stdout_bytes, result.stderr


# --- -j/--jobs -------------------------------------------------------------------------


def test_check_gives_the_same_report_and_files_with_two_jobs(cli, folder, tmp_path):
    runs = []
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        out.mkdir()
        args = ["check", str(folder / "traces"), "--labels", str(folder / "labels.json"), "--max-wasted-rounds", "1", "-f", "json"]
        code, stdout, stderr = _run(cli, *args, "-o", str(out / "r.xml"), "-o", str(out / "r.sarif"), "-j", jobs)
        runs.append((code, stdout, stderr, (out / "r.xml").read_bytes(), (out / "r.sarif").read_bytes()))
    assert runs[0] == runs[1]
    code, stdout, stderr, *_ = runs[0]
    data = json.loads(stdout)
    assert code == 1 and data["traces"] == 5 and data["counts"]["failing"] > 0
    assert "warned.jsonl:2" in stderr  # the warning of a file read in a worker
    # The labels file reached the workers: its expectation was checked (and broken: the policy acts at round 3).
    (labelled,) = [e for e in data["expectation_checks"] if e["trace"] == "seed000_weather_loop" and e["by_round"] == 2]
    assert labelled["status"] == "broken"


def test_baseline_write_and_prune_are_the_same_with_two_jobs(cli, folder, tmp_path):
    written = []
    for jobs in ("1", "2"):
        target = tmp_path / f"baseline-{jobs}.json"
        code, _, stderr = _run(cli, "baseline", "write", str(folder / "traces"), "--max-wasted-rounds", "1", "-o", str(target), "-j", jobs)
        assert code == 0, stderr
        written.append(target.read_bytes())
    assert written[0] == written[1] and json.loads(written[0])["findings"]
    code, _, stderr = _run(cli, "baseline", "prune", str(tmp_path / "baseline-2.json"), str(folder / "traces"), "-j", "2")
    assert code == 0 and "removed" in stderr  # without --max-wasted-rounds the waste entries are fixed
    assert len(json.loads((tmp_path / "baseline-2.json").read_text())["findings"]) < len(json.loads(written[0])["findings"])


@pytest.mark.parametrize("format", ["terminal", "json"])
def test_show_is_the_same_with_two_jobs(cli, folder, format):
    one = _run(cli, "show", str(folder / "traces"), "-f", format, "--labels", str(folder / "labels.json"), "-j", "1")
    two = _run(cli, "show", str(folder / "traces"), "-f", format, "--labels", str(folder / "labels.json"), "-j", "2")
    assert one == two
    assert one[0] == 0 and "warned.jsonl:2" in one[2] and one[1]


def test_sweep_is_the_same_with_two_jobs(cli, folder):
    args = ["sweep", str(folder / "traces"), "--grid", "P004.threshold=2,3", "-f", "json"]
    one, two = _run(cli, *args, "-j", "1"), _run(cli, *args, "-j", "2")
    assert one == two and one[0] == 0 and len(json.loads(one[1])["points"]) == 2


# --- show --format json and -o ---------------------------------------------------------


def test_show_json_is_the_replay_report_with_each_trace_round_by_round(cli):
    import jsonschema

    code, stdout, _ = _run(cli, "show", str(SAMPLES / f"{LOOP}.jsonl"), *SELECT, "-f", "json")
    assert code == 0
    data = json.loads(stdout)
    jsonschema.validate(data, json.loads(cli("schema", "report").stdout))
    (trace,) = data["traces"]
    rows = trace["timeline"]["rows"]
    assert [row["round"] for row in rows] == list(range(1, 7)) == list(range(1, trace["rounds"] + 1))
    assert rows[0]["calls"][0]["name"] == "query_db" and rows[0]["calls"][0]["result"] == "[]"
    assert rows[-1]["final"] and not rows[-1]["calls"]
    # Where the guards fired, by round: R002 blocks round 2, R001 stops round 3.
    assert {(f["code"], f["round"], f["action"]) for f in trace["fires"]} >= {("R002", 2, "block"), ("R001", 3, "stop")}
    assert [g["code"] for g in data["guards"]] == ["R001", "R002"]


def test_show_json_keeps_only_the_trace_asked_for_and_no_guards_without_them(cli):
    code, stdout, _ = _run(cli, "show", str(SAMPLES), "-f", "jsonl", "--trace", LOOP, "--no-guards")
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert code == 0 and [line["type"] for line in lines] == ["header", "trace", "totals"]
    assert lines[1]["id"] == LOOP and lines[1]["fires"] == [] and lines[0]["guards"] == []


def test_show_o_writes_the_format_its_name_says(cli, tmp_path):
    trace = str(SAMPLES / f"{LOOP}.jsonl")
    code, stdout, _ = _run(cli, "show", trace, "-o", str(tmp_path / "x.json"))
    assert code == 0 and not stdout
    assert json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["traces"][0]["timeline"]["rows"]
    assert cli("show", trace, "-o", str(tmp_path / "x.txt")).exit_code == 0
    assert (tmp_path / "x.txt").read_text(encoding="utf-8").startswith(f"trace {LOOP}")
    for args, words in (
        (["-o", str(tmp_path / "x.md")], "show does not write Markdown (.md); it writes .json, .jsonl, .txt files"),
        (["-o", str(tmp_path / "x.sarif")], "show does not write SARIF (.sarif)"),
        (["-f", "json", "-o", str(tmp_path / "y.txt")], "the name says text (.txt), not json; name the file .json"),
    ):
        result = cli("show", trace, *args)
        assert result.exit_code == 2 and words in result.stderr, result.stderr
    assert not (tmp_path / "x.md").exists() and not (tmp_path / "y.txt").exists()


def test_show_never_writes_over_an_input_and_a_failed_show_replaces_nothing(cli, tmp_path):
    trace = tmp_path / "runs.json"  # a trace with a name show may write
    trace.write_bytes((SAMPLES / f"{LOOP}.jsonl").read_bytes())
    result = cli("show", str(trace), "-o", str(trace))
    assert result.exit_code == 2 and "is also an input" in result.stderr
    assert trace.read_bytes() == (SAMPLES / f"{LOOP}.jsonl").read_bytes()
    earlier = tmp_path / "earlier.json"
    earlier.write_text("kept")
    result = cli("show", str(trace), "--trace", "nope", "-o", str(earlier))
    assert result.exit_code == 2 and "no trace with id 'nope'" in result.stderr and earlier.read_text() == "kept"


# --- -o on check and replay ------------------------------------------------------------


def test_check_o_sarif_writes_sarif_and_replay_refuses_it(cli, folder, tmp_path):
    sarif = tmp_path / "report.sarif"
    result = cli("check", str(folder / "traces"), "--max-wasted-rounds", "1", "-o", str(sarif))
    assert result.exit_code == 1
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and log["runs"][0]["results"]
    again = tmp_path / "again.sarif"
    result = cli("replay", str(folder / "traces"), "-o", str(again))
    assert result.exit_code == 2 and "replay does not write SARIF (.sarif)" in result.stderr and not again.exists()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("report.html", "check does not write HTML (.html); it writes .sarif, .xml, .gitlab.json, .json, .jsonl, .md, .txt files"),
        ("report.csv", "check does not write CSV (.csv)"),
        ("json:report.sarif", "the name says SARIF (.sarif), not json; name the file .json, or leave the 'json:' before it out"),
        ("junit:report.md", "the name says Markdown (.md), not junit; name the file .xml or .junit.xml"),
    ],
)
def test_check_o_refuses_a_name_it_cannot_write_or_that_says_another_format(cli, folder, tmp_path, spec, words):
    result = cli("check", str(folder / "traces"), "-o", str(tmp_path / spec) if ":" not in spec else spec.replace(":", f":{tmp_path}/"))
    assert result.exit_code == 2 and words in result.stderr, result.stderr
    assert not list(tmp_path.iterdir())


def test_check_o_takes_gitlab_and_sarif_in_a_json_file_when_named(cli, folder, tmp_path):
    target = tmp_path / "gl-code-quality-report.json"
    assert cli("check", str(folder / "traces"), "--max-wasted-rounds", "1", "-o", f"gitlab:{target}", "-o", f"sarif:{tmp_path / 'r.json'}").exit_code == 1
    assert isinstance(json.loads(target.read_text()), list) and json.loads(target.read_text())
    assert json.loads((tmp_path / "r.json").read_text())["version"] == "2.1.0"


def test_o_never_writes_over_the_labels_or_baseline_file(cli, folder, tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_bytes((folder / "labels.json").read_bytes())
    baseline = tmp_path / "baseline.json"
    assert cli("baseline", "write", str(folder / "traces"), "-o", str(baseline)).exit_code == 0
    kept = baseline.read_bytes()
    for command in (
        ["check", "--labels", str(labels), "-o", str(labels)],
        ["check", "--baseline", str(baseline), "-o", str(baseline)],
        ["replay", "--labels", str(labels), "-o", str(labels)],
        ["show", "--labels", str(labels), "-o", str(labels)],
        ["sweep", "--grid", "P004.threshold=2,3", "--labels", str(labels), "-o", str(labels)],
    ):
        result = cli(*command, str(folder / "traces"))
        assert result.exit_code == 2 and "is also an input" in result.stderr, (command, result.stderr)
    assert labels.read_bytes() == (folder / "labels.json").read_bytes() and baseline.read_bytes() == kept


def test_sweep_and_baseline_refuse_a_name_they_cannot_write(cli, folder, tmp_path):
    result = cli("sweep", str(folder / "traces"), "--grid", "P004.threshold=2,3", "-o", str(tmp_path / "s.jsonl"))
    assert result.exit_code == 2 and "sweep does not write JSON Lines (.jsonl); it writes .json, .csv, .md, .html, .txt files" in result.stderr
    result = cli("baseline", "write", str(folder / "traces"), "-o", str(tmp_path / "b.sarif"))
    assert result.exit_code == 2 and "baseline write does not write SARIF (.sarif); it writes .json files" in result.stderr
    assert not list(tmp_path.iterdir())


# --- JUnit: a testcase per expectation --------------------------------------------------


def _with_expectations(path: Path, trace_id: str, expectations: list[dict]) -> None:
    """seed004 renamed ``trace_id``, its expect events replaced by ``expectations``."""
    events = [json.loads(line) for line in (SAMPLES / f"{LOOP}.jsonl").read_text(encoding="utf-8").splitlines()]
    events = [e for e in events if e["type"] != "expect"]
    events[2:2] = [{"type": "expect", "trace": LOOP, **e} for e in expectations]
    for event in events:
        event["trace"] = trace_id
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")


def _junit(cli, *args: str):
    result = cli("check", *SELECT, "-f", "junit", *args)
    root = ET.fromstring(result.stdout_bytes)
    (suite,) = root.findall("testsuite")
    return result.exit_code, suite, suite.findall("testcase")


def test_junit_counts_expectations_that_hold_and_fail_one_testcase_each(cli, tmp_path):
    _with_expectations(
        tmp_path / "a.jsonl",
        "loop-a",
        [
            {"guard": "R001", "fires": True, "by_round": 3},  # holds: stops round 3
            {"guard": "R002", "fires": True, "by_round": 2},  # holds: blocks round 2
            {"guard": "policy", "fires": True, "by_round": 3},  # holds
            {"guard": "R001", "fires": True, "by_round": 1},  # broken: first acts at round 3
            {"guard": "R001", "fires": False},  # broken: acts at round 3
            {"guard": "P001", "fires": True},  # not checked: P001 is not run
            {"guard": "X999", "fires": True},  # not a guard: a finding of its own
        ],
    )
    _with_expectations(tmp_path / "b.jsonl", "loop-b", [{"guard": "R001", "fires": True, "by_round": 3}, {"guard": "policy", "fires": False}])
    code, suite, cases = _junit(cli, str(tmp_path))
    assert code == 1
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors")) == ("9", "4", "1", "0")
    by_name = {(c.get("classname"), c.get("name")): c for c in cases}
    assert len(by_name) == len(cases) == 9  # names are unique: trace + guard + expectation
    passed = sorted(key for key, c in by_name.items() if not list(c))
    assert passed == [
        ("loop-a", "R001 should intervene by round 3"), ("loop-a", "R002 should intervene by round 2"),
        ("loop-a", "policy should intervene by round 3"), ("loop-b", "R001 should intervene by round 3"),
    ]
    failures = {key: c.find("failure").get("message") for key, c in by_name.items() if c.find("failure") is not None}
    assert failures == {
        ("loop-a", "R001 should intervene by round 1"): "loop-a: R001 should intervene by round 1; it first acted at round 3",
        ("loop-a", "R001 should stay quiet"): "loop-a: R001 should stay quiet; it acted at round 3",
        ("loop-a", "X999 should intervene"): "loop-a: X999 is not a guard (a typo?); the expectation cannot be checked",
        # A block does a healthy run no harm: the policy acts on it at R001's stop.
        ("loop-b", "policy should stay quiet"): "loop-b: policy should stay quiet; it acted at round 3",
    }
    assert by_name[("loop-a", "P001 should intervene")].find("skipped").get("message") == "P001 is not an enabled guard: expectation not checked"

    # The same failures known in a baseline: skipped with the reason, the counts otherwise the same.
    assert cli("baseline", "write", *SELECT, str(tmp_path), "-o", str(tmp_path / "known.json")).exit_code == 0
    code, suite, cases = _junit(cli, str(tmp_path), "--baseline", str(tmp_path / "known.json"))
    assert code == 0
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("9", "0", "5")
    known = [c.find("skipped").get("message") for c in cases if c.find("skipped") is not None]
    assert known.count("baseline: known in the baseline") == 4


def test_a_stop_that_never_comes_names_never(cli, tmp_path):
    _with_expectations(tmp_path / "a.jsonl", "quiet", [{"guard": "R001", "fires": True, "by_round": 2}])
    code, suite, cases = _junit(cli, str(tmp_path), "--set", "R001.stop_at=50")
    (case,) = cases
    assert code == 1 and case.find("failure").get("message") == "quiet: R001 should intervene by round 2; it never did"


def test_a_list_of_globs_matches_as_fnmatch_matches_each():
    # Several globs are one regex (compiled once per list): it must say what fnmatch says
    # of each glob, case aside, for names that match one, several or none.
    import fnmatch
    import random

    from tracecheck.guards.tool_kinds import matches_any

    rng = random.Random(3)
    globs = ["*edit*", "read_*", "bash", "[a-c]?x*", "*__shell", "exec_command", "*[!a-z]*", "str_replace_editor", "*.py", "a*b*c", "[!r]*"]
    names = ["Edit", "read_file", "BASH", "bx1", "mcp__shell", "exec_command", "A1", "str_replace_editor", "x.py", "aXbYc", "abc", "", "*", "[a]"]
    for _ in range(3000):
        chosen = rng.sample(globs, rng.randrange(0, 5))
        name = rng.choice(names) + rng.choice(["", "_x", "Z", "\n"])
        expected = any(fnmatch.fnmatchcase(name.lower(), glob.lower()) for glob in chosen)
        assert matches_any(name, chosen) is expected, (name, chosen)
