"""OpenHands V1 conversations: the events of the OpenHands software-agent SDK.

Followed from the SDK's own source, OpenHands/software-agent-sdk (package
``openhands-sdk``, formerly All-Hands-AI/agent-sdk), as stored at its 1.x commits of
late 2025 to 2026: ``openhands/sdk/event/base.py`` (``Event``: ``id``, ``timestamp``,
``source`` agent | user | environment, the ``kind`` discriminator),
``event/llm_convertible/{action,observation,message,system}.py``,
``event/conversation_error.py``, ``event/conversation_state.py``, ``event/condenser.py``,
``tool/schema.py`` (``Observation``: ``content``, ``is_error``),
``conversation/event_store.py`` with ``conversation/persistence_const.py`` (one file per
event, ``<persistence_dir>/events/event-<index, 5+ digits>-<event id>.json``, written by
``model_dump_json(exclude_none=True)`` without a newline; ``base_state.json`` beside
``events/``) and ``conversation/conversation_stats.py`` (token counts per response), and
the agent server's ``event_router.py`` (``GET /api/conversations/{id}/events/search``:
``{"items": [events], "next_page_id"}``). The OpenHands CLI and app V1 keep their
conversations the same way (``~/.openhands/conversations/<id>/``).

Shapes (one conversation each; the events carry no conversation id):

- a conversation's ``events/`` folder: the loader reads it as one input, the event files
  in index order (a warning names the event file);
- events one per line (``jq -c . events/*.json``), or one after another as ``cat
  events/*.json`` writes them (the files end without a newline);
- a JSON list of events (``jq -s``, the batch API) or a search page ``{"items": [...]}``.

Rounds: one per LLM response. The ``ActionEvent`` s of one response share its
``llm_response_id`` (parallel calls; only the first carries the ``thought``): they are
one round. An agent ``MessageEvent`` is a round without calls, its text the message's.
A round's text is the ``thought`` text (else, for a response that only finishes, the
``FinishAction`` ``message``): ``reasoning_content`` and thinking blocks are not what the
model said.

Calls: an ``ActionEvent``: name ``tool_name``, arguments the executed ``action`` without
its ``kind`` (the model's ``tool_call.arguments`` add ``summary`` and ``security_risk``,
which differ between otherwise identical calls), else ``tool_call.arguments`` (an action
that could not be built). ``finish`` is the answer, not a call: its ``FinishObservation``
is not read. Results: the ``ObservationEvent`` whose ``action_id`` is the action's ``id``
(else whose ``tool_call_id`` matches): content = ``observation.content`` (a string or
text parts; older SDKs wrote ``output``); an ``AgentErrorEvent`` (``error``) and a
``UserRejectObservation`` (``rejection_reason``: the action did not run) are failed
results. An ``AgentErrorEvent`` for a call no action was written for (a tool the agent
does not have) is a round with that call, its arguments (not kept) read as ``{}``.

Errors (``is_error``): the observation's ``is_error`` when true; else a command's exit
code (``exit_code``, or ``metadata.exit_code``; -1 = still running at its timeout) ≠ 0;
else ``is_error`` false; else an older SDK's ``error`` (a flag, or a message); else None.

Tokens: the SDK keeps them out of the events, in the conversation's stats
(``stats.usage_to_metrics.<usage id>.token_usages``: ``prompt_tokens`` (cached
included), ``completion_tokens``, ``cache_read_tokens``, ``reasoning_tokens`` and the
``response_id``), saved in ``base_state.json`` beside ``events/`` (beside the file for the
other shapes) or sent as a ``ConversationStateUpdateEvent`` (``key`` "stats", or
"full_state"). Each entry goes to the round of its response id, with its ``model``;
rounds without one have ``None``; when no round matched, the stats'
``accumulated_token_usage`` is ``trace.usage_total``.

Times: each event's naive ISO ``timestamp`` (the writer's local time; read as UTC like
every naive time). A round starts at the event before its first event and ends at its
last action; a call runs from its action to its result.

User turns: a user ``MessageEvent`` opens a turn. Ending: a ``ConversationErrorEvent``
(``code``: ``detail``) after the last round, or an ``execution_status`` of ``error``,
sets ``trace.error`` (ending ``error``, or ``limit`` for a budget or iteration limit); a
last round without calls is ``answered``. Outcome: never set (no grade).

The trace id is ``base_state.json``'s ``id``, else the conversation folder's name (the
folder holding ``events/``), else the file's. Not rounds: system prompt, pause,
condensation, state and token events; an event of another kind is a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ..input.diagnostics import TracecheckError
from ..input.side_files import read_json
from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import (
    Counts,
    as_dict,
    as_list,
    as_str,
    brief,
    content_text,
    error_ending,
    file_stem,
    finish_trace,
    make_usage,
    new_call,
    parse_time,
)
from .contract import ReadContext, first_item, read_each

FORMAT = "openhands-v1"

_SOURCES = ("agent", "user", "environment")
_RESULTS = ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation")
# Events that are no round, call or result (written for the UI, the condenser, RL).
_NOT_ROUNDS = (
    "SystemPromptEvent",
    "SystemPromptUpdateEvent",
    "PauseEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "TokenEvent",
    "LLMCompletionLogEvent",
    "StreamingDeltaEvent",
    "InterruptEvent",
    "HookExecutionEvent",
    "ServerErrorEvent",
)
_KINDS = frozenset(("ActionEvent", "MessageEvent", "ConversationErrorEvent", "ConversationStateUpdateEvent", *_RESULTS, *_NOT_ROUNDS))
# The fields read whose type the SDK fixes (a value of another type is a warning).
_FIELDS: dict[str, tuple[tuple[str, type], ...]] = {
    "ActionEvent": (("thought", list), ("action", dict), ("tool_call", dict), ("tool_name", str), ("tool_call_id", str), ("llm_response_id", str)),
    "MessageEvent": (("llm_message", dict), ("llm_response_id", str)),
    "ObservationEvent": (("observation", dict), ("action_id", str), ("tool_call_id", str)),
    "AgentErrorEvent": (("error", str), ("tool_call_id", str)),
    "UserRejectObservation": (("rejection_reason", str), ("action_id", str), ("tool_call_id", str)),
}
_SHAPE_NAMES = {list: "a list", dict: "an object", str: "a string"}
_STATE_FILE = "base_state.json"
_EVENTS_FOLDER = "events"


def is_event(value: Any) -> bool:
    """An SDK event: its ``kind`` one the SDK writes, a ``source`` of the three."""
    return isinstance(value, dict) and as_str(value.get("kind")) in _KINDS and value.get("source") in _SOURCES


def _page_items(value: Any) -> list | None:
    """The events of an event search page ``{"items": [...], "next_page_id"}``."""
    if isinstance(value, dict) and isinstance(value.get("items"), list) and "next_page_id" in value:
        return value["items"]
    return None


def sniff(value: Any) -> bool:
    items = _page_items(value)
    return is_event(first_item(items if items is not None else value))


def is_conversation_state(value: Any) -> bool:
    """A conversation's ``base_state.json`` (read with the events beside it)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("agent"), dict)
        and "execution_status" in value
        and ("stats" in value or "persistence_dir" in value)
    )


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    stream = _Conversation(ctx)

    def read_record(value: Any, line: int) -> Iterator[Trace]:
        items = _page_items(value)
        if items is None and isinstance(value, list):
            items = value
        if items is None:
            if isinstance(value, dict) and value.get("kind") == "SystemPromptEvent" and stream.started():
                yield from stream.close()  # another conversation's events follow
            stream.event(value, line, None)
            return
        conversation = _Conversation(ctx)  # a list or page: a conversation of its own
        for index, item in enumerate(items):
            conversation.event(item, line, index)
        yield from conversation.close()

    return read_each(records, ctx, read_record, lambda: stream.close(), what="event")


