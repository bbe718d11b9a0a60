from __future__ import annotations

import re
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from ..text.volatile import normalize_volatile
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .escalation import fire_on_option, waits_for_next_call
from .examples import Call, Example, Step, answer, calls, examples_made_when_read
from .messages import Message
from .signals import call_signature, compiled_patterns, excerpt, truncated
from .tool_kinds import call_kind, matches_any


@frozen_dataclass
class P004Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    threshold: int = option(
        4, "Consecutive identical calls answered by the identical result at which the guard acts (see action).", minimum=2
    )
    action: str = option(
        "stop",
        "What the guard does at the threshold: stop the turn with a forced answer, or block the next "
        "identical call (answered by the guard's message; the run goes on). A block always waits for the next call.",
        choices=("stop", "block"),
    )
    fire_on: str = fire_on_option("result", "identical result", "blocks a read-only call that keeps returning the same thing")
    hint_at: int = option(
        0, "Identical pairs in a row from which each further one is hinted (the call ran); 0 = no hints.", minimum=0
    )
    tools: list[str] = option(
        [], "Glob patterns (any case) of the tools the guard acts on; empty = every tool. Other calls still break a streak."
    )
    exempt_tools: list[str] = option(
        [],
        "Glob patterns (any case) of tools never hinted or acted on, e.g. pollers ('*_poll', '*_get_result'), "
        "whose unchanged answer is legitimate waiting. Their calls still break another call's streak.",
    )
    poll_threshold: int = option(
        0,
        "The threshold for polls (tool_kinds: a call that sends nothing to a running process, waits, or reads what it "
        "printed: Codex's write_stdin with empty chars, Claude Code's BashOutput, sleep && tail): a silent build answers "
        "the same for minutes. 0 = the same as threshold.",
        minimum=0,
    )
    canonical_args: bool = option(True, "Compare arguments as sorted-key JSON; off compares the raw text.")
    volatile_patterns: list[str] = option(
        [],
        "Regular expressions for volatile text in results (timestamps, ids); matches are blanked "
        "before results are compared. Empty = compare the whitespace-normalised text as it is.",
    )
    normalize_volatile: bool = option(
        False,
        "Also replace volatile text before comparing (tracecheck.text.volatile: dated timestamps, UUIDs, temp paths, "
        "shell line counters, hex ids, PIDs; not durations or bare clock times, which can be a poll's progress); "
        "off compares as OpenHands does.",
    )


def _wait_and_look(result: str) -> Step:
    return calls(Call("run_command", {"command": "sleep 60 && tail -n 1 build.log"}, result))


