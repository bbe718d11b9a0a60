"""What a sweep costs against one replay: the target is a 100-point grid for at most 6×
the time of one ``tracecheck replay`` of the same traces (parse once, evaluate many).

Run: python benchmarks/sweep_cost.py [copies] [points]
  copies: how many copies of sample_traces/ to replay (default 10, 330 traces)
  points: grid points (default 100: P001.containment × P004.threshold × R003.laps)

Prints figures and the ratio; asserts nothing (timings are for people, not tests).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tracecheck.config import load_settings
from tracecheck.engine.grid import expand, parse_dimension
from tracecheck.engine.sweep import load_all, sweep
from tracecheck.commands import ReplayRequest, replay
from tracecheck.text.tokenizers import get_tokenizer

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"


def grid(points: int) -> list[str]:
    # 10 thresholds × 5 P004 thresholds × 2 lap counts = 100; fewer points cut the first.
    containment = "0.5:0.95:0.05" if points >= 100 else f"0.5:{0.5 + 0.05 * (max(1, points // 10) - 1):.2f}:0.05"
    return [f"P001.containment={containment}", "P004.threshold=2:6", "R003.laps=2,3"]


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    points_wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    get_tokenizer("char")
    with tempfile.TemporaryDirectory() as folder:
        for k in range(copies):
            shutil.copytree(SAMPLES, Path(folder) / f"copy{k}")
        settings = load_settings()

        started = time.perf_counter()
        traces_replayed = replay(ReplayRequest([folder], settings, format="json"), io.BytesIO())
        one_replay = time.perf_counter() - started

        started = time.perf_counter()
        traces = load_all([folder])
        loaded = time.perf_counter() - started
        dimensions = [parse_dimension(spec) for spec in grid(points_wanted)]
        points = expand(dimensions, lambda name: settings if name is None else load_settings(preset=name))
        started = time.perf_counter()
        result = sweep(traces, points, baseline=settings)
        evaluated = time.perf_counter() - started

    total = loaded + evaluated
    print(f"traces: {traces_replayed} ({copies} copies of sample_traces/)")
    print(f"one replay (read + replay + JSON report): {one_replay:.2f} s")
    print(f"sweep of {len(points)} grid points: read {loaded:.2f} s + evaluate {evaluated:.2f} s = {total:.2f} s")
    print(f"per grid point: {1000 * evaluated / len(points):.1f} ms ({evaluated / len(points) / one_replay:.1%} of one replay)")
    print(f"ratio sweep / one replay: {total / one_replay:.1f}× (target ≤ 6× for 100 points)")
    print(f"best: {result.points[result.best].label if result.best is not None else 'none'}")


if __name__ == "__main__":
    main()
