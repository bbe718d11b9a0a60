"""The check report as typed, frozen records (see ``records.py``): ``CheckReport``, made
by ``check_report.check_data``; its findings are ``FindingRecord``, its expectations the
engine's own ``engine.check.ExpectationCheck`` (frozen, with the same ``to_json()``)."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Literal

from ..dataclass_lite import frozen_dataclass
from .records import OPTIONAL, InputWarning, Record

if TYPE_CHECKING:
    from ..engine.check import ExpectationCheck

FindingKind = Literal["expectation", "harm", "waste"]
FindingStatus = Literal["new", "baseline", "accepted", "allowed"]


@frozen_dataclass(slots=True)
class FindingRecord(Record):
    """A finding of check as its report shows it (``engine.check.Finding``): where it is
    (``place``: file, line and the run's place in a document of many), what deviated from
    what was expected, and whether it fails the gate."""

    kind: FindingKind
    rule: str
    trace: str
    file: str
    line: int | None
    pointer: str | None
    place: str
    round: int | None
    expected_round: int | None
    deviation: str | None
    turn: int | None
    message: str
    fingerprint: str
    status: FindingStatus
    reason: str | None
    failing: bool


@frozen_dataclass(slots=True)
class ExpectationCounts(Record):
    """The expectations checked, those that hold, those about guards the settings do not run."""

    checked: int
    met: int
    not_checked: int


@frozen_dataclass(slots=True)
class FindingCounts(Record):
    """The findings by status, and how many fail the gate."""

    new: int
    baseline: int
    accepted: int
    allowed: int
    failing: int


@frozen_dataclass(slots=True)
class CheckReport(Record):
    """What ``tracecheck check`` reports: the verdict, the counts, every finding (most
    important first) and every expectation judged (in input order)."""

    schema_version: int
    tool: dict[str, str]
    preset: str | None
    labels: str | None
    passed: bool
    nothing_to_check: bool
    exit_code: int
    fail_on: str
    traces: int
    expectations: ExpectationCounts
    findings: tuple[FindingRecord, ...]
    # Every expectation, met or not, in input order (a broken one's finding has its fingerprint).
    expectation_checks: tuple[ExpectationCheck, ...]
    counts: FindingCounts
    baseline_fixed: int
    warnings: tuple[InputWarning, ...]
    # Traces -k left out: only when it left some out.
    deselected: int | None = field(default=None, metadata=OPTIONAL)

    def failing_only(self) -> CheckReport:
        """The same report with only the findings that fail the gate (``--quiet``)."""
        return dataclasses.replace(self, findings=tuple(f for f in self.findings if f.failing))
