"""T002's quick rejection: a segment in which no window recurs nearby holds no chant, so
the character-by-character scan is skipped; the rejection must never skip a real one."""

from __future__ import annotations

import random

from tracecheck.guards.t002_text_chanting import _may_repeat
from tracecheck.guards.t002_text_chanting import _find_chant as find_chant


def _recurs_nearby(segment: str, chunk: int, distance: int) -> bool:
    """By brute force: some window of ``chunk`` characters occurs again within ``distance``."""
    return any(
        segment[a : a + chunk] == segment[b : b + chunk]
        for a in range(len(segment) - chunk + 1)
        for b in range(a + 1, min(a + distance, len(segment) - chunk) + 1)
    )


def _texts(seed: int, count: int):
    rng = random.Random(seed)
    words = ["alpha", "beta", "I will now", "mark the task", "as complete.", "\n", "  ", "-----", "日本語の文", "。", "x"]
    for k in range(count):
        parts = [rng.choice(words) for _ in range(rng.randint(0, 30))]
        if rng.random() < 0.5:
            repeated = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
            parts.insert(rng.randint(0, len(parts)), (repeated + rng.choice([" ", "", str(k)])) * rng.randint(2, 12))
        yield " ".join(parts)


def test_the_rejection_is_exact_where_a_window_recurs_nearby():
    checked = recurring = 0
    for text in _texts(7, 400):
        for chunk, distance in ((50, 250), (10, 50), (7, 35), (4, 8), (3, 15)):
            expected = _recurs_nearby(text, chunk, distance)
            recurring += expected
            # the block test may say "maybe" where nothing recurs; never "no" where something does
            assert _may_repeat(text, chunk, distance) or not expected, (chunk, distance, text)
            checked += 1
    assert recurring > 200 and checked == 2000


def test_chants_are_still_found_and_plain_text_is_rejected_early():
    chant = "I will now mark the task as complete. " * 12
    assert find_chant("Done.\n" + chant, 50, 10) is not None
    plain = " ".join(f"word{k * 7919 % 10007}" for k in range(400))
    assert not _may_repeat(plain, 50, 250) and find_chant(plain, 50, 10) is None
