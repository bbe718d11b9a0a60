"""Small example runs carried by each guard: they are its tests and its documentation.

An example is a few rounds written compactly, the options to use, and the fires the
guard must produce when it alone replays them (``expect``; empty = must stay quiet).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall, ToolResult, Trace
from ..text.arguments import dump_json, parse_arguments


@frozen_dataclass(slots=True)
class Call:
    name: str
    args: Any = field(default_factory=dict)  # an object, or a raw JSON string as the model wrote it
    result: str = "ok"
    error: bool | None = False
    # How long the call ran: its result starts at the round's ``at`` (0 when untimed) and
    # ends ``seconds`` later; ``None`` leaves the call untimed, as most examples are.
    seconds: float | None = None
    declined: bool = False  # the user declined the call at a permission prompt (the reader's mark)


@frozen_dataclass(slots=True)
class Step:
    """One round: tool calls, or (without calls) a final answer with ``text``. ``user``:
    a user message that arrives before this round and opens a new turn. ``at``: when the
    model's response came in, in seconds on any clock (for guards that read the time);
    ``None`` leaves the round untimed, as most examples are."""

    calls: tuple[Call, ...] = ()
    text: str = ""
    user: str | None = None
    at: float | None = None


@frozen_dataclass(slots=True)
class Example:
    title: str
    steps: tuple[Step, ...]
    expect: tuple[tuple[int, str, str], ...] = ()  # (round, phase, action)
    options: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def trace(self) -> Trace:
        trace = Trace(id=self.title, format="example", file="<example>", metadata=dict(self.metadata))
        for number, step in enumerate(self.steps, 1):
            if step.user is not None:
                trace.add_user_message(step.user)
            # A timed step is a model call of no duration: it starts and ends at ``at``.
            rnd = Round(index=number, text=step.text, started_at=step.at, ended_at=step.at)
            for k, call in enumerate(step.calls, 1):
                raw_args = call.args if isinstance(call.args, str) else dump_json(call.args)
                raw, parsed, error = parse_arguments(raw_args)
                start = (step.at or 0.0) if call.seconds is not None else None
                end = start + call.seconds if start is not None else None
                rnd.tool_calls.append(
                    ToolCall(
                        id=f"call_{number}_{k}",
                        name=call.name,
                        arguments_raw=raw,
                        arguments=parsed,
                        arguments_error=error,
                        result=ToolResult(content=call.result, is_error=call.error, started_at=start, ended_at=end, declined=call.declined),
                    )
                )
            trace.rounds.append(rnd)
        trace.number_turns()
        return trace


class examples_made_when_read:  # noqa: N801 - used as a decorator, named for what it does
    """A guard's ``examples``, made the first time they are read (``Guard.examples`` as a
    tuple, as before): a replay reads none, and building every guard's examples at import
    cost a small replay's start-up more than replaying it."""

    def __init__(self, make: Any) -> None:
        self.make = make
        self.made: tuple[Example, ...] | None = None

    def __get__(self, instance: Any, owner: type) -> tuple[Example, ...]:
        if self.made is None:
            self.made = tuple(self.make())
        return self.made


def calls(*items: Call, text: str = "", user: str | None = None) -> Step:
    return Step(calls=tuple(items), text=text, user=user)


def answer(text: str = "Here is the answer.", user: str | None = None) -> Step:
    return Step(text=text, user=user)


def search(query: str, result: str = "1. result", tool: str = "web_search") -> Step:
    return Step(calls=(Call(tool, {"query": query}, result),))
