"""The Anthropic Messages reader: whole-conversation requests, request/response logs and
bare response objects, read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    shown_ids,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "anthropic"


def response(mid, content, stop, usage=None, model="claude-sonnet-4-5-20250929"):
    return {"id": mid, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": usage or {"input_tokens": 20, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def tool_use(tid, name, inp):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


# --- shape 1/2: one request with the whole conversation and its response -----------------------


def test_whole_conversation_with_its_response():
    (trace,), warnings = read(FIXTURES / "conversation.json")
    assert warnings == []
    assert (trace.id, trace.format, trace.line, trace.end_line) == ("conversation.json:1", "anthropic", 1, 1)
    assert trace.metadata["model"] == "claude-sonnet-4-5-20250929"
    assert len(trace.rounds) == 3
    paris, rome, answer = trace.rounds
    # A thinking block is neither text nor a call.
    assert paris.text == ""
    assert [(c.id, c.name, c.arguments) for c in paris.tool_calls] == [("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Paris"})]
    assert paris.tool_calls[0].arguments_raw == '{"city":"Paris"}'
    assert rome.text == "Now Rome."
    # Results attach to the calling round; text blocks become text.
    assert paris.tool_calls[0].result.content == '{"temp_c": 11, "sky": "rain"}'
    assert rome.tool_calls[0].result.content == "upstream timeout after 10s"
    assert rome.tool_calls[0].result.is_error is True
    # The trace uses is_error, so the unflagged result is a success.
    assert paris.tool_calls[0].result.is_error is False
    # History rounds carry no usage; the response does. input = 18 + 0 + 1893 cached.
    assert paris.usage is None and rome.usage is None
    assert usage_tuple(answer) == (1911, 25, 1893, None)
    assert (answer.id, answer.model, answer.finish_reason) == ("msg_01XFDUDYJgAACzvnptvVoYEL", "claude-sonnet-4-5-20250929", "stop")
    assert answer.text == "Paris is 11°C and rainy; the Rome lookup timed out."
    assert trace.answered and trace.error is None and trace.labels == {}


def test_one_conversation_per_line_without_responses():
    traces, warnings = read(FIXTURES / "conversations.jsonl")
    assert warnings == []
    assert shown_ids(traces) == ["eval-task-017", "conversations.jsonl:@2", "sess-7781"]
    coding, hello, browser = traces
    assert [len(t.rounds) for t in traces] == [3, 1, 2]
    assert [c.arguments["path"] for c in coding.tool_calls()] == ["config/app.yml", "config/app.yaml"]
    first = coding.rounds[0].tool_calls[0].result
    # This agent never sets is_error: unknown, so failure patterns can decide.
    assert first.content == "Error: no such file: config/app.yml"
    assert first.is_error is None
    assert coding.rounds[2].text == "The app listens on port 8080 with 4 workers."
    assert hello.rounds[0].text == "Hei!" and hello.metadata["model"] == "claude-3-5-haiku-20241022"
    # Parallel calls of one response are one round; image blocks become a placeholder.
    (parallel, final) = browser.rounds
    assert [c.name for c in parallel.tool_calls] == ["screenshot", "click"]
    assert [(c.result.content, c.result.is_error) for c in parallel.tool_calls] == [
        ("Screenshot taken.\n[image]", False),
        ("No element matches #cookie-accept", True),
    ]
    assert final.is_final and browser.answered


# --- shape 2: request/response log ------------------------------------------------------------


def test_request_response_log_rebuilds_rounds_and_a_loop():
    traces, warnings = read(FIXTURES / "request_response.jsonl")
    assert shown_ids(traces) == ["request_response.jsonl:@1", "conv-support-88"]
    docs, support = traces
    assert (docs.line, docs.end_line) == (1, 7)
    assert [r.id for r in docs.rounds] == [
        "msg_01Sx1Gq7Lm2Nb8Vc3Xz9Ka4P",
        "msg_01Sx2Hr8Mn3Oc9Wd4Ya0Lb5Q",
        "msg_01Sx3Is9No4Pd0Xe5Zb1Mc6R",
        "msg_01Sx5Ku1Pq6Rf2Zg7Bd3Oe8T",
    ]
    # The overloaded request (line 5) is no round; its retry (line 7) is.
    assert [r.line for r in docs.rounds] == [1, 2, 4, 7]
    assert [r.finish_reason for r in docs.rounds] == ["tool_calls", "tool_calls", "tool_calls", "stop"]
    # The loop: the same call three times, only the ids differ.
    calls = list(docs.tool_calls())
    assert [(c.name, c.arguments) for c in calls] == [("search_docs", {"query": "pandas merge suffixes"})] * 3
    assert len({c.id for c in calls}) == 3
    # Each round's result arrives inside the next request, even with cache_control moved.
    assert [c.result.line for c in calls] == [2, 4, 5]
    assert {c.result.content for c in calls} == {
        "DataFrame.merge(..., suffixes=('_x', '_y')): a length-2 sequence of strings to add to overlapping column names."
    }
    assert {c.result.is_error for c in calls} == {None}
    # input = input_tokens + cache_creation + cache_read; cached = cache_read.
    assert [usage_tuple(r) for r in docs.rounds] == [
        (3001, 64, 0, None),
        (3113, 41, 3001, None),
        (3275, 41, 3154, None),
        (3446, 58, 3316, None),
    ]
    # timestamp = when the response was logged; latency_ms reaches back to the start.
    first = docs.rounds[0]
    assert first.started_at == utc(2025, 9, 18, 8, 30, 0)
    assert first.ended_at == utc(2025, 9, 18, 8, 30, 2, 412000)
    assert docs.error is None and docs.answered and docs.labels == {}

    # The support conversation ends on a response cut at max_tokens inside a tool call.
    assert (support.line, support.end_line) == (3, 6)
    assert [r.model for r in support.rounds] == ["claude-haiku-4-5-20251001"] * 2
    assert support.rounds[0].tool_calls[0].result.is_error is False
    last = support.rounds[1]
    assert last.finish_reason == "length"
    assert usage_tuple(last) == (744, 256, 0, None)
    assert support.error == "the last response stopped at max_tokens without an answer"
    # The max_tokens cut is how the run ended (a limit), not a grade: no outcome.
    assert (support.labels, support.ending, support.outcome) == ({}, "limit", "unknown")
    assert not support.answered
    assert warnings == [
        ("request_response.jsonl", 6, "trace conv-support-88: call toolu_01Or2Yy6Zz7Aa8Bb9Cc0Dd1 (lookup_order) has no result")
    ]


def test_failed_request_never_retried_ends_the_run_with_an_error(tmp_path):
    user = {"role": "user", "content": "Summarise README.md"}
    path = write_jsonl(
        tmp_path / "proxy.jsonl",
        [
            {"request": {"model": "claude-sonnet-4-5", "messages": [user]},
             "response": response("msg_a1", [tool_use("toolu_a1", "read_file", {"path": "README.md"})], "tool_use")},
            {"request": {"model": "claude-sonnet-4-5", "messages": [
                user, {"role": "assistant", "content": [tool_use("toolu_a1", "read_file", {"path": "README.md"})]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a1", "content": "# Demo"}]}]},
             "response": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}},
        ],
    )
    (trace,), warnings = read(path)
    assert len(trace.rounds) == 1
    assert trace.rounds[0].tool_calls[0].result.content == "# Demo"
    assert trace.error == "overloaded_error: Overloaded"
    assert (trace.labels, trace.ending, trace.outcome) == ({}, "error", "unknown")
    assert warnings == []


def test_resent_history_in_the_sdks_spelling_still_continues(tmp_path):
    # The client drops the thinking block, adds citations: null, reorders input keys.
    user = {"role": "user", "content": [{"type": "text", "text": "Convert 100 USD to EUR"}]}
    first = response("msg_b1", [
        {"type": "thinking", "thinking": "Use the converter.", "signature": "Eo0B"},
        {"type": "text", "text": "Converting."},
        tool_use("toolu_b1", "convert", {"amount": 100, "from": "USD", "to": "EUR"}),
    ], "tool_use")
    resent = {"role": "assistant", "content": [
        {"type": "text", "text": "Converting.", "citations": None},
        tool_use("toolu_b1", "convert", {"to": "EUR", "from": "USD", "amount": 100}),
    ]}
    path = write_jsonl(
        tmp_path / "log.jsonl",
        [
            {"request": {"model": "m", "messages": [user]}, "response": first},
            {"request": {"model": "m", "messages": [user, resent, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_b1", "content": "92.31", "cache_control": {"type": "ephemeral"}}]}]},
             "response": response("msg_b2", [{"type": "text", "text": "100 USD is 92.31 EUR."}], "end_turn")},
        ],
    )
    (trace,), warnings = read(path)
    assert [r.id for r in trace.rounds] == ["msg_b1", "msg_b2"]
    assert trace.rounds[0].text == "Converting."
    assert trace.rounds[0].tool_calls[0].result.content == "92.31"
    assert warnings == []


def test_a_request_log_reads_each_user_message_once_where_it_was_new(tmp_path):
    system = "You are a travel assistant."
    ask = {"role": "user", "content": "Is flight LH 1234 on time?"}
    lookup = tool_use("toolu_c1", "flight_status", {"flight": "LH1234"})
    status = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_c1", "content": "delayed 40 min"}]}
    on_time = {"role": "assistant", "content": [{"type": "text", "text": "LH 1234 is 40 minutes late."}]}
    follow_up = {"role": "user", "content": [{"type": "text", "text": "And the gate?"}]}
    gate = tool_use("toolu_c2", "flight_gate", {"flight": "LH1234"})
    path = write_jsonl(tmp_path / "log.jsonl", [
        {"request": {"model": "m", "system": system, "messages": [ask]}, "response": response("msg_c1", [lookup], "tool_use")},
        {"request": {"model": "m", "system": system, "messages": [ask, {"role": "assistant", "content": [lookup]}, status]},
         "response": response("msg_c2", on_time["content"], "end_turn")},
        {"request": {"model": "m", "system": system, "messages": [ask, {"role": "assistant", "content": [lookup]}, status, on_time, follow_up]},
         "response": response("msg_c3", [gate], "tool_use")},
        {"request": {"model": "m", "system": system, "messages": [
            ask, {"role": "assistant", "content": [lookup]}, status, on_time, follow_up, {"role": "assistant", "content": [gate]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_c2", "content": "B44"}]}]},
         "response": response("msg_c4", [{"type": "text", "text": "Gate B44."}], "end_turn")},
    ])
    (trace,), warnings = read(path)
    assert warnings == []
    assert [r.id for r in trace.rounds] == ["msg_c1", "msg_c2", "msg_c3", "msg_c4"]
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Is flight LH 1234 on time?"), (3, "And the gate?")]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2]


def test_text_beside_tool_results_continues_the_loop_and_opens_no_turn(tmp_path):
    conversation = {"id": "harness-7", "model": "m", "messages": [
        {"role": "user", "content": "Find the failing test."},
        {"role": "assistant", "content": [tool_use("toolu_d1", "run", {"cmd": "pytest -q"})]},
        # An agent harness puts a note beside each result: results attach, nobody spoke.
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_d1", "content": "1 failed: test_total"},
            {"type": "text", "text": "You have 8 steps left."},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "test_total fails."}]},
        # Nothing pending now: the user's text opens a turn; a stray result beside it is warned.
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_zz", "content": "late"},
            {"type": "text", "text": "Why does it fail?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "A rounding error."}]},
    ]}
    path = write_jsonl(tmp_path / "conversation.jsonl", [conversation])
    (trace,), warnings = read(path)
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Find the failing test."), (3, "Why does it fail?")]
    assert [r.turn for r in trace.rounds] == [1, 1, 2]
    assert trace.rounds[0].tool_calls[0].result.content == "1 failed: test_total"
    assert warnings == [("conversation.jsonl", 1, "trace harness-7: tool result for unknown call id 'toolu_zz' (message 5)")]


def test_a_prefilled_assistant_message_and_its_response_are_one_round(tmp_path):
    path = write_jsonl(
        tmp_path / "prefill.jsonl",
        [{"request": {"model": "m", "messages": [
            {"role": "user", "content": "Reply with JSON: what is 6*7?"},
            {"role": "assistant", "content": "{"}]},
          "response": response("msg_p1", [{"type": "text", "text": "\"answer\": 42}"}], "end_turn")}],
    )
    (trace,), warnings = read(path)
    (rnd,) = trace.rounds
    assert rnd.text == '{"answer": 42}'
    assert warnings == []


# --- shape 3: bare responses --------------------------------------------------------------------


def test_bare_responses_form_one_trace_with_inline_server_tool_results():
    (trace,), warnings = read(FIXTURES / "responses.jsonl")
    assert (trace.id, trace.line, trace.end_line) == ("responses.jsonl:1", 1, 3)
    assert trace.metadata == {"shape": "responses", "model": "claude-opus-4-1-20250805"}
    assert [r.finish_reason for r in trace.rounds] == ["pause_turn", "tool_calls", "stop"]
    assert [r.line for r in trace.rounds] == [1, 2, 3]
    search, fetch_round, answer = trace.rounds
    (web,) = search.tool_calls
    assert (web.id, web.name, web.arguments) == ("srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", "web_search", {"query": "latest stable Rust release"})
    # The hosted search's result comes inline in the next (pause_turn continued) response.
    assert web.result.content == (
        "Announcing Rust 1.89.0 | Rust Blog — https://blog.rust-lang.org/2025/08/07/Rust-1.89.0/\n"
        "Rust Versions | Rust Changelogs — https://releases.rs/"
    )
    assert web.result.is_error is False and web.result.line == 2
    # Text split around a citation is joined back without separators.
    assert fetch_round.text == "The latest stable release is Rust 1.89.0, released on 7 August 2025. Let me check the changelog too."
    assert [c.name for c in fetch_round.tool_calls] == ["fetch_page"]
    assert fetch_round.tool_calls[0].result is None
    assert [usage_tuple(r) for r in trace.rounds] == [(2176, 95, 0, None), (8488, 133, 2176, None), (8876, 27, 8488, None)]
    assert answer.started_at is None and answer.ended_at is None
    assert trace.answered
    # One notice for the whole trace, not one per call.
    assert warnings == [
        ("responses.jsonl", 1, "trace responses.jsonl:1: response objects alone carry no tool results; 1 tool call(s) without a result")
    ]


def test_another_shape_ends_a_group_of_bare_responses(tmp_path):
    conversation = {"model": "m", "system": "s", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    path = write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            response("msg_1", [{"type": "text", "text": "one"}], "end_turn"),
            response("msg_2", [{"type": "text", "text": "two"}], "end_turn"),
            conversation,
            response("msg_3", [{"type": "text", "text": "A very long essay that was cut"}], "max_tokens"),
        ],
    )
    traces, warnings = read(path)
    assert list(zip(shown_ids(traces), [[r.text for r in t.rounds] for t in traces])) == [
        ("mixed.jsonl:@1", ["one", "two"]),
        ("mixed.jsonl:@3", ["hello"]),
        ("mixed.jsonl:@4", ["A very long essay that was cut"]),
    ]
    # A text answer cut at max_tokens is still an answer, not an error.
    cut = traces[2]
    assert cut.rounds[0].finish_reason == "length"
    assert cut.error is None and cut.answered
    assert warnings == []


def test_a_dumped_messages_list_reads_as_one_conversation_when_named(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps([
        {"role": "user", "content": "List files"},
        {"role": "assistant", "content": [tool_use("toolu_l1", "ls", {})]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_l1", "content": "a.txt"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "One file: a.txt"}]},
    ], indent=2))
    (trace,), warnings = read(path, input_format="anthropic")
    assert trace.id == "history.json:1"
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0]
    assert trace.rounds[0].tool_calls[0].result.content == "a.txt"
    assert warnings == []


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_warned_with_file_and_line_and_the_rest_is_read():
    traces, warnings = read(FIXTURES / "bad_input.jsonl")
    # Line 7 repeats line 1 (the reader carries on after the bad lines between): told apart by order.
    assert shown_ids(traces) == ["bad_input.jsonl:@1", "bad_input.jsonl:@4", "bad_input.jsonl:@7#2", "bad_input.jsonl:@6"]
    assert traces[2].id == traces[0].id + "#2"
    first, odd, last, gateway = traces
    assert [len(t.rounds) for t in traces] == [2, 1, 2, 0]
    assert first.rounds[0].tool_calls[0].result.content == "437"
    assert last.rounds[1].text == "23 × 19 = 437."
    assert odd.rounds[0].text == "Done." and odd.rounds[0].tool_calls == []
    assert gateway.error is None and gateway.rounds == []
    assert warnings == [
        ("bad_input.jsonl", 1, f"trace {first.id}: tool result for unknown call id 'toolu_01Ghost000000000000000000' (message 3)"),
        ("bad_input.jsonl", 2, "not valid JSON: unexpected control character in string: line 1 column 86 (char 85)"),
        ("bad_input.jsonl", 3, "JSON that matches no known Anthropic Messages shape"),
        ("bad_input.jsonl", 4, f"trace {odd.id}: a message must be a JSON object; skipped (message 2)"),
        ("bad_input.jsonl", 4, f"trace {odd.id}: message with unknown role 'critic' skipped (message 3)"),
        ("bad_input.jsonl", 4, f"trace {odd.id}: tool_use block without a name skipped (message 4)"),
        ("bad_input.jsonl", 5, "request without a 'messages' list; record skipped"),
        ("bad_input.jsonl", 6, f"trace {gateway.id}: response is not a Messages API message (type 'message')"),
        ("bad_input.jsonl", 7, f"trace {last.id}: tool result for unknown call id 'toolu_01Ghost000000000000000000' (message 3)"),
        (
            "bad_input.jsonl",
            7,
            f"this trace starts as the trace at line 1 ({first.id!r}): named {last.id!r} by its order in the file, "
            "so a label or baseline entry for either follows that order",
        ),
    ]


def test_odd_blocks_and_duplicate_results_are_warned_not_raised(tmp_path):
    path = write_jsonl(
        tmp_path / "odd.jsonl",
        [
            {"model": "m", "system": "s", "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": ["plain string block", tool_use("toolu_d1", "ping", "not-json{")]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_d1", "content": "pong"},
                    {"type": "tool_result", "tool_use_id": "toolu_d1", "content": "pong again"},
                    {"type": "tool_result", "content": "no id"},
                ]},
                {"role": "assistant", "content": 42},
            ]},
            {"model": "m", "system": "s", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},
        ],
    )
    traces, warnings = read(path)
    assert [len(t.rounds) for t in traces] == [2, 1]
    (ping,) = traces[0].rounds[0].tool_calls
    assert (ping.arguments_raw, ping.arguments) == ("not-json{", None)
    assert ping.result.content == "pong"
    assert len(warnings) == 5
    assert [(line, reason) for _, line, reason in warnings[:4]] == [
        (1, f"trace {traces[0].id}: content block that is not an object skipped (message 2)"),
        (1, f"trace {traces[0].id}: second tool result for call id 'toolu_d1' ignored (the first is kept) (message 3)"),
        (1, f"trace {traces[0].id}: tool result without a tool_use_id skipped (message 3)"),
        (1, f"trace {traces[0].id}: assistant content must be a string or a list of blocks; ignored (message 4)"),
    ]
    assert warnings[4][2].startswith(f"trace {traces[0].id}: call toolu_d1 (ping): arguments are not valid JSON")


# --- CLI ------------------------------------------------------------------------------------------


def test_cli_show_and_convert(tmp_path):
    paths = sorted(FIXTURES.glob("*.json*"))
    assert_show_and_convert_round_trip(
        FIXTURES / "request_response.jsonl", ["conv-support-88", "request_response.jsonl:1"], paths, tmp_path
    )


# --- what json.dump(messages) writes, sniffed without --input-format -------------------------------


def test_dumped_messages_are_sniffed_as_anthropic(cli):
    for name in ("dumped_messages.json", "dumped_messages.jsonl"):
        [trace] = json.loads(cli("replay", "--format", "json", str(FIXTURES / name)).stdout)["traces"]
        assert (trace["format"], trace["rounds"], trace["tool_calls"], trace["ending"]) == ("anthropic", 3, 2, "answered"), name
        (read_back,), warnings = read(FIXTURES / name)
        assert warnings == [], name
        assert [(c.id, c.arguments, c.result.content) for c in read_back.tool_calls()] == [
            ("toolu_01XbQ7mN3vK8pR2sT5wY9zLc", {"status": "pending"}, "[]"),
            ("toolu_01Hc4dF6gJ9kL2mN5pQ8rS1t", {"status": "pending"}, "[]"),
        ], name
        assert read_back.rounds[0].text == "I'll look them up." and read_back.rounds[-1].text == "No orders are pending."
        assert [m.text for m in read_back.user_messages] == ["Which orders are still pending?"]


def test_message_lines_keep_their_own_line_numbers():
    (trace,), warnings = read(FIXTURES / "dumped_messages.jsonl")
    assert (trace.id, trace.line, trace.end_line) == ("dumped_messages.jsonl", 1, 6)
    assert [r.line for r in trace.rounds] == [2, 4, 6]
    assert [c.result.line for c in trace.tool_calls()] == [3, 5]
