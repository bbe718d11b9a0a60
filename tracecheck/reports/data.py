"""The replay report's records (``reports.records``), made from engine results: what
``--format json|jsonl`` prints (by each record's ``to_json()``) and every other format reads.

Everything a report format needs comes from here, so the terminal, Markdown and JSON
reports cannot disagree. Reports know fires and savings, not how guards work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..config import Settings
from ..engine.batch import ReplayItem, ReplayReport, TokenizerComparison
from ..engine.costs import Saving, combine_bases
from ..engine.replay import Fire, PolicyResult, TraceResult
from ..model import graded_outcome
from .records import (
    NO_SAVING,
    ComparisonRecord,
    ExpectationRecord,
    FireRecord,
    GuardCounts,
    GuardRecord,
    HeaderRecord,
    NewInformation,
    OutcomeTotals,
    PolicyRecord,
    PresetRunRecord,
    RecordedCost,
    SavedTotals,
    SavingRecord,
    Shares,
    StopRecord,
    TokenizerRun,
    TotalsRecord,
    TraceRecord,
    TurnRounds,
)
from .wording import OUTCOME_BUCKETS, count  # noqa: F401  (count is imported from here by cli/app.py)

SCHEMA_VERSION = 1


def count_unchecked(unchecked: dict[str, int], trace: TraceRecord) -> None:
    """Add ``trace``'s expectations that no running guard could check to ``unchecked``
    (guard code → how many), by code however the trace spelled the guard (r001, the name)."""
    from ..guards import guard_code

    for item in trace.expectations:
        if item.met is None and not item.unknown_guard:
            code = guard_code(item.guard) or item.guard
            unchecked[code] = unchecked.get(code, 0) + 1


PHASE_ORDER = {"before_tools": 0, "after_tools": 1, "final": 2}


def fire_groups(trace: TraceRecord) -> list[tuple[FireRecord, list[int], bool]]:
    """The fires of a trace as a person reads them: (fire, the rounds of the same soft
    action of the same guard repeated later, whether the fire comes after the policy left
    its turn: what that guard would do alone). As the terminal report groups them."""
    alone = after_policy_stop(trace)
    fires, shown, out = trace.fires, set(), []
    for index, fire in enumerate(fires):
        if index in shown:
            continue
        repeats = [
            j
            for j in range(index + 1, len(fires))
            if fires[j].code == fire.code
            and fires[j].action == fire.action
            and fire.action in ("hint", "block", "reject")
            and fires[j].stale == fire.stale
        ]
        shown.update(repeats)
        out.append((fire, [fires[j].round for j in repeats], alone(fire)))
    return out


def after_policy_stop(trace: TraceRecord) -> Callable[[FireRecord], bool]:
    """Whether a fire of ``trace`` comes after the policy left its turn (or, after an
    abort, the run): what that guard would do alone, not what the policy does."""
    stops = trace.policy.stops
    ends = {stop.turn: (stop.round, PHASE_ORDER[stop.phase]) for stop in stops}
    abort = next(((s.turn, s.round, PHASE_ORDER[s.phase]) for s in stops if s.action == "abort"), None)

    def alone(fire: FireRecord) -> bool:
        point = (fire.round, PHASE_ORDER[fire.phase])
        end = ends.get(fire.turn)
        return (end is not None and point > end) or (abort is not None and (fire.turn, *point) > abort)

    return alone


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def saving_data(saving: Saving | None) -> SavingRecord | None:
    if saving is None:
        return None
    return SavingRecord(
        llm_calls=saving.llm_calls,
        tool_calls=saving.tool_calls,
        tokens=saving.tokens,
        tokens_estimated=saving.tokens_estimated,
        tokens_basis=saving.tokens_basis,
        seconds=_round(saving.seconds),
        forced_answer_tokens=saving.forced_answer_tokens,
    )


def _new_information(found: tuple[int, str] | None) -> NewInformation | None:
    return NewInformation(found[0], found[1]) if found else None


def _clipped(text: str | None, limit: int = 1000) -> str | None:
    """A message for the model may quote a whole result (R002's cached answer): the
    report keeps its start, and says how much it left out."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"… ({len(text) - limit:,} more characters)"


def fire_data(fire: Fire) -> FireRecord:
    return FireRecord(
        code=fire.code,
        name=fire.name,
        turn=fire.turn,
        round=fire.round,
        phase=fire.phase.value,
        action=fire.action.value,
        reason=fire.reason,
        line=fire.line,
        call_id=fire.call_id,
        details=fire.details,
        message=_clipped(fire.message),
        saved=saving_data(fire.saved),
        stale=fire.stale,
        new_information=_new_information(fire.new_information),
    )


def policy_data(policy: PolicyResult) -> PolicyRecord:
    """Where the guards together stop, and what that saves."""
    stop = policy.stop
    return PolicyRecord(
        stops=tuple(
            StopRecord(
                turn=f.turn,
                round=f.round,
                phase=f.phase.value,
                code=f.code,
                action=f.action.value,
                saved=saving_data(f.saved),
                new_information=_new_information(f.new_information),
                already_stopped=f.already_stopped,
            )
            for f in policy.stops
        ),
        stale_blocks=policy.stale_blocks,
        later_turns_as_recorded=policy.later_turns_as_recorded,
        possible_harm=policy.possible_harm,
        stopped_at=stop.round if stop else None,
        phase=stop.phase.value if stop else None,
        code=stop.code if stop else None,
        action=stop.action.value if stop else None,
        saved=saving_data(policy.saved) or NO_SAVING,
        blocked_calls=policy.blocked_calls,
        blocked_seconds=_round(policy.blocked_seconds) if policy.blocked_seconds_known else None,
        outcome_change=policy.outcome_change,
    )


def trace_data(result: TraceResult) -> TraceRecord:
    trace, totals = result.trace, result.totals
    return TraceRecord(
        id=trace.id,
        file=trace.file,
        line=trace.line,
        pointer=trace.pointer,
        place=trace.place,
        format=trace.format,
        labels=dict(trace.labels),
        turns=totals.turns,
        turn_rounds=tuple(TurnRounds(t, a, b) for t, a, b in totals.turn_rounds),
        rounds=totals.llm_calls,
        tool_calls=totals.tool_calls,
        tokens=totals.tokens,
        tokens_estimated=totals.tokens_estimated,
        tokens_basis=totals.tokens_basis,
        seconds=_round(totals.seconds),
        answered=result.answered,
        ending=trace.ending,
        error=trace.error,
        fires=tuple(fire_data(f) for f in result.fires),
        expectations=tuple(
            ExpectationRecord(
                guard=e.expectation.guard,
                fires=e.expectation.fires,
                by_round=e.expectation.by_round,
                note=e.expectation.note,
                met=e.met,
                message=e.message,
                unknown_guard=e.unknown,
            )
            for e in result.expectations
        ),
        policy=policy_data(result.policy),
    )


def _share(part: float | None, whole: float | None) -> float | None:
    if part is None or not whole:
        return None
    return round(part / whole, 4)


def _add_known(total: float | None, value: float | None) -> float | None:
    """Seconds add up where they are known; unknown everywhere stays unknown (None)."""
    if value is None:
        return total
    return (total or 0.0) + value


# The bucket of a trace's outcome label: success, failure, or unknown (no label, or a
# value that is neither).
outcome_bucket = graded_outcome


class _Bucket:
    """The savings of the traces of one outcome, with what they cost as recorded."""

    def __init__(self) -> None:
        self.traces = self.stopped = self.harmed = 0
        self.whole = {"llm_calls": 0, "tool_calls": 0, "tokens": 0, "seconds": None}
        self.saved = {"llm_calls": 0, "tool_calls": 0, "tokens": 0, "seconds": None}
        self.whole_bases: set[str] = set()
        self.saved_bases: set[str] = set()
        self.forced: int | None = None

    def add(self, stopped: bool, harmed: bool, totals: tuple, saving: tuple | None) -> None:
        self.traces += 1
        self.stopped += stopped
        self.harmed += harmed
        llm_calls, tool_calls, tokens, basis, seconds = totals
        self.whole["llm_calls"] += llm_calls
        self.whole["tool_calls"] += tool_calls
        self.whole["tokens"] += tokens
        self.whole_bases.add(basis)
        self.whole["seconds"] = _add_known(self.whole["seconds"], seconds)
        if saving is not None:
            llm_calls, tool_calls, tokens, seconds, basis, forced = saving
            self.saved["llm_calls"] += llm_calls
            self.saved["tool_calls"] += tool_calls
            self.saved["tokens"] += tokens
            self.saved["seconds"] = _add_known(self.saved["seconds"], seconds)
            self.saved_bases.add(basis)
            if forced is not None:
                self.forced = (self.forced or 0) + forced

    def data(self) -> OutcomeTotals:
        whole = {**self.whole, "seconds": _round(self.whole["seconds"])}
        saved = {**self.saved, "seconds": _round(self.saved["seconds"])}
        if saved["seconds"] is None and whole["seconds"] is not None and not self.stopped and not self.saved["tool_calls"]:
            saved["seconds"] = 0.0  # nothing cut: no time saved, which is known, not unknown
        return OutcomeTotals(
            traces=self.traces,
            traces_stopped=self.stopped,
            possible_harm=self.harmed,
            **saved,
            tokens_estimated="estimated" in combine_bases(self.saved_bases),
            tokens_basis=combine_bases(self.saved_bases),
            forced_answer_tokens=self.forced,
            whole=RecordedCost(**whole, tokens_basis=combine_bases(self.whole_bases)),
        )


class TotalsAccumulator:
    """Run totals, added to one trace at a time (reports stream)."""

    def __init__(self) -> None:
        self.traces = self.with_fires = self.stopped = self.forced = self.harmed = self.broken = 0
        self.stale = self.cut_new_information = 0
        self.every = _Bucket()  # what the runs cost and what stops save, all outcomes together
        self.by_guard: dict[str, dict[str, int]] = {}
        self.by_outcome = {outcome: _Bucket() for outcome in OUTCOME_BUCKETS}

    def add(self, result: TraceResult) -> None:
        self.add_entry(self.entry(result))

    @staticmethod
    def entry(result: TraceResult) -> tuple:
        """What the totals take from one trace's result, as plain values (a worker
        process sends these instead of the result)."""
        policy, totals, saving = result.policy, result.totals, result.policy.saved
        return (
            [f.code for f in result.fires],
            policy.stop is not None,
            policy.outcome_change == "no answer → forced answer",
            policy.possible_harm is not None,
            sum(1 for e in result.expectations if e.met is False),
            policy.stale_blocks,
            any(s.new_information for s in policy.stops),
            (totals.llm_calls, totals.tool_calls, totals.tokens, totals.tokens_basis, totals.seconds),
            None
            if saving is None
            else (saving.llm_calls, saving.tool_calls, saving.tokens, saving.seconds, saving.tokens_basis, saving.forced_answer_tokens),
            outcome_bucket(result.trace.outcome),
        )

    def add_entry(self, entry: tuple) -> None:
        codes, stopped, forced, harmed, broken, stale, cut, totals, saving, outcome = entry
        self.by_outcome[outcome].add(stopped, harmed, totals, saving)
        self.every.add(stopped, harmed, totals, saving)
        self.traces += 1
        self.with_fires += bool(codes)
        self.stopped += stopped
        self.forced += forced
        self.harmed += harmed
        self.broken += broken
        self.stale += stale
        self.cut_new_information += cut
        for code in codes:
            self.by_guard.setdefault(code, {"traces": 0, "fires": 0})["fires"] += 1
        for code in set(codes):
            self.by_guard[code]["traces"] += 1

    def data(self) -> TotalsRecord:
        every = self.every.data()
        whole = every.whole
        saved = SavedTotals(every.llm_calls, every.tool_calls, every.tokens, every.seconds, every.tokens_estimated, every.tokens_basis)
        return TotalsRecord(
            traces=self.traces,
            traces_with_fires=self.with_fires,
            traces_stopped=self.stopped,
            no_answer_to_forced_answer=self.forced,
            possible_harm=self.harmed,
            expectations_broken=self.broken,
            stale_blocks=self.stale,
            stops_before_new_information=self.cut_new_information,
            whole=whole,
            saved=saved,
            share=Shares(*(_share(getattr(saved, k), getattr(whole, k)) for k in ("llm_calls", "tool_calls", "tokens", "seconds"))),
            saved_by_outcome={outcome: bucket.data() for outcome, bucket in self.by_outcome.items()},
            by_guard={code: GuardCounts(**counts) for code, counts in sorted(self.by_guard.items())},
        )


def guards_data(settings: Settings | None) -> tuple[GuardRecord, ...]:
    if settings is None:
        return ()
    return tuple(GuardRecord(g.code, g.name, dataclasses.asdict(settings.options[g.code])) for g in settings.enabled())


def comparison_data(comparison: TokenizerComparison) -> ComparisonRecord:
    return ComparisonRecord(comparison.differs, tuple(TokenizerRun(r.tokenizer, r.fires_at, r.scores) for r in comparison.runs))


def preset_run_data(result: TraceResult) -> PresetRunRecord:
    """One preset's replay of a trace, for the side-by-side comparison."""
    # Only what the trace expects of a policy: expectations about one guard are written
    # for that guard's own settings, which presets change.
    return PresetRunRecord(
        fires=len(result.fires),
        expectations_broken=sum(1 for e in result.expectations if e.met is False and e.expectation.guard.lower() == "policy"),
        policy=policy_data(result.policy),
    )


def item_data(item: ReplayItem) -> TraceRecord:
    record = trace_data(item.result)
    if item.comparison is not None or item.presets is not None:
        record = dataclasses.replace(
            record,
            tokenizer_comparison=comparison_data(item.comparison) if item.comparison is not None else None,
            presets={name: preset_run_data(result) for name, result in item.presets.items()} if item.presets is not None else None,
        )
    return record


def header_data(settings: Settings | None, tokenizers: tuple[str, ...], presets: tuple[str, ...] = ()) -> HeaderRecord:
    return HeaderRecord(
        schema_version=SCHEMA_VERSION,
        tool={"name": "tracecheck", "version": __version__},
        guards=guards_data(settings),
        preset=settings.preset if settings is not None else None,
        tokenizers=tuple(tokenizers) if len(tokenizers) > 1 else None,
        presets=tuple(presets) if presets else None,
    )


class ReportTotals:
    """The totals of a report, and with presets side by side the totals of each."""

    def __init__(self, presets: tuple[str, ...] = ()) -> None:
        self.main = TotalsAccumulator()
        self.by_preset = {name: TotalsAccumulator() for name in presets}

    @property
    def traces(self) -> int:
        return self.main.traces

    def add(self, item: ReplayItem) -> None:
        self.add_entry(self.entry(item))

    @staticmethod
    def entry(item: ReplayItem) -> tuple:
        """What the totals take from one item, as plain values (see TotalsAccumulator.entry)."""
        return TotalsAccumulator.entry(item.result), {
            name: TotalsAccumulator.entry(result) for name, result in (item.presets or {}).items()
        }

    def add_entry(self, entry: tuple) -> None:
        main, by_preset = entry
        self.main.add_entry(main)
        for name, each in by_preset.items():
            self.by_preset[name].add_entry(each)

    def data(self) -> TotalsRecord:
        data = self.main.data()
        if self.by_preset:
            data = dataclasses.replace(data, by_preset={name: totals.data() for name, totals in self.by_preset.items()})
        return data


def report_data(report: ReplayReport) -> dict[str, Any]:
    """The whole report of a collected replay (``replay_paths``) as one dict."""
    totals = ReportTotals(report.presets)
    traces = []
    comparisons = {c.trace_id: c for c in report.comparisons}
    by_preset = report.preset_results or [None] * len(report.results)
    for result, presets in zip(report.results, by_preset):
        item = ReplayItem(result, comparisons.get(result.trace.id), presets)
        totals.add(item)
        traces.append(item_data(item).to_json())
    return {
        **header_data(report.settings, report.tokenizers, report.presets).to_json(),
        "traces": traces,
        "totals": totals.data().to_json(),
        "warnings": [d.record() for d in report.diagnostics],
    }
