"""``tracecheck replay``: every trace replayed through the guards, the report written as
traces stream in. Callable without the CLI::

    import sys
    from tracecheck.commands import ReplayRequest, replay
    from tracecheck.config import load_settings

    replay(ReplayRequest(["runs.jsonl"], load_settings(), format="json"), sys.stdout.buffer)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from ..config import Settings
from ..dataclass_lite import frozen_dataclass
from ..engine.batch import replay_stream
from ..input.diagnostics import Diagnostics
from ..input.sources import Source
from ..reports.data import ReportTotals, header_data
from ..reports.formats import report_writer
from ..reports.records import TraceRecord
from ..reports.replay_report import entry_maker

if TYPE_CHECKING:
    from ..input.labels import Labels
    from ..input.selection import Selection

ReportItem = tuple[TraceRecord, tuple, bool]  # a trace's report record, its totals entry, whether a guard fired (``report_entry``)


@frozen_dataclass
class ReplayRequest:
    """What to replay and how to report it.

    ``paths``: files, folders or sources (``-`` standard input). ``format``: terminal,
    json, jsonl, markdown or html. ``to_file``: the terminal report goes to the output
    without colour, else to standard output as a terminal shows it. ``presets`` (name →
    settings, two or more) replays every trace once per preset too and reports them side
    by side; ``tokenizers`` (two or more) compares P001 under each. ``labels`` (a labels
    file's path or a loaded ``Labels``) labels each trace as it is read. ``jobs`` above 1
    replays the input files in that many processes; the report is the same, byte for
    byte. ``selection`` (``-k``) replays only the traces it matches. The terminal report
    prints only its summary with ``quiet``, only the fires per guard with ``statistics``,
    every trace where nothing fired with ``all_traces``; ``only_fires`` lists only the
    traces where a guard fired."""

    paths: Sequence[str | Source]
    settings: Settings
    format: str = "terminal"
    to_file: bool = True
    only_fires: bool = False
    all_traces: bool = False
    input_format: str | None = None
    tokenizers: Sequence[str] = ()
    presets: Mapping[str, Settings] | None = None
    labels: Labels | str | None = None
    jobs: int = 1
    selection: Selection | None = None
    quiet: bool = False
    statistics: bool = False


# Where a replay's report items come from: called with (request, diagnostics, on_file,
# on_progress), it yields each trace's ``ReportItem`` in input order. ``local_items``
# replays in this process (and ``--jobs`` workers); ``integrations.dask`` on a cluster.
ItemSource = Callable[[ReplayRequest, Diagnostics, Any, Any], Iterable[ReportItem]]


def local_items(
    request: ReplayRequest,
    diagnostics: Diagnostics,
    on_file: Callable[[int, int, str], Any] | None = None,
    on_progress: Callable[[int, int | None, int], Any] | None = None,
) -> Iterator[ReportItem]:
    """The report items of ``request``'s traces, replayed here (``jobs`` processes)."""
    return replay_stream(
        request.paths, request.settings, input_format=request.input_format, tokenizers=request.tokenizers, diagnostics=diagnostics, on_file=on_file,
        presets=request.presets, labels=request.labels, jobs=request.jobs, prepare=entry_maker(request.format), on_progress=on_progress,
        selection=request.selection,
    )


def replay(
    request: ReplayRequest,
    out: BinaryIO,
    *,
    diagnostics: Diagnostics | None = None,
    on_file: Callable[[int, int, str], Any] | None = None,
    on_progress: Callable[[int, int | None, int], Any] | None = None,
    items: ItemSource = local_items,
) -> int:
    """Replay every trace below ``request.paths`` and write the report in
    ``request.format`` to ``out``; returns how many traces were replayed (nothing is
    written when there were none). The input warnings go to ``diagnostics``.
    ``on_file`` and ``on_progress`` follow the reading (see ``engine.batch.replay_stream``).
    ``items`` is where the traces are replayed (``local_items``: here)."""
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    stream = items(request, diagnostics, on_file, on_progress)
    return write_entries(
        stream, request.settings, out, format=request.format, to_file=request.to_file, only_fires=request.only_fires, tokenizers=request.tokenizers,
        presets=tuple(request.presets or ()), diagnostics=diagnostics, quiet=request.quiet, statistics=request.statistics, all_traces=request.all_traces,
    )


def write_entries(
    entries: Iterable[ReportItem],
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
            writer.end(totals.data(), [d.record() for d in diagnostics])
    return totals.traces
