from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import call_signature, excerpt, truncated
from .tool_kinds import call_kind


@frozen_dataclass
class R005Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    threshold: int = option(3, "Identical changes in a row at which the guard acts, before the last one is applied.", minimum=2)
    action: str = option(
        "stop",
        "stop: the turn ends with a forced answer before the change is applied again; block: that call is answered "
        "by the guard's message and the run goes on.",
        choices=("stop", "block"),
    )


_EDIT = "edit 1:1\nimport os\nimport sys\nend_of_edit"


def _edit(k: int) -> Call:
    # SWE-agent's edit echoes the file after each application: it grows every time.
    lines = "\n".join(f"{i}:import os" if i % 2 else f"{i}:import sys" for i in range(1, 2 * k + 3))
    return Call("edit", _EDIT, f"[File: /repo/app.py ({2 * k + 2} lines total)]\n{lines}\nFile updated.")


class ReappliedChange(Guard):
    """Stops an agent that makes the identical change again and again: the same edit, the
    same ``str_replace``, the same file written with the same content.

    **What it fires on.** Calls are taken in order across rounds (a reply without calls
    does not break the sequence). A call that changes something (``tool_kinds.call_kind``
    says ``write``: tools named like ``*edit*``, ``*write*``, ``*replace*``, ``*create*``,
    ``*insert*``, ``*patch*``, ``*apply*``, ``*update*``, and editor tools whose
    ``command`` is ``create``, ``str_replace``, ``insert``; not their ``view``) with the
    same signature as the call before (tool + arguments) extends the streak; any other call ends it;
    bookkeeping (a to-do list) is ignored. Before the ``threshold``-th (3rd) identical
    change runs → ``stop`` (or ``block`` it).

    **Why results are not compared.** Re-applying an edit changes its result every time
    (SWE-agent's ``edit 1:1`` re-inserts its lines and echoes a longer file), so "same
    call, same result" (P004) never holds. But an identical change made a third time is
    never progress: it either does nothing or does the same damage again. Repeating an
    identical *read* whose answer changes is polling, and is left to P004.

    **What it spares.** Polls: a call that sends nothing to a running process, waits or
    reads its output (Codex CLI's ``write_stdin`` with empty ``chars``, named like a
    write) changes no file, so it is never a change. Fix-and-retest (the edits differ), one change followed by a check
    and the same change again after a revert (another call between), an identical write
    made twice.

    **Known misses.** Identical changes made through a shell (``sed -i``, ``echo >>``): a
    shell command is not known to be a change. Changes that alternate (A, B, A, B) are R003's.
    """

    code = "R005"
    name = "reapplied-change"
    summary = "{action:Verb} before the {threshold:nth} identical change in a row (edit, write, replace) is applied, whatever its results."
    source = "tracecheck (SWE-agent and Claude Code runs that re-apply one edit 20-30 times)"
    origin = "tracecheck, from real coding-agent runs that send the identical edit over and over while each application changes the file"
    Options = R005Options
    messages = {
        "stop": Message(
            en="{tool} was called {count} times in a row with the identical change; applying it again is not progress. "
            "Tools are no longer available: give your final answer from what you have.",
            zh="{tool} 已连续 {count} 次以完全相同的修改调用；再次应用不会带来进展。工具已停用，请基于现有信息给出最终答案。",
            fields=("tool", "count"),
        ),
        "block": Message(
            en="Not run: {tool} was already called {count} times in a row with this identical change. Look at the file "
            "as it is now and decide what still needs changing.",
            zh="未执行：{tool} 已连续 {count} 次以完全相同的修改调用。请查看文件当前的内容，再决定还需要修改什么。",
            fields=("tool", "count"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "SWE-agent's identical edit re-applied: each result differs, the 3rd application is stopped",
                tuple(calls(_edit(k)) for k in range(5)) + (answer(),),
                options={"enabled": True},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "Claude Code writing the same content three times",
                tuple(calls(Call("Write", {"file_path": "/app/run.sh", "content": "#!/bin/sh\nmake\n"}, "File created successfully at: /app/run.sh")) for _ in range(3))
                + (answer(),),
                options={"enabled": True},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "Fix-and-retest: different edits with a test run between never fire",
                tuple(
                    step
                    for k in range(4)
                    for step in (
                        calls(Call("str_replace_editor", {"command": "str_replace", "path": "a.py", "old_str": f"n = {k}", "new_str": f"n = {k + 1}"}, "edited")),
                        calls(Call("bash", {"command": "python reproduce.py"}, f"got {k}")),
                    )
                )
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "Viewing the same file again and again is a read, never a change",
                tuple(calls(Call("str_replace_editor", {"command": "view", "path": "a.py"}, f"line {k}")) for k in range(4)) + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "The same edit with a check between each application is not a streak",
                tuple(step for _ in range(3) for step in (calls(_edit(1)), calls(Call("bash", {"command": "git diff"}, "diff")))) + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "A poll is not a change: Codex's write_stdin with nothing to send, three times while a build runs",
                tuple(calls(Call("write_stdin", {"session_id": 3, "chars": ""}, f"Process running with session ID 3\nOutput:\nStep {k}/9")) for k in range(4)) + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "block answers the 3rd identical change and lets the run go on",
                tuple(calls(_edit(k)) for k in range(3)) + (answer(),),
                options={"enabled": True, "action": "block"},
                expect=((3, "before_tools", "block"),),
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.signature: str | None = None
        self.streak = 0
        self.tool = ""

    def _advance(self, call: ToolCall) -> bool:
        """Take one call into the streak; whether it is an identical change."""
        kind = call_kind(call)
        if kind == "bookkeeping":
            return False
        if kind != "write":
            self.signature, self.streak = None, 0
            return False
        signature = call_signature(call)
        if signature == self.signature:
            self.streak += 1
        else:
            self.signature, self.streak, self.tool = signature, 1, call.name
        return True

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        verdicts = []
        for call in rnd.tool_calls:
            if not self._advance(call) or self.streak < opts.threshold:
                continue
            action = Action(opts.action)
            reason = f"{call.name} called {self.streak} times in a row with the identical change {excerpt(self.signature or '', 100)}"
            verdicts.append(
                Verdict(
                    action,
                    reason,
                    call_id=call.id,
                    details={"signature": truncated(self.signature or ""), "streak": self.streak},
                    refusal=reason if action is Action.BLOCK else None,
                    message=self.say(action.value, context, tool=call.name, count=self.streak),
                )
            )
            if action.ends_run:
                break
        return verdicts

    def near_miss(self) -> str | None:
        if not self.streak:
            return "no change repeated yet"
        return f"{self.streak} identical change{'s' if self.streak != 1 else ''} in a row ({self.tool}), of the {self.options.threshold} that stop"

    def state(self) -> dict[str, Any]:
        return {"streak": self.streak, "signature": truncated(self.signature) if self.signature else None}
