"""Helpers every reader shares: timestamps, tool arguments, content text, usage numbers,
small coercions of untrusted JSON values and file-name stems."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from ..text.arguments import dump_json, parse_arguments
from ..model import ENDINGS, Round, ToolCall, Trace, Usage


# A reader reports a bad value through one of these: it is given the reason, and the
# reader's closure adds the file, the line and the trace.
Warn = Callable[[str], None]

# Times datetime can represent (0001-01-01 to 9999-12-31 UTC): anything outside, or not
# finite, is not a time a transcript can have meant, and would break every later use.
MIN_TIME = -62135596800.0
MAX_TIME = 253402214400.0


def brief(value: Any, limit: int = 100) -> str:
    """A short, safe rendering of any JSON value for a warning: huge or deeply nested
    values are cut, never rendered whole (and never recursed into)."""
    if isinstance(value, (dict, list)):
        size = len(value)
        kind = "object" if isinstance(value, dict) else "array"
        return f"an empty {kind}" if not size else f"an {kind} of {size} item{'s' if size != 1 else ''}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        return f"an integer of {len(str(abs(value))) if abs(value) < 10**4000 else 'over 4000'} digits"
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # render only what is shown of a long string
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def failure(exc: BaseException) -> str:
    """What a reader's last-resort guard says about an exception it caught: its type and
    the start of its message (messages may quote megabytes of input)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200]}{'…' if len(text) > 200 else ''}"


def _in_range(moment: float) -> float | None:
    if not (MIN_TIME <= moment <= MAX_TIME):  # also false for NaN
        return None
    return round(moment, 6)


def parse_time(value: Any, warn: Warn | None = None, field: str = "timestamp") -> float | None:
    """Unix seconds (UTC) from ISO-8601, or from seconds, ms, µs or ns picked by magnitude.

    Anything else is unknown (None). A number or date that is out of datetime's range or
    not finite is reported through ``warn``, naming ``field``: it looks like a time but
    cannot be one."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            seconds = float(text)
        except ValueError:
            try:
                moment = datetime.fromisoformat(text.replace("z", "Z"))
                if moment.tzinfo is None:
                    moment = moment.replace(tzinfo=timezone.utc)
                seconds = moment.timestamp()
            except (ValueError, OverflowError):
                return None
            if MIN_TIME <= seconds <= MAX_TIME:
                return round(seconds, 6)
            return _out_of_range(value, warn, field)
    elif isinstance(value, (int, float)):
        try:
            seconds = float(value)
        except OverflowError:  # an integer too large for a float
            return _out_of_range(value, warn, field)
    else:
        return None
    magnitude = abs(seconds)
    if magnitude >= 1e17:
        seconds /= 1e9
    elif magnitude >= 1e14:
        seconds /= 1e6
    elif magnitude >= 1e11:
        seconds /= 1e3
    if MIN_TIME <= seconds <= MAX_TIME:  # also false for NaN
        return round(seconds, 6)
    return _out_of_range(value, warn, field)


def _out_of_range(raw: Any, warn: Warn | None, field: str) -> None:
    if warn is not None:
        warn(f"{field} {brief(raw)} is not a usable time (out of range or not finite); read as unknown")
    return None


def shift_time(moment: float | None, seconds: Any) -> float | None:
    """``moment`` plus ``seconds`` (a duration, negative to go back), or None when either
    is unknown or the result is not a time datetime can represent."""
    if moment is None or isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return None
    try:
        return _in_range(moment + float(seconds))
    except OverflowError:
        return None


def format_time(value: float | None) -> str | None:
    """ISO-8601 UTC with microseconds and a ``Z``: what the native format writes. A value
    that is no representable time is written as unknown (None); this never raises."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        moment = datetime.fromtimestamp(value, tz=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


# --- small coercions of untrusted JSON values ---------------------------------------------


def as_dict(value: Any) -> dict:
    """The value if it is a JSON object, else an empty dict (so ``.get`` is always safe)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    """The value if it is a JSON array, else an empty list (so iterating is always safe)."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """The value if it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def as_str_or_int(value: Any) -> str | None:
    """A non-empty string, or an integer (not a bool) written as a string; else None.
    For ids and names that some producers write as numbers."""
    if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
        return str(value)
    return None


def first_of(obj: dict, keys: tuple[str, ...]) -> Any:
    """The value of the first key in ``keys`` whose value is not None, else None."""
    for key in keys:
        if obj.get(key) is not None:
            return obj[key]
    return None


