"""The LangSmith reader: ``list_runs`` dumps (one run per line, any order), ingest
recordings (``{post, patch}``), and the real ``wrap_openai`` recording from langsmith-sdk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracecheck.cli.main import app
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

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "langsmith"
CORPUS = HERE / "corpus" / "langsmith-sdk" / "langsmith_py_wrap_openai_.json"


# --- the real recording ----------------------------------------------------------------------


def test_corpus_wrap_openai_recording_is_one_round():
    (trace,), diagnostics = read(CORPUS)
    assert trace.id == "d0d84d31-923d-4cb5-94a8-40a0a0087578"
    assert trace.format == "langsmith"
    assert (trace.line, trace.end_line) == (1, 1)
    (rnd,) = trace.rounds
    assert rnd.id == "d0d84d31-923d-4cb5-94a8-40a0a0087578"
    assert rnd.text == "Howdy! How can I assist you today?"
    assert rnd.tool_calls == []
    assert sum(len(r.tool_calls) for r in trace.rounds) == 0
    # usage_metadata written by wrap_openai, applied from the patch.
    assert usage_of(rnd) == (9, 9, 0, 0)
    # start_time from the post, end_time from the patch.
    assert rnd.started_at == pytest.approx(1728680303.298773)
    assert rnd.started_at == utc(2024, 10, 11, 20, 58, 23, 298773)
    assert rnd.ended_at == utc(2024, 10, 11, 20, 58, 24, 417106)
    assert rnd.finish_reason == "stop"
    assert rnd.model == "gpt-4o-mini-2024-07-18"  # the response's model, not ls_model_name
    assert trace.usage_total is None
    assert trace.error is None and trace.answered
    assert trace.outcome == "unknown"  # a root that succeeded says nothing more
    assert trace.metadata["name"] == "ChatOpenAI"
    assert len(diagnostics) == 0


def test_corpus_post_alone_has_no_round(tmp_path):
    # Without its patch the posted run has empty outputs: still pending, so no round.
    recording = json.loads(CORPUS.read_text())
    path = tmp_path / "post_only.json"
    path.write_text(json.dumps({"post": recording["post"], "patch": []}))
    (trace,), diagnostics = read(path)
    assert trace.rounds == []
    assert warnings_of(diagnostics) == [
        ("post_only.json", 1, "trace d0d84d31-923d-4cb5-94a8-40a0a0087578: llm run d0d84d31-923d-4cb5-94a8-40a0a0087578 has no model output (still pending?); skipped")
    ]


# --- list_runs dumps ----------------------------------------------------------------------------


def test_langgraph_runs_in_any_order_become_two_traces():
    traces, diagnostics = read(FIXTURES / "langgraph_runs.jsonl")
    assert [t.id for t in traces] == ["1f0b7e2c-5a3d-4e8f-9c1b-2d3e4f5a6b70", "2a9c4e6f-8b1d-4f3a-a5c7-e9f1b3d5a7c0"]
    assert {t.format for t in traces} == {"langsmith"}
    weather, loop = traces
    assert (weather.line, weather.end_line) == (1, 24)
    assert (loop.line, loop.end_line) == (2, 21)

    # Rounds in dotted_order, whatever the line order; one round per llm run.
    assert [r.id for r in weather.rounds] == [
        "1f0b7e2c-5a3d-4e8f-9c1b-2d3e4f5a6b72",
        "1f0b7e2c-5a3d-4e8f-9c1b-2d3e4f5a6b78",
        "1f0b7e2c-5a3d-4e8f-9c1b-2d3e4f5a6b7c",
    ]
    assert [r.line for r in weather.rounds] == [19, 13, 22]
    first, second, final = weather.rounds
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_A1xPq8Lm2Nv4Bc6Zx0Ws9Ed3", "get_weather", {"city": "Paris"}),
        ("call_B2yQr9Mn3Ow5Cd7Ay1Xt0Fe4", "get_weather", {"city": "Rome"}),
    ]
    # Results pair by the ToolMessage's tool_call_id.
    paris, rome = first.tool_calls
    assert (paris.result.content, paris.result.is_error, paris.result.line) == ('{"temp_c": 11, "sky": "rain"}', False, 1)
    assert (rome.result.content, rome.result.line) == ('{"temp_c": 17, "sky": "clear"}', 9)
    assert paris.result.started_at == utc(2025, 1, 15, 10, 0, 1, 512000)
    assert paris.result.ended_at == utc(2025, 1, 15, 10, 0, 1, 900000)
    (forecast,) = second.tool_calls
    assert (forecast.name, forecast.arguments) == ("get_forecast", {"city": "Rome", "days": 1})
    # handle_tool_error: the run succeeded, its ToolMessage says status "error".
    assert forecast.result.content == "Forecast service unavailable (HTTP 503)"
    assert forecast.result.is_error is True
    assert final.is_final and final.text == "Paris: 11°C and rain. Rome: 17°C and clear; the forecast service is down."

    # Usage per llm run; the chain runs' totals (393/60 on the root) are never added.
    assert [usage_of(r) for r in weather.rounds] == [(82, 17, 0, 0), (131, 18, 64, 0), (180, 25, 128, 0)]
    assert sum(r.usage.input_tokens for r in weather.rounds) == 393
    assert weather.usage_total is None
    assert first.started_at == utc(2025, 1, 15, 10, 0, 0, 10000)
    assert first.ended_at == utc(2025, 1, 15, 10, 0, 1, 500000)
    assert [r.finish_reason for r in weather.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert {r.model for r in weather.rounds} == {"gpt-4o-2024-08-06"}
    assert weather.metadata == {"name": "LangGraph", "thread_id": "th-7f3a"}
    assert weather.error is None and weather.outcome == "unknown" and weather.answered

    # The failed run: the same search twice, then GraphRecursionError on the root.
    assert [r.id for r in loop.rounds] == ["2a9c4e6f-8b1d-4f3a-a5c7-e9f1b3d5a7d1", "2a9c4e6f-8b1d-4f3a-a5c7-e9f1b3d5a7e1"]
    assert [c.arguments for r in loop.rounds for c in r.tool_calls] == [{"query": "langsmith export runs jsonl"}] * 2
    assert [usage_of(r) for r in loop.rounds] == [(300, 26, 0, 0), (400, 32, 256, 0)]
    assert loop.error == (
        "GraphRecursionError('Recursion limit of 5 reached without hitting a stop condition. "
        "You can increase the limit by setting the `recursion_limit` config key.')"
    )
    # LangGraph's recursion limit ended the run: a limit, not a grade.
    assert (loop.ending, loop.outcome) == ("limit", "unknown")
    assert not loop.answered
    assert len(diagnostics) == 0


def test_llm_runs_inside_a_tool_run_are_not_rounds():
    traces, _ = read(FIXTURES / "langgraph_runs.jsonl")
    loop = traces[1]
    # The search tool's own summarizer call (900 prompt tokens) is part of the tool.
    assert len(loop.rounds) == 2
    assert all(r.usage.input_tokens != 900 for r in loop.rounds)
    assert all(r.text == "" for r in loop.rounds)


def test_react_executor_text_actions_become_calls_from_tool_runs():
    (trace,), diagnostics = read(FIXTURES / "react_executor_runs.json")
    assert trace.id == "3b5d7f91-a2c4-4e6f-8a0b-c1d2e3f4a5b0"
    assert len(trace.rounds) == 4
    calls = [c for r in trace.rounds for c in r.tool_calls]
    assert [c.name for c in calls] == ["search", "search", "search"]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 0]
    # The tool run's free-text input is the call's argument (text, not a JSON error).
    assert {(c.arguments_raw, c.arguments, c.arguments_error) for c in calls} == {
        ("weather in Paris today", "weather in Paris today", None)
    }
    assert [c.id for c in calls] == ["r1.c1", "r2.c1", "r3.c1"]  # no ids in the format: synthesized
    assert calls[0].result.content == "Paris, France: 11°C, light rain, wind 14 km/h ..."
    assert calls[0].result.is_error is False
    assert trace.rounds[0].text.endswith("Action: search\nAction Input: weather in Paris today")
    assert trace.rounds[3].text.endswith("Final Answer: It is 11°C with light rain in Paris.")
    # Usage of a completion model from llm_output.token_usage.
    assert [usage_of(r) for r in trace.rounds] == [(240, 32, None, None), (290, 33, None, None), (318, 29, None, None), (340, 36, None, None)]
    assert trace.rounds[0].started_at == utc(2024, 6, 3, 8, 0, 0, 20000)
    assert trace.rounds[0].model == "gpt-3.5-turbo-instruct"
    assert len(diagnostics) == 0


# --- ingest recordings -------------------------------------------------------------------------------


def test_ingest_batches_apply_patches_across_lines():
    traces, diagnostics = read(FIXTURES / "traceable_ingest.jsonl")
    assert [t.id for t in traces] == [
        "0190f1a2-b3c4-7d5e-8f60-718293a4b5c6",
        "0190f1a2-b3c4-7d5e-8f60-718293a4b5d0",
        "0190f1a2-b3c4-7d5e-8f60-718293a4b5e0",
    ]
    research, responses, anthropic = traces
    assert (research.line, research.end_line) == (1, 4)

    first, final = research.rounds
    assert first.started_at == 1737019200.015  # epoch milliseconds in the recording
    assert first.ended_at == 1737019201.24  # from the patch two lines later
    assert usage_of(first) == (212, 51, 0, 0)
    assert [(c.id, c.arguments["url"]) for c in first.tool_calls] == [
        ("call_F6cUv3Qr7Sz9Gh1Ec5Bx4Ji8", "https://example.com/releases/v1.2"),
        ("call_G7dVw4Rs8Ta0Hi2Fd6Cy5Kj9", "https://example.com/releases/v1.3"),
    ]
    # @traceable tool runs carry no call id: paired by order and name.
    v12, v13 = (c.result for c in first.tool_calls)
    assert (v12.content, v12.is_error, v12.ended_at) == ("v1.2: adds retries; fixes a memory leak.", False, 1737019201.9)
    # A tool that raised: the patch's error, first line, is the result.
    assert v13.content == "HTTPError('404 Client Error: Not Found for url: https://example.com/releases/v1.3')"
    assert v13.is_error is True
    assert final.text == "v1.2 adds retries and fixes a leak; the v1.3 notes could not be fetched."
    assert usage_of(final) == (340, 28, 128, 0)
    assert research.error is None and research.answered

    (hi,) = responses.rounds  # wrap_openai on the Responses API
    assert (hi.text, hi.model, hi.finish_reason, usage_of(hi)) == ("Salut !", "gpt-4.1-mini-2025-04-14", "completed", (13, 5, 0, 0))

    check, answer = anthropic.rounds  # wrap_anthropic: content blocks
    assert check.text == "I'll check the weather in Oslo."
    (weather,) = check.tool_calls
    assert (weather.id, weather.name, weather.arguments) == ("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Oslo"})
    assert weather.result.content == "Light rain, 4°C"
    assert check.finish_reason == "tool_use" and answer.finish_reason == "end_turn"
    assert usage_of(answer) == (470, 15, 320, None)
    assert answer.model == "claude-sonnet-4-20250514"
    assert len(diagnostics) == 0


def test_repeated_runs_are_one_run_and_later_fields_win(tmp_path):
    recording = json.loads(CORPUS.read_text())
    posted, patched = recording["post"][0], recording["patch"][0]
    finished = {**posted, **{k: v for k, v in patched.items() if v is not None}, "status": "success"}
    path = write_jsonl(tmp_path / "repeated.jsonl", [posted, finished, posted])
    (trace,), diagnostics = read(path)
    assert len(trace.rounds) == 1  # three records, one run, one model response
    assert trace.rounds[0].text == "Howdy! How can I assist you today?"
    assert (trace.line, trace.end_line) == (1, 1)
    assert len(diagnostics) == 0


# --- other shapes ------------------------------------------------------------------------------------


def _run(rid, run_type, name, parent=None, start=None, end=None, **fields):
    run = {"id": rid, "name": name, "run_type": run_type, "parent_run_id": parent, "start_time": start, "end_time": end,
           "status": "success", "error": None, "inputs": {}, "outputs": {}}
    run.update(fields)
    return run


def test_runs_without_dotted_order_group_by_parent_chain_and_start_time(tmp_path):
    # Older exports: no trace_id or dotted_order. The root is found through parent_run_id.
    path = write_jsonl(tmp_path / "old.jsonl", [
        _run("t-2", "tool", "lookup", "c-1", "2024-03-01T09:00:02", "2024-03-01T09:00:03",
             inputs={"input": "{'key': 'a', 'limit': 3}"}, outputs={"output": "A"}),
        _run("l-3", "llm", "ChatOpenAI", "c-1", "2024-03-01T09:00:04", "2024-03-01T09:00:05",
             outputs={"generations": [[{"text": "It is A.", "type": "ChatGeneration"}]]}),
        _run("l-1", "llm", "ChatOpenAI", "c-1", "2024-03-01T09:00:00.5", "2024-03-01T09:00:01.5",
             outputs={"generations": [[{"text": "Action: lookup", "type": "ChatGeneration"}]]}, prompt_tokens=40, completion_tokens=6),
        _run("c-1", "chain", "Agent", None, "2024-03-01T09:00:00", "2024-03-01T09:00:06", prompt_tokens=90, completion_tokens=12),
    ])
    (trace,), diagnostics = read(path)
    assert trace.id == "c-1"
    assert [r.id for r in trace.rounds] == ["l-1", "l-3"]
    (lookup,) = trace.rounds[0].tool_calls
    # LangChain writes str(dict) as the tool input: re-encoded as JSON.
    assert lookup.arguments == {"key": "a", "limit": 3}
    assert lookup.arguments_raw == '{"key":"a","limit":3}'
    assert lookup.result.content == "A"
    assert usage_of(trace.rounds[0]) == (40, 6, None, None)  # run-level counts
    assert trace.rounds[1].usage is None  # no counts at all: unknown, not 0
    assert trace.usage_total is None  # some round has usage: the root's total is not used
    assert trace.rounds[0].started_at == utc(2024, 3, 1, 9, 0, 0, 500000)
    assert len(diagnostics) == 0


def test_root_total_is_the_run_total_when_rounds_have_no_usage(tmp_path):
    path = write_jsonl(tmp_path / "totals.jsonl", [
        _run("r", "chain", "Agent", None, "2024-03-01T09:00:00", "2024-03-01T09:00:02", trace_id="r",
             prompt_tokens=120, completion_tokens=30, dotted_order="20240301T090000000000Zr"),
        _run("l", "llm", "Custom", "r", "2024-03-01T09:00:00.1", "2024-03-01T09:00:01", trace_id="r",
             dotted_order="20240301T090000000000Zr.20240301T090000100000Zl", prompt_tokens=0, completion_tokens=0,
             outputs={"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}),
    ])
    (trace,), _ = read(path)
    assert trace.rounds[0].text == "a"
    assert trace.rounds[0].usage is None  # 0/0 on the run means "not counted"
    assert (trace.usage_total.input_tokens, trace.usage_total.output_tokens) == (120, 30)


def test_traceable_llm_output_in_openai_message_format(tmp_path):
    # @traceable(run_type="llm") returning a message dict with OpenAI-style tool_calls.
    path = write_jsonl(tmp_path / "custom.jsonl", [
        _run("r", "chain", "agent", None, "2025-01-01T00:00:00", "2025-01-01T00:00:03", trace_id="r"),
        _run("l", "llm", "my_model", "r", "2025-01-01T00:00:00.1", "2025-01-01T00:00:01", trace_id="r",
             outputs={"role": "assistant", "content": [{"type": "text", "text": "Searching."}],
                      "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": '{"q": "x"}'}}],
                      "usage_metadata": {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}}),
        _run("t", "tool", "web_search", "r", "2025-01-01T00:00:01.1", "2025-01-01T00:00:02", trace_id="r",
             inputs={"q": "x"}, outputs={"results": ["a", "b"]}),
    ])
    (trace,), diagnostics = read(path)
    (rnd,) = trace.rounds
    assert rnd.text == "Searching."
    assert usage_of(rnd) == (11, 4, None, None)
    (call,) = rnd.tool_calls
    assert (call.id, call.name, call.arguments) == ("c1", "web_search", {"q": "x"})
    assert call.result.content == '{"results":["a","b"]}'  # a dict output, as JSON
    assert len(diagnostics) == 0


# --- user messages ------------------------------------------------------------------------------


def _human(text):
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": text, "type": "human"}}


def _ai(text, calls=()):
    kwargs = {"content": text, "type": "ai", "tool_calls": list(calls), "invalid_tool_calls": []}
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], "kwargs": kwargs}


def _tool_message(text, call_id):
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
            "kwargs": {"content": text, "type": "tool", "tool_call_id": call_id, "status": "success"}}


def _generation(message):
    return {"generations": [[{"text": "", "type": "ChatGeneration", "message": message}]]}


def test_fixtures_each_user_question_once_though_every_llm_run_repeats_it():
    weather, export = read(FIXTURES / "langgraph_runs.jsonl")[0]
    assert [(m.before_round, m.text) for m in weather.user_messages] == [(1, "Weather in Paris and Rome, and tomorrow's forecast for Rome?")]
    assert [(m.before_round, m.text) for m in export.user_messages] == [(1, "How do I export LangSmith runs as JSONL?")]
    # A completion model's prompt is one rendered text: the AgentExecutor root's input says what was asked.
    (react,), _ = read(FIXTURES / "react_executor_runs.json")
    assert [(m.before_round, m.text) for m in react.user_messages] == [(1, "What's the weather in Paris today?")]


def test_a_thread_turn_reads_only_what_the_user_just_said_and_later_turns_in_order(tmp_path):
    # Turn 3 of a LangGraph thread traced as one trace: every llm run's input is the
    # thread's whole history (turns 1 and 2 included); the user spoke once in this trace,
    # then again after the agent's reply within it.
    history = [_human("Book a table for two tonight."), _ai("Booked at 8 pm."), _human("Make it three people.")]
    call = {"name": "update_booking", "args": {"people": 3}, "id": "call_u1", "type": "tool_call"}
    dotted = "20250301T200000000000Zroot"
    path = write_jsonl(tmp_path / "thread.jsonl", [
        _run("root", "chain", "LangGraph", None, "2025-03-01T20:00:00", "2025-03-01T20:00:09", trace_id="root", dotted_order=dotted,
             inputs={"messages": [{"role": "user", "content": "Make it three people."}]}),
        _run("l1", "llm", "ChatOpenAI", "root", "2025-03-01T20:00:01", "2025-03-01T20:00:02", trace_id="root",
             dotted_order=dotted + ".20250301T200001000000Zl1",
             inputs={"messages": [history]}, outputs=_generation(_ai("", [call]))),
        _run("t1", "tool", "update_booking", "root", "2025-03-01T20:00:02", "2025-03-01T20:00:03", trace_id="root",
             dotted_order=dotted + ".20250301T200002000000Zt1",
             inputs={"input": "{'people': 3}"}, outputs={"output": _tool_message("ok", "call_u1")}),
        _run("l2", "llm", "ChatOpenAI", "root", "2025-03-01T20:00:03", "2025-03-01T20:00:04", trace_id="root",
             dotted_order=dotted + ".20250301T200003000000Zl2",
             inputs={"messages": [history + [_ai("", [call]), _tool_message("ok", "call_u1")]]}, outputs=_generation(_ai("Done: three people at 8 pm."))),
        _run("l3", "llm", "ChatOpenAI", "root", "2025-03-01T20:00:07", "2025-03-01T20:00:08", trace_id="root",
             dotted_order=dotted + ".20250301T200007000000Zl3",
             inputs={"messages": [history + [_ai("", [call]), _tool_message("ok", "call_u1"), _ai("Done: three people at 8 pm."),
                                             {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "SystemMessage"],
                                              "kwargs": {"content": "Be brief.", "type": "system"}},
                                             _human("Thanks! Vegetarian menu?")]]},
             outputs=_generation(_ai("Yes, they have one."))),
    ])
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Make it three people."), (3, "Thanks! Vegetarian menu?")]
    assert [r.turn for r in trace.rounds] == [1, 1, 2]


def test_wrapped_client_inputs_openai_messages_and_a_responses_string(tmp_path):
    path = write_jsonl(tmp_path / "wrapped.jsonl", [
        _run("c", "llm", "ChatOpenAI", None, "2025-01-01T00:00:00", "2025-01-01T00:00:01", trace_id="c",
             inputs={"messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": [{"type": "text", "text": "2+2?"}]}]},
             outputs={"choices": [{"index": 0, "message": {"role": "assistant", "content": "4"}, "finish_reason": "stop"}]}),
        _run("r", "llm", "ChatOpenAI", None, "2025-01-01T00:01:00", "2025-01-01T00:01:01", trace_id="r",
             inputs={"input": "Say hi in French.", "model": "gpt-4.1-mini"},
             outputs={"object": "response", "status": "completed", "output": [
                 {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Salut !"}]}]}),
    ])
    chat, responses = read(path)[0]
    assert [m.text for m in chat.user_messages] == ["2+2?"]
    assert [m.text for m in responses.user_messages] == ["Say hi in French."]


# --- bad input ---------------------------------------------------------------------------------------


def test_bad_input_is_warned_with_file_and_line_and_the_rest_is_read():
    traces, diagnostics = read(FIXTURES / "bad_input.jsonl")
    assert [t.id for t in traces] == ["4c6e8a0b-1d3f-4a5c-9e7b-0f1a2b3c4d50", "5d7f9b1c-2e40-4b6d-8f8c-1a2b3c4d5e60"]
    lookup, hello = traces
    (rnd,) = lookup.rounds  # the pending llm run is no round
    (call,) = rnd.tool_calls
    assert (call.id, call.result.content, call.result.line) == ("call_ok", "A", 6)
    assert hello.rounds[0].text == "Hello!"
    trace = "trace 4c6e8a0b-1d3f-4a5c-9e7b-0f1a2b3c4d50"
    not_a_run = "JSON that is not a LangSmith run (no 'id' and 'run_type') nor a {post, patch} batch"
    found = warnings_of(diagnostics)
    assert found[0] == ("bad_input.jsonl", 2, not_a_run)
    assert found[1][:2] == ("bad_input.jsonl", 3) and found[1][2].startswith("not valid JSON")
    assert found[2:] == [
        ("bad_input.jsonl", 9, not_a_run),
        ("bad_input.jsonl", 8, "patch for unknown run id '7e9a1c3d-5f70-4a2b-8c4d-6e8f0a1b2c3d' (no posted run); skipped"),
        ("bad_input.jsonl", 5, f"{trace}: tool result for unknown call id 'call_zzz'"),
        ("bad_input.jsonl", 7, f"{trace}: llm run 4c6e8a0b-1d3f-4a5c-9e7b-0f1a2b3c4d54 has no model output (still pending?); skipped"),
    ]
    assert str(list(diagnostics)[4]).endswith("bad_input.jsonl:5: " + f"{trace}: tool result for unknown call id 'call_zzz'")


def test_odd_records_never_raise(tmp_path):
    path = write_jsonl(tmp_path / "odd.jsonl", [
        _run("r", "chain", "agent", None, "2025-01-01T00:00:00", "2025-01-01T00:00:09", trace_id="r"),
        [_run("l", "llm", "m", "r", "garbage-time", None, trace_id="r", outputs={"generations": "nope"}), 42],
        {"post": ["not a run"], "patch": [{"no": "id"}]},
        _run("t", "tool", "orphan", "r", "2025-01-01T00:00:01", "2025-01-01T00:00:02", trace_id="r", outputs={"output": "x"}),
        {"id": None, "run_type": "llm"},
        _run("l2", "llm", "m", "r", "2025-01-01T00:00:03", "2025-01-01T00:00:04", trace_id="r", status="error",
             error="openai.RateLimitError: Error code: 429", outputs=None),
    ])
    (trace,), diagnostics = read(path)
    assert trace.rounds == []  # no usable model output anywhere
    assert [(line, reason) for _, line, reason in warnings_of(diagnostics)] == [
        (2, "JSON that is not a LangSmith run (no 'id' and 'run_type') nor a {post, patch} batch (array element 1)"),
        (3, "'post' item that is not a run object; skipped"),
        (3, "'patch' item without a run id; skipped"),
        (5, "LangSmith run without an 'id'; skipped"),
        # Runs without dotted_order go by start time; a bad one sorts last.
        (4, "trace r: tool run 'orphan' before any model round; skipped"),
        (2, "trace r: run l: bad start_time 'garbage-time'; ignored"),
        (2, "trace r: llm run l: outputs match no known model output shape; skipped"),
    ]


# --- sniffing and the CLI ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["langgraph_runs.jsonl", "traceable_ingest.jsonl", "react_executor_runs.json", "bad_input.jsonl"]
)
def test_fixtures_are_detected_as_langsmith(name):
    first = (FIXTURES / name).read_text().splitlines()[0]
    value = json.loads((FIXTURES / name).read_text()) if name.endswith(".json") else json.loads(first)
    assert sniff(value).name == "langsmith"


def test_cli_show_and_convert_round_trip(tmp_path):
    for source in (FIXTURES / "langgraph_runs.jsonl", CORPUS, FIXTURES / "traceable_ingest.jsonl"):
        assert_round_trip_keeps_replay_shape(source, tmp_path)


def test_cli_convert_keeps_text_actions_as_text(tmp_path):
    out = tmp_path / "react.native.jsonl"
    result = CliRunner().invoke(app, ["convert", str(FIXTURES / "react_executor_runs.json"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    (original,), _ = read(FIXTURES / "react_executor_runs.json")
    (again,), diagnostics = read(out)
    assert shape(again) == shape(original)
    assert len(diagnostics) == 0
