"""The SWE-agent reader: .traj files in the function-calling and the text-action variant,
read through the public ``read_traces`` API and once through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces
from tracecheck.model import Usage

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "swe_agent"
CORPUS = Path(__file__).resolve().parent / "corpus" / "SWE-agent"
MARSHMALLOW = CORPUS / "marshmallow-code__marshmallow-1867.traj"


# --- the real trajectory (function calling) -------------------------------------------------


def test_corpus_function_calling_trajectory_is_pinned():
    traces, warnings = read(MARSHMALLOW)
    assert warnings == []
    [trace] = traces
    assert trace.id == "marshmallow-code__marshmallow-1867"  # replay_config.problem_statement.id
    assert trace.format == "swe-agent"
    assert (trace.line, trace.end_line) == (1, 1)
    assert len(trace.rounds) == 11
    names = [c.name for c in trace.tool_calls()]
    assert names == ["create", "insert", "bash", "bash", "find_file", "open", "edit", "edit", "bash", "bash"]
    first = trace.rounds[0]
    (create,) = first.tool_calls
    assert create.id == "call_cyI71DYnRdoLHWwtZgIaW2wr"
    assert create.arguments == {"filename": "reproduce.py"}
    assert create.arguments_raw == '{"filename":"reproduce.py"}'
    assert create.result.content.startswith("[File: reproduce.py (1 lines total)]")
    assert create.result.is_error is None  # SWE-agent has no error flag
    assert first.text.startswith("Let's first start by reproducing the results of the issue.")
    # The instance message is the task, the one turn's user message; observations are results.
    [task] = trace.user_messages
    assert task.text.startswith("We're currently solving the following issue within our repository.")
    assert task.before_round == 1 and {r.turn for r in trace.rounds} == {1}
    # Call ids recur across rounds: each tool message answers the open call of its round.
    assert [c.id for c in trace.tool_calls()].count("call_5iDdbOYybq7L19vqXmR0DPaU") == 4
    assert trace.rounds[2].tool_calls[0].result.content.startswith("344\n")
    assert trace.rounds[8].tool_calls[0].result.content.startswith("345\n")
    assert trace.rounds[6].tool_calls[0].result.content.startswith("Your proposed edit has introduced new syntax error(s).")
    # The submit that ended the run is its answer.
    last = trace.rounds[-1]
    assert last.is_final and last.text == "Calling `submit` to submit."
    assert trace.answered
    assert trace.metadata["submission"].startswith("\r\ndiff --git a/src/marshmallow/fields.py")
    # No usage, no times: model_stats counted 0 tokens for 11 API calls (a replay).
    assert trace.usage_total is None
    assert all(r.usage is None for r in trace.rounds)
    assert trace.metadata["model_stats"] == {"instance_cost": 0, "tokens_sent": 0, "tokens_received": 0, "api_calls": 11}
    assert first.started_at is None and first.ended_at is None
    assert create.result.started_at is None and create.result.ended_at is None
    assert trace.metadata["tool_seconds"] == 3.999127
    assert trace.metadata["model"] == "gpt-4o"
    assert trace.labels == {"exit_status": "submitted", "outcome": "success"}
    assert trace.error is None


# --- text actions ------------------------------------------------------------------------------


def test_text_action_trajectory_one_round_per_step():
    traces, warnings = read(FIXTURES / "psf__requests-2317.traj")
    assert warnings == []
    [trace] = traces
    assert trace.id == "psf__requests-2317"  # no problem id in the replay config: the file name
    assert len(trace.rounds) == 6
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["find_file"], ["open"], [], ["edit"], ["python"], []]
    find, opened, requeried, edit, python, submit = trace.rounds
    (call,) = find.tool_calls
    # The rest of the command is plain text, not JSON, and not an error.
    assert (call.arguments_raw, call.arguments, call.arguments_error) == ('"sessions.py"', '"sessions.py"', None)
    assert call.id == "r1.c1"
    assert call.result.content == 'Found 1 matches for "sessions.py" in /psf__requests:\n/psf__requests/requests/sessions.py'
    assert opened.tool_calls[0].arguments == "requests/sessions.py 428"
    assert edit.tool_calls[0].arguments == "428:428\n        method = to_native_string(method)\nend_of_edit"
    assert python.tool_calls[0].arguments == "reproduce.py"
    assert python.tool_calls[0].result.content == "GET\nScript completed successfully, no errors."
    # The response SWE-agent re-queried (no command) is a round without calls.
    assert requeried.text == "I will now change builtin_str to to_native_string so that bytes are decoded."
    # The round text is the whole response, command block included.
    assert find.text == "First, let's find the sessions.py file mentioned in the issue.\n```\nfind_file \"sessions.py\"\n```\n"
    assert submit.is_final and submit.text.startswith("The method is now a native string.")
    assert trace.metadata["submission"].startswith("\ndiff --git a/requests/sessions.py")
    assert trace.usage_total == Usage(input_tokens=48213, output_tokens=1187)
    assert trace.metadata["tool_seconds"] == 2.6736
    assert trace.metadata["model"] == "gpt4"
    assert trace.labels["outcome"] == "success"
    assert trace.answered


def test_cost_limit_with_autosubmission_is_a_failure_without_an_answer():
    traces, warnings = read(FIXTURES / "xarray_exit_cost.traj")
    assert warnings == []
    [trace] = traces
    assert trace.id == "pydata__xarray-4094"
    # The demonstration is skipped and SWE-agent's own "Exit due to cost limit" is no round.
    assert len(trace.rounds) == 3
    assert {c.arguments_raw for c in trace.tool_calls()} == {'{"command": "python -c \\"import xarray; print(xarray.__version__)\\""}'}
    assert [c.id for c in trace.tool_calls()] == [
        "call_Q1b8mTz0VfL3xY6nK2pR9dWs",
        "call_H7cJ2kP5nW8qT1vB4xZ6mL0e",
        "call_R3tY6uI9oP2aS5dF8gH1jK4l",
    ]
    assert all(c.result.content == "0.15.2.dev71+ga64cf2d5\n" for c in trace.tool_calls())
    assert trace.labels == {"exit_status": "submitted (exit_cost)", "outcome": "failure"}
    assert trace.error == "Exit due to cost limit [submitted (exit_cost)]"
    assert not trace.answered
    assert trace.usage_total == Usage(input_tokens=1187342, output_tokens=9814)
    assert trace.metadata["model"] == "claude-3-7-sonnet-20250219"
    assert "submission" not in trace.metadata  # the model never submitted; the harness did


def test_a_traj_with_only_its_history_reads_rounds_from_the_messages():
    path = FIXTURES / "pallets__flask-4045.traj"
    traces, warnings = read(path)
    assert warnings == []
    [trace] = traces
    assert (trace.id, trace.format) == ("pallets__flask-4045", "swe-agent")  # sniffed without a trajectory list
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["find_file"], ["open"], ["edit"], ["edit"], ["python"], []]
    assert trace.rounds[1].tool_calls[0].arguments == "src/flask/blueprints.py 186"
    # 0.x writes no message_type: the user message after a round is its observation.
    rejected = trace.rounds[2].tool_calls[0].result
    assert rejected.content.startswith("Your proposed edit has introduced new syntax error(s).")
    assert rejected.is_error is None  # SWE-agent records no exit code or error flag
    assert trace.rounds[4].tool_calls[0].result.content.startswith("Traceback (most recent call last):")
    assert [task.text[:45] for task in trace.user_messages] == ["We're currently solving the following issue w"]
    last = trace.rounds[-1]
    assert last.is_final and last.text.startswith("A dotted blueprint name now raises ValueError")
    assert trace.metadata["submission"].startswith("\ndiff --git a/src/flask/blueprints.py")
    assert trace.labels == {"exit_status": "submitted", "outcome": "success"}
    # The run total of model_stats: 40,771 tokens sent, 762 received.
    assert trace.usage_total == Usage(input_tokens=40771, output_tokens=762)
    assert all(r.usage is None for r in trace.rounds)


def test_the_run_total_is_shared_out_over_the_rounds(cli):
    path = FIXTURES / "pallets__flask-4045.traj"
    [shown] = json.loads(cli("replay", "--format", "json", str(path)).stdout)["traces"]
    assert (shown["rounds"], shown["tool_calls"], shown["tokens"], shown["tokens_basis"]) == (6, 5, 41533, "apportioned")
    assert "41,533 tokens (run total measured, per round apportioned)" in cli("show", "--no-guards", str(path)).stdout


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_reported_and_other_files_still_read():
    traces, warnings = read(FIXTURES / "bad")
    assert [t.id for t in traces] == ["unknown_call"]
    [trace] = traces
    assert len(trace.rounds) == 1 and trace.rounds[0].tool_calls[0].result is None
    assert trace.error == "exit_format" and trace.labels["outcome"] == "failure"
    assert warnings[0][:2] == ("truncated.traj", 1)
    assert warnings[0][2].startswith("not valid JSON (a document starting here)")
    assert warnings[1:] == [
        ("unknown_call.traj", 1, "trace unknown_call: history item 2 is not an object"),
        ("unknown_call.traj", 1, "trace unknown_call: tool result for unknown call id 'call_missing000000000000000'"),
        ("unknown_call.traj", 1, "trace unknown_call: call call_Zx81Yq0aPl3kM5nB7vC9xW2e (bash) has no result"),
    ]


def test_a_document_that_is_no_trajectory_is_reported(tmp_path):
    path = tmp_path / "odd.traj"
    path.write_text('{"trajectory": "not a list", "history": []}')
    diagnostics = Diagnostics()
    traces = list(read_traces([str(path)], diagnostics, input_format="swe-agent"))
    assert traces == []
    assert [(d.line, d.reason) for d in diagnostics] == [(1, "JSON that is not a SWE-agent trajectory (no 'trajectory' or 'history' list)")]


# --- CLI ------------------------------------------------------------------------------------------


def test_cli_show_and_convert(tmp_path):
    paths = (MARSHMALLOW, FIXTURES / "psf__requests-2317.traj", FIXTURES / "xarray_exit_cost.traj", FIXTURES / "pallets__flask-4045.traj")
    assert_show_and_convert_round_trip(MARSHMALLOW, ["marshmallow-code__marshmallow-1867"], paths, tmp_path)
