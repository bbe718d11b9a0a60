"""A seeded corpus of agent transcripts for the benchmarks, from 1 MB to 1 GB and more.

    python benchmarks/corpus.py --size 10MB --seed 1 OUT_DIR [--long-rounds 2000]

Writes, below ``OUT_DIR``:

- ``native/part-NNNN.jsonl``: tracecheck's own JSONL, many traces per file (the very long
  traces live here);
- ``openai/part-NNNN.jsonl``: Chat Completions request/response pairs as a logging proxy
  writes them (each request resends the history; short runs only, as such logs are);
- ``anthropic/part-NNNN.jsonl``: Anthropic Messages requests, one whole conversation per
  line (``tool_result`` blocks with ``is_error``);
- ``tau2/results-NNNN.json``: τ²-bench results documents (``simulations`` of messages
  with ``turn_idx``, ``usage``, ``error``);
- ``swe_agent/<instance>.traj``: SWE-agent 1.x trajectories (function calling), one run
  per file, pretty-printed, all ``submitted``; ``swe_agent/results.json`` grades them as
  the SWE-bench harness's run summary does (``resolved_ids``: the healthy runs,
  ``unresolved_ids``: the loops), since a submit is no verdict;
- ``.manifest.json`` (hidden, so a directory replay skips it): the seed, the size asked for, and per format and per kind of run
  the traces, rounds and bytes written.

Runs are Chinese or English, healthy (searches that find new pages, coding fixes,
support lookups) or stuck in a loop (query rewrites over the same pages, identical
calls, A-B cycles, a failing tool), mostly short (3–12 rounds) with a few very long
ones (``--long-rounds``, 2,000 by default; about 15 % of the bytes, at least one).
Tool results are 1–20 KB (1–3 KB in the long runs). The same seed, size and options
give the same bytes. Files are written as they are generated (the largest thing held
in memory is one run), and rotate at 64 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

PART_BYTES = 64 * 1024 * 1024
T0 = 1767225600.0  # 2026-01-01T00:00:00Z
FORMATS = ("native", "openai", "anthropic", "tau2", "swe_agent")
FORMAT_WEIGHTS = (40, 20, 15, 15, 10)
KINDS = ("search", "coding", "support", "rewrite_loop", "identical_loop", "ab_cycle", "failing_tool")
KIND_WEIGHTS = (22, 14, 14, 14, 14, 11, 11)
SYSTEM = {"en": "You are a careful research and coding assistant. Use the tools, then answer.",
          "zh": "你是一个严谨的研究与编程助手。先使用工具，再回答。"}

EN_WORDS = (
    "the of and to in is for that with on as by are this be from or it an at which have not was can "
    "but all data were more their has one its also when there will other these new used than been "
    "system model request response server client timeout retry policy cache error value result file "
    "config version update release support contract renewal subscription price annual monthly plan "
    "weather forecast temperature city today rain wind report market growth revenue quarter customer "
    "order refund shipping address payment invoice account user password token limit rate window "
    "function method class module package import install build test fails passes patch diff branch "
    "commit merge review issue pull query database table index schema migration latency throughput "
    "memory process thread queue worker job batch stream event log trace span metric alert deploy"
).split()
ZH_WORDS = (
    "天气 气温 今日 北京 上海 预报 降雨 合同 订阅 自动 续费 价格 年度 月度 方案 市场 增长 收入 季度 客户 "
    "订单 退款 物流 地址 支付 发票 账户 用户 密码 限额 速率 函数 方法 模块 安装 构建 测试 失败 通过 补丁 "
    "分支 提交 合并 审查 问题 查询 数据库 索引 迁移 延迟 吞吐 内存 进程 线程 队列 任务 日志 指标 告警 部署 "
    "服务器 客户端 超时 重试 策略 缓存 错误 结果 文件 配置 版本 更新 发布 政策 规定 标准 分析 报告 研究"
).split()
HOSTS = ("docs.python.org", "zhuanlan.zhihu.com", "blog.csdn.net", "stackoverflow.com", "www.gov.cn",
         "news.sina.com.cn", "github.com", "developer.mozilla.org", "www.reuters.com", "baike.baidu.com")


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?)B?\s*", text.upper())
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 10MB, 1GB)")
    return int(float(match[1]) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match[2]])


def iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def naive(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds")


# --- text ------------------------------------------------------------------------------


class Text:
    """Pools of paragraphs per language (built once per seed), mixed into results with
    fresh titles, URLs and numbers, so results are realistic text at generator speed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        hanzi = [chr(c) for c in rng.sample(range(0x4E00, 0x9FA6), 1500)]
        weights = [1 / (k + 1) for k in range(len(hanzi))]
        zh_vocab = ZH_WORDS + ["".join(rng.choices(hanzi, weights, k=rng.choice((1, 2, 2, 3)))) for _ in range(1500)]
        en_vocab = EN_WORDS + ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))) for _ in range(1500)]
        self.vocab = {"en": en_vocab, "zh": zh_vocab}
        self.paragraphs = {
            "en": [self._en_paragraph() for _ in range(3000)],
            "zh": [self._zh_paragraph() for _ in range(3000)],
        }

    def _en_paragraph(self) -> str:
        rng = self.rng
        sentences = []
        for _ in range(rng.randint(2, 5)):
            words = rng.choices(self.vocab["en"], k=rng.randint(8, 22))
            sentences.append(" ".join(words).capitalize() + ".")
        return " ".join(sentences)

    def _zh_paragraph(self) -> str:
        rng = self.rng
        return "".join("".join(rng.choices(self.vocab["zh"], k=rng.randint(6, 18))) + "。" for _ in range(rng.randint(2, 5)))

    def words(self, lang: str, k: int) -> str:
        chosen = self.rng.sample(self.vocab[lang][:200], k)
        return ("" if lang == "zh" else " ").join(chosen)

    def fresh_words(self, lang: str, k: int, avoid: str) -> str:
        """``k`` words from the whole vocabulary sharing nothing with ``avoid`` (the topic
        and the last 50 queries, P001's window; for Chinese, no character, as P001 splits
        it per character):
        the changing part of a healthy run's queries. Drawn from the common words only,
        two queries of a 2,000-round run sooner or later match by chance and look like
        a loop, which is not what a healthy run is for."""
        avoided = set(avoid) if lang == "zh" else set(avoid.split())
        chosen: list[str] = []
        while len(chosen) < k:
            word = self.rng.choice(self.vocab[lang])
            parts = set(word) if lang == "zh" else {word}
            if not parts & avoided:
                chosen.append(word)
                avoided |= parts
        return ("" if lang == "zh" else " ").join(chosen)

    def filler(self, lang: str, chars: int) -> str:
        out, total = [], 0
        while total < chars:
            p = self.rng.choice(self.paragraphs[lang])
            out.append(p)
            total += len(p) + 1
        return "\n".join(out)

    def search_results(self, lang: str, query: str, chars: int, pages: list[int]) -> str:
        """Ranked results about ``query``: one block per page id (its URL is stable, so
        the same pages come back the same), until ``chars`` characters."""
        rng = self.rng
        lines = []
        total = 0
        for rank, page in enumerate(pages, 1):
            host = HOSTS[page % len(HOSTS)]
            snippet = self.paragraphs[lang][page % len(self.paragraphs[lang])]
            block = f"{rank}. {query} — {self.vocab[lang][page % 200]} ({page})\n   https://{host}/a/{page}\n   {snippet}"
            lines.append(block)
            total += len(block)
            if total >= chars:
                break
        if total < chars:
            lines.append(self.filler(lang, chars - total))
        del rng
        return "\n".join(lines)


