from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..model import Round, ToolCall
from ..text.volatile import normalize_volatile
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option, ordinal
from .examples import Call, Example, Step, answer, calls, examples_made_when_read
from .messages import Message
from .signals import call_signature, excerpt, truncated
from .tool_kinds import call_kind

# The result of a call of the current round: not known before its tools run.
_PENDING = "pending"
# A call whose result the trace did not record: it never matches anything.
_MISSING = "missing"


@frozen_dataclass
class R003Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    min_period: int = option(1, "Shortest cycle looked for, in calls (1 = the same call again and again).", minimum=1)
    max_period: int = option(5, "Longest cycle looked for, in calls (Gemini CLI: 5).", minimum=1)
    laps: int = option(
        3,
        "Times the block must occur in a row, the first occurrence included (OpenHands: 3 for A-B; Gemini CLI: 5).",
        minimum=2,
    )
    compare_results: bool = option(
        False,
        "A lap counts only if the results repeat too (after volatile-text normalisation), as OpenHands compares "
        "action and observation; off compares calls only, as Gemini CLI.",
    )
    last_lap_start: bool = option(
        False,
        "Stop at the first call of the last lap (once the earlier laps repeated whole and that call starts the "
        "block again), as the labelled runs count a cycle's 3rd lap, instead of at the call that completes it: "
        "for periods of 3 or more, the completing call comes period-1 calls too late.",
    )
    changes_by_signature: bool = option(
        False,
        "With compare_results, a change (an edit, a write, a str_replace: tool_kinds' write) matches the same change "
        "one period earlier by its call alone: re-applying an identical change echoes a different file every time "
        "(SWE-agent's edit re-inserts its lines), so its result can never repeat; the other calls' results must.",
    )
    wait_for_result: bool = option(
        False,
        "With compare_results, also wait for the result of the call that completes the cycle and stop after "
        "the tools ran, as OpenHands does (it needs the 6th observation); off stops before that call runs.",
    )


@mutable_dataclass(slots=True)
class _Entry:
    signature: str
    result: str  # a digest of the normalised result, or _PENDING / _MISSING
    call: ToolCall | None = None  # whose result, digested only when a comparison needs it
    change: bool = False  # a write: with changes_by_signature its result is not compared
    round: int = 0  # the round (model response) that made the call

    def key(self) -> str:
        # Normalising a long result is the costly part: only calls whose signatures
        # repeat are ever compared, so most results are never digested.
        if self.call is not None:
            self.result, self.call = _result_key(self.call), None
        return self.result


def _result_key(call: ToolCall) -> str:
    if call.result is None:
        return _MISSING
    import hashlib  # here: only repeated signatures are compared (start-up)

    text = normalize_volatile(call.result.content)
    flag = {True: "E", False: "S", None: "?"}[call.result.is_error]
    return flag + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _three_call_laps(new_view_in_lap: int | None = None) -> tuple[Step, ...]:
    """Three laps of edit, run, view, each answered as before (but the view of
    ``new_view_in_lap``), then an answer."""
    return tuple(
        calls(Call(name, {"arg": name}, "a new view" if (lap, name) == (new_view_in_lap, "view_file") else f"{name} said the same"))
        for lap in range(3)
        for name in ("edit_file", "run_tests", "view_file")
    ) + (answer(),)


def _edit_reapplied_and_rerun(test_result: Any) -> tuple[Step, ...]:
    """The same SWE-agent edit applied four times (its echo grows by a line each time),
    the same script run after each; ``test_result(lap)`` is what the script prints."""
    return tuple(
        step
        for lap in range(4)
        for step in (
            calls(Call("edit", {"range": "1:1", "text": "import x"}, "import x\n" * (lap + 1))),
            calls(Call("python", {"script": "reproduce.py"}, test_result(lap))),
        )
    ) + (answer(),)


