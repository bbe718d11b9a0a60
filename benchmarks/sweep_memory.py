"""Peak memory of ``tracecheck sweep`` and of the HTML reports as the input grows (issue
24, item 5: a sweep in flat memory). The input at 1× is sample_traces/ and tests/corpus/ side by side; 2× and
8× are that many copies of it (hard links). Each command runs as a child process started
the way a user starts it; its peak memory is the child's own ``ru_maxrss`` (``os.wait4``)
and its time the wall clock (best of ``--repeats``). Printed: the figures at 1×, 2×
and 8×, and the ratios 8×/1× and 2×/1× (the target for memory is ≤ 1.1×: flat). Time
grows with the input by nature; its ratio is for people, not a target. What grows by
nature: the replay HTML page has a table row per trace (about 0.7 KB each) and
timelines for the first 100 traces where a guard fired and 25 where none did.

    python benchmarks/sweep_memory.py [--repeats 1] [--copies 1,2,8] [--labels]

``--labels`` adds the sweeps with tests/corpus/CodeTracer/labels.json (hand labels: the report's
benchmark lists a verdict per labelled run and grid point, which grows with the input by
nature). Figures only: nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import SWEEP_MEMORY_GRID as GRID, Measured, best  # noqa: E402


def replicate(folder: Path, copies: int) -> Path:
    """``copies`` copies of sample_traces/ and tests/corpus/ below ``folder``, hard-linked."""
    target = folder / f"x{copies}"
    for k in range(copies):
        for name, source in (("samples", ROOT / "sample_traces"), ("corpus", ROOT / "tests" / "corpus")):
            shutil.copytree(source, target / f"copy{k}" / name, copy_function=os.link)
    return target


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def commands(labels: bool) -> dict[str, list[str]]:
    tracecheck = [sys.executable, "-m", "tracecheck"]
    out = {
        "sweep json": [*tracecheck, "sweep", "{input}", *GRID, "-f", "json"],
        "sweep terminal": [*tracecheck, "sweep", "{input}", *GRID],
        "sweep html": [*tracecheck, "sweep", "{input}", *GRID, "-f", "html"],
        "replay json (for comparison)": [*tracecheck, "replay", "{input}", "-f", "json"],
        "replay html": [*tracecheck, "replay", "{input}", "-f", "html"],
    }
    if labels:
        sidecar = str(ROOT / "tests" / "corpus" / "CodeTracer" / "labels.json")
        out["sweep json --labels"] = [*tracecheck, "sweep", "{input}", *GRID, "-f", "json", "--labels", sidecar]
        out["sweep html --labels"] = [*tracecheck, "sweep", "{input}", *GRID, "-f", "html", "--labels", sidecar]
    return out


def show(m: Measured) -> str:
    if m.seconds is None:
        return f"failed (exit {m.rc}): {m.stderr.strip().splitlines()[-1] if m.stderr.strip() else ''}"
    return f"{m.rss_mb:6.1f} MB {m.seconds:7.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--copies", default="1,2,8")
    parser.add_argument("--labels", action="store_true")
    args = parser.parse_args()
    copies = [int(c) for c in args.copies.split(",")]
    env_note = f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = {n: replicate(folder, n) for n in copies}
        print(f"sweep memory ({env_note}); grid: {' '.join(GRID[1::2])} (16 points)")
        for n, path in inputs.items():
            print(f"  input {n}×: {size_mb(path):.1f} MB")
        for name, argv in commands(args.labels).items():
            figures = {}
            for n, path in inputs.items():
                out = folder / "report.out"
                m = best([path if a == "{input}" else a for a in argv], args.repeats, out)
                figures[n] = m
                print(f"{name:32} {n}×: {show(m)}", flush=True)
            base = figures.get(1)
            if base is None or base.seconds is None:
                continue
            for n, m in figures.items():
                if n == 1 or m.seconds is None:
                    continue
                print(f"{name:32} {n}×/1×: peak RSS {m.rss_mb / base.rss_mb:.2f}× (target ≤ 1.10×), time {m.seconds / base.seconds:.2f}×")


if __name__ == "__main__":
    main()
