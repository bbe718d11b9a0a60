"""Tool executions recorded apart from the model calls that asked for them (LangSmith tool
runs, OpenTelemetry tool spans): each is paired with its call, or is the only record of
the call and rebuilds it from the tool's input."""

from __future__ import annotations

import ast
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from .common import brief, dump_json, new_call
from .contract import ReadContext


def _python_literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def input_call(call_id: str | None, name: str, value: Any) -> ToolCall:
    """A call rebuilt from a tool run's input (no model message recorded it)."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "["):
            try:
                parsed = orjson.loads(text)
            except orjson.JSONDecodeError:
                parsed = _python_literal(text)  # LangChain writes str(dict)
                if isinstance(parsed, (dict, list)):
                    return ToolCall(id=call_id or "", name=name, arguments_raw=dump_json(parsed), arguments=parsed)
            else:
                if isinstance(parsed, (dict, list)):
                    return ToolCall(id=call_id or "", name=name, arguments_raw=value, arguments=parsed)
        # Free text (a ReAct "Action Input"): kept as text, not a JSON error.
        return ToolCall(id=call_id or "", name=name, arguments_raw=value, arguments=value)
    return new_call(call_id, name, value)


class Linker:
    """Attaches tool results to the calls of earlier rounds."""

    def __init__(self, trace: Trace, ctx: ReadContext, noun: str = "tool run") -> None:
        self.trace = trace
        self.ctx = ctx
        self.noun = noun  # how warnings name a tool execution
        self.by_id: dict[str, ToolCall] = {}
        self.open: list[ToolCall] = []
        self.last: Round | None = None
        self.last_native = False

    def add_round(self, rnd: Round) -> None:
        self.trace.rounds.append(rnd)
        self.last = rnd
        self.last_native = bool(rnd.tool_calls)
        for call in rnd.tool_calls:
            self._register(call, rnd.line)

    def _register(self, call: ToolCall, line: int | None) -> None:
        if call.id:
            if call.id in self.by_id and self.by_id[call.id].result is None:
                self.ctx.warn(line, f"trace {self.trace.id}: call id {brief(call.id)} reused before its result arrived")
            self.by_id[call.id] = call
        self.open.append(call)

    def _answer(self, call: ToolCall, result: ToolResult) -> None:
        call.result = result
        self.open.remove(call)

    def add_result(self, name: str, call_id: str | None, result: ToolResult, make_call) -> None:
        line = result.line
        if call_id:
            call = self.by_id.get(call_id)
            if call is not None:
                if call.result is None:
                    self._answer(call, result)
                else:
                    self.ctx.warn(line, f"trace {self.trace.id}: second result for call id {brief(call_id)} ignored (the first is kept)")
                return
        else:
            call = next((c for c in self.open if c.name == name), None)
            if call is None and self.last is not None and self.last_native:
                call = next((c for c in self.open if c in self.last.tool_calls), None)
            if call is not None:
                self._answer(call, result)
                return
        if self.last is not None and not self.last_native:
            # The latest round made no native calls (text actions, or content not
            # recorded): the tool execution is the only record of its call.
            call = make_call()
            call.result = result
            self.last.tool_calls.append(call)
            if call.id:
                self.by_id[call.id] = call
            return
        if call_id:
            self.ctx.warn(line, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id)}")
        elif self.last is None:
            self.ctx.warn(line, f"trace {self.trace.id}: {self.noun} {brief(name)} before any model round; skipped")
        else:
            self.ctx.warn(line, f"trace {self.trace.id}: {self.noun} {brief(name)} matches no call awaiting a result; skipped")
