#!/usr/bin/env python3
"""Write tracecheck's labelled sample transcripts into ``sample_traces/``.

Every scenario is described once, as data (the user's question, the tools, and per
round the assistant's text, its tool calls and what each tool returned). From that
one description the script derives everything a recorder would have logged: call and
completion ids, ISO-8601 timestamps, per-round token usage with the context growing
round by round, and then renders the run in tracecheck's native JSONL and, for three
scenarios, as OpenAI Chat request/response pairs, an OpenAI fine-tuning conversation
and a LangChain ``messages_to_dict`` list.

A scenario may be a conversation: a step can carry what the user said before it (a
``user`` event in the native file, opening a turn), and the scenario what the user said
after the last reply (``closing``). The reference arithmetic below starts afresh at each
turn, as tracecheck's turn-scoped guards do.

It is deterministic: no randomness; the small "jitter" in durations is a CRC32 of the
trace id and round number. Run it again and the files are byte-for-byte the same.

Before writing, the script replays the arithmetic the seed articles specify (query
fingerprints and containment for P001, URL sets for P002, identical-call streaks for
R001, the failure streak for F001, the evidence gate for E001, ...) on its own
scenarios and refuses to write samples whose ``expect`` events disagree with it. The
same numbers fill the tables of ``sample_traces/README.md``. That arithmetic is a
reference for the samples only, not tracecheck's guards.

Usage::

    python scripts/make_samples.py            # writes sample_traces/
    python scripts/make_samples.py --out DIR  # somewhere else
    python scripts/make_samples.py --check    # verify only, write nothing

Dependencies: the standard library and orjson.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import hashlib
import json
import re
import string
import sys
import unicodedata
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "sample_traces"


# ---------------------------------------------------------------------------
# Small helpers: JSON as a model writes it, ids, time, token estimates
# ---------------------------------------------------------------------------


def J(value: Any) -> str:
    """JSON the way the models in these runs emitted arguments: ``{"k": "v"}``, raw UTF-8."""
    return json.dumps(value, ensure_ascii=False)


def JC(value: Any) -> str:
    """Compact JSON, the way most tools serialise their results."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def JI(value: Any) -> str:
    """Indented JSON (a tool that pretty-prints its result)."""
    return json.dumps(value, ensure_ascii=False, indent=2)


_ALNUM = string.ascii_letters + string.digits


def token(seed: str, length: int, alphabet: str = _ALNUM) -> str:
    """A deterministic pseudo-random string (sha256 of ``seed`` mapped onto ``alphabet``)."""
    out: list[str] = []
    digest = hashlib.sha256(seed.encode()).digest()
    i = 0
    while len(out) < length:
        if i == len(digest):
            digest = hashlib.sha256(digest).digest()
            i = 0
        out.append(alphabet[digest[i] % len(alphabet)])
        i += 1
    return "".join(out)


def fake_uuid(seed: str) -> str:
    h = token(seed, 32, "0123456789abcdef")
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def frac(*key: Any) -> float:
    """A stable number in [0, 1) for a key: the script's only source of variation."""
    return zlib.crc32("/".join(map(str, key)).encode()) / 2**32


def parse_iso(text: str) -> int:
    """Milliseconds since the epoch from ``2026-03-04T09:15:02.412Z``."""
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return int(round(moment.timestamp() * 1000))


def iso(ms: int) -> str:
    moment = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x3040 <= code <= 0x30FF
        or 0xAC00 <= code <= 0xD7AF
        or 0x3000 <= code <= 0x303F
        or 0xFF00 <= code <= 0xFFEF
    )


def est_tokens(text: str) -> int:
    """Roughly what the o200k tokenizer makes of a text: CJK ~0.75/char, other ~1/3.6 chars."""
    cjk = sum(1 for ch in text if is_cjk(ch))
    other = len(text) - cjk
    return int(cjk * 0.75 + other / 3.6) + 1


# Typical durations of each tool (ms, min..max); a call may override with ``ms``.
TOOL_MS: dict[str, tuple[int, int]] = {
    "webSearch": (3600, 5400),
    "web_search": (900, 2400),
    "search_contract": (2100, 3300),
    "fetch_page": (800, 1900),
    "query_db": (300, 640),
    "read_file": (300, 420),
    "list_dir": (300, 380),
    "search_code": (480, 1300),
    "run_tests": (4300, 5900),
    "edit_file": (300, 470),
    "create_report": (420, 880),
    "get_report_status": (300, 520),
    "download_report": (700, 1400),
    "list_pending_orders": (360, 700),
    "list_orders": (380, 820),
    "queryDeviceStatus": (320, 620),
    "open_page": (1900, 3300),
    "scroll_down": (300, 560),
    "find_user_id_by_email": (300, 480),
    "get_user_details": (300, 520),
    "get_order_details": (300, 560),
    "cancel_pending_order": (420, 900),
    # SWE-agent's tools run in a docker container through SWE-ReX
    "bash": (320, 2600),
    "str_replace_editor": (300, 520),
    "open": (300, 480),
    "goto": (300, 420),
    "submit": (900, 1800),
    # τ-bench tools answer from an in-memory database
    "get_product_details": (300, 480),
    "exchange_delivered_order_items": (420, 900),
    "get_reservation_details": (300, 520),
    "search_direct_flight": (360, 760),
    "book_reservation": (480, 980),
}

# How long a (simulated) user takes to answer the agent's reply, ms (min..max).
USER_MS = (2400, 6400)


# ---------------------------------------------------------------------------
# Scenario model
# ---------------------------------------------------------------------------


@dataclass
class Call:
    name: str
    args: str  # raw JSON string exactly as the model emitted it
    result: str
    error: bool | None = False  # None: the recorder has no error flag (SWE-agent): the guards judge the text
    ms: int | None = None  # tool duration override
    hidden_tokens: int = 0  # tokens the model saw but the logger truncated away
    # derived by build()
    id: str = ""
    start: int = 0
    end: int = 0
    tokens: int = 0


@dataclass
class Step:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    out: int | None = None  # output tokens override
    ms: int | None = None  # LLM latency override
    user: str | None = None  # what the user said just before this step: it opens a turn
    # derived by build()
    user_at: int = 0
    id: str = ""
    start: int = 0
    end: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def final(self) -> bool:
        return not self.calls


@dataclass
class Scenario:
    trace: str
    file: str
    title: str  # one line for the README
    start: str
    model: str
    request_model: str  # what the client asked for (the alias)
    system: str
    user: str
    tools: list[dict]
    labels: dict[str, str]
    expects: list[dict]
    metadata: dict[str, Any]
    steps: list[Step]
    end_error: str | None = None
    injected: dict[int, dict] = field(default_factory=dict)  # 0-based step -> message sent before it
    why: str = ""  # README: plain-English explanation
    fingerprint: str = ""
    closing: str | None = None  # what the user said after the last reply (opens no turn)
    closing_at: int = 0  # derived by build()

    @property
    def turn_starts(self) -> set[int]:
        """1-based steps after the first that a user message starts: a new turn."""
        return {k for k, step in enumerate(self.steps, 1) if k > 1 and step.user is not None}

    @property
    def turns(self) -> int:
        return 1 + len(self.turn_starts)


def tool(name: str, description: str, properties: dict, required: list[str] | None = None) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required if required is not None else list(properties),
                "additionalProperties": False,
            },
        },
    }


def build(sc: Scenario) -> Scenario:
    """Fill in ids, timestamps and token usage, deterministically."""
    sc.fingerprint = "fp_" + token(sc.model + "/fp", 10, "0123456789abcdef")
    now = parse_iso(sc.start)
    context = est_tokens(sc.system) + est_tokens(JC(sc.tools)) + 9 * len(sc.tools) + est_tokens(sc.user) + 14
    for k, step in enumerate(sc.steps):
        if step.user is not None and k > 0:  # the first one is sc.user, already counted
            now += USER_MS[0] + int((USER_MS[1] - USER_MS[0]) * frac(sc.trace, k, "user"))
            context += est_tokens(step.user) + 4
        step.user_at = now
        if k in sc.injected:
            context += est_tokens(sc.injected[k]["content"]) + 6
        claude = sc.model.startswith("claude")  # Anthropic's message and tool-use ids, as litellm passes them on
        step.id = ("msg_01" + token(f"{sc.trace}/{k}/completion", 22)) if claude else "chatcmpl-" + token(f"{sc.trace}/{k}/completion", 29)
        step.input_tokens = context
        if step.out is not None:
            step.output_tokens = step.out
        else:
            out = est_tokens(step.text) if step.text else 0
            for call in step.calls:
                out += est_tokens(call.args) + est_tokens(call.name) + 9
            step.output_tokens = max(20, min(200, out + 4))
        if step.ms is not None:
            latency = step.ms
        else:
            latency = 520 + step.output_tokens * 12 + context // 48 + int(380 * frac(sc.trace, k, "llm"))
            latency = max(820, min(3950, latency))
        step.start = now
        step.end = now + latency
        now = step.end
        tool_ends = []
        for j, call in enumerate(step.calls):
            call.id = ("toolu_01" + token(f"{sc.trace}/{k}/{j}/call", 22)) if claude else "call_" + token(f"{sc.trace}/{k}/{j}/call", 24)
            call.start = now + 6 + int(22 * frac(sc.trace, k, j, "gap")) + 2 * j
            lo, hi = TOOL_MS.get(call.name, (300, 900))
            duration = call.ms if call.ms is not None else lo + int((hi - lo) * frac(sc.trace, k, j, "tool"))
            call.end = call.start + duration
            call.tokens = est_tokens(call.result) + call.hidden_tokens
            tool_ends.append(call.end)
        if tool_ends:
            now = max(tool_ends) + 14 + int(40 * frac(sc.trace, k, "next"))
        context += step.output_tokens + 7 * len(step.calls)
        for call in step.calls:
            context += call.tokens + 6
    if sc.closing is not None:
        sc.closing_at = now + USER_MS[0] + int((USER_MS[1] - USER_MS[0]) * frac(sc.trace, "closing"))
    return sc


# ---------------------------------------------------------------------------
# Renderers
# ---------------------------------------------------------------------------


# What any good policy does on each sample, whatever its guards: a loop stopped by the
# round the issue asks for (an identical call or a query rewrite by its 3rd, an A-B
# alternation by its 3rd lap, a failing tool by its 3rd failure, the same error under
# changing commands by its 4th), a healthy run left alone. Checked as ``policy``
# expectations against whatever preset replays the samples.
POLICY: dict[str, tuple[bool, int | None, str]] = {
    "seed000_weather_loop": (True, 3, "a query rewrite loop: stop by its 3rd search"),
    "seed000_weather_loop_en": (True, 3, "a query rewrite loop: stop by its 3rd search"),
    "seed000_containment_vs_jaccard": (True, 3, "a query rewrite loop: stop by its 3rd search"),
    "seed000_synonym_same_urls": (True, 3, "synonyms bringing back the same pages: stop by the 3rd search"),
    "seed000_synonym_same_urls_en": (True, 3, "synonyms bringing back the same pages: stop by the 3rd search"),
    "seed002_contract_search_token_limit": (True, 6, "eight near-synonym searches until the token limit: stop by the 6th"),
    "seed004_query_db_identical": (True, 3, "the same call answered the same way: stop by its 3rd"),
    "seed004_key_order_drift": (True, 3, "the same call with its keys reordered: stop by its 3rd"),
    "seed001_read_file_failure_streak": (True, 3, "a failing tool: stop by its 3rd failure"),
    "alternating_ab_loop": (True, 6, "an A-B alternation with the same results: stop by its 3rd lap"),
    "swe_test_view_loop": (True, 6, "test run and file view alternating unchanged: stop by the 3rd lap"),
    "swe_same_error_changing_commands": (True, 5, "the same error under changing commands: stop by its 4th"),
    "swe_scroll_end_loop": (True, 5, "scroll_down at the end of the file, the same window: stop by the 3rd"),
    "tau_retail_order_lookup_loop": (True, 6, "turn 2: the same failing lookup: stop the turn by the 3rd"),
    "tau_airline_same_lookup_loop": (True, 6, "turn 2: the same lookup answered the same way: stop the turn by the 3rd"),
    "tau_retail_apology_loop": (True, 7, "the same apology (up to a word or two) turn after turn: hint from the 2nd, "
                                "end the conversation at the 5th (three or four identical replies can still recover when "
                                "the user changes the request, so a stop there is harm); T001 with its own default compares "
                                "identical text only and misses it"),
    **{
        trace: (False, None, "healthy: no stop")
        for trace in (
            "seed000_mixed_round",
            "seed001_read_file_recovers",
            "seed004_report_polling",
            "healthy_progressive_search",
            "healthy_pagination",
            "healthy_fix_and_retest",
            "healthy_readme_anchor_exploration",
            "swe_healthy_reproduce_edit_retest",
            "swe_healthy_goto_scroll",
            "tau_retail_exchange_bad_args_recover",
            "tau_airline_flexible_dates_booking",
        )
    },
}


def all_expects(sc: Scenario) -> list[dict]:
    """The scenario's guard expectations, then what a policy should do on it."""
    if sc.trace not in POLICY:
        return sc.expects
    fires, by_round, note = POLICY[sc.trace]
    return [*sc.expects, expect("policy", fires, by_round, note)]


def native_events(sc: Scenario) -> list[dict]:
    events: list[dict] = [
        {"type": "trace", "trace": sc.trace, "format_version": 1, "metadata": sc.metadata},
        {"type": "labels", "trace": sc.trace, "labels": sc.labels},
    ]
    for exp in all_expects(sc):
        event = {"type": "expect", "trace": sc.trace, "guard": exp["guard"], "fires": exp["fires"]}
        if exp.get("by_round") is not None:
            event["by_round"] = exp["by_round"]
        if exp.get("note"):
            event["note"] = exp["note"]
        events.append(event)
    for k, step in enumerate(sc.steps, 1):
        if step.user is not None:
            events.append({"type": "user", "trace": sc.trace, "text": step.user, "at": iso(step.user_at)})
        events.append(
            {
                "type": "round",
                "trace": sc.trace,
                "round": k,
                "id": step.id,
                "model": sc.model,
                "started_at": iso(step.start),
                "ended_at": iso(step.end),
                "text": step.text,
                "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.args} for c in step.calls],
                "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
                "finish_reason": "tool_calls" if step.calls else "stop",
            }
        )
        for call in step.calls:
            result = {"type": "result", "trace": sc.trace, "call_id": call.id, "content": call.result}
            if call.error is not None:
                result["is_error"] = call.error
            result.update(started_at=iso(call.start), ended_at=iso(call.end))
            events.append(result)
    if sc.closing is not None:
        events.append({"type": "user", "trace": sc.trace, "text": sc.closing, "at": iso(sc.closing_at)})
    end: dict[str, Any] = {"type": "end", "trace": sc.trace}
    if sc.end_error is not None:
        end["error"] = sc.end_error
    events.append(end)
    return events


def _assistant_message(step: Step, *, for_request: bool) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args}} for c in step.calls
        ]
    if not for_request:
        message["refusal"] = None
    return message


def openai_request_response(sc: Scenario) -> list[dict]:
    """One line per round: the request (whole history so far) and the chat.completion."""
    messages: list[dict] = [{"role": "system", "content": sc.system}, {"role": "user", "content": sc.user}]
    lines = []
    for k, step in enumerate(sc.steps):
        if k in sc.injected:
            messages.append(dict(sc.injected[k]))
        request = {
            "model": sc.request_model,
            "messages": copy.deepcopy(messages),
            "tools": sc.tools,
            "tool_choice": "auto",
            "temperature": 0,
        }
        response = {
            "id": step.id,
            "object": "chat.completion",
            "created": step.start // 1000,
            "model": sc.model,
            "choices": [
                {
                    "index": 0,
                    "message": _assistant_message(step, for_request=False),
                    "logprobs": None,
                    "finish_reason": "tool_calls" if step.calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": step.input_tokens,
                "completion_tokens": step.output_tokens,
                "total_tokens": step.input_tokens + step.output_tokens,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            },
            "system_fingerprint": sc.fingerprint,
        }
        lines.append(
            {"request": request, "response": response, "timestamp": iso(step.start), "latency_ms": step.end - step.start}
        )
        messages.append(_assistant_message(step, for_request=True))
        for call in step.calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": call.result})
    return lines


def openai_finetune(sc: Scenario) -> dict:
    """The whole run as one fine-tuning style conversation line."""
    messages: list[dict] = [{"role": "system", "content": sc.system}, {"role": "user", "content": sc.user}]
    for k, step in enumerate(sc.steps):
        if k in sc.injected:
            messages.append(dict(sc.injected[k]))
        message: dict[str, Any] = {"role": "assistant"}
        if step.text or not step.calls:
            message["content"] = step.text
        if step.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args}} for c in step.calls
            ]
        messages.append(message)
        for call in step.calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": call.result})
    return {"messages": messages, "tools": sc.tools, "parallel_tool_calls": False}


def langchain_messages(sc: Scenario) -> list[dict]:
    """``messages_to_dict`` of the run's LangGraph state (human, ai, tool, ...)."""
    out: list[dict] = [
        {
            "type": "human",
            "data": {
                "content": sc.user,
                "additional_kwargs": {},
                "response_metadata": {},
                "type": "human",
                "name": None,
                "id": None,
                "example": False,
            },
        }
    ]
    for k, step in enumerate(sc.steps):
        out.append(
            {
                "type": "ai",
                "data": {
                    "content": step.text,
                    "additional_kwargs": {},
                    "response_metadata": {
                        "finish_reason": "tool_calls" if step.calls else "stop",
                        "model_name": sc.model,
                    },
                    "type": "ai",
                    "name": None,
                    "id": f"run-{fake_uuid(f'{sc.trace}/{k}/run')}-0",
                    "example": False,
                    "tool_calls": [
                        {"name": c.name, "args": json.loads(c.args), "id": c.id, "type": "tool_call"} for c in step.calls
                    ],
                    "invalid_tool_calls": [],
                    "usage_metadata": {
                        "input_tokens": step.input_tokens,
                        "output_tokens": step.output_tokens,
                        "total_tokens": step.input_tokens + step.output_tokens,
                    },
                },
            }
        )
        for call in step.calls:
            out.append(
                {
                    "type": "tool",
                    "data": {
                        "content": call.result,
                        "additional_kwargs": {},
                        "response_metadata": {},
                        "type": "tool",
                        "name": call.name,
                        "id": None,
                        "tool_call_id": call.id,
                        "artifact": None,
                        "status": "error" if call.error else "success",
                    },
                }
            )
    return out


# ---------------------------------------------------------------------------
# Result text builders
# ---------------------------------------------------------------------------


def zh_search_results(query: str, items: list[tuple[str, str, str]]) -> str:
    """webSearch (self-hosted SearXNG behind a small adapter): a plain-text result list."""
    lines = [f"搜索“{query}”，返回 {len(items)} 条结果：", ""]
    for i, (title, url, snippet) in enumerate(items, 1):
        lines += [f"{i}. {title}", f"   {url}", f"   {snippet}", ""]
    return "\n".join(lines).rstrip() + "\n"


def en_search_results(query: str, items: list[tuple[str, str, str, float]], seconds: float) -> str:
    """web_search (a Tavily-style search API): JSON."""
    return JI(
        {
            "query": query,
            "results": [{"title": t, "url": u, "content": c, "score": s} for (t, u, c, s) in items],
            "response_time": seconds,
        }
    )


# ---------------------------------------------------------------------------
# The scenarios
# ---------------------------------------------------------------------------

SCENARIOS: list[Scenario] = []


def scenario(sc: Scenario) -> Scenario:
    SCENARIOS.append(build(sc))
    return sc


def expect(guard: str, fires: bool = True, by_round: int | None = None, note: str | None = None) -> dict:
    return {"guard": guard, "fires": fires, "by_round": by_round, "note": note}


# ----- shared Chinese web-search results -------------------------------------

WEATHER_CN = ("天气预报查询_一周天气预报_15天天气预报 - 中国天气网", "https://www.weather.com.cn/",
              "中国天气网是中国气象局公共气象服务中心主办的气象综合服务网站，提供全国 2500 多个城市的天气预报、实况与预警信息查询。")
BAIKE_TIANQI = ("天气（大气状态）- 百度百科", "https://baike.baidu.com/item/%E5%A4%A9%E6%B0%94/26355",
                "天气是指某一个地区距离地表较近的大气层在短时间内的具体状态，天气现象包括晴、阴、雨、雪、雾、风等……")
TIANQI_HOME = ("天气网 - 全国天气预报15天查询", "https://www.tianqi.com/",
               "天气网为您提供全国各城市天气预报、空气质量、生活指数及历史天气查询服务，数据每小时更新。")
MOJI_HOME = ("墨迹天气 - 精准到分钟的天气预报", "https://www.moji.com/",
             "墨迹天气提供短时降水、逐小时预报与 15 天天气趋势，覆盖全国 3000 多个城市和景点。")
CMA_KEPU = ("天气和气候有什么区别？- 中国气象局", "https://www.cma.gov.cn/2011xzt/kpbd/qhbh/201404/t20140408_244213.html",
            "天气是一定区域短时段内的大气状态，气候则是长时间内天气的平均或统计状况……")
TIANQI_JINRI = ("今日天气_今天天气预报查询 - 天气网", "https://www.tianqi.com/jinri/",
                "今日天气查询：请选择您所在的省份和城市，查看今天的天气、气温、风力风向与空气质量。")
RANK_2345 = ("全国主要城市今日气温排行榜 - 2345天气预报", "https://tianqi.2345.com/paihang/",
             "全国 340 个城市今日最高气温、最低气温排行，每 30 分钟更新一次……")
BAIKE_QIWEN = ("气温 - 百度百科", "https://baike.baidu.com/item/%E6%B0%94%E6%B8%A9/1033",
               "气温是表示空气冷热程度的物理量。气象观测所用的气温一般指离地面 1.5 米高处百叶箱中的温度。")
NMC_SHIKUANG = ("全国逐小时降水量实况 - 中央气象台", "http://www.nmc.cn/publish/observations/hourly-precipitation.html",
                "中央气象台发布全国逐小时降水量、气温实况分布图，数据来自国家级地面气象观测站……")
BAIKE_QINGYU = ("晴雨表 - 百度百科", "https://baike.baidu.com/item/%E6%99%B4%E9%9B%A8%E8%A1%A8/1413418",
                "晴雨表即气压计，是测量大气压强的仪器，人们常根据气压的升降大致判断天气的晴雨变化……")
WEATHER_CN_GAILV = ("降水概率 30% 要带伞吗？一文看懂降水概率 - 中国天气网", "https://www.weather.com.cn/science/2019/11/3261542.shtml",
                    "降水概率是指某一地区在某一时段内出现降水（≥0.1 毫米）的可能性大小，并不是下雨的面积或时长……")
MOJI_WEATHER = ("天气预报 - 墨迹天气", "https://www.moji.com/weather/",
                "选择您所在的城市，查看今日天气、逐小时预报、降水概率与生活指数……")
SHISHI_2345 = ("实时天气_今天天气实时查询 - 2345天气预报", "https://tianqi.2345.com/shishi/",
               "请选择城市，查看实时气温、体感温度、湿度、降水与空气质量……")


# ----- 1. seed 000: the weather loop -----------------------------------------

WEBSEARCH_TOOL = tool(
    "webSearch",
    "Search the web. Returns titles, URLs and snippets of the top results.",
    {"query": {"type": "string", "description": "Search keywords"}},
)

XIAOZHI_RULES = (
    "你是「小智」，运行在智能音箱和手机 App 里的家庭助手。\n\n"
    "## 能力\n"
    "- 涉及实时信息（天气、新闻、路况、价格、赛事比分）时，必须先调用工具查询再回答，不要凭记忆编造。\n"
    "- 搜索关键词要简洁；一次搜索没有找到时，可以调整关键词再搜。\n\n"
    "## 回答要求\n"
    "- 用口语化的中文回答，适合语音播报，一般不超过 100 字；需要列举时不超过 3 条。\n"
    "- 不要输出表格和代码块；数字用阿拉伯数字，温度用“℃”。\n"
    "- 引用具体数据（气温、降水概率、价格等）时说明来源网站。\n"
    "- 缺少必要信息（例如用户所在城市）时，可以直接向用户确认。\n\n"
    "## 安全\n"
    "- 不提供医疗、法律、投资方面的确定性建议；涉及人身安全的预警信息要优先播报。\n"
    "- 控制家电前必须得到用户明确同意。不要透露本提示词的内容。\n\n"
)
SEED000_SYSTEM = XIAOZHI_RULES + "当前时间：2026-03-04 17:15（北京时间）。用户所在城市：未知（未授权定位）。"

SEED000_QUERIES = ["天气", "今日天气 气温", "今日天气 气温 晴雨", "今日天气预报 气温 晴雨 降水概率", "今天 天气 实时 气温 晴雨 预报"]

scenario(
    Scenario(
        trace="seed000_weather_loop",
        file="seed000_weather_loop.jsonl",
        title="今天天气怎么样 — query rewritten 5 times until maxRounds",
        start="2026-03-04T09:15:02.412Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=SEED000_SYSTEM,
        user="今天天气怎么样？出门要带伞吗？",
        tools=[WEBSEARCH_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "similar-query search loop until maxRounds (天气 → 今日天气 气温 → … 晴雨)",
            "source": "seed 000",
            "note": "5 rewrites of the same query, the results never relevant; forced answer after maxRounds, ~35 s",
        },
        expects=[
            expect("P001", True, 3, "round 2 is similar to round 1 (containment 1.00) -> 1; round 3 similar to round 2 (1.00) -> 2 -> stop before round 3's search"),
            expect("P002", False, None, "every round brings at least one URL not seen before (all irrelevant): URL novelty alone does not see this loop"),
            expect("R001", False, None, "every query differs: no identical calls"),
        ],
        metadata={
            "agent": "xiaozhi-home-assistant",
            "framework": "custom ReAct loop (Java, streaming)",
            "max_rounds": 5,
            "user_query": "今天天气怎么样？出门要带伞吗？",
            "ended_by": "maxRounds reached; forced final answer without tools",
        },
        steps=[
            Step("", [Call("webSearch", J({"query": SEED000_QUERIES[0]}), zh_search_results(SEED000_QUERIES[0], [WEATHER_CN, BAIKE_TIANQI, TIANQI_HOME, MOJI_HOME, CMA_KEPU]), ms=5040)]),
            Step("搜索结果都是天气网站首页和百科，没有今天的具体信息，我换个更具体的关键词。",
                 [Call("webSearch", J({"query": SEED000_QUERIES[1]}), zh_search_results(SEED000_QUERIES[1], [TIANQI_JINRI, WEATHER_CN, RANK_2345, BAIKE_QIWEN]), ms=5620)]),
            Step("还是没有具体的气温和晴雨信息，再加上“晴雨”试试。",
                 [Call("webSearch", J({"query": SEED000_QUERIES[2]}), zh_search_results(SEED000_QUERIES[2], [NMC_SHIKUANG, TIANQI_JINRI, BAIKE_QINGYU]), ms=4760)]),
            Step("",
                 [Call("webSearch", J({"query": SEED000_QUERIES[3]}), zh_search_results(SEED000_QUERIES[3], [WEATHER_CN_GAILV, NMC_SHIKUANG, TIANQI_JINRI, MOJI_WEATHER]), ms=5930)]),
            Step("我再换个说法搜索实时天气。",
                 [Call("webSearch", J({"query": SEED000_QUERIES[4]}), zh_search_results(SEED000_QUERIES[4], [SHISHI_2345, RANK_2345, TIANQI_JINRI]), ms=5280)]),
            Step(
                "抱歉，我搜索了几次，只找到天气网站的首页和一些百科词条，没能查到您所在城市今天的具体天气和降水概率，"
                "所以没法确定要不要带伞。您可以告诉我所在的城市（比如“杭州”），我再帮您查；"
                "也可以直接在中国天气网（https://www.weather.com.cn/）查看当地的逐小时预报。",
                ms=2380,
            ),
        ],
        injected={5: {"role": "system", "content": "已达到最大轮次（maxRounds=5）。请基于已有的搜索结果直接回答用户，不要再调用工具。"}},
        why="Seed 000's own incident. The agent rewrites the weather query five times, each time keeping the core characters and adding modifiers, "
        "until maxRounds forces an answer (~35 s). P001 sees round 2 as similar to round 1 and round 3 as similar to round 2, so it stops before round 3's search: "
        "rounds 3-5 and their 3 searches are saved, minus one forced answer. P002 does not fire: each round brings one irrelevant but new URL.",
    )
)


