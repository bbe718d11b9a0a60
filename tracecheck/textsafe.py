"""Trace content is untrusted: make it safe to show in a terminal.

Rich markup is avoided by always wrapping trace text in ``rich.text.Text`` (never
formatting it into a markup string); terminal control sequences are made visible
here, so an ESC byte in a tool output cannot recolour, move the cursor or retitle
the terminal.
"""

from __future__ import annotations

import re

from rich.text import Text

# C0 controls except tab and newline, DEL, the C1 range (8-bit CSI and friends), and
# invisible format characters that reorder or hide text (bidi overrides, zero widths).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralize(text: str) -> str:
    """Replace control characters with visible ``\\xNN`` escapes."""
    return _CONTROL.sub(_visible, text)


def one_line(text: str, limit: int = 160) -> str:
    """A single-line, length-limited, neutralized excerpt."""
    flat = " ".join(neutralize(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat


def plain(text: str, style: str = "") -> Text:
    """Untrusted text as a Rich ``Text``: printed literally, never parsed as markup."""
    return Text(neutralize(text), style=style)
