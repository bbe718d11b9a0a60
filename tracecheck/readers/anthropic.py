"""Anthropic Messages API transcripts: requests, request/response logs, bare responses.

Every record is recognised on its own, so one file may mix shapes:

1. **conversation** ``{"model", "system", "tools", "messages": [...]}`` (a request holding
   the whole run, as an agent would send it last): one trace per record; a JSON array
   gives one trace per element. Trace id: the record's ``id``, ``conversation_id``,
   ``thread_id``, ``session_id`` or ``trace_id`` (also looked up inside ``metadata``),
   else its place, ``<file name>:<line>`` (``#<index>`` appended for an array element).
2. **request/response** ``{"request": {...}, "response": {message}}`` per model call, or
   a request with its ``response`` beside ``messages`` (the formats.md example). Each
   request resends the history, so a record continues an open trace when its messages
   start with that trace's last request plus the last response's message (compared by
   role, text, tool names and canonical inputs, tool-result ids and texts; thinking
   blocks and ``cache_control`` marks are ignored, because clients drop or move them);
   otherwise it starts a new trace (id as in shape 1, else its place, ``<file name>:<line>``). Up
   to 16 traces stay open at once, the least recently continued is closed first. Only
   the messages new to a request are read, so tool results attach to the rounds that
   called them; assistant messages no logged response produced are rounds without
   usage. A request whose last message is an assistant message (a prefill) has that
   text prepended to the response's round rather than counted as a round. Times: a
   record's ``started_at``/``ended_at`` (or ``start_time``/``end_time``), else its
   ``timestamp`` as the moment the response arrived, with ``latency_ms``/``duration_ms``
   reaching back to the start. A record whose response is missing or an error object
   (``{"type": "error", "error": {...}}``) sets ``trace.error`` until a later response
   continues the trace (a retry).
3. **bare responses** ``{"id": "msg_…", "type": "message", "role": "assistant", ...}``
   (also ``{"response": {...}}`` with no request), one per line: consecutive ones form
   one trace (id ``<file name>:<line of the first>``), one round each, in file order;
   any record of another shape ends the group. Responses alone carry no tool results
   (those live in the next request), so instead of one warning per call such a trace
   gets one warning saying how many calls have no result.
4. **messages** as ``json.dump(messages)`` writes them: a JSON array of ``{"role",
   "content"}`` messages is one conversation (id ``<file name>:<line>``); one such
   message per line forms one conversation named after the file, each message at its
   own line, until a record of another shape (a later group: ``<file name>:<line>``).
   Sniffed when some message holds ``tool_use``/``tool_result`` blocks.

Blocks: ``text`` blocks are the round's text (adjacent blocks, e.g. text split around
citations, are joined directly; blocks separated by other blocks with a newline).
``thinking``/``redacted_thinking`` are neither text nor calls, and the API reports no
separate count for them (thinking tokens are inside ``output_tokens``), so
``reasoning_tokens`` stays ``None``. ``tool_use`` {id, name, input} is a call.
``server_tool_use`` and ``mcp_tool_use`` are hosted calls whose results come inline as
``web_search_tool_result`` (or any other ``*_tool_result``/``mcp_tool_result``) blocks
of the same or a later (``pause_turn``) response; a web search result becomes one
``title — url`` line per hit, an error content (``*_error``) is ``is_error=True``.
User ``tool_result`` blocks {tool_use_id, content, is_error} attach to the calling
round. ``is_error`` defaults to false in the API, but agents that never set it leave
failures unflagged: a result without the field is ``False`` when some result of the
same trace carries an explicit ``is_error``, else ``None`` (unknown, so failure
patterns decide).

User messages: a ``user`` message is what the user said (its text: the string content or
its ``text`` blocks; images and documents are left out) and opens a turn, but only when
the agent has nothing pending, i.e. no tool call of its latest round is still awaiting
a result. A user message that answers pending calls is the loop going on: its
``tool_result`` blocks attach to their calls and any text beside them (agent harnesses
add notes and reminders to tool results, often at every step) opens no turn, since
cutting a loop at every such note would start the loop guards afresh at every round.
A user message of ``tool_result`` blocks alone is never a user message. System prompts
are not user messages. In request/response logs only the messages new to a request
are read (see shape 2), so a user message the history resends counts once.

Usage: ``input_tokens`` excludes cached tokens, so a round's input tokens are
``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` and its cached
tokens ``cache_read_input_tokens``. ``stop_reason`` becomes the finish reason:
``end_turn``/``stop_sequence`` → ``stop``, ``tool_use`` → ``tool_calls``,
``max_tokens`` → ``length``, ``refusal`` → ``content_filter``, others as written.

Ending: a request that failed and was never retried → ``trace.error`` and
``ending="error"``; a last response that stopped at ``max_tokens`` without an answer
(with tool calls, whose input may be cut, or with no visible text; a cut but non-empty
text answer stays an answer) → ``trace.error`` and ``ending="limit"``; a last response
without tool calls → ``answered``.

Outcome: the format carries no grade, so none is set (an error is how the run ended,
not a verdict on it); only a labels file gives one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace, Usage
from ..input.sources import Record
from .chat_messages import is_bare_messages
from .request_log import OpenTraces, continued_trace, error_text, explicit_id, in_file_order, thread_trace_id, time_of, with_latency
from .contract import ReadContext, array_elements, element_note, first_item, read_with_reader
from .common import (
    Counts,
    Warn,
    as_str,
    brief,
    declined_by_user,
    dump_json,
    finish_trace,
    make_trace,
    make_usage,
    new_call,
    rebuild,
    scalar_text,
    visible_text,
)

FORMAT = "anthropic"

NO_SHAPE = "JSON that matches no known Anthropic Messages shape"
_ID_KEYS = ("id", "conversation_id", "thread_id", "session_id", "trace_id")
_THREAD_KEYS = ("conversation_id", "thread_id", "session_id", "trace_id")
_MAX_OPEN = 16

# --- helpers shared with the Claude Code reader ------------------------------------------

_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
TRUNCATED_ERROR = "the last response stopped at max_tokens without an answer"


def finish_reason(stop_reason: Any) -> str | None:
    if not isinstance(stop_reason, str) or not stop_reason:
        return None
    return _FINISH.get(stop_reason, stop_reason)


def usage_from(value: Any, warn: Warn | None = None) -> Usage | None:
    """Messages API usage → Usage. Cached prompt tokens are added back into the input.
    Counts that are not counts are unknown, and reported through ``warn``."""
    if not isinstance(value, dict):
        return None
    counts = Counts(value, warn)
    parts = [counts.get(key) for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
    known = [p for p in parts if p is not None]
    return make_usage(sum(known) if known else None, counts.get("output_tokens"), parts[2], None)


def _is_server_result(kind: Any) -> bool:
    return isinstance(kind, str) and (kind.endswith("_tool_result") or kind == "mcp_tool_result")


def _drop_encrypted(value: Any) -> Any:
    """Encrypted payloads are opaque base64 blobs: useless as text, noisy for similarity."""
    return rebuild(value, keep_key=lambda key: not (isinstance(key, str) and key.startswith("encrypted")))


def content_blocks_text(content: Any) -> str:
    """Text of a tool_result content: a string, or text/image/document blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return dump_json(content)
    pieces = []
    for block in content:
        if isinstance(block, str):
            pieces.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if isinstance(block.get("text"), str):
                pieces.append(block["text"])
            elif kind in ("image", "document"):
                pieces.append(f"[{kind}]")  # base64 data says nothing a guard can use
            else:
                pieces.append(dump_json(_drop_encrypted(block)))
        else:
            pieces.append(dump_json(block))
    return "\n".join(pieces)


