"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Checked against Claude Code 1.0.x (inline sidechains) and 2.0.x (``agent-*.jsonl``
sub-agents) session entries: hand-made fixtures (``version`` 1.0.43 to 2.0.42) after
claude-code-log's test data; no real session is in the corpus.

One entry per line: ``{"type": "user"|"assistant"|"system"|"summary"|
"file-history-snapshot"|..., "uuid", "parentUuid", "sessionId", "timestamp", "message",
"requestId", "isSidechain", "agentId", "toolUseResult", ...}``; ``message`` is an
Anthropic Messages API message (blocks as read by the ``anthropic`` reader).

Traces: one per ``sessionId`` (entries without one belong to a trace named after the
file). Sub-agent runs are separate traces: sidechain entries (``isSidechain: true``)
with an ``agentId`` (the ``agent-<id>.jsonl`` files next to a session) form the trace
``<sessionId>/<agentId>``; older inline sidechains without an ``agentId`` are told
apart by their ``parentUuid`` chain, each chain starting at an entry whose parent is
not a sidechain entry already read, and are named ``<sessionId>/sidechain-<n>``. Their
metadata has ``parent_session`` and ``agent_id``. Entries are taken in file order; a
``uuid`` read before in the same trace (a copied entry) is skipped. All traces are
complete only at the end of the file, and are yielded in order of their first line.

Rounds: Claude Code writes one API response as several ``assistant`` entries, one per
content block, each repeating ``message.id``, ``requestId`` and the usage. Entries are
grouped by ``message.id`` (else ``requestId``), even when tool-result entries come
between them, so a round is one response and its tokens count once: the usage of the
group's last entry (the final count), the last non-null ``stop_reason``. A
``tool_use`` written twice (same id) is taken once. Assistant entries the
CLI makes up itself (``model: "<synthetic>"``, ``isApiErrorMessage``) are not rounds.

Results: ``tool_result`` blocks of ``user`` entries attach by ``tool_use_id``; the text
is the block's content (``toolUseResult`` repeats it in a per-tool structure and is
not used). Claude Code writes ``is_error: true`` on every failed call, so a block
without the flag is a success (``False``).

User messages: a ``user`` entry whose content is a string or ``text`` blocks is what the
user typed, at the entry's ``timestamp``; it opens a turn under the ``anthropic``
reader's rule (not while a call of the latest round awaits its result). Not user
messages: ``tool_result`` entries (results), entries the CLI writes itself (``isMeta``:
the local-command caveat, skill and hook context; ``isCompactSummary``: the summary
that continues a compacted session; ``isVisibleInTranscriptOnly``), the output of local
and shell-mode commands (``<local-command-stdout>``, ``<bash-input>``,
``<bash-stdout>`` ...) and the interrupt markers (``[Request interrupted by user]``). A
slash command the user typed (``<command-name>/review</command-name>``,
``<command-args>``) is a user message with the command as it was typed (``/review
src``), unless the CLI ran it itself (``/clear``, ``/compact``, ``/model``: its
``<local-command-stdout>`` follows); its expansion is ``isMeta``. In a sub-agent's
trace the prompt its parent gave it is the user message.

