"""Report text for a console without colours (a file, a pipe, CI's log), without Rich.

Such a console prints a report line's characters and nothing else, so building Rich's
``Text`` for each line (and importing Rich at all: a sixth of a small replay's start-up)
buys nothing there. ``PlainText`` has what the terminal report and ``show``'s timeline use
of a ``Text`` (``append``, ``append_text``, ``plain``, ``split``, ``divide``, ``rstrip``,
``truncate``), keeping only the characters and the report's "whole" stretches (an id or a
place that wrapping must not break); ``PlainConsole`` has what they use of a ``Console``
(``print``, ``width``, ``file``, one write per block). ``plain_width`` says when a
report may be written this way: exactly when Rich would write no escape code either,
at the width Rich would use; tests compare the two byte for byte.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO

# A whole stretch: (start, end, keep) — keep "start" (an id) or "end" (a place) when cut.
Whole = tuple[int, int, str]


# Deletes printable ASCII: what is left of a text is what may not take one cell a character.
_DROP_PRINTABLE_ASCII = dict.fromkeys(range(0x20, 0x7F))


def cell_len(text: str) -> int:
    """Terminal cells ``text`` takes, as Rich counts them: one per character for printable
    ASCII (most of what a timeline wraps), Rich's count for the rest only (Rich's own
    looks at every character, in Python). A joiner or variation selector makes widths
    depend on neighbours: then Rich counts the whole text."""
    if text.isascii() and text.isprintable():
        return len(text)
    rest = text.translate(_DROP_PRINTABLE_ASCII)
    if "\u200d" in rest or "\ufe0f" in rest:
        from rich.cells import cell_len as rich_cell_len

        return rich_cell_len(text)
    return len(text) - len(rest) + sum(map(CELLS.__getitem__, rest))


class _CellTable(dict):
    """Rich's cells of one character, looked up once per character (a dict lookup in C
    instead of a Python call per character, as Rich's own count makes)."""

    def __missing__(self, char: str) -> int:
        from rich.cells import get_character_cell_size

        size = get_character_cell_size(char)
        if len(self) < 1 << 16:
            self[char] = size
        return size


# Seeded with the characters the reports write themselves (one cell each, as Rich counts
# them; tests/test_show.py checks): a report of ASCII traces never needs Rich's tables.
REPORT_CHARACTERS = "·…—–✗→←↳¹²³≤≥×✓"
CELLS = _CellTable(dict.fromkeys(REPORT_CHARACTERS, 1))


class PlainText:
    """A line of report text without styles: its characters (what is appended is safe
    already, made so by ``neutralize``, as a ``Text`` holds it) and its whole stretches.
    ``style`` and ``end`` are kept only because callers pass them on, as to a ``Text``."""

    __slots__ = ("parts", "wholes", "style", "end")

    def __init__(self, text: str = "", style: Any = "", end: str = "\n", wholes: list[Whole] | None = None) -> None:
        self.parts = [text]
        self.wholes = wholes if wholes is not None else []
        self.style = style
        self.end = end

    @property
    def plain(self) -> str:
        parts = self.parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0]

    @plain.setter
    def plain(self, text: str) -> None:
        self.parts = [text]
        self.wholes = [(start, min(end, len(text)), keep) for start, end, keep in self.wholes if start < len(text)]

    def append(self, text: str, style: Any = None) -> PlainText:
        self.parts.append(text)
        return self

    def append_text(self, other: PlainText) -> PlainText:
        if other.wholes:
            shift = len(self.plain)
            self.wholes.extend((start + shift, end + shift, keep) for start, end, keep in other.wholes)
        self.parts.append(other.plain)
        return self

    def _piece(self, start: int, end: int) -> PlainText:
        wholes = [(max(a, start) - start, min(b, end) - start, keep) for a, b, keep in self.wholes if a < end and b > start]
        return PlainText(self.plain[start:end], self.style, self.end, wholes)

    def divide(self, offsets: Any) -> list[PlainText]:
        """The pieces between ``offsets``, as ``Text.divide`` cuts them (an offset at the
        end gives an empty last piece)."""
        text = self.plain
        cuts = [0, *offsets, len(text)]
        return [self._piece(a, b) for a, b in zip(cuts, cuts[1:])]

    def split(self, separator: str = "\n", allow_blank: bool = True) -> list[PlainText]:
        """The lines between ``separator``s (``Text.split`` drops a blank last one unless
        ``allow_blank``)."""
        text = self.plain
        if separator not in text:
            return [self._piece(0, len(text))]
        pieces, start = [], 0
        while True:
            found = text.find(separator, start)
            if found < 0:
                pieces.append(self._piece(start, len(text)))
                break
            pieces.append(self._piece(start, found))
            start = found + len(separator)
        if not allow_blank and text.endswith(separator):
            pieces.pop()
        return pieces

    def rstrip(self) -> None:
        text = self.plain
        stripped = text.rstrip()
        if len(stripped) != len(text):
            self.plain = stripped

    def truncate(self, max_width: int, *, overflow: str = "ellipsis") -> None:
        """Cut to ``max_width`` terminal cells, the last one "…" (as ``Text.truncate``)."""
        text = self.plain
        if cell_len(text) > max_width:
            keep = max_width - 1 if overflow == "ellipsis" else max_width
            if text.isascii():
                cut = text[:keep]
            else:
                from rich.cells import set_cell_size

                cut = set_cell_size(text, keep)
            self.plain = cut + ("…" if overflow == "ellipsis" else "")


