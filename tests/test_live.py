"""The live API: a Monitor fed an agent's rounds decides what replay's policy decides on
the recording of the same run, for every sample and every preset (both step the one
``engine.policy.Policy``: a change to it shows in both); it reads tool calls
and results in the shapes agents hold; it validates settings like the CLI; and a
Recorder turns the live run into a trace that replay reads back with the same verdicts."""

from __future__ import annotations

import copy
import json
import re

import pytest

from conftest import ROOT, SAMPLES
from tracecheck import Decision, Monitor, Recorder, closing_messages
from tracecheck.config import load_settings
from tracecheck.engine.costs import round_costs
from tracecheck.engine.policy import Policy
from tracecheck.engine.replay import replay_pass, replay_trace
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.presets import PRESETS
from tracecheck.readers.load import read_traces

TRACES = [t for t in read_traces([str(SAMPLES)], Diagnostics())]


def feed(monitor: Monitor, trace) -> list[tuple[int, str, str, str]]:
    """Run the recording through the monitor as its agent loop would have: after a stop
    the rest of the turn never happens (the agent gave its forced answer), after an
    abort nothing does. Returns every verdict: (round, phase, code, action)."""
    said = {}
    for message in trace.user_messages:
        said.setdefault(message.before_round, []).append(message.text)
    seen = []

    def note(rnd, phase, decision: Decision):
        seen.extend((rnd.index, phase, code, v.action.value) for code, v in decision.verdicts)

    for rnd in trace.rounds:
        for text in said.get(rnd.index, ()):
            monitor.new_turn(text)
        if monitor.aborted:
            break
        if monitor.stopped:
            continue
        if rnd.tool_calls:
            calls = [(c.id, c.name, c.arguments_raw) for c in rnd.tool_calls]
            decision = monitor.before_tools(calls, text=rnd.text, usage=rnd.usage)
            note(rnd, "before_tools", decision)
            if decision.ends_turn:
                continue  # the tools never run
            results = [(c.id, c.result.content, c.result.is_error) for c in rnd.tool_calls if c.result is not None]
            note(rnd, "after_tools", monitor.after_tools(results))
        else:
            note(rnd, "final", monitor.final(rnd.text, usage=rnd.usage))
    return seen


def policy_verdicts(trace, settings, observe=None) -> list[tuple[int, str, str, str]]:
    """Every verdict the policy's guards give when they run together (replay's policy pass)."""
    fires = replay_pass(trace, settings.build(), round_costs(trace), together=True, observe=observe)
    return [(f.round, f.phase.value, f.code, f.action.value) for f in fires]


# A real five-turn conversation (the same order looked up again and again in turn 2) under
# guards that block (R004), stop the turn (P004) and, counting rounds across turns, abort
# the run in turn 3 (B001); B002, with a budget never reached, shows the token context.
LOOKUP_LOOP = next(t for t in TRACES if t.id == "tau_retail_order_lookup_loop")
EVERY_ACTION = {
    "select": ["R004", "P004", "B001", "B002"],
    "options": {"B001": {"max_rounds": 4, "final_window": 2, "required_all": ["refund_order"], "scope": "run"}, "B002": {"budget": 10**9}},
}
BLOCK_STOP_ABORT = [
    (6, "before_tools", "R004", "block"),
    (6, "after_tools", "P004", "stop"),
    (9, "before_tools", "B001", "abort"),
]


def without_usage(trace):
    bare = copy.deepcopy(trace)
    for rnd in bare.rounds:
        rnd.usage = None
    return bare


@pytest.mark.parametrize("trace", [LOOKUP_LOOP, without_usage(LOOKUP_LOOP)], ids=["measured", "estimated"])
def test_a_multi_turn_run_with_a_block_a_stop_and_an_abort_is_judged_alike_live_and_in_replay(trace):
    monitor = Monitor(language="en", metadata=trace.metadata, **EVERY_ACTION)
    budget = next(g for g in monitor.guards if g.code == "B002")
    live_tokens = []
    monitor.listeners.append(lambda kind, *_: kind == "user" or live_tokens.append((budget.state()["tokens"], budget.state()["estimated"])))
    live = feed(monitor, trace)
    assert [v for v in live if v[3] != "hint"] == BLOCK_STOP_ABORT
    assert monitor.aborted and {r.turn for r in monitor.trace.rounds} == {1, 2, 3}

    guards = monitor.settings.build()
    replayed_budget = next(g for g in guards if g.code == "B002")
    replayed_tokens = []
    fires = replay_pass(trace, guards, round_costs(trace), together=True, observe=lambda *_: replayed_tokens.append((replayed_budget.state()["tokens"], replayed_budget.state()["estimated"])))
    assert [(f.round, f.phase.value, f.code, f.action.value) for f in fires] == live
    # The token context, phase by phase: the Monitor's running estimate is replay's.
    assert live_tokens == replayed_tokens and len(live_tokens) == 12
    assert live_tokens[-1][1] is (trace is not LOOKUP_LOOP)
    policy = replay_trace(trace, monitor.settings.build()).policy
    assert [(s.round, s.code) for s in policy.stops] == [(6, "P004"), (9, "B001")] and len(policy.blocks) == 1


