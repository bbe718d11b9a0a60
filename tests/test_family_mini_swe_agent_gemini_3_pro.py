"""The family tests/corpus/mini-swe-agent-gemini-3-pro: 97 real mini-swe-agent v1.15 runs of
Gemini 3 Pro on SWE-bench Verified (gzipped .traj.json, PROVENANCE.md beside them), graded
by the SWE-bench harness (report.json beside them, sb-cli's resolved_ids/unresolved_ids
shape) and labelled by reading before any replay (labels.json).

What is pinned here is that tracecheck reads the family as it is: every run read by the
mini-swe-agent reader without --input-format and without a warning, every outcome taken
from the harness's report, and the rounds of three runs counted by hand from the raw
files (one round per assistant message; a response with several ```bash blocks is a
round whose command never ran: mini-swe-agent answered it with a format error). The
per-run verdicts of the guards are pinned by the lead separately.
"""

from __future__ import annotations

import gzip
import json

from conftest import ROOT

FAMILY = "mini-swe-agent-gemini-3-pro"
FOLDER = ROOT / "tests" / "corpus" / FAMILY

# Counted by hand from the raw trajectories: assistant messages in `messages`, and among
# the user messages the format errors ("Please always provide EXACTLY ONE action ...").
BY_HAND = {
    "django__django-14349": (92, 31),  # 31 format errors: responses with no command that ran
    "sympy__sympy-15976": (46, 4),
    "astropy__astropy-12907": (20, 0),
}


def _events(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_run_is_read_with_its_grade_and_no_warning(cli, tmp_path):
    labels = json.loads((FOLDER / "labels.json").read_text(encoding="utf-8"))["traces"]
    out = tmp_path / "family.jsonl"
    result = cli("convert", str(FOLDER), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr  # report.json is a grader file, not a trace
    events = _events(out)
    traces = {e["trace"]: e for e in events if e["type"] == "trace"}
    assert set(traces) == {label["trace"] for label in labels}  # no run unread, nothing else read
    assert {e["source_format"] for e in traces.values()} == {"mini-swe-agent"}
    outcomes = {e["trace"]: e["labels"].get("outcome") for e in events if e["type"] == "labels"}
    for label in labels:
        assert outcomes[label["trace"]] == label["outcome"], label["trace"]  # from the harness's report.json
    ends = {e["trace"]: e["ending"] for e in events if e["type"] == "end"}
    assert set(ends.values()) == {"submitted"}  # every run of this job submitted a patch


def test_rounds_match_the_hand_count(cli, tmp_path):
    for trace_id, (rounds, format_errors) in BY_HAND.items():
        path = FOLDER / f"{trace_id}.traj.json.gz"
        raw = json.loads(gzip.decompress(path.read_bytes()))
        messages = raw["messages"]
        assert sum(m["role"] == "assistant" for m in messages) == rounds
        out = tmp_path / f"{trace_id}.jsonl"
        result = cli("convert", str(path), "-o", str(out))
        assert result.exit_code == 0, result.stderr
        events = _events(out)
        numbered = [e["round"] for e in events if e["type"] == "round"]
        assert numbered == list(range(1, rounds + 1)), trace_id
        # A format error leaves its round without a call; the last round's submit command
        # is the run's final answer, not a call either.
        without_call = sum(1 for e in events if e["type"] == "round" and not e.get("tool_calls"))
        assert without_call == format_errors + 1, trace_id
