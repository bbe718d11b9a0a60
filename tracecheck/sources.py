"""Finding input files and turning them into a stream of records with line numbers.

A file is either JSON Lines (each line one JSON value) or one JSON document (possibly
pretty-printed over many lines). Which one is decided by the first non-blank line: if
it parses on its own, the file is JSON Lines. Lines are read one at a time, so memory
grows with the longest line (or the one document), never with the file.

Two other kinds of input become a single record: a plain-text file whose first line is
not JSON (a ``TextDocument``, e.g. a ReAct transcript) and a ZIP archive (a
``ZipDocument``, e.g. Inspect's ``.eval`` logs). ``.gz``, ``.bz2`` and ``.xz`` files are
decompressed as streams.
"""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import lzma
import os
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .diagnostics import Diagnostics

# Files a directory walk picks up (also with a compression suffix). Named files are
# read whatever their extension.
SUPPORTED_SUFFIXES = (".jsonl", ".ndjson", ".json", ".traj", ".eval")
COMPRESSED = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
STDIN_NAME = "-"


@dataclass(slots=True)
class TextDocument:
    """A whole plain-text file (not JSON), for text-transcript readers."""

    text: str


@dataclass(slots=True)
class ZipDocument:
    """A ZIP archive; readers open the members they know."""

    path: str

    def names(self) -> list[str]:
        with zipfile.ZipFile(self.path) as archive:
            return archive.namelist()

    def read(self, member: str) -> bytes:
        with zipfile.ZipFile(self.path) as archive:
            return archive.read(member)


