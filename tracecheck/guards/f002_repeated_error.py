from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from ..text.volatile import normalize_volatile
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

# How much of an error is normalised before it is cut to ``error_chars``: enough that
# the placeholders (which are shorter or longer than what they replace) never change
# which part of the message is compared, and a megabyte result costs no more.
_NORMALISED_PREFIX = 4000


@frozen_dataclass
class F002Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    threshold: int = option(3, "Failures of one tool with the same error in a row that end the run.", minimum=2)
    action: str = option("stop", "What the guard does at the threshold.", choices=("stop", "abort"))
    error_chars: int = option(
        100, "How many characters of the normalised error text are compared (Goose: 100).", minimum=1
    )
    first_line_only: bool = option(False, "Compare only the first non-blank line of the error (then cut to error_chars).")
    compare_error_text: bool = option(
        True, "Whether the error text must repeat; off counts any failure (OpenHands does not compare the text)."
    )
    same_call: bool = option(
        False,
        "Count only failures of the same call (tool + sorted-key JSON arguments), as OpenHands' "
        "repeating_action_error; off counts them whatever the arguments, as Goose REP-002.",
    )
    consecutive: bool = option(
        False,
        "Count only failures with nothing between them: any other call, or a reply, ends the streak, as "
        "OpenHands looks at the last 3 actions and Goose clears its streak on any success; off, each tool "
        "keeps its own streak and other tools' calls leave it alone.",
    )
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS),
        "Regular expressions for a failed result where the format has no error flag "
        "(a JSON object with a non-empty 'error' key always counts).",
    )


_INVALID = Call("run", {"command": "invalid_command"}, "Command not found", error=True)
# The same failing call three times, another tool's call after the first.
_INTERLEAVED = (calls(_INVALID), calls(Call("view", {"path": "a.py"}, "x = 1")), calls(_INVALID), calls(_INVALID), answer())


