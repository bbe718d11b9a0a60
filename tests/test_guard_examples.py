"""Every guard's own examples run as tests: the documentation cannot drift."""

from __future__ import annotations

import dataclasses

import pytest

from tracecheck.engine.replay import replay_trace
from tracecheck.guards import all_guards

CASES = [(g, i) for g in all_guards() for i in range(len(g.examples))]


@pytest.mark.parametrize(("guard", "index"), CASES, ids=[f"{g.code}-{i}" for g, i in CASES])
def test_example_fires_exactly_as_documented(guard, index):
    example = guard.examples[index]
    result = replay_trace(example.trace(), [guard(**example.options)])
    got = [(f.round, f.phase.value, f.action.value) for f in result.fires]
    assert got == list(example.expect), example.title


@pytest.mark.parametrize("guard", all_guards(), ids=lambda g: g.code)
def test_guard_metadata_is_complete(guard):
    assert guard.code[0] in "PRFEBT" and len(guard.code) == 4 and guard.code[1:].isdigit()
    assert guard.name == guard.name.lower() and " " not in guard.name
    assert guard.summary and guard.source and len(guard.explanation()) > 200
    # At least one example that fires and one that must stay quiet.
    assert any(e.expect for e in guard.examples) and any(not e.expect for e in guard.examples)
    for f in dataclasses.fields(guard.Options):
        assert f.metadata.get("help"), f"{guard.code}.{f.name} has no help text"


def test_codes_and_names_are_unique():
    guards = all_guards()
    assert len({g.code for g in guards}) == len(guards)
    assert len({g.name for g in guards}) == len(guards)
