"""Gemini CLI sessions: chat recordings (``~/.gemini/tmp/<project>/chats/session-*.json``
and, from CLI 0.39, ``session-*.jsonl``) and chats saved with ``/chat save <tag>``
(``~/.gemini/tmp/<project>/checkpoint-<tag>.json``).

Followed from the tool's own source, google-gemini/gemini-cli (CLI 0.6, when chat
recording came, to the 0.4x releases of 2026): ``packages/core/src/services/
chatRecordingService.ts`` and ``chatRecordingTypes.ts`` (``ConversationRecord``,
``MessageRecord``, ``ToolCallRecord``, ``TokensSummary``; ``recordMessageTokens`` for
what each count is; the JSONL log's ``$set`` and ``$rewindTo`` records and
``loadConversationRecord``), ``packages/core/src/core/logger.ts`` (``saveCheckpoint``,
``logs.json``), ``packages/cli/src/ui/commands/chatCommand.ts`` (``/chat save``) and
``packages/core/src/utils/environmentContext.ts`` (the startup exchange of a history).

Three shapes:

1. **session document** (CLI 0.6 to 0.38, ``session-<time>-<id8>.json``, rewritten whole
   on each change): ``{"sessionId", "projectHash", "startTime", "lastUpdated",
   "messages": [...], "summary"?, "kind"?: "main"|"subagent"}``;
2. **session log** (CLI 0.39 on, ``.jsonl``, appended): a first line of session
   metadata (the document without ``messages``), then message records; a message is
   written again, whole, each time it changes (its tokens, its tool calls), and the
   later copy replaces the earlier in place; ``{"$set": {...}}`` updates metadata (a
   ``messages`` list in it replaces the messages read so far); ``{"$rewindTo": id}``
   drops that message and all after it (all of them when no message has that id);
3. **saved chat** (``/chat save``): the Gemini API history, a list of ``Content``
   ``{"role": "user"|"model", "parts": [...]}``, bare (older CLIs) or as
   ``{"history": [...], "authType"?}``. No tokens, no times (``None``).

A message (``id``, ``timestamp``, ``type``, ``content``: a string or a list of parts):
``user`` opens a turn with its text; ``gemini`` is one round, one model response: its
text (``content``; parts marked ``thought`` are reasoning, not text), its ``model``,
its ``tokens`` and its ``toolCalls``. ``info`` and ``warning`` messages are the CLI's
own notes; an ``error`` message after the last round (an API error the CLI showed) is
``trace.error`` (``ending="error"``). A ``user`` message holding only
``functionResponse`` parts is the tool results sent back (newer CLIs copy the API
history into the log): not a user turn. The startup context the CLI sends as the first
user content (``<session_context>``, or in a saved chat the first user content and the
model's ``Got it. Thanks for the context!``) is not the user's and not a response.

Calls (``ToolCallRecord``): ``id``, ``name``, ``args``; the result is the call's
``result`` parts: a ``functionResponse`` whose ``response`` is ``{"output": ...}`` or
``{"error": ...}`` (its text is the result), else ``resultDisplay`` when it is text.
Errors from the call's ``status``: ``error`` and ``cancelled`` (the user refused the
call; it did not run) are errors, ``success`` is none; without a status, a
``functionResponse`` ``error`` is one. The shell tool (``run_shell_command``) reports a
command that exits non-zero as a success whose text has an ``Exit Code: N`` line
(``tools/shell.ts``): that line makes it an error. A call still ``executing`` or ``scheduled``
with no result parts has no result. A result's end time is the call's ``timestamp``.
In a saved chat, a ``model`` content's ``functionCall`` parts (``name``, ``args``,
``id``) are the calls and the next ``user`` content's ``functionResponse`` parts their
results, paired on ``id`` (else on the name of the first call still waiting).

Tokens (``TokensSummary``, from the API's ``usageMetadata``): ``input`` is
``promptTokenCount``, which already holds the cached tokens (``cached``,
``cachedContentTokenCount``, a part of the prompt); ``tool`` is
``toolUsePromptTokenCount`` (prompt tokens of the tool-use prompt): input is
``input + tool``. ``output`` is ``candidatesTokenCount``, which leaves the thinking
out: output is ``output + thoughts`` and ``thoughts`` is the reasoning count, so input
plus output is the API's ``totalTokenCount`` (``total``): googleapis/js-genai's
``GenerateContentResponseUsageMetadata`` says so of each count, and the real session of
the fixtures adds up (7269 + 46 + 58 = 7373). The CLI writes 0 for a count the API did
not send: a summary whose counts are all 0 is unknown (``None``).

Times (Unix seconds from ``timestamp``): a round ends at its message's time (written
when the response was recorded) and starts at the latest time before it (the previous
message, or the previous round's last tool call); a user message is at its time.

The trace id is ``sessionId``; metadata: ``projectHash``, ``kind``, ``summary``. A
saved chat has no id: it is named after its file. Outcome: never set (no grade).
An unknown line, message type or role is a warning naming the line.
"""

