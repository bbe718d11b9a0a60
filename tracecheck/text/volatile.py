"""Volatile text: the parts of a tool result or error that change from one run of the
same command to the next although nothing else did.

``normalize_volatile(text)`` replaces them with fixed placeholders, so that two errors
or results can be compared for "the same thing happened again". The rules, applied in
this order:

1. **ISO timestamps** ``2026-12-01T16:59:32.123Z``, ``2026-12-01 16:59:32+02:00`` and
   clock times ``16:59:32`` / ``16:59:32.5`` → ``<TIME>``. A date without a time
   (``2026-12-01``) is left alone: it is usually data, not the moment of the run.
2. **UUIDs** ``123e4567-e89b-12d3-a456-426614174000`` (any case) → ``<UUID>``.
3. **Temp paths** made by ``mkdtemp``/``NamedTemporaryFile`` and friends:
   ``/tmp/tmpab12cd`` or ``/var/tmp/tmpab12cd`` → ``/tmp/<TMP>`` (the rest of the path
   stays, so ``/tmp/tmpab12cd/out.txt`` → ``/tmp/<TMP>/out.txt``).
4. **Shell line counters**: bash and sh number the lines of a session and print the
   counter in their errors, ``/bin/bash: line 12991: x: command not found`` →
   ``/bin/bash: line N: x: command not found``; dash's ``sh: 12: x: not found`` →
   ``sh: N: x: not found``. Line numbers anywhere else (``File "a.py", line 42``) are
   kept: there they say where the error is, and a different line is a different error.
5. **Hex ids**: ``0x7f3a2c`` addresses → ``0x<HEX>``; a run of 7 or more hex digits that
   holds both a digit and a letter a-f (git hashes, container ids) → ``<HEX>``. Words
   (``deadbeef``, ``facade``) and plain numbers are kept.
6. **PIDs**: ``pid 4242``, ``pid=4242``, ``PID: 4242``, ``process 4242``, ``PPID 1``,
   ``Process Group PGID: 4242`` (Gemini CLI's shell tool ends every result with it) → the
   same with ``N`` for the number.
7. **Durations**: a number with a time unit (``1.23s``, ``250 ms``, ``3 seconds``,
   ``2 min``, ``15µs``) → ``<DUR>``, as in "took 1.23s".

Everything else is returned as it was: ordinary prose, paths, counts and line numbers of
source files. Known misses: other date formats (``Mon Dec  1 16:59:32 UTC 2026``),
random names that are not hex (``/tmp/pytest-of-me/pytest-12``), port numbers.
"""

from __future__ import annotations

import functools
import re

from .memo import remembered

# Durations and bare clock times can be a poll's progress ("4 min left", "last run
# 14:00:00"): kept when comparing results (P004), replaced when comparing errors (F002).

# Each rule: its pattern, its replacement, the text every match of it contains (any one
# of them, lowercase where the rule ignores case: a substring test in C skips a regex scan
# of the whole result, and most results hold no temp path, shell counter, hex address or
# PID; none = always scanned), and whether it can be a poll's progress (the bare clock time
# and the duration). Compiled when a text is first normalised: many runs never compare one.
_RULE_TABLE: tuple[tuple[str, str, tuple[str, ...] | None, bool], ...] = (
    (r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?!\d)", "<TIME>", (":",), False),
    (r"(?<![\d:])\d{2}:\d{2}:\d{2}(?:\.\d+)?(?![\d:])", "<TIME>", (":",), True),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<UUID>", ("-",), False),
    (r"(?<![\w/])(?:/var)?/tmp/tmp[A-Za-z0-9_]{4,}", "/tmp/<TMP>", ("/tmp/tmp",), False),
    (r"((?:^|(?<=[\s/]))(?:ba|z)?sh: line )\d+:", r"\1N:", ("sh: line ",), False),
    (r"((?:^|(?<=[\s/]))sh: )\d+:", r"\1N:", ("sh: ",), False),
    (r"\b0x[0-9a-fA-F]+\b", "0x<HEX>", ("0x",), False),
    (r"\b(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b", "<HEX>", None, False),
    (r"(?i)\b((?:pid|ppid|pgid|process(?: group)?(?: pgid)?)\s*[=:#]?\s*)\d+\b", r"\1N", ("pid", "process"), False),
    (r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b", "<DUR>", None, True),
)


@functools.cache
def rules() -> tuple[tuple[re.Pattern[str], str, tuple[str, ...] | None, bool, bool], ...]:
    """The rules compiled, in order: (pattern, replacement, text a match contains or None,
    whether that text is lowercase (the rule ignores case), whether it is progress)."""
    return tuple(
        (re.compile(pattern), replacement, needs, pattern.startswith("(?i)"), progress)
        for pattern, replacement, needs, progress in _RULE_TABLE
    )


def normalize_volatile(text: str, keep_progress: bool = False) -> str:
    """``text`` with timestamps, UUIDs, temp paths, shell line counters, hex ids, PIDs
    and durations replaced by placeholders (see the module docstring). With
    ``keep_progress`` durations and bare clock times stay: in a result they may be what
    changes while a job advances ("4 min left", then "3 min left")."""
    if len(text) <= _REMEMBERED:
        return _normalized(text, keep_progress)
    return _normalize(text, keep_progress)


_REMEMBERED = 16_384  # longer texts are normalised each time rather than kept in memory


def _normalize(text: str, keep_progress: bool = False) -> str:
    lowered: str | None = None
    for pattern, replacement, needs, fold, progress in rules():
        if keep_progress and progress:
            continue
        # Case-insensitive matching also takes "ſ" for "s": only ASCII is filtered.
        if needs is not None and (not fold or text.isascii()):
            if fold and lowered is None:
                lowered = text.lower()
            haystack = lowered if fold else text
            if not any(literal in haystack for literal in needs):
                continue
        text = pattern.sub(replacement, text)
        lowered = None  # the text changed
    return text


# A sweep replays the same results under many settings: remember the recent ones.
_normalized = remembered(maxsize=8192)(_normalize)


# A browser agent's result carries the text a screen reader (OCR) took from the page's
# screenshot: the same page reads differently each time (Magentic-One's WebSurfer).
_SCREEN_OCR = "Automatic OCR of the page screenshot has detected the following text:"


def without_screen_text(text: str) -> str:
    """``text`` without the OCR of a page screenshot (everything after Magentic-One's
    "Automatic OCR of the page screenshot has detected the following text:"): what a
    browser did and which page it shows stay, the noisy reading of its pixels goes."""
    at = text.find(_SCREEN_OCR)
    return text if at < 0 else text[: at + len(_SCREEN_OCR)]