class PlainConsole:
    """Prints report text to ``file`` as characters only: what a Rich console without
    colours writes (each print is the text and a line break; nothing folded: the report
    wraps its own lines), flushed as Rich flushes it, so a pipe or a CI log sees each trace
    as it is replayed. Inside ``with console:`` the lines are written at the end, in one
    write, as Rich buffers them."""

    def __init__(self, file: TextIO, width: int) -> None:
        self.file = file
        self.width = width
        self._buffer: list[str] | None = None
        self._depth = 0
        self._rich: Any = None

    def print(self, text: Any = None) -> None:
        line = "\n" if text is None else (text if isinstance(text, str) else text.plain) + "\n"
        if self._buffer is not None:
            self._buffer.append(line)
        else:
            self.file.write(line)
            self.file.flush()

    def __enter__(self) -> PlainConsole:
        if self._depth == 0:
            self._buffer = []
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            buffered, self._buffer = self._buffer, None
            if buffered:
                self.file.write("".join(buffered))
                self.file.flush()

    def rich(self) -> Any:
        """A Rich console writing what this one would (no colour, this width): for the few
        parts a Rich layout draws (the table of presets side by side)."""
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(file=self.file, width=self.width, highlight=False, soft_wrap=True, no_color=True, force_terminal=False)
        return self._rich


def plain_width(stdout: TextIO, *, to_file: bool, environ: os._Environ[str] | dict[str, str] | None = None) -> int | None:
    """The width to write a report at without Rich, when Rich would write it no escape
    code: a report going to a file, or to a standard output (``stdout``) that is not a
    terminal and that no environment variable makes one of; at the width Rich would use.
    None: Rich writes it."""
    env = os.environ if environ is None else environ
    if sys.platform == "win32" or "IPython" in sys.modules or (hasattr(sys.stdin, "__module__") and sys.stdin.__module__.startswith("idlelib")):
        return None  # Rich's own rules there: legacy consoles, notebooks, IDLE
    if not to_file:
        compatible = env.get("TTY_COMPATIBLE", "")
        if compatible == "1" or (compatible != "0" and (env.get("FORCE_COLOR") or (env.get("FORCE_COLOR") is None and _isatty(stdout)))):
            return None
    return _width(env)


def _isatty(file: TextIO) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return False


def _width(env: Any) -> int:
    """The width Rich gives a console that is not a terminal: COLUMNS, else the size of
    the first of standard input, output and error that is a terminal, else 80."""
    columns = env.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        return width or 80
    return 80
