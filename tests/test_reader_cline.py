"""The Cline / Roo Code task-history reader: one round per assistant message, XML and
native calls, results from Cline's "[tool] Result:" texts and tool_result blocks, errors
from Cline's own failure wording and Roo's exit codes, tokens from the messages' metrics
or the ui_messages.json beside the file; read through the public API and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tracecheck.readers import not_a_transcript

from conftest import (
    assert_sniffed_alone,
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "cline"
HISTORY = "api_conversation_history.json"
REAL = FIXTURES / "real-mike4567-MRA04242026" / HISTORY
XML = FIXTURES / "1741593612000" / HISTORY
ROO = FIXTURES / "0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7" / HISTORY
MALFORMED = FIXTURES / "malformed" / HISTORY
ALL = [REAL, XML, ROO, MALFORMED]

T_XML = 1741593612.0  # the first ui message of the XML fixture (ms / 1000)
T_ROO = 1760608800.0  # the first message of the Roo fixture


def task_copy(source: Path, tmp_path: Path, name: str = "task") -> Path:
    """The task folder of ``source`` copied to ``tmp_path/name``; its history file's path."""
    folder = tmp_path / name
    shutil.copytree(source.parent, folder)
    return folder / HISTORY


def write_history(folder: Path, messages: list, ui: list | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / HISTORY).write_text(json.dumps(messages, separators=(",", ":")), encoding="utf-8")
    if ui is not None:
        (folder / "ui_messages.json").write_text(json.dumps(ui, separators=(",", ":")), encoding="utf-8")
    return folder / HISTORY


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def test_real_cline_file_native_calls_text_results_metrics_and_times():
    (trace,), warnings = read(REAL)
    assert warnings == []
    assert (trace.id, trace.format, trace.metadata) == (
        "real-mike4567-MRA04242026",
        "cline",
        {"task_id": "real-mike4567-MRA04242026", "tool": "cline"},
    )
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["use_subagents"], ["list_files", "read_file", "read_file"]]
    calls = list(trace.tool_calls())
    assert [c.id for c in calls] == ["tooluse_QaAkomQSyRkyE7qF4liUqX", "tooluse_KIJqxYXkG70KwfTo7yFCgr", "tooluse_Qd9XsSK6J3mRRonZRJkw1f", "tooluse_BIbX26Xokz8zxeEEhLNq41"]
    assert calls[2].arguments == {"path": "src/lib/firebase.ts"}
    # "[subagents] Result:" answers use_subagents (the next call waiting); each header's
    # text is the result, the TODO reminder and environment details are not.
    assert calls[0].result.content.startswith("Subagent results:\nTotal: 5")
    assert calls[1].result.content.startswith("dev.ts\ngenkit.ts\nflows/")
    assert calls[3].result.content.endswith("(File has 41 lines total.)")
    assert [c.result.is_error for c in calls] == [False] * 4
    # metrics.tokens: prompt (cached included), completion, cached.
    assert [usage_tuple(r) for r in trace.rounds] == [(10049, 640, 0, None), (13115, 224, 0, None)]
    assert {r.model for r in trace.rounds} == {"claude_4_5_opus"}
    # ts in ms: a round ends at its message, starts at the message before it.
    assert [(r.started_at, r.ended_at) for r in trace.rounds] == [(1777073160.794, 1777073173.494), (1777073260.137, 1777073265.986)]
    assert (calls[1].result.started_at, calls[1].result.ended_at) == (1777073265.986, 1777073269.069)
    (task,) = trace.user_messages
    assert task.text.startswith("The attached is a technical writeup") and task.text.endswith("based on your code analysis.")
    assert trace.ending is None  # the copy ends on tool results