def server_result(block: dict) -> tuple[str, bool | None]:
    """(text, is_error) of an inline hosted-tool result block."""
    content = block.get("content")
    flag = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
    if isinstance(content, dict):
        kind = content.get("type")
        if isinstance(kind, str) and kind.endswith("_error"):
            return scalar_text(content.get("error_code") or kind), True
        return dump_json(_drop_encrypted(content)), (flag if flag is not None else False)
    if isinstance(content, list):
        lines = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "web_search_result":
                title = item.get("title") if isinstance(item.get("title"), str) else ""
                url = item.get("url") if isinstance(item.get("url"), str) else ""
                lines.append(f"{title} — {url}" if title else url)
            else:
                lines.append(content_blocks_text([item]))
        return "\n".join(lines), (flag if flag is not None else False)
    return content_blocks_text(content), (flag if flag is not None else False)


class CallTracker:
    """Adds assistant and user blocks to rounds; pairs results with calls by id.

    ``absent_is_false``: what a ``tool_result`` without ``is_error`` means. ``None``
    defers the decision to :meth:`settle` (see the module docstring).
    """

    __slots__ = ("trace", "ctx", "pending", "answered", "flag_seen", "unflagged", "absent_is_false", "_text_round")

    def __init__(self, trace: Trace, ctx: ReadContext, absent_is_false: bool | None = None) -> None:
        self.trace = trace
        self.ctx = ctx
        self.pending: dict[str, tuple[ToolCall, float | None]] = {}
        self.answered: set[str] = set()
        self.flag_seen = False
        self.unflagged: list[ToolResult] = []
        self.absent_is_false = absent_is_false
        self._text_round: Round | None = None  # the round whose last block was text

    def warn(self, line: int | None, reason: str, where: str = "") -> None:
        self.ctx.warn(line, f"trace {self.trace.id}: {reason}{where}")

    def warner(self, line: int | None, where: str = "") -> Warn:
        """:meth:`warn` for one line, as the value helpers take it."""
        return lambda reason: self.warn(line, reason, where)

    def assistant_blocks(self, rnd: Round, content: Any, line: int, at: float | None = None, where: str = "") -> None:
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            if content is not None:
                self.warn(line, "assistant content must be a string or a list of blocks; ignored", where)
            return
        taken = {call.id for call in rnd.tool_calls}
        for block in content:
            if not isinstance(block, dict):
                self.warn(line, "content block that is not an object skipped", where)
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str) and text:
                    glue = "" if self._text_round is rnd or not rnd.text else "\n"
                    rnd.text = rnd.text + glue + text
                self._text_round = rnd
                continue
            if self._text_round is rnd:
                self._text_round = None
            if kind in CALL_BLOCKS:
                cid = block.get("id")
                if isinstance(cid, str) and cid in taken:
                    continue  # the same block written again (Claude Code repeats entries)
                name = block.get("name")
                if not isinstance(name, str) or not name:
                    self.warn(line, f"{kind} block without a name skipped", where)
                    continue
                call = new_call(cid, name, block.get("input"))
                if not call.id:
                    call.id = f"r{rnd.index}.c{len(rnd.tool_calls) + 1}"  # results are found by id
                if call.id in self.pending:
                    self.warn(line, f"call id {brief(call.id)} reused before its result arrived", where)
                self.pending[call.id] = (call, at)
                self.answered.discard(call.id)
                rnd.tool_calls.append(call)
                taken.add(call.id)
            elif _is_server_result(kind):
                text, flag = server_result(block)
                self._attach(block.get("tool_use_id"), ToolResult(content=text, is_error=flag, ended_at=at, line=line), line, where)
            # thinking, redacted_thinking and unknown block types are not text and not calls

    def user_blocks(self, content: Any, line: int, at: float | None = None, where: str = "") -> None:
        if not isinstance(content, list):
            return  # a plain user turn
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            flag = block.get("is_error")
            result = ToolResult(content=content_blocks_text(block.get("content")), ended_at=at, line=line)
            result.declined = declined_by_user(result.content)
            if isinstance(flag, bool):
                result.is_error = flag
                self.flag_seen = True
            elif self.absent_is_false is not None:
                result.is_error = False if self.absent_is_false else None
            if self._attach(block.get("tool_use_id"), result, line, where) and result.is_error is None:
                self.unflagged.append(result)

    def awaiting(self) -> bool:
        """Whether a call of the latest round still awaits its result."""
        last = self.trace.rounds[-1] if self.trace.rounds else None
        return last is not None and any(call.result is None for call in last.tool_calls)

    def user_message(
        self, content: Any, line: int, at: float | None = None, where: str = "", text: str | None = None, speaks: bool = True
    ) -> None:
        """A user message: its tool results attach; it opens a turn (with ``text``, else
        its visible text) when ``speaks`` and the agent had nothing pending (see the
        module docstring)."""
        pending = self.awaiting()
        self.user_blocks(content, line, at, where)
        if not speaks or pending:
            return
        if text is None:
            blocks = content if isinstance(content, list) else ()
            text = visible_text(content)
            if not text and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
                return  # results only: nothing said
        self.trace.add_user_message(text, at=at, line=line)

    def _attach(self, call_id: Any, result: ToolResult, line: int, where: str) -> bool:
        if not isinstance(call_id, str) or not call_id:
            self.warn(line, "tool result without a tool_use_id skipped", where)
            return False
        entry = self.pending.pop(call_id, None)
        if entry is None:
            if call_id in self.answered:
                self.warn(line, f"second tool result for call id {brief(call_id)} ignored (the first is kept)", where)
            else:
                self.warn(line, f"tool result for unknown call id {brief(call_id)}", where)
            return False
        call, started = entry
        result.started_at = started
        call.result = result
        self.answered.add(call_id)
        return True

    def settle(self) -> None:
        """Results without an ``is_error`` are successes when the trace uses the flag."""
        if self.flag_seen:
            for result in self.unflagged:
                result.is_error = False
        self.unflagged.clear()


