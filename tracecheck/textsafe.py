"""Trace content is untrusted: make it safe to show in a terminal.

Rich markup is avoided by always wrapping trace text in ``rich.text.Text`` (never
formatting it into a markup string); terminal control sequences are made visible
here, so an ESC byte in a tool output cannot recolour, move the cursor or retitle
the terminal.
"""

from __future__ import annotations

import re

from rich.text import Text

# C0 controls except tab and newline, DEL, and the C1 range (8-bit CSI and friends).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


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
