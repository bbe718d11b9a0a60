"""The OpenAI Agents SDK reader: trace/span exports (JSON Lines, ingest bodies), read
through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    read_with_diagnostics as read,
    usage_tuple,
    warnings_of,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openai_agents"

WEATHER = "trace_0123456789abcdef0123456789abcdef"
RESEARCH = "trace_5f3c9a1e7b2d4c6e8f0a1b3c5d7e9f12"
TRIAGE = "trace_9a8b7c6d5e4f30211203a4b5c6d7e8f9"
LINKS = "trace_c0ffee00c0ffee00c0ffee00c0ffee00"


def utc(*parts) -> float:
    return round(datetime(*parts, tzinfo=timezone.utc).timestamp(), 6)


def span(sid, trace_id, parent, start, end, data, error=None):
    return {"object": "trace.span", "id": sid, "trace_id": trace_id, "parent_id": parent,
            "started_at": f"2025-06-12T09:00:{start:06.3f}+00:00", "ended_at": f"2025-06-12T09:00:{end:06.3f}+00:00",
            "span_data": data, "error": error}


def generation(text=None, calls=(), usage=(10, 5)):
    tool_calls = [{"id": cid, "type": "function", "function": {"name": name, "arguments": args}} for cid, name, args in calls] or None
    return {"type": "generation", "model": "gpt-4o-mini", "model_config": {}, "input": [],
            "output": [{"role": "assistant", "content": text, "tool_calls": tool_calls}],
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def function(name, args, output):
    return {"type": "function", "name": name, "input": args, "output": output, "mcp_data": None}


# --- the running example ---------------------------------------------------------------


def test_running_example_generation_spans():
    traces, diagnostics = read(FIXTURES / "weather.jsonl")
    (trace,) = traces
    assert (trace.id, trace.format, trace.line, trace.end_line) == (WEATHER, "openai-agents", 1, 7)
    assert trace.metadata == {"workflow_name": "Weather", "agents": ["Weather agent"]}
    assert [r.id for r in trace.rounds] == [
        "span_a00000000000000000000001", "span_a00000000000000000000003", "span_a00000000000000000000005",
    ]
    assert [r.line for r in trace.rounds] == [2, 4, 6]
    calls = list(trace.tool_calls())
    # Function spans have no call id: paired with the generation's calls, whose ids stay.
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_A1", "get_weather", {"city": "Paris"}),
        ("call_B2", "get_weather", {"city": "Rome"}),
    ]
    # str(result) is a Python repr, kept as text.
    assert [(c.result.content, c.result.is_error) for c in calls] == [("{'temp_c': 11}", False), ("{'temp_c': 17}", False)]
    assert (calls[0].result.started_at, calls[0].result.ended_at) == (utc(2025, 1, 15, 10, 0, 1, 510000), utc(2025, 1, 15, 10, 0, 1, 900000))
    assert calls[0].result.line == 3
    assert trace.rounds[2].is_final and trace.rounds[2].text == "Paris 11°C; Rome 17°C."
    assert [usage_tuple(r.usage) for r in trace.rounds] == [(82, 17, None, None), (131, 18, None, None), (180, 25, None, None)]
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 1, 15, 10, 0, 0), utc(2025, 1, 15, 10, 0, 1, 500000))
    assert {r.model for r in trace.rounds} == {"gpt-4o"}
    assert trace.answered and trace.error is None and trace.labels == {}
    assert len(diagnostics) == 0


# --- interleaved traces, response spans, handoffs ---------------------------------------


def test_interleaved_traces_with_response_spans_and_handoffs():
    traces, diagnostics = read(FIXTURES / "two_traces.jsonl")
    assert [t.id for t in traces] == [RESEARCH, TRIAGE]
    research, triage = traces
    assert (research.line, research.end_line, triage.line, triage.end_line) == (1, 25, 4, 14)
    assert research.metadata == {
        "workflow_name": "Research assistant",
        "group_id": "thread_8c1d2e",
        "trace_metadata": {"user_id": "u_981", "env": "staging"},
        "agents": ["Researcher", "Writer"],
        "rounds_without_content": [1, 2, 3, 4, 5],
    }
    # Response spans: the round id is the response id, usage is there, content is not.
    assert [r.id for r in research.rounds] == [f"resp_6848b{k}a3f1c08190a7b6c5d4e3f2a1b00c1d2e3f4a5b6c7" for k in range(1, 6)]
    assert [usage_tuple(r.usage) for r in research.rounds] == [
        (1204, 38, 0, 0), (1391, 36, 1024, 0), (1577, 36, 1280, 0), (1760, 21, 1536, 0), (1102, 244, 0, 0),
    ]
    assert all(r.text == "" for r in research.rounds)
    # Function spans become calls of the response round before them (synthesized ids).
    assert [[(c.id, c.name, c.arguments) for c in r.tool_calls] for r in research.rounds[:3]] == [
        [(f"r{k}.c1", "search_web", {"query": "EU AI Act enforcement date"})] for k in (1, 2, 3)
    ]
    first = research.rounds[0]
    assert (first.started_at, first.ended_at) == (utc(2025, 6, 10, 14, 2, 11, 106233), utc(2025, 6, 10, 14, 2, 12, 304233))
    result = first.tool_calls[0].result
    assert result.content.startswith("[{'title': 'AI Act | Shaping Europe’s digital future'")
    assert (result.started_at, result.ended_at, result.is_error) == (utc(2025, 6, 10, 14, 2, 12, 414233), utc(2025, 6, 10, 14, 2, 13, 654233), False)
    # The handoff span answers a synthesized transfer call named as the SDK names it.
    (transfer,) = research.rounds[3].tool_calls
    assert (transfer.id, transfer.name, transfer.arguments) == ("r4.c1", "transfer_to_writer", {})
    assert transfer.result.content == '{"assistant":"Writer"}'
    assert research.rounds[4].is_final and research.answered
    assert research.usage_total is None  # the rounds carry usage; the task span's total is not used

    # A generation-backed handoff: the exported call is answered by the handoff span.
    first, answer = triage.rounds
    (call,) = first.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01XyZ8aBcD9eFgH1iJkL2mNo", "transfer_to_billing_agent", {})
    assert (call.result.content, call.result.is_error) == ('{"assistant":"Billing agent"}', False)
    assert first.text == "Let me pass you to billing."
    assert answer.text.startswith("Sorry about that!")
    assert answer.model == "anthropic/claude-3-5-haiku-20241022"
    assert triage.metadata == {"workflow_name": "Support triage", "agents": ["Triage agent", "Billing agent"]}
    assert len(diagnostics) == 0


def test_ingest_body_parallel_calls_tool_errors_and_max_turns():
    (trace,), diagnostics = read(FIXTURES / "ingest_body.json")
    assert (trace.id, trace.line, trace.end_line) == (LINKS, 1, 1)
    assert trace.metadata == {"workflow_name": "Link checker", "group_id": "grp_2025_06_11", "agents": ["Link checker"]}
    assert len(trace.rounds) == 3
    docs, blog = trace.rounds[0].tool_calls
    # The blog span started first; pairing by arguments still gives each call its own result.
    assert (docs.id, docs.arguments["url"]) == ("call_Fe7cH1dOcS2pAr3aLl4eL5xx", "https://example.com/docs")
    assert docs.result.is_error is True
    assert docs.result.content == "An error occurred while running the tool. Please try again. Error: ConnectTimeout: timed out"
    assert (blog.result.content, blog.result.is_error) == ("200 OK, 18302 bytes", False)
    assert blog.result.started_at == utc(2025, 6, 11, 8, 30, 1, 810000)
    # An error span without output: the error message is the content.
    retry = trace.rounds[1].tool_calls[0]
    assert (retry.result.content, retry.result.is_error) == ("Error running tool: ConnectTimeout: timed out", True)
    assert trace.rounds[1].text == "Retrying the docs link."
    assert trace.error == 'Max turns exceeded {"max_turns":3}'
    assert (trace.labels, trace.ending, trace.outcome) == ({}, "limit", "unknown")  # max turns: a limit, no grade
    assert not trace.answered
    assert len(diagnostics) == 0


def test_run_total_from_the_task_span_when_model_spans_have_no_usage(tmp_path):
    t = "trace_00000000000000000000000000000001"
    path = write_jsonl(tmp_path / "old.jsonl", [
        span("span_r1", t, "span_agent", 0.1, 1.0, {"type": "response", "response_id": "resp_1"}),
        span("span_f1", t, "span_agent", 1.1, 1.2, function("lookup", '{"id": 7}', "found")),
        span("span_r2", t, "span_agent", 1.3, 2.0, {"type": "response", "response_id": "resp_2"}),
        span("span_agent", t, "span_task", 0.0, 2.1, {"type": "agent", "name": "Helper", "handoffs": [], "tools": ["lookup"], "output_type": "str"}),
        span("span_task", t, None, 0.0, 2.2, {"type": "custom", "name": "task", "data": {
            "sdk_span_type": "task", "name": "Agent workflow",
            "usage": {"requests": 2, "input_tokens": 300, "output_tokens": 40, "total_tokens": 340, "cached_input_tokens": 128}}}),
    ])
    (trace,), diagnostics = read(path)
    assert [r.usage for r in trace.rounds] == [None, None]
    assert usage_tuple(trace.usage_total) == (300, 40, 128, None)
    assert [(c.id, c.name, c.arguments, c.result.content) for c in trace.tool_calls()] == [("r1.c1", "lookup", {"id": 7}, "found")]
    assert trace.metadata["rounds_without_content"] == [1, 2]
    assert "workflow_name" not in trace.metadata  # no trace object in the file
    assert len(diagnostics) == 0


def test_unmatched_function_span_is_a_call_of_the_round_before_it(tmp_path):
    t = "trace_00000000000000000000000000000002"
    path = write_jsonl(tmp_path / "extra.jsonl", [
        span("span_g1", t, "span_a", 0.1, 1.0, generation(calls=[("call_1", "search", '{"q": "a"}')])),
        span("span_f1", t, "span_a", 1.1, 1.2, function("search", '{"q": "a"}', "A")),
        span("span_f2", t, "span_a", 1.15, 1.3, function("notify", '{"to": "ops"}', "sent")),
        span("span_g2", t, "span_a", 1.4, 2.0, generation(text="Done.")),
    ])
    (trace,), diagnostics = read(path)
    assert [(c.id, c.name, c.result.content) for c in trace.rounds[0].tool_calls] == [("call_1", "search", "A"), ("r1.c2", "notify", "sent")]
    assert trace.rounds[1].is_final
    assert len(diagnostics) == 0


def test_generation_without_exported_data_and_failing_last_model_call(tmp_path):
    t = "trace_00000000000000000000000000000003"
    hidden = {"type": "generation", "model": "gpt-4o", "model_config": {}, "input": None, "output": None, "usage": {"input_tokens": 90, "output_tokens": 12}}
    path = write_jsonl(tmp_path / "hidden.jsonl", [
        span("span_g1", t, "span_a", 0.1, 1.0, hidden),
        span("span_g2", t, "span_a", 1.1, 1.5, {"type": "response", "response_id": None},
             error={"message": "Error getting response", "data": {"error": "Error code: 500 - internal error"}}),
    ])
    (trace,), diagnostics = read(path)
    assert trace.metadata["rounds_without_content"] == [1, 2]
    assert trace.rounds[1].id == "span_g2" and trace.rounds[1].finish_reason == "error"
    assert trace.error == "Error getting response: Error code: 500 - internal error"
    assert (trace.labels, trace.ending, trace.outcome) == ({}, "error", "unknown")
    assert len(diagnostics) == 0


# --- bad input ----------------------------------------------------------------------------


def test_user_messages_from_generation_inputs(tmp_path):
    traces, _ = read(FIXTURES / "weather.jsonl")
    assert [(m.before_round, m.text) for m in traces[0].user_messages] == [(1, "Weather in Paris and Rome?")]
    # A Responses-backed run exports no input: no user messages to read.
    research, triage = read(FIXTURES / "two_traces.jsonl")[0]
    assert research.id == RESEARCH and research.user_messages == []
    assert [(m.before_round, m.text) for m in triage.user_messages] == [(1, "I was charged twice for my subscription.")]


def test_a_chat_of_several_runs_in_one_trace_opens_a_turn_per_user_message(tmp_path):
    # ``with trace("Support chat"):`` around two Runner.run calls; the second passes
    # result.to_input_list() plus the new question (Responses-style items).
    tid = "trace_7e6d5c4b3a29180716253443526170ab"
    question = {"role": "user", "content": "Where is my parcel 44-1?"}
    lookup = {"type": "function_call", "call_id": "call_p1", "name": "track", "arguments": '{"parcel": "44-1"}'}
    tracked = {"type": "function_call_output", "call_id": "call_p1", "output": "out for delivery"}
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It is out for delivery."}]}
    follow_up = {"role": "user", "content": [{"type": "input_text", "text": "Can it go to my neighbour instead?"}]}
    first = generation(calls=[("call_p1", "track", '{"parcel": "44-1"}')])
    first["input"] = [{"role": "system", "content": "You track parcels."}, question]
    second = generation(text="It is out for delivery.")
    second["input"] = [question, lookup, tracked]
    third = generation(text="Yes: I asked the courier to leave it with your neighbour.")
    third["input"] = [question, lookup, tracked, answer, follow_up]
    path = write_jsonl(tmp_path / "chat.jsonl", [
        span("span_g1", tid, "span_a1", 0.0, 1.0, first),
        span("span_f1", tid, "span_a1", 1.1, 1.4, {"type": "function", "name": "track", "input": '{"parcel": "44-1"}', "output": "out for delivery"}),
        span("span_g2", tid, "span_a1", 1.5, 2.5, second),
        span("span_g3", tid, "span_a2", 20.0, 21.0, third),
        {"object": "trace", "id": tid, "workflow_name": "Support chat", "group_id": None, "metadata": None},
    ])
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    assert [(m.before_round, m.text) for m in trace.user_messages] == [
        (1, "Where is my parcel 44-1?"), (3, "Can it go to my neighbour instead?"),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 2]


def test_bad_input_is_warned_and_other_traces_are_read(tmp_path):
    good = "trace_00000000000000000000000000000004"
    other = "trace_00000000000000000000000000000005"
    cut = json.dumps(span("span_x", good, "span_a", 0.5, 0.6, function("lookup", "{}", "x")))
    lines = [
        json.dumps({"object": "trace", "id": good, "workflow_name": "Good", "group_id": None, "metadata": None}),
        cut[: len(cut) // 2],  # a span line cut in half
        json.dumps(span("span_f0", good, "span_a", 0.05, 0.08, function("warmup", "{}", "ok"))),
        json.dumps(span("span_g1", good, "span_a", 0.1, 1.0, generation(calls=[("call_1", "lookup", '{"id": 1}')]))),
        json.dumps(span("span_f1", good, "span_a", 1.1, 1.2, function("lookup", '{"id": 1}', "found"))),
        json.dumps(span("span_f1", good, "span_a", 1.1, 1.2, function("lookup", '{"id": 1}', "found"))),  # exported twice
        json.dumps({"object": "trace.span", "id": "span_orphan", "parent_id": None, "span_data": {"type": "agent", "name": "x"}}),
        json.dumps({"object": "trace.span", "id": "span_nodata", "trace_id": good, "parent_id": None}),
        json.dumps(span("span_v", good, "span_a", 1.3, 1.4, {"type": "vision", "frames": 3})),
        json.dumps({"event": "heartbeat"}),
        json.dumps(span("span_g2", other, None, 0.1, 0.9, generation(text="Hello."))),
        json.dumps(span("span_g3", good, "span_a", 1.5, 2.0, generation(text="All good."))),
        cut[: len(cut) - 5],  # the last line, truncated
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    traces, diagnostics = read(path)
    assert [t.id for t in traces] == [good, other]
    assert [len(r.tool_calls) for r in traces[0].rounds] == [1, 0]
    assert traces[0].rounds[0].tool_calls[0].result.content == "found"
    assert traces[1].rounds[0].text == "Hello."
    found = warnings_of(diagnostics)
    assert found[0][:2] == ("bad.jsonl", 2) and found[0][2].startswith("not valid JSON")
    assert found[1:4] == [
        ("bad.jsonl", 7, "span without a trace_id; skipped"),
        ("bad.jsonl", 8, f"trace {good}: span 'span_nodata' without span_data.type; skipped"),
        ("bad.jsonl", 10, "JSON that is not an Agents SDK trace or span"),
    ]
    assert found[4][:2] == ("bad.jsonl", 13) and found[4][2].startswith("truncated last line")
    assert found[5:] == [
        ("bad.jsonl", 3, f"trace {good}: function span span_f0 runs before any model span; skipped"),
        ("bad.jsonl", 9, f"trace {good}: span type 'vision' is not known; such spans are skipped"),
    ]


# --- CLI ----------------------------------------------------------------------------------


def test_cli_show_and_convert_round_trip(tmp_path):
    paths = sorted(FIXTURES.glob("*.json*"))
    assert_show_and_convert_round_trip(
        FIXTURES / "two_traces.jsonl", [RESEARCH, "search_web"], paths, tmp_path, "--trace", RESEARCH
    )
