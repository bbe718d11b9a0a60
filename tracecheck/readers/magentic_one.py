"""Magentic-One orchestrator logs: the JSON Lines ``log.jsonl`` the original
``autogen-magentic-one`` package writes (its ``LogHandler``), or that log's entries
dumped as one JSON array (``LogHandler.logs_list`` / ``MagenticOneHelper.get_all_logs``).

Followed from microsoft/autogen ``python/packages/autogen-magentic-one`` (late 2024 to
early 2025, before the package was replaced by ``autogen_ext.teams.magentic_one``, whose
runs are agentchat messages read by the ``autogen`` reader): ``src/autogen_magentic_one/
utils.py`` (``LogHandler.emit``: each line ``{"timestamp", "source", "message", "type"}``
with ``type`` ``OrchestrationEvent`` or ``AgentEvent``, ``{"timestamp", "type":
"WebSurferEvent", "source", "url", "action", "arguments", "message"}`` and
``{"timestamp", "prompt_tokens", "completion_tokens", "type": "LLMCallEvent"}``),
``agents/base_orchestrator.py`` (every broadcast logged with its sender as ``source``;
``<name> (termination condition)`` with ``Max rounds (N) reached.``, ``Max time (Ns)
reached.``, ``<source> requested halt.`` or ``No agent selected.``; ``<name> (thought)``
``Next speaker <agent>``) and ``agents/orchestrator.py`` (the ledger orchestrator's
``<name> (thought)`` plans and ledgers, ``<name> (-> <agent>)`` instructions,
``<name> (error)``). Forks add ``(update ledger)`` and ``(final answer)`` sources.

Reading (the orchestrator's name is whatever precedes `` (`` in those sources,
``Orchestrator`` in the package):

- The first message from another source, before any instruction, is the task (a user
  message).
- ``<orchestrator> (-> <agent>)`` is one round: a call whose tool name is the agent and
  whose arguments are ``{"instruction": <message>}``; the round's text is the
  orchestrator's thoughts since its last round. The next message whose source is that
  agent is the call's result (no error flag: ``is_error`` is ``None``). A message from an
  agent no instruction is waiting for is a warning.
- ``<orchestrator> (final answer)`` is a round without calls (the answer).
- ``<orchestrator> (termination condition)``: ``Max rounds`` / ``Max time`` end the run
  by a limit (``ending="limit"``); the text goes to ``trace.metadata["termination"]``.
  ``<orchestrator> (error)`` is ``trace.error``.
- ``(thought)``, ``(update ledger)`` and the orchestrator's own plain messages are its
  thoughts (``Next speaker <agent>``, the base orchestrator's bookkeeping, is left out); ``AgentEvent`` and ``WebSurferEvent`` lines (an agent's own steps) are not
  rounds.
- Tokens: ``LLMCallEvent`` lines count every model call of every agent, with no link to a
  round: their sum is ``trace.usage_total``; rounds have ``None``.
- Times: each line's ``timestamp`` (``datetime.isoformat()`` of local time, no zone: read
  as UTC). A round ends at its instruction and starts at the line before it; a result
  ends at the agent's message.

A run ends at its termination condition: entries after it (a log the next run appended
to) are another trace. Outcome: never set (no grade).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import Counts, as_str, brief, content_text, finish_trace, make_trace, make_usage, new_call, parse_time
from .contract import ReadContext, read_each

FORMAT = "magentic-one"

_EVENT_TYPES = ("OrchestrationEvent", "AgentEvent", "WebSurferEvent", "LLMCallEvent")
# "<name> (<role>)": the orchestrator's sources.
_ORCHESTRATOR_SOURCE = re.compile(r"^(.+?) \((-> .+|thought|termination condition|final answer|update ledger|error)\)$", re.S)
_LIMIT = re.compile(r"^Max (?:rounds|time) \(")
_LOOKAHEAD = 50


def _is_entry(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") in _EVENT_TYPES:
        return "timestamp" in value
    # logs_list dumps without a type: the LogHandler's three keys.
    return "type" not in value and {"timestamp", "source", "message"} <= set(value) and isinstance(value.get("source"), str)


def sniff(value: Any) -> bool:
    if isinstance(value, list) and value:
        entries = value[:_LOOKAHEAD]
        return all(_is_entry(v) for v in entries) and any(_ORCHESTRATOR_SOURCE.match(v.get("source") or "") for v in entries if isinstance(v.get("source"), str))
    return isinstance(value, dict) and value.get("type") in _EVENT_TYPES and "timestamp" in value


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    reader = _Reader(ctx)
    return read_each(records, ctx, reader.record, reader.close, what="Magentic-One log entry")


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.trace: Trace | None = None
        self.waiting: dict[str, ToolCall] = {}  # agent -> the call awaiting its answer
        self.thoughts: list[str] = []
        self.last_time: float | None = None
        self.tokens: list[int | None] = [None, None]
        self.speakers: list[str] = []
        self.orchestrators: set[str] = set()
        self.ended = False

    def start(self) -> None:
        self.trace = None
        self.waiting = {}
        self.thoughts = []
        self.last_time = None
        self.tokens = [None, None]
        self.speakers = []
        self.ended = False  # a termination condition was logged: the run is over

    def session(self, line: int) -> Trace:
        if self.trace is None:
            base = os.path.basename(self.ctx.file) or self.ctx.file
            self.trace = make_trace(None, FORMAT, self.ctx.file, base, line)
        self.trace.end_line = line
        return self.trace

    def record(self, value: Any, line: int) -> list[Trace]:
        finished: list[Trace] = []
        if isinstance(value, list):
            for position, entry in enumerate(value):
                finished += self.entry(entry, line, f" (array element {position})")
        else:
            finished += self.entry(value, line, "")
        return finished

    def entry(self, entry: Any, line: int, where: str) -> list[Trace]:
        if not _is_entry(entry):
            self.ctx.warn(line, f"not a Magentic-One log entry ({brief(entry)}){where}; skipped")
            return []
        finished = self.close() if self.ended else []  # the next run in the same log
        self.on_entry(entry, line, where)
        return finished

    def on_entry(self, entry: dict, line: int, where: str) -> None:
        trace = self.session(line)
        kind = entry.get("type", "OrchestrationEvent")
        moment = parse_time(entry.get("timestamp"), lambda reason: self.ctx.warn(line, reason + where), "timestamp")
        before = self.last_time
        if moment is not None:
            self.last_time = moment
        if kind == "LLMCallEvent":
            counts = Counts(entry, lambda reason: self.ctx.warn(line, reason + where), "")
            for position, count in enumerate(counts.each("prompt_tokens", "completion_tokens")):
                if count is not None:
                    self.tokens[position] = (self.tokens[position] or 0) + count
            return
        if kind in ("AgentEvent", "WebSurferEvent"):
            return
        source = as_str(entry.get("source"))
        text = content_text(entry.get("message"))
        if source is None:
            self.ctx.warn(line, f"log entry with no source{where}; skipped")
            return
        role = _ORCHESTRATOR_SOURCE.match(source)
        if role is None:
            self.agent_message(trace, source, text, line, where, moment)
            return
        name, what = role.group(1), role.group(2)
        self.orchestrators.add(name)
        if what.startswith("-> "):
            agent = what[3:]
            rnd = Round(index=len(trace.rounds) + 1, line=line, text="\n\n".join(self.thoughts), started_at=before if moment is not None else None, ended_at=moment)
            call = new_call(None, agent, {"instruction": text})
            rnd.tool_calls.append(call)
            trace.rounds.append(rnd)
            self.speakers.append(name)
            self.thoughts = []
            if agent in self.waiting:
                self.ctx.warn(line, f"trace {trace.id}: {brief(agent)} was instructed again before it answered{where}")
            self.waiting[agent] = call
        elif what == "final answer":
            rnd = Round(index=len(trace.rounds) + 1, line=line, text=text, started_at=before if moment is not None else None, ended_at=moment)
            trace.rounds.append(rnd)
            self.speakers.append(name)
            self.thoughts = []
        elif what == "termination condition":
            trace.metadata["termination"] = text
            self.ended = True
            if _LIMIT.match(text):
                trace.ending = "limit"
        elif what == "error":
            trace.error = text
        elif not text.startswith("Next speaker "):  # the base orchestrator's bookkeeping
            self.thoughts.append(text)

    def agent_message(self, trace: Trace, source: str, text: str, line: int, where: str, moment: float | None) -> None:
        call = self.waiting.pop(source, None)
        if call is not None:
            call.result = ToolResult(content=text, ended_at=moment, line=line)
        elif source in self.orchestrators:
            self.thoughts.append(text)  # the orchestrator's own message under its plain name
        elif not trace.rounds:
            trace.add_user_message(text, at=moment, line=line)
        else:
            self.ctx.warn(line, f"trace {trace.id}: message from {brief(source)} with no instruction waiting for it{where}")

    def close(self) -> list[Trace]:
        trace = self.trace
        if trace is None:
            return []
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        trace.usage_total = make_usage(*self.tokens)
        if self.speakers:
            trace.metadata["speakers"] = self.speakers
        if trace.error is not None and trace.ending is None:
            trace.ending = "error"
        self.start()
        return [finish_trace(trace, self.ctx.diagnostics)]


# For the who-and-when reader, whose hand-crafted runs are Magentic-One logs.
ORCHESTRATOR_SOURCE = _ORCHESTRATOR_SOURCE
LogReader = _Reader


__all__ = ["FORMAT", "read", "sniff"]