# --- runs ------------------------------------------------------------------------------


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    result: str
    is_error: bool = False


@dataclass
class Step:
    text: str
    calls: list[Call]
    input_tokens: int
    output_tokens: int
    started_at: float
    ended_at: float


@dataclass
class Run:
    id: str
    kind: str
    lang: str
    question: str
    steps: list[Step] = field(default_factory=list)
    success: bool = True

    @property
    def answer(self) -> str:
        return self.steps[-1].text


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.text = Text(self.rng)
        self.page = 0  # fresh page ids
        self.clock = T0

    def fresh_pages(self, n: int) -> list[int]:
        self.page += n
        return list(range(self.page - n, self.page))

    def result_chars(self, long: bool) -> int:
        if long:
            return self.rng.randint(1000, 3000)
        # 1–20 KB, most near the low end (median about 2 KB)
        return int(1000 * 20 ** (self.rng.random() ** 2))

    def run(self, number: int, kind: str, lang: str, rounds: int | None = None, max_result: int | None = None) -> Run:
        rng, t = self.rng, self.text
        long = rounds is not None
        topic = t.words(lang, 3)
        question = (f"请帮我查一下：{topic}" if lang == "zh" else f"Please find out about {topic}.")
        run = Run(id=f"{kind}-{lang}-{number:07d}", kind=kind, lang=lang, question=question,
                  success=kind in ("search", "coding", "support"))
        size = (lambda: min(max_result, self.result_chars(long))) if max_result else (lambda: self.result_chars(long))
        plan: list[list[Call]] = []
        if kind == "search":
            recent: deque[str] = deque(maxlen=50)
            for k in range(rounds or rng.randint(3, 10)):
                fresh = t.fresh_words(lang, 2, " ".join((topic, *recent)))
                recent.append(fresh)
                q = f"{fresh} {topic} {k}"
                plan.append([Call("web_search", {"query": q}, t.search_results(lang, q, size(), self.fresh_pages(8)))])
        elif kind == "coding":
            for k in range(rounds or rng.randint(3, 12)):
                path = f"src/{t.words('en', 1)}/{t.words('en', 1)}_{k}.py"
                step = k % 3
                if step == 0:
                    plan.append([Call("read_file", {"path": path}, t.filler(lang, size()))])
                elif step == 1:
                    plan.append([Call("edit_file", {"path": path, "old": t.words("en", 2), "new": t.words("en", 3)},
                                      f"Edited {path}: 1 replacement\n" + t.filler(lang, size() // 4))])
                else:
                    plan.append([Call("run_tests", {"target": f"tests/test_{k}.py"},
                                      f"{k * 7 + 3} passed in {k % 9 + 1}.{k % 7}s\n" + t.filler(lang, size() // 2))])
        elif kind == "support":
            for k in range(rounds or rng.randint(3, 8)):
                tool = ("get_user_details", "get_order_details", "list_orders", "get_product_details")[k % 4]
                record = {"id": f"#{rng.randrange(10**7)}", "status": rng.choice(("pending", "delivered", "shipped")),
                          "note": t.filler(lang, size() // 2)}
                plan.append([Call(tool, {"id": f"W{rng.randrange(10**7)}"}, json.dumps(record, ensure_ascii=False))])
        elif kind == "rewrite_loop":
            pages = self.fresh_pages(8)
            chars = size()
            for k in range(rounds or rng.randint(4, 9)):
                q = f"{topic} {t.words(lang, 1)}" if k else topic
                rng.shuffle(pages[2:])
                plan.append([Call("web_search", {"query": q}, t.search_results(lang, q, chars, pages))])
        elif kind == "identical_loop":
            tool, args = rng.choice((("query_db", {"sql": f"SELECT * FROM orders WHERE id = {rng.randrange(10**6)}"}),
                                     ("get_report_status", {"report_id": f"r-{rng.randrange(10**6)}"})))
            result = json.dumps({"status": "pending", "detail": t.filler(lang, size())}, ensure_ascii=False)
            plan = [[Call(tool, dict(args), result)] for _ in range(rounds or rng.randint(3, 7))]
        elif kind == "ab_cycle":
            a = Call("open_file", {"path": "src/app.py"}, t.filler(lang, size()))
            b = Call("run_tests", {"target": "tests/"}, "FAILED tests/test_app.py::test_retry - AssertionError\n" + t.filler(lang, 800))
            plan = [[a if k % 2 == 0 else b] for k in range(rounds or 2 * rng.randint(3, 5))]
        elif kind == "failing_tool":
            for k in range(rounds or rng.randint(3, 7)):
                plan.append([Call("fetch_url", {"url": f"https://{rng.choice(HOSTS)}/p/{rng.randrange(10**5)}"},
                                  f"Error: connection timed out after 30s (attempt {k + 1})", is_error=True)])
        else:
            raise ValueError(kind)
        thoughts = ("让我继续查找相关信息。", "我再试一次。", "先看看这个结果。") if lang == "zh" else (
            "Let me look further.", "Trying again.", "Let me check this result.")
        context = 600 + rng.randrange(400)
        clock = self.clock
        for calls in plan + [[]]:
            out = rng.randint(15, 200)
            start = clock + 0.1
            end = start + 0.5 + out * 0.01
            text = rng.choice(thoughts) if calls else (
                ("根据以上结果，" if lang == "zh" else "Based on these results: ") + t.filler(lang, 300))
            run.steps.append(Step(text, calls, context, out, round(start, 3), round(end, 3)))
            context += out + sum(len(c.result) for c in calls) // 3
            clock = end + 0.3 * len(calls) + 0.05
        self.clock += 7.0
        return run


# --- writers ---------------------------------------------------------------------------


def call_id(run: Run, i: int, k: int) -> str:
    return f"call_{run.id}_{i}_{k}"


def dumps(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


class Rotating:
    """Writes records to ``folder/prefix-NNNN.suffix``, a new file every 64 MB."""

    def __init__(self, root: Path, folder: str, prefix: str, suffix: str, head: str = "", sep: str = "", tail: str = "") -> None:
        self.dir = root / folder
        self.prefix, self.suffix, self.head, self.sep, self.tail = prefix, suffix, head, sep, tail
        self.out: TextIO | None = None
        self.part = 0
        self.bytes_in_part = 0
        self.records_in_part = 0
        self.files: list[Path] = []

    def write(self, text: str) -> int:
        if self.out is None or self.bytes_in_part >= PART_BYTES:
            self.close()
            self.dir.mkdir(parents=True, exist_ok=True)
            self.part += 1
            path = self.dir / f"{self.prefix}-{self.part:04d}.{self.suffix}"
            self.files.append(path)
            self.out = open(path, "w", encoding="utf-8", newline="\n")
            self.out.write(self.head)
            self.bytes_in_part = self.records_in_part = 0
        data = (self.sep if self.records_in_part else "") + text
        self.out.write(data)
        n = len(data.encode("utf-8"))
        self.bytes_in_part += n
        self.records_in_part += 1
        return n

    def close(self) -> None:
        if self.out is not None:
            self.out.write(self.tail)
            self.out.close()
            self.out = None


def native_lines(run: Run) -> list[str]:
    events: list[dict[str, Any]] = [
        {"type": "trace", "trace": run.id, "format_version": 1, "metadata": {"kind": run.kind, "language": run.lang}},
        {"type": "labels", "trace": run.id, "labels": {"outcome": "success" if run.success else "failure"}},
    ]
    out = [dumps(e) + "\n" for e in events]
    for i, step in enumerate(run.steps):
        event: dict[str, Any] = {
            "type": "round", "trace": run.id, "round": i + 1, "model": "gpt-4o",
            "started_at": iso(step.started_at), "ended_at": iso(step.ended_at), "text": step.text,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
        }
        if step.calls:
            event["tool_calls"] = [{"id": call_id(run, i, k), "name": c.name, "arguments": dumps(c.arguments)}
                                   for k, c in enumerate(step.calls)]
        out.append(dumps(event) + "\n")
        for k, c in enumerate(step.calls):
            out.append(dumps({"type": "result", "trace": run.id, "call_id": call_id(run, i, k), "content": c.result,
                              "is_error": c.is_error}) + "\n")
    out.append(dumps({"type": "end", "trace": run.id}) + "\n")
    return out


def _tool_names(run: Run) -> list[str]:
    return sorted({c.name for s in run.steps for c in s.calls})


def openai_lines(run: Run) -> list[str]:
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in _tool_names(run)]
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM[run.lang]}, {"role": "user", "content": run.question}]
    out = []
    for i, step in enumerate(run.steps):
        message: dict[str, Any] = {"role": "assistant", "content": step.text}
        if step.calls:
            message["tool_calls"] = [{"id": call_id(run, i, k), "type": "function",
                                      "function": {"name": c.name, "arguments": dumps(c.arguments)}}
                                     for k, c in enumerate(step.calls)]
        response = {
            "id": f"chatcmpl-{run.id}-{i}", "object": "chat.completion", "created": int(step.started_at), "model": "gpt-4o",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.calls else "stop"}],
            "usage": {"prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens,
                      "total_tokens": step.input_tokens + step.output_tokens},
        }
        record = {"session_id": run.id, "timestamp": iso(step.ended_at),
                  "latency_ms": round((step.ended_at - step.started_at) * 1000),
                  "request": {"model": "gpt-4o", "messages": messages, "tools": tools}, "response": response}
        out.append(dumps(record) + "\n")
        messages = messages + [message] + [{"role": "tool", "tool_call_id": call_id(run, i, k), "content": c.result}
                                           for k, c in enumerate(step.calls)]
    return out


def anthropic_line(run: Run) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": run.question}]
    for i, step in enumerate(run.steps):
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}]
        content += [{"type": "tool_use", "id": call_id(run, i, k), "name": c.name, "input": c.arguments}
                    for k, c in enumerate(step.calls)]
        messages.append({"role": "assistant", "content": content})
        if step.calls:
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": call_id(run, i, k), "content": c.result, "is_error": c.is_error}
                for k, c in enumerate(step.calls)]})
    tools = [{"name": n, "description": n.replace("_", " "), "input_schema": {"type": "object"}} for n in _tool_names(run)]
    return dumps({"id": run.id, "model": "claude-sonnet-4-5", "max_tokens": 4096, "system": SYSTEM[run.lang],
                  "tools": tools, "messages": messages}) + "\n"


def tau2_simulation(run: Run, number: int) -> str:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM[run.lang], "turn_idx": None, "timestamp": naive(run.steps[0].started_at - 1)},
        {"role": "user", "content": run.question, "tool_calls": None, "turn_idx": 0,
         "timestamp": naive(run.steps[0].started_at - 0.5), "cost": 0.0, "usage": None, "raw_data": None},
    ]
    turn = 1
    for i, step in enumerate(run.steps):
        calls = [{"id": call_id(run, i, k), "name": c.name, "arguments": c.arguments, "requestor": "assistant"}
                 for k, c in enumerate(step.calls)] or None
        messages.append({"role": "assistant", "content": None if calls else step.text, "tool_calls": calls,
                         "turn_idx": turn, "timestamp": naive(step.ended_at), "cost": 0.0,
                         "usage": {"completion_tokens": step.output_tokens, "prompt_tokens": step.input_tokens},
                         "raw_data": None})
        turn += 1
        for k, c in enumerate(step.calls):
            messages.append({"id": call_id(run, i, k), "role": "tool", "content": c.result, "requestor": "assistant",
                             "error": c.is_error, "turn_idx": turn, "timestamp": naive(step.ended_at + 0.2)})
            turn += 1
    reward = 1.0 if run.success else 0.0
    simulation = {
        "id": f"{run.id}", "task_id": str(number), "timestamp": naive(run.steps[-1].ended_at),
        "start_time": naive(run.steps[0].started_at - 1), "end_time": naive(run.steps[-1].ended_at),
        "duration": round(run.steps[-1].ended_at - run.steps[0].started_at + 1, 3),
        "termination_reason": "user_stop" if run.success else "max_steps", "agent_cost": 0.01, "user_cost": 0.002,
        "reward_info": {"reward": reward, "reward_basis": ["DB"], "reward_breakdown": {"DB": reward}, "info": None},
        "messages": messages, "trial": 0, "seed": 300, "mode": "half_duplex",
    }
    return dumps(simulation)


