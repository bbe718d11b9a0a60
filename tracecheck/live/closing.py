"""The forced final answer: after a ``stop``, the agent calls the model once more,
without tools, with the guard's closing prompt (seed 000: reuse the max-rounds closing
path). These helpers build that request from the conversation so far; the reply goes to
``Monitor.final``, which records it as the stop's forced answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .monitor import Decision

DEFAULT_CLOSING = "Stop calling tools now. Give your final answer from the information you already have."


def closing_messages(messages: Sequence[Any], decision: Decision | None = None, *, style: str = "openai") -> list[Any]:
    """``messages`` plus the closing prompt as a user message, for a last call to the
    model **without tools** (OpenAI: leave ``tools`` out or pass ``tool_choice="none"``;
    Anthropic: leave ``tools`` out). ``style`` is ``openai`` (content as a string) or
    ``anthropic`` (content as text blocks). The conversation must end with the results of
    the calls that ran (or no pending calls): a dangling tool call is the caller's to
    answer first."""
    prompt = (decision.message if decision is not None and decision.message else None) or DEFAULT_CLOSING
    if style == "openai":
        return [*messages, {"role": "user", "content": prompt}]
    if style == "anthropic":
        return [*messages, {"role": "user", "content": [{"type": "text", "text": prompt}]}]
    raise ValueError(f"style must be openai or anthropic, not {style!r}")
