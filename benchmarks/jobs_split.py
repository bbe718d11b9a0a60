"""``replay --jobs 2`` on ONE large JSON Lines file against the machine's own two-process
speed-up, both measured in the same run (issue 24, item 3: target >= 85% of it).

    python benchmarks/jobs_split.py [--size 40MB] [--input native|tau2|atif] [--repeats 5]

The input is one file of about ``--size``: ``native`` copies of sample_traces/*.jsonl
(each copy's trace ids made its own: a repeated id is a different run, which a cut file
would have to read whole), ``tau2`` the τ²-bench simulations of tests/corpus one per line,
``atif`` the CodeTracer trajectories of tests/corpus one per line.

Each repeat runs, one after another (so that a busy machine weighs on both alike):

- the yardstick: a pure CPU loop of 2 units in one process, then the same 2 units as
  two processes of one unit side by side; ``machine = one / two`` is what two processes
  can gain here and now (2.0 on two idle cores; less when other work shares them);
- ``tracecheck replay FILE --format json`` with ``--jobs 1`` and ``--jobs 2``
  (``jobs = jobs1 / jobs2``), their outputs compared byte for byte.

Printed: every time, the medians, and ``jobs / machine``, the fraction of the machine's
speed-up that ``--jobs 2`` reaches (median of the per-repeat fractions). Figures only:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
CORPUS = ROOT / "tests" / "corpus"

# One unit of the yardstick: a pure CPU loop (no memory traffic, no I/O).
LOOP = "import sys\nx = 0\nfor i in range(int(sys.argv[1])):\n    x = (x * 31 + i) & 0xFFFFFFFF\n"


def size_arg(text: str) -> int:
    text = text.strip().upper()
    for suffix, factor in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def _native_lines(copy: int):
    for path in sorted(SAMPLES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            event["trace"] = f"{event['trace']}-{copy}"
            yield json.dumps(event, ensure_ascii=False)


def _tau2_lines(copy: int):
    doc = json.loads((CORPUS / "tau2-bench" / "telecom-workflow_grok-3.json").read_text(encoding="utf-8"))
    for simulation in doc["simulations"]:
        simulation["trial"] = f"{simulation.get('trial')}-{copy}"
        yield json.dumps(simulation, ensure_ascii=False)


def _atif_lines(copy: int):
    for path in sorted((CORPUS / "CodeTracer").glob("*/trajectory.json")):
        trajectory = json.loads(path.read_text(encoding="utf-8"))
        trajectory["session_id"] = f"{trajectory.get('session_id') or path.parent.name}-{copy}"
        yield json.dumps(trajectory, ensure_ascii=False)


INPUTS = {"native": _native_lines, "tau2": _tau2_lines, "atif": _atif_lines}


def write_input(path: Path, kind: str, size: int) -> tuple[int, int]:
    """(bytes, lines) written: copies of the kind's lines until ``size`` is reached."""
    written = lines = copy = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < size:
            for line in INPUTS[kind](copy):
                data = line + "\n"
                out.write(data)
                written += len(data.encode("utf-8"))
                lines += 1
            copy += 1
    return written, lines


def timed(commands: list[list[str]], outputs: list[Path | None] | None = None) -> float:
    """Wall seconds of ``commands`` started together and all finished."""
    outputs = outputs or [None] * len(commands)
    start = time.perf_counter()
    sinks = [open(out, "wb") if out is not None else subprocess.DEVNULL for out in outputs]
    try:
        processes = [subprocess.Popen(c, stdout=s, stderr=subprocess.DEVNULL) for c, s in zip(commands, sinks)]
        codes = [p.wait() for p in processes]
    finally:
        for s in sinks:
            if s is not subprocess.DEVNULL:
                s.close()
    if any(codes):
        raise SystemExit(f"a command failed ({codes}): {commands}")
    return time.perf_counter() - start


def loop_command(units: int, per_unit: int) -> list[str]:
    return [sys.executable, "-c", LOOP, str(units * per_unit)]


def calibrate(seconds: float) -> int:
    """Loop steps that take about ``seconds`` in one process here."""
    steps = 2_000_000
    took = timed([loop_command(1, steps)])
    return max(1, int(steps * seconds / max(took, 1e-3)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=size_arg, default=size_arg("40MB"))
    parser.add_argument("--input", choices=sorted(INPUTS), default="native")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        data = tmp / f"large-{args.input}.jsonl"
        written, lines = write_input(data, args.input, args.size)
        print(f"input: {args.input}, {written / 1e6:.1f} MB, {lines:,} lines, one file")
        replay = [sys.executable, "-m", "tracecheck", "replay", str(data), "--format", "json"]
        jobs1_out, jobs2_out = tmp / "jobs1.json", tmp / "jobs2.json"

        one_job = timed([[*replay, "--jobs", "1"]], [jobs1_out])  # warm-up, and the size of a unit
        unit = calibrate(one_job / 2)
        print(f"yardstick: a CPU loop of {unit:,} steps a unit (about half of one --jobs 1 replay)")
        print(f"{'repeat':>6}  {'loop 2 units x1':>15}  {'loop 1 unit x2':>14}  {'machine':>7}  {'--jobs 1':>8}  {'--jobs 2':>8}  {'jobs':>5}  {'fraction':>8}")
        machine, jobs, fractions, identical = [], [], [], True
        for repeat in range(1, args.repeats + 1):
            single = timed([loop_command(2, unit)])
            pair = timed([loop_command(1, unit), loop_command(1, unit)])
            t1 = timed([[*replay, "--jobs", "1"]], [jobs1_out])
            t2 = timed([[*replay, "--jobs", "2"]], [jobs2_out])
            identical = identical and jobs1_out.read_bytes() == jobs2_out.read_bytes()
            machine.append(single / pair)
            jobs.append(t1 / t2)
            fractions.append(jobs[-1] / machine[-1])
            print(f"{repeat:>6}  {single:>14.3f}s  {pair:>13.3f}s  {machine[-1]:>6.2f}x  {t1:>7.3f}s  {t2:>7.3f}s  {jobs[-1]:>4.2f}x  {fractions[-1]:>7.0%}")
        fraction = statistics.median(fractions)
        print()
        print(f"machine's two-process speed-up (median): {statistics.median(machine):.2f}x")
        print(f"replay --jobs 2 vs --jobs 1 on one file (median): {statistics.median(jobs):.2f}x; output {'identical' if identical else 'DIFFERS'}")
        print(f"fraction of the machine's speed-up reached (median of repeats): {fraction:.0%} (target >= 85%: {'met' if fraction >= 0.85 and identical else 'NOT met'})")


if __name__ == "__main__":
    main()
