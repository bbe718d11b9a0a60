from __future__ import annotations

import time
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from ..text.similarity import NOVELTY_METRICS, novelty_history, ratio_ceiling
from . import base
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read, search
from .messages import Message
from .novelty_judge import (
    DEFAULT_ENDPOINT,
    DEFAULT_MODEL,
    Judge,
    JudgeUnavailable,
    endpoint_problem,
    judge_prompt,
    warn_once,
)
from .signals import (
    DEFAULT_SEARCH_TOOLS,
    ENGLISH_ANSWER_INDICATORS,
    SEED_ANSWER_INDICATORS,
)
from .tool_kinds import matches_any

# metric judge: the judge sees the last 3 novel observations (the seed's
# previous_results[-3:]), each cut to this many characters.
JUDGE_CONTEXT = 3
JUDGE_MAX_CHARS = 4000


def judge_note(cost: dict[str, Any], model: str, similarity: str) -> str:
    """The judge's cost in words, beside the text similarity measured with it."""
    note = (
        f"judge {model}: {cost['requests']} request{'s' if cost['requests'] != 1 else ''} "
        f"({cost['seconds']:.2f} s), {cost['cached']} cached; {similarity} similarity: {cost['similarity_seconds']:.4f} s, "
        f"agreed on {cost['agreed_with_similarity']} of {cost['judged']}"
    )
    if cost.get("fell_back"):
        note += f"; judge unavailable ({cost['fell_back']}): {similarity} similarity decided"
    return note


# The seed's should_terminate checks its conditions in this order; the first that holds
# is the one a finding names.
CONDITIONS = ("stagnation", "observations", "answer")


@frozen_dataclass
class P003Options(GuardOptions):
    similarity: float = option(
        0.7, "Similarity to what was already observed above which an observation brings nothing new.", minimum=0.0, maximum=1.0
    )
    threshold: int = option(2, "Observations in a row without new information that stop the run.", minimum=1)
    metric: str = option(
        "ngram",
        "ngram (difflib's ratio from an n-gram index, linear time), difflib (the seed's SequenceMatcher, quadratic) "
        "or indel (the longest common subsequence ratio, rapidfuzz's C++; never below difflib's, so it can stop sooner); "
        "judge: a local model asked YES/NO (seed 002's exercise; the judge_* options).",
        choices=NOVELTY_METRICS + ("judge",),
    )
    tools: list[str] = option(
        list(DEFAULT_SEARCH_TOOLS), "Glob patterns (any case) of the tools whose results are observed; ['*'] watches every tool."
    )
    window: int = option(
        50,
        "Novel observations kept as the history (the most recent ones); a new observation is compared with "
        "them joined. Bounds the memory and work per round of long runs.",
        minimum=1,
    )
    max_observations: int = option(
        0,
        "Stop once this many watched observations have come in, new or not (seed 002's second condition, "
        "len(accumulated_results) >= 5); 0: off.",
        minimum=0,
    )
    stop_on_answer: bool = option(
        False,
        "Stop when a watched observation holds one of answer_indicators (seed 002's third condition: "
        "the result already holds a clear answer).",
    )
    answer_indicators: list[str] = option(
        list(SEED_ANSWER_INDICATORS + ENGLISH_ANSWER_INDICATORS),
        "Texts whose presence in an observation means it holds a clear answer, matched as written "
        "(case matters, as in the seed; none may be empty); used with stop_on_answer. Seed 002's list and English equivalents.",
    )
    judge_endpoint: str = option(
        DEFAULT_ENDPOINT,
        "With metric judge: the model server's URL. A path ending /api/generate or /api/chat speaks Ollama's "
        "JSON API; any other (e.g. /v1/chat/completions) the OpenAI-compatible chat API. An http(s) URL with a host and without a user name or password.",
    )
    judge_model: str = option(DEFAULT_MODEL, "With metric judge: the model asked (seed 002: Ollama's qwen2.5:3b).")
    judge_timeout: float = option(
        5.0,
        "With metric judge: seconds to wait for an answer; past it the judge counts as unreachable.",
        minimum=0.1,
        maximum=3600.0,
    )
    judge_cache: str = option(
        "",
        "With metric judge: the JSON file of cached answers (by model and prompt hash); empty: "
        "$XDG_CACHE_HOME/tracecheck/p003-judge.json (~/.cache without it). A file that is not a judge cache is never written.",
    )
    judge_fallback: str = option(
        "ngram",
        "With metric judge: the text-similarity metric every observation is also measured with, used for the "
        "verdict when the judge is unreachable (for the rest of the process) or answers neither YES nor NO.",
        choices=NOVELTY_METRICS,
    )
    judge_floor: float = option(
        0.0,
        "With metric judge: a NO counts only when the text similarity to what was seen is at least this; below it "
        "the judge is overruled and the result is new (a guard against a judge wrongly saying NO). 0: the judge decides.",
        minimum=0.0,
        maximum=1.0,
    )


