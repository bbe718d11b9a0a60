"""Helpers every reader shares: timestamps, tool arguments, content text, usage numbers,
small coercions of untrusted JSON values and file-name stems."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any

from ..arguments import dump_json, parse_arguments
from ..model import Round, ToolCall, Trace, Usage


def parse_time(value: Any) -> float | None:
    """Unix seconds (UTC) from ISO-8601, or from seconds, ms, µs or ns picked by magnitude."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            value = float(text)
        except ValueError:
            try:
                moment = datetime.fromisoformat(text.replace("z", "Z"))
            except ValueError:
                return None
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            return round(moment.timestamp(), 6)
    if isinstance(value, (int, float)):
        number = float(value)
        magnitude = abs(number)
        if magnitude >= 1e17:
            number /= 1e9
        elif magnitude >= 1e14:
            number /= 1e6
        elif magnitude >= 1e11:
            number /= 1e3
        return round(number, 6)
    return None


def format_time(value: float | None) -> str | None:
    """ISO-8601 UTC with microseconds and a ``Z``: what the native format writes."""
    if value is None:
        return None
    moment = datetime.fromtimestamp(value, tz=timezone.utc)
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


# --- content text ---------------------------------------------------------------------------


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


def as_int(value: Any) -> int | None:
    """A count (never negative) from a number or a digit string; anything else is unknown."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and value >= 0:
        return value
    return None


def make_usage(
    input_tokens: Any = None,
    output_tokens: Any = None,
    cached_tokens: Any = None,
    reasoning_tokens: Any = None,
) -> Usage | None:
    usage = Usage(as_int(input_tokens), as_int(output_tokens), as_int(cached_tokens), as_int(reasoning_tokens))
    return None if usage.is_empty() else usage


def litellm_usage(raw: Any) -> Usage | None:
    """Usage from a LiteLLM chat-completion ``usage`` object.

    LiteLLM's ``prompt_tokens`` for Anthropic already includes cache reads and writes
    (OpenHands' and mini-swe-agent's logs show prompt = input + read + write); only
    raw Anthropic numbers (``input_tokens``) leave them out, and then they are added.
    """
    if not isinstance(raw, dict):
        return None
    read_tokens = as_int(raw.get("cache_read_input_tokens"))
    write_tokens = as_int(raw.get("cache_creation_input_tokens"))
    prompt = as_int(raw.get("prompt_tokens"))
    if prompt is None:
        prompt = as_int(raw.get("input_tokens"))
        if prompt is not None:
            prompt += (read_tokens or 0) + (write_tokens or 0)
    elif prompt < (read_tokens or 0) + (write_tokens or 0):
        prompt += (read_tokens or 0) + (write_tokens or 0)  # cannot include them: add
    output = raw.get("completion_tokens", raw.get("output_tokens"))
    details_in = as_dict(raw.get("prompt_tokens_details"))
    details_out = as_dict(raw.get("completion_tokens_details"))
    cached = as_int(details_in.get("cached_tokens"))
    if cached is None:
        cached = read_tokens
    return make_usage(prompt, output, cached, details_out.get("reasoning_tokens"))


# --- calls and traces -----------------------------------------------------------------------


def new_call(call_id: Any, name: Any, arguments: Any) -> ToolCall:
    raw, parsed, error = parse_arguments(arguments)
    return ToolCall(
        id=str(call_id) if call_id not in (None, "") else "",
        name=str(name) if name is not None else "",
        arguments_raw=raw,
        arguments=parsed,
        arguments_error=error,
    )


def finish_trace(trace: Trace, diagnostics, *, synthesize_ids: bool = True) -> Trace:
    """Number rounds, give id-less calls synthetic ids, and warn about calls without results
    and arguments that are not JSON. Every reader calls this on each trace it yields."""
    for number, rnd in enumerate(trace.rounds, 1):
        rnd.index = number
        for k, call in enumerate(rnd.tool_calls, 1):
            if synthesize_ids and not call.id:
                call.id = f"r{number}.c{k}"
            line = rnd.line
            if call.arguments_error:
                diagnostics.warn(trace.file, line, f"trace {trace.id}: call {call.id} ({call.name}): {call.arguments_error}")
            if call.result is None:
                diagnostics.warn(trace.file, line, f"trace {trace.id}: call {call.id} ({call.name}) has no result")
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
        diagnostics.warn(trace.file, line, f"trace {trace.id}: tool result for unknown call id {call_id!r}")
        return False
    call.result = result
    return True


__all__ = [
    "Round",
    "ToolCall",
    "Trace",
    "Usage",
    "as_dict",
    "as_int",
    "as_list",
    "as_str",
    "as_str_or_int",
    "attach_result",
    "content_text",
    "dump_json",
    "file_stem",
    "finish_trace",
    "first_of",
    "format_time",
    "litellm_usage",
    "make_usage",
    "new_call",
    "parse_arguments",
    "parse_time",
    "visible_text",
]


# --- request/response logs that resend the history -------------------------------------------


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
