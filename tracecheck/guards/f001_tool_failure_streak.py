from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .escalation import fire_on_option, waits_for_next_call
from .examples import Call, Example, Step, answer, calls, examples_made_when_read
from .messages import Message
from .signals import (
    DEFAULT_FAILURE_PATTERNS,
    ResultClassifier,
    call_signature,
    excerpt,
    lookup_target,
    says_not_found,
    truncated,
)
from .tool_kinds import matches_any


@frozen_dataclass
class F001Options(GuardOptions):
    threshold: int = option(
        3, "Consecutive failures of one tool (of one call, with same_call) at which the guard acts (see action).", minimum=1
    )
    action: str = option(
        "abort",
        "What the guard does at the threshold: abort the run (LoopAgent), stop the turn with a forced "
        "answer, or block the next call of the failing tool (or signature) and let the run go on.",
        choices=("abort", "stop", "block"),
    )
    fire_on: str = fire_on_option("failure", "failure", "blocks the 6th identical call after 5 failures")
    hint_at: int = option(
        0, "Failures in a row from which each further failure is hinted (the run goes on); 0 = no hints.", minimum=0
    )
    same_call: bool = option(
        False,
        "Count failures per call signature (tool + sorted-key JSON arguments) instead of per tool: "
        "only the same call failing again adds up (Hermes' exact-failure counter).",
    )
    per_response: bool = option(
        False,
        "Count a tool's failures in one model response once: parallel calls were written before any of their "
        "results was seen, so six siblings failing together are one failed attempt; off counts every call "
        "(LoopAgent, Hermes).",
    )
    exempt_tools: list[str] = option(
        [],
        "Glob patterns (any case) of failure-tolerant tools: their failures are counted and hinted, "
        "but never reach the threshold action (Hermes: terminal, execute_code, ...).",
    )
    hint_exempt: bool = option(
        True,
        "Hint the failures of exempt_tools too (Hermes notices them); off leaves a failure-tolerant tool's failures "
        "to other guards (a shell's dead ends are F003's), so a red test run is not hinted every third time.",
    )
    reset_on: list[str] = option(
        [],
        "Glob patterns (any case) of tools whose successful call sets every count to 0: a change "
        "landed (an edit, a click), so the next failure is a new experiment, not a replay.",
    )
    by_target: bool = option(
        False,
        "While every failure of a streak says that another target is not there ('No such file', 'does not exist', "
        "'No matches', a different path each time: signals.lookup_target), hint at the threshold and act at the next "
        "failure: reading three wrong paths before the right one is looking, not a tool failing.",
    )
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS),
        "Regular expressions for a failed result where the format has no error flag "
        "(a JSON object with a non-empty 'error' key always counts).",
    )


def fails(tool: str, result: str = "Error: No such file or directory") -> Step:
    return calls(Call(tool, {"path": "src/missing.py"}, result, error=True))


def distinct_failures(tool: str, arg: str, template: str, result: str, n: int) -> tuple[Step, ...]:
    """``n`` rounds, each one call of ``tool`` failing with ``result``, its argument
    ``arg`` different each time (``template`` formatted with 0..n-1)."""
    return tuple(calls(Call(tool, {arg: template.format(i)}, result, error=True)) for i in range(n))


