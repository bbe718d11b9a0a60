"""Replaying many traces: the plain functions behind ``tracecheck replay``.

Callable without the CLI::

    from tracecheck.config import load_settings
    from tracecheck.engine.batch import replay_paths

    report = replay_paths(["runs.jsonl"], load_settings())
    for result in report.results:
        print(result.trace.id, result.policy.stopped_at)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..diagnostics import Diagnostics
from ..guards.base import Phase
from ..load import check_input_format, read_source
from ..model import Trace
from ..sources import expand_paths
from .replay import TraceResult, replay_trace

P001 = "P001"


@dataclass(slots=True)
class TokenizerRun:
    """P001 alone under one tokenizer: where it fires and its best score per round."""

    tokenizer: str
    fires_at: int | None
    scores: list[float | None]  # per round: best similarity of the round's searches, None if no search


@dataclass(slots=True)
class TokenizerComparison:
    trace_id: str
    runs: list[TokenizerRun]

    @property
    def differs(self) -> bool:
        return len({r.fires_at for r in self.runs}) > 1


@dataclass
class ReplayReport:
    results: list[TraceResult] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    settings: Settings | None = None
    comparisons: list[TokenizerComparison] = field(default_factory=list)
    tokenizers: tuple[str, ...] = ()


def compare_tokenizers(trace: Trace, settings: Settings, tokenizers: Sequence[str]) -> TokenizerComparison:
    """Replay P001 alone once per tokenizer and collect its per-round scores."""
    from ..guards import guard_by_key

    guard_class = guard_by_key(P001)
    runs = []
    for name in tokenizers:
        guard = guard_class(settings.with_option(P001, "tokenizer", name).options[P001])
        scores: list[float | None] = []

        def observe(rnd, phase, guards, _scores=scores, _guard=guard):
            if phase is Phase.BEFORE_TOOLS:
                best = [s["best"] for s in _guard.last_scores if s["against"] is not None]
                _scores.append(max(best) if best else None)
            elif phase is Phase.FINAL:
                _scores.append(None)

        result = replay_trace(trace, [guard], observe)
        stop = next((f.round for f in result.fires if f.action.ends_run), None)
        scores.extend([None] * (len(trace.rounds) - len(scores)))
        runs.append(TokenizerRun(name, stop, scores))
    return TokenizerComparison(trace.id, runs)


def replay_paths(
    paths: Sequence[str],
    settings: Settings,
    *,
    input_format: str | None = None,
    tokenizers: Sequence[str] = (),
    diagnostics: Diagnostics | None = None,
    on_file: Callable[[int, int, str], Any] | None = None,
) -> ReplayReport:
    """Read every trace below ``paths`` and replay it through the enabled guards.

    ``tokenizers`` with two or more names (e.g. ``("char", "jieba")``) replays P001 under
    each and records where they disagree; the main replay uses the first one.
    """
    check_input_format(input_format)
    report = ReplayReport(diagnostics=diagnostics or Diagnostics(), settings=settings, tokenizers=tuple(tokenizers))
    if tokenizers:
        settings = settings.with_option(P001, "tokenizer", tokenizers[0])
        report.settings = settings
    sources = expand_paths(list(paths), report.diagnostics)
    compare = len(tokenizers) > 1
    for number, source in enumerate(sources, 1):
        if on_file is not None:
            on_file(number, len(sources), source.name)
        for trace in read_source(source, report.diagnostics, input_format):
            result = replay_trace(trace, settings.build())
            if compare:
                report.comparisons.append(compare_tokenizers(trace, settings, tokenizers))
            # Keep the summary, not the transcript: memory grows with the largest trace.
            result.trace = dataclasses.replace(trace, rounds=[])
            result.costs = []
            report.results.append(result)
    return report
