"""OpenHands event streams and evaluation ``output.jsonl`` lines.

Checked against OpenHands V0 event streams (real trajectories from OpenHands'
``tests/runtime/trajs/`` in ``tests/corpus/OpenHands/``; they record no version),
evaluation output of OpenHands 0.23 and 2024 resolver output (hand-made fixtures).

Shapes:

- an **event stream**: a JSON list of events ``{id, timestamp, source, message,
  action | observation, args | content + extras, cause, tool_call_metadata,
  llm_metrics?}`` (a saved trajectory) → one trace, id = the file name stem;
- one **event per line** (JSON Lines) → one trace for the run of consecutive event
  lines;
- an **evaluation output** line ``{instance_id, instruction?, history: [events],
  metrics, error, test_result, ...}`` → one trace per line (a JSON list of them gives
  one per element), id = ``instance_id``; an instance that failed before the agent ran
  (``history: null``) is a trace without rounds. The old evaluation format, ``history`` as
  ``[action, observation]`` pairs, is read too (each pair answers itself);
- the **flat history** of 2024's evaluation and resolver lines: each item is an action's
  or an observation's own fields beside ``action`` / ``observation`` (``command``,
  ``code``, ``thought``; ``content``, ``exit_code``), without ``args``/``extras``,
  ``source``, ``id``, ``timestamp`` or ``cause``. There every observation answers the
  action just before it (the agent waited for each one), an ``action: "message"`` is
  the agent's when it waits for a reply (``wait_for_response``) and the user's
  otherwise, and every other action is the agent's. The resolver's lines have no
  ``instance_id``: their id is ``owner/repo#number`` of their ``issue``.

Rounds: one per distinct ``tool_call_metadata.model_response.id``. A response with
several tool calls becomes several action events that share that id (and repeat its
``usage``): they are one round, counted once. The round's text is the response's
``choices[0].message.content`` (else the action's ``thought``). An agent ``message``,
``finish`` or ``reject`` action without tool-call metadata is a round of its own with
no calls (a final answer, for ``finish``); a ``finish``/``reject``/``message`` action
*with* metadata adds no call to its round either, so a response that only finishes
is a final answer. Older streams without any tool-call metadata: each agent action
that runs something (``run``, ``run_ipython``, ``read``, ``edit``, ``browse``, ...) is
a round with one call. System, state-change, recall and condensation events, null
observations and user messages are no rounds.

User turns: a user's message action (``source: "user"``) is what the user said and
opens a conversation turn, at its own time; the first one is the task. An evaluation
line whose history holds no user message gets its ``instruction`` as the task.

Calls: an action event with ``tool_call_metadata``: name = ``function_name``,
arguments = that call's ``arguments`` string in the model response, else the
action's ``args`` object without ``thought``. Its result is the observation whose
``cause`` is the action's ``id`` (else whose ``tool_call_id`` matches); content = the
observation's ``content``.

Errors (``is_error``), the first signal present decides:

1. an ``error`` observation (``ErrorObservation``: the controller's and the bash tool's
   refusals, runtime errors) → True;
2. a command's exit code (``extras.metadata.exit_code``, older ``extras.exit_code`` or
   the flat ``exit_code``) ≠ 0 → True, 0 → False. -1 means the command was still
   running when its timeout hit (OpenHands' own ``success`` is false then too). The
   exit code beats the text: a command may print "ERROR:" and succeed;
3. content starting with ``ERROR:`` → True: the file editor writes its refusals so
   ("ERROR:\nNo replacement was performed, old_str … did not appear verbatim …",
   "ERROR:\nInvalid `path` parameter …") in ``edit`` and ``read`` observations;
4. an IPython cell (``run_ipython``) → None: OpenHands records no status for cells
   (its ``success: true`` on them is a constant), a traceback is only text;
5. an MCP observation → its content's ``isError`` (the tool's ``CallToolResult`` as
   JSON), else None;
6. a boolean ``extras.error`` (browser), else a boolean ``success``;
7. otherwise False for the tools whose failures OpenHands always marks one of these
   ways (``run``, ``read``, ``write``, ``edit``, ``browse``, ``browse_interactive``,
   ``think``), None for the rest (``delegate``, unknown observations).

Times: event timestamps are ISO without an offset (OpenHands writes local time; read
as UTC like every naive timestamp, so durations are right). A round ends at its
first action event and starts at the event before it (the observation or message
that started the agent's step), or at end − latency when ``metrics.response_latencies``
gives the response's latency. A call runs from its action event to its observation.

Usage per round from ``model_response.usage`` (LiteLLM: ``prompt_tokens`` already
includes Anthropic's cache reads and writes — the corpus shows prompt = input +
cache_creation + cache_read — so they are not added again; cached =
``prompt_tokens_details.cached_tokens`` or ``cache_read_input_tokens``). Else per
response id from ``metrics.token_usages``; else the run total
``metrics.accumulated_token_usage`` (or the last event's ``llm_metrics``) →
``trace.usage_total``.

Ending: an evaluation line whose ``error`` is set ended on it: the error becomes
``trace.error`` and the ending ``"limit"`` when it is OpenHands' iteration or budget
limit ("Agent reached maximum iteration ...", "... budget ..."), else ``"error"`` —
unless the run ended with a final answer (then the error is kept as
``trace.metadata["error"]`` and the ending is ``answered``). A stream whose last agent
state is ``error`` → ``trace.error`` (the state's ``reason``, else the last environment
error observation), ending as above.

Outcome, only from a grader: the evaluation's ``test_result.report.resolved`` (also
``test_result.resolved`` / ``test_result.success``) or the resolver's own ``success``
verdict → ``success`` / ``failure``, whatever the ending. An error or an error state
sets no outcome.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item
from .common import (
    Counts,
    Warn,
    as_dict,
    as_list,
    as_str,
    as_str_or_int,
    brief,
    content_text,
    failure,
    file_stem,
    finish_trace,
    litellm_usage,
    make_usage,
    new_call,
    parse_time,
    shift_time,
    error_ending,
)

FORMAT = "openhands"

# Agent actions that end (or pause) the agent's turn with text instead of a tool run.
_ANSWER_ACTIONS = ("message", "finish", "reject")
# Agent actions that run something; in streams without tool-call metadata each is a call.
_RUN_ACTIONS = (
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "browse_interactive",
    "think",
    "call_tool_mcp",
    "mcp",
    "delegate",
)
# Observations of tools whose failures OpenHands always marks (exit code, "ERROR:", an error
# observation, extras.error): without a mark they succeeded.
_SIGNALLING_KINDS = ("run", "read", "write", "edit", "browse", "browse_interactive", "think")
# Fields of an event itself; in the old flat lists the rest are the action's arguments or
# the observation's extras.
_ACTION_EVENT_KEYS = frozenset(("id", "timestamp", "source", "message", "cause", "action", "tool_call_metadata", "llm_metrics", "timeout"))
_OBSERVATION_EVENT_KEYS = frozenset(("id", "timestamp", "source", "message", "cause", "observation", "tool_call_metadata", "llm_metrics", "content", "success"))


def _is_openhands_event(obj: Any) -> bool:
    return isinstance(obj, dict) and "source" in obj and ("action" in obj or "observation" in obj)


def sniff(value: Any) -> bool:
    item = first_item(value)
    if _is_openhands_event(item):
        return True
    if isinstance(item, list) and len(item) == 2 and all(isinstance(e, dict) for e in item):
        # The old format: [action, observation] pairs.
        return "action" in item[0] and "observation" in item[1]
    if isinstance(item, dict) and "instance_id" in item and "history" in item and item["history"] is None:
        return True  # an evaluation line whose run produced no history
    if not (isinstance(item, dict) and isinstance(item.get("history"), list)):
        return False
    history = item["history"]
    if not history or _is_openhands_event(history[0]):
        return True
    # Old evaluation and resolver lines: flat events without "source" (no chat "role").
    first = history[0]
    return (
        ("instruction" in item or "instance_id" in item)
        and isinstance(first, dict)
        and "role" not in first
        and (isinstance(first.get("action"), str) or isinstance(first.get("observation"), str))
    )


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    stream: _Builder | None = None
    count = 0

    def next_id(line: int) -> str:
        stem = file_stem(ctx.file)
        return stem if count == 0 else f"{stem}:{line}"

    for record in records:
        value, line = record.value, record.line
        try:
            if stream is not None and isinstance(value, dict) and not _is_eval_output(value) and not _is_event(value):
                # A bad line inside an event-per-line stream: report it, keep the stream.
                ctx.warn(line, f"trace {stream.trace.id}: not an OpenHands event")
                continue
            if _is_event(value):
                if stream is None:
                    stream = _Builder(None, line, ctx, next_id(line))
                stream.event(value, line, len(stream.trace.rounds) + 1)
                stream.trace.end_line = line
                continue
            if stream is not None:
                count += 1
                yield stream.finish()
                stream = None
            for trace in _read_value(value, line, ctx, next_id):
                count += 1
                yield trace
        except Exception as exc:  # one odd record must not cost the rest
            ctx.warn(line, f"could not read this record ({failure(exc)})")
    if stream is not None:
        yield stream.finish()


# --- helpers -----------------------------------------------------------------------------


def _is_event(value: Any) -> bool:
    return isinstance(value, dict) and "source" in value and ("action" in value or "observation" in value)


def _is_eval_output(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("history"), list):
        return True
    # An instance that failed before the agent ran is written with "history": null.
    return "instance_id" in value and value.get("history", ...) is None and ("error" in value or "test_result" in value)


def _token_usage(raw: Any, warn: Warn | None = None, path: str = "token_usage"):
    """OpenHands' own TokenUsage record (metrics.token_usages / accumulated_token_usage)."""
    counts = Counts(raw, warn, path)
    return make_usage(counts.get("prompt_tokens"), counts.get("completion_tokens"), counts.get("cache_read_tokens"))


