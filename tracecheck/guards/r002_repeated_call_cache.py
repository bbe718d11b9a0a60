from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import (
    DEFAULT_FAILURE_PATTERNS,
    ResultClassifier,
    call_signature,
    excerpt,
    truncated,
)


@frozen_dataclass
class R002Options(GuardOptions):
    canonical_args: bool = option(
        False, "Compare arguments as sorted-key JSON; off (the seed) compares name + raw arguments text."
    )
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS), "Regexes that mark a result as a failure where the format has no error flag."
    )


class RepeatedCallCache(Guard):
    """Blocks a call identical to an earlier successful one and answers from cache (seed 001).

    **What it fires on.** After each round's tools ran, every call that succeeded is
    remembered by its signature, ``name:rawArguments`` as LoopAgent keys its
    ``succeededCalls`` map (``canonical_args`` compares sorted-key JSON instead).
    Before tools, a call whose signature is already remembered is ``block``-ed: it is
    not executed, and a synthetic result returns the cached result with guidance
    ("repeated call: already called X with the same arguments, last result: …; change
    the query or give the final answer"). Failed calls are never cached, so a retry
    after an error is allowed.

    **Why it matters.** Re-running a call that already succeeded with the same
    arguments cannot tell the model anything new. The block message is itself a small
    prompt: what happened, the current state, and two ways out.

    **Known false positives.** Tools whose answer changes over time with the same
    arguments (polls, clocks, a test run after an edit) are blocked too; the block
    does not end the run, and replay counts only the saved call's time.
    """

    code = "R002"
    name = "repeated-call-cache"
    summary = "Block a call identical to an earlier successful call; answer with the cached result."
    source = "seed 001"
    origin = (
        "seed article 001, 《让 Agent 不翻车的工程护栏》: LoopAgent's first guardrail, against 鬼打墙 (going round in circles), a call identical to an earlier success answered from its cache"
    )
    Options = R002Options
    messages = {
        "block": Message(
            # Seed 001's LoopAgent block: what happened, the last result, two ways out.
            en="Repeated call: {tool} was already called with the same arguments; last result: {result}. Change the "
            "query or give the final answer.",
            zh="重复调用:已用相同参数调用过 {tool},上次结果:{result}。请改变查询或给出最终答案。",
            fields=("tool", "result"),
            when="the synthetic result of the call that is not run; {result} is the whole cached result (the verdict's replacement)",
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "The same search three times: the 2nd and 3rd are answered from cache",
                (
                    calls(Call("search_code", {"query": "retryPolicy"}, "src/net/retry.ts:12")),
                    calls(Call("search_code", {"query": "retryPolicy"}, "src/net/retry.ts:12")),
                    calls(Call("read_file", {"path": "src/net/retry.ts"}, "export const retryPolicy = …")),
                    calls(Call("search_code", {"query": "retryPolicy"}, "src/net/retry.ts:12")),
                    answer(),
                ),
                expect=((2, "before_tools", "block"), (4, "before_tools", "block")),
            ),
            Example(
                "A retry after a failure is not blocked",
                (
                    calls(Call("read_file", {"path": "a.txt"}, "Error: EBUSY", error=True)),
                    calls(Call("read_file", {"path": "a.txt"}, "contents")),
                    answer(),
                ),
            ),
            Example(
                "Different arguments are different calls",
                (
                    calls(Call("list_orders", {"page": 1}, "[…10 rows…]")),
                    calls(Call("list_orders", {"page": 2}, "[…10 rows…]")),
                    answer(),
                ),
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.classifier = ResultClassifier(failure_patterns=self.options.failure_patterns)
        self.succeeded: dict[str, str] = {}
        self.excerpts: dict[str, str] = {}  # signature -> one-line excerpt of its cached result
        self.blocked: set[str] = set()

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        verdicts = []
        self.blocked = set()
        for call in rnd.tool_calls:
            signature = call_signature(call, self.options.canonical_args)
            cached = self.succeeded.get(signature)
            if cached is None:
                continue
            shown = self.excerpts.get(signature)
            if shown is None:
                # Once per cached call: a result can be megabytes and be blocked every round.
                shown = self.excerpts[signature] = excerpt(cached, 80)
            self.blocked.add(call.id)
            verdicts.append(
                Verdict(
                    Action.BLOCK,
                    f"repeated call: {call.name} already succeeded with the same arguments; "
                    f"answered from cache: {shown!r}",
                    call_id=call.id,
                    details={"signature": truncated(signature)},
                    replacement=cached,
                    message=self.say("block", context, tool=call.name, result=cached),
                )
            )
        return verdicts

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        for call in rnd.tool_calls:
            if call.id in self.blocked or call.result is None or self.classifier.is_failure(call.result):
                continue
            self.succeeded.setdefault(call_signature(call, self.options.canonical_args), call.result.content)
        return []

    def state(self) -> dict[str, Any]:
        return {"cached_calls": len(self.succeeded), "blocked_now": sorted(self.blocked)}