from __future__ import annotations

import re
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
    error_ending,
    file_trace,
    finish_trace,
    make_usage,
    new_call,
    parse_time,
)
from .contract import ReadContext, read_with_reader

FORMAT = "gemini-cli"

_CONTENT_KEYS = frozenset(("role", "parts"))
_CONTENT_ROLES = ("user", "model")
_META_KEYS = ("projectHash", "kind", "summary")
_NOTES = ("info", "warning")
# What the CLI sends as the first user content itself (environmentContext.ts), and the
# model turn it puts after it without asking the model.
_STARTUP_CONTEXT = ("<session_context>", "This is the Gemini CLI. We are setting up the context for our chat.")
_STARTUP_REPLY = "Got it. Thanks for the context!"
_ERROR_STATUSES = ("error", "cancelled")
# The shell tool reports a command's exit code in its text (tools/shell.ts), not as a
# tool error: ``Exit Code: N`` on a line of its own, written only when N is not 0.
_SHELL = "run_shell_command"
_EXIT_LINE = re.compile(r"^Exit Code: (-?\d+)$", re.M)


def sniff(value: Any) -> bool:
    if _is_contents(value):
        return True
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str):
        return True
    return set(value) <= {"history", "authType"} and _is_contents(value.get("history"))


def is_prompt_log(value: Any) -> bool:
    """``logs.json``, the user prompts the CLI keeps for its input history (logger.ts):
    ``[{"sessionId", "messageId", "timestamp", "type": "user", "message"}]``; no replies."""
    if not isinstance(value, list) or not value:
        return False
    return all(
        isinstance(entry, dict)
        and isinstance(entry.get("sessionId"), str)
        and isinstance(entry.get("messageId"), int)
        and isinstance(entry.get("message"), str)
        and "type" in entry
        for entry in value[:5]
    )


def _is_contents(value: Any) -> bool:
    if not isinstance(value, list) or not value:
        return False
    return all(
        isinstance(item, dict) and set(item) <= _CONTENT_KEYS and item.get("role") in _CONTENT_ROLES and isinstance(item.get("parts"), list)
        for item in value[:20]
    )


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.start()

    def start(self) -> None:
        self.trace: Trace | None = None
        # A session log's messages by id, in order: (message, line of its first copy).
        self.messages: dict[str, tuple[dict, int]] = {}

    def session(self, line: int) -> Trace:
        if self.trace is None:
            self.trace = file_trace(FORMAT, self.ctx.file, line)
        return self.trace

    def record(self, value: Any, line: int) -> list[Trace]:
        if _is_contents(value) or (isinstance(value, dict) and "history" in value and "sessionId" not in value):
            finished = list(self.close())
            contents = value if isinstance(value, list) else value.get("history")
            if not isinstance(contents, list):
                self.ctx.warn(line, f"saved chat whose history is {brief(contents)}, not a list; skipped")
                return finished
            trace = self.session(line)
            trace.metadata["shape"] = "checkpoint"
            if isinstance(value, dict) and as_str(value.get("authType")):
                trace.metadata["authType"] = value["authType"]
            _Contents(self.ctx, trace, line).read(contents)
            finished.extend(self.close())
            return finished
        if not isinstance(value, dict):
            self.ctx.warn(line, f"JSON that is not a Gemini CLI session record (an object) skipped: {brief(value)}")
            return []
        finished: list[Trace] = []
        if isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str) and "id" not in value:
            finished = self.meta(value, line)
            if isinstance(value.get("messages"), list):  # the whole-document shape
                self.replace(value["messages"], line)
                finished.extend(self.close())
            return finished
        trace = self.session(line)
        trace.end_line = line
        if "$rewindTo" in value:
            self.rewind(value["$rewindTo"], line)
        elif isinstance(value.get("$set"), dict):
            updates = value["$set"]
            self.take_meta(updates)
            if isinstance(updates.get("messages"), list):
                self.replace(updates["messages"], line)
        elif isinstance(value.get("id"), str):
            first = self.messages.get(value["id"])
            self.messages[value["id"]] = (value, first[1] if first else line)
        else:
            self.ctx.warn(line, f"Gemini CLI session line of unknown shape skipped (keys {brief(', '.join(sorted(map(str, value))[:8]))})")
        return finished

    def meta(self, value: dict, line: int) -> list[Trace]:
        """A session's metadata: names the trace; another session's starts a new one."""
        finished: list[Trace] = []
        if self.trace is not None and (self.messages or self.trace.id_base is None) and self.trace.id != value["sessionId"]:
            finished = list(self.close())
        trace = self.session(line)
        trace.end_line = line
        if trace.id_base is not None:
            trace.id, trace.id_base = value["sessionId"], None
        self.take_meta(value)
        return finished

    def take_meta(self, values: dict) -> None:
        trace = self.trace
        if trace is None:
            return
        for key in _META_KEYS:
            if as_str(values.get(key)):
                trace.metadata[key] = values[key]

    def replace(self, messages: list, line: int) -> None:
        self.messages = {}
        for index, message in enumerate(messages):
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                self.messages[message["id"]] = (message, line)
            else:
                self.ctx.warn(line, f"messages[{index}] is not a message record (an object with an id): {brief(message)}; skipped")

    def rewind(self, target: Any, line: int) -> None:
        ids = list(self.messages)
        if isinstance(target, str) and target in self.messages:
            ids = ids[ids.index(target) :]
        for message_id in ids:
            del self.messages[message_id]

    def close(self) -> Iterator[Trace]:
        trace = self.trace
        if trace is None:
            return
        messages = list(self.messages.values())
        self.start()
        _Messages(self.ctx, trace).read(messages)
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        yield finish_trace(trace, self.ctx.diagnostics)


