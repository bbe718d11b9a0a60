from __future__ import annotations

import re
from typing import Any

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..input.diagnostics import TracecheckError
from ..model import Round, ToolCall
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import canonical_json, excerpt, truncated

LEVEL_ACTIONS = ("block", "stop", "abort")
GENERIC, POLL, PING_PONG, BREAKER = "generic_repeat", "known_poll_no_progress", "ping_pong", "global_circuit_breaker"
UNKNOWN_TOOL = "unknown_tool_repeat"
# The error texts that name a tool the agent does not have: "unknown tool: X", "tool X not found",
# "tool X is not available" (any case; X in letters, digits and ._-).
_UNKNOWN_TOOL = (
    re.compile(r"unknown tool[:\s]+[\"']?([a-z0-9_.-]+)[\"']?", re.IGNORECASE),
    re.compile(r"tool\s+[\"']?([a-z0-9_.-]+)[\"']?\s+(?:not found|is not available)", re.IGNORECASE),
)
# OpenClaw's known pollers: command_status, and the process tool asked to poll or to read its log.
DEFAULT_POLL_TOOLS = ("command_status", "process.action=poll", "process.action=log")


@frozen_dataclass
class R007Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    scope: str = option(
        "turn",
        "What the call history covers: one conversation turn (OpenClaw keeps one history per agent run, which a new "
        "message starts) or the whole run (OpenClaw's first version: one history per session).",
        choices=("turn", "run"),
    )
    history_size: int = option(30, "How many of the most recent calls the history keeps; older calls are forgotten.", minimum=2)
    warning_at: int = option(
        10,
        "Warning level: this many earlier identical calls in the history (generic repeat), identical calls "
        "answered the same way (a poll), or calls in an alternation (ping-pong) give a hint; the call runs.",
        minimum=1,
    )
    critical_at: int = option(
        20,
        "Critical level: this many identical calls answered the same way (a poll; any call with "
        "generic_critical), or calls in an alternation whose results did not change, and the call gets "
        "critical_action. Raised to warning_at + 1 when not above it.",
        minimum=1,
    )
    breaker_at: int = option(
        30,
        "Circuit breaker: this many identical calls of any tool answered the same way, and the call gets "
        "breaker_action, whatever detectors are on. Raised to critical_at + 1 when not above it.",
        minimum=1,
    )
    critical_action: str = option(
        "block",
        "What the critical level does: block (the call is not run; its result is the guard's message and the "
        "run goes on, as OpenClaw), stop (forced final answer) or abort.",
        choices=LEVEL_ACTIONS,
    )
    breaker_action: str = option("block", "What the circuit breaker does: block, stop or abort.", choices=LEVEL_ACTIONS)
    generic_repeat: bool = option(True, "Warn about identical calls repeated in the history (never for poll tools).")
    generic_critical: bool = option(
        True,
        "Also take critical_action on a generic repeat answered the same way critical_at times (OpenClaw since "
        "it stopped leaving generic loops to the breaker); off: a generic repeat is only warned.",
    )
    unknown_tool_at: int = option(
        10,
        "Calls in a row of one tool, each failing because it names a tool the agent does not have (\"unknown "
        "tool: X\", \"tool X not found\"; the same X), at which the next call of that tool gets critical_action "
        "(0 = off).",
        minimum=0,
    )
    poll_no_progress: bool = option(True, "Warn about, then act on, poll tools called the same way and answered the same way.")
    ping_pong: bool = option(True, "Warn about, then act on, two calls alternating (A, B, A, B ...).")
    poll_tools: list[str] = option(
        list(DEFAULT_POLL_TOOLS),
        "The poll tools: a tool name (exact), or TOOL.FIELD=VALUE for a tool that polls only when that argument "
        "has that value (process.action=poll).",
    )
    warning_bucket: int = option(
        10,
        "A warning is given again for the same pattern only when its count reaches the next multiple of this "
        "(OpenClaw logs at 10, 20, 30 ...); 0 = at every call that is at the warning level. A count below the "
        "first multiple gives no warning.",
        minimum=0,
    )


def _poll_rules(entries: list[str]) -> tuple[frozenset[str], dict[str, list[tuple[str, str]]]]:
    names: set[str] = set()
    rules: dict[str, list[tuple[str, str]]] = {}
    for entry in entries:
        head, eq, value = entry.partition("=")
        if not eq:
            if not entry:
                raise TracecheckError("R007.poll_tools: an empty entry")
            names.add(entry)
            continue
        # The last dot before '=' splits, so a tool named "server.process" can still name its field.
        tool, dot, field_name = head.rpartition(".")
        if not dot or not tool or not field_name:
            raise TracecheckError(f"R007.poll_tools: {entry!r} is neither TOOL nor TOOL.FIELD=VALUE (e.g. process.action=poll)")
        rules.setdefault(tool, []).append((field_name, value))
    return frozenset(names), rules


