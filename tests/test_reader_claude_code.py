"""The Claude Code session reader: entries grouped by message id into rounds, sub-agent
runs as their own traces, read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "claude_code"
CORPUS = Path(__file__).resolve().parent / "corpus" / "claude-code-log"
REPRESENTATIVE = CORPUS / "representative_messages.jsonl"
SESSION_ID = "3f9c2a71-5d0e-4b8a-9c61-2e7d4f08a1b3"
TURNS = FIXTURES / "turns.jsonl"


# --- the corpus file (claude-code-log's hand-written fixture) ------------------------------------


def test_corpus_representative_messages():
    (trace,), warnings = read(REPRESENTATIVE)
    assert warnings == []
    assert (trace.id, trace.format, trace.line, trace.end_line) == ("test_session", "claude-code", 1, 11)
    assert len(trace.rounds) == 5
    assert [r.id for r in trace.rounds] == ["msg_002", "msg_004", "msg_006", "msg_008", "msg_010"]
    assert [r.line for r in trace.rounds] == [2, 4, 6, 8, 10]
    assert [c.name for c in trace.tool_calls()] == ["Edit", "Bash"]
    assert [c.id for c in trace.tool_calls()] == ["tool_001", "tool_002"]
    assert [len(r.tool_calls) for r in trace.rounds] == [0, 1, 0, 1, 0]
    assert [r.finish_reason for r in trace.rounds] == ["stop", "tool_calls", "stop", "tool_calls", "stop"]
    assert {r.model for r in trace.rounds} == {"claude-3-sonnet-20240229"}
    assert [usage_tuple(r) for r in trace.rounds] == [
        (25, 120, 0, None),
        (45, 85, 0, None),
        (78, 95, 0, None),
        (25, 35, 0, None),
        (45, 110, 0, None),
    ]
    assert sum(r.usage.total for r in trace.rounds) == 663
    # A round starts at the entry before it (the prompt) and ends at its last entry.
    first = trace.rounds[0]
    assert (first.started_at, first.ended_at) == (1749895200.0, 1749895230.0)
    assert (first.started_at, first.ended_at) == (utc(2025, 6, 14, 10, 0, 0), utc(2025, 6, 14, 10, 0, 30))
    assert (trace.rounds[1].started_at, trace.rounds[1].ended_at) == (1749895260.0, 1749895290.0)
    edit = trace.rounds[1].tool_calls[0]
    assert edit.arguments["file_path"] == "/tmp/decorator_example.py"
    assert edit.result.content == "File created successfully at: /tmp/decorator_example.py"
    assert edit.result.is_error is False
    assert (edit.result.started_at, edit.result.ended_at, edit.result.line) == (1749895290.0, 1749895291.0, 5)
    bash = trace.rounds[3].tool_calls[0]
    assert bash.arguments == {"command": "python /tmp/decorator_example.py", "description": "Run the decorator example to show output"}
    assert bash.result.content == "Hello, Alice!\nHello, Alice!\nHello, Alice!"
    assert trace.metadata["summaries"] == [
        "User learned about Python decorators, including basic decorators and parameterized decorators. "
        "Created and ran examples showing how decorators work with functions. User is now ready to implement "
        "their own timing decorator."
    ]
    assert trace.metadata["cwd"] == "/tmp" and trace.metadata["version"] == "1.0.0"
    assert trace.answered and trace.error is None and trace.labels == {}


# --- a modern session ---------------------------------------------------------------------------


def test_split_entries_are_one_round_with_usage_counted_once():
    (trace,), warnings = read(FIXTURES / "session.jsonl")
    assert warnings == []
    assert (trace.id, trace.line, trace.end_line) == (SESSION_ID, 3, 26)
    # 13 assistant entries, 9 responses.
    assert len(trace.rounds) == 9
    assert [r.line for r in trace.rounds] == [4, 8, 12, 15, 17, 19, 21, 23, 25]
    first = trace.rounds[0]
    assert first.id == "msg_01DLR6cAneJvrPvkp7xyLYJ6"
    assert first.text == "I'll look for where the invoice total is computed."  # thinking left out
    assert [c.name for c in first.tool_calls] == ["Grep"]
    # 10 + 5187 + 13469 prompt tokens, once although three entries repeat them.
    assert usage_tuple(first) == (18666, 214, 13469, None)
    assert first.finish_reason == "tool_calls"
    assert first.started_at == utc(2025, 11, 4, 9, 12, 3, 518000)  # the prompt entry
    assert first.ended_at == utc(2025, 11, 4, 9, 12, 9, 310000)  # the third entry
    # Summed per entry instead, rounds 1-3 would count 2 or 3 times (265,140 / 2,243).
    assert sum(r.usage.input_tokens for r in trace.rounds) == 188955
    assert sum(r.usage.output_tokens for r in trace.rounds) == 1356
    assert [usage_tuple(r)[2] for r in trace.rounds] == [13469, 18656, 18968, 19871, 20326, 21028, 21730, 22432, 22883]

    parallel = trace.rounds[1]
    assert [(c.name, c.arguments["file_path"]) for c in parallel.tool_calls] == [
        ("Read", "/home/dev/invoice-api/src/invoice.py"),
        ("Read", "/home/dev/invoice-api/tests/test_invoice.py"),
    ]
    # Each call starts at the entry carrying its tool_use, ends at the result's entry.
    second_read = parallel.tool_calls[1].result
    assert (second_read.started_at, second_read.ended_at) == (utc(2025, 11, 4, 9, 12, 12, 640000), utc(2025, 11, 4, 9, 12, 12, 760000))

    assert [c.name for c in trace.tool_calls()] == ["Grep", "Read", "Read", "Edit", "Bash", "Bash", "Bash", "Edit", "Bash"]
    failed_edit = trace.rounds[2].tool_calls[0].result
    assert failed_edit.is_error is True
    assert failed_edit.content.startswith("<tool_use_error>String to replace not found in file.")
    # The loop: the same Bash call in rounds 4-6, every time an error.
    loop = [r.tool_calls[0] for r in trace.rounds[3:6]]
    assert {(c.name, c.arguments_raw) for c in loop} == {
        ("Bash", '{"command":"python -m pytest tests/test_invoice.py -q","description":"Run the invoice tests"}')
    }
    assert [c.result.is_error for c in loop] == [True, True, True]
    assert [c.result.is_error for c in trace.rounds[6].tool_calls + trace.rounds[7].tool_calls] == [False, False]
    assert trace.rounds[-1].text.startswith("Fixed: `invoice_total` now converts")
    assert trace.rounds[-1].finish_reason == "stop"
    # The summary refers to a leaf of an earlier session: kept on this file's session.
    assert trace.metadata == {
        "cwd": "/home/dev/invoice-api",
        "version": "2.0.37",
        "gitBranch": "fix/rounding",
        "summaries": ["Invoice API: add currency field to Line"],
    }
    assert trace.answered and trace.labels == {}


def test_sub_agent_file_is_its_own_trace():
    traces, warnings = read(FIXTURES / "session.jsonl", FIXTURES / "agent-a7e91c2.jsonl")
    assert warnings == []
    assert [t.id for t in traces] == [SESSION_ID, f"{SESSION_ID}/a7e91c2"]
    agent = traces[1]
    assert agent.metadata["parent_session"] == SESSION_ID and agent.metadata["agent_id"] == "a7e91c2"
    assert [c.name for c in agent.tool_calls()] == ["Grep"]
    assert [usage_tuple(r) for r in agent.rounds] == [(12089, 71, 9876, None), (12249, 38, 12086, None)]
    assert agent.rounds[0].model == "claude-haiku-4-5-20251001"
    assert agent.answered


def test_inline_sidechains_are_split_by_their_parent_chain():
    traces, warnings = read(FIXTURES / "sidechain_inline.jsonl")
    assert warnings == []
    session = "8c2d4e6f-1a3b-4c5d-9e7f-0a1b2c3d4e5f"
    assert [t.id for t in traces] == [session, f"{session}/sidechain-1", f"{session}/sidechain-2"]
    main, first, second = traces
    assert [(t.line, t.end_line) for t in traces] == [(1, 14), (4, 10), (5, 11)]
    # The main run: one response with two Task calls (two entries), then the answer.
    assert [len(r.tool_calls) for r in main.rounds] == [2, 0]
    assert [c.arguments["description"] for c in main.tool_calls()] == ["Find config loading", "Find payment retries"]
    assert main.rounds[0].tool_calls[1].result.content == "Retries live in shop/payments/retry.py (3 attempts, exponential backoff)."
    assert main.metadata["summaries"] == ["Checkout config and payment retries"]
    # Interleaved sub-agent entries go to the run their parentUuid belongs to.
    assert [c.name for c in first.tool_calls()] == ["Glob"]
    assert [c.name for c in second.tool_calls()] == ["Grep"]
    assert first.rounds[-1].text == "Config is loaded by shop/config.py (load_settings)."
    assert second.rounds[0].started_at == utc(2025, 7, 21, 14, 0, 4, 702000)
    assert first.metadata["agent_id"] == "sidechain-1"
    assert "summaries" not in first.metadata


def test_api_error_ends_a_session_and_synthetic_entries_are_not_rounds():
    traces, warnings = read(FIXTURES / "api_error.jsonl")
    assert warnings == []
    overloaded, interrupted = traces
    assert overloaded.id == "5b7d9f1a-3c5e-4a7b-9d1f-2e4a6c8e0b13"
    assert len(overloaded.rounds) == 1
    assert overloaded.error == (
        'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}'
    )
    assert (overloaded.labels, overloaded.ending, overloaded.outcome) == ({}, "error", "unknown")
    assert not overloaded.answered
    assert overloaded.end_line == 4
    # The user rejected the call; the CLI's "No response requested." is not a model response.
    assert interrupted.id == "6c8e0a2b-4d6f-4b8c-8e2a-3f5b7d9f1c24"
    assert len(interrupted.rounds) == 1
    assert interrupted.rounds[0].tool_calls[0].result.is_error is True
    assert interrupted.error is None and interrupted.labels == {}


def test_later_response_clears_an_api_error_and_last_usage_wins(tmp_path):
    base = {"sessionId": "s-1", "isSidechain": False, "version": "2.0.30"}

    def assistant(uuid, ts, block, out, stop=None):
        return {**base, "type": "assistant", "uuid": uuid, "timestamp": ts, "requestId": "req_1",
                "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                            "content": [block], "stop_reason": stop,
                            "usage": {"input_tokens": 4, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 20, "output_tokens": out}}}

    call_a = {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"file_path": "a.py"}}
    call_b = {"type": "tool_use", "id": "toolu_b", "name": "Read", "input": {"file_path": "b.py"}}
    first = assistant("u2", "2025-11-01T10:00:02Z", call_a, 12)
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {**base, "type": "user", "uuid": "u1", "timestamp": "2025-11-01T10:00:00Z", "message": {"role": "user", "content": "read both"}},
            {**base, "type": "assistant", "uuid": "e1", "timestamp": "2025-11-01T10:00:01Z", "isApiErrorMessage": True,
             "message": {"id": "x", "model": "<synthetic>", "role": "assistant", "type": "message",
                         "content": [{"type": "text", "text": "API Error: Connection error."}]}},
            first,
            # A result written between two entries of the same response.
            {**base, "type": "user", "uuid": "u3", "timestamp": "2025-11-01T10:00:03Z",
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"}]}},
            assistant("u4", "2025-11-01T10:00:04Z", call_b, 57, "tool_use"),
            first,  # the same entry copied again (same uuid)
            {**base, "type": "user", "uuid": "u5", "timestamp": "2025-11-01T10:00:05Z",
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "B"}]}},
        ],
    )
    (trace,), warnings = read(path)
    assert warnings == []
    (rnd,) = trace.rounds
    assert [c.result.content for c in rnd.tool_calls] == ["A", "B"]
    assert usage_tuple(rnd) == (1024, 57, 1000, None)
    assert (rnd.started_at, rnd.ended_at) == (utc(2025, 11, 1, 10, 0, 1), utc(2025, 11, 1, 10, 0, 4))
    assert rnd.finish_reason == "tool_calls"
    assert trace.error is None and trace.labels == {}


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_warned_with_file_and_line_and_the_rest_is_read():
    (trace,), warnings = read(FIXTURES / "bad_input.jsonl")
    assert trace.id == "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
    assert len(trace.rounds) == 2
    (wc,) = trace.rounds[0].tool_calls
    assert (wc.result.content, wc.result.line) == ("12 notes.txt", 8)
    assert trace.rounds[1].text == "notes.txt has 12 lines."
    assert trace.end_line == 9
    assert [(name, line) for name, line, _ in warnings] == [("bad_input.jsonl", n) for n in (3, 4, 5, 6, 7, 10)]
    reasons = [reason for _, _, reason in warnings]
    assert reasons[0].startswith("not valid JSON")
    assert reasons[1:5] == [
        "JSON that is not a Claude Code entry (an object with a 'type')",
        "JSON that is not a Claude Code entry (an object with a 'type')",
        "user entry without a 'message' object skipped",
        "trace 0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0: tool result for unknown call id 'toolu_01Nope0000000000000000'",
    ]
    assert reasons[5].startswith("truncated last line (no newline, not valid JSON")


def test_a_file_of_summaries_only_has_no_trace(tmp_path):
    path = write_jsonl(tmp_path / "old.jsonl", [{"type": "summary", "summary": "Old work", "leafUuid": "0a1b"}])
    traces, warnings = read(path)
    assert traces == []
    assert warnings == [("old.jsonl", 1, "only summary entries, no conversation: no trace to read")]


# --- CLI ------------------------------------------------------------------------------------------


def test_cli_show_and_convert(tmp_path):
    paths = (REPRESENTATIVE, *sorted(FIXTURES.glob("*.jsonl")))
    assert_show_and_convert_round_trip(REPRESENTATIVE, ["test_session"], paths, tmp_path)


# --- user messages and turns -----------------------------------------------------------------


def test_corpus_user_prompts_open_turns_and_tool_results_do_not():
    (trace,), _ = read(REPRESENTATIVE)
    assert [(m.before_round, m.text, m.line) for m in trace.user_messages] == [
        (1, "Hello Claude! Can you help me understand how Python decorators work?", 1),
        (2, "Great! Can you also show me how to create a decorator that takes parameters?", 3),
        (4, "Can you run that example to show the output?", 7),
        # The last prompt got no response in the file: it opens no turn.
        (6, "This is really helpful! Let me try to implement a timing decorator myself. Can you help me if I get stuck?", 11),
    ]
    assert [r.turn for r in trace.rounds] == [1, 2, 2, 3, 3]
    assert trace.user_messages[0].at == utc(2025, 6, 14, 10, 0, 0)


def test_commands_interrupts_and_cli_entries_are_not_user_turns():
    (trace,), warnings = read(TURNS)
    assert warnings == []
    # Not turns: the local-command caveat (isMeta), /clear and /compact with their local
    # output, the interrupt marker, shell-mode input and output, the compaction summary,
    # the expansion of /fix-ci (isMeta). A custom command the agent answers is one, as typed.
    assert [(m.before_round, m.text, m.at) for m in trace.user_messages] == [
        (1, "Why does `make test` fail on CI but pass locally?", utc(2025, 11, 20, 14, 2, 30, 512000)),
        (3, "Run the failing test verbosely.", utc(2025, 11, 20, 14, 3, 12, 604000)),
        (4, "Use the py39 tox env instead.", utc(2025, 11, 20, 14, 3, 40, 228000)),
        (6, "/fix-ci python 3.10", utc(2025, 11, 20, 14, 4, 41, 907000)),
        (8, "CI is still red, see the screenshot. What now?", utc(2025, 11, 20, 14, 7, 5, 260000)),  # the image is no text
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 3, 3, 4, 4, 5]
    # The interrupted turn ends without a reply: its one call was rejected by the user.
    interrupted = trace.turns()[1]
    assert interrupted.reply is None
    assert interrupted.rounds[0].tool_calls[0].result.is_error is True


def test_text_beside_tool_results_opens_no_turn_while_calls_await_results(tmp_path):
    session = {"sessionId": "s-1", "cwd": "/w", "version": "2.0.42"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}}
    path = write_jsonl(tmp_path / "s-1.jsonl", [
        {**session, "type": "user", "uuid": "u1", "timestamp": "2025-11-20T10:00:00Z", "message": {"role": "user", "content": "Run the tests."}},
        {**session, "type": "assistant", "uuid": "a1", "timestamp": "2025-11-20T10:00:03Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5", "content": [call], "stop_reason": "tool_use"}},
        # A hook's note beside the result: the loop goes on, nobody spoke.
        {**session, "type": "user", "uuid": "u2", "timestamp": "2025-11-20T10:00:09Z", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2 failed"},
            {"type": "text", "text": "<system-reminder>Tests are slow; prefer -x.</system-reminder>"},
        ]}},
        {**session, "type": "assistant", "uuid": "a2", "timestamp": "2025-11-20T10:00:12Z",
         "message": {"id": "msg_2", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "2 tests fail."}], "stop_reason": "end_turn"}},
    ])
    (trace,), warnings = read(path)
    assert warnings == []
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Run the tests.")]
    assert [r.turn for r in trace.rounds] == [1, 1]
