"""Graders' verdicts stored beside trajectories: the SWE-bench (and SWE-smith) reports.

A trajectory says how a run ended (``Trace.ending``), never whether its patch resolves
the issue: only the benchmark's harness knows, and it writes its verdict to files of
its own. When such a file sits beside a trajectory, its verdict is the trace's outcome.

Looked for in the trajectory's folder, then one folder up (SWE-agent 1.x keeps each
instance's ``.traj`` in ``<run>/<instance id>/``), by name: ``report.json`` and
``results.json``. The first file that names the instance decides. Shapes read:

- the SWE-bench harness's per-instance ``report.json``:
  ``{"<instance id>": {"resolved": true|false, ...}}`` (several instances merged into
  one file are fine);
- a run summary: the harness's ``<model>.<run id>.json`` or sb-cli's report saved as
  ``report.json``/``results.json`` (``resolved_ids``, ``unresolved_ids``,
  ``empty_patch_ids``, ``error_ids``, ``completed_ids``, ...), SWE-smith's
  (``resolved``/``unresolved`` lists), and the SWE-bench experiments'
  ``results/results.json`` (``resolved``, ``no_generation``, ``generated``,
  ``applied``, ``no_apply``, ...).

An id in a resolved list → ``success``; in a list of graded-but-unresolved runs (an
unresolved, empty-patch, not-applying or generated-but-not-resolved list) → ``failure``;
only in an error list (``error_ids``, ``no_logs``, ...: the harness could not grade
it) or absent → no verdict: the outcome stays unknown.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from ..text.memo import remembered
from .contract import ReadContext

GRADER_FILES = ("report.json", "results.json")

_RESOLVED = ("resolved_ids", "resolved")
# Lists of runs the harness graded and found not resolved (a patch that is empty or
# does not apply resolves nothing; "generated"/"completed" minus resolved is unresolved).
_UNRESOLVED = (
    "unresolved_ids",
    "unresolved",
    "empty_patch_ids",
    "no_generation",
    "no_apply",
    "generated",
    "applied",
    "completed_ids",
    "test_errored",
    "test_timeout",
)
_ALL_LISTS = _RESOLVED + _UNRESOLVED + ("error_ids", "error", "no_logs", "with_logs", "install_fail", "reset_failed", "submitted_ids", "incomplete_ids")


def is_swe_bench_report(value: Any) -> bool:
    """A SWE-bench/SWE-smith grading file (per-instance report or run summary)."""
    if not isinstance(value, dict) or not value:
        return False
    if any(isinstance(value.get(key), list) for key in _RESOLVED):
        return all(isinstance(value[k], list) for k in value if k in _ALL_LISTS) and any(k in value for k in _ALL_LISTS)
    entries = list(value.values())[:5]
    return all(isinstance(e, dict) and isinstance(e.get("resolved"), bool) for e in entries)


def _verdicts(value: Any) -> dict[str, bool | None]:
    """Instance id → resolved (``None``: named, but not graded)."""
    out: dict[str, bool | None] = {}
    if any(isinstance(value.get(key), list) for key in _RESOLVED):
        for key in _ALL_LISTS:
            for iid in value.get(key) or ():
                if isinstance(iid, str):
                    out.setdefault(iid, None)
        for key in _UNRESOLVED:
            for iid in value.get(key) or ():
                if isinstance(iid, str):
                    out[iid] = False
        for key in _RESOLVED:  # resolved wins: "generated" and "completed" list them too
            for iid in value.get(key) or ():
                if isinstance(iid, str):
                    out[iid] = True
        return out
    for iid, entry in value.items():
        out[str(iid)] = entry["resolved"] if isinstance(entry, dict) and isinstance(entry.get("resolved"), bool) else None
    return out


@remembered(maxsize=64)
def _load(path: str, _mtime: int, _size: int) -> tuple[dict[str, bool | None] | None, str | None]:
    """The verdicts of one grading file (cached: a run's trajectories share it), or
    ``(None, why)`` when it is unreadable, or ``(None, None)`` when it is no grading file."""
    try:
        with open(path, "rb") as stream:
            value = orjson.loads(stream.read())
    except (OSError, orjson.JSONDecodeError) as exc:
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if not is_swe_bench_report(value):
        return None, None
    return _verdicts(value), None


def swe_bench_verdict(ctx: ReadContext, instance_id: str) -> tuple[str, str] | None:
    """``(outcome, grading file)`` for ``instance_id`` from a SWE-bench report beside
    the trajectory ``ctx.file``, else ``None`` (no file names it, or it was not graded)."""
    if ctx.file == "<stdin>":
        return None
    here = os.path.dirname(ctx.file) or "."
    for folder in (here, os.path.dirname(os.path.abspath(here))):
        for name in GRADER_FILES:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            verdicts, problem = _load(os.path.abspath(path), stat.st_mtime_ns, stat.st_size)
            if problem is not None:
                reason = f"grading file unreadable ({problem}); outcomes from it unknown"
                # Once per file, not once per trajectory beside it.
                if not any(d.file == path and d.reason == reason for d in ctx.diagnostics):
                    ctx.diagnostics.warn(path, None, reason)
                continue
            if verdicts is None or instance_id not in verdicts:
                continue
            resolved = verdicts[instance_id]
            if resolved is None:
                return None  # named but ungraded (an evaluation error): no verdict
            return ("success" if resolved else "failure"), path
    return None
