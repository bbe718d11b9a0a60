"""P003's novelty measures side by side: seed 002's difflib ratio, the n-gram index
(difflib's ratio, the default) and rapidfuzz's Indel ratio (the longest common subsequence).

Prints
1. the time of one novelty check (a new observation against the history) for histories
   of growing size, difflib vs ngram vs indel, with the speed-ups and the similarity values;
2. how often ngram and indel make difflib's call (above / below P003's 0.7) on a
   generated corpus of search runs: ranked results in Chinese and English, rendered as
   text, Markdown or JSON, repeated, reordered, re-snippeted, partly replaced or new;
3. P003 on runs of 20 KB observations (the issue's figure): a whole run replayed with
   each metric, time per check and ratio against difflib, and whether the stops agree;
4. the verdicts of the three metrics on every sample, fixture and corpus trace.

Figures only: nothing here asserts on time, which depends on the machine. The agreement
on the shipped samples is asserted by tests/test_guards_progress.py and
tests/test_p003_metrics.py.

    python benchmarks/p003_novelty.py [--sizes 1000,5000,20000,50000] [--runs 300] [--seed 0] [--big-runs 6]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tracecheck.text.similarity import NgramIndex, difflib_ratio, indel_ratio  # noqa: E402

THRESHOLD = 0.7
HOSTS = ("docs.python.org", "zhuanlan.zhihu.com", "blog.csdn.net", "stackoverflow.com",
         "www.gov.cn", "news.sina.com.cn", "github.com", "developer.mozilla.org")
TERMS = ("SaaS", "API", "HTTP", "JSON", "2024年", "Q3", "GPT-4o", "ReAct", "v2.1", "CSV", "42%", "LangChain")


def english_sentences() -> list[str]:
    """Real English prose from the standard library's help topics (a fallback if absent)."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distributions strip pydoc_data
        topics = {"x": "The quick brown fox jumps over the lazy dog. " * 50}
    out = []
    for text in topics.values():
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
            if 40 <= len(sentence) <= 300:
                out.append(sentence)
    return out


