"""Replaying a trace through guards, round by round, phase by phase.

Each guard is replayed **alone** (where it alone would fire, up to its own first
``stop``/``abort``) and the enabled set as a **policy** (the first ``stop``/``abort``
of any guard ends the counterfactual run). Guards never see each other's verdicts and
soft actions (hint, block, reject) never change the counterfactual, so both come out
of one pass: every guard is fed every round until its own first stop, and the policy
stop is the earliest of those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..guards.base import Action, Guard, Phase, RunContext
from ..model import Round, Trace
from .costs import RoundCost, Saving, Totals, round_costs, saving_after, trace_totals


@dataclass(slots=True)
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


@dataclass(slots=True)
class PolicyResult:
    stop: Fire | None  # the fire that ends the counterfactual run, if any
    saved: Saving | None
    blocked_calls: int = 0
    blocked_seconds: float = 0.0
    blocked_seconds_known: bool = False  # any blocked call had timestamps
    outcome_change: str | None = None  # e.g. "no answer → forced answer"

    @property
    def stopped_at(self) -> int | None:
        return self.stop.round if self.stop else None


@dataclass(slots=True)
class TraceResult:
    trace: Trace
    fires: list[Fire]
    policy: PolicyResult
    totals: Totals
    costs: list[RoundCost]
    answered: bool = False  # the recorded run ended with a final answer


# Called after every phase with the guards' states; used by `show` to explain guards.
PhaseObserver = Callable[[Round, Phase, Sequence[Guard]], None]


def phases_of(rnd: Round) -> tuple[Phase, ...]:
    return (Phase.FINAL,) if rnd.is_final else (Phase.BEFORE_TOOLS, Phase.AFTER_TOOLS)


def _call(guard: Guard, phase: Phase, rnd: Round, context: RunContext):
    if phase is Phase.BEFORE_TOOLS:
        return guard.before_tools(rnd, context)
    if phase is Phase.AFTER_TOOLS:
        return guard.after_tools(rnd, context)
    return guard.final(rnd, context)


def replay_trace(trace: Trace, guards: Sequence[Guard], observe: PhaseObserver | None = None) -> TraceResult:
    costs = round_costs(trace)
    context = RunContext(metadata=trace.metadata)
    for guard in guards:
        guard.reset(context)
    active = list(guards)
    fires: list[Fire] = []
    for index, rnd in enumerate(trace.rounds):
        context.tokens_so_far += costs[index].tokens
        context.tokens_estimated = context.tokens_estimated or costs[index].estimated
        for phase in phases_of(rnd):
            stopped: list[Guard] = []
            for guard in active:
                for verdict in _call(guard, phase, rnd, context):
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
                    )
                    if verdict.action.ends_run:
                        fire.saved = saving_after(
                            trace, costs, index, phase is Phase.AFTER_TOOLS, verdict.action is Action.STOP
                        )
                        stopped.append(guard)
                    fires.append(fire)
            if observe is not None:
                observe(rnd, phase, guards)
            for guard in stopped:
                if guard in active:
                    active.remove(guard)
        if not active:
            break
    return TraceResult(trace, fires, _policy(trace, fires), trace_totals(trace, costs), costs, trace.answered)


def _policy(trace: Trace, fires: list[Fire]) -> PolicyResult:
    stop = next((f for f in fires if f.action.ends_run), None)
    policy = PolicyResult(stop=stop, saved=stop.saved if stop else None)
    for fire in fires:
        if stop is not None and (fire.round, _order(fire.phase)) >= (stop.round, _order(stop.phase)):
            break
        if fire.action is Action.BLOCK:
            policy.blocked_calls += 1
            call = next((c for c in trace.rounds[fire.round - 1].tool_calls if c.id == fire.call_id), None)
            if call is not None and call.result is not None and call.result.seconds is not None:
                policy.blocked_seconds += call.result.seconds
                policy.blocked_seconds_known = True
    if policy.blocked_calls:
        # A blocked call is not executed: its tool call and its time are saved too.
        base = dataclasses.replace(policy.saved) if policy.saved is not None else Saving()
        base.tool_calls += policy.blocked_calls
        if policy.blocked_seconds_known and (base.seconds is not None or stop is None):
            base.seconds = (base.seconds or 0.0) + policy.blocked_seconds
        policy.saved = base
    if stop is not None:
        if not trace.answered:
            policy.outcome_change = (
                "no answer → forced answer" if stop.action is Action.STOP else "no answer → aborted"
            )
        elif stop.action is Action.ABORT:
            policy.outcome_change = "answer → aborted, no answer"
    return policy


def _order(phase: Phase) -> int:
    return (Phase.BEFORE_TOOLS, Phase.AFTER_TOOLS, Phase.FINAL).index(phase)
