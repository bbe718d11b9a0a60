"""LangChain / LangGraph transcripts: serialized messages and AgentExecutor steps.

Checked against langchain-core 0.1.x messages (no ``tool_calls`` / ``usage_metadata``)
and later ones with those fields (hand-made fixtures; that later version is not
recorded).

Shapes read (each a whole record unless said otherwise):

- ``messages_to_dict`` lists: ``[{"type": "ai", "data": {...}}, ...]``; also the plain
  ``model_dump()`` of a message (the ``data`` part alone) as list items;
- ``dumpd`` lists: ``[{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}]``;
- a list of such lists (several conversations in one document);
- a state dict ``{"messages": [...]}`` (a LangGraph result), id from ``thread_id``/``id``/``run_id``;
- AgentExecutor ``intermediate_steps``: ``[[action, observation], ...]`` with a plain or
  ``dumpd`` AgentAction / ToolAgentAction, or AgentStep objects;
- the AgentExecutor result ``{"input", "output", "intermediate_steps"}``;
- a file of one message per line, or one step per line: the whole file is one trace.

One AI message (or one AgentExecutor model response) is one round. Messages carry no
timestamps, so rounds, results and user messages have none.

User messages: every human message (``HumanMessage``, ``type: "human"``, a
``ChatMessage`` with role user/human) is a user message at its place in the list (its
text: the string content or its text blocks) and opens a turn; the first one's text is
also ``metadata["input"]``. A human message that only carries ``tool_result`` blocks is
a result, not something said. The AgentExecutor result's ``input`` is the user message
of its run. System messages are not user messages. ``ToolMessage`` ``status: "error"``
→ ``is_error`` True, ``"success"`` → False, else unknown.

Ending: the AgentExecutor's own "Agent stopped due to iteration limit or time limit."
output → ``trace.error`` and ``ending="limit"``; a last AI message without tool calls →
``answered``; else unknown. Outcome: never set: the format carries no grade (hitting a
limit is how the run ended, not a verdict); a labels file gives one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .chat_messages import ai_calls, lc_constructor, message_usage, parse_message
from .contract import ReadContext, first_item
from .common import (
    Warn,
    as_dict,
    as_list,
    as_str_or_int,
    attach_result,
    brief,
    content_text,
    dump_json,
    failure,
    finish_trace,
    make_trace,
    new_call,
    scalar_text,
    visible_text,
)

FORMAT = "langchain"

_ACTION_CLASSES = ("AgentAction", "AgentActionMessageLog", "ToolAgentAction", "OpenAIToolAgentAction")

# What AgentExecutor returns as "output" when it gives up (the "force" stopping method;
# the second is the wording of older releases). No model produced it.
_STOPPED_OUTPUTS = (
    "Agent stopped due to iteration limit or time limit.",
    "Agent stopped due to max iterations.",
)

_UNKNOWN_SHAPE = "JSON that matches no known LangChain shape"


# --- recognising shapes -------------------------------------------------------------


def _action(value: Any) -> dict | None:
    """The fields of an AgentAction (plain dict or ``dumpd``), else None."""
    lc = lc_constructor(value)
    if lc is not None:
        return lc[1] if lc[0] in _ACTION_CLASSES else None
    if isinstance(value, dict) and "tool" in value and "tool_input" in value:
        return value
    return None


def _step(value: Any) -> tuple[dict, Any] | None:
    """(action fields, observation) of one intermediate step, else None."""
    if isinstance(value, list) and len(value) == 2:
        action = _action(value[0])
        return (action, value[1]) if action is not None else None
    lc = lc_constructor(value)
    if lc is not None and lc[0] == "AgentStep":
        fields = lc[1]
    elif isinstance(value, dict) and "action" in value and "observation" in value:
        fields = value
    else:
        return None
    action = _action(fields.get("action"))
    return (action, fields.get("observation")) if action is not None else None


def _is_conversation(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and parse_message(value[0]) is not None


def _record_id(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    for key in ("id", "run_id", "thread_id"):
        found = value.get(key)
        if isinstance(found, (str, int)) and not isinstance(found, bool) and found != "":
            return str(found)
    run = value.get("__run")  # AgentExecutor(include_run_info=True)
    if isinstance(run, dict) and isinstance(run.get("run_id"), str) and run["run_id"]:
        return run["run_id"]
    return None


# --- building traces ----------------------------------------------------------------


class _Builder:
    """One trace under construction and the calls still waiting for their results."""

    __slots__ = ("trace", "pending", "idless", "step_key", "kind")

    def __init__(self, trace_id: str | None, line: int, ctx: ReadContext, kind: str, index: int | None = None) -> None:
        self.trace = make_trace(trace_id, FORMAT, ctx.file, os.path.basename(ctx.file), line, index)
        self.pending: dict[str, ToolCall] = {}
        self.idless: list[ToolCall] = []  # legacy function_call calls, paired by name
        self.step_key: Any = None  # which model response the last step came from
        self.kind = kind

    def register(self, call: ToolCall, line: int, ctx: ReadContext) -> None:
        if not call.id:
            self.idless.append(call)
            return
        if call.id in self.pending:
            ctx.warn(line, f"trace {self.trace.id}: call id {brief(call.id)} reused before its result arrived")
        self.pending[call.id] = call


def _first_str(mapping: dict, *keys: str) -> str | None:
    for key in keys:
        if isinstance(mapping.get(key), str) and mapping[key]:
            return mapping[key]
    return None


def _ai_round(fields: dict, line: int, warn: Warn | None = None) -> Round:
    response = as_dict(fields.get("response_metadata"))
    msg_id = fields.get("id")
    return Round(
        index=0,  # numbered by finish_trace
        text=visible_text(fields.get("content")),
        usage=message_usage(fields, warn),
        finish_reason=_first_str(response, "finish_reason", "stop_reason", "done_reason"),
        line=line,
        id=as_str_or_int(msg_id),
        model=_first_str(response, "model_name", "model", "model_id"),
    )


def _add_message(b: _Builder, kind: str, fields: dict, line: int, ctx: ReadContext) -> None:
    trace = b.trace
    trace.end_line = max(trace.end_line or line, line)
    if kind == "chat" and scalar_text(fields.get("role")).lower() in ("assistant", "ai"):
        kind = "ai"
    if kind == "ai":
        rnd = _ai_round(fields, line, lambda reason: ctx.warn(line, f"trace {trace.id}: {reason}"))
        for call in ai_calls(fields):
            b.register(call, line, ctx)
            rnd.tool_calls.append(call)
        trace.rounds.append(rnd)
    elif kind == "tool":
        status = fields.get("status")
        result = ToolResult(
            content=content_text(fields.get("content")),
            is_error=True if status == "error" else False if status == "success" else None,
            line=line,
        )
        call_id = fields.get("tool_call_id")
        attach_result(trace, b.pending, scalar_text(call_id) if call_id is not None else None, result, ctx.diagnostics, line)
    elif kind == "function":
        # Legacy function calling has no ids: pair with the oldest open call of that name.
        name = fields.get("name")
        match = next((c for c in b.idless if c.name == name), None)
        if match is None:
            ctx.warn(line, f"trace {trace.id}: function result {brief(name)} matches no open call")
            return
        b.idless.remove(match)
        match.result = ToolResult(content=content_text(fields.get("content")), line=line)
    elif kind == "human" or (kind == "chat" and scalar_text(fields.get("role")).lower() in ("user", "human")):
        content = fields.get("content")
        text = visible_text(content)
        if not text and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in as_list(content)):
            return  # tool results in a human message: nothing said
        trace.metadata.setdefault("input", text)
        trace.add_user_message(text, line=line)
    # system, other chat roles and RemoveMessage carry nothing a round needs.


def _step_call(call_id: Any, name: Any, tool_input: Any) -> ToolCall:
    if isinstance(tool_input, str):
        # A ReAct "Action Input" is free text (a query, a path, ...), not JSON: keep it
        # as the raw string without a parse error. Only a JSON object/array is parsed.
        parsed: Any = tool_input
        if tool_input.lstrip()[:1] in ("{", "["):
            try:
                decoded = orjson.loads(tool_input)
            except orjson.JSONDecodeError:
                decoded = None
            if isinstance(decoded, (dict, list)):
                parsed = decoded
        return ToolCall(
            id=scalar_text(call_id),
            name=scalar_text(name),
            arguments_raw=tool_input,
            arguments=parsed,
        )
    return new_call(call_id, name, tool_input)


def _observation(value: Any) -> tuple[str, bool | None]:
    message = parse_message(value)
    if message is not None and message[0] == "tool":  # a tool that returned a ToolMessage
        status = message[1].get("status")
        is_error = True if status == "error" else False if status == "success" else None
        return content_text(message[1].get("content")), is_error
    return content_text(value), None


def _add_step(b: _Builder, action: dict, observation: Any, line: int, ctx: ReadContext) -> None:
    trace = b.trace
    trace.end_line = max(trace.end_line or line, line)
    # Tool-calling agents keep the model's message in message_log; its parallel calls
    # become consecutive steps sharing it, which are one model response = one round.
    ai = None
    for item in as_list(action.get("message_log")):
        message = parse_message(item)
        if message is not None and message[0] == "ai":
            ai = message[1]
    key = None
    if ai is not None:
        key = ai.get("id") or dump_json(ai)
    if key is not None and key == b.step_key and trace.rounds:
        rnd = trace.rounds[-1]
    else:
        if ai is not None:
            # The model's own message; the action's log is then LangChain's
            # "Invoking: `tool` with ..." line, not model text.
            rnd = _ai_round(ai, line, lambda reason: ctx.warn(line, f"trace {trace.id}: {reason}"))
        else:
            rnd = Round(index=0, text=content_text(action.get("log")), line=line)
        trace.rounds.append(rnd)
    b.step_key = key
    name = action.get("tool")
    call = _step_call(action.get("tool_call_id"), name, action.get("tool_input"))
    content, is_error = _observation(observation)
    if name == "_Exception":
        # AgentExecutor's stand-in for an output the parser could not read.
        is_error = True
    call.result = ToolResult(content=content, is_error=is_error, line=line)
    rnd.tool_calls.append(call)


def _add_steps(b: _Builder, steps: list, line: int, ctx: ReadContext) -> None:
    for k, item in enumerate(steps, 1):
        step = _step(item)
        if step is None:
            ctx.warn(line, f"trace {b.trace.id}: intermediate step {k} is not an [action, observation] pair")
            continue
        _add_step(b, step[0], step[1], line, ctx)


def _add_messages(b: _Builder, messages: list, line: int, ctx: ReadContext) -> None:
    for k, item in enumerate(messages, 1):
        message = parse_message(item)
        if message is None:
            ctx.warn(line, f"trace {b.trace.id}: item {k} is not a LangChain message")
            continue
        _add_message(b, message[0], message[1], line, ctx)


def _executor_result(value: dict, line: int, ctx: ReadContext) -> Trace:
    b = _Builder(_record_id(value), line, ctx, "executor")
    trace = b.trace
    if value.get("input") is not None:
        trace.metadata["input"] = content_text(value["input"])
        trace.add_user_message(trace.metadata["input"], line=line)
    _add_steps(b, value["intermediate_steps"], line, ctx)
    output = value.get("output")
    if isinstance(output, str) and output.strip() in _STOPPED_OUTPUTS:
        # The executor wrote this itself when it gave up: no model answered, so it is
        # no round, and the run ended without an answer.
        trace.error = output.strip()
        trace.ending = "limit"
    elif output is not None:
        trace.rounds.append(Round(index=0, text=content_text(output), line=line))
    return finish_trace(trace, ctx.diagnostics)


# --- the reader ---------------------------------------------------------------------


def _classify(value: Any) -> str | None:
    if isinstance(value, dict):
        if parse_message(value) is not None:
            return "message"
        if _step(value) is not None or _action(value) is not None:
            return "step"
        if isinstance(value.get("intermediate_steps"), list):
            return "executor"
        if _is_conversation(value.get("messages")):
            return "state"
        return None
    if isinstance(value, list) and value:
        if _step(value) is not None:
            return "step"
        first = value[0]
        if parse_message(first) is not None:
            return "messages"
        if _step(first) is not None:
            return "steps"
        if _is_conversation(first):
            return "conversations"
    return None


_LANGCHAIN_TYPES = ("human", "ai", "tool", "system", "function", "chat")


def _is_langchain_message(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("lc") == 1:
        return True
    kind = obj.get("type")
    # messages_to_dict writes chunk classes by their class name ("AIMessageChunk").
    if kind in _LANGCHAIN_TYPES or (isinstance(kind, str) and kind.endswith("MessageChunk")):
        if isinstance(obj.get("data"), dict):
            return True
        # A bare message.model_dump(): content plus LangChain's metadata dicts.
        return "content" in obj and ("additional_kwargs" in obj or "response_metadata" in obj)
    return False


def sniff(value: Any) -> bool:
    item = first_item(value)
    if isinstance(item, dict):
        if _is_langchain_message(item):
            return True
        if isinstance(item.get("intermediate_steps"), list):
            return True
        if "tool" in item and "tool_input" in item:
            return True
        # A LangGraph state {"messages": [...]} of LangChain (not OpenAI) messages.
        messages = item.get("messages")
        if isinstance(messages, list) and messages and _is_langchain_message(messages[0]):
            return True
    if isinstance(item, list) and item and isinstance(item[0], dict):
        if _is_langchain_message(item[0]):  # several conversations in one document
            return True
        action = item[0]
        return len(item) == 2 and "tool" in action and "tool_input" in action
    return False


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    # A file of one message (or one step) per line is one trace, built across records.
    stream: _Builder | None = None

    def close_stream() -> Trace:
        nonlocal stream
        built, stream = stream, None
        return finish_trace(built.trace, ctx.diagnostics)

    for record in records:
        value, line = record.value, record.line
        try:
            kind = _classify(value)
            if kind in ("message", "step"):
                if stream is not None and stream.kind != kind:
                    yield close_stream()
                if stream is None:
                    stream = _Builder(None, line, ctx, kind)
                if kind == "message":
                    message = parse_message(value)
                    _add_message(stream, message[0], message[1], line, ctx)
                else:
                    step = _step(value)
                    if step is None:  # a bare action line: the observation may sit beside it
                        action = _action(value)
                        step = (action, action.get("observation"))
                    _add_step(stream, step[0], step[1], line, ctx)
                continue
            if stream is not None:
                yield close_stream()
            if kind is None:
                ctx.warn(line, _UNKNOWN_SHAPE if value != [] else "empty list: no LangChain messages or steps")
            elif kind == "executor":
                yield _executor_result(value, line, ctx)
            elif kind == "state":
                b = _Builder(_record_id(value), line, ctx, kind)
                _add_messages(b, value["messages"], line, ctx)
                yield finish_trace(b.trace, ctx.diagnostics)
            elif kind == "messages":
                b = _Builder(None, line, ctx, kind)
                _add_messages(b, value, line, ctx)
                yield finish_trace(b.trace, ctx.diagnostics)
            elif kind == "steps":
                b = _Builder(None, line, ctx, kind)
                _add_steps(b, value, line, ctx)
                yield finish_trace(b.trace, ctx.diagnostics)
            elif kind == "conversations":
                for k, conversation in enumerate(value, 1):
                    b = _Builder(None, line, ctx, kind, k)
                    if isinstance(conversation, list):
                        _add_messages(b, conversation, line, ctx)
                    else:
                        ctx.warn(line, f"conversation {k} is not a list of LangChain messages")
                        continue
                    yield finish_trace(b.trace, ctx.diagnostics)
        except Exception as exc:  # noqa: BLE001 - one odd record must not cost the rest of the file
            ctx.warn(line, f"could not read this record ({failure(exc)})")
    if stream is not None:
        yield close_stream()
