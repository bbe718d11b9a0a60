from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import TracecheckError
from ..model import Round, ToolCall
from ..text.arguments import dump_json
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message, count_in_words
from .signals import call_signature, excerpt, truncated

LIMIT_ACTIONS = ("stop", "block", "abort")
DEFAULT_BLOCK_MESSAGE = (
    "{tool} was called {count} times in a row with identical arguments and was not run this time. "
    "Try a different approach."
)
PHASES = ("before_tools", "after_tools")


@frozen_dataclass
class R001Options(GuardOptions):
    hint_at: int = option(
        2, "Consecutive identical calls at which a hint is injected (the call still runs); 0 = no hint.", minimum=0
    )
    stop_at: int = option(
        3,
        "Consecutive identical calls at which stop_action is taken; 0 = never. A system that allows N "
        "identical calls and refuses the next (Roo, Goose) sets N + 1.",
        minimum=0,
    )
    stop_action: str = option(
        "stop",
        "What happens at stop_at: stop (forced final answer), abort (the run ends without one), or block "
        "(that call is not run and block_message is its result; the run goes on).",
        choices=LIMIT_ACTIONS,
    )
    block_message: str = option(
        DEFAULT_BLOCK_MESSAGE,
        "The result a blocked call gets instead of running; {tool} and {count} are filled in. Set to another "
        "text (as the roo, goose and crewai presets do), it is also the block message in every language "
        "unless messages.block overrides it.",
    )
    reset_after_block: bool = option(
        False,
        "After a block, forget the streak, so the blocked call counts as nothing and stop_at more identical "
        "calls are needed for the next block (Roo). Off: every further identical call is blocked too "
        "(Goose, CrewAI).",
    )
    phase: str = option(
        "before_tools",
        "When calls are counted and verdicts given: before_tools (the call is judged before it runs) or "
        "after_tools (it ran; the hint or stop comes before the next model request, as Cline). A block "
        "needs before_tools.",
        choices=PHASES,
    )
    ignore_fields: list[str] = option(
        [], "Top-level argument keys left out of the comparison (Cline: task_progress, a checklist that changes every call)."
    )
    canonical_args: bool = option(
        True, "Compare arguments as sorted-key JSON; off compares the raw text, as the seed does (key order then matters)."
    )


# The same read_file five times, its task_progress checklist ticking on every call (Cline's test 6).
CHECKLIST_LOOP = tuple(
    calls(Call("read_file", {"path": "src/main.ts", "task_progress": f"- [x] step {i} of 5"}, "..."))
    for i in range(1, 6)
) + (answer(),)


