"""AutoGen / AG2 message logs: the two shapes AutoGen's chats are dumped in.

**A. AG2 and AutoGen 0.2 chat histories** (``groupchat.messages``,
``ChatResult.chat_history``, an agent's ``chat_messages[peer]``, dumped with
``json.dump``; also ``{"chat_history": [...]}``, a dumped ``ChatResult``). Followed from
microsoft/autogen ``autogen/agentchat/conversable_agent.py`` (0.2 branch:
``_append_oai_message``, ``generate_code_execution_reply``, ``generate_tool_calls_reply``),
``autogen/agentchat/groupchat.py`` (``GroupChat.append`` names each message after its
speaker) and ``autogen/code_utils.py`` (``CODE_BLOCK_PATTERN``), and their ag2ai/ag2
successors (``normalize_message_to_oai``), AG2 0.2 to 0.9. A message is ``{content, role,
name}`` with optional ``tool_calls`` (``[{id, function: {name, arguments}, type}]``),
``function_call`` (``{name, arguments}``) or ``tool_responses`` (``[{tool_call_id,
role: "tool", content}]``, the joined contents also in ``content``).

- The first message is the task (a user message). After it, a speaker's message is one
  round: its content the text, its ``tool_calls`` / ``function_call`` its calls. Without
  speaker names, only ``assistant`` messages are rounds and ``user`` messages are user
  turns; a history recorded by the chat's initiator (whose own first message is
  ``assistant``) is read with the two roles swapped. The speaker of each round is kept in
  ``trace.metadata["speakers"]`` (one name per round; ``None`` where none is written).
- Code execution: AutoGen's executor answers a message holding fenced code blocks with
  ``exitcode: N (execution succeeded|failed)\\nCode output: ...``. That answer is the
  result of one call ``execute_code`` made by the round before it, whose arguments are the
  blocks (``{"language", "code"}``, or ``{"blocks": [...]}`` for several); a dump whose
  fences were lost gives the whole message as ``{"code": ...}``. The result's text is the
  code output; ``is_error`` is ``N != 0`` (124 is AutoGen's timeout). A code block no
  execution answers is only text.
- Tool results (``tool_responses``, or a ``tool`` message's ``tool_call_id``) attach by
  call id; a legacy ``function`` message to the latest function call of that name.
  AutoGen writes no error flag for tools: ``is_error`` is ``None``.
- No tokens, no times (the messages carry none). Empty auto-replies are skipped.
- A list of messages with speaker names but neither a tool response nor an execution
  result is not told apart from an OpenAI message list: it is read as ``openai-chat``.

**B. autogen-agentchat 0.4+ messages** (``[m.model_dump() for m in result.messages]``,
``TaskResult.model_dump()`` / ``model_dump_json()`` = ``{"messages": [...],
"stop_reason"}``, or one message per line). Followed from microsoft/autogen
``python/packages/autogen-agentchat/src/autogen_agentchat/messages.py`` (0.4 to 0.7:
``BaseChatMessage`` / ``BaseAgentEvent``: ``source``, ``models_usage``
(``RequestUsage {prompt_tokens, completion_tokens}``), ``metadata``, and from 0.5 on
``id`` and ``created_at``) and ``autogen_core`` ``FunctionCall {id, arguments, name}``,
``FunctionExecutionResult {content, name, call_id, is_error}``. By ``type``:

- ``TextMessage`` / ``MultiModalMessage`` / ``StructuredMessage``-like text: from
  ``source == "user"`` (or the task, the first message) a user message; else one round
  (an agent's reply), its speaker the ``source``.
- ``ToolCallRequestEvent``: one round whose calls are its ``content``; a ``ThoughtEvent``
  from the same source just before it gives the round its text.
- ``ToolCallExecutionEvent``: results by ``call_id`` with the result's ``is_error``.
- ``CodeGenerationEvent``: one round with an ``execute_code`` call (``{"code"}``); the
  next ``CodeExecutionEvent`` is its result (``result.exit_code`` != 0 is the error
  where the result is an object, else ``None``).
- Not rounds: ``ToolCallSummaryMessage`` (no model call: the results' summary),
  ``HandoffMessage``, ``StopMessage``, ``ModelClientStreamingChunkEvent`` (pieces of a
  message that follows whole), ``MemoryQueryEvent``, ``UserInputRequestedEvent``,
  ``SelectSpeakerEvent``, ``SelectorEvent``. An unknown ``type`` is a warning.
- Tokens: ``models_usage`` of the message that makes the round, else ``None``.
- Times: ``created_at`` (0.5+): a round ends at its message and starts at the message
  before it (its own ThoughtEvent and streamed chunks aside: they are part of the
  response); a result ends at its execution event. Older dumps have none.
- ``stop_reason`` goes to ``trace.metadata["stop_reason"]``.

Outcome: never set (no grade).
"""

