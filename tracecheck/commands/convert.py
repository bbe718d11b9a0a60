"""``tracecheck convert``: transcripts of any supported format into tracecheck's native
JSONL, streamed one trace at a time."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import BinaryIO

from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import Diagnostics
from ..input.sources import Source


@frozen_dataclass
class ConvertRequest:
    """``paths``: the transcripts (files, folders, sources); ``output``: the name written
    to (``-`` standard output), whose .gz, .bz2 or .xz suffix compresses it."""

    paths: Sequence[str | Source]
    output: str = "-"
    input_format: str | None = None


def convert(request: ConvertRequest, out: BinaryIO, *, diagnostics: Diagnostics | None = None, renamed: list[tuple[str, str]] | None = None) -> int:
    """Write every trace below ``request.paths`` to ``out`` in the native format; returns
    how many were written. A trace id already written from another file is renamed
    (``renamed`` collects the old and new ids)."""
    from ..readers.load import read_traces
    from ..readers.native_writer import write_native

    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    renamed = renamed if renamed is not None else []
    with compressed(out, request.output) as stream:
        traces = distinct_ids(read_traces(request.paths, diagnostics, request.input_format), renamed)
        return write_native(traces, stream)  # streamed: one trace at a time


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
