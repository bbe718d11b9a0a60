"""Start-up of a small replay (issue 24, item 4): ``tracecheck replay`` of a 10-line file
against a bare ``python -c "import typer"`` (target: at most 2x) and against
``python -c pass`` (the interpreter alone).

    python benchmarks/startup.py [--runs 15] [--seed 1]

Every command is a separate process started the way a user starts it: the console script
``tracecheck`` beside this Python, and ``python -m tracecheck``. The runs are interleaved
(one of each command per round, the order turning round by round), so a machine whose
speed drifts slows every command alike; each figure is the best of its runs, and the
ratio is best against best. The median of the round-by-round ratios is printed beside
it: a wide gap between the two says the machine was noisy. Figures only: nothing here
asserts; the target is reported as met or not met.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET = 2.0  # tracecheck replay (10-line file) / python -c "import typer"


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds from start to exit of ``argv``, and its CPU seconds (user + system, the
    child's own accounting); output thrown away, a failure stops the script."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"{' '.join(argv)} failed: {err.read().decode(errors='replace')[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def compile_package() -> None:
    """An installed package has its bytecode compiled (pip does it); a checkout run under
    PYTHONDONTWRITEBYTECODE would compile every module on every start instead."""
    import tracecheck

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tracecheck.__file__).parent)],
                   check=False, stdout=subprocess.DEVNULL, env=env)


def measure(commands: dict[str, list[str]], runs: int) -> dict[str, list[tuple[float, float]]]:
    """``runs`` rounds, one run of each command a round, the order rotating; one warm-up round first."""
    names = list(commands)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for name in names:  # warm-up: disk caches, bytecode
        timed(commands[name])
    for k in range(runs):
        turn = names[k % len(names):] + names[: k % len(names)]
        for name in turn:
            times[name].append(timed(commands[name]))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds of interleaved runs (default 15)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the 10-line trace (benchmarks/corpus.py)")
    args = parser.parse_args()
    exe = shutil.which("tracecheck", path=str(Path(sys.executable).parent)) or shutil.which("tracecheck")
    if exe is None:
        sys.exit("tracecheck is not installed in this environment (pip install -e .)")
    from run import write_trace_file  # the same 10-line file as benchmarks/run.py's $TEN

    compile_package()
    with tempfile.TemporaryDirectory(prefix="tracecheck-startup-") as tmp:
        ten = Path(tmp) / "ten.jsonl"
        write_trace_file(ten, 1, 3, args.seed)
        lines = sum(1 for _ in ten.open(encoding="utf-8"))
        py = sys.executable
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import typer'": [py, "-c", "import typer"],
            "tracecheck replay $TEN": [exe, "replay", str(ten)],
            "python -m tracecheck replay $TEN": [py, "-m", "tracecheck", "replay", str(ten)],
            "tracecheck --help": [exe, "--help"],
        }
        times = measure(commands, args.runs)
    typer_name, pass_name = "python -c 'import typer'", "python -c pass"
    print(f"start-up: best of {args.runs} interleaved runs; $TEN: one native trace of {lines} lines (3 searches and an answer)")
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; wall time (CPU time: user + system)")
    print()
    print("| command | best | vs import typer | median of pairs | vs python -c pass | target |")
    print("|---|---|---|---|---|---|")
    for name, runs in times.items():
        cells = []
        for k in (0, 1):  # wall, cpu
            best = min(t[k] for t in runs)
            typer_best = min(t[k] for t in times[typer_name])
            pass_best = min(t[k] for t in times[pass_name])
            pairs = statistics.median(a[k] / b[k] for a, b in zip(runs, times[typer_name]))
            cells.append((best * 1000, best / typer_best, pairs, best / pass_best))
        (w, wr, wp, wq), (c, cr, cp, cq) = cells
        target = f"≤ {TARGET:g}×: {'met' if wr <= TARGET else 'NOT met'}" if "replay" in name else ""
        print(f"| `{name}` | {w:.0f} ms ({c:.0f} ms) | {wr:.2f}× ({cr:.2f}×) | {wp:.2f}× ({cp:.2f}×) | {wq:.2f}× ({cq:.2f}×) | {target} |")


if __name__ == "__main__":
    main()
