from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .tool_kinds import EDIT_TOOLS, call_kind, matches_any


@frozen_dataclass
class R006Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it: loopagent).")
    write_tools: list[str] = option(
        list(EDIT_TOOLS),
        "Glob patterns (any case) of the tools that write: a call of one of them is a write unless the shared tool "
        "vocabulary calls it a read or bookkeeping (an editor's view subcommand, a to-do list).",
    )


# Calls a write cannot race with: a to-do list, a shell command that can do nothing (``: …``).
_IDLE = ("bookkeeping", "noop")

# Seed 001's LoopAgent tools: explore_code reads, apply_edit writes.
_EXPLORE = Call("explore_code", {"query": "parseConfig"}, "src/config.ts:12 export function parseConfig(")
_EDIT = Call("apply_edit", {"path": "src/config.ts", "patch": "-  strict: false\n+  strict: true"}, "applied 1 hunk")


class ParallelWrite(Guard):
    """Reports a model response whose parallel tool calls include a write beside other
    calls (seed 001, "并发写冲突"). A finding only: it hints, never stops, and saves nothing.

    **What it fires on.** Before the tools of a round run (one round is one model
    response), its calls are sorted into writes and the rest. A call is a **write** when
    its tool's name matches ``write_tools`` (by default the edit / write / replace /
    patch / create / insert / update / apply patterns the guards share) and the shared
    tool vocabulary does not call it a read or bookkeeping (``str_replace_editor`` with
    ``command: view`` reads; ``TodoWrite`` keeps a to-do list). A response holding a
    write and at least one other call (another write, or any call but bookkeeping and a
    shell command that can do nothing, ``: …``) → one ``hint`` for the response, naming
    its first write and the other calls. A write alone in its response (beside a to-do
    list at most), and a response of reads only, are quiet.

    **Why.** Calls of one response are written before any of them ran, and an agent
    loop may run them at the same time. A write run in parallel with other calls can
    race with them: two writes to one file conflict, and a read beside a write may see
    the file before or after it. LoopAgent (reactAgentRunner.ts:310-327) merges only
    consecutive concurrency-safe calls into one parallel batch; a call that writes
    (``apply_edit``) gets a batch of its own and runs alone. The finding says where a
    loop without that batching would have run a write beside other calls.

    **What the recorded run did.** Where the trace times its tool results (start and
    end), the reason says whether the write's run overlapped another call's
    (``details.overlapped``: true / false; absent when untimed): many agents
    (Claude Code, LoopAgent) already run a write alone, and then the finding is about
    what the response asked for, not about a race that happened.

    **Savings.** None: a hint changes nothing in the counterfactual, so no rounds,
    tokens or time are counted as saved for it.

    **Known misses.** Writes through a shell (``sed -i``, ``echo >>`` in a ``bash``
    call) are not known to be writes unless ``write_tools`` names the shell tool (and
    then a shell command the vocabulary knows to be a read, ``ls``, ``grep``, is not).
    A reader that cannot tell parallel calls from consecutive ones puts them in one
    round as it finds them: OpenAI Responses' consecutive hosted calls, Codex CLI's
    exec stream (a call joins the round while another of its calls still runs); a
    reader that keeps one call per round (ReAct text, SWE-agent) never shows a
    parallel response.
    """

    code = "R006"
    name = "parallel-write"
    summary = "Hint (report only) a model response whose parallel tool calls include a write (edit, write, apply) beside other calls."
    source = "seed 001"
    origin = (
        "seed article 001, 《让 Agent 不翻车的工程护栏》: LoopAgent's batching against 并发写冲突 (parallel write conflicts), "
        "a call that writes runs in a batch of its own"
    )
    Options = R006Options
    messages = {
        "hint": Message(
            en="{tool} was asked for in the same response as {count} other call(s) ({others}). A write run in parallel "
            "with other calls can race with them: issue a write in a response of its own, after the reads it depends on.",
            zh="{tool} 与其他 {count} 个调用（{others}）在同一次响应中发出。写操作与其他调用并行执行可能相互冲突："
            "请把写操作单独放在一次响应中，并在它依赖的读取之后发出。",
            fields=("tool", "count", "others"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Seed 001: explore_code and apply_edit in one response: the write would run beside the read",
                (calls(_EXPLORE, _EDIT), answer()),
                options={"enabled": True},
                expect=((1, "before_tools", "hint"),),
            ),
            Example(
                "Reads in parallel, then the write alone: LoopAgent's batching, quiet",
                (calls(_EXPLORE, Call("explore_code", {"query": "loadConfig"}, "src/load.ts:3")), calls(_EDIT), answer()),
                options={"enabled": True},
            ),
            Example(
                "Two writes in one response conflict too",
                (calls(_EDIT, Call("write_file", {"path": "src/config.test.ts", "content": "test('strict')"}, "written")), answer()),
                options={"enabled": True},
                expect=((1, "before_tools", "hint"),),
            ),
            Example(
                "An editor's view beside a read is not a write, and a to-do list beside a write is bookkeeping",
                (
                    calls(Call("str_replace_editor", {"command": "view", "path": "a.py"}, "1 import os"), Call("grep", {"pattern": "os"}, "a.py:1")),
                    calls(Call("TodoWrite", {"todos": []}, "ok"), Call("Edit", {"file_path": "a.py", "old_string": "os", "new_string": "sys"}, "ok")),
                    answer(),
                ),
                options={"enabled": True},
            ),
            Example(
                "write_tools set to the shell: a command beside an edit counts, grep reads",
                (
                    calls(Call("bash", {"command": "grep -n os a.py"}, "1:import os"), Call("read_file", {"path": "a.py"}, "import os")),
                    calls(Call("bash", {"command": "sed -i s/os/sys/ a.py"}, ""), Call("read_file", {"path": "a.py"}, "import os")),
                    answer(),
                ),
                options={"enabled": True, "write_tools": ["bash"]},
                expect=((2, "before_tools", "hint"),),
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.findings = 0
        self.last: int | None = None

    def _writes(self, call: ToolCall) -> bool:
        return matches_any(call.name, self.options.write_tools) and call_kind(call) not in ("read", "bookkeeping", "noop")

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        writes = [call for call in rnd.tool_calls if self._writes(call)]
        if not writes:
            return []
        first = writes[0]
        written = {id(call) for call in writes}
        others = [call for call in rnd.tool_calls if call is not first and (id(call) in written or call_kind(call) not in _IDLE)]
        if not others:
            return []
        self.findings += 1
        self.last = rnd.index
        names = ", ".join(call.name for call in others)
        details: dict[str, Any] = {"write": first.name, "writes": len(writes), "others": len(others), "calls": len(rnd.tool_calls)}
        overlapped = _overlapped(first, others)
        reason = (
            f"round {rnd.index}'s response asks for {first.name} beside {len(others)} other call{'s' if len(others) != 1 else ''} "
            f"({names}): run in parallel a write can race with them; LoopAgent would run it in a batch of its own"
        )
        if overlapped is not None:
            details["overlapped"] = overlapped
            reason += "; in the recorded run it " + ("overlapped another call" if overlapped else "ran apart from the others")
        message = self.say("hint", context, tool=first.name, count=len(others), others=names)
        return [Verdict(Action.HINT, reason, call_id=first.id, details=details, message=message)]

    def near_miss(self) -> str | None:
        return "no response asked for a write beside other calls" if not self.findings else None

    def state(self) -> dict[str, Any]:
        return {"findings": self.findings, "last_round": self.last}


def _overlapped(write: ToolCall, others: list[ToolCall]) -> bool | None:
    """Whether the write's recorded run overlapped another call's; None unless the write
    and every other call are timed (start and end)."""
    spans = []
    for call in (write, *others):
        result = call.result
        if result is None or result.started_at is None or result.ended_at is None:
            return None
        spans.append((result.started_at, result.ended_at))
    start, end = spans[0]
    return any(s < end and start < e for s, e in spans[1:])
