"""The class of an error message: what stays the same when a stuck agent rewrites its
call and the error's text changes with it.

A model that pastes its own prose or a file view into a shell gets
``bash: line 3: DISCUSSION: command not found``, then ``syntax error near unexpected
token `('``, then ``unexpected EOF while looking for matching `"'`` — different text,
one failure: what it sent is not a command. Those shell complaints form one class. Any
other error keeps its own class: its text with the parts that change between attempts
(quoted tokens, numbers, paths, volatile ids and times) replaced, first line only, or
for a Python traceback its last line (the exception). Warning and notice lines a tool
prints before its output (``npm WARN deprecated …``, ``WARNING: Running pip as root``)
are passed over: they open every result, error or not.
"""

from __future__ import annotations

import functools
import re

from .volatile import normalize_volatile

# The shell could not run the text as a command: it is prose, a fragment or junk.
NOT_A_COMMAND = "the shell could not run the text as a command"


@functools.cache
def _notice() -> re.Pattern[str]:
    """A line that is a tool's warning or notice, not its error (``npm WARN …``,
    ``WARNING: …``, ``DeprecationWarning: …``, ``warning: …``)."""
    return re.compile(
        r"(?i)^\[?(?:[\w.-]{1,20} )?(?:warn(?:ing)?|notice|note|info|deprecat\w*)\]?(?:[:\s]|$)"
        r"|^\w*(?:Deprecation|Future|Pending\w*|Resource|Runtime|User)?Warning:"
    )


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    """(not a command, shell prefix, quoted token, path, number), compiled by the first
    error classed: a run without errors never needs them."""
    return (
        re.compile(
            r"command not found|syntax error near unexpected token|unexpected EOF while looking for matching"
            r"|syntax error: unexpected end of file|unterminated quoted string|bad substitution"
            r"|Syntax error: \S+ unexpected",
            re.IGNORECASE | re.MULTILINE,
        ),
        re.compile(r"^(?:/\S*/)?(?:ba|da|z)?sh: (?:line \d+: )?"),
        re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}'?`?|‘[^’\n]{0,200}’|“[^”\n]{0,200}”"),
        # A path: with a directory part (src/a.py, /repo/src), or an absolute path of one
        # component (/repo: SWE-agent's repository root, `No matches found for "x" in /repo`).
        re.compile(r"(?<![\w.])(?:(?:\.{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*|(?<![\w.)\]/])/[\w.@+-]+)"),
        re.compile(r"\d+(?:\.\d+)?"),
    )


_TRACEBACK = "Traceback (most recent call last):"
# How much of a long error is looked at: the class is in its first lines.
_HEAD = 2000


def error_class(text: str) -> str:
    """A short key equal for errors of one class (see the module docstring)."""
    head = text[:_HEAD]
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    if not lines:
        return ""
    not_a_command, shell_prefix, quoted, path, number = _patterns()
    # A notice a tool prints before every output (a package manager's deprecation
    # warning on stderr) says nothing about this error: the class is the first line after it.
    while len(lines) > 1 and _notice().match(lines[0]):
        lines = lines[1:]
    first = lines[0]
    if shell_prefix.match(first) and not_a_command.search(first):
        return NOT_A_COMMAND
    if any(not_a_command.search(line) and ("syntax error" in line or "unexpected" in line) for line in lines[:3]):
        return NOT_A_COMMAND
    if _TRACEBACK in head:
        # The exception is the last line of the traceback; the frames above it move.
        tail = [line.strip() for line in text[-_HEAD:].splitlines() if line.strip()]
        line = tail[-1] if tail else first
    else:
        line = first
    key = _line_class(line)
    if _TRACEBACK not in head:
        # A first line that is only a path or a number ("/repo/a.py:", a pylint header)
        # says nothing of the error: the lines after it do.
        for more in lines[1:4]:
            if _words(key) >= 3:
                break
            key += " | " + _line_class(more)
    return key[:120]


def _line_class(line: str) -> str:
    _, shell_prefix, quoted, path, number = _patterns()
    line = normalize_volatile(line)
    line = shell_prefix.sub("", line)
    line = quoted.sub("Q", line)
    line = path.sub("P", line)
    line = number.sub("N", line)
    return " ".join(line.split())[:120]


def _words(key: str) -> int:
    """Letters of a class that are not its placeholders (Q, P, N)."""
    return sum(1 for word in re.findall(r"[A-Za-z]+", key) if word not in ("Q", "P", "N"))


# How long the shared start and end of two error texts must be for one template with a
# changing middle ("permission to write to <junk>, which contains a suspicious path").
TEMPLATE_EDGE = 24


def template_edges(text: str) -> tuple[str, str]:
    """The start and the end of an error text, whitespace collapsed, for ``same_template``."""
    flat = " ".join(text[:_HEAD].split())
    tail = " ".join(text[-_HEAD:].split()) if len(text) > _HEAD else flat
    return flat[:200], tail[-200:]


def same_template(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two errors (their ``template_edges``) are one message with a changing
    middle: at least ``TEMPLATE_EDGE`` characters alike at the start and at the end."""
    (a_head, a_tail), (b_head, b_tail) = a, b
    if a_head[:TEMPLATE_EDGE] != b_head[:TEMPLATE_EDGE]:
        return False
    return len(a_tail) >= TEMPLATE_EDGE and a_tail[-TEMPLATE_EDGE:] == b_tail[-TEMPLATE_EDGE:]