@mutable_dataclass(slots=True)
class _Record:
    """One call in the history: its signature and, once it ran, its outcome."""

    tool: str
    signature: str
    call_id: str
    outcome: str | None = None
    unknown_tool: str | None = None  # the missing tool its error names


def _unknown_tool(call: ToolCall) -> str | None:
    """The tool a failed call's error says does not exist, in lower case, or None."""
    if call.result is None or call.result.is_error is not True:
        return None
    text = call.result.content.strip()
    for pattern in _UNKNOWN_TOOL:
        found = pattern.search(text)
        if found:
            return found.group(1).lower()
    return None


def _outcome(call: ToolCall) -> str | None:
    """What a call's result is compared by: error or not, and its text, trimmed."""
    if call.result is None:
        return None
    return ("error:" if call.result.is_error else "ok:") + call.result.content.strip()


class CallHistoryLoop(Guard):
    """Watches a sliding history of the last 30 calls for loop patterns, warns at 10 and
    refuses the call at 20 or 30 (OpenClaw's tool-loop detection).

    **What it keeps.** Every call that runs enters a history of the last
    ``history_size`` (30) calls: its tool, its signature (tool name + sorted-key JSON of
    the arguments, exactly as written otherwise: no argument is left out) and, once its
    result is in, its outcome (error or not, and the result text, trimmed). A call the
    guard refuses never enters the history, so a refused loop stays refused.

    **What it judges.** Each call, before it runs, against the history of the calls
    before it (the calls of the same response that came before it are in the history,
    their results not yet). The *no-progress count* of a call is how many times its
    signature got the same outcome, counting back over the history, skipping other calls
    and calls without a result, and stopping at the first different outcome. The first
    pattern that applies decides:

    1. *Unknown tool* (``unknown_tool_at``, 10): the last calls of the history are
       calls of this tool that each failed naming the same missing tool ("unknown tool:
       X", "tool X not found", "tool X is not available"), whatever their arguments:
       ``critical_action``.
    2. *Circuit breaker* (any tool, whatever detectors are on): a no-progress count of
       ``breaker_at`` (30): ``breaker_action``.
    3. *Poll without progress* (``poll_no_progress``; only the ``poll_tools``): a
       no-progress count of ``critical_at`` (20): ``critical_action``; of
       ``warning_at`` (10): a hint.
    4. *Ping-pong* (``ping_pong``): the history ends in an alternation of two
       signatures, A B A B ... A, and the call is the B that continues it; the count is
       the alternation's length including the call. At ``critical_at`` the call gets
       ``critical_action`` only if every A in the alternation was answered the same way
       and every B too (no progress); otherwise, and from ``warning_at``, a hint.
    5. *Generic repeat* (``generic_repeat``; never a poll tool): a no-progress count of
       ``critical_at`` (20): ``critical_action`` (with ``generic_critical``; off, as
       OpenClaw first shipped it, a generic loop answered the same way is left to the
       breaker at 30); ``warning_at`` (10) calls with the call's signature anywhere in
       the history, whatever their results: a hint.

    The thresholds are kept in order as OpenClaw kept them while they could be set:
    ``critical_at`` at least ``warning_at + 1``, ``breaker_at`` at least
    ``critical_at + 1``. A warning is given once per pattern and multiple of
    ``warning_bucket`` (10): at the 10th repeat, then at the 20th; OpenClaw logs its
    warnings that way.

    **Why it matters.** A long-running agent polls (a build, a server log), re-reads and
    bounces between two tools. Consecutive-call detectors (R001) are reset by anything
    in between and fire early on legitimate polls; a history window counts repeats with
    other calls interleaved, and the result comparison tells a poll that waits from a
    poll that gets news. The high thresholds are OpenClaw's choice: the detector is
    meant to catch runaway loops late, never to cut a slow but working run.

    **Known misses.** The window is 30 calls: a loop whose repeats are more than 30
    calls apart, or a generic repeat with more than 20 other calls mixed in, is never
    counted to its threshold. Outcomes are compared as text, so a result with a
    timestamp or a process id in it is a new outcome every time (OpenClaw hashes some
    tools' structured results with such fields left out, which a transcript does not
    carry). A refused call's effect on the model is unknown: replay goes on with the
    recorded rounds.
    """

    code = "R007"
    name = "call-history-loop"
    summary = (
        "Last {history_size} calls: hint at {warning_at} repeats (call, poll answer, ping-pong); {critical_action} a call "
        "answered alike at {critical_at}, {breaker_action} at {breaker_at}."
    )
    source = "OpenClaw src/agents/tool-loop-detection.ts"
    origin = (
        "OpenClaw's tool-loop detection (src/agents/tool-loop-detection.ts): a 30-call history with generic-repeat, "
        "known-poll-no-progress and ping-pong detectors, warning and critical levels, and a global circuit breaker"
    )
    Options = R007Options
    messages = {
        "hint": Message(
            en="WARNING: {pattern}. If this is not making progress, stop retrying: change the approach or report the "
            "task as failed.",
            zh="警告：{pattern}。如果没有进展，请不要再重试：换一种做法，或报告任务失败。",
            fields=("tool", "count", "pattern"),
            when="a warning; the call still runs (OpenClaw logs it)",
        ),
        "block": Message(
            en="CRITICAL: {pattern}. This call was not run, to stop a runaway loop. Do something else, or report the "
            "task as failed.",
            zh="严重：{pattern}。为防止失控的循环，本次调用没有执行。请换一种做法，或报告任务失败。",
            fields=("tool", "count", "pattern"),
        ),
        "stop": Message(
            en="CRITICAL: {pattern}. Tools are no longer available: give your final answer from what you have.",
            zh="严重：{pattern}。工具已停用，请基于现有信息给出最终答案。",
            fields=("tool", "count", "pattern"),
        ),
        "abort": Message(
            en="Loop detection: {pattern}. The run is ended.",
            zh="循环检测：{pattern}。运行已终止。",
            fields=("tool", "count", "pattern"),
        ),
    }

    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        same_read = Call("read", {"path": "/same.txt"}, "same output")
        poll = Call("process", {"action": "poll", "sessionId": "s1"}, "(no new output)\n\nProcess still running.")
        return (
            Example(
                "The same read eleven times: a warning before the 11th (10 earlier identical calls), the call runs",
                tuple(calls(same_read) for _ in range(11)) + (answer(),),
                expect=((11, "before_tools", "hint"),),
            ),
            Example(
                "The same read answered the same way: warned before the 11th, refused before the 21st and every "
                "identical call after it (a refused call never enters the history)",
                tuple(calls(same_read) for _ in range(22)) + (answer(),),
                expect=((11, "before_tools", "hint"), (21, "before_tools", "block"), (22, "before_tools", "block")),
            ),
            Example(
                "The same read answered differently every time: warned at 10 and 20 identical calls, never refused",
                tuple(calls(Call("read", {"path": "/log.txt"}, f"line {i}")) for i in range(22)) + (answer(),),
                expect=((11, "before_tools", "hint"), (21, "before_tools", "hint")),
            ),
            Example(
                "Without generic_critical (OpenClaw's first version) a generic loop is warned at 10 and 20 and left "
                "to the circuit breaker, which refuses the 31st call",
                tuple(calls(same_read) for _ in range(31)) + (answer(),),
                expect=((11, "before_tools", "hint"), (21, "before_tools", "hint"), (31, "before_tools", "block")),
                options={"generic_critical": False},
            ),
            Example(
                "A stuck poll: warned before the 11th, refused before the 21st",
                tuple(calls(poll) for _ in range(21)) + (answer(),),
                expect=((11, "before_tools", "hint"), (21, "before_tools", "block")),
            ),
            Example(
                "A poll whose output grows is never counted",
                tuple(calls(Call("process", {"action": "poll", "sessionId": "s1"}, f"line {i}")) for i in range(25))
                + (answer(),),
            ),
            Example(
                "Ping-pong between a read and a list with unchanged results: warned at 10 calls, refused at 20",
                tuple(
                    calls(Call("read", {"path": "/a.txt"}, "read stable") if i % 2 == 0 else Call("list", {"dir": "/w"}, "list stable"))
                    for i in range(20)
                )
                + (answer(),),
                expect=((10, "before_tools", "hint"), (20, "before_tools", "block")),
            ),
            Example(
                "Ping-pong whose results change is only warned",
                tuple(
                    calls(Call("read", {"path": "/a.txt"}, f"read {i}") if i % 2 == 0 else Call("list", {"dir": "/w"}, f"list {i}"))
                    for i in range(20)
                )
                + (answer(),),
                # At 20 the count reaches the next multiple of 10: warned again.
                expect=((10, "before_tools", "hint"), (20, "before_tools", "hint")),
            ),
            Example(
                "A missing tool called 10 times with changing arguments: the 11th call is refused",
                tuple(calls(Call("exec", {"command": f"echo {i}"}, "Tool exec not found", error=True)) for i in range(11))
                + (answer(),),
                expect=((11, "before_tools", "block"),),
            ),
            Example(
                "Lower thresholds: a poll stopped at its 5th call (the warnings at counts 2 and 3 are below the "
                "first multiple of 10: none given)",
                tuple(calls(poll) for _ in range(5)) + (answer(),),
                expect=((5, "before_tools", "stop"),),
                options={"warning_at": 2, "critical_at": 4, "critical_action": "stop", "generic_repeat": False, "ping_pong": False},
            ),
            Example(
                "Every warning given, with warning_bucket 0",
                tuple(calls(poll) for _ in range(5)) + (answer(),),
                expect=((3, "before_tools", "hint"), (4, "before_tools", "hint"), (5, "before_tools", "stop")),
                options={"warning_at": 2, "critical_at": 4, "critical_action": "stop", "warning_bucket": 0},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        opts = self.options
        self.poll_names, self.poll_rules = _poll_rules(opts.poll_tools)
        self.warning_at = opts.warning_at
        self.critical_at = max(opts.critical_at, self.warning_at + 1)
        self.breaker_at = max(opts.breaker_at, self.critical_at + 1)
        self.history: list[_Record] = []
        self.pending: list[tuple[ToolCall, _Record]] = []  # this response's calls that ran, waiting for results
        self.warned: dict[str, int] = {}  # pattern key -> last warning bucket

    @staticmethod
    def signature(call: ToolCall) -> str:
        if call.arguments_error is None and call.arguments is not None:
            return f"{call.name}:{canonical_json(call.arguments)}"
        return f"{call.name}:{call.arguments_raw}"

    def is_poll(self, call: ToolCall) -> bool:
        if call.name in self.poll_names:
            return True
        rules = self.poll_rules.get(call.name)
        if not rules or not isinstance(call.arguments, dict):
            return False
        return any(str(call.arguments.get(field_name)) == value for field_name, value in rules if field_name in call.arguments)

    def _no_progress(self, signature: str) -> tuple[int, str | None]:
        """How many times in a row (over this signature's calls with a result, newest
        first) the signature got the same outcome, and that outcome."""
        count, latest = 0, None
        for record in reversed(self.history):
            if record.signature != signature or record.outcome is None:
                continue
            if latest is None:
                latest, count = record.outcome, 1
            elif record.outcome == latest:
                count += 1
            else:
                break
        return count, latest

    def _unknown_streak(self, tool: str) -> tuple[str | None, int]:
        """The calls of ``tool`` at the end of the history that all failed naming the
        same missing tool: that tool and how many."""
        missing, count = None, 0
        for record in reversed(self.history):
            if record.tool != tool or record.unknown_tool is None or (missing is not None and record.unknown_tool != missing):
                break
            missing, count = record.unknown_tool, count + 1
        return missing, count

    def _ping_pong(self, signature: str) -> tuple[int, str | None, bool]:
        """The alternation the call would continue: its length including the call, the
        other signature, and whether both sides' outcomes stayed the same."""
        if not self.history:
            return 0, None, False
        last = self.history[-1].signature
        other = next((r.signature for r in reversed(self.history[:-1]) if r.signature != last), None)
        if other is None or signature != other:
            return 0, None, False
        tail = 0
        for record in reversed(self.history):
            if record.signature != (last if tail % 2 == 0 else other):
                break
            tail += 1
        if tail < 2:
            return 0, None, False
        seen: dict[str, str] = {}
        stable = True
        for record in self.history[len(self.history) - tail:]:
            if record.outcome is None or seen.setdefault(record.signature, record.outcome) != record.outcome:
                stable = False
                break
        return tail + 1, last, stable and len(seen) == 2

    def _warn_due(self, key: str, count: int) -> bool:
        bucket_size = self.options.warning_bucket
        if not bucket_size:
            return True
        bucket = count // bucket_size
        if bucket <= self.warned.get(key, 0):
            return False
        self.warned[key] = bucket
        return True

    def _detect(self, call: ToolCall) -> tuple[str, str, int, str, str] | None:
        """(level, detector, count, pattern in words, warning key) of the first pattern
        that applies, or None."""
        opts = self.options
        signature = self.signature(call)
        tool = call.name
        streak, latest = self._no_progress(signature)
        poll = self.is_poll(call)
        if opts.unknown_tool_at:
            missing, count = self._unknown_streak(tool)
            if count >= opts.unknown_tool_at:
                return "critical", UNKNOWN_TOOL, count, f"{tool} was called {count} times for the unavailable tool {missing}", ""
        if streak >= self.breaker_at:
            return "breaker", BREAKER, streak, f"{tool} was answered the same way {streak} times with identical arguments (circuit breaker)", ""
        if poll and opts.poll_no_progress:
            key = f"poll:{signature}:{latest}"
            if streak >= self.critical_at:
                return "critical", POLL, streak, f"{tool} was polled {streak} times with identical arguments and no progress", key
            if streak >= self.warning_at:
                return "warning", POLL, streak, f"{tool} was polled {streak} times with identical arguments and no progress", key
        if opts.ping_pong:
            length, paired, stable = self._ping_pong(signature)
            key = "pingpong:" + "|".join(sorted((signature, paired or "")))
            if length >= self.critical_at and stable:
                return "critical", PING_PONG, length, f"two tool calls have alternated for {length} calls with no progress", key
            if length >= self.warning_at:
                return "warning", PING_PONG, length, f"two tool calls have alternated for {length} calls", key
        if not poll and opts.generic_repeat and opts.generic_critical and streak >= self.critical_at:
            return "critical", GENERIC, streak, f"{tool} was called {streak} times with identical arguments and identical results", ""
        if not poll and opts.generic_repeat:
            repeats = sum(1 for record in self.history if record.signature == signature)
            if repeats >= self.warning_at:
                return "warning", GENERIC, repeats, f"{tool} was called {repeats} times with identical arguments", f"generic:{signature}"
        return None

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        verdicts: list[Verdict] = []
        for call in rnd.tool_calls:
            found = self._detect(call)
            if found is not None:
                level, detector, count, pattern, key = found
                details = {"detector": detector, "level": level, "count": count, "signature": truncated(self.signature(call))}
                if level == "warning":
                    if self._warn_due(key, count):
                        verdicts.append(
                            Verdict(
                                Action.HINT,
                                f"{detector} warning: {pattern}; the call runs",
                                call_id=call.id,
                                details=details,
                                message=self.say("hint", context, tool=call.name, count=count, pattern=pattern),
                            )
                        )
                else:
                    action = Action(self.options.breaker_action if level == "breaker" else self.options.critical_action)
                    message = self.say(action.value, context, tool=call.name, count=count, pattern=pattern)
                    verdict = Verdict(
                        action,
                        f"{detector} ({level}): {excerpt(pattern, 200)}; {action.value}",
                        call_id=call.id,
                        details=details,
                        message=message,
                        refusal=message if action is Action.BLOCK else None,
                    )
                    verdicts.append(verdict)
                    if action.ends_run:
                        break
                    continue  # a refused call never enters the history
            record = _Record(call.name, self.signature(call), call.id)
            self.pending.append((call, record))
            self._remember(record)
        return verdicts

    def _remember(self, record: _Record) -> None:
        self.history.append(record)
        if len(self.history) > self.options.history_size:
            del self.history[: len(self.history) - self.options.history_size]

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        for call, record in self.pending:
            record.outcome = _outcome(call)
            record.unknown_tool = _unknown_tool(call)
            if record.outcome is not None and not any(r is record for r in self.history):
                # Pushed out of the window by the calls after it in the same response: the
                # result enters as a new record, as OpenClaw records an outcome it cannot match.
                self._remember(record)
        self.pending = []
        return []

    def near_miss(self) -> str | None:
        if not self.history:
            return "no call yet"
        counts: dict[str, int] = {}
        for record in self.history:
            counts[record.signature] = counts.get(record.signature, 0) + 1
        signature, count = max(counts.items(), key=lambda item: item[1])
        return f"most repeated call in the last {len(self.history)}: {excerpt(signature, 80)} ({count} times; warning at {self.warning_at})"

    def state(self) -> dict[str, Any]:
        return {
            "history": [
                {"signature": truncated(r.signature), "outcome": None if r.outcome is None else truncated(r.outcome, 80)}
                for r in self.history
            ],
            "warned": dict(self.warned),
        }
