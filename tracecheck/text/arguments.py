"""Tool-call arguments as formats give them: a JSON string, an object, or a JSON
string of a JSON string. Shared by the readers and by guard examples."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson


def dump_json(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text of a value read from JSON. orjson stops at 254 levels of nesting
    and at 64-bit integers, both of which a transcript can exceed; those values are
    written by :func:`_dump_deep` instead, so every value read can be written back."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None).decode()
    except TypeError:  # orjson.JSONEncodeError: too deep, too big, a lone surrogate
        return _dump_deep(value, sort_keys)


def _dump_scalar(value: Any) -> str:
    if isinstance(value, str):
        try:
            return orjson.dumps(value).decode()
        except TypeError:  # a lone surrogate: escape it as \udXXX
            return json.dumps(value)
    if value is None or isinstance(value, bool):
        return orjson.dumps(value).decode()
    if isinstance(value, int):
        return str(value) if abs(value) < 10**4000 else json.dumps(str(value)[:40] + "…")
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    return json.dumps(str(value))


def _dump_deep(value: Any, sort_keys: bool) -> str:
    """JSON text without recursion: an explicit stack of pieces still to write."""
    out: list[str] = []
    stack: list[Any] = [value]
    literal = _Literal
    while stack:
        item = stack.pop()
        if isinstance(item, literal):
            out.append(item)
        elif isinstance(item, dict):
            keys = sorted(item, key=str) if sort_keys else list(item)
            pieces: list[Any] = [literal("{")]
            for k, key in enumerate(keys):
                pieces.append(literal(("," if k else "") + _dump_scalar(str(key)) + ":"))
                pieces.append(item[key])
            pieces.append(literal("}"))
            stack.extend(reversed(pieces))
        elif isinstance(item, (list, tuple)):
            pieces = [literal("[")]
            for k, element in enumerate(item):
                if k:
                    pieces.append(literal(","))
                pieces.append(element)
            pieces.append(literal("]"))
            stack.extend(reversed(pieces))
        else:
            out.append(_dump_scalar(item))
    return "".join(out)


class _Literal(str):
    """Text already in JSON form (punctuation, keys) on :func:`_dump_deep`'s stack."""


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
