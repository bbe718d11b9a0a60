from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import SCOPES, Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message


@frozen_dataclass
class B002Options(GuardOptions):
    scope: str = option(
        "run",
        "What the budget covers: the whole run (tokens of every turn add up) or one conversation turn.",
        choices=SCOPES,
    )
    budget: int = option(
        0,
        "Cumulative tokens (input + output of every model call so far) at which the run is stopped; 0 = off.",
        minimum=0,
    )


def _big_read(n: int) -> Any:
    # ~310 estimated tokens of result each round, so the context (and the input of
    # the next round) grows the way a real loop's does.
    return calls(Call("read_file", {"path": f"src/part{n}.py"}, "x = 1  # filler\n" * 125))


class TokenBudget(Guard):
    """Stops a run that has spent its token budget (seed 004, PatchCat's second lock).

    **What it fires on.** After the tools of a round ran, at the point where the agent
    loop would make its next model call, the tokens spent so far (input + output of
    every model response up to and including this round) are compared with
    ``budget``; at or above it → ``stop``. PatchCat checks
    ``totalUsage.total >= maxTokenBudget`` at the top of its loop, i.e. here. A final
    answer is never stopped: nothing comes after it to save.

    Tokens are the trace's measured usage where it has it. Where it has none they are
    estimated from the text (about one token per CJK character, one per four other
    characters), the input of each round growing with everything said before it, as in
    a real loop; the reason then says the count is an estimate, and a budget set in
    real tokens compares against an approximation.

    **Why it matters.** A token budget is the backstop for loops no pattern guard
    recognises: two tools alternating, synonyms that share no characters, a model
    polling something that never changes. Whatever the shape of the loop, the spend is
    capped.

    **Off by default** (``budget`` 0), as in PatchCat (``AGENT_TOKEN_BUDGET = 0``,
    unlimited): the right figure depends on the model's price and the task.

    **Known misses.** It cuts healthy long runs as readily as loops; it does not know
    why the tokens went. Cached input tokens count in full, as in the usage totals
    most providers report.
    """

    code = "B002"
    name = "token-budget"
    summary = "Stop once the run's cumulative tokens reach a budget. Off (0) by default."
    source = "seed 004"
    origin = "seed article 004, 《从 0 到 1 打造 AI 提示流编排器：别让 Agent 原地鬼打墙！》: PatchCat's second lock, a hard token budget (maxTokenBudget)"
    Options = B002Options
    messages = {
        "stop": Message(
            # Seed 004's budget notice, with the forced answer asked for.
            en="[Agent Token Budget Exceeded] Total {tokens} tokens reached budget limit of {budget}. Tools are no "
            "longer available: give your final answer now from what you have.",
            zh="[智能体 Token 预算超限] 累计已用 {tokens} 个 Token，达到预算上限 {budget}。工具已停用，"
            "请基于现有信息立即给出最终答案。",
            fields=("tokens", "budget"),
        ),
    }

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or options.budget <= 0

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Reading large files (~310 tokens each) passes a 900-token budget after round 3",
                (_big_read(1), _big_read(2), _big_read(3), _big_read(4), _big_read(5), answer()),
                expect=((3, "after_tools", "stop"),),
                options={"budget": 900},
            ),
            Example(
                "Off by default: nothing is capped",
                (_big_read(1), _big_read(2), _big_read(3), _big_read(4), _big_read(5), answer()),
            ),
            Example(
                "Under budget until the final answer: an answer is never stopped",
                (_big_read(1), _big_read(2), answer()),
                options={"budget": 900},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        # With scope "turn" a reset comes at each new turn: count from there.
        self.start = context.tokens_so_far if context is not None else 0
        self.tokens = 0
        self.estimated = False
        self.round = 0

    def _observe(self, rnd: Round, context: RunContext) -> None:
        self.round = rnd.index
        self.tokens = context.tokens_so_far - self.start
        self.estimated = context.tokens_estimated

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self._observe(rnd, context)
        budget = self.options.budget
        if budget <= 0 or self.tokens < budget:
            return []
        how = "estimated from text where the trace records no usage" if self.estimated else "measured"
        reason = f"{self.tokens:,} tokens spent through round {rnd.index} ({how}) ≥ budget {budget:,}"
        return [
            Verdict(
                Action.STOP,
                reason,
                details={"tokens": self.tokens, "budget": budget, "estimated": self.estimated},
                message=self.say("stop", context, tokens=self.tokens, budget=budget),
            )
        ]

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self._observe(rnd, context)
        return []

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self._observe(rnd, context)
        return []

    def state(self) -> dict[str, Any]:
        budget = self.options.budget
        out: dict[str, Any] = {"tokens": self.tokens, "estimated": self.estimated, "budget": budget or "off"}
        if budget > 0:
            out["remaining"] = max(0, budget - self.tokens)
        return out
