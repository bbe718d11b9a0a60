"""tracecheck's guards inside a LangChain v1 agent (``langchain.agents.create_agent``).

    from langchain.agents import create_agent
    from tracecheck.integrations.langchain import TracecheckMiddleware

    agent = create_agent(model, tools, middleware=[TracecheckMiddleware(preset="default")])

One ``Monitor`` per agent run, fed at the points where the agent loop decides:

* ``after_model`` (the model answered, no tool ran yet): tool calls go to
  ``monitor.before_tools``, an answer without calls to ``monitor.final``;
* ``wrap_tool_call``: a call the decision blocked does not run; its ToolMessage carries
  the guard's synthetic result;
* ``before_model`` (the next model call): the ToolMessages since the last AIMessage are
  the round's results, fed to ``monitor.after_tools``; new user messages open turns.

How each decision acts on the agent:

* ``hint``: the guard's message is added to the conversation as a ``HumanMessage``
  after the round's tool results, so the next model call sees it. (A user message is
  what every provider accepts in the middle of a conversation; several only take a
  system message first.) The message ids start with ``tracecheck-``: they are not
  mistaken for the user's.
* ``block``: the blocked calls do not run; the others do.
* ``stop``: the round's tools do not run (each call is answered with a "not run"
  ToolMessage, as providers require), the guard's closing prompt is added, and the model
  is called once more **without tools** for the final answer. A stop after the tools ran
  does the same, from ``before_model``.
* ``abort``: the run ends with an AIMessage saying why (pending calls are answered
  first, so a thread can go on with another user message).
* ``reject`` (the final answer was refused, e.g. E001): the guard's message is sent and
  the model goes on.

Per-run state: the run's key lives in the agent state (``tracecheck_run``, private to
the middleware): the thread id under a checkpointer, otherwise a fresh id per
invocation. The Monitor (which cannot live in a checkpoint) is kept by the middleware
under that key, so one middleware serves any number of runs, and a thread's later
invocations continue the same monitor with a new turn. A run without a thread ends with
its invocation (its recording is closed); a thread's run lives until ``close(thread)``.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import field
from typing import Annotated, Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    PrivateStateAttr,
    hook_config,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from typing_extensions import NotRequired

from ..dataclass_lite import mutable_dataclass
from ..live import Decision, Monitor, Recorder, closing_messages
from ..live.monitor import new_run_id

NOTE_PREFIX = "tracecheck-"  # ids of the messages the middleware adds


class TracecheckState(AgentState):
    tracecheck_run: NotRequired[Annotated[str, PrivateStateAttr]]


@mutable_dataclass
class _Run:
    monitor: Monitor
    recorder: Recorder | None = None
    seen_users: set[str] = field(default_factory=set)  # ids of the user messages turned into turns
    awaiting_results: bool = False  # the round's tools are running: after_tools at the next model call
    blocked: dict[str, str] = field(default_factory=dict)  # call id -> synthetic result, this round
    notes: list[str] = field(default_factory=list)  # hints for the next model call
    forcing: bool = False  # the next model call is the forced final answer, without tools


class TracecheckMiddleware(AgentMiddleware):
    """Runs a tracecheck ``Monitor`` over each run of a ``create_agent`` agent.

    ``preset``, ``select``, ``ignore``, ``options``, ``config``, ``settings`` and
    ``language`` are the Monitor's (validated like the CLI: a bad option is a
    ValueError here, not mid-run); or ``monitor_factory()`` builds each run's Monitor.
    ``record_to`` is a path (``{run}`` in it is replaced by the run's key) where each run
    is appended as a native trace, for ``tracecheck replay``. ``on_decision(phase,
    decision)`` sees every decision (phase: before_tools, after_tools or final).
    ``max_runs`` bounds the runs kept for threads (the oldest is closed first).
    """

    state_schema = TracecheckState

    def __init__(
        self,
        preset: str | None = None,
        *,
        select=(),
        ignore=(),
        options=None,
        config: str | None = None,
        settings=None,
        language: str = "auto",
        metadata: dict[str, Any] | None = None,
        monitor_factory: Callable[[], Monitor] | None = None,
        record_to: str | os.PathLike | None = None,
        on_decision: Callable[[str, Decision], None] | None = None,
        max_runs: int = 1000,
    ) -> None:
        super().__init__()
        if monitor_factory is None:
            if settings is None:
                # Validate now, once: the same settings serve every run.
                settings = Monitor(preset, select=select, ignore=ignore, options=options, config=config, language=language).settings
            self._settings = settings
        self.language = language
        self.metadata = dict(metadata or {})
        self.monitor_factory = monitor_factory
        self.record_to = record_to
        self.on_decision = on_decision
        self.max_runs = max_runs
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._lock = threading.Lock()

    # --- runs -------------------------------------------------------------------------

    def monitor(self, key: str) -> Monitor | None:
        """The Monitor of a live run (a thread id, or the key in the state)."""
        run = self._runs.get(key)
        return run.monitor if run is not None else None

    def close(self, key: str | None = None, *, error: str | None = None) -> None:
        """End a thread's run (every run when ``key`` is None): its recording is closed
        and a later invocation of the thread starts a fresh monitor."""
        with self._lock:
            keys = list(self._runs) if key is None else [key]
            runs = [self._runs.pop(k) for k in keys if k in self._runs]
        for run in runs:
            if run.recorder is not None:
                run.recorder.close(error=error)  # an aborted run says so by itself

    def _start(self, key: str) -> _Run:
        if self.monitor_factory is not None:
            monitor = self.monitor_factory()
        else:
            monitor = Monitor(settings=self._settings, language=self.language, trace_id=key, metadata=self.metadata)
        recorder = None
        if self.record_to is not None:
            recorder = Recorder(os.fspath(self.record_to).replace("{run}", key)).attach(monitor)
        run = _Run(monitor, recorder)
        with self._lock:
            self._runs[key] = run
            overflow = len(self._runs) - self.max_runs
            old = [self._runs.popitem(last=False) for _ in range(max(0, overflow))]
        for _, dropped in old:
            if dropped.recorder is not None:
                dropped.recorder.close()
        return run

    def _run_of(self, state) -> _Run | None:
        key = state.get("tracecheck_run") if hasattr(state, "get") else None
        return self._runs.get(key) if key is not None else None

    def _decided(self, phase: str, decision: Decision) -> Decision:
        if self.on_decision is not None:
            self.on_decision(phase, decision)
        return decision

    # --- hooks ------------------------------------------------------------------------

    @hook_config(can_jump_to=["end"])
    def before_model(self, state, runtime) -> dict[str, Any] | None:
        update: dict[str, Any] = {}
        key = state.get("tracecheck_run")
        run = self._runs.get(key) if key is not None else None
        if run is None:
            key = key or _thread_id(runtime) or new_run_id()
            run = self._start(key)
            update["tracecheck_run"] = key
        monitor = run.monitor
        messages = state["messages"]
        added: list[Any] = []
        if run.awaiting_results:
            run.awaiting_results = False
            decision = self._decided("after_tools", monitor.after_tools(_results_since_last_ai(messages)))
            run.blocked = {}
            if decision.abort:
                return {**update, "messages": [_ending(decision)], "jump_to": "end"}
            if decision.stop:
                run.forcing = True
                added.append(_note(_closing_prompt(decision)))
            elif decision.message:
                run.notes.append(decision.message)
        for message in messages:
            if isinstance(message, HumanMessage) and not _ours(message) and message.id not in run.seen_users:
                run.seen_users.add(message.id)
                monitor.new_turn(message.text)
        added = [_note(text) for text in run.notes] + added
        run.notes = []
        if added:
            update["messages"] = added
        return update or None

    def wrap_model_call(self, request, handler):
        return handler(self._model_request(request))

    async def awrap_model_call(self, request, handler):
        return await handler(self._model_request(request))

    def _model_request(self, request):
        run = self._run_of(request.state)
        if run is not None and run.forcing:
            return request.override(tools=[], tool_choice=None)  # the forced answer: no tools bound
        return request

    @hook_config(can_jump_to=["model", "end"])
    def after_model(self, state, runtime) -> dict[str, Any] | None:
        run = self._run_of(state)
        last = state["messages"][-1] if state["messages"] else None
        if run is None or not isinstance(last, AIMessage):
            return None
        monitor = run.monitor
        if run.forcing:  # the forced final answer: it ends the turn whatever it asks for
            run.forcing = False
            self._decided("final", monitor.final(last.text, usage=last.usage_metadata))
            if last.tool_calls:
                answer = AIMessage(content=last.content, id=last.id, usage_metadata=last.usage_metadata, response_metadata=last.response_metadata)
                return {"messages": [answer], "jump_to": "end"}
            return None
        if not last.tool_calls:
            decision = self._decided("final", monitor.final(last.text, usage=last.usage_metadata))
            if decision.reject and decision.message:
                return {"messages": [_note(decision.message)], "jump_to": "model"}  # push back: the model goes on
            if decision.abort:
                return {"messages": [_ending(decision)], "jump_to": "end"}  # the answer is refused for good
            return None
        decision = self._decided("before_tools", monitor.before_tools(last.tool_calls, text=last.text, usage=last.usage_metadata))
        if decision.abort:
            return {"messages": [*_not_run(last, decision), _ending(decision)], "jump_to": "end"}
        if decision.stop:
            run.forcing = True
            return {"messages": [*_not_run(last, decision), _note(_closing_prompt(decision))], "jump_to": "model"}
        run.awaiting_results = True
        run.blocked = dict(decision.blocked)
        if decision.message:
            run.notes.append(decision.message)  # after the results: nothing may come between a call and its result
        return None

    def wrap_tool_call(self, request, handler):
        blocked = self._blocked(request)
        return blocked if blocked is not None else handler(request)

    async def awrap_tool_call(self, request, handler):
        blocked = self._blocked(request)
        return blocked if blocked is not None else await handler(request)

    def _blocked(self, request) -> ToolMessage | None:
        run = self._run_of(request.state)
        call = request.tool_call
        if run is None or call.get("id") not in run.blocked:
            return None
        return ToolMessage(content=run.blocked[call["id"]], tool_call_id=call["id"], name=call.get("name"))

    def after_agent(self, state, runtime) -> dict[str, Any] | None:
        key = state.get("tracecheck_run")
        if key is not None and _thread_id(runtime) is None:
            self.close(key)  # no thread: the run is over with its invocation
        return None


def _thread_id(runtime) -> str | None:
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    return str(thread) if thread else None


def _ours(message) -> bool:
    return bool(message.id) and str(message.id).startswith(NOTE_PREFIX)


def _note(text: str) -> HumanMessage:
    return HumanMessage(content=text, id=f"{NOTE_PREFIX}{uuid.uuid4().hex}")


def _closing_prompt(decision: Decision) -> str:
    return closing_messages([], decision)[-1]["content"]


def _codes(decision: Decision) -> str:
    return ", ".join(dict.fromkeys(code for code, _ in decision.verdicts)) or "a guard"


def _not_run(ai: AIMessage, decision: Decision) -> list[ToolMessage]:
    """Each call of a round that will not run, answered (providers require it)."""
    verb = "ended the run" if decision.abort else "stopped the tools for a final answer"
    text = f"Not run: tracecheck ({_codes(decision)}) {verb}."
    return [
        ToolMessage(content=decision.blocked.get(call["id"], text), tool_call_id=call["id"], name=call["name"], status="error", id=f"{NOTE_PREFIX}{uuid.uuid4().hex}")
        for call in ai.tool_calls
    ]


def _ending(decision: Decision) -> AIMessage:
    reason = decision.message or "; ".join(v.reason for _, v in decision.verdicts) or "a guard aborted the run"
    return AIMessage(content=f"The run was ended by tracecheck ({_codes(decision)}): {reason}", id=f"{NOTE_PREFIX}{uuid.uuid4().hex}")


def _results_since_last_ai(messages) -> list[ToolMessage]:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], AIMessage):
            return [m for m in messages[i + 1 :] if isinstance(m, ToolMessage)]
    return []
