"""B005's ``limits`` entries (``GLOBS=SECONDS``) from the config file or ``--set``: any list
of strings is either refused by the config loader (a TracecheckError naming
``B005.limits``, exit 2) or a table of non-empty globs with finite limits above 0 that a
guard can be built from and matched against any tool name. Never another exception.

``TRACECHECK_FUZZ_EXAMPLES=N`` runs N random examples (default: a fixed, derandomized 150)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from tracecheck.config import coerce_option
from tracecheck.guards.b005_call_timeout import CallTimeout, parse_limits
from tracecheck.input.diagnostics import TracecheckError

from conftest import fuzz_settings

FUZZ = fuzz_settings()

PIECES = st.sampled_from(["*exec*", "*", "|", "=", " ", "5", "0", ".", "-", "e", "3", "nan", "inf", "_", "５", "[", "\x00", "\u202e", "9" * 400])
ENTRY = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))


@FUZZ
@given(entries=st.lists(ENTRY, max_size=5), tool=st.text(max_size=300))
def test_limits_are_refused_cleanly_or_usable(entries, tool):
    try:
        value = coerce_option(CallTimeout, "limits", entries, "--set")
    except TracecheckError as exc:
        assert str(exc).startswith("B005.limits in --set: ")
        with pytest.raises(ValueError):
            parse_limits(entries)
        return
    table = parse_limits(value)
    assert len(table) == len(entries)
    for patterns, limit, label in table:
        assert patterns and all(p and p == p.strip() for p in patterns) and label == "|".join(patterns)
        assert math.isfinite(limit) and limit > 0
    guard = CallTimeout(limits=value)
    found = guard.limit_of(tool)
    assert found is None or found[0] > 0


@pytest.mark.parametrize(
    "entry",
    [
        "*x*=1_0",  # float() reads 10
        "*x*=５",  # float() reads a full-width digit as 5
        "*x*=0x10",
        "*x*=5s",
        "*x*=nan",
        "*x*=-inf",
        "*x*=1e400",  # inf
        "*x*=1e-400",  # 0.0
        "*x*=0",
        "*x*=",
        "=5",
        " | =5",
        "*x*",
    ],
)
def test_seconds_are_a_plain_decimal_number_above_0(entry):
    with pytest.raises(TracecheckError, match=r"is not GLOBS=SECONDS"):
        coerce_option(CallTimeout, "limits", [entry], "--set")


def test_plain_numbers_are_read_as_written():
    assert [limit for _, limit, _ in parse_limits(["*a*=5", "*b*= 2.5 ", "*c*=.5", "*d*=1e1", "*e*=30."])] == [5, 2.5, 0.5, 10, 30]
