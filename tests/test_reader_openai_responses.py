"""The OpenAI Responses API reader: response objects, request/response pairs, streaming
events and flat item lists, read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    assert_show_and_convert_round_trip,
    read_with_diagnostics as read,
    shown_ids,
    usage_tuple,
    utc,
    warnings_of,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openai_responses"

R1 = "resp_6786f6b2d5a081909c2d4bb1e0f7a3c40e5b8d1f2a3c4b5d"
R2 = "resp_6786f6b4e1c88190a7f3d2c1b0e9f8a70d6c5b4a3f2e1d0c"
R3 = "resp_6786f6b6a2d481908e1f0a9b8c7d6e5f0a1b2c3d4e5f6a7b"
PARIS_CALL = "call_Qz4mTBa1DcX9wRk2LpNv7sHe"
ROME_CALL = "call_Hw8nRb3KcT6yZq1VmPx0dJfA"


def calls_of(trace):
    return [(c.name, c.arguments, c.result.content if c.result else None) for c in trace.tool_calls()]


def response(rid, output, *, prev=None, status="completed", created=1750000000, usage=None, **extra):
    body = {"id": rid, "object": "response", "created_at": created, "status": status, "model": "gpt-4.1-2025-04-14",
            "output": output, "previous_response_id": prev, "usage": usage, "error": None, "incomplete_details": None}
    body.update(extra)
    return body


def fc(call_id, name, args, item_id=None):
    return {"type": "function_call", "id": item_id or f"fc_{call_id}", "call_id": call_id, "name": name, "arguments": args, "status": "completed"}


def message(text, item_id="msg_x"):
    return {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


# --- the running example ---------------------------------------------------------------


def test_running_example_as_request_response_pairs():
    traces, diagnostics = read(FIXTURES / "weather_pairs.jsonl")
    (trace,) = traces
    assert (trace.id, trace.format, trace.line, trace.end_line) == (R1, "openai-responses", 1, 3)
    assert [r.id for r in trace.rounds] == [R1, R2, R3]
    assert [r.line for r in trace.rounds] == [1, 2, 3]
    paris, rome, final = trace.rounds
    (call,) = paris.tool_calls
    # Paired on call_id, never on the item id (fc_…).
    assert (call.id, call.name, call.arguments, call.arguments_raw) == (PARIS_CALL, "get_weather", {"city": "Paris"}, '{"city":"Paris"}')
    assert call.result.content == '{"temp_c": 11}'
    assert call.result.line == 2  # the result arrives in the next request
    assert call.result.is_error is None  # function outputs carry no error flag
    # The reasoning item of round 2 is no call and no text.
    assert (rome.text, [c.id for c in rome.tool_calls]) == ("", [ROME_CALL])
    assert rome.tool_calls[0].result.content == '{"temp_c": 17}'
    assert final.is_final and final.text == "Paris 11°C; Rome 17°C."
    assert [usage_tuple(r.usage) for r in trace.rounds] == [(82, 17, 0, 0), (131, 18, 0, 0), (180, 25, 0, 0)]
    assert [(r.started_at, r.ended_at) for r in trace.rounds] == [
        (utc(2025, 1, 15, 10, 0, 0), utc(2025, 1, 15, 10, 0, 1)),
        (utc(2025, 1, 15, 10, 0, 2), utc(2025, 1, 15, 10, 0, 3)),
        (utc(2025, 1, 15, 10, 0, 4), utc(2025, 1, 15, 10, 0, 5)),
    ]
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "tool_calls", "stop"]
    assert {r.model for r in trace.rounds} == {"gpt-4.1-2025-04-14"}
    assert trace.answered and trace.error is None and trace.labels == {}
    assert len(diagnostics) == 0


def test_running_example_as_one_item_per_line():
    traces, diagnostics = read(FIXTURES / "items.jsonl")
    (trace,) = traces
    assert (trace.id, trace.line, trace.end_line) == ("items.jsonl", 1, 6)
    assert trace.metadata["shape"] == "items"
    pairs, _ = read(FIXTURES / "weather_pairs.jsonl")
    # Same calls, arguments and results as the pairs (a list of input_text parts is its text).
    assert calls_of(trace) == calls_of(pairs[0])
    assert [c.id for c in trace.tool_calls()] == [PARIS_CALL, ROME_CALL]
    assert [r.text for r in trace.rounds] == ["", "", "Paris 11°C; Rome 17°C."]
    assert [r.line for r in trace.rounds] == [2, 4, 6]
    # An item list has no usage, times or finish reasons: unknown, never 0.
    assert all(r.usage is None and r.started_at is None and r.finish_reason is None for r in trace.rounds)
    assert len(diagnostics) == 0


def test_a_short_form_first_line_needs_the_format_named(tmp_path):
    items = [
        {"content": "Weather in Oslo?", "role": "user"},
        fc("call_o1", "get_weather", '{"city":"Oslo"}'),
        {"type": "function_call_output", "call_id": "call_o1", "output": "3°C"},
        message("3°C in Oslo."),
    ]
    path = write_jsonl(tmp_path / "state.jsonl", items)
    (trace,), diagnostics = read(path, input_format="openai-responses")
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0]
    assert trace.rounds[0].tool_calls[0].result.content == "3°C"
    assert len(diagnostics) == 0


# --- hosted tools -------------------------------------------------------------------------


def test_hosted_web_search_loop_is_cut_into_model_steps():
    traces, diagnostics = read(FIXTURES / "hosted_tools.jsonl")
    assert [t.id for t in traces] == [
        "resp_67a1c9e0b7f48190a3d2e1f0c9b8a7d60f1e2d3c4b5a6978",
        "resp_67a1ca12a9b48190c1d2e3f4a5b6c7d80a9b8c7d6e5f4a3b",
    ]
    search, files = traces
    assert (search.line, search.end_line) == (1, 2)  # the second response chains to the first
    assert len(search.rounds) == 6
    rid = "resp_67a1c9e0b7f48190a3d2e1f0c9b8a7d60f1e2d3c4b5a6978"
    assert [r.id for r in search.rounds[:4]] == [rid, f"{rid}#2", f"{rid}#3", f"{rid}#4"]
    # The same query three times, one server-side step each, then the answer.
    assert [[(c.name, c.arguments) for c in r.tool_calls] for r in search.rounds[:4]] == [
        [("web_search", {"type": "search", "query": "paris weather today"})],
        [("web_search", {"type": "search", "query": "paris weather today"})],
        [("web_search", {"type": "search", "query": "paris weather today"})],
        [],
    ]
    first = search.rounds[0].tool_calls[0]
    assert first.id == "ws_67a1c9e2f5d48190a1b2c3d4e5f6a7b8"
    assert json.loads(first.result.content) == {
        "status": "completed",
        "sources": ["https://weather.com/weather/today/l/Paris", "https://www.meteofrance.com/previsions-meteo-france/paris/75000"],
    }
    assert first.result.is_error is False
    # Reasoning summaries stay out of the text; the answer is its own, final round.
    assert [r.text for r in search.rounds[:4]] == ["", "", "", "Paris today: 9°C, light rain, wind 20 km/h."]
    assert search.rounds[3].finish_reason == "stop"
    assert [r.finish_reason for r in search.rounds[:3]] == ["tool_calls"] * 3
    # The response's usage and start go to its first step, its end to the last.
    assert usage_tuple(search.rounds[0].usage) == (5212, 904, 2048, 640)
    assert [r.usage for r in search.rounds[1:4]] == [None, None, None]
    assert (search.rounds[0].started_at, search.rounds[0].ended_at) == (utc(2025, 1, 15, 11, 0, 0), None)
    assert (search.rounds[3].started_at, search.rounds[3].ended_at) == (None, utc(2025, 1, 15, 11, 0, 17))

    page, answer = search.rounds[4:]
    assert [(c.arguments["type"], c.result.is_error) for c in page.tool_calls] == [("open_page", False), ("find", True)]
    assert page.tool_calls[1].result.content == '{"status":"failed"}'
    assert answer.text == "I could not find the humidity on Météo-France's page."
    assert search.answered

    assert [[c.name for c in r.tool_calls] for r in files.rounds] == [["file_search"], [], ["code_interpreter", "image_generation"], []]
    file_search = files.rounds[0].tool_calls[0]
    assert file_search.arguments == {"queries": ["refund policy", "refund window days"]}
    assert json.loads(file_search.result.content)["results"][0]["text"] == "Refunds are accepted within 30 days of purchase."
    code, image = files.rounds[2].tool_calls
    assert (code.arguments, code.result.content) == ({"code": "print(sum(range(1, 101)))"}, "5050\n")
    assert image.arguments == {"prompt": "A bar chart of the numbers 1 to 100"}
    assert image.result.content.startswith("[image sha1:") and len(image.result.content) < 40  # no base64 blob
    assert len(diagnostics) == 0


def test_hosted_search_loop_fires_the_same_guards_as_a_client_loop(cli):
    result = cli("replay", str(FIXTURES / "hosted_tools.jsonl"), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    first = report["traces"][0]
    assert (first["policy"]["code"], first["policy"]["stopped_at"]) == ("P001", 3)


# --- client-side calls ------------------------------------------------------------------


def test_proxy_log_of_a_repeated_function_call():
    (trace,), diagnostics = read(FIXTURES / "function_loop.jsonl")
    assert len(trace.rounds) == 4
    assert [c.arguments for c in trace.tool_calls()] == [{"query": "how to reset password"}] * 3
    assert [c.result.content for c in trace.tool_calls()] == ["No results found."] * 3
    assert [c.id for c in trace.tool_calls()] == [
        "call_Lk2Pq9Xr4Tn7Vb1Zc6Md3Wf8",
        "call_Ab5Ce7Gi9Kl1Mn3Op5Qr7St9",
        "call_Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij6",
    ]
    assert [usage_tuple(r.usage) for r in trace.rounds] == [(311, 19, 0, 0), (352, 19, 0, 0), (393, 19, 256, 0), (434, 27, 256, 0)]
    # created_at starts the round; the logger's timestamp (no completed_at) ends it.
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 6, 2, 11, 0, 0), utc(2025, 6, 2, 11, 0, 1, 420000))
    assert trace.rounds[3].ended_at == utc(2025, 6, 2, 11, 0, 10, 905000)
    assert trace.rounds[3].text.startswith("I could not find instructions")
    assert len(diagnostics) == 0


def test_conversation_state_item_list():
    (trace,), diagnostics = read(FIXTURES / "state_items.json")
    assert trace.id == "state_items.json:1"
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [
        ["read_file"], ["apply_patch"], ["local_shell"], [], ["computer"], [],
    ]
    read_file, patch, shell, fixed, computer, done = trace.rounds
    assert read_file.text == ""  # the reasoning summary is not the model's text
    assert read_file.tool_calls[0].result.content == "def add(a, b):\n    return a - b\n"
    # A custom tool's free-text input stays text.
    custom = patch.tool_calls[0]
    assert custom.arguments_raw.startswith("*** Begin Patch\n*** Update File: src/utils.py")
    assert custom.arguments == custom.arguments_raw and custom.arguments_error is None
    assert custom.result.content == "Done!"
    # local_shell_call_output names its call in ``id``.
    assert shell.tool_calls[0].arguments == {
        "command": ["python", "-m", "pytest", "-q"], "env": {}, "timeout_ms": 60000, "user": None, "working_directory": "/repo",
    }
    assert json.loads(shell.tool_calls[0].result.content)["metadata"]["exit_code"] == 0
    assert fixed.text.startswith("Fixed `add`")
    shot = computer.tool_calls[0]
    assert shot.arguments == {"type": "screenshot"}
    assert shot.result.content.startswith("[image sha1:")
    assert done.text == "The page shows the green test report."
    # Short and typed user messages both; the developer message is no user message.
    assert [(m.before_round, m.text) for m in trace.user_messages] == [
        (1, "The test in tests/test_utils.py fails. Fix it."), (5, "Show me the page in the browser."),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2, 2]
    assert len(diagnostics) == 0


def test_mcp_approval_request_is_the_call_and_the_approved_mcp_call_its_result():
    (trace,), diagnostics = read(FIXTURES / "mcp_approval.jsonl")
    assert len(trace.rounds) == 4
    ask, answer, failing, sorry = trace.rounds
    (search,) = ask.tool_calls  # mcp_list_tools is no call
    assert (search.id, search.name, search.arguments) == (
        "mcpr_68d2e0f2e1f28190dd44ee55ff660011",
        "search_issues",
        {"repo": "openai/openai-python", "query": "timeout"},
    )
    assert search.result.content == '[{"number": 2140, "title": "Request timeout not respected"}]'
    assert search.result.is_error is False
    assert answer.tool_calls == [] and answer.text.startswith("Yes: #2140")
    (get,) = failing.tool_calls
    assert (get.name, get.arguments) == ("get_issue", {"number": 2140})
    assert (get.result.content, get.result.is_error) == ("Error calling tool get_issue: 502 Bad Gateway", True)
    assert sorry.is_final and trace.answered
    # The approval response is the client's, not the user's: two user turns.
    assert [(m.before_round, m.text) for m in trace.user_messages] == [
        (1, "Are there open issues about timeouts in openai-python?"), (3, "Show me issue 2140."),
    ]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2]
    assert len(diagnostics) == 0


def test_denied_approval_is_an_error_result(tmp_path):
    ask = {"type": "mcp_approval_request", "id": "mcpr_1", "name": "delete_repo", "arguments": '{"repo":"x"}', "server_label": "github"}
    path = write_jsonl(tmp_path / "deny.jsonl", [
        {"request": {"input": "Delete x"}, "response": response("resp_a", [ask])},
        {"request": {"previous_response_id": "resp_a", "input": [
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False, "reason": "too dangerous"}]},
         "response": response("resp_b", [message("I did not delete it.")], prev="resp_a")},
    ])
    (trace,), diagnostics = read(path)
    result = trace.rounds[0].tool_calls[0].result
    assert (result.content, result.is_error) == ("approval denied: too dangerous", True)
    assert len(diagnostics) == 0


# --- streaming, failures, arrays ----------------------------------------------------------


def test_streaming_events_keep_the_final_snapshot():
    traces, diagnostics = read(FIXTURES / "stream_events.jsonl")
    assert len(traces) == 3
    done, cut, failed = traces
    (rnd,) = done.rounds  # created / in_progress snapshots replaced, deltas skipped
    assert (rnd.text, rnd.finish_reason, usage_tuple(rnd.usage)) == ("Bonjour ! Comment puis-je vous aider ?", "stop", (24, 11, 0, 0))
    assert (rnd.started_at, rnd.ended_at, rnd.line) == (1749200000.0, 1749200001.0, 9)
    assert (done.line, done.end_line) == (1, 9)
    (partial,) = cut.rounds
    assert (partial.text, partial.finish_reason) == ("Here is the first part of the", "length")
    assert cut.error is None and "outcome" not in cut.labels
    assert failed.rounds == []
    assert failed.error == "The server had an error while processing your request."
    # A failed last response is how the run ended, not a grade.
    assert (failed.labels, failed.ending, failed.outcome) == ({}, "error", "unknown") and not failed.answered
    assert len(diagnostics) == 0


def test_failed_response_retried_and_request_without_response():
    traces, diagnostics = read(FIXTURES / "failures.jsonl")
    assert shown_ids(traces) == ["resp_68f4a1b2c3d48190a0a0b0b0c0c0d0d0e0e0f0f001020304", "failures.jsonl:@4"]
    retried, limited = traces
    # The failed response returned nothing: no round; the retry clears the error.
    assert [r.id for r in retried.rounds] == [
        "resp_68f4a1b2c3d48190a0a0b0b0c0c0d0d0e0e0f0f001020304",
        "resp_68f4a1c0e5f68190c2c2d2d2e2e2f2f20203040506070809",
    ]
    assert retried.rounds[0].tool_calls[0].result.content == "bonjour"
    assert retried.error is None and retried.answered and retried.labels == {}
    assert (retried.line, retried.end_line) == (1, 3)
    assert limited.rounds == []
    assert limited.error.startswith("Rate limit reached for gpt-4.1")
    assert (limited.labels, limited.ending) == ({}, "error")
    assert len(diagnostics) == 0


def test_failed_last_response_ends_the_run_with_an_error(tmp_path):
    path = write_jsonl(tmp_path / "fail.jsonl", [
        response("resp_1", [fc("call_1", "lookup", '{"id":1}')]),
        {"request": {"previous_response_id": "resp_1", "input": [{"type": "function_call_output", "call_id": "call_1", "output": "ok"}]},
         "response": response("resp_2", [], prev="resp_1", status="failed", error={"code": "server_error", "message": "boom"})},
    ])
    (trace,), diagnostics = read(path)
    assert len(trace.rounds) == 1 and trace.rounds[0].tool_calls[0].result.content == "ok"
    assert (trace.error, trace.ending, trace.outcome, trace.answered) == ("boom", "error", "unknown", False)
    assert len(diagnostics) == 0


def test_json_array_of_responses_with_input_saved_beside_output():
    (trace,), diagnostics = read(FIXTURES / "responses_array.json")
    assert trace.id == "resp_6901a2b3c4d58190a1a1a1a1b2b2b2b2c3c3c3c3d4d4d4d4"
    assert calls_of(trace) == [("convert_currency", {"amount": 100, "from": "USD", "to": "EUR"}, "92.31")]
    assert trace.rounds[1].text == "100 USD is about 92.31 EUR."
    assert len(diagnostics) == 0


# --- grouping -----------------------------------------------------------------------------


def test_state_managed_by_hand_is_one_trace_without_repeated_rounds(tmp_path):
    user = {"role": "user", "content": "Weather in Oslo and Bergen?"}
    oslo = fc("call_o", "get_weather", '{"city":"Oslo"}', item_id="fc_o")
    bergen = fc("call_b", "get_weather", '{"city":"Bergen"}', item_id="fc_b")
    out_o = {"type": "function_call_output", "call_id": "call_o", "output": "3°C"}
    out_b = {"type": "function_call_output", "call_id": "call_b", "output": "7°C"}
    earlier = {"role": "assistant", "content": "Let me check."}  # history no logged response made
    path = write_jsonl(tmp_path / "manual.jsonl", [
        {"request": {"input": [user, earlier]}, "response": response("resp_m1", [oslo], usage={"input_tokens": 50, "output_tokens": 9})},
        # No previous_response_id: the whole state is re-sent.
        {"request": {"input": [user, earlier, oslo, out_o]}, "response": response("resp_m2", [bergen])},
        {"request": {"input": [user, earlier, oslo, out_o, bergen, out_b]}, "response": response("resp_m3", [message("Oslo 3°C, Bergen 7°C.")])},
        # The same response logged again (a retrying logger): counted once.
        response("resp_m3", [message("Oslo 3°C, Bergen 7°C.")]),
    ])
    (trace,), diagnostics = read(path)
    assert trace.id == "resp_m1" and (trace.line, trace.end_line) == (1, 4)
    assert [r.id for r in trace.rounds] == [None, "resp_m1", "resp_m2", "resp_m3"]
    assert trace.rounds[0].text == "Let me check." and trace.rounds[0].usage is None
    assert calls_of(trace) == [("get_weather", {"city": "Oslo"}, "3°C"), ("get_weather", {"city": "Bergen"}, "7°C")]
    # Every request re-sends the question; it was said once, before the first round.
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Weather in Oslo and Bergen?")]
    assert len(diagnostics) == 0


def test_user_messages_open_turns_in_chained_and_in_re_sent_conversations(tmp_path):
    first = {"role": "user", "content": "Weather in Oslo?"}
    developer = {"role": "developer", "content": "Answer in one sentence."}
    oslo = fc("call_o", "get_weather", '{"city":"Oslo"}', item_id="fc_o")
    out_o = {"type": "function_call_output", "call_id": "call_o", "output": "3°C"}
    reply = message("3°C in Oslo.", item_id="msg_1")
    second = {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "And in this city?"}, {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    ]}
    chained = write_jsonl(tmp_path / "chained.jsonl", [
        {"request": {"input": [developer, first]}, "response": response("resp_c1", [oslo])},
        {"request": {"input": [out_o], "previous_response_id": "resp_c1"}, "response": response("resp_c2", [reply], prev="resp_c1")},
        {"request": {"input": [second], "previous_response_id": "resp_c2"}, "response": response("resp_c3", [message("Bergen: 7°C.", "msg_2")], prev="resp_c2")},
    ])
    by_hand = write_jsonl(tmp_path / "by_hand.jsonl", [
        {"request": {"input": [developer, first]}, "response": response("resp_h1", [oslo])},
        {"request": {"input": [developer, first, oslo, out_o]}, "response": response("resp_h2", [reply])},
        {"request": {"input": [developer, first, oslo, out_o, reply, second]}, "response": response("resp_h3", [message("Bergen: 7°C.", "msg_2")])},
    ])
    for path in (chained, by_hand):
        (trace,), diagnostics = read(path)
        assert len(diagnostics) == 0, path.name
        # The developer message is not the user's; the image is a placeholder in the text.
        assert [(m.before_round, m.text.split("\n")[0]) for m in trace.user_messages] == [(1, "Weather in Oslo?"), (3, "And in this city?")], path.name
        assert trace.user_messages[1].text.startswith("And in this city?\n[image sha1:")
        assert [r.turn for r in trace.rounds] == [1, 1, 2], path.name


def test_a_completed_snapshot_replacing_an_in_progress_one_does_not_repeat_the_user(tmp_path):
    ask = [{"role": "user", "content": "Summarise RFC 9110 in a line."}]
    path = write_jsonl(tmp_path / "snapshots.jsonl", [
        {"request": {"input": ask}, "response": response("resp_s1", [], status="in_progress")},
        {"request": {"input": ask}, "response": response("resp_s1", [message("HTTP semantics, in one document.")])},
    ])
    (trace,), diagnostics = read(path)
    assert [(m.before_round, m.text) for m in trace.user_messages] == [(1, "Summarise RFC 9110 in a line.")]
    assert [r.text for r in trace.rounds] == ["HTTP semantics, in one document."]
    assert len(diagnostics) == 0


def test_conversation_id_groups_responses(tmp_path):
    conv = {"id": "conv_689667905b048191b4740501625afd940c7533ace33a2dab"}
    path = write_jsonl(tmp_path / "conv.jsonl", [
        response("resp_c1", [message("Hi!")], conversation=conv),
        response("resp_x", [message("Unrelated.")]),
        response("resp_c2", [message("Still here.")], conversation=conv),
    ])
    traces, diagnostics = read(path)
    assert [(t.id, [r.id for r in t.rounds]) for t in traces] == [
        ("conv_689667905b048191b4740501625afd940c7533ace33a2dab", ["resp_c1", "resp_c2"]),
        ("resp_x", ["resp_x"]),
    ]
    assert len(diagnostics) == 0


# --- bad input ----------------------------------------------------------------------------


def test_bad_input_is_warned_with_file_and_line(tmp_path):
    good = {"request": {"input": "Hi"}, "response": response("resp_ok", [message("Hello!")])}
    path = tmp_path / "bad.jsonl"
    lines = [
        json.dumps(good),
        json.dumps({"request": {"previous_response_id": "resp_ok", "input": [
            {"type": "function_call_output", "call_id": "call_nobody", "output": "orphan"}]},
            "response": response("resp_2", [message("Anything else?"), {"type": "hologram_projection", "id": "hp_1"}], prev="resp_ok")}),
        '{"request": {"input": "x"}, "response": {"id": "resp_3", "object": "resp',  # cut in half
        json.dumps({"event": "heartbeat"}),
        json.dumps(response("resp_4", [fc("call_4", "search", '{"q": "unterminated')])),
        json.dumps(response("resp_5", [message("last")]))[:-3],  # truncated last line
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    traces, diagnostics = read(path)
    assert [t.id for t in traces] == ["resp_ok", "resp_4"]
    assert [r.text for r in traces[0].rounds] == ["Hello!", "Anything else?"]
    bad_args = traces[1].rounds[0].tool_calls[0]
    assert bad_args.arguments is None and bad_args.arguments_raw == '{"q": "unterminated'
    found = warnings_of(diagnostics)
    assert found[:2] == [
        ("bad.jsonl", 2, "trace resp_ok: tool result for unknown call id 'call_nobody'"),
        ("bad.jsonl", 2, "trace resp_ok: output item of unknown type 'hologram_projection' skipped"),
    ]
    assert found[2][:2] == ("bad.jsonl", 3) and found[2][2].startswith("not valid JSON")
    assert found[3] == ("bad.jsonl", 4, "JSON that matches no known OpenAI Responses shape")
    assert found[4][:2] == ("bad.jsonl", 6) and found[4][2].startswith("truncated last line")
    assert found[5][:2] == ("bad.jsonl", 5) and "call call_4 (search): arguments are not valid JSON" in found[5][2]
    assert found[6] == ("bad.jsonl", 5, "trace resp_4: call call_4 (search) has no result")
    assert len(found) == 7


def test_malformed_items_are_warned_not_raised(tmp_path):
    path = write_jsonl(tmp_path / "odd.jsonl", [[
        {"role": "user", "content": "go"},
        "not an item",
        {"type": "function_call_output", "output": "no call id"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_gone", "approve": True},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "done"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
    ]])
    (trace,), diagnostics = read(path)
    assert calls_of(trace) == [("f", {}, "done")]
    assert trace.rounds[-1].text == "ok"
    assert [(line, reason) for _, line, reason in warnings_of(diagnostics)] == [
        (1, "trace odd.jsonl:1: item 2 is not an object; skipped"),
        (1, "trace odd.jsonl:1: tool result for unknown call id None"),
        (1, "trace odd.jsonl:1: approval response for unknown request id 'mcpr_gone'"),
    ]


def test_more_open_traces_than_the_limit_finishes_the_oldest_first(tmp_path):
    records = [response(f"resp_{k}", [fc(f"call_{k}", "lookup", "{}")]) for k in range(66)]
    # The continuation of trace 0 comes after 65 others: trace 0 was finished already.
    records.append({"request": {"previous_response_id": "resp_0", "input": [
        {"type": "function_call_output", "call_id": "call_0", "output": "late"}]},
        "response": response("resp_0b", [message("done")], prev="resp_0")})
    path = write_jsonl(tmp_path / "many.jsonl", records)
    traces, diagnostics = read(path)
    assert len(traces) == 67
    assert traces[0].id == "resp_0" and traces[-1].id == "resp_0b"
    assert ("many.jsonl", 67, "trace resp_0b: tool result for unknown call id 'call_0'") in warnings_of(diagnostics)


# --- CLI ----------------------------------------------------------------------------------


def test_cli_show_and_convert_round_trip(tmp_path):
    paths = sorted(FIXTURES.glob("*.json*"))
    assert_show_and_convert_round_trip(FIXTURES / "weather_pairs.jsonl", [R1, "get_weather"], paths, tmp_path)
