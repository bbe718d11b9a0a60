"""The tau2-bench-retail-gpt-5-nano family (tests/corpus/tau2-bench-retail-gpt-5-nano,
PROVENANCE.md there): 114 real τ²-bench retail dialogues of gpt-5-nano, one gzip'd
SimulationRun export per file, labelled by reading them before any replay.

Every file must be read by the ``tau-bench`` reader without ``--input-format`` and
without a warning, every run must match one label (and its reward the label's
outcome), and the round counts of three runs counted by hand from the message lists
(assistant messages after the orchestrator's greeting; a batch of parallel calls is one
message) must be tracecheck's. Per-run verdicts of the presets are pinned elsewhere.
"""

from __future__ import annotations

import gzip
import json

from conftest import ROOT

FAMILY = "tau2-bench-retail-gpt-5-nano"
FOLDER = ROOT / "tests" / "corpus" / FAMILY

# Counted by hand from the files: task 2 has 13 assistant messages (the greeting and 12
# responses, two of them batches of 2 and 5 calls); task 37 has 27 (the run that hit
# max_steps); task 104 has 22 (the run the runner ended on too_many_errors).
HAND_COUNTED_ROUNDS = {"task-2": 12, "task-37": 26, "task-104": 21}


def _convert(cli, tmp_path) -> dict[str, list[dict]]:
    out = tmp_path / "family.jsonl"
    result = cli("convert", str(FOLDER), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
    assert result.stderr.strip() == "wrote 114 trace(s) to " + str(out), result.stderr
    events: dict[str, list[dict]] = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        events.setdefault(event["trace"], []).append(event)
    return events


def test_every_run_is_read_and_matches_one_label(cli, tmp_path):
    events = _convert(cli, tmp_path)
    labels = json.loads((FOLDER / "labels.json").read_text(encoding="utf-8"))["traces"]
    files = sorted(p.name for p in FOLDER.glob("task_*.json.gz"))
    assert len(files) == len(labels) == len(events) == 114
    assert {label["trace"] for label in labels} == set(events)
    assert {label["file"] for label in labels} == {f"{FAMILY}/{name}" for name in files}
    for label in labels:
        head = events[label["trace"]][0]
        assert head["type"] == "trace" and head["source_format"] == "tau-bench"
        outcome = next(e["labels"]["outcome"] for e in events[label["trace"]] if e["type"] == "labels")
        assert outcome == label["outcome"], label["trace"]
        run = json.loads(gzip.decompress((FOLDER / label["file"].split("/", 1)[1]).read_bytes()))
        assert f"task-{run['task_id']}" == label["trace"]
        assert (run["reward_info"]["reward"] >= 1) == (label["outcome"] == "success")
    kinds = [label["kind"] for label in labels]
    assert (kinds.count("loop"), kinds.count("mixed"), kinds.count("healthy")) == (1, 2, 111)


def test_round_counts_match_the_hand_count(cli, tmp_path):
    events = _convert(cli, tmp_path)
    for trace, expected in HAND_COUNTED_ROUNDS.items():
        rounds = [e["round"] for e in events[trace] if e["type"] == "round"]
        assert rounds == list(range(1, expected + 1)), trace
    # The simulated user's own tool (check_for_stop) is not an agent round.
    head = events["task-0"][0]
    assert head["metadata"]["user_tool_calls"] == 1
    assert head["metadata"]["greeting"] == "Hi! How can I help you today?"
