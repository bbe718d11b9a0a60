"""Reading traces from paths: find files, sniff each one's format, run its reader."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator

from .diagnostics import Diagnostics, TracecheckError
from .model import Trace
from .readers import READER_NAMES, ReadContext, read_with, reader_by_name, sniff
from .sources import Source, display_name, expand_paths, read_records


def check_input_format(name: str | None) -> None:
    if name is not None and reader_by_name(name) is None:
        raise TracecheckError(
            f"unknown input format {name!r}; choose one of: {', '.join(READER_NAMES)}"
        )


def read_source(source: Source, diagnostics: Diagnostics, input_format: str | None = None) -> Iterator[Trace]:
    """Traces of one file. A file whose first value matches no format is reported and skipped."""
    shown = display_name(source.name)
    ctx = ReadContext(shown, diagnostics)
    records = read_records(source, diagnostics)
    first = next(records, None)
    if first is None:
        return
    if input_format is not None:
        info = reader_by_name(input_format)
    else:
        info = sniff(first.value)
        if info is None:
            ctx.warn(first.line, "JSON that matches no known transcript format (use --input-format to choose one)")
            # Account for every other line too: count them, report once.
            rest = sum(1 for _ in records)
            if rest:
                ctx.warn(None, f"{rest} more record(s) skipped: the file's format was not recognised")
            return
    try:
        yield from read_with(info, itertools.chain([first], records), ctx)
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
