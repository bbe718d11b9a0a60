"""When a counting guard acts at its threshold: as the threshold-th bad outcome comes
back, or before the next call that would repeat it (Hermes blocks a replay before it
runs). F001 and P004 share these options and their meaning."""

from __future__ import annotations

from typing import Any

from .base import GuardOptions, option

NEXT_CALL = "next_call"


def fire_on_option(at_outcome: str, outcome: str, example: str) -> Any:
    """The ``fire_on`` option: ``at_outcome`` (the default) or ``next_call``."""
    return option(
        at_outcome,
        f"When the threshold acts: as the threshold-th {outcome} comes back ('{at_outcome}'), or before "
        f"the next call with the same key runs ('{NEXT_CALL}', as Hermes {example}). A block always "
        "waits for the next call.",
        choices=(at_outcome, NEXT_CALL),
    )


def waits_for_next_call(options: GuardOptions) -> bool:
    """Whether the threshold acts before the next call (a block cannot act on a call that ran)."""
    return getattr(options, "fire_on") == NEXT_CALL or getattr(options, "action") == "block"
