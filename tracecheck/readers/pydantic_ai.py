"""Pydantic AI message histories: ``result.all_messages_json()`` /
``ModelMessagesTypeAdapter.dump_json(messages)`` dumps.

Followed from the framework's own source, pydantic/pydantic-ai
``pydantic_ai_slim/pydantic_ai/messages.py`` (``ModelRequest``, ``ModelResponse`` and
their parts: ``SystemPromptPart``, ``UserPromptPart``, ``ToolReturnPart``,
``RetryPromptPart``, ``TextPart``, ``ThinkingPart``, ``ToolCallPart``,
``BuiltinToolCallPart``, ``BuiltinToolReturnPart``) and ``usage.py`` (``RequestUsage``;
the deprecated ``Usage``), as stored for the 0.x releases (2025: ``Usage`` with
``request_tokens`` / ``response_tokens``, ``vendor_id``) and the 1.x releases (2025-09
on: ``RequestUsage`` with ``input_tokens`` / ``output_tokens`` / ``cache_read_tokens``,
``provider_response_id``, ``finish_reason``, ``ModelRequest.timestamp``, ``run_id``,
``ToolReturnPart.outcome``). A real ``all_messages_json()`` dump of pydantic-ai 1.0
(Gemini) is among the test fixtures.

Shapes: a JSON array of messages (one run, ``result.all_messages()``); JSON Lines whose
lines are such arrays (one run per line, each its own trace); JSON Lines of single
messages (one run, appended message by message). A message is ``{"kind": "request" |
"response", "parts": [{"part_kind": ...}]}``.

Rounds: each ``ModelResponse`` is one round, one model response. Its text is its
``text`` parts (``thinking`` is reasoning, not what the model said); its calls are its
``tool-call`` parts (``tool_name``, ``args`` a JSON string or an object,
``tool_call_id``) and ``builtin-tool-call`` parts (run by the provider: their
``builtin-tool-return`` in the same response is the result). ``model_name`` is the
round's model, ``provider_response_id`` (older: ``vendor_id``) its id, ``finish_reason``
(``tool_call`` read as ``tool_calls``) its finish reason.

Results: a request's ``tool-return`` part answers the call with its ``tool_call_id``;
its ``content`` (any JSON value: strings as they are, the rest as JSON) is the text. A
tool that returned is no error (``outcome`` ``failed`` / ``denied``, newest versions,
is). A ``retry-prompt`` part that names a tool (``tool_name`` set) is that call's
**error** result: Pydantic AI writes one when the tool raised ``ModelRetry``, its
arguments failed validation, or no tool has that name; its ``content`` is the message or
the list of validation errors. A ``retry-prompt`` without a tool name (plain text where
structured output was wanted, an output validator's retry) answers no call and is not
read. A result naming no call read before is a warning.

Final output: a structured output is returned through an output tool (``final_result``
by default), answered with Pydantic AI's own ``Final result processed.``. Such a call is
the agent's answer, not a tool use: its round is read as the final answer, without
calls, its text the output's arguments (JSON) when the response has no text.

Tokens per round from ``usage``: ``input_tokens`` (older ``request_tokens``; the models
count cached tokens in it), ``output_tokens`` (older ``response_tokens``),
``cache_read_tokens`` as cached, ``details.reasoning_tokens`` as reasoning. A usage of
all zeros is Pydantic AI's default for a response whose model reported none: unknown.

Times: a round ends at the response's ``timestamp`` (when it was received) and starts at
its request's ``timestamp`` (1.x), else at the latest part timestamp of that request; a
result ends at its part's ``timestamp``.

User messages: ``user-prompt`` parts open turns (a list of text and media is joined, media
named by its ``kind``). System prompts and ``instructions`` are not turns.

Trace id: the messages' ``run_id`` (1.x), else the file's name (and line). Ending: the
last round without calls is ``answered``; the file holds no error or grade.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import (
    Counts,
    as_dict,
    as_list,
    as_str,
    brief,
    dump_json,
    finish_trace,
    make_trace,
    make_usage,
    new_call,
    parse_time,
)
from .contract import ReadContext, first_item, read_with_reader

FORMAT = "pydantic-ai"

_KINDS = ("request", "response")
# What Pydantic AI answers an output tool call with (``_output.py``): the call was the
# agent's final output, not a tool use.
_OUTPUT_PROCESSED = "Final result processed."
_REQUEST_PARTS = ("system-prompt", "user-prompt", "tool-return", "retry-prompt")
_RESPONSE_PARTS = ("text", "tool-call", "thinking", "builtin-tool-call", "builtin-tool-return", "file", "compaction")


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("kind") not in _KINDS:
        return False
    parts = value.get("parts")
    if not isinstance(parts, list):
        return False
    return not parts or (isinstance(parts[0], dict) and isinstance(parts[0].get("part_kind"), str))


def sniff(value: Any) -> bool:
    """A message list (or a line holding one message): ``kind`` request/response with
    ``parts`` carrying ``part_kind``, a shape no other format has."""
    return _is_message(first_item(value))


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.lines: _Run | None = None  # the run of a file of one message per line
        self.ctx = ctx

    def run(self, line: int) -> _Run:
        base = os.path.basename(self.ctx.file) or self.ctx.file
        return _Run(self.ctx, make_trace(None, FORMAT, self.ctx.file, base, line))

    def record(self, value: Any, line: int) -> list[Trace]:
        if isinstance(value, list):
            run = self.run(line)
            for index, message in enumerate(value):
                run.message(message, line, f" (message {index})")
            return [run.finish()]
        if isinstance(value, dict):
            if self.lines is None:
                self.lines = self.run(line)
            self.lines.trace.end_line = line
            self.lines.message(value, line, "")
            return []
        self.ctx.warn(line, f"JSON that is not a Pydantic AI message or message list ({brief(value)}) skipped")
        return []

    def close(self) -> list[Trace]:
        run, self.lines = self.lines, None
        return [run.finish()] if run is not None else []


class _Run:
    """One run's messages, read in order."""

    def __init__(self, ctx: ReadContext, trace: Trace) -> None:
        self.ctx = ctx
        self.trace = trace
        self.calls: dict[str, ToolCall] = {}
        self.output_calls: set[int] = set()  # id() of output tool calls (the final output)
        self.request_time: float | None = None  # when the latest request was sent

    def warn(self, line: int, reason: str) -> None:
        self.ctx.warn(line, reason)

    def message(self, message: Any, line: int, where: str) -> None:
        if not _is_message(message):
            self.warn(line, f"not a Pydantic AI message{where}: {brief(message)} skipped")
            return
        run_id = as_str(message.get("run_id"))
        if run_id and self.trace.id_base is not None:
            self.trace.id, self.trace.id_base = run_id, None
        if message["kind"] == "request":
            self.request(message, line, where)
        else:
            self.response(message, line, where)

    def time(self, value: Any, line: int) -> float | None:
        return parse_time(value, lambda reason: self.warn(line, reason))

    # --- requests --------------------------------------------------------------------

    def request(self, message: dict, line: int, where: str) -> None:
        latest = self.time(message.get("timestamp"), line)
        for part in message["parts"]:
            kind = part.get("part_kind") if isinstance(part, dict) else None
            if kind not in _REQUEST_PARTS:
                self.warn(line, f"request part of unknown kind {brief(kind)}{where} skipped")
                continue
            moment = self.time(part.get("timestamp"), line)
            if moment is not None and message.get("timestamp") is None:
                latest = moment if latest is None else max(latest, moment)
            if kind == "user-prompt":
                self.trace.add_user_message(_prompt_text(part.get("content")), at=moment, line=line)
            elif kind == "tool-return":
                outcome = part.get("outcome")
                self.result(part, ToolResult(content=_text(part.get("content")), is_error=outcome in ("failed", "denied"), ended_at=moment, line=line), line)
            elif kind == "retry-prompt" and part.get("tool_name") is not None:
                self.result(part, ToolResult(content=_text(part.get("content")), is_error=True, ended_at=moment, line=line), line)
        self.request_time = latest

    def result(self, part: dict, result: ToolResult, line: int) -> None:
        call_id = part.get("tool_call_id")
        call = self.calls.pop(call_id, None) if isinstance(call_id, str) else None
        if call is None:
            self.warn(line, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id)}")
            return
        call.result = result
        if result.content == _OUTPUT_PROCESSED and not result.is_error:
            self.output_calls.add(id(call))

    # --- responses -------------------------------------------------------------------

    def response(self, message: dict, line: int, where: str) -> None:
        trace = self.trace
        rnd = Round(index=len(trace.rounds) + 1, line=line, started_at=self.request_time)
        rnd.ended_at = self.time(message.get("timestamp"), line)
        rnd.model = as_str(message.get("model_name"))
        rnd.id = as_str(message.get("provider_response_id")) or as_str(message.get("vendor_id"))
        reason = as_str(message.get("finish_reason"))
        rnd.finish_reason = "tool_calls" if reason == "tool_call" else reason
        provider = as_str(message.get("provider_name"))
        if provider and "provider" not in trace.metadata:
            trace.metadata["provider"] = provider
        texts: list[str] = []
        builtin: dict[str, ToolCall] = {}
        for part in message["parts"]:
            kind = part.get("part_kind") if isinstance(part, dict) else None
            if kind == "text":
                if isinstance(part.get("content"), str):
                    texts.append(part["content"])
            elif kind in ("tool-call", "builtin-tool-call"):
                call = new_call(part.get("tool_call_id"), part.get("tool_name"), part.get("args") if part.get("args") is not None else {})
                rnd.tool_calls.append(call)
                if call.id:
                    (builtin if kind == "builtin-tool-call" else self.calls)[call.id] = call
            elif kind == "builtin-tool-return":
                call = builtin.pop(part.get("tool_call_id"), None) if isinstance(part.get("tool_call_id"), str) else None
                if call is None:
                    self.warn(line, f"trace {trace.id}: built-in tool result for unknown call id {brief(part.get('tool_call_id'))}")
                else:
                    outcome = part.get("outcome")
                    call.result = ToolResult(content=_text(part.get("content")), is_error=outcome in ("failed", "denied") if outcome is not None else None, ended_at=rnd.ended_at, line=line)
            elif kind not in _RESPONSE_PARTS:
                self.warn(line, f"response part of unknown kind {brief(kind)}{where} skipped")
        rnd.text = "\n".join(t for t in texts if t)
        rnd.usage = _usage(message.get("usage"), lambda reason: self.warn(line, reason))
        trace.rounds.append(rnd)
        trace.end_line = max(trace.end_line or line, line)
        self.request_time = None

    # --- end -------------------------------------------------------------------------

    def finish(self) -> Trace:
        for rnd in self.trace.rounds:
            outputs = [c for c in rnd.tool_calls if id(c) in self.output_calls]
            if outputs and len(outputs) == len(rnd.tool_calls):
                # The structured output: the run's answer, not a tool use.
                if not rnd.text:
                    rnd.text = "\n".join(c.arguments_raw for c in outputs)
                rnd.tool_calls = []
                rnd.finish_reason = "stop"
            if rnd.finish_reason is None:
                rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        return finish_trace(self.trace, self.ctx.diagnostics)


def _usage(raw: Any, warn) -> Any:
    if not isinstance(raw, dict):
        return None
    counts = Counts(raw, warn)
    input_tokens = counts.get("input_tokens", "request_tokens")
    output_tokens = counts.get("output_tokens", "response_tokens")
    if not input_tokens and not output_tokens:
        return None  # Pydantic AI's all-zero default: the model reported nothing
    cached = counts.get("cache_read_tokens")
    reasoning = counts.within("details").get("reasoning_tokens")
    return make_usage(input_tokens, output_tokens, cached, reasoning)


def _text(content: Any) -> str:
    if content is None:
        return ""
    return content if isinstance(content, str) else dump_json(content)


def _prompt_text(content: Any) -> str:
    """A user prompt: a string, or a list of strings and media (named by their kind)."""
    if isinstance(content, str):
        return content
    pieces = []
    for item in as_list(content):
        if isinstance(item, str):
            pieces.append(item)
        else:
            pieces.append(f"[{as_str(as_dict(item).get('kind')) or 'content'}]")
    return "\n".join(pieces)


__all__ = ["FORMAT", "read", "sniff"]
