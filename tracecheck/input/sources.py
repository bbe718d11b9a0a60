"""Finding input files and turning them into a stream of records with line numbers.

Compression and archives are recognised by their magic bytes, whatever the file is
called (standard input included): gzip, bzip2 and xz are decompressed as streams, and
a ZIP archive (Inspect's ``.eval`` logs, also inside a ``.gz``) becomes one
``ZipDocument`` record.

Everything else is JSON Lines (each line one JSON value), one JSON document (possibly
pretty-printed over many lines), JSON values written one after another with nothing
between them (``cat`` of files that end without a newline) or plain text (a
``TextDocument``, e.g. a ReAct transcript). A first line that parses on its own makes the file JSON Lines. One that
does not is a broken first record when later lines are whole JSON records, the start of
a document when they are not, and text when it is not JSON at all. Lines are read one
at a time, so memory grows with the longest line (or the one document), never with the
file. A UTF-8 byte-order mark is dropped.

A folder of one-event-per-file JSON (the OpenHands SDK's ``events/event-<index>-<id>.json``)
is one input, not one per file: a folder walk gathers the files named like that in one
folder into a ``Source`` of ``members``, read in index order as one record per member
(record k is the k-th member; readers warn through ``ReadContext``, which names the
member file).
"""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import lzma
import os
import re
import shutil
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from .diagnostics import Diagnostics, TracecheckError

if TYPE_CHECKING:
    import zipfile

# Files a directory walk picks up (also with a compression suffix). Named files are
# read whatever their extension.
SUPPORTED_SUFFIXES = (".jsonl", ".ndjson", ".json", ".traj", ".eval")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz")
STDIN_NAME = "-"

# Files a reader opens beside its input (tokens, times, state), inputs as much as it is:
# Cline's and Roo Code's UI messages beside the task's history (readers/cline.py), an
# OpenHands conversation's state beside its events folder or file (readers/openhands_v1.py).
COMPANION_FILES = ("ui_messages.json", "claude_messages.json", "base_state.json")

# One event per file, as the OpenHands software-agent SDK names them
# (openhands/sdk/conversation/persistence_const.py: ``event-{idx:05d}-{event_id}.json``,
# five or more digits).
EVENT_FILE_NAME = re.compile(r"^event-(?P<index>\d{5,})-[0-9A-Fa-f-]{8,}\.json$")
# The OpenHands V0 server's: ``sessions/<sid>/events/<id>.json`` (openhands/storage/
# locations.py, get_conversation_event_filename), an event's number only, in a folder
# named ``events``.
V0_EVENT_FILE_NAME = re.compile(r"^(?P<index>\d+)\.json$")


def _event_index(p: Path) -> int | None:
    """Where an event file sits in its conversation (None: not an event file)."""
    match = EVENT_FILE_NAME.match(p.name) or (V0_EVENT_FILE_NAME.match(p.name) if p.parent.name == "events" else None)
    return int(match["index"]) if match else None


# What a folder walk skips besides ``--exclude``: JSON files of the tools that sit beside
# transcripts in a project (each would be an "unrecognised format" warning) and the
# folder of node packages. Matched as ``--exclude`` globs are; a file named on the
# command line is read whatever it is called.
DEFAULT_EXCLUDE = (
    "node_modules",
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "tsconfig.json",
    "tsconfig.*.json",
    "jsconfig.json",
    "composer.json",
    "lerna.json",
    "renovate.json",
    "tslint.json",
    "deno.json",
    "vercel.json",
    "turbo.json",
    "biome.json",
)

_GZIP_MAGIC = b"\x1f\x8b"
_BZIP2_MAGIC = b"BZh"
_XZ_MAGIC = b"\xfd7zXZ\x00"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header; an empty archive
_BOM = "\ufeff"

# A ZIP read from a stream (stdin, a .gz) is spooled to a temporary file, since the
# ZIP directory sits at the end; up to this size it stays in memory.
_SPOOL_IN_MEMORY = 64 * 1024 * 1024