def test_a_policy_change_made_in_the_engine_shows_in_replay_and_live_alike(monkeypatch):
    before = feed(Monitor(language="en", metadata=LOOKUP_LOOP.metadata, **EVERY_ACTION), LOOKUP_LOOP)
    # Another policy, changed in one place: a stop ends the run, not only its turn.
    new_turn = Policy.new_turn

    def stops_end_the_run(policy):
        policy.aborted.update(policy.stopped)
        new_turn(policy)

    monitor = Monitor(language="en", metadata=LOOKUP_LOOP.metadata, **EVERY_ACTION)
    monkeypatch.setattr(Policy, "new_turn", stops_end_the_run)
    live = feed(monitor, LOOKUP_LOOP)
    assert live == [v for v in before if v[0] <= 6] and monitor.aborted  # no abort of B001's in turn 3: nobody looks
    assert policy_verdicts(LOOKUP_LOOP, monitor.settings) == live


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_live_run_and_the_replay_of_its_recording_reach_the_same_verdicts(preset):
    settings = load_settings(preset=preset, cwd=ROOT)
    for trace in TRACES:
        monitor = Monitor(settings=settings, metadata=trace.metadata, trace_id=trace.id, language="en")
        assert feed(monitor, trace) == policy_verdicts(trace, settings), trace.id
        stops = [(s.round, s.code) for s in replay_trace(trace, settings.build()).policy.stops]
        assert [(r, c) for r, p, c, a in feed(Monitor(settings=settings, metadata=trace.metadata), trace) if a in ("stop", "abort")] == stops


def test_seed_000_weather_loop_stops_before_round_3_with_a_closing_prompt():
    trace = next(t for t in TRACES if t.id == "seed000_weather_loop")
    monitor = Monitor(preset="seed-000")
    monitor.new_turn(trace.user_messages[0].text if trace.user_messages else "今天天气怎么样")
    decisions = []
    for rnd in trace.rounds:
        openai_calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_raw}} for c in rnd.tool_calls]
        decision = monitor.before_tools(openai_calls, text=rnd.text)
        decisions.append(decision)
        if decision.stop:
            break
        monitor.after_tools([{"role": "tool", "tool_call_id": c.id, "content": c.result.content} for c in rnd.tool_calls])
    assert [d.action for d in decisions] == ["continue", "continue", "stop"]
    assert decisions[-1].message
    request = closing_messages([{"role": "user", "content": "今天天气怎么样"}], decisions[-1])
    assert request[-1] == {"role": "user", "content": decisions[-1].message}
    anthropic = closing_messages([], decisions[-1], style="anthropic")
    assert anthropic[-1]["content"][0] == {"type": "text", "text": decisions[-1].message}


