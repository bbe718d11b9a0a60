"""Presets: named bundles of guards and options, as data.

A preset answers "what would X have done on my traces?": it selects the guards a
system runs and sets their options the way that system sets them. It is the base of
the settings: the config file and the command line change it from there (a config
file names one with ``preset = "NAME"``; ``--preset NAME`` on the command line wins).

The seeds' systems, OpenHands', Gemini CLI's and OpenRouter's are here; the other agents'
presets (Cline, Roo, Goose, Hermes, CrewAI) and a recommended ``default`` are to come.
Facts about each system are from ``reference/peers.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str  # one line: what it runs
    source: str  # where its guards and settings come from
    guards: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> options
    notes: str = ""  # why the settings are what they are


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="seed-000",
            summary="query-fingerprint circuit breaker: similar searches twice in a row stop before the tools",
            source="seed 000 (a no-progress circuit breaker for ReAct)",
            guards={"P001": {"containment": 0.8, "threshold": 2, "tokenizer": "char", "metric": "containment"}},
            notes="The MVP the article ships: fingerprints plus a forced answer. Its v2 (URL overlap) is P002, "
            "not part of the MVP.",
        ),
        Preset(
            name="seed-002",
            summary="information-gain gate: two search observations in a row over 0.7 similar to what was seen stop the run",
            source="seed 002 (plan B, a search tool called eight times)",
            guards={"P003": {"similarity": 0.7, "threshold": 2, "metric": "difflib"}},
            notes="difflib's ratio as the article writes it (the fast n-gram measure gives the same numbers).",
        ),
        Preset(
            name="loopagent",
            summary="LoopAgent's guardrails: identical calls answered from cache, 3 failures of a tool abort, evidence before answers",
            source="seed 001 (LoopAgent's reactAgentRunner.ts)",
            guards={
                "R002": {"canonical_args": False},
                "F001": {"threshold": 3},
                "E001": {"max_rejections": 2},
            },
            notes="Signatures are name + raw arguments text, as LoopAgent keys its cache. The evidence gate "
            "needs required tools in the run's metadata (required_tools / required_any_of).",
        ),
        Preset(
            name="patchcat",
            summary="PatchCat's deadlock breaker: 2nd identical call hints, 3rd stops; raw argument text compared",
            source="seed 004 (PatchCat browser-engine.ts)",
            guards={"R001": {"canonical_args": False, "hint_at": 2, "stop_at": 3}, "B002": {"budget": 0}},
            notes="PatchCat compares the arguments string as the model wrote it (key-order drift escapes it, as the "
            "article says); its token budget is 0 (off) by default.",
        ),
        Preset(
            name="openhands",
            summary="OpenHands' StuckDetector: same action and observation 4 times, same action answered by an error 3 times, "
            "the same message 3 times, an A-B-A-B-A-B pattern",
            source="OpenHands V0 StuckDetector (openhands/controller/stuck.py), interactive mode",
            guards={
                "P004": {"threshold": 4, "scope": "turn"},
                "F002": {"threshold": 3, "same_call": True, "compare_error_text": False, "action": "abort"},
                "T001": {"threshold": 3, "scope": "turn"},
                "R003": {"min_period": 2, "max_period": 2, "laps": 3, "compare_results": True, "scope": "turn"},
            },
            notes="Interactive mode looks at the events after the last user message, hence scope turn (headless mode "
            "is scope run). OpenHands raises AgentStuckInLoopError, an abort; P004, T001 and R003 can only stop, so "
            "their savings include one forced answer OpenHands would not give. Its action equality ignores command "
            "output but compares the model's thought text; tracecheck compares calls and results.",
        ),
        Preset(
            name="gemini-cli",
            summary="Gemini CLI's LoopDetectionService: a block of 1-5 calls repeated 5 times, 50-character text chanted 10 times",
            source="Gemini CLI packages/core/src/services/loopDetectionService.ts",
            guards={
                "R003": {"min_period": 1, "max_period": 5, "laps": 5, "compare_results": False, "scope": "turn"},
                "T002": {"chunk": 50, "threshold": 10, "scope": "turn"},
            },
            notes="Both detectors reset when a new user prompt starts (scope turn). Gemini keys calls by "
            "JSON.stringify of the arguments, so key order matters there; tracecheck's R003 compares sorted-key "
            "JSON. Its third detector, an LLM judge, has no offline equivalent.",
        ),
        Preset(
            name="openrouter",
            summary="OpenRouter's DoomLoopMonitor: per tool, the same call in consecutive rounds of that tool "
            "(other tools in between ignored, fan-outs counted once) hints at 2, blocks at 3, stops at 6",
            source="OpenRouter @openrouter/agent DoomLoopMonitor (packages/agent/src/lib/doom-loop.ts)",
            guards={"R004": {"observe_at": 2, "block_at": 3, "stop_at": 6, "scope": "run"}},
            notes="Streaks survive a new user message (scope run): OpenRouter keeps them across turns, and "
            "across a serialize/resume. Its observe rung only emits a hook event; tracecheck reports it as a hint. The "
            "steer and escalate rungs are off by default there and not modelled. Tools' loopKey declarations "
            "are R004's key_fields (field lists; a loopKey function has no equivalent) and exempt_tools "
            "(loopKey false); the preset sets neither, as OpenRouter's tools declare none by default. Not "
            "modelled: its text detectors (a token block repeating at the tail of one response; identical "
            "assistant text in consecutive steps, which T001 cannot express because a round with tool calls "
            "ends T001's streak) and server-tool calls, which cannot be blocked there.",
        ),
    )
}


def preset_by_name(name: str) -> Preset | None:
    return PRESETS.get(name.strip().lower())
