"""The replay report, written as traces stream in: the plain function behind
``tracecheck replay``, callable without the CLI::

    import sys
    from tracecheck.config import load_settings
    from tracecheck.reports.replay_report import write_replay_report

    write_replay_report(["runs.jsonl"], load_settings(), sys.stdout.buffer, format="json")
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO

from ..config import Settings
from ..input.diagnostics import Diagnostics
from ..engine.batch import ReplayItem, replay_stream
from ..input.labels import Labels
from ..input.sources import Source
from .data import ReportTotals, header_data, item_data
from .records import TraceRecord

FORMATS = ("terminal", "json", "jsonl", "markdown", "html")


def write_replay_report(
    paths: Sequence[str | Source],
    settings: Settings,
    out: BinaryIO,
    *,
    format: str = "terminal",
    to_file: bool = True,
    only_fires: bool = False,
    all_traces: bool = False,
    input_format: str | None = None,
    tokenizers: Sequence[str] = (),
    diagnostics: Diagnostics | None = None,
    on_file: Callable[[int, int, str], Any] | None = None,
    presets: Mapping[str, Settings] | None = None,
    labels: Labels | str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int, int | None, int], Any] | None = None,
    selection=None,
    quiet: bool = False,
    statistics: bool = False,
) -> int:
    """Replay every trace below ``paths`` and write the report in ``format`` to ``out``;
    returns how many traces were replayed (nothing is written when there were none).
    ``to_file``: the terminal report goes to ``out`` without colour, else to standard
    output as a terminal shows it. ``presets`` (name → settings, two or more) replays
    every trace once per preset too and reports them side by side. ``labels`` (a labels
    file's path or a loaded ``Labels``) labels each trace as it is read. ``jobs`` above 1
    replays the input files in that many processes; the report is the same, byte for byte.
    ``on_file`` and ``on_progress`` follow the reading (see ``replay_stream``).
    ``selection`` (``-k``) replays only the traces it matches. The terminal report prints
    only its summary with ``quiet``, only the fires per guard with ``statistics``."""
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    stream = replay_stream(
        paths, settings, input_format=input_format, tokenizers=tokenizers, diagnostics=diagnostics, on_file=on_file, presets=presets, labels=labels,
        jobs=jobs, prepare=entry_maker(format), on_progress=on_progress, selection=selection,
    )
    return write_entries(
        stream, settings, out, format=format, to_file=to_file, only_fires=only_fires, tokenizers=tokenizers, presets=tuple(presets or ()), diagnostics=diagnostics,
        quiet=quiet, statistics=statistics, all_traces=all_traces,
    )


def write_entries(
    entries: Iterable[tuple[dict[str, Any], tuple, bool]],
    settings: Settings,
    out: BinaryIO,
    *,
    format: str,
    to_file: bool,
    only_fires: bool,
    tokenizers: Sequence[str],
    presets: tuple[str, ...],
    diagnostics: Diagnostics,
    quiet: bool = False,
    statistics: bool = False,
    all_traces: bool = False,
) -> int:
    """Write the report of ``report_entry`` results, in order, wherever they were made (this
    process, ``--jobs`` workers, a Dask cluster); the warnings are ``diagnostics`` as they
    stand at the end. Returns how many traces were written."""
    totals = ReportTotals(presets)
    terminal = {"quiet": quiet, "statistics": statistics, "deselected": lambda: len(diagnostics.deselected), "all_traces": all_traces}
    with report_writer(format, out, to_file, only_fires, terminal) as writer:
        for data, entry, fired in entries:
            if not totals.traces:
                writer.begin(header_data(settings, tuple(tokenizers), presets))
            totals.add_entry(entry)
            if format == "terminal" or not only_fires or fired:
                writer.trace(data)
        if totals.traces:
            writer.end(totals.data(), [dataclasses.asdict(d) for d in diagnostics])
    return totals.traces


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


def report_console(out: BinaryIO, to_file: bool):
    """The console a terminal-style report prints to: ``out`` without colour when it goes
    to a file, else standard output as the terminal shows it."""
    from rich.console import Console

    from ..output import CheckedText

    if not to_file:
        return Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)
    console = Console(file=io.TextIOWrapper(out, encoding="utf-8", write_through=True), highlight=False, soft_wrap=True, no_color=True, force_terminal=False)
    console.size = console.size  # measured once: Rich otherwise asks the environment on every print
    return console


@contextlib.contextmanager
def report_writer(format: str, out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """The writer for a report format, writing to ``out``; ``terminal``: the terminal
    writer's own options (``TerminalWriter``'s quiet, statistics, deselected, all_traces)."""
    if format == "terminal":
        from .terminal import TerminalWriter

        console = report_console(out, to_file)
        yield TerminalWriter(console, only_fires=only_fires, **(terminal or {}))
        console.file.flush()
    elif format == "markdown":
        from .markdown import MarkdownWriter

        yield MarkdownWriter(lambda text: out.write(text.encode()))
    elif format == "html":
        from .html import HtmlWriter

        yield HtmlWriter(lambda text: out.write(text.encode("utf-8")), only_fires=only_fires)
    elif format in ("json", "jsonl"):
        from .machine import JsonlWriter, JsonWriter

        yield (JsonWriter if format == "json" else JsonlWriter)(out.write)
    else:
        raise ValueError(f"unknown report format {format!r}; choose one of: {', '.join(FORMATS)}")
