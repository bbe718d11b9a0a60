"""OpenTelemetry traces as OTLP/JSON, with GenAI semantic-convention or OpenInference attributes.

Checked against the GenAI semantic conventions v1.26 to v1.36 (content in span events)
and the later content attributes (schema URL 1.37.0), OpenLLMetry
(``opentelemetry.instrumentation.openai.v1`` 0.33.9) and OpenInference
(``openinference.instrumentation.langchain`` 0.1.43) attributes (hand-made fixtures).

Input: what the collector's file exporter writes, one ``ExportTraceServiceRequest``
``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}`` per line
(older ``instrumentationLibrarySpans`` too; a JSON array of requests is read element by
element). The spans of one trace may be spread over several lines in any order: spans
are grouped by ``traceId`` (= the trace id) once the file is read, ordered by
``startTimeUnixNano``, and traces are yielded in order of their first line. A span id
seen twice is read once. The whole file is read before the first trace is yielded, since
any line may still add a span to any trace. Traces with no GenAI, OpenInference or OpenLLMetry attribute at
all (plain HTTP/DB traces) are skipped with one summary warning.

Attribute values are OTLP ``AnyValue`` objects (``stringValue``, ``intValue`` as a string
or number, ``doubleValue``, ``boolValue``, ``arrayValue.values``, ``kvlistValue.values``,
``bytesValue``); a bad one (an ``intValue`` that is no integer, ...) is warned about
and ignored. Structured values (messages, tool arguments and results) may be a JSON
string or an ``arrayValue``/``kvlistValue``: both are read.

Rounds (one per inference span):

- GenAI: ``gen_ai.operation.name`` ``chat`` / ``text_completion`` / ``generate_content``
  (older spans without an operation name: ``llm.request.type`` chat/completion, or
  ``gen_ai.system`` with a model); OpenInference: ``openinference.span.kind = LLM``.
- Content, the first found of: ``gen_ai.output.messages`` (parts ``text`` and
  ``tool_call`` {id, name, arguments}); span events ``gen_ai.choice`` (body in the
  event's attributes or its ``gen_ai.event.content`` JSON: ``message.content`` and
  ``message.tool_calls``); the event ``gen_ai.content.completion`` (attribute
  ``gen_ai.completion``); OpenLLMetry's flat ``gen_ai.completion.{i}.content`` /
  ``.tool_calls.{j}.id|name|arguments``; OpenInference
  ``llm.output_messages.{i}.message.content|contents|tool_calls.{j}.tool_call.id|function.name|function.arguments``.
- Usage: ``gen_ai.usage.input_tokens``/``output_tokens`` (older ``prompt_tokens``/
  ``completion_tokens``), ``gen_ai.usage.cache_read.input_tokens`` (OpenLLMetry
  ``cache_read_input_tokens``), reasoning tokens where given; OpenInference
  ``llm.token_count.prompt|completion``, ``.prompt_details.cache_read``,
  ``.completion_details.reasoning``. Round id: ``gen_ai.response.id``, else the span id.
- An inference span with status ERROR and neither output nor usage is no round: the
  call failed, no model response exists.
- ``invoke_agent``/``create_agent``/CHAIN/AGENT spans are not rounds and their usage is
  never summed; when no round has usage, the root span's own usage becomes
  ``trace.usage_total``.

Tool executions: GenAI ``execute_tool`` spans (``gen_ai.tool.name``,
``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``/``result``), OpenInference TOOL
spans (``tool.name``, ``tool.id``, ``input.value``, ``output.value``: the LangChain
instrumentor stores a serialized ToolMessage there, whose ``content``, ``status`` and
``tool_call_id`` are unwrapped), OpenLLMetry ``traceloop.span.kind = tool`` spans
(``traceloop.entity.name|input|output``). ``is_error``: span status code 2 (ERROR), an
``error.type`` attribute, or a ToolMessage with ``status: "error"`` -> True; else False.
A tool span pairs with a call of an earlier round by its call id; one without a call id
pairs with the oldest unanswered call of the same name, else the oldest unanswered call
of the latest round.
A tool span that matches no call becomes a call of the latest round when that round
recorded no tool calls (content capture off, or a text agent); otherwise it is warned
about. Inference or tool spans nested inside a tool span (a sub-agent used as a tool)
and inference spans nested inside another inference span (two instrumentations of one
call) are not read as rounds of this trace.

Without tool spans, results come from the next request's history: ``gen_ai.input.messages``
``tool_call_response`` parts, ``gen_ai.tool.message`` events, OpenLLMetry
``gen_ai.prompt.{i}`` and OpenInference ``llm.input_messages.{i}`` tool messages, by call
id (``is_error`` None: history carries no status). Results for calls made before the
trace began (their assistant message is in that history too) are ignored.

User messages: every inference span records the history it was sent (in the first of
``gen_ai.input.messages``, the ``gen_ai.user.message``/``gen_ai.system.message``/...
events, ``gen_ai.prompt.{i}``, ``llm.input_messages.{i}``, ``gen_ai.content.prompt``).
The user messages at the end of it, after the agent's last message or tool result, are
what the round answers: they are user messages placed before it (text parts only) and
open a turn; earlier ones are history, and the same ones again in the next span's input
are not counted twice. System messages are not user messages. No time is read for them.

Times: ``startTimeUnixNano``/``endTimeUnixNano`` (ns). Metadata: ``service.name``,
``gen_ai.conversation.id`` or ``session.id`` (``conversation_id``), ``gen_ai.agent.name``,
the root span's name.

Ending: a root span (no parent in the trace) with status code 2 -> ``trace.error`` (the
status message, else ``error.type``) and ``ending="limit"`` when that names a
framework's limit (``GraphRecursionError``, ``MaxTurnsExceeded``, ...), else
``"error"``; a last response without tool calls is ``answered``.

Outcome: never set: the conventions define no grade (an error status is how the run
ended, not a verdict); a labels file gives one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item
from .common import (
    Counts,
    Warn,
    as_dict,
    as_int,
    as_list,
    as_str_or_int,
    brief,
    content_text,
    dump_json,
    failure,
    finish_trace,
    make_usage,
    new_call,
    parse_time,
    scalar_text,
    visible_text,
    error_ending,
)
from .chat_messages import NewUserMessages, message_role_and_text, parse_message
from .tool_runs import Linker, input_call

FORMAT = "otel"

_INFERENCE_OPS = ("chat", "text_completion", "generate_content", "completion")
_NOT_OTLP = "JSON that is not an OTLP/JSON trace export (no 'resourceSpans' list)"
_MARKERS = ("gen_ai.", "llm.", "openinference.", "traceloop.")
_MAX_NANOS = 253402214400 * 10**9  # common.MAX_TIME in nanoseconds
_MAX_VALUE_DEPTH = 64  # AnyValue nesting read; deeper is no attribute any instrumentation writes


def _structured_string(text: str) -> Any:
    """A JSON text decoded, or the text itself when it is not JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def _structured(value: Any) -> Any:
    """A structured attribute: a JSON string is decoded, an AnyValue list/kvlist is already."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("[", "{"):
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                return value
    return value


# --- decoding OTLP/JSON -------------------------------------------------------------------


class _Span:
    __slots__ = (
        "trace_id", "span_id", "parent_id", "name", "start_ns", "end_ns", "attrs", "events",
        "status_code", "status_message", "line", "seq", "service",
    )

    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    @property
    def started_at(self) -> float | None:
        return parse_time(self.start_ns) if self.start_ns else None

    @property
    def ended_at(self) -> float | None:
        return parse_time(self.end_ns) if self.end_ns else None


_STATUS_NAMES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2, "UNSET": 0, "OK": 1, "ERROR": 2}


class _Decoder:
    """Turns OTLP/JSON into spans; every malformed piece is a warning at its line."""

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.seq = 0

    def any_value(self, value: Any, warn, depth: int = 0) -> Any:
        if depth > _MAX_VALUE_DEPTH:
            warn(f"nests arrayValue/kvlistValue more than {_MAX_VALUE_DEPTH} levels deep; ignored")
            return None
        if not isinstance(value, dict):
            warn(f"is not an AnyValue object: {brief(value)}")
            return None
        if not value:
            return None  # an empty AnyValue: the attribute is set to nothing
        if "stringValue" in value:
            raw = value["stringValue"]
            return raw if isinstance(raw, str) else scalar_text(raw)
        if "intValue" in value:
            raw = value["intValue"]
            if isinstance(raw, int) and not isinstance(raw, bool):
                return raw
            if isinstance(raw, str):
                try:
                    return int(raw.strip())
                except ValueError:
                    pass
            warn(f"has a bad intValue {brief(raw)}; ignored")
            return None
        if "doubleValue" in value:
            raw = value["doubleValue"]
            if isinstance(raw, (int, float)) and not isinstance(raw, bool):
                return float(raw)
            if isinstance(raw, str):
                try:
                    return float(raw)
                except ValueError:
                    pass
            warn(f"has a bad doubleValue {brief(raw)}; ignored")
            return None
        if "boolValue" in value:
            raw = value["boolValue"]
            if isinstance(raw, bool):
                return raw
            if raw in ("true", "false"):
                return raw == "true"
            warn(f"has a bad boolValue {brief(raw)}; ignored")
            return None
        if "arrayValue" in value:
            return [self.any_value(v, warn, depth + 1) for v in as_list(as_dict(value["arrayValue"]).get("values"))]
        if "kvlistValue" in value:
            return self.key_values(as_dict(value["kvlistValue"]).get("values"), warn, depth + 1)
        if "bytesValue" in value:
            return value["bytesValue"]
        warn(f"has no known AnyValue field ({', '.join(sorted(map(str, value)))}); ignored")
        return None

    def key_values(self, items: Any, warn, depth: int = 0) -> dict:
        if isinstance(items, dict):  # lenient: a plain mapping instead of KeyValue pairs
            return dict(items)
        out: dict[str, Any] = {}
        for item in as_list(items):
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                warn(f"entry {brief(item)} is not a {{key, value}} pair; skipped")
                continue
            key = item["key"]
            out[key] = self.any_value(item.get("value"), lambda reason, key=key: warn(f"{brief(key)} {reason}"), depth)
        return out

    def _time(self, value: Any, what: str, where: str, line: int) -> int | None:
        if value is None or value == "" or value == 0 or value == "0":
            return None
        number = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().isascii() and len(value.strip()) <= 30:
            try:
                number = int(value.strip())
            except ValueError:
                pass
        # Positive nanoseconds before year 9999 are what exporters write: no need to ask.
        if number is not None and (0 < number < _MAX_NANOS or parse_time(number) is not None):
            return number
        self.ctx.warn(line, f"{where}: bad {what} {brief(value)}; ignored")
        return None

    def attributes(self, items: Any, where: str, line: int) -> dict:
        return self.key_values(items, lambda reason: self.ctx.warn(line, f"{where}: attribute {reason}"))

    def spans(self, value: Any, line: int) -> Iterator[_Span]:
        if isinstance(value, list):  # a JSON array of export requests
            for item in value:
                if isinstance(item, list):
                    self.ctx.warn(line, _NOT_OTLP)
                else:
                    yield from self.spans(item, line)
            return
        if not isinstance(value, dict) or not isinstance(value.get("resourceSpans"), list):
            self.ctx.warn(line, _NOT_OTLP)
            return
        for resource_spans in value["resourceSpans"]:
            if not isinstance(resource_spans, dict):
                self.ctx.warn(line, "resourceSpans entry that is not an object; skipped")
                continue
            resource = self.attributes(as_dict(resource_spans.get("resource")).get("attributes"), "resource", line)
            service = as_str_or_int(resource.get("service.name"))
            scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans"))
            for scope in as_list(scopes):
                for raw in as_list(as_dict(scope).get("spans")):
                    span = self.span(raw, line, service)
                    if span is not None:
                        yield span

    def span(self, raw: Any, line: int, service: str | None) -> _Span | None:
        if not isinstance(raw, dict):
            self.ctx.warn(line, "span that is not an object; skipped")
            return None
        trace_id, span_id = as_str_or_int(raw.get("traceId")), as_str_or_int(raw.get("spanId"))
        name = raw.get("name") if isinstance(raw.get("name"), str) else ""
        if trace_id is None or span_id is None:
            self.ctx.warn(line, f"span {brief(name)} without traceId or spanId; skipped")
            return None
        where = f"span {span_id} ({name})"
        span = _Span()
        span.trace_id, span.span_id = trace_id, span_id
        span.parent_id = as_str_or_int(raw.get("parentSpanId"))
        span.name = name
        span.start_ns = self._time(raw.get("startTimeUnixNano"), "startTimeUnixNano", where, line)
        span.end_ns = self._time(raw.get("endTimeUnixNano"), "endTimeUnixNano", where, line)
        span.attrs = self.attributes(raw.get("attributes"), where, line)
        for event in as_list(raw.get("events")):
            if isinstance(event, dict) and isinstance(event.get("name"), str):
                attrs = self.attributes(event.get("attributes"), f"{where} event {brief(event['name'])}", line)
                span.events.append((event["name"], attrs))
        status = as_dict(raw.get("status"))
        code = status.get("code", 0)
        span.status_code = _STATUS_NAMES.get(code, 0) if isinstance(code, str) else as_int(code) or 0
        span.status_message = as_str_or_int(status.get("message"))
        span.line = line
        span.seq = self.seq
        span.service = service
        self.seq += 1
        return span


# --- what a span is ------------------------------------------------------------------------


def _kind(span: _Span) -> str:
    """'round', 'tool' or 'other'."""
    attrs = span.attrs
    op = attrs.get("gen_ai.operation.name")
    oi = scalar_text(attrs.get("openinference.span.kind")).upper()
    if op == "execute_tool" or oi == "TOOL" or attrs.get("traceloop.span.kind") == "tool":
        return "tool"
    if op in _INFERENCE_OPS or oi == "LLM":
        return "round"
    if op is None and not oi:
        request_type = attrs.get("llm.request.type")
        if request_type is not None:
            return "round" if request_type in ("chat", "completion") else "other"
        if "gen_ai.system" in attrs and ("gen_ai.request.model" in attrs or "gen_ai.response.model" in attrs):
            return "round"  # semconv before gen_ai.operation.name existed
    return "other"


def _is_genai(span: _Span) -> bool:
    return any(key.startswith(_MARKERS) for key in span.attrs)


def _unflatten(attrs: dict, prefix: str) -> Any:
    """``prefix.0.a.b = v`` attributes as nested values (numeric keys become lists)."""
    root: dict = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        node = root
        parts = key[len(prefix):].split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node.setdefault(parts[-1], value)

    def listify(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        items = {k: listify(v) for k, v in node.items()}
        if items and all(k.isascii() and k.isdigit() and len(k) <= 18 for k in items):
            return [items[k] for k in sorted(items, key=int)]
        return items

    return listify(root)


def _event_body(attrs: dict) -> dict:
    """An event's body: its attributes, merged with a ``gen_ai.event.content`` JSON body."""
    body = {k: v for k, v in attrs.items() if k != "gen_ai.event.content"}
    content = _structured(attrs.get("gen_ai.event.content"))
    if isinstance(content, dict):
        body.update(content)
    return body