Times (Unix seconds from each entry's ISO ``timestamp``): there is no request start on
disk, so a round starts at the timestamp of the entry before its first entry in the
same trace (the user prompt or tool result that triggered the call; ``None`` for a
trace's first entry) and ends at the timestamp of its last entry. A tool call starts
at the entry that carried its ``tool_use`` and its result ends at the entry that
carried the ``tool_result``.

Not rounds: ``summary`` entries (their texts go to ``metadata["summaries"]`` of the
trace holding their ``leafUuid``, else of the file's first main trace),
``system``/``file-history-snapshot``/``progress`` and other bookkeeping entries. Usage
and finish reasons follow the ``anthropic`` reader (``input_tokens`` plus the cache
counts; ``cache_read_input_tokens`` as cached).

Ending: a session whose last response-like entry is an API error
(``isApiErrorMessage``, with no real response after it) gets ``trace.error`` (its text)
and ``ending="error"``; one whose last response stopped at ``max_tokens`` without an
answer, ``ending="limit"``; a last response without tool calls, ``answered``.

Outcome: sessions carry no grade, so none is set; only a labels file gives one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ..model import Round, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item
from .anthropic import CallTracker, conclude, content_blocks_text, finish_reason, usage_from
from .common import as_str, failure, finish_trace, parse_time, visible_text

FORMAT = "claude-code"

# Entries the CLI writes as "user" that nobody typed (see the module docstring).
_CLI_FLAGS = ("isMeta", "isCompactSummary", "isVisibleInTranscriptOnly")
_LOCAL_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>")
_NOT_TYPED = (
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: The messages below were generated by the user while running local commands",
    "[Request interrupted by user",
)
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)

_CONVERSATION = ("user", "assistant")
_META_KEYS = ("cwd", "version", "gitBranch")


def sniff(value: Any) -> bool:
    item = first_item(value)
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind in ("user", "assistant", "system") and isinstance(item.get("message"), dict):
        return "sessionId" in item or "uuid" in item
    return kind in ("summary", "file-history-snapshot") and ("leafUuid" in item or "messageId" in item or "snapshot" in item)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    reader = _Reader(ctx)
    for record in records:
        values = record.value if isinstance(record.value, list) else [record.value]
        for value in values:  # a .json array of entries reads like the lines of a .jsonl
            try:
                reader.entry(value, record.line)
            except Exception as exc:  # one odd entry must not cost the rest of the file
                ctx.warn(record.line, f"could not read this entry ({failure(exc)})")
    yield from reader.close()


class _Session:
    """One trace being rebuilt: its rounds by response id, the last time seen."""

    __slots__ = ("trace", "calls", "rounds", "uuids", "last_time", "api_error", "command")

    def __init__(self, trace: Trace, ctx: ReadContext) -> None:
        self.trace = trace
        self.calls = CallTracker(trace, ctx, absent_is_false=True)
        self.rounds: dict[str, Round] = {}
        self.uuids: set[str] = set()
        self.last_time: float | None = None
        self.api_error: str | None = None
        # A slash command not yet known to be the agent's (text, line, time): the CLI's
        # own commands (/clear, /compact) are followed by their local output instead.
        self.command: tuple[str, int, float | None] | None = None

    def say_command(self) -> None:
        if self.command is not None:
            text, line, moment = self.command
            self.command = None
            self.calls.user_message([], line, moment, text=text)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.base = os.path.basename(ctx.file) or ctx.file
        self.sessions: dict[tuple[str, str | None], _Session] = {}
        self.owner: dict[str, tuple[str, str | None]] = {}  # entry uuid -> its trace key
        self.sidechains: dict[str, int] = {}  # inline sidechain runs counted per session
        self.summaries: list[tuple[int, str, str | None]] = []

    # routing --------------------------------------------------------------------------

    def entry(self, value: Any, line: int) -> None:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            self.ctx.warn(line, "JSON that is not a Claude Code entry (an object with a 'type')")
            return
        kind = value["type"]
        if kind == "summary":
            text = value.get("summary")
            if isinstance(text, str):
                self.summaries.append((line, text, as_str(value.get("leafUuid"))))
            else:
                self.ctx.warn(line, "summary entry without a 'summary' text")
            return
        if kind in _CONVERSATION:
            if not isinstance(value.get("message"), dict):
                self.ctx.warn(line, f"{kind} entry without a 'message' object skipped")
                return
        elif kind != "system" or not as_str(value.get("sessionId")):
            return  # snapshots, progress and queue bookkeeping: not part of the conversation
        key = self.key_of(value)
        session = self.sessions.get(key)
        if session is None:
            session = self.sessions[key] = self.new_session(key, value, line)
        uuid = as_str(value.get("uuid"))
        if uuid is not None:
            if uuid in session.uuids:
                return  # the same entry copied again
            session.uuids.add(uuid)
            self.owner[uuid] = key
        session.trace.end_line = line
        moment = parse_time(value.get("timestamp"), session.calls.warner(line), "timestamp")
        if kind == "assistant":
            if value.get("isApiErrorMessage") is not True and value["message"].get("model") != "<synthetic>":
                session.say_command()  # the agent answers it
            self.assistant(session, value, line, moment)
        elif kind == "user":
            content = value["message"].get("content")
            what, text = _user_entry(value, content)
            if what == "local output":
                session.command = None  # the CLI ran the command itself
            elif what != "cli":
                session.say_command()
            if what == "command":
                session.command = (text, line, moment)
            session.calls.user_message(content, line, moment, text=text, speaks=what == "said")
        if moment is not None:
            session.last_time = moment

    def key_of(self, value: dict) -> tuple[str, str | None]:
        session_id = as_str(value.get("sessionId")) or self.base
        if value.get("isSidechain") is not True:
            return (session_id, None)
        agent = as_str(value.get("agentId"))
        if agent is not None:
            return (session_id, agent)
        parent = self.owner.get(as_str(value.get("parentUuid")) or "")
        if parent is not None and parent[0] == session_id and parent[1] is not None:
            return parent  # the next entry of an inline sidechain run
        count = self.sidechains.get(session_id, 0) + 1
        self.sidechains[session_id] = count
        return (session_id, f"sidechain-{count}")

    def new_session(self, key: tuple[str, str | None], value: dict, line: int) -> _Session:
        session_id, agent = key
        trace_id = session_id if agent is None else f"{session_id}/{agent}"
        trace = Trace(id=trace_id, format=FORMAT, file=self.ctx.file, line=line, end_line=line)
        for name in _META_KEYS:
            if as_str(value.get(name)):
                trace.metadata[name] = value[name]
        if agent is not None:
            trace.metadata["parent_session"] = session_id
            trace.metadata["agent_id"] = agent
        return _Session(trace, self.ctx)

    # entries ----------------------------------------------------------------------------

    def assistant(self, session: _Session, value: dict, line: int, moment: float | None) -> None:
        message = value["message"]
        if value.get("isApiErrorMessage") is True:
            text = content_blocks_text(message.get("content")).strip()
            session.api_error = text or as_str(value.get("error")) or "API error"
            return
        if message.get("model") == "<synthetic>":
            return  # written by the CLI (e.g. after an interrupt), not by the model
        group = as_str(message.get("id")) or as_str(value.get("requestId")) or f"line {line}"
        rnd = session.rounds.get(group)
        if rnd is None:
            rnd = Round(
                index=len(session.trace.rounds) + 1,
                line=line,
                id=as_str(message.get("id")),
                model=as_str(message.get("model")),
                started_at=session.last_time,
            )
            session.rounds[group] = rnd
            session.trace.rounds.append(rnd)
        if moment is not None:
            rnd.ended_at = moment
        usage = usage_from(message.get("usage"), session.calls.warner(line))
        if usage is not None:
            rnd.usage = usage  # entries repeat it; the last one is the final count
        reason = finish_reason(message.get("stop_reason"))
        if reason is not None:
            rnd.finish_reason = reason
        session.calls.assistant_blocks(rnd, message.get("content"), line, moment)
        session.api_error = None  # a real response came after any earlier API error

    # end of file --------------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        sessions = sorted(self.sessions.values(), key=lambda s: s.trace.line or 0)
        self.attach_summaries(sessions)
        self.sessions.clear()
        self.owner.clear()
        for session in sessions:
            trace = session.trace
            session.say_command()
            if session.api_error is not None:
                trace.error = session.api_error
            session.calls.settle()
            conclude(trace)
            yield finish_trace(trace, self.ctx.diagnostics)

    def attach_summaries(self, sessions: list[_Session]) -> None:
        if not self.summaries:
            return
        if not sessions:
            self.ctx.warn(self.summaries[0][0], "only summary entries, no conversation: no trace to read")
            return
        fallback = next((s for s in sessions if "agent_id" not in s.trace.metadata), sessions[0])
        for _line, text, leaf in self.summaries:
            key = self.owner.get(leaf or "")
            session = self.sessions.get(key) if key is not None else None
            (session or fallback).trace.metadata.setdefault("summaries", []).append(text)


def _user_entry(entry: dict, content: Any) -> tuple[str, str]:
    """What a ``user`` entry is, with what the user typed: ("said", text), ("command",
    "/name args"), or ("result" | "cli" | "local output" | "noise", "") for tool
    results, text the CLI wrote itself, a local command's output and other text nobody
    typed to the agent (see the module docstring)."""
    if any(entry.get(flag) is True for flag in _CLI_FLAGS):
        return "cli", ""
    blocks = content if isinstance(content, list) else ()
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return "result", ""
    text = visible_text(content)
    command = _COMMAND.search(text)
    if command is not None:
        args = _COMMAND_ARGS.search(text)
        return "command", f"{command.group(1)} {args.group(1).strip() if args else ''}".strip()
    start = text.lstrip()
    if start.startswith(_LOCAL_OUTPUT):
        return "local output", ""
    if start.startswith(_NOT_TYPED):
        return "noise", ""
    return "said", text