def _exit_code(value: Any) -> int | None:
    """A command's exit code: any integer (OpenHands writes -1 for a command still running
    when its timeout hit), never a bool."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _args(ev: dict) -> dict:
    """An action's arguments: ``args``, or in the flat lists of old evaluation outputs the
    action's own fields written beside ``action``."""
    if "args" in ev:
        return as_dict(ev["args"])
    return {k: v for k, v in ev.items() if k not in _ACTION_EVENT_KEYS}


def _extras(ev: dict) -> dict:
    """An observation's extras: ``extras``, or its own fields in the old flat lists."""
    if "extras" in ev:
        return as_dict(ev["extras"])
    return {k: v for k, v in ev.items() if k not in _OBSERVATION_EVENT_KEYS}


def _is_loose_event(ev: Any) -> bool:
    return isinstance(ev, dict) and ("action" in ev or "observation" in ev)


def _source(ev: dict, args: dict) -> Any:
    """Who acted. The old flat lists leave "source" out: there a message the agent waits
    on (``wait_for_response``) is the agent's, any other message the user's, and every
    other action the agent's."""
    if "source" in ev:
        return ev["source"]
    if ev.get("action") == "message":
        return "agent" if args.get("wait_for_response") is True else "user"
    return "agent"


def _user_text(ev: Any) -> str | None:
    """The text of a user's message action, else None."""
    if not isinstance(ev, dict) or ev.get("action") != "message":
        return None
    args = _args(ev)
    if _source(ev, args) != "user":
        return None
    text = args.get("content")
    if not isinstance(text, str):
        text = ev.get("message")
    return text if isinstance(text, str) else None


