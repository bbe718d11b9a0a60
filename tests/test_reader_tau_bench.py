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

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tau_bench"
TAU1 = FIXTURES / "tau_results.json"
TAU1_REACT = FIXTURES / "tau_react.json"
TAU2 = FIXTURES / "tau2_results.json"
TAU2_SIM = FIXTURES / "c0ffee00-1111-4222-8333-944455556666.json"


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
    assert crashed.labels == {"outcome": "failure"}


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

    assert [len(r.tool_calls) for r in cancel.rounds] == [0, 1, 1, 0]
    assert [c.name for c in cancel.tool_calls()] == ["get_reservation_details", "cancel_reservation"]
    get = cancel.rounds[1].tool_calls[0]
    assert (get.id, get.arguments) == ("call_gU0pS8mZ1xV4cB7nQ2wE5rT9", {"reservation_id": "EHGLP3"})
    assert get.result.is_error is False  # τ² tool messages say whether the call failed
    assert get.result.ended_at == naive(2025, 6, 17, 10, 0, 4, 903512)
    # Usage from raw_data (with cached tokens), times from the message timestamp.
    assert [usage_tuple(r.usage) for r in cancel.rounds] == [
        (1820, 9, 0, 0),
        (1866, 21, 1792, 0),
        (1990, 19, 1920, 0),
        (2064, 26, 1920, 0),
    ]
    second = cancel.rounds[1]
    assert second.ended_at == naive(2025, 6, 17, 10, 0, 4, 880000)
    assert second.started_at == pytest.approx(naive(2025, 6, 17, 10, 0, 4, 880000) - 1.61)
    assert (second.id, second.model, second.finish_reason) == ("chatcmpl-Bj1aYr2", "gpt-4.1-2025-04-14", "tool_calls")
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
    assert trace.labels == {"outcome": "failure"}  # no reward, ended by an error
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
    assert [t.id for t in traces] == ["task-0/trial-0", "task-4/trial-0", "task-0/trial-0"]
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
    assert warnings[6:] == [("mixed.json", 1, "trace task-4/trial-0: call c1 (f) has no result")]


def test_one_result_per_line(tmp_path):
    items = json.loads(TAU1.read_text(encoding="utf-8"))
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    traces, diagnostics = read(path)
    assert [(t.id, t.line) for t in traces] == [("task-0/trial-0", 1), ("task-1/trial-0", 2), ("task-1/trial-1", 3)]
    assert len(diagnostics) == 0


@pytest.mark.parametrize("path", [TAU1, TAU1_REACT, TAU2, TAU2_SIM])
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
