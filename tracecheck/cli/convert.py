"""``tracecheck convert``: any supported format into tracecheck's native JSONL."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Annotated

import typer

from .app import InputFormatOpt, PathsArg, StrictOpt, command, finish_input, safe, stderr_console


@command
def convert(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Native JSONL file to write ('-' for stdout); a .gz, .bz2 or .xz name compresses it.")],
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Convert transcripts of any supported format into tracecheck's native JSONL."""
    from ..input.diagnostics import Diagnostics
    from ..readers.load import read_traces
    from ..output import open_output
    from ..readers.native_writer import write_native
    from ..input.sources import expand_paths

    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    renamed: list[tuple[str, str]] = []
    with open_output(str(output), sources) as out:
        with compressed(out, str(output)) as stream:
            traces = distinct_ids(read_traces(sources, diagnostics, input_format), renamed)
            count = write_native(traces, stream)  # streamed: one trace at a time
        if not count:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
    finish_input(paths, diagnostics, strict, count)
    err = stderr_console()
    if renamed:
        shown = ", ".join(f"{old!r} → {new!r}" for old, new in renamed[:5]) + (f" and {len(renamed) - 5} more" if len(renamed) > 5 else "")
        err.print(safe(f"note: trace ids repeat across files; renamed so that they stay apart: {shown}"))
    err.print(safe(f"wrote {count} trace(s) to {'standard output' if str(output) == '-' else output}"))
    note = suffix_note(str(output))
    if note:
        err.print(safe(f"note: {note}"))


def distinct_ids(traces, renamed: list[tuple[str, str]]):
    """The traces, each id unique in the output: an id already written from another file
    gets that file's name after it (one native file holds them all, and a trace id is
    what groups its events)."""
    from pathlib import PurePath

    first_file: dict[str, str] = {}
    for trace in traces:
        owner = first_file.setdefault(trace.id, trace.file)
        if owner != trace.file:
            new, k = f"{trace.id} ({PurePath(trace.file).name})", 2
            while new in first_file:
                new, k = f"{trace.id} ({PurePath(trace.file).name} #{k})", k + 1
            first_file[new] = trace.file
            renamed.append((trace.id, new))
            trace.id = new
        yield trace


def compressed(out, name: str):
    """``out`` as the output's name asks: compressed by a .gz, .bz2 or .xz suffix (the
    readers decompress whatever a file is called), else as it is."""
    import bz2
    import contextlib
    import gzip
    import lzma

    suffix = PurePath(name).suffix.lower()
    if suffix == ".gz":
        return gzip.GzipFile(fileobj=out, mode="wb", mtime=0)
    if suffix == ".bz2":
        return bz2.BZ2File(out, "wb")
    if suffix == ".xz":
        return lzma.LZMAFile(out, "wb")
    return contextlib.nullcontext(out)


def suffix_note(name: str) -> str | None:
    """Why a converted file would be missed later: a folder is read for the suffixes
    tracecheck knows, and a file named otherwise is only read when it is named."""
    from ..input.sources import COMPRESSION_SUFFIXES, STDIN_NAME, SUPPORTED_SUFFIXES

    if name == STDIN_NAME:
        return None
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in SUPPORTED_SUFFIXES:
        return None
    return (
        f"{name} is read when named, but a folder holding it is searched only for "
        f"{', '.join(SUPPORTED_SUFFIXES)} files (also compressed): name it .jsonl to have it found"
    )
