"""Presets: named bundles of guards and options, as data.

A preset answers "what would X have done on my traces?": it selects the guards a
system runs and sets their options the way that system sets them. It is the base of
the settings: the config file and the command line change it from there (a config
file names one with ``preset = "NAME"``; ``--preset NAME`` on the command line wins).

Only the seeds' systems are here so far; the other agents' presets (OpenHands, Gemini
CLI, Cline, Roo, Goose, OpenRouter, Hermes, CrewAI) need their guards first.
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
    )
}


def preset_by_name(name: str) -> Preset | None:
    return PRESETS.get(name.strip().lower())