# What reading damaged input can raise besides OSError: corrupt compressed data
# (zlib.error is not an OSError), a cut stream, and ZIP archives that Python's zipfile
# cannot read (unsupported versions or methods, encrypted members, member names
# flagged UTF-8 that are not: ``zip_errors`` adds zipfile's own).
READ_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    RuntimeError,
    UnicodeDecodeError,
    ValueError,
)


def zip_errors() -> tuple[type[BaseException], ...]:
    """``READ_ERRORS`` and zipfile's BadZipFile: what reading a ZIP archive can raise.
    zipfile is imported by the first archive read (a replay of plain files never needs it)."""
    import zipfile

    return (*READ_ERRORS, zipfile.BadZipFile)


def describe_error(exc: BaseException) -> str:
    """A short reason for a read error: the OS message where there is one."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    if isinstance(exc, UnicodeDecodeError):
        return "a name in it is not valid UTF-8"
    if type(exc).__name__ == "BadZipFile" and str(exc) == "File is not a zip file":  # zipfile's, not imported here
        return "truncated or corrupt (no central directory)"
    text = str(exc) or type(exc).__name__
    return text


class ArchiveError(OSError):
    """A ZIP archive, or one member of it, cannot be read; the message says why."""


@mutable_dataclass(slots=True)
class TextDocument:
    """A whole plain-text file (not JSON), for text-transcript readers."""

    text: str


@mutable_dataclass(slots=True)
class ZipDocument:
    """A ZIP archive; readers open it and read the members they know.

    ``path`` is the name to show; ``file`` is a path or a seekable binary file (a ZIP
    read from a stream). Every failure comes out as ``ArchiveError``.
    """

    path: str
    file: Any = field(default=None, repr=False)

    def open(self) -> zipfile.ZipFile:
        import zipfile

        target = self.file if self.file is not None else self.path
        if hasattr(target, "seek"):
            target.seek(0)
        try:
            return zipfile.ZipFile(target)
        except zip_errors() as exc:
            raise ArchiveError(f"cannot open the ZIP archive: {describe_error(exc)}") from None

    def names(self) -> list[str]:
        with self.open() as archive:
            return archive.namelist()

    def close(self) -> None:
        """Release a spooled copy (an archive read from a stream)."""
        if self.file is not None and hasattr(self.file, "close"):
            self.file.close()


def read_member(archive: zipfile.ZipFile, member: str) -> bytes:
    """One member's bytes; any failure (bad CRC, unsupported method, encryption) as ArchiveError."""
    try:
        return archive.read(member)
    except zip_errors() as exc:
        raise ArchiveError(f"cannot read this archive member ({describe_error(exc)})") from None


