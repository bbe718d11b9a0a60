"""From what agents hold to the model the guards judge: tool calls in each provider's
shape (OpenAI chat and Responses, Anthropic, LangChain, tuples), their results, usage,
content blocks, and the language of a user's message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model import ToolCall, Usage
from ..text.arguments import dump_json, parse_arguments


def language_of(text: str) -> str | None:
    """``zh`` when at least a third of the letters are CJK, else ``en``; None without letters."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return None
    cjk = sum(1 for ch in letters if "\u4e00" <= ch <= "\u9fff")
    return "zh" if cjk * 3 >= len(letters) else "en"


def parse_usage(usage: Any) -> Usage | None:
    """Usage as providers report it: an object or dict with input/output (OpenAI's
    prompt/completion) tokens, or a Usage."""
    if usage is None or isinstance(usage, Usage):
        return usage
    get = usage.get if isinstance(usage, Mapping) else (lambda key, default=None: getattr(usage, key, default))
    first = lambda *keys: next((get(k) for k in keys if isinstance(get(k), int)), None)  # noqa: E731
    found = Usage(input_tokens=first("input_tokens", "prompt_tokens"), output_tokens=first("output_tokens", "completion_tokens"))
    return None if found.is_empty() else found


def parse_tool_call(spec: Any, round_index: int, position: int) -> ToolCall:
    """A tool call from what agents hold: an OpenAI chat ``tool_calls`` entry, a
    Responses ``function_call`` item, an Anthropic ``tool_use`` block, a LangChain tool
    call ({"name", "args", "id"}), a (name, arguments) or (id, name, arguments) tuple, or
    a ToolCall. Arguments are parsed from the JSON the model wrote, as readers do."""
    if isinstance(spec, ToolCall):
        return spec
    default_id = f"call_{round_index}_{position}"
    if isinstance(spec, tuple):
        if len(spec) == 2:
            call_id, (name, arguments) = default_id, spec
        elif len(spec) == 3:
            call_id, name, arguments = spec
        else:
            raise ValueError(f"a tool call tuple is (name, arguments) or (id, name, arguments), not {len(spec)} items")
    elif isinstance(spec, Mapping) or hasattr(spec, "get") or hasattr(spec, "__dict__"):
        get = spec.get if isinstance(spec, Mapping) else (lambda key, default=None: getattr(spec, key, default))
        function = get("function")
        if function is not None:  # OpenAI chat completions
            fget = function.get if isinstance(function, Mapping) else (lambda key, default=None: getattr(function, key, default))
            name, arguments = fget("name"), fget("arguments")
            call_id = get("id")
        elif get("type") == "tool_use":  # Anthropic
            name, arguments, call_id = get("name"), get("input"), get("id")
        elif get("type") == "function_call":  # OpenAI Responses
            name, arguments, call_id = get("name"), get("arguments"), get("call_id") or get("id")
        else:  # LangChain ToolCall, or a plain {"name", "arguments"}
            name = get("name")
            arguments = get("args") if get("args") is not None else get("arguments")
            call_id = get("id")
    else:
        raise ValueError(f"cannot read a tool call from {type(spec).__name__}")
    if not isinstance(name, str) or not name:
        raise ValueError("a tool call needs a name")
    raw_text = arguments if isinstance(arguments, str) else dump_json(arguments if arguments is not None else {})
    raw, parsed, error = parse_arguments(raw_text)
    return ToolCall(id=str(call_id or default_id), name=name, arguments_raw=raw, arguments=parsed, arguments_error=error)


def parse_results(results: Any, calls: list[ToolCall]) -> list[tuple[str | None, bool | None]]:
    """(content, is_error) per call, in call order, from: a mapping call id -> content, or
    a list of: strings in call order, (id, content[, is_error]) tuples, OpenAI ``tool``
    messages, Anthropic ``tool_result`` blocks, LangChain ToolMessages. A call with no
    result gives (None, None)."""
    by_id: dict[str, tuple[str, bool | None]] = {}
    in_order: list[tuple[str, bool | None]] = []
    if isinstance(results, Mapping):
        by_id = {str(k): (result_text(v), None) for k, v in results.items()}
    else:
        for item in results:
            if isinstance(item, str):
                in_order.append((item, None))
            elif isinstance(item, tuple):
                if len(item) not in (2, 3):
                    raise ValueError(f"a result tuple is (call id, content) or (call id, content, is_error), not {item!r}")
                by_id[str(item[0])] = (result_text(item[1]), item[2] if len(item) > 2 else None)
            else:
                get = item.get if isinstance(item, Mapping) else (lambda key, default=None, _i=item: getattr(_i, key, default))
                call_id = get("tool_call_id") or get("tool_use_id") or get("call_id") or get("id")
                status = get("status")
                is_error = get("is_error") if get("is_error") is not None else (status == "error" if status is not None else None)
                entry = (result_text(get("content") if get("content") is not None else get("output")), is_error)
                if call_id is not None:
                    by_id[str(call_id)] = entry
                else:
                    in_order.append(entry)
    known = {call.id for call in calls}
    strangers = [key for key in by_id if key not in known]
    if strangers:
        # A result the guards would never see is a silent bug in the agent loop: say so.
        raise ValueError(f"results for unknown call id(s) {', '.join(map(repr, strangers))}; this round's calls are {', '.join(map(repr, sorted(known)))}")
    order = iter(in_order)
    return [by_id[call.id] if call.id in by_id else next(order, (None, None)) for call in calls]


def result_text(content: Any) -> str:
    """A tool result's text as the model got it: a string, content blocks (their text;
    other blocks as JSON), or any other value (a dict as JSON)."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):  # content blocks
        parts = []
        for block in content:
            if isinstance(block, Mapping):
                parts.append(str(block.get("text", "")) if block.get("type") in (None, "text") else dump_json(block))
            else:
                parts.append(str(block))
        return "\n".join(parts)
    return dump_json(content) if isinstance(content, (dict, tuple)) else str(content)
