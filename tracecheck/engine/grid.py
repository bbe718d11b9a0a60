"""A sweep's grid: the dimensions a user varies and the settings of every combination.

Dimensions come from the command line or ``[tool.tracecheck.sweep]``:

- ``GUARD.OPTION=V1,V2,V3`` — a list of values;
- ``GUARD.OPTION=START:STOP:STEP`` — an inclusive numeric range (``0.6:0.95:0.05`` is
  0.6, 0.65, …, 0.95; the end is included when a step lands on it, within rounding);
- ``preset=a,b,c`` (``--preset``; ``ALL`` is every preset), ``P001.tokenizer=char,jieba``
  (``--tokenizer``) and ``P001.metric=containment,jaccard`` (``--metric``).

Every value is checked as ``--set`` checks it (type, choices, bounds) before anything
runs. The grid is the cartesian product, in the order the dimensions were given; a
guard whose option is gridded is run even if the preset leaves it out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..config import (
    Settings,
    coerce_option,
    option_default,
    option_field,
    unknown_guard,
)
from ..dataclass_lite import frozen_dataclass
from ..guards import guard_by_key
from ..input.diagnostics import TracecheckError

PRESET = "preset"
DEFAULT_CAP = 256  # combinations run without --max-combos (GitHub caps a matrix at 256 jobs)


@frozen_dataclass
class Dimension:
    key: str  # "preset" or "CODE.option"
    values: tuple[Any, ...]

    @property
    def guard(self) -> str | None:
        return None if self.key == PRESET else self.key.split(".", 1)[0]

    @property
    def option(self) -> str | None:
        return None if self.key == PRESET else self.key.split(".", 1)[1]


@frozen_dataclass
class GridPoint:
    number: int  # 1-based, in grid order
    values: tuple[tuple[str, Any], ...]  # (dimension key, value), one per dimension
    settings: Settings

    @property
    def label(self) -> str:
        return " ".join(f"{key}={_show(value)}" for key, value in self.values) or "(current settings)"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


_MAX_VALUES = 100_000  # values of one range
_EXPONENT_LIMIT = 100  # of any number in a range


def _show_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _numbers(text: str, where: str) -> list[str]:
    """The values of ``START:STOP[:STEP]`` as strings (decimal arithmetic, so 0.05 steps
    do not drift)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise TracecheckError(f"{where}: a range is START:STOP or START:STOP:STEP, not {text!r}")
    try:
        start, stop = Decimal(parts[0].strip()), Decimal(parts[1].strip())
        step = Decimal(parts[2].strip()) if len(parts) == 3 else Decimal(1)
    except InvalidOperation:
        raise TracecheckError(f"{where}: {text!r} is not a numeric range") from None
    if not all(v.is_finite() for v in (start, stop, step)):
        raise TracecheckError(f"{where}: {text!r} is not a numeric range")
    if any(abs(v.adjusted()) > _EXPONENT_LIMIT for v in (start, stop, step) if v):
        # Exponents like 1e-1000000 overflow decimal arithmetic; no option needs them.
        raise TracecheckError(f"{where}: {text!r} has a number beyond 1e±{_EXPONENT_LIMIT}")
    if len(parts) == 2 and (start != start.to_integral_value() or stop != stop.to_integral_value()):
        raise TracecheckError(f"{where}: {text!r} needs a step (START:STOP:STEP); without one the step is 1")
    if step <= 0:
        raise TracecheckError(f"{where}: the step of {text!r} must be positive")
    if stop < start:
        raise TracecheckError(f"{where}: the range {text!r} is empty (STOP is below START)")
    values = (stop - start) / step
    if values >= _MAX_VALUES:
        raise TracecheckError(f"{where}: the range {text!r} has more than {_MAX_VALUES:,} values")
    count = int(values) + 1
    return [str(start + k * step) for k in range(count)]


def parse_dimension(spec: str, where: str = "--grid") -> Dimension:
    """``GUARD.OPTION=VALUES`` → a dimension whose values are checked and typed."""
    if "=" not in spec:
        raise TracecheckError(f"{where}: expected GUARD.OPTION=VALUES (a list a,b,c or a range START:STOP:STEP), got {spec!r}")
    key, raw = spec.split("=", 1)
    label = f"{where} {spec!r}"
    if key.strip().lower() == PRESET:
        return preset_dimension(raw, where)
    guard_key, dot, option = key.strip().partition(".")
    guard = guard_by_key(guard_key) if dot and option else None
    if guard is None:
        raise unknown_guard(guard_key, label) if dot else TracecheckError(f"{label}: expected GUARD.OPTION=VALUES")
    option = option.strip()
    option_field(guard, option)  # names the guard's options when this is not one of them
    texts = _numbers(raw, label) if ":" in raw and not _is_text_option(guard, option) else [v.strip() for v in raw.split(",")]
    if not texts or any(not t for t in texts):
        raise TracecheckError(f"{label}: empty value in the list")
    # Values once each, in order; a list option's values (lists) are told apart by their items.
    distinct: dict[Any, Any] = {}
    for text in texts:
        if text is not None:
            value = coerce_option(guard, option, text, where)
            distinct.setdefault(tuple(value) if isinstance(value, list) else value, value)
    values = tuple(distinct.values())
    return Dimension(f"{guard.code}.{option}", values)


