"""Reading traces from paths: find files, sniff each one's format, run its reader."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator

from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.sources import Source, TextDocument, display_name, expand_paths, read_records
from ..model import Trace
from .identity import settle_ids
from . import MESSAGE_LOOKAHEAD, READER_NAMES, not_a_transcript, read_with, reader_by_name, sniff, sniff_message_lines
from .chat_messages import is_bare_message
from .contract import ReadContext


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