# Seed 002's scene: an internal contract knowledge base searched with near-synonyms.
AUTO_RENEWAL = (
    "1. 《SaaS 订阅服务协议》第 8.2 条 自动续费：订阅期满前 30 日未以书面形式通知终止的，本协议按原期限自动续订，费用按续订时的价目表计收。\n"
    "   https://kb.example.com/contracts/saas-subscription#8.2\n"
    "2. 《软件服务合同（标准版）》第 5 条 续约与终止：任何一方可在服务期满前 15 个工作日提出不续约，逾期未提出的视为同意续约一年。\n"
    "   https://kb.example.com/contracts/software-service#5\n"
    "3. 《企业订阅补充协议》第 3 条 价格调整：自动续费后的年度费用上调幅度不超过 10%，乙方须提前 45 日通知甲方。\n"
    "   https://kb.example.com/contracts/enterprise-addendum#3"
)
# The same clauses as the next synonym brings them back: one dropped, a word changed.
AUTO_RENEWAL_AGAIN = AUTO_RENEWAL.replace("自动续费：", "自动续约：").rsplit("\n3. ", 1)[0]
AUTO_RENEWAL_ONCE_MORE = AUTO_RENEWAL.replace("第 8.2 条", "第八条第二款").replace("续约一年", "续约 12 个月")
AUTO_RENEWAL_REORDERED = "\n".join(AUTO_RENEWAL.split("\n")[2:4] + AUTO_RENEWAL.split("\n")[0:2] + AUTO_RENEWAL.split("\n")[4:6])
DATA_PROCESSING = (
    "1. 《数据处理协议（DPA）》第 4 条 数据留存：合同终止后 30 日内，受托方应删除或返还全部个人信息，并出具删除证明。\n"
    "   https://kb.example.com/contracts/dpa#4\n"
    "2. 《服务等级协议（SLA）》第 2 条 可用性承诺：月度可用性低于 99.9% 时，按未达标时长折算服务抵扣券。\n"
    "   https://kb.example.com/contracts/sla#2"
)
TERMINATION = (
    "1. 《SaaS 订阅服务协议》第 12 条 提前解约：甲方提前解约的，已付费用不予退还；乙方违约导致解约的，按剩余服务期比例退款。\n"
    "   https://kb.example.com/contracts/saas-subscription#12\n"
    "2. 《保密协议（NDA）》第 6 条 保密期限：保密义务在协议终止后继续有效三年。\n"
    "   https://kb.example.com/contracts/nda#6"
)
HTTPX = (
    "1. Timeouts - HTTPX: HTTPX is careful to enforce timeouts everywhere by default. The default behavior is to raise "
    "a TimeoutException after 5 seconds of network inactivity. https://www.python-httpx.org/advanced/timeouts/\n"
    "2. Fine-tuning the configuration: httpx.Timeout(10.0, connect=60.0) sets a 60s connect timeout and 10s elsewhere. "
    "https://www.python-httpx.org/advanced/timeouts/#fine-tuning-the-configuration"
)
HTTPX_AGAIN = HTTPX.replace("by default", "by default in all cases").replace("60s", "sixty-second")
# A result that answers the question outright, in Chinese and in English.
ANSWERED = "根据《SaaS 订阅服务协议》第 8.2 条，订阅期满前 30 日未以书面形式通知终止的，本协议按原期限自动续订。"
ANSWERED_EN = (
    "According to clause 8.2 of the SaaS Subscription Agreement, the subscription renews automatically "
    "unless either party gives written notice 30 days before the term ends."
)
# The seed's first four queries, in its order.
CONTRACT_QUERIES = ("SaaS 订阅合同 自动续费", "SaaS 订阅协议 自动续约", "软件即服务 合同 续费条款", "自动续费条款 SaaS 协议")