class RepeatedError(Guard):
    """Stops a run whose tool keeps failing with the same error, whatever the arguments
    (Goose REP-002; OpenHands StuckDetector's repeating action error).

    **What it fires on.** After the tools of a round ran, every call is taken in call
    order. A failed result (``ResultClassifier.is_failure``: the format's error flag, or
    where there is none the ``failure_patterns`` / a JSON ``error`` key, as F001) has an
    error key: its text normalised by ``normalize_volatile`` (shell line counters,
    timestamps, ids, temp paths, PIDs and durations replaced), its first line only with
    ``first_line_only``, cut to ``error_chars`` (100, as Goose keeps the first 100
    characters). Each tool has a streak: a failure with the same key as the tool's
    previous failure adds 1, a different key starts again at 1, a success of that tool
    sets it to 0. Other tools neither add nor reset. When a streak reaches
    ``threshold`` (3) the guard says ``stop`` (or ``abort`` with ``action``) after the
    tools of that round.

    With ``same_call`` the key also holds the call's signature (tool + sorted-key JSON
    arguments), so only the same call failing the same way counts; with
    ``compare_error_text`` off the text is not compared at all. Both together are
    OpenHands' ``repeating_action_error``: the same action answered by an error 3 times,
    whatever the errors say. OpenHands also wants them to be its last 3 actions: with
    ``consecutive`` there is one streak for all tools, so a call of another tool or a
    reply in between ends it.

    **Why it matters.** A model that varies its arguments (``pytset``, ``pytset -x``,
    ``pytset tests/``) while the tool answers with the same error is as stuck as one
    that repeats itself, and R001/R003 cannot see it: the calls all differ. Counters
    that change on every call (``/bin/bash: line 12991:`` then ``line 12992:``) would
    hide the repetition from a plain text comparison; the normalisation removes them.

    **Known misses.** Errors that repeat in meaning but not in text ("file not found:
    a.py", "file not found: b.py" differ in their first 100 characters). Goose denies
    the next call to the tool and lets the model retry after it adapts; replay ends
    the run instead. A call without a recorded result neither counts nor resets.
    """

    code = "F002"
    name = "repeated-error"
    summary = "{action:Verb} when one tool fails {threshold} times in a row with the same error (normalised), whatever the arguments."
    source = "Goose REP-002, OpenHands StuckDetector"
    origin = (
        "Goose's repetition inspector (REP-002, the same error again and again) and the repeating action-error scenario of OpenHands' StuckDetector"
    )
    Options = F002Options
    messages = {
        "stop": Message(
            en="{tool} failed {count} times in a row with the same error: {error}. Trying again will give the same "
            "error. Tools are no longer available: give your final answer from what you have, and say what failed.",
            zh="{tool} 连续 {count} 次返回同样的错误：{error}。再试也是同样的错误。工具已停用，请基于现有信息"
            "给出最终答案，并说明失败的原因。",
            fields=("tool", "count", "error"),
        ),
        "abort": Message(
            en="Tool {tool} failed {count} times in a row with the same error ({error}); the run is terminated.",
            zh="工具 {tool} 连续 {count} 次返回同样的错误（{error}），终止运行。",
            fields=("tool", "count", "error"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "The same error under changing commands stops at the 3rd",
                tuple(
                    calls(Call("run_shell", {"cmd": cmd}, "Error: pytest: No module named pytest", error=True))
                    for cmd in ("pytest", "pytest -x", "pytest tests/", "python -m pytest")
                )
                + (answer(),),
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "Errors differing only in the shell's line counter are the same error",
                tuple(
                    calls(Call("run_shell", {"cmd": "pytset"}, f"/bin/bash: line {n}: pytset: command not found", error=True))
                    for n in (12991, 12992, 12993)
                )
                + (answer(),),
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "A tool that fails, then succeeds after the agent fixes its arguments, never fires",
                (
                    calls(Call("read_file", {"path": "src/mian.py"}, "Error: No such file: src/mian.py", error=True)),
                    calls(Call("read_file", {"path": "src/mian.py"}, "Error: No such file: src/mian.py", error=True)),
                    calls(Call("read_file", {"path": "src/main.py"}, "import sys\n")),
                    calls(Call("read_file", {"path": "src/mian.py"}, "Error: No such file: src/mian.py", error=True)),
                    answer(),
                ),
            ),
            Example(
                "Different errors of one tool restart the count",
                tuple(
                    calls(Call("run_shell", {"cmd": cmd}, err, error=True))
                    for cmd, err in (
                        ("make", "Error: make: *** No rule to make target 'all'"),
                        ("make build", "Error: make: *** No rule to make target 'build'"),
                        ("make test", "Error: make: *** No rule to make target 'test'"),
                    )
                )
                + (answer(),),
            ),
            Example(
                "The abort action, and only the first line compared (Goose REP-002 test: '404 Not Found' x3)",
                tuple(calls(Call("my_tool", {"id": i}, f"404 Not Found\nrequest id {i}", error=True)) for i in range(3))
                + (answer(),),
                options={"action": "abort", "first_line_only": True},
                expect=((3, "after_tools", "abort"),),
            ),
            Example(
                "Goose REP-002 test: error, error, success, error never fires",
                (
                    calls(Call("my_tool", {}, "404 Not Found", error=True)),
                    calls(Call("my_tool", {}, "404 Not Found", error=True)),
                    calls(Call("my_tool", {}, "found it")),
                    calls(Call("my_tool", {}, "404 Not Found", error=True)),
                    answer(),
                ),
            ),
            Example(
                "Goose REP-002 test: errors of tool_a do not count for tool_b",
                (
                    calls(Call("tool_a", {}, "404 Not Found", error=True)),
                    calls(Call("tool_b", {}, "404 Not Found", error=True)),
                    calls(Call("tool_a", {}, "404 Not Found", error=True)),
                    calls(Call("tool_b", {}, "404 Not Found", error=True)),
                    answer(),
                ),
            ),
            Example(
                "OpenHands test_is_stuck_repeating_action_error: the same call, errors whose texts differ, stops at the 3rd",
                tuple(
                    calls(Call("run", {"command": "invalid_command"}, err, error=True))
                    for err in ("Command not found", "Command still not found or another error", "Different error")
                )
                + (answer(),),
                options={"same_call": True, "compare_error_text": False},
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "With consecutive, a call of another tool between the failures ends the streak (OpenHands: the last 3 actions)",
                _INTERLEAVED,
                options={"same_call": True, "compare_error_text": False, "consecutive": True},
            ),
            Example(
                "Without consecutive, the other tool's call between leaves the streak alone",
                _INTERLEAVED,
                options={"same_call": True, "compare_error_text": False},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "With same_call, the same error under changing arguments does not count",
                tuple(
                    calls(Call("run_shell", {"cmd": cmd}, "Error: pytest: No module named pytest", error=True))
                    for cmd in ("pytest", "pytest -x", "pytest tests/")
                )
                + (answer(),),
                options={"same_call": True},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.classifier = ResultClassifier(failure_patterns=self.options.failure_patterns)
        self.last_key: dict[str, str] = {}
        self.streaks: dict[str, int] = {}
        self.last_error: dict[str, str] = {}

    def _error_key(self, call: ToolCall) -> str:
        opts = self.options
        text = ""
        if opts.compare_error_text:
            text = normalize_volatile(call.result.content[:_NORMALISED_PREFIX]).strip()
            if opts.first_line_only:
                text = next((line.strip() for line in text.splitlines() if line.strip()), "")
            text = text[: opts.error_chars]
        if opts.same_call:
            return f"{call_signature(call)}\n{text}"
        return text

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        for call in rnd.tool_calls:
            if call.result is None:
                continue  # nothing came back (cut-off trace): no evidence either way
            # One streak for every tool when only an unbroken run of failures counts.
            streak = "" if opts.consecutive else call.name
            if not self.classifier.is_failure(call.result):
                self.streaks[streak] = 0
                self.last_key.pop(streak, None)
                continue
            key = self._error_key(call)
            if opts.consecutive:
                key = f"{call.name}\n{key}"  # another tool's failure is another action
            count = self.streaks.get(streak, 0) + 1 if self.last_key.get(streak) == key else 1
            self.streaks[streak], self.last_key[streak] = count, key
            self.last_error[call.name] = excerpt(call.result.content)
            if count >= opts.threshold:
                return [
                    Verdict(
                        Action(opts.action),
                        f"{call.name} failed {count} times in a row with the same error: "
                        f"{excerpt(call.result.content)}",
                        call_id=call.id,
                        details={"tool": call.name, "streak": count, "error": truncated(key)},
                        message=self.say(opts.action, context, tool=call.name, count=count, error=excerpt(call.result.content)),
                    )
                ]
        return []

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if self.options.consecutive:
            self.streaks.clear()  # a reply is an action between the failures
            self.last_key.clear()
        return []

    def state(self) -> dict[str, Any]:
        return {
            "streaks": {name: n for name, n in self.streaks.items() if n},
            "last_error": dict(self.last_error),
        }
