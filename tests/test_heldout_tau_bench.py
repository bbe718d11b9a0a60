"""Thirteen real τ-bench dialogues `default` was not tuned on (gpt-4o, airline, trial 3 of
the τ-bench authors' published trajectories; tests/corpus/tau-bench/PROVENANCE.md),
labelled before tracecheck was run on them (tests/corpus/tau-bench/labels.json, each
label with its reason). They hold no loop: what they check is that ``default`` leaves
healthy dialogues alone (task 38: the same refusal paraphrased four times to an
insistent user, then a success) and flags, without stopping, the booking refused three
times for the same payment total across the user's turns (task 46), where a stop would
cut the run just before its first correct amount.
"""

from __future__ import annotations

import json

from conftest import ROOT

FOLDER = ROOT / "tests" / "corpus" / "tau-bench"


def test_default_flags_the_booking_stall_and_cuts_no_dialogue(cli):
    labels = json.loads((FOLDER / "labels.json").read_text(encoding="utf-8"))["traces"]
    result = cli("replay", str(FOLDER), "--labels", str(FOLDER / "labels.json"), "-f", "json")
    assert result.exit_code == 0, result.stderr
    traces = {t["id"]: t for t in json.loads(result.stdout)["traces"]}
    assert set(traces) == {label["trace"] for label in labels}  # every dialogue read
    for label in labels:
        trace = traces[label["trace"]]
        assert trace["labels"]["outcome"] == label["outcome"]
        assert trace["policy"]["stops"] == [], f"{label['trace']} ({label['kind']}) is cut"
        if label["kind"] == "mixed":
            first = min((fire["round"] for fire in trace["fires"]), default=None)
            assert first is not None and first <= label["fire_by"] + 1, (label["trace"], trace["fires"])