def test_xml_era_calls_results_errors_turns_and_tokens_from_ui_messages():
    (trace,), warnings = read(XML)
    assert warnings == []
    assert (trace.id, trace.metadata) == ("1741593612000", {"task_id": "1741593612000", "tool": "cline"})
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [
        ["execute_command"],
        ["read_file"],
        ["replace_in_file", "write_to_file"],
        ["execute_command"],
        [],
        ["execute_command"],
        ["write_to_file"],
        [],  # attempt_completion with no result after it: the answer
    ]
    calls = list(trace.tool_calls())
    assert calls[0].arguments == {"command": "npm test", "requires_approval": "false"}
    # The diff ends at its last closing tag; "<" inside values is no parameter.
    assert calls[2].arguments["diff"].startswith("<<<<<<< SEARCH\nimport { taxFor } from './taxes'")
    assert calls[6].arguments == {"path": "src/tax.ts", "content": "export const taxFor = (net: number): number => (net < 0 ? 0 : net * 0.19)"}
    # Header alone in its block: the next block is the result.
    assert calls[0].result.content.startswith("Command executed.\nOutput:\n> shop@1.0.0 test")
    # Cline's own wording of failures: toolError, not executed, denied. A command's exit
    # code is not written by Cline: the failing npm test is output, not an error flag.
    assert [c.result.is_error for c in calls] == [False, False, True, True, False, True, False]
    assert calls[3].result.content.startswith("Tool [write_to_file] was not executed")
    assert trace.rounds[0].text == "<thinking>\nI should run the test suite first to see what fails.\n</thinking>"
    assert trace.rounds[-1].text == "I added src/tax.ts with taxFor (19% on non-negative amounts), which src/cart.ts imports."
    assert trace.ending == "answered"
    # The task opens turn 1; the "[ERROR] You did not use a tool" note opens none; the
    # user's feedback after the denied command opens turn 2.
    assert [(m.text, m.before_round) for m in trace.user_messages] == [
        ("The unit tests fail. Make them pass.", 1),
        ("Stop re-running the tests. Create src/tax.ts first.", 7),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 1, 1, 2, 2]
    # api_req_started in order: input = tokensIn + cacheWrites + cacheReads, cached = cacheReads.
    assert [usage_tuple(r) for r in trace.rounds] == [
        (3 + 11820, 92, 0, None),
        (3 + 640 + 11820, 71, 11820, None),
        (3 + 702 + 12460, 188, 12460, None),
        (3 + 1010 + 13162, 44, 13162, None),
        (3 + 380 + 14172, 31, 14172, None),
        (3 + 396 + 14552, 47, 14552, None),
        (3 + 432 + 14948, 83, 14948, None),
        (3 + 702 + 15380, 69, 15380, None),
    ]
    # Request start times from the UI messages; the history has no times of its own.
    assert [r.started_at for r in trace.rounds] == [T_XML + 0.15 + 9 * k for k in range(8)]
    assert [r.ended_at for r in trace.rounds] == [None] * 8


def test_roo_native_calls_exit_codes_indexed_requests_and_api_error():
    (trace,), warnings = read(ROO)
    assert warnings == []
    assert trace.metadata == {"task_id": "0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7", "tool": "roo-code"}
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["execute_command"], ["execute_command", "read_file"], ["fetch"], []]
    start, install, read_file, fetch = trace.tool_calls()
    # Roo's exit code: 1 is an error, 0 is not; a tool_result's is_error wins.
    assert (start.result.is_error, install.result.is_error, read_file.result.is_error, fetch.result.is_error) == (True, False, False, True)
    assert start.result.content.endswith("ModuleNotFoundError: No module named 'fastapi'")
    # use_mcp_tool read as the MCP tool it calls, its JSON arguments parsed.
    assert (fetch.id, fetch.arguments) == ("toolu_04", {"url": "http://localhost:8000/health"})
    # conversationHistoryIndex: a request is answered by the first response after its
    # index; the failed last request carries no tokens; apiProtocol "anthropic" adds the
    # cache counts.
    assert [usage_tuple(r) for r in trace.rounds] == [(12 + 9400, 58, 0, None), (9 + 320 + 9400, 95, 9400, None), (7 + 450 + 9720, 77, 9720, None), None]
    assert [(r.started_at, r.ended_at) for r in trace.rounds] == [
        (T_ROO + 0.2, T_ROO + 4.1),
        (T_ROO + 6.5, T_ROO + 9.8),
        (T_ROO + 21.9, T_ROO + 25.2),
        (T_ROO + 27.2, T_ROO + 61.0),
    ]
    assert (install.result.started_at, install.result.ended_at) == (T_ROO + 9.8, T_ROO + 21.7)
    assert (trace.error, trace.ending) == ("response interrupted by API error", "error")


def test_malformed_history_warns_with_file_line_and_message_and_keeps_the_trace():
    (trace,), warnings = read(MALFORMED)
    assert trace.id == "malformed"
    (listing,) = trace.tool_calls()
    assert (listing.name, listing.result.content, listing.result.is_error) == ("list_files", "README.md\nsrc/", False)
    assert usage_tuple(trace.rounds[0]) == (None, 12, 0, None)  # the prompt count is no number
    got = [(name, line, reason.split(" (")[0] if name == "ui_messages.json" else reason) for name, line, reason in warnings]
    assert got == [
        ("ui_messages.json", None, "not valid JSON"),
        (HISTORY, 1, "trace malformed: a message must be a JSON object; skipped (message 2)"),
        (HISTORY, 1, "trace malformed: metrics.tokens.prompt 'lots' is not a token count (a whole number from 0 to 2**53 - 1); read as unknown (message 3)"),
        (HISTORY, 1, "trace malformed: tool result for unknown call id 'toolu_zz' (message 4)"),
        (HISTORY, 1, "trace malformed: result for 'read_file' with no call waiting for it (message 5)"),
        (HISTORY, 1, "trace malformed: message with unknown role 'system' skipped (message 6)"),
        (HISTORY, 1, "trace malformed: assistant content must be a string or a list of blocks; ignored (message 7)"),
    ]