def conclude(trace: Trace) -> None:
    """The ending rules shared by both Anthropic readers (see the module docstring). An
    error or a cut response is how the run ended, not a grade: no outcome is set."""
    if trace.error is None and trace.rounds:
        last = trace.rounds[-1]
        if last.finish_reason == "length" and (last.tool_calls or not last.text.strip()):
            trace.error = TRUNCATED_ERROR
            trace.ending = "limit"  # the max_tokens limit cut the last response
            return
    if trace.error is not None:
        trace.ending = "error"


# --- small value helpers ---------------------------------------------------------------


# Keys of the other shapes' records: a line holding one is no bare message.
_ENVELOPE = frozenset(("type", "messages", "request", "response"))


def _error_text(error: Any) -> str | None:
    while isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]  # {"type": "error", "error": {"type", "message"}}
    return error_text(error, _typed_message)


def _typed_message(error: dict) -> str | None:
    """An Anthropic error object's text: "type: message" (its type alone is "error")."""
    message, kind = as_str(error.get("message")), as_str(error.get("type"))
    if message and kind and kind != "error":
        return f"{kind}: {message}"
    return message or kind


def _is_response(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role", "assistant") != "assistant":
        return False
    # Some loggers drop "type"; a stop_reason next to content still marks a response.
    return value.get("type") == "message" or ("stop_reason" in value and "content" in value)


def _text_of(content: Any) -> str:
    """A message's visible text, joined as rounds join it (used for a prefill)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    adjacent = False
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            if parts and not adjacent:
                parts.append("\n")
            parts.append(block["text"])
            adjacent = True
        else:
            adjacent = False
    return "".join(parts)


def _canonical(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value.strip()
    return dump_json(value, sort_keys=True)


def _fingerprint(msg: Any) -> int:
    """A message's identity when a later request resends it (see the module docstring)."""
    if not isinstance(msg, dict):
        return hash(("?", dump_json(msg)))
    role = msg.get("role")
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        blocks = []
    calls, texts, results = [], [], []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in CALL_BLOCKS:
            calls.append((scalar_text(block.get("name")), _canonical(block.get("input"))))
        elif kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_result":
            results.append((scalar_text(block.get("tool_use_id")), content_blocks_text(block.get("content")).strip()))
    if role == "assistant" and calls:
        return hash(("assistant", tuple(calls)))
    return hash((scalar_text(role), "".join(texts).strip(), tuple(results)))


def _record_times(record: dict, warn: Warn | None = None) -> tuple[float | None, float | None]:
    start = time_of(record, warn, "started_at", "start_time", "startTime")
    end = time_of(record, warn, "ended_at", "end_time", "endTime")
    if end is None:
        end = time_of(record, warn, "timestamp")  # written when the response arrived
    latency = next((record[k] for k in ("latency_ms", "duration_ms") if record.get(k) is not None), None)
    return with_latency(start, end, latency)


# --- one trace being rebuilt -------------------------------------------------------------


class _Conversation:
    __slots__ = ("trace", "calls")

    def __init__(self, trace: Trace, ctx: ReadContext) -> None:
        self.trace = trace
        self.calls = CallTracker(trace, ctx)

    def add(self, msg: Any, line: int, number: int | None = None) -> None:
        where = f" (message {number})" if number is not None else ""
        if not isinstance(msg, dict):
            self.calls.warn(line, "a message must be a JSON object; skipped", where)
            return
        role = msg.get("role")
        if role == "assistant":
            rnd = self.new_round(line, msg)
            self.calls.assistant_blocks(rnd, msg.get("content"), line, where=where)
        elif role == "user":
            self.calls.user_message(msg.get("content"), line, where=where)
        elif role != "system":  # some loggers keep the system prompt as a message
            self.calls.warn(line, f"message with unknown role {brief(role)} skipped", where)

    def new_round(self, line: int, msg: dict) -> Round:
        rnd = Round(
            index=len(self.trace.rounds) + 1,
            line=line,
            id=as_str(msg.get("id")),
            model=as_str(msg.get("model")),
            usage=usage_from(msg.get("usage"), self.calls.warner(line)),
            finish_reason=finish_reason(msg.get("stop_reason")),
        )
        self.trace.rounds.append(rnd)
        return rnd

    def response(self, body: dict, line: int, prefill: str = "") -> Round:
        rnd = self.new_round(line, body)
        rnd.text = prefill
        if prefill:
            self.calls._text_round = rnd  # the response continues the prefill's text
        self.calls.assistant_blocks(rnd, body.get("content"), line)
        return rnd


class _Open:
    """An open request/response trace and the history its next request must start with."""

    __slots__ = ("conversation", "thread", "expected")

    def __init__(self, conversation: _Conversation, thread: str | None) -> None:
        self.conversation = conversation
        self.thread = thread
        self.expected: list[int] = []


# --- the reader -------------------------------------------------------------------------


_ANTHROPIC_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use")


def _has_anthropic_blocks(messages: Any) -> bool:
    if not isinstance(messages, list):
        return False
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in _ANTHROPIC_BLOCKS for b in content):
            return True
    return False


