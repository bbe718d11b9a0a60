"""The Who&When family (tests/corpus/who-and-when/PROVENANCE.md): 56 real runs of the
failure-attribution dataset, 26 AG2 expert teams (algorithm-generated) and 30 Magentic-One
runs (hand-crafted), labelled by reading before any replay. Every run is read, without
--input-format and without a warning, as the labelled trace, with the dataset's grade
(every run of the dataset failed); three round counts made by hand match tracecheck's.
The per-run verdicts of the guards are pinned elsewhere."""

from __future__ import annotations

import json

from conftest import ROOT

FOLDER = ROOT / "tests" / "corpus" / "who-and-when"

# Counted by hand from the files' "history", before tracecheck read them:
# - ag-52: 10 messages = the task, 5 "exitcode" replies of Computer_terminal (one to the
#   task's own code), 4 expert messages -> 4 rounds;
# - ag-19: 10 messages = the task, 3 "There is no code from the last 1 message" notices,
#   6 expert messages -> 6 rounds;
# - hc-27: 12 "Orchestrator (-> ...)" instructions (WebSurfer 9, FileSurfer 3) -> 12 rounds.
HAND_COUNTED = {"ag-52.json:1": 4, "ag-19.json:1": 6, "hc-27.json:1": 12}


def test_every_run_is_read_as_labelled(cli):
    labels = json.loads((FOLDER / "labels.json").read_text(encoding="utf-8"))["traces"]
    files = sorted(p.name for p in FOLDER.glob("*.json") if p.name != "labels.json")
    assert len(files) == len(labels) == 56
    assert sorted(label["file"].split("/", 1)[1] for label in labels) == files
    result = cli("convert", str(FOLDER), "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr  # no run unread, no record skipped
    events = [json.loads(line) for line in result.stdout.splitlines()]
    heads = {e["trace"]: e for e in events if e["type"] == "trace"}
    assert set(heads) == {label["trace"] for label in labels}
    assert {h["source_format"] for h in heads.values()} == {"who-and-when"}
    outcomes = {e["trace"]: e["labels"]["outcome"] for e in events if e["type"] == "labels"}
    assert outcomes == {label["trace"]: "failure" for label in labels}  # is_correct / is_corrected: false
    rounds: dict[str, int] = {}
    for e in events:
        if e["type"] == "round":
            rounds[e["trace"]] = max(rounds.get(e["trace"], 0), e["round"])
    for label in labels:  # a label's round lies within its run
        assert label.get("stop_by", label.get("fire_by", 1)) <= rounds.get(label["trace"], 0), label["trace"]
    assert {t: rounds[t] for t in HAND_COUNTED} == HAND_COUNTED
