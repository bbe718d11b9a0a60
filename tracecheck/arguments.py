"""Tool-call arguments as formats give them: a JSON string, an object, or a JSON
string of a JSON string. Shared by the readers and by guard examples."""

from __future__ import annotations

from typing import Any

import orjson


def dump_json(value: Any) -> str:
    return orjson.dumps(value).decode()


def parse_arguments(value: Any) -> tuple[str, Any, str | None]:
    """(raw string, parsed value, parse error) from arguments as a format gives them.

    Arguments come as a JSON string, an object, or a JSON string of a JSON string
    (seen in OpenAI's own fine-tuning examples): decode twice when the first decode
    yields a string that is itself JSON.
    """
    if value is None:
        return "", None, None
    if not isinstance(value, str):
        return dump_json(value), value, None
    raw = value
    if not raw.strip():
        return raw, {}, None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return raw, None, f"arguments are not valid JSON: {exc}"
    if isinstance(parsed, str):
        inner = parsed.strip()
        if inner[:1] in ("{", "["):
            try:
                parsed = orjson.loads(inner)
            except orjson.JSONDecodeError:
                pass
    return raw, parsed, None
