"""The guard registry: every guard, in the order reports list them.

A new guard is one module in this folder plus one line below.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from .base import Action, Guard, GuardOptions, Phase, RunContext, Verdict

# (module, class) in report order.
_GUARDS = (
    ("p001_similar_query_stagnation", "SimilarQueryStagnation"),
    ("p002_no_new_urls", "NoNewUrls"),
    ("p003_no_new_information", "NoNewInformation"),
    ("p004_unchanged_outcome", "UnchangedOutcome"),
    ("r001_identical_call_streak", "IdenticalCallStreak"),
    ("r002_repeated_call_cache", "RepeatedCallCache"),
    ("r003_call_cycle", "CallCycle"),
    ("r004_per_tool_streak", "PerToolStreak"),
    ("r005_reapplied_change", "ReappliedChange"),
    ("f001_tool_failure_streak", "ToolFailureStreak"),
    ("f002_repeated_error", "RepeatedError"),
    ("f003_dead_end", "DeadEnd"),
    ("t001_repeated_message", "RepeatedMessage"),
    ("t002_text_chanting", "TextChanting"),
    ("e001_evidence_gate", "EvidenceGate"),
    ("b001_round_budget", "RoundBudget"),
    ("b002_token_budget", "TokenBudget"),
    ("b003_tool_call_cap", "ToolCallCap"),
    ("b004_time_budget", "TimeBudget"),
)


@lru_cache(maxsize=1)
def all_guards() -> tuple[type[Guard], ...]:
    classes = []
    for module, cls in _GUARDS:
        try:
            loaded = importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{module}":
                continue  # not written yet
            raise
        classes.append(getattr(loaded, cls))
    return tuple(classes)


def guard_by_key(key: str) -> type[Guard] | None:
    """A guard by code (any case) or kebab-case name."""
    lowered = key.lower()
    for guard in all_guards():
        if guard.code.lower() == lowered or guard.name == lowered:
            return guard
    return None


__all__ = ["Action", "Guard", "GuardOptions", "Phase", "RunContext", "Verdict", "all_guards", "guard_by_key"]