from __future__ import annotations

import os
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
    content_text,
    finish_trace,
    make_trace,
    make_usage,
    new_call,
    parse_time,
    scalar_text,
)
from .contract import ReadContext, read_each

FORMAT = "autogen"

# AutoGen's executor reply: conversable_agent.generate_code_execution_reply.
_EXITCODE = re.compile(r"^exitcode: (-?\d+) \(execution (?:succeeded|failed)\)\n?(?:Code output: ?)?", re.S)
# code_utils.CODE_BLOCK_PATTERN (what the executor extracts).
_CODE_BLOCK = re.compile(r"```[ \t]*(\w+)?[ \t]*\r?\n(.*?)\r?\n[ \t]*```", re.S)

_CHAT_TYPES = ("TextMessage", "MultiModalMessage", "StructuredMessage")
_SKIPPED_TYPES = (
    "ToolCallSummaryMessage",
    "HandoffMessage",
    "StopMessage",
    "ModelClientStreamingChunkEvent",
    "MemoryQueryEvent",
    "UserInputRequestedEvent",
    "SelectSpeakerEvent",
    "SelectorEvent",
)
_AGENTCHAT_TYPES = frozenset(
    (*_CHAT_TYPES, *_SKIPPED_TYPES, "ToolCallRequestEvent", "ToolCallExecutionEvent", "ThoughtEvent", "CodeGenerationEvent", "CodeExecutionEvent")
)
_LOOKAHEAD = 200


# --- sniffing -------------------------------------------------------------------------------


def _is_agentchat_message(value: Any) -> bool:
    """One agentchat message as ``model_dump`` writes it: a known ``type``, a ``source``
    and ``models_usage`` (a CodeExecutionEvent holds ``result`` for ``content``)."""
    if not isinstance(value, dict) or as_str(value.get("type")) not in _AGENTCHAT_TYPES or not isinstance(value.get("source"), str):
        return False
    return "models_usage" in value and ("content" in value or "result" in value)


def _is_exitcode(message: Any) -> bool:
    return isinstance(message, dict) and isinstance(message.get("content"), str) and _EXITCODE.match(message["content"]) is not None


def _is_ag2_history(value: Any) -> bool:
    """A list of chat messages with AutoGen's marks: a tool_responses message or an
    executor's exitcode reply."""
    if not isinstance(value, list) or not value or not all(isinstance(m, dict) for m in value[:_LOOKAHEAD]):
        return False
    if any("type" in m for m in value[:_LOOKAHEAD]):
        return False
    if not all(("role" in m or "name" in m) and "content" in m or "tool_calls" in m for m in value[:_LOOKAHEAD]):
        return False
    return any(isinstance(m.get("tool_responses"), list) or _is_exitcode(m) for m in value[:_LOOKAHEAD])


