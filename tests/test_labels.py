"""Sidecar labels (``--labels FILE``, ``tracecheck label``): outcomes, labels and
expectations for traces in formats that cannot carry them, through the public CLI."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import FIXTURES, SAMPLES
from tracecheck.config import load_settings
from tracecheck.engine.batch import replay_paths
from tracecheck.input.schemas import LABELS_SCHEMA

OPENAI = SAMPLES / "openai"
WEATHER = "seed000_weather_loop.finetune.jsonl:1"  # the default policy stops it at round 3
QUERY_DB = "seed004_query_db_identical.jsonl:1"  # stopped at round 3 too
TAU = FIXTURES / "tau_bench"


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def replay_json(cli, *args: str) -> dict:
    result = cli("replay", *args, "-f", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def by_id(report: dict) -> dict[str, dict]:
    return {(t["id"], Path(t["file"]).name): t for t in report["traces"]} if _repeats(report) else {t["id"]: t for t in report["traces"]}


def _repeats(report: dict) -> bool:
    ids = [t["id"] for t in report["traces"]]
    return len(ids) != len(set(ids))


CSV_LABELS = f"""trace,outcome,label.loop,expect.policy,expect.policy.by_round,expect.policy.note
{WEATHER},failure,weather,fires,4,stop the weather loop
{QUERY_DB},failure,identical query,fires,2,
"""

JSON_LABELS = {
    "version": 1,
    "traces": [
        {
            "trace": WEATHER,
            "outcome": "failure",
            "labels": {"loop": "weather"},
            "expect": [{"guard": "policy", "by_round": 4, "note": "stop the weather loop"}],
        },
        {"trace": QUERY_DB, "outcome": "failure", "labels": {"loop": "identical query"}, "expect": [{"guard": "policy", "fires": True, "by_round": 2}]},
    ],
}


def test_openai_traces_get_outcome_and_policy_expectation_from_a_sidecar(cli, tmp_path):
    bare = by_id(replay_json(cli, str(OPENAI)))
    assert bare[WEATHER]["labels"] == {} and bare[WEATHER]["expectations"] == []

    traces = by_id(replay_json(cli, str(OPENAI), "--labels", str(write(tmp_path / "labels.csv", CSV_LABELS))))
    weather, query = traces[WEATHER], traces[QUERY_DB]
    assert weather["labels"] == {"outcome": "failure", "loop": "weather"}
    assert [(e["guard"], e["by_round"], e["met"], e["note"]) for e in weather["expectations"]] == [
        ("policy", 4, True, "stop the weather loop")
    ]
    assert [(e["guard"], e["by_round"], e["met"]) for e in query["expectations"]] == [("policy", 2, False)]
    assert "it first did at round 3" in query["expectations"][0]["message"]


def test_csv_and_json_sidecars_give_the_same_report(cli, tmp_path):
    from_csv = replay_json(cli, str(OPENAI), "--labels", str(write(tmp_path / "labels.csv", CSV_LABELS)))
    from_json = replay_json(cli, str(OPENAI), "--labels", str(write(tmp_path / "labels.json", json.dumps(JSON_LABELS))))
    assert from_csv["traces"] == from_json["traces"]
    assert from_csv["totals"]["expectations_broken"] == 1


def test_the_sidecar_wins_over_what_the_trace_carries(cli, tmp_path):
    native = SAMPLES / "seed004_query_db_identical.jsonl"
    before = by_id(replay_json(cli, str(native)))["seed004_query_db_identical"]
    assert before["labels"]["outcome"] == "failure"
    assert {e["guard"] for e in before["expectations"]} == {"R001", "R002", "policy"}

    sidecar = {
        "version": 1,
        "traces": [{"trace": "seed004_query_db_identical", "outcome": "success", "expect": [{"guard": "POLICY", "fires": False}]}],
    }
    after = by_id(replay_json(cli, str(native), "--labels", str(write(tmp_path / "l.json", json.dumps(sidecar)))))["seed004_query_db_identical"]
    assert after["labels"]["outcome"] == "success"
    assert after["labels"]["scenario"] == before["labels"]["scenario"]  # labels it does not name stay
    # The sidecar's policy expectation replaced the trace's own; the others stay.
    assert [(e["guard"], e["fires"]) for e in after["expectations"]] == [("R001", True), ("R002", True), ("POLICY", False)]
    assert after["expectations"][-1]["met"] is False and before["expectations"][-1]["met"] is True


def test_a_file_field_chooses_between_repeated_ids(cli, tmp_path):
    paths = [str(TAU / "tau_results.json"), str(TAU / "tau2_results.json")]
    qualified = write(tmp_path / "q.csv", "trace,file,label.note\ntask-0/trial-0,tau2_results.json,second\ntask-0/trial-0,,both\n")
    result = cli("replay", *paths, "--labels", str(qualified), "-f", "json")
    assert result.exit_code == 0
    traces = by_id(json.loads(result.stdout))
    assert traces[("task-0/trial-0", "tau2_results.json")]["labels"]["note"] == "second"  # the longer match wins
    assert traces[("task-0/trial-0", "tau_results.json")]["labels"]["note"] == "both"
    assert "warning" not in result.stderr

    bare = write(tmp_path / "b.csv", "trace,label.note\ntask-0/trial-0,both\n")
    result = cli("replay", *paths, "--labels", str(bare), "-f", "json")
    traces = by_id(json.loads(result.stdout))
    assert {traces[("task-0/trial-0", f)]["labels"]["note"] for f in ("tau_results.json", "tau2_results.json")} == {"both"}
    assert "b.csv:2: the labels of 'task-0/trial-0' went to traces in 2 files" in result.stderr


BAD = [
    ("unknown column", "labels.csv", "trace,outcome,colour\nx,success,red\n", 1, "unknown column 'colour'"),
    ("bad outcome", "labels.csv", "trace,outcome\nx,success\ny,succes\n", 3, "outcome 'succes' is not one of"),
    ("round zero", "labels.csv", "trace,expect.policy.by_round\nx,0\n", 2, "is not a positive round number"),
    ("round text", "labels.csv", "trace,expect.P001,expect.P001.by_round\nx,fires,soon\n", 2, "'soon' is not a positive round number"),
    ("quiet by a round", "labels.csv", "trace,expect.policy,expect.policy.by_round\nx,quiet,3\n", 2, "applies only when the guard should fire"),
    ("duplicate id", "labels.csv", "trace,outcome\nx,success\ny,\nx,failure\n", 4, "'x' is labelled twice (first at line 2)"),
    ("non-UTF-8", "labels.csv", b"trace,outcome\nx,success\ny\xff,failure\n", 3, "not UTF-8"),
    ("json bad by_round", "labels.json", '{"version": 1, "traces": [\n {"trace": "a",\n  "expect": [{"guard": "policy", "by_round": -1}]}]}', 3, "is not a positive round number"),
    ("json unknown field", "labels.json", '{"version": 1, "traces": [\n {"trace": "a"},\n {"trace": "b", "when": 1}]}', 3, "unknown field 'when' in traces[1]"),
    ("json duplicate id", "labels.json", '{"version": 1, "traces": [\n {"trace": "a"},\n {"trace": "a"}]}', 3, "labelled twice (first at line 2)"),
    ("json syntax", "labels.json", '{"version": 1, "traces": [\n {"trace": "a",}]}', 2, "not valid JSON"),
    ("json outcome as label", "labels.json", '{"version": 1, "traces": [\n {"trace": "a", "labels": {"outcome": "success"}}]}', 2, "in its own 'outcome' field"),
]


@pytest.mark.parametrize("name, text, line, reason", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_sidecar_exits_2_naming_file_line_and_reason(cli, tmp_path, name, text, line, reason):
    sidecar = write(tmp_path / name, text)
    for command in ("replay", "show"):
        result = cli(command, str(OPENAI), "--labels", str(sidecar))
        assert result.exit_code == 2, (command, result.stdout)
        assert f"{name}:{line}: " in result.stderr and reason in result.stderr, result.stderr
        assert result.stdout == ""


def test_an_unmatched_entry_warns_and_every_trace_is_still_reported(cli, tmp_path):
    sidecar = write(tmp_path / "labels.csv", f"trace,outcome\n{WEATHER},failure\nno-such-trace,success\n")
    result = cli("replay", str(OPENAI), "--labels", str(sidecar), "-f", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert len(report["traces"]) == 2
    assert "labels.csv:3: no trace matches the labels of 'no-such-trace'" in result.stderr
    assert [w["line"] for w in report["warnings"]] == [3]
    assert cli("replay", str(OPENAI), "--labels", str(sidecar), "--strict").exit_code == 2

    shown = cli("show", str(OPENAI), "--labels", str(sidecar), "--trace", WEATHER, "--no-guards")
    assert shown.exit_code == 0 and "outcome=failure" in shown.stdout
    assert "no trace matches the labels of 'no-such-trace'" in shown.stderr


def test_label_template_round_trip_csv(cli, tmp_path):
    template = cli("label", str(OPENAI), "--format", "csv")
    assert template.exit_code == 0, template.stderr
    lines = template.stdout.splitlines()
    assert lines[0] == "trace,file,outcome,expect.policy,expect.policy.by_round,expect.policy.note"
    assert sorted(lines[1:]) == sorted([f"{WEATHER},,,,,", f"{QUERY_DB},,,,,"])

    filled = "\n".join([lines[0], *(line.replace(",,,,,", ",,failure,,2,") if line.startswith(QUERY_DB) else line for line in lines[1:])])
    sidecar = write(tmp_path / "filled.csv", filled + "\n")
    traces = by_id(replay_json(cli, str(OPENAI), "--labels", str(sidecar)))
    assert traces[QUERY_DB]["labels"] == {"outcome": "failure"}
    assert [(e["by_round"], e["met"]) for e in traces[QUERY_DB]["expectations"]] == [(2, False)]
    assert traces[WEATHER]["labels"] == {} and traces[WEATHER]["expectations"] == []


def test_label_template_json_is_valid_prefilled_and_changes_nothing_unfilled(cli, tmp_path):
    inputs = [str(SAMPLES / "seed004_query_db_identical.jsonl"), str(TAU / "tau_results.json"), str(TAU / "tau2_results.json")]
    out = tmp_path / "labels.json"
    result = cli("label", *inputs, "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    template = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(template, LABELS_SCHEMA)
    entries = {(e["trace"], e.get("file")): e for e in template["traces"]}
    native = entries[("seed004_query_db_identical", None)]
    assert native["outcome"] == "failure" and "scenario" in native["labels"]
    assert {"guard": "policy", "fires": True, "by_round": 3, "note": "the same call answered the same way: stop by its 3rd"} in native["expect"]
    assert entries[("task-0/trial-0", "tau2_results.json")]["outcome"] == "success"  # the reward, pre-filled
    assert ("task-1/trial-1", None) in entries  # an id in one file only needs no file

    plain = replay_json(cli, *inputs)
    labelled = replay_json(cli, *inputs, "--labels", str(out))
    assert labelled["traces"] == plain["traces"]


def test_schema_labels_is_printed(cli):
    result = cli("schema", "labels")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == LABELS_SCHEMA
    jsonschema.Draft202012Validator.check_schema(LABELS_SCHEMA)
    jsonschema.validate(JSON_LABELS, LABELS_SCHEMA)


def test_label_never_writes_over_an_input(cli, tmp_path):
    # Named .json, a name a labels file may have: only the input guard stops it.
    trace = tmp_path / "runs.json"
    trace.write_bytes((SAMPLES / "seed004_query_db_identical.jsonl").read_bytes())
    before = trace.read_bytes()
    result = cli("label", str(tmp_path), "-o", str(trace))
    assert result.exit_code == 2
    assert "is also an input" in result.stderr
    assert trace.read_bytes() == before
    # Named .jsonl, it is refused before anything is read: label writes no JSON Lines.
    jsonl = trace.rename(tmp_path / "runs.jsonl")
    result = cli("label", str(tmp_path), "-o", str(jsonl))
    assert result.exit_code == 2 and "label does not write JSON Lines (.jsonl)" in result.stderr
    assert jsonl.read_bytes() == before


def test_label_takes_its_format_from_the_output_name(cli, tmp_path):
    target = tmp_path / "labels.csv"
    assert cli("label", str(SAMPLES / "seed004_query_db_identical.jsonl"), "-o", str(target)).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("trace,")
    result = cli("label", str(SAMPLES / "seed004_query_db_identical.jsonl"), "-f", "json", "-o", str(target))
    assert result.exit_code == 2 and "the name says CSV (.csv), not json" in result.stderr


def test_plain_functions_take_labels(tmp_path):
    sidecar = write(tmp_path / "labels.json", json.dumps(JSON_LABELS))
    report = replay_paths([str(OPENAI)], load_settings(), labels=str(sidecar))
    met = {r.trace.id: [e.met for e in r.expectations] for r in report.results}
    assert met == {WEATHER: [True], QUERY_DB: [False]}
    assert {r.trace.id: r.trace.outcome for r in report.results} == {WEATHER: "failure", QUERY_DB: "failure"}


def test_the_readme_examples_read_alike(tmp_path):
    from tracecheck.input.labels import load_labels

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Labels for traces in other formats", 1)[1]
    json_text = section.split("```json\n", 1)[1].split("```", 1)[0]
    csv_text = section.split("```csv\n", 1)[1].split("```", 1)[0]
    jsonschema.validate(json.loads(json_text), LABELS_SCHEMA)
    from_json = load_labels(write(tmp_path / "l.json", json_text)).entries
    from_csv = load_labels(write(tmp_path / "l.csv", csv_text)).entries
    shape = lambda entries: [(e.trace, e.file, e.outcome, e.labels, e.expectations) for e in entries]  # noqa: E731
    assert shape(from_json) == shape(from_csv)
    assert from_csv[0].expectations[0].by_round == 4 and from_csv[1].expectations[0].fires is False


def test_a_csv_template_warns_about_a_second_expectation_for_one_guard(cli, tmp_path):
    trace = tmp_path / "two.jsonl"
    events = [
        {"type": "expect", "trace": "t", "guard": "policy", "by_round": 3},
        {"type": "expect", "trace": "t", "guard": "policy", "by_round": 5},
        {"type": "round", "trace": "t", "text": "done"},
    ]
    trace.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    as_csv = cli("label", str(trace), "-f", "csv")
    assert as_csv.exit_code == 0
    assert as_csv.stdout.splitlines()[1] == "t,,,fires,3,"
    assert "two.jsonl:1: trace 't': a CSV labels file holds one expectation per guard" in as_csv.stderr
    as_json = json.loads(cli("label", str(trace)).stdout)
    assert [e["by_round"] for e in as_json["traces"][0]["expect"]] == [3, 5]


def test_a_csv_template_keeps_formula_like_ids_as_text_and_reads_them_back(cli, tmp_path):
    # Trace ids come from untrusted transcripts: a spreadsheet must not run them.
    ids = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "'quoted", "plain"]
    lines = []
    for trace_id in ids:
        lines.append(json.dumps({"type": "trace", "trace": trace_id}))
        lines.append(json.dumps({"type": "user", "trace": trace_id, "text": "weather?"}))
        lines.append(json.dumps({"type": "round", "trace": trace_id, "text": "Sunny."}))
    source = write(tmp_path / "ids.jsonl", "\n".join(lines) + "\n")
    template = cli("label", str(source), "--format", "csv")
    assert template.exit_code == 0, template.stderr
    first_cells = [row.split(",")[0] for row in template.stdout.splitlines()[1:]]
    assert all(not cell.lstrip('"').startswith(("=", "+", "-", "@")) for cell in first_cells), first_cells

    filled = template.stdout.replace(",,,,,", ",,failure,,,")
    sidecar = write(tmp_path / "filled.csv", filled)
    replayed = cli("replay", str(source), "--labels", str(sidecar), "-f", "json", "--strict")
    assert replayed.exit_code == 0, replayed.stderr  # the traces read cleanly: no warning
    traces = by_id(json.loads(replayed.stdout))
    assert set(traces) == set(ids) and all(traces[i]["rounds"] == 1 for i in ids)
    assert all(traces[i]["labels"] == {"outcome": "failure"} for i in ids), {i: traces[i]["labels"] for i in ids}
