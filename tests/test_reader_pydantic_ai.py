"""The Pydantic AI reader: one round per ModelResponse, results attached by tool_call_id,
a tool's retry prompt as its error, tokens from each response's usage; read through the
public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    assert_sniffed_alone,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    shown_ids,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pydantic_ai"
REAL = FIXTURES / "real_roll_dice_gemini.json"
WEATHER = FIXTURES / "weather_retries.json"
LEGACY = FIXTURES / "legacy_runs.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"
ALL = [REAL, WEATHER, LEGACY, MALFORMED]


def test_real_dump_rounds_results_tokens_and_the_output_tool_as_answer():
    # pydantic-ai 1.0 with Gemini, result.all_messages_json() as its user pasted it.
    (trace,), warnings = read(REAL)
    assert warnings == []
    assert trace.format == "pydantic-ai"
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["roll_dice"], ["get_player_name"], []]
    roll, name = trace.tool_calls()
    assert (roll.id, roll.arguments, roll.result.content, roll.result.is_error) == ("pyd_ai_6c8e6f11c43d49b09d5f3720fd4d5a7e", {}, "2", False)
    assert (name.result.content, name.result.is_error) == ("", False)  # the tool returned None
    # The final_result call answered "Final result processed." is the structured output.
    assert trace.rounds[2].text == '{"player_name":"Mickey","result":"2"}'
    assert trace.ending == "answered" and trace.answered
    assert [usage_tuple(r) for r in trace.rounds] == [(49, 3, 0, None), (59, 5, 0, None), (73, 9, 0, None)]
    assert [r.id for r in trace.rounds] == ["R9rJaM-kLYCOjMcP7_SR6Aw", "SNrJaLfpEMC1jMcPi4jq-QE", "SNrJaOCQMa7fjMcPtKqQ0Aw"]
    assert {r.model for r in trace.rounds} == {"gemini-1.5-flash"}
    # No request timestamp (1.0): a round starts at its request's latest part.
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 9, 16, 21, 44, 39, 499147), utc(2025, 9, 16, 21, 44, 40, 144280))
    assert roll.result.ended_at == utc(2025, 9, 16, 21, 44, 40, 148527)
    assert [m.text for m in trace.user_messages] == ["roll dice?"]
    assert trace.metadata == {"provider": "google-gla"}


def test_retry_prompts_are_the_calls_errors_and_usage_is_exact():
    (trace,), warnings = read(WEATHER)
    assert warnings == []
    assert trace.id == "0199b1c2-7d3e-7f40-8a51-62b3c4d5e6f7"  # run_id
    assert [[c.id for c in r.tool_calls] for r in trace.rounds] == [["call_P1", "call_R1"], ["call_R2"], ["call_R3"], [], ["call_F1"], []]
    results = {c.id: (c.result.content, c.result.is_error) for c in trace.tool_calls()}
    assert results == {
        "call_P1": ('{"city":"Paris","temp_c":11,"sky":"rain"}', False),
        # ModelRetry raised by the tool
        "call_R1": ("Weather service timed out for Rome, try again later.", True),
        # argument validation failed: the list of error details
        "call_R2": ('[{"type":"missing","loc":["city"],"msg":"Field required","input":{}}]', True),
        "call_R3": ('{"city":"Rome","temp_c":17,"sky":"sun"}', False),
        # outcome "denied" (an approval refused it)
        "call_F1": ("Forecast service disabled by policy.", True),
    }
    # input (cached included), output, cache_read_tokens, details.reasoning_tokens
    assert [usage_tuple(r) for r in trace.rounds] == [
        (812, 64, 512, 40),
        (901, 31, 768, None),
        (990, 22, 896, None),
        (1075, 18, 896, None),
        (1120, 20, 1024, None),
        (1180, 12, 1024, None),
    ]
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "tool_calls", "stop", "tool_calls", "stop"]
    assert trace.rounds[0].text == ""  # the thinking part is not what the model said
    assert trace.rounds[1].text == "Paris is done; retrying Rome."
    assert [m.text for m in trace.user_messages] == ["What is the weather in Paris and Rome?", "And tomorrow in Paris?"]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2, 2]
    # The request's own timestamp (1.x) starts the round.
    assert (trace.rounds[1].started_at, trace.rounds[1].ended_at) == (utc(2025, 11, 3, 9, 0, 7, 420000), utc(2025, 11, 3, 9, 0, 8, 600000))
    assert trace.ending == "answered"


def test_one_run_per_line_in_the_0x_shape():
    traces, warnings = read(LEGACY)
    assert warnings == []
    assert [t.line for t in traces] == [1, 2]
    assert shown_ids(traces) == ["legacy_runs.jsonl:@1", "legacy_runs.jsonl:@2"]
    first, second = traces
    assert [usage_tuple(r) for r in first.rounds] == [(420, 35, None, None), (480, 12, None, None)]
    assert [r.id for r in first.rounds] == ["msg_01A", "msg_01B"]
    assert [m.text for m in first.user_messages] == ["How many rows does the orders table have?"]  # the system prompt is none
    (call,) = second.tool_calls()
    assert (call.arguments, call.result.content, call.result.is_error) == ({"query": "SHOW TABLES"}, "orders\ncustomers", False)
    assert first.rounds[0].started_at == utc(2025, 3, 2, 14, 0, 0, 50000)


def test_malformed_lines_warn_with_file_and_line_and_keep_the_trace():
    (trace,), warnings = read(MALFORMED)
    assert len(trace.rounds) == 2
    assert usage_tuple(trace.rounds[1]) is None  # all zeros: the model reported nothing
    name = MALFORMED.name
    assert sorted((file, line) for file, line, _ in warnings) == [(name, 2), (name, 3), (name, 4), (name, 4), (name, 5)]
    reasons = " | ".join(reason for _, _, reason in warnings)
    assert "not valid JSON" in reasons
    assert "request part of unknown kind 'hologram' skipped" in reasons
    assert "tool result for unknown call id 'call_nobody'" in reasons
    assert "not a Pydantic AI message: an object of 2 items skipped" in reasons
    assert "call call_M1 (find_file) has no result" in reasons


def test_retry_without_a_tool_builtin_tools_and_wrong_types(tmp_path):
    messages = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": ["Describe", {"kind": "image-url", "url": "https://x/y.png"}]}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "It is a cat."}], "usage": {"input_tokens": "many", "output_tokens": 7}},
        # plain text where structured output was wanted: no call's result
        {"kind": "request", "parts": [{"part_kind": "retry-prompt", "content": "Plain text responses are not permitted", "tool_name": None, "tool_call_id": "pyd_ai_x"}]},
        {
            "kind": "response",
            "parts": [
                {"part_kind": "builtin-tool-call", "tool_name": "web_search", "args": {"query": "cat breeds"}, "tool_call_id": "ws_1"},
                {"part_kind": "builtin-tool-return", "tool_name": "web_search", "content": {"status": "completed"}, "tool_call_id": "ws_1"},
                {"part_kind": "text", "content": "A tabby."},
            ],
            "usage": {"input_tokens": 50, "output_tokens": 9},
        },
    ]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    (trace,), warnings = read(path)
    assert [m.text for m in trace.user_messages] == ["Describe\n[image-url]"]
    assert [reason for _, _, reason in warnings] == ["usage.input_tokens 'many' is not a token count (a whole number from 0 to 2**53 - 1); read as unknown"]
    assert usage_tuple(trace.rounds[0]) == (None, 7, None, None)
    (search,) = trace.tool_calls()
    assert (search.name, search.result.content, search.result.is_error) == ("web_search", '{"status":"completed"}', None)


def test_sniffed_without_input_format_and_listed(cli, tmp_path):
    traces, _ = read(*ALL)
    assert {t.format for t in traces} == {"pydantic-ai"}
    assert "pydantic-ai" in cli("formats").stdout
    report = json.loads(cli("replay", str(WEATHER), "-f", "json").stdout)
    (shown,) = report["traces"]
    assert (shown["format"], shown["rounds"], shown["tool_calls"]) == ("pydantic-ai", 6, 5)
    assert shown["tokens"] == 812 + 64 + 901 + 31 + 990 + 22 + 1075 + 18 + 1120 + 20 + 1180 + 12
    # A list of other objects with a "kind" is not a message history.
    other = write_jsonl(tmp_path / "other.jsonl", [[{"kind": "request", "parts": "none"}]])
    assert "pydantic-ai" not in cli("replay", str(other), "-f", "json").stdout


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(WEATHER, ["pydantic-ai", "0199b1c2-7d3e-7f40-8a51-62b3c4d5e6f7"], ALL, tmp_path)



def test_no_other_formats_file_is_sniffed_as_pydantic_ai_and_its_own_are():
    assert_sniffed_alone("pydantic-ai", [REAL, WEATHER, LEGACY])
