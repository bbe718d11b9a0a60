"""How good is each preset on the labelled real runs, family by family, and would
`default`'s rules be chosen without looking at the family they are scored on?

A **family** is one folder of ``tests/corpus/`` holding a labels sidecar named
``labels.json`` in tracecheck's format (``{"version": 1, "traces": [...]}``: README,
"Labels for traces in other formats"): one agent on one benchmark. A folder added with
its ``labels.json`` is a family the next run reports, with no change here.

    python benchmarks/quality.py            # every preset per family and in total, then leave-one-family-out
    python benchmarks/quality.py --json     # the same as JSON (the tests read it)
    python benchmarks/quality.py --pin      # write tests/default_verdicts.json: default's verdict on every run

**Per family**, every preset's figures on its labelled runs (``tracecheck.engine.scoring``,
what ``tracecheck sweep --preset ALL --labels FAMILY/labels.json FAMILY`` prints): loops
stopped by their round (one round of slack), healthy runs cut, successful runs cut, mixed
runs flagged, mixed runs stopped, labelled runs not read; the last three harms are the
README's "What harm is".

**Leave one family out.** ``RULES`` below is the list of candidate rules for ``default``,
each a named change of its settings (``--set`` assignments): a rule ``default`` has
(``without``: the assignments that take it away) or one it has not (``change``: the
assignments that add it). For each family F, the rules are chosen on the *other*
families only:

1. start from ``default`` without any of its listed rules (every ``without`` applied);
2. try the rules one at a time, in the order of ``RULES`` (greedy, one pass); a rule is
   taken when, on the other families, it is a step forward that hurts no family:
   loops stopped in time and mixed runs flagged (summed over them) do not fall, no
   family's harm (healthy runs cut, successful runs cut, mixed runs stopped, each
   counted per family) rises, and something improves (more loops in time or mixed runs
   flagged, or less harm somewhere). A rule that only lowers harm is taken: harm is
   what the choice must not buy loops with, and less of it is progress too;
3. F's figures are then scored under the rules chosen, and compared with issue 34's
   targets: >= 95% of the loops stopped in time, <= 1% of the healthy runs cut, no
   successful run cut, >= 90% of the mixed runs flagged, <= 20% of them stopped (a
   target over no runs is met).

A rule that only one family asks for is never chosen for that family's own figures:
that is the point. Replays are cached per trace and guard configuration (a grid point
re-runs only the policy, as ``sweep`` does) and per settings, so the whole report takes
a few seconds.

Adding a candidate rule is one line in ``RULES``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tracecheck.config import Settings, load_settings  # noqa: E402
from tracecheck.engine.replay import GuardSpec, ReplayCache  # noqa: E402
from tracecheck.engine.scoring import HEALTHY, LOOP, MIXED, RunVerdict, Score, own_stops, policy_expectation, run_label, unread_verdicts, verdict  # noqa: E402
from tracecheck.engine.sweep import load_all  # noqa: E402
from tracecheck.input.diagnostics import Diagnostics  # noqa: E402
from tracecheck.input.labels import load_labels  # noqa: E402
from tracecheck.presets import PRESETS  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
SIDECAR = "labels.json"  # every family's labels, in tracecheck's sidecar format
PINNED = ROOT / "tests" / "default_verdicts.json"


@dataclass(frozen=True)
class Rule:
    """A candidate rule for ``default``: ``without`` takes away a rule default has,
    ``change`` adds one it has not (each a ``--set`` assignment or a tuple of them)."""

    name: str
    without: str | tuple[str, ...] = ()
    change: str | tuple[str, ...] = ()

    def sets(self, taken: bool) -> tuple[str, ...]:
        value = self.change if taken else self.without
        return (value,) if isinstance(value, str) else tuple(value)


# The candidates, in the order the choice tries them. One line each.
RULES: tuple[Rule, ...] = (
    # Rules default has: the choice starts without them, each must earn its place.
    Rule("P001 compares each search tool's queries among themselves", without="P001.same_tool=false"),
    Rule("P004 normalises volatile text (timestamps, ids)", without="P004.normalize_volatile=false"),
    Rule("R003 needs the earlier laps' results to repeat", without="R003.compare_results=false"),
    Rule("R003 stops at the 3rd lap's first call", without="R003.last_lap_start=false"),
    Rule("R003 matches a re-applied edit by its call", without="R003.changes_by_signature=false"),
    Rule("F001 counts one response's parallel failures once", without="F001.per_response=false"),
    Rule("F001 leaves shells to F003", without="F001.exempt_tools="),
    Rule("F001 starts again after an edit", without="F001.reset_on="),
    Rule("F003 stops a no-op at its 3rd", without="F003.noop_threshold=4"),
    Rule("F003 hints at the 3rd dead end", without="F003.hint_at=0"),
    Rule("T001 hints from the 2nd near-identical reply", without="T001.hint_at=0"),
    Rule("T001 lets tool calls between replies count", without="T001.tool_calls_break=true"),
    Rule("P001 takes a query that adds a path for a narrower search", without="P001.narrowing=false"),
    Rule("P004 waits for a poll's 10th identical answer", without="P004.poll_threshold=0"),
    Rule("F003 stops a not-found answer only for the same target", without="F003.by_target=false"),
    # Changes default has not: thresholds one either way, a guard off.
    Rule("F003 threshold 3", change="F003.threshold=3"),
    Rule("F003 threshold 5", change="F003.threshold=5"),
    Rule("F001 threshold 2", change="F001.threshold=2"),
    Rule("F001 threshold 4", change="F001.threshold=4"),
    Rule("F001 hints at the 3rd failure, stops at the 4th (the ladder)", change=("F001.threshold=4", "F001.hint_at=3", "F001.hint_exempt=false")),
    Rule("F003 no-op threshold 4, hint at 3 (the ladder)", change="F003.noop_threshold=4"),
    Rule("R005 threshold 2", change="R005.threshold=2"),
    Rule("R005 threshold 4", change="R005.threshold=4"),
    Rule("P004 threshold 2", change="P004.threshold=2"),
    Rule("P004 threshold 4", change="P004.threshold=4"),
    Rule("P001 off", change="P001.enabled=false"),
    Rule("P002 off", change="P002.enabled=false"),
    Rule("P004 off", change="P004.enabled=false"),
    Rule("R003 off", change="R003.enabled=false"),
    Rule("R005 off", change="R005.enabled=false"),
    Rule("F001 off", change="F001.enabled=false"),
    Rule("F003 off", change="F003.enabled=false"),
    Rule("T001 off", change="T001.enabled=false"),
    Rule("T002 off", change="T002.enabled=false"),
)

# Issue 34's targets: (figure, out of, at least / at most, share).
TARGETS = (
    ("loops_stopped_in_time", "loops", ">=", 0.95),
    ("healthy_cut", "healthy", "<=", 0.01),
    ("successes_cut", "successes", "<=", 0.0),
    ("mixed_flagged", "mixed", ">=", 0.90),
    ("mixed_stopped", "mixed", "<=", 0.20),
)
BENEFITS = ("loops_stopped_in_time", "mixed_flagged")  # summed over the families the choice sees
HARMS = ("healthy_cut", "successes_cut", "mixed_stopped")  # per family: none may rise
COLUMNS = (  # (title, figure, out of)
    ("loops in time", "loops_stopped_in_time", "loops"),
    ("healthy cut", "healthy_cut", "healthy"),
    ("succ. cut", "successes_cut", "successes"),
    ("mixed flagged", "mixed_flagged", "mixed"),
    ("mixed stopped", "mixed_stopped", "mixed"),
    ("not read", "unread", "runs"),
)


# --- families -------------------------------------------------------------------------


@dataclass
class Family:
    name: str
    folder: Path
    labels: Path
    runs: list[Any] = field(default_factory=list)  # (trace, label, ReplayCache) of its labelled traces
    unread: list[RunVerdict] = field(default_factory=list)


def is_sidecar(path: Path) -> bool:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(value, dict) and "version" in value and isinstance(value.get("traces"), list)


def families(corpus: Path = CORPUS) -> list[Family]:
    """Every folder of ``corpus`` with a ``labels.json`` sidecar, by name."""
    return [Family(p.parent.name, p.parent, p) for p in sorted(corpus.glob(f"*/{SIDECAR}")) if is_sidecar(p)]


class Bench:
    """Every family's labelled traces in memory, each with its replay cache; scores of a
    setting per family, cached."""

    def __init__(self, found: Sequence[Family] | None = None) -> None:
        self.families = list(found if found is not None else families())
        for family in self.families:
            sidecar = load_labels(family.labels)
            traces = load_all([str(family.folder)], diagnostics=Diagnostics(), labels=sidecar)
            family.runs = [(t, run_label(t.labels), ReplayCache(t)) for t in traces if run_label(t.labels) is not None]
            family.unread = unread_verdicts(sidecar)
        self._scores: dict[tuple, dict[str, Score]] = {}

    def scores(self, settings: Settings) -> dict[str, Score]:
        """Per family, the labelled runs scored under ``settings``."""
        specs = [GuardSpec.of(g, settings.options[g.code]) for g in settings.enabled()]
        key = tuple(spec.key for spec in specs)
        if key not in self._scores:
            out = {}
            for family in self.families:
                runs = []
                for trace, label, cache in family.runs:
                    result = cache.replay(specs, expectations=False)
                    policy = result.policy
                    runs.append(
                        verdict(trace.id, trace.file, label, policy.stopped_at, (f.round for f in result.fires), own_stops(policy.stops), policy_expectation(trace.expectations))
                    )
                out[family.name] = Score(tuple(runs) + tuple(family.unread))
            self._scores[key] = out
        return self._scores[key]


def total(scores: dict[str, Score], names: Sequence[str] | None = None) -> Score:
    return Score(tuple(run for name, score in scores.items() if names is None or name in names for run in score.runs))


def figures(score: Score) -> dict[str, Any]:
    return score.figures()


def targets(fig: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target: the share measured (None over no runs) and whether it is met."""
    out = {}
    for name, whole, op, bound in TARGETS:
        share = fig[name] / fig[whole] if fig[whole] else None
        met = share is None or (share >= bound if op == ">=" else share <= bound)
        out[name] = {"share": None if share is None else round(share, 4), "target": f"{op} {bound:.0%}", "met": met}
    return out


