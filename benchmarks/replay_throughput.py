"""Replay throughput and memory: how fast traces are read and replayed, and whether
peak memory follows the largest trace rather than the input size.

Run: python benchmarks/replay_throughput.py [traces] [rounds]
Prints figures and ratios; asserts nothing (timings are for people, not tests).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from tracecheck.config import load_settings
from tracecheck.engine.batch import replay_stream
from tracecheck.reports.data import TotalsAccumulator

QUERIES = ["北京天气", "北京今日天气 气温", "weather beijing today", "SaaS 订阅合同 自动续费", "httpx retry transport"]


def write_input(path: Path, traces: int, rounds: int) -> int:
    size = 0
    with open(path, "w", encoding="utf-8") as out:
        for t in range(traces):
            tid = f"t{t}"
            for r in range(1, rounds + 1):
                query = QUERIES[(t + r) % len(QUERIES)] + f" {r % 3}"
                event = {
                    "type": "round",
                    "trace": tid,
                    "started_at": 1_772_615_700 + r * 7,
                    "ended_at": 1_772_615_702 + r * 7,
                    "tool_calls": [{"id": f"c{r}", "name": "web_search", "arguments": json.dumps({"query": query}, ensure_ascii=False)}],
                    "usage": {"input_tokens": 600 * r, "output_tokens": 30},
                }
                result = {
                    "type": "result",
                    "trace": tid,
                    "call_id": f"c{r}",
                    "content": f"1. result about {query} https://example.com/{t % 50}/{r} " + "lorem ipsum " * 40,
                }
                for e in (event, result):
                    line = json.dumps(e, ensure_ascii=False) + "\n"
                    size += len(line.encode())
                    out.write(line)
            out.write(json.dumps({"type": "end", "trace": tid}) + "\n")
    return size


def _replay(path: Path, settings) -> int:
    totals = TotalsAccumulator()
    fires = 0
    for item in replay_stream([str(path)], settings):  # what `tracecheck replay` does
        totals.add(item.result)
        fires += len(item.result.fires)
    return fires


def measure(traces: int, rounds: int) -> tuple[float, int, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.jsonl"
        size = write_input(path, traces, rounds)
        settings = load_settings(select=["ALL"], cwd=Path(tmp))
        # Time and memory in separate passes: tracemalloc slows allocation-heavy code
        # (P003's index) by an order of magnitude and would distort the time.
        start = time.perf_counter()
        fires = _replay(path, settings)
        elapsed = time.perf_counter() - start
        tracemalloc.start()
        _replay(path, settings)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return elapsed, peak, size, fires


def main() -> None:
    traces = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    print(f"{'traces':>7} {'rounds':>7} {'input MB':>9} {'seconds':>8} {'traces/s':>9} {'rounds/s':>9} {'peak MB':>8} {'fires':>6}")
    measure(5, rounds)  # warm up: first-use imports and compiled patterns are not per-trace memory
    rows = []
    for n in (traces, traces * 2):
        elapsed, peak, size, fires = measure(n, rounds)
        rows.append((n, elapsed, peak, size))
        print(f"{n:>7} {rounds:>7} {size / 1e6:>9.1f} {elapsed:>8.2f} {n / elapsed:>9.0f} {n * rounds / elapsed:>9.0f} {peak / 1e6:>8.1f} {fires:>6}")
    (n1, t1, p1, s1), (n2, t2, p2, s2) = rows
    print(f"input x{s2 / s1:.2f} -> time x{t2 / t1:.2f}, peak memory x{p2 / p1:.2f} (peak/input: {p1 / s1:.2f} then {p2 / s2:.2f})")


if __name__ == "__main__":
    main()