def _messages_of(value: Any) -> tuple[str, list] | None:
    """('ag2' | 'agentchat', messages) of a whole document, else None."""
    if isinstance(value, dict):
        history = value.get("chat_history")
        if isinstance(history, list) and _is_ag2_history(history):
            return "ag2", history
        messages = value.get("messages")
        if isinstance(messages, list) and messages and _is_agentchat_message(messages[0]):
            return "agentchat", messages
        if isinstance(messages, list) and _is_ag2_history(messages):
            return "ag2", messages
        return None
    if isinstance(value, list) and value:
        if _is_agentchat_message(value[0]):
            return "agentchat", value
        if _is_ag2_history(value):
            return "ag2", value
    return None


def sniff(value: Any) -> bool:
    return _messages_of(value) is not None or _is_agentchat_message(value)


# --- reading --------------------------------------------------------------------------------


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    reader = _FileReader(ctx)
    return read_each(records, ctx, reader.record, reader.close, what="AutoGen record")


class _FileReader:
    """Whole documents are a trace each; single agentchat messages, one per line, are
    one trace for the file."""

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.lines: _AgentChat | None = None

    def record(self, value: Any, line: int) -> list[Trace]:
        found = _messages_of(value)
        if found is not None:
            kind, messages = found
            trace = make_trace(None, FORMAT, self.ctx.file, os.path.basename(self.ctx.file) or self.ctx.file, line)
            reader: _AgentChat | _Ag2 = _AgentChat(self.ctx, trace) if kind == "agentchat" else _Ag2(self.ctx, trace)
            if isinstance(value, dict) and "stop_reason" in value:
                trace.metadata["stop_reason"] = as_str(value.get("stop_reason"))
            for position, message in enumerate(messages):
                reader.message(message, line, position)
            return [reader.finish()]
        if _is_agentchat_message(value) or (self.lines is not None and isinstance(value, dict) and isinstance(value.get("type"), str) and "source" in value):
            if self.lines is None:
                trace = make_trace(None, FORMAT, self.ctx.file, os.path.basename(self.ctx.file) or self.ctx.file, line)
                self.lines = _AgentChat(self.ctx, trace)
            self.lines.trace.end_line = line
            self.lines.message(value, line, None)
            return []
        self.ctx.warn(line, f"not an AutoGen message or message list ({brief(value)}); skipped")
        return []

    def close(self) -> list[Trace]:
        if self.lines is None:
            return []
        trace = self.lines.finish()
        self.lines = None
        return [trace]


def _where(position: int | None) -> str:
    return "" if position is None else f" (message {position})"


class _Base:
    def __init__(self, ctx: ReadContext, trace: Trace) -> None:
        self.ctx = ctx
        self.trace = trace
        self.speakers: list[str | None] = []
        self.calls: dict[str, ToolCall] = {}

    def warn(self, line: int, position: int | None, reason: str) -> None:
        self.ctx.warn(line, f"{reason}{_where(position)}")

    def new_round(self, line: int, speaker: str | None, text: str = "") -> Round:
        rnd = Round(index=len(self.trace.rounds) + 1, line=line, text=text)
        self.trace.rounds.append(rnd)
        self.speakers.append(speaker)
        return rnd

    def finish(self) -> Trace:
        for rnd in self.trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        if any(s is not None for s in self.speakers):
            self.trace.metadata["speakers"] = self.speakers
        return finish_trace(self.trace, self.ctx.diagnostics)


