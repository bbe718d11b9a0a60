"""The AutoGen and Magentic-One readers, read through the public ``read_traces`` API and
the CLI: AG2 / 0.2 chat histories (tool_responses by id, the executor's exitcode replies
as results of the code before them), autogen-agentchat TaskResult messages (models_usage,
is_error, created_at) and Magentic-One orchestrator logs (instructions to agents as
calls, LLMCallEvent totals, the termination condition)."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.readers import reader_by_name, sniff

from conftest import (
    assert_sniffed_alone,
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    usage_tuple as counts_tuple,
    utc,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
AUTOGEN = FIXTURES / "autogen"
MAGENTIC = FIXTURES / "magentic_one"
GROUPCHAT = AUTOGEN / "ag2_groupchat.json"
CHAT_RESULT = AUTOGEN / "ag2_chat_result.json"
TASK_RESULT = AUTOGEN / "agentchat_task_result.json"
AGENTCHAT_MALFORMED = AUTOGEN / "agentchat_malformed.jsonl"
REAL_AGENTCHAT = AUTOGEN / "openinference_weather_agent.json"
REAL_AG2 = AUTOGEN / "repomaster_nvidia_drawdown.json"
LOG = MAGENTIC / "log.jsonl"
MAX_ROUNDS = MAGENTIC / "max_rounds.jsonl"
MAGENTIC_MALFORMED = MAGENTIC / "malformed.jsonl"
REAL_MAGENTIC = MAGENTIC / "outlook_unread_emails.json"


def calls_of(trace):
    return [(c.name, c.arguments) for c in trace.tool_calls()]


# --- AG2 / AutoGen 0.2 ------------------------------------------------------------------------


def test_ag2_group_chat_tools_and_code_execution():
    (trace,), warnings = read(GROUPCHAT)
    assert warnings == []
    assert trace.format == "autogen"
    assert [m.text for m in trace.user_messages] == ["Plot the closing price of NVDA for the last 5 days and save it to nvda.png."]
    # One round per speaker message; the empty auto-reply is none; tool and executor
    # messages are results.
    assert trace.metadata["speakers"] == ["analyst", "coder", "coder", "analyst"]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 0]
    prices, first_run, second_run = trace.tool_calls()
    assert (prices.id, prices.name, prices.arguments) == ("call_q1", "get_prices", {"ticker": "NVDA", "days": 5})
    assert (prices.result.content, prices.result.is_error) == ("[120.1, 121.4, 119.8, 122.0, 123.5]", None)
    # The fenced blocks are the call's arguments; the exit code is the error flag and the
    # code output the result's text.
    code = "import matplotlib.pyplot as plt\nplt.plot([120.1, 121.4, 119.8, 122.0, 123.5])\nplt.savefig('nvda.png')"
    assert first_run.name == "execute_code" and first_run.arguments == {"language": "python", "code": code}
    assert first_run.result.is_error is True
    assert first_run.result.content.endswith("ModuleNotFoundError: No module named 'matplotlib'\n")
    assert second_run.arguments == {"blocks": [{"language": "sh", "code": "pip install matplotlib"}, {"language": "python", "code": code}]}
    assert (second_run.result.is_error, second_run.result.content) == (False, "Successfully installed matplotlib-3.9.2\n")
    assert [r.usage for r in trace.rounds] == [None] * 4
    assert trace.ending == "answered" and trace.rounds[-1].text == "The plot is saved to nvda.png. TERMINATE"


def test_ag2_chat_result_document():
    (trace,), warnings = read(CHAT_RESULT)
    assert warnings == []
    assert [m.text for m in trace.user_messages] == ["What is 2**20?"]
    assert calls_of(trace) == [("execute_code", {"language": "python", "code": "print(2**20)"})]
    (call,) = trace.tool_calls()
    assert (call.result.content, call.result.is_error) == ("1048576\n", False)
    assert trace.metadata["speakers"] == ["assistant", "assistant"]


def test_real_ag2_history_without_names_and_with_lost_fences():
    """A chat history from RepoMaster (earthwuyang/UAgent vendors it): no speaker names,
    roles as the assistant saw them, the code fences lost; nested-chat answers are user
    messages, so the three tools they answered have no result (warned)."""
    (trace,), warnings = read(REAL_AG2)
    assert [w[2] for w in warnings] == [
        f"trace {trace.id}: call {cid} ({name}) has no result"
        for cid, name in (("call_ntzu1pQA7epFJuUISSSTQAr9", "get_data_by_search"), ("call_4LTcHnC4eZw32peAdHwErin0", "get_stock_data"), ("call_5mc18ebnOnJC7676fxxg0c39", "create_code_tool"))
    ]
    assert len(trace.rounds) == 8 and len(trace.user_messages) == 6
    assert [c.name for c in trace.tool_calls()] == ["get_data_by_search", "get_stock_data", "create_code_tool", "execute_code", "execute_code"]
    runs = [c for c in trace.tool_calls() if c.name == "execute_code"]
    assert [c.result.is_error for c in runs] == [True, False]
    # Without fences the executor's input is the whole message.
    assert runs[0].arguments["code"].startswith("To calculate the maximum drawdown")
    assert runs[1].result.content == "\nThe maximum drawdown for Nvidia in 2022 was: -62.70%\n"
    assert "speakers" not in trace.metadata


# --- autogen-agentchat ------------------------------------------------------------------------


def test_agentchat_task_result_usage_errors_times():
    (trace,), warnings = read(TASK_RESULT)
    assert warnings == []
    assert trace.metadata == {"stop_reason": "Text 'bugs' mentioned", "speakers": ["triage_agent", "triage_agent", "writer_agent"]}
    assert [m.text for m in trace.user_messages] == ["Find the open issues labelled bug in acme/shop and summarise them."]
    assert [usage_tuple(r) for r in trace.rounds] == [(812, 41, None, None), (901, 58, None, None), (1040, 37, None, None)]
    assert [[c.id for c in r.tool_calls] for r in trace.rounds] == [["call_a1"], ["call_a2", "call_a3"], []]
    assert [c.result.is_error for c in trace.tool_calls()] == [True, False, False]
    assert trace.rounds[0].text == "I will list the issues first."  # its ThoughtEvent
    # A round ends at its message and starts at the one before (its thought aside); the
    # summary message is no round but is the message before the writer's reply.
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2025, 6, 2, 9, 0, 0), utc(2025, 6, 2, 9, 0, 2, 150000))
    assert (trace.rounds[2].started_at, trace.rounds[2].ended_at) == (utc(2025, 6, 2, 9, 0, 4, 710000), utc(2025, 6, 2, 9, 0, 6, 300000))
    assert list(trace.tool_calls())[0].result.ended_at == utc(2025, 6, 2, 9, 0, 2, 900000)
    assert trace.ending == "answered"


def test_real_agentchat_result():
    """TaskResult of an AssistantAgent run recorded by Arize-ai/openinference's tests."""
    (trace,), warnings = read(REAL_AGENTCHAT)
    assert warnings == []
    assert calls_of(trace) == [("get_weather", {"city": "New York"})]
    (call,) = trace.tool_calls()
    assert (call.id, call.result.content, call.result.is_error) == ("call_rOzPHDXJlI50BqN305vbzckW", "The weather in New York is 73 degrees and Sunny.", False)
    # Streaming runs report 0/0: measured zeros, not unknown.
    assert [usage_tuple(r) for r in trace.rounds] == [(0, 0, None, None), (0, 0, None, None)]
    assert trace.rounds[-1].text == "The weather in New York is 73 degrees and sunny."


