"""The Who&When Magentic-One family (tests/corpus/who-and-when-magentic-one/PROVENANCE.md):
the 28 hand-crafted runs of the failure-attribution dataset that tests/corpus/who-and-when/
does not hold, labelled by reading before any replay. Every run is read, without
--input-format and without a warning, as the labelled trace, with the dataset's grade (every
run of the dataset failed); three round counts made by hand match tracecheck's.
The per-run verdicts of the guards are pinned elsewhere."""

from __future__ import annotations

import json

from conftest import ROOT

FOLDER = ROOT / "tests" / "corpus" / "who-and-when-magentic-one"
OTHER = ROOT / "tests" / "corpus" / "who-and-when"

# Counted by hand from the files' "history", before tracecheck read them:
# - hc-26: 8 "Orchestrator (-> ...)" instructions (WebSurfer 3, FileSurfer 5) -> 8 rounds;
# - hc-55: 9 instructions (WebSurfer 8, Assistant 1) -> 9 rounds;
# - hc-24: no instruction at all (plan, ledger, "Request satisfied", answer) -> 0 rounds,
#   yet a trace of its own.
HAND_COUNTED = {"hc-26.json:1": 8, "hc-55.json:1": 9, "hc-24.json:1": 0}


def test_every_run_is_read_as_labelled(cli):
    labels = json.loads((FOLDER / "labels.json").read_text(encoding="utf-8"))["traces"]
    files = sorted(p.name for p in FOLDER.glob("*.json") if p.name != "labels.json")
    assert len(files) == len(labels) == 28
    assert sorted(label["file"].split("/", 1)[1] for label in labels) == files
    # the other half of the hand-crafted set, no run in both folders
    assert not set(files) & {p.name for p in OTHER.glob("hc-*.json")}
    result = cli("convert", str(FOLDER), "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr  # no run unread, no record skipped
    events = [json.loads(line) for line in result.stdout.splitlines()]
    heads = {e["trace"]: e for e in events if e["type"] == "trace"}
    assert set(heads) == {label["trace"] for label in labels}
    assert {h["source_format"] for h in heads.values()} == {"who-and-when"}
    outcomes = {e["trace"]: e["labels"]["outcome"] for e in events if e["type"] == "labels"}
    assert outcomes == {label["trace"]: "failure" for label in labels}  # is_corrected: false
    rounds: dict[str, int] = {}
    for e in events:
        if e["type"] == "round":
            rounds[e["trace"]] = max(rounds.get(e["trace"], 0), e["round"])
    for label in labels:  # a loop's or a stall's round lies within its run
        if label["kind"] != "healthy":
            by = label.get("stop_by", label.get("fire_by"))
            assert by <= rounds[label["trace"]], label["trace"]
    assert {t: rounds.get(t, 0) for t in HAND_COUNTED} == HAND_COUNTED
    # the dataset leaves 8 agent replies out (PROVENANCE): calls without a result, not warnings
    calls = {
        (e["trace"], c["id"]) for e in events if e["type"] == "round" for c in e.get("tool_calls", [])
    }
    answered = {(e["trace"], e["call_id"]) for e in events if e["type"] == "result"}
    assert len(calls) == 123 and len(calls - answered) == 8


def test_replay_reads_every_run(cli):
    result = cli(
        "replay", str(FOLDER), "--labels", str(FOLDER / "labels.json"), "-f", "json",
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["warnings"] == []
    assert len(report["traces"]) == 28
