"""Codex CLI sessions: rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``)
and ``codex exec --json`` event streams.

Followed from the tool's own source, openai/codex ``codex-rs``, as stored at commits of
the CLI's 0.4x to 0.6x releases (late 2025 to 2026): ``protocol/src/protocol.rs``
(``RolloutLine``, ``RolloutItem``, ``SessionMetaLine``, ``TokenCountEvent`` /
``TokenUsageInfo`` / ``TokenUsage``, ``ExecCommandEndEvent``), ``protocol/src/models.rs``
(``ResponseItem``, ``FunctionCallOutputPayload``, ``LocalShellAction``),
``core/src/rollout/policy.rs`` (which items and events are written),
``core/src/tools/mod.rs`` (``format_exec_output_for_model_structured`` / ``_freeform``:
how a shell result is written back to the model) and ``exec/src/exec_events.rs`` (the
exec stream). The 2025 bare-line rollouts predate those commits: their shape is the one
the typed lines wrap (a ``ResponseItem`` per line) after a first line of session meta.

Three shapes; a file may join several sessions (each its own trace):

1. **typed lines** (2025-09 on): ``{"timestamp", "type", "payload"}`` with ``type``
   ``session_meta`` (``id``, ``cwd``, ``cli_version``, ``originator``, ``git`` ...),
   ``turn_context`` (``model``, ``cwd`` ...), ``response_item`` (a ``ResponseItem``),
   ``event_msg`` (``payload.type``: ``token_count``, ``user_message``,
   ``agent_message``, ``exec_command_end``, ``error``, ``turn_aborted`` ...) and
   ``compacted``;
2. **bare lines** (2025 before the typed wrapper): a first line of session meta
   (``{"id", "timestamp", "instructions", "git"}``), then bare response items, with
   ``{"record_type": "state"}`` bookkeeping lines between them. No per-line times;
3. **exec event streams** (``codex exec --json``): described at the end.

The trace id is the session id (the first session meta's ``id``; a fork writes its
parent's meta after its own, which is not read), else the file name. A session meta
with another id after the session's first round or user message starts another trace
(rollouts joined into one file). Metadata: ``cwd``, ``cli_version``, ``originator``,
``model_provider``, ``forked_from_id``, the git ``branch``.

Rounds: consecutive model items (an assistant ``message``, ``reasoning``,
``function_call``, ``custom_tool_call``, ``local_shell_call``, ``web_search_call``) are
one round, one model response; a tool output, a user message or a ``token_count``
event (written when a response completes) ends it. The round's text is its assistant
messages' ``output_text`` parts (reasoning is not what the model said); its model is
the latest ``turn_context`` model.

Calls: ``function_call`` (``name``, ``arguments`` a JSON string, ``call_id``),
``custom_tool_call`` (free-text ``input``, e.g. ``apply_patch``), ``local_shell_call``
(``action.command``, named ``local_shell``) pair with ``function_call_output`` /
``custom_tool_call_output`` on ``call_id``. ``web_search_call`` runs on the server: its
result is its status. An output naming no call read before is a warning.

Errors, from the tool's own flag: the exit code Codex writes into a shell result (the
structured ``{"output", "metadata": {"exit_code"}}`` JSON, whose ``output`` is the
result's text, or the freeform ``Exit code: N`` / ``Process exited with code N`` header,
whose ``Output:`` body is the text), else an ``exec_command_end`` event's ``exit_code``
for that call (written only in extended persistence), else an output object's
``success`` (older writers); else Codex's own notes for a call that could not run
(``execution error: …``, ``failed in sandbox …``, ``unsupported call: …``, ``failed to
parse function arguments …``, a patch that did not apply) are errors; else ``None``. A
failed ``web_search_call`` is an error.

Tokens: ``event_msg`` ``token_count`` carries ``info.last_token_usage`` (the response
that just completed; older writers put the counts flat in the payload): it goes to the
latest round when that round has no usage yet. A count repeating the previous total
(``info.total_token_usage``), or with no round waiting for it, is not a response's.
Input counts include cached ones (``cached_input_tokens``), as in the Responses API;
``reasoning_output_tokens`` is the reasoning count. Rounds without one have ``None``.

User messages: a ``user`` ``message`` item opens a turn with its ``input_text`` parts,
except the context Codex injects itself (``<environment_context>``,
``<user_instructions>``, ``# AGENTS.md instructions`` ...). ``event_msg``
``user_message`` / ``agent_message`` repeat the items and are not read.

Times (Unix seconds from each line's ``timestamp``): a round starts at the line before
its first item (what the request followed) and ends at its last item; a call's result
ends at its output line. Bare lines have none.

Ending: the last round without calls is ``answered``; an ``error`` event after the last
round sets ``trace.error`` (``ending="error"``). Outcome: never set (no grade).

**Exec event streams** (``codex-rs/exec/src/exec_events.rs``,
``ThreadEvent``/``ThreadItem``, CLI 0.44 on; ``trace.metadata["shape"]`` is
``exec-json``): ``thread.started`` (``thread_id``, the trace id; another one later in
the file starts another trace), ``turn.started``, ``item.started`` / ``item.completed``
(``item``: ``id``, ``type``), ``turn.completed`` (``usage``), ``turn.failed`` and
``error`` (``message``: ``trace.error``, ``ending="error"`` unless a round follows).
The stream has no response boundaries and no times: an ``agent_message`` opens a round
unless the open round has no call yet; a tool item (``command_execution``: ``shell``
with ``{"command"}``, ``mcp_tool_call`` by its ``tool`` name, ``file_change``:
``apply_patch``, ``web_search``, ``collab_tool_call``) joins the open round while one
of its calls is still running or it has none yet (parallel calls), else opens one; a
``reasoning`` item after finished calls starts a new round. Results come with the
item's completion: ``aggregated_output`` with ``exit_code`` ≠ 0 as the error, the MCP
``result`` content or ``error``, a ``failed``/``declined`` status. Usage is per turn
only (``input_tokens``, ``cached_input_tokens``, ``output_tokens`` of all the turn's
responses): its sum is ``trace.usage_total``, rounds have none. The prompt is not in the
stream: a ``turn.started`` after the first opens a turn with an empty user message.
``todo_list``, ``plan`` and ``error`` items are not calls.

Not rounds: ``developer``/``system`` messages, ``ghost_snapshot``, ``compaction``,
``turn_context``, ``compacted`` and the other events. An unknown line or item type is a
warning naming the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import Counts, as_str, brief, dump_json, file_trace, finish_trace, make_usage, new_call, parse_time
from .contract import ReadContext, first_item, read_with_reader

FORMAT = "codex-cli"

_LINE_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
_LEGACY_META_KEYS = frozenset(("id", "timestamp", "instructions", "git"))
_MODEL_ITEMS = ("reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_NOT_ROUNDS = ("ghost_snapshot", "compaction", "compaction_summary", "other")
_META_KEYS = ("cwd", "cli_version", "originator", "model_provider", "forked_from_id")
# Text Codex puts in user messages itself (context, instructions), not typed by the user.
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<user_shell_command>", "<turn_aborted>")
# The freeform shell result's header lines (``Exit code: N``; unified exec: ``Process
# exited with code N``), before its ``Output:`` body.
_EXIT_LINE = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)$", re.M)
_HEADER_CHARS = 400
# What Codex itself writes in place of a tool's output when the call could not run: the
# command could not be started, the sandbox refused it, the tool is unknown, the arguments
# did not parse, a patch did not apply. A failure, though no exit code says so.
_CODEX_FAILURE = re.compile(
    r"^(?:execution error: |failed in sandbox|unsupported call: |failed to parse function arguments"
    r"|error: invalid patch|apply_patch verification failed|Failed to find expected lines|Invalid patch)"
)


def sniff(value: Any) -> bool:
    item = first_item(value)
    if not isinstance(item, dict):
        return False
    if _is_exec_event(item):
        return True
    if item.get("type") in _LINE_TYPES and isinstance(item.get("payload"), dict):
        return True  # codex-rs writes a "timestamp" too; tools that copy rollouts may not
    # A bare-era first line: session meta alone, with the instructions key Codex wrote.
    return "instructions" in item and "id" in item and set(item) <= _LEGACY_META_KEYS


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Either(ctx), records, ctx)


class _Either:
    """Rollout lines to the rollout reader, exec events to the stream reader (a file may
    hold both, joined); a line of neither shape goes to the one that read the last line."""

    def __init__(self, ctx: ReadContext) -> None:
        self.rollouts = _Reader(ctx)
        self.streams = _ExecReader(ctx)
        self.last: _Reader | _ExecReader = self.rollouts

    def record(self, value: Any, line: int) -> list[Trace]:
        if _is_exec_event(value):
            self.last = self.streams
        elif isinstance(value, dict) and ("payload" in value or "instructions" in value or "record_type" in value):
            self.last = self.rollouts
        return self.last.record(value, line)

    def close(self) -> list[Trace]:
        return sorted([*self.rollouts.close(), *self.streams.close()], key=lambda trace: trace.line or 0)


def _is_exec_event(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind == "thread.started":
        return isinstance(value.get("thread_id"), str)
    if kind in ("item.started", "item.updated", "item.completed"):
        return isinstance(value.get("item"), dict)
    return kind in ("turn.started", "turn.completed", "turn.failed")


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.trace: Trace | None = None
        self.start()

    def start(self) -> None:
        """Forget the session read so far (a new one starts)."""
        self.trace = None
        self.calls: dict[str, ToolCall] = {}
        self.exit_codes: dict[str, int] = {}  # exec_command_end before its output item
        self.group: Round | None = None  # the round model items are being added to
        self.awaiting_usage: Round | None = None
        self.last_total: Any = None
        self.last_time: float | None = None
        self.model: str | None = None
        self.error: str | None = None

    def warn(self, line: int, reason: str) -> None:
        self.ctx.warn(line, reason)

    def session(self, line: int) -> Trace:
        if self.trace is None:
            self.trace = file_trace(FORMAT, self.ctx.file, line)
        return self.trace

    # --- lines ------------------------------------------------------------------------

    def record(self, value: Any, line: int) -> list[Trace]:
        if not isinstance(value, dict):
            self.warn(line, "JSON that is not a Codex rollout line (an object)")
            return []
        if value.get("record_type") == "state":
            return []  # bare-era bookkeeping
        kind = value.get("type")
        payload = value.get("payload")
        meta = payload if kind == "session_meta" and isinstance(payload, dict) else None
        if kind is None and "instructions" in value and "id" in value:
            meta = value
        finished = self.close_if_another(meta)
        if kind in _LINE_TYPES and isinstance(payload, dict):
            trace = self.session(line)
            trace.end_line = line
            moment = parse_time(value.get("timestamp"), lambda reason: self.warn(line, reason))
            self.line(kind, payload, line, moment)
            if moment is not None:
                self.last_time = moment
        elif kind is None and "instructions" in value and "id" in value:
            self.meta(value, line)
        elif isinstance(kind, str) and "payload" not in value:
            self.session(line).end_line = line
            self.item(value, line, None)  # a bare-era response item
        else:
            self.warn(line, f"Codex rollout line of unknown type {brief(kind)} skipped")
        return finished

    def close_if_another(self, meta: dict | None) -> list[Trace]:
        """The session read so far, finished, when ``meta`` starts another one (rollouts
        joined into one file); a fork's copy of its parent's meta (the id the fork's own
        meta names ``forked_from_id``) and a repeat of the same id start none."""
        trace = self.trace
        if meta is None or trace is None:
            return []
        session_id = as_str(meta.get("id"))
        if session_id is None or session_id in (trace.id, trace.metadata.get("forked_from_id")):
            return []
        if trace.id_base is not None and len(trace.rounds) == 0 and not trace.user_messages:
            return []  # nothing read before it but lines without a session: its lines
        return list(self.close())

    def line(self, kind: str, payload: dict, line: int, moment: float | None) -> None:
        if kind == "session_meta":
            self.meta(payload, line)
        elif kind == "response_item":
            self.item(payload, line, moment)
        elif kind == "event_msg":
            self.event(payload, line)
        elif kind == "turn_context":
            self.model = as_str(payload.get("model")) or self.model

    def meta(self, payload: dict, line: int) -> None:
        trace = self.session(line)
        if trace.id_base is None:
            return  # the session is named: a fork's copy of its parent's meta, or a repeat
        session_id = as_str(payload.get("id"))
        if session_id:
            trace.id = session_id
            trace.id_base = None
        for key in _META_KEYS:
            if as_str(payload.get(key)):
                trace.metadata[key] = payload[key]
        git = payload.get("git")
        if isinstance(git, dict) and as_str(git.get("branch")):
            trace.metadata["branch"] = git["branch"]

    # --- response items -----------------------------------------------------------------

    def item(self, item: dict, line: int, moment: float | None) -> None:
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            if role == "assistant":
                rnd = self.round(line)
                text = _parts_text(item.get("content"), "output_text")
                rnd.text = f"{rnd.text}\n{text}" if rnd.text and text else (rnd.text or text)
                rnd.ended_at = moment
            elif role == "user":
                self.group = None
                self.user(item, line, moment)
            else:
                self.group = None  # developer/system instructions
        elif kind in _MODEL_ITEMS:
            rnd = self.round(line)
            rnd.ended_at = moment
            if kind != "reasoning":
                self.call(rnd, item, line, moment)
        elif kind in _OUTPUTS:
            self.group = None
            self.output(item, line, moment)
        elif kind in _NOT_ROUNDS:
            pass
        else:
            self.warn(line, f"response item of unknown type {brief(kind)} skipped")

    def round(self, line: int) -> Round:
        if self.group is None:
            trace = self.session(line)
            self.group = Round(index=len(trace.rounds) + 1, line=line, model=self.model, started_at=self.last_time)
            trace.rounds.append(self.group)
            self.awaiting_usage = self.group
            self.error = None  # the model answered after any earlier error
        return self.group

    def user(self, item: dict, line: int, moment: float | None) -> None:
        text = _parts_text(item.get("content"), "input_text")
        if text.lstrip().startswith(_INJECTED):
            return
        self.session(line).add_user_message(text, at=moment, line=line)

    def call(self, rnd: Round, item: dict, line: int, moment: float | None) -> None:
        kind = item["type"]
        call_id = item.get("call_id") or item.get("id")
        if kind == "custom_tool_call":
            given = item.get("input")
            raw = given if isinstance(given, str) else dump_json(given)
            call = ToolCall(id=as_str(call_id) or "", name=as_str(item.get("name")) or "custom_tool", arguments_raw=raw, arguments=raw)
        elif kind == "local_shell_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            call = new_call(call_id, "local_shell", {k: v for k, v in action.items() if k != "type"})
        elif kind == "web_search_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            call = new_call(call_id, "web_search", {k: v for k, v in action.items() if k != "type"})
            status = as_str(item.get("status"))
            error = True if status == "failed" else (False if status == "completed" else None)
            call.result = ToolResult(content=dump_json({"status": status}), is_error=error, ended_at=moment, line=line)
        else:
            call = new_call(call_id, item.get("name"), item.get("arguments"))
        if call.id and kind != "web_search_call":
            self.calls[call.id] = call
        rnd.tool_calls.append(call)

    def output(self, item: dict, line: int, moment: float | None) -> None:
        call_id = as_str(item.get("call_id"))
        call = self.calls.get(call_id) if call_id else None
        if call is None:
            self.warn(line, f"trace {self.session(line).id}: tool result for unknown call id {brief(call_id)}")
            return
        content, is_error = _result(item.get("output"))
        if call_id in self.exit_codes and is_error is None:
            is_error = self.exit_codes.pop(call_id) != 0
        call.result = ToolResult(content=content, is_error=is_error, ended_at=moment, line=line)

    # --- events -----------------------------------------------------------------------

    def event(self, payload: dict, line: int) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            self.group = None  # a response completed
            self.tokens(payload, line)
        elif kind == "exec_command_end":
            call_id = as_str(payload.get("call_id"))
            code = payload.get("exit_code")
            if call_id and isinstance(code, int) and not isinstance(code, bool):
                call = self.calls.get(call_id)
                if call is not None and call.result is not None and call.result.is_error is None:
                    call.result.is_error = code != 0
                else:
                    self.exit_codes[call_id] = code
        elif kind == "error":
            self.error = as_str(payload.get("message")) or "error"

    def tokens(self, payload: dict, line: int) -> None:
        info = payload.get("info")
        if isinstance(info, dict):
            total = info.get("total_token_usage")
            if total is not None and total == self.last_total:
                return  # the same count again, not a new response's
            self.last_total = total
            counts = info.get("last_token_usage")
        else:
            counts = payload if "input_tokens" in payload else None  # older writers: flat counts
        rnd = self.awaiting_usage
        if rnd is None or not isinstance(counts, dict):
            return
        path = "info.last_token_usage" if isinstance(info, dict) else "token_count"
        token_counts = Counts(counts, lambda reason: self.warn(line, reason), path)
        usage = make_usage(*token_counts.each("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_output_tokens"))
        if usage is not None:
            rnd.usage = usage
            self.awaiting_usage = None

    # --- end of file --------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        trace = self.trace
        if trace is None:
            return
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        if self.error is not None:
            trace.error = self.error
            trace.ending = "error"
        self.start()
        yield finish_trace(trace, self.ctx.diagnostics)


class _ExecReader:
    """``codex exec --json`` events (see the module docstring)."""

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.trace: Trace | None = None
        self.start()

    def start(self) -> None:
        self.trace = None
        self.calls: dict[str, ToolCall] = {}
        self.running: set[str] = set()  # tool items started and not completed yet
        self.open: Round | None = None  # the round items are being added to
        self.turns = 0
        self.counts: list[int | None] = [None, None, None]  # input, output, cached: all turns

    def session(self, line: int) -> Trace:
        if self.trace is None:
            self.trace = file_trace(FORMAT, self.ctx.file, line)
            self.trace.metadata["shape"] = "exec-json"
        self.trace.end_line = line
        return self.trace

    def record(self, value: Any, line: int) -> list[Trace]:
        if not _is_exec_event(value) and not (isinstance(value, dict) and value.get("type") == "error"):
            self.ctx.warn(line, f"codex exec event of unknown type {brief(value.get('type') if isinstance(value, dict) else value)} skipped")
            return []
        kind = value["type"]
        finished: list[Trace] = []
        if kind == "thread.started":
            if self.trace is not None and (self.trace.rounds or self.trace.id_base is None):
                finished = list(self.close())  # another thread's events follow
            trace = self.session(line)
            trace.id, trace.id_base = value["thread_id"], None
        elif kind == "turn.started":
            self.turns += 1
            trace = self.session(line)
            if self.turns > 1:
                trace.add_user_message("", line=line)  # the prompt is not in the stream
            self.open = None
        elif kind == "turn.completed":
            self.session(line)
            self.add_usage(value.get("usage"), line)
            self.open = None
        elif kind in ("turn.failed", "error"):
            error = value.get("error") if kind == "turn.failed" else value
            message = as_str(error.get("message")) if isinstance(error, dict) else None
            self.session(line).error = message or kind
        elif kind in ("item.started", "item.completed"):
            self.item(value["item"], line, kind == "item.completed")
        return finished

    def add_usage(self, usage: Any, line: int) -> None:
        if not isinstance(usage, dict):
            return
        token_counts = Counts(usage, lambda reason: self.ctx.warn(line, reason))
        for position, count in enumerate(token_counts.each("input_tokens", "output_tokens", "cached_input_tokens")):
            if count is not None:
                self.counts[position] = (self.counts[position] or 0) + count

    def new_round(self, line: int) -> Round:
        trace = self.session(line)
        self.open = Round(index=len(trace.rounds) + 1, line=line)
        trace.rounds.append(self.open)
        trace.error = None  # the model went on after any earlier error
        return self.open

    def item(self, item: dict, line: int, completed: bool) -> None:
        kind = item.get("type")
        item_id = as_str(item.get("id")) or f"line {line}"
        self.session(line)
        if kind == "agent_message":
            rnd = self.open if self.open is not None and not self.open.tool_calls else self.new_round(line)
            text = as_str(item.get("text")) or ""
            rnd.text = f"{rnd.text}\n{text}" if rnd.text and text else (rnd.text or text)
        elif kind == "reasoning":
            if self.open is not None and self.open.tool_calls and not self.running:
                self.open = None  # the model is sampled again: a new response
        elif kind in _EXEC_TOOLS:
            call = self.calls.get(item_id)
            if call is None:
                parallel = self.open is not None and (self.running or not self.open.tool_calls)
                rnd = self.open if parallel else self.new_round(line)
                call = _exec_call(item, item_id)
                self.calls[item_id] = call
                rnd.tool_calls.append(call)
                self.running.add(item_id)
            if completed:
                self.running.discard(item_id)
                call.result = _exec_result(item, line)
        elif kind not in ("todo_list", "plan", "error"):
            self.ctx.warn(line, f"codex exec item of unknown type {brief(kind)} skipped")

    def close(self) -> Iterator[Trace]:
        trace = self.trace
        if trace is None:
            return
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        trace.usage_total = make_usage(*self.counts)
        if trace.error is not None:
            trace.ending = "error"
        self.start()
        yield finish_trace(trace, self.ctx.diagnostics)


_EXEC_TOOLS = ("command_execution", "mcp_tool_call", "file_change", "web_search", "collab_tool_call")


def _exec_call(item: dict, item_id: str) -> ToolCall:
    kind = item["type"]
    if kind == "command_execution":
        return new_call(item_id, "shell", {"command": item.get("command")})
    if kind == "mcp_tool_call":
        return new_call(item_id, item.get("tool"), item.get("arguments") if item.get("arguments") is not None else {})
    if kind == "file_change":
        return new_call(item_id, "apply_patch", {"changes": item.get("changes")})
    if kind == "web_search":
        return new_call(item_id, "web_search", {"query": item.get("query")})
    return new_call(item_id, item.get("tool") or kind, {k: item.get(k) for k in ("prompt", "receiver_thread_ids") if item.get(k) is not None})


def _exec_result(item: dict, line: int) -> ToolResult:
    kind = item["type"]
    status = item.get("status")
    is_error = True if status in ("failed", "declined") else (False if status == "completed" else None)
    if kind == "command_execution":
        code = item.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            is_error = code != 0
        content = as_str(item.get("aggregated_output")) or ""
    elif kind == "mcp_tool_call":
        error = item.get("error")
        result = item.get("result") if isinstance(item.get("result"), dict) else {}
        if isinstance(error, dict) and as_str(error.get("message")):
            content, is_error = error["message"], True
        else:
            content, _ = _result(result.get("content"))
    elif kind == "web_search":
        content = dump_json(item.get("action")) if item.get("action") is not None else ""
    else:
        content = dump_json({"status": status})
    return ToolResult(content=content, is_error=is_error, line=line)


def _parts_text(content: Any, part_type: str) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else ()
    return "\n".join(p["text"] for p in parts if isinstance(p, dict) and p.get("type") == part_type and isinstance(p.get("text"), str))


def _result(output: Any) -> tuple[str, bool | None]:
    """A tool output's text and error flag (see the module docstring)."""
    if isinstance(output, dict):  # older writers: {"content", "success"}
        success = output.get("success")
        content, flag = _result(output.get("content"))
        return content, (not success if isinstance(success, bool) else flag)
    if isinstance(output, list):  # content items (MCP results with images)
        texts = [p.get("text") if isinstance(p, dict) and isinstance(p.get("text"), str) else f"[{brief(p.get('type') if isinstance(p, dict) else p)}]" for p in output]
        return "\n".join(texts), None
    if not isinstance(output, str):
        return ("" if output is None else dump_json(output)), None
    if output.startswith('{"output"'):
        try:
            parsed = json.loads(output)
        except ValueError:
            parsed = None
        metadata = parsed.get("metadata") if isinstance(parsed, dict) else None
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        if isinstance(code, int) and not isinstance(code, bool) and isinstance(parsed.get("output"), str):
            return parsed["output"], code != 0
    head, marker, body = output[:_HEADER_CHARS].partition("\nOutput:\n")
    exit_line = _EXIT_LINE.search(head) if marker else None
    if exit_line is not None:
        return body + output[_HEADER_CHARS:], int(exit_line.group(1)) != 0
    return output, (True if _CODEX_FAILURE.match(output) else None)


__all__ = ["FORMAT", "read", "sniff"]
