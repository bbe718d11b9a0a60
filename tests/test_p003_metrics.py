"""P003's third metric, ``indel`` (rapidfuzz's longest-common-subsequence ratio), against
the reference difflib ratio and the default ``ngram`` (difflib's ratio from an index):
where their verdicts agree, where they differ and why, and that it stays linear."""

from __future__ import annotations

import math
import random
import time
from pathlib import Path

import pytest

from tracecheck.engine.replay import replay_trace
from tracecheck.guards.examples import answer, search
from tracecheck.guards.p003_no_new_information import AUTO_RENEWAL, NoNewInformation
from tracecheck.guards.examples import Example
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces
from tracecheck.text.similarity import IndelHistory, difflib_ratio, indel_ratio, novelty_history

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"samples": ROOT / "sample_traces", "fixtures": ROOT / "tests" / "fixtures", "corpus": ROOT / "tests" / "corpus"}
METRICS = ("difflib", "ngram", "indel")

# Every trace where the indel metric stops a run that difflib (and ngram) let go on, with
# the tools watched. In each, the LCS counts characters difflib's heuristics leave out:
# * swe_same_error_changing_commands: the same traceback again, only a line number
#   changed; difflib's autojunk anchors its first block on a rare character of the
#   first, unrelated observation and loses the repeat (0.08; the LCS ratio is 0.94);
# * the τ2 airline runs: JSON flight lists with other flights under the same keys; the
#   keys repeat in order, so the LCS is long (task-44: 0.84 where difflib says 0.65).
# Nowhere does difflib stop a run that indel does not: indel's ratio is never lower.
INDEL_ONLY_FIRES = {
    ("samples", "swe_same_error_changing_commands", "*"),
    ("corpus", "task-1/trial-0", "*"),
    ("corpus", "task-2/trial-2", "*"),
    ("corpus", "task-7/trial-2", "*"),
    ("corpus", "task-37/trial-1", "*"),
    ("corpus", "task-41/trial-1", "*"),
    ("corpus", "task-42/trial-1", "*"),
    ("corpus", "task-44/trial-0", "*search*"),
    ("corpus", "task-44/trial-1", "*search*"),
    ("corpus", "task-44/trial-1", "*"),
    # a Terminal-Bench run: the same `(Bash completed with no output)` and short errors
    # under long reads; the LCS ratio crosses the line where difflib's blocks do not
    ("corpus", "constraints-scheduling__6GXVCno", "*"),
    # τ2 retail runs of gpt-5-nano (all labelled healthy): a batch of get_order_details
    # on different orders (or the same orders again, task-106) whose JSON answers share
    # their keys in order; indel finds no new information where difflib does
    ("corpus", "task-16", "*"),
    ("corpus", "task-20", "*"),
    ("corpus", "task-34", "*"),
    ("corpus", "task-49", "*"),
    ("corpus", "task-55", "*"),
    ("corpus", "task-87", "*"),
    ("corpus", "task-91", "*"),
    ("corpus", "task-93", "*"),
    ("corpus", "task-106", "*"),
    # a Who&When Magentic-One run: GitHub's repository and issues pages read again with
    # small OCR differences; the LCS ratio crosses the line where difflib's blocks do not
    ("corpus", "hc-58.json:1", "*"),
    # Claude Code + Qwen3-Coder on Terminal-Bench 1 (polyglot-c-py): the same gcc
    # 'file format not recognized' after each rewrite of a ~1 KB file
    ("corpus", "657ab1d3-a71c-424a-bb05-0fc82cea5fff", "*"),
}


def fires(result):
    return [(f.round, f.phase.value, f.action.value) for f in result.fires]


@pytest.fixture(scope="module")
def traces():
    found = {name: list(read_traces([str(path)], Diagnostics())) for name, path in SOURCES.items() if path.is_dir()}
    if not found.get("samples"):
        pytest.skip("no sample traces")
    return found


def test_indel_is_difflibs_form_with_the_longest_common_subsequence():
    assert indel_ratio("", "") == difflib_ratio("", "") == 1.0
    assert indel_ratio("abc", "") == 0.0
    # Blocks in another order: difflib keeps one alignment, so does the LCS.
    assert indel_ratio("ab cd", "cd ab") == difflib_ratio("ab cd", "cd ab") == 2 * 2 / 10
    # autojunk (b of 200+ characters): 'x' and 'y' are popular in b, so difflib anchors
    # nothing on them; the LCS takes every one.
    a, b = "xy" * 150, "yx" * 150
    assert difflib_ratio(a, b) < 0.1 < 0.99 < indel_ratio(a, b)