# --- session messages -------------------------------------------------------------------


class _Messages:
    """A session's message records -> rounds, calls, user messages (module docstring)."""

    def __init__(self, ctx: ReadContext, trace: Trace) -> None:
        self.ctx = ctx
        self.trace = trace
        self.last_time: float | None = None
        self.error: str | None = None

    def read(self, messages: list[tuple[dict, int]]) -> None:
        for message, line in messages:
            where = f"message {brief(message.get('id'))}"
            kind = message.get("type")
            moment = parse_time(message.get("timestamp"), lambda reason: self.ctx.warn(line, f"{where}: {reason}"))
            if kind == "user":
                self.user(message, line, moment)
            elif kind == "gemini":
                self.response(message, line, moment, where)
            elif kind == "error":
                self.error = _text(message.get("content"))[0] or "error"
            elif kind not in _NOTES:
                self.ctx.warn(line, f"{where} of unknown type {brief(kind)} skipped")
            if moment is not None:
                self.last_time = max(moment, self.last_time or moment)
        if self.error is not None:
            self.trace.error = self.error
            self.trace.ending = error_ending(self.error)

    def user(self, message: dict, line: int, moment: float | None) -> None:
        text, responses = _text(message.get("content"))
        if responses and not text:
            return  # the tool results sent back, already on their calls
        opening = not self.trace.rounds and not self.trace.user_messages
        if opening and text.lstrip().startswith(_STARTUP_CONTEXT):
            return
        self.trace.add_user_message(text, at=moment, line=line)

    def response(self, message: dict, line: int, moment: float | None, where: str) -> None:
        trace = self.trace
        rnd = Round(index=len(trace.rounds) + 1, line=line, started_at=self.last_time, ended_at=moment)
        rnd.id = as_str(message.get("id"))
        rnd.model = as_str(message.get("model"))
        rnd.text = _text(message.get("content"))[0]
        tokens = message.get("tokens")
        if tokens is not None:
            rnd.usage = _usage(tokens, lambda reason: self.ctx.warn(line, f"{where}: {reason}"))
        for k, record in enumerate(as_list(message.get("toolCalls"))):
            if not isinstance(record, dict):
                self.ctx.warn(line, f"{where}: toolCalls[{k}] is {brief(record)}, not a tool call; skipped")
                continue
            call = new_call(record.get("id"), record.get("name"), record.get("args") if record.get("args") is not None else {})
            ended = parse_time(record.get("timestamp"), lambda reason: self.ctx.warn(line, f"{where}: {reason}"))
            call.result = _call_result(record, ended, line)
            rnd.tool_calls.append(call)
            if ended is not None:
                self.last_time = max(ended, self.last_time or ended)
        trace.rounds.append(rnd)
        self.error = None  # the model answered after any earlier error


def _usage(tokens: Any, warn) -> Any:
    if not isinstance(tokens, dict):
        warn(f"tokens {brief(tokens)} is not a token summary; read as unknown")
        return None
    counts = Counts(tokens, warn, "tokens")
    prompt, candidates, cached, thoughts, tool, total = counts.each("input", "output", "cached", "thoughts", "tool", "total")
    if not any((prompt, candidates, cached, thoughts, tool, total)):
        return None  # all 0 (or absent): what the CLI writes when the API sent no usage
    input_tokens = None if prompt is None else prompt + (tool or 0)
    output_tokens = None if candidates is None else candidates + (thoughts or 0)
    return make_usage(input_tokens, output_tokens, cached, thoughts)


