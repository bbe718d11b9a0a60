"""tracecheck's own JSONL format: one event per line, grouped into traces by ``trace``.

Checked against tracecheck's own ``format_version`` 1 (``tracecheck schema native``).

Events (see the README and ``tracecheck schema native``):

- ``trace``   optional header: ``format_version``, ``source_format``, ``metadata``
- ``labels``  ``labels``: {"outcome": "success"|"failure"|"unknown", ...}
- ``expect``  ``guard``, ``fires`` (default true), ``by_round``, ``note``, ``tolerance``
- ``allow``   ``guard``, ``reason``, ``round``: a finding ``check`` accepts
- ``user``    what the user said (``text``, ``at``): it opens a conversation turn
- ``round``   one model response: ``text``, ``tool_calls`` [{id, name, arguments}],
              ``usage``, ``started_at``, ``ended_at``, ``finish_reason``, ``model``, ``id``,
              ``forced`` (the final answer a guard's stop forced in a live run)
- ``result``  ``call_id``, ``content``, ``is_error``, ``started_at``, ``ended_at``,
              ``blocked`` (a guard refused the call in a live run)
- ``end``     the run is over: ``error`` (ended without an answer), ``ending`` (how it
              ended: answered, submitted, limit, error), ``usage`` (run total)

Outcome: the ``outcome`` label as written (the file's author is the grader); nothing
else sets it. Ending: ``end.ending``; else ``answered`` when the last round has no tool
calls; an ``end.error`` alone leaves it unknown (it may have been a limit or an error).

Traces may interleave (several agents appending to one file). A trace is complete at
its ``end`` event or at the end of the file.

Annotations after ``end``: ``labels``, ``expect`` and ``allow`` say something about a run
rather than being part of it, so they may be appended once it is over (a grader's
outcome, an accepted finding). One that comes after its trace's ``end`` (same ``trace``
id) annotates that trace as long as only ``end`` events and annotations lie between
(so a file's trailing block of annotations applies, whatever the order of its traces'
ends). The trace is handed on when anything else comes (a ``trace``, ``user``, ``round``
or ``result`` event), which keeps reading a stream of traces in bounded memory; after
that, an event with its id starts a new trace with the same id, with a warning, as any
other event after ``end`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import ENDINGS, OUTCOMES, Allowance, Expectation, Round, ToolCall, ToolResult, Trace, Usage
from ..input.sources import Record
from .contract import ReadContext
from .common import (
    Counts,
    Warn,
    brief,
    content_text,
    failure,
    finish_trace,
    new_call,
    parse_time,
    scalar_text,
)

FORMAT = "native"


class _Open:
    __slots__ = ("trace", "pending")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.pending: dict[str, ToolCall] = {}


def _usage(value: Any, warn: Warn):
    if value is None:
        return None
    if not isinstance(value, dict):
        warn(f"'usage' must be an object, not {brief(value)}; ignored")
        return None
    usage = Usage(*Counts(value, warn).each("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"))
    return None if usage.is_empty() else usage


def _warner(ctx: ReadContext, line: int, trace_id: str) -> Warn:
    return lambda reason: ctx.warn(line, f"trace {trace_id}: {reason}")


ANNOTATIONS = ("labels", "expect", "allow")  # about a run, not part of it: may follow its 'end'


NATIVE_EVENT_TYPES = ("trace", "labels", "expect", "allow", "user", "round", "result", "end")


def sniff(value: Any) -> bool:
    return isinstance(value, dict) and "trace" in value and value.get("type") in NATIVE_EVENT_TYPES


def cut_before(value: Any) -> bool:
    """``--jobs`` may cut a file before a ``trace`` header, where a run starts (``convert``
    and the recorder write one). Traces may interleave, so a cut is checked after
    reading: a trace still open at its end (or its id on both sides) has the file read
    whole."""
    return isinstance(value, dict) and value.get("type") == "trace"


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    open_traces: dict[str, _Open] = {}
    finished: set[str] = set()
    # Ended traces not handed on yet: annotations appended after their 'end' still apply.
    ended: dict[str, Trace] = {}
    ready: list[Trace] = []

    def get(trace_id: str, line: int, kind: str) -> _Open:
        entry = open_traces.get(trace_id)
        if entry is None:
            if trace_id in finished:
                hint = " (an annotation applies to an ended trace only before other events than 'end' and annotations follow)" if kind in ANNOTATIONS else ""
                ctx.warn(line, f"trace {trace_id}: event after its 'end' event starts a new trace with the same id{hint}")
                finished.discard(trace_id)
            entry = _Open(Trace(id=trace_id, format=FORMAT, file=ctx.file, line=line))
            open_traces[trace_id] = entry
        entry.trace.end_line = line
        return entry

    def close(trace_id: str) -> Trace:
        entry = open_traces.pop(trace_id)
        return finish_trace(entry.trace, ctx.diagnostics)

    def event(value: Any, line: int) -> None:
        """Read one event; traces it completes go to ``ready``."""
        if not isinstance(value, dict) or value.get("type") not in NATIVE_EVENT_TYPES:
            ctx.warn(line, "not a tracecheck event (expected an object with 'type' one of: " + ", ".join(NATIVE_EVENT_TYPES) + ")")
            return
        trace_id = value.get("trace")
        if not isinstance(trace_id, (str, int)) or isinstance(trace_id, bool) or trace_id == "":
            ctx.warn(line, "event without a 'trace' id")
            return
        trace_id = str(trace_id)
        kind = value["type"]
        warn = _warner(ctx, line, trace_id)
        if kind in ANNOTATIONS and trace_id in ended:
            ended[trace_id].end_line = line
            _annotate(ended[trace_id], kind, value, line, warn)
            return
        if kind not in ANNOTATIONS and (kind != "end" or trace_id in ended):
            # Part of a run: the ended traces are complete (another's 'end' is no such part).
            ready.extend(ended.values())
            ended.clear()
        entry = get(trace_id, line, kind)
        trace = entry.trace
        if kind == "trace":
            if isinstance(value.get("metadata"), dict):
                trace.metadata.update(value["metadata"])
            if isinstance(value.get("source_format"), str):
                trace.format = value["source_format"]
        elif kind in ANNOTATIONS:
            _annotate(trace, kind, value, line, warn)
        elif kind == "user":
            text = value.get("text")
            if not isinstance(text, str):
                warn("'user' needs a 'text' (what the user said)")
                return
            trace.add_user_message(text, at=parse_time(value.get("at"), warn, "at"), line=line)
        elif kind == "round":
            _read_round(entry, value, line, warn)
        elif kind == "result":
            _read_result(entry, value, line, warn)
        elif kind == "end":
            if value.get("error") is not None:
                trace.error = scalar_text(value["error"])
            ending = value.get("ending")
            if ending is not None:
                if ending in ENDINGS:
                    trace.ending = ending
                else:
                    warn(f"ending {brief(ending)} is not one of {', '.join(ENDINGS)}")
            usage = _usage(value.get("usage"), warn)
            if usage is not None:
                trace.usage_total = usage
            finished.add(trace_id)
            ended[trace_id] = close(trace_id)

    for record in records:
        try:
            event(record.value, record.line)
        except Exception as exc:  # noqa: BLE001 - a bug on one odd event must not cost the rest of the file
            ctx.warn(record.line, f"could not read this event ({failure(exc)})")
        yield from ready
        ready.clear()
    yield from ended.values()
    if ctx.cut_after and open_traces:
        ctx.broken = f"trace {next(iter(open_traces))} is open at the cut"
    for trace_id in list(open_traces):
        yield close(trace_id)


def _annotate(trace: Trace, kind: str, value: dict, line: int, warn: Warn) -> None:
    """Apply a ``labels``, ``expect`` or ``allow`` event to ``trace``."""
    if kind == "labels":
        labels = value.get("labels")
        if not isinstance(labels, dict):
            warn("'labels' must be an object")
            return
        for key, label in labels.items():
            trace.labels[str(key)] = scalar_text(label)
        outcome = trace.labels.get("outcome")
        if outcome is not None and outcome not in OUTCOMES:
            warn(f"outcome {brief(outcome)} is not one of {', '.join(OUTCOMES)}")
    elif kind == "expect":
        guard = value.get("guard")
        by_round = value.get("by_round")
        if not isinstance(guard, str) or not guard:
            warn("'expect' needs a 'guard' (code or name)")
            return
        if by_round is not None and (not isinstance(by_round, int) or isinstance(by_round, bool) or by_round < 1):
            warn("'by_round' must be a positive integer")
            return
        fires = value.get("fires", True)
        if not isinstance(fires, bool):
            warn(f"'fires' must be true or false, not {fires!r}")  # "false" as a string would read as true
            return
        note = value.get("note")
        tolerance = value.get("tolerance", 0)
        if not isinstance(tolerance, int) or isinstance(tolerance, bool) or tolerance < 0:
            warn("'tolerance' must be a whole number of rounds (0 or more)")
            return
        trace.expectations.append(
            Expectation(
                guard=guard,
                fires=fires,
                by_round=by_round,
                note=None if note is None else scalar_text(note),
                tolerance=tolerance,
                line=line,
            )
        )
    elif kind == "allow":
        guard, reason, at_round = value.get("guard"), value.get("reason"), value.get("round")
        if not isinstance(guard, str) or not guard:
            warn("'allow' needs a 'guard' (code, name, or policy)")
            return
        if not isinstance(reason, str) or not reason.strip():
            warn("'allow' needs a 'reason': why this guard may act here")
            return
        if at_round is not None and (not isinstance(at_round, int) or isinstance(at_round, bool) or at_round < 1):
            warn("'round' must be a positive integer")
            return
        trace.allowances.append(Allowance(guard=guard, reason=scalar_text(reason), round=at_round, line=line))


def _text_fields(event: dict, keys: tuple[str, ...], warn: Warn) -> list[str | None]:
    """String fields (finish_reason, id, model); a number is taken as its text, any other
    value is reported and unknown."""
    values: list[str | None] = []
    for key in keys:
        value = event.get(key)
        if not (value is None or isinstance(value, str)):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)
            else:
                warn(f"'{key}' must be a string, not {brief(value)}; ignored")
                value = None
        values.append(value)
    return values


def _read_round(entry: _Open, event: dict, line: int, warn: Warn) -> None:
    trace = entry.trace
    number = len(trace.rounds) + 1
    given = event.get("round")
    if given is not None and given != number:
        warn(f"round numbered {brief(given)} is round {number} in file order")
    calls = event.get("tool_calls") or []
    if not isinstance(calls, list):
        warn("'tool_calls' must be a list")
        calls = []
    finish_reason, round_id, model = _text_fields(event, ("finish_reason", "id", "model"), warn)
    rnd = Round(
        index=number,
        text=content_text(event.get("text")),
        usage=_usage(event.get("usage"), warn),
        started_at=parse_time(event.get("started_at"), warn, "started_at"),
        ended_at=parse_time(event.get("ended_at"), warn, "ended_at"),
        finish_reason=finish_reason,
        line=line,
        id=round_id,
        model=model,
        forced=event.get("forced") is True,
    )
    for spec in calls:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            warn("a tool call needs at least a 'name'")
            continue
        if isinstance(spec.get("input"), str) and "arguments" not in spec:
            # A text action's input (ReAct "Action Input:"), not JSON arguments.
            call = ToolCall(id=scalar_text(spec.get("id")), name=spec["name"], arguments_raw=spec["input"], arguments=spec["input"])
        else:
            call = new_call(spec.get("id"), spec["name"], spec.get("arguments"))
        if not call.id:
            call.id = f"r{number}.c{len(rnd.tool_calls) + 1}"
        if call.id in entry.pending:
            warn(f"call id {brief(call.id)} reused before its result arrived")
        entry.pending[call.id] = call
        rnd.tool_calls.append(call)
    trace.rounds.append(rnd)


def _read_result(entry: _Open, event: dict, line: int, warn: Warn) -> None:
    call_id = event.get("call_id")
    call = entry.pending.pop(scalar_text(call_id), None) if call_id is not None else None
    if call is None:
        warn(f"result for unknown call id {brief(call_id)}")
        return
    is_error = event.get("is_error")
    call.result = ToolResult(
        content=content_text(event.get("content")),
        is_error=is_error if isinstance(is_error, bool) else None,
        started_at=parse_time(event.get("started_at"), warn, "started_at"),
        ended_at=parse_time(event.get("ended_at"), warn, "ended_at"),
        line=line,
        blocked=event.get("blocked") is True,
        declined=event.get("declined") is True,
    )
