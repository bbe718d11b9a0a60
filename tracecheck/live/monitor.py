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
with arguments parsed from the JSON the model wrote) and runs the guards the way
``replay`` runs its policy: in registry order, phase by phase; a stop ends the turn for
every guard, an abort ends the run; a guard whose scope is the turn starts afresh at
each ``new_turn``. So a live run and the replay of its recording get the same verdicts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..guards.base import Action, Guard, Phase, RunContext, Verdict
from ..model import Round, ToolCall, ToolResult, Trace, Usage
from ..text.arguments import dump_json, parse_arguments

# How strong each action is: the decision takes the strongest verdict's.
_STRENGTH = {None: 0, Action.HINT: 1, Action.BLOCK: 2, Action.REJECT: 3, Action.STOP: 4, Action.ABORT: 5}


@dataclass
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
        self.context = RunContext(metadata=self.trace.metadata)
        if hasattr(self.context, "language"):
            self.context.language = "en" if language == "auto" else language
        for guard in self.guards:
            guard.reset(self.context)
        self.turn = 1
        self.stopped = False  # the current turn was stopped: guards sit it out
        self._forcing = False  # a stop asked for a forced answer: the next final() is it
        self.aborted = False
        self.listeners: list[Any] = []  # e.g. a Recorder: told about every event
        self._pending: Round | None = None  # the round whose tools are running
        self._blocked: dict[str, str] = {}  # its blocked calls' synthetic results
        self._context_tokens = 0  # estimated tokens said so far, for rounds without usage

    @classmethod
    def from_config(cls, path: str | None = None, *, preset: str | None = None, cwd: str | None = None, **kwargs: Any) -> Monitor:
        """The settings ``tracecheck replay`` would use: ``path``, or the nearest
        ``tracecheck.toml`` / ``pyproject.toml [tool.tracecheck]`` above ``cwd``."""
        return cls(preset, config=path, cwd=cwd, **kwargs)

    # --- what the loop tells the monitor -----------------------------------------------

    def new_turn(self, user_text: str) -> None:
        """A user message arrived: a new turn starts (the first message opens turn 1)."""
        first = not self.trace.user_messages and not self.trace.rounds
        self.trace.add_user_message(user_text, at=self.clock())
        from ..engine.costs import estimate_tokens

        self._context_tokens += estimate_tokens(user_text)
        if self.language == "auto" and hasattr(self.context, "language"):
            self.context.language = _language_of(user_text) or self.context.language
        self._emit("user", self.trace.user_messages[-1])
        if first:
            return
        self.turn += 1
        self.stopped = False
        self._forcing = False
        for guard in self.guards:
            if guard.options.scope == "turn" and not self.aborted:
                guard.reset(self.context)

    def before_tools(self, tool_calls: Iterable[Any], *, text: str = "", usage: Any = None, started_at: float | None = None) -> Decision:
        """The model asked for tools; nothing ran yet. Which to block, or stop now?"""
        # Read the calls before anything changes: a bad one leaves the monitor as it was.
        index = len(self.trace.rounds) + 1
        calls = [_tool_call(spec, index, k) for k, spec in enumerate(tool_calls, 1)]
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
        answered = _results(results, rnd.tool_calls)  # raises on results for calls of another round
        self._pending = None
        now = self.clock()
        for call, (content, is_error) in zip(rnd.tool_calls, answered):
            blocked = call.id in self._blocked
            if content is None and blocked:
                content = self._blocked[call.id]  # not run: the model got the synthetic answer
            if content is None:
                continue
            call.result = ToolResult(content=content, is_error=is_error, ended_at=now, blocked=blocked)
        from ..engine.costs import estimate_tokens

        self._context_tokens += sum(estimate_tokens(c.result.content) for c in rnd.tool_calls if c.result is not None)
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
        rnd = Round(index=len(self.trace.rounds) + 1, text=text or "", usage=_usage(usage), started_at=started_at, ended_at=now)
        rnd.turn = self.turn
        self.trace.rounds.append(rnd)
        if self.trace.user_messages:
            self.trace.number_turns()
        self.context.turn = rnd.turn
        return rnd

    def _count_tokens(self, rnd: Round) -> None:
        """What a live guard can know of the tokens so far: measured usage, else the same
        text estimate replay makes (the context so far in, the round's own text out)."""
        from ..engine.costs import _output_text_tokens

        usage = rnd.usage
        out_estimate = _output_text_tokens(rnd)
        has_in = usage is not None and usage.input_tokens is not None
        has_out = usage is not None and usage.output_tokens is not None
        self.context.tokens_so_far += (usage.input_tokens if has_in else self._context_tokens) + (usage.output_tokens if has_out else out_estimate)
        self.context.tokens_estimated = self.context.tokens_estimated or not (has_in and has_out)
        self._context_tokens += out_estimate

    def _phase(self, phase: Phase, rnd: Round) -> Decision:
        decision = Decision()
        if self.aborted or self.stopped:
            return decision  # the policy left this turn (or the run): no guard looks
        strongest = None
        for guard in self.guards:
            method = {Phase.BEFORE_TOOLS: guard.before_tools, Phase.AFTER_TOOLS: guard.after_tools, Phase.FINAL: guard.final}[phase]
            ended = False
            for verdict in method(rnd, self.context):
                decision.verdicts.append((guard.code, verdict))
                if _STRENGTH[verdict.action] > _STRENGTH[strongest]:
                    strongest = verdict.action
                if verdict.action is Action.BLOCK and verdict.call_id is not None:
                    decision.blocked[verdict.call_id] = verdict.replacement or getattr(verdict, "refusal", None) or model_message(verdict)
                if verdict.action.ends_run:
                    ended = True
                    break
            if ended:
                break  # the loop is left here: the other guards do not see this phase
        if strongest is Action.ABORT:
            self.aborted = True
        elif strongest is Action.STOP:
            self.stopped = self._forcing = True
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


