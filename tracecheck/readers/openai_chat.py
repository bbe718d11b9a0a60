"""OpenAI Chat Completions transcripts, in the four shapes people write to disk.

Every record is recognised on its own, so one file may mix shapes:

1. **conversation** ``{"messages": [...], "tools": [...]}`` (the fine-tuning format, also
   how eval harnesses dump a run): one trace per record. A record that is a JSON array
   (a ``.json`` file) gives one trace per element. Trace id: the record's ``id``,
   ``conversation_id``, ``thread_id`` or ``session_id`` (or the same keys inside
   ``metadata``), else its place, ``<file name>:<line>`` (``<file name>:<line>#<index>``
   for the 0-based index of an array element).
2. **request/response** ``{"request": {"messages": ...}, "response": {chat.completion},
   "timestamp"?, "latency_ms"?}`` (proxies, custom loggers; a record with ``messages``
   next to a ``response`` object is read the same way). Each request resends the whole
   history, so a record continues an open trace when its messages start with that
   trace's last request plus the last response message; otherwise it starts a new trace
   (id: a ``conversation_id``/``thread_id``/``session_id``/``trace_id`` of the record,
   else its place, ``<file name>:<line>``). Up to 16 such traces stay open at once, so concurrent
   agents logging to one file are told apart; the least recently continued is closed
   first. Round k is response k; messages new to a request (tool results, user turns;
   for the first request of a trace, all of them) are read like a conversation, so tool
   results attach to the calls of earlier rounds and assistant messages that no logged
   response produced are rounds without usage.
   ``timestamp`` is taken as the time the response arrived (``ended_at``), else the
   response's ``created``; ``latency_ms`` gives ``started_at``. A record whose response
   is missing but carries an ``error`` sets ``trace.error`` until a later response
   continues the trace (a retry).
3. **Batch API**: output lines (``custom_id`` + ``response``/``error``) are one trace each
   (id = ``custom_id``) with one round, or with no round and ``trace.error`` set when the
   request failed. Input lines (``custom_id`` + ``body``) are read as a conversation
   from ``body.messages``. Lines are not grouped: custom ids carry no agreed structure.
4. **message per line** ``{"conversation_id"|"thread_id"|"session_id", "role", ...}``:
   grouped by that id, complete at the end of the file, yielded in order of first
   appearance. Messages without any such id (what ``json.dump(messages)`` writes, or one
   message per line) form one conversation named after the file, and a JSON array of
   such messages is one conversation. Such bare messages fit several formats, so they
   are sniffed as a whole (up to the first 200 lines): OpenAI when no message holds
   Anthropic ``tool_use``/``tool_result`` blocks or Responses items.

User messages: every ``user`` message (its text parts; ``name`` ignored) is a user
message at its place in the conversation (``at`` from its ``timestamp``/``created_at``/
``created`` where a logger added one) and opens a turn; ``system``/``developer``
messages are not. In request/response logs only the messages a request adds to its
trace's history are read, so a user message resent with every later request counts
once; the first request of a trace brings its whole history, user messages included.
A Batch output line has no request, so no user message.

Message rules shared by all shapes: one assistant message is one round; tool messages
attach to the call with their ``tool_call_id`` (in call order, by name when given, if
the server wrote no ids); legacy ``function_call``/``function`` pairs match the most
recent unanswered call. The format has no error flag, so ``is_error`` stays ``None``
unless a message carries an ``error``/``is_error`` field (τ²-bench, Inspect).

Ids by place: a trace named by its place keeps that name only while it is the only
trace of its file; among several it is named by its content, ``<file name>:<12 hex
digits>`` (``identity.py``), so that a label stays on it when lines move.

Ending: a failed request nothing retried (``trace.error``) → ``"error"``; a last
assistant message without tool calls → ``answered``; else unknown. Outcome: never set:
chat logs carry no grade; a labels file gives one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .request_log import OpenTraces, continued_trace, error_text, explicit_id, in_file_order, thread_trace_id, time_of, with_latency
from .chat_messages import chat_usage, is_bare_messages
from .contract import ReadContext, array_elements, element_note, first_item, read_with_reader
from .common import (
    Warn,
    as_int,
    as_str,
    as_str_or_int,
    brief,
    content_text,
    dump_json,
    finish_trace,
    make_trace,
    new_call,
    parse_arguments,
    parse_time,
    scalar_text,
    visible_text,
)

FORMAT = "openai-chat"

NO_SHAPE = "JSON that matches no known OpenAI Chat shape"
_THREAD_KEYS = ("conversation_id", "thread_id", "session_id")
_MESSAGE_TIME_KEYS = ("timestamp", "created_at", "created")
_MAX_OPEN_EXCHANGES = 16


def sniff(value: Any) -> bool:
    # A dumped messages list with no Anthropic blocks (the anthropic sniffer comes first;
    # a list without tools reads the same either way).
    if is_bare_messages(value):
        return True
    item = first_item(value)
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("messages"), list):
        return True
    if "request" in item and "response" in item:
        request = item["request"]
        return isinstance(request, dict) and "messages" in request
    if "custom_id" in item and ("response" in item or "body" in item):
        return True
    return "role" in item and ("conversation_id" in item or "thread_id" in item or "session_id" in item)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


# --- small value helpers -------------------------------------------------------------


def _message_time(msg: dict, warn: Warn | None = None) -> float | None:
    for key in _MESSAGE_TIME_KEYS:
        moment = parse_time(msg.get(key), warn, key)
        if moment is not None:
            return moment
    return None


def _error_flag(msg: dict) -> bool | None:
    """Plain Chat messages have no error flag; some harnesses add one."""
    flag = msg.get("is_error")
    if isinstance(flag, bool):
        return flag
    if "error" not in msg or msg["error"] is None:
        return None
    if isinstance(msg["error"], bool):
        return msg["error"]
    return error_text(msg["error"]) is not None


def _call_parts(item: Any) -> tuple[Any, Any]:
    """(name, arguments) of one ``tool_calls`` item in the spellings seen on disk."""
    if not isinstance(item, dict):
        return None, None
    function = item.get("function")
    if isinstance(function, dict):  # OpenAI: {"id", "type": "function", "function": {...}}
        return function.get("name"), function.get("arguments")
    if isinstance(function, str):  # Inspect AI: "function" is the tool name
        return function, item.get("arguments")
    return item.get("name"), item.get("arguments")  # flat (τ²-bench)


def _canonical_arguments(arguments: Any) -> str:
    raw, parsed, error = parse_arguments(arguments)
    if error is not None:
        return raw.strip()
    return dump_json(parsed, sort_keys=True)


def _fingerprint(msg: Any) -> int:
    """A message's identity when a later request resends it.

    Clients resend the response message in their own spelling (``refusal``/``audio``
    dropped, ``null`` content turned into ``""``, arguments re-serialised), so an
    assistant message with calls is known by its calls alone.
    """
    if not isinstance(msg, dict):
        return hash(("?", dump_json(msg)))
    role = msg.get("role")
    if role == "assistant":
        calls = []
        items = msg.get("tool_calls")
        for item in items if isinstance(items, list) else ():
            name, arguments = _call_parts(item)
            calls.append((scalar_text(name), _canonical_arguments(arguments)))
        legacy = msg.get("function_call")
        if isinstance(legacy, dict):
            calls.append((scalar_text(legacy.get("name")), _canonical_arguments(legacy.get("arguments"))))
        if calls:
            return hash(("assistant", tuple(calls)))
    return hash((scalar_text(role), content_text(msg.get("content")).strip(), scalar_text(msg.get("tool_call_id") or "")))


def _is_bare_message(item: Any) -> bool:
    return isinstance(item, dict) and "role" in item and explicit_id(item, _THREAD_KEYS) is None


def _first_choice(body: Any) -> tuple[dict | None, dict]:
    """(choices[0].message, choices[0]) of a chat.completion, or (None, {})."""
    if isinstance(body, dict):
        choices = body.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            message = choices[0].get("message")
            if isinstance(message, dict):
                return message, choices[0]
    return None, {}


def _apply_response(rnd: Round, body: dict, choice: dict, warn: Warn, fallback_model: Any = None) -> None:
    usage = chat_usage(body.get("usage"), warn)
    if usage is not None:
        rnd.usage = usage
    rnd.id = as_str(body.get("id")) or rnd.id
    rnd.model = as_str(body.get("model")) or rnd.model or as_str(fallback_model)
    rnd.finish_reason = as_str(choice.get("finish_reason")) or rnd.finish_reason
    if rnd.ended_at is None:
        rnd.ended_at = parse_time(body.get("created"), warn, "created")


def _exchange_times(record: dict, body: Any, warn: Warn) -> tuple[float | None, float | None]:
    start = time_of(record, warn, "started_at", "start_time", "startTime")
    end = time_of(record, warn, "ended_at", "end_time", "endTime")
    if end is None:
        # A logger writes its line once the response is in: the timestamp is the end.
        end = time_of(record, warn, "timestamp")
    if end is None and isinstance(body, dict):
        end = time_of(body, warn, "created")
    return with_latency(start, end, record.get("latency_ms", record.get("duration_ms")))


# --- one conversation being rebuilt --------------------------------------------------


class _Conversation:
    """Turns messages, in order, into rounds with their calls and results."""

    __slots__ = ("trace", "ctx", "pending", "answered", "legacy")

    def __init__(self, trace: Trace, ctx: ReadContext) -> None:
        self.trace = trace
        self.ctx = ctx
        self.pending: dict[str, ToolCall] = {}  # calls awaiting a result, in call order
        self.answered: set[str] = set()
        self.legacy: list[ToolCall] = []  # function_call calls awaiting a result (no ids)

    def warn(self, line: int, number: int | None, reason: str) -> None:
        where = f" (message {number})" if number is not None else ""
        self.ctx.warn(line, f"trace {self.trace.id}: {reason}{where}")

    def warner(self, line: int, number: int | None = None) -> Warn:
        """:meth:`warn` for one message, as the value helpers take it."""
        return lambda reason: self.warn(line, number, reason)

    def add(self, msg: Any, line: int, number: int | None = None) -> None:
        if not isinstance(msg, dict):
            self.warn(line, number, "a message must be a JSON object; skipped")
            return
        role = msg.get("role")
        if role == "assistant":
            self.assistant(msg, line, number)
        elif role == "tool":
            self.tool_result(msg, line, number)
        elif role == "function":
            self.function_result(msg, line, number)
        elif role == "user":
            at = _message_time(msg, self.warner(line, number))
            self.trace.add_user_message(visible_text(msg.get("content")), at=at, line=line)
        elif role not in ("system", "developer"):
            self.warn(line, number, f"message with unknown role {brief(role)} skipped")

    def assistant(self, msg: dict, line: int, number: int | None = None) -> Round:
        text = content_text(msg.get("content"))
        if not text and isinstance(msg.get("refusal"), str):
            text = msg["refusal"]
        warn = self.warner(line, number)
        rnd = Round(
            index=len(self.trace.rounds) + 1,
            text=text,
            usage=chat_usage(msg.get("usage"), warn),
            ended_at=_message_time(msg, warn),
            finish_reason=as_str(msg.get("finish_reason")),
            line=line,
            id=as_str(msg.get("id")),
            model=as_str(msg.get("model")),
        )
        items = msg.get("tool_calls")
        if items is not None and not isinstance(items, list):
            self.warn(line, number, "'tool_calls' must be a list; ignored")
            items = None
        for item in items or ():
            name, arguments = _call_parts(item)
            if not isinstance(name, str) or not name:
                self.warn(line, number, "tool call without a function name skipped")
                continue
            self._register(rnd, new_call(item.get("id"), name, arguments), line, number)
        legacy = msg.get("function_call")
        if isinstance(legacy, dict):  # deprecated functions API: one call, no id
            name = legacy.get("name")
            if isinstance(name, str) and name:
                call = new_call(None, name, legacy.get("arguments"))
                self._register(rnd, call, line, number)
                self.legacy.append(call)
            else:
                self.warn(line, number, "function_call without a name skipped")
        self.trace.rounds.append(rnd)
        return rnd

    def _register(self, rnd: Round, call: ToolCall, line: int, number: int | None) -> None:
        if not call.id:
            # finish_trace's scheme, given now because results are looked up by id.
            call.id = f"r{rnd.index}.c{len(rnd.tool_calls) + 1}"
        if call.id in self.pending:
            self.warn(line, number, f"call id {brief(call.id)} reused before its result arrived")
        self.pending[call.id] = call
        self.answered.discard(call.id)
        rnd.tool_calls.append(call)

    def _result(self, msg: dict, line: int, number: int | None = None) -> ToolResult:
        return ToolResult(
            content=content_text(msg.get("content")),
            is_error=_error_flag(msg),
            ended_at=_message_time(msg, self.warner(line, number)),
            line=line,
        )

    def _answer(self, call: ToolCall, result: ToolResult) -> None:
        self.pending.pop(call.id, None)
        self.answered.add(call.id)
        call.result = result

    def tool_result(self, msg: dict, line: int, number: int | None) -> None:
        # τ²-bench writes the call id of a tool message as its own ``id``.
        call_id = as_str_or_int(msg.get("tool_call_id")) or as_str_or_int(msg.get("id"))
        if call_id is not None:
            call = self.pending.get(call_id)
            if call is None:
                if call_id in self.answered:
                    reason = f"second tool result for call id {brief(call_id)} ignored (the first is kept)"
                else:
                    reason = f"tool result for unknown call id {brief(call_id)}"
                self.warn(line, number, reason)
                return
        else:
            # Servers that write no ids (Ollama) answer calls in order; match a name if given.
            call = self._oldest_unanswered(as_str(msg.get("name")) or as_str(msg.get("tool_name")))
            if call is None:
                self.warn(line, number, "tool result without tool_call_id and no call awaiting a result")
                return
        self._answer(call, self._result(msg, line, number))

    def _oldest_unanswered(self, name: str | None) -> ToolCall | None:
        first = None
        for call in self.pending.values():
            if name is None or call.name == name:
                return call
            if first is None:
                first = call
        return first

    def function_result(self, msg: dict, line: int, number: int | None) -> None:
        name = as_str(msg.get("name"))
        unanswered = [call for call in self.legacy if call.result is None]
        # The most recent unanswered function_call, of the same name when there is one.
        call = next((c for c in reversed(unanswered) if c.name == name), None)
        if call is None and unanswered:
            call = unanswered[-1]
        if call is None:
            self.warn(line, number, f"function result {brief(name)} with no function_call awaiting a result")
            return
        self.legacy.remove(call)
        self._answer(call, self._result(msg, line, number))


class _Exchange:
    """An open request/response trace: the history the next request must start with."""

    __slots__ = ("conversation", "thread", "expected")

    def __init__(self, conversation: _Conversation, thread: str | None) -> None:
        self.conversation = conversation
        self.thread = thread
        self.expected: list[int] = []


# --- the reader ------------------------------------------------------------------------


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.base = os.path.basename(ctx.file) or ctx.file
        self.exchanges: OpenTraces[_Exchange] = OpenTraces(_MAX_OPEN_EXCHANGES)
        self.exchange_ids: dict[str, int] = {}
        self.threads: dict[str | None, _Conversation] = {}

    def new_trace(self, trace_id: str | None, line: int, shape: str, metadata: Any = None, index: int | None = None) -> Trace:
        trace = make_trace(trace_id, FORMAT, self.ctx.file, self.base, line, index)
        if isinstance(metadata, dict):
            trace.metadata.update(metadata)
        trace.metadata["shape"] = shape
        return trace

    def finish(self, trace: Trace) -> Trace:
        if trace.error is not None:
            trace.ending = "error"  # a failed request nothing retried: an ending, no grade
        return finish_trace(trace, self.ctx.diagnostics)

    def record(self, value: Any, line: int) -> Iterator[Trace]:
        if isinstance(value, list) and value and all(_is_bare_message(item) for item in value):
            # A dumped ``messages`` list: one conversation (read only with --input-format).
            yield self.conversation({}, value, line, None)
        else:
            for item, index in array_elements(value):
                yield from self.item(item, line, index)

    def item(self, value: Any, line: int, index: int | None) -> Iterator[Trace]:
        where = element_note(index)
        if not isinstance(value, dict):
            self.ctx.warn(line, NO_SHAPE + where)
            return
        if "custom_id" in value:
            if "response" in value or "error" in value:
                yield from self.batch_output(value, line, index)
                return
            if "body" in value:
                yield from self.batch_input(value, line, index)
                return
        elif isinstance(value.get("request"), dict) and "response" in value:
            yield from self.exchange(value, value["request"], line, index)
            return
        elif isinstance(value.get("messages"), list):
            if isinstance(value.get("response"), dict):
                yield from self.exchange(value, value, line, index)
            else:
                yield self.conversation(value, value["messages"], line, index)
            return
        elif "role" in value:
            self.thread_message(value, line)
            return
        self.ctx.warn(line, NO_SHAPE + where)

    # shape 1 -------------------------------------------------------------------------

    def conversation(
        self,
        value: dict,
        messages: list,
        line: int,
        index: int | None,
        trace_id: str | None = None,
        shape: str = "conversation",
    ) -> Trace:
        trace_id = trace_id or explicit_id(value, ("id",) + _THREAD_KEYS)
        trace = self.new_trace(trace_id, line, shape, value.get("metadata"), index)
        if as_str(value.get("model")):
            trace.metadata["model"] = value["model"]
        conversation = _Conversation(trace, self.ctx)
        for number, msg in enumerate(messages, 1):
            conversation.add(msg, line, number)
        return self.finish(trace)

    # shape 2 -------------------------------------------------------------------------

    def exchange(self, record: dict, request: dict, line: int, index: int | None) -> Iterator[Trace]:
        messages = request.get("messages")
        if not isinstance(messages, list):
            self.ctx.warn(line, "request without a 'messages' list; record skipped")
            return
        prints = [_fingerprint(msg) for msg in messages]
        thread = explicit_id(record, _THREAD_KEYS + ("trace_id",)) or explicit_id(request, _THREAD_KEYS)
        open_ = continued_trace(self.exchanges.entries, prints, thread)
        if open_ is None:
            trace_id = None if thread is None else thread_trace_id(self.exchange_ids, thread)
            trace = self.new_trace(trace_id, line, "request-response", index=index)
            open_ = _Exchange(_Conversation(trace, self.ctx), thread)
            for pushed_out in self.exchanges.add(open_):
                yield self.finish(pushed_out.conversation.trace)
            start = 0
        else:
            self.exchanges.touch(open_)
            start = len(open_.expected)
        conversation = open_.conversation
        trace = conversation.trace
        trace.end_line = line
        # Only the messages this request adds: tool results, new user turns.
        for number in range(start, len(messages)):
            conversation.add(messages[number], line, number + 1)

        response = record.get("response")
        body = response
        if isinstance(response, dict) and "choices" not in response and isinstance(response.get("body"), dict):
            body = response["body"]  # loggers that keep the HTTP envelope
        message, choice = _first_choice(body)
        if message is None:
            open_.expected = prints  # a retry resends this same request
            error = error_text(record.get("error"))
            if error is None and isinstance(body, dict):
                error = error_text(body.get("error"))
            if error is not None:
                trace.error = error
            else:
                self.ctx.warn(line, f"trace {trace.id}: response without choices[0].message")
            return
        rnd = conversation.assistant(message, line)
        warn = conversation.warner(line)
        _apply_response(rnd, body, choice, warn, request.get("model"))
        started, ended = _exchange_times(record, body, warn)
        rnd.started_at = started if started is not None else rnd.started_at
        rnd.ended_at = ended if ended is not None else rnd.ended_at
        open_.expected = prints + [_fingerprint(message)]
        trace.error = None

    # shape 3 -------------------------------------------------------------------------

    def batch_output(self, value: dict, line: int, index: int | None) -> Iterator[Trace]:
        trace = self.new_trace(as_str_or_int(value.get("custom_id")), line, "batch-output", index=index)
        if as_str(value.get("id")):
            trace.metadata["batch_request_id"] = value["id"]
        response = value.get("response")
        error = error_text(value.get("error"))
        if error is not None:
            trace.error = error
        elif not isinstance(response, dict):
            trace.error = "batch line without a response"
        else:
            body = response.get("body")
            status = as_int(response.get("status_code"))
            if as_str(response.get("request_id")):
                trace.metadata["request_id"] = response["request_id"]
            if status is not None:
                trace.metadata["status_code"] = status
            if status is not None and not 200 <= status < 300:
                detail = error_text(body.get("error")) if isinstance(body, dict) else None
                trace.error = detail or f"HTTP status {status}"
            else:
                message, choice = _first_choice(body)
                if message is None:
                    reason = "batch response body is not a chat completion (no choices[0].message); line skipped"
                    self.ctx.warn(line, f"trace {trace.id}: {reason}")
                    return
                conversation = _Conversation(trace, self.ctx)
                rnd = conversation.assistant(message, line)
                _apply_response(rnd, body, choice, conversation.warner(line))
        yield self.finish(trace)

    def batch_input(self, value: dict, line: int, index: int | None) -> Iterator[Trace]:
        body = value.get("body")
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list):
            self.ctx.warn(line, "batch request body without a 'messages' list (not a chat completion); skipped")
            return
        yield self.conversation(body, messages, line, index, trace_id=as_str_or_int(value.get("custom_id")), shape="batch-input")

    # shape 4 -------------------------------------------------------------------------

    def thread_message(self, value: dict, line: int) -> None:
        key = explicit_id(value, _THREAD_KEYS)
        conversation = self.threads.get(key)
        if conversation is None:
            trace = self.new_trace(key if key is not None else self.base, line, "message-per-line")
            conversation = self.threads[key] = _Conversation(trace, self.ctx)
        conversation.trace.end_line = line
        conversation.add(value, line)

    # end of file ---------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        """The traces still open at the end of the file, in order of first appearance."""
        traces = [entry.conversation.trace for entry in self.exchanges.drain()]
        traces.extend(conversation.trace for conversation in self.threads.values())
        self.threads.clear()
        for trace in in_file_order(traces, lambda trace: trace):
            yield self.finish(trace)
