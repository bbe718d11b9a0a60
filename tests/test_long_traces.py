"""Long and large traces replay in time linear in their size.

A fuzzing pass found hangs: tokenizing a long query was quadratic, P003's novelty
measure grew super-quadratically with the number of rounds, P001 compared each search
with every earlier one. These tests time replays of growing traces and assert that the
cost per round (or per character) stays about flat. Linear code gives a ratio near 1
per round (10x in total for 10x the input); the bounds allow 3x per round (30x in
total), so machine noise does not make them flaky; the code before the fix never
finished within them. A replay that overshoots its bound is abandoned, not waited for.
"""

from __future__ import annotations

import json
import math
import random
import signal
import time
import unicodedata
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import write_jsonl
from tracecheck.config import load_settings
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.engine.costs import estimate_tokens
from tracecheck.engine.replay import replay_trace
from tracecheck.guards import all_guards
from tracecheck.guards.evidence import EvidenceLedger, Requirements
from tracecheck.guards.examples import Call, Example, answer, calls, search
from tracecheck.guards.p001_similar_query_stagnation import SimilarQueryStagnation
from tracecheck.guards.p003_no_new_information import (
    AUTO_RENEWAL,
    DATA_PROCESSING,
    TERMINATION,
    NoNewInformation,
)
from tracecheck.guards.r002_repeated_call_cache import RepeatedCallCache
from tracecheck.guards.signals import ResultClassifier
from tracecheck.readers.load import read_traces
from tracecheck.text.similarity import DifflibHistory, NgramIndex, difflib_ratio, ratio_ceiling
from tracecheck.text.tokenizers import char_tokens, is_cjk

# Growth allowed per round (per character) from the short input to the long one.
PER_UNIT_GROWTH_LIMIT = 3.0

# Every guard on, with budgets and requirements that keep them all working to the end:
# B001 is past max_rounds from round 2 on and checks its (never met) evidence every round.
ALL_GUARDS_RUNNING = (
    "B001.max_rounds=1",
    "B001.final_window=1000000",
    "B001.required_all=never_called",
    "B002.budget=1000000000000",
    "B003.max_calls=1000000",
    "B004.seconds=1000000000",
    "B005.default_limit=0.001",
    "E001.required_all=web_search",
    "R003.enabled=true",
    "R003.compare_results=true",
    "R004.enabled=true",
    "R006.enabled=true",
    "R007.enabled=true",
    "F002.enabled=true",
    "P004.enabled=true",
    "T001.enabled=true",
    "T002.enabled=true",
)
CONFIGS = {
    "defaults": {},
    "ALL": {"select": ["ALL"], "sets": ALL_GUARDS_RUNNING},
}


def forget_remembered_texts() -> None:
    """Empty the caches that remember normalised and tokenized texts (a sweep's speed-up):
    the cost measured here is the work, not a cache hit."""
    from tracecheck.text.memo import forget_remembered

    forget_remembered()


class TooSlow(BaseException):
    """Raised to abandon a replay past its time bound (not an Exception: nothing catches it)."""