# --- messages --------------------------------------------------------------------------------


def _call_spec(spec: dict) -> ToolCall | None:
    """A tool call in any of the shapes the conventions use."""
    inner = spec.get("tool_call")
    if isinstance(inner, dict):  # OpenInference: tool_calls.{j}.tool_call.{id, function.*}
        spec = inner
    function = spec.get("function")
    if isinstance(function, dict):
        return new_call(spec.get("id"), function.get("name"), function.get("arguments"))
    if spec.get("name") is None:
        return None
    args = spec["arguments"] if "arguments" in spec else spec.get("args", spec.get("input"))
    return new_call(spec.get("id"), spec.get("name"), args)


def _message_content(message: dict) -> tuple[str, list[ToolCall]]:
    """Text and tool calls of one output message (semconv parts, or OpenAI-like fields)."""
    calls: list[ToolCall] = []
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                texts.append(content_text(part.get("content")))
            elif kind == "tool_call":
                call = _call_spec(part)
                if call is not None:
                    calls.append(call)
        return "\n".join(t for t in texts if t), calls
    content = message.get("content")
    if isinstance(content, dict) and isinstance(as_dict(content.get("text")).get("value"), str):
        text = content["text"]["value"]  # Azure AI Agents: {"text": {"value": ...}}
    elif content is None and isinstance(message.get("contents"), list):  # OpenInference
        text = "\n".join(
            t for t in (as_dict(as_dict(c).get("message_content")).get("text") for c in message["contents"]) if isinstance(t, str)
        )
    else:
        text = visible_text(content) if isinstance(content, (str, list)) else content_text(content)
    tool_calls = _structured(message.get("tool_calls"))
    for spec in as_list(tool_calls):
        if isinstance(spec, dict):
            call = _call_spec(spec)
            if call is not None:
                calls.append(call)
    if not calls and isinstance(message.get("function_call"), dict):
        legacy = message["function_call"]
        calls.append(new_call(None, legacy.get("name"), legacy.get("arguments")))
    return text, calls


