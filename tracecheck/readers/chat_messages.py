"""Chat messages as the OpenAI and LangChain families write them, read the same way by
every reader that meets them: the bare-message shape, LangChain's three serialized
layouts (``parse_message``), an AI message's calls and usage, and a recorded model
input's roles and new user turns."""

from __future__ import annotations

from typing import Any

from ..model import ToolCall
from .common import Counts, Warn, as_dict, as_list, make_usage, new_call, scalar_text

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


# --- LangChain's serialized messages ------------------------------------------------------

# messages_to_dict writes ``message.type``; dumpd writes the class name. Both map here.
_MESSAGE_KINDS = {
    "ai": "ai",
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "human": "human",
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "tool": "tool",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "system": "system",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "function": "function",
    "FunctionMessage": "function",
    "FunctionMessageChunk": "function",
    "chat": "chat",
    "ChatMessage": "chat",
    "ChatMessageChunk": "chat",
    "remove": "remove",
    "RemoveMessage": "remove",
}


def lc_constructor(value: Any) -> tuple[str, dict] | None:
    """(class name, kwargs) of a ``dumpd`` constructor object."""
    if not isinstance(value, dict) or value.get("lc") != 1 or value.get("type") != "constructor":
        return None
    ident, kwargs = value.get("id"), value.get("kwargs")
    if not isinstance(ident, list) or not ident or not isinstance(ident[-1], str):
        return None
    return ident[-1], kwargs if isinstance(kwargs, dict) else {}


def parse_message(value: Any) -> tuple[str, dict] | None:
    """(kind, fields) of one serialized message in any of the three layouts, else None."""
    if not isinstance(value, dict):
        return None
    lc = lc_constructor(value)
    if lc is not None:
        kind = _MESSAGE_KINDS.get(lc[0])
        return (kind, lc[1]) if kind else None
    kind_name = value.get("type")
    kind = _MESSAGE_KINDS.get(kind_name) if isinstance(kind_name, str) else None
    if kind is None:
        return None
    if isinstance(value.get("data"), dict):
        return kind, value["data"]
    # A bare model_dump(): always has content plus the metadata dicts.
    if "content" in value and ("additional_kwargs" in value or "response_metadata" in value):
        return kind, value
    return None


def _raw_usage(raw: dict, warn: Warn | None = None, path: str = "usage"):
    """Usage from a provider's own numbers in ``response_metadata``."""
    counts = Counts(raw, warn, path)
    if "prompt_tokens" in raw or "completion_tokens" in raw:  # OpenAI
        return make_usage(
            counts.get("prompt_tokens"),
            counts.get("completion_tokens"),
            counts.within("prompt_tokens_details").get("cached_tokens"),
            counts.within("completion_tokens_details").get("reasoning_tokens"),
        )
    if "input_tokens" in raw or "output_tokens" in raw:  # Anthropic
        cache_read = counts.get("cache_read_input_tokens")
        cache_write = counts.get("cache_creation_input_tokens")
        prompt = counts.get("input_tokens")
        # Anthropic's input_tokens leaves out cached tokens; the model counts all input.
        if prompt is not None:
            prompt += (cache_read or 0) + (cache_write or 0)
        return make_usage(prompt, counts.get("output_tokens"), cache_read)
    if "inputTokens" in raw or "outputTokens" in raw:  # Bedrock Converse
        return make_usage(counts.get("inputTokens"), counts.get("outputTokens"), counts.get("cacheReadInputTokens"))
    return None


def message_usage(fields: dict, warn: Warn | None = None):
    """A message's usage: ``usage_metadata``, else the provider's numbers in
    ``response_metadata``; counts that are not counts are reported through ``warn``."""
    meta = fields.get("usage_metadata")
    if isinstance(meta, dict):
        counts = Counts(meta, warn, "usage_metadata")
        usage = make_usage(
            counts.get("input_tokens"),
            counts.get("output_tokens"),
            counts.within("input_token_details").get("cache_read"),
            counts.within("output_token_details").get("reasoning"),
        )
        if usage is not None:
            return usage
    response = as_dict(fields.get("response_metadata"))
    for key in ("token_usage", "usage"):
        if isinstance(response.get(key), dict):
            usage = _raw_usage(response[key], warn, f"response_metadata.{key}")
            if usage is not None:
                return usage
    return None


