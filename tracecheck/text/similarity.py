"""Set and text similarity measures used by the no-progress guards.

P001 compares query fingerprints (sets) by containment or Jaccard. P003 asks how much
of a new tool observation was already observed; seed 002 measures it with difflib:
``SequenceMatcher(None, " ".join(previous), new).ratio()``. That search is quadratic,
so P003 uses :class:`NgramIndex` by default, which returns the same ratio from an index
of the history, and keeps :class:`DifflibHistory` (the seed's code) selectable.
:class:`IndelHistory` is the measure seed 002's text names, the longest common
subsequence: rapidfuzz's normalised Indel similarity, 2·LCS / (|a| + |b|), in C++.
All keep the observations of a bounded ``window`` (the most recent ones), and
:func:`ratio_ceiling` tells when no ratio can cross a threshold, so none is computed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, deque
from difflib import SequenceMatcher

SET_METRICS = ("containment", "jaccard")
NOVELTY_METRICS = ("ngram", "difflib", "indel")


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


def indel_ratio(previous: str, new: str) -> float:
    """The longest common subsequence ratio, 2·LCS / (|previous| + |new|) (1.0 for two
    empty texts): rapidfuzz's ``Indel.normalized_similarity``, bit-parallel C++.

    It has difflib's form, 2·M / (|a| + |b|), with M the longest common subsequence
    instead of the characters of difflib's matching blocks. Those blocks are themselves
    a common subsequence, so this ratio is never below difflib's: where they differ,
    Indel finds an observation *less* novel. They differ where difflib's heuristics stop
    short of the longest alignment: autojunk (in texts of 200+ characters, characters
    more frequent than 1 % never start a match, so scattered common letters and
    punctuation count for difflib only next to a rarer match) and its greedy choice of
    the longest block first (an alignment of many shorter blocks can be longer)."""
    from rapidfuzz.distance import Indel  # imported on first use: start-up stays lean

    return Indel.normalized_similarity(previous, new)


def ratio_ceiling(history_length: int, new_length: int) -> float:
    """The highest ratio two texts of these lengths can have: 2·min / (sum), difflib's
    ``real_quick_ratio``. Matching blocks never hold more characters than the shorter
    text, so when this is at or below a threshold the real ratio is too."""
    total = history_length + new_length
    return 2.0 * min(history_length, new_length) / total if total else 1.0


class ObservationHistory:
    """Observations joined by a space, as seed 002 joins them. With ``window`` only the
    most recent ``window`` are kept: adding one more drops the oldest. Adding costs
    O(1); the joined text is built when a measure asks for it."""

    def __init__(self, window: int | None = None) -> None:
        if window is not None and window < 1:
            raise ValueError("window must be at least 1")
        self.parts: deque[str] = deque(maxlen=window)
        self._chars = 0  # characters of the parts, without the joining spaces
        self._text: str | None = ""

    @property
    def length(self) -> int:
        """len(self.text), without building it."""
        return self._chars + max(0, len(self.parts) - 1)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = " ".join(self.parts)
        return self._text

    def add(self, text: str) -> None:
        if len(self.parts) == self.parts.maxlen:
            self._chars -= len(self.parts[0])  # append() drops it
        self.parts.append(text)
        self._chars += len(text)
        self._text = None
        self._changed()

    def _changed(self) -> None:
        """Hook: the kept observations changed."""


class DifflibHistory(ObservationHistory):
    """Seed 002's plan B as written: every novel observation is kept (the last
    ``window`` of them, when set), and a new one is compared with them joined by a
    space, with difflib's ratio."""

    metric = "difflib"

    def ratio(self, new: str) -> float:
        return difflib_ratio(self.text, new)