class _Content:
    __slots__ = ("text", "calls", "finish_reason", "found")

    def __init__(self) -> None:
        self.text = ""
        self.calls: list[ToolCall] = []
        self.finish_reason: str | None = None
        self.found = False


def _pick(messages: list) -> dict | None:
    dicts = [m for m in messages if isinstance(m, dict)]
    for message in dicts:
        if message.get("role") in ("assistant", "model", None):
            return message
    return dicts[0] if dicts else None


def _output_content(span: _Span) -> _Content:
    attrs = span.attrs
    out = _Content()

    def take(message: Any, finish: Any = None) -> None:
        if isinstance(message, dict):
            out.text, out.calls = _message_content(message)
            out.finish_reason = as_str_or_int(finish) or as_str_or_int(message.get("finish_reason"))
            out.found = True

    messages = _structured(attrs.get("gen_ai.output.messages"))
    if isinstance(messages, list):
        take(_pick(messages))
        if out.found:
            return out
    choices = [_event_body(a) for name, a in span.events if name == "gen_ai.choice"]
    if choices:
        choices.sort(key=lambda body: as_int(body.get("index")) or 0)
        body = choices[0]
        message = _structured(body.get("message"))
        take(message if isinstance(message, dict) else body, body.get("finish_reason"))
        if out.found:
            return out
    for name, event_attrs in span.events:
        if name == "gen_ai.content.completion":
            completion = _structured(event_attrs.get("gen_ai.completion"))
            if isinstance(completion, list):
                take(_pick(completion))
            elif isinstance(completion, str):
                out.text, out.found = completion, True
            if out.found:
                return out
    flat = _unflatten(attrs, "gen_ai.completion.")
    if isinstance(flat, list) and flat:
        take(_pick(flat))
        if out.found:
            return out
    flat = _unflatten(attrs, "llm.output_messages.")
    if isinstance(flat, list) and flat:
        messages = [as_dict(m).get("message") for m in flat]
        take(_pick([m for m in messages if isinstance(m, dict)]))
    return out