def _mcp_is_error(content: str) -> bool | None:
    """An MCP observation's content is the tool's CallToolResult as JSON: its ``isError``."""
    if not content.lstrip().startswith("{"):
        return None
    try:
        result = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    flag = result.get("isError") if isinstance(result, dict) else None
    return flag if isinstance(flag, bool) else None


def _is_error(obs: dict, content: str) -> bool | None:
    """Whether an observation reports a failed action; None where OpenHands records nothing."""
    kind = obs.get("observation")
    if kind == "error":
        return True
    extras = _extras(obs)
    # Newer versions nest the exit code in extras.metadata; -1 = still running at the timeout.
    code = _exit_code(as_dict(extras.get("metadata")).get("exit_code"))
    if code is None:
        code = _exit_code(extras.get("exit_code"))
    if code is not None:
        return code != 0  # the command's own status beats any text it printed
    if content.lstrip().startswith("ERROR:"):
        return True  # the file editor's (and other tools') refusals: "ERROR:\n<reason>"
    if kind == "run_ipython":
        return None  # OpenHands' own flags for a cell are constants (success: true), not a signal
    if kind == "mcp":
        return _mcp_is_error(content)
    if isinstance(extras.get("error"), bool):
        return extras["error"]
    if isinstance(obs.get("success"), bool):
        return not obs["success"]
    return False if kind in _SIGNALLING_KINDS else None


