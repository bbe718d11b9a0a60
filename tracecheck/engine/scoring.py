"""Scoring a policy against hand-labelled runs: the figures of a labelled benchmark, and
what **harm** is (one definition, :func:`harm`, that ``replay``, ``check``, ``sweep`` and
the benchmark all call).

A run labelled (sidecar ``kind``, ``stop_by``, ``fire_by``, ``outcome``; see
``tracecheck.input.labels``) is one of

- **loop**: it should be stopped by round ``stop_by``. *Stopped in time*: the policy's
  first stop is at most one round later (``SLACK``: labels that count a scripted
  greeting as a round, like τ²-bench's, are one round ahead of tracecheck's); *stopped
  at all*: any stop. A block does not count: only a stop ends the waste.
- **healthy**: any stop *cuts* it.
- **mixed**: a stall to flag that the run recovers from. *Flagged*: any guard fires
  (a hint is enough) by round ``fire_by`` + ``SLACK``; *stopped*: any stop, which cuts
  the recovery.

and, whatever its kind but loop, a run labelled ``outcome: success`` that the policy
stops is a *successful run cut*. A labelled run no trace matched is *not read*. A cut
healthy run, a successful run cut and a stopped mixed run are the three faces of
:func:`harm`.

These are exactly the figures of the reference scorer the project is measured with
(``score_labels.py``), computed from replay results instead of a JSON report::

    from tracecheck.engine.scoring import score_results
    score = score_results(replay_paths(paths, settings, labels=sidecar).results, unread=unread_entries(sidecar))
    print(score.summary())
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass

SLACK = 1  # rounds a stop (or a mixed run's fire) may come after the labelled one

LOOP, HEALTHY, MIXED = "loop", "healthy", "mixed"
SUCCESS = "success"  # a reason of harm: the run is labelled a success


def harm(stopped: bool, kind: str | None, outcome: str | None, policy_expects_stop: bool | None = None) -> tuple[str, ...]:
    """**Harm**, the one definition (README, "What harm is"): why the policy's stop of a
    run harms it, as reasons among ``success``, ``healthy`` and ``mixed``; ``()`` when it
    does not. ``replay``'s harm, ``check``'s harm findings, ``sweep``'s ``harmed`` and
    ``harm`` and the benchmark's cut, successful-cut and mixed-stopped figures all call it.

    - ``stopped``: the policy stops (or aborts) the run somewhere the recorded run did
      not stop itself, in any turn (after a forced reply the later turns of a dialogue
      need not happen as recorded);
    - ``kind``: the hand label (loop, healthy, mixed) or None; ``outcome``: the graded
      outcome (``success`` counts; failure and unknown do not);
    - ``policy_expects_stop``: the run's own ``policy`` expectation, if any (True: the
      policy must intervene; False: it must stay quiet, which ``check`` and ``replay``
      judge as an expectation).

    A stop harms a run labelled a success (``success``), a run labelled healthy
    (``healthy``) and a mixed run, a stall the run recovers from (``mixed``: the stop
    cuts the recovery); a run may have two reasons (a successful healthy run). It never
    harms a run whose labels ask for the stop (a ``policy`` expectation that the policy
    intervene, or else ``kind: loop``), whatever its outcome: the loop is what the label
    is about, and a stop after the labelled round counts as *late* (a broken
    expectation, a loop not stopped in time), not as harm."""
    if not stopped or policy_expects_stop is True or (policy_expects_stop is None and kind == LOOP):
        return ()
    reasons = []
    if outcome == SUCCESS:
        reasons.append(SUCCESS)
    if kind in (HEALTHY, MIXED):
        reasons.append(kind)
    return tuple(reasons)


def harm_subject(reasons: Sequence[str]) -> str:
    """What the labels say of a harmed run, in words: "the run is labelled a success"."""
    words = {SUCCESS: "a success", HEALTHY: "healthy", MIXED: "mixed (a stall it recovers from)"}
    return "the run is labelled " + " and ".join(words[r] for r in reasons)


def policy_expectation(expectations) -> bool | None:
    """The first ``policy`` expectation of a trace: must the policy intervene (True) or
    stay quiet (False)? None when there is none."""
    for exp in expectations:
        if exp.guard.lower() == "policy":
            return bool(exp.fires)
    return None


def own_stops(stops) -> bool:
    """Whether the policy stops a run where the recorded run did not stop itself (a
    recording of a live run stopped there already: the stop changes nothing)."""
    return any(not getattr(s, "already_stopped", False) for s in stops)


@frozen_dataclass(slots=True)
class RunLabel:
    kind: str  # loop | healthy | mixed
    stop_by: int | None = None
    fire_by: int | None = None
    outcome: str = "unknown"
    why: str | None = None


def run_label(labels: Mapping[str, str]) -> RunLabel | None:
    """The hand label among a trace's labels (as the sidecar puts it there), or None."""
    kind = str(labels.get("kind", "")).strip().lower()
    if kind not in (LOOP, HEALTHY, MIXED):
        return None
    return RunLabel(kind, _round(labels.get("stop_by")), _round(labels.get("fire_by")), labels.get("outcome", "unknown"), labels.get("why"))


