"""Replaying a trace through guards, round by round, phase by phase.

Each guard is replayed **alone** (where it alone would fire, up to its own first
``stop``/``abort``) and the enabled set as a **policy** (the first ``stop``/``abort``
of any guard ends the counterfactual run). Guards never see each other's verdicts and
soft actions (hint, block, reject) never change the counterfactual, so both come out
of one pass: every guard is fed every round until its own first stop, and the policy
stop is the earliest of those. Each pass steps ``policy.Policy``, the engine the live
``Monitor`` steps too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..guards.base import Action, Guard, Phase
from ..model import Round, Trace
from .costs import (
    RoundCost,
    Saving,
    Totals,
    combine_bases,
    round_costs,
    saving_after,
    stopped_when_recorded,
    trace_totals,
    turn_end,
)
from .counterfactual import is_stale, new_information_after, refusal_hid_news
from .expectations import ExpectationResult, check_expectations
from .policy import Policy, phases_of
from .scoring import harm, harm_subject, policy_expectation, run_label


@mutable_dataclass(slots=True)
class Fire:
    code: str
    name: str
    round: int
    phase: Phase
    action: Action
    reason: str
    line: int | None = None
    call_id: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    saved: Saving | None = None  # for stop/abort: what this guard alone would have saved
    turn: int = 1  # the conversation turn of ``round``
    stale: bool | None = None  # for a block: its answer differs from the recorded result
    new_information: tuple[int, str] | None = None  # for stop/abort: (round, what) the cut rounds found
    message: str | None = None  # what a live agent would have told the model
    already_blocked: bool = False  # a block the recorded (live) run made too: nothing left to save
    already_stopped: bool = False  # a stop the recorded (live) run made too: its forced answer is recorded


@mutable_dataclass(slots=True)
class PolicyResult:
    stop: Fire | None  # the first fire that ends a turn (or the run) of the counterfactual run
    saved: Saving | None  # all its stops together, and the blocked calls
    blocked_calls: int = 0
    blocked_seconds: float = 0.0
    blocked_seconds_known: bool = False  # any blocked call had timestamps
    outcome_change: str | None = None  # e.g. "no answer → forced answer"
    stops: list[Fire] = field(default_factory=list)  # at most one per turn; an abort is the last
    # A stop left a turn that later turns follow: those are assumed to happen as recorded.
    later_turns_as_recorded: bool = False
    stale_blocks: int = 0  # blocks whose answer differs from the recorded result: not saved
    blocks: list[Fire] = field(default_factory=list)  # the blocks it counts (not stale, not cut by a stop)
    possible_harm: str | None = None  # harm (scoring.harm): what the stop cuts of a run labelled a success, healthy or mixed

    @property
    def stopped_at(self) -> int | None:
        return self.stop.round if self.stop else None


@mutable_dataclass(slots=True)
class TraceResult:
    trace: Trace
    fires: list[Fire]
    policy: PolicyResult
    totals: Totals
    costs: list[RoundCost]
    answered: bool = False  # the recorded run ended with a final answer
    expectations: list[ExpectationResult] = field(default_factory=list)


# Called after every phase with the guards that judged it (a guard that stopped sits out
# the rest of its turn, one that aborted the rest of the run); `show` prints their states.
PhaseObserver = Callable[[Round, Phase, Sequence[Guard]], None]


@frozen_dataclass(slots=True)
class GuardSpec:
    """A guard to build: its class, its options, and a key naming that configuration."""

    cls: type[Guard]
    options: Any
    key: tuple[str, str]

    @classmethod
    def of(cls, guard_class: type[Guard], options: Any) -> GuardSpec:
        return cls(guard_class, options, (guard_class.code, repr(options)))


class ReplayCache:
    """What replaying one trace again under other settings can reuse (a sweep): the
    round costs and totals, and each guard's fires alone for each of its configurations.
    A guard alone sees the same rounds whatever the others do, so its fires depend on
    its own options only; the policy is then worked out from them again. A result is
    exactly what ``replay_trace`` gives with the same guards."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.costs = round_costs(trace)
        self.totals = trace_totals(trace, self.costs)
        self.alone: dict[tuple[str, str], list[Fire]] = {}

    def replay(self, specs: Sequence[GuardSpec], expectations: bool = True) -> TraceResult:
        trace = self.trace
        ordered: list[tuple[int, int, int, int, Fire]] = []
        for rank, spec in enumerate(specs):
            fires = self.alone.get(spec.key)
            if fires is None:
                fires = self.alone[spec.key] = replay_pass(trace, [spec.cls(spec.options)], self.costs, together=False)
            for seq, fire in enumerate(fires):
                ordered.append((fire.round, _order(fire.phase), rank, seq, fire))
        ordered.sort(key=lambda item: item[:4])
        fires = [item[4] for item in ordered]
        if _needs_together(trace, fires, [spec.options for spec in specs]):
            together = replay_pass(trace, [spec.cls(spec.options) for spec in specs], self.costs, together=True)
            policy = _policy(trace, together)
        else:
            policy = _policy(trace, fires)
        checked = _expectations(trace, [spec.cls for spec in specs], fires, policy) if expectations else []
        return TraceResult(trace, fires, policy, self.totals, self.costs, trace.answered, checked)