class CallCycle(Guard):
    """Stops before the call that completes a cycle of calls repeated several times
    (OpenHands StuckDetector's A-B pattern, Gemini CLI's tool-call cycles).

    **What it fires on.** Every tool call has a signature: tool name + sorted-key JSON
    arguments (never the call id). Calls are taken in order, parallel calls of one round
    included. Before the tools of a round run, the guard appends each call in turn and
    asks whether the last ``p × laps`` calls are one block of ``p`` calls repeated
    ``laps`` times, for every period ``p`` from ``min_period`` (1) to ``max_period``
    (5). **Counting:** a lap is one whole occurrence of the block, the first one
    included (a block that is itself a shorter cycle, A-A, counts only as that shorter
    one), so A-B-A-B-A-B is period 2, 3 laps, and it fires before the 6th call
    runs; with the default ``laps`` of 3 a single call repeated 3 times is period 1,
    3 laps. The verdict is ``stop`` on the call that completes the last lap, before it
    runs, and the history starts afresh (a ``scope`` of ``run`` then needs whole new
    laps to fire again).

    With ``compare_results`` a lap counts only if the results repeat too: each call's
    result must equal (after ``normalize_volatile``: timestamps, ids, durations ... ) the
    result of the same call one period earlier, as OpenHands compares observations. A
    result is known only after its tools ran, so the calls of the current round (the
    one that would complete the cycle) are compared by signature only; a call whose
    result the trace did not record never matches. With ``wait_for_result`` as well,
    the guard waits for that last result too: the check runs after the tools of the
    round, every call's result must repeat, and the stop comes ``after_tools``, which is
    where OpenHands' StuckDetector sees its 6th observation and raises.

    With ``last_lap_start`` the stop comes one call into the last lap instead: once the
    earlier laps repeated whole (results too, with ``compare_results``), the call that
    starts the block again is stopped before it runs, as the labelled real runs count a
    cycle (its 3rd lap's first call). For a period of 3 or more, the call completing the
    lap comes ``period - 1`` calls later than that; laps written inside one response,
    before the model saw any answer, are siblings and do not count. With
    ``changes_by_signature`` as well, a change (an edit, a write, a str_replace:
    ``tool_kinds``' writes) matches the same change one period earlier by its call alone:
    re-applying an identical change echoes a different file every time (SWE-agent's
    ``edit 1:1`` re-inserts its lines), so its result can never repeat, while the other
    calls' results must. ``default`` turns both on.

    **Defaults.** OpenHands stops an A-B pattern at 3 laps and Gemini CLI stops any
    period 1..5 at 5 laps; this guard looks at periods 1..5 like Gemini CLI and counts
    3 laps like OpenHands. A preset reproducing Gemini CLI sets ``laps`` to 5, one
    reproducing OpenHands ``max_period`` 2, ``compare_results`` and ``wait_for_result``; Hermes looks at
    periods 2..4 (``min_period`` 2) with results compared.

    **Why it matters.** R001 only sees the same call in a row; a model that alternates
    ``open_page`` and ``scroll_down``, or cycles through three files, escapes it while
    making no progress at all.

    **Known misses.** A cycle whose calls differ each lap (a page counter, a timestamp
    in the arguments) is not a cycle here: arguments are compared exactly. A cycle
    broken by one stray call starts over. Without ``compare_results`` a legitimate
    round-robin poll of several jobs is stopped; with it but without ``wait_for_result``
    the stop comes one result earlier than OpenHands' (which also sees the result of the
    completing call).
    """

    code = "R003"
    name = "call-cycle"
    summary = "Stop before the call that completes a block of {min_period}-{max_period} calls repeated {laps} times."
    source = "OpenHands StuckDetector, Gemini CLI LoopDetectionService"
    origin = "OpenHands' StuckDetector (actions alternating A-B-A-B) and Gemini CLI's LoopDetectionService (a cycle of tool calls)"
    Options = R003Options
    messages = {
        "stop": Message(
            en="Your last {count} tool calls went round the same cycle of {period} call(s) {laps} times ({calls}); "
            "another lap will not find anything new. Tools are no longer available: give your final answer from "
            "what you have.",
            zh="最近 {count} 次工具调用在同一个由 {period} 个调用组成的循环里转了 {laps} 圈（{calls}），再转一圈也不会有"
            "新发现。工具已停用，请基于现有信息给出最终答案。",
            fields=("count", "period", "laps", "calls", "tool"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "An A-B-A-B-A-B loop stops before the 6th call (period 2, 3 laps)",
                tuple(
                    calls(Call("open_page" if i % 2 == 0 else "scroll_down", {"url": "https://x.example"})) for i in range(7)
                )
                + (answer(),),
                expect=((6, "before_tools", "stop"),),
            ),
            Example(
                "Pagination A(page 1) B A(page 2) B ... is no cycle",
                tuple(
                    calls(
                        Call("list_orders", {"page": i // 2 + 1}) if i % 2 == 0 else Call("summarize", {"text": "orders"})
                    )
                    for i in range(10)
                )
                + (answer(),),
            ),
            Example(
                "With compare_results, a poll whose result changes never fires",
                tuple(
                    calls(Call("get_job_status", {"job": "j1"}, f'{{"progress": {10 * i}}}')) for i in range(1, 7)
                )
                + (answer(),),
                options={"compare_results": True},
            ),
            Example(
                "With compare_results, a poll answered the same way (only the timestamp differs) stops at the 3rd call",
                tuple(
                    calls(Call("get_job_status", {"job": "j1"}, f'{{"status": "queued", "at": "2026-12-01T10:00:0{i}Z"}}'))
                    for i in range(1, 5)
                )
                + (answer(),),
                options={"compare_results": True},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "OpenHands test_is_stuck_repeating_action_observation_pattern: [ls, read file1] x3 with the same "
                "observations (here two calls per round) stops before the 3rd lap's last call",
                tuple(
                    calls(
                        Call("run", {"command": "ls"}, "file1.txt\nfile2.txt"),
                        Call("read", {"path": "file1.txt"}, "File content"),
                    )
                    for _ in range(3)
                )
                + (answer(),),
                options={"compare_results": True, "max_period": 2},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "With wait_for_result, [ls, read file1] x3 one call per round stops after the 6th observation "
                "(OpenHands test_is_stuck_repeating_action_observation_pattern)",
                tuple(
                    calls(Call("run", {"command": "ls"}, "file1.txt\nfile2.txt"))
                    if i % 2 == 0
                    else calls(Call("read", {"path": "file1.txt"}, "File content"))
                    for i in range(6)
                )
                + (answer(),),
                options={"compare_results": True, "max_period": 2, "wait_for_result": True},
                expect=((6, "after_tools", "stop"),),
            ),
            Example(
                "With wait_for_result, a 6th observation that differs is no 3rd lap",
                tuple(
                    calls(Call("run", {"command": "ls"}, "file1.txt\nfile2.txt"))
                    if i % 2 == 0
                    else calls(Call("read", {"path": "file1.txt"}, "File content" if i < 5 else "File content, edited"))
                    for i in range(6)
                )
                + (answer(),),
                options={"compare_results": True, "max_period": 2, "wait_for_result": True},
            ),
            Example(
                "OpenHands test_is_not_stuck: ls, read file1, pwd, read file2, pwd, read file2 is only 2 laps",
                (
                    calls(Call("run", {"command": "ls"}, "file1.txt\nfile2.txt")),
                    calls(Call("read", {"path": "file1.txt"}, "File content")),
                    calls(Call("run", {"command": "pwd"}, "/home/user")),
                    calls(Call("read", {"path": "file2.txt"}, "Another file content")),
                    calls(Call("run", {"command": "pwd"}, "/home/user")),
                    calls(Call("read", {"path": "file2.txt"}, "Another file content")),
                    answer(),
                ),
                options={"compare_results": True},
            ),
            Example(
                "A 3-call cycle (edit, run, view) answered the same way stops at the 3rd lap's last call",
                _three_call_laps(),
                options={"compare_results": True},
                expect=((9, "before_tools", "stop"),),
            ),
            Example(
                "With last_lap_start the same cycle stops at the 3rd lap's first call, two calls sooner",
                _three_call_laps(),
                options={"compare_results": True, "last_lap_start": True},
                expect=((7, "before_tools", "stop"),),
            ),
            Example(
                "With last_lap_start, two laps that end differently do not start a third",
                _three_call_laps(new_view_in_lap=1),
                options={"compare_results": True, "last_lap_start": True},
            ),
            Example(
                "The same edit re-applied between test runs: its echo grows each time, so results never repeat",
                _edit_reapplied_and_rerun(lambda lap: "NameError: name 'y' is not defined"),
                options={"compare_results": True, "last_lap_start": True},
            ),
            Example(
                "With changes_by_signature the re-applied edit matches by its call alone: stops at the 3rd lap's first call",
                _edit_reapplied_and_rerun(lambda lap: "NameError: name 'y' is not defined"),
                options={"compare_results": True, "last_lap_start": True, "changes_by_signature": True},
                expect=((5, "before_tools", "stop"),),
            ),
            Example(
                "With changes_by_signature, fix-and-retest still goes on: the test's result changes",
                _edit_reapplied_and_rerun(lambda lap: f"{3 - lap} tests failed"),
                options={"compare_results": True, "last_lap_start": True, "changes_by_signature": True},
            ),
            Example(
                "Gemini CLI loopDetectionService.test: the same call fires on the 5th with 5 laps",
                tuple(calls(Call("testTool", {"param": "value"})) for _ in range(6)) + (answer(),),
                options={"laps": 5},
                expect=((5, "before_tools", "stop"),),
            ),
            Example(
                "Gemini CLI loopDetectionService.test: [testTool(value1), testTool(value2), anotherTool(value1)] x3 "
                "never fires with 5 laps",
                tuple(
                    calls(Call("testTool", {"param": "value1"}), Call("testTool", {"param": "value2"}), Call("anotherTool", {"param": "value1"}))
                    for _ in range(3)
                )
                + (answer(),),
                options={"laps": 5},
            ),
            Example(
                "Gemini CLI loopDetectionService.test: a 3-cycle [a, b, c] fires on the 15th call with 5 laps",
                tuple(calls(Call("tool_" + "abc"[i % 3], {"n": i % 3})) for i in range(20)) + (answer(),),
                options={"laps": 5},
                expect=((15, "before_tools", "stop"),),
            ),
            Example(
                "Gemini CLI loopDetectionService.test: t({id: 1..5}) cyclic fires on the 25th call with 5 laps",
                tuple(calls(Call("t", {"id": i % 5 + 1})) for i in range(30)) + (answer(),),
                options={"laps": 5},
                expect=((25, "before_tools", "stop"),),
            ),
            Example(
                "Gemini CLI loopDetectionService.test: A, B, A, B, C, A, B, A, B never fires with 5 laps",
                tuple(calls(Call(name, {})) for name in "ABABCABAB") + (answer(),),
                options={"laps": 5},
            ),
        )

    @classmethod
    def describe(cls, options: GuardOptions | None = None) -> str:
        values = options if options is not None else cls.Options()
        if not values.last_lap_start:
            return super().describe(options)
        return (
            f"Stop before the call that starts the {ordinal(values.laps)} lap of a block of "
            f"{values.min_period}-{values.max_period} calls gone round {values.laps - 1} times."
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.history: list[_Entry] = []
        self.pending: list[_Entry] = []

    def _cycle_period(self, history: list[_Entry]) -> int | None:
        opts = self.options
        laps = opts.laps
        for period in range(opts.min_period, opts.max_period + 1):
            span = period * (laps - 1) + 1 if opts.last_lap_start else period * laps
            if len(history) < span:
                break
            tail = history[-span:]
            if opts.last_lap_start and tail[-1].round == tail[0].round:
                continue  # laps written in one response, before any answer: siblings, not repeats
            if all(self._same(tail[i], tail[i - period]) for i in range(period, span)):
                if any(self._repeats_every(tail[-period - 1 : -1] if opts.last_lap_start else tail[-period:], q) for q in range(1, period) if period % q == 0):
                    continue  # A-A-A-A is a shorter cycle, not an A-A "2-call cycle" (as Hermes counts)
                return period
        return None

    def _repeats_every(self, block: list[_Entry], step: int) -> bool:
        return all(self._same(block[i], block[i - step]) for i in range(step, len(block)))

    def _same(self, later: _Entry, earlier: _Entry) -> bool:
        if later.signature != earlier.signature:
            return False
        if not self.options.compare_results or later.result == _PENDING:
            return True
        if self.options.changes_by_signature and later.change:
            return True
        later_key = later.key()
        return later_key != _MISSING and later_key == earlier.key()

    @property
    def _waits(self) -> bool:
        return self.options.compare_results and self.options.wait_for_result

    def _check(self, history: list[_Entry], call: ToolCall, when: str, context: RunContext) -> list[Verdict]:
        period = self._cycle_period(history)
        if period is None:
            return []
        starts_again = self.options.last_lap_start
        entries = history[-period - 1 : -1] if starts_again else history[-period:]
        block = [truncated(e.signature) for e in entries]
        laps = self.options.laps
        whole = laps - 1 if starts_again else laps  # laps gone round whole
        self.history, self.pending = [], []
        what = f"{whole} laps of a {period}-call cycle" + (", and the next call starts it again" if starts_again else "")
        return [
            Verdict(
                Action.STOP,
                f"the last {period * whole} calls are {what} ({', '.join(excerpt(s, 60) for s in block)}); {when}",
                call_id=call.id,
                details={"period": period, "laps": laps, "cycle": block},
                message=self.say(
                    "stop", context, count=period * whole, period=period, laps=whole, tool=call.name,
                    calls=", ".join(dict.fromkeys(e.signature.partition(":")[0] for e in entries)),
                ),
            )
        ]

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        keep = self.options.max_period * self.options.laps
        self.pending = []
        for call in rnd.tool_calls:
            entry = _Entry(call_signature(call), _PENDING, change=self.options.changes_by_signature and call_kind(call) == "write", round=rnd.index)
            self.history.append(entry)
            self.pending.append(entry)
            del self.history[:-keep]
            if not self._waits:
                when = "stopped before it runs" if self.options.last_lap_start else "stopped before the last one runs"
                found = self._check(self.history, call, when, context)
                if found:
                    return found
        return []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        pending, self.pending = self.pending, []
        for entry, call in zip(pending, rnd.tool_calls):
            if call.result is None:
                entry.result = _MISSING
            else:
                entry.result, entry.call = "", call  # digested on first comparison
        if not self._waits:
            return []
        # The round's calls are the last len(pending) entries: check the history as it
        # stood after each of them, in call order, now that their results are in.
        first_end = len(self.history) - len(pending) + 1
        for end, call in zip(range(first_end, len(self.history) + 1), rnd.tool_calls):
            if end > 0:
                found = self._check(self.history[:end], call, "stopped after its result repeated too", context)
                if found:
                    return found
        return []

    def state(self) -> dict[str, Any]:
        # How many calls the window holds and the last few (a cycle is at most max_period
        # long): the whole window, shown under every round, grew into a wall of text.
        shown = self.history[-min(len(self.history), self.options.max_period) :] if self.history else []
        return {"recent_calls": len(self.history), "last": [truncated(e.signature, 80) for e in shown[-3:]]}