class _FileWarnings:
    """``finish_trace``'s warnings through the context, which names a folder's event file."""

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx

    def warn(self, file: str, line: int | None, reason: str) -> None:
        if file == self.ctx.file:
            self.ctx.warn(line, reason)
        else:
            self.ctx.diagnostics.warn(file, line, reason)


class _Conversation:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.trace: Trace | None = None
        self.by_response: dict[str, Round] = {}
        self.by_event: dict[str, ToolCall] = {}
        self.by_call_id: dict[str, ToolCall] = {}
        self.finishes: set[str] = set()  # finish actions' event ids and call ids
        self.action_times: dict[int, float | None] = {}  # id(call) -> its action's time
        self.last_time: float | None = None
        self.stats: Any = None
        self.status: str | None = None
        self.error: str | None = None

    def warn(self, line: int, index: int | None, reason: str) -> None:
        where = "" if index is None else f" (array element {index})"
        self.ctx.warn(line, f"{reason}{where}")

    def started(self) -> bool:
        """Whether the conversation has a user message or a round yet."""
        return self.trace is not None and bool(self.trace.rounds or self.trace.user_messages)

    def session(self, line: int) -> Trace:
        if self.trace is None:
            self.trace = Trace(id="", format=FORMAT, file=self.ctx.file, line=line, end_line=line)
        self.trace.end_line = max(self.trace.end_line or line, line)
        return self.trace

    # --- events -----------------------------------------------------------------------

    def event(self, ev: Any, line: int, index: int | None) -> None:
        if not is_event(ev):
            kind = ev.get("kind") if isinstance(ev, dict) else None
            if as_str(kind) in _KINDS and "source" in ev:
                self.warn(line, index, f"OpenHands {kind} of unknown source {brief(ev['source'])} skipped")
            elif isinstance(kind, str) and isinstance(ev, dict) and "source" in ev:
                self.warn(line, index, f"OpenHands event of unknown kind {brief(kind)} skipped")
            else:
                self.warn(line, index, "not an OpenHands V1 event (an object with a kind and a source)")
            return
        trace = self.session(line)
        kind = ev["kind"]
        moment = parse_time(ev.get("timestamp"), lambda reason: self.warn(line, index, reason))
        if moment is None and ev.get("timestamp") is not None:
            self.warn(line, index, f"{kind} timestamp {brief(ev.get('timestamp'))} is not a time; read without one")
        for field, shape in _FIELDS.get(kind, ()):
            if ev.get(field) is not None and not isinstance(ev[field], shape):
                self.warn(line, index, f"{kind} {field} {brief(ev[field])} is not {_SHAPE_NAMES[shape]}; read as far as it goes")
        if kind == "ActionEvent":
            self.action(ev, line, moment)
        elif kind in _RESULTS:
            self.result(ev, line, index, moment)
        elif kind == "MessageEvent":
            message = as_dict(ev.get("llm_message"))
            text = content_text(message.get("content"))
            if ev["source"] == "user":
                trace.add_user_message(text, at=moment, line=line)
            elif ev["source"] == "agent":
                rnd = self.round(as_str(ev.get("llm_response_id")), line, moment)
                rnd.text = f"{rnd.text}\n{text}" if rnd.text and text else (rnd.text or text)
        elif kind == "ConversationErrorEvent":
            code, detail = as_str(ev.get("code")), as_str(ev.get("detail"))
            self.error = ": ".join(part for part in (code, detail) if part) or "conversation error"
        elif kind == "ConversationStateUpdateEvent":
            self.state(ev.get("key"), ev.get("value"))
        if moment is not None:
            self.last_time = moment

    def state(self, key: Any, value: Any) -> None:
        if key == "full_state" and isinstance(value, dict):
            self.stats = value.get("stats", self.stats)
            self.status = as_str(value.get("execution_status")) or self.status
        elif key == "stats":
            self.stats = value
        elif key == "execution_status":
            self.status = as_str(value) or self.status

    def round(self, response_id: str | None, line: int, moment: float | None) -> Round:
        rnd = self.by_response.get(response_id) if response_id else None
        if rnd is None:
            trace = self.session(line)
            rnd = Round(index=len(trace.rounds) + 1, line=line, id=response_id, started_at=self.last_time if moment is not None else None)
            trace.rounds.append(rnd)
            if response_id:
                self.by_response[response_id] = rnd
            self.error = None  # the model went on after any earlier error
        rnd.ended_at = moment if moment is not None else rnd.ended_at
        return rnd

    def action(self, ev: dict, line: int, moment: float | None) -> None:
        rnd = self.round(as_str(ev.get("llm_response_id")), line, moment)
        thought = content_text(ev.get("thought"))
        if thought:
            rnd.text = f"{rnd.text}\n{thought}" if rnd.text else thought
        action = ev.get("action")
        action = action if isinstance(action, dict) else None
        tool_call = as_dict(ev.get("tool_call"))
        name = as_str(ev.get("tool_name")) or as_str(tool_call.get("name"))
        call_id = as_str(ev.get("tool_call_id")) or as_str(tool_call.get("id"))
        event_id = as_str(ev.get("id"))
        if name == "finish" or (action is not None and action.get("kind") == "FinishAction"):
            self.finishes.update(key for key in (event_id, call_id) if key)
            if not rnd.text and action is not None:
                rnd.text = as_str(action.get("message")) or ""
            return
        if action is not None:
            arguments: Any = {key: value for key, value in action.items() if key != "kind"}
        else:
            arguments = tool_call.get("arguments")
        call = new_call(call_id, name, arguments)
        rnd.tool_calls.append(call)
        if event_id:
            self.by_event[event_id] = call
        if call.id:
            self.by_call_id[call.id] = call
        self.action_times[id(call)] = moment

    def result(self, ev: dict, line: int, index: int | None, moment: float | None) -> None:
        kind = ev["kind"]
        action_id = as_str(ev.get("action_id"))
        call_id = as_str(ev.get("tool_call_id"))
        if (action_id and action_id in self.finishes) or (call_id and call_id in self.finishes):
            return  # the finish tool's echo of the answer
        call = self.by_event.pop(action_id, None) if action_id else None
        if call is None and call_id:
            call = self.by_call_id.get(call_id)
            if call is not None and call.result is not None:
                call = None
        if call is None and kind == "AgentErrorEvent":
            # A call the agent could not build an action for (an unknown tool): the
            # response asked for it; its arguments were not kept.
            rnd = self.round(None, line, moment)
            call = new_call(call_id, ev.get("tool_name"), {})
            rnd.tool_calls.append(call)
        if call is None:
            self.warn(line, index, f"tool result for unknown call id {brief(call_id or action_id)}")
            return
        if call.result is not None:
            self.warn(line, index, f"a second result for call {brief(call.id or call.name)} is ignored")
            return
        if call.id:
            self.by_call_id.pop(call.id, None)
        if kind == "AgentErrorEvent":
            content, is_error = as_str(ev.get("error")) or "", True
        elif kind == "UserRejectObservation":
            content, is_error = as_str(ev.get("rejection_reason")) or "rejected", True
        else:
            content, is_error = _observation(as_dict(ev.get("observation")))
        start = self.action_times.pop(id(call), None)
        call.result = ToolResult(content=content, is_error=is_error, started_at=start if moment is not None else None, ended_at=moment, line=line)

    # --- the end ----------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        trace, stats, status, error = self.trace, self.stats, self.status, self.error
        if trace is None:
            return
        self.__init__(self.ctx)  # type: ignore[misc]  # a following conversation starts afresh
        state = as_dict(_conversation_state(self.ctx))
        _apply_stats(trace, stats if stats is not None else state.get("stats"), lambda reason: self.ctx.warn(trace.line, reason))
        status = status or as_str(state.get("execution_status"))
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        if error is None and status == "error":
            error = "execution status: error"
        if error is not None:
            trace.error = error
            trace.ending = error_ending(error)
        trace.id = as_str(state.get("id")) or _conversation_name(self.ctx.file)
        if not as_str(state.get("id")):
            trace.id_base = trace.id
        yield finish_trace(trace, _FileWarnings(self.ctx))


