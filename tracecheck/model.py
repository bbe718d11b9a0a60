"""The normalized trace model every reader produces and everything else consumes.

Trace -> rounds -> tool calls -> results. One round is one model response; a round
without tool calls is a final answer. Numbers a format does not carry are ``None``,
never 0, so that "unknown" and "zero" stay apart in every report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("success", "failure", "unknown")


@dataclass(slots=True)
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


@dataclass(slots=True)
class ToolResult:
    """What a tool call returned. ``is_error`` is ``None`` when the format cannot tell."""

    content: str
    is_error: bool | None = None
    started_at: float | None = None
    ended_at: float | None = None
    line: int | None = None

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


@dataclass(slots=True)
class ToolCall:
    """One tool call of a round. Its identity (for loop guards) never includes ``id``."""

    id: str
    name: str
    arguments_raw: str
    arguments: Any = None
    arguments_error: str | None = None
    result: ToolResult | None = None


@dataclass(slots=True)
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

    @property
    def is_final(self) -> bool:
        return not self.tool_calls

    @property
    def seconds(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


@dataclass(slots=True)
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


@dataclass(slots=True)
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
    metadata: dict[str, Any] = field(default_factory=dict)
    usage_total: Usage | None = None  # only where the format gives a run total alone
    error: str | None = None  # how the run ended when it ended without an answer

    @property
    def outcome(self) -> str:
        return self.labels.get("outcome", "unknown")

    @property
    def answered(self) -> bool:
        """Whether the run ended with a final answer (a last round without tool calls)."""
        return self.error is None and bool(self.rounds) and self.rounds[-1].is_final

    def tool_calls(self):
        for rnd in self.rounds:
            yield from rnd.tool_calls
