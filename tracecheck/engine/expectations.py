"""Expectations a trace carries (native ``expect`` events, later a labels file), checked
against a replay: must a guard (or the policy) intervene, by which round, or stay quiet?

An intervention is a block, stop, abort or reject; a hint changes nothing, so it does
not count. ``replay`` prints the broken ones; ``check`` will gate on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..dataclass_lite import mutable_dataclass
from ..guards.base import Action
from ..model import Expectation

POLICY = "policy"


@mutable_dataclass(slots=True)
class ExpectationResult:
    expectation: Expectation
    met: bool | None  # None: not checked (the guard is not enabled or not known)
    message: str  # what was expected and what happened, in words
    unknown: bool = False  # not checked because no guard has that code or name (a typo?)
    round: int | None = None  # where the guard or the policy first acted; None: it never did


def check_expectations(
    expectations: Iterable[Expectation], fires: Sequence, stops: Sequence, enabled: dict[str, str], blocks: Sequence = ()
) -> list[ExpectationResult]:
    """``enabled`` maps each enabled guard's code and name to its code; ``stops`` and
    ``blocks`` are the policy's (for expectations about ``policy``). A loop is caught by a
    stop or by a block the policy counts (a stale block hides news: it catches nothing);
    a healthy run is harmed only by a stop (a block that returns what the call would
    have is no harm)."""
    results = []
    for exp in expectations:
        key = exp.guard
        if key.lower() == POLICY:
            acts = sorted([*stops, *blocks], key=lambda f: f.round) if exp.fires else stops
            who, hits = "the policy", [(s.round, s.action) for s in acts]
        else:
            code = enabled.get(key) or enabled.get(key.upper())
            if code is None:
                from ..guards import guard_code

                if guard_code(key) is None:
                    results.append(ExpectationResult(exp, None, f"{key} is not a guard: expectation not checked", unknown=True))
                else:
                    results.append(ExpectationResult(exp, None, f"{key} is not an enabled guard: expectation not checked"))
                continue
            who = code
            hits = [(f.round, f.action) for f in fires if f.code == code and f.action is not Action.HINT]
        results.append(_judge(exp, who, hits))
    return results


def _judge(exp: Expectation, who: str, hits: list[tuple[int, Action]]) -> ExpectationResult:
    first = hits[0] if hits else None
    if exp.fires:
        late_ok = exp.tolerance if exp.by_round is not None else 0
        wanted = f"{who} should intervene" + (f" by round {exp.by_round}" if exp.by_round else "") + (
            f" (give or take {late_ok} round{'s' if late_ok > 1 else ''})" if late_ok else ""
        )
        if first is None:
            return ExpectationResult(exp, False, f"{wanted}; it did not")
        round_, action = first
        if exp.by_round is not None and round_ > exp.by_round + late_ok:
            return ExpectationResult(exp, False, f"{wanted}; it first did at round {round_} ({action.value})", round=round_)
        return ExpectationResult(exp, True, f"{wanted}; it did at round {round_} ({action.value})", round=round_)
    if first is None:
        return ExpectationResult(exp, True, f"{who} should stay quiet; it did")
    round_, action = first
    return ExpectationResult(exp, False, f"{who} should stay quiet; it did not: {action.value} at round {round_}", round=round_)
