from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import TracecheckError
from ..model import Round, ToolCall
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import call_signature, canonical_json, excerpt, truncated
from .tool_kinds import matches_any


@frozen_dataclass
class R004Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    observe_at: int = option(
        2, "Streak (rounds) at which a hint is injected; the call still runs (0 = off).", minimum=0
    )
    block_at: int = option(
        3, "Streak at which the call is not run and a synthetic error returns instead (0 = off).", minimum=0
    )
    stop_at: int = option(6, "Streak at which the run stops before the round's tools run (0 = off).", minimum=0)
    key_fields: list[str] = option(
        [],
        "Per-tool identity as TOOL.FIELD entries (e.g. bash.command, bash.cwd): a tool named here is compared "
        "on those argument fields only; other tools on all their arguments.",
    )
    exempt_tools: list[str] = option(
        [], "Tools never counted (glob patterns, case-insensitive), e.g. pollers such as get_*_status."
    )


# What each rung does, after the reason's "<call> in N consecutive rounds of <tool>".
_CONSEQUENCE = {
    Action.HINT: "; hint: the same call will give the same result, change the approach",
    Action.BLOCK: "; the call is not run",
    Action.STOP: "; stopped before the tools run",
}


def _key_fields(entries: list[str]) -> dict[str, tuple[str, ...]]:
    fields: dict[str, list[str]] = {}
    for entry in entries:
        # The last dot splits, so a tool named "server.search" can still list its fields.
        tool, dot, name = entry.rpartition(".")
        if not dot or not tool or not name:
            # A config or --set mistake: a usage error naming the entry, not a crash.
            raise TracecheckError(f"R004.key_fields: {entry!r} is not TOOL.FIELD (e.g. bash.command)")
        fields.setdefault(tool, []).append(name)
    return {tool: tuple(names) for tool, names in fields.items()}


