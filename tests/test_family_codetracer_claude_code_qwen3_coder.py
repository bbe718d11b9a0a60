"""The corpus family codetracer-claude-code-qwen3-coder (tests/corpus/, see its PROVENANCE.md):
78 Terminal-Bench 1 trials of Claude Code 2.0.29 driving Qwen3-Coder, as stream-json lines
recovered from NJU-LINK/CodeTracer's terminal recordings, with the harness's results.json.
Every run is read by the claude-code-stream reader without --input-format (no file unread, no
warning beyond the ones the data explains), the grader's verdict is each main run's outcome,
every trace is labelled, and three runs' round counts, counted by hand, match tracecheck's.
(Per-run guard verdicts are pinned elsewhere.)"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from conftest import read_with_diagnostics

FAMILY = Path(__file__).resolve().parent / "corpus" / "codetracer-claude-code-qwen3-coder"
LABELS = json.loads((FAMILY / "labels.json").read_text(encoding="utf-8"))["traces"]

# The streams the harness cut: the agent was stopped (at its 45-minute limit, or right after
# it asked to kill a background shell) before Claude Code wrote its result line.
NO_RESULT_LINE = {
    "blind-maze-explorer-algorithm",
    "blind-maze-explorer-algorithm.easy",
    "blind-maze-explorer-algorithm.hard",
    "crack-7z-hash.hard",
    "get-bitcoin-nodes",
    "hf-model-inference",
    "qemu-alpine-ssh",
    "run-pdp11-code",
    "solana-data",
}
# ... and of those, the ones whose last call (a KillShell) never got its result.
KILLSHELL_WITHOUT_RESULT = NO_RESULT_LINE - {"crack-7z-hash.hard"}


def _read():
    traces, diagnostics = read_with_diagnostics(FAMILY)
    return traces, [(Path(d.file).parent.name, d.reason) for d in diagnostics]


def test_every_run_is_read_with_only_the_warnings_the_data_explains():
    traces, warnings = _read()
    runs = sorted(p.name for p in FAMILY.iterdir() if p.is_dir())
    assert len(runs) == 78
    assert {t.format for t in traces} == {"claude-code-stream"}
    # One main trace per run, plus the Task sub-agents (<session>/<tool_use_id>).
    main = [t for t in traces if "/" not in t.id]
    assert sorted(Path(t.file).parent.name for t in main) == runs
    assert len(traces) == 86
    assert all(t.rounds for t in traces)
    expected = Counter()
    for run in NO_RESULT_LINE:
        expected[(run, "no result line: the stream ends before the run did")] += 1
    for run in KILLSHELL_WITHOUT_RESULT:
        expected[(run, "(KillShell) has no result")] += 1
    # configure-git-webserver: the model emitted a tool_use with an empty name; Claude Code
    # answered "No such tool available: " to it.
    expected[("configure-git-webserver", "tool_use block without a name skipped")] += 1
    expected[("configure-git-webserver", "tool result for unknown call id")] += 1
    seen = Counter()
    for run, reason in warnings:
        key = next((k for k in expected if k[0] == run and k[1] in reason), (run, reason))
        seen[key] += 1
    assert seen == expected


def test_outcomes_come_from_the_harness_and_match_the_labels():
    traces, _ = _read()
    by_id = {t.id: t for t in traces}
    assert sorted(x["trace"] for x in LABELS) == sorted(by_id)  # every trace labelled, no stray label
    for label in LABELS:
        trace = by_id[label["trace"]]
        assert label["file"] == f"{FAMILY.name}/{Path(trace.file).resolve().relative_to(FAMILY).as_posix()}"
        if "/" in trace.id:  # a sub-agent: the trial is graded, not it
            assert (trace.outcome, label["outcome"]) == ("unknown", "unknown")
            continue
        resolved = json.loads((Path(trace.file).parent / "results.json").read_text(encoding="utf-8"))["is_resolved"]
        assert trace.outcome == label["outcome"] == {True: "success", False: "failure", None: "unknown"}[resolved]
    assert Counter(x["kind"] for x in LABELS) == {"healthy": 81, "mixed": 4, "loop": 1}
    assert Counter(x["outcome"] for x in LABELS) == {"failure": 47, "success": 30, "unknown": 9}


def test_round_counts_counted_by_hand():
    traces, _ = _read()
    rounds = {Path(t.file).parent.name: len(t.rounds) for t in traces if "/" not in t.id}
    # Counted by hand from the files: distinct message ids of the assistant lines (one
    # response per id; a response's thinking, text and tool_use blocks are separate lines).
    # hello-world: a Write, then the summary. fix-permissions: LS (no such tool), ls, Read,
    # chmod, ls, run, summary. crack-7z-hash.easy: 21 calls in 21 responses, then the summary.
    assert rounds["hello-world"] == 2
    assert rounds["fix-permissions"] == 7
    assert rounds["crack-7z-hash.easy"] == 22
    # Labelled rounds lie inside their runs.
    by_run = {x["file"].split("/")[1]: x for x in LABELS if "/" not in x["trace"]}
    for run, label in by_run.items():
        for key in ("stop_by", "fire_by"):
            if key in label:
                assert 1 <= label[key] <= rounds[run]