def test_requests_that_do_not_match_the_responses_leave_tokens_unknown(tmp_path):
    path = task_copy(XML, tmp_path)
    ui = json.loads((path.parent / "ui_messages.json").read_text(encoding="utf-8"))
    started = [k for k, m in enumerate(ui) if m.get("say") == "api_req_started"]
    del ui[started[3]]  # 7 requests for 8 responses, with no history index to pair them
    (path.parent / "ui_messages.json").write_text(json.dumps(ui), encoding="utf-8")
    (trace,), warnings = read(path)
    assert [r.usage for r in trace.rounds] == [None] * 8
    assert warnings == [("ui_messages.json", None, f"7 API requests for 8 responses in {HISTORY}: tokens not matched")]


def test_history_indexes_pair_requests_even_when_the_counts_differ(tmp_path):
    # Cline says api_req_started before it adds the request's user message: its
    # conversationHistoryIndex is the previous response's (-1 for the first request). A
    # last request whose response never came is left unmatched.
    path = task_copy(XML, tmp_path)
    history = json.loads(path.read_text(encoding="utf-8"))
    responses = [k for k, m in enumerate(history) if m["role"] == "assistant"]
    ui = json.loads((path.parent / "ui_messages.json").read_text(encoding="utf-8"))
    requests = [m for m in ui if m.get("say") == "api_req_started"]
    for request, before in zip(requests, [-1, *responses]):
        request["conversationHistoryIndex"] = before
    ui.append({"ts": 1741593999000, "type": "say", "say": "api_req_started", "text": json.dumps({"request": "...", "tokensIn": 5, "tokensOut": 0}), "conversationHistoryIndex": len(history)})
    (path.parent / "ui_messages.json").write_text(json.dumps(ui), encoding="utf-8")
    (trace,), warnings = read(path)
    assert warnings == []
    (alone,), _ = read(XML)
    assert [usage_tuple(r) for r in trace.rounds] == [usage_tuple(r) for r in alone.rounds]
    assert usage_tuple(trace.rounds[0]) == (3 + 11820, 92, 0, None)


def test_openai_protocol_tokens_in_already_hold_the_cache(tmp_path):
    path = task_copy(ROO, tmp_path)
    ui_path = path.parent / "ui_messages.json"
    ui_path.write_text(ui_path.read_text(encoding="utf-8").replace('\\"apiProtocol\\":\\"anthropic\\"', '\\"apiProtocol\\":\\"openai\\"'), encoding="utf-8")
    (trace,), warnings = read(path)
    assert warnings == []
    assert [usage_tuple(r) for r in trace.rounds] == [(12, 58, 0, None), (9, 95, 9400, None), (7, 77, 9720, None), None]


def test_ui_messages_that_is_no_regular_file_is_refused_with_a_warning(tmp_path):
    path = task_copy(XML, tmp_path)
    (path.parent / "ui_messages.json").unlink()
    (path.parent / "ui_messages.json").mkdir()
    (trace,), warnings = read(path)
    assert [r.usage for r in trace.rounds] == [None] * 8
    ((name, line, reason),) = warnings
    assert (name, line) == ("ui_messages.json", None)
    assert "not a regular file (a folder)" in reason and reason.endswith("tokens and request times unknown")


def test_only_a_file_named_as_cline_names_it_reads_the_side_file(tmp_path):
    path = task_copy(XML, tmp_path)
    renamed = path.rename(path.parent / "history.json")
    (trace,), warnings = read(renamed)
    assert warnings == []
    assert [r.usage for r in trace.rounds] == [None] * 8
    assert trace.id == "history" and "task_id" not in trace.metadata