def test_indel_is_never_below_difflib_on_random_text():
    rng = random.Random(13)
    for _ in range(300):
        alphabet = rng.choice(["ab", "abcd ", "the quick brown fox, 1984. ", "天气今日温度预报 ，。"])
        a = "".join(rng.choices(alphabet, k=rng.randint(0, 400)))
        b = list(a) if rng.random() < 0.5 else list(rng.choices(alphabet, k=rng.randint(0, 400)))
        for _ in range(rng.randint(0, 20)):
            if b:
                b[rng.randrange(len(b))] = rng.choice(alphabet)
        b = "".join(b)
        assert indel_ratio(a, b) >= difflib_ratio(a, b) - 1e-12, (a, b)


def test_indel_is_selectable_and_a_windowed_joined_history():
    guard = NoNewInformation(metric="indel")
    assert isinstance(guard.history, IndelHistory)
    assert NoNewInformation().options.metric == "ngram"  # the default is unchanged
    history = novelty_history("indel", window=2)
    for part in ("one", "two", "three"):
        history.add(part)
    assert history.text == "two three" and history.ratio("two three") == 1.0
    with pytest.raises(ValueError):
        novelty_history("levenshtein")


def test_every_p003_example_gives_the_same_verdicts_with_indel():
    for example in NoNewInformation.examples:
        outcomes = {}
        for metric in METRICS:
            options = {**example.options, "metric": metric}
            outcomes[metric] = fires(replay_trace(example.trace(), [NoNewInformation(**options)]))
        assert outcomes["indel"] == outcomes["difflib"] == outcomes["ngram"], example.title
        assert [f for f in outcomes["indel"]] == [tuple(e) for e in example.expect], example.title


def test_indel_verdicts_equal_difflibs_on_samples_fixtures_and_corpus_but_the_known_ones(traces):
    considered = 0
    differ = set()
    for source, found in traces.items():
        for trace in found:
            for tools in ("*search*", "*"):
                outcomes = {}
                for metric in METRICS:
                    guard = NoNewInformation(metric=metric, tools=[tools])
                    outcomes[metric] = fires(replay_trace(trace, [guard]))
                    considered += metric == "indel" and guard.kept > 1
                assert outcomes["ngram"] == outcomes["difflib"], (source, trace.id, tools)
                if outcomes["indel"] != outcomes["difflib"]:
                    differ.add((source, trace.id, tools))
                    # indel only ever stops a run sooner than difflib, never later
                    assert outcomes["indel"] and (not outcomes["difflib"] or outcomes["indel"][0] <= outcomes["difflib"][0])
    assert differ == INDEL_ONLY_FIRES
    assert considered >= 20  # ratios were computed on many traces, not skipped
    # Every shipped fixture, and every sample with the default tools, gives difflib's verdicts.
    assert not {d for d in differ if d[0] == "fixtures" or (d[0] == "samples" and d[2] == "*search*")}


def test_indel_on_a_long_run_costs_the_same_per_round():
    """A run of novel 2 KB observations: the ceiling rules out most ratios once the
    window fills, and the history is never joined for a ratio that is not computed."""
    rng = random.Random(1)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(3000)]

    def run(rounds: int):
        steps = tuple(search(f"q{k}", " ".join(rng.choices(words, k=330)) + f" r{k}") for k in range(rounds))
        return Example("long", steps + (answer(),)).trace()

    def per_round(trace) -> float:
        best = math.inf
        for _ in range(2):
            guard = NoNewInformation(metric="indel")
            start = time.perf_counter()
            result = replay_trace(trace, [guard])
            best = min(best, (time.perf_counter() - start) / len(trace.rounds))
            assert not result.fires
        return best

    short, long = per_round(run(200)), per_round(run(2000))
    assert long / short < 3.0, (short, long)


def test_indel_fires_on_the_seed_contract_repeats():
    steps = tuple(search(f"续费 {k}", AUTO_RENEWAL, tool="search_contract") for k in range(3)) + (answer(),)
    result = replay_trace(Example("contract", steps).trace(), [NoNewInformation(metric="indel")])
    assert fires(result) == [(3, "after_tools", "stop")]
    assert "indel ratio > 0.7" in result.fires[0].reason


def test_indel_without_rapidfuzz_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "rapidfuzz.distance", None)  # import fails
    with pytest.raises(ValueError, match=r"needs the optional rapidfuzz package: pip install rapidfuzz"):
        NoNewInformation(metric="indel")
    assert NoNewInformation().options.metric == "ngram"  # the default needs nothing more