TAU2_HEAD = ('{"timestamp": "2026-01-01T00:00:00.000000", "info": {"num_trials": 1, "max_steps": 200, '
             '"agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"}, '
             '"environment_info": {"domain_name": "retail"}, "seed": 300}, "tasks": [], "simulations": [\n')


def swe_document(run: Run) -> str:
    history: list[dict[str, Any]] = [
        {"message_type": "system_prompt", "role": "system", "content": SYSTEM[run.lang], "agent": "main"},
        {"message_type": "observation", "role": "user", "content": f"<issue>\n{run.question}\n</issue>", "agent": "main"},
    ]
    trajectory = []
    for i, step in enumerate(run.steps):
        calls = [(c.name, dumps(c.arguments), c.result) for c in step.calls] or [("submit", "{}", run.answer)]
        history.append({"message_type": "action", "role": "assistant", "content": step.text, "thought": step.text,
                        "action": calls[0][0], "agent": "main",
                        "tool_calls": [{"function": {"arguments": a, "name": n}, "id": call_id(run, i, k), "type": "function"}
                                       for k, (n, a, _) in enumerate(calls)]})
        for k, (_, _, result) in enumerate(calls):
            history.append({"message_type": "observation", "role": "tool", "content": result, "agent": "main",
                            "tool_call_ids": [call_id(run, i, k)]})
        trajectory.append({"action": calls[0][0], "observation": calls[0][2], "response": step.text, "thought": step.text,
                           "execution_time": 0.4, "state": {"working_dir": "/repo"}, "query": [], "extra_info": {}})
    document = {
        "trajectory": trajectory, "history": history,
        "info": {"swe_agent_version": "1.0.1", "submission": run.answer, "exit_status": "submitted",
                 "model_stats": {"instance_cost": 0.01, "tokens_sent": sum(s.input_tokens for s in run.steps),
                                 "tokens_received": sum(s.output_tokens for s in run.steps), "api_calls": len(run.steps)}},
        "replay_config": dumps({"problem_statement": {"id": run.id, "type": "text"}}),
        "environment": "main",
    }
    return dumps(document, indent=2)


