"""The README's comparison of presets: what each one catches and misses.

First the real labelled runs, per family (one agent on one benchmark: a folder of
``tests/corpus/`` with its ``labels.json``; ``benchmarks/quality.py`` finds them): every
preset scored on each family's hand-labelled runs, the figures ``tracecheck sweep``
prints for them::

    tracecheck sweep --preset ALL --labels tests/corpus/CodeTracer/labels.json tests/corpus/CodeTracer

then on all of them together, and `default` chosen without looking at each family
(leave one family out: ``python benchmarks/quality.py``).

Then the samples: every preset replays the labelled samples (their ``expect`` events for ``policy``: a
loop the preset must stop by some round, or a healthy run it must leave alone) and the
loop-free real runs of ``tests/corpus/`` (which it must not stop). A cell says whether
the preset got that trace right; the last rows count what it got wrong and what it saves.

    python scripts/preset_table.py            # print the table
    python scripts/preset_table.py --write    # put it into README.md between the markers
    python scripts/preset_table.py --check    # exit 1 if README.md's copy is stale
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's tracecheck, not an installed one

from tracecheck.config import load_settings  # noqa: E402
from tracecheck.engine.batch import replay_paths  # noqa: E402
from tracecheck.presets import PRESETS  # noqa: E402
from tracecheck.reports.sweep_report import BENCHMARK_NOTE, benchmark_heading, benchmark_markdown  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START, END = "<!-- preset-table:start -->", "<!-- preset-table:end -->"
sys.path.insert(0, str(ROOT / "benchmarks"))
import quality  # noqa: E402  (the families, their figures and leave-one-family-out)

# Real runs written by other projects that hold no loop: no preset should stop them.
# (τ²-bench dialogues are counted separately: a share of the successful ones.)
CORPUS_HEALTHY = (
    "tests/corpus/SWE-agent/marshmallow-code__marshmallow-1867.traj",
    "tests/corpus/mini-swe-agent/github_issue.traj.json",
    "tests/corpus/OpenHands/wrong_initial_state.json",
    "tests/corpus/OpenHands/basic.json",
    "tests/corpus/OpenHands/basic_interactions.json",
    "tests/corpus/inspect_ai/2025-05-12T20-27-36-04-00_browser.json",
)
TAU = "tests/corpus/tau2-bench"


def sweep_command(family: quality.Family) -> str:
    """The command whose benchmark table the README shows for ``family``."""
    folder = family.folder.relative_to(ROOT).as_posix()
    return f"tracecheck sweep --preset ALL --labels {folder}/{quality.SIDECAR} {folder}"


def bench_of(by_preset: dict[str, dict]) -> dict:
    """Per-preset figures as the sweep's JSON ``benchmark`` has them (for its writers)."""
    from tracecheck.engine.scoring import SLACK

    return {"slack": SLACK, "points": [{"values": {"preset": name}, "label": f"preset={name}", **fig} for name, fig in by_preset.items()], "baseline": None}


LOFO_COLUMNS = (
    ("loops stopped in time", "loops_stopped_in_time", "loops"),
    ("healthy runs cut", "healthy_cut", "healthy"),
    ("successful runs cut", "successes_cut", "successes"),
    ("mixed runs flagged", "mixed_flagged", "mixed"),
    ("mixed runs stopped", "mixed_stopped", "mixed"),
)
TARGET_WORDS = {
    "loops_stopped_in_time": "loops in time", "healthy_cut": "healthy cut", "successes_cut": "successes cut",
    "mixed_flagged": "mixed flagged", "mixed_stopped": "mixed stopped",
}


def _missed(checked: dict) -> str:
    missed = [f"{TARGET_WORDS[name]} ({t['share']:.0%}, target {t['target']})" for name, t in checked.items() if not t["met"]]
    return ", ".join(missed) if missed else "none"


def lofo_markdown(data: dict) -> list[str]:
    """Leave one family out: each family's figures under the rules chosen on the others,
    beside default's own figures there."""
    lofo = data["leave_one_family_out"]
    names = [f["name"] for f in data["families"]]
    lines = [
        "| family left out | settings | " + " | ".join(title for title, _, _ in LOFO_COLUMNS) + " | targets missed |",
        "|---|---|" + "--:|" * len(LOFO_COLUMNS) + "---|",
    ]
    for name in [*names, "total"]:
        entry = lofo[name]
        shown = name if name != "total" else "all (each family held out)"
        for label, fig, checked in (
            ("`default` chosen without it", entry["figures"], entry["targets"]),
            ("`default`", entry["default"], quality.targets(entry["default"])),
        ):
            cells = [f"{fig[c]} of {fig[w]}" for _, c, w in LOFO_COLUMNS]
            lines.append(f"| {shown} | {label} | " + " | ".join(cells) + f" | {_missed(checked)} |")
    lines.append("")
    for name in names:
        left = lofo[name]["rules_of_default_left_out"]
        taken = lofo[name]["changes_taken"]
        lines.append(
            f"- without {name}: " + (f"{len(left)} of `default`'s rules not chosen ({'; '.join(left)})" if left else "every rule of `default` chosen")
            + (f"; changes taken: {'; '.join(taken)}" if taken else "")
        )
    return lines


