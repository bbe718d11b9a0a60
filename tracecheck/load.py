"""Reading traces from paths: find files, sniff each one's format, run its reader."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator

from .diagnostics import Diagnostics, TracecheckError
from .model import Trace
from .readers import READER_NAMES, ReadContext, read_with, reader_by_name, sniff
from .sources import Source, display_name, expand_paths, read_records


SNIFF_RECORDS = 5  # how many leading records may fail to match before a file is given up


def check_input_format(name: str | None) -> None:
    if name is not None and reader_by_name(name) is None:
        raise TracecheckError(
            f"unknown input format {name!r}; choose one of: {', '.join(READER_NAMES)}"
        )


def read_source(source: Source, diagnostics: Diagnostics, input_format: str | None = None) -> Iterator[Trace]:
    """Traces of one file. A file whose first few records match no format is reported and skipped."""
    shown = display_name(source.name)
    ctx = ReadContext(shown, diagnostics)
    records = read_records(source, diagnostics)
    if input_format is not None:
        info = reader_by_name(input_format)
        head: list = []
    else:
        # Sniff the first few records: a malformed first line must not hide a whole file.
        head = []
        info = None
        for record in records:
            head.append(record)
            info = sniff(record.value)
            if info is not None or len(head) >= SNIFF_RECORDS:
                break
        if info is None:
            if head:
                ctx.warn(head[0].line, "JSON that matches no known transcript format (use --input-format to choose one)")
                rest = len(head) - 1 + sum(1 for _ in records)
                if rest:
                    ctx.warn(None, f"{rest} more record(s) skipped: the file's format was not recognised")
            return
        for record in head[:-1]:
            ctx.warn(record.line, f"record that matches no {info.name} shape, skipped")
        head = head[-1:]
    try:
        yield from read_with(info, itertools.chain(head, records), ctx)
    except Exception as exc:  # noqa: BLE001 - one file's reader bug must not lose the other files
        if os.environ.get("TRACECHECK_DEBUG"):
            raise
        ctx.warn(None, f"the {info.name} reader failed ({type(exc).__name__}: {exc}); the rest of this file was skipped")


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
