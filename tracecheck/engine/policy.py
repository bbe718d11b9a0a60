"""The one policy engine: how a set of guards judges a run, round by round, phase by phase.

``replay`` feeds it a recorded trace (each guard alone, and all of them together) and the
live ``Monitor`` feeds it an agent's rounds as they happen; both get their verdicts from
the same ``Policy.step``, so a policy change made here shows in both.

The rules: guards are asked in their order, and only those that override the phase's
method. A ``stop`` ends the guard's turn (it sits the rest of the turn out) and an
``abort`` its run. **Alone**, each guard's stop or abort is its own; **together**, the first
stop or abort ends the phase for everyone (the guards after it do not see the phase)
and the turn, or the run, for all of them. At a new turn the stopped guards come back,
and those whose ``scope`` is ``turn`` (and that did not abort) start afresh. The token
context (``tokens_so_far``, ``tokens_estimated``) grows by what each judged round cost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..guards.base import Action, Guard, Phase, RunContext, Verdict
from ..model import Round

# How strong each action is: what a phase amounts to is its strongest verdict's action.
ACTION_STRENGTH = {None: 0, Action.HINT: 1, Action.BLOCK: 2, Action.REJECT: 3, Action.STOP: 4, Action.ABORT: 5}

_PHASE_METHODS = {Phase.BEFORE_TOOLS: "before_tools", Phase.AFTER_TOOLS: "after_tools", Phase.FINAL: "final"}
_FINAL_ONLY = (Phase.FINAL,)
_AROUND_TOOLS = (Phase.BEFORE_TOOLS, Phase.AFTER_TOOLS)


def phases_of(rnd: Round) -> tuple[Phase, ...]:
    return _FINAL_ONLY if rnd.is_final else _AROUND_TOOLS


def dispatch_table(guards: Sequence[Guard]) -> dict[Phase, dict[int, Callable[[Round, RunContext], Any]]]:
    """Per phase, the guards that override its method (by id), bound: the base class's
    methods return no verdicts, so the others are not called at all."""
    table: dict[Phase, dict[int, Callable[[Round, RunContext], Any]]] = {}
    for phase, name in _PHASE_METHODS.items():
        base = getattr(Guard, name)
        table[phase] = {id(g): getattr(g, name) for g in guards if getattr(type(g), name) is not base}
    return table


@frozen_dataclass(slots=True)
class Step:
    """What one phase of one round came to."""

    verdicts: Sequence[tuple[Guard, Verdict]] = ()  # every verdict, in the order the guards gave them
    ended: Sequence[tuple[Guard, Action]] = ()  # the stops and aborts among them: they ended the phase

    @property
    def strongest(self) -> Action | None:
        """The strongest action of the verdicts (the first of equals), None without any."""
        strongest = None
        for _, verdict in self.verdicts:
            if ACTION_STRENGTH[verdict.action] > ACTION_STRENGTH[strongest]:
                strongest = verdict.action
        return strongest


NOTHING = Step()  # a phase without verdicts (most are): shared, nothing to allocate


class Policy:
    """``guards`` judging one run, alone or ``together`` (see the module docstring). The
    driver says when a turn starts (``new_turn``), what a round cost as it begins
    (``enter``), and asks for each of its phases (``step``); ``active`` are the guards
    still judging, ``finished`` says every guard aborted."""

    __slots__ = ("guards", "together", "context", "active", "stopped", "aborted", "_everyone", "_dispatch")

    def __init__(self, guards: Sequence[Guard], metadata: Mapping[str, Any], *, together: bool, language: str = "en") -> None:
        self.guards = guards
        self.together = together
        self.context = RunContext(metadata=metadata, language=language)
        for guard in guards:
            guard.reset(self.context)
        self.stopped: set[int] = set()  # ids of guards that stopped in the current turn
        self.aborted: set[int] = set()  # ids of guards that aborted: done for the run
        self._everyone = {id(g) for g in guards}
        self._dispatch = dispatch_table(guards)
        self.active: list[Guard] = list(guards)  # replaced, never changed in place: a step's observers keep theirs

    @property
    def finished(self) -> bool:
        return len(self.aborted) == len(self.guards)

    def new_turn(self) -> None:
        """A new conversation turn: the guards that stopped come back, and those whose
        scope is the turn start afresh (not those that aborted)."""
        self.stopped.clear()
        for guard in self.guards:
            if id(guard) not in self.aborted and guard.options.scope == "turn":
                guard.new_turn(self.context)
        self.active = [g for g in self.guards if id(g) not in self.aborted]

    def enter(self, turn: int, tokens: int, estimated: bool) -> None:
        """A round begins: its turn, and its tokens as a live loop knows them (measured,
        else estimated from text) join the context."""
        context = self.context
        context.turn = turn
        context.tokens_so_far += tokens
        context.tokens_estimated = context.tokens_estimated or estimated

    def step(self, rnd: Round, phase: Phase) -> Step:
        """Ask the active guards about ``phase`` of ``rnd``; a stop or abort takes effect
        at the end of the phase (together: at the verdict, for everyone)."""
        methods = self._dispatch[phase]
        context = self.context
        verdicts: list[tuple[Guard, Verdict]] | None = None
        ended: list[tuple[Guard, Action]] | None = None
        for guard in self.active:
            method = methods.get(id(guard))
            if method is None:
                continue  # the base class's method: no verdicts
            for verdict in method(rnd, context):
                if verdicts is None:
                    verdicts = []
                verdicts.append((guard, verdict))
                if verdict.action.ends_run:
                    if ended is None:
                        ended = []
                    ended.append((guard, verdict.action))
                    if self.together:
                        break
            if ended is not None and self.together:
                break  # the loop is left here: the other guards do not see this phase
        if verdicts is None:
            return NOTHING
        if ended is None:
            return Step(verdicts)
        for guard, action in ended:
            targets = self._everyone if self.together else (id(guard),)
            (self.stopped if action is Action.STOP else self.aborted).update(targets)
        self.active = [g for g in self.active if id(g) not in self.stopped and id(g) not in self.aborted]
        return Step(verdicts, ended)