def _observation(observation: dict) -> tuple[str, bool | None]:
    """An observation's text and error flag (see the module docstring)."""
    content = observation.get("content")
    if content is None or content == "" or content == []:
        content = observation.get("output", content)  # older SDKs: output
    text = content_text(content)
    flag = observation.get("is_error")
    if flag is True:
        return text, True
    code = observation.get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool):
        code = as_dict(observation.get("metadata")).get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        return text, code != 0
    if flag is False:
        return text, False
    error = observation.get("error")
    if isinstance(error, bool):
        return text, error
    if isinstance(error, str):
        return (text or error), bool(error)
    return text, None


def _conversation_name(file: str) -> str:
    """The conversation folder's name for an ``events/`` folder, else the file's stem."""
    name = os.path.basename(os.path.normpath(file))
    if name == _EVENTS_FOLDER:
        parent = os.path.basename(os.path.dirname(os.path.normpath(file)))
        return parent or name
    return file_stem(file)


def _conversation_state(ctx: ReadContext) -> dict | None:
    """``base_state.json`` of the conversation: beside the ``events/`` folder, or beside
    the file."""
    folder = os.path.dirname(os.path.normpath(ctx.file)) or "."
    path = os.path.join(folder, _STATE_FILE)
    if not os.path.isfile(path):
        return None
    try:
        state = read_json(path, "OpenHands conversation state")
    except TracecheckError as exc:
        ctx.warn(None, f"{path}: conversation state unreadable ({exc}); token counts unknown")
        return None
    return state if is_conversation_state(state) else None


