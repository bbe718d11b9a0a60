"""The progress guards P002 (no new URLs) and P003 (no new information), through the
library API, and P003's fast measure against difflib's ratio."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.engine.replay import replay_trace
from tracecheck.guards.examples import Call, Example, answer, calls, search
from tracecheck.guards.p001_similar_query_stagnation import SimilarQueryStagnation
from tracecheck.guards.p002_no_new_urls import NoNewUrls
from tracecheck.guards.p003_no_new_information import (
    AUTO_RENEWAL,
    AUTO_RENEWAL_AGAIN,
    AUTO_RENEWAL_ONCE_MORE,
    DATA_PROCESSING,
    TERMINATION,
    NoNewInformation,
)
from tracecheck.guards.tool_kinds import matches_any
from tracecheck.readers.load import read_traces
from tracecheck.text.similarity import DifflibHistory, NgramIndex, difflib_ratio

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"
WEATHER = ["https://weather.example.cn/beijing", "https://tianqi.example.com/101010100", "https://news.example.com/weather"]


def fires(result):
    return [(f.code, f.round, f.phase.value, f.action.value) for f in result.fires]


def listing(urls, note=""):
    return "\n".join(f"{k}. {url} {note}" for k, url in enumerate(urls, 1))


def synonym_rewrite() -> Example:
    """Seed 000's ceiling: 天气 → 气象 → 气温实况 share no characters but find the same pages."""
    return Example(
        "synonym rewrite",
        (
            search("天气", listing(WEATHER, "北京今日晴")),
            search("气象", listing(WEATHER[::-1], "北京气象台")),
            search("气温实况", listing(WEATHER, "实况 26°C")),
            search("温度 预报", listing(WEATHER, "明日多云")),
            answer("北京今天晴，26°C。"),
        ),
    )


# --- P002 -----------------------------------------------------------------------------


def test_p002_stops_the_synonym_rewrite_that_p001_misses():
    result = replay_trace(synonym_rewrite().trace(), [SimilarQueryStagnation(), NoNewUrls()])
    assert fires(result) == [("P002", 3, "after_tools", "stop")]
    assert result.policy.stop is not None and result.policy.stop.code == "P002"
    assert "3 URLs, 0 new" in result.policy.stop.reason
    assert "2 search rounds in a row without a new URL" in result.policy.stop.reason
    # P001 alone stays quiet on it: containment of 天气/气象/气温实况 never reaches 0.8.
    assert replay_trace(synonym_rewrite().trace(), [SimilarQueryStagnation()]).fires == []


def test_p002_counts_only_search_rounds_and_resets_on_a_new_url():
    guard = NoNewUrls()
    trace = Example(
        "interleaved",
        (
            search("a", listing(WEATHER)),
            search("b", listing(WEATHER)),  # 1
            calls(Call("queryDeviceStatus", {"device": "ac-1"}, "https://intranet.example/ac-1")),  # not a search
            search("c", listing(WEATHER + ["https://new.example.org/x"])),  # new URL: 0
            search("d", listing(WEATHER)),  # 1
            answer(),
        ),
    ).trace()
    states = []
    replay_trace(trace, [guard], observe=lambda rnd, phase, guards: states.append(dict(guards[0].state())) if phase.value == "after_tools" else None)
    assert [s["no_progress"] for s in states] == [0, 1, 1, 0, 1]
    # The business tool's URL did not join the seen set; the search's new one did.
    assert [s["seen_urls"] for s in states] == [3, 3, 3, 4, 4]
    assert [s["last_new"] for s in states] == [3, 0, 0, 1, 0]


def test_p002_threshold_and_search_tools_options():
    assert fires(replay_trace(synonym_rewrite().trace(), [NoNewUrls(threshold=3)])) == [("P002", 4, "after_tools", "stop")]
    assert fires(replay_trace(synonym_rewrite().trace(), [NoNewUrls(search_tools=["webSearch"])])) == []


def test_p002_replaying_a_prefix_gives_the_same_verdicts():
    whole = fires(replay_trace(synonym_rewrite().trace(), [NoNewUrls()]))
    trace = synonym_rewrite().trace()
    trace.rounds = trace.rounds[:3]
    assert fires(replay_trace(trace, [NoNewUrls()])) == whole