class IndelHistory(ObservationHistory):
    """The history joined as the seed joins it, measured with :func:`indel_ratio` (the
    longest common subsequence, as seed 002's text describes its measure).

    The joined text is built by the first ratio after a change of the history, and only
    when :func:`ratio_ceiling` lets a ratio cross the threshold, that is when the
    history is shorter than (2 / threshold - 1) times the new observation (1.86 times
    at 0.7): joining costs O(|new|), not O(run). The LCS itself is bit-parallel,
    O(|history|·|new| / 64) word steps, after a common prefix and suffix are stripped
    (a near-repeat costs little more than the comparison of its two ends).
    rapidfuzz is an optional dependency (``pip install rapidfuzz``)."""

    metric = "indel"

    def __init__(self, window: int | None = None) -> None:
        try:
            import rapidfuzz.distance  # noqa: F401  (here, not at start-up)
        except ImportError:
            from ..input.diagnostics import MissingExtra

            raise MissingExtra("the indel novelty metric", "rapidfuzz") from None
        super().__init__(window)

    def ratio(self, new: str) -> float:
        return indel_ratio(self.text, new)


def novelty_history(metric: str, window: int | None = None) -> NgramIndex | DifflibHistory | IndelHistory:
    """An empty history for P003's ``metric`` (``ngram``, ``difflib`` or ``indel``) that
    keeps the last ``window`` observations (all of them when None)."""
    if metric == "difflib":
        return DifflibHistory(window)
    if metric == "indel":
        return IndelHistory(window)
    if metric == "ngram":
        return NgramIndex(window=window)
    raise ValueError(f"unknown novelty metric {metric!r}; choose one of: {', '.join(NOVELTY_METRICS)}")


# --- the fast measure ---------------------------------------------------------------
#
# difflib's ratio is 2·M / (|a| + |b|), where M is the size of the matching blocks that
# get_matching_blocks() finds: the longest match of the whole pair, then recursively the
# longest match left of it and right of it. Two details make M hard to guess with a plain
# "how much of b occurs in a" count, and both decide real cases:
#
# * the blocks are an alignment, in order: search results that come back reordered
#   share every character but match only in part;
# * autojunk: for |b| >= 200, a character occurring more than |b|/100 + 1 times in b is
#   "popular". A longest match is chosen by its run of non-popular ("core") characters
#   alone and only then extended over equal characters of any kind. In English almost
#   every lowercase letter is popular, so difflib picks blocks by their digits, capitals
#   and rare letters; in Chinese only the commonest characters and punctuation are.
#
# NgramIndex therefore reproduces difflib's recursion step for step and only replaces
# the expensive part, finding the longest core match inside a rectangle
# a[alo:ahi] × b[blo:bhi]:
#
# * core matches of at least n characters are found once per observation from the
#   n-gram index of the history (positions in a) and clipped to each rectangle;
# * when a rectangle holds none, its longest core match is shorter than n: one scan of
#   a[alo:ahi] against the (1..n-1)-grams of b finds the first one in difflib's order.
#
# Ties are broken as difflib breaks them (earliest end in a, then in b), so M, and the
# ratio, are difflib's own. Cost: indexing is linear in the text; each observation costs
# O(|b|·cap) for the anchors plus the recursion, which costs a few steps per character
# on real observations (at most about 5 in benchmarks/p003_novelty.py) and grows with
# the depth of difflib's recursion, deepest on genuinely new text full of one- and
# two-character coincidences. A work budget (``budget`` × (|a| + |b|) steps) keeps it
# linear whatever the input: past it the remaining regions are left out, so the ratio
# can only come out lower than difflib's (the observation looks more novel, never
# less), and ``exact`` says so.


def _popular(b: str) -> frozenset[str]:
    """difflib's autojunk: characters of b occurring more than len(b)//100 + 1 times."""
    if len(b) < 200:
        return frozenset()
    limit = len(b) // 100 + 1
    return frozenset(ch for ch, count in Counter(b).items() if count > limit)


def _core_runs(b: str, popular: frozenset[str]) -> list[tuple[int, int]]:
    """Maximal runs of b free of popular characters, as (start, end)."""
    if not popular:
        return [(0, len(b))] if b else []
    cls = "".join(re.escape(ch) for ch in sorted(popular))
    return [m.span() for m in re.finditer(f"[^{cls}]+", b)]


