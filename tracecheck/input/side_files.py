"""The files a user hands tracecheck beside the transcripts: settings (tracecheck.toml,
pyproject.toml), labels, baselines, the ``--write-config`` target, and the files a reader
reads beside a transcript (Cline's UI messages, an OpenHands conversation's state). One
careful way in:
a regular file only (a FIFO would block, /dev/zero never ends), of bounded size, UTF-8
with the line of a bad byte named, parsed with positions kept; every problem a
``TracecheckError`` reading ``file:line: reason`` (exit code 2).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

import orjson

from .diagnostics import TracecheckError
from .sources import display_name

# Settings, labels and baselines are written by hand or by tracecheck: far below this.
SIDE_FILE_LIMIT = 64 * 1024 * 1024
# Deeper nesting than any settings or labels file has; the parsers recurse per level.
NESTING_LIMIT = 200
# Python refuses to turn longer digit strings into integers (sys.int_info.str_digits_check_threshold),
# TOML's underscores between digits included; a match starts only where a run of digits does
# (each run scanned once: a file of 3,999-digit runs took minutes).
_LONG_NUMBER = re.compile(r"(?<![\d_])\d(?:_?\d){3999,}")
_BRACKETS = re.compile(r"[\[\]{}]")


def read_side_file(path: str | os.PathLike, what: str) -> bytes:
    """The bytes of ``path``, a ``what`` (e.g. "labels file"), or a TracecheckError saying
    why not: missing, not a regular file, too large, unreadable."""
    name = os.fspath(path)
    shown = display_name(name)
    try:
        # Looked at before it is opened: opening a FIFO blocks until someone writes to it.
        mode = os.stat(name).st_mode
        if not stat.S_ISREG(mode):
            raise TracecheckError(f"{shown}: not a regular file ({_kind(mode)}); give the {what} as a file")
        with open(name, "rb") as handle:
            data = handle.read(SIDE_FILE_LIMIT + 1)
    except FileNotFoundError:
        raise TracecheckError(f"{what} {shown} not found") from None
    except OSError as exc:
        raise TracecheckError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    if len(data) > SIDE_FILE_LIMIT:
        raise TracecheckError(f"{shown}: larger than {SIDE_FILE_LIMIT // (1024 * 1024)} MB, too large for a {what}")
    return data


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def decode_side_file(data: bytes, shown: str, what: str) -> str:
    """``data`` as text (a byte-order mark is fine), or an error naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TracecheckError(f"{shown}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); save the {what} as UTF-8") from None


def check_parsable(text: str, shown: str) -> None:
    """What the standard parsers cannot take without crashing, refused by line: nesting
    deeper than NESTING_LIMIT (they recurse) and integers longer than Python converts."""
    depth = 0
    for bracket in _BRACKETS.finditer(text):
        depth = depth + 1 if bracket.group() in "[{" else max(depth - 1, 0)
        if depth > NESTING_LIMIT:
            raise TracecheckError(f"{shown}:{text.count(chr(10), 0, bracket.start()) + 1}: nested more than {NESTING_LIMIT} levels deep")
    found = _LONG_NUMBER.search(text)
    if found is not None:
        raise TracecheckError(f"{shown}:{text.count(chr(10), 0, found.start()) + 1}: a number of {len(found.group().replace('_', ''))} digits; no setting or label needs one")


def read_side_text(path: str | os.PathLike, what: str, shown: str | None = None) -> str:
    """The text of a ``what`` at ``path``, read, decoded and checked the careful way, ready
    for a parser (errors name the file as ``shown``, by default its display name)."""
    shown = shown if shown is not None else display_name(os.fspath(path))
    text = decode_side_file(read_side_file(path, what), shown, what)
    check_parsable(text, shown)
    return text


def read_json(path: str | os.PathLike, what: str) -> Any:
    """A JSON file beside a transcript (a tool's own state or UI log), read the careful way."""
    try:
        return orjson.loads(read_side_text(path, what))
    except orjson.JSONDecodeError as exc:
        raise TracecheckError(f"not valid JSON ({exc})") from None


def read_toml(path: str | os.PathLike, what: str = "config file") -> dict[str, Any]:
    """A TOML settings file, read the careful way; syntax errors keep the parser's line."""
    import tomllib  # here: a run without a settings file never needs it (start-up)

    shown = display_name(os.fspath(path))
    try:
        return tomllib.loads(read_side_text(path, what, shown))
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        where = f"{shown}:{line.group(1)}" if line else shown
        raise TracecheckError(f"{where}: not valid TOML: {exc}") from None


def key_line(text: str, key: str) -> int | None:
    """The line where ``key`` is set or opened as a table in TOML ``text`` (for errors
    about its value: tomllib keeps no positions)."""
    pattern = re.compile(rf"^\s*(\[+\s*)?{re.escape(key)}\s*(=|\]|\.)", re.MULTILINE)
    found = pattern.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1