def rebuild(value: Any, keep_key: Callable[[Any], bool] | None = None, string: Callable[[str], Any] | None = None) -> Any:
    """A copy of a JSON value with the object keys ``keep_key`` refuses left out and every
    string passed through ``string``. Iterative: transcripts hold values nested deeper
    than Python's recursion limit."""
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, dict):
            kept = [k for k in item if keep_key is None or keep_key(k)]
            copy: Any = dict.fromkeys(kept)  # keys in their order, values filled below
            stack.extend((item[k], copy, k) for k in kept)
        elif isinstance(item, list):
            copy = [None] * len(item)
            stack.extend((element, copy, i) for i, element in enumerate(item))
        elif isinstance(item, str) and string is not None:
            copy = string(item)
        else:
            copy = item
        parent[key] = copy
    return holder[0]


# --- content text ---------------------------------------------------------------------------


# How the coding agents answer a call the user declined at a permission prompt: their
# text in place of the tool's (Claude Code; Cline and Roo Code; Codex CLI; Gemini CLI).
_DECLINED = re.compile(
    r"^\s*(?:The user doesn't want to (?:proceed with this tool use|take this action)"
    r"|\[Request interrupted by user for tool use\]"
    r"|The user denied this operation"
    r"|(?:exec )?command (?:was )?rejected by (?:the )?user"
    r"|\[Operation Cancelled\] Reason: User (?:did not allow|cancelled))"
)


def declined_by_user(text: str) -> bool:
    """Whether a result's text is an agent's note that the user declined the call: the
    call never ran, and what follows is the user's answer, not the tool's."""
    return bool(_DECLINED.match(text[:200]))


def content_text(content: Any) -> str:
    """Text of a message content: a string, a list of parts, or any JSON value."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict):
                text = part.get("text")
                if text is None and isinstance(part.get("content"), str):
                    text = part["content"]
                pieces.append(text if isinstance(text, str) else dump_json(part))
            else:
                pieces.append(dump_json(part))
        return "\n".join(pieces)
    return dump_json(content)


def visible_text(content: Any) -> str:
    """Visible text of message content: strings and text blocks (a block without a ``type``
    counts as text), joined by newlines with empty pieces left out; tool_use, thinking and
    other non-text blocks are left out (they are calls or hidden reasoning). Content that is
    neither a string nor a list reads as :func:`content_text` reads it."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
        return "\n".join(p for p in pieces if p)
    return content_text(content)


# --- file names -----------------------------------------------------------------------------

_STEM_SUFFIXES = (".gz", ".bz2", ".xz", ".json", ".jsonl", ".traj")


def file_stem(file: str) -> str:
    """The file name without the suffixes agent tools use: x.traj.json.gz -> x.
    A name that is nothing but a suffix is kept as it is."""
    name = os.path.basename(file)
    changed = True
    while changed:
        changed = False
        for suffix in _STEM_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                changed = True
    return name


# --- usage numbers --------------------------------------------------------------------------


# Token counts above this are not counts any model ever reported; they are also where
# floats stop holding every integer, and where a JSON report stops being portable.
MAX_COUNT = 2**53 - 1


