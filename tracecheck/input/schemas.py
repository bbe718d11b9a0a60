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
    "description": "Events are grouped into traces by 'trace'; a trace is complete at its 'end' event or at the end of the file. "
    "labels, expect and allow events annotate a run and may come after its 'end' (same 'trace' id): they apply to the ended trace "
    "as long as only 'end' events and annotations lie between. Any other event after 'end', or an annotation after another "
    "trace's trace/user/round/result event, starts a new trace with the same id (with a warning).",
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
            "Labels of the run; several labels events merge; may follow the trace's end",
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
            "A regression expectation: this guard must (or must not) intervene (block, stop, abort or reject; a hint changes nothing), at or before by_round; may follow the trace's end",
            {
                "guard": {"type": "string", "description": "guard code (P001) or name (similar-query-stagnation)"},
                "fires": {"type": "boolean", "default": True},
                "by_round": {"type": ["integer", "null"], "minimum": 1},
                "tolerance": {"type": "integer", "minimum": 0, "default": 0, "description": "rounds a fire may come after by_round"},
                "note": {"type": "string"},
            },
            ["guard"],
        ),
        _event(
            "allow",
            "An accepted finding: this guard (or policy) may act on this trace, at round or anywhere, because reason; check does not fail on it; may follow the trace's end",
            {
                "guard": {"type": "string", "description": "guard code, name, or policy"},
                "round": {"type": ["integer", "null"], "minimum": 1},
                "reason": {"type": "string", "minLength": 1},
            },
            ["guard", "reason"],
        ),
        _event(
            "user",
            "What the user said: it opens a conversation turn, answered by the rounds after it",
            {
                "text": {"type": "string"},
                "at": _TIME,
            },
            ["text"],
        ),
        _event(
            "round",
            "One model response; without tool_calls it is the agent's reply that ends the turn (the last one, the final answer)",
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
                            "input": {
                                "description": "instead of arguments: the plain-text input of a text action (ReAct 'Action Input')",
                                "type": "string",
                            },
                        },
                        "required": ["name"],
                    },
                },
                "usage": _USAGE,
                "started_at": _TIME,
                "ended_at": _TIME,
                "finish_reason": {"type": "string"},
                "forced": {"type": "boolean", "description": "the final answer a guard's stop forced in the recorded (live) run, without tools"},
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
                "blocked": {"type": "boolean", "description": "a guard refused the call in the recorded run: content is what the model got instead"},
                "declined": {"type": "boolean", "description": "the user declined the call (a permission prompt): it never ran, and content is the user's answer, not the tool's"},
            },
            ["call_id"],
        ),
        _event(
            "end",
            "The run is over; error when it ended without an answer; ending: how it ended (not whether it succeeded: that is the outcome label); labels, expect and allow events may still follow",
            {"error": {"type": ["string", "null"]}, "ending": {"enum": ["answered", "submitted", "limit", "error", None]}, "usage": _USAGE},
            [],
        ),
    ],
}


LABELS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tracecheck.dev/schema/labels-v1.json",
    "title": "tracecheck labels file (--labels): outcomes, labels and expectations for traces in any format",
    "type": "object",
    "properties": {
        "version": {"const": 1},
        "traces": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "trace": {"type": ["string", "integer"], "minLength": 1, "description": "the trace id, as reports show it"},
                    "file": {
                        "type": "string",
                        "minLength": 1,
                        "description": "only needed when ids repeat across files: a path ending the trace's file path (whole components)",
                    },
                    "outcome": {"enum": ["success", "failure", "unknown", None], "description": "null: as the trace says"},
                    "kind": {
                        "enum": ["loop", "healthy", "mixed", None],
                        "description": "a hand label for benchmarks: loop (a no-progress stretch to stop, never recovered from), "
                        "healthy (none), mixed (a stall to flag that the run recovers from: a stop there is a false positive)",
                    },
                    "stop_by": {
                        "type": ["integer", "null"],
                        "minimum": 1,
                        "description": "the round (model response) a loop should be stopped by; required for a loop, never for a healthy run; "
                        "on a mixed run, a later terminal loop",
                    },
                    "fire_by": {"type": ["integer", "null"], "minimum": 1, "description": "a mixed run: the round any guard should fire by (a hint is enough)"},
                    "why": {"type": ["string", "null"], "description": "what the labeller saw"},
                    "labels": {
                        "type": "object",
                        "propertyNames": {"not": {"enum": ["outcome", "kind", "stop_by", "fire_by", "why"]}},
                        "additionalProperties": {"type": ["string", "number"]},
                        "description": "free labels; they replace the trace's labels of the same name",
                    },
                    "expect": {
                        "type": "array",
                        "description": "they replace the trace's expectations about the same guard",
                        "items": {
                            "type": "object",
                            "properties": {
                                "guard": {"type": "string", "minLength": 1, "description": "guard code, name, or 'policy'"},
                                "fires": {"type": "boolean", "default": True},
                                "by_round": {"type": ["integer", "null"], "minimum": 1, "description": "only when fires is true"},
                                "note": {"type": ["string", "null"]},
                            },
                            "required": ["guard"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": ["trace"],
                "additionalProperties": False,
                "allOf": [
                    {"if": {"properties": {"kind": {"const": "loop"}}, "required": ["kind"]}, "then": {"required": ["stop_by"], "properties": {"stop_by": {"type": "integer"}}}},
                    {"if": {"properties": {"kind": {"const": "healthy"}}, "required": ["kind"]}, "then": {"properties": {"stop_by": {"type": "null"}}}},
                ],
            },
        },
    },
    "required": ["version", "traces"],
    "additionalProperties": False,
}

