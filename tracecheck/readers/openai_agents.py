"""OpenAI Agents SDK traces: the ``trace`` / ``trace.span`` objects its tracing exports.

Input: JSON Lines of mixed ``{"object": "trace"}`` and ``{"object": "trace.span"}``
objects (what a ``TracingProcessor`` writing ``item.export()`` per line produces), a
captured ingest body ``{"data": [...]}`` (what the SDK POSTs to ``/v1/traces/ingest``),
or a JSON array of such objects. Spans are exported when they **end**, so children come
before their parents and several traces may interleave: objects are grouped by
``trace_id`` and each trace's spans are put in ``started_at`` order (file order breaks
ties). A trace is complete at the end of the file; past 256 open traces the least
recently seen one is finished early (its late spans are then reported, not read). A span
id seen twice is read once. Trace id: the SDK's ``trace_…`` id.

Rounds: one per model span, in start order:

- ``generation`` (Chat-Completions-backed models, LiteLLM): ``output`` holds the chat
  messages (text, ``tool_calls`` with their ids; Responses-style items are read too),
  ``usage`` {input_tokens, output_tokens, *_details}, ``model``. Round id = span id.
- ``response`` (Responses-backed models, the SDK default): only ``response_id`` (the
  round id) and, in newer versions, ``usage``. The prompt and the output are not
  exported, so such a round has no text and no calls of its own. The same holds for a
  ``generation`` span exported without its data (``trace_include_sensitive_data`` off).
  Such rounds are listed (1-based) in ``trace.metadata["rounds_without_content"]``: one
  that no tool span follows looks like a final answer but may have been a hosted tool
  call or an answer we cannot see.

User messages: a ``generation`` span exports the whole input it was sent (chat messages,
or Responses-style items). The user messages at the end of it, after the agent's last
message or tool output, are what the round answers: they are user messages placed
before it (their text) and open a turn; earlier ones are history (a chat that passes
``result.to_input_list()`` on resends every past turn), and the same ones again in the
next span's input are not counted twice. System and developer messages are not user
messages. ``response`` spans do not export their input, so a Responses-backed run has
no user messages. No time is read for them.

Tool executions: ``function`` spans carry no call id. Each is attached to the most recent
model span before it with the same parent span (else the most recent model span), and
paired with that round's unanswered calls by name and equal arguments, else by name.
A function span no call matches (always so after a ``response`` span) becomes a call of
that round with a synthesized id. ``input`` is the raw argument string; ``output`` is
``str(result)`` (a Python repr for dicts) and is kept as text. A span ``error``
{message, data} makes the result an error (``is_error`` True; content = the output the
model was given, else the error message); no error → ``is_error`` False. Times of the
result are the span's. ``handoff`` spans answer the round's ``transfer_to_…`` call
(synthesized, named as the SDK names handoff tools, when the model span did not export
it) with the SDK's transfer message ``{"assistant": "<agent>"}``.

Not rounds: ``agent`` (names kept in ``metadata["agents"]``), ``guardrail`` (triggered
ones in ``metadata["guardrails_triggered"]``), ``custom`` (the newer per-run ``task`` and
per-loop ``turn`` spans give the run's usage, used as ``trace.usage_total`` only when
no model span carries usage), ``mcp_tools``, ``transcription``, ``speech``,
``speech_group``. The trace object's ``workflow_name`` and ``group_id`` go into
``trace.metadata``, its ``metadata`` into ``trace.metadata["trace_metadata"]``.

Ending: an error on an ``agent`` span or on the ``task`` span (the run raised: max
turns exceeded, a guardrail tripwire, a tool error with no error handler) — else on the
last model span — becomes ``trace.error``, with ``ending="limit"`` for
``MaxTurnsExceeded`` and ``"error"`` otherwise; a last response without tool calls is
``answered``.

Outcome: never set: the format carries no grade (an error is how the run ended, not a
verdict); a labels file gives one.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item, read_with_reader
from .common import (
    Counts,
    Warn,
    as_list,
    as_str,
    brief,
    content_text,
    dump_json,
    failure,
    finish_trace,
    make_usage,
    new_call,
    parse_arguments,
    parse_time,
    scalar_text,
    error_ending,
)
from .chat_messages import NewUserMessages, message_role_and_text

FORMAT = "openai-agents"

NO_SHAPE = "JSON that is not an Agents SDK trace or span"
_MAX_OPEN = 256
_MODEL_SPANS = ("generation", "response")
_IGNORED_SPANS = ("mcp_tools", "transcription", "speech", "speech_group")


def sniff(value: Any) -> bool:
    item = first_item(value)
    if isinstance(item, dict) and isinstance(item.get("data"), list):  # a captured ingest POST body
        item = first_item(item["data"])
    return isinstance(item, dict) and item.get("object") in ("trace", "trace.span")


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


# --- helpers ---------------------------------------------------------------------------


def _details(counts: Counts, key: str) -> Counts:
    # Span usage details are a dict; some SDK serialisations wrap them in a list.
    value = counts.obj.get(key)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = value[0]
    return Counts(value, counts.warn, f"{counts.path}.{key}")


def _usage(value: Any, warn: Warn | None = None):
    if not isinstance(value, dict):
        return None
    counts = Counts(value, warn)
    cached = _details(counts, "input_tokens_details").get("cached_tokens")
    if cached is None:
        cached = counts.get("cached_input_tokens")
    return make_usage(
        counts.get("input_tokens", "prompt_tokens"),
        counts.get("output_tokens", "completion_tokens"),
        cached,
        _details(counts, "output_tokens_details").get("reasoning_tokens"),
    )


def _error_text(error: Any) -> str | None:
    """``{"message", "data"}`` → "message: detail" (detail = data.error, else data as JSON)."""
    if error is None or error is False or error in ("", {}, []):
        return None
    if isinstance(error, str):
        return error
    if not isinstance(error, dict):
        return dump_json(error)
    message = as_str(error.get("message")) or "error"
    data = error.get("data")
    if isinstance(data, dict) and as_str(data.get("error")):
        return f"{message}: {data['error']}"
    if data not in (None, {}, [], ""):
        return f"{message} {dump_json(data)}"
    return message


def _canonical(arguments: Any) -> str:
    raw, parsed, error = parse_arguments(arguments)
    if error is not None:
        return raw.strip()
    return dump_json(parsed, sort_keys=True)


def _handoff_tool_name(agent: str | None) -> str:
    # The SDK's default: transfer_to_<agent name> in snake case.
    if not agent:
        return "handoff"
    return re.sub(r"[^0-9a-zA-Z_]", "_", f"transfer_to_{agent}".replace(" ", "_")).lower()


class _Span:
    __slots__ = ("id", "parent", "type", "data", "started", "ended", "error", "line", "order")

    def __init__(self, obj: dict, data: dict, line: int, order: int, warn: Warn) -> None:
        self.id = scalar_text(obj.get("id")) or f"line{line}#{order}"
        self.parent = as_str(obj.get("parent_id"))
        self.type = data["type"]
        self.data = data
        self.started = parse_time(obj.get("started_at"), warn, "started_at")
        self.ended = parse_time(obj.get("ended_at"), warn, "ended_at")
        self.error = obj.get("error") if obj.get("error") not in (None, {}) else None
        self.line = line
        self.order = order

    def sort_key(self) -> tuple[float, int]:
        moment = self.started if self.started is not None else self.ended
        return (moment if moment is not None else float("inf"), self.order)


class _Pending:
    """Everything read so far for one trace id."""

    __slots__ = ("trace_id", "line", "end_line", "header", "spans")

    def __init__(self, trace_id: str, line: int) -> None:
        self.trace_id = trace_id
        self.line = line
        self.end_line = line
        self.header: dict | None = None
        self.spans: dict[str, _Span] = {}


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.open: OrderedDict[str, _Pending] = OrderedDict()
        self.finished: set[str] = set()
        self.count = 0  # file order of spans, for stable sorting

    def record(self, value: Any, line: int) -> Iterator[Trace]:
        if isinstance(value, dict) and "object" not in value and isinstance(value.get("data"), list):
            value = value["data"]  # a captured ingest body
        if isinstance(value, list):
            for number, item in enumerate(value):
                yield from self.item(item, line, number)
        else:
            yield from self.item(value, line, None)

    def item(self, obj: Any, line: int, number: int | None) -> Iterator[Trace]:
        where = "" if number is None else f" (element {number})"
        kind = obj.get("object") if isinstance(obj, dict) else None
        if kind not in ("trace", "trace.span"):
            self.ctx.warn(line, NO_SHAPE + where)
            return
        trace_id = as_str(obj.get("id") if kind == "trace" else obj.get("trace_id"))
        if trace_id is None:
            self.ctx.warn(line, f"{'trace without an id' if kind == 'trace' else 'span without a trace_id'}{where}; skipped")
            return
        if trace_id in self.finished:
            reason = f"trace {trace_id}: {kind} after the trace was finished (more than {_MAX_OPEN} traces open at once); skipped"
            self.ctx.warn(line, reason)
            return
        pending = self.open.get(trace_id)
        if pending is None:
            pending = self.open[trace_id] = _Pending(trace_id, line)
        else:
            self.open.move_to_end(trace_id)
        pending.end_line = max(pending.end_line, line)
        if kind == "trace":
            pending.header = obj
        else:
            data = obj.get("span_data")
            if not isinstance(data, dict) or not as_str(data.get("type")):
                self.ctx.warn(line, f"trace {trace_id}: span {brief(obj.get('id'))} without span_data.type{where}; skipped")
            else:
                self.count += 1
                span = _Span(obj, data, line, self.count, lambda reason: self.ctx.warn(line, f"trace {trace_id}: {reason}"))
                pending.spans.setdefault(span.id, span)  # a span exported twice counts once
        while len(self.open) > _MAX_OPEN:
            _, oldest = self.open.popitem(last=False)
            self.finished.add(oldest.trace_id)
            yield from self.build(oldest)

    def close(self) -> Iterator[Trace]:
        pending = sorted(self.open.values(), key=lambda p: p.line)
        self.open.clear()
        for entry in pending:
            yield from self.build(entry)

    # --- one trace -------------------------------------------------------------------

    def build(self, pending: _Pending) -> Iterator[Trace]:
        try:
            yield self.assemble(pending)
        except Exception as exc:  # noqa: BLE001 - a bug on one odd trace must not cost the others
            self.ctx.warn(pending.line, f"trace {pending.trace_id}: could not read this trace ({failure(exc)})")

    def assemble(self, pending: _Pending) -> Trace:
        trace = Trace(id=pending.trace_id, format=FORMAT, file=self.ctx.file, line=pending.line, end_line=pending.end_line)
        header = pending.header or {}
        for key in ("workflow_name", "group_id"):
            if as_str(header.get(key)):
                trace.metadata[key] = header[key]
        if isinstance(header.get("metadata"), dict) and header["metadata"]:
            trace.metadata["trace_metadata"] = dict(header["metadata"])
        _Builder(trace, self.ctx).run(sorted(pending.spans.values(), key=_Span.sort_key))
        return finish_trace(trace, self.ctx.diagnostics)


class _Builder:
    def __init__(self, trace: Trace, ctx: ReadContext) -> None:
        self.trace = trace
        self.ctx = ctx
        self.by_parent: dict[str | None, Round] = {}  # latest model round under each parent
        self.last: Round | None = None
        self.last_span: _Span | None = None
        self.no_content: list[Round] = []
        self.agents: list[str] = []
        self.guardrails: list[str] = []
        self.run_error: str | None = None
        self.task_usage = None
        self.turn_usages: list = []
        self.unknown: set[str] = set()
        self.users = NewUserMessages()

    def warn(self, span: _Span, reason: str) -> None:
        self.ctx.warn(span.line, f"trace {self.trace.id}: {reason}")

    def run(self, spans: list[_Span]) -> None:
        for span in spans:
            kind = span.type
            if kind in _MODEL_SPANS:
                self.model_span(span)
            elif kind == "function":
                self.function_span(span)
            elif kind == "handoff":
                self.handoff_span(span)
            elif kind == "agent":
                name = as_str(span.data.get("name"))
                if name and name not in self.agents:
                    self.agents.append(name)
                if span.error is not None:
                    self.run_error = _error_text(span.error)
            elif kind == "guardrail":
                if span.data.get("triggered") is True and as_str(span.data.get("name")):
                    self.guardrails.append(span.data["name"])
            elif kind == "custom":
                self.custom_span(span)
            elif kind not in _IGNORED_SPANS and kind not in self.unknown:
                self.unknown.add(kind)
                self.warn(span, f"span type {brief(kind)} is not known; such spans are skipped")
        self.finish()

    def model_span(self, span: _Span) -> None:
        data = span.data
        rnd = Round(
            index=len(self.trace.rounds) + 1,
            usage=_usage(data.get("usage"), lambda reason: self.warn(span, reason)),
            started_at=span.started,
            ended_at=span.ended,
            line=span.line,
            id=span.id,
            model=as_str(data.get("model")),
        )
        if span.type == "response":
            rnd.id = as_str(data.get("response_id")) or span.id
            self.no_content.append(rnd)
        elif data.get("output") is None:
            self.no_content.append(rnd)
        else:
            self.generation_output(rnd, data.get("output"), span)
        if span.error is not None:
            rnd.finish_reason = "error"
        if span.type == "generation":
            for text in self.users.take(as_list(data.get("input")), message_role_and_text):
                self.trace.add_user_message(text, line=span.line)
        self.trace.rounds.append(rnd)
        self.by_parent[span.parent] = rnd
        self.last = rnd
        self.last_span = span

    def generation_output(self, rnd: Round, output: Any, span: _Span) -> None:
        messages = output if isinstance(output, list) else [output]
        texts = []
        for message in messages:
            if not isinstance(message, dict):
                continue
            kind = message.get("type")
            if kind == "function_call":  # Responses-style items
                rnd.tool_calls.append(new_call(message.get("call_id"), message.get("name"), message.get("arguments")))
                continue
            text = content_text(message.get("content"))
            if not text and as_str(message.get("refusal")):
                text = message["refusal"]
            if text:
                texts.append(text)
            calls = message.get("tool_calls")
            for item in calls if isinstance(calls, list) else ():
                function = item.get("function") if isinstance(item, dict) else None
                if not isinstance(function, dict) or not as_str(function.get("name")):
                    self.warn(span, "tool call without a function name skipped")
                    continue
                rnd.tool_calls.append(new_call(item.get("id"), function["name"], function.get("arguments")))
        rnd.text = "\n".join(texts)

    def owner(self, span: _Span, what: str) -> Round | None:
        rnd = self.by_parent.get(span.parent) or self.last
        if rnd is None:
            self.warn(span, f"{what} span {span.id} runs before any model span; skipped")
        return rnd

    def function_span(self, span: _Span) -> None:
        rnd = self.owner(span, "function")
        if rnd is None:
            return
        name = as_str(span.data.get("name")) or "function"
        arguments = span.data.get("input")
        waiting = [c for c in rnd.tool_calls if c.result is None and c.name == name]
        call = None
        if waiting:
            wanted = _canonical(arguments)
            call = next((c for c in waiting if _canonical(c.arguments_raw) == wanted), waiting[0])
        if call is None:
            # No exported call to match (a response-backed model): the round asked for it.
            call = new_call(None, name, arguments if arguments is not None else "")
            rnd.tool_calls.append(call)
        output = span.data.get("output")
        content = output if isinstance(output, str) else ("" if output is None else dump_json(output))
        if span.error is not None and output is None:
            content = _error_text(span.error) or ""
        call.result = ToolResult(
            content=content,
            is_error=span.error is not None,
            started_at=span.started,
            ended_at=span.ended,
            line=span.line,
        )

    def handoff_span(self, span: _Span) -> None:
        rnd = self.owner(span, "handoff")
        if rnd is None:
            return
        target = as_str(span.data.get("to_agent"))
        expected = _handoff_tool_name(target)
        waiting = [c for c in rnd.tool_calls if c.result is None]
        call = next((c for c in waiting if c.name == expected), None) or next(
            (c for c in waiting if c.name.startswith("transfer_to")), None
        )
        if call is None:
            call = new_call(None, expected, "")
            rnd.tool_calls.append(call)
        call.result = ToolResult(
            content=dump_json({"assistant": target}) if target else (_error_text(span.error) or ""),
            is_error=span.error is not None,
            started_at=span.started,
            ended_at=span.ended,
            line=span.line,
        )

    def custom_span(self, span: _Span) -> None:
        data = span.data.get("data")
        kind = data.get("sdk_span_type") if isinstance(data, dict) else None
        if kind == "task":
            self.task_usage = _usage(data.get("usage"), lambda reason: self.warn(span, reason)) or self.task_usage
            if span.error is not None:
                self.run_error = _error_text(span.error)
        elif kind == "turn":
            usage = _usage(data.get("usage"), lambda reason: self.warn(span, reason))
            if usage is not None:
                self.turn_usages.append(usage)

    def finish(self) -> None:
        trace = self.trace
        if self.agents:
            trace.metadata["agents"] = self.agents
        if self.guardrails:
            trace.metadata["guardrails_triggered"] = self.guardrails
        # Rounds whose content was not exported (by identity: rounds compare by value).
        hidden = {id(rnd) for rnd in self.no_content}
        blind = [number for number, rnd in enumerate(trace.rounds, 1) if id(rnd) in hidden]
        if blind:
            trace.metadata["rounds_without_content"] = blind
        if not any(rnd.usage is not None for rnd in trace.rounds):
            if self.task_usage is not None:
                trace.usage_total = self.task_usage
            elif self.turn_usages:
                trace.usage_total = make_usage(
                    *(
                        sum(getattr(u, field) for u in self.turn_usages)
                        if all(getattr(u, field) is not None for u in self.turn_usages)
                        else None
                        for field in ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")
                    )
                )
        error = self.run_error
        if error is None and self.last_span is not None and self.last_span.error is not None:
            error = _error_text(self.last_span.error)
        if error is not None:
            trace.error = error
            trace.ending = error_ending(error)  # MaxTurnsExceeded is a limit; no grade either way
