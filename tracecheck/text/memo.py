"""What one run of a command remembers: tables of results of pure functions (a text
normalised, tokenized, matched against patterns; a grading file read) and facts about
a trace's tool results that several guards ask for.

A sweep replays the same traces under many settings, and several guards look at the
same texts, so remembering them saves most of the work. The tables belong to a run,
not to the process: ``forget_remembered()`` empties all of them, the engine calls it as
a replay batch or a sweep starts, and tests call it instead of reaching for a module's
cache by its private name. A long-lived process (a notebook, a host of the live
Monitor, the test suite) so never carries one run's texts into the next.

Not here, as they never change in a process: the guard registry (``guards.all_guards``)
and a loaded tokenizer library (``text.tokenizers``).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

_Function = TypeVar("_Function", bound=Callable[..., Any])

# Every table, to be emptied together.
_TABLES: list[Any] = []


def remembered(maxsize: int) -> Callable[[_Function], _Function]:
    """``functools.lru_cache(maxsize)`` whose table ``forget_remembered`` empties."""

    def remember(function: _Function) -> _Function:
        table = functools.lru_cache(maxsize=maxsize)(function)
        _TABLES.append(table)
        return table  # type: ignore[return-value]

    return remember


class PerObject:
    """A dict of remembered values for each live object (by identity), dropped when the
    object is freed: what is known about one tool result lasts as long as its trace, so
    memory follows the largest trace, not the input."""

    def __init__(self) -> None:
        self._values: dict[int, tuple[weakref.ref, dict]] = {}
        _TABLES.append(self)

    def of(self, obj: Any) -> dict:
        """The values remembered for ``obj``, a dict to read and fill."""
        key = id(obj)
        entry = self._values.get(key)
        if entry is not None:
            return entry[1]
        values: dict = {}
        # The callback runs as the object is freed, before its id can be reused.
        self._values[key] = (weakref.ref(obj, functools.partial(_drop, self._values, key)), values)
        return values

    def cache_clear(self) -> None:
        self._values.clear()


def _drop(values: dict, key: int, _ref: weakref.ref) -> None:
    values.pop(key, None)


def forget_remembered() -> None:
    """Empty every table: the start of a run (a replay batch, a sweep) or of a test that
    measures the work rather than a table's hit."""
    for table in _TABLES:
        table.cache_clear()