def _round(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and int(text) > 0 else None


@frozen_dataclass(slots=True)
class RunVerdict:
    """What a policy did to one labelled run, judged."""

    trace: str
    file: str | None  # None for a labelled run no trace matched
    label: RunLabel
    stopped_at: int | None = None  # the policy's first stop
    first_fire: int | None = None  # any guard's first fire, hints too
    read: bool = True
    own_stop: bool | None = None  # a stop the recorded run did not make itself (None: any stop)
    expects_stop: bool | None = None  # the run's own policy expectation, if any

    @property
    def stopped(self) -> bool:
        return self.read and self.stopped_at is not None

    @property
    def caught(self) -> bool:
        """A loop stopped in time."""
        if not (self.label.kind == LOOP and self.stopped):
            return False
        return self.label.stop_by is None or self.stopped_at <= self.label.stop_by + SLACK  # no round given: stopped at all

    @property
    def harm(self) -> tuple[str, ...]:
        """Why the policy's stop harms this run (:func:`harm`), or ()."""
        stopped = self.stopped and (self.own_stop is None or self.own_stop)
        return harm(stopped, self.label.kind, self.label.outcome, self.expects_stop)

    @property
    def cut(self) -> bool:
        """A healthy run stopped."""
        return self.label.kind == HEALTHY and HEALTHY in self.harm

    @property
    def harmed(self) -> bool:
        """Any harm (:func:`harm`): a successful, healthy or mixed run stopped."""
        return bool(self.harm)

    @property
    def success_cut(self) -> bool:
        """A successful run (not labelled a loop) stopped."""
        return SUCCESS in self.harm

    @property
    def mixed_stopped(self) -> bool:
        """A mixed run stopped: its recovery cut."""
        return MIXED in self.harm

    @property
    def flagged(self) -> bool:
        """A mixed run fired on by its fire round."""
        fire_by = self.label.fire_by
        return self.label.kind == MIXED and self.read and bool(fire_by) and self.first_fire is not None and self.first_fire <= fire_by + SLACK

    @property
    def verdict(self) -> str:
        """One word, as the reference scorer's verbose lines say it (``ok`` when they
        say nothing); a mixed run's words are joined: ``unflagged+stopped+harm`` (not
        flagged in time, stopped, and labelled a success)."""
        if not self.read:
            return "unread"
        kind = self.label.kind
        if kind == LOOP:
            return "caught" if self.caught else "late" if self.stopped else "missed"
        if kind == HEALTHY:
            return "cut" if self.cut else "ok"
        words = ["flagged" if self.flagged else "unflagged"]
        if self.mixed_stopped:
            words.append("stopped")
        if self.success_cut:
            words.append("harm")
        return "+".join(words)

    def as_dict(self) -> dict[str, Any]:
        return {
            "trace": self.trace,
            "file": self.file,
            "kind": self.label.kind,
            "stop_by": self.label.stop_by,
            "fire_by": self.label.fire_by,
            "outcome": self.label.outcome,
            "stopped_at": self.stopped_at,
            "first_fire": self.first_fire,
            "verdict": self.verdict,
        }


@frozen_dataclass
class Score:
    """The figures over a set of labelled runs, and the runs' verdicts."""

    runs: tuple[RunVerdict, ...] = field(default_factory=tuple)

    def _count(self, test) -> int:
        return sum(1 for r in self.runs if test(r))

    @property
    def loops(self) -> int:
        return self._count(lambda r: r.label.kind == LOOP)

    @property
    def healthy(self) -> int:
        return self._count(lambda r: r.label.kind == HEALTHY)

    @property
    def mixed(self) -> int:
        return self._count(lambda r: r.label.kind == MIXED)

    @property
    def successes(self) -> int:
        """Runs labelled a success, loops aside (their stop is what the label asks)."""
        return self._count(lambda r: r.label.kind != LOOP and r.label.outcome == "success")

    @property
    def caught(self) -> int:
        return self._count(lambda r: r.caught)

    @property
    def caught_any(self) -> int:
        return self._count(lambda r: r.label.kind == LOOP and r.stopped)

    @property
    def healthy_cut(self) -> int:
        return self._count(lambda r: r.cut)

    @property
    def successes_cut(self) -> int:
        return self._count(lambda r: r.success_cut)

    @property
    def mixed_stopped(self) -> int:
        return self._count(lambda r: r.mixed_stopped)

    @property
    def harmed(self) -> int:
        """Runs harmed (:func:`harm`): healthy cut, successful cut or mixed stopped, each once."""
        return self._count(lambda r: r.harmed)

    @property
    def mixed_flagged(self) -> int:
        return self._count(lambda r: r.flagged)

    @property
    def unread(self) -> int:
        return self._count(lambda r: not r.read)

    def figures(self) -> dict[str, Any]:
        """The figures (and what they are out of), for reports."""
        return {
            "runs": len(self.runs),
            "loops": self.loops,
            "loops_stopped_in_time": self.caught,
            "loops_stopped": self.caught_any,
            "healthy": self.healthy,
            "healthy_cut": self.healthy_cut,
            "successes": self.successes,
            "successes_cut": self.successes_cut,
            "mixed": self.mixed,
            "mixed_flagged": self.mixed_flagged,
            "mixed_stopped": self.mixed_stopped,
            "harmed": self.harmed,
            "unread": self.unread,
        }

    def summary(self) -> str:
        """The reference scorer's summary line, character for character."""
        loops = max(1, self.loops)
        return (
            f"loops stopped in time {self.caught}/{self.loops} ({self.caught / loops:.0%}), at all {self.caught_any}; "
            f"healthy cut {self.healthy_cut}/{self.healthy} ({self.healthy_cut / max(1, self.healthy):.1%}); "
            f"successful runs cut {self.successes_cut}/{self.successes}; mixed flagged {self.mixed_flagged}/{self.mixed}, stopped {self.mixed_stopped}; "
            f"unread {self.unread}/{len(self.runs)}"
        )


def verdict(
    trace: str, file: str | None, label: RunLabel, stopped_at: int | None, fire_rounds: Iterable[int], own_stop: bool | None = None, expects_stop: bool | None = None
) -> RunVerdict:
    return RunVerdict(trace, file, label, stopped_at, min(fire_rounds, default=None), own_stop=own_stop, expects_stop=expects_stop)


def unread_verdicts(labels) -> list[RunVerdict]:
    """The hand-labelled entries of a loaded labels file (``Labels``) that matched no
    trace, after the traces were read through it."""
    if labels is None:
        return []
    from ..input.labels import kind_labels

    out = []
    for entry in labels.entries:
        if entry.kind and not entry.matched:
            label = run_label({**kind_labels(entry), "outcome": entry.outcome or "unknown"})
            out.append(RunVerdict(entry.trace, None, label, read=False))
    return out


def score_results(results: Iterable[Any], unread: Sequence[RunVerdict] = ()) -> Score:
    """Score replay results (``TraceResult``) whose traces carry a hand label; traces
    without one are left out. ``unread``: labelled runs no trace matched."""
    runs = []
    for result in results:
        label = run_label(result.trace.labels)
        if label is not None:
            runs.append(
                verdict(
                    result.trace.id, result.trace.file, label, result.policy.stopped_at, (f.round for f in result.fires),
                    own_stops(result.policy.stops), policy_expectation(result.trace.expectations),
                )
            )
    return Score(tuple(runs) + tuple(unread))