class IdenticalCallStreak(Guard):
    """Hints at the 2nd and stops at the 3rd identical call in a row (seed 004, PatchCat);
    with its options, the identical-call detectors of Cline, Roo Code, Goose and CrewAI.

    **What it fires on.** Every tool call has a signature: tool name + arguments (never
    the call id), without the top-level keys named in ``ignore_fields``. Calls are taken
    in order, parallel calls of one round included; the same signature as the previous
    call extends the streak, anything else restarts it at 1. At the ``hint_at``-th (2nd)
    identical call in a row the guard says ``hint``: a "you called X twice with identical
    parameters; if polling, continue, otherwise answer" message is injected and the call
    still runs, because a second identical call may be a legitimate poll. At the
    ``stop_at``-th (3rd) it takes ``stop_action``:

    - ``stop`` (default): the run leaves the loop before the call runs and the agent
      gives one forced answer;
    - ``abort``: the run ends without an answer (Cline's SDK stops the session);
    - ``block``: only that call is refused; it gets ``block_message`` as its result
      (the verdict's ``refusal``) and the run goes on (Roo Code, Goose, CrewAI). Without ``reset_after_block`` the
      streak keeps growing and every further identical call is blocked too (Goose
      denies while ``repeat_count > max``, CrewAI compares with the last call that
      *ran*); with it the streak is forgotten, so the model must make ``stop_at`` more
      identical calls before the next block (Roo resets both counters).

    ``hint_at`` or ``stop_at`` 0 switches that step off. Counting conventions differ
    between systems and all map onto "the n-th identical call in a row": "fire on the
    N-th" is ``stop_at = N`` (Cline 5, CrewAI 2); "N allowed, refuse the (N+1)-th" is
    ``stop_at = N + 1`` (Roo's limit 3 and Goose's ``--max-tool-repetitions 3`` both
    refuse the 4th).

    ``phase`` says when a call is judged. ``before_tools`` (default): before it runs,
    the only moment it can still be blocked. ``after_tools``: after it ran, as Cline
    counts a call once its result is in (its 5th identical call runs, and the session
    stops before the next model request); a block needs ``before_tools``.

    **Why it matters.** A model that got ``[]`` from ``query_db({"status": "pending"})``
    often asks for exactly the same thing again and again (mode collapse). A third
    identical call with nothing changed almost never breaks the pattern by itself.
    Some arguments change on every call without changing what is asked (Cline's
    ``task_progress`` checklist): left in, they hide the loop; ``ignore_fields`` drops
    them.

    **Key order.** The seed compares ``name:rawArguments`` and says so: a model that
    writes ``{"page":1,"size":10}`` then ``{"size":10,"page":1}`` escapes it.
    ``canonical_args`` (on by default) compares sorted-key JSON instead; off reproduces
    the seed's drift (with ``ignore_fields`` set, the remaining keys are rewritten in
    the model's order, so only key order, not spacing, still matters).

    **Known misses.** Alternating loops (A, B, A, B) reset the streak every call (R003
    sees them); a poll whose result changes is hinted at the 2nd call and stopped at the
    3rd even though it progresses (P004 compares results too). Only top-level keys are
    ignored: a volatile field nested inside an argument still makes calls differ. A
    block's effect on what the model does next is unknown, so replay goes on with the
    recorded rounds: a blocked streak that the model would have left keeps counting.
    """

    code = "R001"
    name = "identical-call-streak"
    summary = "Hint at the {hint_at:nth} identical call in a row, stop before the {stop_at:nth} runs."
    source = "seed 004"
    origin = (
        "seed article 004, 《从 0 到 1 打造 AI 提示流编排器：别让 Agent 原地鬼打墙！》: PatchCat's deadlock guard, a nudge at the 2nd identical call and a hard stop at the 3rd; with its options, the identical-call detectors of Cline, Roo Code, Goose and CrewAI"
    )
    Options = R001Options
    messages = {
        "hint": Message(
            # Seed 004's hint at the 2nd identical call, word for word.
            en='[System Hint: You invoked tool "{tool}" {times} with identical parameters. If polling or awaiting '
            "state change, continue; otherwise synthesize your final answer.]",
            zh='[系统提示：你已用完全相同的参数调用工具 "{tool}" {count} 次。如果是在轮询或等待状态变化，请继续；'
            "否则请综合已有信息给出最终答案。]",
            fields=("tool", "count", "times"),
            when="injected as guidance (seed 004: a user message); the call still runs",
        ),
        "stop": Message(
            # Seed 004's halt observation at the 3rd: the halted call's result, then the loop ends.
            en="Observation: Execution halted by Deadlock Breaker ({count} identical calls). Please synthesize "
            "conclusion immediately.",
            zh="观察：执行已被死锁熔断器中止（{count} 次相同调用）。请立即综合已有信息给出结论。",
            fields=("tool", "count", "times"),
            when="the closing prompt of the forced final answer (seed 004: the halted call's observation)",
        ),
        "abort": Message(
            # Seed 004's notice to the user when the breaker trips.
            en='[Agent Deadlock Protection] Tripped: {count} consecutive identical calls to "{tool}". Terminating '
            "loop to prevent token waste.",
            zh='[智能体死锁保护] 已触发：连续 {count} 次以相同参数调用 "{tool}"。终止循环，以免浪费 Token。',
            fields=("tool", "count", "times"),
        ),
        "block": Message(
            en=DEFAULT_BLOCK_MESSAGE,
            zh="{tool} 已用完全相同的参数连续调用 {count} 次，这一次没有执行。请换一种做法。",
            fields=("tool", "count", "times"),
            when="the synthetic result of the call that is not run (a custom block_message wins unless this is overridden)",
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "query_db({'status': 'pending'}) returning [] again and again",
                tuple(calls(Call("query_db", {"status": "pending"}, "[]")) for _ in range(4)) + (answer(),),
                expect=((2, "before_tools", "hint"), (3, "before_tools", "stop")),
            ),
            Example(
                "A legitimate poll: the second identical call is only hinted",
                (
                    calls(Call("get_report_status", {"report_id": "rpt_8812"}, '{"status": "generating"}')),
                    calls(Call("get_report_status", {"report_id": "rpt_8812"}, '{"status": "done"}')),
                    answer(),
                ),
                expect=((2, "before_tools", "hint"),),
            ),
            Example(
                "Reordered JSON keys are the same call with canonical_args on",
                (
                    calls(Call("list_orders", '{"page": 1, "size": 10}')),
                    calls(Call("list_orders", '{"size": 10, "page": 1}')),
                    calls(Call("list_orders", '{"page": 1, "size": 10}')),
                    answer(),
                ),
                expect=((2, "before_tools", "hint"), (3, "before_tools", "stop")),
            ),
            Example(
                "With canonical_args off, reordered keys escape the streak",
                (
                    calls(Call("list_orders", '{"page": 1, "size": 10}')),
                    calls(Call("list_orders", '{"size": 10, "page": 1}')),
                    calls(Call("list_orders", '{"page": 1, "size": 10}')),
                    answer(),
                ),
                options={"canonical_args": False},
            ),
            Example(
                "An alternating A-B-A-B loop resets the streak every call",
                tuple(calls(Call("open_page" if i % 2 == 0 else "scroll_down", {"url": "https://x.example"})) for i in range(6))
                + (answer(),),
            ),
            Example(
                "Block the 4th and forget the streak (Roo's limit 3): the next block is the 8th",
                tuple(calls(Call("read_file", {"path": "src/app.ts"}, "export {}")) for _ in range(8)) + (answer(),),
                expect=((4, "before_tools", "block"), (8, "before_tools", "block")),
                options={"hint_at": 0, "stop_at": 4, "stop_action": "block", "reset_after_block": True},
            ),
            Example(
                "Block without a reset (Goose, CrewAI): every further identical call is refused, new arguments pass",
                tuple(calls(Call("fetch_user", {"id": 123}, '{"name": "Ada"}')) for _ in range(4))
                + tuple(calls(Call("fetch_user", {"id": 456}, '{"name": "Bob"}')) for _ in range(2))
                + (answer(),),
                expect=((3, "before_tools", "block"), (4, "before_tools", "block")),
                options={"hint_at": 0, "stop_at": 3, "stop_action": "block"},
            ),
            Example(
                "Cline: a changing task_progress is ignored; hint after the 3rd ran, abort after the 5th ran",
                CHECKLIST_LOOP,
                expect=((3, "after_tools", "hint"), (5, "after_tools", "abort")),
                options={"hint_at": 3, "stop_at": 5, "stop_action": "abort", "phase": "after_tools",
                         "ignore_fields": ["task_progress"]},
            ),
            Example(
                "Without ignore_fields, the changing task_progress hides the same loop",
                CHECKLIST_LOOP,
                options={"hint_at": 3, "stop_at": 5},
            ),
            Example(
                "hint_at 0: no hint, the stop still comes at the 3rd",
                tuple(calls(Call("query_db", {"status": "pending"}, "[]")) for _ in range(3)) + (answer(),),
                expect=((3, "before_tools", "stop"),),
                options={"hint_at": 0},
            ),
        )

    def __init__(self, options: GuardOptions | None = None, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        if self.options.stop_action == "block" and self.options.phase == "after_tools":
            # Options come from files and the command line: say which pair cannot work.
            raise TracecheckError("R001: stop_action block needs phase before_tools (a call that ran cannot be refused)")

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or (options.hint_at <= 0 and options.stop_at <= 0)

    def reset(self, context: RunContext | None = None) -> None:
        self.last_signature: str | None = None
        self.streak = 0
        self.ignored = frozenset(self.options.ignore_fields)

    def signature(self, call: ToolCall) -> str:
        args = call.arguments
        if self.ignored and isinstance(args, dict) and call.arguments_error is None:
            kept = {k: v for k, v in args.items() if k not in self.ignored}
            return f"{call.name}:{dump_json(kept, sort_keys=self.options.canonical_args)}"
        return call_signature(call, self.options.canonical_args)

    def _message(self, key: str, call: ToolCall, context: RunContext, refusal: str | None = None) -> str:
        overridden = any(k == key or k.startswith(key + ".") for k in self.options.messages)
        if refusal is not None and not overridden and self.options.block_message != DEFAULT_BLOCK_MESSAGE:
            return refusal  # a preset's (or the user's) own block text, in every language
        return self.say(key, context, tool=call.name, count=self.streak, times=count_in_words(self.streak))

    def _judge(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        verdicts: list[Verdict] = []
        for call in rnd.tool_calls:
            signature = self.signature(call)
            if signature == self.last_signature:
                self.streak += 1
            else:
                self.last_signature, self.streak = signature, 1
            details = {"signature": truncated(signature), "streak": self.streak}
            if opts.stop_at and self.streak >= opts.stop_at:
                if opts.stop_action == "block":
                    refusal = opts.block_message.replace("{tool}", call.name).replace("{count}", str(self.streak))
                    verdicts.append(
                        Verdict(
                            Action.BLOCK,
                            f"{self.streak} consecutive identical calls {excerpt(signature, 200)}; this one is not run",
                            call_id=call.id,
                            details=details,
                            refusal=refusal,
                            message=self._message("block", call, context, refusal),
                        )
                    )
                    if opts.reset_after_block:
                        self.last_signature, self.streak = None, 0
                    continue
                when = "before it runs" if opts.phase == "before_tools" else "after it ran"
                verdicts.append(
                    Verdict(
                        Action(opts.stop_action),
                        f"{self.streak} consecutive identical calls {excerpt(signature, 200)}; {opts.stop_action} {when}",
                        call_id=call.id,
                        details=details,
                        message=self._message(opts.stop_action, call, context),
                    )
                )
                break
            if self.streak == opts.hint_at:
                verdicts.append(
                    Verdict(
                        Action.HINT,
                        f"{call.name} called {self.streak} times in a row with identical arguments; hint: "
                        "if polling, continue, otherwise give the final answer",
                        call_id=call.id,
                        details=details,
                        message=self._message("hint", call, context),
                    )
                )
        return verdicts

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._judge(rnd, context) if self.options.phase == "before_tools" else []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._judge(rnd, context) if self.options.phase == "after_tools" else []

    def near_miss(self) -> str | None:
        if self.last_signature is None:
            return "no call yet"
        limit = f"of the {self.options.stop_at} that {self.options.stop_action}" if self.options.stop_at else "(no limit set)"
        return f"{self.streak} identical call{'s' if self.streak != 1 else ''} in a row ({excerpt(self.last_signature, 80)}), {limit}"

    def state(self) -> dict[str, Any]:
        return {"streak": self.streak, "signature": truncated(self.last_signature) if self.last_signature else self.last_signature}
