"""Writing traces in tracecheck's native JSONL format (``tracecheck convert``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import orjson

from ..text.arguments import dump_json
from ..model import Trace, Usage
from .common import format_time

FORMAT_VERSION = 1


def _usage(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    fields = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cached_tokens": usage.cached_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
    }
    return {k: v for k, v in fields.items() if v is not None}


def _compact(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if v is not None}


compact = _compact  # public: the live recorder writes its own events the same way


def _call(call) -> dict[str, Any]:
    if call.arguments_error is None and isinstance(call.arguments, str) and call.arguments == call.arguments_raw:
        # Plain text input of a text action: keep it text, it was never meant as JSON.
        return {"id": call.id, "name": call.name, "input": call.arguments_raw}
    return {"id": call.id, "name": call.name, "arguments": call.arguments_raw}


def user_event(trace_id: str, message) -> dict[str, Any]:
    return _compact({"type": "user", "trace": trace_id, "text": message.text, "at": format_time(message.at)})


def round_event(trace_id: str, rnd) -> dict[str, Any]:
    return _compact(
        {
            "type": "round",
            "trace": trace_id,
            "round": rnd.index,
            "id": rnd.id,
            "model": rnd.model,
            "started_at": format_time(rnd.started_at),
            "ended_at": format_time(rnd.ended_at),
            "text": rnd.text or None,
            "tool_calls": [_call(c) for c in rnd.tool_calls] or None,
            "usage": _usage(rnd.usage),
            "finish_reason": rnd.finish_reason,
            "forced": True if rnd.forced else None,
        }
    )


def result_event(trace_id: str, call) -> dict[str, Any]:
    res = call.result
    return _compact(
        {
            "type": "result",
            "trace": trace_id,
            "call_id": call.id,
            "content": res.content,
            "is_error": res.is_error,
            "started_at": format_time(res.started_at),
            "ended_at": format_time(res.ended_at),
            "blocked": True if res.blocked else None,
            "declined": True if res.declined else None,
        }
    )


def trace_events(trace: Trace) -> Iterator[dict[str, Any]]:
    """The native events of one trace, in the order an agent would append them."""
    tid = trace.id
    yield _compact(
        {
            "type": "trace",
            "trace": tid,
            "format_version": FORMAT_VERSION,
            "source_format": trace.format,
            "metadata": trace.metadata or None,
        }
    )
    if trace.labels:
        yield {"type": "labels", "trace": tid, "labels": dict(trace.labels)}
    for exp in trace.expectations:
        yield _compact(
            {"type": "expect", "trace": tid, "guard": exp.guard, "fires": exp.fires, "by_round": exp.by_round, "note": exp.note, "tolerance": exp.tolerance or None}
        )
    said = {}
    for message in trace.user_messages:
        said.setdefault(message.before_round, []).append(message)
    for rnd in trace.rounds:
        for message in said.pop(rnd.index, ()):
            yield user_event(tid, message)
        yield round_event(tid, rnd)
        for call in rnd.tool_calls:
            if call.result is not None:
                yield result_event(tid, call)
    for messages in said.values():  # said after the last round
        for message in messages:
            yield user_event(tid, message)
    # Always close the trace, so two traces that share an id (from two files) stay apart.
    # "answered" is what a last reply without tool calls reads as anyway.
    ending = trace.ending if trace.ending != "answered" else None
    yield _compact({"type": "end", "trace": tid, "error": trace.error, "ending": ending, "usage": _usage(trace.usage_total)})


def write_native(traces: Iterable[Trace], out: BinaryIO) -> int:
    """Write traces as native JSONL; returns how many were written."""
    count = 0
    for trace in traces:
        for event in trace_events(trace):
            try:
                line = orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
            except TypeError:  # deeper or larger than orjson writes
                line = dump_json(event).encode() + b"\n"
            out.write(line)
        count += 1
    return count