def _common_prefix(a: str, i: int, b: str, j: int, limit: int) -> int:
    """len of the common prefix of a[i:] and b[j:], at most ``limit``. Galloping over
    slice comparisons, so a long shared block costs O(log) Python steps, not O(len)."""
    if limit <= 0 or a[i] != b[j]:
        return 0
    lo, step = 1, 1
    while lo + step <= limit and a[i + lo : i + lo + step] == b[j + lo : j + lo + step]:
        lo += step
        step *= 2
    hi = min(limit, lo + step - 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i + lo : i + mid] == b[j + lo : j + mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, i: int, b: str, j: int, limit: int) -> int:
    """len of the common suffix of a[:i] and b[:j], at most ``limit``."""
    if limit <= 0 or a[i - 1] != b[j - 1]:
        return 0
    lo, step = 1, 1
    while lo + step <= limit and a[i - lo - step : i - lo] == b[j - lo - step : j - lo]:
        lo += step
        step *= 2
    hi = min(limit, lo + step - 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i - mid : i - lo] == b[j - mid : j - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class NgramIndex(ObservationHistory):
    """difflib's ratio against a history of observations, from an n-gram index (see above).

    ``add(text)`` keeps an observation (joined with a space, as the seed joins them; the
    last ``window`` of them when set); ``ratio(new)`` is
    ``SequenceMatcher(None, history, new).ratio()``. ``n`` is the
    anchor length (4 balances Chinese, where short anchors coincide often, against
    English, where runs of non-popular characters are short); ``cap`` the positions kept
    per n-gram of the history (a match that starts with a gram repeated more often is
    still found from the grams after it); ``budget`` the work allowed per character.
    The index is built from the joined history by the first ``ratio`` after a change, so
    observations that are never measured against are never indexed.

    ``exact`` tells whether the last ratio is guaranteed to be difflib's: it is False
    when the budget ran out, or when ``new`` holds a gram that the history repeats more
    than ``cap`` times (a short boilerplate match may then be missed).
    """

    metric = "ngram"

    def __init__(self, n: int = 4, cap: int = 256, budget: float = 24.0, window: int | None = None) -> None:
        if n < 2:
            raise ValueError("n must be at least 2")
        super().__init__(window)
        self.n = n
        self.cap = cap
        self.budget = budget
        self._grams: dict[str, list[int]] | None = None
        self._crowded: set[str] = set()  # grams seen more than ``cap`` times
        self.exact = True
        self.work = 0

    def _changed(self) -> None:
        self._grams = None

    def build(self) -> dict[str, list[int]]:
        """The n-gram index of the joined history: gram -> its first ``cap`` positions.
        Built once per change of the history, by the first ``ratio`` after it."""
        if self._grams is not None:
            return self._grams
        a, n, cap = self.text, self.n, self.cap
        grams: dict[str, list[int]] = {}
        crowded: set[str] = set()
        for i in range(len(a) - n + 1):
            gram = a[i : i + n]
            where = grams.get(gram)
            if where is None:
                grams[gram] = [i]
            elif len(where) < cap:
                where.append(i)
            else:
                crowded.add(gram)
        self._grams, self._crowded = grams, crowded
        return grams

    @property
    def crowded(self) -> set[str]:
        self.build()
        return self._crowded

    def ratio(self, new: str) -> float:
        total = self.length + len(new)
        return 2.0 * self.matches(new) / total if total else 1.0

    def matches(self, b: str) -> int:
        """M: the number of characters in difflib's matching blocks of (history, b)."""
        a = self.text
        la, lb, n = len(a), len(b), self.n
        self.exact, self.work = True, 0
        if not la or not lb:
            return 0
        popular = _popular(b)
        runs = _core_runs(b, popular)
        budget = int(self.budget * (la + lb)) + 4096
        work = 0

        # Every maximal core match of at least n characters, as (i, j, size): found from
        # its first n-gram, or from a later one and extended back when the first is one
        # of the boilerplate grams past ``cap``.
        segments: list[tuple[int, int, int]] = []
        reached: dict[int, int] = {}  # diagonal i-j -> end in b of the last segment on it
        grams, crowded = self.build(), self._crowded
        for rs, re_ in runs:
            for j in range(rs, re_ - n + 1):
                gram = b[j : j + n]
                where = grams.get(gram)
                if where is None:
                    continue
                if crowded and gram in crowded:
                    self.exact = False
                work += len(where)
                for i in where:
                    if reached.get(i - j, -1) > j:
                        continue
                    back = _common_suffix(a, i, b, j, min(i, j - rs))
                    size = _common_prefix(a, i, b, j, min(la - i, re_ - j))
                    reached[i - j] = j + size
                    segments.append((i - back, j - back, back + size))

        short: dict[int, dict[str, list[int]]] | None = None
        found = 0
        # A rectangle's entry also carries the longest short match it can still hold:
        # below a short match of length c nothing longer exists, and left of the
        # first one (in difflib's order) nothing as long.
        stack = [(0, la, 0, lb, segments, n - 1)]
        while stack:
            alo, ahi, blo, bhi, candidates, longest = stack.pop()
            work += len(candidates)
            best: tuple[tuple[int, int, int], int, int, int] | None = None
            inside: list[tuple[int, int, int]] = []
            for i0, j0, size in candidates:
                d = i0 - j0
                js = max(j0, blo, alo - d)
                je = min(j0 + size, bhi, ahi - d)
                if je - js >= n:
                    inside.append((js + d, js, je - js))
                    # difflib keeps the first longest: earliest end in a, then in b.
                    key = (je - js, -(je + d), -je)
                    if best is None or key > best[0]:
                        best = (key, js + d, js, je - js)
            if work > budget:
                self.exact = False  # leave the rest out: the ratio can only come out lower
                continue
            if best is not None:
                _, i, j, k = best
                left = right = n - 1
            else:
                if short is None:
                    short = _short_grams(b, runs, n)
                i, j, k = alo, blo, 0
                for c in range(longest, 0, -1):
                    table, last = short[c], bhi - c
                    for ii in range(alo, ahi - c + 1):
                        where = table.get(a[ii : ii + c])
                        if where:
                            x = bisect_left(where, blo)
                            if x < len(where) and where[x] <= last:
                                i, j, k = ii, where[x], c
                                break
                    work += (i - alo + 1) if k else (ahi - alo)
                    if k:
                        break
                left, right = k - 1, k
            # Extend over equal characters, popular ones included, as difflib does; with
            # no core match at all this is difflib's common prefix of the rectangle.
            back = _common_suffix(a, i, b, j, min(i - alo, j - blo))
            fwd = _common_prefix(a, i + k, b, j + k, min(ahi - i - k, bhi - j - k))
            i, j, k = i - back, j - back, k + back + fwd
            if not k:
                continue
            found += k
            if alo < i and blo < j:
                stack.append((alo, i, blo, j, inside, left))
            if i + k < ahi and j + k < bhi:
                stack.append((i + k, ahi, j + k, bhi, inside, right))
        self.work = work
        return found


def _short_grams(b: str, runs: list[tuple[int, int]], n: int) -> dict[int, dict[str, list[int]]]:
    """For c in 1..n-1: each c-gram of core characters of b -> its positions, ascending."""
    tables: dict[int, dict[str, list[int]]] = {}
    for c in range(1, n):
        table: dict[str, list[int]] = {}
        for rs, re_ in runs:
            for j in range(rs, re_ - c + 1):
                gram = b[j : j + c]
                where = table.get(gram)
                if where is None:
                    table[gram] = [j]
                else:
                    where.append(j)
        tables[c] = table
    return tables
