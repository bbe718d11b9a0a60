from __future__ import annotations

import re
from collections import deque
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from ..text.similarity import SET_METRICS, set_similarity
from ..text.tokenizers import TOKENIZERS, get_tokenizer, token_set
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read, search
from .messages import Message
from .signals import (
    DEFAULT_QUERY_KEYS,
    DEFAULT_SEARCH_TOOLS,
    excerpt,
    query_text,
    token_list,
)
from .tool_kinds import matches_any


# A file name's extension at the end of a word (src/Foo.java, setup.cfg).
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _places(query: str) -> set[str]:
    """The words of a query that name a place: a path (src/a.py, /repo) or a file name
    with an extension. Word by word: linear in the query, however long."""
    return {w for w in query.split() if "/" in w or "\\" in w or _EXTENSION.search(w)}


def _adds_place(query: str, earlier: str) -> bool:
    """Whether ``query`` names a place (a path, a file) that ``earlier`` does not."""
    return bool(_places(query) - _places(earlier))


@frozen_dataclass
class P001Options(GuardOptions):
    containment: float = option(0.8, "Similarity at or above which two queries are the same search.", minimum=0.0, maximum=1.0)
    threshold: int = option(2, "Similar search rounds in a row that stop the run.", minimum=1)
    tokenizer: str = option("char", "How queries become tokens: char (CJK per character) or jieba (CJK words).", choices=TOKENIZERS)
    metric: str = option("containment", "containment |A∩B|/min(|A|,|B|), or jaccard |A∩B|/|A∪B| (the seed's pitfall).", choices=SET_METRICS)
    search_tools: list[str] = option(list(DEFAULT_SEARCH_TOOLS), "Glob patterns (any case) of the tools whose queries are fingerprinted.")
    query_keys: list[str] = option(list(DEFAULT_QUERY_KEYS), "Argument names that hold the query, first match wins.")
    same_tool: bool = option(
        False,
        "Compare a query only with earlier queries of the same tool: search_dir, search_file and find_file "
        "(a repository, the open file, file names) ask different questions with the same words.",
    )
    narrowing: bool = option(
        False,
        "A query that adds a place to a similar earlier one (a word with a path separator or a file extension: "
        "search_file 'X' src/Foo.java after 'X') narrows the search to where to look: not the same search.",
    )
    window: int = option(
        50,
        "Earlier search queries a query is compared with (the most recent ones); bounds the work per round of long runs.",
        minimum=1,
    )


