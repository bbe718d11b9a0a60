"""The OpenAI Chat Completions reader: conversations, request/response logs, Batch API
files and message-per-line logs, read through the public ``read_traces`` API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import by_line, read_with_diagnostics as read, shown_ids, utc, warnings_of, write_jsonl

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openai_chat"


def by_id(traces):
    return {trace.id: trace for trace in traces}


def call(cid, name, arguments):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- shape 1: a conversation per line ---------------------------------------------------


def test_fine_tuning_lines_are_one_trace_each():
    traces, diagnostics = read(FIXTURES / "finetune.jsonl")
    # Lines without an id of their own are named by their content (readers/identity.py).
    assert shown_ids(traces) == [
        "finetune.jsonl:@1",
        "search-loop-7",
        "finetune.jsonl:@3",
        "finetune.jsonl:@4",
        "ollama-toronto",
    ]
    assert {t.format for t in traces} == {"openai-chat"}
    assert [(t.line, t.end_line) for t in traces] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]

    weather = traces[0]
    assert len(weather.rounds) == 2
    first, final = weather.rounds
    assert [c.name for c in first.tool_calls] == ["get_weather", "get_weather"]
    assert [c.id for c in first.tool_calls] == ["call_8ZqVtY2HbRk3Jd0mWx1Lp9aQ", "call_Q4nT7cXs1LmP0vBf6YdK2wRe"]
    assert [c.arguments for c in first.tool_calls] == [{"city": "Paris"}, {"city": "Rome"}]
    assert first.tool_calls[0].arguments_raw == '{"city": "Paris"}'
    assert [c.result.content for c in first.tool_calls] == ['{"temp_c": 11, "sky": "rain"}', '{"temp_c": 17, "sky": "clear"}']
    assert first.tool_calls[1].result.is_error is None  # the format has no error flag
    assert final.is_final and final.text == "Paris: 11°C and rainy. Rome: 17°C and clear."
    assert weather.answered
    # Fine-tuning files carry no usage, times or finish reasons: unknown, never 0.
    for rnd in weather.rounds:
        assert rnd.usage is None
        assert rnd.started_at is None and rnd.ended_at is None
        assert rnd.finish_reason is None

    # weight 0 marks a message as not trained on; it is still a model response.
    loop = traces[1]
    assert [len(r.tool_calls) for r in loop.rounds] == [1, 1, 0]
    assert [r.tool_calls[0].arguments["query"] for r in loop.rounds[:2]] == [
        "python 3.13 release date",
        "Python 3.13 release date",
    ]
    # A result given as a list of text parts becomes their text.
    assert loop.rounds[0].tool_calls[0].result.content == (
        "1. What's New In Python 3.13 — docs.python.org\n2. Python Release Python 3.13.0 | python.org"
    )

    # The only warning: the drone line ends with a call that never got a result.
    assert warnings_of(diagnostics) == [
        (
            "finetune.jsonl",
            4,
            f"trace {traces[3].id}: call call_Vn3kq8ZtP1bXw6RmE0sJd4Ha (get_drone_location) has no result",
        )
    ]


def test_legacy_function_call_pairs_with_the_function_message():
    traces, _ = read(FIXTURES / "finetune.jsonl")
    legacy = by_line(traces)[3]
    assert len(legacy.rounds) == 2
    (fc,) = legacy.rounds[0].tool_calls
    assert (fc.id, fc.name, fc.arguments) == ("r1.c1", "calculator", {"expression": "23 * 19"})
    assert fc.result.content == "437"
    assert legacy.rounds[1].text == "23 × 19 = 437."


def test_arguments_as_string_of_string_and_as_object():
    traces, _ = read(FIXTURES / "finetune.jsonl")
    drone = by_line(traces)[4].rounds[0].tool_calls[0]
    assert drone.arguments_raw == '"{\\"location\\": \\"current\\"}"'
    assert drone.arguments == {"location": "current"}
    assert drone.arguments_error is None
    assert drone.result is None

    ollama = by_id(traces)["ollama-toronto"]
    (weather,) = ollama.rounds[0].tool_calls
    assert weather.id == "r1.c1"  # no id from the server: synthesized
    assert weather.arguments == {"city": "Toronto", "format": "celsius"}
    assert json.loads(weather.arguments_raw) == {"city": "Toronto", "format": "celsius"}
    # The id-less tool message answers the call by order / tool name.
    assert weather.result.content == '{"temperature": -4, "conditions": "snow"}'
    assert ollama.metadata["model"] == "llama3.1:8b"


def test_json_array_file_gives_one_trace_per_element():
    traces, diagnostics = read(FIXTURES / "conversations.json")
    assert shown_ids(traces) == ["conversations.json:@1", "conversations.json:@1"]
    assert traces[0].id != traces[1].id
    assert [len(t.rounds) for t in traces] == [2, 1]
    convert = traces[0].rounds[0].tool_calls[0]
    assert convert.arguments == {"amount": 100, "from": "USD", "to": "EUR"}
    assert convert.result.content == "92.31"
    assert traces[1].rounds[0].text == "Hello! How can I help you today?"
    assert len(diagnostics) == 0


def test_pretty_printed_document_with_flat_calls_timestamps_and_usage():
    traces, diagnostics = read(FIXTURES / "pretty_conversation.json")
    (trace,) = traces
    assert trace.id == "airline-task-12"
    assert len(trace.rounds) == 2
    lookup = trace.rounds[0]
    (get,) = lookup.tool_calls
    assert (get.id, get.name, get.arguments) == (
        "call_Tb4nS8qLw2Zx6Vc0Rj3Pd7Ke",
        "get_reservation_details",
        {"reservation_id": "ZFA04Y"},
    )
    # Naive ISO timestamps are UTC.
    assert lookup.ended_at == utc(2025, 6, 2, 14, 3, 10, 877090)
    assert lookup.usage.input_tokens == 2143 and lookup.usage.output_tokens == 21
    assert lookup.usage.cached_tokens is None and lookup.usage.reasoning_tokens is None
    assert get.result.content == "Error: Reservation ZFA04Y not found"
    assert get.result.is_error is True  # the harness adds an error flag; use it
    assert get.result.ended_at == utc(2025, 6, 2, 14, 3, 10, 903512)
    assert trace.rounds[1].ended_at == utc(2025, 6, 2, 14, 3, 12, 2518)
    assert len(diagnostics) == 0


# --- shape 2: request/response pairs ----------------------------------------------------


def test_request_response_log_rebuilds_rounds_from_the_growing_history():
    traces, diagnostics = read(FIXTURES / "request_response.jsonl")
    assert shown_ids(traces) == ["request_response.jsonl:@1", "request_response.jsonl:@4"]
    search, summary = traces
    assert (search.line, search.end_line) == (1, 3)
    assert len(search.rounds) == 3
    assert [r.id for r in search.rounds] == [
        "chatcmpl-BdT3kq9Lw0VnR8xZs1Ym2Pf7Hc",
        "chatcmpl-BdT3mZ4Rb7Xq1Wc8Nv0Ls5Jt2",
        "chatcmpl-BdT3pY6Tn2Kd9Ge3Hw5Zq1Mr8",
    ]
    assert [r.line for r in search.rounds] == [1, 2, 3]
    assert [r.finish_reason for r in search.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert {r.model for r in search.rounds} == {"gpt-4o-2024-08-06"}
    assert [r.tool_calls[0].arguments["query"] for r in search.rounds[:2]] == [
        "gpt-4o release date",
        "GPT-4o release date announced",
    ]
    # Round k's results arrive inside request k+1.
    first_result = search.rounds[0].tool_calls[0].result
    assert first_result.content == "1. Hello GPT-4o | OpenAI (openai.com/index/hello-gpt-4o)"
    assert first_result.line == 2
    assert search.rounds[1].tool_calls[0].result.content == "1. OpenAI Spring Update, May 13, 2024"
    assert search.rounds[2].text == "GPT-4o was announced on 13 May 2024."
    assert search.answered

    second = search.rounds[1].usage
    assert (second.input_tokens, second.output_tokens, second.cached_tokens, second.reasoning_tokens) == (476, 23, 384, 0)
    # timestamp = when the response was logged; latency_ms reaches back to the start.
    assert search.rounds[0].ended_at == utc(2025, 6, 2, 13, 40, 1, 180000)
    assert search.rounds[0].started_at == utc(2025, 6, 2, 13, 40, 0)
    assert search.rounds[0].seconds == pytest.approx(1.18)

    (only,) = summary.rounds
    assert only.text == "The meeting is now on Thursday at 10:00."
    assert only.usage.reasoning_tokens == 192 and only.usage.output_tokens == 210
    assert only.ended_at == 1748871720.0  # response.created, Unix seconds
    assert only.started_at is None
    assert only.model == "o4-mini-2025-04-16"
    assert len(diagnostics) == 0


def test_interleaved_request_logs_and_retry_after_an_error(tmp_path):
    system = {"role": "system", "content": "Be brief."}

    def response(rid, message, finish="stop", created=1748871600):
        return {
            "id": rid,
            "object": "chat.completion",
            "created": created,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
        }

    a_user = {"role": "user", "content": "Weather in Oslo?"}
    a_call = [call("call_a1", "get_weather", '{"city": "Oslo"}')]
    b_user = {"role": "user", "content": "Weather in Bergen?"}
    b_call = [call("call_b1", "get_weather", '{"city": "Bergen"}')]
    c_user = {"role": "user", "content": "Tell me a joke."}
    path = write_jsonl(
        tmp_path / "proxy.jsonl",
        [
            {"request": {"messages": [system, a_user]}, "response": response("chatcmpl-a1", {"content": None, "tool_calls": a_call}, "tool_calls")},
            {"request": {"messages": [system, b_user]}, "response": response("chatcmpl-b1", {"content": None, "tool_calls": b_call}, "tool_calls")},
            {
                "request": {"messages": [system, a_user, {"role": "assistant", "content": "", "tool_calls": a_call}, {"role": "tool", "tool_call_id": "call_a1", "content": "3°C"}]},
                "response": response("chatcmpl-a2", {"content": "3°C in Oslo."}),
            },
            # B's next call fails, then is retried with the same messages.
            {
                "request": {"messages": [system, b_user, {"role": "assistant", "tool_calls": b_call}, {"role": "tool", "tool_call_id": "call_b1", "content": "7°C"}]},
                "response": None,
                "error": {"message": "Rate limit reached for gpt-4o-mini", "type": "requests", "code": "rate_limit_exceeded"},
            },
            {
                "request": {"messages": [system, b_user, {"role": "assistant", "tool_calls": b_call}, {"role": "tool", "tool_call_id": "call_b1", "content": "7°C"}]},
                "response": response("chatcmpl-b2", {"content": "7°C in Bergen."}),
            },
            # C fails and is never retried: the run ended without an answer.
            {"request": {"messages": [system, c_user]}, "response": None, "error": "upstream connect error"},
        ],
    )
    traces, diagnostics = read(path)
    assert shown_ids(traces) == ["proxy.jsonl:@1", "proxy.jsonl:@2", "proxy.jsonl:@6"]
    oslo, bergen, joke = traces
    assert [r.id for r in oslo.rounds] == ["chatcmpl-a1", "chatcmpl-a2"]
    assert oslo.rounds[0].tool_calls[0].result.content == "3°C"
    assert (oslo.line, oslo.end_line) == (1, 3)
    assert [r.id for r in bergen.rounds] == ["chatcmpl-b1", "chatcmpl-b2"]
    assert bergen.rounds[0].tool_calls[0].result.content == "7°C"
    assert bergen.error is None and bergen.answered
    assert (bergen.line, bergen.end_line) == (2, 5)
    assert joke.rounds == [] and joke.error == "upstream connect error"
    assert not joke.answered
    assert len(diagnostics) == 0


def test_request_that_does_not_extend_the_history_starts_a_new_trace(tmp_path):
    def completion(rid, message, finish):
        return {"id": rid, "object": "chat.completion", "created": 1748871600, "model": "gpt-4o",
                "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}]}

    user = {"role": "user", "content": "Look up order 42."}
    lookup = [call("call_x", "get_order", '{"id": 42}')]
    path = write_jsonl(
        tmp_path / "log.jsonl",
        [
            {"request": {"messages": [user]}, "response": completion("chatcmpl-1", {"tool_calls": lookup}, "tool_calls")},
            # Same opening, but the client dropped the earlier turn: not a continuation.
            {"request": {"messages": [user]}, "response": completion("chatcmpl-2", {"content": "Order 42 shipped."}, "stop")},
        ],
    )
    traces, diagnostics = read(path)
    assert shown_ids(traces) == ["log.jsonl:@1", "log.jsonl:@2"]
    assert traces[0].id != traces[1].id  # the same question, answered otherwise: two ids
    assert [len(t.rounds) for t in traces] == [1, 1]
    assert traces[0].rounds[0].usage is None  # no usage in the response: unknown
    # The first trace ends on tool calls nobody answered.
    assert warnings_of(diagnostics) == [("log.jsonl", 1, f"trace {traces[0].id}: call call_x (get_order) has no result")]


def test_messages_next_to_a_response_read_as_a_logged_round(tmp_path):
    # LiteLLM-style payloads: the request's messages at the top level, start/end times.
    path = write_jsonl(
        tmp_path / "litellm.jsonl",
        [
            {
                "id": "log-1",
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": "2+2?"}],
                "response": {"id": "chatcmpl-z", "object": "chat.completion", "created": 1748871600, "model": "gpt-4o-2024-08-06",
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}},
                "startTime": 1748871599.5,
                "endTime": 1748871600.25,
            }
        ],
    )
    (trace,), diagnostics = read(path)
    (rnd,) = trace.rounds
    assert (rnd.text, rnd.started_at, rnd.ended_at) == ("4", 1748871599.5, 1748871600.25)
    assert (rnd.usage.input_tokens, rnd.usage.output_tokens) == (12, 1)
    assert len(diagnostics) == 0


# --- shape 3: Batch API ------------------------------------------------------------------


def test_batch_output_lines_are_isolated_rounds_or_errors():
    traces, diagnostics = read(FIXTURES / "batch_output.jsonl")
    assert [t.id for t in traces] == ["task-001", "task-002", "task-003", "task-004"]
    tools, hello, expired, rejected = traces

    (rnd,) = tools.rounds
    assert rnd.id == "chatcmpl-BdU1cX5Vm8Qw2Lr0Tz7Nk4Hy3"
    assert rnd.finish_reason == "tool_calls"
    assert rnd.tool_calls[0].arguments == {"city": "Oslo"}
    assert (rnd.usage.input_tokens, rnd.usage.output_tokens) == (96, 15)
    assert tools.metadata["batch_request_id"] == "batch_req_6841a2c9e0b481908f4b3c2d1e0f9a8b"

    (answer,) = hello.rounds
    assert answer.text == "Bonjour !"
    assert answer.ended_at == 1748872001.0
    assert answer.model == "gpt-4o-mini-2024-07-18"
    assert hello.answered

    assert expired.rounds == []
    assert expired.error == "This request could not be executed before the completion window expired."
    assert rejected.rounds == []
    assert rejected.error.startswith("Invalid 'messages[1].content': string too long.")
    assert rejected.metadata["status_code"] == 400
    assert not expired.answered and not rejected.answered

    assert warnings_of(diagnostics) == [
        ("batch_output.jsonl", 1, "trace task-001: call call_Ws5Fk2Jq9Lb0Xm7Rv3Nt6Pc1 (get_weather) has no result")
    ]


def test_batch_input_lines_are_read_as_conversations():
    traces, diagnostics = read(FIXTURES / "batch_input.jsonl")
    assert [t.id for t in traces] == ["task-001", "task-002"]
    (rnd,) = traces[0].rounds
    assert rnd.tool_calls[0].result.content == '{"temp_c": 3, "sky": "overcast"}'
    assert traces[1].rounds == []
    assert traces[0].metadata["model"] == "gpt-4o-mini"
    assert len(diagnostics) == 0


# --- shape 4: a message per line ---------------------------------------------------------


def test_messages_per_line_are_grouped_by_conversation_id():
    traces, diagnostics = read(FIXTURES / "messages.jsonl")
    assert [t.id for t in traces] == ["c-101", "c-102"]
    flights, password = traces
    assert (flights.line, flights.end_line) == (1, 7)
    assert (password.line, password.end_line) == (3, 5)
    assert len(flights.rounds) == 2
    search = flights.rounds[0]
    assert search.ended_at == utc(2025, 6, 2, 9, 0, 2, 350000)
    assert search.model == "gpt-4o-2024-08-06"
    assert (search.usage.input_tokens, search.usage.output_tokens, search.usage.cached_tokens) == (311, 31, 0)
    (flight,) = search.tool_calls
    assert flight.arguments == {"from": "CDG", "to": "LIS", "date": "2025-06-12"}
    assert flight.result.content == '[{"flight":"TP433","price_eur":89}]'
    assert flight.result.ended_at == 1748854803.1  # milliseconds on disk
    assert flight.result.line == 6
    assert flights.rounds[1].usage.cached_tokens == 256
    assert password.rounds[0].ended_at == 1748854802.5  # seconds on disk
    assert len(diagnostics) == 0


def test_user_messages_and_their_times_in_a_message_per_line_log():
    flights, password = read(FIXTURES / "messages.jsonl")[0]
    assert [(m.before_round, m.text, m.at) for m in flights.user_messages] == [
        (1, "Cheapest flight Paris to Lisbon on 12 June?", utc(2025, 6, 2, 9, 0, 0))
    ]
    assert [m.text for m in password.user_messages] == ["Reset my password please."]


def test_a_conversation_with_several_user_messages_has_a_turn_for_each(tmp_path):
    conversation = {"id": "chat-9", "messages": [
        {"role": "system", "content": "You convert currencies."},
        {"role": "user", "content": "Convert 100 USD to EUR."},
        {"role": "assistant", "content": None, "tool_calls": [call("call_a", "convert", '{"amount": 100, "from": "USD", "to": "EUR"}')]},
        {"role": "tool", "tool_call_id": "call_a", "content": "92.31"},
        {"role": "assistant", "content": "100 USD is 92.31 EUR."},
        {"role": "user", "content": [{"type": "text", "text": "And in GBP?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
        {"role": "developer", "content": "Answer in one line."},
        {"role": "assistant", "content": None, "tool_calls": [call("call_b", "convert", '{"amount": 100, "from": "USD", "to": "GBP"}')]},
        {"role": "tool", "tool_call_id": "call_b", "content": "78.95"},
        {"role": "assistant", "content": "100 USD is 78.95 GBP."},
    ]}
    path = write_jsonl(tmp_path / "chat.jsonl", [conversation])
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    # Text parts only (the image is no text); the developer message is not the user's.
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Convert 100 USD to EUR."), (3, "And in GBP?")]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2]
    assert [t.reply.text for t in trace.turns()] == ["100 USD is 92.31 EUR.", "100 USD is 78.95 GBP."]


def test_request_log_counts_each_user_message_once_though_every_request_resends_it():
    (trace,), diagnostics = read(FIXTURES / "multi_turn_request_response.jsonl")
    assert len(diagnostics) == 0
    assert trace.id == "sess-4410"
    # Five requests after the first resend the first question; the retried request
    # (after the rate-limit error) resends the third: each is read once, where it was new.
    assert [(m.before_round, m.text) for m in trace.user_messages] == [
        (1, "My card ending 4821 was declined at a shop this morning. Is it blocked?"),
        (3, "Can you raise the limit?"),
        (4, "OK. Which payments used up the limit today?"),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 3, 3]
    assert [(r.id, r.usage.input_tokens) for r in trace.rounds] == [
        ("chatcmpl-CFa1Xq0", 318), ("chatcmpl-CFa1Zr4", 371), ("chatcmpl-CFa3Bx9", 421), ("chatcmpl-CFa3qL2", 467), ("chatcmpl-CFa3sD8", 548),
    ]
    assert trace.error is None  # the retry answered


def test_session_and_thread_ids_group_too(tmp_path):
    path = write_jsonl(
        tmp_path / "chat.jsonl",
        [
            {"session_id": "s-1", "role": "user", "content": "hi"},
            {"thread_id": "t-9", "role": "user", "content": "yo"},
            {"session_id": "s-1", "role": "assistant", "content": "hello"},
            {"thread_id": "t-9", "role": "assistant", "content": "hey"},
            {"session_id": "s-1", "role": "assistant", "content": "anything else?"},
        ],
    )
    traces, diagnostics = read(path)
    assert [(t.id, [r.text for r in t.rounds]) for t in traces] == [
        ("s-1", ["hello", "anything else?"]),
        ("t-9", ["hey"]),
    ]
    assert len(diagnostics) == 0


# --- bad input: warned with file:line, nothing else lost ---------------------------------


def test_tool_result_for_unknown_call_id_is_warned_and_the_rest_kept(tmp_path):
    path = write_jsonl(
        tmp_path / "bad_ids.jsonl",
        [
            {"messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": None, "tool_calls": [call("call_ok", "get_weather", '{"city": "Paris"}')]},
                {"role": "tool", "tool_call_id": "call_ok", "content": "11°C"},
                {"role": "tool", "tool_call_id": "call_zzz", "content": "orphan"},
                {"role": "assistant", "content": "11°C in Paris."},
            ]},
            {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]},
        ],
    )
    traces, diagnostics = read(path)
    assert shown_ids(traces) == ["bad_ids.jsonl:@1", "bad_ids.jsonl:@2"]
    assert traces[0].rounds[0].tool_calls[0].result.content == "11°C"
    assert len(traces[0].rounds) == 2
    assert traces[1].rounds[0].text == "Hello!"
    assert warnings_of(diagnostics) == [
        ("bad_ids.jsonl", 1, f"trace {traces[0].id}: tool result for unknown call id 'call_zzz' (message 4)")
    ]
    assert str(list(diagnostics)[0]).endswith(f"bad_ids.jsonl:1: trace {traces[0].id}: tool result for unknown call id 'call_zzz' (message 4)")


def test_arguments_that_are_not_json_keep_the_raw_text(tmp_path):
    path = write_jsonl(
        tmp_path / "bad_args.jsonl",
        [
            {"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "ok"}]},
            {"messages": [
                {"role": "user", "content": "Search Paris"},
                {"role": "assistant", "tool_calls": [call("call_cut", "web_search", '{"query": "paris')]},
                {"role": "tool", "tool_call_id": "call_cut", "content": "no results"},
            ]},
        ],
    )
    traces, diagnostics = read(path)
    (cut,) = traces[1].rounds[0].tool_calls
    assert cut.arguments_raw == '{"query": "paris'
    assert cut.arguments is None
    assert cut.arguments_error.startswith("arguments are not valid JSON")
    assert cut.result.content == "no results"  # the result still attaches
    ((name, line, reason),) = warnings_of(diagnostics)
    assert (name, line) == ("bad_args.jsonl", 2)
    assert reason.startswith(f"trace {traces[1].id}: call call_cut (web_search): arguments are not valid JSON")


def test_records_matching_no_shape_are_warned_and_skipped(tmp_path):
    ok = {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]}
    bye = {"messages": [{"role": "user", "content": "Bye"}, {"role": "assistant", "content": "Goodbye!"}]}
    path = write_jsonl(tmp_path / "mixed.jsonl", [ok, {"event": "heartbeat"}, 42, ["not", "messages"], bye])
    traces, diagnostics = read(path)
    assert shown_ids(traces) == ["mixed.jsonl:@1", "mixed.jsonl:@5"]
    assert warnings_of(diagnostics) == [
        ("mixed.jsonl", 2, "JSON that matches no known OpenAI Chat shape"),
        ("mixed.jsonl", 3, "JSON that matches no known OpenAI Chat shape"),
        ("mixed.jsonl", 4, "JSON that matches no known OpenAI Chat shape (array element 0)"),
        ("mixed.jsonl", 4, "JSON that matches no known OpenAI Chat shape (array element 1)"),
    ]


def test_malformed_messages_are_warned_not_raised(tmp_path):
    path = write_jsonl(
        tmp_path / "odd.jsonl",
        [
            {"messages": [
                {"role": "user", "content": "Go"},
                "not an object",
                {"role": "critic", "content": "?"},
                {"role": "assistant", "tool_calls": {"id": "x"}},
                {"role": "assistant", "tool_calls": [{"id": "call_n", "type": "function", "function": {"arguments": "{}"}}]},
                {"role": "function", "name": "lookup", "content": "stray"},
                {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            ]},
            {"request": {"messages": [{"role": "user", "content": "x"}]}, "response": "garbage"},
        ],
    )
    traces, diagnostics = read(path)
    assert [len(t.rounds) for t in traces] == [3, 0]
    assert traces[0].rounds[2].text == "Done."
    assert [(line, reason) for _, line, reason in warnings_of(diagnostics)] == [
        (1, f"trace {traces[0].id}: a message must be a JSON object; skipped (message 2)"),
        (1, f"trace {traces[0].id}: message with unknown role 'critic' skipped (message 3)"),
        (1, f"trace {traces[0].id}: 'tool_calls' must be a list; ignored (message 4)"),
        (1, f"trace {traces[0].id}: tool call without a function name skipped (message 5)"),
        (1, f"trace {traces[0].id}: function result 'lookup' with no function_call awaiting a result (message 6)"),
        (2, f"trace {traces[1].id}: response without choices[0].message"),
    ]


def test_legacy_function_results_match_the_most_recent_unanswered_call(tmp_path):
    path = write_jsonl(
        tmp_path / "legacy.jsonl",
        [
            {"messages": [
                {"role": "user", "content": "Two lookups"},
                {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"key": "a"}'}},
                {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": '{"key": "b"}'}},
                {"role": "function", "name": "lookup", "content": "B"},
                {"role": "function", "name": "lookup", "content": "A"},
                {"role": "assistant", "content": "a=A, b=B"},
            ]},
        ],
    )
    (trace,), diagnostics = read(path)
    assert [(r.tool_calls[0].arguments["key"], r.tool_calls[0].result.content) for r in trace.rounds[:2]] == [
        ("a", "A"),
        ("b", "B"),
    ]
    assert len(diagnostics) == 0


def test_inspect_style_calls_name_the_function_directly(tmp_path):
    # Inspect AI writes "function": "<name>" with object arguments and an error object on results.
    path = write_jsonl(
        tmp_path / "inspect.jsonl",
        [
            {"id": "sample-3", "messages": [
                {"role": "user", "content": "Open example.com"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_go", "function": "web_browser_go", "arguments": {"url": "https://example.com"}, "type": "function"}]},
                {"role": "tool", "content": "", "tool_call_id": "call_go", "function": "web_browser_go",
                 "error": {"type": "timeout", "message": "Command timed out before completing."}},
                {"role": "assistant", "content": "The page did not load."},
            ]},
        ],
    )
    (trace,), diagnostics = read(path)
    (go,) = trace.rounds[0].tool_calls
    assert (go.name, go.arguments) == ("web_browser_go", {"url": "https://example.com"})
    assert go.result.is_error is True
    assert len(diagnostics) == 0


def test_a_dumped_messages_list_is_one_conversation_when_the_format_is_named(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], indent=2))
    diagnostics = Diagnostics()
    (trace,) = read_traces([str(path)], diagnostics, input_format="openai-chat")
    assert trace.id == "history.json:1"
    assert [r.text for r in trace.rounds] == ["a"]
    assert len(diagnostics) == 0


# --- what json.dump(messages) writes, sniffed without --input-format -------------------------------


@pytest.mark.parametrize("name", ["dumped_messages.json", "dumped_messages.jsonl"])
def test_dumped_messages_are_sniffed_as_openai_chat(cli, name):
    report = json.loads(cli("replay", "--format", "json", str(FIXTURES / name)).stdout)
    [trace] = report["traces"]
    assert trace["format"] == "openai-chat"
    assert (trace["rounds"], trace["tool_calls"], trace["ending"]) == (3, 2, "answered")
    assert "outcome" not in trace["labels"]  # a chat log carries no grade
    [read_back], diagnostics = read(FIXTURES / name)
    assert len(diagnostics) == 0
    calls = list(read_back.tool_calls())
    assert [(c.id, c.name, c.arguments, c.result.content) for c in calls] == [
        ("call_pJ4tQ8sW1xV6bN3mK9dR2fLh", "query_db", {"status": "pending"}, "[]"),
        ("call_Zq7wE2rT5yU8iO1pA4sD6fGh", "query_db", {"status": "pending"}, "[]"),
    ]
    assert read_back.rounds[-1].text == "No orders are pending."
    assert [m.text for m in read_back.user_messages] == ["Which orders are still pending?"]


def test_a_first_line_without_tools_is_judged_by_the_lines_after_it(tmp_path):
    # Line 1 alone fits OpenAI and Anthropic alike; line 2's tool_calls decide.
    lines = [json.loads(l) for l in (FIXTURES / "dumped_messages.jsonl").read_text().splitlines()][1:]
    path = write_jsonl(tmp_path / "chat.jsonl", lines)
    [trace], diagnostics = read(path)
    assert (trace.format, len(trace.rounds), len(diagnostics)) == ("openai-chat", 3, 0)
    assert trace.rounds[0].line == 2 and trace.rounds[0].tool_calls[0].result.line == 3


def test_a_bad_line_among_dumped_messages_is_named(tmp_path):
    path = tmp_path / "chat.jsonl"
    text = (FIXTURES / "dumped_messages.jsonl").read_text().splitlines()
    text.insert(3, '{"role": "tool", "tool_call_id": "call_pJ4tQ8sW1')  # cut mid-write
    path.write_text("\n".join(text) + "\n")
    [trace], diagnostics = read(path)
    assert trace.format == "openai-chat" and len(trace.rounds) == 3
    assert [(d.line, d.reason.split(":")[0]) for d in diagnostics][:1] == [(4, "not valid JSON")]
