from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, Step, answer, calls
from .signals import DEFAULT_FAILURE_PATTERNS, ResultClassifier, excerpt


@dataclass(frozen=True)
class F001Options(GuardOptions):
    threshold: int = option(3, "Consecutive failures of one tool that abort the run.", minimum=1)
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS),
        "Regular expressions for a failed result where the format has no error flag "
        "(a JSON object with a non-empty 'error' key always counts).",
    )


def fails(tool: str, result: str = "Error: No such file or directory") -> Step:
    return calls(Call(tool, {"path": "src/missing.py"}, result, error=True))


class ToolFailureStreak(Guard):
    """Aborts a run stuck on a tool that keeps failing (seed 001, "撞南墙").

    **What it fires on.** After the tools of a round ran, every call is taken in call
    order and counted against its tool's name: a failure adds 1 to that tool's count of
    consecutive failures, a success sets it back to 0. When one tool's count reaches
    ``threshold`` (3) the guard says ``abort``, as LoopAgent throws "工具 X 连续失败 3 次,
    终止运行" the moment the third failure comes back. Counts are per tool: failures of
    ``read_file`` and of ``run_shell`` never add up, and a success of one tool does not
    reset another. Several failing calls of one tool in a single (parallel) round count
    one by one, in the order the model wrote them.

    A **failure** is what the format flags as an error. Where the format cannot tell
    (no error flag, e.g. plain OpenAI chat logs), a result is a failure when it matches
    ``failure_patterns`` (by default: text starting with ``Error``, ``Exception``,
    ``Traceback`` or a Python exception name such as ``FileNotFoundError:``) or is a
    JSON object with a non-empty ``error`` key (or ``"isError": true``). A call that
    succeeded but found nothing ("No results", ``[]``) is **not** a failure and resets
    the count, as in LoopAgent, where only ``succeeded`` feeds the breaker and
    ``productive`` feeds the evidence gate (E001).

    **Why it matters.** Retrying a tool that fails the same way wastes rounds and
    tokens; an occasional failure must not end a run, only a tool the model is stuck
    on. Aborting (no answer) is deliberate: the run cannot have what it needed.

    **Known misses.** In LoopAgent a call refused as a duplicate (R002) also counts as
    a failure; replay sees the recorded result of that call instead, so a run that
    repeats a successful call three times is not aborted here (R001/R002 cover it). A
    tool that reports failure in prose ("could not open the file") without a flag or a
    matching pattern is not seen: add a pattern. A call without a recorded result
    (the trace was cut off) neither counts nor resets.
    """

    code = "F001"
    name = "tool-failure-streak"
    summary = "Abort when one tool fails several times in a row (a success resets its count)."
    source = "seed 001"
    Options = F001Options
    examples = (
        Example(
            "Three failures of read_file in a row abort at the third",
            (fails("read_file"), fails("read_file"), fails("read_file"), fails("read_file"), answer()),
            expect=((3, "after_tools", "abort"),),
        ),
        Example(
            "A success in between resets the count",
            (
                fails("read_file"),
                fails("read_file"),
                calls(Call("read_file", {"path": "src/app.py"}, "import os\n...")),
                fails("read_file"),
                fails("read_file"),
                answer(),
            ),
        ),
        Example(
            "A search that found nothing is not a failure (and resets the count)",
            (
                fails("search_code", "Error: index unavailable"),
                fails("search_code", "Error: index unavailable"),
                calls(Call("search_code", {"query": "retry"}, "No results found")),
                fails("search_code", "Error: index unavailable"),
                answer(),
            ),
        ),
        Example(
            "Failures of different tools count separately",
            (
                fails("read_file"),
                fails("run_shell", "Traceback (most recent call last): ..."),
                fails("read_file"),
                fails("run_shell", "Traceback (most recent call last): ..."),
                answer(),
            ),
        ),
        Example(
            "Without an error flag, results starting with Error count as failures",
            (
                calls(Call("run_shell", {"cmd": "make"}, "Error: make: *** [all] Error 2", error=None)),
                calls(Call("run_shell", {"cmd": "make all"}, '{"error": "exit status 2"}', error=None)),
                calls(Call("run_shell", {"cmd": "make -k"}, "Error: make: *** [all] Error 2", error=None)),
                answer(),
            ),
            expect=((3, "after_tools", "abort"),),
        ),
        Example(
            "Three failing calls in one parallel round abort in that round",
            (
                calls(
                    Call("read_file", {"path": "a.py"}, "Error: not found", error=True),
                    Call("read_file", {"path": "b.py"}, "Error: not found", error=True),
                    Call("read_file", {"path": "c.py"}, "Error: not found", error=True),
                ),
                answer(),
            ),
            expect=((1, "after_tools", "abort"),),
        ),
        Example(
            "A flagged success wins over text that looks like an error",
            (
                calls(Call("read_file", {"path": "log1.txt"}, "Error: disk full (logged yesterday)")),
                calls(Call("read_file", {"path": "log2.txt"}, "Error: disk full (logged today)")),
                calls(Call("read_file", {"path": "log3.txt"}, "Error: disk full (still)")),
                answer(),
            ),
        ),
    )

    def reset(self, context: RunContext | None = None) -> None:
        self.classifier = ResultClassifier(failure_patterns=self.options.failure_patterns)
        self.streaks: dict[str, int] = {}
        self.last_error: dict[str, str] = {}

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        threshold = self.options.threshold
        for call in rnd.tool_calls:
            if call.result is None:
                continue  # nothing came back (cut-off trace): no evidence either way
            if not self.classifier.is_failure(call.result):
                self.streaks[call.name] = 0
                self.last_error.pop(call.name, None)
                continue
            count = self.streaks.get(call.name, 0) + 1
            self.streaks[call.name] = count
            self.last_error[call.name] = excerpt(call.result.content)
            if count >= threshold:
                # LoopAgent throws inside the tool loop: calls after this one never run.
                flagged = "flagged as error" if call.result.is_error else "matched a failure pattern"
                reason = (
                    f"tool {call.name!r} failed {count} times in a row (threshold {threshold}); "
                    f"last result {flagged}: {self.last_error[call.name]!r}"
                )
                return [
                    Verdict(
                        Action.ABORT,
                        reason,
                        call_id=call.id,
                        details={"tool": call.name, "failures": count, "threshold": threshold,
                                 "last_error": self.last_error[call.name]},
                    )
                ]
        return []

    def state(self) -> dict[str, Any]:
        return {
            "consecutive_failures": {name: n for name, n in sorted(self.streaks.items()) if n},
            "threshold": self.options.threshold,
            "last_error": dict(sorted(self.last_error.items())),
        }