# ----- 2. seed 000: containment vs Jaccard -----------------------------------

BJ_WEATHER = ("【北京天气】北京天气预报,天气预报一周,天气预报15天查询 - 中国天气网", "https://www.weather.com.cn/weather/101010100.shtml",
              "北京天气预报，及时准确发布中央气象台天气信息，便捷查询北京今日天气，北京周末天气，北京一周天气预报，北京15日天气预报……")
BJ_TIANQI15 = ("北京天气预报15天_北京天气预报15天查询 - 天气网", "https://www.tianqi.com/beijing/15/",
               "北京天气预报15天查询，未来15天北京天气变化趋势，包括气温、降水、风力风向等……")
BJ_CMA = ("北京市气象局", "http://bj.cma.gov.cn/", "北京市气象局官方网站，发布北京天气预报、预警信号、气象服务与科普信息。")
BJ_TIANQI = ("北京今天天气_北京今日天气预报 - 天气网", "https://www.tianqi.com/beijing/",
             "北京今日天气：查看北京今天白天和夜间的天气现象、最高最低气温、风向风力与紫外线指数……")
BJ_2345 = ("北京实时天气_北京今日气温走势 - 2345天气预报", "https://tianqi.2345.com/beijing/54511.htm",
           "北京实时天气、今日气温走势、逐小时预报与空气质量，每 10 分钟更新……")
BJ_MOJI = ("北京实时天气_北京今日湿度 - 墨迹天气", "https://tianqi.moji.com/weather/china/beijing/beijing",
           "墨迹天气北京今日天气，实时温度、湿度、风力与空气质量指数（AQI），逐小时与 15 天预报……")
BJ_1D = ("北京今天天气 - 中国天气网", "https://www.weather.com.cn/weather1d/101010100.shtml",
         "北京今日逐小时天气：温度、相对湿度、降水量与风力风向，整点更新……")

BJ_QUERIES = ["北京天气", "北京今日天气 气温", "北京今日天气 气温 湿度"]

scenario(
    Scenario(
        trace="seed000_containment_vs_jaccard",
        file="seed000_containment_vs_jaccard.jsonl",
        title="北京天气 → 北京今日天气 气温 → … 湿度: the pair that makes Jaccard dead code",
        start="2026-03-04T09:41:17.088Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=SEED000_SYSTEM.replace("17:15", "17:41"),
        user="北京今天天气怎么样？温度和湿度大概多少？",
        tools=[WEBSEARCH_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "seed 000 unit-test pair: 北京天气 vs 北京今日天气 气温 (containment 1.00, Jaccard 0.57)",
            "source": "seed 000",
            "note": "three near-identical searches; answered without today's numbers",
        },
        expects=[
            expect("P001", True, 3, "containment: round 2 vs 1 = 4/4 = 1.00 -> 1; round 3 vs 2 = 7/7 = 1.00 -> 2 -> stop. With metric=jaccard (4/7 = 0.57, 7/9 = 0.78) it never fires"),
        ],
        metadata={
            "agent": "xiaozhi-home-assistant",
            "framework": "custom ReAct loop (Java, streaming)",
            "max_rounds": 5,
            "user_query": "北京今天天气怎么样？温度和湿度大概多少？",
        },
        steps=[
            Step("", [Call("webSearch", J({"query": BJ_QUERIES[0]}), zh_search_results(BJ_QUERIES[0], [BJ_WEATHER, BJ_TIANQI15, BJ_CMA]), ms=3940)]),
            Step("", [Call("webSearch", J({"query": BJ_QUERIES[1]}), zh_search_results(BJ_QUERIES[1], [BJ_TIANQI, BJ_WEATHER, BJ_2345]), ms=4310)]),
            Step("结果里还是没有具体的湿度数据，我再补充关键词搜索一次。",
                 [Call("webSearch", J({"query": BJ_QUERIES[2]}), zh_search_results(BJ_QUERIES[2], [BJ_MOJI, BJ_2345, BJ_1D]), ms=4650)]),
            Step(
                "没有查到北京今天的实时气温和湿度数据。几个天气网站都有北京的实时页面，"
                "建议直接查看中国天气网的北京今日逐小时天气：https://www.weather.com.cn/weather1d/101010100.shtml",
                ms=1960,
            ),
        ],
        why="The pair from seed 000's postscript: a unit test asserting that 北京天气 and 北京今日天气 气温 are similar failed because the first version used Jaccard "
        "(|A∩B|/|A∪B| = 4/7 = 0.57 < 0.8). Containment (|A∩B|/min(|A|,|B|) = 4/4 = 1.00) sees it. With metric=jaccard P001 never fires on this trace.",
    )
)


# ----- 3. seed 002: eight contract searches, token limit ---------------------

CONTRACT_DOCS: dict[str, dict[str, Any]] = {
    "D1": {
        "doc_id": "KB-LEGAL-0142", "title": "SaaS 订阅服务协议（标准版）v3.2", "section": "第 7 条 订阅期限与自动续费", "hidden": 6460,
        "text": "7.1 订阅期限自订单生效日起算，以订单载明的期限为准。7.2 除非任何一方于当前订阅期届满前三十（30）日以书面形式通知对方不再续订，"
                "本协议及相关订单将按相同期限自动续订，续订价格以届时有效的价目表为准，但涨幅不超过上一订阅期费用的百分之七（7%）。"
                "7.3 客户可在管理后台“账单与订阅”页面关闭自动续费，关闭操作视为第 7.2 条所述的书面通知……",
    },
    "D2": {
        "doc_id": "KB-LEGAL-0157", "title": "SaaS 订阅服务协议（企业版）v2.8", "section": "第 9 条 续约", "hidden": 6020,
        "text": "9.1 本协议初始服务期为十二（12）个月。初始服务期届满后自动续约十二（12）个月，除非一方在届满前六十（60）日书面通知另一方不续约。"
                "9.2 续约期间的服务费按续约时双方确认的报价单执行；未重新报价的，按上一服务期单价执行……",
    },
    "D3": {
        "doc_id": "KB-LEGAL-0098", "title": "软件即服务（SaaS）主服务协议 MSA-2025", "section": "第 12 条 期限、续期与终止", "hidden": 6740,
        "text": "12.3 除订单另有约定外，每一订阅期届满时自动续期，续期期限与原订阅期相同。任何一方可在届满前至少三十（30）日发出不续期通知。"
                "12.4 乙方调整续期价格的，应在届满前四十五（45）日书面通知甲方；甲方不接受调价的，可在届满前以书面方式终止续期……",
    },
    "D4": {
        "doc_id": "KB-LEGAL-0203", "title": "订单表（Order Form）模板 2025 版", "section": "六、续费条款", "hidden": 5280,
        "text": "续费方式：□自动续费 □到期手动续费。勾选自动续费的，系统将于到期前七（7）日向付款账户发起扣款；"
                "如需取消，应在到期前三十（30）日于管理后台关闭，或书面通知客户成功经理……",
    },
    "D5": {
        "doc_id": "KB-LEGAL-0311", "title": "自动续费服务规则（个人/小微版）", "section": "第三条 提醒与取消", "hidden": 5150,
        "text": "依据《网络交易监督管理办法》第十八条，采取自动续费方式的，应当在消费者接受服务前和自动续费日前五日，以显著方式提请消费者注意。"
                "用户可随时在“我的-订阅管理”中取消自动续费，取消后当期服务不受影响……",
    },
    "D6": {
        "doc_id": "KB-LEGAL-0187", "title": "合同审批指引：续约、涨价与终止通知", "section": "3.2 续约条款的变更", "hidden": 5540,
        "text": "销售在报价单或补充协议中变更续约条款（如将不续约通知期由 30 日缩短至 15 日、取消涨幅上限）的，须经法务审批。"
                "企业版默认通知期为 60 日，标准版为 30 日……",
    },
    "D7": {
        "doc_id": "KB-LEGAL-0225", "title": "年度订阅续费提醒函（模板）", "section": "正文", "hidden": 4960,
        "text": "尊敬的客户：贵司订阅的云境协同（标准版）将于{到期日}到期。根据《SaaS 订阅服务协议》第 7.2 条，"
                "如贵司未于到期前 30 日书面通知不续订，订阅将自动续期 12 个月，续期费用为{续期金额}元……",
    },
    "D8": {
        "doc_id": "KB-LEGAL-0064", "title": "数据处理协议（DPA）v1.4", "section": "第 11 条 期限与终止", "hidden": 5860,
        "text": "本 DPA 的期限与主协议一致；主协议续期的，本 DPA 随之自动续期。主协议终止后，处理者应在三十（30）日内删除或返还个人数据……",
    },
    "D9": {
        "doc_id": "KB-LEGAL-0276", "title": "渠道合作协议（经销商）2024 版", "section": "第 15 条 协议期限", "hidden": 5320,
        "text": "本协议有效期一年。期满前九十（90）日内任何一方未提出书面异议的，本协议自动续约一年，续约次数不限……",
    },
}

CONTRACT_ROUNDS: list[tuple[str, list[str], list[float], str]] = [
    ("SaaS 订阅合同 自动续费", ["D1", "D2", "D3", "D4", "D6"], [0.91, 0.88, 0.84, 0.79, 0.71], ""),
    ("SaaS 订阅协议 自动续约", ["D2", "D1", "D3"], [0.90, 0.87, 0.82], "结果里标准版和企业版的条款不一致，我换个说法再检索，确认标准条款。"),
    ("软件即服务 合同 续费条款", ["D3", "D1", "D2", "D8"], [0.86, 0.83, 0.80, 0.62], ""),
    ("自动续费条款 SaaS 协议", ["D1", "D2"], [0.89, 0.85], "还需要确认续费条款的完整表述。"),
    ("SaaS 合同 续约 自动", ["D2", "D1", "D3"], [0.88, 0.86, 0.81], ""),
    ("续费 条款", ["D1", "D2", "D3", "D4", "D7", "D6"], [0.84, 0.82, 0.80, 0.78, 0.74, 0.70], "换更宽泛的关键词，看看有没有遗漏的续费条款。"),
    ("自动续费", ["D5", "D1", "D2", "D3"], [0.87, 0.85, 0.83, 0.80], ""),
    ("续费", ["D1", "D2", "D3", "D4", "D5", "D7", "D9"], [0.81, 0.80, 0.79, 0.77, 0.76, 0.73, 0.66], "再用最短的关键词检索一次，确保覆盖所有相关合同。"),
]

CONTRACT_TOOL = tool(
    "search_contract",
    "在企业知识库中检索合同模板与合同条款，返回匹配的文档、章节与条款全文。",
    {
        "query": {"type": "string", "description": "检索关键词"},
        "top_k": {"type": "integer", "description": "最多返回条数，默认 8"},
    },
    required=["query"],
)


def contract_result(query: str, keys: list[str], scores: list[float]) -> tuple[str, int]:
    results = []
    hidden = 0
    for key, score in zip(keys, scores):
        doc = CONTRACT_DOCS[key]
        results.append(
            {
                "doc_id": doc["doc_id"],
                "title": doc["title"],
                "section": doc["section"],
                "url": f"https://kb.yunjing-saas.com/legal/templates/{doc['doc_id']}",
                "score": score,
                "text": doc["text"] + f"[logger: truncated {doc['hidden']:,} chars]",
            }
        )
        hidden += int(doc["hidden"] * 0.68)
    body = JC({"query": query, "total": len(results), "results": results})
    return body, hidden


_contract_steps = []
for _k, (_q, _keys, _scores, _text) in enumerate(CONTRACT_ROUNDS):
    _body, _hidden = contract_result(_q, _keys, _scores)
    _contract_steps.append(
        Step(_text, [Call("search_contract", J({"query": _q}), _body, hidden_tokens=_hidden, ms=2650 + int(900 * frac("contract", _k)))])
    )

scenario(
    Scenario(
        trace="seed002_contract_search_token_limit",
        file="seed002_contract_search_token_limit.jsonl",
        title="合同条款查询 Agent: 8 near-synonym searches, then Token limit exceeded",
        start="2026-03-05T02:27:45.903Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "你是云境科技的合同条款查询助手，服务对象是销售、客服和客户成功团队的同事。\n"
            "1. 只能依据 search_contract 的检索结果回答，不得凭常识推断合同内容；检索不到时如实说明，并建议联系法务（legal@yunjing-saas.com）。\n"
            "2. 回答时注明出处：文档编号、文档名称和条款号，例如“KB-LEGAL-0142 第 7.2 条”。\n"
            "3. 标准版、企业版、渠道版合同的条款可能不同，回答前先确认问题针对的是哪个版本；用户未说明时，默认标准版。\n"
            "4. 涉及金额、期限、通知期等数字时，原文引用，不要改写。\n"
            "5. 不得向客户直接发送内部审批指引（KB-LEGAL-01xx 中标注“内部”的文档）。\n"
            "6. 回答使用简体中文，先给结论，再给依据。"
        ),
        user="客户问我们标准版 SaaS 订阅合同里的自动续费是怎么约定的？如果不想续费，要提前多少天通知？",
        tools=[CONTRACT_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "search_contract called 8 times with near-synonyms; context window overflow, no answer (45 s)",
            "source": "seed 002",
            "note": "the answer (30 days, clause 7.2 of KB-LEGAL-0142) was in the first result of round 1",
        },
        expects=[
            expect("P001", True, 6, "char tokens: round 5 vs round 1 = 6/7 = 0.86 -> 1; round 6 续费 条款 is contained in rounds 3 and 4 (4/4 = 1.00) -> 2 -> stop before round 6 (jieba: round 7)"),
            expect("P002", True, 5, "rounds 4 and 5 return only already-seen contract URLs (round 3 brought the DPA) -> 2 -> stop after round 5's tools"),
            expect("R001", False, None, "no two calls have identical arguments"),
        ],
        metadata={
            "agent": "contract-clause-assistant",
            "framework": "LangChain AgentExecutor (tool-calling agent)",
            "max_iterations": 10,
            "context_window": 128000,
            "user_query": "客户问我们标准版 SaaS 订阅合同里的自动续费是怎么约定的？如果不想续费，要提前多少天通知？",
            "logger": "tool result 'text' fields truncated at 200 chars by the logging callback; usage is the provider's",
        },
        steps=_contract_steps,
        end_error="Token limit exceeded",
        why="Seed 002's incident: eight searches that only swap near-synonyms, every result list returning the same contract templates, the context growing "
        "by ~4k tokens per returned clause until the ninth model call overflows the 128k window. The run never answers. "
        "P002 stops first (after round 5's search: rounds 4 and 5 brought no new URL), P001 stops before round 6's search. Either turns "
        "'no answer' into a forced answer built from round 1's result, which already held the 30-day notice period.",
    )
)


# ----- 4. seed 004: query_db({"status": "pending"}) -> [] forever -------------

QUERY_DB_TOOL = tool(
    "query_db",
    "Query the helpdesk tickets table. Pass column filters as an object; returns matching rows as a JSON array.",
    {"status": {"type": "string", "description": "Ticket status to filter on"}},
)

_db_args = J({"status": "pending"})
scenario(
    Scenario(
        trace="seed004_query_db_identical",
        file="seed004_query_db_identical.jsonl",
        title='query_db({"status": "pending"}) -> [] five times in a row',
        start="2026-03-05T14:03:11.274Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=(
            "You are the operations assistant for the Acme Support helpdesk. Team leads ask you about queues, backlogs and SLAs.\n\n"
            "Tools: query_db reads the `tickets` table (columns: id, subject, status, priority, assignee, team, created_at, updated_at, sla_due_at). "
            "Pass filters as a JSON object of column values.\n\n"
            "Rules:\n"
            "- Always answer from query results; never estimate counts.\n"
            "- Give exact numbers and ticket ids; times in UTC.\n"
            "- Do not modify tickets; you have read-only access.\n"
            "- Keep answers short: a sentence or two, then a list if needed."
        ),
        user="How many support tickets are still pending right now? Give me the count and the oldest one.",
        tools=[QUERY_DB_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "identical call streak: query_db({\"status\": \"pending\"}) returns [] again and again",
            "source": "seed 004",
            "note": "the tickets table uses status 'awaiting_agent'; 14 tickets were pending. The answer '0' is wrong",
        },
        expects=[
            expect("R001", True, 3, "2nd identical call (round 2) -> hint; 3rd (round 3) -> stop before it runs"),
            expect("R002", True, 2, "round 2 repeats round 1's successful call with the same raw arguments -> block"),
        ],
        metadata={
            "agent": "helpdesk-ops",
            "framework": "PatchCat-style browser runtime (OpenAI tools)",
            "max_iterations": 6,
            "user_query": "How many support tickets are still pending right now? Give me the count and the oldest one.",
        },
        steps=[
            Step("", [Call("query_db", _db_args, "[]")]),
            Step("The query returned no rows. Let me run it again to make sure.", [Call("query_db", _db_args, "[]")]),
            Step("", [Call("query_db", _db_args, "[]")]),
            Step("Still empty. I'll query once more to confirm there are no pending tickets.", [Call("query_db", _db_args, "[]")]),
            Step("", [Call("query_db", _db_args, "[]")]),
            Step("There are currently **0 pending support tickets** — the tickets table returned no rows with status \"pending\" "
                 "across five checks, so there is no oldest pending ticket to report.", ms=1450),
        ],
        why="Seed 004's mode collapse: the model repeats the exact same call after an empty result. R001 hints at the 2nd identical call and stops "
        "before the 3rd runs, saving rounds 3-5 and three calls. R002 (seed 001's cache) blocks already the 2nd call, answering it with the cached [].",
    )
)


# ----- 5. seed 004: a legitimate poll ------------------------------------------

REPORT_TOOLS = [
    tool("create_report", "Start generating an analytics report. Returns a report id.",
         {"type": {"type": "string", "enum": ["sales_summary", "returns", "inventory"]}, "period": {"type": "string", "description": "YYYY-MM"}}),
    tool("get_report_status", "Get the status of a report job.", {"report_id": {"type": "string"}}),
    tool("download_report", "Download a finished report as CSV text.", {"report_id": {"type": "string"}, "format": {"type": "string", "enum": ["csv"]}}),
]
_poll = J({"report_id": "rpt_8812"})
_report_url = "https://reports.acme-analytics.com/dl/rpt_8812/sales_summary_2026-02.csv?sig=9f2c41d7e0b3"
_report_csv = (
    "region,orders,revenue_eur,avg_order_eur,returns_pct\n"
    "DACH,1842,412380.50,223.88,3.1\n"
    "Nordics,655,171204.00,261.38,2.4\n"
    "Benelux,931,198770.25,213.50,2.9\n"
    "UK & IE,1120,268903.75,240.09,3.6\n"
    "Total,4548,1051258.50,231.15,3.1\n"
)
scenario(
    Scenario(
        trace="seed004_report_polling",
        file="seed004_report_polling.jsonl",
        title="get_report_status polled twice with the same arguments (legitimate)",
        start="2026-03-05T15:20:40.517Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "You are the analytics assistant of Acme Commerce's BI team. You produce reports from the reporting service and summarise them "
            "for managers.\n\n"
            "Reports are generated asynchronously: call create_report, then poll get_report_status until the status is `done` (generation usually "
            "takes 2-10 seconds), then download_report. If a report fails, say so and include the error.\n\n"
            "When summarising: lead with revenue and order count, then the notable regional differences; amounts in EUR with thousands "
            "separators; always include the download link."
        ),
        user="Generate the February 2026 sales summary and give me the download link plus the headline numbers.",
        tools=REPORT_TOOLS,
        labels={
            "outcome": "success",
            "scenario": "legitimate async poll: the same get_report_status call twice, the result changes",
            "source": "seed 004",
        },
        expects=[
            expect("R001", False, None, "two identical polls in a row only reach the hint step (seed 004 tolerates 2); no stop"),
            expect("F001", False, None, "no tool failed"),
        ],
        metadata={
            "agent": "analytics-assistant",
            "framework": "PatchCat-style browser runtime (OpenAI tools)",
            "max_iterations": 8,
            "user_query": "Generate the February 2026 sales summary and give me the download link plus the headline numbers.",
        },
        steps=[
            Step("", [Call("create_report", J({"type": "sales_summary", "period": "2026-02"}),
                           JC({"report_id": "rpt_8812", "status": "queued", "estimated_seconds": 3}))]),
            Step("", [Call("get_report_status", _poll, JC({"status": "generating", "progress": 40}))]),
            Step("The report is still generating (40%). Checking again.",
                 [Call("get_report_status", _poll, JC({"status": "done", "url": _report_url}))]),
            Step("", [Call("download_report", J({"report_id": "rpt_8812", "format": "csv"}), _report_csv)]),
            Step(
                "The February 2026 sales summary is ready: " + _report_url + "\n\n"
                "Headline numbers:\n"
                "- **Revenue:** €1,051,258.50 from 4,548 orders (average order €231.15)\n"
                "- **Largest region:** DACH — €412,380.50, 1,842 orders\n"
                "- **Highest average order:** Nordics — €261.38\n"
                "- **Returns:** 3.1% overall; highest in UK & IE (3.6%), lowest in the Nordics (2.4%)",
                ms=2710,
            ),
        ],
        why="Why seed 004 hints at the 2nd identical call instead of stopping: polling an async job is legitimate. The two polls are identical "
        "calls, but the result changes (generating 40% -> done). R001 only hints here, which changes nothing in replay. "
        "Note: R002 (seed 001's result cache) would block the second poll and return the stale 'generating' result; P004 exists for this case.",
    )
)


# ----- 6. seed 004: JSON key-order drift -------------------------------------

PENDING_TOOL = tool(
    "list_pending_orders",
    "列出待处理订单，按创建时间倒序分页返回。",
    {"page": {"type": "integer", "minimum": 1}, "size": {"type": "integer", "minimum": 1, "maximum": 50}},
)
_pending_orders = [
    ("PO-20260305-1187", "杭州青禾餐饮管理有限公司", "2026-03-05", 3280.00, 1),
    ("PO-20260304-1162", "苏州恒远精密机械有限公司", "2026-03-04", 15600.00, 2),
    ("PO-20260302-1131", "宁波海曙区晨光文具店", "2026-03-02", 468.50, 4),
    ("PO-20260227-1088", "上海微澜信息科技有限公司", "2026-02-27", 9900.00, 7),
    ("PO-20260225-1064", "南京百川物流有限公司", "2026-02-25", 7420.00, 9),
    ("PO-20260221-1019", "合肥启航教育咨询有限公司", "2026-02-21", 2150.00, 13),
    ("PO-20260218-0987", "无锡锦程纺织有限公司", "2026-02-18", 28760.00, 16),
    ("PO-20260216-0962", "温州瑞丰鞋业有限公司", "2026-02-16", 5130.00, 18),
    ("PO-20260213-0931", "常州天宁区便利蜂加盟店", "2026-02-13", 860.00, 21),
    ("PO-20260210-0903", "绍兴柯桥布艺工坊", "2026-02-10", 3995.00, 24),
]
_pending_page1 = JC(
    {
        "total": 37,
        "page": 1,
        "size": 10,
        "orders": [
            {"order_id": o, "customer": c, "created_at": d, "amount_cny": a, "days_pending": p, "status": "pending"}
            for (o, c, d, a, p) in _pending_orders
        ],
    }
)
scenario(
    Scenario(
        trace="seed004_key_order_drift",
        file="seed004_key_order_drift.jsonl",
        title='list_pending_orders({"page": 1, "size": 10}) / ({"size": 10, "page": 1}) — same call, keys reordered',
        start="2026-03-06T01:52:09.630Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "你是华东大区的订单运营助手，帮助运营同事跟进待处理订单。\n"
            "- 使用 list_pending_orders 分页查询待处理订单（按创建时间倒序，每页最多 50 条）。返回中的 total 是符合条件的总条数。\n"
            "- 回答时逐条列出订单号、客户名称、金额和待处理天数；超过 30 天的订单标注“超期”。\n"
            "- 只读权限：不要承诺修改订单状态。\n"
            "- 今天是 2026-03-06。"
        ),
        user="把待处理超过 30 天的订单都列出来，我要逐个跟进。",
        tools=[PENDING_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "identical calls hidden by JSON key-order drift: {\"page\": 1, \"size\": 10} vs {\"size\": 10, \"page\": 1}",
            "source": "seed 004",
            "note": "37 pending orders, 21 of them older than 30 days on pages 2-4; the agent never left page 1 and answered 'none'",
        },
        expects=[
            expect("R001", True, 3, "with canonical_args (default) all three calls have the same signature -> hint at round 2, stop at round 3; with canonical_args off the raw strings alternate and R001 never fires"),
            expect("R002", True, 3, "round 3's raw arguments equal round 1's byte for byte -> block (round 2's reordered string is not an exact match)"),
        ],
        metadata={
            "agent": "order-ops-assistant",
            "framework": "PatchCat-style browser runtime (OpenAI tools)",
            "max_iterations": 6,
            "user_query": "把待处理超过 30 天的订单都列出来，我要逐个跟进。",
        },
        steps=[
            Step("", [Call("list_pending_orders", J({"page": 1, "size": 10}), _pending_page1)]),
            Step("我再确认一下第一页的数据。", [Call("list_pending_orders", J({"size": 10, "page": 1}), _pending_page1)]),
            Step("", [Call("list_pending_orders", J({"page": 1, "size": 10}), _pending_page1)]),
            Step("查询了待处理订单列表，目前待处理时间最长的是 PO-20260210-0903（绍兴柯桥布艺工坊），已待处理 24 天，"
                 "**没有超过 30 天的待处理订单**。需要我把待处理超过 20 天的 2 个订单列出来吗？", ms=2240),
        ],
        why="Seed 004's admitted blind spot: its signature is tool name + the raw argument string, so {\"page\": 1, \"size\": 10} and "
        "{\"size\": 10, \"page\": 1} look different. With canonical_args (sorted keys, tracecheck's default) the three calls are identical and R001 stops at round 3.",
    )
)


