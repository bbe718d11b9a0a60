"""``tracecheck show``: traces round by round, with every guard's state. Callable
without the CLI::

    from rich.console import Console
    from tracecheck.commands import ShowRequest, show
    from tracecheck.config import load_settings

    show(ShowRequest(["runs.jsonl"], settings=load_settings()), console=Console())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, BinaryIO

from ..config import Settings
from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import Diagnostics
from ..input.labels import Labels
from ..input.selection import Selection
from ..input.sources import Source
from ..reports.formats import SHOW
from ..reports.timeline import TimelineMaker, print_timeline, prints_plain
from .replay import write_entries


@frozen_dataclass
class ShowRequest:
    """Which traces to show and how.

    Every trace below ``paths`` (only ``trace_id`` when given), with each guard's state
    and fires when ``settings`` are given. ``format``: ``terminal`` prints the timeline
    (to the output without colour when ``to_file``, else to standard output as a terminal
    shows it); ``json`` and ``jsonl`` are the replay report (``tracecheck schema
    report``) of the traces shown, each with ``timeline``: its rounds as
    ``reports.rounds`` keeps them (calls, result excerpts, tokens, seconds), the fires in
    ``fires`` by round. ``labels`` (a labels file's path or a loaded ``Labels``) labels
    each trace as it is read. ``jobs`` above 1 reads the files in that many processes,
    the output the same. ``all_states``: every guard's state under every round, not
    only where it changed. ``selection`` (``-k``) shows only the traces it matches;
    ``quiet`` prints one summary line per trace (terminal only)."""

    paths: Sequence[str | Source]
    format: str = "terminal"
    to_file: bool = True
    settings: Settings | None = None
    trace_id: str | None = None
    input_format: str | None = None
    labels: Labels | str | None = None
    jobs: int = 1
    all_states: bool = False
    selection: Selection | None = None
    quiet: bool = False


class _Tally:
    """Traces read and shown, and the first ids read (to say which there were)."""

    def __init__(self, seen_ids: list[str] | None) -> None:
        self.seen = self.shown = 0
        self.ids = seen_ids

    def shown_only(self, made):
        for trace_id, item in made:
            self.seen += 1
            if self.ids is not None and len(self.ids) < 20:
                self.ids.append(trace_id)
            if item is not None:
                self.shown += 1
                yield item


def _made(request: ShowRequest, diagnostics: Diagnostics, plain_lines: bool = False):
    """Every trace's timeline or report entry, in input order (see ``TimelineMaker``)."""
    from ..engine.jobs import items_in_order
    from ..input.labels import as_labels
    from ..input.sources import expand_paths
    from ..readers.load import check_input_format
    from ..text.memo import forget_remembered

    check_input_format(request.input_format)
    forget_remembered()  # what the last run remembered is not this run's
    labels = as_labels(request.labels)
    sources = expand_paths(list(request.paths), diagnostics)
    in_workers = request.jobs > 1 and len(sources) > 1
    maker = TimelineMaker(
        request.settings, request.input_format, labels, request.trace_id, request.format, request.all_states, request.selection, request.quiet, lazy=not in_workers,
        plain_lines=plain_lines,
    )
    yield from items_in_order(maker, sources, diagnostics, request.jobs)
    if labels is not None:
        labels.finish(diagnostics)


def show(
    request: ShowRequest,
    out: BinaryIO | None = None,
    *,
    console: Any = None,
    diagnostics: Diagnostics | None = None,
    seen_ids: list[str] | None = None,
) -> tuple[int, int]:
    """``show`` in ``request.format`` to the binary stream ``out`` (the terminal timeline
    to ``console`` when one is given). One trace in memory at a time. ``seen_ids``
    collects the ids read (the first 20), to say which there were. Returns (traces read,
    traces shown)."""
    SHOW.writer(request.format, "show")
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    tally = _Tally(seen_ids)
    if request.format == "terminal":
        console = console if console is not None else SHOW.writer("terminal")(out, request.to_file)
        made = tally.shown_only(_made(request, diagnostics, plain_lines=prints_plain(console)))
        for lines in made:
            print_timeline(console, lines)
        console.file.flush()
    else:
        made = tally.shown_only(_made(request, diagnostics))
        write_entries(
            made, request.settings, out, format=request.format, to_file=request.to_file, only_fires=False, tokenizers=(), presets=(), diagnostics=diagnostics
        )
    return tally.seen, tally.shown
