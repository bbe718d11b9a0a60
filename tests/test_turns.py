"""Conversation turns: a user message opens a turn, guards start afresh at each turn
(unless their scope is the run), a stop ends its turn and saves only the rest of it,
an abort ends the run."""

from __future__ import annotations

import json

import pytest

from tracecheck.config import load_settings
from tracecheck.input.diagnostics import TracecheckError
from tracecheck.engine.replay import replay_trace
from tracecheck.guards import guard_by_key
from tracecheck.model import Round, ToolCall, ToolResult, Trace, Usage

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")


def lookup(index: int, order: str, status: str = '{"status": "pending"}') -> Round:
    call = ToolCall(id=f"c{index}", name="get_order", arguments_raw=json.dumps({"order": order}), arguments={"order": order})
    call.result = ToolResult(content=status)
    return Round(index=index, tool_calls=[call], usage=Usage(100 * index, 10))


def reply(index: int, text: str) -> Round:
    return Round(index=index, text=text, usage=Usage(100 * index, 20))


def conversation(*turns: tuple[str, list]) -> Trace:
    """A trace from (user text, [round builders]) pairs, numbered as readers number them."""
    trace = Trace(id="chat", format="native", file="chat.jsonl")
    for text, builders in turns:
        trace.add_user_message(text)
        for build in builders:
            trace.rounds.append(build(len(trace.rounds) + 1))
    trace.number_turns()
    return trace


def guards(*codes: str, **options):
    built = []
    for code in codes:
        cls = guard_by_key(code)
        built.append(cls(cls.Options(**options.get(code, {}))))
    return built


STUCK = [lambda i: lookup(i, "A1")] * 4 + [lambda i: reply(i, "Still pending.")]


def test_user_messages_number_the_turns_and_rounds_know_theirs():
    trace = conversation(
        ("Where is order A1?", [lambda i: lookup(i, "A1"), lambda i: reply(i, "Pending.")]),
        ("And B2?", [lambda i: lookup(i, "B2"), lambda i: reply(i, "Shipped.")]),
        ("Thanks!", [lambda i: reply(i, "You're welcome.")]),
    )
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2, 3]
    assert [(t.index, t.user.text, [r.index for r in t.rounds]) for t in trace.turns()] == [
        (1, "Where is order A1?", [1, 2]),
        (2, "And B2?", [3, 4]),
        (3, "Thanks!", [5]),
    ]
    assert [t.reply.text for t in trace.turns()] == ["Pending.", "Shipped.", "You're welcome."]


def test_two_user_messages_without_an_agent_round_between_them_are_one_turn():
    trace = Trace(id="t", format="native", file="f")
    trace.add_user_message("Hi.")
    trace.add_user_message("Where is A1?")
    trace.rounds.append(lookup(1, "A1"))
    trace.number_turns()
    assert len(trace.user_messages) == 1 and trace.user_messages[0].text == "Hi.\n\nWhere is A1?"
    assert trace.rounds[0].turn == 1


def test_rounds_before_the_first_user_message_are_turn_one():
    trace = Trace(id="t", format="native", file="f")
    trace.rounds.append(lookup(1, "A1"))
    trace.add_user_message("And B2?")
    trace.rounds.append(lookup(2, "B2"))
    trace.number_turns()
    assert [r.turn for r in trace.rounds] == [1, 2]
    assert [t.user for t in trace.turns()][0] is None


def test_a_stop_saves_the_rest_of_its_turn_only_and_later_turns_happen_as_recorded():
    trace = conversation(
        ("Where is A1?", STUCK),  # rounds 1-5: R001 stops round 3 before it runs
        ("Cancel it then.", [lambda i: lookup(i, "A1", "cancelled"), lambda i: reply(i, "Cancelled.")]),  # 6-7
    )
    result = replay_trace(trace, guards("R001"))
    (stop,) = result.policy.stops
    assert (stop.code, stop.turn, stop.round) == ("R001", 1, 3)
    saved = stop.saved
    # Rounds 4 and 5 of turn 1 never happen (round 3's call neither), one forced reply does;
    # turn 2 is untouched.
    assert (saved.llm_calls, saved.tool_calls) == (1, 2)
    assert saved.tokens == (410 + 520) - saved.forced_answer_tokens
    assert saved.forced_answer_tokens == 300 + 10 + 40 + 20  # round 3's context, the prompt, the real reply
    assert result.policy.later_turns_as_recorded
    assert result.policy.outcome_change is None  # the run still ends with its own reply


