"""The replay on a local Dask cluster against the plain replay, on the same input: the
same JSON report (checked byte for byte), and the time each takes.

Run: python benchmarks/dask_replay.py [copies] [workers]
  copies: how many copies of sample_traces/ make the input (default 20)
  workers: Dask worker processes, one thread each (default: the machine's cores)
Prints figures and ratios; asserts nothing (timings are for people, not tests).
``measure()`` returns the figures for a benchmark command to print. (Not named
distributed.py: run as a script, it would hide the ``distributed`` package.)
"""

from __future__ import annotations

import io
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tracecheck.config import load_settings
from tracecheck.commands import ReplayRequest, replay

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"


def make_input(folder: Path, copies: int) -> int:
    """``copies`` copies of the shipped samples below ``folder``; returns their bytes."""
    for number in range(copies):
        shutil.copytree(SAMPLES, folder / f"copy{number:03d}")
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _timed(run) -> tuple[float, bytes]:
    out = io.BytesIO()
    start = time.perf_counter()
    run(out)
    return time.perf_counter() - start, out.getvalue()


def measure(copies: int = 20, workers: int | None = None) -> dict[str, float | int | bool]:
    from distributed import Client, LocalCluster

    from tracecheck.integrations.dask import replay_on_dask

    workers = workers or os.cpu_count() or 1
    settings = load_settings()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        size = make_input(folder, copies)
        paths = [str(folder)]
        plain, expected = _timed(lambda out: replay(ReplayRequest(paths, settings, format="json"), out))
        start = time.perf_counter()
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
            startup = time.perf_counter() - start
            # Workers import tracecheck on their first task: warm them up on one copy, untimed.
            replay_on_dask(ReplayRequest([str(folder / "copy000")], settings, format="json"), io.BytesIO(), client=client)
            dask, written = _timed(lambda out: replay_on_dask(ReplayRequest(paths, settings, format="json"), out, client=client))
    return {
        "copies": copies,
        "megabytes": size / 1e6,
        "workers": workers,
        "plain_s": plain,
        "cluster_startup_s": startup,
        "dask_s": dask,
        "speedup": plain / dask,
        "identical": written == expected,
    }


def main() -> None:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else None
    f = measure(copies, workers)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"input: {f['copies']} copies of sample_traces/ ({f['megabytes']:.1f} MB)")
    print(f"plain replay (one process), JSON report:   {f['plain_s']:7.2f} s")
    print(f"Dask LocalCluster, {f['workers']} worker processes:     {f['dask_s']:7.2f} s   ({f['speedup']:.2f}x the plain replay's speed)")
    print(f"  cluster start-up (not in the figure above): {f['cluster_startup_s']:.2f} s")
    print(f"reports identical byte for byte: {'yes' if f['identical'] else 'NO'}")


if __name__ == "__main__":
    main()
