"""The Claude Code stream-json reader (``claude -p --output-format stream-json --verbose``,
Harbor's ``claude-code.txt``): one round per response (lines grouped by message id),
results attached by tool_use_id with Claude Code's is_error flag, input tokens per round
and the run total from the result line, the result line as the ending, sub-agent runs as
traces of their own; read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.readers import reader_by_name, sniff

from conftest import (
    assert_show_and_convert_round_trip,
    assert_sniffed_alone,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    usage_tuple as counts_tuple,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "claude_code_stream"
REAL = FIXTURES / "claude-code.txt"
MAX_TURNS = FIXTURES / "max_turns.jsonl"
SUBAGENT = FIXTURES / "subagent.jsonl"
API_ERROR = FIXTURES / "api_error.jsonl"
CUT = FIXTURES / "claude-code-cut.txt"
BAD = FIXTURES / "bad_lines.jsonl"
ALL = [REAL, MAX_TURNS, SUBAGENT, API_ERROR, CUT, BAD]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_real_harbor_file_rounds_calls_results_and_tokens():
    (trace,), warnings = read(REAL)
    assert warnings == []
    assert (trace.id, trace.format, trace.line, trace.end_line) == ("69c2f083-6414-4b7b-894d-dc9e32a86073", "claude-code-stream", 1, 18)
    assert trace.metadata == {
        "cwd": "/workspace",
        "model": "claude-haiku-4-5-20251001",
        "claude_code_version": "2.1.63",
        "num_turns": 48,
        "duration_ms": 325356,
        "duration_api_ms": 318571,
        "total_cost_usd": 0.5992332499999999,
        "result_subtype": "success",
    }
    # Thinking, text and tool_use lines of one response (same message.id) are one round.
    assert [r.line for r in trace.rounds] == [2, 7, 10, 14, 17]
    assert [r.id for r in trace.rounds][:2] == ["msg_018bteqc9NDYHe22RjWctCZd", "msg_01E11WhSeRUA9D9QMEKLmPyf"]
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["Bash"], ["Bash"], ["Bash"], ["Bash"], []]
    first = trace.rounds[0].tool_calls[0]
    assert first.arguments == {"command": 'ls -la /ccb_crossrepo/src/ 2>/dev/null || echo "Directory not found, checking parent"'}
    assert (first.result.content, first.result.is_error, first.result.line) == ("Directory not found, checking parent", False, 6)
    assert trace.rounds[0].text.startswith("I'll help you standardize the HTTP Request class naming")
    assert trace.rounds[1].text == ""  # thinking is not text
    # Input by hand: input + cache creation + cache read (8 + 6988 + 26864); the output
    # count on stream lines is the response-start placeholder: unknown.
    assert [usage_tuple(r) for r in trace.rounds] == [
        (33860, None, 26864, None),
        (34388, None, 33852, None),
        (34584, None, 34377, None),
        (34761, None, 34573, None),
        (106738, None, 105278, None),
    ]
    # The result line's usage is the whole run's (379 + 79869 + 3296480 in, 33874 out).
    assert counts_tuple(trace.usage_total) == (3376728, 33874, 3296480, None)
    assert [r.started_at for r in trace.rounds] == [None] * 5
    assert trace.ending == "answered" and trace.error is None
    assert trace.user_messages == []  # claude -p does not echo its prompt


def test_repeated_failing_command_until_max_turns(cli):
    (trace,), warnings = read(MAX_TURNS)
    assert warnings == []
    calls = list(trace.tool_calls())
    assert [c.arguments["command"] for c in calls] == ["cd /app && python -m pytest tests -x -q"] * 4
    assert [c.result.is_error for c in calls] == [True] * 4
    assert calls[0].result.content.endswith("E   ModuleNotFoundError: No module named 'app.db'")
    assert [usage_tuple(r) for r in trace.rounds] == [(14613, None, 14200, None), (15043, None, 14610, None), (15493, None, 15040, None), (15963, None, 15490, None)]
    assert counts_tuple(trace.usage_total) == (64012, 640, 62300, None)
    assert (trace.ending, trace.error) == ("limit", "error_max_turns after 5 turns")
    report = json.loads(cli("replay", str(MAX_TURNS), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert (shown["format"], shown["rounds"], shown["tool_calls"]) == ("claude-code-stream", 4, 4)
    # Bash is a shell: its failures are left to the guards that read what the calls did.
    assert ("P004", 3) in {(f["code"], f["round"]) for f in shown["fires"]}


def test_subagent_lines_are_a_trace_of_their_own():
    (main, sub), warnings = read(SUBAGENT)
    assert warnings == []
    assert (main.id, main.line, main.end_line) == ("7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d", 2, 17)
    assert [[c.name for c in r.tool_calls] for r in main.rounds] == [["Task"], []]
    (task,) = main.rounds[0].tool_calls
    assert task.result.content == "The loader is `load_settings()` in /app/settings/loader.py (found by grep; the file could not be read)."
    assert (task.result.is_error, task.result.line) == (False, 13)
    # The last line of the final response carries its stop_reason: its output is final.
    assert [usage_tuple(r) for r in main.rounds] == [(15005, None, 11800, None), (15263, 27, 15000, None)]
    assert [r.finish_reason for r in main.rounds] == [None, "stop"]
    assert counts_tuple(main.usage_total) == (30268, 58, 26800, None)
    assert main.ending == "answered"
    assert sub.id == "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d/toolu_01TaskAbCdEfGhIjKlMnOp"
    assert sub.metadata == {"parent_session": main.id, "parent_tool_use_id": "toolu_01TaskAbCdEfGhIjKlMnOp", "agent_id": "a91c2e7"}
    assert [m.text for m in sub.user_messages] == ["Find where the YAML config is loaded and report the file and function."]
    assert [[c.name for c in r.tool_calls] for r in sub.rounds] == [["Grep"], ["Read"], []]
    grep, read_call = sub.tool_calls()
    assert (grep.result.is_error, read_call.result.is_error) == (False, True)
    assert [usage_tuple(r) for r in sub.rounds] == [(9004, None, 8100, None), (9126, None, 9000, None), (9426, None, 9120, None)]
    assert sub.usage_total is None and sub.ending == "answered"


def test_subagent_prompt_and_agent_id_from_the_task_call_and_result(tmp_path):
    # Older CLIs write neither the sub-agent's prompt nor task_started on the stream.
    lines = [line for line in _lines(SUBAGENT) if not (line["type"] == "user" and line["message"]["content"][0]["type"] == "text") and line.get("subtype") != "task_started"]
    (_, sub), warnings = read(write_jsonl(tmp_path / "no_prompt.jsonl", lines))
    assert warnings == []
    assert [m.text for m in sub.user_messages] == ["Find where the YAML config is loaded and report the file and function."]
    assert sub.metadata["agent_id"] == "a91c2e7"  # from the Task result's tool_use_result


def test_api_error_is_the_ending(tmp_path):
    (trace,), warnings = read(API_ERROR)
    assert warnings == []
    assert len(trace.rounds) == 1  # the CLI's synthetic message is no round
    assert (trace.ending, trace.error) == ("error", 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}')
    assert trace.metadata["claude_code_version"] == "1.0.128"
    # Without the result line, the synthetic message still says how the run ended.
    (alone,), _ = read(write_jsonl(tmp_path / "no_result.jsonl", _lines(API_ERROR)[:-1]))
    assert (alone.ending, alone.error) == ("error", trace.error)


def test_harbor_file_with_stderr_lines_cut_mid_run():
    (trace,), warnings = read(CUT)
    name = CUT.name
    assert [(file, line) for file, line, _ in warnings] == [(name, 1), (name, 5), (name, 8), (name, 7), (name, 7)]
    reasons = [reason for _, _, reason in warnings]
    assert reasons[0].startswith("not valid JSON") and reasons[1].startswith("not valid JSON")
    assert reasons[2].startswith("truncated last line")
    assert reasons[3] == f"trace {trace.id}: no result line: the stream ends before the run did"
    assert reasons[4] == f"trace {trace.id}: call toolu_01CutTestAbCdEfGhIjKlM (Bash) has no result"
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1]
    assert trace.rounds[0].tool_calls[0].result.line == 6
    assert (trace.ending, trace.error, trace.usage_total) == (None, None, None)


def test_malformed_lines_warn_with_file_and_line_and_keep_the_trace():
    (trace,), warnings = read(BAD)
    name = BAD.name
    assert [(file, line) for file, line, _ in warnings] == [(name, n) for n in (2, 3, 4, 5, 6, 7, 10)]
    reasons = " | ".join(reason for _, _, reason in warnings)
    assert "JSON that is not a Claude Code stream message" in reasons
    assert "usage.input_tokens 'many' is not a token count" in reasons
    assert "assistant message without a 'message' object skipped" in reasons
    assert "tool result for unknown call id 'toolu_01NobodyAbCdEfGhIjKlMn'" in reasons
    assert "Claude Code stream message of unknown type 'telemetry' skipped" in reasons
    assert "result total_cost_usd 'free' is not a number; ignored" in reasons
    assert [usage_tuple(r) for r in trace.rounds] == [(1000, None, 900, None), (1052, 9, 1000, None)]
    assert trace.rounds[0].tool_calls[0].result.content == "1.4.2"
    assert trace.ending == "answered" and "total_cost_usd" not in trace.metadata


def test_resumed_session_in_one_file_is_one_trace_with_two_turns(tmp_path):
    lines = _lines(MAX_TURNS)
    answer = json.loads(json.dumps(lines[1]))  # the first response's text line, as a new response
    answer["message"]["id"] = "msg_01ResumedAbCdEfGhIjKlMn"
    answer["message"]["content"] = [{"type": "text", "text": "The conftest imports app.db, which does not exist."}]
    answer["uuid"] = "4f3c2b1a-0000-4000-8000-000000000099"
    again = {**lines[-1], "subtype": "success", "is_error": False, "num_turns": 1}
    path = write_jsonl(tmp_path / "resumed.jsonl", [*lines, lines[0], answer, again])
    (trace,), warnings = read(path)
    assert warnings == []
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2]
    assert [(m.text, m.before_round) for m in trace.user_messages] == [("", 5)]
    assert trace.ending == "answered" and trace.error is None
    assert trace.metadata["num_turns"] == 1  # the last result line's
    assert counts_tuple(trace.usage_total) == (2 * 64012, 2 * 640, 2 * 62300, None)


def test_two_sessions_in_one_file_are_two_traces(tmp_path):
    path = write_jsonl(tmp_path / "joined.jsonl", [*_lines(MAX_TURNS), *_lines(API_ERROR)])
    (first, second), warnings = read(path)
    assert warnings == []
    assert (first.ending, second.ending) == ("limit", "error")
    assert (first.end_line, second.line) == (11, 12)


def test_sniffed_without_input_format_and_listed(cli):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"claude-code-stream"}
    listed = cli("formats").stdout
    assert "claude-code-stream" in listed and "stream-json" in listed


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(SUBAGENT, ["claude-code-stream", "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"], [REAL, MAX_TURNS, SUBAGENT, API_ERROR], tmp_path)


def test_no_other_formats_file_is_sniffed_as_a_claude_code_stream():
    assert_sniffed_alone("claude-code-stream", [MAX_TURNS, SUBAGENT, API_ERROR])


def test_session_jsonl_and_stream_never_take_each_others_files():
    # Every first line of every stream fixture is sniffed as the stream, never as a session.
    for path in ALL:
        first = next(json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.startswith("{"))
        assert sniff(first).name == "claude-code-stream", path
    # An assistant line first (a stream cut at its head) is still the stream's, though
    # claude-code's own sniffer would take it (it has a uuid and a message).
    assistant = _lines(MAX_TURNS)[1]
    assert reader_by_name("claude-code").sniff(assistant)
    assert sniff(assistant).name == "claude-code-stream"
    for path in (FIXTURES.parent / "claude_code").glob("*.jsonl"):
        for text in path.read_text(encoding="utf-8").splitlines()[:30]:
            try:
                entry = json.loads(text)
            except ValueError:
                continue
            assert not reader_by_name("claude-code-stream").sniff(entry), path


# Terminal-Bench's own harness (``tb run``) keeps <trial>/results.json beside the stream's
# folder; a real trial of the corpus family codetracer-claude-code-qwen3-coder.
TB_TRIAL = Path(__file__).resolve().parent / "corpus" / "codetracer-claude-code-qwen3-coder" / "crack-7z-hash.easy"


def _tb_result(resolved) -> bytes:
    value = json.loads((TB_TRIAL / "results.json").read_text(encoding="utf-8"))
    value["is_resolved"] = resolved
    return json.dumps(value).encode()


def test_terminal_bench_results_json_gives_the_outcome_beside_or_one_folder_up(tmp_path):
    stream = (TB_TRIAL / "claude-code.jsonl").read_bytes()
    # As the harness lays a trial out: <trial>/results.json, <trial>/sessions/<stream>.
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "claude_code.jsonl").write_bytes(stream)
    (tmp_path / "results.json").write_bytes(_tb_result(True))
    (trace,), warnings = read(tmp_path / "sessions" / "claude_code.jsonl")
    assert warnings == []
    assert trace.outcome == "success"
    assert trace.metadata["graded_by"] == str(tmp_path / "results.json")
    # Beside the stream, unresolved: failure. is_resolved null (the tests' output could not
    # be parsed): no verdict. No results.json: no outcome.
    (tmp_path / "results.json").unlink()
    for resolved, outcome in ((False, "failure"), (None, "unknown")):
        (tmp_path / "sessions" / "results.json").write_bytes(_tb_result(resolved))
        (trace,), _ = read(tmp_path / "sessions" / "claude_code.jsonl")
        assert trace.outcome == outcome
    (tmp_path / "sessions" / "results.json").unlink()
    (trace,), _ = read(tmp_path / "sessions" / "claude_code.jsonl")
    assert (trace.outcome, "graded_by" in trace.metadata) == ("unknown", False)


def test_terminal_bench_result_is_skipped_by_a_folder_walk_and_sub_agents_get_no_outcome(tmp_path, cli):
    trial = TB_TRIAL.parent / "swe-bench-fsspec"  # resolved, with one Task sub-agent
    out = tmp_path / "out.jsonl"
    result = cli("convert", str(trial), "-o", str(out))
    assert result.exit_code == 0
    assert "warning" not in result.stderr  # results.json is not a transcript
    events = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    traces = [e["trace"] for e in events if e["type"] == "trace"]
    outcomes = {e["trace"]: e["labels"]["outcome"] for e in events if e["type"] == "labels"}
    assert len(traces) == 2 and "/" in traces[1]
    assert outcomes == {traces[0]: "success"}