def _history(span: _Span) -> tuple[list[tuple[str, str]], set[str]]:
    """Tool results in the request's history (call id, content) and the ids of the calls
    the history's assistant messages made."""
    results: list[tuple[str, str]] = []
    called: set[str] = set()

    def assistant_calls(message: dict) -> None:
        _, calls = _message_content(message)
        called.update(c.id for c in calls if c.id)

    messages = _structured(span.attrs.get("gen_ai.input.messages"))
    for message in as_list(messages):
        if not isinstance(message, dict):
            continue
        for part in as_list(message.get("parts")):
            if isinstance(part, dict) and part.get("type") == "tool_call_response" and as_str_or_int(part.get("id")):
                results.append((str(part["id"]), _text_value(part.get("response"))))
        if message.get("role") == "assistant":
            assistant_calls(message)
    for name, attrs in span.events:
        body = _event_body(attrs)
        if name == "gen_ai.tool.message":
            call_id = as_str_or_int(body.get("id")) or as_str_or_int(body.get("tool_call_id"))
            if call_id:
                results.append((call_id, _text_value(body.get("content"))))
        elif name == "gen_ai.assistant.message":
            assistant_calls(body)
    # Flat OpenAI-like message lists: OpenLLMetry's gen_ai.prompt.{i}.*, OpenInference's
    # llm.input_messages.{i}.message.*, semconv 1.26's gen_ai.content.prompt event JSON.
    flat: list = list(as_list(_unflatten(span.attrs, "gen_ai.prompt.")))
    flat.extend(as_dict(m).get("message") for m in as_list(_unflatten(span.attrs, "llm.input_messages.")))
    for name, attrs in span.events:
        if name == "gen_ai.content.prompt":
            flat.extend(as_list(_structured(attrs.get("gen_ai.prompt"))))
    for message in flat:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool" and as_str_or_int(message.get("tool_call_id")):
            content = message.get("content")
            results.append((str(message["tool_call_id"]), content if isinstance(content, str) else content_text(content)))
        elif role == "assistant":
            assistant_calls(message)
    return results, called


