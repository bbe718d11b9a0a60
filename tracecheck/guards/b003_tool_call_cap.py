from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read, search
from .messages import Message
from .signals import DEFAULT_SEARCH_TOOLS
from .tool_kinds import matches_any


@frozen_dataclass
class B003Options(GuardOptions):
    tools: list[str] = option(
        list(DEFAULT_SEARCH_TOOLS), "Glob patterns (any case) of the capped tools; their calls count together."
    )
    max_calls: int = option(
        0, "Calls of the capped tools a run may make; the next one stops the run. 0 = off (seed 002 uses 3).", minimum=0
    )


def contract(query: str) -> Any:
    return search(query, "3 results: 模板 A, 模板 B, 模板 C", tool="search_contract")


class ToolCallCap(Guard):
    """Stops a run before it exceeds a cap on calls of some tools (seed 002, plan A).

    **What it fires on.** Calls of the tools matching ``tools`` (by default any tool
    with "search" in its name, any case) are counted over the whole run, all matching
    tools together. Before the tools of a round run, if the calls already made plus
    this round's matching calls would exceed ``max_calls`` → ``stop``: the round's
    tools are withheld and one final answer is forced, so the (max_calls+1)-th call
    never runs. Seed 002's prompt rule "You may search AT MOST 3 times. After 3
    searches, you MUST give the best answer you can" is ``max_calls=3``; here it is
    enforced by the loop instead of asked of the model, which small models ignore.

    **Why it matters.** The seed's contract agent searched eight times with synonyms
    and crashed on a full context window without answering. A cap does not need to
    understand the queries: three searches, then an answer from what was found.

    **Off by default** (``max_calls`` 0): how many searches a task deserves is the
    user's call; 3 is the seed's figure for a single-question lookup.

    **Known misses.** A round of parallel calls that would cross the cap is withheld
    whole, even the calls still under it (a live loop could run those first). Calls of
    different matching tools share one count: to cap tools separately, use a narrower
    pattern. A cap cuts a legitimately broad research run as readily as a loop; the
    similarity guards (P001–P003) tell the two apart.
    """

    code = "B003"
    name = "tool-call-cap"
    summary = "Stop with a forced answer before the run exceeds N calls of the capped tools (e.g. 3 searches). Off by default."
    source = "seed 002"
    origin = 'seed article 002, 《ReAct 循环中陷入"工具调用死循环"》: plan A, at most 3 searches and then an answer, enforced instead of asked for in the prompt'
    Options = B003Options
    messages = {
        "stop": Message(
            # Seed 002's plan A: "After 3 searches, you MUST give the best answer you can with whatever
            # information you have."
            en="You have used all {max_calls} allowed calls of {tool}. You MUST now give the best answer you can "
            "with whatever information you have; do not call it again.",
            zh="{tool} 的调用次数已达上限（{max_calls} 次）。你必须现在基于已有的信息给出尽可能好的答案，不要再调用它。",
            fields=("tool", "max_calls"),
        ),
    }

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or options.max_calls <= 0

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Seed 002: with a cap of 3 searches, the fourth never runs",
                (
                    contract("SaaS 订阅合同 自动续费"),
                    contract("SaaS 订阅协议 自动续约"),
                    contract("软件即服务 合同 续费条款"),
                    contract("自动续费条款 SaaS 协议"),
                    contract("SaaS 合同 续约 自动"),
                    answer(),
                ),
                expect=((4, "before_tools", "stop"),),
                options={"max_calls": 3},
            ),
            Example(
                "Three searches and an answer stay within a cap of 3",
                (contract("SaaS 订阅合同 自动续费"), contract("续费 条款"), contract("自动续费"), answer()),
                options={"max_calls": 3},
            ),
            Example(
                "A parallel round that would cross the cap is stopped whole",
                (
                    contract("SaaS 合同"),
                    calls(
                        Call("web_search", {"query": "auto renewal clause"}),
                        Call("search_contract", {"query": "续约条款"}),
                    ),
                    answer(),
                ),
                expect=((2, "before_tools", "stop"),),
                options={"max_calls": 2},
            ),
            Example(
                "Other tools do not count against a search cap",
                (
                    contract("SaaS 合同"),
                    calls(Call("read_contract", {"id": "T-17"}, "第 5 条 自动续费 ...")),
                    calls(Call("read_contract", {"id": "T-18"}, "第 6 条 续约 ...")),
                    contract("续约 通知期"),
                    answer(),
                ),
                options={"max_calls": 2},
            ),
            Example(
                "Off by default: eight searches are not capped",
                tuple(contract(f"续费 {n}") for n in range(8)) + (answer(),),
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.used = 0
        self.by_tool: dict[str, int] = {}

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        matching = [c for c in rnd.tool_calls if matches_any(c.name, opts.tools)]
        if not matching:
            return []
        if opts.max_calls > 0 and self.used + len(matching) > opts.max_calls:
            # used never exceeds the cap (the run stops first), so the call that would
            # cross it is this round's (max_calls - used + 1)-th matching call.
            first_over = matching[opts.max_calls - self.used]
            reason = (
                f"{first_over.name!r} would be call {opts.max_calls + 1} "
                f"of the capped tools ({', '.join(opts.tools)}); cap {opts.max_calls}, "
                f"{self.used} already ran, {len(matching)} asked for in this round"
            )
            return [
                Verdict(
                    Action.STOP,
                    reason,
                    call_id=first_over.id,
                    details={"used": self.used, "this_round": len(matching), "max_calls": opts.max_calls,
                             "by_tool": dict(self.by_tool)},
                    message=self.say("stop", context, tool=first_over.name, max_calls=opts.max_calls),
                )
            ]
        # Counted before they run: a call that then fails still spent its turn.
        self.used += len(matching)
        for call in matching:
            self.by_tool[call.name] = self.by_tool.get(call.name, 0) + 1
        return []

    def state(self) -> dict[str, Any]:
        return {"calls": self.used, "max_calls": self.options.max_calls or "off", "by_tool": dict(self.by_tool)}