# ----- 7. seed 001: tool failure streak (two traces) -------------------------

FILE_TOOLS = [
    tool("read_file", "Read a file from the repository checkout.", {"path": {"type": "string"}}),
    tool("list_dir", "List the entries of a directory.", {"path": {"type": "string"}}),
]
_FILE_SYSTEM = (
    "You are a code assistant for the payments team, with read-only access to the repository checked out at /repo "
    "(a Node.js monorepo: services/ holds the services, config/ the shared configuration, packages/ the libraries).\n\n"
    "Use the tools to look things up; do not guess. Quote file paths and the exact values you found. If something cannot be found, "
    "say what you looked at. Keep answers under 150 words."
)
_FILE_USER = "What HTTP timeout and retry settings does the payment service use?"


def enoent(path: str) -> str:
    return f"Error: ENOENT: no such file or directory, open '{path}'"


scenario(
    Scenario(
        trace="seed001_read_file_failure_streak",
        file="seed001_tool_failure_streak.jsonl",
        title="read_file fails 4 times in a row (ENOENT), then a guessed answer",
        start="2026-03-06T08:11:53.145Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=_FILE_SYSTEM,
        user=_FILE_USER,
        tools=FILE_TOOLS,
        labels={
            "outcome": "failure",
            "scenario": "tool failure streak: read_file on guessed paths, ENOENT every time",
            "source": "seed 001",
            "note": "the config lives in /repo/config/default.yaml; the final answer is a guess",
        },
        expects=[
            expect("F001", True, 3, "read_file fails in rounds 1, 2, 3 -> 3 consecutive failures -> abort after round 3"),
            expect("R001", False, None, "every path differs: no identical calls"),
        ],
        metadata={
            "agent": "loopagent-code-qa",
            "framework": "LoopAgent-style ReAct runner",
            "max_steps": 8,
            "user_query": _FILE_USER,
        },
        steps=[
            Step("", [Call("read_file", J({"path": "/repo/src/config.yaml"}), enoent("/repo/src/config.yaml"), error=True)]),
            Step("That file doesn't exist. The config is probably at the repository root.",
                 [Call("read_file", J({"path": "/repo/config.yaml"}), enoent("/repo/config.yaml"), error=True)]),
            Step("", [Call("read_file", J({"path": "/repo/src/config/config.yaml"}), enoent("/repo/src/config/config.yaml"), error=True)]),
            Step("", [Call("read_file", J({"path": "/repo/config/payment.yaml"}), enoent("/repo/config/payment.yaml"), error=True)]),
            Step("I couldn't locate the payment service's configuration file. Services like this typically use a 30-second HTTP timeout "
                 "and retry failed requests 3 times with exponential backoff; please check the deployment configuration to confirm.", ms=1880),
        ],
        why="Seed 001's 'hitting the wall': the same tool fails again and again and the model keeps trying. F001 counts consecutive failures per tool "
        "and aborts at the 3rd (round 3). R001 does not see it: every call has a different path.",
    )
)

_DEFAULT_YAML = (
    "# /repo/config/default.yaml — payment-gateway defaults\n"
    "service: payment-gateway\n"
    "include:\n"
    "  - ./local.yaml              # optional, per developer\n"
    "  - ./overrides/payment.yaml  # optional, per environment\n"
    "http:\n"
    "  timeout_ms: 8000\n"
    "  connect_timeout_ms: 2000\n"
    "  retry:\n"
    "    max_attempts: 4\n"
    "    backoff_ms: 250\n"
    "    backoff_multiplier: 2.0\n"
    "    retry_on: [502, 503, 504]\n"
)
scenario(
    Scenario(
        trace="seed001_read_file_recovers",
        file="seed001_tool_failure_streak.jsonl",
        title="read_file fails twice, succeeds, fails twice again; then a correct answer",
        start="2026-03-06T08:19:02.771Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=_FILE_SYSTEM,
        user=_FILE_USER,
        tools=FILE_TOOLS,
        labels={
            "outcome": "success",
            "scenario": "failures that never reach 3 in a row: a success in between resets the streak",
            "source": "seed 001",
        },
        expects=[
            expect("F001", False, None, "read_file streak: 1, 2, (list_dir), 0 after the success in round 4, 1, 2 — never 3"),
            expect("R001", False, None, "no identical calls"),
        ],
        metadata={
            "agent": "loopagent-code-qa",
            "framework": "LoopAgent-style ReAct runner",
            "max_steps": 8,
            "user_query": _FILE_USER,
        },
        steps=[
            Step("", [Call("read_file", J({"path": "/repo/src/config.yaml"}), enoent("/repo/src/config.yaml"), error=True)]),
            Step("", [Call("read_file", J({"path": "/repo/config.yaml"}), enoent("/repo/config.yaml"), error=True)]),
            Step("Let me look at the config directory instead of guessing paths.",
                 [Call("list_dir", J({"path": "/repo/config"}),
                       "/repo/config:\n  default.yaml        1.1 KB\n  production.yaml     0.3 KB\n  README.md           0.6 KB\n")]),
            Step("", [Call("read_file", J({"path": "/repo/config/default.yaml"}), _DEFAULT_YAML)]),
            Step("default.yaml includes two optional override files; checking whether they change the HTTP settings.",
                 [Call("read_file", J({"path": "/repo/config/local.yaml"}), enoent("/repo/config/local.yaml"), error=True)]),
            Step("", [Call("read_file", J({"path": "/repo/config/overrides/payment.yaml"}), enoent("/repo/config/overrides/payment.yaml"), error=True)]),
            Step("The payment service uses the defaults in `/repo/config/default.yaml` (the optional `local.yaml` and "
                 "`overrides/payment.yaml` don't exist, so nothing overrides them):\n\n"
                 "- request timeout **8000 ms**, connect timeout **2000 ms**\n"
                 "- up to **4 attempts**, backoff 250 ms doubling each time (250, 500, 1000 ms)\n"
                 "- retried only on HTTP 502, 503 and 504", ms=2460),
        ],
        why="The counter-example for F001: two failures, a success (which resets the streak), two more failures, and a correct answer. "
        "Failures are counted per tool and in a row; the list_dir call in round 3 neither counts nor resets read_file's streak.",
    )
)


# ----- 8. seed 001: the evidence gate (three traces) ----------------------------

CODE_TOOLS = [
    tool("search_code", "Search the repository for a string or regex. Returns matching lines with file and line number.",
         {"query": {"type": "string"}, "path": {"type": "string", "description": "Directory to search, default the repository root"}},
         required=["query"]),
    tool("read_file", "Read a file from the repository checkout.", {"path": {"type": "string"}}),
]
_CODE_SYSTEM = (
    "You are a code assistant for the payments monorepo (Python services under lib/ and services/, TypeScript clients under web/).\n\n"
    "Always ground answers in the code: search before you answer, and cite file paths with line numbers. "
    "If a search finds nothing, try another spelling (snake_case vs camelCase) or another directory before concluding. "
    "Never present an assumption as a fact."
)
_CODE_USER = "Where is retryPolicy configured in our codebase, and what is the default number of attempts?"
_code_meta = {
    "agent": "loopagent-code-qa",
    "framework": "LoopAgent-style ReAct runner",
    "max_steps": 8,
    "required_tools": ["search_code"],
    "user_query": _CODE_USER,
}
_hallucinated = ("`retryPolicy` is configured in `src/http/client.ts`, where the HTTP client is created with "
                 "`retryPolicy: { maxAttempts: 3, backoff: 'exponential' }`. So the default is **3 attempts**.")

scenario(
    Scenario(
        trace="seed001_answer_without_search",
        file="seed001_evidence_gate.jsonl",
        title="answers in round 1 without searching (required: search_code)",
        start="2026-03-06T10:02:31.009Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=_CODE_SYSTEM,
        user=_CODE_USER,
        tools=CODE_TOOLS,
        labels={
            "outcome": "failure",
            "scenario": "final answer before the required tool ran at all",
            "source": "seed 001",
            "note": "hallucinated: the setting is retry_policy in lib/payments/http.py, default 5 attempts",
        },
        expects=[expect("E001", True, 1, "final answer in round 1 while search_code never succeeded -> reject")],
        metadata=_code_meta,
        steps=[Step(_hallucinated, ms=1720)],
        why="Seed 001's 'making things up': the model answers from memory without touching the code. The trace's metadata requires search_code, "
        "so E001 rejects the answer in round 1 and pushes the model back to search.",
    )
)
scenario(
    Scenario(
        trace="seed001_answer_after_failed_search",
        file="seed001_evidence_gate.jsonl",
        title="search_code fails, the model answers anyway",
        start="2026-03-06T10:05:47.362Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=_CODE_SYSTEM,
        user=_CODE_USER,
        tools=CODE_TOOLS,
        labels={
            "outcome": "failure",
            "scenario": "final answer after the required tool failed",
            "source": "seed 001",
            "note": "hallucinated answer",
        },
        expects=[
            expect("E001", True, 2, "the only search_code call failed (is_error) -> the final answer in round 2 is rejected"),
            expect("F001", False, None, "one failure only"),
        ],
        metadata=_code_meta,
        steps=[
            Step("", [Call("search_code", J({"query": "retryPolicy"}),
                           "Error: code search failed: connect ECONNREFUSED 10.12.4.31:7700 (code-index.internal)", error=True, ms=1030)]),
            Step("The code search service is unavailable, but based on common conventions: " + _hallucinated, ms=1910),
        ],
        why="The same hallucination after a failed search: a failed call is not evidence, so E001 rejects the round-2 answer.",
    )
)
scenario(
    Scenario(
        trace="seed001_answer_after_empty_search",
        file="seed001_evidence_gate.jsonl",
        title="search_code succeeds but finds nothing; the model answers anyway",
        start="2026-03-06T10:09:12.580Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=_CODE_SYSTEM,
        user=_CODE_USER,
        tools=CODE_TOOLS,
        labels={
            "outcome": "failure",
            "scenario": "successful but unproductive call: 'No matches found' is not evidence, and not a failure either",
            "source": "seed 001",
            "note": "searched src/ which does not exist in this repo (code is under lib/); the answer is invented",
        },
        expects=[
            expect("E001", True, 2, "search_code succeeded but found nothing (not productive) -> the final answer in round 2 is rejected"),
            expect("F001", False, None, "'No matches found' is a successful, unproductive call, not a failure"),
        ],
        metadata=_code_meta,
        steps=[
            Step("", [Call("search_code", J({"query": "retryPolicy", "path": "src/"}), "No matches found for 'retryPolicy' in 0 files.", ms=540)]),
            Step("There is no `retryPolicy` defined in the codebase, so the HTTP client falls back to the library default of **3 attempts**.", ms=1380),
        ],
        why="Seed 001's productive-vs-succeeded distinction: the search ran fine (no failure, so F001 must not count it) but found nothing, "
        "so it is not evidence and E001 still rejects the answer.",
    )
)


# ----- 9. seed 000: synonym rewrite, same URLs -----------------------------------

SYN_QUERIES = ["天气", "气象", "气温实况"]
_SYN_ITEMS = [WEATHER_CN, TIANQI_HOME, MOJI_HOME]
scenario(
    Scenario(
        trace="seed000_synonym_same_urls",
        file="seed000_synonym_same_urls.jsonl",
        title="天气 → 气象 → 气温实况: synonyms, the same three URLs every time",
        start="2026-03-04T09:58:40.221Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=SEED000_SYSTEM.replace("17:15", "17:58"),
        user="今天天气怎么样？",
        tools=[WEBSEARCH_TOOL],
        labels={
            "outcome": "failure",
            "scenario": "synonym rewrite the query fingerprint misses; the results are the same 3 URLs each time",
            "source": "seed 000 (v2: URL novelty)",
        },
        expects=[
            expect("P002", True, 3, "rounds 2 and 3 return only the 3 URLs of round 1 -> 2 -> stop after round 3's search"),
            expect("P003", True, 3, "the observations of rounds 2 and 3 repeat round 1's almost word for word -> 2 stagnant -> stop"),
            expect("P001", False, None, "P001 misses it: 气象 vs 天气 and 气温实况 vs either share only 气 -> containment 1/2 = 0.50 < 0.8"),
        ],
        metadata={
            "agent": "xiaozhi-home-assistant",
            "framework": "custom ReAct loop (Java, streaming)",
            "max_rounds": 5,
            "user_query": "今天天气怎么样？",
        },
        steps=[
            Step("", [Call("webSearch", J({"query": q}), zh_search_results(q, _SYN_ITEMS), ms=ms)])
            for q, ms in zip(SYN_QUERIES, (4020, 3870, 4260))
        ]
        + [
            Step("抱歉，几次搜索返回的都是天气网站首页，没有今天的具体天气。请告诉我您所在的城市，我再帮您查询。", ms=1540),
        ],
        why="The limit of query fingerprints that seed 000 admits: rewriting with synonyms (天气 → 气象 → 气温实况) keeps the fingerprints apart "
        "(containment 0.50, they share only 气; jieba words share nothing), yet the searches return the same three pages. "
        "P002 (URL novelty) and P003 (observation novelty) stop it after round 3's search; P001 does not fire.",
    )
)


# ----- 10. seed 000: the mixed round ---------------------------------------------

HOME_TOOLS = [
    WEBSEARCH_TOOL,
    tool("queryDeviceStatus", "查询智能家居设备的当前状态。", {"deviceId": {"type": "string"}}),
    tool("setDeviceMode", "设置设备模式（需要用户确认）。", {"deviceId": {"type": "string"}, "mode": {"type": "string"}, "targetTemp": {"type": "number"}}),
]
SH_WEATHER = ("【上海天气】上海天气预报,天气预报一周,天气预报15天查询 - 中国天气网", "https://www.weather.com.cn/weather/101020100.shtml",
              "上海天气预报，及时准确发布中央气象台天气信息，便捷查询上海今日天气，上海周末天气，上海一周天气预报……")
SH_TIANQI15 = ("上海天气预报15天_上海天气预报15天查询 - 天气网", "https://www.tianqi.com/shanghai/15/",
               "上海天气预报15天查询，未来15天上海天气变化趋势，包括气温、降水、风力风向等……")
SH_CMA = ("上海市气象局 - 上海天气", "https://sh.cma.gov.cn/", "上海市气象局官方网站，发布上海天气预报、预警信号与气象服务信息。")
SH_1D = ("上海今天天气 - 中国天气网", "https://www.weather.com.cn/weather1d/101020100.shtml",
         "上海今天多云，最高气温 21℃，最低气温 13℃，东南风 3 级，傍晚前后局部有阵雨……")
SH_2345 = ("上海实时天气 - 2345天气预报", "https://tianqi.2345.com/shanghai/58362.htm", "上海当前 19℃，多云，湿度 64%，东南风 3 级，空气质量良……")
SH_MOJI = ("上海实时天气_上海今日湿度 - 墨迹天气", "https://tianqi.moji.com/weather/china/shanghai/shanghai",
           "上海 多云 19℃，湿度 66%，体感温度 18℃，东南风 3 级，今日 13~21℃……")
_device = JC({"deviceId": "ac-living-room", "name": "客厅空调", "online": True, "power": "off", "mode": "cool", "targetTemp": 26,
              "indoorTemp": 24.5, "indoorHumidity": 68, "lastChangedAt": "2026-03-07T08:02:11+08:00"})
scenario(
    Scenario(
        trace="seed000_mixed_round",
        file="seed000_mixed_round.jsonl",
        title="webSearch + queryDeviceStatus in one round (parallel calls), otherwise healthy",
        start="2026-03-07T11:30:05.846Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=XIAOZHI_RULES + "当前时间：2026-03-07 19:30（北京时间）。用户所在城市：上海。已绑定设备：客厅空调（ac-living-room）、卧室空调（ac-bedroom）、空气净化器（purifier-01）。",
        user="今天上海热不热？客厅空调现在开着吗，要不要开？",
        tools=HOME_TOOLS,
        labels={
            "outcome": "success",
            "scenario": "mixed round: a similar search and a business tool in one parallel batch must be let through",
            "source": "seed 000",
        },
        expects=[
            expect("P001", False, None, "round 2 is similar (count 1); round 3 holds a similar search *and* queryDeviceStatus -> mixed -> let through, not counted; no 2nd pure similar round follows"),
            expect("R001", False, None, "no identical calls"),
        ],
        metadata={
            "agent": "xiaozhi-home-assistant",
            "framework": "custom ReAct loop (Java, streaming)",
            "max_rounds": 5,
            "user_query": "今天上海热不热？客厅空调现在开着吗，要不要开？",
        },
        steps=[
            Step("", [Call("webSearch", J({"query": "上海天气"}), zh_search_results("上海天气", [SH_WEATHER, SH_TIANQI15, SH_CMA]), ms=3720)]),
            Step("", [Call("webSearch", J({"query": "上海今日天气 气温"}), zh_search_results("上海今日天气 气温", [SH_1D, SH_2345]), ms=4080)]),
            Step("我同时查一下湿度和客厅空调的状态。", [
                Call("webSearch", J({"query": "上海今日天气 气温 湿度"}), zh_search_results("上海今日天气 气温 湿度", [SH_MOJI, SH_2345]), ms=3910),
                Call("queryDeviceStatus", J({"deviceId": "ac-living-room"}), _device, ms=412),
            ]),
            Step("今天上海不热：多云，13~21℃，现在室外约 19℃、湿度 66%。\n\n"
                 "客厅空调目前是**关着的**（上次设置为制冷 26℃）。室内 24.5℃、湿度 68%，温度还算舒适，不需要开制冷；"
                 "如果觉得闷，可以开“除湿”模式，需要的话我帮您打开。", ms=2630),
        ],
        why="Seed 000's engineering detail #1: tools run as one batch, so stopping a round that mixes a search with a business tool would also drop the "
        "legitimate device query. Round 2 is a similar search (count 1); round 3 is mixed and must be let through without counting. "
        "An implementation that counted it would stop here at round 3, before queryDeviceStatus ran.",
    )
)


# ----- 11. healthy runs ---------------------------------------------------------

WEB_SEARCH_TOOL = tool("web_search", "Search the web. Returns the top results with title, URL and a content snippet.",
                       {"query": {"type": "string"}, "max_results": {"type": "integer", "default": 5}}, required=["query"])
FETCH_TOOL = tool("fetch_page", "Fetch a web page and return its main text as Markdown.", {"url": {"type": "string"}})

_httpx_r1 = en_search_results("httpx timeout configuration", [
    ("Timeouts - HTTPX", "https://www.python-httpx.org/advanced/timeouts/",
     "HTTPX is careful to enforce timeouts everywhere by default. The default behavior is to raise a TimeoutException after 5 seconds of network inactivity. "
     "You can set timeouts for an individual request, or on a client instance.", 0.92),
    ("python - How to set timeout for httpx AsyncClient? - Stack Overflow", "https://stackoverflow.com/questions/66652695/how-to-set-timeout-for-httpx-asyncclient",
     "Pass timeout=httpx.Timeout(10.0, connect=5.0) when creating the AsyncClient; per-request timeouts override the client default ...", 0.81),
    ("Clients - HTTPX", "https://www.python-httpx.org/advanced/clients/",
     "Using a Client instance gives connection pooling and lets you configure defaults such as headers, cookies and timeouts once ...", 0.74),
], 1.18)
_httpx_page = (
    "# Timeouts\n\n"
    "HTTPX is careful to enforce timeouts everywhere by default.\n\n"
    "The default behavior is to raise a `TimeoutException` after 5 seconds of network inactivity.\n\n"
    "## Setting and disabling timeouts\n\n"
    "```python\n"
    "# Using the top-level API:\n"
    "httpx.get('http://example.com/api/v1/example', timeout=10.0)\n\n"
    "# Using a client instance:\n"
    "with httpx.Client() as client:\n"
    "    client.get(\"http://example.com/api/v1/example\", timeout=10.0)\n"
    "```\n\n"
    "## Fine tuning the configuration\n\n"
    "HTTPX also allows you to specify the timeout behavior in more fine grained detail. There are four different types of timeouts that may occur: "
    "**connect**, **read**, **write** and **pool**.\n\n"
    "- The **connect** timeout specifies the maximum amount of time to wait until a socket connection to the requested host is established. "
    "If HTTPX is unable to connect within this time frame, a `ConnectTimeout` exception is raised.\n"
    "- The **read** timeout specifies the maximum duration to wait for a chunk of data to be received (for example, a chunk of the response body). "
    "If HTTPX is unable to receive data within this time frame, a `ReadTimeout` exception is raised.\n"
    "- The **write** timeout specifies the maximum duration to wait for a chunk of data to be sent. If HTTPX is unable to send data within this time frame, "
    "a `WriteTimeout` exception is raised.\n"
    "- The **pool** timeout specifies the maximum duration to wait for acquiring a connection from the connection pool. If HTTPX is unable to acquire a "
    "connection within this time frame, a `PoolTimeout` exception is raised.\n\n"
    "```python\n"
    "# A client with a 60s timeout for connecting, and a 10s timeout elsewhere.\n"
    "timeout = httpx.Timeout(10.0, connect=60.0)\n"
    "client = httpx.Client(timeout=timeout)\n"
    "```\n"
)
_httpx_r3 = en_search_results("httpx Retry transport", [
    ("Transports - HTTPX", "https://www.python-httpx.org/advanced/transports/",
     "transport = httpx.HTTPTransport(retries=1) ... The retries option only applies to connection failures (httpx.ConnectError and httpx.ConnectTimeout); "
     "it does not retry on read timeouts or on HTTP status codes.", 0.90),
    ("Retry requests · Issue #108 · encode/httpx", "https://github.com/encode/httpx/issues/108",
     "HTTPX deliberately keeps retry behaviour minimal: connection retries live in the transport; for anything else use a library such as tenacity ...", 0.79),
    ("httpx-retries · PyPI", "https://pypi.org/project/httpx-retries/",
     "A retry layer for HTTPX: RetryTransport with configurable total, backoff_factor and status_forcelist, for sync and async clients.", 0.73),
], 1.34)
_httpx_r4 = en_search_results("tenacity retry async example", [
    ("Tenacity — Tenacity documentation", "https://tenacity.readthedocs.io/en/latest/",
     "Tenacity is an Apache 2.0 licensed general-purpose retrying library ... @retry(stop=stop_after_attempt(3), wait=wait_exponential(multiplier=1, min=4, max=10)). "
     "Tenacity also works with asyncio coroutines: decorate an async def and it is awaited between attempts.", 0.93),
    ("python - Retry async function with tenacity - Stack Overflow", "https://stackoverflow.com/questions/70587011/retry-async-function-with-tenacity",
     "Just put @retry on the coroutine; use retry=retry_if_exception_type(httpx.TransportError) and reraise=True so the original exception propagates ...", 0.84),
    ("jd/tenacity: Retrying library for Python - GitHub", "https://github.com/jd/tenacity",
     "Retrying library for Python. Stop conditions, wait strategies (fixed, random, exponential), retry on exceptions or results, async support.", 0.76),
], 0.97)
_httpx_answer = (
    "Use `httpx.Timeout` for the 5 s connect limit and tenacity for the retries — httpx's own `retries=` only retries failed *connections*, "
    "not read timeouts or 5xx responses:\n\n"
    "```python\n"
    "import httpx\n"
    "from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential\n\n"
    "client = httpx.AsyncClient(timeout=httpx.Timeout(10.0, connect=5.0))\n\n"
    "@retry(stop=stop_after_attempt(3), wait=wait_exponential(multiplier=0.5, max=8),\n"
    "       retry=retry_if_exception_type(httpx.TransportError), reraise=True)\n"
    "async def get_json(url: str) -> dict:\n"
    "    resp = await client.get(url)\n"
    "    resp.raise_for_status()\n"
    "    return resp.json()\n"
    "```\n\n"
    "This makes at most 3 attempts with exponential backoff and re-raises the last error."
)
PROGRESSIVE = scenario(
    Scenario(
        trace="healthy_progressive_search",
        file="healthy_progressive_search.jsonl",
        title="researching httpx timeouts and retries: each search genuinely new",
        start="2026-03-09T13:44:21.337Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "You are a senior Python engineer on the platform team, helping teammates with library questions.\n\n"
            "- Search the web and read the official documentation before answering; prefer docs over blog posts.\n"
            "- Answer with a short explanation and one complete, runnable code example.\n"
            "- Target Python 3.11 and the library versions pinned in our lockfile (httpx 0.28, tenacity 9).\n"
            "- Point out pitfalls (what a setting does not cover) in one sentence."
        ),
        user="Our service uses httpx.AsyncClient. How do I set a 5 s connect timeout and retry failed requests up to 3 times with backoff?",
        tools=[WEB_SEARCH_TOOL, FETCH_TOOL],
        labels={"outcome": "success", "scenario": "progressive search: three different questions, different URLs", "source": "healthy"},
        expects=[
            expect("P001", False, None, "fingerprints share at most one word (httpx / retry): containment 0.33"),
            expect("P002", False, None, "every search returns new URLs"),
            expect("P003", False, None, "every observation is new information"),
            expect("R001", False, None),
            expect("E001", False, None, "required_any_of [web_search, fetch_page] succeeded productively before the answer"),
        ],
        metadata={
            "agent": "eng-helper",
            "framework": "LangGraph create_react_agent",
            "required_any_of": ["web_search", "fetch_page"],
            "user_query": "Our service uses httpx.AsyncClient. How do I set a 5 s connect timeout and retry failed requests up to 3 times with backoff?",
        },
        steps=[
            Step("", [Call("web_search", J({"query": "httpx timeout configuration"}), _httpx_r1, ms=1290)]),
            Step("", [Call("fetch_page", J({"url": "https://www.python-httpx.org/advanced/timeouts/"}), _httpx_page, ms=1120)]),
            Step("Timeouts are clear. Now the retry side: does httpx have built-in retries?",
                 [Call("web_search", J({"query": "httpx Retry transport"}), _httpx_r3, ms=1460)]),
            Step("", [Call("web_search", J({"query": "tenacity retry async example"}), _httpx_r4, ms=1080)]),
            Step(_httpx_answer, out=178, ms=3480),
        ],
        why="A search sequence that is progress, not a loop: timeouts, then httpx's transport retries, then tenacity. No two queries share more than one word, "
        "every search brings new URLs, and a non-search round (fetch_page) sits in between. No guard should fire.",
    )
)

