"""Whether a sweep's best grid point is worth a change to the current settings.

A sweep always has a best row; that does not make it a better setting. A change is
recommended only when it beats the current settings by more than a stated minimum, both
absolute and relative to what the traces spent (ties and crumbs keep the current
settings: a threshold loosened for 201 tokens out of 700,000 is noise, and it moves a
guard away from what was tuned). A recommended change also says what it rests on: a
winner on the edge of the grid may be better still beyond it, a handful of traces is not
evidence, and a gain that the folds or the held-out part do not repeat is within the
spread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from ..dataclass_lite import mutable_dataclass

# The least gain worth a change, per unit of the objective: absolute, and as a share of
# what the traces spent in that unit (both must be met).
MIN_GAIN = {"tokens": 1_000, "llm_calls": 2, "tool_calls": 2, "seconds": 10.0}
MIN_GAIN_SHARE = 0.005
# Recall and precision: two points, and at least one more run decided right.
MIN_RATE_GAIN = 0.02
# Fewer traces than this: the recommendation says it rests on few.
MIN_TRACES = 30


@mutable_dataclass
class Recommendation:
    change: bool  # write the best point's settings
    why: str  # one line: why change, or why keep the current settings
    caveats: list[str] = field(default_factory=list)
    minimum: str | None = None  # the least gain that counts, as a person reads it

    def to_json(self) -> dict[str, Any]:
        return {"change": self.change, "why": self.why, "caveats": self.caveats, "minimum_gain": self.minimum}


def _unit(objective: str) -> str | None:
    for unit in MIN_GAIN:
        if objective.startswith(unit + "_saved"):
            return unit
    return None


def _fmt(value: float) -> str:
    """A count with thousands separators; a small fraction (a rate, seconds) to 3 digits."""
    if isinstance(value, float) and abs(value) < 10 and not value.is_integer():
        return f"{value:.3g}"
    return f"{value:,.0f}"


def minimum_gain(objective: str, best: dict[str, Any]) -> tuple[float, str]:
    """The least gain on ``objective`` that counts, and how to say it."""
    unit = _unit(objective)
    if unit is not None:
        spent = (best.get("whole") or {}).get(unit) or 0
        floor = max(MIN_GAIN[unit], MIN_GAIN_SHARE * spent)
        return floor, f"{_fmt(floor)} {unit.replace('_', ' ')} (at least {_fmt(MIN_GAIN[unit])}, and {MIN_GAIN_SHARE:.1%} of the {_fmt(spent)} the traces spent)"
    # A rate: two points and one more run decided right.
    runs = best.get("loops") if objective == "recall" else (best.get("caught") or 0) + 1
    one_run = 1 / runs if runs else 1.0
    floor = max(MIN_RATE_GAIN, one_run)
    return floor, f"{floor:.2f} of {objective} (at least {MIN_RATE_GAIN:.2f}, and one more run)"


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def edge_caveats(points, best: int) -> list[str]:
    """A numeric dimension whose chosen value is the grid's lowest or highest."""
    out = []
    for position, (key, value) in enumerate(points[best].values):
        values = [p.values[position][1] for p in points]
        if not _numeric(values):  # text, flags, lists (a list option's values): no edges
            continue
        values = sorted(set(values))
        if len(values) < 2 or value not in (values[0], values[-1]):
            continue
        side, beyond = ("lowest", "below") if value == values[0] else ("highest", "above")
        out.append(f"{key}={value:g} is the {side} value in the grid: widen it {beyond} {value:g} before trusting the choice")
    return out


def recommend(result, current_values: dict[str, Any]) -> Recommendation | None:
    """The recommendation for a sweep result (None when no grid point was chosen)."""
    if result.best is None:
        return None
    objective = result.objective
    best_row = result.rows[result.best]
    point = result.points[result.best]
    floor, minimum = minimum_gain(objective, best_row)
    base = result.baseline
    if current_values and all(current_values.get(key) == value for key, value in point.values):
        return Recommendation(False, "the best grid point is the current settings: keep them", minimum=minimum)
    if base is not None:
        b, c = best_row.get(objective), base.get(objective)
        if b is not None and c is not None:
            gain = b - c
            if gain <= 0:
                return Recommendation(False, f"no grid point does better on {objective} than the current settings ({_fmt(c)}): keep them", minimum=minimum)
            if gain < floor:
                return Recommendation(
                    False,
                    f"{point.label} gains only {_fmt(gain)} on {objective} over the current settings, "
                    f"less than the {minimum}: keep them",
                    minimum=minimum,
                )
    caveats = edge_caveats(result.points, result.best)
    if result.traces < MIN_TRACES:
        caveats.append(f"it rests on {result.traces} trace{'s' if result.traces != 1 else ''} (fewer than {MIN_TRACES}): try it on more before trusting it")
    caveats += _validation_caveats(result.validation, objective)
    return Recommendation(True, "", caveats, minimum)


def _validation_caveats(validation: dict[str, Any] | None, objective: str) -> list[str]:
    """Where the part of the traces the choice was not made on does not repeat its gain."""
    if not validation:
        return []
    if validation["kind"] == "holdout":
        best, current = validation.get("best_on_test"), validation.get("baseline_on_test")
        if best and current and best.get(objective) is not None and current.get(objective) is not None and best[objective] <= current[objective]:
            return [f"on the held-out traces it does no better on {objective} than the current settings: the gain is within the spread"]
        return []
    gains = [
        fold["test"][objective] - fold["current_test"][objective]
        for fold in validation["per_fold"]
        if fold.get("test") and fold.get("current_test") and fold["test"].get(objective) is not None and fold["current_test"].get(objective) is not None
    ]
    flat = sum(1 for g in gains if g <= 0)
    if flat:
        return [f"in {flat} of {len(gains)} folds the choice did no better on {objective} than the current settings on the fold left out: the gain is within the spread across folds"]
    return []
