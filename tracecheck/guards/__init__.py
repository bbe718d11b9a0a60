"""The guard registry: every guard, in the order reports list them.

A new guard is one module in this folder plus one line below.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from .base import Action, Guard, GuardOptions, Phase, RunContext, Verdict

# (code, name, module, class) in report order. The code and name are the class's own
# (tests/test_startup.py checks): a guard is found by them without importing its module,
# so that a run imports only the guards it runs.
_GUARDS = (
    ("P001", "similar-query-stagnation", "p001_similar_query_stagnation", "SimilarQueryStagnation"),
    ("P002", "no-new-urls", "p002_no_new_urls", "NoNewUrls"),
    ("P003", "no-new-information", "p003_no_new_information", "NoNewInformation"),
    ("P004", "unchanged-outcome", "p004_unchanged_outcome", "UnchangedOutcome"),
    ("R001", "identical-call-streak", "r001_identical_call_streak", "IdenticalCallStreak"),
    ("R002", "repeated-call-cache", "r002_repeated_call_cache", "RepeatedCallCache"),
    ("R003", "call-cycle", "r003_call_cycle", "CallCycle"),
    ("R004", "per-tool-streak", "r004_per_tool_streak", "PerToolStreak"),
    ("R005", "reapplied-change", "r005_reapplied_change", "ReappliedChange"),
    ("R006", "parallel-write", "r006_parallel_write", "ParallelWrite"),
    ("R007", "call-history-loop", "r007_call_history_loop", "CallHistoryLoop"),
    ("F001", "tool-failure-streak", "f001_tool_failure_streak", "ToolFailureStreak"),
    ("F002", "repeated-error", "f002_repeated_error", "RepeatedError"),
    ("F003", "dead-end", "f003_dead_end", "DeadEnd"),
    ("T001", "repeated-message", "t001_repeated_message", "RepeatedMessage"),
    ("T002", "text-chanting", "t002_text_chanting", "TextChanting"),
    ("E001", "evidence-gate", "e001_evidence_gate", "EvidenceGate"),
    ("B001", "round-budget", "b001_round_budget", "RoundBudget"),
    ("B002", "token-budget", "b002_token_budget", "TokenBudget"),
    ("B003", "tool-call-cap", "b003_tool_call_cap", "ToolCallCap"),
    ("B004", "time-budget", "b004_time_budget", "TimeBudget"),
    ("B005", "call-timeout", "b005_call_timeout", "CallTimeout"),
)

GUARD_CODES: tuple[str, ...] = tuple(code for code, _, _, _ in _GUARDS)


@lru_cache(maxsize=None)
def guard_by_code(code: str) -> type[Guard] | None:
    """The guard with this code (exactly as registered), its module imported on first use;
    None for a code not registered or a guard not written yet."""
    for known, _, module, cls in _GUARDS:
        if known == code:
            try:
                loaded = importlib.import_module(f"{__name__}.{module}")
            except ModuleNotFoundError as exc:
                if exc.name == f"{__name__}.{module}":
                    return None  # not written yet
                raise
            return getattr(loaded, cls)
    return None


@lru_cache(maxsize=1)
def all_guards() -> tuple[type[Guard], ...]:
    """Every guard, in report order (every guard module imported)."""
    return tuple(g for g in map(guard_by_code, GUARD_CODES) if g is not None)


def guard_by_key(key: str) -> type[Guard] | None:
    """A guard by code (any case) or kebab-case name; only its own module is imported."""
    code = guard_code(key)
    return guard_by_code(code) if code is not None else None


def guard_code(key: str) -> str | None:
    """The code of the guard ``key`` names (code in any case, or name), no guard imported;
    None when it names none."""
    lowered = key.lower()
    return next((code for code, name, _, _ in _GUARDS if code.lower() == lowered or name == lowered), None)


def guard_keys() -> list[str]:
    """Every code and name a guard answers to, in report order (no guard imported)."""
    return [key for code, name, _, _ in _GUARDS for key in (code, name)]


__all__ = ["GUARD_CODES", "Action", "Guard", "GuardOptions", "Phase", "RunContext", "Verdict", "all_guards", "guard_by_code", "guard_by_key", "guard_code", "guard_keys"]
