from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import SCOPES, Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Example, Step, answer, examples_made_when_read, search
from .messages import Message


@frozen_dataclass
class B004Options(GuardOptions):
    scope: str = option(
        "run",
        "What the clock measures: time since the run started, or since the current turn started "
        "(a conversation's run time includes the user's time between turns).",
        choices=SCOPES,
    )
    seconds: float = option(
        0.0,
        "Wall-clock seconds after which the run (or turn) is stopped before its next tools run; 0 = off.",
        minimum=0.0,
    )


def _at(step: Step, at: float) -> Step:
    return replace(step, at=at)


# A conversation: the second question comes 70 s after the first answer.
_TWO_TURNS = (
    _at(search("q1"), 0),
    _at(answer(), 30),
    _at(replace(search("q2"), user="And q2?"), 100),
    _at(search("q3"), 130),
    _at(answer(), 140),
)


class TimeBudget(Guard):
    """Stops a run (or a turn) whose wall-clock time has passed a budget (AutoGen's
    TimeoutTermination, LangChain's ``max_execution_time``, Inspect's ``time_limit``).

    **What it fires on.** The clock starts at the first timed round the guard sees in
    the run (with ``scope = "turn"``, in the turn): its start, or its end where the trace
    records only that. Before the tools of each round run, the time is the end of that
    round's model response (its start where no end is recorded); once
    ``time - start`` is at or above ``seconds`` → ``stop``: the round's tools are
    withheld and one final answer is forced.

    **Why before the tools.** A live loop can read the clock at two points of a round:
    before the model call (LangChain checks at the top of each iteration) and before
    the tools run. The guard checks at the second: the model's response is in and its
    tools, often the slow part (builds, test suites, crawls), have not run, so a stop
    withholds them and everything after; a check after the tools could save only the
    next model call, which the forced answer replaces anyway. It is also the clock most
    traces carry: many formats time model calls, few time tool results. A final answer
    is never stopped: nothing after it is left to save.

    **Why it matters.** Loops that no pattern guard recognises still cost time: an agent
    that waits on a process, polls a changing status or explores forever. A time budget
    caps them whatever their shape, and it is the budget people state ("no task runs
    over 30 minutes").

    **Off by default** (``seconds`` 0), as in AutoGen and LangChain, where a timeout
    exists only when it is set: how long a task may take depends on the task.

    **Known misses.** A trace without timestamps: the guard never fires and says
    nothing; reports give the time (and the time saved) as unknown. The clock starts at
    the first timed round, not at the user's message, so time before the first model
    response is not counted where the trace does not record it. Time spent in the tools
    of the last tool round before an answer is never cut, and the budget is only looked
    at between rounds: a single tool that runs for an hour passes any budget unseen
    until the next response. With ``scope = "run"`` a conversation's clock includes the
    user's pauses between turns.
    """

    code = "B004"
    name = "time-budget"
    summary = "Stop before the tools of the first round answering after `seconds` of wall-clock time. Off (0) by default."
    source = "AutoGen TimeoutTermination, LangChain max_execution_time, Inspect time_limit"
    origin = (
        "AutoGen's TimeoutTermination, LangChain's max_execution_time and Inspect's time_limit: a run (or a turn) that has used its wall-clock time"
    )
    Options = B004Options
    messages = {
        "stop": Message(
            en="The time budget of {seconds} s is used up ({elapsed} s so far) and tools are no longer available. "
            "Give your final answer now from what you have.",
            zh="时间预算 {seconds} 秒已用完（已用 {elapsed} 秒），工具已停用。请基于现有信息立即给出最终答案。",
            fields=("seconds", "elapsed"),
        ),
    }

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or options.seconds <= 0

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "With 60 seconds, the first round answering after 60 s is stopped before its tools run",
                (
                    _at(search("q1"), 0),
                    _at(search("q2"), 25),
                    _at(search("q3"), 50),
                    _at(search("q4"), 75),
                    _at(search("q5"), 100),
                    _at(answer(), 110),
                ),
                expect=((4, "before_tools", "stop"),),
                options={"seconds": 60},
            ),
            Example(
                "Off by default: a long run is not touched",
                (_at(search("q1"), 0), _at(search("q2"), 600), _at(search("q3"), 1200), _at(answer(), 1300)),
            ),
            Example(
                "A trace without timestamps never fires",
                (search("q1"), search("q2"), search("q3"), answer()),
                options={"seconds": 1},
            ),
            Example(
                "A final answer past the budget is not stopped: nothing after it is left to save",
                (_at(search("q1"), 0), _at(search("q2"), 30), _at(answer(), 90)),
                options={"seconds": 60},
            ),
            Example(
                "Scope run: a second turn 100 s after the first started is over a 60 s budget",
                _TWO_TURNS,
                expect=((3, "before_tools", "stop"),),
                options={"seconds": 60},
            ),
            Example(
                "Scope turn: the clock starts again with each turn",
                _TWO_TURNS,
                options={"seconds": 60, "scope": "turn"},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.start: float | None = None
        self.now: float | None = None

    def _observe(self, rnd: Round) -> None:
        if self.start is None:
            self.start = rnd.started_at if rnd.started_at is not None else rnd.ended_at
        clock = rnd.ended_at if rnd.ended_at is not None else rnd.started_at
        if clock is not None:
            self.now = clock

    @property
    def elapsed(self) -> float | None:
        if self.start is None or self.now is None:
            return None
        return max(0.0, self.now - self.start)

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self._observe(rnd)
        elapsed, seconds = self.elapsed, self.options.seconds
        if seconds <= 0 or elapsed is None or elapsed < seconds:
            return []
        since = "the turn" if self.options.scope == "turn" else "the run"
        reason = (
            f"{elapsed:,.1f} s since {since} started, at round {rnd.index}'s response ≥ time budget {seconds:g} s: "
            "tools withheld, final answer forced"
        )
        message = self.say("stop", context, seconds=f"{seconds:g}", elapsed=f"{elapsed:,.0f}")
        return [Verdict(Action.STOP, reason, details={"elapsed": round(elapsed, 3), "seconds": seconds}, message=message)]

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self._observe(rnd)
        return []

    def state(self) -> dict[str, Any]:
        elapsed, seconds = self.elapsed, self.options.seconds
        out: dict[str, Any] = {"elapsed": "unknown" if elapsed is None else round(elapsed, 3), "seconds": seconds or "off"}
        if seconds > 0 and elapsed is not None:
            out["remaining"] = round(max(0.0, seconds - elapsed), 3)
        return out