class _Ag2(_Base):
    """An AG2 / AutoGen 0.2 message list (see the module docstring, A)."""

    def __init__(self, ctx: ReadContext, trace: Trace) -> None:
        super().__init__(ctx, trace)
        self.seen = 0
        self.swap = False
        self.named = False
        self.code_call: ToolCall | None = None  # the execute_code call awaiting its exitcode
        self.last_speaker_round: Round | None = None
        self.last_text = ""
        self.functions: list[ToolCall] = []

    def message(self, message: Any, line: int, position: int | None) -> None:
        if not isinstance(message, dict):
            self.warn(line, position, f"message {brief(message)} is not an object; skipped")
            return
        self.seen += 1
        role = message.get("role")
        name = as_str(message.get("name"))
        if self.seen == 1:
            self.named = name is not None
            self.swap = role == "assistant" and not self.named
            self.trace.add_user_message(content_text(message.get("content")), line=line)
            return
        if isinstance(message.get("tool_responses"), list) or role == "tool":
            self.tool_results(message, line, position)
            return
        if role == "function":
            self.function_result(message, line, position)
            return
        content = message.get("content")
        text = content_text(content)
        exit_match = _EXITCODE.match(text) if isinstance(content, str) else None
        if exit_match is not None:
            self.execution(int(exit_match.group(1)), text[exit_match.end() :], line, position)
            return
        if role == "assistant" and self.swap:
            role = "user"
        elif role == "user" and self.swap:
            role = "assistant"
        has_calls = bool(message.get("tool_calls")) or bool(message.get("function_call"))
        if not self.named and role != "assistant" and not has_calls:
            self.last_speaker_round = None
            self.trace.add_user_message(text, line=line)
            return
        if not text and not has_calls:
            return  # an empty auto-reply
        rnd = self.new_round(line, name)
        rnd.text = text
        self.last_speaker_round = rnd
        self.last_text = text
        self.code_call = None
        for raw in as_list(message.get("tool_calls")):
            call_dict = as_dict(raw)
            function = as_dict(call_dict.get("function"))
            call = new_call(call_dict.get("id"), function.get("name"), function.get("arguments"))
            rnd.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = call
        if message.get("tool_calls") is not None and not isinstance(message.get("tool_calls"), list):
            self.warn(line, position, f"tool_calls {brief(message.get('tool_calls'))} is not a list; no calls read")
        function_call = message.get("function_call")
        if isinstance(function_call, dict):
            call = new_call(None, function_call.get("name"), function_call.get("arguments"))
            rnd.tool_calls.append(call)
            self.functions.append(call)

    def execution(self, code: int, output: str, line: int, position: int | None) -> None:
        rnd = self.last_speaker_round
        if rnd is None:
            self.warn(line, position, "code execution result with no speaker message before it; skipped")
            return
        call = self.code_call
        if call is None or call.result is not None:
            call = new_call(None, "execute_code", _code_arguments(self.last_text))
            rnd.tool_calls.append(call)
        call.result = ToolResult(content=output, is_error=code != 0, line=line)
        self.code_call = call

    def tool_results(self, message: dict, line: int, position: int | None) -> None:
        responses = message.get("tool_responses")
        if not isinstance(responses, list):
            responses = [message]
        for response in responses:
            response = as_dict(response)
            call_id = scalar_text(response.get("tool_call_id"))
            call = self.calls.pop(call_id, None) if call_id else None
            if call is None:
                self.warn(line, position, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id or None)}")
                continue
            call.result = ToolResult(content=content_text(response.get("content")), line=line)

    def function_result(self, message: dict, line: int, position: int | None) -> None:
        name = scalar_text(message.get("name"))
        for call in reversed(self.functions):
            if call.result is None and (not name or call.name == name):
                call.result = ToolResult(content=content_text(message.get("content")), line=line)
                return
        self.warn(line, position, f"trace {self.trace.id}: function result {brief(name)} with no function call before it")


def _code_arguments(text: str) -> dict:
    blocks = [{"language": lang or "", "code": code} for lang, code in _CODE_BLOCK.findall(text)]
    if not blocks:
        return {"code": text}
    return blocks[0] if len(blocks) == 1 else {"blocks": blocks}