def as_int(value: Any) -> int | None:
    """A count (0 to ``MAX_COUNT``) from an integer, a float that is one, or a string of
    ASCII digits; anything else (negative, fractional, huge, "12k", "²", a list) is unknown."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    if isinstance(value, float):
        # NaN and infinities fail the range test; 1e300 is never turned into an int.
        return int(value) if 0 <= value <= MAX_COUNT and value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        # isdigit() alone accepts "²" and other non-ASCII digits; 16 digits cover MAX_COUNT.
        if text.isascii() and text.isdigit() and len(text) <= 16:
            number = int(text)
            return number if number <= MAX_COUNT else None
    return None


class Counts:
    """Token counts of one usage object, read by key. A value that is present but is not
    a count (see :func:`as_int`) is unknown, and reported through ``warn`` with its key,
    so that "unknown" never silently hides a broken number."""

    __slots__ = ("obj", "warn", "path")

    def __init__(self, obj: Any, warn: Warn | None = None, path: str = "usage") -> None:
        self.obj = obj if isinstance(obj, dict) else {}
        self.warn = warn
        self.path = path

    def get(self, *keys: str) -> int | None:
        """The count under the first of ``keys`` whose value is not null."""
        for key in keys:
            value = self.obj.get(key)
            if value is not None:
                count = as_int(value)
                if count is None:
                    self.reject(key, value)
                return count
        return None

    def each(self, *keys: str) -> list[int | None]:
        """The count under each of ``keys`` (one call for a usage object read whole)."""
        counts: list[int | None] = []
        for key in keys:
            value = self.obj.get(key)
            count = None if value is None else as_int(value)
            if count is None and value is not None:
                self.reject(key, value)
            counts.append(count)
        return counts

    def reject(self, key: str, value: Any) -> None:
        if self.warn is not None:
            where = f"{self.path}.{key}" if self.path else key
            self.warn(f"{where} {brief(value)} is not a token count (a whole number from 0 to 2**53 - 1); read as unknown")

    def within(self, *keys: str) -> Counts:
        """The counts of a nested object: the first of ``keys`` with a non-empty value."""
        for key in keys:
            value = self.obj.get(key)
            if value:
                return Counts(value, self.warn, f"{self.path}.{key}" if self.path else key)
        return Counts(None, self.warn, self.path)


def make_usage(
    input_tokens: Any = None,
    output_tokens: Any = None,
    cached_tokens: Any = None,
    reasoning_tokens: Any = None,
) -> Usage | None:
    """A Usage of four counts (read with :class:`Counts`, which reports bad ones); a value
    that is not a count, such as a sum past ``MAX_COUNT``, is unknown."""
    usage = Usage(as_int(input_tokens), as_int(output_tokens), as_int(cached_tokens), as_int(reasoning_tokens))
    return None if usage.is_empty() else usage


def litellm_usage(raw: Any, warn: Warn | None = None) -> Usage | None:
    """Usage from a LiteLLM chat-completion ``usage`` object.

    LiteLLM's ``prompt_tokens`` for Anthropic already includes cache reads and writes
    (OpenHands' and mini-swe-agent's logs show prompt = input + read + write); only
    raw Anthropic numbers (``input_tokens``) leave them out, and then they are added.
    """
    if not isinstance(raw, dict):
        return None
    counts = Counts(raw, warn)
    read_tokens = counts.get("cache_read_input_tokens")
    write_tokens = counts.get("cache_creation_input_tokens")
    prompt = counts.get("prompt_tokens")
    if prompt is None:
        prompt = counts.get("input_tokens")
        if prompt is not None:
            prompt += (read_tokens or 0) + (write_tokens or 0)
    elif prompt < (read_tokens or 0) + (write_tokens or 0):
        prompt += (read_tokens or 0) + (write_tokens or 0)  # cannot include them: add
    output = counts.get("completion_tokens", "output_tokens")
    cached = counts.within("prompt_tokens_details").get("cached_tokens")
    if cached is None:
        cached = read_tokens
    return make_usage(prompt, output, cached, counts.within("completion_tokens_details").get("reasoning_tokens"))


# --- calls and traces -----------------------------------------------------------------------


def scalar_text(value: Any) -> str:
    """An id or a name as text, whatever JSON value a producer wrote there: a string as it
    is, a number as it reads, null as empty, an object or array as its JSON (never ``str()``
    of a container, which recurses and can be megabytes of Python syntax)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):  # bools too: "True" is what str() always gave
        return str(value)
    return dump_json(value)


def new_call(call_id: Any, name: Any, arguments: Any) -> ToolCall:
    raw, parsed, error = parse_arguments(arguments)
    return ToolCall(
        id=scalar_text(call_id),
        name=scalar_text(name),
        arguments_raw=raw,
        arguments=parsed,
        arguments_error=error,
    )