def _needs_together(trace: Trace, fires: Sequence[Fire], options: Sequence[Any]) -> bool:
    """Whether the policy needs its own pass, or follows from each guard alone. Alone,
    a guard's stop ends only its own turn; together, everyone's. The rounds in between
    are skipped by the policy either way, and a guard whose state covers a turn starts
    afresh at the next one in both. Only a stop before the last turn changes what later
    turns see, and only through a guard whose state outlives a turn: one whose scope is
    the run (alone it saw the cut rounds), or one that aborted (alone, perhaps in the cut
    rounds, so it sat out the turns the policy goes on to)."""
    if not trace.rounds or trace.rounds[0].turn == trace.rounds[-1].turn:
        return False
    last = trace.rounds[-1].turn
    if not any(f.action is Action.STOP and f.turn < last for f in fires):
        return False
    return any(f.action is Action.ABORT for f in fires) or any(getattr(o, "scope", "turn") == "run" for o in options)


def _expectations(trace: Trace, classes, fires: list[Fire], policy: PolicyResult) -> list[ExpectationResult]:
    enabled = {key: g.code for g in classes for key in (g.code, g.name)}
    return check_expectations(trace.expectations, fires, policy.stops, enabled, policy.blocks)


def replay_trace(trace: Trace, guards: Sequence[Guard], observe: PhaseObserver | None = None) -> TraceResult:
    """Replay ``trace`` through ``guards``: every guard's fires and the policy's stops.

    **Alone**, each guard runs as if it were the only one: a ``stop`` ends its turn (it
    sits out the rest of the turn and comes back at the next, which happens as
    recorded), an ``abort`` ends its run. **Together** (the policy), the first stop of any
    guard ends the turn for all of them and an abort ends the run: the rounds it cuts
    are seen by no guard. Guards whose ``scope`` is ``turn`` start afresh at each turn.
    One pass gives both when the trace has one turn, and when no guard's state covers
    the whole run (see ``_needs_together``); otherwise a conversation whose policy stops
    a turn before its last is replayed a second time, together. (A sweep replays through
    ``ReplayCache`` instead, which runs each guard alone once per configuration.)
    """
    costs = round_costs(trace)
    fires = replay_pass(trace, guards, costs, together=False, observe=observe)
    if _needs_together(trace, fires, [g.options for g in guards]):
        policy = _policy(trace, replay_pass(trace, guards, costs, together=True))
    else:
        policy = _policy(trace, fires)
    checked = _expectations(trace, guards, fires, policy)
    return TraceResult(trace, fires, policy, trace_totals(trace, costs), costs, trace.answered, checked)


def replay_pass(
    trace: Trace, guards: Sequence[Guard], costs: list[RoundCost], *, together: bool, observe: PhaseObserver | None = None
) -> list[Fire]:
    """One pass of the rounds through the policy engine: each guard alone, or all
    together (see replay_trace). A round no guard judges is cut: in the counterfactual
    run it never happens, and its tokens are not counted."""
    policy = Policy(guards, trace.metadata, together=together)
    fires: list[Fire] = []
    turn = trace.rounds[0].turn if trace.rounds else 1
    turn_start = 0
    for index, rnd in enumerate(trace.rounds):
        if rnd.turn != turn:
            turn, turn_start = rnd.turn, index
            policy.new_turn()
        if not policy.active:
            if policy.finished:
                break
            continue
        # What a live guard can know: measured tokens, else the text estimate (a share
        # of a run total is known only when the run is over).
        cost = costs[index]
        policy.enter(rnd.turn, cost.live_tokens, cost.estimated or cost.apportioned)
        for phase in phases_of(rnd):
            active = policy.active
            step = policy.step(rnd, phase)
            for guard, verdict in step.verdicts:
                fires.append(_fire(trace, costs, guard, verdict, rnd, index, phase, turn_start))
            if observe is not None:
                observe(rnd, phase, active)
            if not policy.active:
                break
    return fires


def _fire(trace: Trace, costs, guard: Guard, verdict, rnd, index: int, phase: Phase, turn_start: int) -> Fire:
    fire = Fire(
        code=guard.code,
        name=guard.name,
        round=rnd.index,
        phase=phase,
        action=verdict.action,
        reason=verdict.reason,
        line=rnd.line,
        call_id=verdict.call_id,
        details=verdict.details,
        turn=rnd.turn,
        message=verdict.message,
    )
    if verdict.action.ends_run:
        is_stop = verdict.action is Action.STOP
        start, end = (turn_start, turn_end(trace, index)) if is_stop else (0, len(trace.rounds))
        after = phase is Phase.AFTER_TOOLS
        fire.saved = saving_after(trace, costs, index, after, is_stop, end)
        fire.already_stopped = is_stop and stopped_when_recorded(trace, index, end)
        fire.new_information = new_information_after(trace, index, after, start, end, forced_answer=is_stop)
    elif verdict.action is Action.BLOCK:
        call = next((c for c in rnd.tool_calls if c.id == verdict.call_id), None)
        recorded = call.result.content if call is not None and call.result is not None else None
        if call is not None and call.result is not None and call.result.blocked:
            fire.stale = False  # the recording is of the guarded run: the call never ran
            fire.already_blocked = True
        elif verdict.replacement is not None:  # a cached answer
            fire.stale = is_stale(verdict.replacement, recorded)
        else:  # a refusal
            fire.stale = refusal_hid_news(trace, index, verdict.call_id)
    return fire