# --- leave one family out ---------------------------------------------------------------


def rule_settings(taken: Sequence[Rule]) -> Settings:
    """``default`` with the rules ``taken`` and without the other rules of ``RULES``."""
    chosen = set(taken)
    sets = [s for rule in RULES for s in rule.sets(rule in chosen)]
    return load_settings(preset="default", sets=sets, cwd=ROOT)


def better(before: dict[str, Score], after: dict[str, Score], seen: Sequence[str]) -> bool:
    """Whether ``after`` is a step forward on the families ``seen`` (see the module's doc)."""
    before = {f: before[f].figures() for f in seen}
    after = {f: after[f].figures() for f in seen}
    gain = 0
    for name in BENEFITS:
        old = sum(before[f][name] for f in seen)
        new = sum(after[f][name] for f in seen)
        if new < old:
            return False
        gain += new > old
    for f in seen:
        for name in HARMS:
            old, new = before[f][name], after[f][name]
            if new > old:
                return False
            gain += new < old
    return gain > 0


def choose(bench: Bench, seen: Sequence[str]) -> list[Rule]:
    """The rules taken, greedily in ``RULES``' order, on the families ``seen``."""
    taken: list[Rule] = []
    current = bench.scores(rule_settings(taken))
    for rule in RULES:
        trial = bench.scores(rule_settings([*taken, rule]))
        if better(current, trial, seen):
            taken.append(rule)
            current = trial
    return taken


