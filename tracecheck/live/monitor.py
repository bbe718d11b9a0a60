"""The guards inside a running agent: one ``Monitor`` per run, fed what the agent loop
has, answering with a ``Decision`` the loop can act on.

    from tracecheck import Monitor

    monitor = Monitor(preset="default")
    monitor.new_turn(user_text)
    while True:
        reply = call_model(messages, tools)
        if not reply.tool_calls:
            decision = monitor.final(reply.text)        # E001 may push back (reject)
            break
        decision = monitor.before_tools(reply.tool_calls, text=reply.text, usage=reply.usage)
        if decision.abort:
            break
        if not decision.stop:
            results = run_tools(reply.tool_calls, skip=decision.blocked)
            decision = monitor.after_tools(results)
        if decision.stop:                               # one more call, without tools
            answer = call_model(closing_messages(messages, decision))
            monitor.final(answer.text)                  # recorded as the stop's forced answer
            break
        ...

The monitor builds the same model objects the readers build (``Round``, ``ToolCall``
with arguments parsed from the JSON the model wrote, see ``adapters``) and steps the
policy engine replay steps (``engine.policy.Policy``, together): in registry order, phase
by phase; a stop ends the turn for every guard, an abort ends the run; a guard whose
scope is the turn starts afresh at each ``new_turn``. So a live run and the replay of its
recording get the same verdicts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from ..dataclass_lite import mutable_dataclass
from ..engine.costs import estimate_tokens, round_tokens, tool_result_tokens
from ..engine.policy import Policy
from ..guards.base import Action, Guard, Phase, RunContext, Verdict
from ..model import Round, ToolResult, Trace
from .adapters import language_of, parse_results, parse_tool_call, parse_usage


@mutable_dataclass
class Decision:
    """What the agent loop should do now.

    ``action`` is the strongest of the verdicts: ``continue``, ``hint`` (add ``message``
    to the conversation; the calls run), ``block`` (run the calls except ``blocked``, each
    answered with its synthetic result), ``reject`` (the final answer is refused: send
    ``message`` and let the model go on), ``stop`` (no tools now: ask the model once more
    for a final answer with ``message`` as the closing prompt, see ``closing_messages``,
    and give that answer to ``Monitor.final``),
    ``abort`` (end the run without an answer). ``verdicts`` are (guard code, verdict).
    """

    action: str = "continue"
    verdicts: list[tuple[str, Verdict]] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)  # call id -> the result to return instead
    message: str | None = None  # for the model

    @property
    def stop(self) -> bool:
        return self.action == "stop"

    @property
    def abort(self) -> bool:
        return self.action == "abort"

    @property
    def reject(self) -> bool:
        return self.action == "reject"

    @property
    def ends_turn(self) -> bool:
        return self.action in ("stop", "abort")


def model_message(verdict: Verdict) -> str:
    """The text for the model: the guard's model-facing message, else its reason."""
    return getattr(verdict, "message", None) or verdict.reason


def new_run_id() -> str:
    """A fresh trace id for one run (``run-`` and 12 hex digits): runs appended to one
    recording stay apart."""
    return f"run-{uuid.uuid4().hex[:12]}"