def _apply_stats(trace: Trace, stats: Any, warn) -> None:
    """Token counts per response from the conversation's stats (see the module docstring)."""
    metrics = [as_dict(m) for m in as_dict(as_dict(stats).get("usage_to_metrics")).values()]
    by_id = {r.id: r for r in trace.rounds if r.id}
    for entry in (as_dict(e) for m in metrics for e in as_list(m.get("token_usages"))):
        rnd = by_id.get(as_str(entry.get("response_id")) or "")
        if rnd is None or rnd.usage is not None:
            continue
        counts = Counts(entry, warn, "stats.token_usages")
        rnd.usage = make_usage(*counts.each("prompt_tokens", "completion_tokens", "cache_read_tokens", "reasoning_tokens"))
        rnd.model = as_str(entry.get("model")) or rnd.model
    if metrics and all(r.usage is None for r in trace.rounds):
        totals = [Counts(m.get("accumulated_token_usage"), warn, "stats.accumulated_token_usage") for m in metrics]
        sums: list[int | None] = [None, None, None, None]
        for counts in totals:
            for position, count in enumerate(counts.each("prompt_tokens", "completion_tokens", "cache_read_tokens", "reasoning_tokens")):
                if count is not None:
                    sums[position] = (sums[position] or 0) + count
        trace.usage_total = make_usage(*sums)


__all__ = ["FORMAT", "is_conversation_state", "is_event", "read", "sniff"]
