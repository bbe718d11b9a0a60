"""The LangChain reader: messages_to_dict, dumpd, AgentExecutor steps and results."""

from __future__ import annotations

import json

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces
from tracecheck.model import Usage
from tracecheck.readers import sniff

from conftest import FIXTURES, shown_ids, write_jsonl

LC = FIXTURES / "langchain"


def read(path):
    diagnostics = Diagnostics()
    traces = list(read_traces([str(path)], diagnostics))
    return traces, [(d.line, d.reason) for d in diagnostics]


def calls(trace):
    return [(c.name, c.arguments) for c in trace.tool_calls()]


# --- messages_to_dict ---------------------------------------------------------------


def test_openai_messages_parallel_calls_usage_and_results():
    traces, warnings = read(LC / "openai_messages.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "openai_messages.json:1"
    assert trace.format == "langchain"
    assert (trace.line, trace.end_line) == (1, 1)
    assert len(trace.rounds) == 2
    first, final = trace.rounds
    assert first.index == 1 and final.index == 2
    assert [c.id for c in first.tool_calls] == ["call_7aGqMNbEzQ1WvH0a2cH1yXcP", "call_Xb3rW9pLk2sT8uVd4eF6gH0j"]
    assert calls(trace) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    assert first.tool_calls[0].arguments_raw == '{"city":"Paris"}'
    assert first.tool_calls[1].result.content == '{"temp_c": 17, "sky": "sun"}'
    assert first.tool_calls[1].result.is_error is False
    assert first.usage == Usage(input_tokens=82, output_tokens=51, cached_tokens=0, reasoning_tokens=0)
    assert first.finish_reason == "tool_calls"
    assert first.model == "gpt-4o-2024-08-06"
    assert first.id == "run-5f0c7d2e-9a41-4c8e-b1f3-2d6a8e4b7c10-0"
    assert first.text == ""
    assert final.is_final and final.text == "Paris is 11°C and rainy; Rome is 17°C and sunny."
    assert final.usage == Usage(input_tokens=180, output_tokens=25, cached_tokens=128, reasoning_tokens=0)
    assert final.started_at is None and final.ended_at is None  # messages carry no time
    assert trace.answered and trace.error is None
    assert trace.metadata["input"] == "Weather in Paris and Rome?"


def test_anthropic_content_blocks():
    traces, warnings = read(LC / "anthropic_messages.json")
    assert warnings == []
    [trace] = traces
    r1, r2, r3 = trace.rounds
    # Text blocks are the text; the tool_use block is the same call as tool_calls, once.
    assert r1.text == "I'll check the weather in Paris first."
    assert [c.id for c in r1.tool_calls] == ["toolu_01A09q90qw90lq917835lq9"]
    assert r1.finish_reason == "tool_use"
    assert r1.model == "claude-3-5-sonnet-20241022"
    assert r1.usage == Usage(input_tokens=412, output_tokens=68, cached_tokens=0, reasoning_tokens=None)
    # tool_calls empty: the call comes from the content block.
    assert r2.text == "Now Rome."
    [call] = r2.tool_calls
    assert (call.id, call.name, call.arguments) == ("toolu_01RpQ8kUvW3xYz4Ab5Cd6Ef7", "get_weather", {"city": "Rome", "units": "metric"})
    # No usage_metadata: Anthropic's own numbers, cache reads and writes added to input.
    assert r2.usage == Usage(input_tokens=512, output_tokens=70, cached_tokens=480, reasoning_tokens=None)
    assert call.result.content == "Rome: 17°C, sunny"  # a result given as content blocks
    assert r3.is_final and r3.text == "Paris is 11°C with rain; Rome is 17°C and sunny."
    assert r3.finish_reason == "end_turn"


def test_langgraph_lines_error_status_invalid_calls_unknown_ids_and_bad_records():
    traces, warnings = read(LC / "langgraph_runs.jsonl")
    assert shown_ids(traces) == ["langgraph_runs.jsonl:@1", "langgraph_runs.jsonl:@3", "thread-7"]
    first, third, state = traces

    # Line 1: a failed search, then a call the model truncated (finish_reason length).
    assert len(first.rounds) == 2
    failed = first.rounds[0].tool_calls[0]
    assert failed.result.is_error is True
    assert failed.result.content.startswith("Error: TimeoutError('search backend timed out after 30s')")
    [invalid] = first.rounds[1].tool_calls
    assert invalid.id == "call_Qx9Yz8Wv7Ut6Sr5Qp4On3Ml2"
    assert invalid.name == "search"
    assert invalid.arguments_raw == '{"query": "langgraph recursion'
    assert invalid.arguments is None
    assert invalid.arguments_error.startswith("arguments are not valid JSON")
    assert invalid.result is None
    assert first.rounds[1].finish_reason == "length"
    assert not first.answered

    # Line 3: the orphan result is reported, nothing else of the trace is lost.
    assert len(third.rounds) == 2
    assert calls(third) == [("calculator", {"expression": "25 * 4"})]
    assert third.rounds[0].tool_calls[0].result.content == "100"
    assert third.rounds[1].text == "25 * 4 = 100."
    assert third.rounds[0].line == 3

    # Line 4: a state dict, its thread_id is the trace id.
    assert [r.text for r in state.rounds] == ["pong"]
    assert state.line == 4

    assert warnings == [
        (1, f"trace {first.id}: call call_Qx9Yz8Wv7Ut6Sr5Qp4On3Ml2 (search): arguments are not valid JSON: unexpected end of data: line 1 column 31 (char 30)"),
        (1, f"trace {first.id}: call call_Qx9Yz8Wv7Ut6Sr5Qp4On3Ml2 (search) has no result"),
        (2, "JSON that matches no known LangChain shape"),
        (3, f"trace {third.id}: tool result for unknown call id 'call_trimmedAway000000000000'"),
    ]


def _message(kind, content, **fields):
    data = {"content": content, "additional_kwargs": {}, "response_metadata": {}, "type": kind, "name": None, "id": None}
    data.update(fields)
    return {"type": kind, "data": data}


def test_human_messages_open_turns_in_a_langgraph_chat_state(tmp_path):
    call = {"name": "get_balance", "args": {"account": "chk-1"}, "id": "call_b1", "type": "tool_call"}
    state = {"thread_id": "chat-88", "messages": [
        _message("system", "You are a banking assistant."),
        _message("human", "What's my checking balance?", id="h1"),
        _message("ai", "", tool_calls=[call], invalid_tool_calls=[], id="a1"),
        _message("tool", "1,204.50 EUR", tool_call_id="call_b1", status="success", id="t1"),
        _message("ai", "Your checking balance is 1,204.50 EUR.", tool_calls=[], invalid_tool_calls=[], id="a2"),
        _message("human", [{"type": "text", "text": "Thanks. And savings?"}], id="h2"),
        _message("ai", "Savings: 8,930.00 EUR.", tool_calls=[], invalid_tool_calls=[], id="a3"),
        {"type": "chat", "data": {"content": "Transfer 100 to savings.", "role": "user", "additional_kwargs": {}, "response_metadata": {}, "type": "chat"}},
        _message("ai", "Done.", tool_calls=[], invalid_tool_calls=[], id="a4"),
    ]}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    (trace,), warnings = read(path)
    assert warnings == []
    assert [(m.before_round, m.text) for m in trace.user_messages] == [
        (1, "What's my checking balance?"), (3, "Thanks. And savings?"), (4, "Transfer 100 to savings."),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 3]
    assert trace.metadata["input"] == "What's my checking balance?"


def test_executor_input_is_the_user_message_and_tool_results_in_a_human_message_are_not(tmp_path):
    (limit,), _ = read(LC / "executor_iteration_limit.json")
    assert [(m.before_round, m.text) for m in limit.user_messages] == [(1, "What is the latest LangChain release?")]
    messages = [
        _message("human", "Read a.txt"),
        _message("ai", [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.txt"}}], id="a1"),
        _message("human", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}]),
        _message("ai", "It says hello.", id="a2"),
    ]
    path = tmp_path / "blocks.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    (trace,), _ = read(path)
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Read a.txt")]
    assert [r.turn for r in trace.rounds] == [1, 1]


def test_invalid_tool_call_with_json_args_keeps_langchain_error(tmp_path):
    message = {"type": "ai", "data": {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": "ai", "name": None, "id": "run-x",
                                      "example": False, "tool_calls": [], "usage_metadata": None,
                                      "invalid_tool_calls": [{"name": None, "args": '{"q": 1}', "id": "call_1", "error": "tool name missing", "type": "invalid_tool_call"}]}}
    traces, warnings = read(write_jsonl(tmp_path / "t.jsonl", [[message]]))
    [call] = traces[0].tool_calls()
    assert (call.name, call.arguments) == ("", {"q": 1})
    assert call.arguments_error == "invalid tool call: tool name missing"
    assert (1, "trace t.jsonl:1: call call_1 (): invalid tool call: tool name missing") in warnings


def test_one_message_per_line_is_one_trace():
    traces, warnings = read(LC / "message_per_line.jsonl")
    assert warnings == []
    [trace] = traces
    assert trace.id == "message_per_line.jsonl:1"
    assert (trace.line, trace.end_line) == (1, 4)
    assert [r.line for r in trace.rounds] == [2, 4]
    [call] = trace.rounds[0].tool_calls  # from an AIMessageChunk
    assert (call.name, call.arguments) == ("read_file", {"path": "README.md"})
    assert call.result.line == 3
    assert call.result.content.startswith("# tracecheck\n")
    assert trace.rounds[0].usage == Usage(300, 20, 256, 0)
    assert trace.rounds[1].is_final


def test_pre_tool_calls_fields_fall_back_to_additional_kwargs_and_token_usage():
    traces, warnings = read(LC / "pre_tool_calls.json")
    assert warnings == []
    [trace] = traces
    r1, r2 = trace.rounds
    [call] = r1.tool_calls
    assert (call.id, call.name, call.arguments_raw, call.arguments) == (
        "call_0ldSch00l0000000000000000", "get_stock_price", '{"ticker":"NVDA"}', {"ticker": "NVDA"}
    )
    assert call.result.content == "875.28"
    assert call.result.is_error is None  # no status field
    assert r1.usage == Usage(input_tokens=75, output_tokens=18, cached_tokens=None, reasoning_tokens=None)
    assert r1.id is None
    assert r2.usage.total == 111


def test_usage_absent_is_none_not_zero(tmp_path):
    ai = {"type": "ai", "data": {"content": "hi", "additional_kwargs": {}, "response_metadata": {}, "type": "ai", "name": None,
                                 "id": None, "example": False, "tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None}}
    traces, _ = read(write_jsonl(tmp_path / "t.jsonl", [[ai]]))
    assert traces[0].rounds[0].usage is None


# --- dumpd ----------------------------------------------------------------------------


def test_dumpd_messages_pretty_printed():
    traces, warnings = read(LC / "dumpd_messages.json")
    assert warnings == []
    [trace] = traces
    assert trace.id == "dumpd_messages.json:1"
    assert len(trace.rounds) == 2
    [call] = trace.rounds[0].tool_calls
    assert (call.id, call.name, call.arguments) == ("call_Dmpd00000000000000000001", "web_search", {"query": "LangChain dumpd format"})
    assert call.result.is_error is False
    assert call.result.content.startswith("dumpd() returns")
    assert trace.rounds[0].usage == Usage(64, 19, 0, 0)
    assert trace.rounds[1].text == "With dumpd(): a constructor object naming the class and its kwargs."


def test_dumpd_chunk_classes_and_several_conversations_in_one_document(tmp_path):
    def lc(cls, **kwargs):
        return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls], "kwargs": kwargs}

    convo_a = [
        lc("HumanMessage", content="a", type="human"),
        lc("AIMessageChunk", content="", type="AIMessageChunk", id="m1", tool_calls=[{"name": "ls", "args": {}, "id": "c1", "type": "tool_call"}]),
        lc("ToolMessageChunk", content="x.txt", type="ToolMessageChunk", tool_call_id="c1", status="error"),
    ]
    convo_b = [lc("AIMessage", content="done", type="ai")]
    path = tmp_path / "convos.json"
    path.write_text(json.dumps([convo_a, convo_b], indent=2))
    traces, warnings = read(path)
    assert shown_ids(traces) == ["convos.json:@1", "convos.json:@1"]
    assert traces[0].id != traces[1].id
    [call] = traces[0].tool_calls()
    assert (call.name, call.arguments_raw, call.result.content, call.result.is_error) == ("ls", "{}", "x.txt", True)
    assert traces[1].rounds[0].text == "done"
    assert warnings == []


# --- AgentExecutor --------------------------------------------------------------------


def test_react_intermediate_steps():
    traces, warnings = read(LC / "react_steps.json")
    assert warnings == []
    [trace] = traces
    assert len(trace.rounds) == 4
    assert all(len(r.tool_calls) == 1 for r in trace.rounds)
    assert [c.name for c in trace.tool_calls()] == ["Search", "_Exception", "Search", "Calculator"]
    search = trace.rounds[0].tool_calls[0]
    # A free-text Action Input: kept as it is, not an argument error.
    assert (search.arguments_raw, search.arguments, search.arguments_error) == ("weather Paris", "weather Paris", None)
    assert search.id == "r1.c1"
    assert search.result.content == "Paris: 11°C, light rain, wind 14 km/h"
    assert search.result.is_error is None
    assert trace.rounds[0].text == "Thought: I need the weather for Paris first.\nAction: Search\nAction Input: weather Paris"
    parse_error = trace.rounds[1].tool_calls[0]
    assert parse_error.result.is_error is True
    assert parse_error.result.content == "Invalid Format: Missing 'Action:' after 'Thought:'"
    calc = trace.rounds[3].tool_calls[0]
    assert calc.arguments == {"expression": "17 - 11"}
    assert calc.arguments_raw == '{"expression": "17 - 11"}'
    # Bare steps: no final answer recorded.
    assert not trace.answered and trace.error is None


def test_executor_iteration_limit():
    traces, warnings = read(LC / "executor_iteration_limit.json")
    assert warnings == []
    [trace] = traces
    assert trace.error == "Agent stopped due to iteration limit or time limit."
    assert not trace.answered
    # Three model responses; the stop text was written by the executor, not a model.
    assert len(trace.rounds) == 3
    assert {(c.name, c.arguments_raw) for c in trace.tool_calls()} == {("duckduckgo_search", "latest langchain release")}
    assert all(r.usage is None for r in trace.rounds)
    assert trace.rounds[2].text.startswith("Thought: I should search for the latest LangChain release.")
    assert trace.metadata["input"] == "What is the latest LangChain release?"


def test_tool_agent_result_groups_parallel_steps_by_model_message():
    traces, warnings = read(LC / "tool_agent_result.json")
    assert warnings == []
    [trace] = traces
    assert len(trace.rounds) == 3
    r1, r2, r3 = trace.rounds
    assert [c.id for c in r1.tool_calls] == ["call_P4r1s000000000000000000A", "call_R0me0000000000000000000B"]
    assert [c.arguments for c in r1.tool_calls] == [{"city": "Paris"}, {"city": "Rome"}]
    assert r1.usage == Usage(96, 48, 0, 0)
    assert r1.id == "run-9c8b7a69-5847-4362-a514-0f1e2d3c4b5a"
    assert r1.text == ""  # not the executor's "Invoking: ..." log
    assert r2.text == "Checking Paris again to be sure."
    assert r2.usage is None
    assert r2.tool_calls[0].result.content == '{"temp_c": 11, "sky": "rain"}'
    assert r3.is_final and r3.text == "Paris is 11°C and rainy; Rome is 17°C and sunny."
    assert trace.answered


def test_step_per_line_agent_steps_and_ids(tmp_path):
    step = [{"tool": "search", "tool_input": {"q": "x"}, "log": "Thought: search\n", "tool_call_id": "call_9"}, ["r1", "r2"]]
    agent_step = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "agent", "AgentStep"],
                  "kwargs": {"action": {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "agent", "AgentAction"],
                                        "kwargs": {"tool": "search", "tool_input": "y", "log": "Thought: again\n", "type": "AgentAction"}},
                             "observation": "nothing"}}
    result = {"run_id": "run-abc", "input": "q", "output": "the answer", "intermediate_steps": [step]}
    traces, warnings = read(write_jsonl(tmp_path / "steps.jsonl", [step, agent_step, result, step]))
    # Line 4 starts as line 1 does (the same step, no user message): told apart by order.
    assert shown_ids(traces) == ["steps.jsonl:@1", "run-abc", "steps.jsonl:@4#2"]
    assert traces[2].id == traces[0].id + "#2"
    first = traces[0]
    assert (first.line, first.end_line) == (1, 2)
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls()] == [("call_9", "search", {"q": "x"}), ("r2.c1", "search", "y")]
    assert first.rounds[0].tool_calls[0].result.content == "r1\nr2"
    assert [r.text for r in traces[1].rounds] == ["Thought: search\n", "the answer"]
    assert traces[1].answered
    assert warnings == [
        (
            4,
            f"this trace starts as the trace at line 1 ({traces[0].id!r}): named {traces[2].id!r} by its order in the file, "
            "so a label or baseline entry for either follows that order",
        )
    ]


