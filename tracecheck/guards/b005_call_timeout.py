from __future__ import annotations

import re
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from .base import SCOPES, Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, Step, answer, calls, examples_made_when_read
from .messages import Message
from .signals import DEFAULT_FAILURE_PATTERNS, ResultClassifier, compiled_patterns
from .tool_kinds import SEED_004_TIME_LIMITS, matches_any

# What a recorded result says when the tool itself gave up on time (read where the format
# does not say the call succeeded): the cut would only have come sooner. Only where the
# result opens with it ("[Code execution timed out after 120 seconds ...]", "Command timed
# out"): a search or fetch result that mentions timeouts further in ("... raise a
# TimeoutException after 5 seconds") is content the run went on with, not a timeout.
DEFAULT_TIMEOUT_PATTERNS = (
    r"(?i)^\W{0,3}(?:[\w.-]+ ){0,3}(?:tim(?:ed|e)[ _-]?out|timeout(?:error|exception)?)\b",
    r"(?i)^\W{0,3}(?:[\w.-]+ ){0,3}deadline exceeded\b",
)
# Only the start of a result is read for them: a timeout is said first, not deep in a file.
TIMEOUT_SCAN_CHARS = 500


@frozen_dataclass
class B005Options(GuardOptions):
    scope: str = option(
        "run",
        "What the guard's counts (shown by `show`) cover; each call is judged on its own either way.",
        choices=SCOPES,
    )
    limits: list[str] = option(
        [],
        "Per-tool time limits, each 'GLOBS=SECONDS': glob patterns (any case) of tool names joined by '|', "
        "and the seconds after which a call of those tools is cut. The first entry whose globs match a tool "
        "is its limit (seed 004: " + ", ".join(SEED_004_TIME_LIMITS) + ").",
    )
    default_limit: float = option(
        0.0, "Seconds after which a call of a tool that no entry of `limits` matches is cut; 0 = such calls are unbounded.", minimum=0.0
    )
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS),
        "Regular expressions for a failed result where the format has no error flag "
        "(a JSON object with a non-empty 'error' key always counts).",
    )
    timeout_patterns: list[str] = option(
        list(DEFAULT_TIMEOUT_PATTERNS),
        "Regular expressions for a result that says the tool itself timed out (searched in its first 500 characters, "
        "unless the format says the call succeeded; the default ones match only where the result opens with the timeout, "
        "within its first three words: a result that mentions timeouts further in is content, not a timeout). Known miss: "
        "in a format without an error flag, a successful result that itself opens with one (a search result titled "
        "'Timeout errors in requests') reads as the tool's own timeout and its cut as saved.",
    )


_SECONDS = re.compile(r"\s*(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*", re.ASCII)


def parse_limits(entries: list[str]) -> list[tuple[tuple[str, ...], float, str]]:
    """``["*exec*|*python*=5"]`` -> ``[(("*exec*", "*python*"), 5.0, "*exec*|*python*")]``;
    a ValueError names an entry that is not ``GLOBS=SECONDS`` with SECONDS > 0."""
    out = []
    for entry in entries:
        globs, sep, seconds = entry.rpartition("=")
        patterns = tuple(p.strip() for p in globs.split("|") if p.strip())
        # A plain decimal number: float() also takes '1_0', '５' (a full-width digit) and 'nan'.
        limit = float(seconds) if _SECONDS.fullmatch(seconds) else -1.0
        if not sep or not patterns or not limit > 0 or limit == float("inf"):
            raise ValueError(f"B005.limits: {entry!r} is not GLOBS=SECONDS (e.g. '*exec*|*python*=5', seconds above 0)")
        out.append((patterns, limit, "|".join(patterns)))
    return out


def timed(name: str, seconds: float, result: str = "ok", error: bool | None = False, args: Any = None) -> Step:
    """One round: a call of ``name`` that ran ``seconds``."""
    return calls(Call(name, args if args is not None else {"code": "main()"}, result, error, seconds=seconds))


