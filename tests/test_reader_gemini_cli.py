"""The Gemini CLI reader: session documents (a real one, from yoavf/ai-sessions), session
logs (.jsonl, messages rewritten as they change, $set and $rewindTo records) and saved
chats (/chat save); one round per gemini message, errors from the tool call's status
and the shell's exit code, tokens from TokensSummary; read through the public API and
the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.readers import not_a_transcript, sniff

from conftest import (
    assert_sniffed_alone,
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HERE = FIXTURES / "gemini_cli"
REAL = HERE / "session-2025-10-21T20-04-0b23371a.json"
LOG = HERE / "session-2026-05-20T09-12-7c9e6679.jsonl"
LOOP = HERE / "session-2026-05-20T10-30-3f1a2b4c.jsonl"
MALFORMED = HERE / "session-2026-05-20T11-00-5d6e7f80.jsonl"
SAVED = HERE / "checkpoint-before-refactor.json"
SAVED_LEGACY = HERE / "checkpoint-files.json"
PROMPTS = HERE / "logs.json"
VALID = [REAL, LOG, LOOP, SAVED, SAVED_LEGACY]


def test_real_session_document_written_by_gemini_cli():
    (trace,), warnings = read(REAL)
    assert warnings == []
    assert (trace.id, trace.format, trace.line) == ("0b23371a-ce2e-4b1c-81a0-44af5d94d9ce", "gemini-cli", 1)
    assert trace.metadata == {"projectHash": "2d33ff9193c39ffa4b8352af23f3b106d1ceaff756665e12408cb64657965d22"}
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["write_file"] * 3, [], ["replace"], []]
    assert [m.text[:37] for m in trace.user_messages] == ["Build a simple Pomodoro timer web app", "add smooth transitions between states"]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2]
    assert {r.model for r in trace.rounds} == {"gemini-2.5-pro"}
    first = list(trace.tool_calls())[0]
    assert first.id == "write_file-1761077079637-de5db03a65079"
    assert first.arguments["file_path"] == "/Users/yoavfarhi/dev/pomodoro/gemini/index.html"
    assert (first.result.content, first.result.is_error) == ("Successfully created and wrote to new file: /Users/yoavfarhi/dev/pomodoro/gemini/index.html.", False)
    assert first.result.ended_at == utc(2025, 10, 21, 20, 4, 39, 683000)
    # By hand: input = input + tool, output = output + thoughts (so in + out = total),
    # cached and thoughts as written; the first message's all-zero summary is unknown.
    assert [usage_tuple(r) for r in trace.rounds] == [None, (7269, 46 + 58, 5811, 58), (7320, 250 + 62, 5784, 62), (7598, 23 + 41, 7238, 41)]
    assert [r.usage.total for r in trace.rounds[1:]] == [7373, 7632, 7662]
    # A round ends at its message; it starts at the time before it (the user message, or
    # the previous round's last tool call).
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 10, 21, 20, 4, 20, 819000), utc(2025, 10, 21, 20, 4, 39, 638000))
    assert trace.rounds[1].started_at == utc(2025, 10, 21, 20, 4, 50, 915000)
    assert trace.rounds[3].text.startswith("I've added the smooth transition.")
    assert trace.ending == "answered" and trace.error is None


def test_session_log_rewrites_rewind_statuses_and_exit_codes():
    (trace,), warnings = read(LOG)
    assert warnings == []
    assert (trace.id, trace.line, trace.end_line) == ("7c9e6679-7425-40de-944b-e07fc1f90ae7", 1, 20)
    assert trace.metadata == {"projectHash": "9c4e1f0b2a7d3e5f6a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f", "kind": "main", "summary": "Fix double discount in cart total"}
    # The first message was written three times (text, tokens, tool calls): one round, at
    # its first line. The rewound user message and reply (lines 13-14) are gone.
    assert [r.line for r in trace.rounds] == [5, 9, 10, 11, 17, 18, 19]
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [
        ["run_shell_command"], ["read_file", "read_file"], ["replace"], ["write_file"], ["replace"], ["run_shell_command"], [],
    ]
    # The <session_context> the CLI sends and the synced tool results are not user turns.
    assert [m.text for m in trace.user_messages] == ["The tests in tests/test_cart.py fail. Find out why and fix it.", "Don't rewrite the file, edit the two lines."]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2, 2, 2]
    calls = list(trace.tool_calls())
    # Exit Code: 1 in the shell's text is an error; status error and cancelled are errors.
    assert [c.result.is_error for c in calls] == [True, False, False, True, True, False, False]
    assert calls[3].result.content == "Failed to edit, could not find the string to replace."
    assert calls[4].result.content == "[Operation Cancelled] Reason: User did not allow tool call"
    assert calls[6].result.content == "Output: .....\n5 passed in 0.10s\nProcess Group PGID: 41862"
    assert [usage_tuple(r) for r in trace.rounds] == [
        (8412, 151, 0, 120),
        (9020, 254, 8150, 210),
        (10480, 465, 8990, 305),
        (10702, 95, 10210, 0),
        (10850, 238, 10210, 88),
        (11080 + 12, 40, 10600, 0),  # toolUsePromptTokenCount is input
        (11190, 87, 10600, 35),
    ]
    assert trace.rounds[0].text == "I'll run the failing tests first."
    assert trace.rounds[1].text == ""
    assert trace.ending == "answered"


def test_repeated_failing_shell_command_then_api_error(cli):
    (trace,), warnings = read(LOOP)
    assert warnings == []
    calls = list(trace.tool_calls())
    assert [c.arguments for c in calls] == [{"command": "npm test", "description": "Run the test suite."}] * 4
    assert [c.result.is_error for c in calls] == [True] * 4
    assert trace.error == "[API Error: You exceeded your current quota, please check your plan and billing details.]"
    assert trace.ending == "error"
    assert [usage_tuple(r) for r in trace.rounds] == [(6000 + 400 * k, 50, 5000 + 300 * k, 30) for k in range(4)]
    report = json.loads(cli("replay", str(LOOP), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert (shown["format"], shown["rounds"], shown["tool_calls"]) == ("gemini-cli", 4, 4)
    assert shown["tokens"] == sum(6000 + 400 * k + 50 for k in range(4))
    fires = {(f["code"], f["round"]) for f in shown["fires"]}
    # run_shell_command is a shell: the same failing call is P004's, not F001's.
    assert ("P004", 3) in fires
    assert "F001" not in {code for code, _ in fires}


def test_saved_chat_history():
    (trace,), warnings = read(SAVED)
    assert warnings == []
    assert trace.format == "gemini-cli"
    assert trace.metadata == {"shape": "checkpoint", "authType": "oauth-personal"}
    # The startup context and "Got it. Thanks for the context!" are left out.
    assert [m.text for m in trace.user_messages] == ["Why does the build fail?"]
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["read_file"], ["run_shell_command"], ["glob"], []]
    # The thought part is reasoning, not text.
    assert trace.rounds[0].text == "Let me look at package.json."
    read_file, tsc, glob = list(trace.tool_calls())
    assert (read_file.id, read_file.result.is_error) == ("read_file-1779180000001-aa11bb22cc33d", False)
    # A response without an id pairs with the waiting call of its name.
    assert tsc.result.content.startswith("Output: error TS5058")
    assert tsc.result.is_error is True  # Exit Code: 2
    assert (glob.result.content, glob.result.is_error) == ("Path does not exist: /Users/ana/web/config", True)
    assert [r.usage for r in trace.rounds] == [None] * 4
    assert [(r.started_at, r.ended_at) for r in trace.rounds] == [(None, None)] * 4
    assert trace.ending == "answered"


def test_saved_chat_of_older_clis_is_a_bare_content_list():
    (trace,), warnings = read(SAVED_LEGACY)
    assert warnings == []
    (call,) = list(trace.tool_calls())
    assert (call.name, call.arguments, call.result.is_error) == ("list_directory", {"path": "/Users/ana/web"}, False)
    assert trace.rounds[-1].text == "There is a `src` folder and `package.json`."


def test_malformed_log_warns_with_file_and_line_and_keeps_the_trace():
    (trace,), warnings = read(MALFORMED)
    assert trace.id == "5d6e7f80-aaaa-4bbb-8ccc-dddddddddddd"
    assert [r.text for r in trace.rounds] == ["Reading it.", "It is empty."]
    # A count that is not one is unknown (and named); the others stay.
    assert [usage_tuple(r) for r in trace.rounds] == [(None, 12, 0, 0), (950, 8, 0, 0)]
    name = MALFORMED.name
    got = {(file, line, reason.split(":")[0]) for file, line, reason in warnings}
    assert {(file, line) for file, line, _ in got} == {(name, 3), (name, 4), (name, 5), (name, 6), (name, 8)}
    reasons = " | ".join(reason for _, _, reason in warnings)
    assert "not valid JSON" in reasons
    assert "truncated last line" in reasons
    assert "Gemini CLI session line of unknown shape skipped (keys 'telemetry')" in reasons
    assert "message 'n-m-1' of unknown type 'hologram' skipped" in reasons
    assert "tokens.input 'lots' is not a token count" in reasons
    assert "toolCalls[0] is 'not a call', not a tool call; skipped" in reasons
    assert "call read_file-1 (read_file) has no result" in reasons  # still executing


def test_rewind_to_an_unknown_message_drops_all_and_set_messages_replaces(tmp_path):
    lines = [json.loads(x) for x in LOG.read_text(encoding="utf-8").splitlines()]
    # $rewindTo an id no message has: the CLI's loader drops every message before it.
    path = write_jsonl(tmp_path / "rewound.jsonl", [*lines[:8], {"$rewindTo": "nobody"}, *lines[15:]])
    (trace,), warnings = read(path)
    assert warnings == []
    assert [m.text for m in trace.user_messages] == ["Don't rewrite the file, edit the two lines."]
    assert len(trace.rounds) == 3
    # A $set with messages replaces the messages read so far.
    replaced = write_jsonl(tmp_path / "set.jsonl", [*lines[:19], {"$set": {"messages": [lines[3], lines[18]]}}])
    (trace,), warnings = read(replaced)
    assert warnings == []
    assert [m.text for m in trace.user_messages] == ["The tests in tests/test_cart.py fail. Find out why and fix it."]
    assert [r.text for r in trace.rounds] == ["Fixed: `total` subtracted the discount twice. All 5 cart tests pass now."]


def test_session_logs_joined_in_one_file_are_two_traces(tmp_path):
    path = write_jsonl(tmp_path / "joined.jsonl", [json.loads(x) for f in (LOG, LOOP) for x in f.read_text(encoding="utf-8").splitlines()])
    (first, second), warnings = read(path)
    assert warnings == []
    assert (first.id, second.id) == ("7c9e6679-7425-40de-944b-e07fc1f90ae7", "3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b")
    assert (len(first.rounds), len(second.rounds), second.line) == (7, 4, 21)
    assert first.error is None and second.ending == "error"


def test_sniffed_listed_and_the_prompt_log_skipped(cli, tmp_path):
    traces, _ = read(*VALID)
    assert {t.format for t in traces} == {"gemini-cli"}
    assert "gemini-cli" in cli("formats").stdout
    # logs.json holds the user's prompts only: a directory walk passes it by silently.
    prompts = json.loads(PROMPTS.read_text(encoding="utf-8"))
    assert sniff(prompts) is None
    assert not_a_transcript(prompts).startswith("a Gemini CLI prompt log")
    folder = tmp_path / "project"
    folder.mkdir()
    for path in (PROMPTS, LOOP):
        (folder / path.name).write_bytes(path.read_bytes())
    traces, warnings = read(folder)
    assert [t.id for t in traces] == ["3f1a2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"] and warnings == []


def test_no_other_formats_file_is_sniffed_as_a_gemini_session():
    assert_sniffed_alone("gemini-cli", [HERE / name for name in ("session-2025-10-21T20-04-0b23371a.json", "session-2026-05-20T09-12-7c9e6679.jsonl", "session-2026-05-20T10-30-3f1a2b4c.jsonl", "checkpoint-before-refactor.json", "checkpoint-files.json")])


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(LOG, ["gemini-cli", "7c9e6679-7425-40de-944b-e07fc1f90ae7"], VALID, tmp_path)
