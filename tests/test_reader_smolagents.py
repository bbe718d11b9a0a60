"""The smolagents reader: one round per planning or action step, the step's observations
and error as its calls' result, the final answer step without calls, tokens from each
step's token_usage; read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    assert_sniffed_alone,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "smolagents"
CODE = FIXTURES / "code_agent_steps.json"
TOOLS = FIXTURES / "toolcalling_run_result.json"
LEGACY = FIXTURES / "legacy_steps.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"
ALL = [CODE, TOOLS, LEGACY, MALFORMED]
T = 1748941200.0  # 2025-06-03T09:00:00Z, the code agent's first step


def test_code_agent_steps_plan_code_calls_errors_and_answer():
    (trace,), warnings = read(CODE)
    assert warnings == []
    assert trace.format == "smolagents"
    # The plan is a model call of its own; the final_answer step has no calls.
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [[], ["python_interpreter"], ["python_interpreter"], ["python_interpreter"], []]
    first, failed, fixed = trace.tool_calls()
    assert first.arguments == "import os\nsizes = [os.path.getsize(os.path.join('/data', f)) for f in os.listdir('/data')]\nprint(len(sizes))"
    assert first.arguments_error is None  # code, not JSON
    assert (first.result.content, first.result.is_error) == ("Execution logs:\n12\nLast output from code snippet:\nNone", False)
    assert failed.result.is_error is True
    assert failed.result.content == "Code execution failed at line 'print(len(bigs))' due to: InterpreterError: The variable `bigs` is not defined."
    assert (fixed.result.content, fixed.result.is_error) == ("Execution logs:\n3\nLast output from code snippet:\nNone", False)
    assert [usage_tuple(r) for r in trace.rounds] == [(610, 42, None, None), (1250, 61, None, None), (1420, 38, None, None), (1600, 25, None, None), (1710, 19, None, None)]
    # Starts from each step's timing; an end only where no tool ran after the model.
    assert [r.started_at for r in trace.rounds] == [T, T + 1.6, T + 4.1, T + 6.3, T + 8.1]
    assert [r.ended_at for r in trace.rounds] == [T + 1.5, None, None, None, T + 9.9]
    assert first.result.ended_at == T + 4.0
    assert trace.rounds[4].text == "Thought: answer.\n<code>\nfinal_answer(3)\n</code>"
    assert trace.metadata["final_answer"] == "3"
    assert [m.text for m in trace.user_messages] == ["How many files in /data are larger than 1 MB?"]
    assert (trace.ending, trace.error) == ("answered", None)


def test_run_result_with_parallel_calls_a_failed_tool_and_max_steps():
    (trace,), warnings = read(TOOLS)
    assert warnings == []
    assert [[c.id for c in r.tool_calls] for r in trace.rounds] == [["call_a1", "call_a2"], ["call_b1"], ["call_c1"], []]
    results = {c.id: (c.result.content, c.result.is_error) for c in trace.tool_calls()}
    assert results == {
        # one observation line per call, in call-id order
        "call_a1": ("ACME: 41.20 USD", False),
        "call_a2": ("GLOBEX: 17.95 USD", False),
        # the tool raised: no tool_calls recorded, the call comes from the model's message
        "call_b1": ("Error executing tool 'get_history' with arguments {'ticker': 'ACME', 'days': 'seven'}: ValueError: days must be an integer\nPlease try again or use another tool", True),
        "call_c1": ("[40.1, 40.8, 41.0, 41.5, 40.9, 41.1, 41.2]", False),
    }
    assert trace.tool_calls().__next__().arguments == {"ticker": "ACME"}
    assert [usage_tuple(r) for r in trace.rounds] == [(900, 48, None, None), (1010, 30, None, None), (1150, 33, None, None), (1300, 21, None, None)]
    assert trace.usage_total is None  # the steps carry their own counts
    # The step smolagents adds at max_steps: the forced answer, and a limit.
    assert trace.rounds[3].text == "ACME trades at 41.20 USD, GLOBEX at 17.95 USD."
    assert (trace.ending, trace.error) == ("limit", "Reached max steps.")
    assert trace.metadata == {"state": "max_steps_error", "final_answer": "ACME trades at 41.20 USD, GLOBEX at 17.95 USD."}


def test_older_steps_one_per_line():
    (trace,), warnings = read(LEGACY)
    assert warnings == []
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["web_search"], ["web_search"], []]
    assert [usage_tuple(r) for r in trace.rounds] == [(512, 30, None, None), (640, 30, None, None), (760, 24, None, None)]
    assert [r.started_at for r in trace.rounds] == [1740000000.2, 1740000002.1, 1740000004.0]
    assert trace.rounds[2].ended_at == 1740000005.1  # the final_answer call ended the run
    assert [c.result.content for c in trace.tool_calls()] == ["India is the most populous country."] * 2
    assert trace.ending == "answered"


def test_malformed_lines_warn_and_a_generation_error_ends_the_run():
    (trace,), warnings = read(MALFORMED)
    assert len(trace.rounds) == 2
    assert usage_tuple(trace.rounds[1]) is None
    name = MALFORMED.name
    assert sorted((file, line) for file, line, _ in warnings) == [(name, 3), (name, 4), (name, 5), (name, 5)]
    reasons = " | ".join(reason for _, _, reason in warnings)
    assert "not valid JSON" in reasons
    assert "not a smolagents memory step: an object of 2 items skipped" in reasons
    assert "token_usage.input_tokens -5 is not a token count" in reasons
    assert "token_usage.output_tokens '12k' is not a token count" in reasons
    assert (trace.ending, trace.error) == ("error", "Error in generating model output:\nConnection reset by peer")


def _step(number, calls, observations, error=None):
    return {
        "step_number": number,
        "timing": {"start_time": 1750000000.0 + number, "end_time": 1750000000.5 + number, "duration": 0.5},
        "tool_calls": [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}} for cid, name, args in calls],
        "error": error,
        "model_output_message": {"role": "assistant", "content": None, "tool_calls": None},
        "model_output": None,
        "observations": observations,
        "token_usage": {"input_tokens": 100 * number, "output_tokens": 10, "total_tokens": 100 * number + 10},
        "is_final_answer": False,
    }


def test_observations_that_do_not_split_by_call_and_a_final_answer_step(tmp_path):
    steps = [
        {"task": "Read both files.", "task_images": None},
        _step(1, [("c1", "read_file", {"path": "a.txt"}), ("c2", "read_file", {"path": "b.txt"})], "line one\nline two\nline three"),
        _step(2, [("c3", "read_file", {"path": "c.txt"}), ("c4", "list_dir", {"path": "."})], None, error={"type": "AgentToolExecutionError", "message": "Unknown tool list_dir, should be one of: read_file, final_answer."}),
        {"output": "done"},
    ]
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"steps": steps}), encoding="utf-8")
    (trace,), warnings = read(path)
    c1, c2, c3, c4 = trace.tool_calls()
    # Three lines for two calls: each gets all of it.
    assert c1.result.content == c2.result.content == "line one\nline two\nline three"
    # The error names list_dir: its result; read_file's was never recorded.
    assert (c4.result.content, c4.result.is_error) == ("Unknown tool list_dir, should be one of: read_file, final_answer.", True)
    assert c3.result is None
    assert [reason for _, _, reason in warnings] == ["trace steps.json:1: call c3 (read_file) has no result"]
    assert trace.metadata["final_answer"] == "done"
    # A failed call is the call's error, not the run's: the log just stops there.
    assert (trace.error, trace.ending) == (None, None)


def test_sniffed_without_input_format_and_listed(cli, tmp_path):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"smolagents"}
    assert "smolagents" in cli("formats").stdout
    report = json.loads(cli("replay", str(CODE), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert (shown["format"], shown["rounds"], shown["tool_calls"]) == ("smolagents", 5, 3)
    assert shown["tokens"] == 610 + 42 + 1250 + 61 + 1420 + 38 + 1600 + 25 + 1710 + 19
    # A line with a step number and nothing of a memory step is not one.
    other = write_jsonl(tmp_path / "other.jsonl", [{"step_number": 1, "reward": 0.5}])
    assert "smolagents" not in cli("replay", str(other), "-f", "json").stdout


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(TOOLS, ["smolagents", "Reached max steps."], ALL, tmp_path)



def test_no_other_formats_file_is_sniffed_as_smolagents_and_its_own_are():
    assert_sniffed_alone("smolagents", ALL)