class Words:
    """Varied text: English-like words and Chinese characters from fixed random pools."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.words = ["".join(self.rng.choices(letters, k=self.rng.randint(2, 9))) for _ in range(4000)]
        self.hanzi = [chr(c) for c in self.rng.sample(range(0x4E00, 0x9FA6), 2500)]

    def phrase(self) -> str:
        if self.rng.random() < 0.5:
            return " ".join(self.rng.choices(self.words, k=self.rng.randint(6, 12)))
        return "".join(self.rng.choices(self.hanzi, k=self.rng.randint(8, 20)))

    def query(self, k: int) -> str:
        return " ".join(self.rng.sample(self.words, 3)) + " " + "".join(self.rng.sample(self.hanzi, 2)) + f" r{k}"

    def results(self, k: int, chars: int = 2000) -> str:
        lines: list[str] = []
        while sum(map(len, lines)) < chars:
            rank = len(lines) + 1
            host = f"site{self.rng.randrange(10**6)}.example.org"
            lines.append(f"{rank}. {self.phrase()}\n   https://{host}/{k}/{rank}\n   {self.phrase()} {self.phrase()}")
        return "\n".join(lines)


def search_round(trace: str, k: int, query: str, content: str) -> list[dict]:
    call = {"id": f"call_{k}", "name": "web_search", "arguments": json.dumps({"query": query}, ensure_ascii=False)}
    return [
        {"type": "round", "trace": trace, "tool_calls": [call]},
        {"type": "result", "trace": trace, "call_id": f"call_{k}", "content": content},
    ]


def long_search_run(path: Path, rounds: int) -> Path:
    """A native JSONL trace: ``rounds`` searches, each with a new query and ~2 KB of new
    results, then an answer. No guard has a reason to stop it."""
    words = Words(seed=rounds)
    events: list[dict] = []
    for k in range(1, rounds + 1):
        events += search_round("long", k, words.query(k), words.results(k))
    events.append({"type": "round", "trace": "long", "text": "Here is what I found."})
    return write_jsonl(path, events)


def read_one(path: Path):
    (trace,) = read_traces([str(path)], Diagnostics())
    return trace


def seconds_per_round(trace, settings, repeat: int, limit: float = math.inf) -> float:
    """The best of up to ``repeat`` replays, in seconds per round; a replay running past
    ``limit`` seconds is abandoned (and counts as infinitely slow). With a limit, the
    first replay within it is enough."""
    best = math.inf
    for _ in range(repeat):
        if math.isfinite(limit) and best * len(trace.rounds) <= limit:
            break
        forget_remembered_texts()  # a repeat must cost what the first replay costs
        guards = settings.build()
        start = time.perf_counter()
        deadline = start + limit

        def observe(rnd, phase, guards):
            if time.perf_counter() > deadline:
                raise TooSlow

        try:
            result = replay_trace(trace, guards, observe)
        except TooSlow:
            continue
        elapsed = time.perf_counter() - start
        # Every guard saw every round: nothing stopped early.
        assert not [f for f in result.fires if f.action.ends_run], result.fires
        best = min(best, elapsed / len(trace.rounds))
    return best


@pytest.fixture(scope="module")
def long_traces(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long")
    return {rounds: read_one(long_search_run(folder / f"run{rounds}.jsonl", rounds)) for rounds in (200, 2000)}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_cost_per_round_does_not_grow_with_the_number_of_rounds(long_traces, config):
    settings = load_settings(cwd=Path("/"), **CONFIGS[config])
    if config == "ALL":
        assert {g.code for g in settings.build()} == {g.code for g in all_guards()}  # budgets included
    short, long = long_traces[200], long_traces[2000]
    assert len(long.rounds) == 2001
    per_round_short = seconds_per_round(short, settings, repeat=3)
    limit = PER_UNIT_GROWTH_LIMIT * per_round_short * len(long.rounds)
    per_round_long = seconds_per_round(long, settings, repeat=2, limit=limit)
    growth = per_round_long / per_round_short
    assert growth < PER_UNIT_GROWTH_LIMIT, (
        f"{config}: {per_round_short * 1e3:.3f} ms/round at 200 rounds, "
        f"{per_round_long * 1e3:.3f} ms/round at 2,000 (x{growth:.1f}; "
        f"abandoned past {limit:.1f} s if infinite)"
    )


@contextmanager
def time_limit(seconds: float):
    """Abandon the block after ``seconds`` (where the platform has interval timers)."""
    if not hasattr(signal, "setitimer") or math.isinf(seconds):
        yield
        return

    def expire(signum, frame):
        raise TooSlow

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def large_inputs_run(path: Path, chars: int) -> Path:
    """Two searches whose queries are ``chars`` characters without a space (Latin letters
    and digits, then Chinese) and whose results are ``chars`` characters of text; the
    second of each is the first slightly edited, so P001 and P003 compare them in full."""
    words = Words(seed=chars)
    rng = words.rng
    query = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=chars // 2))
    query += "".join(rng.choices(words.hanzi, k=chars - chars // 2))
    lines: list[str] = []
    while sum(map(len, lines)) < chars:
        lines.extend(words.phrase() for _ in range(1000))
    content = "\n".join(lines)[:chars]
    middle = chars // 2
    again = (query[:middle] + "x" + query[middle:], content[:middle] + "一条新的结果 one new line" + content[middle:])
    events = search_round("large", 1, query, content) + search_round("large", 2, *again)
    events.append({"type": "round", "trace": "large", "text": "Done."})
    return write_jsonl(path, events)


def test_megabyte_queries_and_results_replay_in_linear_time(tmp_path, cli):
    args = ("--select", "ALL", *(part for setting in ALL_GUARDS_RUNNING for part in ("--set", setting)))
    small, large = 100_000, 1_000_000
    paths = {chars: large_inputs_run(tmp_path / f"large{chars}.jsonl", chars) for chars in (small, large)}

    def seconds_per_char(chars: int, repeat: int, limit: float = math.inf) -> float:
        best = math.inf
        for _ in range(repeat):
            if math.isfinite(limit) and best * chars <= limit:
                break  # within the limit: no need for a second try
            start = time.perf_counter()
            try:
                with time_limit(limit):
                    result = cli("replay", str(paths[chars]), *args)
            except TooSlow:
                continue
            assert result.exit_code == 0, result.output
            best = min(best, (time.perf_counter() - start) / chars)
        return best

    per_char_small = seconds_per_char(small, repeat=3)
    limit = PER_UNIT_GROWTH_LIMIT * per_char_small * large
    per_char_large = seconds_per_char(large, repeat=2, limit=limit)
    growth = per_char_large / per_char_small
    assert growth < PER_UNIT_GROWTH_LIMIT, (
        f"{per_char_small * small:.2f} s for 100 KB inputs, {per_char_large * large:.2f} s for 1 MB "
        f"(x{growth:.1f} per character; abandoned past {limit:.1f} s if infinite)"
    )


# --- the fast paths give the results of the plain per-character code ------------------


def reference_char_tokens(text: str) -> list[str]:
    """The tokenizer as first written, one character at a time (seed 000's algorithm)."""

    def is_cjk(ch: str) -> bool:
        code = ord(ch)
        return any(lo <= code <= hi for lo, hi in CJK_RANGES)

    folded = unicodedata.normalize("NFKC", text).strip().lower()
    normalized = "".join(" " if unicodedata.category(ch)[0] in "PSC" else ch for ch in folded)
    tokens: list[str] = []
    word = ""
    for ch in normalized + " ":
        if is_cjk(ch) or ch.isspace():
            if word:
                tokens.append(word)
            word = ""
            if is_cjk(ch):
                tokens.append(ch)
        else:
            word += ch
    return tokens


CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2EBEF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0xAC00, 0xD7AF))


