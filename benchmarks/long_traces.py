"""Per-round replay cost of P001 and P003 as traces grow: does it stay flat?

Each trace is a search run: every round one search with a new query and ~2 KB of new
results (English-like words and Chinese, URLs), then an answer, so no guard stops it.
Every guard is replayed alone; the ``engine`` row is a guard that does nothing (what
the replay itself costs per round: token estimates, phases). ``x`` is the cost per
round relative to the first size: linear code stays near 1.

Variants: P003 with ``window=1`` compares every observation with the previous novel
one, so it computes a ratio every round (with the default window the length ceiling
rules most of them out in a long run); with ``metric=difflib`` the seed's reference.

    python benchmarks/long_traces.py [--rounds 100,200,400,2000] [--result-chars 2000] [--timeout 60]

A replay running past ``--timeout`` seconds is abandoned and shown as "> timeout", and
larger sizes of that row are skipped. Figures only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tracecheck.engine.replay import replay_trace  # noqa: E402
from tracecheck.guards.base import Guard  # noqa: E402
from tracecheck.guards.examples import Example, answer, search  # noqa: E402
from tracecheck.guards.p001_similar_query_stagnation import SimilarQueryStagnation  # noqa: E402
from tracecheck.guards.p003_no_new_information import NoNewInformation  # noqa: E402


class Idle(Guard):
    code = "IDLE"
    name = "idle"
    summary = "Does nothing: the engine's own cost per round."
    source = "benchmark"


class TooSlow(BaseException):
    pass


def search_run(rounds: int, result_chars: int, seed: int = 0):
    rng = random.Random(seed)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(4000)]
    hanzi = [chr(c) for c in rng.sample(range(0x4E00, 0x9FA6), 2500)]

    def phrase() -> str:
        if rng.random() < 0.5:
            return " ".join(rng.choices(words, k=rng.randint(6, 12)))
        return "".join(rng.choices(hanzi, k=rng.randint(8, 20)))

    steps = []
    for k in range(1, rounds + 1):
        query = " ".join(rng.sample(words, 3)) + " " + "".join(rng.sample(hanzi, 2)) + f" r{k}"
        lines: list[str] = []
        while sum(map(len, lines)) < result_chars:
            rank = len(lines) + 1
            lines.append(f"{rank}. {phrase()}\n   https://site{rng.randrange(10**6)}.example.org/{k}/{rank}\n   {phrase()}")
        steps.append(search(query, "\n".join(lines)))
    return Example("long search run", tuple(steps) + (answer(),)).trace()


def supports(guard_class, option: str) -> bool:
    return option in guard_class.Options.__dataclass_fields__


def rows() -> list[tuple[str, type[Guard], dict]]:
    out: list[tuple[str, type[Guard], dict]] = [
        ("engine (no-op guard)", Idle, {}),
        ("P001 defaults", SimilarQueryStagnation, {}),
        ("P003 defaults (ngram)", NoNewInformation, {}),
        ("P003 metric=difflib", NoNewInformation, {"metric": "difflib"}),
    ]
    if supports(NoNewInformation, "window"):
        out += [
            ("P003 window=1 (a ratio every round)", NoNewInformation, {"window": 1}),
            ("P003 window=1 metric=difflib", NoNewInformation, {"window": 1, "metric": "difflib"}),
        ]
    return out


def timed_replay(trace, guard: Guard, timeout: float) -> float | None:
    start = time.perf_counter()
    deadline = start + timeout

    def observe(rnd, phase, guards):
        if time.perf_counter() > deadline:
            raise TooSlow

    try:
        result = replay_trace(trace, [guard], observe)
    except TooSlow:
        return None
    stops = [f for f in result.fires if f.action.ends_run]
    if stops:
        raise SystemExit(f"{guard.code} stopped at round {stops[0].round}: the run is not measuring what it should")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", default="100,200,400,2000", help="trace lengths in rounds")
    parser.add_argument("--result-chars", type=int, default=2000, help="characters of each search result")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a replay is abandoned")
    parser.add_argument("--repeat", type=int, default=2, help="replays per cell; the best is shown")
    args = parser.parse_args()
    sizes = [int(s) for s in args.rounds.split(",")]
    traces = {n: search_run(n, args.result_chars) for n in sizes}
    print(f"ms per round (x: relative to {sizes[0]} rounds), results of ~{args.result_chars:,} characters")
    print(f"{'guard':38}" + "".join(f"{n:>16,}" for n in sizes))
    for label, guard_class, options in rows():
        cells, first, gave_up = [], None, False
        for n in sizes:
            if gave_up:
                cells.append(f"{'skipped':>16}")
                continue
            times = [timed_replay(traces[n], guard_class(**options), args.timeout) for _ in range(args.repeat)]
            if None in times:
                cells.append(f"{'> ' + format(args.timeout, 'g') + ' s':>16}")
                gave_up = True
                continue
            per_round = min(times) / len(traces[n].rounds) * 1000
            first = first or per_round
            cells.append(f"{per_round:9.3f} x{per_round / first:<5.1f}")
        print(f"{label:38}" + "".join(cells))


if __name__ == "__main__":
    main()