# --- the corpus ------------------------------------------------------------------------


def generate(out_dir: str | Path, size: int, seed: int = 1, long_rounds: int = 2000, quiet: bool = True) -> dict[str, Any]:
    """Write a corpus of about ``size`` bytes below ``out_dir``; returns the manifest."""
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    gen = Generator(seed)
    rng = gen.rng
    writers = {
        "native": Rotating(root, "native", "part", "jsonl"),
        "openai": Rotating(root, "openai", "part", "jsonl"),
        "anthropic": Rotating(root, "anthropic", "part", "jsonl"),
        "tau2": Rotating(root, "tau2", "results", "json", head=TAU2_HEAD, sep=",\n", tail="\n]}\n"),
    }
    stats: dict[str, dict[str, dict[str, int]]] = {}
    graded: dict[str, list[str]] = {"resolved_ids": [], "unresolved_ids": []}  # the SWE-agent runs' grades
    written = 0
    # Long runs: about 15 % of the bytes (each ~2.5 KB a round), at least one, spread evenly.
    long_bytes = long_rounds * 2600
    n_long = max(1, round(0.15 * size / long_bytes))
    long_at = [size * (k + 0.5) / n_long for k in range(n_long)]
    number = 0
    while written < size:
        number += 1
        lang = "zh" if rng.random() < 0.5 else "en"
        if long_at and written >= long_at[0]:
            long_at.pop(0)
            kind = rng.choice(("search", "coding"))
            run = gen.run(number, kind, lang, rounds=long_rounds - 1)  # + the answer round
            fmt = "native" if rng.random() < 0.75 else "swe_agent"
            run.id = f"long-{run.id}"
        else:
            kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
            fmt = rng.choices(FORMATS, FORMAT_WEIGHTS)[0]
            if number <= len(KINDS) * len(FORMATS):  # every kind in every format first, even in a tiny corpus
                kind, fmt = KINDS[(number - 1) % len(KINDS)], FORMATS[(number - 1) % len(FORMATS)]
            # proxy logs resend the history: keep those runs' results at the small end
            run = gen.run(number, kind, lang, rounds=None, max_result=2000 if fmt == "openai" else None)
        if fmt == "native":
            n = sum(writers["native"].write(line) for line in native_lines(run))
        elif fmt == "openai":
            n = sum(writers["openai"].write(line) for line in openai_lines(run))
        elif fmt == "anthropic":
            n = writers["anthropic"].write(anthropic_line(run))
        elif fmt == "tau2":
            n = writers["tau2"].write(tau2_simulation(run, number))
        else:
            folder = root / "swe_agent"
            folder.mkdir(exist_ok=True)
            data = swe_document(run).encode("utf-8")
            (folder / f"{run.id}.traj").write_bytes(data)
            n = len(data)
            graded["resolved_ids" if run.success else "unresolved_ids"].append(run.id)
        written += n
        row = stats.setdefault(fmt, {}).setdefault(f"{'long ' if run.id.startswith('long-') else ''}{run.kind}",
                                                    {"traces": 0, "rounds": 0, "bytes": 0})
        row["traces"] += 1
        row["rounds"] += len(run.steps)
        row["bytes"] += n
        if not quiet and number % 1000 == 0:
            print(f"\r{written / 1e6:,.0f} MB", end="", file=sys.stderr, flush=True)
    for w in writers.values():
        w.close()
    if graded["resolved_ids"] or graded["unresolved_ids"]:
        # The trajectories say "submitted"; only a grader's report says resolved.
        (root / "swe_agent" / "results.json").write_text(json.dumps(graded, indent=4) + "\n", encoding="utf-8")
    if not quiet:
        print(file=sys.stderr)
    manifest = {
        "seed": seed, "size_asked": size, "long_rounds": long_rounds, "bytes": written,
        "traces": sum(r["traces"] for f in stats.values() for r in f.values()),
        "rounds": sum(r["rounds"] for f in stats.values() for r in f.values()),
        "formats": {f: {k: stats[f][k] for k in sorted(stats[f])} for f in sorted(stats)},
    }
    (root / ".manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--size", type=parse_size, default=parse_size("10MB"), help="about this many bytes (10MB, 1GB)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--long-rounds", type=int, default=2000, help="rounds of each very long run")
    args = parser.parse_args(argv)
    manifest = generate(args.out_dir, args.size, args.seed, args.long_rounds, quiet=False)
    print(f"{manifest['bytes'] / 1e6:,.1f} MB, {manifest['traces']:,} traces, {manifest['rounds']:,} rounds in {args.out_dir}")
    for fmt, kinds in manifest["formats"].items():
        print(f"  {fmt:10} " + ", ".join(f"{k} {v['traces']}" for k, v in kinds.items()))


if __name__ == "__main__":
    main()