class _AgentChat(_Base):
    """autogen-agentchat 0.4+ messages (see the module docstring, B)."""

    def __init__(self, ctx: ReadContext, trace: Trace) -> None:
        super().__init__(ctx, trace)
        self.seen = 0
        self.thought: tuple[str, str] | None = None  # (source, text) of a ThoughtEvent
        self.last_time: float | None = None
        self.code_call: ToolCall | None = None

    def message(self, message: Any, line: int, position: int | None) -> None:
        if not isinstance(message, dict):
            self.warn(line, position, f"message {brief(message)} is not an object; skipped")
            return
        self.seen += 1
        kind = message.get("type")
        source = as_str(message.get("source"))
        moment = parse_time(message.get("created_at"), lambda reason: self.warn(line, position, reason), "created_at")
        before = self.last_time
        if moment is not None and kind not in ("ThoughtEvent", "ModelClientStreamingChunkEvent"):
            self.last_time = moment  # a thought or a chunk is part of the response that follows
        content = message.get("content")
        if kind in _CHAT_TYPES:
            text = content_text(content)
            if self.seen == 1 or source == "user":
                self.trace.add_user_message(text, at=moment, line=line)
            else:
                rnd = self.round(message, line, position, source, before, moment)
                rnd.text = text
            self.thought = None
        elif kind == "ThoughtEvent":
            self.thought = (source or "", content_text(content))
        elif kind == "ToolCallRequestEvent":
            if not isinstance(content, list):
                self.warn(line, position, f"ToolCallRequestEvent content {brief(content)} is not a list; skipped")
                return
            rnd = self.round(message, line, position, source, before, moment)
            if self.thought is not None and self.thought[0] == (source or ""):
                rnd.text = self.thought[1]
            self.thought = None
            for raw in content:
                item = as_dict(raw)
                call = new_call(item.get("id"), item.get("name"), item.get("arguments"))
                rnd.tool_calls.append(call)
                if call.id:
                    self.calls[call.id] = call
        elif kind == "ToolCallExecutionEvent":
            if not isinstance(content, list):
                self.warn(line, position, f"ToolCallExecutionEvent content {brief(content)} is not a list; no results read")
                return
            for raw in content:
                item = as_dict(raw)
                call_id = scalar_text(item.get("call_id"))
                call = self.calls.pop(call_id, None) if call_id else None
                if call is None:
                    self.warn(line, position, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id or None)}")
                    continue
                flag = item.get("is_error")
                call.result = ToolResult(content=content_text(item.get("content")), is_error=flag if isinstance(flag, bool) else None, ended_at=moment, line=line)
        elif kind == "CodeGenerationEvent":
            rnd = self.round(message, line, position, source, before, moment)
            self.code_call = new_call(None, "execute_code", {"code": content_text(content)})
            rnd.tool_calls.append(self.code_call)
            self.thought = None
        elif kind == "CodeExecutionEvent":
            self.code_result(message.get("result"), line, position, moment)
        elif kind in _SKIPPED_TYPES:
            pass
        else:
            self.warn(line, position, f"AutoGen message of unknown type {brief(kind)} skipped")

    def round(self, message: dict, line: int, position: int | None, source: str | None, before: float | None, moment: float | None) -> Round:
        rnd = self.new_round(line, source)
        rnd.started_at, rnd.ended_at = (before, moment) if moment is not None else (None, None)
        usage = message.get("models_usage")
        if isinstance(usage, dict):
            counts = Counts(usage, lambda reason: self.warn(line, position, reason), "models_usage")
            rnd.usage = make_usage(*counts.each("prompt_tokens", "completion_tokens"))
        elif usage is not None:
            self.warn(line, position, f"models_usage {brief(usage)} is not an object; read as unknown")
        return rnd

    def code_result(self, result: Any, line: int, position: int | None, moment: float | None) -> None:
        call = self.code_call
        if call is None or call.result is not None:
            self.warn(line, position, f"trace {self.trace.id}: code execution result with no code generation before it")
            return
        if isinstance(result, dict):
            code = result.get("exit_code")
            error = code != 0 if isinstance(code, int) and not isinstance(code, bool) else None
            call.result = ToolResult(content=content_text(result.get("output")), is_error=error, ended_at=moment, line=line)
        else:
            call.result = ToolResult(content=content_text(result), ended_at=moment, line=line)


# For the who-and-when reader, whose algorithm-generated runs are AG2 group chats.
EXECUTION_REPLY = _EXITCODE
Ag2History = _Ag2


__all__ = ["FORMAT", "read", "sniff"]
