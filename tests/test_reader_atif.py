"""The ATIF reader: Harbor trial folders as Harbor writes them for Claude Code (one model
response split over several agent steps, unexecuted calls flushed at the end, tokens on a
response's first step), the verifier's reward as the outcome, and companion files
(result.json, labels.json) never taken for unreadable transcripts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import read_with_warnings as read

T0 = "2026-04-01T15:27:"


def _metrics(prompt: int, completion: int, cached: int) -> dict:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "cached_tokens": cached, "extra": {"cache_read_input_tokens": cached}}


def _call_step(step_id: int, second: str, call_id: str, tool: str, arguments: dict, content: str | None, *, error: bool = False, metrics: dict | None = None) -> dict:
    step = {
        "step_id": step_id,
        "timestamp": f"{T0}{second}Z",
        "source": "agent",
        "model_name": "kimi-k2.5",
        "message": f"Executed {tool} {call_id}",
        "tool_calls": [{"tool_call_id": call_id, "function_name": tool, "arguments": arguments}],
        "extra": {"stop_reason": "tool_use", "cwd": "/app", "is_sidechain": False, "tool_use_name": tool, "raw_arguments": arguments},
    }
    if metrics is not None:
        step["metrics"] = metrics
    if content is not None:
        shown = content + ("\n\n[error] tool reported failure" if error else f"\n\n[stdout]\n{content}\n[metadata] {{\"noOutputExpected\": false}}")
        step["observation"] = {"results": [{"source_call_id": call_id, "content": shown}]}
        step["extra"]["tool_result_is_error"] = error
        step["extra"]["tool_result_metadata"] = {"raw_tool_result": {"tool_use_id": call_id, "type": "tool_result", "content": content, "is_error": error}}
    return step


def _text_step(step_id: int, second: str, message: str, metrics: dict) -> dict:
    return {
        "step_id": step_id,
        "timestamp": f"{T0}{second}Z",
        "source": "agent",
        "model_name": "kimi-k2.5",
        "message": message,
        "reasoning_content": "NoneLet me look.",
        "metrics": metrics,
        "extra": {"stop_reason": "tool_use", "cwd": "/app", "is_sidechain": False},
    }


def _trial(tmp_path: Path, steps: list[dict], reward: float | None = 0.0, name: str = "pypi-server__XLnvB86") -> Path:
    trial = tmp_path / name
    (trial / "agent").mkdir(parents=True)
    document = {
        "schema_version": "ATIF-v1.2",
        "session_id": "504a0b45-fe7f-4136-b5fd-a99708f78dbc",
        "agent": {"name": "claude-code", "version": "2.1.89", "model_name": "kimi-k2.5", "extra": {"cwds": ["/app"]}},
        "steps": steps,
        "final_metrics": {"total_prompt_tokens": 0, "total_completion_tokens": 0, "total_steps": len(steps)},
    }
    path = trial / "agent" / "trajectory.json"
    path.write_text(json.dumps(document, indent=2))
    result = {
        "id": "dca2121c",
        "task_name": "pypi-server",
        "trial_name": name,
        "agent_info": {"name": "claude-code", "version": "2.1.89"},
        "agent_result": {"n_input_tokens": 1, "n_output_tokens": 1},
        "verifier_result": None if reward is None else {"rewards": {"reward": reward}},
    }
    (trial / "result.json").write_text(json.dumps(result, indent=4))
    return path


PROMPT = {"step_id": 1, "timestamp": f"{T0}00.434Z", "source": "user", "message": "Create a python package called vectorops."}


def _run_steps() -> list[dict]:
    return [
        PROMPT,
        # an aborted streamed response: all-zero metrics, empty message (a round)
        {"step_id": 2, "timestamp": f"{T0}07.632Z", "source": "agent", "model_name": "kimi-k2.5", "message": "", "metrics": _metrics(0, 0, 0), "extra": {}},
        # one response: text, then two parallel calls, each its own step with the same timestamp
        _text_step(3, "18.205", "Let me install the tools.", _metrics(21417, 224, 21216)),
        _call_step(4, "18.205", "functions.Bash:0", "Bash", {"command": "}pip install build"}, "Exit code 127\n/bin/bash: line 1: }pip: command not found", error=True),
        _call_step(5, "18.205", "functions.Bash:1", "Bash", {"command": ":"}, "(Bash completed with no output)"),
        # a response with no text: metrics on its first call step
        _call_step(6, "29.184", "functions.Read:2", "Read", {"file_path": "/app/a.py"}, "1\tprint(1)", metrics=_metrics(21523, 22, 21504)),
        {"step_id": 7, "timestamp": f"{T0}31.000Z", "source": "user", "message": "<task-notification> <task-id>b5</task-id> done </task-notification>"},
        _text_step(8, "44.223", "Done: the package is built.", _metrics(21566, 207, 21536)),
        # a call of the response at 29.184 that never ran, flushed at the end
        _call_step(9, "29.184", "functions.Read:3", "Read", {"file_path": "/app/b.py"}, None),
    ]


def test_rounds_are_model_responses(tmp_path):
    path = _trial(tmp_path, _run_steps())
    (trace,), warnings = read(path)
    assert warnings == []
    assert (trace.id, trace.format) == ("pypi-server__XLnvB86", "atif")
    assert len(trace.rounds) == 4
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [[], ["Bash", "Bash"], ["Read", "Read"], []]
    assert [r.text for r in trace.rounds] == ["", "Let me install the tools.", "", "Done: the package is built."]
    assert [(r.usage.input_tokens, r.usage.output_tokens, r.usage.cached_tokens) for r in trace.rounds] == [
        (0, 0, 0), (21417, 224, 21216), (21523, 22, 21504), (21566, 207, 21536)
    ]
    failed, empty = trace.rounds[1].tool_calls
    assert failed.result.is_error is True
    assert failed.result.content == "Exit code 127\n/bin/bash: line 1: }pip: command not found"
    assert (empty.result.is_error, empty.result.content) == (False, "(Bash completed with no output)")
    unexecuted = trace.rounds[2].tool_calls[1]
    assert (unexecuted.id, unexecuted.result) == ("functions.Read:3", None)
    # the harness's notification opens no turn; the final reply is the answer
    assert len(trace.turns()) == 1 and trace.metadata["notifications"]
    assert trace.answered
    assert trace.outcome == "failure" and trace.metadata["reward"] == 0.0


def test_outcome_from_the_verifier_only(tmp_path):
    (won,), _ = read(_trial(tmp_path / "a", _run_steps(), reward=1.0))
    (ungraded,), _ = read(_trial(tmp_path / "b", _run_steps(), reward=None))
    assert won.outcome == "success"
    assert ungraded.outcome == "unknown"
    # reward.txt stands in when result.json has no verifier result
    trial = tmp_path / "c"
    path = _trial(trial, _run_steps(), reward=None)
    (path.parent.parent / "verifier").mkdir()
    (path.parent.parent / "verifier" / "reward.txt").write_text("1\n")
    (graded,), _ = read(path)
    assert graded.outcome == "success"


def test_spec_shape_one_step_per_response(tmp_path):
    """The RFC's own shape: every agent step is a whole response (no metrics anywhere)."""
    steps = [
        PROMPT,
        {"step_id": 2, "timestamp": "2025-10-11T10:30:02Z", "source": "agent", "message": "Checking.",
         "tool_calls": [{"tool_call_id": "c1", "function_name": "search", "arguments": {"q": "x"}},
                        {"tool_call_id": "c2", "function_name": "search", "arguments": {"q": "y"}}],
         "observation": {"results": [{"source_call_id": "c1", "content": "a"}, {"source_call_id": "c2", "content": "b"}]}},
        {"step_id": 3, "timestamp": "2025-10-11T10:30:05Z", "source": "agent", "message": "Again.",
         "tool_calls": [{"tool_call_id": "c3", "function_name": "search", "arguments": {"q": "x"}}],
         "observation": {"results": [{"source_call_id": "c3", "content": "a"}]}},
        {"step_id": 4, "timestamp": "2025-10-11T10:30:06Z", "source": "agent", "message": "Answer."},
    ]
    (trace,), warnings = read(_trial(tmp_path, steps))
    assert warnings == []
    assert [len(r.tool_calls) for r in trace.rounds] == [2, 1, 0]
    assert [c.result.content for c in trace.tool_calls()] == ["a", "b", "a"]
    assert trace.rounds[0].usage is None  # not recorded: unknown, not zero


def test_a_trial_folder_reads_without_warnings(tmp_path):
    """Pointing replay at a Harbor job folder: the trajectory is read, result.json and a
    labels.json beside it are companions, not unreadable transcripts."""
    _trial(tmp_path, _run_steps())
    (tmp_path / "labels.json").write_text(json.dumps({"_doc": "labels", "pypi-server__XLnvB86/agent/trajectory.json": {"kind": "healthy"}}))
    done = subprocess.run(
        [sys.executable, "-m", "tracecheck", "replay", str(tmp_path), "--format", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    report = json.loads(done.stdout)
    assert [(t["id"], t["format"], t["labels"].get("outcome")) for t in report["traces"]] == [("pypi-server__XLnvB86", "atif", "failure")]
