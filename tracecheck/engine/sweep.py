"""Sweeping guard settings over a set of traces: the plain function behind ``tracecheck
sweep``, callable without the CLI::

    from tracecheck.config import load_settings
    from tracecheck.engine.grid import expand, parse_dimension
    from tracecheck.engine.sweep import read_features, settings_of, sweep_features

    points = expand([parse_dimension("P001.containment=0.6:0.95:0.05")], lambda name: load_settings(preset=name))
    baseline = load_settings()
    features = read_features(["runs/"], settings_of(points, baseline))
    result = sweep_features(features, points, baseline=baseline)
    print(result.points[result.best].label, result.rows[result.best]["tokens_saved"])

(``sweep(load_all(paths), points, ...)`` gives the same result from traces held in
memory.)

**Read once, every setting on each trace, keep features.** The traces are read one at a
time, and each one is replayed under every setting before the next is read: a
:class:`~tracecheck.engine.replay.ReplayCache` runs each guard configuration alone once,
so a grid point re-runs only the guards whose options it changes, and then the policy
(which guard stops first, what that saves). What is kept of a trace is its
:class:`TraceFeatures`: its name, kind, grade, hand label, whole cost and one small
:class:`Outcome` per setting (equal outcomes shared), never the transcript; so memory
grows with the largest trace, not with the input, and the grid points are scored from
the features afterwards. A grid point's result is exactly what ``tracecheck replay``
prints with the same settings.

**What is measured**, per grid point and per set of traces (all, or the training and
test parts of a holdout): the policy's savings (LLM calls, tool calls, tokens, seconds;
absolute and as a share of the whole), how many traces it stops or blocks in, and its
**harm**:

- ``harmed``: the traces harmed, the one definition of harm that ``replay`` and
  ``check`` use (:func:`tracecheck.engine.scoring.harm`: a stop of a run labelled a
  success, healthy or mixed, unless its labels ask for the stop), and ``harm``, their
  share of the traces; ``rounds_cut_on_success``, how many rounds before their recorded
  end the stops of harmed runs came;
- the signs of harm that need no labels: ``stale_blocks`` (blocks that hide a changed
  result) and ``cut_new_information`` (stops before the recorded run found something
  new, loops labelled and stopped in time aside). They are not harm; without a limit
  on any of these the choice keeps each of them, and harm, at no more than the
  current settings'.

**Savings by outcome**, where traces are graded (``outcome`` success or failure):
``saved_by_outcome`` splits the savings into those on runs that failed anyway
(``failure``: bankable, the loop burned budget for nothing), on runs that succeeded
(``success``: at risk, the stop may have cost the success) and on ungraded runs
(``unknown``); they add up to ``saved``. ``tokens_saved_on_failure`` (and the LLM calls,
tool calls and seconds) lead the reports and can be the objective; ``tokens_at_risk``
and ``llm_calls_at_risk`` are the savings on successful runs.

With labels — a ``policy`` expectation (must the policy intervene, by which round, or
stay quiet?), else a ``loop`` label (``true``) or ``outcome = success`` — it measures
**recall** (loops caught in time / loops) and **precision** (loops caught / traces of
known kind the policy intervened in).

With hand labels (a labels file's ``kind``, ``stop_by``, ``fire_by``: see
:mod:`tracecheck.engine.scoring`) it also scores every grid point on the labelled runs:
loops stopped in time and at all, healthy runs cut, successful runs cut, mixed runs
flagged, runs not read (``SweepResult.benchmark``, one :class:`Score` per point). A
``kind`` also tells the metrics above what a trace is: a loop (to be caught by
``stop_by`` and the scoring's round of slack), a healthy run, or neither (mixed).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from ..config import Settings
from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..input.diagnostics import Diagnostics
from ..model import Trace, graded_outcome
from ..text.memo import forget_remembered
from .grid import GridPoint
from .replay import GuardSpec, ReplayCache, TraceResult
from .scoring import (
    HEALTHY,
    LOOP,
    SLACK,
    RunLabel,
    RunVerdict,
    Score,
    run_label,
    unread_verdicts,
    verdict,
)

POSITIVE, NEGATIVE, UNLABELLED = "loop", "healthy", "unlabelled"

# Metrics a sweep can rank by (higher is better) and constrain.
OBJECTIVES = (
    "tokens_saved",
    "llm_calls_saved",
    "tool_calls_saved",
    "seconds_saved",
    "tokens_saved_on_failure",
    "llm_calls_saved_on_failure",
    "tool_calls_saved_on_failure",
    "seconds_saved_on_failure",
    "recall",
    "precision",
)
LOWER_IS_BETTER = {
    "harm", "harmed", "harm_labelled", "stale_blocks", "cut_new_information", "rounds_cut_on_success", "tokens_at_risk", "llm_calls_at_risk",
}
GRADES = ("failure", "success", "unknown")  # the buckets of saved_by_outcome, bankable first


class TraceLoader:
    """Reads one input file's traces, labelled (in a worker process with ``jobs``, see
    ``engine.jobs``)."""

    def __init__(self, input_format: str | None, labels, selection=None) -> None:
        self.input_format, self.labels, self.selection = input_format, labels, selection

    def items(self, source, diagnostics: Diagnostics):
        from ..readers.load import read_source

        for trace in read_source(source, diagnostics, self.input_format):
            if self.labels is not None:
                self.labels.apply(trace)
            if self.selection is None or self.selection.keep(trace, diagnostics):
                yield trace


def load_all(paths: Sequence[str], *, input_format: str | None = None, diagnostics: Diagnostics | None = None, labels=None, jobs: int = 1, selection=None) -> list[Trace]:
    """Every trace below ``paths`` (those ``selection``, ``-k``, matches), in memory: a sweep
    replays each many times. ``jobs`` above 1 reads the files in that many processes; the
    traces are the same, in order."""
    from ..input.sources import expand_paths
    from ..readers.load import check_input_format
    from .jobs import items_in_order

    check_input_format(input_format)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sources = expand_paths(list(paths), diagnostics)
    traces = list(items_in_order(TraceLoader(input_format, labels, selection), sources, diagnostics, jobs))
    if labels is not None:
        labels.finish(diagnostics)
    return traces


def trace_kind(trace: Trace) -> tuple[str, int | None]:
    """(loop | healthy | unlabelled, the round a loop must be caught by)."""
    for exp in trace.expectations:
        if exp.guard.lower() == "policy":
            return (POSITIVE, exp.by_round) if exp.fires else (NEGATIVE, None)
    label = run_label(trace.labels)
    if label is not None:
        if label.kind == LOOP:
            # A loop labelled without the round to stop it by is caught wherever it is stopped.
            return POSITIVE, (label.stop_by + SLACK) if label.stop_by is not None else None
        return (NEGATIVE, None) if label.kind == HEALTHY else (UNLABELLED, None)
    if str(trace.labels.get("loop", "")).strip().lower() in ("true", "yes", "1"):
        return POSITIVE, None
    if trace.outcome == "success":
        return NEGATIVE, None
    return UNLABELLED, None


@frozen_dataclass(slots=True)
class Outcome:
    """One grid point on one trace: what a metric needs, nothing of the transcript."""

    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None
    intervened: bool  # a stop, or a block the policy counts
    stopped: bool
    harmed: bool  # harm (scoring.harm): a stop of a run labelled a success, healthy or mixed
    rounds_cut_on_success: int
    stale_blocks: int
    cut_new_information: bool
    caught: bool | None  # for a loop: intervened in time; None for other traces
    first_round: int | None  # where the policy first stops or blocks
    stopped_at: int | None  # where the policy first stops (the benchmark's figures)
    first_fire: int | None  # any guard's first fire, hints too (a mixed run flagged)


def outcome_of(result: TraceResult, kind: tuple[str, int | None]) -> Outcome:
    policy = result.policy
    saved = policy.saved
    first = min([*(s.round for s in policy.stops), *(b.round for b in policy.blocks)], default=None)
    caught = None
    if kind[0] == POSITIVE:
        caught = first is not None and (kind[1] is None or first <= kind[1])
    # Harm is replay's, one definition (scoring.harm): a stop of a run labelled a success,
    # healthy or mixed, unless its labels ask for the stop.
    harmed = policy.possible_harm is not None
    return Outcome(
        llm_calls=saved.llm_calls if saved else 0,
        tool_calls=saved.tool_calls if saved else 0,
        tokens=saved.tokens if saved else 0,
        seconds=saved.seconds if saved else None,
        intervened=first is not None,
        stopped=bool(policy.stops),
        harmed=harmed,
        rounds_cut_on_success=(saved.llm_calls if saved else 0) if harmed else 0,
        stale_blocks=policy.stale_blocks,
        cut_new_information=any(s.new_information for s in policy.stops) and not caught,
        caught=caught,
        first_round=first,
        stopped_at=policy.stopped_at,
        first_fire=min((f.round for f in result.fires), default=None),
    )


@frozen_dataclass(slots=True)
class Whole:
    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None


def _savings(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    saved: dict[str, Any] = {
        "llm_calls": sum(o.llm_calls for o in outcomes),
        "tool_calls": sum(o.tool_calls for o in outcomes),
        "tokens": sum(o.tokens for o in outcomes),
    }
    seconds = [o.seconds for o in outcomes if o.seconds is not None]
    saved["seconds"] = round(sum(seconds), 3) if seconds else None
    return saved


def metrics(
    outcomes: Sequence[Outcome], wholes: Sequence[Whole], kinds: Sequence[str], grades: Sequence[str] | None = None
) -> dict[str, Any]:
    """The metrics of one grid point over a set of traces (parallel sequences; ``grades``:
    each trace's graded outcome, success, failure or unknown — all unknown when omitted)."""
    n = len(outcomes)
    saved = _savings(outcomes)
    grades = grades if grades is not None else ["unknown"] * n
    by_outcome = {}
    for grade in GRADES:
        members = [o for g, o in zip(grades, outcomes) if g == grade]
        by_outcome[grade] = {"traces": len(members), "traces_stopped": sum(1 for o in members if o.stopped), **_savings(members)}
    whole = {
        "llm_calls": sum(w.llm_calls for w in wholes),
        "tool_calls": sum(w.tool_calls for w in wholes),
        "tokens": sum(w.tokens for w in wholes),
    }
    known = [w.seconds for w in wholes if w.seconds is not None]
    whole["seconds"] = round(sum(known), 3) if known else None
    successes = sum(1 for k, o in zip(kinds, outcomes) if k == NEGATIVE)
    loops = [o for k, o in zip(kinds, outcomes) if k == POSITIVE]
    caught = sum(1 for o in loops if o.caught)
    false_stops = sum(1 for k, o in zip(kinds, outcomes) if k == NEGATIVE and o.stopped)
    harmed = sum(1 for o in outcomes if o.harmed)
    return {
        "traces": n,
        "traces_intervened": sum(1 for o in outcomes if o.intervened),
        "traces_stopped": sum(1 for o in outcomes if o.stopped),
        "saved": saved,
        "whole": whole,
        "share": {k: (round(saved[k] / whole[k], 4) if saved[k] is not None and whole[k] else None) for k in saved},
        "tokens_saved": saved["tokens"],
        "llm_calls_saved": saved["llm_calls"],
        "tool_calls_saved": saved["tool_calls"],
        "seconds_saved": saved["seconds"],
        # The same savings by outcome: on runs that failed anyway (bankable), on runs that
        # succeeded (at risk), on ungraded runs; they add up to saved.
        "saved_by_outcome": by_outcome,
        "tokens_saved_on_failure": by_outcome["failure"]["tokens"],
        "llm_calls_saved_on_failure": by_outcome["failure"]["llm_calls"],
        "tool_calls_saved_on_failure": by_outcome["failure"]["tool_calls"],
        "seconds_saved_on_failure": by_outcome["failure"]["seconds"],
        "tokens_at_risk": by_outcome["success"]["tokens"],
        "llm_calls_at_risk": by_outcome["success"]["llm_calls"],
        "harmed": harmed,
        "harm_labelled": round(harmed / successes, 4) if successes else None,
        "rounds_cut_on_success": sum(o.rounds_cut_on_success for o in outcomes),
        "stale_blocks": sum(o.stale_blocks for o in outcomes),
        "cut_new_information": sum(1 for o in outcomes if o.cut_new_information),
        "harm": round(harmed / n, 4) if n else 0.0,
        "loops": len(loops),
        "healthy": successes,
        "caught": caught,
        "recall": round(caught / len(loops), 4) if loops else None,
        "precision": round(caught / (caught + false_stops), 4) if caught + false_stops else None,
    }


# --- evaluation ---------------------------------------------------------------------


@frozen_dataclass(slots=True)
class TraceFeatures:
    """What a sweep keeps of one trace once every setting was replayed on it: its name,
    kind, grade, hand label and whole cost, and one ``Outcome`` per setting (grid order,
    then the current settings). Nothing of the transcript: the traces are read one at a
    time, and memory grows with the largest trace, not with the input."""

    id: str
    file: str | None
    kind: str  # loop | healthy | unlabelled (trace_kind)
    grade: str  # success | failure | unknown
    whole: Whole
    label: RunLabel | None  # the hand label, for the benchmark
    outcomes: tuple[Outcome, ...]


class Evaluator:
    """Every setting replayed on one trace at a time (``features``): each guard
    configuration alone once (``ReplayCache``), then each setting's policy from them."""

    def __init__(self, settings: Sequence[Settings]) -> None:
        self.specs = [[GuardSpec.of(g, s.options[g.code]) for g in s.enabled()] for s in settings]
        self.keys = [tuple(spec.key for spec in each) for each in self.specs]
        self._known: dict[str, Outcome] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"specs": self.specs, "keys": self.keys, "_known": {}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.specs, self.keys, self._known = state["specs"], state["keys"], state["_known"]

    def same(self, outcome: Outcome) -> Outcome:
        """One object for equal outcomes: most traces share theirs (nothing fired, the
        same stop), so the outcomes kept do not grow with the traces' count. Equal as
        written (by ``repr``): 3 seconds and 3.0, or 0.0 and -0.0, are told apart, as
        the reports write them."""
        return self._known.setdefault(repr(outcome), outcome)

    def features(self, trace: Trace) -> TraceFeatures:
        kind = trace_kind(trace)
        cache = ReplayCache(trace)
        done: dict[tuple, Outcome] = {}
        row = []
        for specs, key in zip(self.specs, self.keys):
            if key not in done:
                done[key] = self.same(outcome_of(cache.replay(specs, expectations=False), kind))
            row.append(done[key])
        totals = cache.totals
        whole = Whole(totals.llm_calls, totals.tool_calls, totals.tokens, totals.seconds)
        return TraceFeatures(trace.id, trace.file, kind[0], graded_outcome(trace.outcome), whole, run_label(trace.labels), tuple(row))

    def kept(self, features: TraceFeatures) -> TraceFeatures:
        """``features`` from a worker process, its outcomes shared with this process's."""
        return dataclasses.replace(features, outcomes=tuple(self.same(o) for o in features.outcomes))


class FeatureReader(TraceLoader):
    """Reads one input file's traces (labelled, selected) and gives each one's
    ``TraceFeatures`` under every setting (in a worker process with ``jobs``)."""

    def __init__(self, evaluator: Evaluator, input_format: str | None, labels, selection=None) -> None:
        super().__init__(input_format, labels, selection)
        self.evaluator = evaluator

    def items(self, source, diagnostics: Diagnostics):
        for trace in super().items(source, diagnostics):
            yield self.evaluator.features(trace)


def read_features(
    sources: Sequence[Any],
    settings: Sequence[Settings],
    *,
    input_format: str | None = None,
    diagnostics: Diagnostics | None = None,
    labels=None,
    jobs: int = 1,
    selection=None,
    on_file: Callable[[int, int, str], Any] | None = None,
) -> list[TraceFeatures]:
    """Every trace below ``sources`` (those ``selection`` matches) read once, one at a
    time, and replayed under every one of ``settings``: what a sweep keeps of each
    (``TraceFeatures``), in input order. ``jobs`` above 1 reads and replays the files in
    that many processes; the features are the same, in order. ``on_file(number, files,
    name)`` is called as each file starts."""
    from ..input.sources import expand_paths
    from ..readers.load import check_input_format
    from .jobs import items_in_order

    forget_remembered()  # what the last run remembered is not this run's
    check_input_format(input_format)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sources = expand_paths(list(sources), diagnostics)
    evaluator = Evaluator(settings)
    reader = FeatureReader(evaluator, input_format, labels, selection)
    features = [evaluator.kept(f) for f in items_in_order(reader, sources, diagnostics, jobs, on_file)]
    if labels is not None:
        labels.finish(diagnostics)
    return features


_SHARED: dict[str, Any] = {}  # what forked worker processes inherit: traces and the evaluator


def _evaluate_chunk(bounds: tuple[int, int]) -> list[TraceFeatures]:
    """The features of traces[lo:hi] under every setting, trace by trace."""
    traces, evaluator = _SHARED["traces"], _SHARED["evaluator"]
    return [evaluator.features(traces[index]) for index in range(*bounds)]


def evaluate_features(
    traces: Sequence[Trace], settings: Sequence[Settings], *, jobs: int = 1, on_progress: Callable[[int, int], Any] | None = None
) -> list[TraceFeatures]:
    """``TraceFeatures`` of traces already in memory. ``jobs`` > 1 splits the traces over
    processes (forked, so they inherit the traces without copying them through a pipe)."""
    evaluator = Evaluator(settings)
    _SHARED.update(traces=traces, evaluator=evaluator)
    try:
        chunk = max(1, math.ceil(len(traces) / max(1, jobs * 4)))
        bounds = [(lo, min(lo + chunk, len(traces))) for lo in range(0, len(traces), chunk)]
        rows: list[TraceFeatures] = []
        context = _fork_context() if jobs > 1 and len(bounds) > 1 else None
        if context is None:
            for lo, hi in bounds:
                rows.extend(_evaluate_chunk((lo, hi)))
                if on_progress is not None:
                    on_progress(hi, len(traces))
            return rows
        with context.Pool(jobs) as pool:
            for (lo, hi), part in zip(bounds, pool.imap(_evaluate_chunk, bounds)):
                rows.extend(evaluator.kept(f) for f in part)
                if on_progress is not None:
                    on_progress(hi, len(traces))
        return rows
    finally:
        _SHARED.clear()


def evaluate(
    traces: Sequence[Trace], settings: Sequence[Settings], *, jobs: int = 1, on_progress: Callable[[int, int], Any] | None = None
) -> list[list[Outcome]]:
    """Outcomes indexed [trace][setting] (see ``evaluate_features``)."""
    return [list(f.outcomes) for f in evaluate_features(traces, settings, jobs=jobs, on_progress=on_progress)]


def _fork_context():
    import multiprocessing

    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: one process
        return None


# --- choosing ----------------------------------------------------------------------


@frozen_dataclass
class Constraint:
    metric: str
    op: str  # "<=", ">=", "<", ">", "=="
    value: float
    # Not asked for: without a limit on harm, the choice may not harm more than the
    # current settings do (a few more tokens are not worth cutting healthy runs).
    implicit: bool = False

    def holds(self, row: dict[str, Any]) -> bool:
        actual = row.get(self.metric)
        if actual is None:
            return False
        return {"<=": actual <= self.value, ">=": actual >= self.value, "<": actual < self.value, ">": actual > self.value, "==": actual == self.value}[self.op]

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


# Limits on any of these are limits on harm: the user chose how much, no ceiling is added.
HARM_METRICS = frozenset({"harm", "harmed", "harm_labelled", "stale_blocks", "cut_new_information", "rounds_cut_on_success"})


# The ceilings added when the user limits none of HARM_METRICS: harm first (the one the
# reports name), then the signs of harm that need no labels.
CEILINGS = ("harm", "cut_new_information", "stale_blocks")


def with_harm_ceiling(constraints: Sequence[Constraint], baseline_row: dict[str, Any] | None) -> list[Constraint]:
    """``constraints``, plus harm, stops before new information and stale blocks no
    higher than the current settings' when none of them limits harm and the current
    settings were measured (on unlabelled traces harm is 0: the signs that need no
    labels are the brake)."""
    if baseline_row is None or any(c.metric in HARM_METRICS for c in constraints):
        return list(constraints)
    return [*constraints, *(Constraint(metric, "<=", baseline_row[metric], implicit=True) for metric in CEILINGS)]


def parse_constraints(text: str | None) -> list[Constraint]:
    """``"harm<=0.02,recall>=0.9"`` → constraints on metrics."""
    import re

    from ..input.diagnostics import TracecheckError

    out = []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        match = re.fullmatch(r"\s*([a-z_]+)\s*(<=|>=|==|<|>)\s*([-+0-9.eE]+)\s*", part)
        if match is None:
            raise TracecheckError(f"--constraint: expected METRIC<=VALUE (or >=, <, >, ==), got {part.strip()!r}")
        metric, op, value = match.groups()
        if metric not in KNOWN_METRICS:
            from ..text.suggest import did_you_mean

            hint = did_you_mean(metric, sorted(KNOWN_METRICS))
            raise TracecheckError(f"--constraint: unknown metric {metric!r}{hint}; choose one of: {', '.join(sorted(KNOWN_METRICS))}")
        try:
            number = float(value)
        except ValueError:
            raise TracecheckError(f"--constraint: {value!r} is not a number") from None
        out.append(Constraint(metric, op, number))
    return out


KNOWN_METRICS = set(OBJECTIVES) | LOWER_IS_BETTER | {"traces_intervened", "traces_stopped"}


def pareto(rows: Sequence[dict[str, Any]], objective: str) -> list[bool]:
    """Which rows no other row beats on both the objective (higher) and harm (lower)."""
    def score(row):
        value = row.get(objective)
        return (-math.inf if value is None else value, row["harm"])

    marks = []
    for row in rows:
        mine = score(row)
        dominated = any(
            (other[0] >= mine[0] and other[1] <= mine[1]) and (other[0] > mine[0] or other[1] < mine[1])
            for other in (score(r) for r in rows)
        )
        marks.append(not dominated)
    return marks


def best_index(rows: Sequence[dict[str, Any]], objective: str, constraints: Sequence[Constraint]) -> int | None:
    """The row with the best objective among those meeting every constraint (ties: lower
    harm, then grid order)."""
    allowed = [k for k, row in enumerate(rows) if all(c.holds(row) for c in constraints)]
    if not allowed:
        return None

    def key(k):
        value = rows[k].get(objective)
        return (-(value if value is not None else -math.inf), rows[k]["harm"], k)

    return min(allowed, key=key)


def stratified_split(kinds: Sequence[str], fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, test) trace indices: ``fraction`` of each kind (loop, healthy, unlabelled)
    held out, reproducibly for a seed."""
    rng = random.Random(seed)
    train, test = [], []
    for kind in (POSITIVE, NEGATIVE, UNLABELLED):
        members = [k for k, v in enumerate(kinds) if v == kind]
        rng.shuffle(members)
        cut = round(len(members) * fraction)
        test += members[:cut]
        train += members[cut:]
    return sorted(train), sorted(test)


def stratified_folds(kinds: Sequence[str], folds: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    out: list[list[int]] = [[] for _ in range(folds)]
    offset = 0
    for kind in (POSITIVE, NEGATIVE, UNLABELLED):
        members = [k for k, v in enumerate(kinds) if v == kind]
        rng.shuffle(members)
        for j, member in enumerate(members):
            out[(offset + j) % folds].append(member)
        offset += len(members)
    return [sorted(f) for f in out]


def _values_of(settings: Settings | None, points: Sequence[GridPoint]) -> dict[str, Any]:
    """The value each dimension has in ``settings`` (the preset's name for ``preset``)."""
    if settings is None or not points:
        return {}
    out: dict[str, Any] = {}
    for key, _ in points[0].values:
        if key == "preset":
            out[key] = settings.preset
        else:
            code, option = key.split(".", 1)
            if code in settings.options:
                out[key] = getattr(settings.options[code], option)
    return out


def disagreements(
    points: Sequence[GridPoint],
    outcomes: Sequence[Sequence[Outcome]],
    ids: Sequence[str],
    kinds: Sequence[str],
    current: dict[str, Any] | None = None,
    limit: int = 8,
    grades: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Where one dimension alone changes what happens to a trace: grid points equal in
    every other dimension whose policies first intervene at different rounds (or one not
    at all). Per dimension and trace, the settings of the other dimensions shown are the
    ``current`` ones (key → value: what the user runs today) when the values disagree
    there, else a case where one value catches and another misses, else the first;
    ``groups`` says in how many of the other dimensions' settings they disagree.
    Labelled loops first, ``limit`` traces per dimension. ``outcome`` is each trace's
    graded outcome (``grades``: success, failure or unknown), so that a graded run the
    loop labels leave unlabelled is named by its grade."""
    current = current or {}
    if not points:
        return []
    keys = [key for key, _ in points[0].values]
    out = []
    for position, key in enumerate(keys):
        groups: dict[tuple, list[int]] = {}
        for j, point in enumerate(points):
            rest = tuple(repr(v) for i, (_, v) in enumerate(point.values) if i != position)
            groups.setdefault(rest, []).append(j)
        found: dict[int, dict[str, Any]] = {}
        for t in range(len(ids)):
            candidates = []
            for members in groups.values():
                if len(members) < 2:
                    continue
                # (value, first round) pairs, not a dict: a list option's values (lists) are no keys
                rounds = [(points[j].values[position][1], outcomes[t][j].first_round) for j in members]
                if len({first for _, first in rounds}) > 1:
                    others = [(k, v) for i, (k, v) in enumerate(points[members[0]].values) if i != position]
                    as_today = all(k in current and current[k] == v for k, v in others)
                    candidates.append(((not as_today, all(first is not None for _, first in rounds)), members, rounds))
            if not candidates:
                continue
            _, members, rounds = min(candidates, key=lambda c: c[0])
            other = {k: v for i, (k, v) in enumerate(points[members[0]].values) if i != position}
            found[t] = {
                "dimension": key,
                "trace": ids[t],
                "kind": kinds[t],
                "outcome": grades[t] if grades is not None else "unknown",
                "first_round": [[value, first] for value, first in rounds],
                "with": other,
                "groups": len(candidates),
                "of": sum(1 for members in groups.values() if len(members) > 1),
            }
        ranked = sorted(found.items(), key=lambda item: (item[1]["kind"] != POSITIVE, item[0]))
        out += [item for _, item in ranked[:limit]]
    return out


# --- the sweep ---------------------------------------------------------------------


@mutable_dataclass
class SweepResult:
    points: list[GridPoint]
    rows: list[dict[str, Any]]  # metrics per point, on the traces the choice is made on
    pareto: list[bool]
    best: int | None  # index into points/rows
    baseline: dict[str, Any] | None  # the current settings' metrics, same traces
    objective: str
    constraints: list[Constraint]
    traces: int
    validation: dict[str, Any] | None = None  # holdout or folds
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    # With hand-labelled runs: per point (grid order), then the current settings', on every trace.
    benchmark: list[Score] | None = None
    baseline_benchmark: Score | None = None
    recommendation: Any = None  # a recommend.Recommendation: whether the best point is worth a change


def benchmark_scores(features: Sequence[TraceFeatures], unread: Sequence[RunVerdict] = ()) -> list[Score] | None:
    """Per setting (each trace's ``outcomes``), the labelled runs scored; None when no
    trace or unread entry carries a hand label."""
    if not unread and all(f.label is None for f in features):
        return None
    settings = len(features[0].outcomes) if features else 0
    return [
        Score(
            tuple(
                verdict(f.id, f.file, f.label, f.outcomes[j].stopped_at, () if f.outcomes[j].first_fire is None else (f.outcomes[j].first_fire,))
                for f in features
                if f.label is not None
            )
            + tuple(unread)
        )
        for j in range(settings)
    ]


def sweep(
    traces: Sequence[Trace],
    points: Sequence[GridPoint],
    *,
    baseline: Settings | None = None,
    jobs: int = 1,
    on_progress: Callable[[int, int], Any] | None = None,
    **choice: Any,
) -> SweepResult:
    """``sweep_features`` of ``traces`` held in memory (``choice``: its objective,
    constraints, holdout, folds, seed and labels). ``jobs`` above 1 splits the traces
    over that many processes; ``on_progress(done, traces)``. (``read_features`` reads
    the traces one at a time instead.)"""
    forget_remembered()  # what the last run remembered is not this run's
    features = evaluate_features(traces, settings_of(points, baseline), jobs=jobs, on_progress=on_progress)
    return sweep_features(features, points, baseline=baseline, **choice)


def settings_of(points: Sequence[GridPoint], baseline: Settings | None) -> list[Settings]:
    """The settings a sweep replays: every grid point's, then the current ones."""
    return [p.settings for p in points] + ([baseline] if baseline is not None else [])


def sweep_features(
    features: Sequence[TraceFeatures],
    points: Sequence[GridPoint],
    *,
    baseline: Settings | None = None,
    objective: str = "tokens_saved",
    constraints: Sequence[Constraint] = (),
    holdout: float | None = None,
    folds: int | None = None,
    seed: int = 0,
    labels=None,
) -> SweepResult:
    """Evaluate every grid point (and the current settings) from the traces' features
    (``read_features`` or ``evaluate_features`` under ``settings_of(points,
    baseline)``); rank them, mark the Pareto front, choose the best under the
    constraints. With ``holdout`` the choice is made on the training part and reported
    on the rest; with ``folds`` it is made K times, each time reported on the fold left
    out. ``labels``: the labels file (``Labels``) the traces were read through, whose
    hand-labelled entries that matched no trace the benchmark counts as not read."""
    settings = settings_of(points, baseline)
    outcomes = [f.outcomes for f in features]
    kinds = [f.kind for f in features]
    grades = [f.grade for f in features]
    wholes = [f.whole for f in features]

    def rows_on(indices: Sequence[int]) -> list[dict[str, Any]]:
        return [
            metrics([outcomes[i][j] for i in indices], [wholes[i] for i in indices], [kinds[i] for i in indices], [grades[i] for i in indices])
            for j in range(len(settings))
        ]

    everything = list(range(len(features)))
    validation = None
    choose_on = everything
    if holdout:
        train, test = stratified_split(kinds, holdout, seed)
        choose_on = train
    all_rows = rows_on(choose_on)
    rows, base = all_rows[: len(points)], (all_rows[-1] if baseline is not None else None)
    asked = list(constraints)
    constraints = with_harm_ceiling(asked, base)
    best = best_index(rows, objective, constraints)
    if holdout:
        test_rows = rows_on(test)
        validation = {
            "kind": "holdout",
            "fraction": holdout,
            "seed": seed,
            "train": len(train),
            "test": len(test),
            "best_on_test": test_rows[best] if best is not None else None,
            "baseline_on_test": test_rows[-1] if baseline is not None else None,
        }
    elif folds:
        if folds > len(features):
            from ..input.diagnostics import TracecheckError

            raise TracecheckError(f"--folds {folds}: there are only {len(features)} traces")
        parts = stratified_folds(kinds, folds, seed)
        chosen = []
        for k, held in enumerate(parts):
            train = [i for i in everything if i not in set(held)]
            fold_rows = rows_on(train)
            fold_base = fold_rows[-1] if baseline is not None else None
            fold_best = best_index(fold_rows[: len(points)], objective, with_harm_ceiling(asked, fold_base))
            held_rows = rows_on(held) if held else None
            test_row = held_rows[fold_best] if fold_best is not None and held_rows else None
            current_row = held_rows[-1] if held_rows and baseline is not None else None
            chosen.append({"fold": k + 1, "traces": len(held), "best": fold_best, "test": test_row, "current_test": current_row})
        validation = {"kind": "folds", "folds": folds, "seed": seed, "per_fold": chosen}
    ids = [f.id for f in features]
    # The benchmark is scored on every trace, whatever part the choice is made on.
    scores = benchmark_scores(features, unread_verdicts(labels))
    result = SweepResult(
        benchmark=scores[: len(points)] if scores is not None else None,
        baseline_benchmark=scores[-1] if scores is not None and baseline is not None else None,
        disagreements=disagreements(points, [row[: len(points)] for row in outcomes], ids, kinds, current=_values_of(baseline, points), grades=grades),
        points=list(points),
        rows=rows,
        pareto=pareto(rows, objective),
        best=best,
        baseline=base,
        objective=objective,
        constraints=list(constraints),
        traces=len(choose_on),
        validation=validation,
    )
    from .recommend import recommend

    result.recommendation = recommend(result, _values_of(baseline, points))
    return result