def sniff(value: Any) -> bool:
    if is_bare_messages(value):  # json.dump(messages) of Anthropic messages
        return _has_anthropic_blocks(value)
    item = first_item(value)
    if not isinstance(item, dict):
        return False
    if item.get("type") == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), list):
        return True  # a Messages API response object
    response = item.get("response")
    if isinstance(response, dict) and response.get("type") == "message":
        return True
    request = item.get("request") if isinstance(item.get("request"), dict) else item
    return _has_anthropic_blocks(request.get("messages")) or (
        isinstance(request.get("system"), (str, list)) and isinstance(request.get("messages"), list) and "model" in request
    )


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.base = os.path.basename(ctx.file) or ctx.file
        self.open: OpenTraces[_Open] = OpenTraces(_MAX_OPEN)
        self.thread_uses: dict[str, int] = {}
        self.bare: _Conversation | None = None
        self.lines: _Conversation | None = None  # messages one per line (shape 4)
        self.line_groups = 0
        self.lines_count = 0

    def new_trace(self, trace_id: str | None, line: int, shape: str, model: Any = None, index: int | None = None) -> Trace:
        trace = make_trace(trace_id, FORMAT, self.ctx.file, self.base, line, index)
        trace.metadata["shape"] = shape
        if as_str(model):
            trace.metadata["model"] = model
        return trace

    def finish(self, conversation: _Conversation, *, warn_missing_results: bool = True) -> Trace:
        conversation.calls.settle()
        conclude(conversation.trace)
        return finish_trace(conversation.trace, self.ctx.diagnostics, warn_missing_results=warn_missing_results)

    def record(self, value: Any, line: int) -> Iterator[Trace]:
        if isinstance(value, list) and value and all(isinstance(v, dict) and v.get("role") in ("user", "assistant") and not _is_response(v) for v in value):
            yield from self.end_bare()
            yield self.conversation({}, value, line, None)  # a dumped messages list
            return
        for item, index in array_elements(value):
            yield from self.item(item, line, index)

    def item(self, value: Any, line: int, index: int | None) -> Iterator[Trace]:
        where = element_note(index)
        if index is None and isinstance(value, dict) and value.get("role") in ("user", "assistant", "system") and "content" in value and not _is_response(value) and not _ENVELOPE.intersection(value):
            self.message_line(value, line)
            return
        yield from self.end_lines()
        if _is_response(value):
            self.bare_response(value, {}, line)
            return
        if not isinstance(value, dict):
            yield from self.end_bare()
            self.ctx.warn(line, NO_SHAPE + where)
            return
        request = value.get("request")
        if not isinstance(request, dict) and "request" not in value and isinstance(value.get("messages"), list):
            request = value
        if not isinstance(request, dict) and _is_response(value.get("response")):
            self.bare_response(value["response"], value, line)
            return
        yield from self.end_bare()
        if not isinstance(request, dict):
            self.ctx.warn(line, NO_SHAPE + where)
        elif "response" in value or "error" in value:
            yield from self.exchange(value, request, line, index)
        elif isinstance(request.get("messages"), list):
            yield self.conversation(request, request["messages"], line, index)
        else:
            self.ctx.warn(line, "request without a 'messages' list; record skipped" + where)

    # shape 1 ------------------------------------------------------------------------------

    def conversation(self, value: dict, messages: list, line: int, index: int | None) -> Trace:
        trace = self.new_trace(explicit_id(value, _ID_KEYS), line, "conversation", value.get("model"), index)
        conversation = _Conversation(trace, self.ctx)
        for number, msg in enumerate(messages, 1):
            conversation.add(msg, line, number)
        return self.finish(conversation)

    # shape 2 ------------------------------------------------------------------------------

    def exchange(self, record: dict, request: dict, line: int, index: int | None) -> Iterator[Trace]:
        messages = request.get("messages")
        if not isinstance(messages, list):
            self.ctx.warn(line, "request without a 'messages' list; record skipped")
            return
        response = record.get("response")
        prefill_msg = None
        if _is_response(response) and messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
            prefill_msg = messages[-1]  # the response continues this message: one round, not two
        body = messages[:-1] if prefill_msg is not None else messages
        prints = [_fingerprint(m) for m in messages]
        thread = explicit_id(record, _THREAD_KEYS) or (explicit_id(request, _THREAD_KEYS) if request is not record else None)
        entry = continued_trace(self.open.entries, prints, thread)
        if entry is None:
            trace_id = None if thread is None else thread_trace_id(self.thread_uses, thread)
            entry = _Open(_Conversation(self.new_trace(trace_id, line, "request-response", request.get("model"), index), self.ctx), thread)
            for pushed_out in self.open.add(entry):
                yield self.finish(pushed_out.conversation)
            start = 0
        else:
            self.open.touch(entry)
            start = len(entry.expected)
        conversation = entry.conversation
        trace = conversation.trace
        trace.end_line = line
        for number in range(start, len(body)):
            conversation.add(body[number], line, number + 1)

        if not _is_response(response):
            entry.expected = prints  # a retry resends this same request
            error = _error_text(record.get("error"))
            if error is None and isinstance(response, dict) and (response.get("type") == "error" or "error" in response):
                error = _error_text(response)
            if error is not None:
                trace.error = error
            else:
                self.ctx.warn(line, f"trace {trace.id}: response is not a Messages API message (type 'message')")
            return
        prefill = _text_of(prefill_msg.get("content")) if prefill_msg is not None else ""
        rnd = conversation.response(response, line, prefill)
        started, ended = _record_times(record, conversation.calls.warner(line))
        rnd.started_at, rnd.ended_at = started, ended
        if rnd.model is None and as_str(request.get("model")):
            rnd.model = request["model"]
        content = response.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}] if isinstance(content, str) else []
        sent = {"role": "assistant", "content": ([{"type": "text", "text": prefill}] if prefill else []) + blocks}
        entry.expected = prints[: len(body)] + [_fingerprint(sent)]
        trace.error = None

    # shape 3 ------------------------------------------------------------------------------

    def bare_response(self, body: dict, record: dict, line: int) -> None:
        if self.bare is None:
            self.bare = _Conversation(self.new_trace(None, line, "responses"), self.ctx)
        trace = self.bare.trace
        trace.end_line = line
        rnd = self.bare.response(body, line)
        rnd.started_at, rnd.ended_at = _record_times(record, self.bare.calls.warner(line))
        if "model" not in trace.metadata and rnd.model:
            trace.metadata["model"] = rnd.model

    # shape 4 ------------------------------------------------------------------------------

    def message_line(self, message: dict, line: int) -> None:
        if self.lines is None:
            self.line_groups += 1
            trace = self.new_trace(None, line, "message-per-line")
            if self.line_groups == 1:
                trace.id = self.base  # the file's messages: named after it while no other trace joins them
            self.lines = _Conversation(trace, self.ctx)
            self.lines_count = 0
        self.lines_count += 1
        self.lines.trace.end_line = line
        self.lines.add(message, line, self.lines_count)

    def end_lines(self) -> Iterator[Trace]:
        if self.lines is not None:
            conversation, self.lines = self.lines, None
            yield self.finish(conversation)

    def end_bare(self) -> Iterator[Trace]:
        if self.bare is None:
            return
        conversation, self.bare = self.bare, None
        trace = conversation.trace
        missing = sum(1 for call in trace.tool_calls() if call.result is None)
        if missing:
            self.ctx.warn(
                trace.line,
                f"trace {trace.id}: response objects alone carry no tool results; "
                f"{missing} tool call(s) without a result",
            )
        yield self.finish(conversation, warn_missing_results=False)  # said once above

    # end of file --------------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        yield from self.end_lines()
        yield from self.end_bare()
        for entry in in_file_order(self.open.drain(), lambda e: e.conversation.trace):
            yield self.finish(entry.conversation)