# --- P003: the guard ------------------------------------------------------------------


SEED_002_CASES = {
    "near-identical results twice in a row": (
        [AUTO_RENEWAL, AUTO_RENEWAL_AGAIN, AUTO_RENEWAL_ONCE_MORE, AUTO_RENEWAL],
        [(3, "after_tools", "stop")],
    ),
    "genuinely new results keep resetting": ([AUTO_RENEWAL, DATA_PROCESSING, TERMINATION], []),
    "new information in between": ([AUTO_RENEWAL, AUTO_RENEWAL_AGAIN, DATA_PROCESSING, AUTO_RENEWAL], []),
    "a verbatim repeat after two kept observations is diluted": (
        [AUTO_RENEWAL, DATA_PROCESSING, TERMINATION, AUTO_RENEWAL, AUTO_RENEWAL],
        [],
    ),
}


def contract_run(observations: list[str]) -> Example:
    steps = tuple(search(f"续费 {k}", text, tool="search_contract") for k, text in enumerate(observations, 1))
    return Example("contract search", steps + (answer(),))


@pytest.mark.parametrize("case", list(SEED_002_CASES))
def test_p003_ngram_and_difflib_make_the_same_calls_on_the_seed_cases(case):
    observations, expected = SEED_002_CASES[case]
    runs = {}
    for metric in ("ngram", "difflib"):
        guard = NoNewInformation(metric=metric)
        scores = []
        result = replay_trace(
            contract_run(observations).trace(),
            [guard],
            observe=lambda rnd, phase, guards: scores.extend(s["score"] for s in guards[0].state()["scores"]) if phase.value == "after_tools" else None,
        )
        runs[metric] = ([(f.round, f.phase.value, f.action.value) for f in result.fires], scores)
    assert runs["ngram"][0] == runs["difflib"][0] == expected
    assert runs["ngram"][1] == runs["difflib"][1]  # the very same ratios, not just the same side


def test_p003_walks_a_round_call_by_call_and_keeps_only_novel_observations():
    guard = NoNewInformation(tools=["*"])
    trace = Example(
        "parallel",
        (
            calls(Call("search_contract", {"q": "a"}, AUTO_RENEWAL), Call("search_contract", {"q": "b"}, DATA_PROCESSING)),
            calls(Call("search_contract", {"q": "c"}, AUTO_RENEWAL), Call("read_file", {"path": "x"}, "Error: ENOENT", error=True)),
            answer(),
        ),
    ).trace()
    states = []
    replay_trace(trace, [guard], observe=lambda rnd, phase, guards: states.append(guards[0].state()) if phase.value == "after_tools" else None)
    first, second = states
    assert [s["novel"] for s in first["scores"]] == [True, True]
    assert first["observations"] == 2 and first["observed_chars"] == len(AUTO_RENEWAL) + 1 + len(DATA_PROCESSING)
    # The repeat is measured against both kept observations joined, as the seed does;
    # the failed call is no observation.
    assert [s["call_id"] for s in second["scores"]] == ["call_2_1"]
    expected = difflib_ratio(AUTO_RENEWAL + " " + DATA_PROCESSING, AUTO_RENEWAL)
    assert second["scores"][0]["score"] == round(expected, 4)
    assert second["stagnant"] == (1 if expected > 0.7 else 0)


def test_p003_difflib_remains_selectable():
    assert isinstance(NoNewInformation(metric="difflib").history, DifflibHistory)
    assert isinstance(NoNewInformation().history, NgramIndex)
    assert NoNewInformation().options.metric == "ngram"


# --- P003's fast measure against difflib ----------------------------------------------


def walk(trace, tools):
    """Every watched observation of a trace with the history the seed would hold when
    it arrives (difflib decides what is kept), as (history, observation) pairs."""
    kept: list[str] = []
    for rnd in trace.rounds:
        for call in rnd.tool_calls:
            if call.result is None or call.result.is_error is True or not matches_any(call.name, tools):
                continue
            text = call.result.content
            if kept:
                history = " ".join(kept)
                yield history, text
                if difflib_ratio(history, text) <= 0.7:
                    kept.append(text)
            else:
                kept.append(text)


def sample_traces():
    if not SAMPLES.is_dir():
        return []
    diagnostics = Diagnostics()
    return list(read_traces([str(SAMPLES)], diagnostics))