def test_tool_calls_and_results_in_every_shape_agents_hold():
    # Each shape writes its JSON differently: compare arguments as sorted-key JSON.
    monitor = Monitor(preset="patchcat", options={"R001": {"canonical_args": True}})
    shapes = [
        [{"id": "a", "type": "function", "function": {"name": "query_db", "arguments": '{"status": "pending"}'}}],  # OpenAI chat
        [{"type": "tool_use", "id": "b", "name": "query_db", "input": {"status": "pending"}}],  # Anthropic
        [{"type": "function_call", "call_id": "c", "name": "query_db", "arguments": '{"status": "pending"}'}],  # Responses
    ]
    results = [
        [{"role": "tool", "tool_call_id": "a", "content": "[]"}],
        [{"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "[]"}]}],
        {"c": "[]"},
    ]
    actions = []
    for calls, result in zip(shapes, results):
        decision = monitor.before_tools(calls)
        actions.append(decision.action)
        if decision.ends_turn:
            break
        monitor.after_tools(result)
    assert actions == ["continue", "hint", "stop"]  # seed 004: hint at the 2nd identical call, halt at the 3rd
    assert monitor.trace.rounds[1].tool_calls[0].arguments == {"status": "pending"}  # parsed, as readers do
    assert monitor.trace.rounds[1].tool_calls[0].result.content == "[]"
    with pytest.raises(ValueError, match="LangChain|cannot read"):
        monitor.before_tools([42])


def test_blocked_calls_get_their_synthetic_result_and_the_run_goes_on():
    monitor = Monitor(preset="roo")  # the 4th identical call is refused
    for k in range(4):
        decision = monitor.before_tools([("q", {"x": 1})])
        if decision.blocked:
            break
        monitor.after_tools(["same"])
    assert decision.action == "block" and list(decision.blocked) == ["call_4_1"]
    assert "repetition limit" in decision.blocked["call_4_1"].lower()
    monitor.after_tools([])  # the agent ran nothing
    assert monitor.trace.rounds[-1].tool_calls[0].result.content == decision.blocked["call_4_1"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"options": {"P001": {"containment": 2.0}}}, "P001.containment in options: 2.0 is above the maximum 1.0"),
        ({"options": {"P001": {"threshhold": 2}}}, "P001 has no option 'threshhold'"),
        ({"options": {"X999": {"a": 1}}}, "unknown guard 'X999'"),
        ({"preset": "nope"}, "unknown preset 'nope'"),
        ({"select": ["Q"]}, "unknown guard 'Q'"),
        ({"language": "fr"}, "language must be auto, en or zh"),
    ],
)
def test_settings_are_validated_like_the_command_line(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        Monitor(**kwargs)


def test_from_config_reads_the_same_file_replay_reads(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tracecheck]\nextend-preset = "default"\n[tool.tracecheck.guards.P004]\nthreshold = 5\n')
    monitor = Monitor.from_config(cwd=str(tmp_path))
    p004 = next(g for g in monitor.guards if g.code == "P004")
    assert p004.options.threshold == 5 and monitor.settings.preset == "default"


def test_a_recorded_live_run_replays_to_the_same_verdicts(tmp_path):
    path = tmp_path / "live.jsonl"
    monitor = Monitor(preset="default", trace_id="run-1", metadata={"agent": "demo"})
    recorder = Recorder(path, labels={"outcome": "failure"}).attach(monitor)
    monitor.new_turn("Which orders are pending?")
    live = []
    for k in range(5):
        decision = monitor.before_tools([{"id": f"c{k}", "type": "function", "function": {"name": "query_db", "arguments": '{"status": "pending"}'}}], usage={"prompt_tokens": 400 + 50 * k, "completion_tokens": 20})
        live += [(code, v.action.value) for code, v in decision.verdicts]
        if decision.ends_turn:
            break
        decision = monitor.after_tools([{"role": "tool", "tool_call_id": f"c{k}", "content": "[]"}])
        live += [(code, v.action.value) for code, v in decision.verdicts]
        if decision.ends_turn:
            break
    recorder.close()
    (trace,) = read_traces([str(path)], Diagnostics())
    assert trace.id == "run-1" and trace.labels["outcome"] == "failure" and len(trace.rounds) == 3
    assert trace.rounds[0].usage.input_tokens == 400
    replayed = replay_trace(trace, load_settings(preset="default", cwd=ROOT).build())
    # P004 stops at the 3rd identical answer. Replayed alone, F003 would hint at that same
    # answer in the same phase; live, the loop is left at the stop and F003 is not asked.
    assert live == [("P004", "stop")]
    assert [(f.code, f.action.value) for f in replayed.fires] == live + [("F003", "hint")]
    assert replayed.fires[0].round == replayed.fires[1].round and replayed.fires[0].phase == replayed.fires[1].phase
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["type"] for e in events][:3] == ["trace", "labels", "user"] and events[-1]["type"] == "end"
    noted = [e for e in events if "decisions" in e]
    assert [(e["type"], e.get("call_id")) for e in noted] == [("result", "c2")]  # P004 stops after the 3rd result
    assert [(d["guard"], d["action"], d["reason"]) for d in noted[0]["decisions"]] == [("P004", "stop", replayed.fires[0].reason)]


def test_a_guard_built_in_code_checks_its_options_as_the_cli_does():
    from tracecheck.guards.p001_similar_query_stagnation import SimilarQueryStagnation

    for bad, message in (({"containment": 2.0}, "above the maximum 1.0"), ({"tokenizer": "x"}, "not one of char, jieba"), ({"threshold": "2"}, "not a valid int")):
        with pytest.raises(ValueError, match=message):
            SimilarQueryStagnation(**bad)
    assert SimilarQueryStagnation(containment=0.75).options.containment == 0.75


