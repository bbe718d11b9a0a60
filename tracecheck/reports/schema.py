"""The JSON Schema of the replay report (``tracecheck schema report``), kept beside the
records that report is made of (``records.py``): every JSON and JSON Lines report the
suite writes is validated against it (tests/test_report_schema.py), so a field added to a
record without its place here fails there.

``SCHEMAS`` names every schema tracecheck publishes: the input formats' (input/schemas.py)
and this one.
"""

from __future__ import annotations

from typing import Any

from ..input.schemas import LABELS_SCHEMA, NATIVE_SCHEMA

_SAVED = {
    "type": "object",
    "properties": {
        "llm_calls": {"type": "integer", "description": "model calls saved, less one forced answer for a stop; negative: a cost"},
        "tool_calls": {"type": "integer"},
        "tokens": {"type": "integer"},
        "tokens_estimated": {"type": "boolean", "description": "some saved rounds had no measured usage"},
        "tokens_basis": {"enum": ["measured", "estimated", "some estimated", "apportioned", "some apportioned"], "description": "how the tokens are known"},
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
        "failed": {"type": "boolean", "description": "no error flag recorded, but the guards' default classifier reads the result as a failure (an exception, a traceback, a JSON error)"},
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
        "tokens_basis": {"enum": ["measured", "estimated", "some estimated", "apportioned", "some apportioned"], "description": "how the tokens are known"},
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
    "properties": {
        **{k: {"type": ["number", "null"]} for k in ("llm_calls", "tool_calls", "tokens", "seconds")},
        "tokens_estimated": {"type": "boolean"},
        "tokens_basis": {"enum": ["measured", "estimated", "some estimated", "apportioned", "some apportioned"], "description": "how the tokens are known"},
    },
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


SCHEMAS: dict[str, dict[str, Any]] = {"native": NATIVE_SCHEMA, "report": REPORT_SCHEMA, "labels": LABELS_SCHEMA}