def leave_one_out(bench: Bench) -> dict[str, Any]:
    names = [f.name for f in bench.families]
    default = bench.scores(load_settings(preset="default", cwd=ROOT))
    out: dict[str, Any] = {}
    held: list[RunVerdict] = []
    for name in names:
        others = [n for n in names if n != name]
        taken = choose(bench, others)
        score = bench.scores(rule_settings(taken))[name]
        held += score.runs
        fig = figures(score)
        out[name] = {
            "rules": [r.name for r in taken],
            "rules_of_default_left_out": [r.name for r in RULES if r.without and r not in taken],
            "changes_taken": [r.name for r in taken if r.change],
            "figures": fig,
            "targets": targets(fig),
            "default": figures(default[name]),
        }
    fig = figures(Score(tuple(held)))
    out["total"] = {"figures": fig, "targets": targets(fig), "default": figures(total(default))}
    return out


def rule_effects(bench: Bench) -> list[dict[str, Any]]:
    """Each rule flipped alone in ``default`` (a rule it has taken away, a change it has
    not made), per family: the change in loops stopped in time, mixed runs flagged and
    runs harmed. What a rule is worth where, before any choice."""
    default = bench.scores(load_settings(preset="default", cwd=ROOT))
    out = []
    for rule in RULES:
        sets = rule.sets(False) if rule.without else rule.sets(True)
        flipped = bench.scores(load_settings(preset="default", sets=list(sets), cwd=ROOT))
        deltas = {}
        for name in default:
            before, after = default[name].figures(), flipped[name].figures()
            deltas[name] = {k: after[k] - before[k] for k in ("loops_stopped_in_time", "mixed_flagged", "harmed")}
        out.append({"rule": rule.name, "flip": "without it" if rule.without else "with it", "sets": list(sets), "change": deltas})
    return out


