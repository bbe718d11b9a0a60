"""Set and text similarity measures used by the no-progress guards."""

from __future__ import annotations

from difflib import SequenceMatcher

SET_METRICS = ("containment", "jaccard")
NOVELTY_METRICS = ("ngram", "difflib")


def containment(a: frozenset[str], b: frozenset[str]) -> float:
    """|A∩B| / min(|A|,|B|): how much of the smaller set the larger one covers (seed 000)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A∩B| / |A∪B|. Kept for comparison: seed 000's pitfall, rewording never reaches 0.8."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def set_similarity(metric: str):
    return containment if metric == "containment" else jaccard


def difflib_ratio(previous: str, new: str) -> float:
    """Seed 002's measure: SequenceMatcher(None, previous, new).ratio(). Quadratic in the
    worst case; kept as the reference the fast measure is checked against."""
    return SequenceMatcher(None, previous, new).ratio()


class NgramIndex:
    """A fast stand-in for difflib's ratio against a growing text.

    ratio = 2·M / (|previous| + |new|), where M is the number of characters of ``new``
    covered by a character n-gram that also occurs in ``previous`` (difflib's M counts
    characters of matching blocks). Linear time; the index grows as text is added.
    """

    def __init__(self, n: int = 4) -> None:
        self.n = n
        self.grams: set[str] = set()
        self.length = 0
        self._tail = ""

    def add(self, text: str) -> None:
        # Observations are joined with a space, as the seed joins them.
        joined = (self._tail + " " + text) if self.length else text
        n = self.n
        self.grams.update(joined[i : i + n] for i in range(len(joined) - n + 1))
        self.length += len(text) + (1 if self.length else 0)
        self._tail = joined[-(n - 1) :] if n > 1 else ""

    def ratio(self, new: str) -> float:
        if not new or not self.length:
            return 0.0
        n = self.n
        covered = bytearray(len(new))
        for i in range(len(new) - n + 1):
            if new[i : i + n] in self.grams:
                covered[i : i + n] = b"\x01" * n
        return 2 * sum(covered) / (self.length + len(new))