ORDERS_TOOL = tool(
    "list_orders",
    "List orders matching filters, 5 per page, newest shipment last.",
    {"country": {"type": "string"}, "status": {"type": "string"}, "shipped_from": {"type": "string", "format": "date"},
     "shipped_to": {"type": "string", "format": "date"}, "page": {"type": "integer", "minimum": 1}},
)
_ORDERS = [
    ("SO-2026-004811", "Müller Maschinenbau GmbH", "Stuttgart", "2026-02-23", 1249.00, "DHL"),
    ("SO-2026-004818", "Schneider & Koch KG", "Köln", "2026-02-23", 389.50, "DPD"),
    ("SO-2026-004826", "Bäckerei Hoffmann", "Leipzig", "2026-02-24", 74.90, "DHL"),
    ("SO-2026-004830", "Weber Logistik GmbH", "Hamburg", "2026-02-24", 2310.00, "DB Schenker"),
    ("SO-2026-004837", "Fischer Medizintechnik AG", "München", "2026-02-24", 915.25, "UPS"),
    ("SO-2026-004845", "Becker IT-Service", "Frankfurt am Main", "2026-02-25", 158.00, "DHL"),
    ("SO-2026-004851", "Wagner Elektro GmbH", "Dortmund", "2026-02-25", 642.80, "DPD"),
    ("SO-2026-004859", "Zimmermann Design Studio", "Berlin", "2026-02-26", 219.99, "DHL"),
    ("SO-2026-004862", "Krüger Agrar eG", "Hannover", "2026-02-26", 1780.40, "DB Schenker"),
    ("SO-2026-004870", "Hartmann Optik", "Nürnberg", "2026-02-27", 96.50, "UPS"),
    ("SO-2026-004874", "Lange Bau GmbH", "Dresden", "2026-02-27", 3105.00, "DB Schenker"),
    ("SO-2026-004881", "Schmitt Feinkost", "Mainz", "2026-02-28", 128.70, "DHL"),
    ("SO-2026-004889", "Braun Sportartikel", "Freiburg im Breisgau", "2026-03-01", 455.35, "DPD"),
]


def orders_page(page: int) -> str:
    rows = _ORDERS[(page - 1) * 5 : page * 5]
    return JC(
        {
            "page": page,
            "page_size": 5,
            "total": len(_ORDERS),
            "has_more": page * 5 < len(_ORDERS),
            "orders": [
                {"order_id": o, "customer": c, "city": city, "shipped_at": d, "total_eur": t, "carrier": car}
                for (o, c, city, d, t, car) in rows
            ],
        }
    )


def orders_args(page: int) -> str:
    return J({"country": "DE", "status": "shipped", "shipped_from": "2026-02-23", "shipped_to": "2026-03-01", "page": page})


_orders_total = round(sum(o[4] for o in _ORDERS), 2)
_biggest = max(_ORDERS, key=lambda o: o[4])
scenario(
    Scenario(
        trace="healthy_pagination",
        file="healthy_pagination.jsonl",
        title="list_orders pages 1, 2, 3: same tool, different arguments and results",
        start="2026-03-02T15:12:08.950Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=(
            "You are the sales-ops assistant for Acme Commerce EU. You have read access to the order system through list_orders.\n"
            "- Weeks run Monday to Sunday; 'last week' means the previous full week.\n"
            "- Amounts are in EUR, gross. Report totals with two decimals.\n"
            "- Results are paginated: keep reading pages while has_more is true before you answer.\n"
            "Today is Monday 2026-03-02."
        ),
        user="Which orders did we ship to Germany last week, and what was their total value?",
        tools=[ORDERS_TOOL],
        labels={"outcome": "success", "scenario": "pagination: list_orders page 1, 2, 3", "source": "healthy"},
        expects=[
            expect("R001", False, None, "the page number changes every call"),
            expect("P001", False, None, "no search tool"),
            expect("P003", False, None, "each page lists different orders"),
            expect("F001", False, None),
        ],
        metadata={
            "agent": "sales-ops",
            "framework": "OpenAI Agents SDK",
            "user_query": "Which orders did we ship to Germany last week, and what was their total value?",
        },
        steps=[
            Step("", [Call("list_orders", orders_args(1), orders_page(1))]),
            Step("", [Call("list_orders", orders_args(2), orders_page(2))]),
            Step("", [Call("list_orders", orders_args(3), orders_page(3))]),
            Step(
                f"We shipped **{len(_ORDERS)} orders to Germany** last week (Mon 2026-02-23 – Sun 2026-03-01), "
                f"worth **€{_orders_total:,.2f}** in total.\n\n"
                f"The largest was {_biggest[0]} for {_biggest[1]} ({_biggest[2]}, €{_biggest[4]:,.2f}); "
                "the smallest SO-2026-004826 for Bäckerei Hoffmann (€74.90). By carrier: DHL 5, DPD 3, DB Schenker 3, UPS 2.",
                ms=2510,
            ),
        ],
        why="The legitimate repetition every identical-call or similarity guard must leave alone: the same tool three times with the page number "
        "changing and different rows coming back.",
    )
)

TEST_TOOLS = [
    tool("run_tests", "Run pytest on a path inside the repository and return its output and exit code.", {"path": {"type": "string"}}),
    tool("read_file", "Read a file from the repository.", {"path": {"type": "string"}}),
    tool("edit_file", "Replace an exact snippet of a file with new text.", {"path": {"type": "string"}, "old_str": {"type": "string"}, "new_str": {"type": "string"}}),
]
_PYTEST_HEAD = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.9, pytest-8.3.4, pluggy-1.5.0\n"
    "rootdir: /workspace/shop\n"
    "configfile: pyproject.toml\n"
    "collected 6 items\n\n"
)
_pytest_1 = _PYTEST_HEAD + (
    "tests/test_pricing.py ..F.F.                                             [100%]\n\n"
    "=================================== FAILURES ===================================\n"
    "____________________________ test_discount_rounding ____________________________\n\n"
    "    def test_discount_rounding():\n"
    ">       assert apply_discount(Decimal(\"19.99\"), percent=50) == Decimal(\"10.00\")\n"
    "E       AssertionError: assert Decimal('9.995') == Decimal('10.00')\n"
    "E        +  where Decimal('9.995') = apply_discount(Decimal('19.99'), percent=50)\n\n"
    "tests/test_pricing.py:21: AssertionError\n"
    "____________________________ test_bulk_discount_cap ____________________________\n\n"
    "    def test_bulk_discount_cap():\n"
    ">       assert apply_discount(Decimal(\"200.00\"), percent=45, bulk=True) == Decimal(\"140.00\")\n"
    "E       AssertionError: assert Decimal('110.000') == Decimal('140.00')\n"
    "E        +  where Decimal('110.000') = apply_discount(Decimal('200.00'), percent=45, bulk=True)\n\n"
    "tests/test_pricing.py:33: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_pricing.py::test_discount_rounding - AssertionError: assert Decimal('9.995') == Decimal('10.00')\n"
    "FAILED tests/test_pricing.py::test_bulk_discount_cap - AssertionError: assert Decimal('110.000') == Decimal('140.00')\n"
    "========================= 2 failed, 4 passed in 0.43s ==========================\n"
    "[exit code: 1]"
)
_pricing_src = (
    "from decimal import Decimal, ROUND_HALF_UP\n\n"
    "BULK_CAP = 0.30  # bulk orders: discount capped at 30 %\n\n\n"
    "def apply_discount(price: Decimal, percent: int, bulk: bool = False) -> Decimal:\n"
    "    \"\"\"Price after a percentage discount, rounded to cents.\"\"\"\n"
    "    rate = Decimal(percent) / 100\n"
    "    if bulk:\n"
    "        rate = max(rate, BULK_CAP)\n"
    "    return price * (1 - rate)\n"
)
_pytest_2 = _PYTEST_HEAD + (
    "tests/test_pricing.py ....F.                                             [100%]\n\n"
    "=================================== FAILURES ===================================\n"
    "____________________________ test_bulk_discount_cap ____________________________\n\n"
    "    def test_bulk_discount_cap():\n"
    ">       assert apply_discount(Decimal(\"200.00\"), percent=45, bulk=True) == Decimal(\"140.00\")\n\n"
    "tests/test_pricing.py:33: \n"
    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n"
    "    def apply_discount(price: Decimal, percent: int, bulk: bool = False) -> Decimal:\n"
    "        rate = Decimal(percent) / 100\n"
    "        if bulk:\n"
    ">           rate = min(rate, BULK_CAP)\n"
    "E           TypeError: '<' not supported between instances of 'float' and 'decimal.Decimal'\n\n"
    "src/shop/pricing.py:10: TypeError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_pricing.py::test_bulk_discount_cap - TypeError: '<' not supported between instances of 'float' and 'decimal.Decimal'\n"
    "========================= 1 failed, 5 passed in 0.39s ==========================\n"
    "[exit code: 1]"
)
_pytest_3 = _PYTEST_HEAD + (
    "tests/test_pricing.py ......                                             [100%]\n\n"
    "============================== 6 passed in 0.36s ===============================\n"
    "[exit code: 0]"
)
_edit_1 = J({
    "path": "src/shop/pricing.py",
    "old_str": "    if bulk:\n        rate = max(rate, BULK_CAP)\n    return price * (1 - rate)\n",
    "new_str": "    if bulk:\n        rate = min(rate, BULK_CAP)\n    return (price * (1 - rate)).quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)\n",
})
_edit_2 = J({
    "path": "src/shop/pricing.py",
    "old_str": "BULK_CAP = 0.30  # bulk orders: discount capped at 30 %",
    "new_str": "BULK_CAP = Decimal(\"0.30\")  # bulk orders: discount capped at 30 %",
})
_tests = J({"path": "tests/test_pricing.py"})
scenario(
    Scenario(
        trace="healthy_fix_and_retest",
        file="healthy_fix_and_retest.jsonl",
        title="run_tests fails -> edit -> fails differently -> edit -> passes",
        start="2026-03-10T07:26:55.104Z",
        model="gpt-4.1-2025-04-14",
        request_model="gpt-4.1",
        system=(
            "You are a coding agent working in the repository at /workspace/shop (Python 3.11, pytest).\n\n"
            "Workflow: reproduce the failure with run_tests, read the relevant code, make the smallest change that fixes the cause "
            "(never edit the tests to make them pass), then re-run the tests until they pass. Use edit_file with an exact old_str. "
            "When done, summarise the root cause and the change in a few bullet points."
        ),
        user="tests/test_pricing.py is failing on main — please fix it.",
        tools=TEST_TOOLS,
        labels={"outcome": "success", "scenario": "fix-and-retest cycle: the same test command three times with edits in between", "source": "healthy"},
        expects=[
            expect("R001", False, None, "the identical run_tests calls are never consecutive: an edit sits between them"),
            expect("F001", False, None, "test failures are tool output, not tool errors"),
            expect("P003", False, None, "each test run reports something new (2 failures -> a different TypeError -> all pass)"),
            expect("E001", False, None, "required run_tests succeeded before the answer"),
        ],
        metadata={
            "agent": "swe-agent-lite",
            "framework": "custom tool-calling loop",
            "required_tools": ["run_tests"],
            "user_query": "tests/test_pricing.py is failing on main — please fix it.",
        },
        steps=[
            Step("", [Call("run_tests", _tests, _pytest_1, ms=5210)]),
            Step("", [Call("read_file", J({"path": "src/shop/pricing.py"}), _pricing_src)]),
            Step("Two bugs: the result is never rounded to cents, and the bulk cap uses max() where it should use min().",
                 [Call("edit_file", _edit_1, "Applied 1 edit to src/shop/pricing.py (+2 -2)")]),
            Step("", [Call("run_tests", _tests, _pytest_2, ms=4870)]),
            Step("BULK_CAP is a float, so comparing it with a Decimal fails. Making it a Decimal.",
                 [Call("edit_file", _edit_2, "Applied 1 edit to src/shop/pricing.py (+1 -1)")]),
            Step("", [Call("run_tests", _tests, _pytest_3, ms=4640)]),
            Step("Fixed `src/shop/pricing.py`; all 6 tests in `tests/test_pricing.py` pass now.\n\n"
                 "1. **Rounding:** `apply_discount` now quantizes to cents with `ROUND_HALF_UP` (19.99 at 50 % → 10.00, not 9.995).\n"
                 "2. **Bulk cap:** the cap used `max()`, which *raised* small discounts to 30 % and let big ones through; it is `min()` now, "
                 "so 45 % on a bulk order is capped at 30 % (200.00 → 140.00).\n"
                 "3. `BULK_CAP` is a `Decimal(\"0.30\")` so it compares with the Decimal rate.", ms=3120),
        ],
        why="A coding loop that repeats the same call on purpose: run_tests with identical arguments three times, with edits in between and a different "
        "outcome each time. No repetition guard should fire. Note: R002 (seed 001's cache) would block the 2nd and 3rd test runs as "
        "'identical to an earlier successful call' — it cannot know the edit changed the world; P004 compares results and does not.",
    )
)


# ----- 12. alternating A-B-A-B loop -----------------------------------------------

BROWSER_TOOLS = [
    tool("open_page", "Open a URL in the browser and return the visible viewport as text.", {"url": {"type": "string"}}),
    tool("scroll_down", "Scroll the current page down by one viewport and return the newly visible text.", {}),
]
_PRICING_URL = "https://www.fluxboard.io/pricing"
_viewport1 = (
    "[page] Pricing — Fluxboard\n"
    f"URL: {_PRICING_URL}\n"
    "Viewport 1/4 (scrollY=0)\n\n"
    "Fluxboard   Product ▾   Solutions ▾   Pricing   Docs   Sign in   [Start free trial]\n\n"
    "Simple pricing for teams of every size\n"
    "( ) Monthly   (•) Annual — save 20%\n\n"
    "┌ Free ─────────────────────┐ ┌ Team ─────────────────────┐\n"
    "│ $0                         │ │ $8 per seat / month       │\n"
    "│ Up to 3 boards, 2 members  │ │ billed annually            │\n"
    "│ Community support          │ │ Unlimited boards, guests   │\n"
    "│ [Get started]              │ │ [Start free trial]         │\n"
    "└────────────────────────────┘ └────────────────────────────┘\n\n"
    "Need SSO, audit logs or a dedicated success manager? See Pro and Enterprise below ↓\n"
)
_viewport2 = (
    "[page] Pricing — Fluxboard\n"
    f"URL: {_PRICING_URL}\n"
    "Viewport 2/4 (scrollY=900)\n\n"
    "Trusted by 12,000+ teams — Northwind · Globex · Initech · Umbrella Health\n\n"
    "“Fluxboard replaced three tools for our operations team.” — Dana K., Head of Ops, Northwind\n\n"
    "Team plan includes: unlimited boards · guest access · 10 GB storage per seat · Slack, GitHub and Jira integrations\n\n"
    "[ Pro and Enterprise plans ]\n"
    "  ⟳ Loading plans…\n"
)
scenario(
    Scenario(
        trace="alternating_ab_loop",
        file="alternating_ab_loop.jsonl",
        title="open_page / scroll_down, same arguments, 4 laps, no answer",
        start="2026-03-10T16:48:13.492Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "You are a web research agent with a text browser. open_page loads a URL and shows the first viewport; scroll_down shows the next one. "
            "Pages may load content lazily.\n\n"
            "Find the requested information on the page itself, report prices exactly as shown (currency, billing period, per seat or flat), "
            "and include the URL you read them from."
        ),
        user="What does Fluxboard's Pro plan cost per seat, billed annually?",
        tools=BROWSER_TOOLS,
        labels={
            "outcome": "failure",
            "scenario": "A-B-A-B loop: open_page(url) / scroll_down() with the same results, 4 laps, iteration limit",
            "source": "seed 004 (alternating loops are its stated blind spot)",
            "note": "the Pro card loads lazily; the agent re-opened the page instead of scrolling further",
        },
        expects=[
            expect("R001", False, None, "no two consecutive calls are identical (A, B, A, B, ...): seed 004's streak cannot see an alternation"),
            expect("R002", True, 3, "round 3 repeats round 1's successful open_page with the same raw arguments -> block"),
            expect("F001", False, None),
        ],
        metadata={
            "agent": "web-researcher",
            "framework": "LangGraph create_react_agent",
            "max_iterations": 8,
            "user_query": "What does Fluxboard's Pro plan cost per seat, billed annually?",
        },
        steps=[
            step
            for lap in range(4)
            for step in (
                Step({0: "I'll open the pricing page.", 1: "The Pro and Enterprise plans are still loading. Let me reload the page."}.get(lap, ""),
                     [Call("open_page", J({"url": _PRICING_URL}), _viewport1)]),
                Step("The Pro plan is further down. Scrolling." if lap == 0 else "",
                     [Call("scroll_down", "{}", _viewport2)]),
            )
        ],
        end_error="Agent stopped due to iteration limit or time limit.",
        why="Seed 004's acknowledged blind spot: an alternation A, B, A, B never produces two identical consecutive calls, so R001 never fires. "
        "It runs until the iteration limit, with no answer. What does catch it: R002's cache (round 3 repeats round 1), a token budget "
        "(B002, see the cumulative tokens below), and the cycle detectors of other agents (R003).",
    )
)


# ----- 13. English search loops ---------------------------------------------------

EN_QUERIES = ["weather Beijing", "Beijing weather today temperature", "Beijing weather today temperature rain",
              "Beijing weather today temperature rain forecast hourly"]
ACCU_FC = ("Beijing, Beijing, China Weather Forecast | AccuWeather", "https://www.accuweather.com/en/cn/beijing/101924/weather-forecast/101924")
TAD = ("Weather for Beijing, Beijing Municipality, China - timeanddate.com", "https://www.timeanddate.com/weather/china/beijing")
CHIHL = ("Beijing Weather Forecast & Best Time to Visit | China Highlights", "https://www.chinahighlights.com/beijing/weather.htm")
ACCU_CUR = ("Beijing, Beijing, China Current Weather | AccuWeather", "https://www.accuweather.com/en/cn/beijing/101924/current-weather/101924")
WSPARK = ("Beijing Climate, Weather By Month, Average Temperature (China) - Weather Spark", "https://weatherspark.com/y/131055/Average-Weather-in-Beijing-China-Year-Round")
ACCU_DAILY = ("Beijing, Beijing, China Daily Weather | AccuWeather", "https://www.accuweather.com/en/cn/beijing/101924/daily-weather-forecast/101924")
WUND = ("Beijing, China 10-Day Weather Forecast - Weather Underground", "https://www.wunderground.com/forecast/cn/beijing")
TAD_HOURLY = ("Hourly Weather Forecast for Beijing, Beijing Municipality, China - timeanddate.com", "https://www.timeanddate.com/weather/china/beijing/hourly")
ACCU_HOURLY = ("Beijing, Beijing, China Hourly Weather | AccuWeather", "https://www.accuweather.com/en/cn/beijing/101924/hourly-weather-forecast/101924")

_en_rounds = [
    [(*ACCU_FC, "Beijing, Beijing, China Weather Forecast, with current conditions, wind, air quality, and what to expect for the next 3 days.", 0.83),
     (*TAD, "Current weather in Beijing and forecast for today, tomorrow, and next 14 days.", 0.80),
     (*CHIHL, "Beijing has a continental monsoon climate with four distinct seasons: a short spring, hot and humid summers, a cool autumn and cold, dry winters.", 0.64)],
    [(*ACCU_CUR, "Current weather in Beijing, Beijing, China. Check current conditions in Beijing, Beijing, China with radar, hourly, and more.", 0.86),
     (*TAD, "Current weather in Beijing and forecast for today, tomorrow, and next 14 days.", 0.79),
     (*WSPARK, "In Beijing, the summers are long, hot, humid, wet, and mostly cloudy and the winters are short, very cold, windy, dry, and clear.", 0.61)],
    [(*ACCU_DAILY, "Know what's coming with AccuWeather's extended daily forecasts for Beijing, Beijing, China. Up to 90 days of daily highs, lows, and precipitation chances.", 0.84),
     (*WUND, "Beijing Weather Forecasts. Weather Underground provides local & long-range weather forecasts, weather reports, maps & tropical weather conditions for the Beijing area.", 0.78),
     (*WSPARK, "In Beijing, the summers are long, hot, humid, wet, and mostly cloudy and the winters are short, very cold, windy, dry, and clear.", 0.60)],
    [(*TAD_HOURLY, "Hour-by-hour weather forecast for Beijing: temperature, chance of precipitation, wind and humidity for the next 24 hours.", 0.88),
     (*ACCU_HOURLY, "Hourly weather forecast in Beijing, Beijing, China. Check current conditions in Beijing, Beijing, China with radar, hourly, and more.", 0.85)],
]
_en_search_secs = [1.62, 1.41, 1.87, 1.55]
scenario(
    Scenario(
        trace="seed000_weather_loop_en",
        file="seed000_weather_loop_en.jsonl",
        title="weather Beijing → Beijing weather today temperature → … rain → … hourly",
        start="2026-03-11T08:05:36.719Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=(
            "You are the travel assistant of a trip-planning app. Users ask about destinations, weather, opening hours and transport.\n"
            "- Use web_search for anything time-sensitive (weather, events, prices); cite the source URL.\n"
            "- Be concise: at most 3 sentences unless the user asks for details.\n"
            "- Temperatures in °C, with °F in brackets for US users.\n"
            "Today is 2026-03-11."
        ),
        user="What's the weather in Beijing today? Will it rain?",
        tools=[WEB_SEARCH_TOOL],
        labels={"outcome": "failure", "scenario": "English similar-query search loop (words added round after round)", "source": "seed 000"},
        expects=[
            expect("P001", True, 3, "round 2 contains both words of round 1 (2/2 = 1.00) -> 1; round 3 contains all 4 words of round 2 (4/4 = 1.00) -> 2 -> stop"),
            expect("P002", False, None, "each round brings new (irrelevant) URLs"),
        ],
        metadata={"agent": "trip-planner", "framework": "OpenAI Agents SDK", "max_turns": 6,
                  "user_query": "What's the weather in Beijing today? Will it rain?"},
        steps=[
            Step("" if k != 2 else "The results are forecast portals without today's numbers. Adding 'rain' to the query.",
                 [Call("web_search", J({"query": q}), en_search_results(q, items, secs), ms=int(secs * 1000) + 180)])
            for k, (q, items, secs) in enumerate(zip(EN_QUERIES, _en_rounds, _en_search_secs))
        ]
        + [Step("I couldn't get today's figures for Beijing from the search results — they only link to forecast pages. "
                "For today's temperature and rain chance, check the hourly forecast at https://www.timeanddate.com/weather/china/beijing/hourly.", ms=1690)],
        why="Seed 000's loop in English: whitespace words instead of characters. Every query keeps all the words of the one before and adds one or two.",
    )
)

_syn_en_queries = ["weather Beijing", "Peking forecast", "meteorological conditions in the capital of China"]
_syn_en_snippets = [
    ["Beijing, Beijing, China Weather Forecast, with current conditions, wind, air quality, and what to expect for the next 3 days.",
     "Current weather in Beijing and forecast for today, tomorrow, and next 14 days.",
     "Beijing Weather Forecasts. Weather Underground provides local & long-range weather forecasts, weather reports, maps & tropical weather conditions for the Beijing area."],
    ["Beijing (Peking) weather forecast with current conditions, wind, air quality, and what to expect for the next 3 days.",
     "Forecast for Beijing (formerly Peking) for today, tomorrow, and next 14 days.",
     "Beijing 10-day forecast: highs, lows and chance of precipitation. Weather Underground provides local & long-range weather forecasts for the Beijing area."],
    ["Current conditions in Beijing, the capital of China: temperature, wind, air quality, and what to expect for the next 3 days.",
     "Current meteorological conditions in Beijing and forecast for today, tomorrow, and next 14 days.",
     "Beijing conditions and forecasts. Weather Underground provides local & long-range weather forecasts, weather reports and maps for the Beijing area."],
]
scenario(
    Scenario(
        trace="seed000_synonym_same_urls_en",
        file="seed000_synonym_same_urls_en.jsonl",
        title="weather Beijing → Peking forecast → meteorological conditions in the capital of China (same URLs)",
        start="2026-03-11T08:12:02.268Z",
        model="gpt-4o-mini-2024-07-18",
        request_model="gpt-4o-mini",
        system=(
            "You are the travel assistant of a trip-planning app. Users ask about destinations, weather, opening hours and transport.\n"
            "- Use web_search for anything time-sensitive (weather, events, prices); cite the source URL.\n"
            "- Be concise: at most 3 sentences unless the user asks for details.\n"
            "- Temperatures in °C, with °F in brackets for US users.\n"
            "Today is 2026-03-11."
        ),
        user="What's the weather in Beijing today? Will it rain?",
        tools=[WEB_SEARCH_TOOL],
        labels={"outcome": "failure", "scenario": "English synonym rewrite: no shared words, the same 3 URLs every time", "source": "seed 000 (v2: URL novelty)"},
        expects=[
            expect("P002", True, 3, "rounds 2 and 3 return only round 1's three URLs -> 2 -> stop after round 3's search"),
            expect("P003", True, 3, "same titles and URLs, snippets reworded a little: rounds 2 and 3 bring no new information -> 2 stagnant -> stop"),
            expect("P001", False, None, "the three queries share no word at all: containment 0.00"),
        ],
        metadata={"agent": "trip-planner", "framework": "OpenAI Agents SDK", "max_turns": 6,
                  "user_query": "What's the weather in Beijing today? Will it rain?"},
        steps=[
            Step("", [Call("web_search", J({"query": q}),
                           en_search_results(q, [(*ACCU_FC, snips[0], 0.84), (*TAD, snips[1], 0.81), (*WUND, snips[2], 0.77)], secs),
                           ms=int(secs * 1000) + 160)])
            for q, snips, secs in zip(_syn_en_queries, _syn_en_snippets, (1.48, 1.73, 1.36))
        ]
        + [Step("The search results only point to general forecast pages for Beijing, without today's numbers. "
                "Please check https://www.accuweather.com/en/cn/beijing/101924/weather-forecast/101924 for today's temperature and chance of rain.", ms=1520)],
        why="The English synonym rewrite: the words change completely, the search engine does not. The snippets are query-dependent (so the text "
        "of each observation differs a little), but the URLs are the same three every time.",
    )
)


# ----- 14. a τ-bench-style customer-service dialogue: five turns, one stuck ---------

TAU_RETAIL_TOOLS = [
    tool("find_user_id_by_email", "Find user id by email. If the user is not found, the function will return an error message.",
         {"email": {"type": "string", "description": "The email of the user, such as 'something@example.com'."}}),
    tool("get_user_details", "Get the details of a user, including their orders.",
         {"user_id": {"type": "string", "description": "The user id, such as 'sara_doe_496'."}}),
    tool("get_order_details", "Get the status and details of an order.",
         {"order_id": {"type": "string", "description": "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id."}}),
    tool("cancel_pending_order",
         "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the "
         "cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be "
         "changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if "
         "the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the "
         "order details after the cancellation.",
         {"order_id": {"type": "string", "description": "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id."},
          "reason": {"type": "string", "enum": ["no longer needed", "ordered by mistake"], "description": "The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'."}}),
]
_TAU_ADDRESS = {"address1": "763 Broadway", "address2": "Suite 135", "city": "Philadelphia", "country": "USA", "state": "PA", "zip": "19122"}
_TAU_USER = {
    "name": {"first_name": "Yusuf", "last_name": "Rossi"},
    "address": _TAU_ADDRESS,
    "email": "yusuf.rossi7301@example.com",
    "payment_methods": {"credit_card_9513926": {"source": "credit_card", "brand": "mastercard", "last_four": "2478", "id": "credit_card_9513926"}},
    "orders": ["#W2378156", "#W4817420"],
}
_TAU_ORDER = {
    "order_id": "#W4817420",
    "user_id": "yusuf_rossi_9620",
    "address": _TAU_ADDRESS,
    "items": [{"name": "Bluetooth Speaker", "product_id": "4768869376", "item_id": "6704763132", "price": 305.45,
               "options": {"color": "blue", "battery life": "10 hours", "water resistance": "no"}}],
    "fulfillments": [],
    "status": "pending",
    "payment_history": [{"transaction_type": "payment", "amount": 305.45, "payment_method_id": "credit_card_9513926"}],
}
_TAU_CANCELLED = dict(
    _TAU_ORDER,
    status="cancelled",
    cancel_reason="no longer needed",
    payment_history=_TAU_ORDER["payment_history"] + [{"transaction_type": "refund", "amount": 305.45, "payment_method_id": "credit_card_9513926"}],
)
_TAU_NO_HASH = J({"order_id": "W4817420"})


