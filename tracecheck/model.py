"""The normalized trace model every reader produces and everything else consumes.

Trace -> turns -> rounds -> tool calls -> results. A user message opens a turn; the
agent's rounds answer it; a round without tool calls is the agent's reply, which ends
the turn (the last reply of the last turn is the run's final answer). One round is one
model response. Numbers a format does not carry are ``None``, never 0, so that
"unknown" and "zero" stay apart in every report.

Rounds are kept in one list (``Trace.rounds``) with their turn number on each; the user
messages sit beside them (``Trace.user_messages``), each knowing the round it precedes.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .dataclass_lite import mutable_dataclass

# How a run was GRADED: only a grader says (a benchmark's reward or resolved list, a
# scorer, a labels file); how it ended is no verdict (a submitted patch may not work).
OUTCOMES = ("success", "failure", "unknown")

# How a run ENDED, as its recorder says: the agent answered (a last reply with no tool
# calls), submitted its work (SWE-agent's submit), was stopped by a step/cost/context/
# token/time limit, or by an error. ``None`` is unknown (a log cut mid-run, say).
ENDINGS = ("answered", "submitted", "limit", "error")


def graded_outcome(outcome: str | None) -> str:
    """``success`` or ``failure`` as graded; anything else (no label, another value) is
    ``unknown``: the run is ungraded."""
    return outcome if outcome in ("success", "failure") else "unknown"


def place_text(file: str, line: int | None, pointer: str | None = None) -> str:
    """Where something is, one rule for every report: ``file:line`` (``file`` when the
    line is unknown); a trace that is a part of a JSON value adds its path inside it,
    ``file:line#pointer``, and a part of a whole-file document (which starts on line 1)
    is ``file#pointer``: ``results.json#simulations[3]``, ``runs.jsonl:4#[2]``."""
    if pointer:
        return f"{file}#{pointer}" if line in (None, 1) else f"{file}:{line}#{pointer}"
    return f"{file}:{line}" if line else file


@mutable_dataclass(slots=True)
class Usage:
    """Token usage of one model response (or a run total)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None

    @property
    def total(self) -> int | None:
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def is_empty(self) -> bool:
        return all(
            v is None
            for v in (self.input_tokens, self.output_tokens, self.cached_tokens, self.reasoning_tokens)
        )


# weakref_slot: what guards conclude about a result is kept beside it (text.memo.PerObject)
# for as long as the result lives, not in it.
@mutable_dataclass(slots=True, weakref_slot=True)
class ToolResult:
    """What a tool call returned. ``is_error`` is ``None`` when the format cannot tell."""

    content: str
    is_error: bool | None = None
    started_at: float | None = None
    ended_at: float | None = None
    line: int | None = None
    blocked: bool = False  # a guard refused the call in the recorded (live) run: it never ran
    # The user declined the call (a permission prompt, a rejected edit): it never ran, and
    # its content is the user's answer, not the tool's: neither a success nor a failure.
    declined: bool = False

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


@mutable_dataclass(slots=True)
class ToolCall:
    """One tool call of a round. Its identity (for loop guards) never includes ``id``."""

    id: str
    name: str
    arguments_raw: str
    arguments: Any = None
    arguments_error: str | None = None
    result: ToolResult | None = None


@mutable_dataclass(slots=True)
class Round:
    """One model response: its text, its tool calls (0..n, parallel) and its cost."""

    index: int  # 1-based
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    started_at: float | None = None
    ended_at: float | None = None
    finish_reason: str | None = None
    line: int | None = None
    id: str | None = None
    model: str | None = None
    turn: int = 1  # the conversation turn this round answers (see Trace.number_turns)
    # The final answer a guard's stop forced in the recorded (live) run: the reply that
    # stop asked for, not one of the rounds it cut.
    forced: bool = False

    @property
    def is_final(self) -> bool:
        return not self.tool_calls

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


@mutable_dataclass(slots=True)
class UserMessage:
    """What the user said. It opens a turn: the rounds from ``before_round`` on answer it."""

    text: str
    at: float | None = None
    line: int | None = None
    before_round: int = 1  # 1-based index of the first round after it


@mutable_dataclass(slots=True)
class Turn:
    """A user message (``None`` when the format records none) and the rounds answering it."""

    index: int  # 1-based
    user: UserMessage | None
    rounds: list[Round]

    @property
    def reply(self) -> Round | None:
        """The agent's reply that ended the turn: its last round, when it has no tool calls."""
        return self.rounds[-1] if self.rounds and self.rounds[-1].is_final else None


