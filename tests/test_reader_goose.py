"""The Goose session reader: one round per assistant message, results attached by id,
errors from the toolResult status and CallToolResult.isError, the run's token total from
the metadata line; read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.readers import READER_NAMES

from conftest import (
    assert_sniffed_alone,
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    usage_tuple,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "goose"
HEALTHY = FIXTURES / "20250612_143020.jsonl"
LOOP = FIXTURES / "20250820_091500.jsonl"
ERRORS = FIXTURES / "20251001_100000.jsonl"
MALFORMED = FIXTURES / "20251001_110000.jsonl"
EXPORT = FIXTURES / "goose-session-20251108_1.json"
GOOSE_TEST_MESSAGE = FIXTURES / "goose_repo_test_deserialization.json"
ALL = [HEALTHY, LOOP, ERRORS, MALFORMED, EXPORT, GOOSE_TEST_MESSAGE]

T_HEALTHY = 1749738620  # the first message's "created" in HEALTHY


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_healthy_session_rounds_calls_results_turns_and_run_total():
    (trace,), warnings = read(HEALTHY)
    assert warnings == []
    # The session id is the file name; the metadata line is no round.
    assert (trace.id, trace.format, trace.line, trace.end_line) == ("20250612_143020", "goose", 1, 13)
    assert trace.metadata == {"working_dir": "/home/dev/shop", "description": "Run shop test suite"}
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [
        ["developer__shell"], ["developer__text_editor"], ["developer__shell"], [], ["developer__shell"], [],
    ]
    assert [r.line for r in trace.rounds] == [3, 5, 7, 9, 11, 13]
    assert [c.id for c in trace.tool_calls()] == ["toolu_01A1", "toolu_01B2", "toolu_01C3", "toolu_01D4"]
    ls, view, pytest_run, status = trace.tool_calls()
    assert ls.arguments == {"command": "ls"}
    # The shell's output twice (for the assistant, then for the user): read once.
    assert (ls.result.content, ls.result.is_error, ls.result.line) == ("README.md\npyproject.toml\nshop\ntests\n", False, 4)
    # text_editor's view: the resource given to the assistant, not the user's rendering.
    assert view.result.content == '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    assert pytest_run.result.content.endswith("12 passed in 3.91s\n")
    assert [r.text for r in trace.rounds][:4] == [
        "I'll look at the project layout first.",
        "Let me check how the tests are configured.",
        "",
        "All 12 tests pass (`pytest -q`, 3.9 s).",
    ]
    # Whole seconds: a round ends at its message's "created" and starts at the one before.
    assert [(r.started_at, r.ended_at) for r in trace.rounds[:3]] == [
        (T_HEALTHY, T_HEALTHY + 4), (T_HEALTHY + 4, T_HEALTHY + 7), (T_HEALTHY + 7, T_HEALTHY + 15),
    ]
    assert status.result.ended_at == T_HEALTHY + 63
    assert [m.text for m in trace.user_messages] == ["Run the test suite and tell me whether it passes.", "Thanks. What does git status say?"]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2, 2]
    # Tokens: the accumulated run total only; total_tokens/input_tokens are the last call's.
    assert usage_tuple(trace.usage_total) == (12602, 356, None, None)
    assert [r.usage for r in trace.rounds] == [None] * 6
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "tool_calls", "stop", "tool_calls", "stop"]
    assert {r.model for r in trace.rounds} == {None}  # the JSONL files name no model
    assert trace.ending == "answered" and trace.error is None


def test_repeated_shell_call_loop_fires_guards(cli):
    (trace,), warnings = read(LOOP)
    assert warnings == []
    calls = list(trace.tool_calls())
    assert [c.arguments for c in calls] == [{"command": "cd /home/dev/shop && pytest tests/test_api.py -x"}] * 4
    # The developer shell reports no exit code: a failing command is a success.
    assert [c.result.is_error for c in calls] == [False] * 4
    assert {c.result.content.splitlines()[-2] for c in calls} == {"E   ModuleNotFoundError: No module named 'shop.api'"}
    assert [r.id for r in trace.rounds] == ["msg_01L0", "msg_01L1", "msg_01L2", "msg_01L3", "msg_01L4"]
    assert usage_tuple(trace.usage_total) == (18100, 227, None, None)
    report = json.loads(cli("replay", str(LOOP), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert shown["format"] == "goose"
    assert (shown["rounds"], shown["tool_calls"], shown["tokens"]) == (5, 4, 18100 + 227)
    fires = {(f["code"], f["round"]) for f in shown["fires"]}
    # developer__shell is a shell: F001 leaves its outputs to the guards that read them.
    assert ("P004", 3) in fires
    assert "F001" not in {code for code, _ in fires}
    assert shown["policy"]["stopped_at"] == 3


def test_errors_from_status_and_is_error_and_a_full_context():
    (trace,), warnings = read(ERRORS)
    assert warnings == []
    view, broken, issue, search = trace.tool_calls()
    # status "error": the error text is the result.
    assert (view.name, view.result.content, view.result.is_error) == (
        "developer__text_editor", "-32603: The path '/home/dev/shop/shop/net.py' does not exist or is not accessible.", True,
    )
    # A call the model wrote that could not be parsed: no name, the error its argument.
    assert (broken.id, broken.name, broken.arguments_error) == ("toolu_01E2", "", None)
    assert broken.arguments_raw.startswith("-32602: Could not interpret tool use parameters")
    assert broken.result.is_error is True
    # An MCP tool's CallToolResult with isError.
    assert (issue.name, issue.result.content, issue.result.is_error) == ("github__create_issue", "Bad credentials: the GitHub token was rejected (401).", True)
    assert (search.result.content, search.result.is_error) == ("/home/dev/shop/shop/http.py\n", False)
    # Thinking is not what the model said; a thinking + call message is one round.
    assert [r.text for r in trace.rounds] == ["Let me look at the fetch helper.", "", "", "Let me find the helper."]
    # The compaction summary Goose put in a user message for the model alone is no turn.
    assert [m.text for m in trace.user_messages] == ["Add a retry to the fetch helper and open an issue for the flaky test."]
    # The context-full notice after the last round: the run ended at a limit.
    assert trace.error == "The context length of the model has been exceeded. Please start a new session and try again."
    assert trace.ending == "limit"
    assert usage_tuple(trace.usage_total) == (401100, 342, None, None)


def test_export_json_with_inference_models():
    (trace,), warnings = read(EXPORT)
    assert warnings == []
    assert (trace.id, trace.format) == ("20251108_1", "goose")
    assert trace.metadata == {"working_dir": "/home/dev/http-client", "description": "HTTP client retries"}
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 0]
    assert [r.id for r in trace.rounds] == ["msg_20251108_1_1", "msg_20251108_1_3", "msg_20251108_1_5"]
    assert {r.model for r in trace.rounds} == {"claude-sonnet-4-5-20250929"}  # resolvedModel
    search, view = trace.tool_calls()
    assert (search.name, search.arguments, search.result.content, search.result.is_error) == (
        "docs__search_docs", {"query": "retry policy"}, "1. Retry policy - docs/retry.md", False,
    )
    assert view.result.content == "# Retry policy\nUp to 3 retries, exponential backoff (base 0.5 s).\n"
    assert usage_tuple(trace.usage_total) == (6700, 170, None, None)
    assert trace.rounds[-1].ended_at == 1762593302 + 11
    assert trace.ending == "answered"


def test_the_message_of_gooses_own_deserialization_test():
    # Verbatim from block/goose's message tests: one assistant message, its call unanswered.
    (trace,), warnings = read(GOOSE_TEST_MESSAGE)
    assert [(r.text, [(c.id, c.name, c.arguments) for c in r.tool_calls]) for r in trace.rounds] == [
        ("I'll help you with that.", [("tool123", "test_tool", {"param": "value"})]),
    ]
    assert trace.rounds[0].ended_at == 1740171566
    assert [reason for _, _, reason in warnings] == ["trace goose_repo_test_deserialization: call tool123 (test_tool) has no result"]


def test_malformed_session_warns_with_file_and_line_and_keeps_the_trace():
    (trace,), warnings = read(MALFORMED)
    assert [r.text for r in trace.rounds] == ["Listing them.", "I could not list the files."]
    name = MALFORMED.name
    got = [(file, line, reason.split(":")[0] if "JSON" in reason else reason) for file, line, reason in warnings]
    assert got == [
        (name, 1, "accumulated_input_tokens 'lots' is not a token count (a whole number from 0 to 2**53 - 1); read as unknown"),
        (name, 3, "not valid JSON"),
        (name, 4, "Goose content block of unknown type 'hologram' skipped"),
        (name, 5, "trace 20251001_110000: tool result for unknown call id 'toolu_nobody'"),
        (name, 6, "Goose message whose content is not a list ('not a list') skipped"),
        (name, 7, "Goose message with no user or assistant role ('system') skipped"),
        (name, 4, "trace 20251001_110000: call toolu_01M1 (developer__shell) has no result"),
    ]
    # The valid count of a metadata line is kept beside the broken one.
    assert usage_tuple(trace.usage_total) == (None, 25, None, None)


def test_sniffed_without_input_format_and_listed(cli):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"goose"}
    listed = cli("formats").stdout
    assert "goose" in listed and "Goose session files" in listed


def test_a_file_without_its_metadata_line_is_still_a_session(tmp_path):
    # Goose reads a first line that is not metadata as a message; so does the reader.
    path = write_jsonl(tmp_path / "20250612_143020.jsonl", _lines(HEALTHY)[1:])
    (trace,), warnings = read(path)
    assert warnings == []
    assert (trace.format, len(trace.rounds), trace.usage_total) == ("goose", 6, None)


def test_sessions_joined_in_one_file_are_two_traces(tmp_path):
    path = write_jsonl(tmp_path / "joined.jsonl", [*_lines(HEALTHY), *_lines(LOOP)])
    (first, second), warnings = read(path)
    assert warnings == []
    assert [len(t.rounds) for t in (first, second)] == [6, 5]
    assert (first.end_line, second.line) == (13, 14)
    assert [usage_tuple(t.usage_total) for t in (first, second)] == [(12602, 356, None, None), (18100, 227, None, None)]
    assert second.rounds[0].started_at == 1755680100  # nothing carried over from the first


def test_chunks_of_one_response_sharing_an_id_are_one_round(tmp_path):
    lines = _lines(LOOP)
    text, call = lines[2]["content"]
    split = [dict(lines[2], content=[text]), dict(lines[2], content=[call])]
    path = write_jsonl(tmp_path / "split.jsonl", [*lines[:2], *split, *lines[3:]])
    (trace,), warnings = read(path)
    assert warnings == []
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 1, 0]
    assert (trace.rounds[0].text, trace.rounds[0].line) == ("Running the API tests.", 3)


def test_json_array_of_messages(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(_lines(HEALTHY)[1:]), encoding="utf-8")
    (trace,), warnings = read(path)
    assert warnings == []
    assert (trace.format, len(trace.rounds), len(list(trace.tool_calls()))) == ("goose", 6, 4)


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(HEALTHY, ["goose", "20250612_143020"], [HEALTHY, LOOP, ERRORS, EXPORT], tmp_path)


def _first_record(path: Path):
    """The record a sniffer sees first: a .jsonl file's first line, a .json file whole."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return json.loads(text.splitlines()[0] if path.suffix == ".jsonl" else text)
    except (ValueError, IndexError):
        return None


def test_no_other_formats_file_is_sniffed_as_a_goose_session():
    assert_sniffed_alone("goose", [HEALTHY, LOOP, ERRORS, EXPORT])


def test_goose_files_are_not_sniffed_as_an_earlier_format():
    from tracecheck.readers import READERS

    earlier = READERS[: READER_NAMES.index("goose")]
    assert [(p.name, i.name) for p in ALL for i in earlier if i.sniff(_first_record(p))] == []