_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _input_messages(span: _Span) -> list:
    """The messages an inference span was sent, from whichever record of them it has:
    ``gen_ai.input.messages``, the ``gen_ai.*.message`` events, OpenLLMetry's flat
    ``gen_ai.prompt.{i}``, OpenInference's ``llm.input_messages.{i}``, or the
    ``gen_ai.content.prompt`` event."""
    messages = _structured(span.attrs.get("gen_ai.input.messages"))
    if isinstance(messages, list) and messages:
        return messages
    events = [
        {**_event_body(attrs), "role": _EVENT_ROLES[name]} for name, attrs in span.events if name in _EVENT_ROLES
    ]
    if events:
        return events
    flat = as_list(_unflatten(span.attrs, "gen_ai.prompt."))
    if flat:
        return flat
    flat = [as_dict(m).get("message") for m in as_list(_unflatten(span.attrs, "llm.input_messages."))]
    if flat:
        return flat
    for name, attrs in span.events:
        if name == "gen_ai.content.prompt":
            return as_list(_structured(attrs.get("gen_ai.prompt")))
    return []


def _usage(attrs: dict, warn: Warn | None = None):
    first = Counts(attrs, warn, path="").get
    return make_usage(
        first("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"),
        first("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"),
        first(
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
            "llm.token_count.prompt_details.cache_read",
        ),
        first(
            "gen_ai.usage.reasoning.output_tokens",
            "gen_ai.usage.reasoning_tokens",
            "llm.usage.reasoning_tokens",
            "llm.token_count.completion_details.reasoning",
        ),
    )


