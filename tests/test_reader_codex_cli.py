"""The Codex CLI rollout reader: one round per model response, results attached by
call_id, errors from the exit codes Codex writes, tokens from token_count events; read
through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    assert_sniffed_alone,
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    usage_tuple as counts_tuple,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "codex_cli"
HEALTHY = FIXTURES / "rollout-2025-10-16T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"
LOOP = FIXTURES / "rollout-2025-10-16T11-00-00-0199a214-2b6e-7d31-9f0c-6c1f0e5d9a77.jsonl"
EXEC_ERRORS = FIXTURES / "rollout-2025-10-16T12-00-00-0199a215-0c4d-7a10-8e3b-51d2c6a0f4e1.jsonl"
BARE = FIXTURES / "rollout-2025-08-21T09-14-02-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"
MALFORMED = FIXTURES / "rollout-2025-10-16T13-00-00-0199a216-6f3a-7e52-b1d4-2f9c8e7a6b50.jsonl"
ALL = [HEALTHY, LOOP, EXEC_ERRORS, BARE, MALFORMED]


def test_healthy_session_rounds_calls_results_tokens_turns():
    (trace,), warnings = read(HEALTHY)
    assert warnings == []
    assert (trace.id, trace.format, trace.line, trace.end_line) == ("0199a213-81c0-7800-8aa1-bbab2a035a53", "codex-cli", 1, 26)
    assert trace.metadata == {"cwd": "/home/dev/shop", "cli_version": "0.46.0", "originator": "codex_cli_rs", "model_provider": "openai", "branch": "main"}
    # Reasoning + call of one response are one round; the token count closes it.
    assert [r.line for r in trace.rounds] == [7, 11, 15, 21, 24]
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["shell"], ["shell"], [], ["shell"], []]
    assert [c.id for c in trace.tool_calls()] == ["call_ls01", "call_pt02", "call_gs03"]
    assert list(trace.tool_calls())[1].arguments == {"command": ["bash", "-lc", "pytest -q"], "workdir": "/home/dev/shop", "timeout_ms": 120000}
    # The structured shell result: its "output" is the text, exit code 0 is no error.
    ls = list(trace.tool_calls())[0].result
    assert (ls.content, ls.is_error, ls.line, ls.ended_at) == ("README.md\nshop\ntests\npyproject.toml\n", False, 10, utc(2025, 10, 16, 10, 0, 3, 600000))
    assert [c.result.is_error for c in trace.tool_calls()] == [False, False, False]
    # last_token_usage by hand: input (cached included), output, cached, reasoning; the
    # last response's count has no info (None).
    assert [usage_tuple(r) for r in trace.rounds] == [
        (2104, 48, 1920, 20),
        (2230, 61, 2048, 32),
        (2391, 23, 2176, 0),
        (2460, 30, 2304, 0),
        None,
    ]
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "stop", "tool_calls", "stop"]
    assert {r.model for r in trace.rounds} == {"gpt-5-codex"}
    # User messages open turns; the injected environment context is not one.
    assert [m.text for m in trace.user_messages] == ["Run the test suite and tell me whether it passes.", "Thanks. What does git status say?"]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 2, 2]
    assert trace.rounds[2].text == "All 12 tests pass (`pytest -q`, 3.9 s)."
    # A round starts at the line before its first item and ends at its last item.
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 10, 16, 10, 0, 1, 200000), utc(2025, 10, 16, 10, 0, 3, 200000))
    assert trace.ending == "answered" and trace.error is None


def test_repeated_failing_shell_call_is_read_as_errors_and_fires_guards(cli):
    (trace,), warnings = read(LOOP)
    assert warnings == []
    calls = list(trace.tool_calls())
    assert [c.arguments for c in calls] == [{"command": "pytest tests/test_api.py -x", "workdir": "/home/dev/shop"}] * 4
    # Freeform result: "Exit code: 1" is the error flag, the Output: body the text.
    assert [c.result.is_error for c in calls] == [True] * 4
    assert {c.result.content for c in calls} == {"E   ModuleNotFoundError: No module named 'shop.api'\n1 error in 0.21s\n"}
    # Here the output comes before the token count: the count still goes to its round.
    assert [usage_tuple(r) for r in trace.rounds] == [(3200, 52, 2816, 24), (3400, 52, 2816, 24), (3600, 52, 2816, 24), (3800, 52, 2816, 24), (4100, 19, 3968, 0)]
    result = cli("replay", str(LOOP), "-f", "json")
    report = json.loads(result.stdout)
    (shown,) = report["traces"]
    assert shown["format"] == "codex-cli"
    assert (shown["rounds"], shown["tool_calls"], shown["tokens"]) == (5, 4, 3200 + 3400 + 3600 + 3800 + 4100 + 52 * 4 + 19)
    fires = {(f["code"], f["round"]) for f in shown["fires"]}
    # Codex's shell_command is a shell: its failures are routine work output, so F001
    # leaves them to the guards that read what the calls did (P004: the same call, the
    # same outcome).
    assert ("P004", 3) in fires
    assert "F001" not in {code for code, _ in fires}
    assert shown["policy"]["stopped_at"] == 3


def test_exec_errors_from_exit_codes_events_and_statuses():
    (trace,), warnings = read(EXEC_ERRORS)
    assert warnings == []
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["shell"], ["web_search", "apply_patch"], ["exec_command"], ["view_image"]]
    shell, search, patch, mypy, image = list(trace.tool_calls())
    assert (shell.result.content, shell.result.is_error) == ("bash: line 1: ruff: command not found\n", True)  # exit 127
    assert search.arguments == {"query": "ruff install pipx"}
    assert (search.result.content, search.result.is_error) == ('{"status":"completed"}', False)
    assert patch.arguments_raw.startswith("*** Begin Patch")
    assert (patch.result.content, patch.result.is_error) == ("Success. Updated the following files:\nM shop/cart.py\n", False)
    # Unified exec: "Process exited with code 1" in the header.
    assert (mypy.result.content, mypy.result.is_error) == ('shop/cart.py:3: error: Name "Item" is not defined\n', True)
    # No code in the text: the exec_command_end event written before it says 0.
    assert (image.result.content, image.result.is_error) == ("attached local image path", False)
    assert [usage_tuple(r) for r in trace.rounds] == [(1800, 31, 1536, 0), (1900, 88, 1792, 40), (2000, 27, 1920, 0), (2100, 22, 1920, 0)]
    assert trace.error.startswith("stream disconnected before completion")
    assert trace.ending == "error"


def test_bare_era_rollout():
    (trace,), warnings = read(BARE)
    assert warnings == []
    assert (trace.id, trace.format, trace.metadata) == ("5973b6c0-94b8-487b-a530-2aeb6098ae0e", "codex-cli", {"branch": "fix-cart"})
    assert len(trace.rounds) == 2
    (call,) = list(trace.tool_calls())
    assert (call.id, call.name, call.arguments) == ("call_b1", "shell", {"command": ["bash", "-lc", "wc -l shop/cart.py"]})
    assert (call.result.content, call.result.is_error) == ("42 shop/cart.py\n", False)
    assert [m.text for m in trace.user_messages] == ["How many lines is cart.py?"]
    assert [r.usage for r in trace.rounds] == [None, None]
    assert [r.started_at for r in trace.rounds] == [None, None]
    assert trace.ending == "answered"


def test_malformed_rollout_warns_with_file_and_line_and_keeps_the_trace():
    (trace,), warnings = read(MALFORMED)
    assert len(trace.rounds) == 2
    assert trace.id == "0199a216-6f3a-7e52-b1d4-2f9c8e7a6b50"
    assert [usage_tuple(r) for r in trace.rounds] == [(1500, 25, 1280, 0), (1600, 12, 1536, 0)]
    name = MALFORMED.name
    got = sorted((file, line, reason.split(":")[0] if "JSON" in reason else reason) for file, line, reason in warnings)
    assert [(file, line) for file, line, _ in got] == [(name, 5), (name, 7), (name, 8), (name, 9), (name, 10)]
    reasons = " | ".join(reason for _, _, reason in warnings)
    assert "not valid JSON" in reasons
    assert "response item of unknown type 'hologram_call' skipped" in reasons
    assert "tool result for unknown call id 'call_nobody'" in reasons
    assert "Codex rollout line of unknown type 'telemetry' skipped" in reasons
    assert "call call_m1 (shell) has no result" in reasons


def test_sniffed_without_input_format_and_listed(cli, tmp_path):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"codex-cli"}
    listed = cli("formats").stdout
    assert "codex-cli" in listed and "Codex CLI session rollouts" in listed
    # A file of other lines that merely have a "type" and a "payload" is no rollout.
    other = write_jsonl(tmp_path / "other.jsonl", [{"type": "response_item", "payload": "not an object"}])
    result = cli("replay", str(other), "-f", "json")
    assert "codex-cli" not in result.stdout


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_a_forked_session_keeps_its_own_id(tmp_path):
    # A fork writes its own meta (naming its parent), then its parent's meta and history.
    lines = _lines(HEALTHY)
    parent = json.loads(json.dumps(lines[0]))
    parent["payload"]["id"] = "parent-session"
    lines[0]["payload"]["forked_from_id"] = "parent-session"
    path = write_jsonl(tmp_path / "fork.jsonl", [lines[0], parent, *lines[1:]])
    (trace,), warnings = read(path)
    assert warnings == []
    assert (trace.id, trace.metadata["forked_from_id"], len(trace.rounds)) == ("0199a213-81c0-7800-8aa1-bbab2a035a53", "parent-session", 5)


def test_rollouts_joined_in_one_file_are_two_traces(tmp_path):
    path = write_jsonl(tmp_path / "joined.jsonl", [*_lines(HEALTHY), *_lines(LOOP)])
    (first, second), warnings = read(path)
    assert warnings == []
    alone = {t.id: t for t in read(HEALTHY, LOOP)[0]}
    for trace in (first, second):
        assert [usage_tuple(r) for r in trace.rounds] == [usage_tuple(r) for r in alone[trace.id].rounds]
        assert [r.started_at for r in trace.rounds] == [r.started_at for r in alone[trace.id].rounds]
    assert (first.end_line, second.line) == (26, 27)


def test_repeated_token_count_is_not_a_second_response(tmp_path):
    lines = _lines(HEALTHY)
    # Line 9 (round 1's count) written twice, the second time after round 2's items.
    repeated = [*lines[:12], lines[8], *lines[12:]]
    path = write_jsonl(tmp_path / "repeat.jsonl", repeated)
    (trace,), _ = read(path)
    assert usage_tuple(trace.rounds[1]) == (2230, 61, 2048, 32)


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(HEALTHY, ["codex-cli", "0199a213-81c0-7800-8aa1-bbab2a035a53"], ALL, tmp_path)


# --- codex exec --json event streams -------------------------------------------------------

EXEC_LOOP = FIXTURES / "exec_loop.jsonl"
EXEC_TOOLS = FIXTURES / "exec_tools.jsonl"


def test_exec_stream_loop_rounds_errors_and_turn_usage(cli):
    (trace,), warnings = read(EXEC_LOOP)
    assert warnings == []
    assert (trace.id, trace.format, trace.metadata["shape"]) == ("0199a217-5a1b-7c22-8d3e-4f5a6b7c8d9e", "codex-cli", "exec-json")
    # One call per model response, even with no reasoning item between two of them.
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 1, 0]
    calls = list(trace.tool_calls())
    assert {(c.name, c.arguments["command"]) for c in calls} == {("shell", "bash -lc 'pytest tests/test_api.py -x'")}
    assert [(c.id, c.result.is_error) for c in calls] == [("item_1", True), ("item_3", True), ("item_4", True), ("item_5", True)]
    # Usage is per turn only: a run total, rounds have none; no times in the stream.
    assert [r.usage for r in trace.rounds] == [None] * 5
    assert counts_tuple(trace.usage_total) == (17100, 227, 15232, None)
    assert [r.started_at for r in trace.rounds] == [None] * 5
    report = json.loads(cli("replay", str(EXEC_LOOP), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert shown["policy"]["stopped_at"] == 3
    assert {("P004", 3), ("F003", 3)} <= {(f["code"], f["round"]) for f in shown["fires"]}


def test_exec_stream_parallel_calls_mcp_file_change_and_turns():
    (trace,), warnings = read(EXEC_TOOLS)
    assert warnings == []
    # The message and the two calls started together are one round.
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["search_docs", "shell"], ["apply_patch"], [], []]
    assert trace.rounds[0].text == "Checking the docs server and the files."
    search, ls, patch = list(trace.tool_calls())
    assert (search.arguments, search.result.content, search.result.is_error) == ({"query": "retry policy"}, "1. Retry policy - docs/retry.md", False)
    assert (ls.result.content, ls.result.is_error) == ("retry.md\nbackoff.md\n", False)
    assert patch.result.is_error is True
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 2]
    assert counts_tuple(trace.usage_total) == (18300, 162, 17280, None)


def test_exec_stream_failed_turn_and_unknown_events(tmp_path):
    events = [
        {"type": "thread.started", "thread_id": "t-1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "hologram", "text": "?"}},
        {"type": "item.started", "item": {"id": "item_1", "type": "command_execution", "command": "make", "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
        {"type": "telemetry"},
        {"type": "turn.failed", "error": {"message": "stream error: unexpected status 503"}},
    ]
    path = write_jsonl(tmp_path / "exec.jsonl", events)
    (trace,), warnings = read(path)
    assert (trace.id, trace.error, trace.ending) == ("t-1", "stream error: unexpected status 503", "error")
    assert [(line, reason) for _, line, reason in warnings] == [
        (3, "codex exec item of unknown type 'hologram' skipped"),
        (5, "codex exec event of unknown type 'telemetry' skipped"),
        (4, "trace t-1: call item_1 (shell) has no result"),
    ]


def test_exec_stream_round_trip(tmp_path):
    assert_show_and_convert_round_trip(EXEC_TOOLS, ["0199a218-1c2d-7e3f-8a4b-5c6d7e8f9a0b"], [EXEC_LOOP, EXEC_TOOLS], tmp_path)


def test_rollout_lines_without_timestamps_are_still_a_rollout(tmp_path):
    # codex-rs always writes "timestamp"; tools that copy or trim rollouts may drop it.
    lines = [{k: v for k, v in line.items() if k != "timestamp"} for line in _lines(HEALTHY)]
    path = write_jsonl(tmp_path / "trimmed.jsonl", lines)
    (trace,), warnings = read(path)
    assert warnings == []
    assert (trace.format, len(trace.rounds), usage_tuple(trace.rounds[0])) == ("codex-cli", 5, (2104, 48, 1920, 20))
    assert [r.started_at for r in trace.rounds] == [None] * 5


def test_no_other_formats_file_is_sniffed_as_a_codex_session():
    assert_sniffed_alone("codex-cli", [HEALTHY, LOOP, EXEC_ERRORS, BARE, EXEC_LOOP, EXEC_TOOLS])
