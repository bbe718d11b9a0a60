"""The OpenHands reader: event streams and evaluation outputs, read through the public
``read_traces`` API and once through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.model import Usage

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read, write_jsonl

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openhands"
CORPUS = Path(__file__).resolve().parent / "corpus" / "OpenHands"


# --- the real trajectories ------------------------------------------------------------------------


def test_corpus_basic_is_pinned():
    traces, warnings = read(CORPUS / "basic.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "basic"
    assert trace.format == "openhands"
    assert len(trace.rounds) == 2
    edit, finish = trace.rounds
    assert edit.id == "chatcmpl-6814daca-5c62-431d-8c88-9dafead244f1"
    assert edit.model == "claude-3-5-sonnet-20241022" and edit.finish_reason == "tool_calls"
    assert edit.text == "I'll help you create a simple 2048 game in Python. I'll use the str_replace_editor to create the file."
    (call,) = edit.tool_calls
    assert (call.id, call.name) == ("toolu_017nBp7UfiGqyrA7j77HgtFP", "str_replace_editor")
    # Arguments are the model's own string, not the action's args.
    assert call.arguments_raw.startswith('{"command": "create", "path": "/workspace/game_2048.py", "file_text": "import random')
    assert call.arguments["command"] == "create"
    assert call.result.content.startswith("--- /workspace/game_2048.py\n+++ /workspace/game_2048.py")
    assert call.result.is_error is False
    # prompt_tokens already counts the cache write (3486 = 4 + 3482): nothing added.
    assert edit.usage == Usage(input_tokens=3486, output_tokens=1135, cached_tokens=0)
    assert finish.usage == Usage(input_tokens=4646, output_tokens=177, cached_tokens=3482)
    # Naive local timestamps, read as UTC: the user message starts round 1, its action ends it.
    assert (edit.started_at, edit.ended_at) == (1738017896.900854, 1738017913.764487)
    assert (call.result.started_at, call.result.ended_at) == (1738017913.764487, 1738017913.801384)
    assert (finish.started_at, finish.ended_at) == (1738017913.801384, 1738017918.405685)
    # finish is the answer, not a call.
    assert finish.is_final and finish.text.startswith("I've created a simple implementation of the 2048 game")
    assert trace.answered and trace.error is None and trace.labels == {}
    assert trace.metadata["input"].startswith("Please create a simple 2048 game.")
    assert trace.usage_total is None


def test_corpus_wrong_initial_state_is_pinned():
    traces, warnings = read(CORPUS / "wrong_initial_state.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "wrong_initial_state"
    assert len(trace.rounds) == 4
    assert [c.name for c in trace.tool_calls()] == ["str_replace_editor", "execute_bash", "str_replace_editor"]
    mv = trace.rounds[1].tool_calls[0]
    assert mv.arguments == {"command": "mv /workspace/game_2048.py /workspace/2048.py", "is_input": "false"}
    assert mv.result.content == "" and mv.result.is_error is False  # exit code 0
    assert [r.usage.input_tokens for r in trace.rounds] == [3475, 3616, 3804, 3933]
    assert [r.usage.output_tokens for r in trace.rounds] == [95, 111, 85, 67]
    assert [r.usage.cached_tokens for r in trace.rounds] == [0, 3471, 3610, 3798]
    first = trace.rounds[0]
    assert (first.started_at, first.ended_at) == (1738019810.23961, 1738019814.105108)
    assert trace.rounds[-1].is_final


def test_corpus_gui_mode_skips_state_changes_and_null_observations():
    traces, warnings = read(CORPUS / "basic_gui_mode.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "basic_gui_mode"
    assert len(trace.rounds) == 5
    assert [c.name for c in trace.tool_calls()] == ["execute_bash", "str_replace_editor", "str_replace_editor", "execute_bash"]
    assert [r.usage.input_tokens if r.usage else None for r in trace.rounds] == [3439, 3601, 4769, 5488, None]
    assert sum(r.usage.output_tokens for r in trace.rounds[:4]) == 104 + 1142 + 693 + 85
    first = trace.rounds[0]
    # The null observation just before the first action is the last event of the step's input.
    assert (first.started_at, first.ended_at) == (1737404972.289136, 1737404975.040676)
    assert first.tool_calls[0].result.ended_at == 1737404975.699033
    server = trace.rounds[3].tool_calls[0]
    assert server.result.is_error is True  # exit code -1: still running at the 30 s timeout
    assert server.result.content == "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."
    assert server.result.seconds == pytest.approx(30.58023, abs=1e-5)
    # The agent's closing message has no tool-call metadata: its own round, a final answer.
    last = trace.rounds[-1]
    assert last.is_final and last.usage is None and last.id is None
    assert last.text.startswith("I've created a complete Vue.js todo application")
    assert trace.labels == {} and trace.error is None


# --- evaluation outputs -------------------------------------------------------------------------------


def test_evaluation_output_two_instances():
    traces, warnings = read(FIXTURES / "output.jsonl")
    assert warnings == []
    assert [t.id for t in traces] == ["astropy__astropy-12907", "django__django-11099"]
    assert [(t.line, t.end_line) for t in traces] == [(1, 1), (2, 2)]
    resolved, stuck = traces

    assert len(resolved.rounds) == 4
    parallel = resolved.rounds[0]
    # Two action events share one model response: one round, usage counted once.
    assert [c.id for c in parallel.tool_calls] == ["toolu_01Hq7pXk3RbN9wVd2sLm5tYc", "toolu_01Wc4nJz8QeT6yKa1vGh7uPd"]
    assert parallel.usage == Usage(input_tokens=6021, output_tokens=198, cached_tokens=0)
    assert sum(r.usage.input_tokens for r in resolved.rounds) == 37074  # = metrics.accumulated_token_usage
    assert resolved.usage_total is None  # per-round usage is known
    # The latency of the response places its start.
    assert parallel.ended_at == 1739265247.205224
    assert parallel.started_at == pytest.approx(1739265247.205224 - 4.402)
    failing = resolved.rounds[1].tool_calls[0]
    assert failing.result.is_error is True  # exit code 1
    assert failing.arguments["command"].endswith("-q -k nested")
    assert resolved.rounds[-1].is_final
    assert resolved.labels == {"outcome": "success"} and resolved.error is None
    assert resolved.metadata["input"].startswith("<uploaded_files>\n/workspace/astropy__astropy__4.3")
    assert resolved.metadata["accumulated_cost"] == 0.071946

    # The loop OpenHands' own detector stopped: four identical calls, no answer.
    assert len(stuck.rounds) == 4
    assert len({c.arguments_raw for c in stuck.tool_calls()}) == 1
    assert all(c.result.is_error is False for c in stuck.tool_calls())
    assert stuck.labels == {"outcome": "failure"}
    assert stuck.error == "AgentStuckInLoopError: Agent got stuck in a loop"
    assert not stuck.answered
    assert [r.usage.input_tokens for r in stuck.rounds] == [5120, 5251, 5382, 5513]


def test_event_per_line_stream_with_run_total_and_error_state():
    traces, warnings = read(FIXTURES / "events.jsonl")
    assert warnings == []
    [trace] = traces
    assert trace.id == "events"
    assert (trace.line, trace.end_line) == (1, 5)
    (rnd,) = trace.rounds
    assert rnd.text == "" and rnd.usage is None
    (call,) = rnd.tool_calls
    assert (call.name, call.arguments) == ("execute_ipython_cell", {"code": "print(2**100)"})
    assert call.result.content.startswith("1267650600228229401496703205376")
    assert call.result.line == 3
    # Only the events' llm_metrics carry tokens: the run total.
    assert trace.usage_total == Usage(input_tokens=1102, output_tokens=38, cached_tokens=0)
    # The agent ended in the error state; the reason is the environment's error observation.
    assert trace.labels == {"outcome": "failure"}
    assert trace.error == "RuntimeError: the sandbox container exited unexpectedly"


def test_old_evaluation_format_with_pairs():
    traces, warnings = read(FIXTURES / "output_v1.jsonl", input_format="openhands")
    assert warnings == []
    [trace] = traces
    assert trace.id == "7"
    assert len(trace.rounds) == 3
    echo, run, done = trace.rounds
    assert echo.tool_calls[0].name == "run" and echo.text == "I'll write the file with echo."
    assert echo.tool_calls[0].arguments == {"command": "echo \"print('hello')\" > hello.py", "is_confirmed": "confirmed"}
    assert run.tool_calls[0].result.is_error is True  # exit code 127 in extras
    assert run.tool_calls[0].result.content == "bash: python: command not found"
    assert done.is_final and done.text == "All done."
    assert trace.labels == {"outcome": "success"}  # test_result.success


def test_usage_from_token_usages_when_responses_lack_it(tmp_path):
    response = {"id": "chatcmpl-Q9w8e7r6t5y4u3i2o1p0", "model": "gpt-4o-2024-08-06", "choices": [{"message": {"content": "Listing.", "tool_calls": []}}]}
    meta = {"function_name": "execute_bash", "tool_call_id": "call_Lm3Nb5Vc7Xz9", "model_response": response, "total_calls_in_response": 1}
    line = {
        "instance_id": "demo-1",
        "history": [
            {"id": 1, "timestamp": "2025-03-01T10:00:01", "source": "agent", "action": "run", "tool_call_metadata": meta, "args": {"command": "ls", "thought": "Listing."}},
            {"id": 2, "timestamp": "2025-03-01T10:00:02", "source": "agent", "cause": 1, "observation": "run", "content": "a.py", "extras": {"exit_code": 0}},
        ],
        "metrics": {"token_usages": [{"model": "gpt-4o", "prompt_tokens": 812, "completion_tokens": 19, "cache_read_tokens": 512, "cache_write_tokens": 0, "response_id": "chatcmpl-Q9w8e7r6t5y4u3i2o1p0"}]},
        "error": None,
        "test_result": {"report": {"resolved": False}},
    }
    path = write_jsonl(tmp_path / "output.jsonl", [line])
    traces, warnings = read(path)
    [trace] = traces
    assert trace.rounds[0].usage == Usage(input_tokens=812, output_tokens=19, cached_tokens=512)
    # No model_response arguments: the action's args without the thought.
    assert trace.rounds[0].tool_calls[0].arguments == {"command": "ls"}
    assert trace.labels == {"outcome": "failure"} and trace.error is None
    assert warnings == []


def test_instance_that_failed_before_the_agent_ran(tmp_path):
    lines = [json.loads(l) for l in (FIXTURES / "output.jsonl").read_text().splitlines()]
    # What OpenHands writes when the runtime image never built (history null, error set).
    lines.append({"instance_id": "sympy__sympy-20590", "test_result": {}, "instruction": None, "metadata": None, "history": None,
                  "metrics": None, "error": "Maximum retries (5) reached: Runtime build failed", "instance": None})
    traces, warnings = read(write_jsonl(tmp_path / "output.jsonl", lines))
    assert warnings == []
    failed = traces[-1]
    assert (failed.id, failed.rounds, failed.line) == ("sympy__sympy-20590", [], 3)
    assert failed.error == "Maximum retries (5) reached: Runtime build failed"
    assert failed.labels == {"outcome": "failure"} and not failed.answered


# --- bad input --------------------------------------------------------------------------------------


def test_bad_lines_are_reported_and_other_instances_still_read():
    traces, warnings = read(FIXTURES / "bad" / "output_bad.jsonl")
    assert [t.id for t in traces] == ["astropy__astropy-12907-bad", "django__django-11099"]
    assert len(traces[0].rounds) == 4 and len(traces[1].rounds) == 4
    assert warnings[:2] == [
        ("output_bad.jsonl", 1, "trace astropy__astropy-12907-bad: history item 3 is not an OpenHands event"),
        ("output_bad.jsonl", 1, "trace astropy__astropy-12907-bad: tool result for unknown call id 'toolu_01NobodyAskedForThis0000'"),
    ]
    assert warnings[2][:2] == ("output_bad.jsonl", 2) and warnings[2][2].startswith("not valid JSON")
    assert warnings[3][:2] == ("output_bad.jsonl", 4) and warnings[3][2].startswith("truncated last line")
    assert len(warnings) == 4


def test_a_bad_line_inside_an_event_stream_keeps_the_stream(tmp_path):
    lines = [json.loads(l) for l in (FIXTURES / "events.jsonl").read_text().splitlines()]
    lines.insert(2, {"id": 99, "note": "not an event"})
    path = write_jsonl(tmp_path / "events.jsonl", lines)
    traces, warnings = read(path)
    assert len(traces) == 1 and len(traces[0].rounds) == 1
    assert traces[0].rounds[0].tool_calls[0].result is not None
    assert warnings == [("events.jsonl", 3, "trace events: not an OpenHands event")]


# --- CLI --------------------------------------------------------------------------------------------


def test_cli_show_and_convert(tmp_path):
    paths = [*sorted(CORPUS.glob("*.json")), FIXTURES / "output.jsonl", FIXTURES / "events.jsonl"]
    assert_show_and_convert_round_trip(
        FIXTURES / "output.jsonl", ["astropy__astropy-12907", "django__django-11099"], paths, tmp_path
    )
