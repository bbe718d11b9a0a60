"""What ``show`` costs next to ``replay`` on the same long trace: time per round and
peak memory, each run in its own process (the figures a user would see).

The trace is ``long_traces.search_run`` (a search every round, ~300 characters of new
results, an answer at the end: no guard stops it, so both commands go through every
round). ``ratio`` is show / replay; start-up is included in both, so it matters less
as the rounds grow.

    python benchmarks/show_cost.py [--rounds 2000,10000,50000] [--repeat 3]

Figures only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from long_traces import search_run  # noqa: E402

from tracecheck.readers.native_writer import write_native  # noqa: E402

# Runs the CLI and prints its own peak memory (KB on Linux) last on standard error.
_RUN = (
    "import resource, runpy, sys\n"
    "sys.argv = ['tracecheck'] + sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module('tracecheck', run_name='__main__')\n"
    "finally:\n"
    "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


def run(command: str, trace: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _RUN, command, str(trace), "-o", str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stderr[-500:]}")
    return seconds, int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", default="2000,10000,50000")
    parser.add_argument("--result-chars", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is shown")
    args = parser.parse_args()
    print(f"{'rounds':>8} {'replay s':>9} {'show s':>9} {'ratio':>6} {'replay MB':>10} {'show MB':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for rounds in (int(n) for n in args.rounds.split(",")):
            trace = Path(folder) / f"search-{rounds}.jsonl"
            with trace.open("wb") as handle:
                write_native([search_run(rounds, args.result_chars)], handle)
            best: dict[str, tuple[float, int]] = {}
            for _ in range(args.repeat):
                for command in ("replay", "show"):  # interleaved: a noisy moment hits both
                    seconds, memory = run(command, trace, Path(folder) / f"{command}.txt")
                    old = best.get(command, (float("inf"), 0))
                    best[command] = (min(old[0], seconds), max(old[1], memory))
            (rs, rm), (ss, sm) = best["replay"], best["show"]
            print(f"{rounds:>8,} {rs:>9.2f} {ss:>9.2f} {ss / rs:>5.1f}x {rm / 1024:>10.0f} {sm / 1024:>9.0f} {sm / rm:>5.1f}x")


if __name__ == "__main__":
    main()