# --- the report -----------------------------------------------------------------------------


def report(bench: Bench | None = None) -> dict[str, Any]:
    bench = bench or Bench()
    presets: dict[str, Any] = {}
    for preset in PRESETS:
        scores = bench.scores(load_settings(preset=preset, cwd=ROOT))
        presets[preset] = {**{name: figures(score) for name, score in scores.items()}, "total": figures(total(scores))}
    default_scores = bench.scores(load_settings(preset="default", cwd=ROOT))
    return {
        "families": [
            {"name": f.name, "folder": f.folder.relative_to(ROOT).as_posix(), "labels": f.labels.relative_to(ROOT).as_posix(), **_counts(default_scores[f.name])}
            for f in bench.families
        ],
        "rules": [{"name": r.name, "without": list(r.sets(False)), "change": list(r.sets(True))} for r in RULES],
        "presets": presets,
        "default_targets": {name: targets(fig) for name, fig in presets["default"].items()},
        "default_beaten_by": {name: beaten_by(presets, name) for name in presets["default"]},
        "leave_one_family_out": leave_one_out(bench),
        "rule_effects": rule_effects(bench),
        "verdicts": {name: pinned_lines(score) for name, score in default_scores.items()},
    }


def beaten_by(presets: dict[str, Any], family: str) -> list[str]:
    """The presets that put ``default`` off the front on ``family``: at least as many
    loops stopped in time and no more runs harmed (healthy cut, successful cut, mixed
    stopped), one of them strictly."""
    mine = presets["default"][family]
    out = []
    for name, by_family in presets.items():
        other = by_family[family]
        if name == "default":
            continue
        at_least = other["loops_stopped_in_time"] >= mine["loops_stopped_in_time"] and other["harmed"] <= mine["harmed"]
        if at_least and (other["loops_stopped_in_time"] > mine["loops_stopped_in_time"] or other["harmed"] < mine["harmed"]):
            out.append(name)
    return out


def _counts(score: Score) -> dict[str, int]:
    fig = score.figures()
    return {k: fig[k] for k in ("runs", "loops", "healthy", "mixed", "successes")}


def cell(fig: dict[str, Any], count: str, whole: str) -> str:
    return f"{fig[count]}/{fig[whole]}"


def _table(rows: list[tuple[str, dict[str, Any]]]) -> list[str]:
    width = max(len(name) for name, _ in rows)
    head = f"  {'':<{width}}  " + "  ".join(f"{title:>13}" for title, _, _ in COLUMNS)
    lines = [head]
    for name, fig in rows:
        lines.append(f"  {name:<{width}}  " + "  ".join(f"{cell(fig, c, w):>13}" for _, c, w in COLUMNS))
    return lines


