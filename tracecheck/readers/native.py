"""tracecheck's own JSONL format: one event per line, grouped into traces by ``trace``.

Events (see the README and ``tracecheck schema native``):

- ``trace``   optional header: ``format_version``, ``source_format``, ``metadata``
- ``labels``  ``labels``: {"outcome": "success"|"failure"|"unknown", ...}
- ``expect``  ``guard``, ``fires`` (default true), ``by_round``, ``note``
- ``round``   one model response: ``text``, ``tool_calls`` [{id, name, arguments}],
              ``usage``, ``started_at``, ``ended_at``, ``finish_reason``, ``model``, ``id``
- ``result``  ``call_id``, ``content``, ``is_error``, ``started_at``, ``ended_at``
- ``end``     the run is over: ``error`` (ended without an answer), ``usage`` (run total)

Traces may interleave (several agents appending to one file). A trace is complete at
its ``end`` event or at the end of the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import OUTCOMES, Expectation, Round, ToolCall, ToolResult, Trace
from ..sources import Record
from . import NATIVE_EVENT_TYPES, ReadContext
from .common import content_text, finish_trace, make_usage, new_call, parse_time

FORMAT = "native"


class _Open:
    __slots__ = ("trace", "pending")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.pending: dict[str, ToolCall] = {}


def _usage(value: Any):
    if not isinstance(value, dict):
        return None
    return make_usage(
        value.get("input_tokens"),
        value.get("output_tokens"),
        value.get("cached_tokens"),
        value.get("reasoning_tokens"),
    )


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    open_traces: dict[str, _Open] = {}
    finished: set[str] = set()

    def get(trace_id: str, line: int) -> _Open:
        entry = open_traces.get(trace_id)
        if entry is None:
            if trace_id in finished:
                ctx.warn(line, f"trace {trace_id}: event after its 'end' event starts a new trace with the same id")
                finished.discard(trace_id)
            entry = _Open(Trace(id=trace_id, format=FORMAT, file=ctx.file, line=line))
            open_traces[trace_id] = entry
        entry.trace.end_line = line
        return entry

    def close(trace_id: str) -> Trace:
        entry = open_traces.pop(trace_id)
        return finish_trace(entry.trace, ctx.diagnostics)

    for record in records:
        event, line = record.value, record.line
        if not isinstance(event, dict) or event.get("type") not in NATIVE_EVENT_TYPES:
            ctx.warn(line, "not a tracecheck event (expected an object with 'type' one of: " + ", ".join(NATIVE_EVENT_TYPES) + ")")
            continue
        trace_id = event.get("trace")
        if not isinstance(trace_id, (str, int)) or trace_id == "":
            ctx.warn(line, "event without a 'trace' id")
            continue
        trace_id = str(trace_id)
        kind = event["type"]
        entry = get(trace_id, line)
        trace = entry.trace
        if kind == "trace":
            if isinstance(event.get("metadata"), dict):
                trace.metadata.update(event["metadata"])
            if isinstance(event.get("source_format"), str):
                trace.format = event["source_format"]
        elif kind == "labels":
            labels = event.get("labels")
            if not isinstance(labels, dict):
                ctx.warn(line, f"trace {trace_id}: 'labels' must be an object")
                continue
            for key, value in labels.items():
                trace.labels[str(key)] = str(value)
            outcome = trace.labels.get("outcome")
            if outcome is not None and outcome not in OUTCOMES:
                ctx.warn(line, f"trace {trace_id}: outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
        elif kind == "expect":
            guard = event.get("guard")
            by_round = event.get("by_round")
            if not isinstance(guard, str) or not guard:
                ctx.warn(line, f"trace {trace_id}: 'expect' needs a 'guard' (code or name)")
                continue
            if by_round is not None and (not isinstance(by_round, int) or by_round < 1):
                ctx.warn(line, f"trace {trace_id}: 'by_round' must be a positive integer")
                continue
            trace.expectations.append(
                Expectation(guard=guard, fires=bool(event.get("fires", True)), by_round=by_round, note=event.get("note"))
            )
        elif kind == "round":
            _read_round(entry, event, line, ctx)
        elif kind == "result":
            _read_result(entry, event, line, ctx)
        elif kind == "end":
            if event.get("error") is not None:
                trace.error = str(event["error"])
            usage = _usage(event.get("usage"))
            if usage is not None:
                trace.usage_total = usage
            finished.add(trace_id)
            yield close(trace_id)
    for trace_id in list(open_traces):
        yield close(trace_id)


def _read_round(entry: _Open, event: dict, line: int, ctx: ReadContext) -> None:
    trace = entry.trace
    number = len(trace.rounds) + 1
    given = event.get("round")
    if given is not None and given != number:
        ctx.warn(line, f"trace {trace.id}: round numbered {given!r} is round {number} in file order")
    calls = event.get("tool_calls") or []
    if not isinstance(calls, list):
        ctx.warn(line, f"trace {trace.id}: 'tool_calls' must be a list")
        calls = []
    rnd = Round(
        index=number,
        text=content_text(event.get("text")),
        usage=_usage(event.get("usage")),
        started_at=parse_time(event.get("started_at")),
        ended_at=parse_time(event.get("ended_at")),
        finish_reason=event.get("finish_reason"),
        line=line,
        id=event.get("id"),
        model=event.get("model"),
    )
    for spec in calls:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            ctx.warn(line, f"trace {trace.id}: a tool call needs at least a 'name'")
            continue
        if isinstance(spec.get("input"), str) and "arguments" not in spec:
            # A text action's input (ReAct "Action Input:"), not JSON arguments.
            call = ToolCall(id=str(spec.get("id") or ""), name=spec["name"], arguments_raw=spec["input"], arguments=spec["input"])
        else:
            call = new_call(spec.get("id"), spec["name"], spec.get("arguments"))
        if not call.id:
            call.id = f"r{number}.c{len(rnd.tool_calls) + 1}"
        if call.id in entry.pending:
            ctx.warn(line, f"trace {trace.id}: call id {call.id!r} reused before its result arrived")
        entry.pending[call.id] = call
        rnd.tool_calls.append(call)
    trace.rounds.append(rnd)


def _read_result(entry: _Open, event: dict, line: int, ctx: ReadContext) -> None:
    trace = entry.trace
    call_id = event.get("call_id")
    call = entry.pending.pop(str(call_id), None) if call_id is not None else None
    if call is None:
        ctx.warn(line, f"trace {trace.id}: result for unknown call id {call_id!r}")
        return
    is_error = event.get("is_error")
    call.result = ToolResult(
        content=content_text(event.get("content")),
        is_error=is_error if isinstance(is_error, bool) else None,
        started_at=parse_time(event.get("started_at")),
        ended_at=parse_time(event.get("ended_at")),
        line=line,
    )