@mutable_dataclass(slots=True)
class Expectation:
    """A regression expectation: guard ``guard`` must (or must not) intervene
    (block, stop, abort or reject; a hint changes nothing).

    ``by_round`` is the latest round at which a required fire may happen; ``None``
    means "anywhere in the trace".
    """

    guard: str
    fires: bool = True
    by_round: int | None = None
    note: str | None = None
    tolerance: int = 0  # rounds a required fire may come after ``by_round``
    line: int | None = None  # where it is written (a native ``expect`` event)


@mutable_dataclass(slots=True)
class Allowance:
    """An inline suppression: guard ``guard`` may act on this trace (at ``round``, or
    anywhere when ``None``), because ``reason``; ``check`` does not fail on it."""

    guard: str
    reason: str
    round: int | None = None
    line: int | None = None


@mutable_dataclass(slots=True)
class Trace:
    """A whole agent run as it was recorded."""

    id: str
    format: str
    file: str
    line: int | None = None  # where the trace starts in ``file``
    end_line: int | None = None
    rounds: list[Round] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    expectations: list[Expectation] = field(default_factory=list)
    allowances: list[Allowance] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    usage_total: Usage | None = None  # only where the format gives a run total alone
    error: str | None = None  # what stopped the run when it ended without an answer
    ending: str | None = None  # one of ENDINGS, or None when the format does not say
    user_messages: list[UserMessage] = field(default_factory=list)
    # Set by a reader whose format gave the trace no id of its own, so that it named the
    # trace by its place (the file, or ``<file>:<line>``): the file name to name it by
    # content under when its file holds several traces. ``readers/identity.py`` settles
    # the id once the file is read and clears this.
    id_base: str | None = None
    # Where the trace is inside the JSON value that starts on ``line``, when it is a part
    # of that value and not all of it: ``simulations[3]`` (the fourth run of a τ²-bench
    # results document), ``[2]`` (the third element of an array), ``samples[0]``. Every
    # trace of a document of many runs then has a place of its own (see ``place``).
    pointer: str | None = None

    @property
    def place(self) -> str:
        """Where the trace is, as every report names it (see ``place_text``)."""
        return place_text(self.file, self.line, self.pointer)

    def add_user_message(self, text: str, at: float | None = None, line: int | None = None) -> None:
        """A user message arriving now, after the rounds read so far. It opens a new turn;
        several user messages with no agent round between them are one turn."""
        before = len(self.rounds) + 1
        last = self.user_messages[-1] if self.user_messages else None
        if last is not None and last.before_round == before:
            last.text = f"{last.text}\n\n{text}" if last.text and text else (last.text or text)
            return
        self.user_messages.append(UserMessage(text=text, at=at, line=line, before_round=before))

    def number_turns(self) -> None:
        """Set each round's turn number from the user messages (readers call this through
        ``finish_trace``). Rounds before the first user message form turn 1."""
        starts = [m.before_round for m in self.user_messages if m.before_round <= len(self.rounds)]
        turn = 1 if not starts or starts[0] > 1 else 0
        position = 0
        for number, rnd in enumerate(self.rounds, 1):
            while position < len(starts) and starts[position] == number:
                turn += 1
                position += 1
            rnd.turn = max(turn, 1)

    def turns(self) -> list[Turn]:
        """The turns with their rounds, in order (a user message no round answers, at the
        very end, is left out: nothing was asked of the agent)."""
        by_start = {m.before_round: m for m in self.user_messages}
        turns: list[Turn] = []
        for rnd in self.rounds:
            if not turns or rnd.turn != turns[-1].index:
                starts_here = by_start.get(rnd.index)
                turns.append(Turn(index=rnd.turn, user=starts_here, rounds=[]))
            turns[-1].rounds.append(rnd)
        return turns

    @property
    def outcome(self) -> str:
        """The grader's verdict (``labels["outcome"]``), else ``unknown``: never guessed
        from how the run ended (see ``ending``)."""
        return self.labels.get("outcome", "unknown")

    @property
    def answered(self) -> bool:
        """Whether the run ended with a final answer (a last round without tool calls)."""
        return self.error is None and bool(self.rounds) and self.rounds[-1].is_final

    def tool_calls(self):
        for rnd in self.rounds:
            yield from rnd.tool_calls