# --- robustness ---------------------------------------------------------------------


def test_bad_records_are_reported_and_never_raise(tmp_path):
    good = [{"type": "ai", "data": {"content": "ok", "type": "ai"}}]
    weird = [
        good,
        {"nope": True},
        [],
        [{"type": "ai", "data": {"content": None, "tool_calls": 5, "invalid_tool_calls": {"a": 1}, "usage_metadata": "x",
                                 "response_metadata": [], "additional_kwargs": {"tool_calls": "bad"}}}],
        [{"type": "ai", "data": {"content": [{"type": "tool_use"}, 7, None]}}, 3, {"type": "tool", "data": {"tool_call_id": 12}}],
        {"intermediate_steps": [1, [{"tool": None, "tool_input": None}, None]], "output": {"text": "structured"}},
        {"messages": [{"type": "human", "data": {"content": "hi"}}, "junk"], "thread_id": 9},
        good,
    ]
    traces, warnings = read(write_jsonl(tmp_path / "w.jsonl", weird))
    # Broken records alike at their start (line 6 as line 5, line 8 as line 1) are told apart by order.
    assert shown_ids(traces) == ["w.jsonl:@1", "w.jsonl:@4", "w.jsonl:@5", "w.jsonl:@6#2", "9", "w.jsonl:@8#2"]
    assert (2, "JSON that matches no known LangChain shape") in warnings
    assert (3, "empty list: no LangChain messages or steps") in warnings
    assert (5, f"trace {traces[2].id}: item 2 is not a LangChain message") in warnings
    assert (5, f"trace {traces[2].id}: tool result for unknown call id '12'") in warnings
    assert (6, f"trace {traces[3].id}: intermediate step 1 is not an [action, observation] pair") in warnings
    assert (7, "trace 9: item 2 is not a LangChain message") in warnings
    assert traces[1].rounds[0].tool_calls == [] and traces[1].rounds[0].usage is None
    assert traces[3].rounds[-1].text == '{"text":"structured"}'  # a structured output, dumped
    assert traces[-1].rounds[0].text == "ok"