def test_agentchat_malformed_lines_are_warnings():
    (trace,), warnings = read(AGENTCHAT_MALFORMED)
    name = AGENTCHAT_MALFORMED.name
    assert [(w[1], w[2].split(" (")[0]) for w in warnings] == [
        (2, "models_usage.completion_tokens 'lots' is not a token count"),
        (3, "not valid JSON: unexpected end of data: line 2 column 1"),
        (4, f"trace {trace.id}: tool result for unknown call id 'c9'"),
        (5, "AutoGen message of unknown type 'FancyNewEvent' skipped"),
        (6, "ToolCallRequestEvent content an object of 1 item is not a list; skipped"),
        (2, f"trace {trace.id}: call c1"),  # (ls) has no result
    ]
    assert all(w[0] == name for w in warnings)
    assert [usage_tuple(r) for r in trace.rounds] == [(300, None, None, None), (350, 12, None, None)]
    assert (trace.line, trace.end_line) == (1, 7)


# --- Magentic-One ---------------------------------------------------------------------------


def test_magentic_one_log_instructions_results_tokens():
    (trace,), warnings = read(LOG)
    assert warnings == []
    assert trace.format == "magentic-one"
    assert [m.text for m in trace.user_messages] == ["How many stars does the microsoft/autogen repository have? Then compute stars / 1000 with code."]
    assert [c.name for c in trace.tool_calls()] == ["WebSurfer", "Coder", "ComputerTerminal"]
    assert list(trace.tool_calls())[1].arguments == {"instruction": "Write Python that prints 34200 / 1000."}
    # The agent's next message is the result; the WebSurferEvent line is not.
    assert [c.result.line for c in trace.tool_calls()] == [11, 17, 22]
    assert {c.result.is_error for c in trace.tool_calls()} == {None}
    assert trace.rounds[1].text.startswith("Updated Ledger:")  # "Next speaker" bookkeeping left out
    assert "Next speaker" not in "".join(r.text for r in trace.rounds)
    # LLMCallEvent sums by hand: 1220+1642+2034+3012+2490+2711+2802+2950, 310+402+188+61+175+44+140+121.
    assert counts_tuple(trace.usage_total) == (18861, 1441, None, None)
    assert [r.usage for r in trace.rounds] == [None] * 4
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2024, 11, 20, 14, 2, 22, 120031), utc(2024, 11, 20, 14, 2, 22, 120417))
    assert trace.rounds[-1].text == "microsoft/autogen has about 34.2k stars, i.e. 34.2 thousand."
    assert trace.ending == "answered" and trace.metadata["termination"] == "No agent selected."