def test_p003_fast_measure_agrees_with_difflib_on_every_sample():
    traces = sample_traces()
    if not traces:
        pytest.skip("no sample traces")
    checked, above, disagreements = 0, 0, []
    for trace in traces:
        # Every tool, not only searches: a superset of what the default watches.
        for history, text in walk(trace, ["*"]):
            index = NgramIndex()
            index.add(history)  # one part: the joined text is the same
            fast, reference = index.ratio(text), difflib_ratio(history, text)
            checked += 1
            above += reference > 0.7
            if (fast > 0.7) != (reference > 0.7):
                disagreements.append((trace.id, text[:60], fast, reference))
    assert not disagreements
    assert checked >= 10 and above >= 1  # both sides of the threshold were exercised


def test_p003_guard_replays_every_sample_alike_with_both_metrics():
    traces = sample_traces()
    if not traces:
        pytest.skip("no sample traces")
    for trace in traces:
        for tools in (["*search*"], ["*"]):
            outcomes = [
                fires(replay_trace(trace, [NoNewInformation(metric=metric, tools=tools)])) for metric in ("ngram", "difflib")
            ]
            assert outcomes[0] == outcomes[1], (trace.id, tools)


def test_samples_expectations_for_p002_and_p003_hold():
    traces = sample_traces()
    if not traces:
        pytest.skip("no sample traces")
    guards = {"P002": NoNewUrls, "P003": NoNewInformation}
    checked = 0
    for trace in traces:
        for expectation in trace.expectations:
            guard = guards.get(expectation.guard.upper())
            if guard is None:
                continue
            got = [f.round for f in replay_trace(trace, [guard()]).fires if f.action.ends_run]
            if expectation.fires:
                assert got, (trace.id, expectation.guard)
                assert expectation.by_round is None or got[0] <= expectation.by_round, (trace.id, expectation.guard, got)
            else:
                assert not got, (trace.id, expectation.guard, got)
            checked += 1
    assert checked


def random_texts(rng: random.Random):
    alphabet = rng.choice(["ab", "abcd ", "the quick brown fox, 1984. ", "天气今日温度预报 ，。", "SaaS 订阅合同自动续费条款 2024 ", "xyzXYZ0123 .,"])
    size = rng.choice([5, 60, 250, 600])

    def text(k):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, k)))

    parts = [text(size) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.6 and any(parts):
        new = list(rng.choice(parts))
        for _ in range(rng.randint(0, 12)):
            if new:
                new[rng.randrange(len(new))] = rng.choice(alphabet)
        cut = rng.randint(0, len(new))
        new = "".join(new[cut:] + new[:cut]) if rng.random() < 0.3 else "".join(new)
    else:
        new = text(size)
    return parts, new


@pytest.mark.parametrize("seed", range(4))
def test_ngram_ratio_is_difflibs_ratio_on_random_text(seed):
    """Whenever the index reports itself exact, the ratio is difflib's to the last bit:
    autojunk (texts of 200+ characters), ties, reordering, repeats, tiny alphabets."""
    rng = random.Random(seed)
    exact = 0
    for _ in range(150):
        parts, new = random_texts(rng)
        index = NgramIndex(n=rng.choice([2, 3, 4, 5]))
        for part in parts:
            index.add(part)
        assert index.text == " ".join(parts)
        fast, reference = index.ratio(new), difflib_ratio(" ".join(parts), new)
        if index.exact:
            exact += 1
            assert fast == reference, (parts, new)
        else:
            assert fast <= reference + 1e-12 or index.crowded
    assert exact >= 120


def test_ngram_budget_errs_towards_novelty():
    # Unrelated text over 300 characters: no popular character, no shared 4-gram, a long
    # tail of one- and two-character coincidences for the recursion to work through.
    rng = random.Random(7)
    alphabet = [chr(0x4E00 + k) for k in range(300)]
    history = "".join(rng.choices(alphabet, k=3000))
    new = "".join(rng.choices(alphabet, k=3000))
    index = NgramIndex(budget=0)
    index.add(history)
    cut = index.ratio(new)
    assert not index.exact
    assert cut < difflib_ratio(history, new)
    full = NgramIndex()
    full.add(history)
    assert full.ratio(new) == difflib_ratio(history, new) and full.exact