class _Builder:
    """One trace under construction from its events."""

    def __init__(self, trace_id: str | None, line: int, ctx: ReadContext, place: str = "") -> None:
        # Without an id of its own the trace is named by its ``place`` until ``identity`` settles it.
        self.trace = Trace(id=trace_id or place, format=FORMAT, file=ctx.file, line=line, end_line=line)
        if not trace_id:
            self.trace.id_base = file_stem(ctx.file)
        self.ctx = ctx
        self.by_response: dict[str, Round] = {}
        self.by_event: dict[str, ToolCall] = {}  # action event id -> its call
        self.by_call_id: dict[str, ToolCall] = {}
        self.started: dict[int, float | None] = {}  # id(call) -> its action's time
        self.last_time: float | None = None
        self.agent_state: str | None = None
        self.state_reason: str | None = None
        self.env_error: str | None = None
        self.llm_metrics: dict | None = None
        # Flat lists without event ids: the call of the last action, which the next
        # observation answers (the agent waited for each observation before acting again).
        self.awaiting: ToolCall | None = None

    def warner(self, line: int | None) -> Warn:
        return lambda reason: self.ctx.warn(line, f"trace {self.trace.id}: {reason}")

    # -- events --

    def event(self, ev: Any, line: int, k: int, forced: ToolCall | None = None, loose: bool = False) -> ToolCall | None:
        """Read one event; returns the call an action created (for old-style pairs).
        ``loose``: an evaluation output's history item, which may leave "source" out (old
        pairs' observations, the old flat lists)."""
        if not (_is_event(ev) or (loose and _is_loose_event(ev))):
            self.ctx.warn(line, f"trace {self.trace.id}: history item {k} is not an OpenHands event")
            return None
        moment = parse_time(ev.get("timestamp"), self.warner(line), "timestamp")
        if isinstance(ev.get("llm_metrics"), dict):
            self.llm_metrics = ev["llm_metrics"]
        call = None
        if "action" in ev:
            call = self.action(ev, line, moment)
        else:
            self.observation(ev, line, moment, forced)
        if moment is not None:
            self.last_time = moment
        return call

    def new_round(self, ev: dict, line: int, moment: float | None, text: str, response: dict | None) -> Round:
        response = response or {}
        choices = as_list(response.get("choices"))
        choice = as_dict(choices[0]) if choices else {}
        rnd = Round(
            index=0,
            text=text,
            usage=litellm_usage(response.get("usage"), self.warner(line)),
            started_at=self.last_time if moment is not None else None,
            ended_at=moment,
            finish_reason=as_str(choice.get("finish_reason")),
            line=line,
            id=as_str(response.get("id")),
            model=as_str(response.get("model")),
        )
        self.trace.rounds.append(rnd)
        return rnd

    def action(self, ev: dict, line: int, moment: float | None) -> ToolCall | None:
        kind = ev.get("action")
        args = _args(ev)
        source = _source(ev, args)
        if source != "agent":
            text = _user_text(ev)
            if text is not None:
                # What the user said opens a conversation turn (the first one is the task).
                self.trace.add_user_message(text, at=moment, line=line)
            return None
        self.awaiting = None  # an agent action: whatever was awaited got no observation
        meta = ev.get("tool_call_metadata")
        if isinstance(meta, dict):
            return self.metadata_action(ev, kind, args, meta, line, moment)
        if kind in _ANSWER_ACTIONS:
            text = _first_text(args.get("final_thought"), args.get("content"), args.get("thought"), ev.get("message"))
            self.new_round(ev, line, moment, text, None)
            return None
        if kind in _RUN_ACTIONS:
            rnd = self.new_round(ev, line, moment, content_text(args.get("thought")), None)
            call = new_call(None, kind, {k: v for k, v in args.items() if k != "thought"})
            rnd.tool_calls.append(call)
            self.register(ev, call, moment)
            return call
        return None  # system prompt, condensation, state changes, recall, ...

    def metadata_action(self, ev: dict, kind: Any, args: dict, meta: dict, line: int, moment: float | None):
        response = as_dict(meta.get("model_response"))
        key = as_str(response.get("id"))
        rnd = self.by_response.get(key) if key else None
        if rnd is None:
            choices = as_list(response.get("choices"))
            message = as_dict(as_dict(choices[0]).get("message")) if choices else {}
            text = content_text(message.get("content")) or _first_text(args.get("thought"))
            if kind in _ANSWER_ACTIONS and not text:
                text = _first_text(args.get("final_thought"), args.get("content"), ev.get("message"))
            rnd = self.new_round(ev, line, moment, text, response)
            if key:
                self.by_response[key] = rnd
        if kind in _ANSWER_ACTIONS:
            return None  # finishing is the answer, not a tool run
        call_id = as_str_or_int(meta.get("tool_call_id"))
        arguments: Any = {k: v for k, v in args.items() if k != "thought"}
        for choice in as_list(response.get("choices")):
            for spec in as_list(as_dict(as_dict(choice).get("message")).get("tool_calls")):
                if isinstance(spec, dict) and call_id is not None and as_str_or_int(spec.get("id")) == call_id:
                    found = as_dict(spec.get("function")).get("arguments")
                    if found is not None:
                        arguments = found
        call = new_call(call_id, meta.get("function_name") or kind, arguments)
        rnd.tool_calls.append(call)
        self.register(ev, call, moment)
        return call

    def register(self, ev: dict, call: ToolCall, moment: float | None) -> None:
        event_id = as_str_or_int(ev.get("id"))
        if event_id is not None:
            self.by_event[event_id] = call
        elif "id" not in ev:
            self.awaiting = call
        if call.id:
            self.by_call_id[call.id] = call
        self.started[id(call)] = moment

    def observation(self, ev: dict, line: int, moment: float | None, forced: ToolCall | None) -> None:
        kind = ev.get("observation")
        extras = _extras(ev)
        if kind == "agent_state_changed":
            state = extras.get("agent_state")
            if isinstance(state, str):
                self.agent_state = state
                self.state_reason = as_str(extras.get("reason"))
            return
        meta = as_dict(ev.get("tool_call_metadata"))
        call_id = as_str_or_int(meta.get("tool_call_id"))
        cause = as_str_or_int(ev.get("cause"))
        call = forced
        if call is None and cause is not None:
            call = self.by_event.pop(cause, None)
        if call is None and call_id is not None:
            call = self.by_call_id.get(call_id)
            if call is not None and call.result is not None:
                call = None
        if call is None and cause is None and call_id is None and "id" not in ev and kind != "null":
            call, self.awaiting = self.awaiting, None  # a flat list: the action just before
        if call is None:
            if call_id is not None:
                self.ctx.warn(line, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id)}")
            elif kind == "error":
                self.env_error = content_text(ev.get("content")) or as_str(ev.get("message"))
            return  # null observations, recall results, answers to non-calls
        if call.result is not None:
            self.ctx.warn(line, f"trace {self.trace.id}: a second observation for call {brief(call.id or call.name)} is ignored")
            return
        if call.id:
            self.by_call_id.pop(call.id, None)
        content = ev.get("content")
        text = content_text(content) if content is not None else content_text(ev.get("message"))
        call.result = ToolResult(
            content=text,
            is_error=_is_error(ev, text),
            started_at=self.started.pop(id(call), None) if moment is not None else None,
            ended_at=moment,
            line=line,
        )

    # -- the end --

    def apply_metrics(self, metrics: Any) -> None:
        metrics = as_dict(metrics) or as_dict(self.llm_metrics)
        if not metrics:
            return
        by_id = {r.id: r for r in self.trace.rounds if r.id}
        for entry in as_list(metrics.get("token_usages")):
            rnd = by_id.get(as_str(as_dict(entry).get("response_id")))
            if rnd is not None and rnd.usage is None:
                rnd.usage = _token_usage(entry, self.warner(rnd.line), "metrics.token_usages")
        for entry in as_list(metrics.get("response_latencies")):
            entry = as_dict(entry)
            rnd = by_id.get(as_str(entry.get("response_id")))
            latency = entry.get("latency")
            if rnd is not None and rnd.ended_at is not None and isinstance(latency, (int, float)) and latency >= 0:
                rnd.started_at = shift_time(rnd.ended_at, -latency)
        if all(r.usage is None for r in self.trace.rounds):
            self.trace.usage_total = _token_usage(
                metrics.get("accumulated_token_usage"), self.warner(self.trace.line), "metrics.accumulated_token_usage"
            )
        cost = metrics.get("accumulated_cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.trace.metadata["accumulated_cost"] = cost

    def finish(self, metrics: Any = None) -> Trace:
        self.apply_metrics(metrics)
        if self.agent_state == "error":
            self.trace.error = self.state_reason or self.env_error or "agent state: error"
            self.trace.ending = error_ending(self.trace.error)  # an ending, not a grade
        return finish_trace(self.trace, self.ctx.diagnostics)


def _first_text(*values: Any) -> str:
    for value in values:
        if isinstance(value, str) and value:
            return value
    return ""


# --- records ---------------------------------------------------------------------------------


def _read_value(value: Any, line: int, ctx: ReadContext, next_id) -> Iterator[Trace]:
    if isinstance(value, list) and value and _is_event(value[0]):
        b = _Builder(None, line, ctx, next_id(line))
        for k, ev in enumerate(value, 1):
            b.event(ev, line, k)
        yield b.finish()
    elif _is_eval_output(value):
        yield _eval_output(value, line, ctx, next_id(line))
    elif isinstance(value, list) and value and _is_eval_output(value[0]):
        for k, item in enumerate(value):
            if _is_eval_output(item):
                trace = _eval_output(item, line, ctx, f"{next_id(line)}#{k}")
                trace.pointer = f"[{k}]"
                yield trace
            else:
                ctx.warn(line, f"item {k} is not an OpenHands evaluation output")
    elif value == []:
        ctx.warn(line, "empty list: no OpenHands events")
    else:
        ctx.warn(line, "JSON that matches no known OpenHands shape")


def _first_event(item: Any) -> Any:
    """A history item's event: itself, or the action of an old [action, observation] pair."""
    return item[0] if isinstance(item, list) and len(item) == 2 else item


def _issue_id(issue: Any) -> str | None:
    """``owner/repo#number`` of the resolver's ``issue`` object (its lines have no instance id)."""
    issue = as_dict(issue)
    owner, repo, number = as_str(issue.get("owner")), as_str(issue.get("repo")), as_str_or_int(issue.get("number"))
    return f"{owner}/{repo}#{number}" if owner and repo and number else None


def _eval_output(value: dict, line: int, ctx: ReadContext, place: str) -> Trace:
    b = _Builder(as_str_or_int(value.get("instance_id")) or _issue_id(value.get("issue")), line, ctx, place)
    history = as_list(value.get("history"))
    instruction = as_str(value.get("instruction"))
    if instruction is not None and not any(_user_text(_first_event(item)) is not None for item in history):
        b.trace.add_user_message(instruction, line=line)  # the task, when no event holds it
    for k, item in enumerate(history, 1):
        if isinstance(item, list) and len(item) == 2:
            # Old format: an [action, observation] pair; the observation answers the action.
            call = b.event(item[0], line, k, loose=True)
            b.event(item[1], line, k, forced=call, loose=True)
        else:
            b.event(item, line, k, loose=True)
    trace = b.trace
    b.apply_metrics(value.get("metrics"))
    error = as_str(value.get("error"))
    test_result = as_dict(value.get("test_result"))
    report = as_dict(test_result.get("report"))
    # The resolver judges its own runs: a top-level "success".
    candidates = (report.get("resolved"), test_result.get("resolved"), test_result.get("success"), value.get("success"))
    resolved = next((v for v in candidates if isinstance(v, bool)), None)
    # Only the evaluation (or the resolver's verdict) grades; an error is an ending.
    if resolved is not None:
        trace.labels["outcome"] = "success" if resolved else "failure"
    if error is not None:
        if trace.rounds and trace.rounds[-1].is_final:
            trace.metadata["error"] = error
        else:
            trace.error = error
            trace.ending = error_ending(error)
    elif b.agent_state == "error":
        trace.error = b.state_reason or b.env_error or "agent state: error"
        trace.ending = error_ending(trace.error)
    return finish_trace(trace, ctx.diagnostics)