def test_magentic_one_round_limit_and_repeated_instruction_fires(cli):
    (trace,), warnings = read(MAX_ROUNDS)
    assert warnings == []
    assert trace.ending == "limit" and trace.metadata["termination"] == "Max rounds (3) reached."
    assert counts_tuple(trace.usage_total) == (1500 + 1700 + 1900, 270, None, None)
    result = cli("replay", str(MAX_ROUNDS), "-f", "json")
    (shown,) = json.loads(result.stdout)["traces"]
    assert shown["format"] == "magentic-one"
    assert ("P004", 3) in {(f["code"], f["round"]) for f in shown["fires"]}


def test_real_magentic_one_entries_without_type():
    """A logs_list dump without "type" (forks' MagenticOneHelper), with the forks'
    "(update ledger)" and "(final answer)" sources."""
    (trace,), warnings = read(REAL_MAGENTIC)
    assert warnings == []
    assert [m.text for m in trace.user_messages] == ["Retrive unread emails"]
    assert calls_of(trace) == [("OutlookMailAgent", {"instruction": "Please retrieve the user's unread emails from their Outlook account."})]
    assert list(trace.tool_calls())[0].result.content.endswith("There are a total of five unread emails in your inbox.")
    assert trace.rounds[-1].text.startswith("I've retrieved your unread emails")
    assert trace.usage_total is None and trace.ending == "answered"


def test_magentic_one_malformed_lines_are_warnings():
    (trace,), warnings = read(MAGENTIC_MALFORMED)
    assert [(w[1], w[2].split(" (")[0]) for w in warnings] == [
        (2, "not valid JSON: unexpected control character in string: line 1 column 73"),
        (4, "prompt_tokens -5 is not a token count"),
        (5, f"trace {trace.id}: message from 'FileSurfer' with no instruction waiting for it"),
        (6, "not a Magentic-One log entry"),
        (6, "not a Magentic-One log entry"),
        (6, "not a Magentic-One log entry"),
    ]
    assert calls_of(trace) == [("Assistant", {"instruction": "Greet the user."})]
    assert counts_tuple(trace.usage_total) == (None, 7, None, None)


# --- sniffing, CLI ---------------------------------------------------------------------------


def _first_record(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    return json.loads(text.splitlines()[0]) if path.suffix == ".jsonl" else json.loads(text)


def test_fixtures_are_sniffed_as_their_format():
    for path in AUTOGEN.glob("*.json*"):
        assert sniff(_first_record(path)).name == "autogen", path
    for path in MAGENTIC.glob("*.json*"):
        if path != MAGENTIC_MALFORMED:
            assert sniff(_first_record(path)).name == "magentic-one", path


def test_no_other_formats_file_is_sniffed_as_autogen_or_magentic_one():
    assert_sniffed_alone("autogen", [GROUPCHAT, CHAT_RESULT, TASK_RESULT, REAL_AGENTCHAT, REAL_AG2])
    assert_sniffed_alone("magentic-one", [LOG, MAX_ROUNDS, REAL_MAGENTIC])


def test_a_type_that_is_not_a_string_is_no_agentchat_message(tmp_path, cli):
    # A list or an object for "type" once reached the sniffer's set lookup: an internal error.
    message = {"type": [], "source": "user", "models_usage": None, "content": "hi"}
    assert not reader_by_name("autogen").sniff(message)
    assert not reader_by_name("autogen").sniff({"messages": [{**message, "type": {"a": 1}}]})
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(message) + "\n")
    result = cli("replay", "--input-format", "autogen", str(path))
    assert "internal error" not in result.stderr and f"{path.name}:1:" in result.stderr


def test_a_plain_openai_message_list_with_names_stays_openai_chat():
    messages = [{"role": "user", "name": "alice", "content": "hi"}, {"role": "assistant", "name": "bot", "content": "hello"}]
    assert sniff(messages).name == "openai-chat"
    assert sniff(messages + [{"role": "user", "name": "executor", "content": "exitcode: 0 (execution succeeded)\nCode output: 1"}]).name == "autogen"


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(TASK_RESULT, ["list_issues", "Two open bugs"], [GROUPCHAT, TASK_RESULT, REAL_AG2, LOG, REAL_MAGENTIC], tmp_path)


def test_magentic_one_logs_list_reads_as_its_jsonl():
    (lines,), _ = read(MAX_ROUNDS)
    (listed,), warnings = read(MAGENTIC / "max_rounds_logs_list.json")
    assert warnings == []
    assert [(c.name, c.arguments, c.result.content) for c in listed.tool_calls()] == [(c.name, c.arguments, c.result.content) for c in lines.tool_calls()]
    assert counts_tuple(listed.usage_total) == counts_tuple(lines.usage_total)
    assert listed.ending == "limit"


def test_a_magentic_one_log_of_two_runs_is_two_traces(tmp_path):
    joined = tmp_path / "log.jsonl"
    joined.write_bytes(LOG.read_bytes() + MAX_ROUNDS.read_bytes())
    first, second = read(joined)[0]
    assert (first.ending, second.ending) == ("answered", "limit")
    assert (len(first.rounds), len(second.rounds)) == (4, 3)
    assert second.line == 28
