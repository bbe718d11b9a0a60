"""Helpers every reader shares: timestamps, tool arguments, content text, usage numbers."""

from __future__ import annotations

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
    "as_int",
    "attach_result",
    "content_text",
    "dump_json",
    "finish_trace",
    "format_time",
    "make_usage",
    "new_call",
    "parse_arguments",
    "parse_time",
]
