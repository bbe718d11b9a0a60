"""Reading traces from paths: find files, sniff each one's format, run its reader."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import field

from ..dataclass_lite import mutable_dataclass
from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.sources import (
    Source,
    Span,
    TextDocument,
    display_name,
    expand_paths,
    json_lines_head,
    line_spans,
    read_records,
    read_span,
    source_size,
)
from ..model import Trace
from . import (
    MESSAGE_LOOKAHEAD,
    READER_NAMES,
    not_a_transcript,
    read_with,
    reader_by_name,
    sniff,
    sniff_message_lines,
)
from .chat_messages import is_bare_message
from .contract import ReadContext
from .identity import settle_ids


def check_input_format(name: str | None) -> None:
    if name is not None and reader_by_name(name) is None:
        from ..text.suggest import did_you_mean

        raise TracecheckError(f"unknown input format {name!r}{did_you_mean(name, READER_NAMES)}; choose one of: {', '.join(READER_NAMES)}")


def read_source(source: Source, diagnostics: Diagnostics, input_format: str | None = None) -> Iterator[Trace]:
    """Traces of one file. Records before the first one of a known format are reported and
    skipped; a file with none is reported whole. Ids are settled as ``identity`` says."""
    shown = display_name(source.name)
    ctx = ReadContext(shown, diagnostics, tuple(display_name(member) for member in source.members))
    records = read_records(source, diagnostics)
    if input_format is not None:
        yield from _read_as(reader_by_name(input_format), records, ctx, diagnostics)
        return
    else:
        # Sniff record after record, holding only the line numbers of those that match
        # nothing: a malformed or unknown first record must not hide a whole file.
        head = []
        info = None
        unknown = _SkippedLines()
        records = iter(records)
        first = next(records, None)
        if first is not None and is_bare_message(first.value):
            # One bare chat message per line: whose it is shows in the lines after it.
            ahead = [first, *itertools.islice(records, MESSAGE_LOOKAHEAD - 1)]
            info = sniff_message_lines([r.value for r in ahead])
            if info is not None:
                yield from settle_ids(_read_safely(info, itertools.chain(ahead, records), ctx), ctx)
                return
            records = itertools.chain(ahead, records)
        elif first is not None:
            records = itertools.chain([first], records)
        for record in records:
            info = sniff(record.value)
            if info is not None:
                head = [record]
                break
            if not unknown.count and not_a_transcript(record.value) is not None:
                return  # a companion file (a trial's grade, a labels file): read where it belongs
            unknown.add(record.line, isinstance(record.value, TextDocument))
        if info is None:
            unknown.report_unrecognised(ctx)
            return
        unknown.report_skipped(ctx, info.name)
    yield from settle_ids(_read_safely(info, itertools.chain(head, records), ctx), ctx)


_GUESS_FROM = 20  # records kept to guess the format of a file the named one read nothing from


def _read_as(info, records, ctx: ReadContext, diagnostics: Diagnostics) -> Iterator[Trace]:
    """The file read in the format the user named; when that gives no trace but warnings,
    say which format the records look like instead."""
    records = iter(records)
    first = list(itertools.islice(records, _GUESS_FROM))
    warned, read = len(diagnostics), 0
    for trace in _read_safely(info, itertools.chain(first, records), ctx):
        read += 1
        yield trace
    if read or len(diagnostics) == warned:
        return
    values = [r.value for r in first]
    guess = sniff_message_lines(values) if values and is_bare_message(values[0]) else next((g for g in map(sniff, values) if g is not None), None)
    if guess is not None and guess.name != info.name:
        diagnostics.warn(
            ctx.file,
            None,
            f"nothing could be read as {info.name}; the records look like {guess.name}: did you mean --input-format {guess.name} (or leave --input-format out)?",
            always=True,
        )


def _read_safely(info, records, ctx: ReadContext) -> Iterator[Trace]:
    try:
        yield from read_with(info, records, ctx)
    except Exception as exc:  # noqa: BLE001 - one file's reader bug must not lose the other files
        if os.environ.get("TRACECHECK_DEBUG"):
            raise
        ctx.warn(None, f"the {info.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file was skipped")
        if ctx.cut_after:
            ctx.broken = "the reader failed before the cut"


# Cutting one large JSON Lines file for ``--jobs``: no part is smaller than this.
MIN_PART_BYTES = 256 * 1024


def plan_parts(source: Source, input_format: str | None, parts: int) -> tuple[str, list[Span]] | None:
    """(the reader's name, the spans) of a file worth cutting into up to ``parts`` parts
    for worker processes, None when it is not cut: not a plain JSON Lines file (see
    ``json_lines_head``), smaller than two parts, its format not sniffed from its first
    line as ``read_source`` would, or a format that does not say where it may be cut
    (``cut_before``, see ``contract.FormatModule``)."""
    size = source_size(source) or 0
    parts = min(parts, size // MIN_PART_BYTES)
    if parts < 2:
        return None
    head = json_lines_head(source)
    if head is None:
        return None
    if input_format is not None:
        info = reader_by_name(input_format)
    elif is_bare_message(head[0]):
        return None  # one conversation spread over the lines
    else:
        info = sniff(head[0])
    cut_before = getattr(info.load(), "cut_before", None) if info is not None else None
    if cut_before is None:
        return None
    try:
        spans = line_spans(source, parts, cut_before)
    except OSError:  # gone or unreadable since: read whole, where the reading says why
        return None
    return (info.name, spans) if len(spans) > 1 else None


@mutable_dataclass(slots=True)
class Seam:
    """What reading one part tells of its cuts: the ids its reader gave its traces, the
    ids they were settled to, and why a cut does not hold (``ReadContext.broken``)."""

    read: list[str] = field(default_factory=list)
    named: list[str] = field(default_factory=list)
    broken: str | None = None


def seams_hold(seams: list[Seam], final: bool = True) -> bool:
    """Whether the parts read apart (the first ones of a file, all of them when
    ``final``) gave what the whole file read at once gives: no cut broken, no trace id
    of one part in another (a trace across a cut, or a repeated id the whole file would
    have numbered), and, of the whole file, several traces (a file's only trace is
    named by the file)."""
    if any(seam.broken for seam in seams) or (final and sum(len(seam.read) for seam in seams) < 2):
        return False
    for ids in ("read", "named"):
        seen: set[str] = set()
        for seam in seams:
            mine = set(getattr(seam, ids))
            if not seen.isdisjoint(mine):
                return False
            seen |= mine
    return True


def read_part(
    source: Source, reader: str, span: Span, last: bool, diagnostics: Diagnostics, seam: Seam, settle: bool = True
) -> Iterator[Trace]:
    """The traces of one part of a file cut by ``plan_parts``, read by the named reader,
    ids settled as in a file of several traces (``settle``: as ``read_source`` does when
    the format was sniffed, not named); ``seam`` is filled in as it goes."""
    info = reader_by_name(reader)
    ctx = ReadContext(display_name(source.name), diagnostics, cut_after=not last)

    def traces() -> Iterator[Trace]:
        for trace in _read_safely(info, read_span(source, span, diagnostics), ctx):
            seam.read.append(trace.id)
            yield trace
        seam.broken = ctx.broken

    for trace in settle_ids(traces(), ctx, several=True) if settle else traces():
        seam.named.append(trace.id)
        yield trace


class _SkippedLines:
    """Records that matched no format while sniffing: the first few line numbers, the
    last one and a count (a large unknown file costs no memory)."""

    SHOWN = 5  # warned about one by one; the rest as a count

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.count = 0
        self.last = 0
        self.text = False

    def add(self, line: int, is_text: bool) -> None:
        if len(self.lines) < self.SHOWN:
            self.lines.append(line)
        self.count += 1
        self.last = line
        self.text = self.text or is_text

    def report_unrecognised(self, ctx: ReadContext) -> None:
        if not self.count:
            return
        what = "plain text" if self.text else "JSON"
        ctx.warn(self.lines[0], f"{what} that matches no known transcript format (use --input-format to choose one)")
        if self.count > 1:
            ctx.warn(None, f"{self.count - 1} more record(s) skipped (lines {self.lines[1]}-{self.last}): the file's format was not recognised")

    def report_skipped(self, ctx: ReadContext, format_name: str) -> None:
        for line in self.lines:
            ctx.warn(line, f"record that matches no {format_name} shape, skipped")
        if self.count > len(self.lines):
            ctx.warn(None, f"{self.count - len(self.lines)} more record(s) up to line {self.last} match no {format_name} shape, skipped")


def read_traces(
    paths: Iterable[str],
    diagnostics: Diagnostics | None = None,
    input_format: str | None = None,
) -> Iterator[Trace]:
    """Every trace below ``paths`` (files, directories, ``-`` for stdin), in file order."""
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    check_input_format(input_format)
    for source in expand_paths(list(paths), diagnostics):
        yield from read_source(source, diagnostics, input_format)
