from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls
from .signals import call_signature, excerpt, truncated


@dataclass(frozen=True)
class R001Options(GuardOptions):
    hint_at: int = option(2, "Consecutive identical calls at which a hint is injected (the call still runs).", minimum=1)
    stop_at: int = option(3, "Consecutive identical calls at which the run stops before the call runs.", minimum=1)
    canonical_args: bool = option(
        True, "Compare arguments as sorted-key JSON; off compares the raw text, as the seed does (key order then matters)."
    )


class IdenticalCallStreak(Guard):
    """Hints at the 2nd and stops at the 3rd identical call in a row (seed 004, PatchCat).

    **What it fires on.** Every tool call has a signature: tool name + arguments (never
    the call id). Calls are taken in order, parallel calls of one round included; the
    same signature as the previous call extends the streak, anything else restarts it
    at 1. At the ``hint_at``-th (2nd) identical call in a row the guard says ``hint``:
    a "you called X twice with identical parameters; if polling, continue, otherwise
    answer" message is injected and the call still runs, because a second identical
    call may be a legitimate poll. At the ``stop_at``-th (3rd) it says ``stop`` before
    the call runs, and the agent gives one forced answer.

    **Why it matters.** A model that got ``[]`` from ``query_db({"status": "pending"})``
    often asks for exactly the same thing again and again (mode collapse). A third
    identical call with nothing changed almost never breaks the pattern by itself.

    **Key order.** The seed compares ``name:rawArguments`` and says so: a model that
    writes ``{"page":1,"size":10}`` then ``{"size":10,"page":1}`` escapes it.
    ``canonical_args`` (on by default) compares sorted-key JSON instead; off reproduces
    the seed's drift.

    **Known misses.** Alternating loops (A, B, A, B) reset the streak every call; a
    poll whose result changes is hinted at the 2nd call and stopped at the 3rd even
    though it progresses (P004 compares results too).
    """

    code = "R001"
    name = "identical-call-streak"
    summary = "Hint at the 2nd identical call in a row, stop before the 3rd runs."
    source = "seed 004"
    Options = R001Options
    examples = (
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
    )

    def reset(self, context: RunContext | None = None) -> None:
        self.last_signature: str | None = None
        self.streak = 0

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        verdicts: list[Verdict] = []
        for call in rnd.tool_calls:
            signature = call_signature(call, opts.canonical_args)
            if signature == self.last_signature:
                self.streak += 1
            else:
                self.last_signature, self.streak = signature, 1
            details = {"signature": truncated(signature), "streak": self.streak}
            if self.streak >= opts.stop_at:
                verdicts.append(
                    Verdict(
                        Action.STOP,
                        f"{self.streak} consecutive identical calls {excerpt(signature, 200)}; stopped before it runs",
                        call_id=call.id,
                        details=details,
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
                    )
                )
        return verdicts

    def state(self) -> dict[str, Any]:
        return {"streak": self.streak, "signature": truncated(self.last_signature) if self.last_signature else self.last_signature}
