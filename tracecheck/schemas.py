"""JSON Schemas that tracecheck publishes (``tracecheck schema NAME``)."""

from __future__ import annotations

from typing import Any

_TIME = {
    "description": "ISO-8601 (naive means UTC) or Unix seconds / milliseconds / microseconds / nanoseconds, chosen by magnitude",
    "type": ["string", "number", "null"],
}
_USAGE = {
    "type": "object",
    "description": "Token usage; leave a field out when it is unknown (never write 0 for unknown)",
    "properties": {
        "input_tokens": {"type": "integer", "minimum": 0, "description": "all prompt tokens, cached ones included"},
        "output_tokens": {"type": "integer", "minimum": 0},
        "cached_tokens": {"type": "integer", "minimum": 0},
        "reasoning_tokens": {"type": "integer", "minimum": 0},
    },
    "additionalProperties": False,
}
_TRACE_ID = {"type": ["string", "integer"], "minLength": 1, "description": "groups events into traces"}


def _event(kind: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": {"type": {"const": kind}, "trace": _TRACE_ID, **properties},
        "required": ["type", "trace", *required],
    }


NATIVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tracecheck.dev/schema/native-event-v1.json",
    "title": "tracecheck native event (one JSON object per line)",
    "oneOf": [
        _event(
            "trace",
            "Optional header of a trace",
            {
                "format_version": {"const": 1},
                "source_format": {"type": "string", "description": "format the trace was converted from"},
                "metadata": {
                    "type": "object",
                    "description": "free-form; guards read required_tools / required_any_of from here",
                },
            },
            [],
        ),
        _event(
            "labels",
            "Labels of the run; several labels events merge",
            {
                "labels": {
                    "type": "object",
                    "properties": {"outcome": {"enum": ["success", "failure", "unknown"]}},
                    "additionalProperties": {"type": "string"},
                }
            },
            ["labels"],
        ),
        _event(
            "expect",
            "A regression expectation: this guard must (or must not) fire, at or before by_round",
            {
                "guard": {"type": "string", "description": "guard code (P001) or name (similar-query-stagnation)"},
                "fires": {"type": "boolean", "default": True},
                "by_round": {"type": ["integer", "null"], "minimum": 1},
                "note": {"type": "string"},
            },
            ["guard"],
        ),
        _event(
            "round",
            "One model response; without tool_calls it is the final answer",
            {
                "round": {"type": "integer", "minimum": 1, "description": "1-based; informative, file order wins"},
                "id": {"type": "string", "description": "provider response id"},
                "model": {"type": "string"},
                "text": {"type": "string"},
                "tool_calls": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "name": {"type": "string"},
                            "arguments": {
                                "description": "raw JSON string as the model wrote it (preferred), or an object",
                                "type": ["string", "object", "array", "null"],
                            },
                        },
                        "required": ["name"],
                    },
                },
                "usage": _USAGE,
                "started_at": _TIME,
                "ended_at": _TIME,
                "finish_reason": {"type": "string"},
            },
            [],
        ),
        _event(
            "result",
            "The result of one tool call, matched by call_id",
            {
                "call_id": {"type": "string"},
                "content": {"description": "text, or any JSON value (stored as its JSON text)"},
                "is_error": {"type": ["boolean", "null"], "description": "null or absent when unknown"},
                "started_at": _TIME,
                "ended_at": _TIME,
            },
            ["call_id"],
        ),
        _event(
            "end",
            "The run is over; error when it ended without an answer",
            {"error": {"type": ["string", "null"]}, "usage": _USAGE},
            [],
        ),
    ],
}

SCHEMAS: dict[str, dict[str, Any]] = {"native": NATIVE_SCHEMA}