def _cut(text: str, limit: int = 120) -> str:
    """An id or a name as a warning shows it: a megabyte-long one is cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Errors that are an agent framework's own step/turn/cost/context limit, by the names
# the frameworks raise them under: a run they stop ended by a limit, not by a fault.
_LIMIT_ERRORS = re.compile(
    r"GraphRecursionError|Recursion limit of \d+ reached|MaxTurnsExceeded|Max turns (?:\(\d+\) )?exceeded"
    r"|iteration limit|max(?:imum)? iterations?|context_length_exceeded|ContextWindowExceeded"
    r"|budget|cost limit",
    re.I,
)


def error_ending(error: str | None) -> str:
    """The ending of a run stopped by ``error``: ``limit`` when the error is a known
    framework limit (LangGraph's recursion limit, the Agents SDK's max turns, a context
    window, an iteration or cost budget), else ``error``."""
    return "limit" if error and _LIMIT_ERRORS.search(error) else "error"


def make_trace(trace_id: str | None, fmt: str, file: str, base: str, line: int, index: int | None = None) -> Trace:
    """A trace named ``trace_id``; without one (its format gave none), named by its place,
    ``<base>:<line>`` (``#<index>`` for an element of an array), until ``identity``
    settles its id once its file is read."""
    place = f"{base}:{line}" if index is None else f"{base}:{line}#{index}"
    trace = Trace(id=trace_id or place, format=fmt, file=file, line=line, end_line=line)
    if index is not None:
        trace.pointer = f"[{index}]"
    if not trace_id:
        trace.id_base = base
    return trace


def file_trace(fmt: str, file: str, line: int) -> Trace:
    """A trace named after its file (``<file name>:<line>``) until its id is known: what a
    reader of one-session-per-file logs starts before it meets the session's own id."""
    return make_trace(None, fmt, file, os.path.basename(file) or file, line)


# Warnings about one trace's calls named one by one; past it, one line counts the rest (a
# round of a million calls without results is one finding, not a million).
CALL_WARNINGS_PER_TRACE = 5


def finish_trace(trace: Trace, diagnostics, *, synthesize_ids: bool = True, warn_missing_results: bool = True) -> Trace:
    """Number rounds and turns, give id-less calls synthetic ids, and warn about calls
    without results (unless ``warn_missing_results`` is off: a format that never records
    them says so once itself) and arguments that are not JSON. Every reader calls this
    on each trace it yields."""
    trace.number_turns()
    if trace.ending is None and trace.error is None and trace.rounds and trace.rounds[-1].is_final:
        # A last reply without tool calls is an answer in every format; how else a run
        # ended (a limit, an error, a submit) only its reader can tell.
        trace.ending = "answered"
    assert trace.ending is None or trace.ending in ENDINGS, trace.ending
    named = 0
    unnamed: dict[str, list] = {"arguments that are not JSON": [0, None], "no result": [0, None]}  # past the cap: how many, first line

    def call_warning(kind: str, line: int | None, reason: str) -> None:
        nonlocal named
        if named < CALL_WARNINGS_PER_TRACE:
            named += 1
            diagnostics.warn(trace.file, line, reason)
            return
        counted = unnamed[kind]
        counted[0] += 1
        if counted[1] is None:
            counted[1] = line

    for number, rnd in enumerate(trace.rounds, 1):
        rnd.index = number
        for k, call in enumerate(rnd.tool_calls, 1):
            if synthesize_ids and not call.id:
                call.id = f"r{number}.c{k}"
            line = rnd.line
            if call.arguments_error:
                call_warning("arguments that are not JSON", line, f"trace {_cut(trace.id)}: call {_cut(call.id)} ({_cut(call.name)}): {call.arguments_error}")
            if call.result is None and warn_missing_results:
                call_warning("no result", line, f"trace {_cut(trace.id)}: call {_cut(call.id)} ({_cut(call.name)}) has no result")
    for kind, (count, line) in unnamed.items():
        if count:
            calls = "call" if count == 1 else "calls"
            diagnostics.warn(trace.file, line, f"trace {_cut(trace.id)}: {count:,} more {calls} with {kind} (the first {CALL_WARNINGS_PER_TRACE} warnings of this trace are named)")
    return trace


def attach_result(
    trace: Trace,
    pending: dict[str, ToolCall],
    call_id: str | None,
    result,
    diagnostics,
    line: int | None,
) -> bool:
    """Attach a result to its call by id; warn when no call has that id."""
    call = pending.pop(call_id, None) if call_id else None
    if call is None:
        diagnostics.warn(trace.file, line, f"trace {trace.id}: tool result for unknown call id {brief(call_id)}")
        return False
    call.result = result
    return True


__all__ = [
    "Round",
    "ToolCall",
    "Trace",
    "Usage",
    "Counts",
    "Warn",
    "as_dict",
    "as_int",
    "as_list",
    "as_str",
    "as_str_or_int",
    "attach_result",
    "brief",
    "content_text",
    "dump_json",
    "failure",
    "file_stem",
    "file_trace",
    "finish_trace",
    "first_of",
    "format_time",
    "litellm_usage",
    "make_usage",
    "new_call",
    "parse_arguments",
    "parse_time",
    "rebuild",
    "scalar_text",
    "shift_time",
    "visible_text",
]
