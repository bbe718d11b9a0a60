"""The τ-bench / τ²-bench reader, through the public ``read_traces`` API and once through
the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracecheck.cli.main import app
from tracecheck.readers import sniff

# naive: τ² writes naive local ISO times; they are read as UTC.
from conftest import read_with_diagnostics as read, usage_tuple, utc as naive, warnings_of

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tau_bench"
TAU1 = FIXTURES / "tau_results.json"
TAU1_REACT = FIXTURES / "tau_react.json"
TAU2 = FIXTURES / "tau2_results.json"
TAU2_SIM = FIXTURES / "c0ffee00-1111-4222-8333-944455556666.json"
TAU1_MULTITURN = FIXTURES / "tau_multiturn.json"
TAU2_CORPUS = Path(__file__).resolve().parent / "corpus" / "tau2-bench" / "telecom-workflow_grok-3.json"


def said(trace):
    """Each user message as (the round it precedes, its text)."""
    return [(m.before_round, m.text) for m in trace.user_messages]


# --- τ-bench ----------------------------------------------------------------------------


def test_tau_bench_array_two_tasks_and_a_harness_error():
    traces, diagnostics = read(TAU1)
    assert len(diagnostics) == 0
    assert [t.id for t in traces] == ["task-0/trial-0", "task-1/trial-0", "task-1/trial-1"]
    assert {t.format for t in traces} == {"tau-bench"}
    ok, loop, crashed = traces

    # User-simulator turns are not rounds; replies to the user are rounds without calls.
    assert [len(r.tool_calls) for r in ok.rounds] == [0, 1, 1, 0]
    assert ok.rounds[0].text == "I can help with that. Could you give me your first name, last name and zip code?"
    find, details = [c for c in ok.tool_calls()]
    assert (find.id, find.name, find.arguments) == (
        "call_R9dXkq2LmV7sT4pB1nZw8YcE",
        "find_user_id_by_name_zip",
        {"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"},
    )
    assert find.arguments_raw == '{"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}'
    assert find.result.content == "yusuf_rossi_9620"
    assert find.result.is_error is None  # τ-bench tool messages carry no error flag
    assert details.result.content.startswith('{"order_id": "#W2378156"')
    # No usage and no times in τ-bench.
    assert all(r.usage is None and r.started_at is None and r.ended_at is None for r in ok.rounds)
    assert ok.usage_total is None
    assert ok.labels == {"outcome": "success"} and ok.metadata["reward"] == 1.0
    assert ok.error is None

    assert [c.name for c in loop.tool_calls()] == ["get_order_details"] * 3
    assert [c.arguments for c in loop.tool_calls()] == [{"order_id": "#W6390527"}] * 3
    assert [c.result.content for c in loop.tool_calls()] == ["Error: order not found"] * 3
    assert loop.labels == {"outcome": "failure"} and loop.metadata["reward"] == 0.0

    assert crashed.rounds == []
    assert crashed.error.startswith("litellm.RateLimitError: RateLimitError")
    assert crashed.labels == {"outcome": "failure"}  # the reward 0.0 the harness recorded
    assert crashed.ending == "error"


def test_tau_bench_react_agent_text_actions():
    (trace,), diagnostics = read(TAU1_REACT)
    assert len(diagnostics) == 0
    assert trace.id == "task-5/trial-0"
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0]
    (lookup,) = trace.rounds[0].tool_calls
    assert (lookup.id, lookup.name, lookup.arguments) == ("r1.c1", "get_order_details", {"order_id": "#W4817420"})
    assert lookup.result.content == '{"order_id": "#W4817420", "status": "pending"}'  # "API output: " removed
    # "respond" is a reply to the user, not a tool call.
    assert trace.rounds[1].text.endswith('"arguments": {"content": "Your order #W4817420 is pending."}}')


def test_tau_bench_user_messages_open_turns_and_the_closing_stop_opens_none():
    ok, _, crashed = read(TAU1)[0]
    assert said(ok) == [
        (1, "Hi! I'd like to exchange a keyboard from my order #W2378156."),
        (2, "Sure, Yusuf Rossi, zip 19122."),
        (5, "That's all I needed to know for now. ###STOP###"),  # after the last round
    ]
    assert [r.turn for r in ok.rounds] == [1, 2, 2, 2]
    assert [(t.index, t.user.text[:12], t.reply.text[:20]) for t in ok.turns()] == [
        (1, "Hi! I'd like", "I can help with that"),
        (2, "Sure, Yusuf ", "Your order #W2378156"),
    ]
    assert said(crashed) == [] and crashed.turns() == []


def test_tau_bench_react_api_output_is_a_result_not_the_user():
    (trace,), _ = read(TAU1_REACT)
    assert said(trace) == [(1, "Hi, what's the status of order #W4817420?"), (3, "Thanks! ###STOP###")]
    assert [r.turn for r in trace.rounds] == [1, 1]


def test_tau_bench_multi_turn_dialogue_with_one_stuck_turn():
    (trace,), diagnostics = read(TAU1_MULTITURN)
    assert len(diagnostics) == 0
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 4, 4]
    assert [(t.index, len(t.rounds), t.user.text.split()[0]) for t in trace.turns()] == [
        (1, 4, "Hi!"),
        (2, 5, "Before"),
        (3, 1, "OK,"),
        (4, 2, "Yes,"),
    ]
    # Every turn ends with the agent's reply to the customer; the last is the final answer.
    assert all(t.reply is not None for t in trace.turns()) and trace.answered
    assert trace.user_messages[-1].text == "Thank you, that's all! ###STOP###" and trace.user_messages[-1].before_round == 13
    stuck = [c for c in trace.tool_calls() if c.name == "get_product_details"]
    assert [c.result.content for c in stuck] == ["Error: product not found"] * 4
    assert {c.result.is_error for c in stuck} == {None}  # τ-bench writes no error flag


def test_tau2_user_messages_their_times_and_the_users_own_tool_calls():
    (cancel, phone), _ = read(TAU2)
    assert [(m.before_round, m.text, m.at) for m in cancel.user_messages] == [
        (1, "I need to cancel reservation EHGLP3. My user id is emma_kim_9957.", naive(2025, 6, 17, 10, 0, 3, 10000)),
        (4, "Thank you! ###STOP###", naive(2025, 6, 17, 10, 0, 10, 500000)),
    ]
    assert [r.turn for r in cancel.rounds] == [1, 1, 1]
    # The user's check_status_bar call (requestor "user") and its result are the user's
    # action: neither a round nor a call, nor part of what the user said.
    assert said(phone) == [(1, "My phone has no mobile data."), (2, "It says airplane mode is on.")]
    assert [r.turn for r in phone.rounds] == [1, 2, 2]
    assert "check_status_bar" not in {c.name for c in phone.tool_calls()}
    assert phone.metadata["user_tool_calls"] == 1
    # τ² tool messages name their call in "id" and say whether it failed.
    assert [(c.id, c.result.is_error) for c in phone.tool_calls()] == [
        ("call_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8", True),
        ("call_Qr9St8Uv7Wx6Yz5Ab4Cd3Ef2", True),
    ]


def test_tau2_user_tool_call_ids_and_error_flags_written_as_the_runner_writes_them(tmp_path):
    messages = [
        {"role": "assistant", "content": "Hi! How can I help you today?", "tool_calls": None, "turn_idx": 0,
         "timestamp": "2025-10-05T22:26:20.884706", "cost": 0.0, "usage": None, "raw_data": None},
        {"role": "user", "content": "My data is slow. Number 555-123-2002.", "tool_calls": None, "turn_idx": 1,
         "timestamp": "2025-10-05T22:26:26.162809", "cost": 0.0098, "usage": {"completion_tokens": 45, "prompt_tokens": 3045}},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "name": "get_customer_by_phone",
         "arguments": {"phone_number": "555-123-2002"}, "requestor": "assistant"}], "turn_idx": 2,
         "timestamp": "2025-10-05T22:26:30.596700", "cost": 0.02, "usage": {"completion_tokens": 34, "prompt_tokens": 6776},
         "raw_data": {"finish_reason": "tool_calls", "index": 0, "message": {"role": "assistant"}}},
        {"id": "call_1", "role": "tool", "content": "Error: Customer with phone number 555-123-2002 not found",
         "requestor": "assistant", "error": True, "turn_idx": 3, "timestamp": "2025-10-05T22:26:30.596800"},
        {"role": "assistant", "content": "Could you run a speed test?", "tool_calls": None, "turn_idx": 4,
         "timestamp": "2025-10-05T22:26:33.118069", "cost": 0.02, "usage": {"completion_tokens": 9, "prompt_tokens": 7024},
         "raw_data": {"finish_reason": "stop", "index": 0, "message": {"role": "assistant"}}},
        # The user runs a tool of its own; the tool message repeats the call's id.
        {"role": "user", "content": "Sure, let me run it.\n\n", "tool_calls": [{"id": "call_2", "name": "run_speed_test",
         "arguments": {}, "requestor": "user"}], "turn_idx": 5, "timestamp": "2025-10-05T22:26:35.318328", "cost": 0.01,
         "usage": {"completion_tokens": 37, "prompt_tokens": 3251}},
        {"id": "call_2", "role": "tool", "content": "Speed test failed: No Connection.", "requestor": "user", "error": False,
         "turn_idx": 6, "timestamp": "2025-10-05T22:26:35.318424"},
        {"role": "user", "content": "It failed: no connection at all.", "tool_calls": None, "turn_idx": 7,
         "timestamp": "2025-10-05T22:26:36.569461", "cost": 0.01, "usage": {"completion_tokens": 27, "prompt_tokens": 3304}},
        {"role": "assistant", "content": "Please turn airplane mode off.", "tool_calls": None, "turn_idx": 8,
         "timestamp": "2025-10-05T22:26:38.733103", "cost": 0.02, "usage": {"completion_tokens": 78, "prompt_tokens": 7143},
         "raw_data": {"finish_reason": "stop", "index": 0, "message": {"role": "assistant"}}},
    ]
    simulation = {"id": "5d0b93c0", "task_id": "[mobile_data_issue]airplane_mode_on", "trial": 0, "termination_reason": "user_stop",
                  "reward_info": {"reward": 0.0}, "messages": messages}
    path = tmp_path / "simulation.json"
    path.write_text(json.dumps(simulation), encoding="utf-8")
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    assert [(len(r.tool_calls), r.turn, r.finish_reason) for r in trace.rounds] == [(1, 1, "tool_calls"), (0, 1, "stop"), (0, 2, "stop")]
    (lookup,) = trace.tool_calls()
    assert (lookup.id, lookup.result.is_error) == ("call_1", True)
    assert said(trace) == [(1, "My data is slow. Number 555-123-2002."), (3, "Sure, let me run it.\n\nIt failed: no connection at all.")]
    assert trace.labels == {"outcome": "failure"}


# Independently counted from the file: per simulation, the user's turns (user messages
# with an agent reply after them), the agent's rounds (assistant messages but the
# greeting) and the agent's tool calls; the simulated user ran 148 tools of its own.
CORPUS_TURNS = [6, 6, 5, 7, 10, 11, 8, 10, 5, 12, 13, 9, 6, 12, 7, 13, 17, 11, 11, 18]
CORPUS_ROUNDS = [7, 11, 10, 13, 17, 17, 13, 11, 10, 14, 18, 16, 10, 16, 8, 21, 22, 20, 15, 22]
CORPUS_CALLS = [1, 5, 5, 6, 7, 6, 5, 1, 5, 2, 5, 7, 4, 4, 1, 8, 5, 9, 4, 4]
CORPUS_REWARDS = [1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1]
AGENT_TOOLS = {"get_customer_by_phone", "get_details_by_id", "get_data_usage", "enable_roaming", "refuel_data", "transfer_to_human_agents"}


def test_tau2_corpus_turns_agent_rounds_and_outcomes():
    traces, diagnostics = read(TAU2_CORPUS)
    assert len(diagnostics) == 0
    assert [len(t.turns()) for t in traces] == CORPUS_TURNS
    assert [len(t.rounds) for t in traces] == CORPUS_ROUNDS
    assert [sum(1 for _ in t.tool_calls()) for t in traces] == CORPUS_CALLS
    assert [t.labels["outcome"] for t in traces] == ["success" if r else "failure" for r in CORPUS_REWARDS]
    assert [t.metadata["reward"] for t in traces] == [float(r) for r in CORPUS_REWARDS]
    # Only the agent's tools are calls: the user's run_speed_test, toggle_airplane_mode, ... are not.
    assert {c.name for t in traces for c in t.tool_calls()} == AGENT_TOOLS
    assert sum(t.metadata.get("user_tool_calls", 0) for t in traces) == 148
    assert {t.metadata["greeting"] for t in traces} == {"Hi! How can I help you today?"}

    first = traces[0]
    assert first.id == "task-[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]/trial-0"
    assert [r.turn for r in first.rounds] == [1, 2, 2, 3, 4, 5, 6]
    # The user's speed test (its own tool call) sits between two things it said: one turn.
    assert first.turns()[2].user.text == (
        "Sure, I can do that. Let me run a speed test now.\n\n"
        "I just ran the speed test, and it failed because there's no connection at all. Can you help me figure out what's going on?"
    )
    assert first.user_messages[-1].text.endswith("Thank you for your help!\n\n###STOP###")
    assert first.user_messages[-1].before_round == len(first.rounds) + 1
    assert first.rounds[0].finish_reason == "stop"  # from raw_data, LiteLLM's choice


@pytest.mark.parametrize("reward, outcome", [(1.0, "success"), (0.9999995, "success"), (0.999, "failure"), (0, "failure")])
def test_reward_threshold(tmp_path, reward, outcome):
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"task_id": 3, "reward": reward, "info": {}, "traj": [], "trial": 0}]), encoding="utf-8")
    (trace,), _ = read(path)
    assert trace.labels["outcome"] == outcome


# --- τ²-bench -------------------------------------------------------------------------------


def test_tau2_results_document():
    traces, diagnostics = read(TAU2)
    assert len(diagnostics) == 0
    assert [t.id for t in traces] == ["task-0/trial-0", "task-1/trial-0"]
    cancel, phone = traces

    # The orchestrator's greeting is no model response: no round, kept in metadata.
    assert cancel.metadata["greeting"] == "Hi! How can I help you today?"
    assert [len(r.tool_calls) for r in cancel.rounds] == [1, 1, 0]
    assert [c.name for c in cancel.tool_calls()] == ["get_reservation_details", "cancel_reservation"]
    get = cancel.rounds[0].tool_calls[0]
    assert (get.id, get.arguments) == ("call_gU0pS8mZ1xV4cB7nQ2wE5rT9", {"reservation_id": "EHGLP3"})
    assert get.result.is_error is False  # τ² tool messages say whether the call failed
    assert get.result.ended_at == naive(2025, 6, 17, 10, 0, 4, 903512)
    # Usage from raw_data (with cached tokens), times from the message timestamp.
    assert [usage_tuple(r.usage) for r in cancel.rounds] == [
        (1866, 21, 1792, 0),
        (1990, 19, 1920, 0),
        (2064, 26, 1920, 0),
    ]
    lookup = cancel.rounds[0]
    assert lookup.ended_at == naive(2025, 6, 17, 10, 0, 4, 880000)
    assert lookup.started_at == pytest.approx(naive(2025, 6, 17, 10, 0, 4, 880000) - 1.61)
    assert (lookup.id, lookup.model, lookup.finish_reason) == ("chatcmpl-Bj1aYr2", "gpt-4.1-2025-04-14", "tool_calls")
    assert cancel.labels == {"outcome": "success"}
    assert cancel.error is None
    assert cancel.metadata["termination_reason"] == "user_stop"
    assert cancel.metadata["simulation_id"] == "4b1e6c1a-6f0e-4a8e-9c55-0d7a5f1e2b31"

    # The user's own tool call (requestor "user") and its result are not the agent's.
    assert [c.name for c in phone.tool_calls()] == ["get_customer_by_phone", "get_customer_by_phone"]
    assert [c.result.is_error for c in phone.tool_calls()] == [True, True]
    assert phone.rounds[0].started_at is None  # no generation_time_seconds
    assert phone.error == "simulation ended: max_steps"
    assert phone.labels == {"outcome": "failure"} and phone.metadata["reward"] == 0.0


def test_tau2_single_simulation_file():
    (trace,), diagnostics = read(TAU2_SIM)
    assert trace.id == "task-7/c0ffee00-1111-4222-8333-944455556666"  # no trial
    (search,) = trace.tool_calls()
    assert search.arguments == {"origin": "JFK", "destination": "SFO", "date": "2024-05-20"}
    assert search.result.content == "[]"  # inside a MultiToolMessage
    assert trace.error == "simulation ended: agent_error"
    # No reward: the evaluator never graded it; agent_error is only how it ended.
    assert (trace.labels, trace.ending, trace.outcome) == ({}, "error", "unknown")
    assert warnings_of(diagnostics) == [
        (
            "c0ffee00-1111-4222-8333-944455556666.json",
            1,
            "trace task-7/c0ffee00-1111-4222-8333-944455556666: tool result for unknown call id 'call_unknown_999' (message 4)",
        )
    ]


def test_tau2_directory_results_json_points_at_the_simulations(tmp_path):
    meta = {"timestamp": "2025-06-17T10:00:00", "info": {"git_commit": "x"}, "tasks": [], "simulation_index": [{"id": "a", "task_id": "0", "trial": 0}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(meta), encoding="utf-8")
    traces, diagnostics = read(path)
    assert traces == []
    assert warnings_of(diagnostics) == [
        ("results.json", 1, "τ²-bench results.json of the directory format: the simulations are in simulations/*.json beside it")
    ]


# --- bad input -------------------------------------------------------------------------------


def test_items_without_traj_and_odd_messages_are_reported(tmp_path):
    good = json.loads(TAU1.read_text(encoding="utf-8"))[0]
    items = [
        good,
        {"task_id": 2, "reward": 1.0, "info": {}, "trial": 0},  # no traj
        {"reward": 0.0, "traj": []},  # no task id
        {"task_id": 4, "reward": 0.0, "info": {}, "trial": 0, "traj": [
            "junk",
            {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": "}, "id": "c1", "type": "function"}]},
            {"role": "tool", "tool_call_id": "c9", "name": "f", "content": "?"},
            {"role": "critic", "content": "?"},
        ]},
        good,
    ]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(items, indent=2), encoding="utf-8")
    traces, diagnostics = read(path)
    # The good item twice: the same id twice, told apart by order (readers/identity.py).
    assert [t.id for t in traces] == ["task-0/trial-0", "task-4/trial-0", "task-0/trial-0#2"]
    assert len(traces[2].rounds) == 4  # the last good item is still read
    bad_args = traces[1].rounds[0].tool_calls[0]
    assert bad_args.arguments is None and bad_args.arguments_error.startswith("arguments are not valid JSON")
    warnings = warnings_of(diagnostics)
    assert warnings[:5] == [
        ("mixed.json", 1, "τ-bench item of task 2 has no 'traj' or 'messages' list; skipped (array element 1)"),
        ("mixed.json", 1, "not a τ-bench result or τ²-bench simulation (no task_id); skipped (array element 2)"),
        ("mixed.json", 1, "trace task-4/trial-0: a message that is not a JSON object; skipped (message 1)"),
        ("mixed.json", 1, "trace task-4/trial-0: tool result for unknown call id 'c9' (message 3)"),
        ("mixed.json", 1, "trace task-4/trial-0: message with unknown role 'critic' skipped (message 4)"),
    ]
    assert warnings[5][2].startswith("trace task-4/trial-0: call c1 (f): arguments are not valid JSON: ")
    assert warnings[6:] == [
        ("mixed.json", 1, "trace task-4/trial-0: call c1 (f) has no result"),
        (
            "mixed.json",
            1,
            "this trace ([4]) has the same id as the trace at [0] ('task-0/trial-0'): named 'task-0/trial-0#2' by its order in the file, "
            "so a label or baseline entry for either follows that order",
        ),
    ]


def test_one_result_per_line(tmp_path):
    items = json.loads(TAU1.read_text(encoding="utf-8"))
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    traces, diagnostics = read(path)
    assert [(t.id, t.line) for t in traces] == [("task-0/trial-0", 1), ("task-1/trial-0", 2), ("task-1/trial-1", 3)]
    assert len(diagnostics) == 0


@pytest.mark.parametrize("path", [TAU1, TAU1_REACT, TAU2, TAU2_SIM, TAU1_MULTITURN, TAU2_CORPUS])
def test_sniffing(path):
    assert sniff(json.loads(path.read_text(encoding="utf-8"))).name == "tau-bench"


# --- CLI ---------------------------------------------------------------------------------------


def test_cli_show_and_convert_round_trip(tmp_path):
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(TAU2)])
    assert shown.exit_code == 0, shown.output
    assert "task-0/trial-0" in shown.stdout

    for source in (TAU1, TAU2):
        out = tmp_path / (source.stem + ".jsonl")
        converted = runner.invoke(app, ["convert", str(source), "-o", str(out)])
        assert converted.exit_code == 0, converted.output
        originals, _ = read(source)
        copies, _ = read(out)
        assert [t.id for t in copies] == [t.id for t in originals]
        for a, b in zip(originals, copies):
            assert (b.labels, b.error) == (a.labels, a.error)
            assert [(r.text, usage_tuple(r.usage), r.started_at, r.ended_at) for r in b.rounds] == [
                (r.text, usage_tuple(r.usage), r.started_at, r.ended_at) for r in a.rounds
            ]
            assert [(c.id, c.name, c.arguments, c.result and (c.result.content, c.result.is_error, c.result.ended_at)) for c in b.tool_calls()] == [
                (c.id, c.name, c.arguments, c.result and (c.result.content, c.result.is_error, c.result.ended_at)) for c in a.tool_calls()
            ]


def test_cli_replay_and_show_a_multi_turn_dialogue(cli):
    report = json.loads(cli("replay", "--format", "json", "--select", "R001,F001", str(TAU1_MULTITURN)).stdout)
    (trace,) = report["traces"]
    assert (trace["turns"], trace["rounds"]) == (4, 12)
    assert [(f["code"], f["turn"], f["round"], f["action"]) for f in trace["fires"]] == [
        ("R001", 2, 6, "hint"),
        ("R001", 2, 7, "stop"),
        ("F001", 2, 7, "abort"),
    ]
    # The policy stops turn 2 before round 7's lookup: rounds 8 and 9 never happen, one
    # forced reply does; turns 3 and 4 happen as recorded.
    policy = trace["policy"]
    assert (policy["code"], policy["stopped_at"], policy["saved"]["llm_calls"], policy["saved"]["tool_calls"]) == ("R001", 7, 1, 2)
    shown = cli("show", "--no-guards", str(TAU1_MULTITURN)).stdout
    assert "    user: Before that: is the same bottle available in a bigger size? I might exchange it instead." in shown
    assert "  turn 4\n    user: Yes, go ahead." in shown
    assert "    user: Thank you, that's all! ###STOP###" in shown