class Corpus:
    """Search observations with the statistics that drive difflib: Zipf-distributed
    Chinese characters and words, real English prose, boilerplate of result lists."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        rng = self.rng
        chars = [chr(c) for c in rng.sample(range(0x4E00, 0x9FA6), 2500)]
        char_weights = [1 / (k + 1) for k in range(len(chars))]
        words = {"".join(rng.choices(chars, char_weights, k=rng.choice((1, 2, 2, 2, 3, 4)))) for _ in range(4000)}
        self.words = sorted(words)
        rng.shuffle(self.words)
        self.word_weights = [1 / (k + 1) ** 0.9 for k in range(len(self.words))]
        self.english = english_sentences()
        self.serial = 0

    def sentence(self, lang: str) -> str:
        rng = self.rng
        if lang == "en":
            return rng.choice(self.english)
        parts = []
        for _ in range(rng.randint(1, 3)):
            clause = "".join(rng.choices(self.words, self.word_weights, k=rng.randint(3, 9)))
            if rng.random() < 0.25:
                clause += rng.choice(TERMS)
            parts.append(clause)
        return "，".join(parts) + "。"

    def document(self, lang: str) -> dict:
        self.serial += 1
        title = self.sentence(lang)[: self.rng.randint(12, 60)]
        url = f"https://{self.rng.choice(HOSTS)}/{self.serial:05d}/{self.rng.getrandbits(24):06x}"
        return {"title": title, "url": url, "sentences": [self.sentence(lang) for _ in range(self.rng.randint(3, 9))]}

    def render(self, docs: list[dict], style: str, window: int = 0, stamp: int = 0) -> str:
        items = []
        for rank, doc in enumerate(docs, 1):
            sentences = doc["sentences"]
            start = window % len(sentences)
            snippet = " ".join(sentences[start:] + sentences[:start])[:300]
            if stamp:
                snippet = f"[{stamp + rank} min ago] {snippet}"
            if style == "json":
                items.append(json.dumps({"title": doc["title"], "url": doc["url"], "content": snippet}, ensure_ascii=False))
            elif style == "markdown":
                items.append(f"- [{doc['title']}]({doc['url']})\n  {snippet}")
            else:
                items.append(f"{rank}. {doc['title']}\n   {doc['url']}\n   {snippet}")
        if style == "json":
            return '{"results": [' + ", ".join(items) + "]}"
        return "\n\n".join(items)

    def run(self) -> list[str]:
        """The observations of one search tool over one run."""
        rng = self.rng
        lang = rng.choice(("en", "zh"))
        style = rng.choice(("text", "markdown", "json"))
        pool = [self.document(lang) for _ in range(rng.randint(6, 24))]
        current = rng.sample(pool, rng.randint(2, min(8, len(pool))))
        observations = [self.render(current, style)]
        for _ in range(rng.randint(1, 7)):
            move = rng.choice(("same", "same", "reorder", "snippets", "partial", "new", "subset", "stamps"))
            window, stamp = 0, 0
            if move == "reorder":
                current = current[:]
                rng.shuffle(current)
            elif move == "snippets":
                window = rng.randint(1, 3)
            elif move == "partial":
                current = current[:]
                for _ in range(rng.randint(1, max(1, len(current) // 2))):
                    current[rng.randrange(len(current))] = rng.choice(pool)
            elif move == "new":
                current = rng.sample(pool, rng.randint(2, min(8, len(pool))))
            elif move == "subset":
                current = current[: rng.randint(1, len(current))]
            elif move == "stamps":
                stamp = rng.randint(1, 50)
            observations.append(self.render(current, style, window, stamp))
        return observations

    def observation(self, lang: str, size: int, style: str = "text") -> str:
        text, docs = "", []
        while len(text) < size:
            docs.append(self.document(lang))
            text = self.render(docs, style)
        return text[:size]


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def timing(sizes: list[int], seed: int) -> None:
    corpus = Corpus(seed)
    print("1. One novelty check: a new observation (half the history's size) against the history")
    print(f"{'lang':4} {'history':>8} {'new':>7} {'case':10} {'difflib ms':>11} {'ngram ms':>9} {'speed-up':>8} "
          f"{'index ms':>9} {'indel ms':>9} {'speed-up':>9} {'difflib':>8} {'ngram':>8} {'indel':>8}  same call (ngram, indel)")
    for lang in ("en", "zh"):
        for size in sizes:
            parts = [corpus.observation(lang, size // 2), corpus.observation(lang, size - size // 2 - 1)]
            history = " ".join(parts)
            index = NgramIndex()
            start = time.perf_counter()
            for part in parts:
                index.add(part)
            index.build()  # now, not inside the first timed ratio
            index_ms = (time.perf_counter() - start) * 1000
            blocks = parts[1].split("\n\n")
            corpus.rng.shuffle(blocks)
            cut = len(parts[0]) // 3
            cases = {
                "near-dup": parts[0][:cut] + corpus.sentence(lang) + parts[0][cut:],
                "reordered": "\n\n".join(blocks),
                "novel": corpus.observation(lang, size // 2),
            }
            repeat = 3 if size <= 20000 else 1
            for case, new in cases.items():
                slow, reference = best_time(lambda: difflib_ratio(history, new), repeat)
                fast, score = best_time(lambda: index.ratio(new), repeat)
                lcs_time, lcs = best_time(lambda: indel_ratio(history, new), max(repeat, 5))
                same = (reference > THRESHOLD) == (score > THRESHOLD)
                same_lcs = (reference > THRESHOLD) == (lcs > THRESHOLD)
                print(f"{lang:4} {len(history):8,} {len(new):7,} {case:10} {slow * 1000:11.1f} {fast * 1000:9.1f} "
                      f"{slow / fast:7.1f}x {index_ms:9.1f} {lcs_time * 1000:9.2f} {slow / lcs_time:8.0f}x "
                      f"{reference:8.4f} {score:8.4f} {lcs:8.4f}  {'yes' if same else 'NO'}, {'yes' if same_lcs else 'NO'}")
    print("index ms: building the n-gram index of the history, paid once per change of the history (by the first "
          "ratio after it), not per check.\n")


def agreement(runs: int, seed: int) -> None:
    corpus = Corpus(seed + 1)
    checks = agree = equal = near = cut = agree_lcs = 0
    worst = 0.0
    slow = fast = lcs_time = 0.0
    sizes = []
    for _ in range(runs):
        kept: list[str] = []
        index = NgramIndex()
        for observation in corpus.run():
            if not kept:  # the seed: the first observation is always new
                kept.append(observation)
                index.add(observation)
                continue
            history = " ".join(kept)
            sizes.append(len(history) + len(observation))
            start = time.perf_counter()
            reference = difflib_ratio(history, observation)
            slow += time.perf_counter() - start
            start = time.perf_counter()
            score = index.ratio(observation)
            fast += time.perf_counter() - start
            start = time.perf_counter()
            lcs = indel_ratio(history, observation)
            lcs_time += time.perf_counter() - start
            agree_lcs += (reference > THRESHOLD) == (lcs > THRESHOLD)
            checks += 1
            agree += (reference > THRESHOLD) == (score > THRESHOLD)
            equal += reference == score
            near += abs(reference - THRESHOLD) < 0.05
            cut += not index.exact
            worst = max(worst, abs(reference - score))
            if reference <= THRESHOLD:  # the reference decides what is kept: same history for both
                kept.append(observation)
                index.add(observation)
    sizes.sort()
    print(f"2. Agreement on a generated corpus: {runs} runs, {checks} checks "
          f"(history + new: median {sizes[len(sizes) // 2]:,} chars, max {sizes[-1]:,})")
    print(f"   same call (both above or both at/below {THRESHOLD}): {agree}/{checks} = {agree / checks:.2%}")
    print(f"   identical ratio: {equal}/{checks}; largest difference {worst:.2e}; "
          f"checks within 0.05 of the threshold: {near}")
    print(f"   checks the index could not certify exact (work budget spent, or a gram the history repeats "
          f"more than cap times): {cut}")
    print(f"   indel makes difflib's call: {agree_lcs}/{checks} = {agree_lcs / checks:.2%} "
          f"(indel is never below difflib: where they differ, indel says 'nothing new')")
    print(f"   total time: difflib {slow:.2f} s, ngram {fast:.2f} s ({slow / fast:.1f}x), "
          f"indel {lcs_time:.3f} s ({slow / lcs_time:.0f}x)\n")


def big_runs(runs: int, seed: int, size: int = 20_000) -> None:
    """P003 itself, each metric, on runs of ``size``-character observations."""
    from tracecheck.engine.replay import replay_trace
    from tracecheck.guards.examples import Example, answer, search
    from tracecheck.guards.p003_no_new_information import NoNewInformation

    corpus = Corpus(seed + 2)
    totals = {metric: 0.0 for metric in ("difflib", "ngram", "indel")}
    checks = {metric: 0 for metric in totals}
    same = {metric: 0 for metric in totals}
    for k in range(runs):
        lang = ("en", "zh")[k % 2]
        base = corpus.observation(lang, size)
        cut = size // 3
        observations = [
            base,
            base[:cut] + corpus.sentence(lang) + base[cut:],  # near-duplicate
            corpus.observation(lang, size),  # new
            base[size // 2 :] + " " + base[: size // 2],  # reordered halves
            base[: size - 100] + corpus.sentence(lang),  # the same, new tail
        ]
        trace = Example("big", tuple(search(f"q{i}", o) for i, o in enumerate(observations)) + (answer(),)).trace()
        stops = {}
        for metric in totals:
            guard = NoNewInformation(metric=metric)
            computed = []
            start = time.perf_counter()
            result = replay_trace(
                trace, [guard],
                observe=lambda rnd, phase, guards: computed.extend(s for s in guards[0].state()["scores"] if s["score"] is not None)
                if phase.value == "after_tools" else None,
            )
            totals[metric] += time.perf_counter() - start
            checks[metric] += len(computed)
            stops[metric] = [(f.round, f.action.value) for f in result.fires]
        for metric in totals:
            same[metric] += stops[metric] == stops["difflib"]
    print(f"3. P003 replayed on {runs} runs of five {size:,}-character observations (near-duplicate, new, "
          f"reordered, new tail), Chinese and English")
    for metric, seconds in totals.items():
        per = seconds / max(1, checks[metric]) * 1000
        print(f"   {metric:8} {seconds:7.2f} s, {per:8.2f} ms per computed ratio ({checks[metric]} ratios), "
              f"{totals['difflib'] / seconds:7.1f}x difflib; same stops as difflib in {same[metric]}/{runs} runs")
    print()


def shipped_verdicts() -> None:
    """The stops of each metric on every sample, fixture and corpus trace."""
    from tracecheck.engine.replay import replay_trace
    from tracecheck.guards.p003_no_new_information import NoNewInformation
    from tracecheck.input.diagnostics import Diagnostics
    from tracecheck.readers.load import read_traces

    root = Path(__file__).resolve().parent.parent
    print("4. P003's stops on the shipped traces, per metric (tools: the default *search*, and every tool)")
    for name in ("sample_traces", "tests/fixtures", "tests/corpus"):
        traces = list(read_traces([str(root / name)], Diagnostics()))
        for tools in ("*search*", "*"):
            differ = []
            fired = 0
            seconds = {metric: 0.0 for metric in ("difflib", "ngram", "indel")}
            for trace in traces:
                stops = {}
                for metric in seconds:
                    start = time.perf_counter()
                    result = replay_trace(trace, [NoNewInformation(metric=metric, tools=[tools])])
                    seconds[metric] += time.perf_counter() - start
                    stops[metric] = [(f.round, f.action.value) for f in result.fires]
                fired += bool(stops["difflib"] or stops["indel"])
                if len({tuple(v) for v in stops.values()}) > 1:
                    differ.append(f"{trace.id} (difflib {stops['difflib'] or '-'}, ngram {stops['ngram'] or '-'}, "
                                  f"indel {stops['indel'] or '-'})")
            times = ", ".join(f"{metric} {value:.2f} s" for metric, value in seconds.items())
            print(f"   {name:14} {tools:9} {len(traces):4} traces, {fired:3} with a stop; differ: {len(differ)}; {times}")
            for line in differ:
                print(f"      {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,5000,20000,50000", help="history sizes in characters")
    parser.add_argument("--runs", type=int, default=300, help="generated runs for the agreement figures")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--big-runs", type=int, default=6, help="runs of 20 KB observations replayed through P003")
    args = parser.parse_args()
    timing([int(s) for s in args.sizes.split(",")], args.seed)
    agreement(args.runs, args.seed)
    big_runs(args.big_runs, args.seed)
    shipped_verdicts()


if __name__ == "__main__":
    main()