def test_the_model_hears_the_seeds_messages_in_the_language_of_the_conversation():
    def third_identical_call(monitor):
        for k in range(3):
            decision = monitor.before_tools([("query_db", {"status": "pending"})])
            if decision.ends_turn:
                return decision
            hint = decision
            monitor.after_tools(["[]"])
        raise AssertionError("no stop")

    english = Monitor(preset="patchcat")
    english.new_turn("Which orders are pending?")
    stop = third_identical_call(english)
    assert stop.message.startswith("Observation: Execution halted by Deadlock Breaker (3 identical calls)")
    chinese = Monitor(preset="patchcat")
    chinese.new_turn("有哪些待处理的订单？")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in third_identical_call(chinese).message)
    forced = Monitor(preset="patchcat", language="en")
    forced.new_turn("有哪些待处理的订单？")
    assert third_identical_call(forced).message.startswith("Observation:")


def test_a_bad_call_or_result_raises_and_leaves_the_monitor_as_it_was():
    monitor = Monitor(preset="default")
    with pytest.raises(ValueError, match="needs the round's tool calls"):
        monitor.before_tools([])
    assert monitor.trace.rounds == []
    monitor.before_tools([{"id": "c1", "type": "function", "function": {"name": "q", "arguments": "{}"}}])
    with pytest.raises(ValueError, match=r"unknown call id\(s\) 'C1'; this round's calls are 'c1'"):
        monitor.after_tools([{"role": "tool", "tool_call_id": "C1", "content": "[]"}])
    with pytest.raises(ValueError, match="a result tuple is"):
        monitor.after_tools([("c1",)])
    monitor.after_tools([{"role": "tool", "tool_call_id": "c1", "content": "[]"}])  # still pending: now answered
    assert [r.index for r in monitor.trace.rounds] == [1] and monitor.trace.rounds[0].tool_calls[0].result.content == "[]"


def test_a_recorded_block_replays_as_done_not_as_a_saving_or_stale_data(tmp_path):
    path = tmp_path / "blocked.jsonl"
    monitor = Monitor(preset="crewai", trace_id="b")  # the 2nd identical call is refused
    recorder = Recorder(path).attach(monitor)
    monitor.new_turn("Any pending orders?")
    blocked = []
    for k in range(3):
        decision = monitor.before_tools([(f"c{k}", "query_db", {"status": "pending"})])
        blocked += list(decision.blocked)
        monitor.after_tools([] if decision.blocked else [(f"c{k}", "[]")])
    monitor.final("None are pending.")
    recorder.close()
    assert blocked == ["c1", "c2"]
    (trace,) = read_traces([str(path)], Diagnostics())
    assert [c.result.blocked for r in trace.rounds for c in r.tool_calls] == [False, True, True]
    policy = replay_trace(trace, load_settings(preset="crewai", cwd=ROOT).build()).policy
    assert policy.stale_blocks == 0 and policy.blocked_calls == 0 and policy.saved is None


def run_until_stopped(monitor: Monitor, *, answer: str | None = "No orders are pending.") -> Decision:
    """The same query answered the same way until a guard stops the turn (the tools of a
    round stopped before them never run); then the forced answer, given to the monitor."""
    monitor.new_turn("Which orders are pending?")
    for k in range(1, 8):
        call = {"id": f"c{k}", "type": "function", "function": {"name": "query_db", "arguments": '{"status": "pending"}'}}
        decision = monitor.before_tools([call], usage={"prompt_tokens": 300 + 40 * k, "completion_tokens": 20})
        if not decision.stop:
            decision = monitor.after_tools([{"role": "tool", "tool_call_id": f"c{k}", "content": "[]"}])
        if decision.stop:
            if answer is not None:
                assert monitor.final(answer, usage={"prompt_tokens": 600, "completion_tokens": 9}).verdicts == []
            return decision
    raise AssertionError("no stop")


def recorded(path, preset: str, **kwargs):
    monitor = Monitor(preset=preset, **kwargs)
    recorder = Recorder(path).attach(monitor)
    run_until_stopped(monitor)
    recorder.close()
    return monitor