def test_tokenizer_and_token_estimate_match_the_per_character_definitions():
    rng = random.Random(5)
    edges = [chr(c) for lo, hi in CJK_RANGES for c in (lo - 1, lo, hi, hi + 1)]
    pools = [" \t\n\u3000\xa0\u2028", "abcXYZ019_", "天气今日温度，。！？", "ＡＢＣ１２３", "ﬁ①²Ⅻ", "🙂💡\u200b", "\u0301ｶﾞガ", "".join(edges)]
    for _ in range(3000):
        text = "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(0, 40)))
        assert char_tokens(text) == reference_char_tokens(text), text
        cjk = sum(1 for ch in text if any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES))
        other = sum(1 for ch in text if not ch.isspace()) - cjk
        assert estimate_tokens(text) == (cjk + (other + 3) // 4 if text else 0), text
    assert [is_cjk(ch) for ch in edges] == [False, True, True, False] * len(CJK_RANGES)
    # ASCII texts take a byte-level path: every ASCII character, the C0 separators included.
    ascii_chars = "".join(map(chr, range(128)))
    for _ in range(2000):
        text = "".join(rng.choice(ascii_chars) for _ in range(rng.randint(0, 60)))
        other = sum(1 for ch in text if not ch.isspace())
        assert estimate_tokens(text) == ((other + 3) // 4 if text else 0), repr(text)


def test_a_windowed_history_is_the_last_observations_joined():
    rng = random.Random(3)
    for window in (1, 2, 5):
        for history in (NgramIndex(window=window), DifflibHistory(window)):
            kept: list[str] = []
            for _ in range(12):
                part = "".join(rng.choices("ab cd天气", k=rng.randint(0, 80)))
                history.add(part)
                kept = (kept + [part])[-window:]
                assert history.text == " ".join(kept) and history.length == len(history.text)
                new = "".join(rng.choices("ab cd天气", k=rng.randint(0, 80)))
                reference = difflib_ratio(" ".join(kept), new)
                assert history.ratio(new) == reference
                assert reference <= ratio_ceiling(history.length, len(new))


def test_p003_skips_ratios_the_lengths_rule_out_and_still_decides_alike():
    def repeats():
        steps = tuple(search(f"q{k}", text, tool="search_contract") for k, text in
                      enumerate([AUTO_RENEWAL, DATA_PROCESSING, TERMINATION, AUTO_RENEWAL], 1))
        return Example("diluted", steps + (answer(),)).trace()

    states = []
    guard = NoNewInformation()
    replay_trace(repeats(), [guard], observe=lambda rnd, phase, guards: states.append(guards[0].state()) if phase.value == "after_tools" else None)
    last = states[-1]["scores"][0]
    history = len(AUTO_RENEWAL) + len(DATA_PROCESSING) + len(TERMINATION) + 2
    assert last["score"] is None and last["novel"] is True
    assert last["at_most"] == round(2 * len(AUTO_RENEWAL) / (history + len(AUTO_RENEWAL)), 4) <= 0.7
    # Computed anyway, the ratio makes the same call.
    assert difflib_ratio(" ".join([AUTO_RENEWAL, DATA_PROCESSING, TERMINATION]), AUTO_RENEWAL) <= 0.7


def test_windows_keep_the_prefix_property_on_a_long_run():
    words = Words(seed=9)
    steps = []
    for k in range(1, 41):
        # Every fifth round repeats an earlier query and result: windows decide what is seen.
        query, content = (words.query(k), words.results(k, 300)) if k % 5 else steps[k - 4][1]
        steps.append((k, (query, content)))
    trace = Example("long", tuple(search(q, c) for _, (q, c) in steps) + (answer(),)).trace()
    guards = lambda: [SimilarQueryStagnation(window=3, threshold=1), NoNewInformation(window=2, threshold=1), RepeatedCallCache()]  # noqa: E731

    def verdicts(result, k):
        return [(f.code, f.round, f.phase, f.action, f.reason) for f in result.fires if f.round <= k]

    whole = replay_trace(trace, guards())
    assert whole.fires  # the windows see some of the repeats
    rounds = trace.rounds
    for k in (5, 13, 24, 40):
        trace.rounds = rounds[:k]
        assert verdicts(replay_trace(trace, guards()), k) == verdicts(whole, k), k
    trace.rounds = rounds


def test_the_evidence_ledger_matches_each_tool_once_and_answers_as_before():
    rng = random.Random(11)
    names = ["search_docs", "grep", "read_file", "run_tests", "Search_Code", "web_search", "bash"]
    for _ in range(50):
        requirements = Requirements.gather(
            rng.sample(["search_*", "grep", "read_*", "*test*"], rng.randint(0, 2)),
            rng.sample(["bash", "web_*", "SEARCH_CODE"], rng.randint(0, 2)),
            None,
        )
        ledger = EvidenceLedger(ResultClassifier())
        for k in range(8):
            name = rng.choice(names)
            ok = rng.random() < 0.6
            rnd = Example("x", (calls(Call(name, {"k": k}, "found it" if ok else "No results")),)).trace().rounds[0]
            ledger.record(rnd)
            assert ledger.missing(requirements) == requirements.missing(ledger.evidence)


def test_fires_on_huge_calls_give_short_reasons_and_details(tmp_path, cli):
    # A 100 KB query repeated: P001, R001 and R002 quote it in their reasons and details;
    # the JSON report stays small instead of carrying the query several times over.
    query = "x" * 100_000
    events = []
    for n in range(3):
        events.append({"type": "round", "trace": "huge", "tool_calls": [{"id": f"c{n}", "name": "web_search", "arguments": json.dumps({"query": query})}]})
        events.append({"type": "result", "trace": "huge", "call_id": f"c{n}", "content": "no results " + "y" * 50_000})
    path = write_jsonl(tmp_path / "huge.jsonl", events)

    result = cli("replay", "--format", "json", "--select", "ALL", str(path))
    assert result.exit_code == 0, result.stderr
    fires = json.loads(result.stdout)["traces"][0]["fires"]
    assert {f["code"] for f in fires} >= {"P001", "R001", "R002"}
    assert len(result.stdout) < 20_000
    assert all(len(f["reason"]) < 1_000 for f in fires)
    assert len(cli("show", "--select", "ALL", str(path)).stdout) < 20_000