def _finish_reason(attrs: dict) -> str | None:
    reasons = _structured(attrs.get("gen_ai.response.finish_reasons"))
    if isinstance(reasons, list) and reasons:
        return as_str_or_int(reasons[0])
    return as_str_or_int(reasons)


def _round(span: _Span, content: _Content, warn: Warn) -> Round:
    attrs = span.attrs
    return Round(
        index=0,
        text=content.text,
        tool_calls=content.calls,
        usage=_usage(attrs, warn),
        started_at=span.started_at,
        ended_at=span.ended_at,
        finish_reason=_finish_reason(attrs) or content.finish_reason,
        line=span.line,
        id=as_str_or_int(attrs.get("gen_ai.response.id")) or span.span_id,
        model=(
            as_str_or_int(attrs.get("gen_ai.response.model"))
            or as_str_or_int(attrs.get("gen_ai.request.model"))
            or as_str_or_int(attrs.get("llm.model_name"))
        ),
    )


# --- tool spans ---------------------------------------------------------------------------------


def _text_value(value: Any) -> str:
    """Content as text: a string as it is, a structured (kvlist/array) value as JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else dump_json(value)


def _tool_output(value: Any) -> tuple[str, str | None, str | None]:
    """(content, ToolMessage status, ToolMessage call id) of a tool span's output value."""
    message = parse_message(_structured(value))
    if message is not None and message[0] == "tool":  # a serialized LangChain ToolMessage
        fields = message[1]
        return content_text(fields.get("content")), as_str_or_int(fields.get("status")), as_str_or_int(fields.get("tool_call_id"))
    return _text_value(value), None, None


