"""The replay report as plain data (what ``--format json|jsonl`` prints).

Everything a report format needs comes from here, so the terminal, Markdown and JSON
reports cannot disagree. Reports know fires and savings, not how guards work.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .. import __version__
from ..engine.batch import ReplayReport
from ..engine.costs import Saving
from ..engine.replay import Fire, TraceResult

SCHEMA_VERSION = 1


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def saving_data(saving: Saving | None) -> dict[str, Any] | None:
    if saving is None:
        return None
    return {
        "llm_calls": saving.llm_calls,
        "tool_calls": saving.tool_calls,
        "tokens": saving.tokens,
        "tokens_estimated": saving.tokens_estimated,
        "seconds": _round(saving.seconds),
        "forced_answer_tokens": saving.forced_answer_tokens,
    }


def fire_data(fire: Fire) -> dict[str, Any]:
    return {
        "code": fire.code,
        "name": fire.name,
        "round": fire.round,
        "phase": fire.phase.value,
        "action": fire.action.value,
        "reason": fire.reason,
        "line": fire.line,
        "call_id": fire.call_id,
        "details": fire.details,
        "saved": saving_data(fire.saved),
    }


def trace_data(result: TraceResult) -> dict[str, Any]:
    trace, policy, totals = result.trace, result.policy, result.totals
    stop = policy.stop
    return {
        "id": trace.id,
        "file": trace.file,
        "line": trace.line,
        "format": trace.format,
        "labels": dict(trace.labels),
        "rounds": totals.llm_calls,
        "tool_calls": totals.tool_calls,
        "tokens": totals.tokens,
        "tokens_estimated": totals.tokens_estimated,
        "seconds": _round(totals.seconds),
        "answered": result.answered,
        "error": trace.error,
        "fires": [fire_data(f) for f in result.fires],
        "policy": {
            "stopped_at": stop.round if stop else None,
            "phase": stop.phase.value if stop else None,
            "code": stop.code if stop else None,
            "action": stop.action.value if stop else None,
            "saved": saving_data(policy.saved)
            or {"llm_calls": 0, "tool_calls": 0, "tokens": 0, "tokens_estimated": False, "seconds": None, "forced_answer_tokens": None},
            "blocked_calls": policy.blocked_calls,
            "blocked_seconds": _round(policy.blocked_seconds),
            "outcome_change": policy.outcome_change,
        },
    }


def _share(part: float | None, whole: float | None) -> float | None:
    if part is None or not whole:
        return None
    return round(part / whole, 4)


def totals_data(report: ReplayReport) -> dict[str, Any]:
    results = report.results
    whole = {
        "llm_calls": sum(r.totals.llm_calls for r in results),
        "tool_calls": sum(r.totals.tool_calls for r in results),
        "tokens": sum(r.totals.tokens for r in results),
        "seconds": _round(sum(r.totals.seconds for r in results if r.totals.seconds is not None)),
    }
    saved = {"llm_calls": 0, "tool_calls": 0, "tokens": 0, "seconds": 0.0}
    estimated = False
    for r in results:
        s = r.policy.saved
        if s is None:
            continue
        saved["llm_calls"] += s.llm_calls
        saved["tool_calls"] += s.tool_calls
        saved["tokens"] += s.tokens
        saved["seconds"] += s.seconds or 0.0
        estimated = estimated or s.tokens_estimated
    saved["seconds"] = _round(saved["seconds"])
    by_guard: dict[str, dict[str, int]] = {}
    for r in results:
        for f in r.fires:
            entry = by_guard.setdefault(f.code, {"traces": 0, "fires": 0})
            entry["fires"] += 1
        for code in {f.code for f in r.fires}:
            by_guard[code]["traces"] += 1
    return {
        "traces": len(results),
        "traces_with_fires": sum(1 for r in results if r.fires),
        "traces_stopped": sum(1 for r in results if r.policy.stop is not None),
        "no_answer_to_forced_answer": sum(
            1 for r in results if r.policy.outcome_change == "no answer → forced answer"
        ),
        "whole": whole,
        "saved": {**saved, "tokens_estimated": estimated},
        "share": {k: _share(saved[k], whole[k]) for k in ("llm_calls", "tool_calls", "tokens", "seconds")},
        "by_guard": dict(sorted(by_guard.items())),
    }


def guards_data(report: ReplayReport) -> list[dict[str, Any]]:
    settings = report.settings
    if settings is None:
        return []
    return [
        {"code": g.code, "name": g.name, "options": dataclasses.asdict(settings.options[g.code])}
        for g in settings.enabled()
    ]


def comparison_data(report: ReplayReport) -> list[dict[str, Any]]:
    return [
        {
            "trace": c.trace_id,
            "differs": c.differs,
            "runs": [{"tokenizer": r.tokenizer, "fires_at": r.fires_at, "scores": r.scores} for r in c.runs],
        }
        for c in report.comparisons
    ]


def report_data(report: ReplayReport) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "tracecheck", "version": __version__},
        "guards": guards_data(report),
        "traces": [trace_data(r) for r in report.results],
        "totals": totals_data(report),
        "warnings": [dataclasses.asdict(d) for d in report.diagnostics],
    }
    if report.comparisons:
        data["tokenizer_comparison"] = {"tokenizers": list(report.tokenizers), "traces": comparison_data(report)}
    return data