def _is_text_option(guard, option: str) -> bool:
    return isinstance(option_default(option_field(guard, option)), (str, list))


def preset_dimension(raw: str, where: str = "--preset") -> Dimension:
    from ..presets import PRESETS, preset_by_name

    names = [n.strip() for n in raw.split(",") if n.strip()]
    if not names:
        raise TracecheckError(f"{where}: no preset named")
    if any(n.upper() == "ALL" for n in names):
        return Dimension(PRESET, tuple(PRESETS))
    unknown = [n for n in names if preset_by_name(n) is None]
    if unknown:
        from ..config import unknown_preset

        raise unknown_preset(unknown[0], where)
    return Dimension(PRESET, tuple(dict.fromkeys(preset_by_name(n).name for n in names)))


def dimensions_from_table(table: Mapping[str, Any], where: str) -> list[Dimension]:
    """``[tool.tracecheck.sweep]``: ``grid = {"P001.containment" = "0.6:0.95:0.05"}`` or a
    list of values per key, and optionally ``preset = [...]``."""
    out: list[Dimension] = []
    if not isinstance(table, Mapping):
        raise TracecheckError(f"{where}: 'sweep' must be a table ([sweep] with grid, preset, max-combos), not {_show_value(table)}")
    unknown = set(table) - {"grid", "preset", "max-combos"}
    if unknown:
        raise TracecheckError(f"{where} [sweep]: unknown key(s) {', '.join(sorted(unknown))} (allowed: grid, preset, max-combos)")
    if "preset" in table:
        presets = table["preset"]
        if isinstance(presets, str):
            presets = [presets]
        if not isinstance(presets, list) or not all(isinstance(p, str) for p in presets):
            raise TracecheckError(f"{where} [sweep]: 'preset' must be a preset name or a list of names, not {_show_value(presets)}")
        out.append(preset_dimension(",".join(presets), f"{where} [sweep] preset"))
    grid = table.get("grid", {})
    if not isinstance(grid, Mapping):
        raise TracecheckError(f"{where} [sweep]: 'grid' must be a table of GUARD.OPTION = values")
    for key, value in grid.items():
        scalars = value if isinstance(value, list) else [value]
        if not scalars or not all(isinstance(v, (str, int, float)) for v in scalars):
            raise TracecheckError(f"{where} [sweep.grid]: {key} must be a range string or a list of values, not {_show_value(value)}")
        raw = ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in value) if isinstance(value, list) else str(value)
        out.append(parse_dimension(f"{key}={raw}", f"{where} [sweep.grid]"))
    return out


def merge(dimensions: Iterable[Dimension]) -> list[Dimension]:
    """One dimension per key: a key given twice is an error, not a silent override."""
    seen: dict[str, Dimension] = {}
    for dim in dimensions:
        if dim.key in seen:
            raise TracecheckError(f"the grid names {dim.key} twice")
        seen[dim.key] = dim
    return list(seen.values())


def combinations(dimensions: Sequence[Dimension]) -> int:
    return math.prod(len(d.values) for d in dimensions) if dimensions else 1


def expand(dimensions: Sequence[Dimension], settings_for: Callable[[str | None], Settings]) -> list[GridPoint]:
    """Every combination as settings: the preset's (``settings_for(name)``, or the base
    settings when no preset is gridded) with the gridded options set on top."""
    presets = next((d.values for d in dimensions if d.key == PRESET), (None,))
    options = [d for d in dimensions if d.key != PRESET]
    bases = {name: settings_for(name) for name in presets}
    points = []
    for number, combo in enumerate(itertools.product(*(d.values for d in dimensions)), 1):
        chosen = dict(zip((d.key for d in dimensions), combo))
        settings = bases[chosen.get(PRESET)]
        for dim in options:
            code, option = dim.guard, dim.option
            settings = settings.asked_for(code, option, chosen[dim.key])
        points.append(GridPoint(number, tuple(chosen.items()), settings))
    return points


__all__ = [
    "DEFAULT_CAP",
    "Dimension",
    "GridPoint",
    "combinations",
    "dimensions_from_table",
    "expand",
    "merge",
    "parse_dimension",
    "preset_dimension",
]