def test_legacy_function_call_pairs_by_name(tmp_path):
    ai = {"type": "ai", "data": {"content": "", "type": "ai", "additional_kwargs": {"function_call": {"name": "lookup", "arguments": '{"k": 1}'}},
                                 "response_metadata": {}, "tool_calls": [], "invalid_tool_calls": []}}
    fn = {"type": "function", "data": {"content": "v", "name": "lookup", "type": "function"}}
    stray = {"type": "function", "data": {"content": "w", "name": "other", "type": "function"}}
    traces, warnings = read(write_jsonl(tmp_path / "f.jsonl", [[ai, fn, stray]]))
    [call] = traces[0].tool_calls()
    assert (call.id, call.name, call.arguments, call.result.content) == ("r1.c1", "lookup", {"k": 1}, "v")
    assert warnings == [(1, "trace f.jsonl:1: function result 'other' matches no open call")]


@pytest.mark.parametrize(
    "value",
    [
        {"messages": [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "x"}}]},
        [[{"type": "human", "data": {"content": "x"}}]],
        {"type": "AIMessageChunk", "data": {"content": "x"}},
        {"content": "x", "type": "ai", "additional_kwargs": {}, "response_metadata": {}},
    ],
)
def test_sniffing_picks_langchain(value):
    info = sniff(value)
    assert info is not None and info.name == "langchain"


def test_sniffing_leaves_openai_messages_alone():
    info = sniff({"messages": [{"role": "user", "content": "x"}]})
    assert info is not None and info.name != "langchain"
