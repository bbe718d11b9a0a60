"""What the replay report takes from each replayed trace (``report_entry``), made where
the trace was replayed; the report itself is written by ``tracecheck.commands.replay``
with the writers of ``reports.formats``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.batch import ReplayItem
from .data import ReportTotals, item_data


def report_entry(item: ReplayItem) -> tuple[dict[str, Any], tuple, bool]:
    """One trace of the report: its data, what the totals take from it, whether any guard
    fired (made where the trace was replayed: in a worker process with ``jobs``)."""
    data = item_data(item)
    fired = any(run["fires"] for run in data["presets"].values()) if "presets" in data else bool(data["fires"])
    return data, ReportTotals.entry(item), fired


def report_entry_with_rounds(item: ReplayItem) -> tuple[dict[str, Any], tuple, bool]:
    """``report_entry`` with the trace round by round (``data["timeline"]``, see
    ``reports.rounds``): what the HTML report draws its timelines from. Only the HTML
    report asks for it; the other formats never see it."""
    from .rounds import rounds_data

    data, entry, fired = report_entry(item)
    data["timeline"] = rounds_data(item.result)
    return data, entry, fired


def entry_maker(format: str) -> Callable[[ReplayItem], tuple[dict[str, Any], tuple, bool]]:
    """The ``prepare`` function of a report in ``format``."""
    return report_entry_with_rounds if format == "html" else report_entry