def _policy(trace: Trace, fires: list[Fire]) -> PolicyResult:
    """The enabled guards together: in each turn the first stop or abort of any guard
    ends that turn (an abort, the run); blocks before it are saved calls too."""
    stops: list[Fire] = []
    blocked: list[Fire] = []
    stale: list[Fire] = []
    ended_turn: int | None = None
    for fire in fires:
        if stops and stops[-1].action is Action.ABORT:
            break
        if ended_turn is not None and fire.turn == ended_turn:
            continue  # the policy already left this turn
        if fire.action.ends_run:
            stops.append(fire)
            ended_turn = fire.turn
        elif fire.action is Action.BLOCK:
            if fire.already_blocked:
                continue  # blocked live already: the recording holds no call to save
            if fire.stale:
                stale.append(fire)  # it would have fed the model stale data: no saving
            else:
                blocked.append(fire)
    # A stop before the tools of round k already saves round k's calls, blocked or not.
    cut = {(s.turn, s.round) for s in stops if s.phase is Phase.BEFORE_TOOLS}
    blocked = [b for b in blocked if (b.turn, b.round) not in cut]
    policy = PolicyResult(
        stop=stops[0] if stops else None, saved=_sum_savings([s.saved for s in stops]), stops=stops, stale_blocks=len(stale)
    )
    policy.blocks = blocked
    for fire in blocked:
        policy.blocked_calls += 1
        call = next((c for c in trace.rounds[fire.round - 1].tool_calls if c.id == fire.call_id), None)
        if call is not None and call.result is not None and call.result.seconds is not None:
            policy.blocked_seconds += call.result.seconds
            policy.blocked_seconds_known = True
    if policy.blocked_calls:
        # A blocked call is not executed: its tool call and its time are saved too.
        base = dataclasses.replace(policy.saved) if policy.saved is not None else Saving()
        base.tool_calls += policy.blocked_calls
        if policy.blocked_seconds_known and (base.seconds is not None or not stops):
            base.seconds = (base.seconds or 0.0) + policy.blocked_seconds
        policy.saved = base
    last = stops[-1] if stops else None
    final_turn = trace.rounds[-1].turn if trace.rounds else 1
    policy.later_turns_as_recorded = any(s.action is Action.STOP and s.turn < final_turn for s in stops)
    # Harm is one definition (scoring.harm): a stop of a run labelled a success, healthy
    # or mixed, unless its labels ask for the stop. A stop the recorded run made itself
    # changes nothing in it: no harm of the policy's.
    own = [s for s in stops if not s.already_stopped]
    label = run_label(trace.labels)
    reasons = harm(bool(own), label.kind if label else None, trace.outcome, policy_expectation(trace.expectations))
    if reasons:
        policy.possible_harm = harm_subject(reasons) + ": the policy would have " + _what_it_cuts(own, final_turn)
    if last is not None and (last.action is Action.ABORT or last.turn == trace.rounds[-1].turn):
        # What the run ends with changes only where the policy cut its last turn.
        if not trace.answered:
            policy.outcome_change = (
                "no answer → forced answer" if last.action is Action.STOP else "no answer → aborted"
            )
        elif last.action is Action.ABORT:
            policy.outcome_change = "answer → aborted, no answer"
    return policy


def _what_it_cuts(stops: list[Fire], final_turn: int) -> str:
    if any(s.action is Action.ABORT for s in stops):
        return "aborted it"
    if len(stops) == 1 and stops[0].turn == final_turn == 1:
        return "replaced its work by a forced answer"
    turns = ", ".join(str(s.turn) for s in stops)
    return f"replaced the rest of turn{'s' if len(stops) > 1 else ''} {turns} by a forced reply"


def _sum_savings(savings: list[Saving | None]) -> Saving | None:
    present = [s for s in savings if s is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    total = Saving()
    total.llm_calls = sum(s.llm_calls for s in present)
    total.tool_calls = sum(s.tool_calls for s in present)
    total.tokens = sum(s.tokens for s in present)
    total.tokens_basis = combine_bases(s.tokens_basis for s in present)
    seconds = [s.seconds for s in present]
    total.seconds = None if any(v is None for v in seconds) else sum(seconds)
    charged = [s.forced_answer_tokens for s in present if s.forced_answer_tokens is not None]
    total.forced_answer_tokens = sum(charged) if charged else None
    return total


def _order(phase: Phase) -> int:
    return (Phase.BEFORE_TOOLS, Phase.AFTER_TOOLS, Phase.FINAL).index(phase)