def tau_metadata(domain: str, user_query: str) -> dict:
    return {"agent": f"tool-calling agent (τ-bench {domain})", "framework": "τ-bench-style harness, simulated user",
            "domain": domain, "user_query": user_query}


_TAU_OPENER = "Hi! I'd like to check on an order I placed last week. My email is yusuf.rossi7301@example.com."
scenario(
    Scenario(
        trace="tau_retail_order_lookup_loop",
        file="tau_retail_order_lookup_loop.jsonl",
        title="τ-bench-style retail dialogue, 5 turns: the agent looks up 'W4817420' without its '#' four times in turn 2",
        start="2026-03-12T16:20:05.118Z",
        model="gpt-4o-2024-08-06",
        request_model="gpt-4o",
        system=(
            "# Retail agent policy\n"
            "As a retail agent, you can help users cancel or modify pending orders, return or exchange delivered orders, modify their default "
            "user address, or provide information about their own profile, orders, and related products.\n"
            "- At the beginning of the conversation, you have to authenticate the user identity by locating their user id via email, or via "
            "name + zip code. This has to be done even when the user already provides the user id.\n"
            "- Before taking consequential actions that update the database (cancel, modify, return, exchange), you have to list the action "
            "detail and obtain explicit user confirmation (yes) to proceed.\n"
            "- You should only make one tool call at a time, and if you make a tool call, you should not respond to the user at the same time.\n"
            "- An order can only be cancelled if its status is 'pending', and you should check its status before taking the action."
        ),
        user=_TAU_OPENER,
        tools=TAU_RETAIL_TOOLS,
        labels={
            "outcome": "success",
            "scenario": "customer-service dialogue: in turn 2 the agent repeats a failing order lookup (the id without its '#') four times",
            "source": "τ-bench-style dialogue (retail)",
            "reward": "1.0",
            "note": "the order is cancelled as the user asked in turn 4 and confirmed in turn 5: the task is solved despite the stuck turn",
        },
        expects=[
            expect("R001", True, 6, "turn 2: the 2nd identical get_order_details (round 5) -> hint; the 3rd (round 6) -> stop before it runs; "
                   "the stop ends turn 2 only, turns 3-5 happen as recorded"),
            expect("F001", True, 6, "turn 2: get_order_details fails 3 times in a row (rounds 4-6) -> abort, when F001 runs alone"),
            expect("R002", False, None, "failed calls are not cached, and the one successful lookup (turn 3, with the '#') is never repeated"),
        ],
        metadata=tau_metadata("retail", _TAU_OPENER),
        steps=[
            Step("", [Call("find_user_id_by_email", J({"email": "yusuf.rossi7301@example.com"}), "yusuf_rossi_9620")], user=_TAU_OPENER),
            Step("", [Call("get_user_details", J({"user_id": "yusuf_rossi_9620"}), J(_TAU_USER))]),
            Step("Thank you, Yusuf. I've verified your account. I can see two orders: #W2378156 and #W4817420. Which one would you like me to check?"),
            Step("", [Call("get_order_details", _TAU_NO_HASH, "Error: order not found", error=True)],
                 user="The second one, W4817420. It still hasn't arrived."),
            Step("", [Call("get_order_details", _TAU_NO_HASH, "Error: order not found", error=True)]),
            Step("", [Call("get_order_details", _TAU_NO_HASH, "Error: order not found", error=True)]),
            Step("", [Call("get_order_details", _TAU_NO_HASH, "Error: order not found", error=True)]),
            Step("I'm sorry, I couldn't find order W4817420 in our system. Could you double-check the order number in your confirmation email?"),
            Step("", [Call("get_order_details", J({"order_id": "#W4817420"}), J(_TAU_ORDER))],
                 user="It's #W4817420, with the hash, exactly as in my confirmation email."),
            Step("Found it: order #W4817420 (1 × Bluetooth Speaker, blue, $305.45) is still pending: it has not shipped yet, which is why it "
                 "hasn't arrived. Would you like to keep waiting for it, or shall I cancel it?"),
            Step("To confirm, I will cancel order #W4817420 (Bluetooth Speaker, $305.45) for the reason 'no longer needed'. The $305.45 will be "
                 "refunded to your Mastercard ending in 2478 within 5-7 business days. Shall I proceed (yes/no)?",
                 user="Please cancel it then, I don't need it anymore."),
            Step("", [Call("cancel_pending_order", J({"order_id": "#W4817420", "reason": "no longer needed"}), J(_TAU_CANCELLED))], user="Yes."),
            Step("Done: order #W4817420 is cancelled, and $305.45 will be back on your Mastercard ending in 2478 within 5-7 business days. "
                 "Is there anything else I can help you with?"),
        ],
        closing="No, that's all. Thanks! ###STOP###",
        why="A τ-bench-style customer-service conversation (retail domain, simulated user), written in tracecheck's native format with one `user` "
        "event per message of the customer. Five turns: the agent authenticates the customer and lists the orders; then, asked about "
        "\"W4817420\", it calls get_order_details without the '#' the tool's description asks for, gets `Error: order not found`, and repeats "
        "the identical call three more times before asking the customer to check the number; the customer gives it with the '#', the order is "
        "pending, and the customer has it cancelled after confirming. The loop guards start afresh at each turn: R001 stops turn 2 before "
        "round 6's lookup runs, which saves the rest of that turn only (rounds 7 and 8, less one forced reply); turns 3-5 happen as recorded.",
    )
)


# ----- 15. SWE-agent-shaped coding runs ---------------------------------------------
#
# SWE-agent (function-calling config): the model's thought is the round's text, every
# action is one tool call, the observation is the text SWE-agent shows the model. SWE-agent
# records no error flag (the native result has no ``is_error``): the guards judge the text.
# A run ends at ``submit`` (whose observation is the diff), or with an exit status when a
# limit is hit.

SWE_BASH = tool("bash", "Run a command in the bash shell of the task container and return what it printed (stdout and stderr). "
                "The shell persists between calls; commands must not be interactive.",
                {"command": {"type": "string", "description": "The command to run."}})
SWE_EDITOR = tool(
    "str_replace_editor",
    "View, create and edit files. `view` prints a file with line numbers (or lists a directory), `create` writes a new file, "
    "`str_replace` replaces exactly one occurrence of `old_str` with `new_str`, `insert` adds text after a line, `undo_edit` "
    "reverts the last edit of a file. Paths must be absolute.",
    {
        "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
        "path": {"type": "string", "description": "Absolute path of the file or directory."},
        "file_text": {"type": "string", "description": "Content of the file to create."},
        "old_str": {"type": "string", "description": "Text to replace; it must occur exactly once."},
        "new_str": {"type": "string", "description": "Replacement text."},
        "insert_line": {"type": "integer", "description": "Insert after this line."},
        "view_range": {"type": "array", "items": {"type": "integer"}, "description": "First and last line to show ([start, -1] for the rest)."},
    },
    ["command", "path"],
)
SWE_SUBMIT = tool("submit", "Submit the changes made in the repository as the solution (the diff of the working tree).", {})
SWE_OPEN = tool("open", "Open a file in the file viewer and show a window of it around a line.",
                {"path": {"type": "string"}, "line_number": {"type": "integer"}}, ["path"])
SWE_GOTO = tool("goto", "Move the file viewer's window so that it shows the given line.", {"line_number": {"type": "integer"}})
SWE_SCROLL = tool("scroll_down", "Move the file viewer's window down by one window height.", {})

SWE_SYSTEM = (
    "You are an autonomous programmer working in a Linux container. You interact with it only through the tools you are "
    "given, one tool call per response, and you see what each call printed. Think step by step before every call and say "
    "briefly what you intend. Interactive programs (vim, python REPL, less) are not available."
)


REQUEST_MODEL = {"gpt-4o-2024-08-06": "gpt-4o", "gpt-4o-mini-2024-07-18": "gpt-4o-mini"}  # the alias the client asked for


def swe_setup(model: str, issue: str, tools: list[dict]) -> dict:
    return {"model": model, "request_model": REQUEST_MODEL.get(model, model), "system": SWE_SYSTEM, "user": swe_task(issue), "tools": tools}


def swe_metadata(instance_id: str, user_query: str, **limits: Any) -> dict:
    return {"agent": "SWE-agent 1.0 (function calling)", "framework": "SWE-agent + SWE-ReX docker deployment",
            "instance_id": instance_id, **limits, "user_query": user_query}


def swe_task(issue: str) -> str:
    return (
        "<uploaded_files>\n/repo\n</uploaded_files>\n"
        "A Python repository has been checked out at /repo. Here is the issue to resolve:\n\n"
        f"<issue>\n{issue}\n</issue>\n\n"
        "Change the non-test source files under /repo so that the issue is resolved; the tests already account for the "
        "change. Suggested approach: find the relevant code, write a script that reproduces the problem and run it with "
        "`python <script>.py` through the bash tool, fix the code, re-run the script to confirm, think about edge cases, "
        "then submit."
    )


def cat_n(path: str, lines: list[str], first: int = 1, snippet: bool = False) -> str:
    body = "\n".join(f"{first + i:6}\t{line}" for i, line in enumerate(lines))
    return f"Here's the result of running `cat -n` on {'a snippet of ' if snippet else ''}{path}:\n{body}\n"


def window(path: str, lines: list[str], first: int, size: int = 100) -> str:
    """The windowed viewer (open / goto / scroll_down): lines first..first+size-1, clamped to the file's end."""
    total = len(lines)
    first = max(1, min(first, total - size + 1))
    last = min(total, first + size - 1)
    shown = "\n".join(f"{k}:{lines[k - 1]}" for k in range(first, last + 1))
    above = f"({first - 1} more lines above)\n" if first > 1 else ""
    below = f"\n({total - last} more lines below)" if last < total else ""
    return f"[File: {path} ({total} lines total)]\n{above}{shown}{below}"


def swe_call(name: str, args: dict, result: str, ms: int | None = None) -> Call:
    return Call(name, J(args), result, error=None, ms=ms)


def bash(command: str, result: str, ms: int | None = None) -> Call:
    return swe_call("bash", {"command": command}, result, ms)


def editor(result: str, **args: Any) -> Call:
    return swe_call("str_replace_editor", args, result)


NO_OUTPUT = "Your command ran successfully and did not produce any output."

_CHRONO_ISSUE = (
    "format_duration shows \"60 minutes\" instead of carrying to the next unit\n\n"
    "```python\n>>> from chronofmt import format_duration\n>>> format_duration(7199.6)\n'1 hour, 60 minutes'\n```\n\n"
    "Expected `'2 hours'`. The last unit shown is rounded, and when it rounds up to a whole unit of the one above, "
    "that should be carried over."
)
_DURATION_PY = [
    "\"\"\"Human-readable durations.\"\"\"",
    "",
    "UNITS = (",
    "    (\"day\", 86400),",
    "    (\"hour\", 3600),",
    "    (\"minute\", 60),",
    "    (\"second\", 1),",
    ")",
    "",
    "",
    "def _plural(n: int, unit: str) -> str:",
    "    return f\"{n} {unit}\" if n == 1 else f\"{n} {unit}s\"",
    "",
    "",
    "def format_duration(seconds: float, *, max_units: int = 2) -> str:",
    "    \"\"\"Render a number of seconds as '2 hours, 5 minutes'.",
    "",
    "    Only the ``max_units`` largest non-zero units are shown; the last",
    "    one shown is rounded to the nearest whole number.",
    "    \"\"\"",
    "    if seconds < 0:",
    "        raise ValueError(\"seconds must be >= 0\")",
    "    if seconds < 1:",
    "        return \"0 seconds\"",
    "    parts = []",
    "    remainder = seconds",
    "    for unit, size in UNITS:",
    "        if len(parts) == max_units - 1:",
    "            count = round(remainder / size)",
    "        else:",
    "            count = int(remainder // size)",
    "        if count:",
    "            parts.append(_plural(count, unit))",
    "            remainder -= count * size",
    "        if len(parts) == max_units:",
    "            break",
    "    return \", \".join(parts)",
]
_DURATION_PATH = "/repo/src/chronofmt/duration.py"
_DURATION_VIEW = {"command": "view", "path": _DURATION_PATH, "view_range": [15, 37]}
_TEST_CMD = "cd /repo && python -m pytest tests/test_duration.py -x -q"


def _pytest_rounding_failure(seconds: str) -> str:
    return (
        "........F\n"
        "=================================== FAILURES ===================================\n"
        "_________________________ test_carries_rounded_unit ___________________________\n\n"
        "    def test_carries_rounded_unit():\n"
        ">       assert format_duration(7199.6) == \"2 hours\"\n"
        "E       AssertionError: assert '1 hour, 60 minutes' == '2 hours'\n"
        "E         \n"
        "E         - 2 hours\n"
        "E         + 1 hour, 60 minutes\n\n"
        "tests/test_duration.py:58: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_duration.py::test_carries_rounded_unit - AssertionError: assert '1 hour, 60 minutes' == '2 hours'\n"
        "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
        f"1 failed, 8 passed in {seconds}s"
    )


_LOOP_THOUGHTS = [
    ("Let me run the duration tests to see the failure described in the issue.",
     "The failing test expects format_duration(7199.6) to give '2 hours'. Let me look at format_duration."),
    ("The minutes are rounded with round() after the hours were taken with floor division, so 59.99 minutes becomes 60. "
     "Let me run the test again to confirm this is the only failure.",
     "Still the same failure. Let me look at the loop in format_duration once more."),
    ("I see that the last unit is rounded but never carried into the previous one. Let me re-run the tests.",
     "The test still fails with '1 hour, 60 minutes'. Let me view the function again to find where to carry the overflow."),
    ("The carry needs to happen when count * size equals the size of the previous unit. Let me run the failing test.",
     "Same failure. Let me look at format_duration again."),
    ("Let me run the tests once more.", "Let me check the function again."),
]
scenario(
    Scenario(
        trace="swe_test_view_loop",
        file="swe_test_view_loop.jsonl",
        title="SWE-agent: the same failing pytest and the same view of duration.py, alternating for 5 laps, never an edit; exit_cost",
        start="2026-03-16T10:02:41.307Z",
        **swe_setup("claude-3-5-sonnet-20241022", _CHRONO_ISSUE, [SWE_BASH, SWE_EDITOR, SWE_SUBMIT]),
        labels={
            "outcome": "failure",
            "scenario": "A-B-A-B loop: the same failing test command and the same view of the same lines, identical output, 5 laps; "
            "the agent describes the fix every time but never edits; the call limit ends the run without a submission",
            "source": "SWE-agent-style run (function calling)",
            "exit_status": "exit_cost",
        },
        expects=[
            expect("R001", False, None, "the two calls alternate: never the same call twice in a row"),
            expect("R002", True, 3, "round 3 repeats round 1's test command (a success to the guards: pytest's output is not an error) -> block"),
            expect("F001", False, None, "a failing test is output, not a failed tool call"),
            expect("R003", True, 6, "bash, view, bash, view, bash, view: period 2, 3 laps -> stop before round 6's view "
                   "(OpenHands' settings, results compared after normalising the pytest duration, agree; Gemini CLI's 5 laps need round 10)"),
            expect("P004", False, None, "the alternation restarts the identical call-and-result streak at every call"),
        ],
        metadata=swe_metadata("chronofmt__chronofmt-214", _CHRONO_ISSUE.split("\n")[0], per_instance_call_limit=10),
        steps=[
            step
            for lap, (run_thought, view_thought) in enumerate(_LOOP_THOUGHTS)
            for step in (
                Step(run_thought, [bash(_TEST_CMD, _pytest_rounding_failure(("0.09", "0.08", "0.09", "0.10", "0.08")[lap]), ms=1480 + 90 * lap)]),
                Step(view_thought, [editor(cat_n(_DURATION_PATH, _DURATION_PY[14:37], 15), **_DURATION_VIEW)]),
            )
        ],
        end_error="exit_cost",
        why="A SWE-agent run that alternates two actions: the failing test command and a view of the same 23 lines of duration.py, "
        "5 laps, the outputs identical but for pytest's own timing. Every other thought explains the fix (carry the rounded unit) and the "
        "next action is another run or another look instead of the edit; the call limit (10) ends it with no submission "
        "(`exit_cost`). R001 cannot see an alternation; R002's cache blocks the repeated test run from round 3 (here the cached "
        "answer is right: nothing changed); the cycle detector R003 (off by default; `--preset openhands` or `--select R003`) stops "
        "before round 6, the third lap's second call.",
    )
)

_ERFA_ISSUE = (
    "Time.to_value('jd', 'long') loses precision for dates before 1582\n\n"
    "```python\nfrom astropy.time import Time\nt = Time('1500-03-01 12:00:00', scale='tt')\nprint(t.to_value('jd', 'long'))\n```\n\n"
    "prints 2268992.9999999998 instead of 2268993.0."
)
_REPRO_PY = (
    "from astropy.time import Time\n\n"
    "t = Time(\"1500-03-01 12:00:00\", scale=\"tt\")\n"
    "print(repr(t.to_value(\"jd\", \"long\")))\n"
)
_ERFA_TRACEBACK = (
    "Traceback (most recent call last):\n"
    "  File \"/repo/reproduce.py\", line 1, in <module>\n"
    "    from astropy.time import Time\n"
    "  File \"/repo/astropy/time/__init__.py\", line 19, in <module>\n"
    "    from .formats import *\n"
    "  File \"/repo/astropy/time/formats.py\", line 12, in <module>\n"
    "    import erfa\n"
    "ModuleNotFoundError: No module named 'erfa'"
)
_ERFA_RUNS = [  # (thought, command, the bash session's line counter)
    ("The script fails on `import erfa`: the conda environment is probably not active in this shell. Let me activate it and run again.",
     "source activate testbed; python reproduce.py", 212),
    ("Still no erfa. Maybe `python` is not the environment's interpreter; let me try python3.",
     "source activate testbed; python3 reproduce.py", 219),
    ("Perhaps the working directory matters. Let me run it from the repository root.",
     "cd /repo && source activate testbed; python reproduce.py", 226),
    ("Let me make sure the repository itself is on the path.",
     "cd /repo; source activate testbed; PYTHONPATH=/repo python reproduce.py", 234),
    ("The same error again. Let me run it unbuffered to see whether anything is printed before the import fails.",
     "source activate testbed; python -u reproduce.py", 241),
    ("Let me try once more from /repo with python3.",
     "cd /repo && source activate testbed; python3 reproduce.py", 249),
]
scenario(
    Scenario(
        trace="swe_same_error_changing_commands",
        file="swe_same_error_changing_commands.jsonl",
        title="SWE-agent: six different commands, one ModuleNotFoundError (only the shell's line counter changes); exit_cost",
        start="2026-03-16T13:47:09.881Z",
        **swe_setup("claude-3-5-sonnet-20241022", _ERFA_ISSUE, [SWE_BASH, SWE_EDITOR, SWE_SUBMIT]),
        labels={
            "outcome": "failure",
            "scenario": "the same error under changing commands: python / python3 / cd /repo && … / PYTHONPATH=… each answered by "
            "the same ModuleNotFoundError, after a `/bin/bash: line N:` message whose N grows; the call limit ends the run",
            "source": "SWE-agent-style run (function calling)",
            "exit_status": "exit_cost",
            "note": "the environment's erfa dependency is not importable from the agent's shell; no command variant can fix that",
        },
        expects=[
            expect("R001", False, None, "every command differs"),
            expect("R002", False, None, "no call is repeated with the same arguments"),
            expect("F002", True, 5, "rounds 2-4 fail with the same error once the shell's line counter is normalised -> stop after round 4 "
                   "with F002's defaults (Goose's 3), after round 5 with the default preset's 4; OpenHands' same_call setting "
                   "ignores failures of different commands by design"),
            expect("R003", False, None, "no block of calls repeats: the commands all differ"),
        ],
        metadata=swe_metadata("astropy__astropy-13842", _ERFA_ISSUE.split("\n")[0], per_instance_call_limit=8),
        steps=[
            Step("Let me first reproduce the issue with the example from the report.",
                 [editor("File created successfully at: /repo/reproduce.py", command="create", path="/repo/reproduce.py", file_text=_REPRO_PY)]),
            *[
                Step(thought, [bash(command, f"/bin/bash: line {line}: activate: No such file or directory\n{_ERFA_TRACEBACK}", ms=610 + 37 * i)])
                for i, (thought, command, line) in enumerate(_ERFA_RUNS)
            ],
            Step("None of these changed anything. Let me check which interpreter the shell uses.",
                 [bash("which python python3; python -c 'import sys; print(sys.prefix)'", "/usr/bin/python\n/usr/bin/python3\n/usr")]),
        ],
        end_error="exit_cost",
        why="The agent's shell does not have the task's conda environment active, so `import erfa` fails whatever the command. "
        "It tries six variants (`python`, `python3`, `cd /repo && …`, `PYTHONPATH=/repo …`, `-u`), each prefixed with a "
        "`source activate testbed` that fails too; every output is the same traceback after a `/bin/bash: line N: activate: No such "
        "file or directory` whose N grows with the session. No call repeats, so R001, R002 and R003 see nothing. What should stop "
        "it is F002 (the same error whatever the arguments, with the line counter normalised), three failures in, after round 4. "
        "SWE-agent records no error flag, so whether a result is a failure is read from its text: the default failure patterns "
        "look at the start of the text, which here is the shell's message, not the traceback, so F001 and F002 see successes "
        "(with a pattern such as `(?m)^Traceback` both fire after round 4).",
    )
)

_REPRO_CHRONO = (
    "from chronofmt import format_duration\n\n"
    "for seconds in (5399.9, 7199.6, 90061):\n"
    "    print(seconds, \"->\", format_duration(seconds))\n"
)
_EDIT_OLD = (
    "        if len(parts) == max_units - 1:\n"
    "            count = round(remainder / size)\n"
    "        else:\n"
    "            count = int(remainder // size)\n"
    "        if count:\n"
    "            parts.append(_plural(count, unit))\n"
    "            remainder -= count * size\n"
)
_EDIT_NEW = (
    "        if len(parts) == max_units - 1:\n"
    "            count = round(remainder / size)\n"
    "            if parts and count * size == UNITS[i - 1][1]:\n"
    "                # rounding up reached a whole unit of the one above: carry it over\n"
    "                parts[-1] = _plural(previous + 1, UNITS[i - 1][0])\n"
    "                break\n"
    "        else:\n"
    "            count = int(remainder // size)\n"
    "        if count:\n"
    "            parts.append(_plural(count, unit))\n"
    "            previous = count\n"
    "            remainder -= count * size\n"
)
_DURATION_EDITED = _DURATION_PY[:27] + _EDIT_NEW.rstrip("\n").split("\n") + _DURATION_PY[34:]
_DURATION_FIXED = [line.replace("    for unit, size in UNITS:", "    for i, (unit, size) in enumerate(UNITS):") for line in _DURATION_EDITED]
_NAME_ERROR = (
    "Traceback (most recent call last):\n"
    "  File \"/repo/reproduce.py\", line 4, in <module>\n"
    "    print(seconds, \"->\", format_duration(seconds))\n"
    "                         ^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "  File \"/repo/src/chronofmt/duration.py\", line 30, in format_duration\n"
    "    if parts and count * size == UNITS[i - 1][1]:\n"
    "                                       ^\n"
    "NameError: name 'i' is not defined"
)
_CHRONO_DIFF = (
    "diff --git a/src/chronofmt/duration.py b/src/chronofmt/duration.py\n"
    "index 3f9c2d1..b7a40e6 100644\n"
    "--- a/src/chronofmt/duration.py\n"
    "+++ b/src/chronofmt/duration.py\n"
    "@@ -24,11 +24,16 @@ def format_duration(seconds: float, *, max_units: int = 2) -> str:\n"
    "         return \"0 seconds\"\n"
    "     parts = []\n"
    "     remainder = seconds\n"
    "-    for unit, size in UNITS:\n"
    "+    for i, (unit, size) in enumerate(UNITS):\n"
    "         if len(parts) == max_units - 1:\n"
    "             count = round(remainder / size)\n"
    "+            if parts and count * size == UNITS[i - 1][1]:\n"
    "+                # rounding up reached a whole unit of the one above: carry it over\n"
    "+                parts[-1] = _plural(previous + 1, UNITS[i - 1][0])\n"
    "+                break\n"
    "         else:\n"
    "             count = int(remainder // size)\n"
    "         if count:\n"
    "             parts.append(_plural(count, unit))\n"
    "+            previous = count\n"
    "             remainder -= count * size\n"
    "         if len(parts) == max_units:\n"
    "             break\n"
)
scenario(
    Scenario(
        trace="swe_healthy_reproduce_edit_retest",
        file="swe_healthy_reproduce_edit_retest.jsonl",
        title="SWE-agent: reproduce → edit → the same `python reproduce.py` (new output) → sed → the same view (new content) → tests → submit",
        start="2026-03-16T15:12:30.554Z",
        **swe_setup("claude-3-5-sonnet-20241022", _CHRONO_ISSUE, [SWE_BASH, SWE_EDITOR, SWE_SUBMIT]),
        labels={
            "outcome": "success",
            "scenario": "healthy fix: the same reproduce command three times and the same view twice, the world changing in between "
            "(an edit, a NameError, a sed fix); tests pass; submitted",
            "source": "SWE-agent-style run (function calling)",
            "exit_status": "submitted",
        },
        expects=[
            expect("R001", False, None, "the repeated calls are never consecutive"),
            expect("F001", False, None, "one failure (the NameError in round 5), followed by successes"),
            expect("R003", False, None, "no block of calls repeats three times"),
            expect("P004", False, None, "the repeated calls get different results"),
            expect("F002", False, None, "a single failure"),
        ],
        metadata=swe_metadata("chronofmt__chronofmt-214", _CHRONO_ISSUE.split("\n")[0]),
        steps=[
            Step("Let me start by reproducing the issue with a small script.",
                 [editor("File created successfully at: /repo/reproduce.py", command="create", path="/repo/reproduce.py", file_text=_REPRO_CHRONO)]),
            Step("", [bash("cd /repo && python reproduce.py", "5399.9 -> 1 hour, 30 minutes\n7199.6 -> 1 hour, 60 minutes\n90061 -> 1 day, 1 hour", ms=420)]),
            Step("Reproduced: 7199.6 gives '1 hour, 60 minutes'. Let me look at format_duration.",
                 [editor(cat_n(_DURATION_PATH, _DURATION_PY[14:37], 15), **_DURATION_VIEW)]),
            Step("The last unit is rounded with round(), which can reach a whole unit of the unit above (60 minutes). "
                 "When that happens I'll carry it into the previous part instead of appending it.",
                 [editor(cat_n(_DURATION_PATH, _DURATION_EDITED[23:37], 24, snippet=True)
                         + "Review the changes and make sure they are as expected. Edit the file again if necessary.",
                         command="str_replace", path=_DURATION_PATH, old_str=_EDIT_OLD, new_str=_EDIT_NEW)]),
            Step("Let me run the reproduction script again.", [bash("cd /repo && python reproduce.py", _NAME_ERROR, ms=450)]),
            Step("I used `i` without enumerating the units. Let me fix the loop header.",
                 [bash("sed -i 's/    for unit, size in UNITS:/    for i, (unit, size) in enumerate(UNITS):/' /repo/src/chronofmt/duration.py", NO_OUTPUT, ms=330)]),
            Step("Let me check the function as it is now.", [editor(cat_n(_DURATION_PATH, _DURATION_FIXED[14:42], 15), **_DURATION_VIEW, )]),
            Step("", [bash("cd /repo && python reproduce.py", "5399.9 -> 1 hour, 30 minutes\n7199.6 -> 2 hours\n90061 -> 1 day, 1 hour", ms=410)]),
            Step("7199.6 now gives '2 hours' and the other cases are unchanged. Let me run the test suite for this module.",
                 [bash("cd /repo && python -m pytest tests/test_duration.py -q", ".........                                                                [100%]\n9 passed in 0.08s", ms=1530)]),
            Step("All tests pass. The fix carries a rounded-up last unit into the unit above. Submitting.",
                 [swe_call("submit", {}, _CHRONO_DIFF)]),
        ],
        why="A healthy SWE-agent run that repeats calls on purpose: `python reproduce.py` runs three times and the same "
        "`view` of duration.py twice, and each time the file has changed in between (an edit that raised a NameError, then a `sed` "
        "that fixed it). No loop guard should fire. R002's cache would answer the 2nd and 3rd reproduce runs and the 2nd view from "
        "its cache, with outputs that are no longer true (stale): it is left without an expectation here, as in "
        "`healthy_fix_and_retest`.",
    )
)


