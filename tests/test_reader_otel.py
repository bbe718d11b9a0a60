"""The OpenTelemetry reader: OTLP/JSON file-exporter output with GenAI semantic-convention
attributes (current and older), OpenLLMetry's flat attributes, or OpenInference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.readers import sniff

from conftest import (
    assert_round_trip_keeps_replay_shape,
    read_with_diagnostics as read,
    replay_shape as shape,
    round_usage_tuple as usage_of,
    utc,
    warnings_of,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otel"

WEATHER = "4bf92f3577b34da6a3ce929d0e0e4736"
PARIS = "call_VSPygqKTWdrhaFErNvMV18Yl"
ROME = "call_Bk3mQ0Zr9sXnT7wYhL2cVd4E"


# --- current GenAI conventions -----------------------------------------------------------------


def test_genai_attributes_rounds_tools_and_usage():
    traces, diagnostics = read(FIXTURES / "genai_attributes.jsonl")
    assert [t.id for t in traces] == [WEATHER, "0af7651916cd43dd8448eb211c80319c"]
    weather = traces[0]
    assert weather.format == "otel"
    assert (weather.line, weather.end_line) == (1, 1)
    assert [r.id for r in weather.rounds] == [
        "chatcmpl-AqP1kZ7fWm3xY0bN2cV4dR6tH8jL",
        "chatcmpl-AqP1mB4sQe8uI1oP5aS7dF9gJ2kZ",
        "chatcmpl-AqP1pC6tRf0vJ3qA7sD9fG1hK4lX",
    ]
    first, second, final = weather.rounds
    assert first.text == "Let me check Paris first."
    (paris,) = first.tool_calls
    assert (paris.id, paris.name, paris.arguments) == (PARIS, "get_weather", {"city": "Paris"})
    assert paris.result.content == '{"temp_c": 11, "sky": "rain"}'
    assert paris.result.is_error is False
    assert paris.result.started_at == utc(2025, 1, 15, 10, 0, 1, 510000)
    assert paris.result.ended_at == utc(2025, 1, 15, 10, 0, 1, 900000)
    (rome,) = second.tool_calls
    assert rome.arguments == {"city": "Rome", "units": "metric"}
    # Status ERROR + error.type, no result attribute: the status message is the content.
    assert (rome.result.content, rome.result.is_error) == ("TimeoutError: weather service did not answer in 10s", True)
    assert final.is_final and final.text == "Paris is 11°C and rainy; the Rome lookup timed out."

    # Usage per inference span; the invoke_agent span's 393/60 is never added.
    assert [usage_of(r) for r in weather.rounds] == [(82, 17, 0, None), (131, 18, 64, None), (180, 25, 128, None)]
    assert weather.usage_total is None
    assert first.started_at == 1736935200.01
    assert first.ended_at == 1736935201.5
    assert [r.finish_reason for r in weather.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert {r.model for r in weather.rounds} == {"gpt-4o-2024-08-06"}
    assert weather.metadata == {
        "name": "invoke_agent WeatherAgent",
        "service": "weather-agent",
        "conversation_id": "conv_5j66UpCpwteGg4YSxUnt7lPY",
        "agent": "WeatherAgent",
    }
    assert weather.error is None and weather.outcome == "unknown" and weather.answered
    assert len(diagnostics) == 0


def test_failed_agent_root_is_an_error_and_a_failed_chat_span_is_no_round():
    traces, _ = read(FIXTURES / "genai_attributes.jsonl")
    failed = traces[1]
    (rnd,) = failed.rounds  # the rate-limited chat span produced no response
    (search,) = rnd.tool_calls
    assert (search.name, search.arguments) == ("web_search", {"query": "EU AI Act enforcement date"})
    assert search.result.content == "1. AI Act | Shaping Europe's digital future (digital-strategy.ec.europa.eu)"
    assert failed.error == "RateLimitError: Rate limit reached for gpt-4o-mini on tokens per min (TPM)"
    assert (failed.ending, failed.outcome) == ("error", "unknown")  # an ending, not a grade
    assert not failed.answered
    assert failed.metadata["service"] == "research-agent"


def test_values_as_kvlists_read_like_json_strings():
    (as_strings, _), _ = read(FIXTURES / "genai_attributes.jsonl")
    (as_kvlists,), diagnostics = read(FIXTURES / "values_kvlist.jsonl")
    assert shape(as_kvlists) == shape(as_strings)
    assert as_kvlists.metadata == as_strings.metadata
    assert len(diagnostics) == 0


def test_a_trace_split_over_lines_in_reverse_order():
    traces, diagnostics = read(FIXTURES / "split_trace.jsonl")
    assert [t.id for t in traces] == [WEATHER, "0af7651916cd43dd8448eb211c80319c"]
    split = traces[0]
    assert (split.line, split.end_line) == (1, 3)
    (whole, _), _ = read(FIXTURES / "genai_attributes.jsonl")
    assert shape(split) == shape(whole)
    # Rounds in start order, each from the line its span is on.
    assert [r.line for r in split.rounds] == [3, 3, 1]
    assert split.rounds[1].tool_calls[0].result.line == 1
    assert traces[1].metadata["service"] == "other-service"
    assert len(diagnostics) == 0


def test_content_capture_off_calls_come_from_tool_spans(tmp_path):
    # Default instrumentation: no message content, only the tool spans name the calls.
    trace = "6e0c63257de34c92bf9efcd03927272e"

    def span(sid, name, start, end, attrs, parent="6e0c63257de34c90"):
        return {"traceId": trace, "spanId": sid, "parentSpanId": parent, "name": name, "kind": 1,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                "attributes": [{"key": k, "value": v} for k, v in attrs], "status": {}}

    chat = [("gen_ai.operation.name", {"stringValue": "chat"}), ("gen_ai.provider.name", {"stringValue": "openai"}),
            ("gen_ai.usage.input_tokens", {"intValue": "50"}), ("gen_ai.usage.output_tokens", {"intValue": 12})]
    tool = [("gen_ai.operation.name", {"stringValue": "execute_tool"}), ("gen_ai.tool.name", {"stringValue": "search"}),
            ("gen_ai.tool.call.id", {"stringValue": "call_1"})]
    path = write_jsonl(tmp_path / "no_content.jsonl", [{"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [
        span("6e0c63257de34c91", "chat gpt-4o", 1_700_000_000_000_000_000, 1_700_000_001_000_000_000, chat),
        span("6e0c63257de34c92", "execute_tool search", 1_700_000_001_100_000_000, 1_700_000_001_200_000_000, tool),
        span("6e0c63257de34c93", "chat gpt-4o", 1_700_000_002_000_000_000, 1_700_000_003_000_000_000, chat),
    ]}]}]}])
    (read_trace,), diagnostics = read(path)
    first, second = read_trace.rounds
    (call,) = first.tool_calls
    assert (call.id, call.name, call.arguments_raw, call.result.content, call.result.is_error) == ("call_1", "search", "", "", False)
    assert second.is_final and second.text == ""
    assert usage_of(first) == (50, 12, None, None)
    assert first.started_at == 1700000000.0
    assert len(diagnostics) == 0


# --- user messages ---------------------------------------------------------------------------------


def said(trace):
    return [(m.before_round, m.text) for m in trace.user_messages]


def test_user_messages_from_every_convention_each_once():
    weather, _ = read(FIXTURES / "genai_attributes.jsonl")[0]
    assert said(weather) == [(1, "Weather in Paris and Rome?")]  # gen_ai.input.messages parts, in all three spans
    booking, calculator = read(FIXTURES / "genai_events.jsonl")[0]
    # gen_ai.user.message events: "Who am I?" was an earlier turn, answered before this trace.
    assert said(booking) == [(1, "Flights from Paris to Lisbon on 3 Feb, cheapest airport.")]
    assert said(calculator) == [(1, "What is 23 * 19?")]  # the gen_ai.content.prompt event
    (lisbon,) = read(FIXTURES / "openllmetry.jsonl")[0]
    assert said(lisbon) == [(1, "Plan a day in Lisbon: weather first.")]
    (langgraph,) = read(FIXTURES / "openinference.jsonl")[0]
    assert said(langgraph) == [(1, "How do I raise the LangGraph recursion limit?")]


def test_a_chat_of_two_turns_in_one_trace(tmp_path):
    trace_id = "9f1e2d3c4b5a69788796a5b4c3d2e1f0"

    def chat(sid, start, messages, output):
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
                 "gen_ai.input.messages": json.dumps(messages), "gen_ai.output.messages": json.dumps([output])}
        return {"traceId": trace_id, "spanId": sid, "parentSpanId": "9f1e2d3c4b5a6900", "name": "chat gpt-4o", "kind": 3,
                "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 900_000_000),
                "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()], "status": {}}

    def message(role, text):
        return {"role": role, "parts": [{"type": "text", "content": text}]}

    system, first, reply, second = (message("system", "You are terse."), message("user", "Capital of Peru?"),
                                    message("assistant", "Lima."), message("user", "And its population?"))
    path = write_jsonl(tmp_path / "chat.jsonl", [{"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [
        chat("9f1e2d3c4b5a6901", 1_700_000_000_000_000_000, [system, first], {**reply, "finish_reason": "stop"}),
        chat("9f1e2d3c4b5a6902", 1_700_000_030_000_000_000, [system, first, reply, second],
             {**message("assistant", "About 10 million."), "finish_reason": "stop"}),
    ]}]}]}])
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    assert said(trace) == [(1, "Capital of Peru?"), (2, "And its population?")]
    assert [r.turn for r in trace.rounds] == [1, 2]


# --- older conventions ------------------------------------------------------------------------------


def test_event_based_content_and_results_from_the_next_request():
    traces, diagnostics = read(FIXTURES / "genai_events.jsonl")
    assert [t.id for t in traces] == ["5b8efff798038103d269b633813fc60c", "a3c7e2f1b0d94e8c9a1b2c3d4e5f6071"]
    flights, calc = traces
    search, answer = flights.rounds
    assert [(c.id, c.arguments["from"]) for c in search.tool_calls] == [
        ("call_9wGzKx4Hq2pLm7Tn0bVcRs1D", "CDG"),
        ("call_Xb5Nc8Vm1Lk3Jh6Gf9Ds2Az0", "ORY"),
    ]
    # No tool spans: results are the gen_ai.tool.message events of the next request.
    assert [c.result.content for c in search.tool_calls] == ['[{"flight": "TP433", "price_eur": 89}]', "[]"]
    assert {c.result.is_error for c in search.tool_calls} == {None}  # history carries no status
    assert answer.text == "The cheapest is TP433 from CDG at 89 EUR."
    assert [usage_of(r) for r in flights.rounds] == [(412, 58, None, None), (521, 19, None, None)]
    assert flights.metadata["name"] == "booking-request"  # an HTTP server span is the root

    # semconv 1.26: gen_ai.system, prompt/completion token names, gen_ai.content.* events.
    ask, done = calc.rounds
    (calculator,) = ask.tool_calls
    assert (calculator.name, calculator.arguments, calculator.result.content) == ("calculator", {"expression": "23 * 19"}, "437")
    assert done.text == "23 × 19 = 437."
    assert [usage_of(r) for r in calc.rounds] == [(95, 16, None, None), (128, 9, None, None)]
    assert ask.id == "1a2b3c4d5e6f7081"  # no gen_ai.response.id: the span id
    assert ask.model == "gpt-4-turbo-2024-04-09"
    # The earlier turn's call (call_Pr3v10usTurn…) in the history is not warned about.
    assert len(diagnostics) == 0


def test_openllmetry_flat_attributes_and_traceloop_tool_spans():
    (trace,), diagnostics = read(FIXTURES / "openllmetry.jsonl")
    assert trace.id == "7d1f3b5a9c2e4f6081a3c5e7f9b1d3e5"
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 0]
    weather = trace.rounds[0].tool_calls[0]
    assert (weather.id, weather.name, weather.arguments) == ("call_Lx0Wf1Gh2Jk3Lm4Nb5Vc6Xz7", "get_weather", {"city": "Lisbon"})
    assert weather.result.content == "19°C, sunny"  # json.dumps of a string, decoded
    places = trace.rounds[1].tool_calls[0]
    assert places.result.content == '[{"name": "MAAT"}, {"name": "Gulbenkian"}]'
    assert trace.rounds[1].text == "Sunny! Now museums."
    assert [usage_of(r) for r in trace.rounds] == [(120, 18, 0, None), (161, 31, 64, None), (230, 40, 128, None)]
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert len(diagnostics) == 0


# --- OpenInference ---------------------------------------------------------------------------------


def test_openinference_llm_and_tool_spans():
    (trace,), diagnostics = read(FIXTURES / "openinference.jsonl")
    assert trace.id == "f1e2d3c4b5a697887766554433221100"
    # Three LangChain LLM spans; the OpenAI instrumentor's copy nested in the first is skipped.
    assert [r.id for r in trace.rounds] == ["0123456789abcd02", "0123456789abcd07", "0123456789abcd0b"]
    calls = [c for r in trace.rounds for c in r.tool_calls]
    assert [(c.id, c.name, c.arguments["query"]) for c in calls] == [
        ("call_Rc1LmT2nQ3pW4xY5zA6bC7dE", "search_docs", "langgraph recursion limit"),
        ("call_Rc2MnU3oR4qX5yZ6aB7cD8eF", "search_docs", "langgraph recursion_limit config"),
    ]
    # output.value is a serialized ToolMessage: its content and status are unwrapped.
    assert calls[0].result.content == 'Set recursion_limit in the config: graph.invoke(inputs, {"recursion_limit": 50}).'
    assert calls[0].result.is_error is False
    assert calls[1].result.content == "Error: ToolException('docs index unavailable')\n Please fix your mistakes."
    assert calls[1].result.is_error is True
    assert trace.rounds[2].text == 'Pass {"recursion_limit": 50} in the config when you invoke the graph.'
    assert [usage_of(r) for r in trace.rounds] == [(310, 24, 0, None), (402, 27, 256, None), (498, 21, 384, None)]
    assert trace.rounds[0].model == "gpt-4o-mini-2024-07-18"
    assert trace.rounds[0].started_at == utc(2025, 4, 2, 16, 20, 0, 20000)
    assert trace.metadata["conversation_id"] == "thread-8c41"  # session.id
    assert trace.metadata["name"] == "LangGraph"
    assert len(diagnostics) == 0


def test_openinference_tool_input_as_python_repr_when_no_call_recorded(tmp_path):
    trace = "ab" * 16

    def span(sid, kind, start, attrs):
        pairs = [{"key": "openinference.span.kind", "value": {"stringValue": kind}}]
        pairs += [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]
        return {"traceId": trace, "spanId": sid, "name": kind.lower(), "kind": 1, "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + 10**8), "attributes": pairs, "status": {"code": 1}}

    path = write_jsonl(tmp_path / "react.jsonl", [{"resourceSpans": [{"scopeSpans": [{"spans": [
        span("ab00000000000001", "LLM", 10**18, {"llm.output_messages.0.message.role": "assistant",
                                                  "llm.output_messages.0.message.content": "Action: lookup\nAction Input: {'key': 'a'}"}),
        span("ab00000000000002", "TOOL", 10**18 + 2 * 10**8, {"tool.name": "lookup", "input.value": "{'key': 'a'}", "output.value": "A"}),
        span("ab00000000000003", "LLM", 10**18 + 4 * 10**8, {"llm.output_messages.0.message.contents.0.message_content.type": "text",
                                                              "llm.output_messages.0.message.contents.0.message_content.text": "a is A"}),
    ]}]}]}])
    (read_trace,), diagnostics = read(path)
    (call,) = read_trace.rounds[0].tool_calls
    assert (call.name, call.arguments, call.arguments_raw, call.result.content) == ("lookup", {"key": "a"}, '{"key":"a"}', "A")
    assert read_trace.rounds[1].text == "a is A"
    assert len(diagnostics) == 0


# --- bad input --------------------------------------------------------------------------------------


def test_bad_input_is_warned_with_file_and_line_and_the_rest_is_read():
    traces, diagnostics = read(FIXTURES / "bad_input.jsonl")
    assert [t.id for t in traces] == ["11112222333344445555666677778888", "9999aaaabbbbccccddddeeeeffff0000"]
    lookup, done = traces
    (call,) = lookup.rounds[0].tool_calls
    # Its span had a bad start time: still read, sorted last, times unknown.
    assert (call.id, call.result.content, call.result.started_at, call.result.line) == ("call_Gd1", "A", None, 5)
    (rnd,) = done.rounds
    assert rnd.text == "Done."
    assert usage_of(rnd) == (None, 7, None, None)  # the bad intValue is dropped, not 0
    found = warnings_of(diagnostics)
    assert found[0] == ("bad_input.jsonl", 2, "JSON that is not an OTLP/JSON trace export (no 'resourceSpans' list)")
    assert found[1][:2] == ("bad_input.jsonl", 3) and found[1][2].startswith("not valid JSON")
    assert found[2:] == [
        ("bad_input.jsonl", 4, "span 9999aaaa00000001 (chat gpt-4o): attribute 'gen_ai.usage.input_tokens' has a bad intValue 'eighty-two'; ignored"),
        ("bad_input.jsonl", 4, "span 'execute_tool lookup' without traceId or spanId; skipped"),
        ("bad_input.jsonl", 5, "span 1111222233330003 (execute_tool lookup): bad startTimeUnixNano 'not-a-time'; ignored"),
        ("bad_input.jsonl", 1, "trace 11112222333344445555666677778888: tool result for unknown call id 'call_Zz9'"),
    ]
    assert str(list(diagnostics)[5]).endswith(
        "bad_input.jsonl:1: trace 11112222333344445555666677778888: tool result for unknown call id 'call_Zz9'"
    )


def test_malformed_otlp_pieces_never_raise(tmp_path):
    tid = "cd" * 16
    path = write_jsonl(tmp_path / "odd.jsonl", [
        {"resourceSpans": [
            "nope",
            {"scopeSpans": [{"spans": [
                "not a span",
                {"traceId": tid, "spanId": "cd00000000000001", "name": "chat m", "startTimeUnixNano": "1700000000000000000",
                 "attributes": [
                     {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                     {"key": "gen_ai.usage.output_tokens", "value": {"doubleValue": "many"}},
                     {"key": "gen_ai.output.messages", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [
                         {"key": "role", "value": {"stringValue": "assistant"}},
                         {"key": "parts", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [
                             {"key": "type", "value": {"stringValue": "text"}},
                             {"key": "content", "value": {"stringValue": "ok"}},
                             {"key": "weird", "value": {"mysteryValue": 1}}]}}]}}}]}}]}}},
                     {"key": "flag", "value": "plain"},
                     7,
                 ],
                 "status": {"code": "STATUS_CODE_OK"}},
            ]}]},
        ]},
        {"resourceSpans": "nope"},
    ])
    (trace,), diagnostics = read(path)
    assert trace.rounds[0].text == "ok"
    assert trace.rounds[0].usage is None
    where = "span cd00000000000001 (chat m)"
    assert [(line, reason) for _, line, reason in warnings_of(diagnostics)] == [
        (1, "resourceSpans entry that is not an object; skipped"),
        (1, "span that is not an object; skipped"),
        (1, f"{where}: attribute 'gen_ai.usage.output_tokens' has a bad doubleValue 'many'; ignored"),
        (1, f"{where}: attribute 'gen_ai.output.messages' 'parts' 'weird' has no known AnyValue field (mysteryValue); ignored"),
        (1, f"{where}: attribute 'flag' is not an AnyValue object: 'plain'"),
        (1, f"{where}: attribute entry 7 is not a {{key, value}} pair; skipped"),
        (2, "JSON that is not an OTLP/JSON trace export (no 'resourceSpans' list)"),
    ]


def test_traces_without_genai_spans_are_skipped_with_one_warning(tmp_path):
    def http(tid, sid):
        return {"traceId": tid, "spanId": sid, "name": "GET /health", "kind": 2, "startTimeUnixNano": "1700000000000000000",
                "endTimeUnixNano": "1700000000001000000",
                "attributes": [{"key": "http.request.method", "value": {"stringValue": "GET"}}]}

    lines = json.loads((FIXTURES / "genai_attributes.jsonl").read_text().splitlines()[0])
    path = write_jsonl(tmp_path / "mixed.jsonl", [
        lines,
        {"resourceSpans": [{"scopeSpans": [{"spans": [http("01" * 16, "0101010101010101"), http("02" * 16, "0202020202020202")]}]}]},
    ])
    traces, diagnostics = read(path)
    assert [t.id for t in traces] == [WEATHER]
    assert warnings_of(diagnostics) == [("mixed.jsonl", None, "2 trace(s) without GenAI, OpenInference or OpenLLMetry spans skipped")]


# --- sniffing and the CLI ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_fixtures_are_detected_as_otel(name):
    first = (FIXTURES / name).read_text().splitlines()[0]
    assert sniff(json.loads(first)).name == "otel"


def test_cli_show_and_convert_round_trip(tmp_path):
    for name in ("genai_attributes.jsonl", "openinference.jsonl", "genai_events.jsonl"):
        assert_round_trip_keeps_replay_shape(FIXTURES / name, tmp_path)