class ToolFailureStreak(Guard):
    """Aborts a run stuck on a tool that keeps failing (seed 001, "撞南墙").

    **What it fires on.** After the tools of a round ran, every call is taken in call
    order and counted against its tool's name: a failure adds 1 to that tool's count of
    consecutive failures, a success sets it back to 0. When one tool's count reaches
    ``threshold`` (3) the guard says ``abort``, as LoopAgent throws "工具 X 连续失败 3 次,
    终止运行" the moment the third failure comes back. Counts are per tool: failures of
    ``read_file`` and of ``run_shell`` never add up, and a success of one tool does not
    reset another. Several failing calls of one tool in a single (parallel) round count
    one by one, in the order the model wrote them; with ``per_response`` they count once,
    as one attempt (the model had not seen any of their results when it wrote them: six
    Grep calls failing together on one permission error, then a working ``find``, are
    one failure and a fix).

    A **failure** is what the format flags as an error. Where the format cannot tell
    (no error flag, e.g. plain OpenAI chat logs), a result is a failure when it matches
    ``failure_patterns`` (by default: text starting with ``Error``, ``Exception``,
    ``Traceback`` or a Python exception name such as ``FileNotFoundError:``) or is a
    JSON object with a non-empty ``error`` key (or ``"isError": true``). A call that
    succeeded but found nothing ("No results", ``[]``) is **not** a failure and resets
    the count, as in LoopAgent, where only ``succeeded`` feeds the breaker and
    ``productive`` feeds the evidence gate (E001).

    **Options for other agents.** ``same_call`` counts per call signature (tool +
    sorted-key JSON arguments) instead of per tool, so only the same call failing again
    adds up; a success of that very call resets it. ``fire_on = "next_call"`` waits
    for the next call with the same key and acts before it runs (Hermes blocks the
    6th identical call after 5 failures, not the 5th failure); ``action`` is ``abort``
    (default), ``stop`` (the turn ends with a forced answer) or ``block`` (that call
    is answered by the guard's message and the run goes on; a block always waits for
    the next call, since the failed one already ran). ``hint_at`` hints every failure
    from that count on, the threshold's own failure included when the action waits
    for the next call. ``exempt_tools`` (globs) are counted and hinted but never
    acted on: tools whose failures are normal work output (a red test run, an empty
    grep). ``reset_on`` (globs): a successful call of one of these tools (an edit, a
    click) sets every count to 0, so an edit → re-run loop is never cut while a pure
    replay with nothing changed in between still is; the reset applies once, and
    failures after it count from 1 again.

    ``by_target``: while every failure of the streak says that another target is not
    there (``No such file``, ``does not exist``, ``No matches``, each for a path or name
    not asked before: ``signals.lookup_target``), the agent may be looking (three wrong
    paths, then the right one) or lost (seed 001's guesses): the threshold's failure is
    hinted, and the run is stopped at the next one if it goes on (the ladder of seed 004).
    The same target asked again, or another kind of failure, counts as usual. A call the user declined at a permission prompt (``declined``) neither
    counts nor resets: its text is the user's answer (a user rejecting three drafts is not
    a tool failing three times).

    **Why it matters.** Retrying a tool that fails the same way wastes rounds and
    tokens; an occasional failure must not end a run, only a tool the model is stuck
    on. Aborting (no answer) is deliberate: the run cannot have what it needed.

    **Known misses.** In LoopAgent a call refused as a duplicate (R002) also counts as
    a failure; replay sees the recorded result of that call instead, so a run that
    repeats a successful call three times is not aborted here (R001/R002 cover it). A
    tool that reports failure in prose ("could not open the file") without a flag or a
    matching pattern is not seen: add a pattern. A call without a recorded result
    (the trace was cut off) neither counts nor resets. ``reset_on`` is a list of tool
    names: a change that lands through another tool (a shell command that writes a
    file) is not seen as one unless that tool is listed, and a listed tool's success
    resets even when it changed nothing. A blocked call's recorded result is ignored
    (a live loop never ran it); what it would have returned is unknown.
    """

    code = "F001"
    name = "tool-failure-streak"
    summary = "{action:Verb} when one tool fails {threshold} times in a row (a success resets its count)."
    source = "seed 001"
    origin = "seed article 001, 《让 Agent 不翻车的工程护栏》: LoopAgent's circuit breaker against 撞南墙 (running into a wall), 3 failures of a tool in a row"
    Options = F001Options
    messages = {
        "hint": Message(
            en="{tool} failed {count} times in a row; last error: {error}. Retrying the same way will fail again: "
            "change your approach (other arguments, another tool) or give the final answer.",
            zh="{tool} 已连续失败 {count} 次，最近的错误：{error}。照原样重试还会失败：请换一种做法（换参数或换工具），"
            "或给出最终答案。",
            fields=("tool", "count", "error"),
            when="injected as guidance; the calls go on",
        ),
        "block": Message(
            en="Not run: {tool} already failed {count} times in a row (last error: {error}). Change your approach "
            "instead of retrying, or give the final answer.",
            zh="未执行：{tool} 已连续失败 {count} 次（最近的错误：{error}）。请换一种做法而不是重试，或给出最终答案。",
            fields=("tool", "count", "error"),
        ),
        "stop": Message(
            en="{tool} failed {count} times in a row (last error: {error}), so tools are no longer available. Give "
            "your final answer from what you have, and say what could not be done.",
            zh="{tool} 已连续失败 {count} 次（最近的错误：{error}），工具已停用。请基于现有信息给出最终答案，"
            "并说明哪些事情没能完成。",
            fields=("tool", "count", "error"),
        ),
        "abort": Message(
            # Seed 001's LoopAgent: 工具 ${name} 连续失败 ${failures} 次,终止运行
            en="Tool {tool} failed {count} times in a row; the run is terminated.",
            zh="工具 {tool} 连续失败 {count} 次,终止运行",
            fields=("tool", "count", "error"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "per_response: six parallel calls failing together are one failure; the next response works",
                (
                    calls(*(Call("Grep", {"pattern": p}, "rg: /app: Permission denied (os error 13)", error=True) for p in "abcdef")),
                    calls(Call("Grep", {"pattern": "a", "path": "/app/src"}, "/app/src/x.py:1:a")),
                    answer(),
                ),
                options={"per_response": True},
            ),
            Example(
                "Without per_response the same six siblings are six failures in a row",
                (
                    calls(*(Call("Grep", {"pattern": p}, "rg: /app: Permission denied (os error 13)", error=True) for p in "abcdef")),
                    answer(),
                ),
                expect=((1, "after_tools", "abort"),),
            ),
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
            Example(
                "Hermes' exact-failure counter: hints from the 2nd failure of the same call, stops before the 6th",
                tuple(calls(Call("web_search", {"query": "same"}, '{"error": "rate limited"}', error=True)) for _ in range(6)) + (answer(),),
                expect=(
                    (2, "after_tools", "hint"), (3, "after_tools", "hint"), (4, "after_tools", "hint"),
                    (5, "after_tools", "hint"), (6, "before_tools", "stop"),
                ),
                options={"threshold": 5, "hint_at": 2, "same_call": True, "fire_on": "next_call", "action": "stop"},
            ),
            Example(
                "With same_call, failures of one tool with different arguments never add up",
                distinct_failures("read_file", "path", "src/mod{}.py", "Error: No such file", 4) + (answer(),),
                options={"same_call": True},
            ),
            Example(
                "by_target: three wrong paths read before the right one are looking: hinted at the 3rd, not stopped",
                tuple(calls(Call("Read", {"file_path": p}, "<tool_use_error>File does not exist.</tool_use_error>", error=True)) for p in ("/app/src/main.py", "/app/main.py", "/app/app.py"))
                + (calls(Call("Read", {"file_path": "/app/server/main.py"}, "1\timport flask")), answer()),
                options={"by_target": True},
                expect=((3, "after_tools", "hint"),),
            ),
            Example(
                "by_target: guessing on after the hint is lost, not looking: stopped at the next failure",
                tuple(calls(Call("read_file", {"path": p}, f"Error: ENOENT: no such file or directory, open '{p}'", error=True)) for p in ("/repo/src/config.yaml", "/repo/config.yaml", "/repo/src/config/config.yaml", "/repo/config/payment.yaml"))
                + (answer(),),
                options={"by_target": True},
                expect=((3, "after_tools", "hint"), (4, "after_tools", "abort")),
            ),
            Example(
                "by_target: the same missing file read again (in another case) still counts",
                tuple(calls(Call("Read", {"file_path": p}, "<tool_use_error>File does not exist.</tool_use_error>", error=True)) for p in ("/app/config.yaml", "/app/Config.yaml", "/app/config.yaml/"))
                + (answer(),),
                options={"by_target": True},
                expect=((3, "after_tools", "abort"),),
            ),
            Example(
                "A user declining three drafts is not a tool failing three times (the calls never ran)",
                tuple(
                    calls(Call("Write", {"file_path": "/app/post.md", "content": f"draft {k}"}, "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\ntoo long", error=True, declined=True))
                    for k in range(4)
                )
                + (answer(),),
            ),
            Example(
                "A block answers the next call of the failing tool (it never runs, so it stays blocked); other tools run",
                (
                    fails("read_file"),
                    fails("read_file"),
                    fails("read_file"),
                    calls(Call("list_dir", {"path": "src"}, "app.py\nutil.py")),
                    answer(),
                ),
                expect=((3, "before_tools", "block"),),
                options={"threshold": 2, "action": "block"},
            ),
            Example(
                "An edit between failing test runs resets the count (reset_on): fix, re-run is never stopped",
                tuple(
                    step
                    for i in range(4)
                    for step in (
                        calls(Call("terminal", {"command": "pytest -q"}, '{"exit_code": 1}', error=True)),
                        calls(Call("patch", {"path": "x.py", "new": f"v{i}"}, '{"success": true}')),
                    )
                )
                + (answer(),),
                options={"threshold": 2, "same_call": True, "reset_on": ["patch", "write_file"]},
            ),
            Example(
                "A failure-tolerant tool is hinted but never acted on (exempt_tools)",
                distinct_failures("terminal", "command", "grep -q needle{} log.txt", '{"exit_code": 1}', 4) + (answer(),),
                expect=((3, "after_tools", "hint"), (4, "after_tools", "hint")),
                options={"threshold": 3, "hint_at": 3, "exempt_tools": ["terminal", "execute_*"]},
            ),
            Example(
                "hint_exempt off: a failure-tolerant tool's failures are left to other guards, not hinted",
                distinct_failures("terminal", "command", "grep -q needle{} log.txt", '{"exit_code": 1}', 4) + (answer(),),
                options={"threshold": 3, "hint_at": 3, "exempt_tools": ["terminal", "execute_*"], "hint_exempt": False},
            ),
            Example(
                "An exempt tool's next call is not refused either (fire_on next_call)",
                tuple(calls(Call("execute_code", {"code": "run_tests()"}, "Traceback ...", error=True)) for _ in range(4))
                + (answer(),),
                options={"threshold": 2, "same_call": True, "fire_on": "next_call", "exempt_tools": ["terminal", "execute_*"]},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.classifier = ResultClassifier(failure_patterns=self.options.failure_patterns)
        self.streaks: dict[str, int] = {}
        self.last_error: dict[str, str] = {}
        self.blocked: set[str] = set()  # ids of this round's blocked calls: they never ran
        self.targets: dict[str, set[str]] = {}  # key -> targets not found in its streak (by_target)

    def _looking(self, key: str, call: ToolCall) -> bool:
        """Whether every failure of this streak, this one included, says that another
        target is not there (a different path each time): the agent is looking."""
        target = lookup_target(call) if call.result is not None and says_not_found(call.result.content) else None
        seen = self.targets.get(key)
        if self.streaks.get(key, 0) == 0:
            seen = self.targets[key] = set()
        if seen is None or target is None or target in seen:
            self.targets.pop(key, None)  # a failure of another kind, or a target asked again: not looking
            return False
        seen.add(target)
        return True

    def _key(self, call: ToolCall) -> str:
        return call_signature(call) if self.options.same_call else call.name

    def _verdict(self, action: Action, call: ToolCall, count: int, before: bool, context: RunContext) -> Verdict:
        opts = self.options
        key = self._key(call)
        what = f"call {excerpt(key, 120)}" if opts.same_call else f"tool {call.name!r}"
        last = self.last_error.get(key, "")
        if action is Action.HINT:
            reason = f"{what} failed {count} times in a row; last error {last!r}. Change approach instead of retrying"
        elif before:
            reason = (
                f"{what} already failed {count} times in a row (threshold {opts.threshold}); "
                f"its next call is not run. Last error {last!r}"
            )
        else:
            flagged = "flagged as error" if call.result is not None and call.result.is_error else "matched a failure pattern"
            reason = (
                f"{what} failed {count} times in a row (threshold {opts.threshold}); "
                f"last result {flagged}: {last!r}"
            )
        details = {"tool": call.name, "failures": count, "threshold": opts.threshold, "last_error": last}
        if opts.same_call:
            details["signature"] = truncated(key)
        refusal = reason if action is Action.BLOCK else None
        message = self.say(action.value, context, tool=call.name, count=count, error=last)
        return Verdict(action, reason, call_id=call.id, details=details, refusal=refusal, message=message)

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        self.blocked = set()
        if not waits_for_next_call(self.options):
            return []
        opts = self.options
        action = Action(opts.action)
        verdicts = []
        for call in rnd.tool_calls:
            count = self.streaks.get(self._key(call), 0)
            if count < opts.threshold or matches_any(call.name, opts.exempt_tools):
                continue
            verdicts.append(self._verdict(action, call, count, before=True, context=context))
            if action.ends_run:
                break  # the round's tools never run
            self.blocked.add(call.id)
        return verdicts

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        at_failure = not waits_for_next_call(self.options)
        verdicts: list[Verdict] = []
        failed_here: set[str] = set()
        for call in rnd.tool_calls:
            if call.result is None or call.id in self.blocked or call.result.declined:
                continue  # nothing came back (cut-off trace), a live loop never ran it, or the user declined it
            key = self._key(call)
            if not self.classifier.is_failure(call.result):
                self.streaks[key] = 0
                self.last_error.pop(key, None)
                self.targets.pop(key, None)
                if matches_any(call.name, opts.reset_on):
                    # A change landed: every retry after it is a new experiment.
                    self.streaks = dict.fromkeys(self.streaks, 0)
                    self.targets.clear()
                continue
            if opts.per_response and key in failed_here:
                continue  # a sibling of a failure already counted in this response
            failed_here.add(key)
            looking = opts.by_target and self._looking(key, call)
            count = self.streaks.get(key, 0) + 1
            self.streaks[key] = count
            self.last_error[key] = excerpt(call.result.content)
            exempt = matches_any(call.name, opts.exempt_tools)
            if at_failure and looking and count == opts.threshold and not exempt:
                # Every failure so far a different target not found: the agent may be
                # looking (the right path comes next) or lost. Hint; stop if it goes on.
                verdicts.append(self._verdict(Action.HINT, call, count, before=False, context=context))
                continue
            if at_failure and count >= opts.threshold and not exempt:
                # LoopAgent throws inside the tool loop: calls after this one never run.
                return verdicts + [self._verdict(Action(opts.action), call, count, before=False, context=context)]
            if opts.hint_at and count >= opts.hint_at and (opts.hint_exempt or not exempt):
                verdicts.append(self._verdict(Action.HINT, call, count, before=False, context=context))
        return verdicts

    def state(self) -> dict[str, Any]:
        return {
            "consecutive_failures": {name: n for name, n in sorted(self.streaks.items()) if n},
            "threshold": self.options.threshold,
            "last_error": dict(sorted(self.last_error.items())),
        }