def _targets_line(checked: dict[str, dict[str, Any]]) -> str:
    words = {"loops_stopped_in_time": "loops in time", "healthy_cut": "healthy cut", "successes_cut": "successes cut", "mixed_flagged": "mixed flagged", "mixed_stopped": "mixed stopped"}
    parts = []
    for name, t in checked.items():
        shown = "n/a" if t["share"] is None else f"{t['share']:.0%}"
        parts.append(f"{words[name]} {shown} {'✓' if t['met'] else '✗'} ({t['target']})")
    return " · ".join(parts)


def text(data: dict[str, Any]) -> str:
    lines = ["Families (tests/corpus/*/labels.json):"]
    for f in data["families"]:
        lines.append(f"  {f['name']}: {f['runs']} runs ({f['loops']} loops, {f['healthy']} healthy, {f['mixed']} mixed; {f['successes']} successes, loops aside) — {f['labels']}")
    for name in [f["name"] for f in data["families"]] + ["total"]:
        lines += ["", f"{name}:" if name != "total" else "All families:"]
        lines += _table([(preset, by_family[name]) for preset, by_family in data["presets"].items()])
        lines.append("  default: " + _targets_line(data["default_targets"][name]))
        beaten = data["default_beaten_by"][name]
        lines.append("  default on the front of the presets (none stops as many loops in time and harms fewer runs): "
                     + ("yes" if not beaten else "no: " + ", ".join(beaten)))
    lofo = data["leave_one_family_out"]
    lines += ["", "Leave one family out: default's rules chosen on the other families (RULES in benchmarks/quality.py), scored on the family left out:"]
    rows = [(name, lofo[name]["figures"]) for name in [f["name"] for f in data["families"]]] + [("total", lofo["total"]["figures"])]
    lines += _table(rows)
    for name in [f["name"] for f in data["families"]]:
        entry = lofo[name]
        left = entry["rules_of_default_left_out"]
        lines.append(f"  {name}: {_targets_line(entry['targets'])}")
        lines.append(f"    rules chosen without it: {', '.join(entry['rules']) if entry['rules'] else 'none'}")
        lines.append(f"    default's rules not chosen: {', '.join(left) if left else 'none'}")
    lines.append(f"  total: {_targets_line(lofo['total']['targets'])}")
    lines += ["", "Each rule flipped alone in default (loops in time / mixed flagged / runs harmed, change per family; . = none):"]
    for effect in data["rule_effects"]:
        cells = []
        for name, d in effect["change"].items():
            if any(d.values()):
                cells.append(f"{name} {d['loops_stopped_in_time']:+d}/{d['mixed_flagged']:+d}/{d['harmed']:+d}")
        lines.append(f"  {effect['rule']} ({effect['flip']}): {', '.join(cells) if cells else '.'}")
    return "\n".join(lines) + "\n"


# --- default's verdict on every run, pinned ---------------------------------------------------


def run_name(run: RunVerdict) -> str:
    if run.file is None:
        return run.trace
    parts = Path(run.file).parts
    rel = "/".join(parts[parts.index("corpus") + 2 :]) if "corpus" in parts else Path(run.file).name
    return str(Path(rel).parent) if Path(rel).parent.name == run.trace else f"{rel}#{run.trace}"


def pinned_lines(score: Score) -> dict[str, str]:
    """Per run (its name in its family): the label, what default did, the verdict."""
    out = {}
    for run in score.runs:
        label = {LOOP: f"loop, stop by r{run.label.stop_by}", HEALTHY: "healthy", MIXED: f"mixed, flag by r{run.label.fire_by}"}[run.label.kind]
        did = f"stopped at r{run.stopped_at}" if run.stopped_at is not None else "not stopped"
        fired = f"first fire r{run.first_fire}" if run.first_fire is not None else "no fire"
        out[run_name(run)] = f"{label} ({run.label.outcome}) | {did}, {fired} | {run.verdict}"
    return dict(sorted(out.items()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--pin", action="store_true", help=f"write default's verdict on every run to {PINNED.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    data = report()
    if args.pin:
        PINNED.write_text(json.dumps(data["verdicts"], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote default's verdicts on {sum(map(len, data['verdicts'].values()))} runs of {len(data['verdicts'])} families to {PINNED}", file=sys.stderr)
        return 0
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    else:
        sys.stdout.write(text(data))
        print(f"({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
