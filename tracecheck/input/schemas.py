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

SCHEMAS: dict[str, dict[str, Any]] = {"native": NATIVE_SCHEMA}

_SAVED = {
    "type": "object",
    "properties": {
        "llm_calls": {"type": "integer", "description": "model calls saved, less one forced answer for a stop; negative: a cost"},
        "tool_calls": {"type": "integer"},
        "tokens": {"type": "integer"},
        "tokens_estimated": {"type": "boolean", "description": "some saved rounds had no measured usage"},
        "seconds": {"type": ["number", "null"], "description": "null when the trace has no timestamps"},
        "forced_answer_tokens": {"type": ["integer", "null"], "description": "estimated cost of the forced answer"},
    },
    "required": ["llm_calls", "tool_calls", "tokens", "tokens_estimated", "seconds"],
}
_NEW_INFORMATION = {
    "type": "object",
    "description": "for stop/abort: the first cut round of the recorded run that brought new information (a likely harm)",
    "properties": {"round": {"type": "integer"}, "what": {"type": "string"}},
    "required": ["round", "what"],
}
_FIRE = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": "^[A-Z][0-9]{3}$"},
        "name": {"type": "string"},
        "round": {"type": "integer", "minimum": 1},
        "turn": {"type": "integer", "minimum": 1, "description": "conversation turn of the round"},
        "phase": {"enum": ["before_tools", "after_tools", "final"]},
        "action": {"enum": ["hint", "block", "stop", "abort", "reject"]},
        "reason": {"type": "string"},
        "line": {"type": ["integer", "null"], "description": "input line of the round"},
        "call_id": {"type": ["string", "null"]},
        "details": {"type": "object"},
        "message": {"type": ["string", "null"], "description": "what a live agent would have told the model (hint, synthetic result, closing prompt)"},
        "saved": {"oneOf": [{"type": "null"}, _SAVED], "description": "for stop/abort: what this guard alone saves"},
        "stale": {"type": ["boolean", "null"], "description": "for a block: its answer differs from the recorded result (not a saving)"},
        "new_information": {"oneOf": [{"type": "null"}, _NEW_INFORMATION]},
    },
    "required": ["code", "name", "round", "phase", "action", "reason"],
}
_POLICY = {
    "type": "object",
    "properties": {
        "stops": {
            "type": "array",
            "description": "where the enabled guards together end a turn (stop) or the run (abort): at most one per turn",
            "items": {
                "type": "object",
                "properties": {
                    "turn": {"type": "integer"},
                    "round": {"type": "integer"},
                    "phase": {"enum": ["before_tools", "after_tools", "final"]},
                    "code": {"type": "string"},
                    "action": {"enum": ["stop", "abort"]},
                    "saved": _SAVED,
                    "new_information": {"oneOf": [{"type": "null"}, _NEW_INFORMATION]},
                    "already_stopped": {"type": "boolean", "description": "the recorded (live) run was stopped here too: the round after is its forced answer, nothing more is saved"},
                },
                "required": ["turn", "round", "phase", "code", "action", "saved"],
            },
        },
        "stale_blocks": {"type": "integer", "description": "blocks that would have hidden a changed result: a stale cached answer, or a refused call whose recorded result differs from its last run (not counted as saved)"},
        "later_turns_as_recorded": {"type": "boolean", "description": "a stop ends its turn; later turns are assumed to happen as recorded"},
        "possible_harm": {"type": ["string", "null"], "description": "set when the policy cuts a run labelled a success"},
        "stopped_at": {"type": ["integer", "null"], "description": "round of the first stop"},
        "phase": {"enum": ["before_tools", "after_tools", "final", None]},
        "code": {"type": ["string", "null"]},
        "action": {"enum": ["stop", "abort", None]},
        "saved": _SAVED,
        "blocked_calls": {"type": "integer", "minimum": 0},
        "blocked_seconds": {"type": ["number", "null"]},
        "outcome_change": {"type": ["string", "null"]},
    },
    "required": ["stopped_at", "action", "saved"],
}
_TIMELINE_CALL = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "args": {"type": "string", "description": "the arguments as recorded, cut to an excerpt"},
        "args_chars": {"type": ["integer", "null"], "description": "the arguments' whole length, when the excerpt leaves some out"},
        "result": {"type": ["string", "null"], "description": "an excerpt of the result; null: no result recorded"},
        "result_chars": {"type": ["integer", "null"]},
        "error": {"type": ["boolean", "null"], "description": "the result is an error (null: not known)"},
        "blocked": {"type": "boolean"},
        "seconds": {"type": ["number", "null"]},
    },
    "required": ["id", "name", "args", "result", "error"],
}
_TIMELINE = {
    "type": "object",
    "description": (
        "tracecheck show --format json (and the HTML report): the trace round by round, as show prints it; "
        "a trace of more than 200 rounds keeps its start, its end and the rounds around its fires, a gap row "
        "standing for the rounds left out. Where guards fired is in fires (by round)."
    ),
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "round": {"type": "integer"},
                            "turn": {"type": "integer"},
                            "user": {"type": ["string", "null"], "description": "the user's message before the round"},
                            "text": {"type": "string", "description": "the model's text"},
                            "final": {"type": "boolean"},
                            "input_tokens": {"type": "integer"},
                            "output_tokens": {"type": "integer"},
                            "basis": {"type": "string", "description": "how the tokens are known (measured, estimated, apportioned)"},
                            "llm_seconds": {"type": ["number", "null"]},
                            "tool_seconds": {"type": ["number", "null"]},
                            "calls": {"type": "array", "items": _TIMELINE_CALL},
                            "more_calls": {"type": "integer", "description": "calls of the round not listed (a fan-out keeps its first 12)"},
                        },
                        "required": ["round", "turn", "text", "final", "calls"],
                    },
                    {"type": "object", "properties": {"gap": {"type": "integer"}}, "required": ["gap"]},
                ]
            },
        },
        "user_after": {"type": "array", "items": {"type": "string"}, "description": "user messages after the last round"},
    },
    "required": ["rows", "user_after"],
}
_TRACE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "file": {"type": "string"},
        "line": {"type": ["integer", "null"], "description": "line where the trace starts"},
        "pointer": {
            "type": ["string", "null"],
            "description": "where the trace is inside the JSON value on its line, when it is one of several runs there: simulations[3], [2], samples[0]",
        },
        "place": {"type": "string", "description": "where the trace is, as reports print it: file:line, file#pointer or file:line#pointer"},
        "format": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "turns": {"type": "integer", "minimum": 1, "description": "conversation turns (a user message opens one)"},
        "turn_rounds": {
            "type": "array",
            "description": "the rounds of each turn: every round's turn number",
            "items": {
                "type": "object",
                "properties": {"turn": {"type": "integer"}, "first_round": {"type": "integer"}, "last_round": {"type": "integer"}},
                "required": ["turn", "first_round", "last_round"],
            },
        },
        "rounds": {"type": "integer", "minimum": 0},
        "tool_calls": {"type": "integer", "minimum": 0},
        "tokens": {"type": "integer", "minimum": 0},
        "tokens_estimated": {"type": "boolean"},
        "seconds": {"type": ["number", "null"]},
        "answered": {"type": "boolean"},
        "ending": {"enum": ["answered", "submitted", "limit", "error", None], "description": "how the run ended, as recorded (null: unknown); the outcome label is the grader's verdict"},
        "error": {"type": ["string", "null"]},
        "fires": {"type": "array", "items": _FIRE},
        "expectations": {
            "type": "array",
            "description": "the trace's expect events checked against this replay",
            "items": {
                "type": "object",
                "properties": {
                    "guard": {"type": "string"},
                    "fires": {"type": "boolean"},
                    "by_round": {"type": ["integer", "null"]},
                    "note": {"type": ["string", "null"]},
                    "met": {"type": ["boolean", "null"], "description": "null: not checked (the guard is not enabled, or unknown)"},
                    "unknown_guard": {"type": "boolean", "description": "not checked because no guard has that code or name"},
                    "message": {"type": "string"},
                },
                "required": ["guard", "fires", "met", "message"],
            },
        },
        "tokenizer_comparison": {
            "type": "object",
            "properties": {
                "differs": {"type": "boolean"},
                "runs": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "tokenizer": {"type": "string"},
                            "fires_at": {"type": ["integer", "null"], "description": "round P001 stops at"},
                            "scores": {"type": "array", "items": {"type": ["number", "null"]}, "description": "best containment per round"},
                        },
                        "required": ["tokenizer", "fires_at", "scores"],
                    },
                },
            },
        },
        "policy": _POLICY,
        "timeline": _TIMELINE,
        "presets": {
            "type": "object",
            "description": "with --preset a,b: each preset's replay of this trace, by name",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "fires": {"type": "integer", "description": "verdicts of the preset's guards, each alone"},
                    "expectations_broken": {"type": "integer"},
                    "policy": _POLICY,
                },
                "required": ["fires", "expectations_broken", "policy"],
            },
        },
    },
    "required": ["id", "file", "line", "format", "labels", "rounds", "fires", "policy"],
}
_COUNTS = {
    "type": "object",
    "properties": {k: {"type": ["number", "null"]} for k in ("llm_calls", "tool_calls", "tokens", "seconds")},
    "required": ["llm_calls", "tool_calls", "tokens", "seconds"],
}
_OUTCOME_SAVED = {
    "type": "object",
    "description": "the policy's savings on the traces of one outcome (sums of their policy.saved), with what those traces cost as recorded",
    "properties": {
        "traces": {"type": "integer"},
        "traces_stopped": {"type": "integer"},
        "possible_harm": {"type": "integer", "description": "of them, runs labelled a success that the policy cuts"},
        **{k: {"type": ["number", "null"]} for k in ("llm_calls", "tool_calls", "tokens", "seconds")},
        "tokens_estimated": {"type": "boolean"},
        "tokens_basis": {"type": "string"},
        "forced_answer_tokens": {"type": ["integer", "null"], "description": "the estimated cost of the forced answers charged, already taken off tokens"},
        "whole": _COUNTS,
    },
    "required": ["traces", "traces_stopped", "llm_calls", "tool_calls", "tokens", "seconds", "tokens_basis", "whole"],
}
REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tracecheck.dev/schema/replay-report-v1.json",
    "title": "tracecheck replay report (--format json; --format jsonl writes a header line, one trace per line, warnings, then the totals)",
    "type": "object",
    "properties": {
        "schema_version": {"const": 1},
        "tool": {"type": "object", "properties": {"name": {"const": "tracecheck"}, "version": {"type": "string"}}},
        "guards": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "name": {"type": "string"}, "options": {"type": "object"}},
                "required": ["code", "name", "options"],
            },
        },
        "traces": {"type": "array", "items": _TRACE},
        "totals": {
            "type": "object",
            "properties": {
                "traces": {"type": "integer"},
                "traces_with_fires": {"type": "integer"},
                "traces_stopped": {"type": "integer"},
                "no_answer_to_forced_answer": {"type": "integer"},
                "possible_harm": {"type": "integer", "description": "traces labelled a success that the policy cuts"},
                "expectations_broken": {"type": "integer"},
                "stale_blocks": {"type": "integer"},
                "stops_before_new_information": {"type": "integer", "description": "traces whose policy cut rounds that brought new information"},
                "whole": _COUNTS,
                "saved": _COUNTS,
                "share": {"type": "object"},
                "saved_by_outcome": {
                    "type": "object",
                    "description": (
                        "saved, split by the traces' outcome label: failure (bankable: the run failed anyway), success "
                        "(at risk: the stop may have cost the success), unknown (ungraded); the three add up to saved"
                    ),
                    "properties": {k: _OUTCOME_SAVED for k in ("failure", "success", "unknown")},
                    "required": ["failure", "success", "unknown"],
                },
                "by_guard": {"type": "object"},
                "by_preset": {"type": "object", "description": "with --preset a,b: these totals for each preset, by name"},
            },
            "required": ["traces", "traces_with_fires", "traces_stopped", "whole", "saved", "share"],
        },
        "warnings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"file": {"type": "string"}, "line": {"type": ["integer", "null"]}, "reason": {"type": "string"}},
                "required": ["file", "line", "reason"],
            },
        },
        "tokenizers": {
            "type": "array",
            "items": {"type": "string"},
            "description": "with --tokenizer a,b: P001 is also replayed per tokenizer (see each trace's tokenizer_comparison)",
        },
        "preset": {"type": ["string", "null"], "description": "the preset of the main replay (the first of --preset a,b)"},
        "presets": {
            "type": "array",
            "items": {"type": "string"},
            "description": "with --preset a,b: every trace is replayed per preset too (see each trace's presets and totals.by_preset)",
        },
    },
    "required": ["schema_version", "tool", "traces", "totals", "warnings"],
}

SCHEMAS["report"] = REPORT_SCHEMA

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

SCHEMAS["labels"] = LABELS_SCHEMA
