"""Counts read right at 0, 1 and 2 in the reports a person reads: "1 trace", "1 of 1
expectation holds", "saving 1 round", "1 baseline entry looks fixed"."""

from __future__ import annotations

import re

import pytest

from conftest import write_jsonl

COUNTED = r"(traces|rounds|findings|expectations|entries|tool calls|LLM calls|turns|warnings|stops|fires)"


def _trace(name: str, polls: int) -> list[dict]:
    """``polls`` identical calls answered the same way, then an answer."""
    events = [
        {"type": "trace", "trace": name},
        {"type": "labels", "trace": name, "labels": {"outcome": "failure"}},
        {"type": "expect", "trace": name, "guard": "policy", "fires": polls >= 3, **({"by_round": 3} if polls >= 3 else {})},
    ]
    for k in range(1, polls + 1):
        events += [
            {"type": "round", "trace": name, "round": k, "tool_calls": [{"id": f"c{k}", "name": "get_status", "arguments": {"job": 7}}]},
            {"type": "result", "trace": name, "call_id": f"c{k}", "content": "pending"},
        ]
    events.append({"type": "round", "trace": name, "round": polls + 1, "text": "still pending", "finish_reason": "stop"})
    return events


@pytest.mark.parametrize("traces", [0, 1, 2])
def test_check_and_replay_count_in_words_that_agree(tmp_path, cli, traces):
    for k in range(traces):
        write_jsonl(tmp_path / f"run{k}.jsonl", _trace(f"run{k}", 4 if k == 0 else 1))
    if not traces:
        write_jsonl(tmp_path / "empty.jsonl", [{"type": "trace", "trace": "quiet"}, {"type": "round", "trace": "quiet", "round": 1, "text": "hi"}])
    check = cli("check", "--max-wasted-rounds", "0", str(tmp_path))
    replay = cli("replay", str(tmp_path))
    for text in (check.stdout, replay.stdout):
        assert not re.search(rf"(?<![\d,.]){1} {COUNTED}\b", text), text
        assert not re.search(r"(?<![\d,.])1 of 1 expectations", text), text
    if traces == 1:
        assert "1 trace · 1 of 1 expectation holds" in check.stdout
        assert "saving 1 round (more than --max-wasted-rounds 0)" in check.stdout
    if traces == 2:
        assert "2 traces · 2 of 2 expectations hold" in check.stdout


def test_known_findings_and_fixed_entries_read_right(tmp_path, cli):
    write_jsonl(tmp_path / "run.jsonl", _trace("run", 4))
    baseline = tmp_path / "b.json"
    assert cli("baseline", "write", str(tmp_path / "run.jsonl"), "--max-wasted-rounds", "0", "-o", str(baseline)).exit_code == 0
    known = cli("check", str(tmp_path / "run.jsonl"), "--max-wasted-rounds", "0", "--baseline", str(baseline)).stdout
    assert "0 failing findings (known: 1 in the baseline)" in known
    fixed = cli("check", str(tmp_path / "run.jsonl"), "--baseline", str(baseline)).stdout
    assert "1 baseline entry looks fixed" in fixed


def test_a_sweep_of_one_setting_on_one_trace_says_so(tmp_path, cli):
    write_jsonl(tmp_path / "run.jsonl", _trace("run", 4))
    out = cli("sweep", "--grid", "P004.threshold=3", str(tmp_path / "run.jsonl")).stdout
    assert "1 setting on 1 trace, sorted by tokens_saved" in out
