"""The replay engine through the library API: policy vs alone, savings, prefixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck.config import load_settings
from tracecheck.engine.costs import estimate_tokens
from tracecheck.engine.replay import replay_trace
from tracecheck.guards.base import Action, Phase
from tracecheck.guards.examples import Call, Example, answer, calls, search
from tracecheck.guards.p001_similar_query_stagnation import SimilarQueryStagnation
from tracecheck.guards.r001_identical_call_streak import IdenticalCallStreak
from tracecheck.model import Usage
from tracecheck.text.similarity import containment, jaccard
from tracecheck.text.tokenizers import char_tokens

T0 = 1_772_615_700.0


def timed(example: Example, llm: float = 2.0, tool: float = 5.0, usage: bool = True):
    """The example's trace with timestamps (each round: LLM `llm` s, then tools `tool` s)
    and usage (input grows by 600 per round, 30 output)."""
    trace = example.trace()
    now = T0
    for rnd in trace.rounds:
        rnd.started_at, rnd.ended_at = now, now + llm
        now += llm
        if usage:
            rnd.usage = Usage(input_tokens=600 * rnd.index, output_tokens=30)
        if rnd.tool_calls:
            for call in rnd.tool_calls:
                call.result.started_at, call.result.ended_at = now, now + tool
            now += tool
    return trace


WEATHER = Example(
    "weather",
    (
        search("天气"),
        search("今日天气 气温"),
        search("今日天气 气温 晴雨"),
        search("今日天气 气温 晴雨 风力"),
        search("北京今日天气 气温"),
        answer("无法确定今日天气。"),
    ),
)


def test_containment_sees_rewording_jaccard_does_not_and_whitespace_never_does():
    a, b = frozenset(char_tokens("北京天气")), frozenset(char_tokens("北京今日天气 气温"))
    assert a == {"北", "京", "天", "气"} and len(b) == 7
    assert containment(a, b) == 1.0
    assert jaccard(a, b) == pytest.approx(4 / 7)
    assert jaccard(a, b) < 0.8 <= containment(a, b)
    # Split on whitespace only, Chinese phrases are whole tokens and share nothing.
    assert containment(frozenset("北京天气".split()), frozenset("北京今日天气 气温".split())) == 0.0


def test_stop_before_tools_saves_the_rest_less_one_forced_answer():
    trace = timed(WEATHER)
    result = replay_trace(trace, [SimilarQueryStagnation()])
    stop = result.policy.stop
    assert (stop.code, stop.round, stop.phase, stop.action) == ("P001", 3, Phase.BEFORE_TOOLS, Action.STOP)
    saved = result.policy.saved
    # Rounds 4-6 never happen (3 LLM calls) but one forced answer is made: 2 saved.
    assert saved.llm_calls == 2
    # Round 3's search never runs, nor those of rounds 4 and 5.
    assert saved.tool_calls == 3
    # Tokens of rounds 4..6 (2430 + 3030 + 3630) less the forced answer: round 3's
    # context (1800 + 30) + the closing prompt (40) + the real answer's 30 output tokens.
    assert saved.forced_answer_tokens == 1800 + 30 + 40 + 30
    assert saved.tokens == 2430 + 3030 + 3630 - 1900 and not saved.tokens_estimated
    # Time from round 3's response (T0+16) to the end (T0+37), less one 2 s answer.
    assert saved.seconds == pytest.approx(21 - 2)
    assert result.totals.llm_calls == 6 and result.totals.seconds == pytest.approx(37)


def test_abort_is_charged_no_forced_answer():
    from tracecheck.guards.f001_tool_failure_streak import ToolFailureStreak

    failing = Example(
        "failures",
        tuple(calls(Call("read_file", {"path": "cfg.yaml"}, "Error: ENOENT", error=True)) for _ in range(4))
        + (answer("I could not read the config."),),
    )
    result = replay_trace(timed(failing), [ToolFailureStreak()])
    stop = result.policy.stop
    assert (stop.code, stop.round, stop.phase, stop.action) == ("F001", 3, Phase.AFTER_TOOLS, Action.ABORT)
    saved = result.policy.saved
    # Rounds 4 and 5 never happen, and no forced answer replaces them.
    assert saved.llm_calls == 2 and saved.tool_calls == 1 and saved.forced_answer_tokens is None
    assert saved.tokens == (2400 + 30) + (3000 + 30)
    # From the end of round 3's tool (T0 + 3*7) to the end of the run (T0 + 4*7 + 2).
    assert saved.seconds == pytest.approx(9)
    assert result.policy.outcome_change == "answer → aborted, no answer"


def test_a_stop_in_a_run_without_answer_is_flagged_as_a_forced_answer():
    looping = Example(
        "no answer",
        tuple(calls(Call("query_db", {"status": "pending"}, "[]")) for _ in range(5)),
    )
    trace = timed(looping)
    trace.error = "Token limit exceeded"
    result = replay_trace(trace, [IdenticalCallStreak()])
    assert [(f.round, f.action) for f in result.fires] == [(2, Action.HINT), (3, Action.STOP)]
    assert result.policy.outcome_change == "no answer → forced answer"
    # No real answer to copy: a typical answer is charged, and the saving is what is left.
    assert result.policy.saved.llm_calls == 1 and result.policy.saved.tool_calls == 3


def test_tokens_are_estimated_from_text_with_a_growing_context_when_usage_is_missing():
    trace = timed(WEATHER, usage=False)
    result = replay_trace(trace, [SimilarQueryStagnation()])
    inputs = [c.input_tokens for c in result.costs]
    assert inputs[0] == 0 and all(b > a for a, b in zip(inputs, inputs[1:]))
    assert result.totals.tokens_estimated and result.policy.saved.tokens_estimated
    assert estimate_tokens("北京天气") == 4 and estimate_tokens("weather today") == 3


def test_policy_stops_at_the_first_stop_while_each_guard_is_also_replayed_alone():
    example = Example(
        "two loops",
        (
            calls(Call("query_db", {"status": "pending"}, "[]")),
            calls(Call("query_db", {"status": "pending"}, "[]")),
            calls(Call("query_db", {"status": "pending"}, "[]")),
            search("天气"),
            search("今日天气"),
            search("今日天气 气温"),
            answer(),
        ),
    )
    result = replay_trace(timed(example), [SimilarQueryStagnation(), IdenticalCallStreak()])
    assert [(f.code, f.round, f.action.value) for f in result.fires] == [
        ("R001", 2, "hint"),
        ("R001", 3, "stop"),
        ("P001", 6, "stop"),
    ]
    assert result.policy.stop.code == "R001" and result.policy.stopped_at == 3
    assert result.fires[2].saved.llm_calls == 0  # P001 alone: round 6 stop, round 7 replaced


def _sample_traces():
    from tracecheck.input.diagnostics import Diagnostics
    from tracecheck.readers.load import read_traces

    from conftest import SAMPLES

    return list(read_traces([str(SAMPLES)], Diagnostics()))


@pytest.mark.parametrize("trace", _sample_traces(), ids=lambda t: t.id)
def test_replaying_a_prefix_gives_the_same_verdicts_as_the_whole_replay(trace):
    # Every guard on, budgets included, on every sample: the first k rounds replayed
    # alone give exactly the verdicts the whole replay gives for those rounds.
    settings = load_settings(
        select=["ALL"], sets=["B001.max_rounds=3", "B002.budget=5000", "B003.max_calls=2"], cwd=Path("/")
    )
    whole = replay_trace(trace, settings.build())

    def verdicts(result, k):
        return [(f.code, f.round, f.phase, f.action, f.reason) for f in result.fires if f.round <= k]

    full_rounds = trace.rounds
    for k in range(1, len(full_rounds) + 1):
        trace.rounds = full_rounds[:k]
        part = replay_trace(trace, settings.build())
        assert verdicts(part, k) == verdicts(whole, k), f"first {k} rounds"
    trace.rounds = full_rounds


def test_guard_objects_are_reusable_after_reset():
    guard = SimilarQueryStagnation()
    first = replay_trace(timed(WEATHER), [guard])
    second = replay_trace(timed(WEATHER), [guard])
    assert [(f.round, f.reason) for f in first.fires] == [(f.round, f.reason) for f in second.fires]


def test_the_result_classifier_skips_no_pattern_that_could_match():
    """The default patterns are skipped when text they need is absent; every outcome must
    be what searching every pattern gives."""
    import random
    import re

    from tracecheck.guards.signals import DEFAULT_EMPTY_PATTERNS, DEFAULT_FAILURE_PATTERNS, EMPTY_SCAN_CHARS, ResultClassifier
    from tracecheck.model import ToolResult

    failure = [re.compile(p) for p in DEFAULT_FAILURE_PATTERNS]
    empty = [re.compile(p) for p in DEFAULT_EMPTY_PATTERNS]

    def failed_or_empty(text: str) -> str:
        if any(p.search(text) for p in failure):
            return "failed"
        head = text.lstrip()[:EMPTY_SCAN_CHARS]
        return "empty" if text.strip() and any(p.search(head) for p in empty) else "other"

    pieces = ["Traceback (most recent call last):", "\n", "bash: foo: command not found", "sh: 3: x: not found",
              "No results", "NO MATCHES", "0 files", "nothing found", "Nothing was found", "no reſults", "0 hitſ",
              "NOTHING FOUND", "nothİng found", " ", "ok", "ValueError: x", "Error", "[]", "x" * 40, "résumé", "İ"]
    rng = random.Random(3)
    classifier = ResultClassifier()
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        outcome = classifier.outcome(ToolResult(content=text))
        expected = failed_or_empty(text)
        if expected == "other":
            assert outcome in ("productive", "empty"), repr(text)  # blank or JSON-empty results are judged apart
        else:
            assert outcome == expected, repr(text)


def test_one_policy_stepper_runs_guards_alone_or_together_and_across_turns():
    from tracecheck.engine.policy import Policy

    rounds = Example("the same call three times", (calls(Call("q", {"x": 1}, "[]")),) * 3).trace().rounds

    def fed(together: bool, stop_action: str = "stop"):
        stopper = IdenticalCallStreak(hint_at=0, stop_at=2, stop_action=stop_action)
        hinter = IdenticalCallStreak(hint_at=2, stop_at=0)
        policy = Policy([stopper, hinter], {}, together=together)
        seen = []
        for rnd in rounds[:2]:
            policy.enter(rnd.turn, 100, False)
            step = policy.step(rnd, Phase.BEFORE_TOOLS)
            seen.append([(g is stopper, v.action) for g, v in step.verdicts])
        return policy, stopper, hinter, seen, step

    # Together, the first stop ends the phase for everyone: the hinter never sees it.
    policy, stopper, hinter, seen, step = fed(together=True)
    assert seen == [[], [(True, Action.STOP)]] and step.ended == [(stopper, Action.STOP)] and step.strongest is Action.STOP
    assert policy.active == [] and not policy.finished and policy.context.tokens_so_far == 200
    policy.new_turn()  # a new turn: everyone is back, afresh (scope "turn")
    assert policy.active == [stopper, hinter] and policy.step(rounds[2], Phase.BEFORE_TOOLS).verdicts == ()
    # Alone, a stop is the stopper's own: the hinter judges the phase and goes on.
    policy, stopper, hinter, seen, step = fed(together=False)
    assert seen == [[], [(True, Action.STOP), (False, Action.HINT)]] and policy.active == [hinter]
    # An abort ends the run: the guard sits out every later turn.
    policy, stopper, hinter, seen, step = fed(together=False, stop_action="abort")
    policy.new_turn()
    assert step.strongest is Action.ABORT and policy.active == [hinter]