def _tool(span: _Span) -> tuple[str, str | None, ToolResult, Any]:
    """(tool name, call id, result, arguments) of a tool span."""
    attrs = span.attrs
    if "gen_ai.tool.name" in attrs or attrs.get("gen_ai.operation.name") == "execute_tool":
        name = as_str_or_int(attrs.get("gen_ai.tool.name")) or re.sub(r"^execute_tool\s*", "", span.name)
        call_id = as_str_or_int(attrs.get("gen_ai.tool.call.id"))
        arguments = attrs.get("gen_ai.tool.call.arguments")
        output = attrs.get("gen_ai.tool.call.result")
    elif scalar_text(attrs.get("openinference.span.kind")).upper() == "TOOL":
        name = as_str_or_int(attrs.get("tool.name")) or span.name
        call_id = as_str_or_int(attrs.get("tool.id")) or as_str_or_int(attrs.get("tool_call.id"))
        arguments = attrs.get("input.value")
        output = attrs.get("output.value")
    else:  # OpenLLMetry @tool: input is {"args": [...], "kwargs": {...}}, output json.dumps(result)
        name = as_str_or_int(attrs.get("traceloop.entity.name")) or span.name
        call_id = None
        arguments = _structured(attrs.get("traceloop.entity.input"))
        if isinstance(arguments, dict) and not arguments.get("args") and isinstance(arguments.get("kwargs"), dict):
            arguments = arguments["kwargs"]
        output = attrs.get("traceloop.entity.output")
        if isinstance(output, str) and output.startswith('"'):
            decoded = _structured_string(output)  # json.dumps of a string result
            output = decoded if isinstance(decoded, str) else output
    content, status, message_call_id = _tool_output(output)
    failed = span.status_code == 2 or attrs.get("error.type") is not None or status == "error"
    if failed and not content:
        content = span.status_message or as_str_or_int(attrs.get("error.type")) or ""
    result = ToolResult(
        content=content,
        is_error=failed,
        started_at=span.started_at,
        ended_at=span.ended_at,
        line=span.line,
    )
    return name, call_id or message_call_id, result, arguments


class _OtelLinker(Linker):
    def history_result(self, call_id: str, content: str, line: int, called_before: set[str]) -> None:
        call = self.by_id.get(call_id)
        if call is not None:
            if call.result is None:  # no tool span answered it: the history is the only record
                self._answer(call, ToolResult(content=content, is_error=None, line=line))
            return
        if call_id in called_before:
            return  # made before this trace began; the history repeats it
        self.ctx.warn(line, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id)}")


# --- building traces ---------------------------------------------------------------------------


def _ancestors(span: _Span, by_id: dict[str, _Span]) -> Iterator[_Span]:
    seen = {span.span_id}
    parent = by_id.get(span.parent_id) if span.parent_id else None
    while parent is not None and parent.span_id not in seen:
        seen.add(parent.span_id)
        yield parent
        parent = by_id.get(parent.parent_id) if parent.parent_id else None