class SimilarQueryStagnation(Guard):
    """Stops a run that keeps rewording the same search (seed 000).

    **What it fires on.** Each search call's query becomes a fingerprint: trim,
    lowercase, drop punctuation (full-width too), split into tokens (CJK one token per
    character with ``char``, words with ``jieba``; other scripts by whitespace) and
    keep the set. Two fingerprints are similar when their **containment**
    |A∩B| / min(|A|,|B|) is at least ``containment`` (0.8). Before the tools of a round
    run:

    - a round of **only search calls** with any fingerprint similar to an earlier
      search of the run (one of the last ``window``, 50) adds 1 to the no-progress count;
    - a round of only dissimilar searches, or of only non-search tools, resets it to 0;
    - a **mixed round** (a search beside a business tool) is let through and does not
      count, since stopping it would also cut the legitimate call (its queries still
      join the history).

    When the count reaches ``threshold`` (2) the guard says ``stop`` before the tools
    run, so even the redundant search is saved; the agent then gives one forced answer.

    **Why containment.** Rewording keeps the core words and adds or drops modifiers,
    so the small set sits inside the large one: "北京天气" vs "北京今日天气 气温" is
    4/4 = 1.0 by containment but 4/7 = 0.57 by Jaccard, which never reaches 0.8 (the
    seed's dead-code pitfall; ``metric=jaccard`` keeps it for comparison). Chinese
    must be split per character: split on whitespace only, whole phrases almost never
    match and the guard is silently dead.

    **History.** The seed keeps every fingerprint of the run ("maxRounds is small,
    keep them all"), so each search is compared with all earlier ones and the work
    per round grows with the run. Here a query is compared with the last ``window``
    (50) search fingerprints, which holds all of them in any run of the seed's size;
    a search repeated from further back is not seen as similar.

    **One tool or all.** The seed has one search tool and compares every query with every
    earlier one. A coding agent has several that ask different questions with the same
    words: SWE-agent's ``search_dir`` (the repository), ``search_file`` (the open file) and
    ``find_file`` (file names); narrowing from one to the next is how it works, not a
    rewording (a resolved SWE-bench run was stopped there). ``same_tool`` compares a query
    only with earlier queries of the same tool; ``default`` turns it on. ``narrowing``
    (on in ``default``): a query that adds a place to a similar earlier one (a path, a
    file name: ``search_file "X" src/Foo.java`` after ``search_file "X"``) narrows the
    search to where to look, and is not the same search; words added without a place
    (seed 000's synonyms) still are.

    **Known misses.** A synonym rewrite that shares no characters (天气 → 气象 →
    气温实况) has containment near 0; P002 (no new URLs) catches it after the search.
    A search call whose query is under another argument name has no fingerprint (it
    counts as a dissimilar search): add the name to ``query_keys``.
    """

    code = "P001"
    name = "similar-query-stagnation"
    summary = "Stop when search rounds keep rewording the same query (containment of query token sets)."
    source = "seed 000"
    origin = (
        'seed article 000, 《给 ReAct 装一个熔断闸 —— Agent 无进展检测的工程落地》: its no-progress circuit breaker, search queries fingerprinted and compared by containment, two similar rounds in a row'
    )
    Options = P001Options
    messages = {
        "stop": Message(
            # Seed 000's closing prompt, distinct from the max-rounds one (B001).
            en="You have searched several times for similar queries and found nothing new. Answer from the "
            "results you already have; do not search again.",
            zh="已就相似查询搜索多次且无新信息，请基于现有结果作答，不要再重复搜索。",
            fields=("query", "earlier", "count"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Rewording the weather search stops before the third search runs",
                (search("天气"), search("今日天气 气温"), search("今日天气 气温 晴雨"), search("今日天气 气温 晴雨 风力"), answer()),
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "Jaccard (4/7 = 0.57) never sees 北京天气 and 北京今日天气 气温 as the same",
                (search("北京天气"), search("北京今日天气 气温"), search("北京今日天气 气温 湿度"), answer()),
                options={"metric": "jaccard"},
            ),
            Example(
                "A progressive search (new words each time) is not cut",
                (search("httpx timeout"), search("tenacity retry async"), search("asyncio semaphore limit"), answer()),
            ),
            Example(
                "A round of business tools resets the count",
                (
                    search("北京天气"),
                    search("北京今日天气"),
                    calls(Call("queryDeviceStatus", {"device": "ac-1"})),
                    search("北京天气 气温"),
                    answer(),
                ),
            ),
            Example(
                "A mixed round is let through and does not count",
                (
                    search("北京天气"),
                    calls(Call("webSearch", {"query": "北京今日天气"}), Call("queryDeviceStatus", {"device": "ac-1"})),
                    search("北京天气 气温"),
                    answer(),
                ),
            ),
            Example(
                "A synonym rewrite sharing no characters escapes the fingerprint",
                (search("天气"), search("气象"), search("气温实况"), answer()),
            ),
            Example(
                "Back to an earlier query after a different search: compared with every search in the window",
                (search("北京天气"), search("httpx timeout"), search("北京天气 气温"), search("北京天气 温度"), answer()),
                expect=((4, "before_tools", "stop"),),
            ),
            Example(
                "Narrowing a repository search to the open file with the same words is two similar searches to the seed",
                (search("class NodeVisitor", tool="search_dir"), search("class NodeVisitor gast.py", tool="search_file"), search("NodeVisitor class", tool="search_file"), answer()),
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "With same_tool each tool's queries are compared among themselves: search_dir then search_file is a new question",
                (search("class NodeVisitor", tool="search_dir"), search("class NodeVisitor gast.py", tool="search_file"), search("NodeVisitor class", tool="search_file"), answer()),
                options={"same_tool": True},
            ),
            Example(
                "With same_tool a reworded search through the same tool still counts",
                (search("北京天气"), search("北京今日天气 气温"), search("北京今日天气 气温 晴雨"), answer()),
                options={"same_tool": True},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "narrowing: the same words searched again in one file (a path added) is a narrower search, not a rewrite",
                (search("get_schema dump_only", tool="search_file"), search("get_schema dump_only src/marshmallow/schema.py", tool="search_file"), search("get_schema dump_only src/marshmallow/fields.py", tool="search_file"), answer()),
                options={"same_tool": True, "narrowing": True},
            ),
            Example(
                "narrowing: words added without a place are still a rewording (seed 000's synonyms)",
                (search("北京天气"), search("北京今日天气 气温"), search("北京今日天气 气温 晴雨"), answer()),
                options={"same_tool": True, "narrowing": True},
                expect=((3, "before_tools", "stop"),),
            ),
            Example(
                "With window 1 each query meets only the search before it: the return to 北京天气 is not seen",
                (search("北京天气"), search("httpx timeout"), search("北京天气 气温"), search("北京天气 温度"), answer()),
                options={"window": 1},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.tokenize = get_tokenizer(self.options.tokenizer)
        self.similarity = set_similarity(self.options.metric)
        self.history: deque[tuple[str, frozenset[str], str]] = deque(maxlen=self.options.window)
        self.count = 0
        self.last_scores: list[dict[str, Any]] = []
        self.last_round = ""  # how the last round counted: for `show`

    def fingerprint(self, query: str) -> frozenset[str]:
        return token_set(self.options.tokenizer, query)

    def _best_match(self, fp: frozenset[str], tool: str = "") -> tuple[float, str | None, frozenset[str] | None]:
        best, best_query, best_fp = 0.0, None, None
        for query, earlier, earlier_tool in self.history:
            if self.options.same_tool and earlier_tool != tool:
                continue
            score = self.similarity(fp, earlier)
            if score >= best or best_query is None:  # ties: the most recent
                best, best_query, best_fp = score, query, earlier
        return best, best_query, best_fp

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        searches = [c for c in rnd.tool_calls if matches_any(c.name, opts.search_tools)]
        self.last_scores = []
        if not searches:
            self.count = 0  # a round of only business tools is progress
            self.last_round = "no search: reset"
            return []
        new: list[tuple[str, frozenset[str], str]] = []
        similar_hit: dict[str, Any] | None = None
        for call in searches:
            query = query_text(call, opts.query_keys)
            fp = self.fingerprint(query)
            tool = call.name.lower()
            score, other, other_fp = self._best_match(fp, tool)
            entry = {
                "call_id": call.id,
                "query": excerpt(query, 200),
                "tokens": token_list(fp),
                "best": round(score, 3),
                "against": excerpt(other, 200) if other is not None else None,
            }
            self.last_scores.append(entry)
            similar = other is not None and fp and score >= opts.containment and similar_hit is None
            if similar and not (opts.narrowing and _adds_place(query, other)):
                similar_hit = {**entry, "against_tokens": token_list(other_fp or ())}
            new.append((query, fp, tool))
        mixed = len(searches) != len(rnd.tool_calls)
        self.history.extend(new)
        if mixed:
            self.last_round = "mixed round: let through, not counted"
            return []
        if similar_hit is None:
            self.count = 0
            self.last_round = "dissimilar searches: reset"
            return []
        self.count += 1
        self.last_round = "similar search: +1"
        if self.count < opts.threshold:
            return []
        reason = (
            f"query {similar_hit['query']!r} ~ earlier {similar_hit['against']!r}: "
            f"{opts.metric} {{{','.join(similar_hit['tokens'])}}} vs {{{','.join(similar_hit['against_tokens'])}}} "
            f"= {similar_hit['best']:.2f} ≥ {opts.containment}; {self.count} similar search rounds in a row"
        )
        message = self.say("stop", context, query=similar_hit["query"], earlier=similar_hit["against"], count=self.count)
        return [Verdict(Action.STOP, reason, details={**similar_hit, "count": self.count}, message=message)]

    def near_miss(self) -> str | None:
        scored = [e for e in self.last_scores if e["against"] is not None]
        if not scored:
            return "no search in this round to compare" if not self.last_scores else "no earlier search to compare with"
        best = max(scored, key=lambda e: e["best"])
        opts = self.options
        relation = "≥" if best["best"] >= opts.containment else "<"
        return (
            f"best {opts.metric} {best['best']:.2f} {relation} {opts.containment:g} ({best['query']!r} against {best['against']!r}); "
            f"{self.count} similar search round{'s' if self.count != 1 else ''} in a row of the {opts.threshold} that stop"
        )

    def best_score(self) -> float | None:
        """The highest similarity of the last round's searches to an earlier search (as
        rounded in the reason), or None when no search had an earlier one to meet: what a
        comparison of tokenizers charts round by round."""
        best = [e["best"] for e in self.last_scores if e["against"] is not None]
        return max(best) if best else None

    def state(self) -> dict[str, Any]:
        return {
            "round": self.last_round,
            "no_progress": self.count,
            "fingerprints": len(self.history),
            "scores": self.last_scores,
        }