def contract_searches(*results: str) -> tuple:
    """search_contract rounds with the seed's queries returning ``results``, then an answer."""
    return tuple(search(query, result, tool="search_contract") for query, result in zip(CONTRACT_QUERIES, results)) + (answer(),)


SETTINGS = "DEBUG=false\nDATABASE_URL=postgres://db:5432/app\nCACHE_TTL=300\n"

# The closing prompts of seed 002's other two conditions. They are sent as the guard's
# ``stop`` message (a ``messages.stop`` override replaces all three); {count} is the
# number of observations so far.
OTHER_STOPS = {
    # "已积累足够信息，终止搜索"
    "observations": Message(
        en="Enough information has been gathered ({count} tool results), searching is stopped. "
        "Give your final answer from the information you have.",
        zh="已积累足够信息（{count} 次工具结果），终止搜索。请基于已获取的信息给出最终答案。",
        fields=("tool", "count"),
    ),
    # "当前结果已包含明确答案，终止搜索"
    "answer": Message(
        en="The latest {tool} result already holds a clear answer, searching is stopped. Give your final answer from it.",
        zh="当前 {tool} 结果已包含明确答案，终止搜索。请据此给出最终答案。",
        fields=("tool", "count"),
    ),
}


class NoNewInformation(Guard):
    """Stops a run whose tool observations stop bringing new information (seed 002, plan B).

    **What it fires on.** After the tools of a round, each result of a watched tool
    (``tools``: ``*search*`` by default, as seed 002 gates its search observations;
    ``["*"]`` watches every tool) is compared with what was observed so far: the
    seed's ``" ".join`` of the earlier novel observations, the last ``window`` (50) of
    them (see *History* below). A similarity above ``similarity`` (0.7) adds 1 to the
    stagnant count and the observation is *not* kept; anything else resets the count
    to 0 and joins the history. The first
    observation is always new. When the count reaches ``threshold`` (2) the guard says
    ``stop`` after that round's tools: the agent answers from what it has. Several
    watched calls in one round are taken one by one in call order, as the seed's
    ``on_tool_end`` callback sees them; the round stops if the count reached the
    threshold at any of them. A call flagged as failed is not an observation (LangChain
    reports it through ``on_tool_error``; F001 watches failures).

    **The measure.** Seed 002 uses ``difflib.SequenceMatcher(None, history, new)
    .ratio()``, which is quadratic and grows with the whole history. ``metric=ngram``
    (the default) computes the same ratio from an n-gram index of the history: the same
    matching blocks, autojunk included, in linear time (see ``tracecheck.text.similarity``).
    It agrees with difflib on the seed's cases and on every shipped sample;
    ``metric=difflib`` keeps the seed's code as the reference. No ratio can exceed
    2·min(|history|, |new|) / (|history| + |new|) (difflib's ``real_quick_ratio``):
    when that ceiling is already at or below ``similarity`` the observation is new
    and no ratio is computed (its score shows as ``at_most``, the ceiling).

    **indel: the longest common subsequence.** Seed 002's text describes its measure as
    the longest common subsequence; difflib only approximates one. ``metric=indel``
    computes it exactly, 2·LCS / (|history| + |new|), with rapidfuzz's
    ``Indel.normalized_similarity`` (bit-parallel C++). difflib's matching blocks are
    one common subsequence, so the indel ratio is never below difflib's: it can stop a
    run sooner, never later. They differ where difflib's heuristics stop short of the
    longest alignment: autojunk (in observations of 200+ characters, characters more
    frequent than 1 % never start a match, so common letters, digits and punctuation
    count only next to a rarer match) and the greedy longest-block-first recursion (a
    first block anchored in the wrong place cuts off the real alignment). Both ways
    cut: the same traceback again with only a line number changed scores 0.08 with
    difflib and 0.94 with indel (``swe_same_error_changing_commands``, ``tools=["*"]``:
    indel stops it at round 4, rightly); JSON flight lists with other flights under the
    same keys score 0.65 and 0.84 (τ2 airline ``task-44`` in ``tests/corpus``: indel
    stops on new flights, wrongly, because repeated keys and scattered common
    characters are a long subsequence). On every shipped sample with the default tools,
    every fixture and every example, the two make the same calls; indel differs on 10
    (trace, tools) pairs of the τ2 corpus and the SWE sample above
    (``tests/test_p003_metrics.py`` pins them). On 20 KB observations it is 6–30 times
    faster than difflib (``benchmarks/p003_novelty.py``), short of the 50 times that
    would justify other verdicts; ``ngram`` (2–8 times) stays the default: difflib's
    verdicts, and reports as they were.

    **History.** The seed compares with *every* novel observation of the run, so its
    work per observation grows with the run. Here the history is the last ``window``
    (50) novel observations; an older one drops out when a new one is kept. The seed's
    runs (at most 10 iterations) never reach that, so verdicts are the seed's; in a
    long run the ceiling above already rules out a match against 50 kept
    observations unless the new one is about 27 times longer than their average.

    **The seed's other two conditions** (off by default; the ``seed-002`` preset turns
    them on). Seed 002's ``should_terminate`` runs after every observation and stops on
    the first of three conditions that holds, in this order: the stagnant count reached
    the threshold (above); ``len(accumulated_results) >= 5``, every observation so far,
    new or not (``max_observations``; 0 is off); the observation holds one of its
    ``answer_indicators`` ("是的", "不，", "根据", "第一条", "答案是", "具体来说"),
    matched with ``in`` as the seed does, case and all (``stop_on_answer``; the default
    list adds "Yes,", "No,", "According to", "Article 1", "The answer is",
    "Specifically"). The finding names the condition that fired (``details.condition``:
    ``observations`` or ``answer``, with ``indicator``; a stagnation stop reads as
    before). Only watched tools' results count, as for stagnation. The indicators are
    the seed's "simple heuristic": common words such as 根据 or "According to" also
    open results that answer nothing, so this stop can come early.

    **The judge** (``metric=judge``, seed 002's exercise). Instead of a text ratio, a
    small local model is asked whether the new observation brings information the last
    three novel ones (the seed's ``previous_results[-3:]``, each cut to 4,000
    characters) do not: YES is new, NO adds 1 to the stagnant count, exactly where a
    ratio over ``similarity`` would. ``judge_endpoint`` is Ollama's
    ``/api/generate`` on localhost by default (``/api/chat`` and OpenAI-compatible
    ``/v1/chat/completions`` servers work too), ``judge_model`` seed 002's
    ``qwen2.5:3b``. HTTP uses the standard library only. Answers are cached in a
    JSON file (``judge_cache``; by default ``~/.cache/tracecheck/p003-judge.json``)
    keyed by the model and the prompt's SHA-256, so replaying the same traces again
    asks nothing; a file at that path that is not a judge cache (a trace, a report) is
    never written. The text similarity (``judge_fallback``, ``ngram``) is measured
    beside every question, and every judge finding reports the cost of both:
    requests, answers from the cache, seconds waited for the server, seconds of
    similarity, and on how many observations the two agreed (``details.judge_cost``;
    ``tracecheck show`` has it in the guard's state after every round).
    **Fallbacks.** A judge that cannot be reached (connection refused, no answer
    within ``judge_timeout``, 5 s; an HTTP error; an answer that is not JSON) is asked
    no more in this process: one warning on stderr says so and the similarity decides
    from there on, so the replay goes on with the verdicts the similarity metric gives.
    An answer that is neither YES nor NO is left to the similarity too (counted as
    ``unclear``). A judge that wrongly says NO would stop a run that was still
    learning: ``judge_floor`` overrules a NO whose text similarity to what was seen is
    below it (0, off, by default), and replay's counterfactual check marks any stop
    after which the recorded run found new URLs or results. The judge's answers depend
    on the model and the server: replays with it are only as repeatable as its cache.

    **Why it matters.** A model that rewords a query eight times (SaaS 订阅合同 自动续费
    → SaaS 订阅协议 自动续约 → …) gets back the same clauses each time. Whatever the
    queries look like, the observations show that nothing new is coming in.

    **Known misses.** The ratio divides by the length of the whole joined history, so
    once two or three different observations are kept, even a verbatim repeat of one
    of them scores about 2·|o| / (|history| + |o|), under 0.7: long runs dilute the
    signal (the seed's contract trace is one). ``window=1`` compares with the last
    novel observation alone and catches such repeats, but no longer sees a return to
    an older result (both below). difflib aligns in order, so the same results in
    another order look new. A result that differs only in timestamps or counters
    throughout may also score low.
    """

    code = "P003"
    name = "no-new-information"
    summary = "Stop when tool observations stop bringing new information ({metric} similarity over {similarity} to what was seen, {threshold} in a row)."
    source = "seed 002 (plan B)"
    origin = 'seed article 002, 《ReAct 循环中陷入"工具调用死循环"》: plan B, the information-gain gate (difflib ratio over 0.7 to what was seen, twice in a row)'
    Options = P003Options
    messages = {
        "stop": Message(
            # Seed 002's "信息停滞，终止搜索", with the way out.
            en="Information has stagnated, searching is stopped: your last {count} tool results brought nothing "
            "that was not already known. Give your final answer from the information you have.",
            zh="信息停滞，终止搜索：最近 {count} 次工具结果没有带来新信息。请基于已获取的信息给出最终答案。",
            fields=("tool", "count"),
            when="the closing prompt of the forced final answer. When max_observations or stop_on_answer stops "
            "the run, its own default text says why (enough results gathered; the result holds a clear answer, "
            "with {count} the observations so far); an override of stop replaces all three",
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "The contract search brings back the same clauses twice in a row: stop after round 3's search",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL_AGAIN, tool="search_contract"),
                    search("软件即服务 合同 续费条款", AUTO_RENEWAL_ONCE_MORE, tool="search_contract"),
                    search("自动续费条款 SaaS 协议", AUTO_RENEWAL, tool="search_contract"),
                    answer(),
                ),
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "The seed's difflib ratio, selected, makes the same call",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL_AGAIN, tool="search_contract"),
                    search("软件即服务 合同 续费条款", AUTO_RENEWAL_ONCE_MORE, tool="search_contract"),
                    answer(),
                ),
                expect=((3, "after_tools", "stop"),),
                options={"metric": "difflib"},
            ),
            Example(
                "Genuinely new results keep the count at 0",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("数据处理协议 删除 留存", DATA_PROCESSING, tool="search_contract"),
                    search("提前解约 退款 保密期限", TERMINATION, tool="search_contract"),
                    answer(),
                ),
            ),
            Example(
                "New information in between resets the count",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL_AGAIN, tool="search_contract"),
                    search("数据处理协议 删除 留存", DATA_PROCESSING, tool="search_contract"),
                    search("自动续费条款 SaaS 协议", AUTO_RENEWAL, tool="search_contract"),
                    answer(),
                ),
            ),
            Example(
                "Two near-identical observations in one round count one after the other",
                (
                    search("httpx timeout", HTTPX),
                    calls(Call("web_search", {"query": "httpx default timeout"}, HTTPX_AGAIN), Call("web_search", {"query": "httpx timeout seconds"}, HTTPX)),
                    answer(),
                ),
                expect=((2, "after_tools", "stop"),),
            ),
            Example(
                "Only watched tools are observed: the same file read three times is not a search",
                tuple(calls(Call("read_file", {"path": ".env"}, SETTINGS)) for _ in range(3)) + (answer(),),
            ),
            Example(
                "With tools ['*'] every observation counts",
                tuple(calls(Call("read_file", {"path": ".env"}, SETTINGS)) for _ in range(3)) + (answer(),),
                expect=((3, "after_tools", "stop"),),
                options={"tools": ["*"]},
            ),
            Example(
                "Known miss: a verbatim repeat after three different results is diluted by the joined history",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("数据处理协议 删除 留存", DATA_PROCESSING, tool="search_contract"),
                    search("提前解约 退款 保密期限", TERMINATION, tool="search_contract"),
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL, tool="search_contract"),
                    search("软件即服务 合同 续费条款", AUTO_RENEWAL, tool="search_contract"),
                    answer(),
                ),
            ),
            Example(
                "With window 1 only the last novel observation is the history: the same repeats stop the run",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("数据处理协议 删除 留存", DATA_PROCESSING, tool="search_contract"),
                    search("提前解约 退款 保密期限", TERMINATION, tool="search_contract"),
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL, tool="search_contract"),
                    search("软件即服务 合同 续费条款", AUTO_RENEWAL, tool="search_contract"),
                    answer(),
                ),
                expect=((6, "after_tools", "stop"),),
                options={"window": 1},
            ),
            Example(
                "max_observations 3: the third result stops the run, however new (seed 002's second condition)",
                contract_searches(AUTO_RENEWAL, DATA_PROCESSING, TERMINATION, AUTO_RENEWAL),
                expect=((3, "after_tools", "stop"),),
                options={"max_observations": 3},
            ),
            Example(
                "stop_on_answer: a result saying 根据 (according to) … already holds the answer (seed 002's third condition)",
                contract_searches(AUTO_RENEWAL, ANSWERED, DATA_PROCESSING),
                expect=((2, "after_tools", "stop"),),
                options={"stop_on_answer": True},
            ),
            Example(
                "The default list has English equivalents: 'According to' holds the answer too",
                (
                    search("SaaS auto-renewal clause", HTTPX),
                    search("SaaS auto-renewal notice period", ANSWERED_EN),
                    answer(),
                ),
                expect=((2, "after_tools", "stop"),),
                options={"stop_on_answer": True},
            ),
            Example(
                "Both conditions are off by default: the same answer goes unnoticed",
                contract_searches(AUTO_RENEWAL, ANSWERED, DATA_PROCESSING),
            ),
            Example(
                "Known miss: the same clauses in another order score below 0.7 (difflib aligns in order)",
                (
                    search("SaaS 订阅合同 自动续费", AUTO_RENEWAL, tool="search_contract"),
                    search("SaaS 订阅协议 自动续约", AUTO_RENEWAL_REORDERED, tool="search_contract"),
                    search("软件即服务 合同 续费条款", AUTO_RENEWAL_REORDERED, tool="search_contract"),
                    answer(),
                ),
            ),
        )

    @classmethod
    def option_problem(cls, name: str, value: Any) -> str | None:
        if name == "answer_indicators" and any(not word.strip() for word in value):
            # "" is in every text: an empty indicator would stop at the first observation.
            return "an empty answer indicator would match every observation"
        if name == "judge_endpoint":
            return endpoint_problem(value)
        return None

    def reset(self, context: RunContext | None = None) -> None:
        opts = self.options
        self.similarity_metric = opts.judge_fallback if opts.metric == "judge" else opts.metric
        self.history = novelty_history(self.similarity_metric, opts.window)
        self.count = 0
        self.kept = 0
        self.observed = 0  # every watched observation, new or not: the seed's accumulated_results
        self.last_scores: list[dict[str, Any]] = []
        # metric judge: the judge, the last novel observations it is shown, what it cost
        # against the text similarity measured beside it, and why it was left for similarity
        self.judge = Judge(opts.judge_endpoint, opts.judge_model, opts.judge_timeout, opts.judge_cache) if opts.metric == "judge" else None
        self.recent: list[str] = []
        self.similarity_seconds = 0.0
        self.agreed = self.judged = 0
        self.fell_back: str | None = None

    def _similar(self, text: str) -> tuple[bool, float | None, float | None]:
        """Whether ``text`` is new by text similarity: (novel, score, ceiling)."""
        if not self.kept:
            return True, None, None  # the first observation is always new
        ceiling = ratio_ceiling(self.history.length, len(text))
        if ceiling <= self.options.similarity:
            return True, None, ceiling  # no ratio can cross the line: not worth computing
        if self.judge is None:
            score = self.history.ratio(text)
        else:  # timed: the judge's cost is reported against it
            started = time.perf_counter()
            score = self.history.ratio(text)
            self.similarity_seconds += time.perf_counter() - started
        return score <= self.options.similarity, score, ceiling

    def _ask_judge(self, text: str, similar_novel: bool, score: float | None) -> tuple[bool, str | None]:
        """Seed 002's exercise: the judge's verdict on ``text`` (YES: new), or the text
        similarity's where the judge is unreachable, unclear or overruled by judge_floor;
        with what the judge said (None: not asked)."""
        judge = self.judge
        assert judge is not None
        opts = self.options
        if not self.kept:
            return True, None  # the first observation is always new: nothing to compare with
        try:
            verdict = judge.ask(judge_prompt(self.recent, text, JUDGE_MAX_CHARS))
        except JudgeUnavailable as exc:
            self.fell_back = str(exc)
            warn_once(
                "judge:" + opts.judge_endpoint,
                f"P003 judge {opts.judge_model} unavailable ({exc}): falling back to the {self.similarity_metric} "
                f"text-similarity metric for the rest of this replay",
            )
            return similar_novel, None
        if verdict is None:
            return similar_novel, "unclear"
        self.judged += 1
        self.agreed += verdict == similar_novel
        if not verdict and opts.judge_floor > 0:
            if score is None:  # the ceiling spared the ratio; the floor needs it
                started = time.perf_counter()
                score = self.history.ratio(text)
                self.similarity_seconds += time.perf_counter() - started
            if score < opts.judge_floor:
                return True, "NO (overruled)"
        return verdict, "YES" if verdict else "NO"

    def judge_cost(self) -> dict[str, Any]:
        """What the judge cost this run, beside the text similarity measured with it."""
        assert self.judge is not None
        cost = {
            **self.judge.stats.as_dict(),
            "similarity_seconds": round(self.similarity_seconds, 4),
            "agreed_with_similarity": self.agreed,
            "judged": self.judged,
        }
        if self.fell_back:
            cost["fell_back"] = self.fell_back
        return cost

    def _observations(self, rnd: Round) -> list[ToolCall]:
        return [
            c
            for c in rnd.tool_calls
            if c.result is not None and c.result.is_error is not True and matches_any(c.name, self.options.tools)
        ]

    def _answer_indicator(self, text: str) -> str | None:
        """The first answer indicator ``text`` holds, when stop_on_answer is on."""
        if not self.options.stop_on_answer:
            return None
        return next((word for word in self.options.answer_indicators if word and word in text), None)

    def _condition(self, text: str) -> tuple[str, str | None] | None:
        """Seed 002's should_terminate after an observation: the first of its conditions
        that holds (stagnation, enough observations, a clear answer), with the answer
        indicator found; None when none does."""
        opts = self.options
        if self.count >= opts.threshold:
            return "stagnation", None
        if opts.max_observations and self.observed >= opts.max_observations:
            return "observations", None
        indicator = self._answer_indicator(text)
        if indicator is not None:
            return "answer", indicator
        return None

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        self.last_scores = []
        fired: dict[str, Any] | None = None
        condition: tuple[str, str | None] | None = None
        for call in self._observations(rnd):
            text = call.result.content  # type: ignore[union-attr]
            observed = self.history.length
            novel, score, ceiling = self._similar(text)
            said = None
            if self.judge is not None:
                similar_novel = novel
                novel, said = self._ask_judge(text, similar_novel, score)
            if novel:
                self.count = 0
                self.history.add(text)
                self.kept += 1
                if self.judge is not None:
                    self.recent = (self.recent + [text])[-JUDGE_CONTEXT:]
            else:
                self.count += 1
            self.observed += 1
            entry = {
                "call_id": call.id,
                "tool": call.name,
                "score": None if score is None else round(score, 4),
                "novel": novel,
                "stagnant": self.count,
                "observed_chars": observed,
            }
            if score is None and ceiling is not None:
                entry["at_most"] = round(ceiling, 4)
            if self.similarity_metric == "ngram" and score is not None:
                entry["exact"] = self.history.exact  # type: ignore[union-attr]
            if self.judge is not None:
                entry["judge"] = said
                entry["similarity_novel"] = similar_novel
            self.last_scores.append(entry)
            if fired is None:
                condition = self._condition(text)
                if condition is not None:
                    fired = {**entry, "score": score}
        if fired is None or condition is None:
            return []
        kind, indicator = condition
        if kind == "stagnation":
            if fired.get("judge") == "NO":
                measure = f"judged by {opts.judge_model} to bring no new information"
            else:
                measure = (
                    f"{fired['score']:.2f} similar to the {fired['observed_chars']:,} characters "
                    f"already observed ({self.similarity_metric} ratio > {opts.similarity})"
                )
            reason = f"{fired['tool']} result is {measure}; {fired['stagnant']} observations in a row without new information"
            details = {**fired, "metric": opts.metric, "count": fired["stagnant"]}
            if fired["score"] is not None:
                details["score"] = round(fired["score"], 4)
            if self.judge is not None:
                details["similarity_metric"] = self.similarity_metric
            message = self.say("stop", context, tool=fired["tool"], count=fired["stagnant"])
        else:
            if kind == "observations":
                reason = (
                    f"{self.observed} observation{'s' if self.observed != 1 else ''} of the watched tools so far "
                    f"(max_observations {opts.max_observations}): enough information gathered"
                )
            else:
                reason = f"{fired['tool']} result holds the answer indicator {indicator!r}: it already holds a clear answer"
            details = {**fired, "condition": kind, "observations": self.observed, "count": self.observed}
            if indicator is not None:
                details["indicator"] = indicator
            language = context.language if context is not None else "en"
            # base.render, as Guard.say renders: one rendering path for every message
            message = base.render({"stop": OTHER_STOPS[kind]}, opts.messages, "stop", language, {"tool": fired["tool"], "count": self.observed})
        if self.judge is not None:
            cost = details["judge_cost"] = self.judge_cost()
            reason += "; " + judge_note(cost, opts.judge_model, self.similarity_metric)
        return [Verdict(Action.STOP, reason, details=details, message=message)]

    def state(self) -> dict[str, Any]:
        return {
            "stagnant": self.count,
            "scores": self.last_scores,
            "observed_chars": self.history.length,
            "observations": self.kept,
            "accumulated": self.observed,
            "metric": self.options.metric,
            **({"judge_cost": self.judge_cost()} if self.judge is not None else {}),
        }