def _suffixes(path: Path) -> tuple[str, str | None]:
    """(content suffix, compression suffix) of a file name: a.jsonl.gz -> (.jsonl, .gz)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        return (suffixes[-2] if len(suffixes) > 1 else ""), suffixes[-1]
    return (suffixes[-1] if suffixes else ""), None


@mutable_dataclass(slots=True)
class Record:
    """One JSON value of an input file and the (1-based) line it starts on."""

    line: int
    value: Any


@mutable_dataclass(slots=True)
class Source:
    """One input: a file path, ``-`` for standard input, or a folder whose ``members``
    (event files, in order) are read one after another as one input."""

    name: str
    members: tuple[str, ...] = ()

    def open(self) -> BinaryIO:
        if self.name == STDIN_NAME:
            return sys.stdin.buffer
        return open(self.name, "rb")


def input_files(source: Source) -> tuple[str, ...]:
    """The files reading ``source`` may open: its own (a folder's: its members) and the
    ``COMPANION_FILES`` beside it."""
    if source.name == STDIN_NAME:
        return ()
    beside = os.path.dirname(os.path.normpath(source.name))
    return (*(source.members or (source.name,)), *(os.path.join(beside, name) for name in COMPANION_FILES))


def excluded(relative: Path, patterns: Sequence[str]) -> bool:
    """Whether a file at ``relative`` (below the walked folder) is skipped: a glob matches
    the whole relative path, or one of its parts (a folder's name, the file's name)."""
    import fnmatch

    whole = relative.as_posix()
    return any(fnmatch.fnmatchcase(whole, p) or any(fnmatch.fnmatchcase(part, p) for part in relative.parts) for p in patterns)


def expand_paths(paths: list[str | Source], diagnostics: Diagnostics, exclude: Sequence[str] = ()) -> list[Source]:
    """Files named directly, and every supported file below a named directory, in order
    (a ``Source`` is already expanded and passes through). A walk skips the files
    ``exclude`` (globs) or ``DEFAULT_EXCLUDE`` match (see ``excluded``)."""
    patterns = (*DEFAULT_EXCLUDE, *(p.rstrip("/") for p in exclude))
    sources: list[Source] = []
    seen: set[str] = set()

    def add(source: Source) -> None:
        # The same file named twice (or inside a named folder too) is read once.
        key = source.name if source.name == STDIN_NAME else os.path.realpath(source.name)
        if key not in seen or source.name == STDIN_NAME:
            seen.add(key)
            sources.append(source)

    for raw in paths:
        if isinstance(raw, Source):
            add(raw)
            continue
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
                and not excluded(p.relative_to(path), patterns)
            ]
            events = _event_folders(found)
            for p in found:
                members = events.pop(p.parent, None) if _event_index(p) is not None else ()
                if members is None:
                    continue  # an event file of a folder added already
                add(Source(str(p.parent), members) if members else Source(str(p)))
        elif path.is_file():
            add(Source(str(path)))
        elif path.exists():
            diagnostics.warn(display_name(raw), None, "not a regular file")
        else:
            # A path given by name that is not there is a mistake in the command (as ruff
            # and pytest treat it), not an input problem to warn about.
            raise TracecheckError(f"{display_name(raw)}: no such file or directory")
    return sources


def _event_folders(files: list[Path]) -> dict[Path, tuple[str, ...]]:
    """The folders holding event files (``EVENT_FILE_NAME``, ``V0_EVENT_FILE_NAME``),
    each with its event files in index order."""
    folders: dict[Path, list[tuple[int, str]]] = {}
    for p in files:
        index = _event_index(p)
        if index is not None:
            folders.setdefault(p.parent, []).append((index, str(p)))
    return {folder: tuple(name for _, name in sorted(events)) for folder, events in folders.items()}


def source_size(source: Source) -> int | None:
    """Bytes of an input (of a folder source, of its members); None for standard input,
    0 when it cannot be told."""
    if source.name == STDIN_NAME:
        return None
    try:
        return sum(os.path.getsize(name) for name in source.members or (source.name,))
    except OSError:
        return 0


class _Rewound(io.RawIOBase):
    """A stream whose first bytes were already read to look at them: those, then the rest."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head = head
        # read1: what one read of the stream below gives, so the data before a
        # truncation error is passed on rather than lost with a half-filled buffer.
        self.read_some = getattr(rest, "read1", rest.read)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.head:
            size = min(len(buffer), len(self.head))
            buffer[:size] = self.head[:size]
            self.head = self.head[size:]
            return size
        data = self.read_some(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _read_head(stream: BinaryIO, size: int = 8) -> bytes:
    head = b""
    while len(head) < size:
        chunk = stream.read(size - len(head))
        if not chunk:
            break
        head += chunk
    return head


def _decompressed(stream: BinaryIO) -> tuple[BinaryIO, bytes, bool]:
    """(stream, its first bytes, whether it was compressed), decompressing by magic bytes."""
    head = _read_head(stream)
    whole = io.BufferedReader(_Rewound(head, stream))
    opener = None
    if head.startswith(_GZIP_MAGIC):
        opener = lambda raw: gzip.GzipFile(fileobj=raw)  # noqa: E731 - positional is a file name
    elif head.startswith(_BZIP2_MAGIC):
        opener = bz2.BZ2File
    elif head.startswith(_XZ_MAGIC):
        opener = lzma.LZMAFile
    if opener is None:
        return whole, head, False
    inner = opener(whole)
    head = _read_head(inner)
    return io.BufferedReader(_Rewound(head, inner)), head, True


def _zip_document(source: Source, stream: BinaryIO, from_stream: bool) -> ZipDocument:
    name = display_name(source.name)
    if not from_stream:
        return ZipDocument(name, source.name)
    import tempfile  # here, as json below: imported only when needed (start-up)

    spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)
    shutil.copyfileobj(stream, spool)
    return ZipDocument(name, spool)


def read_records(source: Source, diagnostics: Diagnostics) -> Iterator[Record]:
    """Yield the JSON values of one input; bad lines become diagnostics, never exceptions."""
    if source.members:
        yield from _member_records(source, diagnostics)
        return
    name = display_name(source.name)
    try:
        raw_stream = source.open()
    except OSError as exc:
        diagnostics.warn(name, None, f"cannot open: {describe_error(exc)}")
        return
    try:
        stream, head, compressed = _decompressed(raw_stream)
        if head.startswith(_ZIP_MAGICS):
            document = _zip_document(source, stream, from_stream=compressed or source.name == STDIN_NAME)
            try:
                document.names()  # unreadable archives are reported here, once, by the source
                yield Record(1, document)
            except ArchiveError as exc:
                diagnostics.warn(name, None, str(exc))
            finally:
                document.close()
            return
        yield from _records(stream, name, diagnostics)
    except READ_ERRORS as exc:
        # Truncated or corrupt compressed input: report it, keep what was read.
        diagnostics.warn(name, None, f"read error: {describe_error(exc)}")
    finally:
        if raw_stream is not sys.stdin.buffer:
            raw_stream.close()


def _member_records(source: Source, diagnostics: Diagnostics) -> Iterator[Record]:
    """A folder source's records: member k's JSON value as record k (an event file holds
    one; a member's own problems are warnings naming it)."""
    for position, member in enumerate(source.members, 1):
        values = [record.value for record in read_records(Source(member), diagnostics)]
        if len(values) > 1:
            diagnostics.warn(display_name(member), None, f"{len(values)} JSON values in one event file; only the first is read")
        if values:
            yield Record(position, values[0])


def _loads(text: str | bytes) -> Any:
    """A JSON value, or raise orjson.JSONDecodeError (also for values nested too deep).

    orjson refuses escaped lone surrogates (``"\\ud800"``), which Python's own json
    writes for text cut in the middle of a character pair; such lines are read by the
    standard library instead of being lost."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        marker = b"\\ud" if isinstance(text, bytes) else "\\ud"
        if marker not in text.lower():
            raise
        import json

        try:
            return json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            pass
        raise


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_RECORD_STARTS = (b"{", b"[")


def _is_record_line(raw: bytes) -> bool:
    """A line that is a whole JSON object or array on its own, starting at column 0: what
    a JSON Lines record looks like, and what the inside of a pretty-printed document
    (indented, or cut by commas) almost never does."""
    if raw[:1] not in _RECORD_STARTS:
        return False
    try:
        return isinstance(_loads(raw), (dict, list))
    except orjson.JSONDecodeError:
        return False


def _records(stream: BinaryIO, name: str, diagnostics: Diagnostics) -> Iterator[Record]:
    lines = iter(stream)
    lineno = 0
    # Find the first non-blank line to decide between JSON Lines and one document.
    for raw in lines:
        lineno += 1
        if lineno == 1 and raw.startswith(_BOM.encode()):
            raw = raw[len(_BOM.encode()) :]
        if raw.strip():
            break
    else:
        diagnostics.warn(name, None, "empty file")
        return
    first_text = _decode(raw, name, lineno, diagnostics)
    try:
        value = _loads(first_text)
    except orjson.JSONDecodeError:
        pass
    else:
        yield Record(lineno, value)
        yield from _json_lines(lineno, lines, name, diagnostics)
        return
    if first_text.lstrip()[:1] in ("{", "["):
        yield from _document_or_lines(raw, first_text, lineno, lines, name, diagnostics)
        return
    # A bad first line of a JSON Lines file, or plain text (a ReAct transcript)?
    # Look at the next few non-blank lines: mostly whole records make it JSON Lines.
    ahead: list[bytes] = []
    looked = records = 0
    for nxt in lines:
        ahead.append(nxt)
        if nxt.strip():
            looked += 1
            records += _is_record_line(nxt.lstrip())
            if looked >= _LOOK_AHEAD or records * 2 > _LOOK_AHEAD:
                break
    if records and records * 2 >= looked:
        yield from _json_lines(lineno - 1, itertools.chain([raw], ahead, lines), name, diagnostics, warned_through=lineno)
        return
    rest = b"".join(itertools.chain(ahead, lines))
    yield Record(lineno, TextDocument(first_text + _decode(rest, name, lineno + 1, diagnostics)))


# Non-blank lines looked at after a first line that is not JSON, to tell a JSON Lines
# file whose first lines are broken from plain text.
_LOOK_AHEAD = 8


# Whole records on their own lines after a first line that is not one: this many make
# the file JSON Lines with a broken first record (one could be the last element of an
# array written one element per line).
_RECORD_LINES_FOR_JSONL = 2


def _document_or_lines(
    first_raw: bytes, first_text: str, lineno: int, lines: Iterator[bytes], name: str, diagnostics: Diagnostics
) -> Iterator[Record]:
    """The file starts with ``{`` or ``[`` but its first line is not whole JSON: the start
    of a multi-line document, or a JSON Lines file whose first record is broken."""
    buffered: list[bytes] = [first_raw]
    record_lines = 0
    append = buffered.append
    for raw in lines:
        append(raw)
        if raw[:1] in _RECORD_STARTS and _is_record_line(raw):
            record_lines += 1
            if record_lines >= _RECORD_LINES_FOR_JSONL:
                yield from _json_lines(lineno - 1, itertools.chain(buffered, lines), name, diagnostics, warned_through=lineno)
                return
    try:
        # One decode for the whole document: a line break is never part of a UTF-8
        # sequence, so the lines decode one by one exactly when they do together.
        text = first_text + b"".join(buffered[1:]).decode("utf-8")
    except UnicodeDecodeError:
        text = first_text + "".join(_decode(raw, name, lineno + k, diagnostics) for k, raw in enumerate(buffered[1:], 1))
    try:
        value = _loads(text)
    except orjson.JSONDecodeError as exc:
        if record_lines:
            # Not a document: JSON Lines whose first record is broken.
            yield from _json_lines(lineno - 1, iter(buffered), name, diagnostics, warned_through=lineno + len(buffered))
            return
        joined = _concatenated(text)
        if joined is None:
            diagnostics.warn(name, lineno, f"not valid JSON (a document starting here): {exc}")
            return
        for offset, value in joined:
            yield Record(lineno + text.count("\n", 0, offset), value)
        return
    yield Record(lineno, value)


# Values one after another: ``{"a": 1}{"b": 2}``, what ``cat`` makes of files that end
# without a newline (the OpenHands SDK's event files do).
_JOINED_START = re.compile(r"[}\]]\s*[{\[]")


def _concatenated(text: str) -> list[tuple[int, Any]] | None:
    """The JSON objects and arrays of ``text`` written one after another (each with the
    offset it starts at), when that is all ``text`` is; else None."""
    if _JOINED_START.search(text) is None:
        return None
    import json

    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    values: list[tuple[int, Any]] = []
    at = len(text) - len(text.lstrip())
    while at < len(text):
        if text[at] not in "{[":
            return None
        try:
            value, end = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        values.append((at, value))
        at = end + len(text[end:]) - len(text[end:].lstrip())
    return values if len(values) > 1 else None


def _decode(raw: bytes, name: str, lineno: int, diagnostics: Diagnostics, warn: bool = True) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if warn:
            diagnostics.warn(
                name, lineno, f"invalid UTF-8 at byte {exc.start} of the line; undecodable bytes replaced"
            )
        return raw.decode("utf-8", "replace")


def _json_lines(
    lineno: int, lines: Iterator[bytes], name: str, diagnostics: Diagnostics, warned_through: int = 0
) -> Iterator[Record]:
    """Records of the lines after line ``lineno``; bad lines become warnings (invalid
    UTF-8 only on lines after ``warned_through``: those before were decoded already)."""

    def parse(number: int, raw: bytes, is_last: bool) -> list[Record]:
        text = _decode(raw, name, number, diagnostics, warn=number > warned_through)
        try:
            return [Record(number, _loads(text))]
        except orjson.JSONDecodeError as exc:
            joined = _concatenated(text)
            if joined is not None:
                return [Record(number, value) for _, value in joined]
            if is_last and not raw.endswith(b"\n"):
                diagnostics.warn(name, number, f"truncated last line (no newline, not valid JSON: {exc})")
            else:
                diagnostics.warn(name, number, f"not valid JSON: {exc}")
            return []

    # Parse one line behind so the last line is known to be last (truncation check).
    pending: tuple[int, bytes] | None = None
    for raw in lines:
        lineno += 1
        if pending is not None:
            yield from parse(*pending, is_last=False)
            pending = None
        if raw.strip():
            pending = (lineno, raw)
    if pending is not None:
        yield from parse(*pending, is_last=True)


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


# Cutting one large JSON Lines file into parts that worker processes read side by side
# (``--jobs``): where a cut may fall is the format's to say (``readers.load.plan_parts``);
# here only bytes, lines and line numbers.


@frozen_dataclass(slots=True)
class Span:
    """The lines of a file from byte ``start`` up to byte ``end`` (both at the start of a
    line), the first of them being line ``line`` of the whole file."""

    start: int
    end: int
    line: int


def json_lines_head(source: Source) -> tuple[Any] | None:
    """``(value,)`` of the first line when the input is a plain JSON Lines file that can be
    read from any line on: a regular file, not compressed, whose first line (no byte-order
    mark, not blank) is whole JSON, which makes ``read_records`` read it line by line;
    else None."""
    if source.members or source.name == STDIN_NAME:
        return None
    try:
        with open(source.name, "rb") as stream:
            first = stream.readline()
    except OSError:
        return None
    if not first.strip() or first.startswith(_BOM.encode()):
        return None
    try:
        return (_loads(first.decode("utf-8")),)
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None


# How far past a wanted cut the lines are looked at for one where the format allows a
# cut; none found there, that cut is not made.
CUT_SEARCH_BYTES = 4 * 1024 * 1024


def line_spans(source: Source, parts: int, may_cut_before: Callable[[Any], bool]) -> list[Span]:
    """``source`` (a JSON Lines file, see ``json_lines_head``) in up to ``parts`` spans of
    about equal size, each cut made before the first line at or after the wanted place
    whose JSON value ``may_cut_before`` accepts; the spans' first line numbers are those
    of the whole file."""
    cuts: list[int] = []
    with open(source.name, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        for k in range(1, parts):
            wanted = size * k // parts
            if cuts and wanted <= cuts[-1]:
                continue
            stream.seek(wanted - 1)
            stream.readline()  # to the start of the next line
            at = stream.tell()
            while at < size and at - wanted < CUT_SEARCH_BYTES:
                raw = stream.readline()
                if raw[:1] in _RECORD_STARTS:
                    try:
                        value = _loads(raw)
                    except orjson.JSONDecodeError:
                        value = None
                    if value is not None and may_cut_before(value):
                        cuts.append(at)
                        break
                at += len(raw)
        lines = [1]
        stream.seek(0)
        done = 0
        for cut in cuts:
            count = lines[-1]
            while done < cut:
                block = stream.read(min(1 << 20, cut - done))
                if not block:
                    break
                count += block.count(b"\n")
                done += len(block)
            lines.append(count)
    edges = [0, *cuts, size]
    return [Span(edges[k], edges[k + 1], lines[k]) for k in range(len(edges) - 1)]


def read_span(source: Source, span: Span, diagnostics: Diagnostics) -> Iterator[Record]:
    """The records of one span of a JSON Lines file, numbered as lines of the whole file,
    with the warnings ``read_records`` gives about those lines."""
    name = display_name(source.name)
    try:
        stream = open(source.name, "rb")
    except OSError as exc:
        diagnostics.warn(name, None, f"cannot open: {describe_error(exc)}")
        return
    with stream:
        stream.seek(span.start)

        def lines() -> Iterator[bytes]:
            left = span.end - span.start
            for raw in stream:
                yield raw
                left -= len(raw)
                if left <= 0:
                    return

        try:
            yield from _json_lines(span.line - 1, lines(), name, diagnostics)
        except READ_ERRORS as exc:
            diagnostics.warn(name, None, f"read error: {describe_error(exc)}")