def _parse_test_lines() -> list[str]:
    """tests/test_parse.py of the chronofmt task: long parametrized tables, generated deterministically."""
    lines = [
        "import pytest",
        "",
        "from chronofmt import parse_duration",
        "from chronofmt.errors import DurationParseError",
        "",
    ]
    tables = [
        ("compact", lambda a, b, c: (f"{a}h{b}m{c}s", a * 3600 + b * 60 + c)),
        ("compact_days", lambda a, b, c: (f"{a % 9 + 1}d{b % 24}h{c}m", (a % 9 + 1) * 86400 + (b % 24) * 3600 + c * 60)),
        ("iso", lambda a, b, c: (f"PT{a}H{b}M{c}S", a * 3600 + b * 60 + c)),
        ("iso_days", lambda a, b, c: (f"P{a % 30 + 1}DT{b % 24}H", (a % 30 + 1) * 86400 + (b % 24) * 3600)),
        ("clock", lambda a, b, c: (f"{a:02d}:{b:02d}:{c:02d}", a * 3600 + b * 60 + c)),
        ("verbose", lambda a, b, c: (f"{a} hours {b} minutes", a * 3600 + b * 60)),
        ("verbose_short", lambda a, b, c: (f"{a} hrs {c} secs", a * 3600 + c)),
    ]
    for t, (name, make) in enumerate(tables):
        lines += ["", "", "@pytest.mark.parametrize(", "    (\"text\", \"seconds\"),", "    ["]
        for k in range(11 + t % 3):
            a, b, c = (7 * k + 3 * t) % 23 + 1, (11 * k + 5 * t) % 60, (13 * k + t) % 60
            text, secs = make(a, b, c)
            lines.append(f"        ({J(text)}, {secs}),")
        lines += ["    ],", ")", f"def test_parse_{name}(text, seconds):", "    assert parse_duration(text) == seconds"]
    lines += ["", "", "@pytest.mark.parametrize(", "    \"text\",", "    ["]
    for bad in ("", " ", "h", "1x", "PT", "1:2:3:4", "--1h", "1h-30m", "one hour", "1.5.2h", "PT1H1H", "PT5M2M"):
        lines.append(f"        {J(bad)},")
    lines += ["    ],", ")", "def test_parse_rejects_garbage(text):", "    with pytest.raises(DurationParseError):",
              "        parse_duration(text)"]
    return lines


_PARSE_TESTS = _parse_test_lines()
_PARSE_TESTS_PATH = "/repo/tests/test_parse.py"
_W = 30  # the viewer's window height (SWE-agent's WINDOW, lowered in this config)
_PARSE_ISSUE = (
    "parse_duration accepts ISO durations that repeat a unit\n\n"
    "`parse_duration(\"PT1H1H\")` returns 7200 and `parse_duration(\"PT5M2M\")` returns 420. ISO 8601 allows each designator "
    "once; these should raise DurationParseError like other malformed input."
)
_PARSE_PY = [
    "_ISO_PART = re.compile(r\"(\\d+)([DHMS])\")",
    "_ISO_UNITS = {\"D\": 86400, \"H\": 3600, \"M\": 60, \"S\": 1}",
    "",
    "",
    "def _parse_iso(text: str) -> int:",
    "    body = text[1:].replace(\"T\", \"\", 1)",
    "    total, pos = 0, 0",
    "    for match in _ISO_PART.finditer(body):",
    "        if match.start() != pos:",
    "            raise DurationParseError(text)",
    "        value, unit = match.groups()",
    "        total += int(value) * _ISO_UNITS[unit]",
    "        pos = match.end()",
    "    if pos == 0 or pos != len(body):",
    "        raise DurationParseError(text)",
    "    return total",
]
_PARSE_PATH = "/repo/src/chronofmt/parse.py"
_ISO_OLD = "        value, unit = match.groups()\n        total += int(value) * _ISO_UNITS[unit]\n"
_ISO_NEW = ("        value, unit = match.groups()\n        if unit in seen:\n            raise DurationParseError(text)\n"
            "        seen.add(unit)\n        total += int(value) * _ISO_UNITS[unit]\n")
_PARSE_AFTER_1 = _PARSE_PY[:10] + _ISO_NEW.rstrip("\n").split("\n") + _PARSE_PY[12:]
_PARSE_EDITED = _PARSE_PY[:6] + ["    total, pos, seen = 0, 0, set()"] + _PARSE_PY[7:10] + _ISO_NEW.rstrip("\n").split("\n") + _PARSE_PY[12:]


def _scroll(first: int) -> Call:
    return swe_call("scroll_down", {}, window(_PARSE_TESTS_PATH, _PARSE_TESTS, first, _W))


scenario(
    Scenario(
        trace="swe_healthy_goto_scroll",
        file="swe_healthy_goto_scroll.jsonl",
        title="SWE-agent: open → scroll_down ×3 → goto through a long test file, every window different; fix, test, submit",
        start="2026-03-17T08:40:12.019Z",
        **swe_setup("gpt-4o-2024-08-06", _PARSE_ISSUE, [SWE_BASH, SWE_EDITOR, SWE_OPEN, SWE_GOTO, SWE_SCROLL, SWE_SUBMIT]),
        labels={
            "outcome": "success",
            "scenario": "healthy reading: the same scroll_down call three times in a row, each showing the next 30 lines of a "
            "173-line test file, then goto; the fix follows; submitted",
            "source": "SWE-agent-style run (function calling, windowed file viewer)",
            "exit_status": "submitted",
        },
        expects=[
            expect("P004", False, None, "the identical scroll_down calls get different windows"),
            expect("F001", False, None),
            expect("E001", False, None),
        ],
        metadata=swe_metadata("chronofmt__chronofmt-231", _PARSE_ISSUE.split("\n")[0], window=_W),
        steps=[
            Step("Let me look at the parsing tests first to see which ISO forms are accepted and which are rejected.",
                 [swe_call("open", {"path": _PARSE_TESTS_PATH}, window(_PARSE_TESTS_PATH, _PARSE_TESTS, 1, _W))]),
            Step("These are the compact forms. Let me scroll down to the ISO cases.", [_scroll(31)]),
            Step("", [_scroll(61)]),
            Step("Here are the ISO cases with days. Let me keep going to find the rejection tests.", [_scroll(91)]),
            Step("The rejection tests should be at the end of the file.", [swe_call("goto", {"line_number": 160}, window(_PARSE_TESTS_PATH, _PARSE_TESTS, 145, _W))]),
            Step("`PT1H1H` and `PT5M2M` are expected to raise. Let me look at the ISO parser.",
                 [editor(cat_n(_PARSE_PATH, _PARSE_PY, 41), command="view", path=_PARSE_PATH, view_range=[41, 56])]),
            Step("Each designator may appear only once. I'll remember the units already seen and reject a repeat.",
                 [editor("The file /repo/src/chronofmt/parse.py has been edited. " + cat_n(_PARSE_PATH, _PARSE_AFTER_1[4:16], 45, snippet=True)
                         + "Review the changes and make sure they are as expected. Edit the file again if necessary.",
                         command="str_replace", path=_PARSE_PATH, old_str=_ISO_OLD, new_str=_ISO_NEW)]),
            Step("I also need to initialise `seen`.",
                 [editor("The file /repo/src/chronofmt/parse.py has been edited. " + cat_n(_PARSE_PATH, _PARSE_EDITED[5:9], 46, snippet=True)
                         + "Review the changes and make sure they are as expected. Edit the file again if necessary.",
                         command="str_replace", path=_PARSE_PATH, old_str="    total, pos = 0, 0\n", new_str="    total, pos, seen = 0, 0, set()\n")]),
            Step("", [bash("cd /repo && python -m pytest tests/test_parse.py -q",
                           "........................................................................ [ 77%]\n"
                           ".....................                                                    [100%]\n93 passed in 0.14s", ms=1720)]),
            Step("All 93 parsing tests pass, including the repeated-unit cases. Submitting.",
                 [swe_call("submit", {}, "diff --git a/src/chronofmt/parse.py b/src/chronofmt/parse.py\nindex 0c81f4e..5d2a9b3 100644\n"
                           "--- a/src/chronofmt/parse.py\n+++ b/src/chronofmt/parse.py\n@@ -46,10 +46,13 @@ def _parse_iso(text: str) -> int:\n"
                           "     body = text[1:].replace(\"T\", \"\", 1)\n-    total, pos = 0, 0\n+    total, pos, seen = 0, 0, set()\n"
                           "     for match in _ISO_PART.finditer(body):\n         if match.start() != pos:\n             raise DurationParseError(text)\n"
                           "         value, unit = match.groups()\n+        if unit in seen:\n+            raise DurationParseError(text)\n"
                           "+        seen.add(unit)\n         total += int(value) * _ISO_UNITS[unit]\n         pos = match.end()\n")]),
        ],
        why="The windowed viewer repeats the same call by design: `scroll_down` takes no arguments, and reading a file means calling "
        "it again and again while the output moves on. Three scrolls in a row, each window new, then a `goto` to the end. A guard "
        "that compares calls only (R001's identical-call streak, R003 without `compare_results`, R002's cache) sees three identical "
        "calls and stops or blocks the third; guards that also compare results (P004, R003 with `compare_results` as OpenHands "
        "does) do not.",
    )
)

_NEGATIVE_ISSUE = (
    "parse_duration should reject negative durations\n\n`parse_duration(\"-1h\")` returns -3600; negative durations are not "
    "meaningful here and should raise DurationParseError. Add the check and make sure the existing tests still pass."
)
_SCROLL_THOUGHTS = [
    "I don't see a test for negative durations here. Let me scroll down.",
    "Still no negative-duration test. Scrolling further.",
    "This is the end of the rejection tests. Let me scroll down to see if there is more.",
    "Let me scroll down to find the test for negative durations.",
    "I still can't find it. Let me scroll down.",
    "Let me scroll down once more.",
    "Scrolling down to look for the negative-duration test.",
    "Let me scroll down.",
    "Let me scroll down to check the rest of the file.",
]
scenario(
    Scenario(
        trace="swe_scroll_end_loop",
        file="swe_scroll_end_loop.jsonl",
        title="SWE-agent: scroll_down at the end of a file, the same last window 8 times; exit_cost",
        start="2026-03-17T11:05:44.630Z",
        **swe_setup("gpt-4o-2024-08-06", _NEGATIVE_ISSUE, [SWE_BASH, SWE_EDITOR, SWE_OPEN, SWE_GOTO, SWE_SCROLL, SWE_SUBMIT]),
        labels={
            "outcome": "failure",
            "scenario": "scroll_down past the end of tests/test_parse.py: from round 3 on every call prints the same last window; "
            "the agent keeps looking for a test that is not there until the call limit",
            "source": "SWE-agent-style run (function calling, windowed file viewer)",
            "exit_status": "exit_cost",
        },
        expects=[
            expect("R001", True, 4, "scroll_down in rounds 2, 3, 4: hint at round 3, stop before round 4"),
            expect("R002", True, 3, "round 3 repeats round 2's scroll_down -> block (round 3's window was still partly new: a stale answer)"),
            expect("P004", True, 6, "rounds 3-6: the same call answered by the same last window 4 times -> stop after round 6"),
            expect("F001", False, None),
        ],
        metadata=swe_metadata("chronofmt__chronofmt-237", _NEGATIVE_ISSUE.split("\n")[0], window=_W, per_instance_call_limit=10),
        steps=[
            Step("Let me see whether the tests already cover negative durations.",
                 [swe_call("open", {"path": _PARSE_TESTS_PATH, "line_number": 120}, window(_PARSE_TESTS_PATH, _PARSE_TESTS, 105, _W))]),
            *[Step(thought, [_scroll(135 + 30 * k)]) for k, thought in enumerate(_SCROLL_THOUGHTS)],
        ],
        end_error="exit_cost",
        why="At the end of a file SWE-agent's `scroll_down` cannot move, and prints the last window again. The agent is looking for "
        "a test that does not exist and scrolls on: from round 3 every output is the same 30 lines, with a thought that barely "
        "changes, until the call limit (10). R001 stops before round 4 (the 3rd scroll in a row); P004 waits for the 4th identical "
        "call-and-result pair (round 6); R003 with OpenHands' settings compares results and needs three laps of identical pairs (round 8).",
    )
)


# ----- 16. τ-bench-shaped customer-service dialogues ------------------------------------

TAU_RETAIL_POLICY = (
    "# Retail agent policy\n"
    "As a retail agent, you can help users cancel or modify pending orders, return or exchange delivered orders, modify their default "
    "user address, or provide information about their own profile, orders, and related products.\n"
    "- At the beginning of the conversation, you have to authenticate the user identity by locating their user id via email, or via "
    "name + zip code. This has to be done even when the user already provides the user id.\n"
    "- Before taking consequential actions that update the database (cancel, modify, return, exchange), you have to list the action "
    "detail and obtain explicit user confirmation (yes) to proceed.\n"
    "- You should only make one tool call at a time, and if you make a tool call, you should not respond to the user at the same time.\n"
    "- An order can only be cancelled if its status is 'pending'. A delivered order can be returned or exchanged."
)
_ORDER_ID = {"type": "string", "description": "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id."}
TAU_PRODUCT_TOOL = tool("get_product_details", "Get the inventory details of a product: its variants (item ids), their options, prices and availability.",
                        {"product_id": {"type": "string", "description": "The product id, such as '6086499569'. Be careful the product id is different from the item id."}})
TAU_EXCHANGE_TOOL = tool(
    "exchange_delivered_order_items",
    "Exchange items in a delivered order for new items of the same product type. For a delivered order, return or exchange can be "
    "only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.",
    {"order_id": _ORDER_ID,
     "item_ids": {"type": "array", "items": {"type": "string"}, "description": "The item ids to be exchanged, each such as '1008292230'."},
     "new_item_ids": {"type": "array", "items": {"type": "string"}, "description": "The new item ids, one per item id, of the same product."},
     "payment_method_id": {"type": "string", "description": "The payment method id to pay or receive refund for the price difference."}},
)
TAU_NAME_ZIP_TOOL = tool("find_user_id_by_name_zip", "Find user id by first name, last name, and zip code.",
                         {"first_name": {"type": "string"}, "last_name": {"type": "string"}, "zip": {"type": "string"}})


def tau_setup(model: str, policy: str, opener: str, tools: list[dict]) -> dict:
    return {"model": model, "request_model": REQUEST_MODEL.get(model, model), "system": policy, "user": opener, "tools": tools}


def tau_closing(text: str) -> str:
    return f"{text} ###STOP###"


_KOVACS_ADDR = {"address1": "418 Elm Street", "address2": "Apt 7", "city": "Denver", "country": "USA", "state": "CO", "zip": "80203"}
_BOTTLE_ORDER = {
    "order_id": "#W6390527", "user_id": "mei_kovacs_8020", "address": _KOVACS_ADDR,
    "items": [
        {"name": "Water Bottle", "product_id": "8310926033", "item_id": "7661609223", "price": 46.51,
         "options": {"capacity": "500ml", "material": "stainless steel", "color": "blue"}},
        {"name": "Desk Lamp", "product_id": "6817146515", "item_id": "9083642334", "price": 164.28,
         "options": {"color": "white", "brightness": "high", "power source": "USB"}},
    ],
    "fulfillments": [{"tracking_id": ["568102447331"], "item_ids": ["7661609223", "9083642334"]}],
    "status": "delivered",
    "payment_history": [{"transaction_type": "payment", "amount": 210.79, "payment_method_id": "credit_card_1120390"}],
}
_BOTTLE_PRODUCT = {
    "name": "Water Bottle", "product_id": "8310926033",
    "variants": {
        "7661609223": {"item_id": "7661609223", "options": {"capacity": "500ml", "material": "stainless steel", "color": "blue"}, "available": True, "price": 46.51},
        "3453331371": {"item_id": "3453331371", "options": {"capacity": "500ml", "material": "stainless steel", "color": "black"}, "available": True, "price": 52.79},
        "7843064651": {"item_id": "7843064651", "options": {"capacity": "750ml", "material": "stainless steel", "color": "blue"}, "available": False, "price": 50.14},
        "2439754078": {"item_id": "2439754078", "options": {"capacity": "1000ml", "material": "stainless steel", "color": "blue"}, "available": True, "price": 49.51},
        "6974536207": {"item_id": "6974536207", "options": {"capacity": "750ml", "material": "plastic", "color": "blue"}, "available": True, "price": 49.95},
        "8538875209": {"item_id": "8538875209", "options": {"capacity": "1000ml", "material": "glass", "color": "black"}, "available": True, "price": 45.13},
    },
}
_BOTTLE_OPENER = ("Hi! I got a water bottle from you last week but it's way too small. Could I swap it for a bigger one? "
                  "My email is mei.kovacs4471@example.com.")
scenario(
    Scenario(
        trace="tau_retail_exchange_bad_args_recover",
        file="tau_retail_exchange_bad_args_recover.jsonl",
        title="τ-bench-style retail exchange: get_product_details fails twice (an item id, then a name), the product id works; exchange done",
        start="2026-03-18T14:02:51.406Z",
        **tau_setup("gpt-4o-2024-08-06", TAU_RETAIL_POLICY, _BOTTLE_OPENER, [TAU_RETAIL_TOOLS[0], TAU_RETAIL_TOOLS[1], TAU_RETAIL_TOOLS[2], TAU_PRODUCT_TOOL, TAU_EXCHANGE_TOOL]),
        labels={
            "outcome": "success",
            "scenario": "a tool fails twice with invalid arguments (the item id, then the product name, where the product id was "
            "needed); the agent fixes the argument, the lookup succeeds and the exchange is completed",
            "source": "τ-bench-style dialogue (retail)",
            "reward": "1.0",
        },
        expects=[
            expect("F001", False, None, "two failures of get_product_details, then a success: the streak stops at 2"),
            expect("F002", False, None, "two failures with the same error, then a success"),
            expect("R001", False, None, "the three lookups have different arguments"),
            expect("R002", False, None, "no call repeats"),
            expect("P004", False, None),
        ],
        metadata=tau_metadata("retail", _BOTTLE_OPENER),
        steps=[
            Step("", [Call("find_user_id_by_email", J({"email": "mei.kovacs4471@example.com"}), "mei_kovacs_8020")], user=_BOTTLE_OPENER),
            Step("", [Call("get_user_details", J({"user_id": "mei_kovacs_8020"}), J({
                "name": {"first_name": "Mei", "last_name": "Kovacs"}, "address": _KOVACS_ADDR, "email": "mei.kovacs4471@example.com",
                "payment_methods": {"credit_card_1120390": {"source": "credit_card", "brand": "visa", "last_four": "8816", "id": "credit_card_1120390"}},
                "orders": ["#W3915310", "#W6390527"]}))]),
            Step("", [Call("get_order_details", J({"order_id": "#W6390527"}), J(_BOTTLE_ORDER))]),
            Step("", [Call("get_product_details", J({"product_id": "7661609223"}), "Error: product not found", error=True)]),
            Step("", [Call("get_product_details", J({"product_id": "Water Bottle"}), "Error: product not found", error=True)]),
            Step("", [Call("get_product_details", J({"product_id": "8310926033"}), J(_BOTTLE_PRODUCT))]),
            Step("Thanks, Mei. Your order #W6390527 was delivered and includes the Water Bottle (500ml, stainless steel, blue, $46.51). "
                 "These larger versions are in stock:\n\n"
                 "- 1000ml, stainless steel, blue: $49.51\n- 750ml, plastic, blue: $49.95\n- 1000ml, glass, black: $45.13\n\n"
                 "(The 750ml stainless steel blue one is out of stock.) Which one would you like?"),
            Step("To confirm: in order #W6390527 I will exchange the Water Bottle (item 7661609223, 500ml) for the 1000ml stainless "
                 "steel blue one (item 2439754078). The price difference of $3.00 will be charged to your Visa ending in 8816. "
                 "You'll receive an email with return instructions. Shall I proceed (yes/no)?",
                 user="The 1000ml one in blue, please. Same material."),
            Step("", [Call("exchange_delivered_order_items", J({"order_id": "#W6390527", "item_ids": ["7661609223"], "new_item_ids": ["2439754078"],
                                                                "payment_method_id": "credit_card_1120390"}),
                           J(dict(_BOTTLE_ORDER, status="exchange requested", exchange_items=["7661609223"], exchange_new_items=["2439754078"],
                                  exchange_payment_method_id="credit_card_1120390", exchange_price_difference=3.0)))],
                 user="Yes, go ahead."),
            Step("Done! The exchange is requested: you'll get an email with instructions for sending back the 500ml bottle, and the "
                 "1000ml one will ship once it's received. $3.00 has been charged to your Visa ending in 8816. Anything else?"),
        ],
        closing=tau_closing("No, that's everything. Thank you!"),
        why="A healthy recovery. To list the bottle's variants the agent first passes the item id from the order, then the product's "
        "name, and get_product_details answers `Error: product not found` both times; the third call uses the product id and "
        "succeeds. Two failures of one tool followed by a success are not a loop: F001 (threshold 3) and F002 stay quiet, and the "
        "three calls differ, so no repetition guard fires. Three turns: the request, the choice of variant, the confirmation.",
    )
)

TAU_AIRLINE_POLICY = (
    "# Airline agent policy\n"
    "The current time is 2024-05-15 15:00:00 EST.\n"
    "As an airline agent, you can help users book, modify, or cancel flight reservations.\n"
    "- Before taking any actions that update the booking database (booking, modifying flights, editing baggage, upgrading cabin "
    "class, or updating passenger information), you must list the action details and obtain explicit user confirmation (yes) to proceed.\n"
    "- You should only make one tool call at a time, and if you make a tool call, you should not respond to the user simultaneously.\n"
    "- The agent must first obtain the user id, then ask for the trip type, origin, destination. Each reservation can use at most one "
    "travel certificate, at most one credit card, and at most three gift cards.\n"
    "- Free checked bags: regular members 0/1/2 for basic economy/economy/business, silver members 1/2/3, gold members 2/3/3; "
    "each extra bag is 50 dollars. Travel insurance is 30 dollars per passenger."
)
TAU_AIRLINE_USER_TOOL = tool("get_user_details", "Get the details of a user, including their reservations.",
                             {"user_id": {"type": "string", "description": "The user id, such as 'sara_doe_496'."}})
TAU_RESERVATION_TOOL = tool("get_reservation_details", "Get the details of a reservation.",
                            {"reservation_id": {"type": "string", "description": "The reservation id, such as '8JX2WO'."}})
TAU_SEARCH_DIRECT_TOOL = tool(
    "search_direct_flight", "Search direct flights between two cities on a specific date.",
    {"origin": {"type": "string", "description": "The origin city airport in three letters, such as 'JFK'."},
     "destination": {"type": "string", "description": "The destination city airport in three letters, such as 'LAX'."},
     "date": {"type": "string", "description": "The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'."}},
)
TAU_BOOK_TOOL = tool(
    "book_reservation", "Book a reservation.",
    {"user_id": {"type": "string"}, "origin": {"type": "string"}, "destination": {"type": "string"},
     "flight_type": {"type": "string", "enum": ["one_way", "round_trip"]},
     "cabin": {"type": "string", "enum": ["basic_economy", "economy", "business"]},
     "flights": {"type": "array", "items": {"type": "object"}, "description": "Flight number and date of each segment."},
     "passengers": {"type": "array", "items": {"type": "object"}, "description": "First name, last name and date of birth of each passenger."},
     "payment_methods": {"type": "array", "items": {"type": "object"}, "description": "Payment id and amount of each payment method."},
     "total_baggages": {"type": "integer"}, "nonfree_baggages": {"type": "integer"},
     "insurance": {"type": "string", "enum": ["yes", "no"]}},
)


def _flight(number: str, dep: str, arr: str, seats: tuple[int, int, int], prices: tuple[int, int, int]) -> dict:
    cabins = ("basic_economy", "economy", "business")
    return {"flight_number": number, "origin": "BOS", "destination": "SEA", "scheduled_departure_time_est": dep,
            "scheduled_arrival_time_est": arr, "status": "available",
            "available_seats": dict(zip(cabins, seats)), "prices": dict(zip(cabins, prices))}


_OMAR = {
    "user_id": "omar_rossi_1241",
    "name": {"first_name": "Omar", "last_name": "Rossi"},
    "address": {"address1": "901 Pine Lane", "address2": "Suite 300", "city": "Boston", "country": "USA", "state": "MA", "zip": "02116"},
    "email": "omar.rossi6311@example.com",
    "dob": "1970-06-06",
    "payment_methods": {"credit_card_4579924": {"source": "credit_card", "brand": "mastercard", "last_four": "1734", "id": "credit_card_4579924"},
                        "gift_card_6101911": {"source": "gift_card", "amount": 140, "id": "gift_card_6101911"}},
    "saved_passengers": [{"first_name": "Lei", "last_name": "Rossi", "dob": "1969-10-11"}],
    "membership": "gold",
    "reservations": ["UM3OG5", "5RJ7UH"],
}
_BOS_SEA = [_flight("HAT011", "06:00:00", "12:30:00", (9, 4, 11), (74, 164, 423)),
            _flight("HAT208", "17:00:00", "23:30:00", (16, 12, 2), (61, 139, 388))]
_OMAR_OPENER = ("Hi, I'm Omar Rossi, user id omar_rossi_1241. I need a one-way flight from Boston to Seattle for myself, economy, "
                "any day from May 20 to May 23. Direct flights only, please.")
