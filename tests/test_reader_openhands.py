"""The OpenHands reader: event streams and evaluation outputs, read through the public
``read_traces`` API and once through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.guards.signals import ResultClassifier
from tracecheck.model import Usage

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read, write_jsonl

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")

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
    # The user's message is the task: it opens the one turn, at its own time.
    [task] = trace.user_messages
    assert task.text.startswith("Please create a simple 2048 game.") and task.before_round == 1
    assert task.at == 1738017896.900854
    assert "input" not in trace.metadata
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


def failures(trace) -> int:
    """How many results the failure-streak guard (F001) counts as failures."""
    classifier = ResultClassifier()
    return sum(classifier.is_failure(c.result) for c in trace.tool_calls())


def test_corpus_error_flags_and_failures_as_the_failure_guard_sees_them():
    # The real trajectories: their one failure is a server still running at the timeout
    # (exit code -1). None of them holds an editor "ERROR:" (see editor_errors.json).
    traces, warnings = read(*sorted(CORPUS.glob("*.json")))
    assert warnings == []
    flags = {t.id: [c.result.is_error for c in t.tool_calls()] for t in traces}
    assert flags == {
        "basic": [False],
        "basic_gui_mode": [False, False, False, True],
        "basic_interactions": [],
        "wrong_initial_state": [False, False, False],
    }
    assert {t.id: failures(t) for t in traces} == {"basic": 0, "basic_gui_mode": 1, "basic_interactions": 0, "wrong_initial_state": 0}


def test_corpus_user_messages_open_turns(cli):
    traces, warnings = read(CORPUS / "basic_interactions.json")
    assert warnings == []
    [trace] = traces
    assert [(m.text, m.before_round, m.at) for m in trace.user_messages] == [
        ("what's 1+1?", 1, 1738368850.787622),
        ("No, I mean by Goldbach's conjecture!", 2, 1738369043.228442),
        ("Finish please", 3, 1738369139.847433),
    ]
    # Each user message opens a turn; the agent's message replies and ends it.
    assert [(t.index, t.user.text, [r.index for r in t.rounds], t.reply is not None) for t in trace.turns()] == [
        (1, "what's 1+1?", [1], True),
        (2, "No, I mean by Goldbach's conjecture!", [2], True),
        (3, "Finish please", [3], True),
    ]
    assert trace.rounds[0].text == "1 + 1 equals 2."
    assert trace.rounds[-1].text == "All done! What's next on the agenda?" and trace.answered
    report = json.loads(cli("replay", "--format", "json", str(CORPUS / "basic_interactions.json")).stdout)
    [shown] = report["traces"]
    assert (shown["turns"], shown["rounds"], shown["tool_calls"]) == (3, 3, 0)


# --- error signals ------------------------------------------------------------------------------------


def test_editor_refusals_error_observations_and_exit_codes_are_failures():
    traces, warnings = read(FIXTURES / "editor_errors.json")
    assert warnings == []
    [trace] = traces
    calls = list(trace.tool_calls())
    assert [c.name for c in calls] == [
        "str_replace_editor", "str_replace_editor", "str_replace_editor", "str_replace_editor", "execute_bash",
        "str_replace_editor", "execute_bash", "execute_bash", "str_replace_editor", "execute_ipython_cell", "execute_bash",
    ]
    assert [c.result.is_error for c in calls] == [False, True, True, True, False, False, True, True, True, None, False]
    # The editor's refusals: an "edit" observation whose content starts with "ERROR:".
    assert calls[1].result.content == (
        "ERROR:\nNo replacement was performed, old_str `def divide(a, b):\n    return a/b` did not appear verbatim in "
        "/workspace/calc/calc/ops.py."
    )
    # Two commands at once: the bash tool's own error observation.
    assert calls[6].result.content.startswith("ERROR: Cannot execute multiple commands at once.")
    # A failing test run: exit code 1 in extras.metadata.
    assert "1 failed, 2 passed" in calls[7].result.content
    # A path that does not exist, viewed: a "read" observation starting "ERROR:".
    assert calls[8].result.content.startswith("ERROR:\nInvalid `path` parameter: /workspace/calc/tests/test_divide.py.")
    # An IPython cell that raised: OpenHands' success=true is a constant for cells, so unknown.
    assert calls[9].result.content.startswith("/workspace/calc/build/lib/calc/ops.py\n----")
    assert failures(trace) == 6


def test_three_editor_refusals_in_a_row_abort_the_replay(cli):
    report = json.loads(cli("replay", "--format", "json", str(FIXTURES / "editor_errors.json")).stdout)
    [trace] = report["traces"]
    assert [(f["code"], f["round"], f["phase"], f["action"]) for f in trace["fires"]] == [("F001", 4, "after_tools", "abort")]
    assert (trace["policy"]["stopped_at"], trace["policy"]["code"]) == (4, "F001")


def _one_result(tmp_path, observation: str, content: str, **fields) -> bool | None:
    """The is_error of one observation answering one command, as OpenHands writes them."""
    action = {"id": 1, "timestamp": "2025-03-14T10:00:01", "source": "agent", "message": "", "action": "run",
              "args": {"command": "make test", "thought": ""}}
    result = {"id": 2, "timestamp": "2025-03-14T10:00:02", "source": "agent", "message": "", "cause": 1,
              "observation": observation, "content": content, **fields}
    traces, warnings = read(write_jsonl(tmp_path / "events.jsonl", [action, result]))
    assert warnings == []
    return traces[0].rounds[0].tool_calls[0].result.is_error


def test_which_signal_decides(tmp_path):
    metadata = {"exit_code": 0, "pid": -1, "prefix": "", "suffix": "\n[The command completed with exit code 0.]"}
    # The command's exit code beats whatever it printed.
    pip = "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\nSuccessfully installed requests-2.32.3"
    assert _one_result(tmp_path, "run", pip, extras={"metadata": metadata}, success=True) is False
    assert _one_result(tmp_path, "run", "", extras={"metadata": {**metadata, "exit_code": 2}}, success=False) is True
    # -1: still running when the timeout hit (older versions: extras.exit_code).
    assert _one_result(tmp_path, "run", "Serving HTTP on 0.0.0.0 port 8000 ...", extras={"exit_code": -1}) is True
    # No exit code: the "ERROR:" prefix, then extras.error, then success.
    assert _one_result(tmp_path, "edit", "ERROR:\nInvalid `path` parameter: /tmp/x.", extras={"path": "/tmp/x"}) is True
    assert _one_result(tmp_path, "browse", "Timeout 30000ms exceeded.", extras={"error": True, "url": "http://localhost:8000"}) is True
    assert _one_result(tmp_path, "edit", "The file /tmp/x has been edited.", extras={"path": "/tmp/x"}) is False
    # MCP: the tool's own CallToolResult.isError.
    mcp = json.dumps({"meta": None, "content": [{"type": "text", "text": "no such table", "annotations": None}], "isError": True})
    assert _one_result(tmp_path, "mcp", mcp, extras={"name": "query_db", "arguments": {}}) is True
    # A cell, a delegate: OpenHands records nothing, so unknown.
    assert _one_result(tmp_path, "run_ipython", "Out[1]: 4", extras={"code": "2+2", "image_urls": None}, success=True) is None
    assert _one_result(tmp_path, "delegate", "done", extras={"outputs": {}}) is None


# --- evaluation outputs -------------------------------------------------------------------------------


def test_resolver_output_with_flat_histories():
    traces, warnings = read(FIXTURES / "resolver_output.jsonl")
    assert warnings == []
    assert [(t.id, t.format, t.line) for t in traces] == [
        ("octo-org/csv-tools#12", "openhands", 1),
        ("octo-org/csv-tools#15", "openhands", 2),
    ]
    resolved, stuck = traces
    # No ids and no timestamps: each observation answers the action just before it.
    assert [c.name for c in resolved.tool_calls()] == ["run", "run_ipython", "run_ipython", "run", "run"]
    first = resolved.rounds[0].tool_calls[0]
    assert first.arguments["command"] == "ls -R /workspace"
    assert first.result.content.startswith("/workspace:\r\nREADME.md  csvtools  setup.py  tests")
    assert resolved.rounds[1].tool_calls[0].arguments["code"] == "open_file('/workspace/csvtools/cli.py')"
    assert resolved.rounds[1].tool_calls[0].result.content.startswith("[File: /workspace/csvtools/cli.py (12 lines total)]")
    assert resolved.rounds[0].text == "Certainly! Let me start by looking at the structure of the repository."
    assert [c.result.is_error for c in resolved.tool_calls()] == [False, None, None, False, False]
    assert resolved.rounds[-1].is_final and resolved.rounds[-1].text.startswith("The CLI now takes a `--delimiter` option")
    assert all(r.started_at is None and r.ended_at is None and r.usage is None for r in resolved.rounds)
    [task] = resolved.user_messages
    assert task.text.startswith("Please fix the following issue for the repository in /workspace.")
    assert resolved.labels == {"outcome": "success"}  # the resolver's own "success"
    assert resolved.metadata["accumulated_cost"] == 0.061284

    # A question to the user (a message it waits on) ends turn 1; the canned reply opens turn 2.
    assert [(m.text[:30], m.before_round) for m in stuck.user_messages] == [
        ("Please fix the following issue", 1),
        ("Please continue working on the", 4),
    ]
    assert [r.turn for r in stuck.rounds] == [1, 1, 1, 2, 2]
    assert stuck.rounds[2].is_final and stuck.rounds[2].text.startswith("I could not find the module")
    assert [c.result.is_error for c in stuck.tool_calls()] == [True, None, False, True]  # exit codes 1, a cell, 0, 1
    assert stuck.labels == {"outcome": "failure"}
    assert stuck.error == "Agent reached maximum number of iterations"
    assert not stuck.answered




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
    [task] = resolved.user_messages
    assert task.text.startswith("<uploaded_files>\n/workspace/astropy__astropy__4.3")
    assert resolved.metadata["accumulated_cost"] == 0.071946

    # The loop OpenHands' own detector stopped: four identical calls, no answer.
    assert len(stuck.rounds) == 4
    assert len({c.arguments_raw for c in stuck.tool_calls()}) == 1
    assert all(c.result.is_error is False for c in stuck.tool_calls())
    # The eval's error is how the run ended; no report graded it.
    assert (stuck.labels, stuck.ending, stuck.outcome) == ({}, "error", "unknown")
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
    assert (trace.labels, trace.ending, trace.outcome) == ({}, "error", "unknown")
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
    assert (failed.labels, failed.ending) == ({}, "error") and not failed.answered


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
    paths = [
        *sorted(CORPUS.glob("*.json")),
        FIXTURES / "output.jsonl",
        FIXTURES / "events.jsonl",
        FIXTURES / "editor_errors.json",
        FIXTURES / "resolver_output.jsonl",
    ]
    assert_show_and_convert_round_trip(
        FIXTURES / "output.jsonl", ["astropy__astropy-12907", "django__django-11099"], paths, tmp_path
    )