class PerToolStreak(Guard):
    """Hints, then blocks, then stops as the same call comes back round after round,
    counted per tool so that calls to other tools in between do not hide it
    (OpenRouter's DoomLoopMonitor).

    **What it fires on.** A call's fingerprint is its tool name + the sorted-key JSON of
    its arguments (never the call id); with ``key_fields`` a tool is compared on the
    listed argument fields only (OpenRouter's ``loopKey`` projection: ``bash.command``,
    ``bash.cwd`` makes a changed ``description`` the same call and a changed ``cwd`` a
    different one). The unit of evidence is the **round** (one model response): a model
    re-issuing a call after it saw the result. Before a round's tools run, for every
    tool the round calls, the guard takes the *set* of that tool's fingerprints in the
    round (identical calls fanned out in one round count once) and gives each
    fingerprint a streak:

    - previous streak + 1 if the fingerprint was also in the set of the **last round
      that called this tool**, else 1;
    - the tool's fingerprints that are missing from this round are forgotten.

    **Counting rule.** Rounds that do not call the tool at all leave its streaks as they
    are, so ``search(x), read_file(/a), search(x), read_file(/b), search(x)`` is a
    streak of 3 at round 5. A round that calls the same tool with *other* arguments
    only resets the fingerprints it lacks: ``search(x)`` then ``search(y)`` restarts
    ``x`` (pagination, refining a query), while ``[read(a), read(b)]`` then
    ``[read(a), read(c)]`` keeps ``a`` climbing inside varying company. Because the
    streak of each fingerprint is counted separately, a whole fan-out repeated verbatim
    climbs together, and a repeated fan-out with one call added still flags the
    repeated calls and lets the new one run.

    **Ladder.** Each call's action is the strongest rung its streak reached (``>=``;
    0 switches a rung off): ``observe_at`` (2) → ``hint``, once per tool and round, the
    calls still run; ``block_at`` (3) → ``block`` of every such call, duplicates
    included, with a synthetic error as its result (``details["result"]``);
    ``stop_at`` (6) → ``stop`` before the round's tools run (one verdict, on the first
    such call). Blocked calls keep counting: re-issuing a refused call is more evidence
    of a loop, not progress.

    **Why it matters.** A model stuck on one call often interleaves it with others
    (search, read a file, search the same thing, read another file): consecutive-call
    detectors (R001) reset on every interleaved call, and a fan-out of the same three
    reads reissued every round has a different *last* call each time. Per-tool,
    per-fingerprint streaks see both, while the grace of one repeat and the block
    before the stop leave the model room to recover.

    **Known misses.** Arguments are compared exactly: a nonce, timestamp or page counter
    in the arguments evades it unless ``key_fields`` leaves that field out. Results are
    not compared, so a poll whose answer changes is blocked at the 3rd identical round
    unless the tool is in ``exempt_tools``. An anchor file re-read every round while new
    files are explored is blocked at round 3 (OpenRouter's documented false positive;
    exempt the tool). OpenRouter's text detectors (a token block repeating at the tail of
    one response, identical assistant text across steps) are not part of this guard.
    """

    code = "R004"
    name = "per-tool-streak"
    summary = "Per tool, the same call in consecutive rounds of that tool: hint at {observe_at}, block at {block_at}, stop at {stop_at}."
    source = "OpenRouter @openrouter/agent DoomLoopMonitor"
    origin = "OpenRouter's agent SDK, its DoomLoopMonitor: the same call back round after round, counted per tool, hinted, then blocked, then stopped"
    Options = R004Options
    messages = {
        "hint": Message(
            en="You have called {tool} with these same arguments in {count} consecutive rounds; the same call will "
            "give the same result. Change your approach, or give the final answer if you have what you need.",
            zh="你已在连续 {count} 轮中用相同参数调用 {tool}，同样的调用只会得到同样的结果。请换一种做法；"
            "如果信息已经足够，请给出最终答案。",
            fields=("tool", "count"),
            when="injected as guidance, once per tool and round; the calls still run",
        ),
        "block": Message(
            en="Error: not run. {tool} was called with these same arguments in {count} consecutive rounds and the "
            "result will not change. Try a different approach, or explain why the repetition is needed.",
            zh="错误：未执行。{tool} 已在连续 {count} 轮中用相同参数调用，结果不会改变。请换一种做法，"
            "或说明为什么需要重复调用。",
            fields=("tool", "count"),
        ),
        "stop": Message(
            en="You have called {tool} with the same arguments in {count} consecutive rounds without getting "
            "anywhere. Tools are no longer available: give your final answer from what you have.",
            zh="你已在连续 {count} 轮中用相同参数调用 {tool}，没有任何进展。工具已停用，请基于现有信息给出最终答案。",
            fields=("tool", "count"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "The same search every round: hint at 2, block at 3 to 5, stop before the 6th runs",
                tuple(calls(Call("search", {"q": "x"}, "no results")) for _ in range(7)) + (answer(),),
                expect=(
                    (2, "before_tools", "hint"),
                    (3, "before_tools", "block"),
                    (4, "before_tools", "block"),
                    (5, "before_tools", "block"),
                    (6, "before_tools", "stop"),
                ),
            ),
            Example(
                "Pagination (same tool, different arguments) never fires",
                tuple(calls(Call("list_orders", {"page": page, "size": 50})) for page in range(1, 8)) + (answer(),),
            ),
            Example(
                "The same tool with other arguments in between restarts the streak: search(x), search(y) alternating "
                "never fires",
                tuple(calls(Call("search", {"q": "xy"[i % 2]})) for i in range(6)) + (answer(),),
            ),
            Example(
                "Calls to another tool in between do not reset the streak: search(x) is blocked at its 3rd round",
                (
                    calls(Call("search", {"q": "x"})),
                    calls(Call("read_file", {"path": "/a"})),
                    calls(Call("search", {"q": "x"})),
                    calls(Call("read_file", {"path": "/b"})),
                    calls(Call("search", {"q": "x"})),
                    answer(),
                ),
                expect=((3, "before_tools", "hint"), (5, "before_tools", "block")),
            ),
            Example(
                "Six identical calls fanned out in one round are one piece of evidence; all six are blocked in round 3",
                tuple(calls(*(Call("search", {"q": "parallel"}) for _ in range(6))) for _ in range(3)) + (answer(),),
                expect=((2, "before_tools", "hint"),) + tuple((3, "before_tools", "block") for _ in range(6)),
            ),
            Example(
                "A fan-out that adds a new read each round: the repeated reads climb, the new one runs",
                (
                    calls(Call("read", {"path": "a"})),
                    calls(Call("read", {"path": "a"}), Call("read", {"path": "b"})),
                    calls(Call("read", {"path": "a"}), Call("read", {"path": "b"}), Call("read", {"path": "c"})),
                    answer(),
                ),
                # Round 3: a (3rd round) is blocked, b (2nd) earns the round's hint, c runs.
                expect=((2, "before_tools", "hint"), (3, "before_tools", "block"), (3, "before_tools", "hint")),
            ),
            Example(
                "An exempt poller is never counted",
                tuple(calls(Call("get_job_status", {"job": "j1"}, '{"status": "running"}')) for _ in range(6)) + (answer(),),
                options={"exempt_tools": ["get_*_status"]},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.fields = _key_fields(self.options.key_fields)
        # tool -> {fingerprint: streak} for the fingerprints of the last round that called it.
        self.streaks: dict[str, dict[str, int]] = {}

    def fingerprint(self, call: ToolCall) -> str:
        fields = self.fields.get(call.name)
        if fields is not None and isinstance(call.arguments, dict) and call.arguments_error is None:
            # A field the call lacks is left out, as an absent key (OpenRouter's field-list loopKey).
            subset = {name: call.arguments[name] for name in fields if name in call.arguments}
            return f"{call.name}:{canonical_json(subset)}"
        return call_signature(call)

    def _rung(self, streak: int) -> Action | None:
        opts = self.options
        rungs = ((opts.stop_at, Action.STOP), (opts.block_at, Action.BLOCK), (opts.observe_at, Action.HINT))
        for threshold, action in rungs:  # strongest first: the strongest rung reached wins
            if threshold and streak >= threshold:
                return action
        return None

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        exempt = self.options.exempt_tools
        counted = [(call, self.fingerprint(call)) for call in rnd.tool_calls if not matches_any(call.name, exempt)]
        rounds: dict[str, set[str]] = {}
        for call, fingerprint in counted:
            rounds.setdefault(call.name, set()).add(fingerprint)
        for tool, fingerprints in rounds.items():
            previous = self.streaks.get(tool, {})
            self.streaks[tool] = {f: previous.get(f, 0) + 1 for f in fingerprints}

        verdicts: list[Verdict] = []
        hints: dict[str, Verdict] = {}
        for call, fingerprint in counted:
            streak = self.streaks[call.name][fingerprint]
            action = self._rung(streak)
            if action is None:
                continue
            if action is Action.HINT and call.name in hints:
                # One hint per tool and round (the guidance is the same); it names every repeated call.
                repeated = hints[call.name].details["fingerprints"]
                if truncated(fingerprint) not in repeated:
                    repeated.append(truncated(fingerprint))
                continue
            seen = f"{excerpt(fingerprint, 120)} in {streak} consecutive rounds of {call.name}"
            verdict = Verdict(
                action,
                seen + _CONSEQUENCE[action],
                call_id=call.id,
                details={"tool": call.name, "fingerprints": [truncated(fingerprint)], "streak": streak},
                message=self.say(action.value, context, tool=call.name, count=streak),
            )
            if action is Action.STOP:
                return [verdict]
            if action is Action.HINT:
                hints[call.name] = verdict
            else:
                # The refusal text goes in details, not in ``replacement``: replay takes a
                # replacement for a cached answer and would call every refusal stale data.
                verdict.details["result"] = (
                    f"Error: not run. {call.name} was called with these same arguments in {streak} consecutive "
                    "rounds and the result will not change. Try a different approach, or explain why the "
                    "repetition is needed."
                )
            verdicts.append(verdict)
        return verdicts

    def state(self) -> dict[str, Any]:
        return {tool: {truncated(f): n for f, n in sorted(streaks.items())} for tool, streaks in self.streaks.items()}
