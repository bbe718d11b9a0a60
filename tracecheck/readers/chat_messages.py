"""Chat messages as the OpenAI and LangChain families write them: shared by the readers
that meet them (roles, content parts, the new user turns of a resent history)."""

from __future__ import annotations

from typing import Any

# What json.dump(messages) writes: bare chat messages, a role and content (or calls),
# with no envelope ("type" would make it a Responses item or an Anthropic response).
_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_ENVELOPE_KEYS = ("type", "messages", "request", "response", "data", "lc")


def is_bare_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in _CHAT_ROLES
        and ("content" in value or "tool_calls" in value)
        and not any(key in value for key in _ENVELOPE_KEYS)
    )


def is_bare_messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_bare_message(v) for v in value)
