from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read, search
from .messages import Message
from .signals import DEFAULT_SEARCH_TOOLS, urls_in
from .tool_kinds import matches_any


@frozen_dataclass
class P002Options(GuardOptions):
    threshold: int = option(2, "Search rounds in a row without a new URL that stop the run.", minimum=1)
    search_tools: list[str] = option(
        list(DEFAULT_SEARCH_TOOLS), "Glob patterns (any case) of the tools whose results are read for URLs."
    )


def _results(urls: list[str]) -> str:
    return "\n".join(f"{k}. {url} — …" for k, url in enumerate(urls, 1))


WEATHER_URLS = ["https://weather.example.cn/beijing", "https://tianqi.example.com/101010100", "https://news.example.com/2024/weather"]
NEW_URLS = ["https://a.example.org/1", "https://b.example.org/2", "https://c.example.org/3", "https://d.example.org/4"]


class NoNewUrls(Guard):
    """Stops a run whose searches keep returning URLs it has already seen (seed 000, v2).

    **What it fires on.** After the tools of a round that has search calls (tool names
    matching ``search_tools``, ``*search*`` in any case by default), the guard collects
    the URLs in those calls' results (trailing punctuation and slash dropped, compared
    in lower case). If none of them is new to the run, the no-progress count goes up
    by 1; if any is new, it goes back to 0. Either way all of the round's URLs join the
    run's seen set. At ``threshold`` (2) search rounds in a row without a new URL the
    guard says ``stop``: the agent gives one forced answer from what it has.

    Rounds without a search call neither count nor reset: URL novelty is only measured
    on searches, and a business tool (a device query, a file read) says nothing about
    whether the searches are getting anywhere. A mixed round counts by its search calls;
    since the guard acts after the tools ran, stopping there cuts no legitimate call.
    A search round whose results hold no URL at all (a code or knowledge-base search,
    an error, "no results") is not judged either: without links there is nothing to
    compare, and counting it would cut healthy runs of tools that never return links.

    **Why URLs.** Seed 000's query fingerprint (P001) has a ceiling: a synonym rewrite
    that shares no tokens (天气 → 气象 → 气温实况) has containment near 0 and slips
    through. What the rewrites cannot hide is that they bring back the same pages. The
    same URL means the same information, whatever the language of the query, so this
    measures progress itself rather than its proxy, the query text. The price: it can
    only judge after the search ran, so it saves the rounds after it, not the search
    itself. It complements P001 rather than replacing it.

    **Known misses.** A loop that brings one new but irrelevant URL every round (the
    seed's own weather loop) resets the count each time: P001 catches that one. Repeated
    searches that find nothing at all are P003's and B003's business. The same
    page under two addresses (tracking parameters, mirrors) counts as new.
    """

    code = "P002"
    name = "no-new-urls"
    summary = "Stop when search rounds keep returning only URLs already seen in the run."
    source = "seed 000 (v2)"
    origin = (
        'seed article 000, 《给 ReAct 装一个熔断闸 —— Agent 无进展检测的工程落地》: the progress signal it leaves for v2, searches that bring back no URL the run has not seen'
    )
    Options = P002Options
    messages = {
        "stop": Message(
            en="Your last {count} searches returned no URL you had not already seen: searching again brings "
            "nothing new. Answer from the results you already have; do not search again.",
            zh="最近 {count} 轮搜索没有返回任何新的 URL，再搜也不会有新信息。请基于现有结果作答，不要再重复搜索。",
            fields=("count",),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "A synonym rewrite (天气 → 气象 → 气温实况) that brings back the same pages stops after round 3's search",
                (
                    search("天气", _results(WEATHER_URLS)),
                    search("气象", _results(WEATHER_URLS[::-1])),
                    search("气温实况", _results(WEATHER_URLS[1:] + WEATHER_URLS[:1])),
                    search("北京 实时 温度", _results(WEATHER_URLS)),
                    answer(),
                ),
                expect=((3, "after_tools", "stop"),),
            ),
            Example(
                "One new (even irrelevant) URL per round resets the count: seed 000's weather loop passes",
                (
                    search("天气", _results(WEATHER_URLS)),
                    search("今日天气 气温", _results(WEATHER_URLS[:2] + NEW_URLS[:1])),
                    search("今日天气 气温 晴雨", _results(WEATHER_URLS[1:] + NEW_URLS[1:2])),
                    search("今日天气 气温 晴雨 风力", _results(NEW_URLS[:2] + NEW_URLS[2:3])),
                    answer(),
                ),
            ),
            Example(
                "A round of business tools neither counts nor resets",
                (
                    search("天气", _results(WEATHER_URLS)),
                    search("气象", _results(WEATHER_URLS)),
                    calls(Call("queryDeviceStatus", {"device": "ac-1"}, '{"power": "on", "target": 26}')),
                    search("气温实况", _results(WEATHER_URLS)),
                    answer(),
                ),
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "Searches that return no URL at all (a knowledge base, no results) are not judged",
                (
                    search("retry policy", "src/net/retry.ts:12 export const retryPolicy"),
                    search("backoff jitter", "src/net/backoff.ts:4 export function jitter("),
                    search("httpx 超时 重试", "No results found."),
                    answer(),
                ),
            ),
            Example(
                "A new URL in between starts the count again",
                (
                    search("weather Beijing", _results(WEATHER_URLS)),
                    search("Peking forecast", _results(WEATHER_URLS)),
                    search("Beijing hourly", _results(WEATHER_URLS + NEW_URLS[:1])),
                    search("capital of China weather", _results(WEATHER_URLS)),
                    answer(),
                ),
            ),
            Example(
                "With threshold 3 the synonym rewrite needs one more round",
                (
                    search("天气", _results(WEATHER_URLS)),
                    search("气象", _results(WEATHER_URLS)),
                    search("气温实况", _results(WEATHER_URLS)),
                    answer(),
                ),
                options={"threshold": 3},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.seen: set[str] = set()
        self.count = 0
        self.last_urls = 0
        self.last_new: list[str] = []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        searches = [c for c in rnd.tool_calls if matches_any(c.name, opts.search_tools)]
        if not searches:
            return []  # novelty is only measured on searches
        urls: set[str] = set()
        for call in searches:
            if call.result is not None:
                urls |= urls_in(call.result.content)
        new = urls - self.seen
        self.seen |= urls
        self.last_urls, self.last_new = len(urls), sorted(new)
        if not urls:
            return []  # no links to judge by: neither progress nor stagnation
        if new:
            self.count = 0
            return []
        self.count += 1
        if self.count < opts.threshold:
            return []
        plural = "" if len(urls) == 1 else "s"
        reason = (
            f"{len(urls)} URL{plural}, 0 new ({len(self.seen)} seen in the run); "
            f"{self.count} search rounds in a row without a new URL"
        )
        details: dict[str, Any] = {
            "urls": sorted(urls),
            "new": 0,
            "seen": len(self.seen),
            "count": self.count,
            "searches": [c.id for c in searches],
        }
        return [Verdict(Action.STOP, reason, details=details, message=self.say("stop", context, count=self.count))]

    def state(self) -> dict[str, Any]:
        return {"no_progress": self.count, "seen_urls": len(self.seen), "last_urls": self.last_urls, "last_new": len(self.last_new)}
