"""τ-bench and τ²-bench results (sierra-research/tau-bench, tau2-bench).

Checked against real τ²-bench results documents (written by a tau2-bench fork's runner,
``info.git_commit`` d003d75; ``tests/corpus/tau2-bench/``) and τ-bench ``run.py``
results (hand-made fixtures; no τ-bench version recorded).

Shapes read:

- **τ-bench**: the results file ``run.py`` writes, a JSON array (``indent=2``) of
  ``EnvRunResult`` objects ``{task_id, reward, info, traj, trial}``; also one such
  object per line. ``traj`` is the agent's message list: ``system``, ``user`` (the
  simulated user), ``assistant`` (LiteLLM ``model_dump()``: ``content``,
  ``tool_calls`` with ``function.arguments`` as a JSON string) and ``tool``
  (``tool_call_id``, ``name``, ``content``). The ``act``/``react`` agents write no
  tool calls: their assistant text ends in ``Action:`` and a JSON
  ``{"name", "arguments"}``, and the next user message (``API output: ...``) is the
  result; such an action is read as a call (``respond`` is a reply to the user, no
  call; text that is not that JSON is a reply too, as τ-bench itself treats it).
- **τ²-bench**: a results document ``{timestamp, info, tasks, simulations: [...]}``,
  or one ``SimulationRun`` (``simulations/<id>.json`` of the directory format), or a
  JSON array / lines of them. A simulation is ``{id, task_id, trial, start_time,
  end_time, duration, termination_reason, reward_info: {reward, ...}, messages}``;
  messages carry ``turn_idx``, ``timestamp`` (naive ISO local time of the machine
  that ran it, read as UTC: durations are right, the absolute time may be off by
  the UTC offset), assistant ``usage`` ``{prompt_tokens, completion_tokens}``,
  ``cost``, ``raw_data`` (the provider response), ``generation_time_seconds``, and
  ``tool_calls`` ``[{id, name, arguments: {...}, requestor}]``; tool messages carry
  the call's ``id``, ``requestor`` and ``error`` (a bool). A ``results.json`` of the
  directory format holds no messages and gives no traces (a warning says where
  they are).

One trace per task run, id ``task-<task_id>/trial-<trial>`` (``task-<task_id>/<simulation
id>`` when a τ² simulation has no trial). One round per assistant message: an assistant
message without tool calls is the agent's reply to the user, which ends the turn.

User messages: every ``user`` message of the simulated user is a user message
(``trace.user_messages``, its text with the surrounding whitespace trimmed; τ²: at its
``timestamp``) and opens a turn, except where it is no message from the user: a
τ-bench act/react agent's ``API output: ...`` answering its text action is that call's
result. Consecutive user messages with no agent message between them are one turn. The
user's closing message (``###STOP###``) follows the last reply and opens no turn. In τ²
the tools the simulated *user* calls (``requestor: "user"``, telecom domain: toggling
airplane mode, running a speed test) are the user's own actions, not the agent's: their
calls and results are left out of the rounds and out of the user's text (the agent
never sees them; only what the user then says), and counted in
``metadata["user_tool_calls"]``. τ²'s first message, the orchestrator's fixed greeting
("Hi! How can I help you today?", an assistant message before any user message with no
usage and no provider response: no model call made it), is no round; its text is kept in
``metadata["greeting"]``.

Results: τ² tool messages name their call in ``id`` (``tool_call_id`` where a dump has
it); ``error: true`` → ``is_error`` True, ``false`` → False. τ-bench tool messages carry
no error flag (``is_error`` None: an ``Error: ...`` text is only text). τ-bench has no
usage and no times; τ²
gives each round its usage (``raw_data.usage`` when present, for cached and
reasoning tokens), ``ended_at`` = the message's ``timestamp`` (written when the
response arrived) and ``started_at`` = that minus ``generation_time_seconds`` when
given; a tool result's ``ended_at`` is its message's timestamp.

Outcome, only from the grader's reward, with τ-bench's own success rule: ``reward >=
1 - 1e-6`` → ``success``, else ``failure`` (τ² ``reward_info.reward``); no reward
(a τ² simulation not yet evaluated) → no outcome. The reward is kept in ``metadata``.

Ending: a τ-bench result whose ``info`` has an ``error`` (the harness caught an
exception; ``traj`` is then empty, and the harness recorded reward 0) →
``trace.error`` and ``ending="error"``. A τ² simulation ended by anything but
``user_stop``/``agent_stop`` → ``trace.error`` names the termination reason, with
``ending="limit"`` for ``max_steps``/``timeout`` and ``"error"`` for the rest
(``too_many_errors``, ``agent_error``, ...); the reason is kept in
``metadata["termination_reason"]``. Otherwise a last agent reply is ``answered``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .chat_messages import chat_usage
from .contract import ReadContext, first_item, read_each
from .common import (
    Warn,
    brief,
    content_text,
    failure,
    finish_trace,
    new_call,
    parse_time,
    scalar_text,
    shift_time,
)

FORMAT = "tau-bench"

SUCCESS_MIN_REWARD = 1.0 - 1e-6  # τ-bench's REWARD_SUCCESS_MIN
_NORMAL_ENDS = ("user_stop", "agent_stop")
_LIMIT_ENDS = ("max_steps", "timeout")  # τ²'s step and time limits
_RESPOND = "respond"
_API_OUTPUT = "API output: "


def sniff(value: Any) -> bool:
    if isinstance(value, dict) and "task_id" not in value and isinstance(value.get("info"), dict):
        # τ²-bench results: {timestamp, info, tasks, simulations} (the directory
        # format's results.json has a simulation_index instead of simulations).
        if isinstance(value.get("simulations"), list) or isinstance(value.get("simulation_index"), list):
            return "tasks" in value
    item = first_item(value)
    if not isinstance(item, dict) or "task_id" not in item:
        return False
    if "traj" in item:
        return "reward" in item or "trial" in item
    # A τ²-bench SimulationRun keeps its reward under reward_info.
    return "messages" in item and ("reward" in item or "reward_info" in item or "termination_reason" in item)


def cut_before(value: Any) -> bool:
    """Each record (a result, a simulation, a results document, an array of them) is
    read on its own: a file of one per line may be cut before any line (``--jobs``)."""
    return True


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_each(records, ctx, lambda value, line: _record(value, line, ctx))


def _record(value: Any, line: int, ctx: ReadContext) -> Iterator[Trace]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _item(item, line, ctx, f"array element {index}", f"[{index}]")
        return
    if isinstance(value, dict) and ("simulations" in value or "simulation_index" in value) and "task_id" not in value:
        simulations = value.get("simulations")
        if isinstance(simulations, list) and simulations:
            for index, item in enumerate(simulations):
                yield from _item(item, line, ctx, f"simulation {index}", f"simulations[{index}]")
        elif value.get("simulation_index"):
            ctx.warn(line, "τ²-bench results.json of the directory format: the simulations are in simulations/*.json beside it")
        else:
            ctx.warn(line, "τ²-bench results without simulations")
        return
    yield from _item(value, line, ctx, None, None)


def _item(item: Any, line: int, ctx: ReadContext, where: str | None, pointer: str | None) -> Iterator[Trace]:
    place = f" ({where})" if where else ""
    if not isinstance(item, dict) or "task_id" not in item:
        ctx.warn(line, f"not a τ-bench result or τ²-bench simulation (no task_id); skipped{place}")
        return
    if isinstance(item.get("traj"), list) or isinstance(item.get("messages"), list):
        tau2 = not isinstance(item.get("traj"), list) and (
            "reward_info" in item or "termination_reason" in item or "reward" not in item
        )  # else a τ-bench result, maybe dumped with "messages"
        try:
            trace = _tau2(item, line, ctx) if tau2 else _tau1(item, line, ctx)
        except Exception as exc:  # one odd item must not cost the rest of the array
            ctx.warn(line, f"could not read this item ({failure(exc)}); skipped{place}")
        else:
            trace.pointer = pointer  # the run's own place in a document of many
            yield trace
    elif item.get("ticks") is not None:
        ctx.warn(line, f"τ²-bench simulation of task {brief(item['task_id'])} has only full-duplex ticks, no messages; skipped{place}")
    else:
        ctx.warn(line, f"τ-bench item of task {brief(item['task_id'])} has no 'traj' or 'messages' list; skipped{place}")


# --- shared -----------------------------------------------------------------------------


def _id_part(value: Any) -> str:
    return scalar_text(value) if value is not None else "?"


def _outcome(trace: Trace, reward: Any) -> None:
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        return
    trace.metadata["reward"] = reward
    trace.labels["outcome"] = "success" if reward >= SUCCESS_MIN_REWARD else "failure"


class _Run:
    """Turns one message list into rounds, calls and results."""

    def __init__(self, trace: Trace, ctx: ReadContext, line: int, text_actions: bool) -> None:
        self.trace = trace
        self.text_actions = text_actions  # τ-bench act/react agents only
        self.ctx = ctx
        self.line = line
        self.pending: dict[str, ToolCall] = {}
        self.text_action: ToolCall | None = None  # a τ-bench act/react call awaiting "API output"
        self.user_calls: set[str] = set()  # ids of the simulated user's own tool calls (τ²)
        self.user_spoke = False

    def warn(self, number: int, reason: str) -> None:
        self.ctx.warn(self.line, f"trace {self.trace.id}: {reason} (message {number})")

    def warner(self, number: int) -> Warn:
        return lambda reason: self.warn(number, reason)

    def register(self, rnd: Round, call: ToolCall, number: int) -> None:
        if not call.id:
            call.id = f"r{len(self.trace.rounds) + 1}.c{len(rnd.tool_calls) + 1}"
        if call.id in self.pending and self.pending[call.id].result is None:
            self.warn(number, f"call id {brief(call.id)} reused before its result arrived")
        self.pending[call.id] = call
        rnd.tool_calls.append(call)

    def calls(self, msg: dict, rnd: Round, number: int) -> None:
        items = msg.get("tool_calls")
        if items is None:
            return
        if not isinstance(items, list):
            self.warn(number, "'tool_calls' is not a list; ignored")
            return
        for item in items:
            if not isinstance(item, dict):
                self.warn(number, "a tool call that is not an object; skipped")
                continue
            function = item.get("function")
            if isinstance(function, dict):  # τ-bench: OpenAI shape, JSON-string arguments
                name, arguments = function.get("name"), function.get("arguments")
            else:  # τ²-bench: flat, arguments an object
                name, arguments = item.get("name"), item.get("arguments")
            if not isinstance(name, str) or not name:
                self.warn(number, "a tool call without a name; skipped")
                continue
            self.register(rnd, new_call(item.get("id"), name, arguments), number)

    def text_call(self, text: str, rnd: Round) -> None:
        """τ-bench act/react: the JSON after the last ``Action:`` names the call."""
        if "Action:" not in text:
            return
        try:
            action = orjson.loads(text.split("Action:")[-1].strip())
        except orjson.JSONDecodeError:
            return  # τ-bench sends such text to the user as it is
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            return
        if action["name"] == _RESPOND:
            return
        call = new_call(None, action["name"], action.get("arguments", {}))
        self.register(rnd, call, 0)
        self.text_action = call

    def assistant(self, msg: dict, number: int) -> None:
        text = content_text(msg.get("content"))
        if self.is_greeting(msg):
            self.trace.metadata["greeting"] = text
            return
        warn = self.warner(number)
        raw = msg.get("raw_data") if isinstance(msg.get("raw_data"), dict) else {}
        usage = chat_usage(raw.get("usage"), warn, "raw_data.usage") or chat_usage(msg.get("usage"), warn)
        ended = parse_time(msg.get("timestamp"), warn, "timestamp")
        started = None
        seconds = msg.get("generation_time_seconds")
        if isinstance(seconds, (int, float)) and seconds >= 0:
            started = shift_time(ended, -seconds)
        choices = raw.get("choices")
        if isinstance(choices, list):  # the whole provider response
            choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        else:  # LiteLLM's choice alone ({finish_reason, index, message}), as τ² saves it
            choice = raw
        rnd = Round(
            index=len(self.trace.rounds) + 1,
            text=text,
            usage=usage,
            started_at=started,
            ended_at=ended,
            finish_reason=choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
            line=self.line,
            id=raw.get("id") if isinstance(raw.get("id"), str) else None,
            model=raw.get("model") if isinstance(raw.get("model"), str) else None,
        )
        self.text_action = None
        self.calls(msg, rnd, number)
        if self.text_actions and not rnd.tool_calls and isinstance(msg.get("content"), str):
            self.text_call(msg["content"], rnd)
        self.trace.rounds.append(rnd)

    def is_greeting(self, msg: dict) -> bool:
        """τ²'s orchestrator opens with a fixed assistant message that no model wrote:
        before anything else, without calls, usage or a provider response."""
        return (
            not self.text_actions
            and not self.trace.rounds
            and not self.user_spoke
            and not msg.get("tool_calls")
            and msg.get("usage") is None
            and msg.get("raw_data") is None
        )

    def tool(self, msg: dict, number: int) -> None:
        if msg.get("requestor") == "user":
            return  # the simulated user's own tool (τ² telecom), not the agent's
        call_id = msg.get("tool_call_id")
        if call_id is None:
            call_id = msg.get("id")  # τ²: the tool message's id is the call's
        call_id = str(call_id) if isinstance(call_id, (str, int)) and call_id != "" else None
        if call_id is not None and call_id in self.user_calls:
            return
        error = msg.get("error")
        result = ToolResult(
            content=content_text(msg.get("content")),
            is_error=error if isinstance(error, bool) else None,
            ended_at=parse_time(msg.get("timestamp"), self.warner(number), "timestamp"),
            line=self.line,
        )
        call = self.pending.get(call_id) if call_id is not None else None
        if call is None and call_id is None:
            # No id at all: the oldest open call (of that name, when named).
            name = msg.get("name")
            open_calls = [c for c in self.pending.values() if c.result is None]
            call = next((c for c in open_calls if c.name == name), open_calls[0] if open_calls else None)
        if call is None:
            self.warn(number, f"tool result for unknown call id {brief(call_id)}")
            return
        if call.result is not None:
            self.warn(number, f"second tool result for call id {brief(call_id)} ignored")
            return
        call.result = result

    def user(self, msg: dict, number: int) -> None:
        items = msg.get("tool_calls")
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"]:
                self.user_calls.add(item["id"])
            if isinstance(item, dict):
                self.trace.metadata["user_tool_calls"] = self.trace.metadata.get("user_tool_calls", 0) + 1
        text = content_text(msg.get("content"))
        if self.text_action is not None and self.text_action.result is None:
            # τ-bench act/react: the environment's answer comes back as a user message.
            self.text_action.result = ToolResult(content=text.removeprefix(_API_OUTPUT), line=self.line)
            self.text_action = None
            return
        self.text_action = None
        self.user_spoke = True
        at = parse_time(msg.get("timestamp"), self.warner(number), "timestamp")
        self.trace.add_user_message(text.strip(), at=at, line=self.line)

    def add_all(self, messages: list) -> None:
        for number, msg in enumerate(messages, 1):
            if not isinstance(msg, dict):
                self.warn(number, "a message that is not a JSON object; skipped")
                continue
            role = msg.get("role")
            if role == "assistant":
                self.assistant(msg, number)
            elif role == "tool":
                inner = msg.get("tool_messages")
                if isinstance(inner, list):  # τ² MultiToolMessage
                    for sub in inner:
                        if isinstance(sub, dict):
                            self.tool(sub, number)
                else:
                    self.tool(msg, number)
            elif role == "user":
                self.user(msg, number)
            elif role != "system":
                self.warn(number, f"message with unknown role {brief(role)} skipped")


# --- τ-bench ------------------------------------------------------------------------------


def _tau1(item: dict, line: int, ctx: ReadContext) -> Trace:
    trial = item.get("trial")
    trace_id = f"task-{_id_part(item.get('task_id'))}" + (f"/trial-{scalar_text(trial)}" if trial is not None else "")
    trace = Trace(id=trace_id, format=FORMAT, file=ctx.file, line=line, end_line=line)
    trace.metadata["task_id"] = item.get("task_id") if isinstance(item.get("task_id"), (int, str)) else None
    if isinstance(trial, int):
        trace.metadata["trial"] = trial
    messages = item.get("traj") if isinstance(item.get("traj"), list) else item.get("messages")
    _Run(trace, ctx, line, text_actions=True).add_all(messages)
    _outcome(trace, item.get("reward"))
    info = item.get("info") if isinstance(item.get("info"), dict) else {}
    error = info.get("error")
    if error:
        # The harness's exception is how the run ended; the reward it recorded (0.0
        # beside an error) stays the grade, and without one there is none.
        trace.error = scalar_text(error)
        trace.ending = "error"
    return finish_trace(trace, ctx.diagnostics)


# --- τ²-bench ------------------------------------------------------------------------------


def _tau2(item: dict, line: int, ctx: ReadContext) -> Trace:
    trial = item.get("trial")
    task = _id_part(item.get("task_id"))
    if trial is not None:
        trace_id = f"task-{task}/trial-{scalar_text(trial)}"
    elif item.get("id"):
        trace_id = f"task-{task}/{scalar_text(item['id'])}"
    else:
        trace_id = f"task-{task}"
    trace = Trace(id=trace_id, format=FORMAT, file=ctx.file, line=line, end_line=line)
    meta = trace.metadata
    meta["task_id"] = item.get("task_id") if isinstance(item.get("task_id"), (int, str)) else None
    if isinstance(item.get("id"), str):
        meta["simulation_id"] = item["id"]
    if isinstance(trial, int):
        meta["trial"] = trial
    for key in ("duration", "agent_cost", "user_cost"):
        if isinstance(item.get(key), (int, float)) and not isinstance(item.get(key), bool):
            meta[key] = item[key]
    _Run(trace, ctx, line, text_actions=False).add_all(item["messages"])
    reward_info = item.get("reward_info")
    if isinstance(reward_info, dict):
        _outcome(trace, reward_info.get("reward"))
    reason = item.get("termination_reason")
    if isinstance(reason, str) and reason:
        meta["termination_reason"] = reason
        if reason not in _NORMAL_ENDS:
            trace.error = f"simulation ended: {reason}"
            # No outcome without the evaluator's reward: the reason is an ending only.
            trace.ending = "limit" if reason in _LIMIT_ENDS else "error"
    return finish_trace(trace, ctx.diagnostics)

