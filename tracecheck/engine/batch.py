"""Replaying many traces, one at a time: the stream that ``tracecheck.commands.replay``
writes its report from.

Callable without the CLI::

    from tracecheck.config import load_settings
    from tracecheck.engine.batch import replay_paths

    report = replay_paths(["runs.jsonl"], load_settings())
    for result in report.results:
        print(result.trace.id, result.policy.stopped_at)
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..dataclass_lite import mutable_dataclass
from ..guards.base import Phase
from ..input.diagnostics import Diagnostics
from ..input.sources import Source, Span, expand_paths, source_size
from ..model import Trace
from ..readers.load import Seam, check_input_format, read_part, read_source
from ..text.memo import forget_remembered
from .replay import TraceResult, replay_trace

if TYPE_CHECKING:
    from ..input.labels import Labels
    from ..input.selection import Selection

P001 = "P001"


@mutable_dataclass(slots=True)
class TokenizerRun:
    """P001 alone under one tokenizer: where it fires and its best score per round."""

    tokenizer: str
    fires_at: int | None
    scores: list[float | None]  # per round: best similarity of the round's searches, None if no search


@mutable_dataclass(slots=True)
class TokenizerComparison:
    trace_id: str
    runs: list[TokenizerRun]

    @property
    def differs(self) -> bool:
        return len({r.fires_at for r in self.runs}) > 1


@mutable_dataclass
class ReplayReport:
    results: list[TraceResult] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    settings: Settings | None = None
    comparisons: list[TokenizerComparison] = field(default_factory=list)
    tokenizers: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()  # compared side by side: each result's ``presets`` holds them
    preset_results: list[dict[str, TraceResult]] = field(default_factory=list)  # per trace, by preset


def compare_tokenizers(trace: Trace, settings: Settings, tokenizers: Sequence[str]) -> TokenizerComparison:
    """Replay P001 alone once per tokenizer and collect its per-round scores."""
    from ..guards import guard_by_key

    guard_class = guard_by_key(P001)
    runs = []
    for name in tokenizers:
        options = settings.with_option(P001, "tokenizer", name).options[P001]
        stop = next(
            (f.round for f in replay_trace(trace, [guard_class(options)]).fires if f.action.ends_run), None
        )
        # Scores for every round, also after the stop: the same guard that never stops.
        guard = guard_class(options, threshold=len(trace.rounds) + 1)
        scores: list[float | None] = []

        def observe(rnd, phase, guards, _scores=scores, _guard=guard):
            if phase is Phase.BEFORE_TOOLS:
                _scores.append(_guard.best_score())
            elif phase is Phase.FINAL:
                _scores.append(None)

        replay_trace(trace, [guard], observe)
        scores.extend([None] * (len(trace.rounds) - len(scores)))
        runs.append(TokenizerRun(name, stop, scores))
    return TokenizerComparison(trace.id, runs)


@mutable_dataclass(slots=True)
class ReplayItem:
    """One replayed trace: its result and, with several tokenizers, their comparison."""

    result: TraceResult
    comparison: TokenizerComparison | None = None
    presets: dict[str, TraceResult] | None = None  # several presets side by side: each one's replay


def _summary_only(result: TraceResult, trace: Trace) -> TraceResult:
    """Keep the summary, not the transcript."""
    result.trace = trace
    result.costs = []
    return result


def replay_stream(
    paths: Sequence[str],
    settings: Settings,
    *,
    input_format: str | None = None,
    tokenizers: Sequence[str] = (),
    diagnostics: Diagnostics | None = None,
    on_file: Callable[[int, int, str], Any] | None = None,
    presets: Mapping[str, Settings] | None = None,
    labels: Labels | str | None = None,
    jobs: int = 1,
    prepare: Callable[[ReplayItem], Any] | None = None,
    on_progress: Callable[[int, int | None, int], Any] | None = None,
    selection: Selection | None = None,
) -> Iterator[Any]:
    """Read every trace below ``paths`` and replay it through the enabled guards, one
    trace at a time: memory grows with the largest trace, not with the input.

    ``tokenizers`` with two or more names (e.g. ``("char", "jieba")``) also replays P001
    alone under each and compares them (the main replay uses P001's own option).
    ``presets`` (name → settings) replays every trace once per preset as well, for a
    side-by-side comparison; a preset whose settings are ``settings`` reuses the main replay.
    ``labels`` (a ``Labels`` or a labels file's path) is applied to each trace as it is
    read; its entries that matched no trace are warned about at the end.
    ``jobs`` above 1 replays the input files in that many worker processes, a large
    JSON Lines file cut into parts (see ``tracecheck.engine.jobs``): the items, warnings
    and their order are the same.
    ``prepare`` turns each item into what is yielded instead, where the trace was
    replayed (a module-level function, so that worker processes can run it); it sees
    the whole trace, whereas an item yielded as it is keeps only the trace's summary.
    ``on_file(number, files, name)`` is called as each file starts; ``on_progress(bytes
    read, bytes in all, traces)`` after each trace and file (bytes in all is None when
    standard input is among them), so that one large file shows its progress too.
    ``selection`` (``-k``, see ``input.selection``) leaves out the traces it does not
    match, after labelling; their ids go to ``diagnostics.deselected``.
    """
    forget_remembered()  # what the last run remembered is not this run's
    check_input_format(input_format)
    if labels is not None:  # (labels are read only when given: start-up)
        from ..input.labels import as_labels

        labels = as_labels(labels)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sources = expand_paths(list(paths), diagnostics)
    replayer = FileReplayer(settings, input_format, tuple(tokenizers), dict(presets) if presets else None, labels, prepare, selection)
    progress = _Progress(sources, on_file, on_progress)
    if jobs > 1 and sources:
        from .jobs import replay_in_workers

        for item in replay_in_workers(replayer, sources, diagnostics, progress.file_started, jobs):
            progress.trace_done()
            yield item
    else:
        for number, source in enumerate(sources, 1):
            progress.file_started(number, len(sources), source.name)
            tracked = _TrackedSource(source.name, source.members) if on_progress is not None else source
            for item in replayer.items(tracked, diagnostics):
                progress.trace_done(tracked)
                yield item
    progress.file_started(len(sources) + 1, len(sources), "")
    if labels is not None:
        labels.finish(diagnostics)


class _TrackedSource(Source):
    """A source that remembers the file it opened, to tell how far reading has got."""

    __slots__ = ("handle",)

    def open(self):
        self.handle = super().open()
        return self.handle

    def position(self) -> int:
        """Bytes read from the file (of a compressed file, compressed bytes); 0 unknown."""
        try:
            return self.handle.tell()
        except (AttributeError, OSError, ValueError):  # not opened, closed, or a pipe
            return 0


class _Progress:
    """Bytes read and traces replayed, for ``replay_stream``'s ``on_progress``."""

    def __init__(self, sources: Sequence[Source], on_file, on_progress) -> None:
        self.on_file, self.on_progress = on_file, on_progress
        self.sizes = [source_size(source) for source in sources]
        self.total = None if None in self.sizes else sum(self.sizes)
        self.done = self.traces = 0

    def file_started(self, number: int, files: int, name: str) -> None:
        self.done = sum(size or 0 for size in self.sizes[: number - 1])
        if self.on_progress is not None:
            self.on_progress(self.done, self.total, self.traces)
        if self.on_file is not None and number <= files:
            self.on_file(number, files, name)

    def trace_done(self, source: _TrackedSource | None = None) -> None:
        self.traces += 1
        if self.on_progress is not None:
            self.on_progress(self.done + (source.position() if source is not None else 0), self.total, self.traces)


class FileReplayer:
    """Replays the traces of one input file after another with the same settings; the
    guards are built once and reset for each trace (``Guard.reset`` starts a new run)."""

    def __init__(
        self,
        settings: Settings,
        input_format: str | None,
        tokenizers: tuple[str, ...],
        presets: dict[str, Settings] | None,
        labels: Labels | None,
        prepare: Callable[[ReplayItem], Any] | None,
        selection: Selection | None = None,
    ) -> None:
        self.settings = settings
        self.selection = selection
        self.input_format = input_format
        self.tokenizers = tokenizers
        self.presets = presets
        self.labels = labels
        self.prepare = prepare
        self.compare = len(tokenizers) > 1 and any(g.code == P001 for g in settings.enabled())
        self._guards: dict[int, list] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_guards": {}}  # guards are rebuilt where they are used

    def guards(self, settings: Settings) -> list:
        built = self._guards.get(id(settings))
        if built is None:
            built = self._guards[id(settings)] = settings.build()
        return built

    def items(self, source, diagnostics: Diagnostics, skip: int = 0) -> Iterator[Any]:
        """The items of one file's traces, after its first ``skip`` traces (read, not replayed)."""
        traces = read_source(source, diagnostics, self.input_format)
        return self.replayed(itertools.islice(traces, skip, None) if skip else traces, diagnostics)

    def part_items(self, source: Source, reader: str, span: Span, last: bool, diagnostics: Diagnostics, seam: Seam) -> Iterator[Any]:
        """The items of one part of a file cut for worker processes (``readers.load.read_part``)."""
        return self.replayed(read_part(source, reader, span, last, diagnostics, seam, settle=self.input_format is None), diagnostics)

    def replayed(self, traces: Iterator[Trace], diagnostics: Diagnostics) -> Iterator[Any]:
        settings, presets, labels = self.settings, self.presets, self.labels
        for trace in traces:
            if labels is not None:
                labels.apply(trace)
            if self.selection is not None and not self.selection.keep(trace, diagnostics):
                continue
            result = replay_trace(trace, self.guards(settings))
            comparison = compare_tokenizers(trace, settings, self.tokenizers) if self.compare else None
            by_preset = None
            if presets:
                by_preset = {
                    name: result if chosen is settings else replay_trace(trace, self.guards(chosen))
                    for name, chosen in presets.items()
                }
            item = ReplayItem(result, comparison, by_preset)
            if self.prepare is not None:
                yield self.prepare(item)  # it sees the whole trace (the HTML report's timelines)
                continue
            summary = dataclasses.replace(trace, rounds=[])
            for each in {id(r): r for r in [result, *(by_preset or {}).values()]}.values():
                _summary_only(each, summary)
            yield item


def replay_paths(
    paths: Sequence[str],
    settings: Settings,
    *,
    input_format: str | None = None,
    tokenizers: Sequence[str] = (),
    diagnostics: Diagnostics | None = None,
    presets: Mapping[str, Settings] | None = None,
    labels: Labels | str | None = None,
) -> ReplayReport:
    """Like ``replay_stream``, collected into one report (every trace summary in memory)."""
    report = ReplayReport(
        diagnostics=diagnostics or Diagnostics(),
        tokenizers=tuple(tokenizers),
        settings=settings,
        presets=tuple(presets or ()),
    )
    for item in replay_stream(
        paths, settings, input_format=input_format, tokenizers=tokenizers, diagnostics=report.diagnostics, presets=presets, labels=labels
    ):
        report.results.append(item.result)
        if item.comparison is not None:
            report.comparisons.append(item.comparison)
        if item.presets is not None:
            report.preset_results.append(item.presets)
    return report