def ai_calls(fields: dict) -> list[ToolCall]:
    """The calls of one AI message. ``tool_calls`` / ``invalid_tool_calls`` are what
    LangChain itself parsed; the raw provider copies (content ``tool_use`` blocks,
    ``additional_kwargs``) repeat them, so they are read only when those are empty."""
    calls: list[ToolCall] = []
    for spec in as_list(fields.get("tool_calls")):
        if isinstance(spec, dict):
            calls.append(new_call(spec.get("id"), spec.get("name"), spec.get("args")))
    for spec in as_list(fields.get("invalid_tool_calls")):
        if not isinstance(spec, dict):
            continue
        args = spec.get("args")
        call = new_call(spec.get("id"), spec.get("name"), args if args is not None else "")
        if call.arguments_error is None:
            error = spec.get("error")
            call.arguments_error = f"invalid tool call: {error}" if error else "invalid tool call"
        calls.append(call)
    if calls:
        return calls
    content = fields.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls.append(new_call(block.get("id"), block.get("name"), block.get("input")))
    if calls:
        return calls
    extra = as_dict(fields.get("additional_kwargs"))
    for spec in as_list(extra.get("tool_calls")):
        if isinstance(spec, dict):
            function = as_dict(spec.get("function"))
            calls.append(new_call(spec.get("id"), function.get("name"), function.get("arguments")))
    if not calls and isinstance(extra.get("function_call"), dict):
        legacy = extra["function_call"]
        calls.append(new_call(None, legacy.get("name"), legacy.get("arguments")))
    return calls


# --- OpenAI chat completions ---------------------------------------------------------------


def chat_usage(value: Any, warn: Warn | None = None, path: str = "usage"):
    """Chat-completion usage (OpenAI, LiteLLM), with the input/output spelling some
    servers use as a fallback."""
    if not isinstance(value, dict):
        return None
    counts = Counts(value, warn, path)
    cached = counts.within("prompt_tokens_details", "input_tokens_details").get("cached_tokens")
    if cached is None:
        cached = counts.get("cache_read_input_tokens")  # Anthropic through LiteLLM
    return make_usage(
        counts.get("prompt_tokens", "input_tokens"),
        counts.get("completion_tokens", "output_tokens"),
        cached,
        counts.within("completion_tokens_details", "output_tokens_details").get("reasoning_tokens"),
    )


# --- user messages in resent histories ------------------------------------------------------


class NewUserMessages:
    """The user messages a model call's input adds, for formats whose every model call
    records the whole history it was sent (LangSmith llm runs, OpenTelemetry inference
    spans, Agents SDK generation spans, Inspect model events).

    What a call answers is the user messages at the end of its input, after the last
    message that is neither the user's nor a system prompt (the agent's earlier reply, a
    tool result). Earlier user messages of that input are history, answered by earlier
    calls or from before the record began. The same messages at the same place in a
    later input (the next call of a turn that got no reply, a retry) are not new.
    """

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: set[tuple[int, tuple[str, ...]]] = set()

    def take(self, messages: list, role_and_text) -> list[str]:
        """The new user texts of one input, in order. ``role_and_text(message)`` gives
        ("user" | "system" | anything else, its text); only the input's tail is read."""
        texts: list[str] = []
        start = len(messages)
        for index in range(len(messages) - 1, -1, -1):
            role, text = role_and_text(messages[index])
            if role == "system":
                continue
            if role != "user":
                break
            texts.append(text)
            start = index
        if not texts:
            return []
        texts.reverse()
        key = (start, tuple(texts))
        if key in self.seen:
            return []
        self.seen.add(key)
        return texts


_USER_ROLES = ("user", "human")
_SYSTEM_ROLES = ("system", "developer")
_TEXT_PARTS = (None, "text", "input_text")


def _said(message: dict, content: Any) -> str:
    """The text of an input message: a string, or the text of its text parts in the
    layouts model calls record (OpenAI/Anthropic ``text``, Responses ``input_text``,
    OpenTelemetry GenAI ``parts`` {type: text, content}, OpenInference ``contents``)."""
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for part in as_list(content) or as_list(message.get("parts")):
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
            text = part.get("text", part.get("content"))
            if isinstance(text, str):
                pieces.append(text)
    for item in as_list(message.get("contents")):  # OpenInference
        text = as_dict(as_dict(item).get("message_content")).get("text")
        if isinstance(text, str):
            pieces.append(text)
    return "\n".join(p for p in pieces if p)


def message_role_and_text(message: Any) -> tuple[str, str]:
    """("user" | "system" | another role, text) of one message of a recorded model input,
    in any layout :func:`_said` reads and LangChain's. A user message that carries tool
    results (Anthropic ``tool_result`` blocks, Inspect's ``tool_call_id``) is a result."""
    parsed = parse_message(message)
    if parsed is not None:
        kind, fields = parsed
        role = scalar_text(fields.get("role")).lower() if kind == "chat" else kind
        message, content = fields, fields.get("content")
    elif isinstance(message, dict):
        role = scalar_text(message.get("role") or message.get("type")).lower()
        content = message.get("content")
    else:
        return "", ""
    if role in _SYSTEM_ROLES:
        return "system", ""
    if role not in _USER_ROLES:
        return role, ""
    if message.get("tool_call_id") or any(isinstance(b, dict) and b.get("type") == "tool_result" for b in as_list(content)):
        return "tool", ""
    return "user", _said(message, content)