class UnchangedOutcome(Guard):
    """Stops when the same call keeps getting the same answer (OpenHands' repeated
    action-observation scenario; Hermes' and OpenClaw's identical-result streaks).

    **What it fires on.** After the tools of a round ran, every call is taken in order
    (parallel calls of one round included) as a pair: its signature (tool name +
    arguments, never the call id) and its result (the text with runs of whitespace
    made one space, the error flag; with ``normalize_volatile`` the volatile text of
    ``tracecheck.text.volatile`` replaced except durations and bare clock times, which
    in a result can be a job's progress; and ``volatile_patterns`` blanked). The
    same pair as the previous call extends the streak; anything else restarts it at 1;
    a call without a recorded result ends it. At the ``threshold``-th (4th) identical
    pair in a row → ``stop``: the agent has seen nothing new for that many calls.

    OpenHands' StuckDetector (V0 and V1) stops when the last 4 actions are equal and the
    last 4 observations are equal, i.e. on the 4th pair, after its observation arrived;
    the default reproduces that count and convention. Hermes halts its
    (tool, args, result) streak at 5, OpenClaw at 20 (``threshold`` is how presets say so).

    **Options for other agents.** ``hint_at`` hints every identical pair from that
    count on (Hermes appends a notice from the 3rd). ``tools`` (globs; empty = every
    tool) limits the guard to some tools, e.g. Hermes' read-only allowlist;
    ``exempt_tools`` (globs) are never hinted or acted on, e.g. pollers (``*_poll``,
    ``*_get_result``) whose unchanged answer is legitimate waiting. Calls of tools
    the guard does not act on still take part in the sequence: they break another
    call's streak. ``fire_on = "next_call"`` waits for the next identical call and
    acts before it runs (Hermes blocks the 6th read-only call after 5 identical
    results), the threshold's own pair then being hinted; ``action = "block"``
    answers that call with the guard's message instead of stopping (a block always
    waits for the next call). A blocked call's recorded result is ignored: a live
    loop never ran it.

    **Polls.** A call that only waits for a running process or reads what it printed
    (``tool_kinds``: Codex CLI's ``write_stdin`` with empty ``chars``, Claude Code's
    ``BashOutput``, ``sleep 30 && tail build.log``, OpenHands' empty command) is a poll: a
    silent ``docker build`` answers the same for minutes, and a poll whose output changes is
    progress. ``poll_threshold`` gives polls a threshold of their own.

    **Why it matters.** R001 looks only at calls and so cannot tell a progressing poll
    from a stuck one; this guard waits for the evidence that nothing changes. A poll
    whose result changes never fires, nor does pagination (the arguments differ).

    **Scope.** By default the streak covers one turn: OpenHands in interactive mode only
    looks after the last user message. ``scope = "run"`` is its headless mode, where a
    user message does not break the loop.

    **Known misses.** Results with a timestamp, a duration or an id change every time
    and escape unless ``volatile_patterns`` blanks them (Hermes #60084; OpenClaw strips
    volatile fields per tool). A loop that alternates calls (A, B, A, B) restarts the
    streak at every call. A legitimate wait on a slow process that prints the same
    line several times is stopped at the 4th look (OpenHands #5355, where ``sleep 60``
    ×4 was "stuck"). Only consecutive repeats count: the same read-only call
    answered the same way with other calls in between (A, B, A, B, ...) is R003's
    (with ``compare_results``), and Hermes' per-signature count, which does not need
    the repeats to be consecutive, has no equivalent here.
    """

    code = "P004"
    name = "unchanged-outcome"
    summary = "{action:Verb} at the {threshold:nth} identical call in a row that got the identical result."
    source = "OpenHands StuckDetector; Hermes, OpenClaw"
    origin = (
        "OpenHands' StuckDetector (the same action getting the same observation, 4 times), and the identical-result streaks of Hermes Agent and OpenClaw"
    )
    Options = P004Options
    messages = {
        "hint": Message(
            en="{tool} was called {count} times in a row with the same arguments and returned the same result each "
            "time: {result}. Use that result or change the call; repeating it will not change the answer.",
            zh="{tool} 已用相同参数连续调用 {count} 次，每次返回的结果都相同：{result}。请使用这个结果或改变调用；"
            "重复调用不会得到不同的答案。",
            fields=("tool", "count", "result"),
            when="injected as guidance; the call still runs",
        ),
        "block": Message(
            en="Not run: {tool} was already called {count} times in a row with these arguments and returned the "
            "same result each time: {result}. Use that result, change the call, or give the final answer.",
            zh="未执行：{tool} 已用这些参数连续调用 {count} 次，每次返回的结果都相同：{result}。请使用这个结果、"
            "改变调用，或给出最终答案。",
            fields=("tool", "count", "result"),
        ),
        "stop": Message(
            en="{tool} returned the same result {count} times in a row for the same call ({result}); calling it "
            "again will not change anything. Tools are no longer available: give your final answer from what you have.",
            zh="同一调用 {tool} 连续 {count} 次返回相同结果（{result}），再调用也不会有变化。工具已停用，"
            "请基于现有信息给出最终答案。",
            fields=("tool", "count", "result"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "ls answered by \"\" four times stops at the 4th (OpenHands test_is_stuck_repeating_action_observation, headless)",
                (
                    answer("Hello", user="Hi"),
                    calls(Call("run_command", {"command": "ls"}, ""), user="List the files"),
                    calls(Call("run_command", {"command": "ls"}, "")),
                    calls(Call("run_command", {"command": "ls"}, ""), user="Done"),
                    calls(Call("run_command", {"command": "ls"}, "")),
                    answer(),
                ),
                expect=((5, "after_tools", "stop"),),
                options={"enabled": True, "scope": "run"},
            ),
            Example(
                "A user message restarts the streak in scope turn (OpenHands test_is_stuck_repeating_action_observation, interactive)",
                (
                    answer("Hello", user="Hi"),
                    calls(Call("run_command", {"command": "ls"}, ""), user="List the files"),
                    calls(Call("run_command", {"command": "ls"}, "")),
                    calls(Call("run_command", {"command": "ls"}, ""), user="Done"),
                    calls(Call("run_command", {"command": "ls"}, "")),
                    answer(),
                ),
                options={"enabled": True},
            ),
            Example(
                "Three identical pairs are not yet stuck; the 4th is (OpenHands test_is_stuck_interactive_reset)",
                tuple(calls(Call("run_command", {"command": "ls"}, "file1.txt\nfile2.txt")) for _ in range(4))
                + (answer(),),
                expect=((4, "after_tools", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "Whitespace differences do not make a result new",
                (
                    calls(Call("search_docs", {"query": "refund policy"}, "No results for 'refund policy'.")),
                    calls(Call("search_docs", {"query": "refund policy"}, "No results for  'refund policy'.\n")),
                    calls(Call("search_docs", {"query": "refund policy"}, " No results for\n'refund policy'.")),
                    calls(Call("search_docs", {"query": "refund policy"}, "No results for 'refund policy'.")),
                    answer(),
                ),
                expect=((4, "after_tools", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "A poll whose result changes never fires (as in Hermes' test: terminal(date) => t{i})",
                tuple(
                    calls(Call("get_report_status", {"report_id": "rpt_8812"}, f'{{"status": "generating", "progress": {10 * i}}}'))
                    for i in range(6)
                )
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "Pagination never fires: the arguments differ while the page looks alike",
                tuple(calls(Call("list_orders", {"page": i, "size": 10}, "[]")) for i in range(1, 7)) + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "A timestamp in the result hides the loop unless volatile_patterns blanks it",
                tuple(_wait_and_look(f"[12:0{i}:00] still compiling") for i in range(5)) + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "normalize_volatile: a result that differs only in its timestamp is the same result",
                tuple(
                    calls(Call("get_job", {"id": "j-7"}, f'{{"state": "queued", "checked_at": "2026-03-02T10:1{k}:00Z"}}'))
                    for k in range(3)
                )
                + (answer(),),
                options={"enabled": True, "threshold": 3, "normalize_volatile": True},
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "normalize_volatile keeps a poll's progress: '4 min left' then '3 min left' is news",
                tuple(calls(Call("get_job", {"id": "j-7"}, f"running, estimated time remaining: {m} min")) for m in (4, 3, 2, 1)) + (answer(),),
                options={"enabled": True, "threshold": 3, "normalize_volatile": True},
            ),
            Example(
                "The same loop with the timestamp blanked stops at the 4th look",
                tuple(_wait_and_look(f"[12:0{i}:00] still compiling") for i in range(5)) + (answer(),),
                expect=((4, "after_tools", "stop"),),
                options={"enabled": True, "volatile_patterns": [r"\[\d\d:\d\d:\d\d\]"]},
            ),
            Example(
                "Parallel identical calls in one round count one by one",
                (
                    calls(*(Call("read_file", {"path": "a.txt"}, "same") for _ in range(3))),
                    calls(Call("read_file", {"path": "a.txt"}, "same")),
                    answer(),
                ),
                expect=((2, "after_tools", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "Hermes' identical-call streak: notices from the 3rd, stops at the 5th; a poller is never flagged",
                tuple(calls(Call("terminal", {"command": "cat VERSION"}, "1.4.2\n")) for _ in range(5))
                + tuple(calls(Call("job_poll", {"id": "j1"}, "running")) for _ in range(6))
                + (answer(),),
                expect=((3, "after_tools", "hint"), (4, "after_tools", "hint"), (5, "after_tools", "stop")),
                options={"enabled": True, "scope": "run", "threshold": 5, "hint_at": 3, "exempt_tools": ["*_poll"]},
            ),
            Example(
                "Hermes' read-only no-progress block: the 2nd identical result is hinted, the 3rd call is blocked",
                tuple(calls(Call("read_file", {"path": "notes.md"}, "# Notes\n")) for _ in range(3)) + (answer(),),
                expect=((2, "after_tools", "hint"), (3, "before_tools", "block")),
                options={"enabled": True, "threshold": 2, "hint_at": 2, "action": "block", "tools": ["read_file", "web_*"]},
            ),
            Example(
                "Codex polling a silent docker build (write_stdin, empty chars): a poll waits under poll_threshold",
                tuple(calls(Call("write_stdin", {"session_id": 7, "chars": "", "yield_time_ms": 10000}, "Process running with session ID 7\nOutput:\n")) for _ in range(5))
                + (calls(Call("write_stdin", {"session_id": 7, "chars": "", "yield_time_ms": 10000}, "Process exited with code 0\nOutput:\nSuccessfully built 3f2a9c1")), answer()),
                options={"enabled": True, "threshold": 3, "poll_threshold": 10},
            ),
            Example(
                "Gemini CLI running the identical ls: each result ends in another process group id, still the same answer",
                tuple(
                    calls(Call("run_shell_command", {"command": "ls src"}, f"Output: main.py  util.py\nProcess Group PGID: {4100 + k}"))
                    for k in range(4)
                )
                + (answer(),),
                expect=((3, "after_tools", "stop"),),
                options={"enabled": True, "threshold": 3, "normalize_volatile": True, "poll_threshold": 10},
            ),
            Example(
                "A tool outside the allowlist (tools) is never flagged, even answered the same way 5 times",
                tuple(calls(Call("write_file", {"path": "out.txt", "content": "x"}, "ok")) for _ in range(5)) + (answer(),),
                options={"enabled": True, "threshold": 2, "hint_at": 2, "fire_on": "next_call", "tools": ["read_file"]},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self._volatile: list[re.Pattern[str]] = compiled_patterns(self.options.volatile_patterns, "volatile pattern")
        self.last_pair: tuple[str, str | None] | None = None  # (signature, result key once needed)
        self._last_call: ToolCall | None = None
        self.streak = 0
        self.last_result = ""  # the start of the streak's result, for reasons
        self.blocked: set[str] = set()

    def _result_key(self, call: ToolCall) -> str | None:
        if call.result is None:
            return None
        text = call.result.content
        if self.options.normalize_volatile:
            text = normalize_volatile(text, keep_progress=True)
        for pattern in self._volatile:
            text = pattern.sub("", text)
        flag = "error" if call.result.is_error else "ok"
        return f"{flag}:{' '.join(text.split())}"

    @property
    def _lowest(self) -> int:
        """The lower of the two thresholds: below it no call's kind needs looking up."""
        opts = self.options
        return min(opts.threshold, opts.poll_threshold or opts.threshold)

    def _threshold(self, call: ToolCall) -> int:
        opts = self.options
        return opts.poll_threshold if opts.poll_threshold and call_kind(call) == "poll" else opts.threshold

    def _watched(self, call: ToolCall) -> bool:
        opts = self.options
        return (not opts.tools or matches_any(call.name, opts.tools)) and not matches_any(call.name, opts.exempt_tools)

    def _verdict(self, action: Action, call: ToolCall, before: bool, context: RunContext) -> Verdict:
        assert self.last_pair is not None
        if self.last_pair[1] is None:
            self.last_pair = (self.last_pair[0], self._result_key(self._last_call))
        signature, result_key = self.last_pair
        seen = f"{self.streak} identical calls {excerpt(signature, 120)} in a row got the same result {self.last_result!r}"
        if action is Action.HINT:
            reason = f"{seen}; use it or change the call instead of repeating it"
        elif before:
            reason = f"{seen} (threshold {self.options.threshold}); the next identical call is not run"
        else:
            reason = seen
        return Verdict(
            action,
            reason,
            call_id=call.id,
            details={"signature": truncated(signature), "result": truncated(result_key), "streak": self.streak},
            refusal=reason if action is Action.BLOCK else None,
            message=self.say(action.value, context, tool=call.name, count=self.streak, result=self.last_result),
        )

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self.blocked = set()
        opts = self.options
        if not waits_for_next_call(self.options) or self.last_pair is None or self.streak < self._lowest:
            return []
        if self._last_call is not None and self.streak < self._threshold(self._last_call):
            return []
        action = Action(opts.action)
        verdicts = []
        for call in rnd.tool_calls:
            if call_signature(call, opts.canonical_args) != self.last_pair[0]:
                break  # the streak ends here, whatever this call's result
            if not self._watched(call):
                continue
            verdicts.append(self._verdict(action, call, before=True, context=context))
            if action.ends_run:
                break
            self.blocked.add(call.id)
        return verdicts

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        at_result = not waits_for_next_call(self.options)
        verdicts: list[Verdict] = []
        for call in rnd.tool_calls:
            if call.id in self.blocked:
                continue  # a live loop never ran it: its recorded result was never seen
            if call.result is None:
                self.last_pair, self.streak = None, 0
                continue
            signature = call_signature(call, opts.canonical_args)
            # Results are normalised only when the same call comes again: normalising
            # every long result is what a replay would otherwise spend its time on.
            if self.last_pair is not None and signature == self.last_pair[0]:
                if self.last_pair[1] is None:
                    self.last_pair = (signature, self._result_key(self._last_call))
                result_key = self._result_key(call)
                same = result_key == self.last_pair[1]
            else:
                result_key, same = None, False
            if same:
                self.streak += 1
            else:
                self.last_pair, self.streak, self._last_call = (signature, result_key), 1, call
                self.last_result = excerpt(call.result.content if call.result else "", 80)
            if not self._watched(call):
                continue
            if at_result and self.streak >= self._lowest and self.streak >= self._threshold(call):
                return verdicts + [self._verdict(Action.STOP, call, before=False, context=context)]
            if opts.hint_at and self.streak >= opts.hint_at:
                verdicts.append(self._verdict(Action.HINT, call, before=False, context=context))
        return verdicts

    def near_miss(self) -> str | None:
        if self.last_pair is None:
            return "no call with a result to compare yet"
        return (
            f"{self.streak} identical call{'s' if self.streak != 1 else ''} in a row with the same result "
            f"({excerpt(self.last_pair[0], 80)}), of the {self.options.threshold} that stop"
        )

    def state(self) -> dict[str, Any]:
        return {
            "streak": self.streak,
            "signature": truncated(self.last_pair[0]) if self.last_pair else None,
        }