def benchmark_section(data: dict) -> list[str]:
    presets = data["presets"]
    lines = []
    for family in quality.families():
        bench = bench_of({name: by_family[family.name] for name, by_family in presets.items()})
        lines += [
            f"**{family.name}**: {benchmark_heading(bench)}. Made by `{sweep_command(family)}`:",
            "",
            benchmark_markdown(bench).rstrip("\n"),
            "",
        ]
    total = bench_of({name: by_family["total"] for name, by_family in presets.items()})
    note = BENCHMARK_NOTE.format(slack=total["slack"])
    lines += [
        f"**All families**: {benchmark_heading(total)}. Made by `python benchmarks/quality.py`:",
        "",
        benchmark_markdown(total).rstrip("\n"),
        "",
        note + ".",
        "",
        "**`default` chosen without looking at the family it is scored on** (leave one family out, "
        "`python benchmarks/quality.py`): for each family, `default`'s rules (the candidates in `RULES` there) "
        "are chosen on the other families only, starting without them and taking one only when it stops more "
        "loops in time or flags more mixed runs, or harms less, and raises no family's harm; the family's "
        "figures under that choice, then under `default` as it is:",
        "",
        *lofo_markdown(data),
        "",
        "**Samples** (and the loop-free real runs of other formats):",
        "",
    ]
    return lines


def _replay_all(paths: list[str]):
    names = list(PRESETS)
    by_name = {name: load_settings(preset=name, cwd=ROOT) for name in names}
    return names, replay_paths(paths, by_name[names[0]], presets=by_name)


def _verdict(result, corpus: bool) -> tuple[bool | None, str]:
    """(right?, what happened) for one preset on one trace."""
    stops, stale, blocks = result.policy.stops, result.policy.stale_blocks, result.policy.blocks
    acts = sorted([*stops, *blocks], key=lambda f: f.round)
    verbs = {"stop": "stops", "abort": "aborts", "block": "blocks"}
    where = f"{verbs[acts[0].action.value]} r{acts[0].round}" if acts else "no stop"
    if stale:
        # A block that answers from a cache the run had made stale feeds the model wrong data.
        return False, where + f", {stale} stale block{'s' if stale > 1 else ''}"
    if corpus:
        return (not stops), where
    checked = [e for e in result.expectations if e.expectation.guard.lower() == "policy"]
    if not checked:
        return None, where
    right = all(e.met for e in checked)
    if right:
        return True, where
    missed = any(e.expectation.fires for e in checked)
    if not missed:
        return False, f"cuts healthy ({where})"
    return False, "misses" if where == "no stop" else f"late ({where})"


@dataclass
class Row:
    label: str
    should: str
    right: dict[str, bool | None]  # per preset: got it right?
    what: dict[str, str]  # per preset: what it did


def rows() -> list[Row]:
    """Per labelled sample and loop-free corpus run: what each preset did, and whether
    that was right."""
    samples = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sample_traces").glob("*.jsonl"))
    names, report = _replay_all(samples + list(CORPUS_HEALTHY))
    out = []
    for result, by_preset in zip(report.results, report.preset_results):
        trace = result.trace
        corpus = trace.file in CORPUS_HEALTHY
        policy = [e for e in result.expectations if e.expectation.guard.lower() == "policy"]
        if corpus:
            should = "no stop (real run, no loop)"
        elif policy:
            exp = policy[0].expectation
            should = f"stop by r{exp.by_round}" if exp.fires and exp.by_round else "stop" if exp.fires else "no stop"
        else:
            continue
        verdicts = {name: _verdict(by_preset[name], corpus) for name in names}
        label = trace.id if not corpus else Path(trace.file).parent.name + "/" + Path(trace.file).name
        out.append(Row(label, should, {n: v[0] for n, v in verdicts.items()}, {n: v[1] for n, v in verdicts.items()}))
    return out


def tau_stopped() -> dict[str, tuple[int, int]]:
    """Per preset: (successful τ²-bench dialogues it stops, successful dialogues)."""
    names, tau = _replay_all([TAU])
    out = {}
    for name in names:
        success = [p[name] for p in tau.preset_results if p[name].trace.outcome == "success"]
        out[name] = (sum(1 for r in success if r.policy.stops), len(success))
    return out


def _summary(names: list[str], table_rows: list[Row], tau: dict[str, tuple[int, int]]) -> list[str]:
    loops = [r for r in table_rows if r.should.startswith("stop")]
    healthy = [r for r in table_rows if not r.should.startswith("stop")]
    lines = [
        "| preset | loops stopped (or blocked) in time | healthy runs left alone | successful τ²-bench dialogues stopped | gets wrong |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        caught = sum(1 for r in loops if r.right[name])
        spared = sum(1 for r in healthy if r.right[name])
        wrong = [f"`{r.label}` ({r.what[name]})" for r in table_rows if r.right[name] is False]
        shown = ", ".join(wrong[:4]) + (f" and {len(wrong) - 4} more" if len(wrong) > 4 else "") if wrong else "nothing"
        lines.append(
            f"| `{name}` | {caught} of {len(loops)} | {spared} of {len(healthy)} | {tau[name][0]} of {tau[name][1]} | {shown} |"
        )
    return lines


def table() -> str:
    names = list(PRESETS)
    table_rows = rows()
    tau = tau_stopped()
    lines = benchmark_section(quality.report()) + _summary(names, table_rows, tau)
    lines += [
        "",
        "<details><summary>Per trace: what each preset does (✓ right, ✗ wrong; rN = round N)</summary>",
        "",
        "| trace | should | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for row in table_rows:
        cells = [("✓ " if row.right[name] else "✗ ") + row.what[name] for name in names]
        lines.append(f"| `{row.label}` | {row.should} | " + " | ".join(cells) + " |")
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = table()
    if not (args.write or args.check):
        sys.stdout.write(text)
        return 0
    readme = README.read_text(encoding="utf-8")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    updated = head + START + "\n" + text + END + tail
    if args.check:
        if updated != readme:
            print("README.md's preset table is stale: run python scripts/preset_table.py --write", file=sys.stderr)
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