class CallTimeout(Guard):
    """Reports a tool call that ran past its time limit: a watchdog would have cut it at
    the limit, and the agent would have got a timeout error instead of its result (seed
    004's single-step watchdog: PatchCat kills a code-sandbox Web Worker after 5 s and
    aborts a network tool with ``AbortSignal.timeout(30 s)``).

    **What it fires on.** After the tools of a round ran, each call whose result records
    its start and end time is looked up in ``limits``: entries ``GLOBS=SECONDS`` in
    order, the first whose globs (``|``-separated, any case) match the tool's name gives
    its limit; a tool no entry matches gets ``default_limit``, and none (it is unbounded)
    when that is 0. A call that ran longer than its limit → ``hint`` about that call:
    cut at the limit, it would have run ``duration - limit`` seconds less, and the
    agent would have got the guard's message (a timeout error) as the call's result.

    **What counts as saved (the counterfactual check).** A cut replaces the recorded
    result by a timeout error. That loses nothing only when the recorded result was no
    use either: the call **failed** (the format's error flag; where there is none, the
    ``failure_patterns`` F001 uses) or the tool itself said it **timed out**
    (``timeout_patterns`` in the result's first 500 characters, unless the format says the
    call succeeded). Then ``duration - limit`` seconds are saved (``details.saved_seconds``):
    the agent got an error either way, only later. Any other result (a success, even an
    empty one) is what the run went on with, and a timeout error in its place would have
    broken that: the finding says so and its ``saved_seconds`` is 0. The rule reads
    only the call's own result, so a live agent's monitor can apply it too.

    **Why a hint.** The engine's actions are a stop of the run, a block of a call before
    it runs (its whole time saved) and report-only findings; a cut *during* a call is
    none of those: the call ran until the limit and still returned, an error. So the
    guard reports, and its ``saved_seconds`` are an estimate that no policy total
    includes (a hint never changes the counterfactual run): after a timeout error the
    agent may well have done something else than the recorded run did next. In a live
    agent the hint comes after the call returned: the limit itself belongs in the tool
    runner (PatchCat's Worker and ``AbortSignal``); the guard says where it would have
    cut and what that was worth.

    **Off by default** (no ``limits``, ``default_limit`` 0): how long a tool may run
    depends on the tool. The ``patchcat`` preset sets the seed's limits.

    **Known misses.** A trace whose tool results carry no start and end times (most
    chat-log formats, tau2-bench; OpenHands, Inspect and Claude Code time theirs): the
    guard never fires, and ``state`` says how many calls had no times. A call cut at
    its limit still ran that long: only the rest of its time is counted. Parallel calls
    of one response ran side by side: each figure is the call's own time, and where
    another call of the response ran as long, the round's wall-clock time shrinks less
    (the reason says when a call had siblings). A tool whose name matches no entry is
    never cut unless ``default_limit`` is set.
    """

    code = "B005"
    name = "call-timeout"
    summary = "Report a call that ran past its tool's time limit; its time is saved only if its result was an error. Off by default."
    source = "seed 004"
    origin = (
        "seed article 004, 《从 0 到 1 打造 AI 提示流编排器：别让 Agent 原地鬼打墙！》: PatchCat's single-step watchdog (单步看门狗), "
        "a code-sandbox Web Worker killed after 5 s, a network call aborted by AbortSignal.timeout(30 s)"
    )
    Options = B005Options
    messages = {
        "hint": Message(
            en="Error: {tool} was stopped after {limit} s (its time limit) and returned no result.",
            zh="错误：{tool} 运行超过 {limit} 秒的时间限制，已被终止，没有返回结果。",
            fields=("tool", "limit"),
            when="the timeout error the cut call would have returned instead of its result (reported after the call "
            "ran: the limit itself is the tool runner's)",
        ),
    }

    @classmethod
    def is_off(cls, options) -> bool:
        return not options.enabled or (not options.limits and options.default_limit <= 0)

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Seed 004: a sandboxed Python run killed after 5 s; it ran 12.4 s and timed out itself (7.4 s saved)",
                (
                    timed("python_sandbox", 12.4, "Error: execution timed out after 12 s", error=True),
                    answer(),
                ),
                expect=((1, "after_tools", "hint"),),
                options={"limits": list(SEED_004_TIME_LIMITS)},
            ),
            Example(
                "A fetch past its 30 s limit that returned the page is reported but not counted as saved",
                (
                    timed("web_fetch", 41.0, "<html><h1>Release notes 2.3</h1>...</html>", args={"url": "https://example.com/notes"}),
                    answer(),
                ),
                expect=((1, "after_tools", "hint"),),
                options={"limits": list(SEED_004_TIME_LIMITS)},
            ),
            Example(
                "Calls within their limits, and tools no entry matches, are not touched",
                (
                    timed("execute_code", 4.9),
                    timed("read_file", 300.0, args={"path": "big.log"}),
                    answer(),
                ),
                options={"limits": list(SEED_004_TIME_LIMITS)},
            ),
            Example(
                "A default limit bounds the tools no entry matches",
                (timed("read_file", 300.0, "Error: read timed out", error=True, args={"path": "big.log"}), answer()),
                expect=((1, "after_tools", "hint"),),
                options={"limits": list(SEED_004_TIME_LIMITS), "default_limit": 60},
            ),
            Example(
                "A trace without call times never fires",
                (calls(Call("python_sandbox", {"code": "while True: pass"}, "Error: timed out", error=True)), answer()),
                options={"limits": list(SEED_004_TIME_LIMITS)},
            ),
            Example(
                "Off by default: a long call is not touched",
                (timed("python_sandbox", 600.0, "Error: timed out", error=True), answer()),
            ),
        )

    def __init__(self, options: GuardOptions | None = None, **overrides: Any) -> None:
        super().__init__(options, **overrides)
        self.table = parse_limits(self.options.limits)
        self.classifier = ResultClassifier(failure_patterns=self.options.failure_patterns)
        self.timeout_res = compiled_patterns(self.options.timeout_patterns, "timeout pattern")

    @classmethod
    def option_problem(cls, name: str, value: Any) -> str | None:
        if name == "limits":
            try:
                parse_limits(value)
            except ValueError as exc:
                return str(exc).removeprefix("B005.limits: ")
        return None

    def reset(self, context: RunContext | None = None) -> None:
        self.timed_calls = 0
        self.untimed_calls = 0
        self.cuts = 0
        self.saved_seconds = 0.0
        self.longest: tuple[float, float] | None = None  # (seconds, limit) of the bounded call nearest its limit

    def limit_of(self, name: str) -> tuple[float, str] | None:
        """The limit of tool ``name`` and the entry that set it, None when unbounded."""
        for patterns, limit, label in self.table:
            if matches_any(name, patterns):
                return limit, label
        if self.options.default_limit > 0:
            return self.options.default_limit, "default_limit"
        return None

    def recorded_outcome(self, call: ToolCall) -> str:
        """``failed``, ``timed out`` (a cut loses nothing), ``empty`` or ``productive``."""
        result = call.result
        outcome = self.classifier.outcome(result)
        if outcome == "failed":
            return outcome
        if result is not None and result.is_error is not False:
            head = result.content[:TIMEOUT_SCAN_CHARS]
            if any(p.search(head) for p in self.timeout_res):
                return "timed out"
        return outcome

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        verdicts: list[Verdict] = []
        for call in rnd.tool_calls:
            seconds = call.result.seconds if call.result is not None else None
            if seconds is None:
                self.untimed_calls += call.result is not None
                continue
            self.timed_calls += 1
            bound = self.limit_of(call.name)
            if bound is None:
                continue
            limit, label = bound
            if seconds <= limit:
                if self.longest is None or seconds / limit > self.longest[0] / self.longest[1]:
                    self.longest = (seconds, limit)
                continue
            verdicts.append(self._cut(rnd, call, seconds, limit, label, context))
        return verdicts

    def _cut(self, rnd: Round, call: ToolCall, seconds: float, limit: float, label: str, context: RunContext) -> Verdict:
        cut = seconds - limit
        outcome = self.recorded_outcome(call)
        counted = outcome in ("failed", "timed out")
        saved = cut if counted else 0.0
        self.cuts += 1
        self.saved_seconds += saved
        where = "default limit" if label == "default_limit" else label
        reason = (
            f"{call.name!r} ran {seconds:,.1f} s, limit {limit:g} s ({where}): a watchdog would have cut it there and "
            "the agent would have got a timeout error instead of its result, "
        )
        if counted:
            reason += f"which {'was an error' if outcome == 'failed' else 'timed out'} too: ~{cut:,.1f} s saved (estimate)"
        else:
            reason += (
                f"which {'succeeded' if outcome == 'productive' else 'was an empty success'} and which the run went on "
                f"with: {cut:,.1f} s not counted as saved"
            )
        siblings = len(rnd.tool_calls) - 1
        if siblings:
            reason += f" (it ran beside {siblings} other call{'s' if siblings > 1 else ''} of the response: the round's wall time may shrink less)"
        details = {
            "tool": call.name,
            "limit": limit,
            "limit_of": label,
            "seconds": round(seconds, 3),
            "cut_seconds": round(cut, 3),
            "recorded": outcome,
            "saved_seconds": round(saved, 3),
            "estimated": True,
        }
        message = self.say("hint", context, tool=call.name, limit=f"{limit:g}")
        return Verdict(Action.HINT, reason, call_id=call.id, details=details, message=message)

    def state(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "limits": [label + f"={limit:g}" for _, limit, label in self.table] or "none",
            "default_limit": self.options.default_limit or "unbounded",
            "timed_calls": self.timed_calls,
            "untimed_calls": self.untimed_calls,
            "cuts": self.cuts,
            "saved_seconds": round(self.saved_seconds, 3),
        }
        return out

    def near_miss(self) -> str | None:
        if self.timed_calls == 0:
            if self.untimed_calls:
                n = self.untimed_calls
                return f"{n} tool result{'s' if n > 1 else ''}, none with start and end times: nothing to time"
            return "no tool call with a recorded time"
        if self.longest is None:
            return "no timed call of a tool with a limit"
        seconds, limit = self.longest
        return f"longest bounded call {seconds:,.1f} s ≤ its limit {limit:g} s"
