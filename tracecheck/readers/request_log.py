"""Request logs: one record per model request, each resending the conversation so far
(a proxy's or an SDK wrapper's log of Anthropic Messages, OpenAI Chat or Responses calls).

What the readers of such logs share: which open trace a request continues, the ids of
traces named after a thread, how many traces stay open, and the error and the times a
log line records. How a format's messages are told apart (its fingerprints, its response
ids) stays in its reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from ..model import Trace
from .common import Warn, as_str, as_str_or_int, dump_json, parse_time, shift_time

Entry = TypeVar("Entry")


def explicit_id(obj: Any, keys: tuple[str, ...]) -> str | None:
    """The first id under ``keys`` in ``obj`` or in its ``metadata`` object."""
    if not isinstance(obj, dict):
        return None
    for holder in (obj, obj.get("metadata")):
        if isinstance(holder, dict):
            for key in keys:
                found = as_str_or_int(holder.get(key))
                if found is not None:
                    return found
    return None


def error_message(error: dict) -> str | None:
    """An OpenAI error object's text: its message, else its code or type."""
    for key in ("message", "code", "type"):
        if as_str(error.get(key)):
            return error[key]
    return None


def error_text(error: Any, from_object: Callable[[dict], str | None] = error_message) -> str | None:
    """The error a log line records, as text (``from_object`` reads an error object; one it
    cannot read is kept as JSON); None when the line records none."""
    if error is None or error is False or error in ("", {}, []):
        return None
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        text = from_object(error)
        if text is not None:
            return text
    return dump_json(error)


def time_of(obj: dict, warn: Warn | None, *keys: str) -> float | None:
    """The time under the first of ``keys`` that ``obj`` holds."""
    key = next((k for k in keys if obj.get(k) is not None), None)
    return None if key is None else parse_time(obj[key], warn, key)


def with_latency(start: float | None, end: float | None, latency: Any) -> tuple[float | None, float | None]:
    """A request's (start, end), the missing one of the two worked out from its latency in
    milliseconds when a logger wrote one."""
    if isinstance(latency, (int, float)) and not isinstance(latency, bool) and latency >= 0:
        if start is None and end is not None:
            start = shift_time(end, -latency / 1000.0)
        elif end is None and start is not None:
            end = shift_time(start, latency / 1000.0)
    return start, end


def continued_trace(candidates: list, prints: list, thread: str | None):
    """The open trace whose expected history (``.expected``, on the same ``.thread``) this
    request's history starts with; the longest history wins, a tie goes to the most
    recently continued (``candidates`` are ordered least recently continued first)."""
    best = None
    for candidate in reversed(candidates):
        size = len(candidate.expected)
        if (
            candidate.thread == thread
            and 0 < size <= len(prints)
            and (best is None or size > len(best.expected))
            and prints[:size] == candidate.expected
        ):
            best = candidate
    return best


def thread_trace_id(uses: dict[str, int], thread: str) -> str:
    """A trace id from a thread id, unique when a thread starts again (``thread#2``)."""
    uses[thread] = uses.get(thread, 0) + 1
    return thread if uses[thread] == 1 else f"{thread}#{uses[thread]}"


class OpenTraces(Generic[Entry]):
    """The traces a request log keeps open, least recently continued first. A log may
    interleave many conversations; past ``limit`` the one left longest is finished."""

    __slots__ = ("entries", "limit")

    def __init__(self, limit: int) -> None:
        self.entries: list[Entry] = []
        self.limit = limit

    def add(self, entry: Entry) -> list[Entry]:
        """Opens ``entry``; gives back the entries it pushes out, to be finished now."""
        self.entries.append(entry)
        pushed_out = self.entries[: max(0, len(self.entries) - self.limit)]
        del self.entries[: len(pushed_out)]
        return pushed_out

    def touch(self, entry: Entry) -> None:
        """``entry`` was continued: the last one to push out."""
        self.entries.remove(entry)
        self.entries.append(entry)

    def __contains__(self, entry: object) -> bool:
        return any(e is entry for e in self.entries)

    def drain(self) -> list[Entry]:
        """Every open entry (the file ended), least recently continued first."""
        entries, self.entries = self.entries, []
        return entries


def in_file_order(entries: Iterable[Entry], trace_of: Callable[[Entry], Trace]) -> list[Entry]:
    """Entries by the line their trace starts on (a stable sort keeps same-line order)."""
    return sorted(entries, key=lambda entry: trace_of(entry).line or 0)
