"""What the replay report takes from each replayed trace (``report_entry``), made where
the trace was replayed; the report itself is written by ``tracecheck.commands.replay``
with the writers of ``reports.formats``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..engine.batch import ReplayItem
from .data import ReportTotals, item_data
from .records import TraceRecord


def report_entry(item: ReplayItem) -> tuple[TraceRecord, tuple, bool]:
    """One trace of the report: its record, what the totals take from it, whether any
    guard fired (made where the trace was replayed: in a worker process with ``jobs``)."""
    data = item_data(item)
    return data, ReportTotals.entry(item), data.fired()


def report_entry_with_rounds(item: ReplayItem) -> tuple[TraceRecord, tuple, bool]:
    """``report_entry`` with the trace round by round (``TraceRecord.timeline``, see
    ``reports.rounds``): what the HTML report draws its timelines from. Only the HTML
    report asks for it; the other formats never see it."""
    from .rounds import rounds_data

    data, entry, fired = report_entry(item)
    return dataclasses.replace(data, timeline=rounds_data(item.result)), entry, fired


def entry_maker(format: str) -> Callable[[ReplayItem], tuple[TraceRecord, tuple, bool]]:
    """The ``prepare`` function of a report in ``format``."""
    return report_entry_with_rounds if format == "html" else report_entry