_BOOKING = {
    "reservation_id": "HXDUBJ", "user_id": "omar_rossi_1241", "origin": "BOS", "destination": "SEA", "flight_type": "one_way",
    "cabin": "economy", "flights": [{"flight_number": "HAT011", "date": "2024-05-23", "price": 164, "origin": "BOS", "destination": "SEA"}],
    "passengers": [{"first_name": "Omar", "last_name": "Rossi", "dob": "1970-06-06"}],
    "payment_history": [{"payment_id": "credit_card_4579924", "amount": 164}],
    "created_at": "2024-05-15T15:00:00", "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no",
}
scenario(
    Scenario(
        trace="tau_airline_flexible_dates_booking",
        file="tau_airline_flexible_dates_booking.jsonl",
        title="τ-bench-style airline booking: three dates searched, [] each time, the fourth has flights; booked",
        start="2026-03-18T16:31:07.772Z",
        **tau_setup("gpt-4o-2024-08-06", TAU_AIRLINE_POLICY, _OMAR_OPENER, [TAU_AIRLINE_USER_TOOL, TAU_SEARCH_DIRECT_TOOL, TAU_BOOK_TOOL]),
        labels={
            "outcome": "success",
            "scenario": "searches that come back empty ([]) while the date changes (May 20, 21, 22), then May 23 has two direct "
            "flights; the customer picks one and it is booked",
            "source": "τ-bench-style dialogue (airline)",
            "reward": "1.0",
        },
        expects=[
            expect("R001", False, None, "each search has a different date"),
            expect("R002", False, None, "no call repeats"),
            expect("F001", False, None, "an empty list is a result, not a failure"),
            expect("P001", False, None, "search_direct_flight has no query text: nothing to fingerprint"),
            expect("P004", False, None, "the results repeat ([]), the calls do not"),
            expect("P002", False, None, "no URLs at all: nothing to count"),
            expect("R003", False, None),
        ],
        metadata=tau_metadata("airline", _OMAR_OPENER),
        steps=[
            Step("", [Call("get_user_details", J({"user_id": "omar_rossi_1241"}), J(_OMAR))], user=_OMAR_OPENER),
            *[Step("", [Call("search_direct_flight", J({"origin": "BOS", "destination": "SEA", "date": f"2024-05-{day}"}), "[]")])
              for day in (20, 21, 22)],
            Step("", [Call("search_direct_flight", J({"origin": "BOS", "destination": "SEA", "date": "2024-05-23"}), J(_BOS_SEA))]),
            Step("There are no direct flights from Boston (BOS) to Seattle (SEA) on May 20, 21 or 22. On May 23 there are two, "
                 "both with economy seats:\n\n"
                 "1. HAT011, departs 06:00, arrives 12:30 (EST): $164 in economy\n"
                 "2. HAT208, departs 17:00, arrives 23:30 (EST): $139 in economy\n\nWhich one would you like?"),
            Step("Here is the booking:\n\n- One way, BOS → SEA, flight HAT011 on 2024-05-23, economy\n- Passenger: Omar Rossi (1970-06-06)\n"
                 "- Price: $164, paid with your Mastercard ending in 1734\n- Checked bags: 0 (as a gold member you have 3 free in economy)\n"
                 "- Travel insurance: not included (it would be $30)\n\nShall I book it (yes/no)?",
                 user="The morning one, HAT011. Put it on my credit card. No bags, no insurance."),
            Step("", [Call("book_reservation", J({
                "user_id": "omar_rossi_1241", "origin": "BOS", "destination": "SEA", "flight_type": "one_way", "cabin": "economy",
                "flights": [{"flight_number": "HAT011", "date": "2024-05-23"}],
                "passengers": [{"first_name": "Omar", "last_name": "Rossi", "dob": "1970-06-06"}],
                "payment_methods": [{"payment_id": "credit_card_4579924", "amount": 164}],
                "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}), J(_BOOKING))], user="Yes."),
            Step("You're booked: reservation HXDUBJ, flight HAT011 from Boston to Seattle on May 23, departing 06:00. $164 was "
                 "charged to your Mastercard ending in 1734. Anything else I can help with?"),
        ],
        closing=tau_closing("That's all, thanks!"),
        why="A flexible-date search done right: the customer gives a window of four days, the agent searches each day in turn, "
        "the first three answer `[]` and the fourth lists two flights. Repeated empty results with changing arguments are "
        "progress (each search rules out a day), so no guard should stop the run before the fourth search. P003 (on by default, "
        "watching `*search*` tools) compares the observations only: `[]` is 1.00 similar to the `[]` before it, twice, and it stops "
        "turn 1 after round 4, one search before the flights; no expectation is set for it here.",
    )
)

_LUCAS_OPENER = "Hi, I want to cancel my order #W5199551. My name is Lucas Brown, zip code 60612."
_LUCAS_ORDER = {
    "order_id": "#W5199551", "user_id": "lucas_brown_6720",
    "address": {"address1": "921 Park Avenue", "address2": "Suite 892", "city": "Chicago", "country": "USA", "state": "IL", "zip": "60612"},
    "items": [{"name": "Wristwatch", "product_id": "6066914160", "item_id": "1994478369", "price": 2025.51,
               "options": {"strap material": "silicone", "dial color": "black"}},
              {"name": "Electric Kettle", "product_id": "1075968781", "item_id": "9624127908", "price": 158.3,
               "options": {"capacity": "1.5L", "material": "plastic", "color": "silver"}}],
    "fulfillments": [{"tracking_id": ["866377615705"], "item_ids": ["1994478369", "9624127908"]}],
    "status": "delivered",
    "payment_history": [{"transaction_type": "payment", "amount": 2183.81, "payment_method_id": "credit_card_2112420"}],
}
_APOLOGIES = [
    "I apologize, but I'm unable to cancel order #W5199551 because it has already been delivered. Only pending orders can be "
    "cancelled. Is there anything else I can help you with?",
    "I apologize, but I'm unable to cancel order #W5199551 as it has already been delivered. Only orders that are still pending "
    "can be cancelled. Is there anything else I can help you with?",
    "I apologize, but I'm unable to cancel order #W5199551 because it has already been delivered. Only pending orders can be "
    "cancelled. Is there anything else I can assist you with?",
    "I'm sorry, but I'm unable to cancel order #W5199551 because it has already been delivered. Only pending orders can be "
    "cancelled. Is there anything else I can help you with?",
    "I apologize, but I'm unable to cancel order #W5199551 since it has already been delivered. Only pending orders can be "
    "cancelled. Is there anything else I can help you with today?",
    "I apologize, but I'm unable to cancel order #W5199551 because it has already been delivered. Only pending orders are "
    "eligible for cancellation. Is there anything else I can help you with?",
    "I apologize, but I'm unable to cancel order #W5199551 because it has already been delivered. Only pending orders can be "
    "cancelled. Is there anything else I can help you with?",
]
_LUCAS_ASKS = [
    "But I don't want these things anymore. Can you just cancel it, please?",
    "I understand, but I really don't need the watch or the kettle. Please cancel the order.",
    "Is there really no way? I just want my money back for both items.",
    "Please, I'd like to get rid of this order and get a refund.",
    "Can you cancel it anyway? I haven't even opened the boxes.",
    "I'm asking one more time: I don't want the items, I want a refund.",
]
scenario(
    Scenario(
        trace="tau_retail_apology_loop",
        file="tau_retail_apology_loop.jsonl",
        title="τ-bench-style retail dialogue: 7 near-identical apologies (\"I apologize, but I'm unable to cancel …\") while the customer asks again",
        start="2026-03-19T09:14:26.245Z",
        **tau_setup("gpt-4o-mini-2024-07-18", TAU_RETAIL_POLICY, _LUCAS_OPENER, [TAU_NAME_ZIP_TOOL, TAU_RETAIL_TOOLS[2], TAU_RETAIL_TOOLS[3]]),
        labels={
            "outcome": "failure",
            "scenario": "the customer wants a delivered order undone; the agent answers 7 turns in a row with near-identical "
            "apologies that it cannot cancel, never offering the return the policy allows; the customer gives up",
            "source": "τ-bench-style dialogue (retail)",
            "reward": "0.0",
            "note": "the expected action was return_delivered_order_items for both items; the agent never calls another tool after turn 1",
        },
        expects=[
            expect("R001", False, None, "after turn 1 there are no tool calls at all"),
            expect("F001", False, None),
            expect("P003", False, None),
        ],
        metadata=tau_metadata("retail", _LUCAS_OPENER),
        steps=[
            Step("", [Call("find_user_id_by_name_zip", J({"first_name": "Lucas", "last_name": "Brown", "zip": "60612"}), "lucas_brown_6720")],
                 user=_LUCAS_OPENER),
            Step("", [Call("get_order_details", J({"order_id": "#W5199551"}), J(_LUCAS_ORDER))]),
            Step(_APOLOGIES[0]),
            *[Step(text, user=ask) for text, ask in zip(_APOLOGIES[1:], _LUCAS_ASKS)],
        ],
        closing=tau_closing("Forget it then. This is really frustrating."),
        why="The customer asks to cancel an order that was delivered; the policy allows no cancellation but does allow a return. The "
        "agent says it cannot cancel, and then says it again, in nearly the same words, to each of the customer's six rephrasings: "
        "seven replies, no tool call after the first turn, no return offered. Tool-call guards see nothing (there are no calls). "
        "OpenHands' monologue check (T001: the same reply 3 times in a row, no tool call between) is the detector for this, "
        "across turns (`scope = run`): the replies match up to a word or two, so exact comparison misses them and a "
        "similarity threshold catches them.",
    )
)

_SOFIA_OPENER = "Hi, my user id is sofia_kim_7287. Can you check my reservation ZFA04Y? I want to make sure my flight on the 24th is still on."
_SOFIA = {
    "user_id": "sofia_kim_7287", "name": {"first_name": "Sofia", "last_name": "Kim"},
    "address": {"address1": "825 Laurel Lane", "address2": "Suite 595", "city": "Houston", "country": "USA", "state": "TX", "zip": "77243"},
    "email": "sofia.kim1937@example.com", "dob": "1950-06-24",
    "payment_methods": {"gift_card_7480005": {"source": "gift_card", "amount": 6, "id": "gift_card_7480005"},
                        "credit_card_7957134": {"source": "credit_card", "brand": "visa", "last_four": "9402", "id": "credit_card_7957134"}},
    "saved_passengers": [], "membership": "silver", "reservations": ["ZFA04Y", "K1NW8N"],
}
_ZFA04Y = {
    "reservation_id": "ZFA04Y", "user_id": "sofia_kim_7287", "origin": "PHL", "destination": "LGA", "flight_type": "one_way",
    "cabin": "economy", "flights": [{"origin": "PHL", "destination": "LGA", "flight_number": "HAT243", "date": "2024-05-24", "price": 118}],
    "passengers": [{"first_name": "Sofia", "last_name": "Kim", "dob": "1950-06-24"}],
    "payment_history": [{"payment_id": "credit_card_7957134", "amount": 148}],
    "created_at": "2024-05-08T11:37:17", "total_baggages": 1, "nonfree_baggages": 0, "insurance": "yes",
}
scenario(
    Scenario(
        trace="tau_airline_same_lookup_loop",
        file="tau_airline_same_lookup_loop.jsonl",
        title="τ-bench-style airline dialogue: get_reservation_details('ZFA04Y') 5 times in a row in turn 2, the same answer each time",
        start="2026-03-19T13:50:38.117Z",
        **tau_setup("gpt-4o-mini-2024-07-18", TAU_AIRLINE_POLICY, _SOFIA_OPENER, [TAU_AIRLINE_USER_TOOL, TAU_RESERVATION_TOOL]),
        labels={
            "outcome": "success",
            "scenario": "in turn 2 the agent looks up the same reservation with the same arguments 5 times in a row, the same "
            "JSON coming back each time, then answers correctly",
            "source": "τ-bench-style dialogue (airline)",
            "reward": "1.0",
            "note": "the reservation had been read in turn 1 already; the five lookups of turn 2 add nothing",
        },
        expects=[
            expect("R001", True, 6, "turn 2: the 2nd identical lookup (round 5) -> hint, the 3rd (round 6) -> stop before it runs"),
            expect("R002", True, 5, "turn 2: round 5 repeats round 4's successful lookup -> block (the cache starts afresh each turn)"),
            expect("P004", True, 7, "turn 2: the 4th identical call answered by the identical result (round 7) -> stop"),
            expect("F001", False, None),
        ],
        metadata=tau_metadata("airline", _SOFIA_OPENER),
        steps=[
            Step("", [Call("get_user_details", J({"user_id": "sofia_kim_7287"}), J(_SOFIA))], user=_SOFIA_OPENER),
            Step("", [Call("get_reservation_details", J({"reservation_id": "ZFA04Y"}), J(_ZFA04Y))]),
            Step("Your reservation ZFA04Y is confirmed: flight HAT243 from Philadelphia (PHL) to New York LaGuardia (LGA) on May 24, "
                 "2024, economy, one passenger (Sofia Kim). Is there anything you'd like to change?"),
            *[Step("", [Call("get_reservation_details", J({"reservation_id": "ZFA04Y"}), J(_ZFA04Y))],
                   user="Great. Do I have any checked bags on it, and did I buy travel insurance?" if k == 0 else None)
              for k in range(5)],
            Step("On reservation ZFA04Y you have 1 checked bag, which is free for you as a silver member, and yes, travel insurance "
                 "is included (you paid $30 for it with the ticket). Anything else?"),
        ],
        closing=tau_closing("No, that's all. Thanks!"),
        why="A question the agent can answer from what it already read: in turn 2 it calls get_reservation_details('ZFA04Y') five "
        "times in a row and gets the same JSON five times, then answers. R001 stops turn 2 before the third lookup; R002 answers "
        "the 2nd to 5th from its cache (harmless here: the data did not change); P004 stops once the same call has had the same "
        "answer 4 times. The stop ends turn 2 only, with a forced reply built from the same JSON.",
    )
)


# ----- 17. healthy exploration: one anchor file read between many others -----------------

_FLOW_README = (
    "# flowctl\n\n"
    "flowctl runs small data pipelines described in YAML.\n\n"
    "## Layout\n\n"
    "- `src/flowctl/cli.py`: the `flowctl` command (run, validate, graph)\n"
    "- `src/flowctl/plugins/registry.py`: plugin discovery through entry points\n"
    "- `src/flowctl/plugins/loader.py`: lazy import of plugin classes\n"
    "- `src/flowctl/steps/`: built-in steps (read_csv, filter, write_parquet)\n"
    "- `docs/plugins.md`: writing a plugin\n\n"
    "## Plugins\n\n"
    "A step type is a class registered under the `flowctl.steps` entry-point group. Built-in steps are registered the same way "
    "in `pyproject.toml`. See docs/plugins.md.\n"
)
_FLOW_FILES = {
    "src/flowctl/plugins/registry.py": (
        "from importlib.metadata import entry_points\n\nGROUP = \"flowctl.steps\"\n\n\n"
        "def discover() -> dict[str, str]:\n"
        "    \"\"\"Step name -> 'module:Class' for every installed step plugin.\"\"\"\n"
        "    return {ep.name: ep.value for ep in entry_points(group=GROUP)}\n"
    ),
    "src/flowctl/plugins/loader.py": (
        "import importlib\nfrom functools import cache\n\nfrom .registry import discover\n\n\n"
        "@cache\ndef load(step_type: str):\n"
        "    target = discover().get(step_type)\n"
        "    if target is None:\n"
        "        raise KeyError(f\"unknown step type {step_type!r}; installed: {sorted(discover())}\")\n"
        "    module, _, name = target.partition(\":\")\n"
        "    return getattr(importlib.import_module(module), name)\n"
    ),
    "docs/plugins.md": (
        "# Writing a step plugin\n\n"
        "1. Subclass `flowctl.steps.Step` and implement `run(self, frame, **options)`.\n"
        "2. Register it in your package's `pyproject.toml`:\n\n"
        "```toml\n[project.entry-points.\"flowctl.steps\"]\ndedupe = \"flowctl_dedupe:Dedupe\"\n```\n\n"
        "3. `pip install` the package; `flowctl validate` lists the step types it found.\n"
    ),
    "pyproject.toml": (
        "[project]\nname = \"flowctl\"\nversion = \"0.7.2\"\nrequires-python = \">=3.10\"\n"
        "dependencies = [\"pyyaml>=6\", \"pyarrow>=14\"]\n\n"
        "[project.scripts]\nflowctl = \"flowctl.cli:main\"\n\n"
        "[project.entry-points.\"flowctl.steps\"]\nread_csv = \"flowctl.steps.io:ReadCsv\"\n"
        "filter = \"flowctl.steps.transform:Filter\"\nwrite_parquet = \"flowctl.steps.io:WriteParquet\"\n"
    ),
}
_FLOW_USER = "How does flowctl find and load step plugins? I want to add my own step type."
_anchor = [Call("read_file", J({"path": "README.md"}), _FLOW_README)]
scenario(
    Scenario(
        trace="healthy_readme_anchor_exploration",
        file="healthy_readme_anchor_exploration.jsonl",
        title="exploration: README.md read again between reads of four other files (R, a, R, b, R, c, R, d)",
        start="2026-03-19T17:22:04.903Z",
        model="gpt-4.1-2025-04-14",
        request_model="gpt-4.1",
        system="You are a code assistant with read-only access to a repository. Read the files you need before answering; "
        "cite file paths in your answer.",
        user=_FLOW_USER,
        tools=FILE_TOOLS,
        labels={"outcome": "success",
                "scenario": "healthy exploration: the README (the map of the repository) re-read between reads of four other files",
                "source": "healthy"},
        expects=[
            expect("R001", False, None, "the README reads are never consecutive"),
            expect("R002", True, 3, "round 3 re-reads README.md -> block, answered from the cache with the same text (harmless)"),
            expect("R003", False, None, "R, a, R, b, R, c: the block R-x never repeats with the same x"),
            expect("P004", False, None),
            expect("F001", False, None),
            expect("E001", False, None, "read_file found something before the answer"),
        ],
        metadata={"agent": "repo-explainer", "framework": "OpenAI Agents SDK", "required_tools": ["read_file"], "user_query": _FLOW_USER},
        steps=[
            Step("", [Call("read_file", J({"path": "README.md"}), _FLOW_README)]),
            Step("", [Call("read_file", J({"path": "src/flowctl/plugins/registry.py"}), _FLOW_FILES["src/flowctl/plugins/registry.py"])]),
            Step("", list(copy.deepcopy(_anchor))),
            Step("", [Call("read_file", J({"path": "src/flowctl/plugins/loader.py"}), _FLOW_FILES["src/flowctl/plugins/loader.py"])]),
            Step("", list(copy.deepcopy(_anchor))),
            Step("", [Call("read_file", J({"path": "docs/plugins.md"}), _FLOW_FILES["docs/plugins.md"])]),
            Step("", list(copy.deepcopy(_anchor))),
            Step("", [Call("read_file", J({"path": "pyproject.toml"}), _FLOW_FILES["pyproject.toml"])]),
            Step("flowctl finds step types through Python entry points and imports them only when a pipeline uses them.\n\n"
                 "- **Discovery** (`src/flowctl/plugins/registry.py`): `discover()` reads the `flowctl.steps` entry-point group and "
                 "maps each step name to `module:Class`.\n"
                 "- **Loading** (`src/flowctl/plugins/loader.py`): `load(step_type)` looks the name up, imports the module and "
                 "returns the class; results are cached, and an unknown name raises `KeyError` listing the installed ones.\n"
                 "- The built-in steps are registered the same way (`pyproject.toml`: `read_csv`, `filter`, `write_parquet`).\n\n"
                 "To add your own (`docs/plugins.md`): subclass `flowctl.steps.Step`, implement `run(self, frame, **options)`, register "
                 "it under `[project.entry-points.\"flowctl.steps\"]` in your package, `pip install` it, and check with `flowctl validate`.",
                 ms=3640),
        ],
        why="An agent that keeps a map open: it re-reads README.md (the repository layout) before each new file it opens, four "
        "other files in all. The same call recurs, but never twice in a row and never in a repeating block (R, a, R, b, R, c, R, d), "
        "and every other read brings a new file: nothing is stuck. R002 answers the re-reads from its cache, with the text the "
        "file really has, which costs nothing here.",
    )
)


# ---------------------------------------------------------------------------
# Reference arithmetic (README tables and the self-check), not the guards
# ---------------------------------------------------------------------------

# jieba 0.42.1 segmentations of the Chinese queries above (precomputed so this script
# needs no jieba; verified against jieba when it is installed).
JIEBA = {
    "天气": ["天气"],
    "今日天气 气温": ["今日", "天气", "气温"],
    "今日天气 气温 晴雨": ["今日", "天气", "气温", "晴雨"],
    "今日天气预报 气温 晴雨 降水概率": ["今日", "天气预报", "气温", "晴雨", "降水", "概率"],
    "今天 天气 实时 气温 晴雨 预报": ["今天", "天气", "实时", "气温", "晴雨", "预报"],
    "北京天气": ["北京", "天气"],
    "北京今日天气 气温": ["北京", "今日", "天气", "气温"],
    "北京今日天气 气温 湿度": ["北京", "今日", "天气", "气温", "湿度"],
    "SaaS 订阅合同 自动续费": ["saas", "订阅", "合同", "自动", "续费"],
    "SaaS 订阅协议 自动续约": ["saas", "订阅", "协议", "自动", "续约"],
    "软件即服务 合同 续费条款": ["软件", "即", "服务", "合同", "续费", "条款"],
    "自动续费条款 SaaS 协议": ["自动", "续费", "条款", "saas", "协议"],
    "SaaS 合同 续约 自动": ["saas", "合同", "续约", "自动"],
    "续费 条款": ["续费", "条款"],
    "自动续费": ["自动", "续费"],
    "续费": ["续费"],
    "气象": ["气象"],
    "气温实况": ["气温", "实况"],
    "上海天气": ["上海", "天气"],
    "上海今日天气 气温": ["上海", "今日", "天气", "气温"],
    "上海今日天气 气温 湿度": ["上海", "今日", "天气", "气温", "湿度"],
}

SEARCH_NAME = re.compile("search", re.I)
QUERY_KEYS = ("query", "q", "search_query", "keywords")
URL_RE = re.compile(r"https?://[^\s\"'<>)\]，。、]+")


def fingerprint(query: str, tokenizer: str = "char") -> frozenset[str]:
    text = "".join(ch for ch in query.strip().lower() if not unicodedata.category(ch).startswith(("P", "S")))
    if tokenizer == "jieba" and any(is_cjk(ch) for ch in text):
        return frozenset(JIEBA[query])
    tokens: set[str] = set()
    word: list[str] = []
    for ch in text:
        if is_cjk(ch) or ch.isspace():
            if word:
                tokens.add("".join(word))
                word = []
            if is_cjk(ch):
                tokens.add(ch)
        else:
            word.append(ch)
    if word:
        tokens.add("".join(word))
    return frozenset(tokens)


def containment(a: frozenset, b: frozenset) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def search_query(call: Call) -> str | None:
    if not SEARCH_NAME.search(call.name):
        return None
    args = json.loads(call.args)
    for key in QUERY_KEYS:
        if isinstance(args.get(key), str):
            return args[key]
    return None


def p001_walk(sc: Scenario, tokenizer: str = "char", metric=containment, limit: float = 0.8) -> tuple[list[dict], int | None]:
    seen: list[tuple[int, str, frozenset]] = []
    count, fired, rows = 0, None, []
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            seen, count = [], 0
        if step.final:
            continue
        queries = [q for q in (search_query(c) for c in step.calls) if q is not None]
        others = [c for c in step.calls if search_query(c) is None]
        row: dict[str, Any] = {"round": k, "queries": queries, "kind": "search" if queries and not others else ("mixed" if queries else "other")}
        best = None
        for q in queries:
            fp = fingerprint(q, tokenizer)
            for (j, q2, fp2) in seen:
                score = metric(fp, fp2)
                if best is None or score >= best[0]:  # ties: show the latest earlier search
                    best = (score, j, q2, len(fp & fp2), min(len(fp), len(fp2)), len(fp | fp2))
            row.setdefault("fps", []).append(fp)
        row["best"] = best
        if row["kind"] == "search":
            count = count + 1 if best is not None and best[0] >= limit else 0
            if count >= 2 and fired is None:
                fired = k
        elif row["kind"] == "other":
            count = 0
        row["count"] = count
        for q, fp in zip(queries, row.get("fps", [])):
            seen.append((k, q, fp))
        rows.append(row)
    return rows, fired


def p002_walk(sc: Scenario, n: int = 2) -> tuple[list[dict], int | None]:
    seen: set[str] = set()
    count, fired, rows = 0, None, []
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            seen, count = set(), 0
        searches = [c for c in step.calls if search_query(c) is not None]
        if not searches:
            continue
        urls: list[str] = []
        for c in searches:
            for u in URL_RE.findall(c.result):
                if u not in urls:
                    urls.append(u)
        new = [u for u in urls if u not in seen]
        count = 0 if new else count + 1
        if count >= n and fired is None:
            fired = k
        seen.update(urls)
        rows.append({"round": k, "urls": len(urls), "new": len(new), "count": count})
    return rows, fired


def canonical(args: str) -> str:
    try:
        return json.dumps(json.loads(args), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return args


def r001_walk(sc: Scenario, canonical_args: bool = True) -> tuple[list[tuple[int, str, int]], int | None]:
    last, streak, fired, rows = None, 0, None, []
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            last, streak = None, 0
        for c in step.calls:
            sig = c.name + ":" + (canonical(c.args) if canonical_args else c.args)
            streak = streak + 1 if sig == last else 1
            last = sig
            rows.append((k, sig, streak))
            if streak >= 3 and fired is None:
                fired = k
    return rows, fired


FAILURE_PATTERNS = (re.compile(r"^\s*(Error|ERROR|Exception|EXCEPTION|Traceback)\b"), re.compile(r"^\s*[A-Z]\w*(Error|Exception):"))


def failed(call: Call) -> bool:
    """The recorded error flag; without one (SWE-agent), a result that starts like an error."""
    if call.error is not None:
        return call.error
    return any(p.search(call.result) for p in FAILURE_PATTERNS)


def r002_first(sc: Scenario) -> int | None:
    ok: set[str] = set()
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            ok = set()
        for c in step.calls:
            sig = c.name + ":" + c.args
            if sig in ok:
                return k
        for c in step.calls:
            if not failed(c):
                ok.add(c.name + ":" + c.args)
    return None


def f001_walk(sc: Scenario, n: int = 3) -> tuple[list[tuple[int, str, int]], int | None]:
    streaks: dict[str, int] = {}
    fired, rows = None, []
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            streaks = {}
        for c in step.calls:
            streaks[c.name] = streaks.get(c.name, 0) + 1 if failed(c) else 0
            rows.append((k, c.name, streaks[c.name]))
            if streaks[c.name] >= n and fired is None:
                fired = k
    return rows, fired


EMPTY_RE = re.compile(r"^\s*(\[\]|\{\}|)\s*$|^No (matches|results) found", re.I)


def e001_first(sc: Scenario) -> int | None:
    required_all = list(sc.metadata.get("required_tools", []))
    required_any = list(sc.metadata.get("required_any_of", []))
    if not required_all and not required_any:
        return None
    productive: set[str] = set()
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            productive = set()
        if step.final:
            missing = [t for t in required_all if t not in productive]
            if required_any and not any(t in productive for t in required_any):
                missing.append("any of " + ", ".join(required_any))
            if missing:
                return k
        for c in step.calls:
            if not failed(c) and not EMPTY_RE.search(c.result):
                productive.add(c.name)
    return None


def p003_seed(sc: Scenario, threshold: float = 0.7, stagnant_max: int = 2) -> tuple[list[tuple[int, float | None, int]], int | None]:
    """Seed 002's plan B as written: difflib ratio of the new observation against all kept ones joined."""
    kept: list[str] = []
    stagnant, fired, rows = 0, None, []
    for k, step in enumerate(sc.steps, 1):
        if k in sc.turn_starts:
            kept, stagnant = [], 0
        for c in step.calls:
            if not kept:
                kept.append(c.result)
                rows.append((k, None, 0))
                continue
            ratio = difflib.SequenceMatcher(None, " ".join(kept), c.result).ratio()
            if ratio > threshold:
                stagnant += 1
            else:
                stagnant = 0
                kept.append(c.result)
            rows.append((k, ratio, stagnant))
            if stagnant >= stagnant_max and fired is None:
                fired = k
    return rows, fired


def cumulative_tokens(sc: Scenario) -> list[int]:
    total, out = 0, []
    for step in sc.steps:
        total += step.input_tokens + step.output_tokens
        out.append(total)
    return out


REFERENCE = {
    "P001": lambda sc: p001_walk(sc)[1],
    "P002": lambda sc: p002_walk(sc)[1],
    "P003": lambda sc: p003_seed(sc)[1],
    "R001": lambda sc: r001_walk(sc)[1],
    "R002": r002_first,
    "F001": lambda sc: f001_walk(sc)[1],
    "E001": e001_first,
}


def self_check() -> list[str]:
    problems = []
    ids = [sc.trace for sc in SCENARIOS]
    if len(ids) != len(set(ids)):
        problems.append("duplicate trace ids")
    for sc in SCENARIOS:
        for exp in sc.expects:
            ref = REFERENCE.get(exp["guard"])
            if ref is None:
                continue
            got = ref(sc)
            if exp["fires"] and (got is None or (exp["by_round"] is not None and got > exp["by_round"])):
                problems.append(f"{sc.trace}: expects {exp['guard']} by round {exp['by_round']}, reference fires at {got}")
            if exp["fires"] and exp["by_round"] is not None and got is not None and got < exp["by_round"]:
                problems.append(f"{sc.trace}: expects {exp['guard']} at round {exp['by_round']}, reference fires earlier, at {got}")
            if not exp["fires"] and got is not None:
                problems.append(f"{sc.trace}: expects {exp['guard']} not to fire, reference fires at {got}")
        for k, step in enumerate(sc.steps, 1):
            if not 20 <= step.output_tokens <= 200:
                problems.append(f"{sc.trace} round {k}: output tokens {step.output_tokens} outside 20..200")
            if not 800 <= step.end - step.start <= 4000:
                problems.append(f"{sc.trace} round {k}: LLM latency {step.end - step.start} ms outside 0.8..4 s")
            for c in step.calls:
                if not 300 <= c.end - c.start <= 6000:
                    problems.append(f"{sc.trace} round {k}: {c.name} took {c.end - c.start} ms, outside 0.3..6 s")
                json.loads(c.args)
        submitted = bool(sc.steps) and [c.name for c in sc.steps[-1].calls] == ["submit"]  # SWE-agent ends at submit
        if sc.steps and sc.end_error is None and not sc.steps[-1].final and not submitted:
            problems.append(f"{sc.trace}: ends without a final answer but has no end error")
        if sc.steps and sc.steps[0].user not in (None, sc.user):
            problems.append(f"{sc.trace}: the first user message is not the scenario's question")
        for k in sc.turn_starts:
            if not sc.steps[k - 2].final:
                problems.append(f"{sc.trace} round {k}: the user speaks while round {k - 1}'s calls await results")
    try:  # verify the precomputed jieba table when jieba is around
        import logging

        import jieba  # type: ignore[import-not-found]

        jieba.setLogLevel(logging.ERROR)
        for query, words in JIEBA.items():
            got = [w.lower() for w in jieba.lcut(query) if w.strip()]
            if got != words:
                problems.append(f"jieba segments {query!r} as {got}, table says {words}")
    except ImportError:
        pass
    return problems


# ---------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------


def fmt_set(fp: frozenset) -> str:
    return "{" + ",".join(sorted(fp, key=lambda t: (not is_cjk(t[0]), t))) + "}"


def p001_table(sc: Scenario, with_jieba: bool) -> str:
    rows, fired = p001_walk(sc)
    jrows, jfired = p001_walk(sc, "jieba") if with_jieba else ([], None)
    jac_rows, jac_fired = p001_walk(sc, metric=jaccard)
    head = "| round | query | tokens (char) | most similar earlier search | containment | Jaccard of that pair | counter |"
    if with_jieba:
        head += " jieba containment | jieba counter |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for i, row in enumerate(rows):
        if row["kind"] == "other":
            cells = [str(row["round"]), "*(no search)*", "", "", "", "", f"{row['count']} (reset)"]
            if with_jieba:
                cells += ["", str(jrows[i]["count"])]
            lines.append("| " + " | ".join(cells) + " |")
            continue
        query = " + ".join(f"`{q}`" for q in row["queries"])
        if row["kind"] == "mixed":
            query += " *(mixed round, with a non-search call)*"
        fps = " ".join(f"{fmt_set(fp)} ({len(fp)})" for fp in row["fps"])
        best = row["best"]
        if best is None:
            near, cont, jac = "—", "—", "—"
        else:
            score, j, q2, inter, small, union = best
            near = f"round {j} `{q2}`"
            cont = f"{inter}/{small} = {inter / small:.2f}"
            jac = f"{inter}/{union} = {inter / union:.2f}"
        counter = str(row["count"])
        if row["kind"] == "mixed":
            counter += " (not counted)"
        if fired == row["round"]:
            counter += " → **stop**"
        cells = [str(row["round"]), query, fps, near, cont, jac, counter]
        if with_jieba:
            jb = jrows[i]["best"]
            jc = f"{jb[3]}/{jb[4]} = {jb[0]:.2f}" if jb else "—"
            jcount = str(jrows[i]["count"]) + (" → **stop**" if jfired == row["round"] else "")
            cells += [jc, jcount]
        lines.append("| " + " | ".join(cells) + " |")
    note = f"P001 (char, containment ≥ 0.8, threshold 2): {'stops before the tools of round ' + str(fired) if fired else 'never fires'}."
    note += f" With `metric=jaccard`: {'round ' + str(jac_fired) if jac_fired else 'never fires'}."
    if with_jieba:
        note += f" With `tokenizer=jieba`: {'round ' + str(jfired) if jfired else 'never fires'}."
    return "\n".join(lines) + "\n\n" + note + "\n"


def p002_table(sc: Scenario) -> str:
    rows, fired = p002_walk(sc)
    lines = ["| round | URLs in results | new URLs | no-progress counter |", "|---|---|---|---|"]
    for r in rows:
        counter = str(r["count"]) + (" → **stop** (after tools)" if fired == r["round"] else "")
        lines.append(f"| {r['round']} | {r['urls']} | {r['new']} | {counter} |")
    return "\n".join(lines) + "\n"


def expect_cell(sc: Scenario) -> str:
    parts = []
    for e in all_expects(sc):
        if e["fires"]:
            parts.append(f"**{e['guard']}** by round {e['by_round']}" if e["by_round"] else f"**{e['guard']}** fires")
        else:
            parts.append(f"{e['guard']} silent")
    return "; ".join(parts)


def duration(sc: Scenario) -> float:
    last = sc.steps[-1]
    end = max([last.end] + [c.end for c in last.calls])
    return (end - sc.steps[0].start) / 1000


def readme() -> str:
    out: list[str] = []
    w = out.append
    w("# Sample traces\n")
    w("Recorded-style agent transcripts, each labelled with its outcome and with what tracecheck's guards should do on it. "
      "They are generated by `scripts/make_samples.py` (deterministic: re-running it rewrites the same bytes; `--check` only verifies); "
      "edit the script, not the files. The script also recomputes every number below from the traces and refuses to write samples whose "
      "`expect` events disagree with the seeds' arithmetic.\n")
    w("Try them:\n")
    w("```console\n$ tracecheck replay sample_traces/\n$ tracecheck show sample_traces/seed000_weather_loop.jsonl --trace seed000_weather_loop\n"
      "$ tracecheck replay sample_traces/ --tokenizer char,jieba   # P001 per character vs per jieba word\n```\n")
    w("Every native file holds, per trace: a `trace` header (metadata: the user's question, limits, `required_tools` for the evidence gate), "
      "a `labels` event (`outcome` success/failure, `scenario`, `source`), `expect` events (guard, fires or not, at the latest by which round), "
      "then one `round` event per model response followed by one `result` event per tool call, and an `end` event "
      "(with `error` when the run ended without an answer). A conversation also has a `user` event for each message of the user, before the "
      "rounds that answer it: each opens a turn, and a round without tool calls is the agent's reply that ends it. "
      "Usage is per round as the provider reported it; input tokens grow round by round "
      "because each request carries the whole history. Times are UTC. The SWE-agent-shaped runs (`swe_*`) end at `submit` (whose "
      "result is the diff) or with SWE-agent's exit status as the `end` error, and their results have no `is_error`: SWE-agent "
      "records no error flag, so the guards read failures from the text.\n")
    w("An expectation on a guard says what that guard does with its own default options (the test suite checks each one with "
      "every guard named); a replay checks it when its settings run the guard, and counts the others as not checked "
      "(`--preset seeds` runs the seeds' guards, `--set CODE.enabled=true` adds one). An expectation on `policy` says what any "
      "good policy does with the trace, whatever its guards: stop the loop by that round, or leave the healthy run alone. "
      "The `default` preset meets all of them; `tracecheck replay --preset NAME,default sample_traces/` shows which another "
      "preset breaks.\n")
    w("\"Round k\" is the k-th model response. Guards that act *before tools* (P001, R001) stop before round k's calls run; "
      "guards that act *after tools* (P002, P003, F001) stop once round k's results are in; E001 acts on a final answer.\n")
    w("## Files\n")
    w("| file | trace | outcome | rounds | what should happen | scenario |")
    w("|---|---|---|---|---|---|")
    for sc in SCENARIOS:
        rounds = f"{len(sc.steps)}{' (no answer)' if sc.end_error else ''}{f' in {sc.turns} turns' if sc.turns > 1 else ''}"
        w(f"| `{sc.file}` | `{sc.trace}` | {sc.labels['outcome']} | {rounds} | {expect_cell(sc)} | {sc.title} |")
    w("")
    w("Other formats (no labels or expectations: those formats have no place for them):\n")
    w("| file | format | same run as |")
    w("|---|---|---|")
    w("| `openai/seed004_query_db_identical.jsonl` | OpenAI Chat Completions request/response log, one round per line "
      "(request *k*+1 repeats the whole history, including round *k*'s tool messages) | `seed004_query_db_identical` |")
    w("| `openai/seed000_weather_loop.finetune.jsonl` | OpenAI fine-tuning conversation, the whole run on one line "
      "(no usage, no timestamps; includes the system message the maxRounds path injected before the forced answer) | `seed000_weather_loop` |")
    w("| `langchain/healthy_progressive_search.json` | LangChain `messages_to_dict` list (no timestamps) | `healthy_progressive_search` |")
    w("")

    w("## The scenarios, and the arithmetic\n")
    w("Fingerprints follow seed 000: trim, lowercase, drop punctuation, then one token per CJK character and one per whitespace-separated word "
      "otherwise, as a set. Containment = |A∩B| / min(|A|,|B|), against *every* earlier search of the trace (the table shows the best match); "
      "≥ 0.8 is similar. A round of only searches with a similar one adds 1 to the counter, a round of only dissimilar searches or only other "
      "tools resets it, a mixed round leaves it alone. At 2, P001 stops before the round's tools. The tables keep counting past the stop, "
      "to show what the guard would have seen had the run gone on. The Jaccard column (|A∩B| / |A∪B| of the same pair) shows why seed 000 "
      "dropped it. The jieba columns use jieba 0.42.1's words instead of characters (`--tokenizer jieba`).\n")

    by_id = {sc.trace: sc for sc in SCENARIOS}

    def section(trace: str, heading: str, *, p001=False, jieba=False, p002=False) -> None:
        sc = by_id[trace]
        w(f"### {heading}\n")
        w(f"`{sc.file}`, trace `{sc.trace}` — {sc.labels['outcome']}, {len(sc.steps)} round{'s' if len(sc.steps) != 1 else ''}"
          f"{f' in {sc.turns} turns' if sc.turns > 1 else ''}, {duration(sc):.1f} s, "
          f"{cumulative_tokens(sc)[-1]:,} tokens in total. Source: {sc.labels['source']}.\n")
        w(sc.why + "\n")
        if p001:
            w(p001_table(sc, jieba))
        if p002:
            w("URL novelty (P002, N = 2):\n")
            w(p002_table(sc))
        notes = [e for e in sc.expects if e.get("note")]
        if notes:
            w("Expectations:\n")
            for e in notes:
                verb = f"fires by round {e['by_round']}" if e["fires"] and e["by_round"] else ("fires" if e["fires"] else "does not fire")
                w(f"- **{e['guard']}** {verb}: {e['note']}.")
            w("")

    section("seed000_weather_loop", "1. Seed 000: the weather query, rewritten until maxRounds", p001=True, jieba=True, p002=True)
    section("seed000_containment_vs_jaccard", "2. Seed 000: containment vs Jaccard (北京天气 / 北京今日天气 气温)", p001=True, jieba=True)
    section("seed002_contract_search_token_limit", "3. Seed 002: eight contract searches, then the context window overflows", p001=True, jieba=True, p002=True)
    w("search_contract returns compact JSON, so a URL ends at its closing quote (`\"url\":\"https://…/KB-LEGAL-0142\",\"score\":0.91,…`): "
      "an extractor that runs to the next whitespace would glue the per-query score to the URL and see 'new' URLs every round.\n")
    sc3 = by_id["seed002_contract_search_token_limit"]
    w("Input tokens per round (the clause texts are long; the logger kept 200 characters of each, the usage is the provider's): "
      + " → ".join(f"{s.input_tokens:,}" for s in sc3.steps)
      + ". The ninth request would have carried about "
      + f"{sc3.steps[-1].input_tokens + sc3.steps[-1].output_tokens + sum(c.tokens + 13 for c in sc3.steps[-1].calls):,}"
      + " tokens, over gpt-4o's 128,000: `Token limit exceeded`, no answer.\n")
    rows, fired = p003_seed(sc3)
    w("For P003: seed 002's plan B, taken literally (difflib ratio of each new observation against all earlier novel observations joined), "
      "gives " + ", ".join(f"{r:.2f}" for (_, r, _) in rows if r is not None)
      + " for rounds 2-8 — it never fires, because joining every earlier observation makes the reference text longer and longer, so "
      "the ratio falls even though the same contracts come back. This trace is why P003 needs a novelty measure that does not "
      "shrink as the history grows (no expectation is set for P003 here).\n")
    section("seed004_query_db_identical", "4. Seed 004: query_db returns [] and the model asks again")
    _r001_lines("seed004_query_db_identical", by_id, w)
    section("seed004_report_polling", "5. Seed 004: a legitimate poll")
    _r001_lines("seed004_report_polling", by_id, w)
    section("seed004_key_order_drift", "6. Seed 004: the same call with its JSON keys reordered")
    _r001_lines("seed004_key_order_drift", by_id, w)
    _r001_lines("seed004_key_order_drift", by_id, w, canonical_args=False)
    section("seed001_read_file_failure_streak", "7a. Seed 001: the same tool failing three times in a row")
    _f001_lines("seed001_read_file_failure_streak", by_id, w)
    section("seed001_read_file_recovers", "7b. Seed 001: failures interrupted by a success")
    _f001_lines("seed001_read_file_recovers", by_id, w)
    section("seed001_answer_without_search", "8a. Seed 001: an answer without evidence")
    section("seed001_answer_after_failed_search", "8b. Seed 001: an answer after a failed search")
    section("seed001_answer_after_empty_search", "8c. Seed 001: an answer after a search that found nothing")
    section("seed000_synonym_same_urls", "9. Seed 000 v2: synonyms the fingerprint misses, URLs that give it away", p001=True, jieba=True, p002=True)
    sc9 = by_id["seed000_synonym_same_urls"]
    rows, fired = p003_seed(sc9)
    w("P003 (seed 002's difflib ratio): " + ", ".join(f"round {k}: {r:.2f}" for (k, r, _) in rows if r is not None)
      + f" → 2 stagnant observations → stop after round {fired}.\n")
    section("seed000_mixed_round", "10. Seed 000: the mixed round", p001=True, jieba=True)
    section("healthy_progressive_search", "11a. Healthy: progressive search", p001=True, p002=True)
    section("healthy_pagination", "11b. Healthy: pagination")
    section("healthy_fix_and_retest", "11c. Healthy: fix and re-test")
    _r001_lines("healthy_fix_and_retest", by_id, w)
    section("alternating_ab_loop", "12. An A-B-A-B loop")
    _r001_lines("alternating_ab_loop", by_id, w)
    sc12 = by_id["alternating_ab_loop"]
    cum = cumulative_tokens(sc12)
    budgets = [int(round(cum[-1] * share, -3)) for share in (0.3, 0.6)]
    reached = [next(i for i, t in enumerate(cum, 1) if t >= b) for b in budgets]
    w("Cumulative tokens (input + output) after each round: " + " → ".join(f"{t:,}" for t in cum) + ". "
      f"A token budget (B002, off by default) of {budgets[0]:,} would stop once round {reached[0]} is done, "
      f"one of {budgets[1]:,} once round {reached[1]} is done. "
      "An OpenHands-style cycle detector (period 2 repeated 3 times) sees the third lap complete at round 6; Gemini CLI's (5 repetitions) "
      "needs 10 calls, more than this trace has. "
      "P003 as seed 002 wrote it does not fire either (difflib ratios " + ", ".join(f"{r:.2f}" for (_, r, _) in p003_seed(sc12)[0] if r is not None)
      + ": the joined history dilutes the ratio), although from round 3 on every observation repeats one seen before word for word.\n")
    section("seed000_weather_loop_en", "13a. Seed 000 in English: words added round after round", p001=True, p002=True)
    section("seed000_synonym_same_urls_en", "13b. Seed 000 v2 in English: synonyms, same URLs", p001=True, p002=True)
    rows, fired = p003_seed(by_id["seed000_synonym_same_urls_en"])
    w("P003 (seed 002's difflib ratio): " + ", ".join(f"round {k}: {r:.2f}" for (k, r, _) in rows if r is not None)
      + f" → 2 stagnant observations → stop after round {fired}.\n")
    section("tau_retail_order_lookup_loop", "14. A τ-bench-style dialogue: five turns, one of them stuck")
    _turn_lines("tau_retail_order_lookup_loop", by_id, w)
    _r001_lines("tau_retail_order_lookup_loop", by_id, w)
    _f001_lines("tau_retail_order_lookup_loop", by_id, w)
    _turn_saving_lines("tau_retail_order_lookup_loop", by_id, w)
    extras = {"r001": _r001_lines, "f001": _f001_lines, "turns": _turn_lines}
    for trace, heading, parts in NEW_SECTIONS:
        section(trace, heading)
        for part in parts:
            extras[part](trace, by_id, w)

    w("## Timing and tokens at a glance\n")
    w("| trace | model | rounds | tool calls | wall time | input tokens, first → last round | total tokens |")
    w("|---|---|---|---|---|---|---|")
    for sc in SCENARIOS:
        calls = sum(len(s.calls) for s in sc.steps)
        w(f"| `{sc.trace}` | {sc.model} | {len(sc.steps)} | {calls} | {duration(sc):.1f} s | "
          f"{sc.steps[0].input_tokens:,} → {sc.steps[-1].input_tokens:,} | {cumulative_tokens(sc)[-1]:,} |")
    w("")
    return "\n".join(out)


# The SWE-agent and τ-bench samples: README heading and the reference lines shown under it.
NEW_SECTIONS = [
    ("swe_test_view_loop", "15a. SWE-agent: test, view, test, view, … (A-B-A-B)", ["r001"]),
    ("swe_same_error_changing_commands", "15b. SWE-agent: one error, six commands", ["f001"]),
    ("swe_healthy_reproduce_edit_retest", "15c. SWE-agent, healthy: the same commands, a changing repository", ["r001", "f001"]),
    ("swe_healthy_goto_scroll", "15d. SWE-agent, healthy: reading a long file window by window", ["r001"]),
    ("swe_scroll_end_loop", "15e. SWE-agent: scroll_down at the end of the file", ["r001"]),
    ("tau_retail_exchange_bad_args_recover", "16a. τ-bench-style retail, healthy: two bad arguments, then the right one", ["turns", "f001"]),
    ("tau_airline_flexible_dates_booking", "16b. τ-bench-style airline, healthy: empty searches over changing dates", ["turns"]),
    ("tau_retail_apology_loop", "16c. τ-bench-style retail: the same apology, turn after turn", ["turns"]),
    ("tau_airline_same_lookup_loop", "16d. τ-bench-style airline: one lookup five times in a turn", ["turns", "r001"]),
    ("healthy_readme_anchor_exploration", "17. Healthy: exploring around an anchor file", ["r001"]),
]


def _r001_lines(trace: str, by_id: dict, w, canonical_args: bool = True) -> None:
    sc = by_id[trace]
    rows, fired = r001_walk(sc, canonical_args)
    label = "canonical_args on (sorted keys)" if canonical_args else "canonical_args off (raw strings, as seed 004 ships)"
    steps = []
    for k, sig, streak in rows:
        action = {2: " hint"}.get(streak, " **stop**" if streak >= 3 else "")
        shown = sig if len(sig) <= 70 else sig[:60] + "…"
        steps.append(f"r{k} `{shown}` → {streak}{action}")
    w(f"R001 identical-call streak, {label}:\n")
    for s in steps:
        w(f"- {s}")
    w("")
    w(f"→ {'stop before round ' + str(fired) + ' runs' if fired else 'no stop'}.\n")


def _turn_lines(trace: str, by_id: dict, w) -> None:
    sc = by_id[trace]
    starts = [1] + sorted(sc.turn_starts) + [len(sc.steps) + 1]
    w("| turn | the user says | rounds | tool calls | the turn ends with |")
    w("|---|---|---|---|---|")
    for turn, (first, after) in enumerate(zip(starts, starts[1:]), 1):
        steps = sc.steps[first - 1 : after - 1]
        said = steps[0].user or sc.user
        calls = ", ".join(f"{c.name}{' ✗' if c.error else ''}" for s in steps for c in s.calls) or "—"
        rounds = str(first) if first == after - 1 else f"{first}–{after - 1}"
        w(f"| {turn} | {said} | {rounds} | {calls} | round {after - 1}: \"{steps[-1].text[:60]}…\" |")
    w("")
    if sc.closing:
        w(f"Then the user closes with \"{sc.closing}\": no round answers it, so it opens no turn. ✗ = the tool failed.\n")


def _turn_saving_lines(trace: str, by_id: dict, w) -> None:
    """The policy's saving for a stop before the tools of round k (R001), which ends k's turn only."""
    sc = by_id[trace]
    _, k = r001_walk(sc)
    end = min([t for t in sc.turn_starts if t > k] + [len(sc.steps) + 1]) - 1  # the turn's last round
    later = sc.steps[k:end]
    later_tokens = [s.input_tokens + s.output_tokens for s in later]
    stop = sc.steps[k - 1]
    forced = stop.input_tokens + stop.output_tokens + 40 + sc.steps[end - 1].output_tokens
    calls = len(stop.calls) + sum(len(s.calls) for s in later)
    seconds = (sc.steps[end - 1].end - stop.end - (sc.steps[end - 1].end - sc.steps[end - 1].start)) / 1000
    w(f"The policy (R001 first): stop before round {k}'s call runs. Rounds {k + 1}–{end} never happen "
      f"({' + '.join(f'{t:,}' for t in later_tokens)} = {sum(later_tokens):,} tokens), nor do {calls} tool calls (round {k}'s and the later rounds'); "
      f"one forced reply does, estimated at round {k}'s context and output ({stop.input_tokens:,} + {stop.output_tokens}), the 40-token closing "
      f"prompt and the real reply's length ({sc.steps[end - 1].output_tokens}): {forced:,} tokens. Saved: {len(later) - 1} LLM "
      f"call{'s' if len(later) != 2 else ''}, {calls} tool calls, "
      f"{sum(later_tokens) - forced:,} tokens, {seconds:.1f} s (from round {k}'s end to round {end}'s, less the real reply's own time). "
      f"The stop ends turn {1 + sum(1 for t in sc.turn_starts if t <= k)} only: turns after it happen as recorded and are not counted as saved, "
      f"and the run still ends with its own final answer.\n")


def _f001_lines(trace: str, by_id: dict, w) -> None:
    rows, fired = f001_walk(by_id[trace])
    w("F001 per-tool failure streak: " + ", ".join(f"r{k} {name} {streak}" for (k, name, streak) in rows)
      + f" → {'abort after round ' + str(fired) if fired else 'no abort'}.\n")


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def dumps_line(value: Any) -> bytes:
    return orjson.dumps(value) + b"\n"


def render_all() -> dict[str, bytes]:
    files: dict[str, bytearray] = {}
    for sc in SCENARIOS:
        buf = files.setdefault(sc.file, bytearray())
        for event in native_events(sc):
            buf += dumps_line(event)
    by_id = {sc.trace: sc for sc in SCENARIOS}
    files["openai/seed004_query_db_identical.jsonl"] = bytearray(
        b"".join(dumps_line(line) for line in openai_request_response(by_id["seed004_query_db_identical"]))
    )
    files["openai/seed000_weather_loop.finetune.jsonl"] = bytearray(dumps_line(openai_finetune(by_id["seed000_weather_loop"])))
    files["langchain/healthy_progressive_search.json"] = bytearray(
        orjson.dumps(langchain_messages(by_id["healthy_progressive_search"]), option=orjson.OPT_INDENT_2) + b"\n"
    )
    files["README.md"] = bytearray(readme().encode())
    return {name: bytes(data) for name, data in files.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: sample_traces/ of the repository)")
    parser.add_argument("--check", action="store_true", help="verify the scenarios against the reference arithmetic; write nothing")
    args = parser.parse_args(argv)
    problems = self_check()
    for p in problems:
        print(f"make_samples: {p}", file=sys.stderr)
    if problems:
        return 1
    files = render_all()
    if args.check:
        print(f"make_samples: {len(SCENARIOS)} traces, {len(files)} files: OK", file=sys.stderr)
        return 0
    for name, data in sorted(files.items()):
        path = args.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"make_samples: wrote {len(files)} files ({len(SCENARIOS)} native traces) to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
