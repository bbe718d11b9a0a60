from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .evidence import (
    METADATA_ALL,
    EvidenceLedger,
    Requirements,
    empty_patterns_option,
    failure_patterns_option,
    required_all_option,
    required_any_option,
)
from .examples import Call, Example, answer, calls, examples_made_when_read, search
from .messages import Message
from .signals import ResultClassifier


@frozen_dataclass
class B001Options(GuardOptions):
    max_rounds: int = option(
        0,
        "Rounds with tools before a final answer is forced; 0 = off (a budget is yours to set).",
        minimum=0,
    )
    final_window: int = option(
        3,
        "Extra rounds after max_rounds in which a run still missing evidence may call tools "
        "(LoopAgent runs maxSteps+1+2 steps); past them the run is aborted.",
        minimum=0,
    )
    required_all: list[str] = required_all_option()
    required_any: list[str] = required_any_option()
    empty_patterns: list[str] = empty_patterns_option()
    failure_patterns: list[str] = failure_patterns_option()


def read(path: str) -> Any:
    return calls(Call("read_file", {"path": path}, f"contents of {path}"))


class RoundBudget(Guard):
    """Forces a final answer once a run has used its rounds (seeds 001 and 002).

    **What it fires on.** ``max_rounds`` is the number of rounds a run may spend on
    tools. Before the tools of any later round (index > ``max_rounds``) run:

    - when the run's evidence requirements are met (or it has none) → ``stop``: the
      tools are withheld and one final answer is forced, as LoopAgent switches to
      ``tool_choice: "none"`` once ``step > maxSteps``;
    - when required evidence is still missing, the tools are **let through**: LoopAgent
      keeps ``tool_choice: "auto"`` until nothing is missing, because "do not make
      things up" ranks above "wrap up" (seed 001's Insight). This lasts for a window of
      ``final_window`` (3) extra rounds, LoopAgent's ``maxSteps + 1 + 2`` loop bound;
    - a round past the window (index > ``max_rounds + final_window``), tools or answer
      → ``abort``, LoopAgent's "Model did not produce a final answer". With
      ``final_window`` 0 there is no grace: the first round past ``max_rounds`` is
      stopped when the evidence is in and aborted when it is not.

    The requirements and the evidence are E001's (see ``tracecheck guard E001``):
    the ``required_all`` / ``required_any`` options plus the trace metadata's
    ``required_tools`` / ``required_any_of``, and only calls that succeeded **and**
    found something count. Set the same requirement options on both guards.

    **Why it matters.** ``max_iterations`` is a deadline, not a safety net (seed 002):
    an agent allowed 10 rounds uses 10. A round budget with a forced answer turns the
    last rounds into an answer instead of a crash.

    **Off by default.** ``max_rounds`` is 0: what is a sane number of rounds depends on
    the agent and the task, so a default would be a guess. Use ``tracecheck sweep
    --grid B001.max_rounds=...`` to see what a budget would cost on your traces; seed
    002 suggests 3 to 5 for a search-and-answer agent.

    **Known misses.** LoopAgent throws right after the tools of the last window round,
    without a further model call; replay aborts at the next recorded round and counts
    that round's model call as spent. A run that answers within its budget is never
    touched, however wasteful its rounds were (P001, R001, B003 look at that).
    """

    code = "B001"
    name = "round-budget"
    summary = "Past max_rounds, withhold tools and force a final answer; abort if a required-evidence window runs out. Off by default."
    source = "seeds 001, 002"
    origin = (
        "seed articles 001, 《让 Agent 不翻车的工程护栏》 (LoopAgent's round cap against 停不下来, never stopping: past maxSteps the tools are withheld for one last answer), and 002 (max_iterations is a deadline, not a safety net)"
    )
    Options = B001Options
    messages = {
        "stop": Message(
            # The max-rounds closing prompt (seed 000: "已达到最大轮次"; seed 002: "这是最后一轮，你必须给出最终答案").
            en="The maximum number of rounds ({max_rounds}) has been reached and tools are no longer available. "
            "This is the last round: you must give your final answer now from the information you have.",
            zh="已达到最大轮次（{max_rounds} 轮），工具已停用。这是最后一轮，你必须基于现有信息给出最终答案。",
            fields=("max_rounds", "count"),
        ),
        "abort": Message(
            # Seed 001's last line of defence.
            en="Model did not produce a final answer",
            zh="模型没有给出最终答案",
            fields=("max_rounds", "count"),
        ),
    }

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or options.max_rounds <= 0

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "With max_rounds 3, the fourth tool round is stopped before its tools run",
                (search("q1"), search("q2"), search("q3"), search("q4"), search("q5"), answer()),
                expect=((4, "before_tools", "stop"),),
                options={"max_rounds": 3},
            ),
            Example(
                "Off by default: a long run is not touched",
                (search("q1"), search("q2"), search("q3"), search("q4"), search("q5"), answer()),
            ),
            Example(
                "A run that answers within its budget is not touched",
                (search("q1"), search("q2"), answer()),
                options={"max_rounds": 3},
            ),
            Example(
                "Missing evidence keeps tools allowed in the window, then the evidence arrives and the run is stopped",
                (
                    read("a.py"),
                    read("b.py"),
                    calls(Call("search_docs", {"query": "retry"}, "No results found")),
                    calls(Call("search_docs", {"query": "backoff"}, "2 matches: docs/retry.md")),
                    read("c.py"),
                    answer(),
                ),
                expect=((5, "before_tools", "stop"),),
                options={"max_rounds": 2},
                metadata={METADATA_ALL: ["search_docs"]},
            ),
            Example(
                "Evidence never arrives: the run is aborted when the final window is used up",
                (read("a.py"), read("b.py"), read("c.py"), read("d.py"), read("e.py"), read("f.py"), answer()),
                expect=((6, "before_tools", "abort"),),
                options={"max_rounds": 2, "final_window": 3, "required_all": ["search_docs"]},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        opts = self.options
        self.requirements = Requirements.gather(
            opts.required_all, opts.required_any, context.metadata if context is not None else None
        )
        self.ledger = EvidenceLedger(ResultClassifier(opts.failure_patterns, opts.empty_patterns))
        self.round = 0
        self.missing: list[str] = []

    @property
    def last_round(self) -> int:
        """The last round in which tools may still run (the end of the final window)."""
        return self.options.max_rounds + self.options.final_window

    def _check(self, rnd: Round, final: bool, context: RunContext) -> list[Verdict]:
        opts = self.options
        self.round = rnd.index
        if opts.max_rounds <= 0 or rnd.index <= opts.max_rounds:
            return []
        self.missing = self.ledger.missing(self.requirements)
        details = {
            "round": rnd.index,
            "max_rounds": opts.max_rounds,
            "final_window": opts.final_window,
            "missing": self.missing,
        }
        # Past the window LoopAgent has no step left. The one exception is the first
        # round past max_rounds with the evidence in: that is the forced answer itself,
        # which must stay possible when final_window is 0.
        if rnd.index > self.last_round and (self.missing or rnd.index > opts.max_rounds + 1):
            why = (
                f"still missing evidence from {', '.join(self.missing)}"
                if self.missing
                else "no final answer within the window"
            )
            reason = (
                f"Model did not produce a final answer: round {rnd.index} is past max_rounds {opts.max_rounds} "
                f"+ final window {opts.final_window} ({why})"
            )
            message = self.say("abort", context, max_rounds=opts.max_rounds, count=rnd.index)
            return [Verdict(Action.ABORT, reason, details=details, message=message)]
        if final or self.missing:
            # An answer inside the window is what the budget wants; missing evidence
            # keeps tools allowed (E001 ranks above wrapping up).
            return []
        reason = (
            f"round {rnd.index} > max_rounds {opts.max_rounds}: tools withheld, final answer forced"
            + (" (required evidence is in)" if self.requirements else "")
        )
        message = self.say("stop", context, max_rounds=opts.max_rounds, count=rnd.index)
        return [Verdict(Action.STOP, reason, details=details, message=message)]

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._check(rnd, final=False, context=context)

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if self.requirements:
            self.ledger.record(rnd)
        return []

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._check(rnd, final=True, context=context)

    def state(self) -> dict[str, Any]:
        opts = self.options
        if opts.max_rounds <= 0:
            stage = "off"
        elif self.round <= opts.max_rounds:
            stage = f"{self.round}/{opts.max_rounds} rounds"
        elif self.round <= self.last_round:
            stage = f"final window {self.round - opts.max_rounds}/{opts.final_window}"
        else:
            stage = "past the window"
        out: dict[str, Any] = {"stage": stage}
        if self.requirements:
            out["requirements"] = self.requirements.to_dict()
            out["evidence"] = sorted(self.ledger.evidence)
            out["missing"] = self.ledger.missing(self.requirements)
        return out