def test_turn_scoped_guards_start_afresh_and_a_run_scoped_one_does_not():
    # The same call once per turn, three turns: no streak within any turn.
    once = [lambda i: lookup(i, "A1"), lambda i: reply(i, "Pending.")]
    trace = conversation(("A1?", once), ("A1 now?", once), ("And now?", once))
    assert replay_trace(trace, guards("R001", "R002")).fires == []
    # Across the run, the calls are the same... but not in a row (replies between):
    # R002's cache still sees them.
    fires = replay_trace(trace, guards("R002", R002={"scope": "run"})).fires
    assert [(f.code, f.turn, f.round, f.action.value) for f in fires] == [("R002", 2, 3, "block"), ("R002", 3, 5, "block")]


def test_a_guard_that_stopped_comes_back_at_the_next_turn():
    trace = conversation(("Where is A1?", STUCK), ("Try again?", STUCK))
    result = replay_trace(trace, guards("R001"))
    assert [(s.turn, s.round, s.action.value) for s in result.policy.stops] == [(1, 3, "stop"), (2, 8, "stop")]
    assert result.policy.saved.llm_calls == 2 and result.policy.saved.tool_calls == 4


def test_an_abort_ends_the_whole_run():
    failing = [lambda i: lookup(i, "A1", "Error: database unavailable")] * 3 + [lambda i: reply(i, "Sorry.")]
    trace = conversation(("Where is A1?", failing), ("Hello?", [lambda i: reply(i, "Still down.")]))
    for rnd in trace.rounds:
        for call in rnd.tool_calls:
            call.result.is_error = True
    result = replay_trace(trace, guards("F001"))
    (abort,) = result.policy.stops
    assert (abort.code, abort.action.value, abort.round) == ("F001", "abort", 3)
    assert abort.saved.llm_calls == 2  # round 4 of turn 1 and turn 2's reply
    assert result.policy.outcome_change == "answer → aborted, no answer"


def test_scope_is_an_option_of_every_guard_validated_like_the_others():
    settings = load_settings(sets=["R001.scope=run", "B002.budget=100"], preset="seeds")
    assert settings.options["R001"].scope == "run"
    assert settings.options["B002"].scope == "run"  # budgets cover the run by default
    assert settings.options["P001"].scope == "turn"
    with pytest.raises(TracecheckError, match="scope"):
        load_settings(sets=["R001.scope=session"])


def test_the_json_report_gives_every_round_and_fire_its_turn(tmp_path, cli):
    from conftest import write_jsonl

    def lookup_events(n: int) -> list[dict]:
        return [
            {"type": "round", "trace": "chat", "tool_calls": [{"id": f"c{n}", "name": "get_order", "arguments": '{"order": "A1"}'}]},
            {"type": "result", "trace": "chat", "call_id": f"c{n}", "content": '{"status": "pending"}'},
        ]

    events = [
        {"type": "user", "trace": "chat", "text": "Where is A1?"},
        *lookup_events(1),
        {"type": "round", "trace": "chat", "text": "Pending."},
        {"type": "user", "trace": "chat", "text": "Check again, please."},
        *lookup_events(2),
        *lookup_events(3),
        *lookup_events(4),
        {"type": "round", "trace": "chat", "text": "Still pending."},
    ]
    path = write_jsonl(tmp_path / "chat.jsonl", events)
    result = cli("replay", "--format", "json", "--select", "R001", str(path))
    trace = json.loads(result.stdout)["traces"][0]
    assert trace["turns"] == 2
    assert trace["turn_rounds"] == [
        {"turn": 1, "first_round": 1, "last_round": 2},
        {"turn": 2, "first_round": 3, "last_round": 6},
    ]
    # R001 counts from turn 2's first lookup: turn 1's identical call is another turn.
    assert [(f["turn"], f["round"], f["action"]) for f in trace["fires"]] == [(2, 4, "hint"), (2, 5, "stop")]
    assert trace["policy"]["stops"][0]["turn"] == 2
    shown = cli("show", "--no-guards", str(path)).stdout
    assert "    user: Where is A1?" in shown and "    user: Check again, please." in shown
    assert "  turn 2" in shown


def _call_events(trace: str, n: int, name: str, arguments: str, result: str) -> list[dict]:
    return [
        {"type": "round", "trace": trace, "tool_calls": [{"id": f"c{n}", "name": name, "arguments": arguments}]},
        {"type": "result", "trace": trace, "call_id": f"c{n}", "content": result},
    ]