def _language_of(text: str) -> str | None:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return None
    cjk = sum(1 for ch in letters if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk * 3 >= len(letters) else "en"


def _usage(usage: Any) -> Usage | None:
    """Usage as providers report it: an object or dict with input/output (OpenAI's
    prompt/completion) tokens, or a Usage."""
    if usage is None or isinstance(usage, Usage):
        return usage
    get = usage.get if isinstance(usage, Mapping) else (lambda key, default=None: getattr(usage, key, default))
    first = lambda *keys: next((get(k) for k in keys if isinstance(get(k), int)), None)  # noqa: E731
    found = Usage(input_tokens=first("input_tokens", "prompt_tokens"), output_tokens=first("output_tokens", "completion_tokens"))
    return None if found.is_empty() else found


def _tool_call(spec: Any, round_index: int, position: int) -> ToolCall:
    """A tool call from what agents hold: an OpenAI chat ``tool_calls`` entry, a
    Responses ``function_call`` item, an Anthropic ``tool_use`` block, a LangChain tool
    call ({"name", "args", "id"}), a (name, arguments) or (id, name, arguments) tuple, or
    a ToolCall. Arguments are parsed from the JSON the model wrote, as readers do."""
    if isinstance(spec, ToolCall):
        return spec
    default_id = f"call_{round_index}_{position}"
    if isinstance(spec, tuple):
        if len(spec) == 2:
            call_id, (name, arguments) = default_id, spec
        elif len(spec) == 3:
            call_id, name, arguments = spec
        else:
            raise ValueError(f"a tool call tuple is (name, arguments) or (id, name, arguments), not {len(spec)} items")
    elif isinstance(spec, Mapping) or hasattr(spec, "get") or hasattr(spec, "__dict__"):
        get = spec.get if isinstance(spec, Mapping) else (lambda key, default=None: getattr(spec, key, default))
        function = get("function")
        if function is not None:  # OpenAI chat completions
            fget = function.get if isinstance(function, Mapping) else (lambda key, default=None: getattr(function, key, default))
            name, arguments = fget("name"), fget("arguments")
            call_id = get("id")
        elif get("type") == "tool_use":  # Anthropic
            name, arguments, call_id = get("name"), get("input"), get("id")
        elif get("type") == "function_call":  # OpenAI Responses
            name, arguments, call_id = get("name"), get("arguments"), get("call_id") or get("id")
        else:  # LangChain ToolCall, or a plain {"name", "arguments"}
            name = get("name")
            arguments = get("args") if get("args") is not None else get("arguments")
            call_id = get("id")
    else:
        raise ValueError(f"cannot read a tool call from {type(spec).__name__}")
    if not isinstance(name, str) or not name:
        raise ValueError("a tool call needs a name")
    raw_text = arguments if isinstance(arguments, str) else dump_json(arguments if arguments is not None else {})
    raw, parsed, error = parse_arguments(raw_text)
    return ToolCall(id=str(call_id or default_id), name=name, arguments_raw=raw, arguments=parsed, arguments_error=error)


def _results(results: Any, calls: list[ToolCall]) -> list[tuple[str | None, bool | None]]:
    """(content, is_error) per call, in call order, from: a mapping call id -> content, or
    a list of: strings in call order, (id, content[, is_error]) tuples, OpenAI ``tool``
    messages, Anthropic ``tool_result`` blocks, LangChain ToolMessages. A call with no
    result gives (None, None)."""
    by_id: dict[str, tuple[str, bool | None]] = {}
    in_order: list[tuple[str, bool | None]] = []
    if isinstance(results, Mapping):
        by_id = {str(k): (_text(v), None) for k, v in results.items()}
    else:
        for item in results:
            if isinstance(item, str):
                in_order.append((item, None))
            elif isinstance(item, tuple):
                if len(item) not in (2, 3):
                    raise ValueError(f"a result tuple is (call id, content) or (call id, content, is_error), not {item!r}")
                by_id[str(item[0])] = (_text(item[1]), item[2] if len(item) > 2 else None)
            else:
                get = item.get if isinstance(item, Mapping) else (lambda key, default=None, _i=item: getattr(_i, key, default))
                call_id = get("tool_call_id") or get("tool_use_id") or get("call_id") or get("id")
                status = get("status")
                is_error = get("is_error") if get("is_error") is not None else (status == "error" if status is not None else None)
                entry = (_text(get("content") if get("content") is not None else get("output")), is_error)
                if call_id is not None:
                    by_id[str(call_id)] = entry
                else:
                    in_order.append(entry)
    known = {call.id for call in calls}
    strangers = [key for key in by_id if key not in known]
    if strangers:
        # A result the guards would never see is a silent bug in the agent loop: say so.
        raise ValueError(f"results for unknown call id(s) {', '.join(map(repr, strangers))}; this round's calls are {', '.join(map(repr, sorted(known)))}")
    order = iter(in_order)
    return [by_id[call.id] if call.id in by_id else next(order, (None, None)) for call in calls]


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, Mapping):
                parts.append(str(block.get("text", "")) if block.get("type") in (None, "text") else dump_json(block))
            else:
                parts.append(str(block))
        return "\n".join(parts)
    return dump_json(content) if isinstance(content, (dict, tuple)) else str(content)