@pytest.mark.parametrize(("preset", "stop", "phase"), [("default", ("P004", 3), "after_tools"), ("patchcat", ("R001", 3), "before_tools")])
def test_a_run_the_monitor_stopped_replays_as_what_happened(tmp_path, cli, preset, stop, phase):
    path = tmp_path / "stopped.jsonl"
    recorded(path, preset)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    rounds = [e for e in events if e["type"] == "round"]
    assert [e.get("forced") for e in rounds] == [None, None, None, True] and rounds[-1]["text"] == "No orders are pending."
    report = json.loads(cli("replay", "--format", "json", "--preset", preset, str(path)).stdout)
    (trace,) = report["traces"]
    assert trace["answered"] and trace["error"] is None
    policy = trace["policy"]
    assert [(s["code"], s["round"], s["phase"], s["already_stopped"]) for s in policy["stops"]] == [(*stop, phase, True)]
    # The stop was made and its forced answer (round 4, measured) is in the recording: the
    # replay charges no second one and saves nothing (round 3's call never ran, before tools).
    saved = policy["saved"]
    assert (saved["llm_calls"], saved["tool_calls"], saved["tokens"], saved["forced_answer_tokens"]) == (0, 0, 0, None)
    assert policy["outcome_change"] is None and policy["possible_harm"] is None
    assert report["totals"]["saved"]["llm_calls"] == 0 and report["totals"]["saved"]["tokens"] == 0
    text = cli("replay", "--preset", preset, str(path)).stdout
    assert f"stop at round 3 {phase.replace('_', ' ')} ({stop[0]}) → saves nothing\n" in text
    assert "the recorded run was stopped here too: round 4 is its forced answer" in text
    assert "forced answer charged" not in text and "costs" not in text and "without an answer" not in text
    for format in ("markdown", "html"):
        assert "the recorded run was stopped here too: round 4 is its forced answer" in cli("replay", "--format", format, "--preset", preset, str(path)).stdout
    # Without the mark, round 4 reads as the run's own reply, which a stop replaces by an
    # estimated forced answer: the charge a recording without it got.
    path.write_text(path.read_text().replace(',"forced":true', ""))
    unmarked = json.loads(cli("replay", "--format", "json", "--preset", preset, str(path)).stdout)["traces"][0]["policy"]
    assert unmarked["stops"][0]["already_stopped"] is False and unmarked["saved"]["forced_answer_tokens"] is not None


def test_a_replay_that_stops_before_the_monitor_did_charges_one_forced_answer_for_the_rest(tmp_path, cli):
    path = tmp_path / "stopped.jsonl"
    recorded(path, "default")  # P004 stopped it live after round 3's tools
    report = json.loads(cli("replay", "--format", "json", "--set", "P004.threshold=2", str(path)).stdout)
    policy = report["traces"][0]["policy"]
    assert [(s["code"], s["round"], s["already_stopped"]) for s in policy["stops"]] == [("P004", 2, False)]
    # Cut: round 3 (its call) and the recorded forced answer, replaced by one forced answer.
    assert (policy["saved"]["llm_calls"], policy["saved"]["tool_calls"]) == (1, 1)
    assert policy["saved"]["forced_answer_tokens"] > 0


def test_each_monitor_records_its_own_trace_and_runs_appended_to_one_file_stay_apart(tmp_path, cli):
    path = tmp_path / "runs.jsonl"
    first, second = recorded(path, "default"), recorded(path, "default")
    named = recorded(path, "default", trace_id="nightly-7")
    assert re.fullmatch(r"run-[0-9a-f]{12}", first.trace.id) and first.trace.id != second.trace.id and named.trace.id == "nightly-7"
    result = cli("replay", "--format", "json", str(path))
    assert result.exit_code == 0 and result.stderr == ""
    assert [t["id"] for t in json.loads(result.stdout)["traces"]] == [first.trace.id, second.trace.id, "nightly-7"]


def test_the_forced_answer_is_the_reply_right_after_a_stop_only():
    monitor = Monitor(preset="default")
    run_until_stopped(monitor, answer=None)
    monitor.new_turn("And the shipped ones?")  # the stop's answer never came: a new turn
    monitor.final("Two were shipped.")
    run_until_stopped(monitor, answer=None)
    monitor.before_tools([("query_db", {"status": "shipped"})])  # the agent went on with tools
    monitor.after_tools(["[]"])
    monitor.final("Done.")
    assert [r.forced for r in monitor.trace.rounds if r.is_final] == [False, False]
    run_until_stopped(monitor)
    assert monitor.trace.rounds[-1].forced


def test_a_run_a_guard_aborted_is_recorded_as_ended_without_an_answer(tmp_path):
    path = tmp_path / "aborted.jsonl"
    monitor = Monitor(preset="openhands")  # F002: the same call answered by the same error 3 times aborts
    recorder = Recorder(path).attach(monitor)
    monitor.new_turn("Read the config.")
    for k in range(3):
        decision = monitor.before_tools([(f"c{k}", "read_file", {"path": "config.yaml"})])
        decision = monitor.after_tools([(f"c{k}", "Error: ENOENT: no such file", True)])
    assert decision.abort
    recorder.close()
    (trace,) = read_traces([str(path)], Diagnostics())
    assert trace.error == "aborted by tracecheck" and not trace.answered