def test_a_call_blocked_in_the_round_a_stop_cuts_is_counted_once(tmp_path, cli):
    from conftest import write_jsonl

    events = [{"type": "user", "trace": "t", "text": "q"}]
    for n, (arguments, result) in enumerate([('{"a":1}', "r1"), ('{"a":1}', "r1"), ('{"a":2}', "r2")]):
        events += _call_events("t", n, "get", arguments, result)
    events.append({"type": "round", "trace": "t", "text": "ok"})
    path = write_jsonl(tmp_path / "t.jsonl", events)
    # R002 blocks round 2's call; B001 stops before round 2's tools: the call is saved once.
    result = cli("replay", "--format", "json", "--set", "B001.max_rounds=1", "--set", "B001.final_window=0", str(path))
    policy = json.loads(result.stdout)["traces"][0]["policy"]
    assert policy["stops"][0]["code"] == "B001" and policy["stops"][0]["round"] == 2
    assert policy["saved"]["tool_calls"] == 2 and policy["blocked_calls"] == 0


def test_the_policy_replays_later_turns_without_the_rounds_it_cut(tmp_path, cli):
    from conftest import write_jsonl

    events = [{"type": "user", "trace": "t", "text": "q1"}]
    for n in range(3):
        events += _call_events("t", n, "get", '{"a":1}', "same")
    for n in range(3, 6):
        events += _call_events("t", n, "fetch", json.dumps({"n": n}), "Error: boom")
    events += [{"type": "round", "trace": "t", "text": "sorry"}, {"type": "user", "trace": "t", "text": "q2"}]
    for n in range(6, 9):
        events += _call_events("t", n, "fetch", json.dumps({"m": n}), "Error: boom")
    events.append({"type": "round", "trace": "t", "text": "sorry again"})
    path = write_jsonl(tmp_path / "t.jsonl", events)

    report = json.loads(cli("replay", "--format", "json", str(path)).stdout)["traces"][0]
    # Alone, F001 aborts in turn 1 (round 6), a round the policy had already cut; together,
    # R001 ends turn 1 at round 3, and F001 first aborts in turn 2.
    assert ("F001", 1, 6, "abort") in [(f["code"], f["turn"], f["round"], f["action"]) for f in report["fires"]]
    assert [(s["code"], s["turn"], s["round"], s["action"]) for s in report["policy"]["stops"]] == [
        ("R001", 1, 3, "stop"),
        ("F001", 2, 10, "abort"),
    ]
    # Failures inside the rounds R001 cut are not "new information" about R001's stop.
    assert report["policy"]["stops"][0]["new_information"] is None


def test_a_run_total_alone_feeds_guards_what_a_live_agent_could_know(tmp_path):
    # B002 on a trace with only a run total: its verdicts must not depend on rounds to come.
    from tracecheck.config import load_settings
    from tracecheck.engine.replay import replay_trace
    from tracecheck.readers.load import read_traces

    def events(rounds: int) -> list[dict]:
        out = []
        for n in range(rounds):
            out += _call_events("t", n, "read", json.dumps({"part": n}), "x" * 400)
        return out + [{"type": "end", "trace": "t", "usage": {"input_tokens": 60000, "output_tokens": 600}}]

    from conftest import write_jsonl

    settings = load_settings(sets=["B002.budget=300"], preset="seeds")
    stops = []
    for rounds in (4, 8):
        (trace,) = read_traces([str(write_jsonl(tmp_path / f"{rounds}.jsonl", events(rounds)))])
        result = replay_trace(trace, settings.build())
        stops.append([(f.code, f.round) for f in result.fires if f.action.ends_run])
        assert "estimated" in next(f.reason for f in result.fires if f.code == "B002")
    assert stops[0] == stops[1] == [("B002", 3)]


def test_a_trace_without_rounds_keeps_its_measured_run_total(tmp_path, cli):
    from conftest import write_jsonl

    path = write_jsonl(
        tmp_path / "t.jsonl",
        [{"type": "user", "trace": "b", "text": "q"}, {"type": "end", "trace": "b", "usage": {"input_tokens": 100, "output_tokens": 5}}],
    )
    trace = json.loads(cli("replay", "--format", "json", str(path)).stdout)["traces"][0]
    assert (trace["tokens"], trace["tokens_basis"], trace["policy"]["blocked_seconds"]) == (105, "measured", None)
