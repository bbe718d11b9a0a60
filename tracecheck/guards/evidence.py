"""Evidence requirements, shared by E001 (evidence gate) and B001 (round budget).

Seed 001's LoopAgent keeps one scoreboard, ``successfulTools``: the names of tools
whose call both succeeded and found something. Two guardrails read it: the evidence
gate refuses a final answer while a required tool is missing from it, and the
countdown only forces the answer (tool_choice "none") once nothing is missing. Both
guards here build the same requirements and keep the same ledger through this module,
so they can never disagree about what "the evidence is in" means.

Requirements come from two places, merged: the guard's options (glob patterns of tool
names, any case) and the run's recorded configuration in the trace metadata,
``required_tools`` (all of them) and ``required_any_of`` (at least one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import option
from .signals import DEFAULT_EMPTY_PATTERNS, DEFAULT_FAILURE_PATTERNS, ResultClassifier
from .tool_kinds import matches_any

METADATA_ALL = "required_tools"
METADATA_ANY = "required_any_of"


# Option fields both guards declare, so the help texts (and defaults) stay identical.
def required_all_option() -> Any:
    return option(
        [],
        f"Glob patterns of tools that must all have run productively before a final answer; "
        f"added to the trace metadata's {METADATA_ALL!r}.",
    )


def required_any_option() -> Any:
    return option(
        [],
        f"Glob patterns of tools of which at least one must have run productively; "
        f"added to the trace metadata's {METADATA_ANY!r}.",
    )


def empty_patterns_option() -> Any:
    return option(
        list(DEFAULT_EMPTY_PATTERNS),
        "Regular expressions for a result that found nothing (tried on its first 500 characters): "
        "such a call succeeded but is no evidence.",
    )


def failure_patterns_option() -> Any:
    return option(
        list(DEFAULT_FAILURE_PATTERNS),
        "Regular expressions for a failed result where the format has no error flag.",
    )


def _names(value: Any) -> list[str]:
    """Tool names from a metadata value: a list of names, or one string ("a, b")."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [item.strip() for item in value if isinstance(item, str) and item.strip()]
    return []


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@frozen_dataclass(slots=True)
class Requirements:
    all_of: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()

    @classmethod
    def gather(
        cls, required_all: Iterable[str], required_any: Iterable[str], metadata: Mapping[str, Any] | None
    ) -> Requirements:
        metadata = metadata or {}
        return cls(
            all_of=_unique([*_names(list(required_all)), *_names(metadata.get(METADATA_ALL))]),
            any_of=_unique([*_names(list(required_any)), *_names(metadata.get(METADATA_ANY))]),
        )

    def __bool__(self) -> bool:
        return bool(self.all_of or self.any_of)

    def missing(self, evidence: Iterable[str]) -> list[str]:
        """What is still missing, one label per requirement: each all-of pattern that no
        evidence tool matches, and the any-of group when none of it is matched."""
        return self.unmet(self.matched(evidence))

    def matched(self, evidence: Iterable[str]) -> set[str]:
        """The patterns (all-of and any-of) that some evidence tool matches."""
        patterns = self.all_of + self.any_of
        return {p for name in evidence for p in patterns if matches_any(name, (p,))}

    def unmet(self, matched: set[str]) -> list[str]:
        """``missing`` from the set of patterns already matched."""
        out = [p for p in self.all_of if p not in matched]
        if self.any_of and not any(p in matched for p in self.any_of):
            out.append(self.any_of[0] if len(self.any_of) == 1 else f"one of ({', '.join(self.any_of)})")
        return out

    def to_dict(self) -> dict[str, list[str]]:
        return {"all_of": list(self.all_of), "any_of": list(self.any_of)}


class EvidenceLedger:
    """What the run has shown so far: the tools that produced evidence, and how every
    call of every tool went (for reasons that say *why* something is missing)."""

    def __init__(self, classifier: ResultClassifier) -> None:
        self.classifier = classifier
        self.evidence: set[str] = set()
        self.arrivals: list[str] = []  # the evidence tools, in the order they first produced evidence
        self.outcomes: dict[str, Counter[str]] = {}
        # Per requirements: how many arrivals were matched against its patterns, and the
        # patterns matched so far. Each tool is matched once, not on every check.
        self._matched: dict[Requirements, tuple[int, set[str]]] = {}

    def record(self, rnd: Round) -> None:
        """Take in a round's results (call after its tools ran)."""
        for call in rnd.tool_calls:
            outcome = self.classifier.outcome(call.result)
            self.outcomes.setdefault(call.name, Counter())[outcome] += 1
            if outcome == "productive" and call.name not in self.evidence:
                self.evidence.add(call.name)
                self.arrivals.append(call.name)

    def missing(self, requirements: Requirements) -> list[str]:
        checked, matched = self._matched.get(requirements, (0, set()))
        if checked < len(self.arrivals):
            matched |= requirements.matched(self.arrivals[checked:])
            self._matched[requirements] = (len(self.arrivals), matched)
        return requirements.unmet(matched)

    def account(self, requirements: Requirements, missing: list[str]) -> str:
        """How the calls of the missing tools went: "search_docs: 2 calls, 1 failed,
        1 found nothing", or "search_docs: never called"."""
        patterns: list[str] = []
        for label in missing:
            if label in requirements.all_of:
                patterns.append(label)
            else:
                patterns.extend(requirements.any_of)
        parts = []
        for pattern in _unique(patterns):
            counts: Counter[str] = Counter()
            for name, outcome in self.outcomes.items():
                if matches_any(name, (pattern,)):
                    counts.update(outcome)
            total = sum(counts.values())
            if not total:
                parts.append(f"{pattern}: never called")
                continue
            detail = [f"{counts[k]} {word}" for k, word in _WORDS if counts[k]]
            parts.append(f"{pattern}: {total} call{'s' if total != 1 else ''}, {', '.join(detail)}")
        return "; ".join(parts)

    def snapshot(self) -> dict[str, Any]:
        return {
            "evidence": sorted(self.evidence),
            "calls": {name: dict(counts) for name, counts in sorted(self.outcomes.items())},
        }


_WORDS = (("failed", "failed"), ("empty", "found nothing"), ("missing", "without a result"))