class Monitor:
    """One agent run under the guards of a preset and/or config (validated like the CLI).
    ``trace_id`` names its recording; by default each monitor gets a fresh one."""

    def __init__(
        self,
        preset: str | None = None,
        *,
        select: Sequence[str] = (),
        ignore: Sequence[str] = (),
        options: Mapping[str, Mapping[str, Any]] | None = None,
        config: str | None = None,
        cwd: str | None = None,
        language: str = "auto",
        trace_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        settings=None,
        clock=time.time,
    ) -> None:
        if settings is None:
            settings = _settings(preset, select, ignore, options, config, cwd)
        if language not in ("auto", "en", "zh"):
            raise ValueError(f"language must be auto, en or zh, not {language!r}")
        self.settings = settings
        self.language = language
        self.clock = clock
        self.guards: list[Guard] = settings.build()
        self.trace = Trace(id=trace_id or new_run_id(), format="live", file="<live>", metadata=dict(metadata or {}))
        self.policy = Policy(self.guards, self.trace.metadata, together=True, language="en" if language == "auto" else language)
        self.context: RunContext = self.policy.context
        self.turn = 1
        self._forcing = False  # a stop asked for a forced answer: the next final() is it
        self.listeners: list[Any] = []  # e.g. a Recorder: told about every event
        self._pending: Round | None = None  # the round whose tools are running
        self._blocked: dict[str, str] = {}  # its blocked calls' synthetic results
        self._context_tokens = 0  # estimated tokens said so far, for rounds without usage

    @classmethod
    def from_config(cls, path: str | None = None, *, preset: str | None = None, cwd: str | None = None, **kwargs: Any) -> Monitor:
        """The settings ``tracecheck replay`` would use: ``path``, or the nearest
        ``tracecheck.toml`` / ``pyproject.toml [tool.tracecheck]`` above ``cwd``."""
        return cls(preset, config=path, cwd=cwd, **kwargs)

    @property
    def stopped(self) -> bool:
        """The current turn was stopped: guards sit it out."""
        return bool(self.policy.stopped)

    @property
    def aborted(self) -> bool:
        """The run was aborted: no guard looks any more."""
        return bool(self.policy.aborted)

    # --- what the loop tells the monitor -----------------------------------------------

    def new_turn(self, user_text: str) -> None:
        """A user message arrived: a new turn starts (the first message opens turn 1)."""
        first = not self.trace.user_messages and not self.trace.rounds
        self.trace.add_user_message(user_text, at=self.clock())
        self._context_tokens += estimate_tokens(user_text)
        if self.language == "auto":
            self.context.language = language_of(user_text) or self.context.language
        self._emit("user", self.trace.user_messages[-1])
        if first:
            return
        self.turn += 1
        self._forcing = False
        self.policy.new_turn()

    def before_tools(self, tool_calls: Iterable[Any], *, text: str = "", usage: Any = None, started_at: float | None = None) -> Decision:
        """The model asked for tools; nothing ran yet. Which to block, or stop now?"""
        # Read the calls before anything changes: a bad one leaves the monitor as it was.
        index = len(self.trace.rounds) + 1
        calls = [parse_tool_call(spec, index, k) for k, spec in enumerate(tool_calls, 1)]
        if not calls:
            raise ValueError("before_tools needs the round's tool calls; a response without calls is final(text)")
        rnd = self._new_round(text, usage, started_at)
        rnd.tool_calls = calls
        self._forcing = False  # the model went on with tools: this was no answer to the stop
        self._count_tokens(rnd)
        self._pending = rnd
        decision = self._phase(Phase.BEFORE_TOOLS, rnd)
        self._blocked = dict(decision.blocked)
        if decision.ends_turn:
            self._pending = None  # the tools do not run: the agent answers (or ends) now
        self._emit("round", rnd, decision)
        return decision

    def after_tools(self, results: Any) -> Decision:
        """The results are in (blocked calls may be left out: they get their synthetic
        result). Is there anything new, or stop now?"""
        rnd = self._pending
        if rnd is None:
            raise ValueError("after_tools without before_tools")
        answered = parse_results(results, rnd.tool_calls)  # raises on results for calls of another round
        self._pending = None
        now = self.clock()
        # A lone call ran from the end of the response (before_tools) to now: its own time, which
        # B005 (call-timeout) reads. Parallel calls share that span, not each its own: left untimed.
        lone = rnd.ended_at if len(rnd.tool_calls) == 1 else None
        for call, (content, is_error) in zip(rnd.tool_calls, answered):
            blocked = call.id in self._blocked
            if content is None and blocked:
                content = self._blocked[call.id]  # not run: the model got the synthetic answer
            if content is None:
                continue
            started = None if blocked else lone
            call.result = ToolResult(content=content, is_error=is_error, started_at=started, ended_at=now, blocked=blocked)
        self._context_tokens += tool_result_tokens(rnd)
        decision = self._phase(Phase.AFTER_TOOLS, rnd)
        self._emit("results", rnd, decision)
        return decision

    def final(self, text: str, *, usage: Any = None, started_at: float | None = None) -> Decision:
        """The model answered without tools. Accept it, or push back (reject)?

        After a ``stop``, give the forced answer here too: it is recorded as that stop's
        forced answer (the stop ended the turn, so no guard judges it), and a replay of
        the recording counts the stop as made, not as one more forced answer to come."""
        rnd = self._new_round(text, usage, started_at)
        rnd.forced, self._forcing = self._forcing, False
        self._count_tokens(rnd)
        decision = self._phase(Phase.FINAL, rnd)
        self._emit("round", rnd, decision)
        return decision

    # --- inside ---------------------------------------------------------------------

    def _new_round(self, text: str, usage: Any, started_at: float | None) -> Round:
        if self._pending is not None:
            raise ValueError("the previous round's after_tools was not called")
        now = self.clock()
        rnd = Round(index=len(self.trace.rounds) + 1, text=text or "", usage=parse_usage(usage), started_at=started_at, ended_at=now)
        rnd.turn = self.turn
        self.trace.rounds.append(rnd)
        if self.trace.user_messages:
            self.trace.number_turns()
        return rnd

    def _count_tokens(self, rnd: Round) -> None:
        """The round enters the policy's token context: measured usage, else the same
        text estimate replay makes (the context so far in, the round's own text out)."""
        tokens = round_tokens(rnd, self._context_tokens)
        self.policy.enter(rnd.turn, tokens.input_tokens + tokens.output_tokens, tokens.estimated)
        self._context_tokens += tokens.output_estimate

    def _phase(self, phase: Phase, rnd: Round) -> Decision:
        step = self.policy.step(rnd, phase)  # nothing when the policy left this turn (or the run)
        decision = Decision()
        for guard, verdict in step.verdicts:
            decision.verdicts.append((guard.code, verdict))
            if verdict.action is Action.BLOCK and verdict.call_id is not None:
                decision.blocked[verdict.call_id] = verdict.replacement or getattr(verdict, "refusal", None) or model_message(verdict)
        strongest = step.strongest
        if strongest is Action.STOP:
            self._forcing = True
        decision.action = "continue" if strongest is None else strongest.value
        texts = [model_message(v) for _, v in decision.verdicts if v.action in (strongest, Action.HINT) and v.action is not Action.BLOCK]
        decision.message = "\n\n".join(dict.fromkeys(texts)) or None
        return decision

    def _emit(self, kind: str, *payload: Any) -> None:
        for listener in self.listeners:
            listener(kind, self, *payload)


def _settings(preset, select, ignore, options, config, cwd):
    """Settings validated exactly as the command line validates them; a bad guard,
    option or value is a ValueError naming it."""
    from pathlib import Path

    from ..config import load_settings
    from ..input.diagnostics import TracecheckError

    sets = []
    for code, values in (options or {}).items():
        if not isinstance(values, Mapping):
            raise ValueError(f"options[{code!r}] must be a mapping of option -> value")
        for name, value in values.items():
            sets.append((code, name, value))
    try:
        settings = load_settings(config=config, select=list(select), ignore=list(ignore), cwd=Path(cwd) if cwd else None, preset=preset)
        from ..config import coerce_option, unknown_guard
        from ..guards import guard_by_key

        for code, name, value in sets:
            guard = guard_by_key(code)
            if guard is None:
                raise unknown_guard(code)
            settings = settings.asked_for(guard.code, name, coerce_option(guard, name, value, "options"))
    except TracecheckError as exc:
        raise ValueError(str(exc)) from None
    return settings
