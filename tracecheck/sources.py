"""Finding input files and turning them into a stream of JSON records with line numbers.

A file is either JSON Lines (each line one JSON value) or one JSON document (possibly
pretty-printed over many lines). Which one is decided by the first non-blank line: if
it parses on its own, the file is JSON Lines. Lines are read one at a time, so memory
grows with the longest line (or the one document), never with the file.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .diagnostics import Diagnostics

# Files a directory walk picks up. Named files are read whatever their extension.
SUPPORTED_SUFFIXES = (".jsonl", ".ndjson", ".json")
STDIN_NAME = "-"


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
        return open(self.name, "rb")


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
                and p.suffix.lower() in SUPPORTED_SUFFIXES
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
        stream = source.open()
    except OSError as exc:
        diagnostics.warn(name, None, f"cannot open: {exc.strerror or exc}")
        return
    try:
        yield from _records(stream, name, diagnostics)
    except OSError as exc:
        diagnostics.warn(name, None, f"read error: {exc.strerror or exc}")
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
        yield from _json_lines(raw, lineno, lines, name, diagnostics, first_failed=True)
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
    """A short, stable name for reports: relative to the working directory when below it."""
    if path == STDIN_NAME:
        return "<stdin>"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
