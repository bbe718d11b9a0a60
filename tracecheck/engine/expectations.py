"""Expectations a trace carries (native ``expect`` events, later a labels file), checked
against a replay: must a guard (or the policy) intervene, by which round, or stay quiet?

An intervention is a block, stop, abort or reject; a hint changes nothing, so it does
not count. ``replay`` prints the broken ones; ``check`` will gate on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..guards.base import Action
from ..model import Expectation

POLICY = "policy"


@dataclass(slots=True)
class ExpectationResult:
    expectation: Expectation
    met: bool | None  # None: not checked (the guard is not enabled or not known)
    message: str  # what was expected and what happened, in words


def check_expectations(expectations: Iterable[Expectation], fires: Sequence, stops: Sequence, enabled: dict[str, str]) -> list[ExpectationResult]:
    """``enabled`` maps each enabled guard's code and name to its code; ``stops`` are the
    policy's stops (for expectations about ``policy``)."""
    results = []
    for exp in expectations:
        key = exp.guard
        if key.lower() == POLICY:
            who, hits = "the policy", [(s.round, s.action) for s in stops]
        else:
            code = enabled.get(key) or enabled.get(key.upper())
            if code is None:
                results.append(ExpectationResult(exp, None, f"{key} is not an enabled guard: expectation not checked"))
                continue
            who = code
            hits = [(f.round, f.action) for f in fires if f.code == code and f.action is not Action.HINT]
        results.append(_judge(exp, who, hits))
    return results


def _judge(exp: Expectation, who: str, hits: list[tuple[int, Action]]) -> ExpectationResult:
    first = hits[0] if hits else None
    if exp.fires:
        wanted = f"{who} should intervene" + (f" by round {exp.by_round}" if exp.by_round else "")
        if first is None:
            return ExpectationResult(exp, False, f"{wanted}; it did not")
        round_, action = first
        if exp.by_round is not None and round_ > exp.by_round:
            return ExpectationResult(exp, False, f"{wanted}; it first did at round {round_} ({action.value})")
        return ExpectationResult(exp, True, f"{wanted}; it did at round {round_} ({action.value})")
    if first is None:
        return ExpectationResult(exp, True, f"{who} should stay quiet; it did")
    round_, action = first
    return ExpectationResult(exp, False, f"{who} should stay quiet; it did not: {action.value} at round {round_}")
