"""Conformance harness: the scenarios of other agents' own test suites, replayed as
tracecheck presets.

``reference/peers.md`` lists, for each system, the scenarios its loop detector's tests
run ("``ls ⇒ ""`` ×4 → stuck"). Each ``test_conformance_<preset>.py`` writes those
scenarios as traces with the guards' example builders (one :class:`Step` per model
response: its tool calls with their results, or a message without calls; ``user=``
opens a new turn first) and asserts that the preset fires — or stays silent — at the
same event the source's test names: the same round, and before or after that round's
tools ran.

A scenario is replayed through the public API, exactly as ``tracecheck replay
--preset NAME`` would: settings from the preset, every guard alone (``fires``) and the
policy of them together (``stops``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracecheck.config import load_settings
from tracecheck.engine.replay import TraceResult, replay_trace
from tracecheck.guards.examples import Call, Example, Step, answer, calls

__all__ = ["Call", "Step", "answer", "calls", "message", "replay_as", "fires", "stops", "first_stop"]

_EMPTY = Path(__file__).resolve().parent  # no tracecheck.toml here: presets apply as written


def message(text: str, user: str | None = None) -> Step:
    """An agent message without tool calls (``M: "text"`` in peers.md)."""
    return Step(text=text, user=user)


def replay_as(preset: str, *steps: Step, sets: tuple[str, ...] = (), metadata: dict[str, Any] | None = None) -> TraceResult:
    settings = load_settings(preset=preset, sets=sets, cwd=_EMPTY)
    trace = Example(title=f"{preset} scenario", steps=tuple(steps), metadata=dict(metadata or {})).trace()
    return replay_trace(trace, settings.build())


def fires(preset: str, *steps: Step, sets: tuple[str, ...] = (), metadata: dict[str, Any] | None = None) -> list[tuple[str, int, str, str]]:
    """Every verdict of every guard of the preset, each guard alone: (code, round, phase, action)."""
    result = replay_as(preset, *steps, sets=sets, metadata=metadata)
    return [(f.code, f.round, f.phase.value, f.action.value) for f in result.fires]


def stops(preset: str, *steps: Step, sets: tuple[str, ...] = (), metadata: dict[str, Any] | None = None) -> list[tuple[str, int, str, str]]:
    """The stops (and abort) of the preset's guards together, one per turn at most."""
    result = replay_as(preset, *steps, sets=sets, metadata=metadata)
    return [(f.code, f.round, f.phase.value, f.action.value) for f in result.policy.stops]


def first_stop(preset: str, *steps: Step, sets: tuple[str, ...] = (), metadata: dict[str, Any] | None = None) -> tuple[int, str] | None:
    """Where the preset first ends a turn or the run: (round, phase), or None."""
    found = stops(preset, *steps, sets=sets, metadata=metadata)
    return (found[0][1], found[0][2]) if found else None
