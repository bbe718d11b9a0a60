"""Trace content is untrusted: make it safe to show to a person.

Rich markup is avoided by always wrapping trace text in ``rich.text.Text`` (never
formatting it into a markup string). Here, characters that a terminal or a browser
would act on instead of showing are made visible as escapes: an ESC byte cannot
recolour, move the cursor or retitle the terminal; a newline cannot start a forged
report line; a bidi override cannot reorder the text around it; an invisible
character cannot hide inside an id.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# Every character of the Unicode general categories Cc (controls), Cf (format: bidi
# marks and overrides, zero widths, soft hyphen, tags), Zl, Zp (line and paragraph
# separators) and Cs (lone surrogates, from undecodable bytes), written out as ranges
# because deriving them from ``unicodedata`` at import costs ~80 ms (``--help`` must
# stay fast); tests/test_untrusted_text.py checks the table against ``unicodedata``.
# Also the whole tag block and some other characters that draw nothing: the Hangul
# fillers, the combining grapheme joiner, the Khmer inherent vowels and the variation
# selectors.
_INVISIBLE_RANGES = (  # regular expression escapes, for a character class
    r"\x00-\x1f\x7f-\x9f\xad"
    r"\u034f"
    r"\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    r"\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    r"\u3164"
    r"\ud800-\udfff"
    r"\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    r"\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
# Ordinary layout whitespace of multi-line content: an excerpt folds it into spaces.
_LAYOUT = r"\t\n\r\x0b\x0c"
# What each function replaces: compiled on the first text that may hold one (a class this
# wide takes a millisecond to compile; printable ASCII, most of any report, holds none).
_KEPT = {"nothing": "", "layout": f"(?![{_LAYOUT}])", "newline": "(?!\n)"}


@functools.cache
def _invisible(kept: str) -> re.Pattern[str]:
    return re.compile(f"{_KEPT[kept]}[{_INVISIBLE_RANGES}]")
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(match: re.Match[str]) -> str:
    """The visible escape of one matched character (``\\t``, ``\\x1b``, ``\\u202e``): the
    replacement function of every ``re.sub`` here and of writers with a pattern of their own."""
    char = match.group()
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def neutralize(text: str) -> str:
    """``text`` as one safe line: every control, line break, format or invisible
    character replaced by a visible escape (``\\n``, ``\\x1b``, ``\\u202e``, ``\\U000e0041``)."""
    if text.isascii() and text.isprintable():
        return text
    return _invisible("nothing").sub(escape_char, text)


def neutralize_keeping_layout(text: str) -> str:
    """``neutralize`` that keeps tabs and line breaks: multi-line text a page shows as it is."""
    if text.isascii() and text.isprintable():
        return text
    return _invisible("layout").sub(escape_char, text)


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def single_line(text: str, limit: int | None = None) -> str:
    """A one-line field (an id, a label, a file name): neutralized, so a line break in it
    shows as ``\\n``, and cut to ``limit`` characters."""
    return _clip(neutralize(text), limit)


def one_line(text: str, limit: int = 160) -> str:
    """A single-line, length-limited, neutralized excerpt of possibly multi-line text
    (a tool output): runs of whitespace, line breaks included, become one space."""
    return _clip(" ".join(neutralize_keeping_layout(text).split()), limit)


def neutralize_lines(text: str) -> str:
    """``neutralize`` that keeps line feeds: multi-line text for a page that shows them."""
    if text.isascii() and text.isprintable():
        return text
    return _invisible("newline").sub(escape_char, text)


def excerpt(text: str, limit: int = 400, max_lines: int = 6) -> str:
    """The start of possibly multi-line text (a tool output) for a page that keeps line
    breaks: at most ``max_lines`` lines and ``limit`` characters, ``…`` where it was cut.
    Line breaks stay (``\r\n`` and ``\r`` become ``\n``, tabs four spaces, blank runs
    one blank line); every other control, format or invisible character is a visible
    escape, as in ``neutralize``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    text = neutralize_lines(text)
    lines: list[str] = []
    cut = False
    for line in text.strip().split("\n"):
        line = line.rstrip()
        if not line and (not lines or not lines[-1]):
            continue  # one blank line between paragraphs, none at the start
        if len(lines) == max_lines:
            cut = True
            break
        lines.append(line)
    shown = "\n".join(lines).rstrip()
    if len(shown) > limit:
        shown, cut = shown[: limit - 1].rstrip(), True
    return shown + "…" if cut else shown


def excerpt_is_cut(text: str, limit: int = 400, max_lines: int = 6) -> tuple[str, bool]:
    """``excerpt`` and whether it left part of ``text`` out (more than blank lines and
    surrounding whitespace)."""
    shown = excerpt(text, limit, max_lines)
    return shown, shown != excerpt(text, len(text) + limit + 10, len(text) + 2)


def plain(text: str, style: str = "") -> Text:
    """Untrusted one-line text as a Rich ``Text``: neutralized, printed literally, never
    parsed as markup."""
    from rich.text import Text  # here: a report to a file or a pipe is written without Rich (start-up)

    return Text(neutralize(text), style=style)