def _build(trace_id: str, spans: list[_Span], ctx: ReadContext) -> Trace:
    lines = [s.line for s in spans]
    trace = Trace(id=trace_id, format=FORMAT, file=ctx.file, line=min(lines), end_line=max(lines))
    spans.sort(key=lambda s: (s.start_ns if s.start_ns is not None else float("inf"), s.line, s.seq))
    by_id = {s.span_id: s for s in spans}
    kinds = {s.span_id: _kind(s) for s in spans}

    linker = _OtelLinker(trace, ctx, noun="tool span")
    users = NewUserMessages()
    for span in spans:
        kind = kinds[span.span_id]
        if kind == "other":
            continue
        outer = {kinds[a.span_id] for a in _ancestors(span, by_id)}
        if "tool" in outer or (kind == "round" and "round" in outer):
            continue  # part of a tool's execution, or a second record of one model call
        if kind == "round":
            results, called = _history(span)
            for call_id, text in results:
                linker.history_result(call_id, text, span.line, called)
            content = _output_content(span)
            if span.status_code == 2 and not content.found and _usage(span.attrs) is None:
                continue  # the call failed: no model response, so no round
            for text in users.take(_input_messages(span), message_role_and_text):
                trace.add_user_message(text, line=span.line)
            linker.add_round(_round(span, content, lambda reason, line=span.line: ctx.warn(line, f"trace {trace_id}: {reason}")))
        else:
            name, call_id, result, arguments = _tool(span)
            linker.add_result(name, call_id, result, lambda: input_call(call_id, name, arguments))

    roots = [s for s in spans if not s.parent_id or s.parent_id not in by_id]
    root = roots[0] if roots else None
    if root is not None:
        trace.metadata["name"] = root.name
        if root.status_code == 2:
            trace.error = (
                root.status_message
                or as_str_or_int(root.attrs.get("error.type"))
                or f"root span {brief(root.name)} ended with status ERROR"
            )
            trace.ending = error_ending(trace.error)  # how it ended; no grade
        if kinds[root.span_id] == "other" and all(r.usage is None for r in trace.rounds):
            trace.usage_total = _usage(root.attrs, lambda reason: ctx.warn(root.line, f"trace {trace_id}: {reason}"))
    service = next((s.service for s in spans if s.service), None)
    if service:
        trace.metadata["service"] = service
    for key, meta in (("gen_ai.conversation.id", "conversation_id"), ("session.id", "conversation_id"), ("gen_ai.agent.name", "agent")):
        if meta in trace.metadata:
            continue
        value = next((as_str_or_int(s.attrs.get(key)) for s in spans if as_str_or_int(s.attrs.get(key))), None)
        if value:
            trace.metadata[meta] = value
    return finish_trace(trace, ctx.diagnostics)


def sniff(value: Any) -> bool:
    item = first_item(value)
    return isinstance(item, dict) and isinstance(item.get("resourceSpans"), list)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    # Spans of one trace may be anywhere in the file: group once everything is read.
    decoder = _Decoder(ctx)
    traces: dict[str, dict[str, _Span]] = {}
    for record in records:
        try:
            spans = list(decoder.spans(record.value, record.line))
        except Exception as exc:  # noqa: BLE001 - one odd record must not cost the rest of the file
            ctx.warn(record.line, f"could not read this record ({failure(exc)})")
            continue
        for span in spans:
            members = traces.setdefault(span.trace_id, {})
            members.setdefault(span.span_id, span)  # the same span exported twice is one span
    skipped = 0
    ordered = sorted(traces.items(), key=lambda item: min((s.line, s.seq) for s in item[1].values()))
    for trace_id, members in ordered:
        spans = list(members.values())
        if not any(_is_genai(s) for s in spans):
            skipped += 1
            continue
        try:
            trace = _build(trace_id, spans, ctx)
        except Exception as exc:  # noqa: BLE001 - a bug on one odd trace must not cost the others
            ctx.warn(min(s.line for s in spans), f"trace {trace_id}: could not read this trace ({failure(exc)})")
            continue
        yield trace
    if skipped:
        ctx.warn(None, f"{skipped} trace(s) without GenAI, OpenInference or OpenLLMetry spans skipped")