def _suffixes(path: Path) -> tuple[str, str | None]:
    """(content suffix, compression suffix) of a file name: a.jsonl.gz -> (.jsonl, .gz)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSED:
        return (suffixes[-2] if len(suffixes) > 1 else ""), suffixes[-1]
    return (suffixes[-1] if suffixes else ""), None


@dataclass(slots=True)
class Record:
    """One JSON value of an input file and the (1-based) line it starts on."""

    line: int
    value: Any


@dataclass(slots=True)
class Source:
    """One input: a file path, or ``-`` for standard input."""

    name: str

    def open(self) -> BinaryIO:
        if self.name == STDIN_NAME:
            return sys.stdin.buffer
        _, compression = _suffixes(Path(self.name))
        if compression is not None:
            return COMPRESSED[compression](self.name, "rb")
        return open(self.name, "rb")

    def is_zip(self) -> bool:
        return self.name != STDIN_NAME and zipfile.is_zipfile(self.name)


def expand_paths(paths: list[str], diagnostics: Diagnostics) -> list[Source]:
    """Files named directly, and every supported file below a named directory, in order."""
    sources: list[Source] = []
    for raw in paths:
        if raw == STDIN_NAME:
            sources.append(Source(STDIN_NAME))
            continue
        path = Path(raw)
        if path.is_dir():
            found = [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file()
                and _suffixes(p)[0] in SUPPORTED_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ]
            sources.extend(Source(str(p)) for p in found)
        elif path.is_file():
            sources.append(Source(str(path)))
        elif path.exists():
            diagnostics.warn(raw, None, "not a regular file")
        else:
            diagnostics.warn(raw, None, "no such file or directory")
    return sources


def _decode(raw: bytes, name: str, lineno: int, diagnostics: Diagnostics) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        diagnostics.warn(
            name, lineno, f"invalid UTF-8 at byte {exc.start} of the line; undecodable bytes replaced"
        )
        return raw.decode("utf-8", "replace")


def read_records(source: Source, diagnostics: Diagnostics) -> Iterator[Record]:
    """Yield the JSON values of one input; bad lines become diagnostics, never exceptions."""
    name = source.name
    try:
        if source.is_zip():
            yield Record(1, ZipDocument(name))
            return
        stream = source.open()
    except OSError as exc:
        diagnostics.warn(name, None, f"cannot open: {exc.strerror or exc}")
        return
    try:
        yield from _records(stream, name, diagnostics)
    except (OSError, EOFError, zipfile.BadZipFile, lzma.LZMAError) as exc:
        # Truncated or corrupt compressed input: report it, keep what was read.
        diagnostics.warn(name, None, f"read error: {getattr(exc, 'strerror', None) or exc}")
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _records(stream: BinaryIO, name: str, diagnostics: Diagnostics) -> Iterator[Record]:
    lines = iter(stream)
    lineno = 0
    # Find the first non-blank line to decide between JSON Lines and one document.
    for raw in lines:
        lineno += 1
        if raw.strip():
            break
    else:
        diagnostics.warn(name, None, "empty file")
        return
    first_text = _decode(raw, name, lineno, diagnostics)
    try:
        value = orjson.loads(first_text)
    except orjson.JSONDecodeError:
        stripped = first_text.lstrip()
        if stripped[:1] in ("{", "["):
            # Not complete on its line: a multi-line JSON document.
            yield from _document(first_text, lineno, lines, name, diagnostics)
            return
        # A bad first line of a JSON Lines file, or plain text (a ReAct transcript)?
        # Look at the next non-blank line.
        ahead: list[bytes] = []
        for nxt in lines:
            ahead.append(nxt)
            if nxt.strip():
                break
        if ahead and ahead[-1].strip():
            try:
                orjson.loads(ahead[-1])
                is_jsonl = True
            except orjson.JSONDecodeError:
                is_jsonl = False
            if is_jsonl:
                yield from _json_lines(raw, lineno, itertools.chain(ahead, lines), name, diagnostics, first_failed=True)
                return
        rest = b"".join(itertools.chain(ahead, lines))
        yield Record(lineno, TextDocument(first_text + _decode(rest, name, lineno + 1, diagnostics)))
        return
    yield Record(lineno, value)
    yield from _json_lines(None, lineno, lines, name, diagnostics)


def _json_lines(
    first_raw: bytes | None,
    lineno: int,
    lines: Iterator[bytes],
    name: str,
    diagnostics: Diagnostics,
    first_failed: bool = False,
) -> Iterator[Record]:
    pending: tuple[int, bytes] | None = (lineno, first_raw) if first_failed and first_raw else None

    def parse(number: int, raw: bytes, is_last: bool) -> Record | None:
        text = _decode(raw, name, number, diagnostics)
        try:
            return Record(number, orjson.loads(text))
        except orjson.JSONDecodeError as exc:
            if is_last and not raw.endswith(b"\n"):
                diagnostics.warn(name, number, f"truncated last line (no newline, not valid JSON: {exc})")
            else:
                diagnostics.warn(name, number, f"not valid JSON: {exc}")
            return None

    # Parse one line behind so the last line is known to be last (truncation check).
    for raw in lines:
        lineno += 1
        if pending is not None:
            rec = parse(*pending, is_last=False)
            if rec is not None:
                yield rec
            pending = None
        if raw.strip():
            pending = (lineno, raw)
    if pending is not None:
        rec = parse(*pending, is_last=True)
        if rec is not None:
            yield rec


def _document(
    first_text: str, lineno: int, lines: Iterator[bytes], name: str, diagnostics: Diagnostics
) -> Iterator[Record]:
    buf = io.StringIO()
    buf.write(first_text)
    number = lineno
    for raw in lines:
        number += 1
        buf.write(_decode(raw, name, number, diagnostics))
    try:
        value = orjson.loads(buf.getvalue())
    except orjson.JSONDecodeError as exc:
        diagnostics.warn(name, lineno, f"not valid JSON (a document starting here): {exc}")
        return
    yield Record(lineno, value)


def display_name(path: str) -> str:
    """A short, stable name for reports: relative to the working directory when below it.

    Always valid Unicode: bytes of a file name that are not UTF-8 (which Python keeps as
    lone surrogates) are shown as ``\\xff`` escapes, so JSON and Markdown can carry the
    name. Only for showing; the file is opened by its real path.
    """
    if path == STDIN_NAME:
        return "<stdin>"
    try:
        rel = os.path.relpath(path)
        shown = path if rel.startswith("..") else rel
    except ValueError:  # on another drive (Windows)
        shown = path
    try:
        return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no undecodable byte maps to
        return shown.encode("utf-8", "backslashreplace").decode("utf-8")