def test_xml_block_left_open_parallel_results_and_plan_mode_reply(tmp_path):
    messages = [
        {"role": "user", "content": [text("<task>\nWhere is the config read?\n</task>"), text("<environment_details>\n# Current Mode\nPLAN MODE\n</environment_details>")]},
        {"role": "assistant", "content": "Searching.\n<search_files>\n<path>src</path>\n<regex>loadConfig</regex>\n</search_files>"},
        {"role": "user", "content": [text("[search_files for 'loadConfig'] Result:\nFound 1 result.\n\nsrc/config.ts\n│export function loadConfig()")]},
        {"role": "assistant", "content": "<plan_mode_respond>\n<response>In src/config.ts.</response>\n</plan_mode_respond>"},
        {"role": "user", "content": [text("[plan_mode_respond] Result:\n<user_message>\nAnd who calls it?\n</user_message>")]},
        {"role": "assistant", "content": "<list_code_definition_names>\n<path>src</path>"},
    ]
    (trace,), warnings = read(write_history(tmp_path / "1700000000000", messages))
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["search_files"], ["plan_mode_respond"], ["list_code_definition_names"]]
    search, plan, open_block = trace.tool_calls()
    assert (search.arguments, trace.rounds[0].text) == ({"path": "src", "regex": "loadConfig"}, "Searching.")
    assert plan.result.content == "<user_message>\nAnd who calls it?\n</user_message>"
    # The user's reply to plan_mode_respond opens a turn.
    assert [(m.text, m.before_round) for m in trace.user_messages] == [("Where is the config read?", 1), ("And who calls it?", 3)]
    # A block left open at the end of the message is a call with what it holds.
    assert open_block.arguments == {"path": "src"} and open_block.result is None
    assert warnings == [(HISTORY, 1, "trace 1700000000000: call r3.c1 (list_code_definition_names) has no result")]
    assert trace.ending is None


def test_a_directory_walk_reads_histories_and_skips_the_side_files(cli, tmp_path):
    folder = tmp_path / "tasks"
    for source in (XML, ROO):
        task_copy(source, folder, source.parent.name)
    assert not_a_transcript(json.loads((folder / "1741593612000" / "ui_messages.json").read_text())) is not None
    assert not_a_transcript(json.loads((folder / "1741593612000" / "task_metadata.json").read_text())) is not None
    result = cli("replay", str(folder), "-f", "json")
    report = json.loads(result.stdout)
    assert sorted((t["id"], t["format"], t["rounds"]) for t in report["traces"]) == [
        ("0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7", "cline", 4),
        ("1741593612000", "cline", 8),
    ]
    assert "warning" not in result.stderr


def test_repeated_failing_command_fires_the_guards(cli, tmp_path):
    failing = "Command executed in terminal within working directory '/w'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 2\nOutput:\nmake: *** No rule to make target 'build'."
    messages = [{"role": "user", "content": [text("<task>\nBuild it.\n</task>")], "ts": 1760000000000}]
    for k in range(4):
        messages.append({"role": "assistant", "content": "<execute_command>\n<command>make build</command>\n</execute_command>", "ts": 1760000001000 + 2000 * k})
        messages.append({"role": "user", "content": [text("[execute_command for 'make build'] Result:"), text(failing)], "ts": 1760000002000 + 2000 * k})
    path = write_history(tmp_path / "0199f000-0000-7000-8000-000000000001", messages)
    (trace,), _ = read(path)
    assert [c.result.is_error for c in trace.tool_calls()] == [True] * 4
    report = json.loads(cli("replay", str(path), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert (shown["format"], shown["rounds"], shown["tool_calls"]) == ("cline", 4, 4)
    fires = {(f["code"], f["round"]) for f in shown["fires"]}
    # execute_command is a shell: its failures are routine work output, so F001 leaves
    # them to the guards that read what the calls did (P004: the same call, the same
    # outcome, at the third run; F003: a dead end).
    assert ("P004", 3) in fires and ("F003", 3) in fires
    assert "F001" not in {code for code, _ in fires}


def test_sniffed_without_input_format_and_listed(cli):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"cline"}
    listed = cli("formats").stdout
    assert "cline" in listed and "Cline / Roo Code task history" in listed


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(XML, ["cline", "1741593612000"], ALL, tmp_path)


def test_no_other_formats_file_is_sniffed_as_a_cline_history():
    assert_sniffed_alone("cline", [REAL, XML, ROO])


def test_no_output_is_written_over_the_ui_messages_read_beside_the_history(cli, tmp_path):
    # The UI messages are read with the history (tokens, times): an input as much as it is.
    from tracecheck.input.sources import COMPANION_FILES
    from tracecheck.readers.cline import UI_FILES

    assert set(UI_FILES) <= set(COMPANION_FILES)  # each name the reader opens is guarded
    task = tmp_path / "task"
    shutil.copytree(XML.parent, task)
    ui = task / "ui_messages.json"
    before = ui.read_bytes()
    for command in (["convert"], ["replay", "-f", "json"], ["show"]):
        result = cli(*command, str(task / HISTORY), "-o", str(ui))
        assert result.exit_code == 2 and "never writes over an input" in result.stderr, (command, result.stderr)
    assert ui.read_bytes() == before
