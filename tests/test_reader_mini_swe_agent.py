"""The mini-swe-agent reader: bare message lists (v1) and saved trajectories (v1/v2, text
actions and tool calls), read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.guards.signals import ResultClassifier
from tracecheck.readers.load import read_traces
from tracecheck.model import Usage

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mini_swe_agent"
CORPUS = Path(__file__).resolve().parent / "corpus" / "mini-swe-agent"
GITHUB_ISSUE = CORPUS / "github_issue.traj.json"


# --- the real trajectory -----------------------------------------------------------------------


def test_corpus_message_list_is_pinned():
    traces, warnings = read(GITHUB_ISSUE)
    assert warnings == []
    [trace] = traces
    assert trace.id == "github_issue"
    assert trace.format == "mini-swe-agent"
    assert len(trace.rounds) == 10
    calls = list(trace.tool_calls())
    assert len(calls) == 9 and {c.name for c in calls} == {"bash"}
    assert [c.arguments for c in calls[:4]] == [
        "cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py",
        "ls -la",
        "ls -la tests/",
        "cat tests/missing_colon.py",
    ]
    first = calls[0]
    assert first.arguments_raw == first.arguments and first.arguments_error is None  # plain text
    # The result is the command's output: the harness's <returncode>/<output> wrapper is the same around every one.
    assert first.result.content.startswith("cat: /Users/fuchur")
    assert [c.result.is_error for c in calls] == [True, False, False, False, False, False, False, True, False]
    # The failure-streak guard sees the two non-zero return codes as its failures.
    assert sum(ResultClassifier().is_failure(c.result) for c in calls) == 2
    # The task is the one user turn; the <returncode> messages are results, not turns.
    [task] = trace.user_messages
    assert task.text.startswith("Please solve this issue: GitHub Issue: SyntaxError: invalid syntax")
    assert task.before_round == 1 and {r.turn for r in trace.rounds} == {1}
    # The submit command ended the run: its round is the final answer, the diff the submission.
    last = trace.rounds[-1]
    assert last.is_final
    assert last.text.startswith("Now let's verify that the updated file works correctly")
    assert "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached" in last.text
    assert trace.metadata["submission"].startswith("diff --git a/tests/missing_colon.py b/tests/missing_colon.py")
    assert trace.answered
    # A bare message list has no usage, no times and no exit status.
    assert all(r.usage is None for r in trace.rounds) and trace.usage_total is None
    assert trace.rounds[0].started_at is None and trace.rounds[0].ended_at is None
    assert first.result.started_at is None and first.result.ended_at is None
    assert trace.labels == {} and trace.error is None


# --- v2 text actions ----------------------------------------------------------------------------


def test_v2_text_actions_usage_times_format_error_timeout_and_limit():
    traces, warnings = read(FIXTURES / "timeparse-17.traj.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "timeparse-17"
    assert len(trace.rounds) == 6
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0, 1, 1, 1, 1]
    grep = 'grep -n "def parse_duration" src/timeparse/core.py'
    assert [r.tool_calls[0].arguments for r in trace.rounds[3:]] == [grep, grep, grep]

    first = trace.rounds[0]
    assert first.id == "chatcmpl-5b1f0e9a-3c2d-4e7f-9a8b-1c2d3e4f5a6b"
    assert first.model == "claude-sonnet-4-5-20250929" and first.finish_reason == "stop"
    # LiteLLM's prompt_tokens already counts the cache write: not added again.
    assert first.usage == Usage(input_tokens=2871, output_tokens=61, cached_tokens=0, reasoning_tokens=0)
    assert first.started_at is None  # nothing before it carries a time
    assert first.ended_at == 1760003415.530237
    (call,) = first.tool_calls
    assert call.result.is_error is False
    assert (call.result.started_at, call.result.ended_at) == (1760003415.530237, 1760003415.616237)

    # v2 keeps a two-command response only inside its format-error message: a round, but
    # none of its commands ran, so it has no calls.
    broken = trace.rounds[1]
    assert broken.text.startswith("THOUGHT: Let me look at the function and its tests.")
    assert "```mswea_bash_command\ncat tests/test_core.py\n```" in broken.text
    assert broken.usage is None and broken.id is None
    assert (broken.started_at, broken.ended_at) == (1760003415.616237, 1760003420.052237)

    timed_out = trace.rounds[2].tool_calls[0]
    assert timed_out.result.is_error is True
    assert timed_out.result.content.startswith("The last command <command>python -m pytest")
    assert trace.rounds[2].usage == Usage(input_tokens=3302, output_tokens=48, cached_tokens=2867, reasoning_tokens=0)
    # A round starts when the message before it was written.
    assert trace.rounds[3].started_at == timed_out.result.ended_at == 1760003482.339237

    assert trace.labels == {"exit_status": "LimitsExceeded"}  # a limit is an ending, not a grade
    assert (trace.ending, trace.outcome) == ("limit", "unknown")
    assert trace.error == "LimitsExceeded"
    assert not trace.answered
    assert trace.usage_total is None
    assert trace.metadata["model_stats"] == {"instance_cost": 0.0219, "api_calls": 6}
    assert trace.metadata["model"] == "anthropic/claude-sonnet-4-5-20250929"


def test_v2_tool_calls_parallel_and_submitted():
    traces, warnings = read(FIXTURES / "readme_typo.traj.json")
    assert warnings == []
    [trace] = traces
    assert len(trace.rounds) == 3
    first, fix, done = trace.rounds
    assert [c.id for c in first.tool_calls] == ["call_c1Nq7XbT2mV9pLw4sK8dR3fA", "call_p8Jd2WqX6nB1cZ5tY9mK3hGe"]
    assert [c.arguments for c in first.tool_calls] == [{"command": "head -n 3 README.md"}, {"command": "git status --short"}]
    assert first.tool_calls[0].result.content == "# tiemparse\n\nParse durations.\n"
    assert first.tool_calls[1].result.ended_at == 1760011203.36
    assert first.usage == Usage(input_tokens=1893, output_tokens=121, cached_tokens=0, reasoning_tokens=64)
    assert fix.tool_calls[0].result.is_error is False
    # The submit call raised Submitted before any tool message: the round is the answer.
    assert done.is_final and done.text == "Done; submitting."
    assert trace.metadata["submission"].startswith("diff --git a/README.md b/README.md")
    # Submitted is how it ended; whether the patch works, no file beside says.
    assert (trace.ending, trace.outcome, trace.error) == ("submitted", "unknown", None)
    assert trace.answered


def test_v1_bash_fences_format_error_and_final_output():
    traces, warnings = read(FIXTURES / "count_py_v1.traj.json")
    assert warnings == []
    [trace] = traces
    assert len(trace.rounds) == 3
    two, counted, final = trace.rounds
    # Two commands: a format error, nothing ran.
    assert two.tool_calls == [] and two.text.startswith("Let me list the files first.")
    assert [c.arguments for c in counted.tool_calls] == ["find . -name '*.py' | wc -l"]
    # The first default template printed the output dict: no returncode tag, error unknown.
    assert counted.tool_calls[0].result.is_error is None
    assert final.is_final and "MINI_SWE_AGENT_FINAL_OUTPUT" in final.text
    assert trace.metadata["submission"] == "14\n"
    assert (trace.ending, trace.outcome) == ("submitted", "unknown")


def test_mswea_fence_wins_over_bash_examples(tmp_path):
    # In a trajectory that uses the mswea fence, a ```bash block is only an example.
    messages = [
        {"role": "system", "content": "Reply with one ```mswea_bash_command block."},
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "For instance ```bash\nls -la\n``` would work; I'll run:\n\n```mswea_bash_command\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\n</output>"},
    ]
    path = tmp_path / "fence.traj.json"
    path.write_text(json.dumps(messages))
    traces, warnings = read(path)
    assert [c.arguments for c in traces[0].tool_calls()] == ["ls"]
    assert warnings == []


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_reported_and_other_files_still_read():
    traces, warnings = read(FIXTURES / "bad")
    assert [t.id for t in traces] == ["broken"]
    [trace] = traces
    assert len(trace.rounds) == 1 and trace.rounds[0].tool_calls[0].result.is_error is False
    assert trace.labels == {} and trace.error is None  # exit_status null: still running
    assert warnings[:3] == [
        ("broken.traj.json", 1, "trace broken: message 3 is not an object"),
        ("broken.traj.json", 1, "trace broken: message 6 has an unknown role 'critic'"),
        ("broken.traj.json", 1, "trace broken: tool result for unknown call id 'call_nobody_asked'"),
    ]
    assert warnings[3][:2] == ("truncated.traj.json", 1)
    assert warnings[3][2].startswith("not valid JSON (a document starting here)")
    assert len(warnings) == 4


def test_a_document_without_messages_is_reported(tmp_path):
    path = tmp_path / "odd.traj.json"
    path.write_text('{"info": {}, "trajectory_format": "mini-swe-agent-1"}')
    diagnostics = Diagnostics()
    assert list(read_traces([str(path)], diagnostics)) == []
    assert [(d.line, d.reason) for d in diagnostics] == [(1, "JSON that is not a mini-swe-agent trajectory (no 'messages' list)")]


# --- CLI ------------------------------------------------------------------------------------------


def test_a_timed_out_tool_call_is_a_failure(tmp_path):
    # v2 with tool calls: the timeout message answers the call as a tool message, no return code.
    document = json.loads((FIXTURES / "readme_typo.traj.json").read_text())
    tool = next(m for m in document["messages"] if m["role"] == "tool")
    tool["content"] = (
        "The last command <command>sed -n 1,5p README.md</command> timed out and has been killed.\n"
        "The output of the command was:\n <output>\n\n</output>\n"
        "Please try another command and make sure to avoid those requiring interactive input."
    )
    tool["extra"] = {"interrupt_type": "ExecutionTimeoutError", "timestamp": tool["extra"]["timestamp"]}
    path = tmp_path / "readme_typo.traj.json"
    path.write_text(json.dumps(document, indent=2))
    traces, _ = read(path)
    call = next(c for c in traces[0].tool_calls() if c.id == tool["tool_call_id"])
    assert call.result.is_error is True


def test_cli_show_and_convert(tmp_path):
    paths = (GITHUB_ISSUE, *sorted(FIXTURES.glob("*.json")))
    assert_show_and_convert_round_trip(GITHUB_ISSUE, ["github_issue"], paths, tmp_path)


@pytest.mark.parametrize("resolved, outcome", [(True, "success"), (False, "failure")])
def test_a_swe_bench_report_beside_the_trajectory_grades_it(tmp_path, resolved, outcome):
    # mini-swe-agent's batch layout: <output>/<instance id>/<instance id>.traj.json.
    folder = tmp_path / "readme_typo"
    folder.mkdir()
    (folder / "readme_typo.traj.json").write_bytes((FIXTURES / "readme_typo.traj.json").read_bytes())
    # sb-cli's / the harness's run summary saved one folder up.
    verdict = {"resolved_ids": ["readme_typo"] if resolved else [], "unresolved_ids": [] if resolved else ["readme_typo"]}
    (tmp_path / "results.json").write_text(json.dumps(verdict))
    [trace], warnings = read(folder)
    assert warnings == []
    assert (trace.ending, trace.outcome) == ("submitted", outcome)