def _call_result(record: dict, ended: float | None, line: int) -> ToolResult | None:
    status = record.get("status")
    parts = record.get("result")
    content, responses = _text(parts, with_responses=True)
    failed = None
    for response in responses:
        body = as_dict(response.get("response"))
        if "error" in body:
            failed = True
        elif "output" in body and failed is None:
            failed = False
    if not responses and parts is None:
        display = record.get("resultDisplay")
        if isinstance(display, str):
            content = display
        elif status not in ("success", *_ERROR_STATUSES):
            return None  # not finished when it was written
    if status in _ERROR_STATUSES:
        failed = True
    elif status == "success":
        failed = False
    if failed is False and record.get("name") == _SHELL:
        failed = _exit_failed(content)
    return ToolResult(content=content, is_error=failed, ended_at=ended, line=line)


def _exit_failed(text: str) -> bool:
    exit_line = _EXIT_LINE.search(text)
    return exit_line is not None and int(exit_line.group(1)) != 0


def _text(content: Any, with_responses: bool = False) -> tuple[str, list[dict]]:
    """A ``PartListUnion``'s visible text (thought parts left out; a function response's
    output or error only ``with_responses``) and the ``functionResponse`` objects it holds."""
    if content is None:
        return "", []
    if isinstance(content, str):
        return content, []
    parts = content if isinstance(content, list) else [content]
    texts: list[str] = []
    responses: list[dict] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            texts.append(dump_json(part))
        elif isinstance(part.get("functionResponse"), dict):
            response = part["functionResponse"]
            responses.append(response)
            if with_responses:
                texts.append(_response_text(response.get("response")))
        elif part.get("thought") is True:
            continue
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("inlineData"), dict) or isinstance(part.get("fileData"), dict):
            data = as_dict(part.get("inlineData") or part.get("fileData"))
            texts.append(f"[{brief(data.get('mimeType'))}]")
    return "\n".join(t for t in texts if t), responses


def _response_text(body: Any) -> str:
    if isinstance(body, dict):
        for key in ("output", "error"):
            value = body.get(key)
            if value is not None:
                return value if isinstance(value, str) else dump_json(value)
    return "" if body is None else dump_json(body)


# --- saved chats ------------------------------------------------------------------------


class _Contents:
    """A saved chat's Gemini API history -> rounds, calls, user messages."""

    def __init__(self, ctx: ReadContext, trace: Trace, line: int) -> None:
        self.ctx = ctx
        self.trace = trace
        self.line = line
        self.waiting: list[ToolCall] = []

    def read(self, contents: list) -> None:
        start = 2 if _starts_with_context(contents) else 0
        for index in range(start, len(contents)):
            content = contents[index]
            role = content.get("role") if isinstance(content, dict) else None
            parts = content.get("parts") if isinstance(content, dict) else None
            if role not in _CONTENT_ROLES or not isinstance(parts, list):
                self.ctx.warn(self.line, f"history[{index}] is not a user or model content: {brief(content)}; skipped")
                continue
            if role == "model":
                self.model(parts)
            else:
                self.user(parts, index)
        for rnd in self.trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"

    def model(self, parts: list) -> None:
        rnd = Round(index=len(self.trace.rounds) + 1, line=self.line)
        rnd.text = _text(parts)[0]
        for part in parts:
            call = as_dict(part).get("functionCall")
            if isinstance(call, dict):
                made = new_call(call.get("id"), call.get("name"), call.get("args") if call.get("args") is not None else {})
                rnd.tool_calls.append(made)
                self.waiting.append(made)
        self.trace.rounds.append(rnd)

    def user(self, parts: list, index: int) -> None:
        text, responses = _text(parts)
        for response in responses:
            call = self.match(response)
            if call is None:
                self.ctx.warn(self.line, f"trace {self.trace.id}: history[{index}]: tool result for unknown call {brief(response.get('id') or response.get('name'))}")
                continue
            body = as_dict(response.get("response"))
            failed = True if "error" in body else (False if "output" in body else None)
            if failed is False and call.name == _SHELL:
                failed = _exit_failed(_response_text(body))
            call.result = ToolResult(content=_response_text(response.get("response")), is_error=failed, line=self.line)
        if text or not responses:
            self.trace.add_user_message(text, line=self.line)

    def match(self, response: dict) -> ToolCall | None:
        call_id = as_str(response.get("id"))
        for position, call in enumerate(self.waiting):
            if (call_id and call.id == call_id) or (not call_id and call.name == response.get("name")):
                return self.waiting.pop(position)
        return None


def _starts_with_context(contents: list) -> bool:
    if len(contents) < 2 or not all(isinstance(c, dict) for c in contents[:2]):
        return False
    first, second = contents[0], contents[1]
    reply = _text(second.get("parts"))[0] if second.get("role") == "model" else None
    return first.get("role") == "user" and reply == _STARTUP_REPLY


__all__ = ["FORMAT", "is_prompt_log", "read", "sniff"]
