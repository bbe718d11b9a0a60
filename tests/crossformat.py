"""Two canonical agent runs, and a writer per supported format that puts them on disk
the way that format's own tool does.

Used by ``test_cross_format.py``: every rendering must read back to the same rounds, the
same guard fires and (where the format carries it) the same per-round usage as the
native rendering. The shapes follow the readers' module docstrings, formats.md and the
hand-made fixtures under ``tests/fixtures/<module>/``; ids, texts and numbers are made up.

The runs are plain data: a :class:`Run` is a list of :class:`Step` (one model response
each: text, tool calls with their results, usage, start/end times); a step without
calls is the final answer. Cached tokens are 0 throughout, so "input tokens" means the
same in every format (Anthropic's ``input_tokens`` excludes cached ones, OpenAI's
``prompt_tokens`` includes them: with no cache they agree).
"""

from __future__ import annotations

import json
import shlex
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

# --- the canonical runs ---------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    result: str
    is_error: bool = False

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments)

    @property
    def command(self) -> str:
        """The call as a shell command, for agents whose only tool is ``bash``."""
        words = [f'"{v}"' if any(ch.isspace() for ch in str(v)) else str(v) for v in self.arguments.values()]
        return " ".join([self.name, *words])


@dataclass(frozen=True)
class Step:
    """One model response."""

    text: str
    calls: tuple[Call, ...]
    input_tokens: int
    output_tokens: int
    started_at: float
    ended_at: float

    @property
    def final(self) -> bool:
        return not self.calls

    def result_times(self, k: int) -> tuple[float, float]:
        """When call ``k`` of this step ran (right after the response, one after another)."""
        start = self.ended_at + 0.02 + 0.5 * k
        return start, start + 0.4


@dataclass(frozen=True)
class Run:
    id: str
    question: str
    steps: tuple[Step, ...]
    success: bool
    tools: tuple[tuple[str, str, str], ...] = ()  # (name, argument, description)

    @property
    def answer(self) -> str:
        return self.steps[-1].text

    @property
    def started_at(self) -> float:
        return self.steps[0].started_at - 0.05

    @property
    def ended_at(self) -> float:
        return self.steps[-1].ended_at + 0.05


T0 = 1741593600.0  # 2025-03-10T08:00:00Z

TOOLS = (
    ("search_docs", "query", "Search the project documentation."),
    ("read_file", "path", "Read a file of the repository."),
)


def _steps(spec: list[tuple[str, tuple[Call, ...], int, int]]) -> tuple[Step, ...]:
    steps = []
    clock = T0
    for text, calls, tokens_in, tokens_out in spec:
        start = clock + 0.1
        end = start + 1.25 + 0.01 * tokens_out
        steps.append(Step(text, calls, tokens_in, tokens_out, round(start, 3), round(end, 3)))
        clock = end + 0.02 + 0.5 * len(calls) + 0.1
    return tuple(steps)


NO_MATCH = "No matches found for 'retry policy'."
LOOP_CALL = Call("search_docs", {"query": "retry policy"}, NO_MATCH)

# The same search four times, then an answer: R001 hints at round 2 and stops before
# round 3, R002 blocks every repeat, P001 and P003 see no progress.
LOOP = Run(
    id="loop-run",
    question="What is the retry policy of the HTTP client?",
    steps=_steps(
        [
            ("Let me search the docs for the retry policy.", (LOOP_CALL,), 412, 21),
            ("Nothing yet; searching again.", (LOOP_CALL,), 468, 19),
            ("Let me try the search once more.", (LOOP_CALL,), 524, 18),
            ("One more search.", (LOOP_CALL,), 580, 16),
            ("I could not find a documented retry policy.", (), 636, 38),
        ]
    ),
    success=False,
    tools=TOOLS,
)

# Three different calls with useful, different results, then an answer: no guard acts.
HEALTHY = Run(
    id="healthy-run",
    question="How does the HTTP client retry failed requests?",
    steps=_steps(
        [
            (
                "Let me search the docs for the retry policy.",
                (
                    Call(
                        "search_docs",
                        {"query": "retry policy"},
                        "1. Retry policy - https://docs.example.com/retry (docs/retry.md)",
                    ),
                ),
                390,
                19,
            ),
            (
                "The retry page looks relevant; reading it.",
                (
                    Call(
                        "read_file",
                        {"path": "docs/retry.md"},
                        "# Retry policy\nFailed requests are retried up to 3 times with exponential backoff (base 0.5 s).",
                    ),
                ),
                455,
                17,
            ),
            (
                "Let me check how the backoff is randomised.",
                (
                    Call(
                        "search_docs",
                        {"query": "backoff jitter"},
                        "1. Backoff and jitter - https://docs.example.com/backoff#jitter (docs/backoff.md)",
                    ),
                ),
                610,
                20,
            ),
            (
                "Failed requests are retried up to 3 times with exponential backoff (base 0.5 s) "
                "plus random jitter (docs/retry.md, docs/backoff.md).",
                (),
                702,
                64,
            ),
        ]
    ),
    success=True,
    tools=TOOLS,
)

RUNS = {"loop": LOOP, "healthy": HEALTHY}
SYSTEM = "You are a documentation assistant. Use the tools, then answer briefly."
MODEL = "gpt-4o-2024-08-06"
CLAUDE = "claude-sonnet-4-5-20250929"


# --- small helpers ----------------------------------------------------------------------


def iso(t: float, digits: int = 3, zulu: bool = True) -> str:
    """ISO-8601 UTC with ``digits`` fractional digits (3 or 6), ``Z`` or ``+00:00``."""
    text = datetime.fromtimestamp(t, tz=timezone.utc).isoformat(
        timespec="milliseconds" if digits == 3 else "microseconds"
    )
    return text.replace("+00:00", "Z") if zulu else text


def naive(t: float) -> str:
    """Naive ISO-8601 with microseconds (LangSmith's ``run.json()``, OpenHands events)."""
    return datetime.fromtimestamp(t, tz=timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds")


def nanos(t: float) -> str:
    return str(round(t * 1000) * 1_000_000)


def ident(run: Run, *parts: Any, size: int = 24) -> str:
    """A stable id made of hex digits, different per run and per part."""
    return uuid.uuid5(uuid.NAMESPACE_URL, "/".join(map(str, (run.id, *parts)))).hex[:size]


def run_uuid(run: Run, *parts: Any) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "/".join(map(str, (run.id, *parts)))))


def call_id(run: Run, i: int, k: int, prefix: str = "call_") -> str:
    return prefix + ident(run, "call", i, k)


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, document: Any, indent: int | None = None) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False, indent=indent), encoding="utf-8")
    return path


def chat_tools(run: Run) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]},
            },
        }
        for name, arg, description in run.tools
    ]


def chat_assistant(run: Run, i: int, step: Step) -> dict[str, Any]:
    """The assistant message of step ``i`` as Chat Completions returns it."""
    message: dict[str, Any] = {"role": "assistant", "content": step.text, "refusal": None}
    if step.calls:
        message["tool_calls"] = [
            {"id": call_id(run, i, k), "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
            for k, c in enumerate(step.calls)
        ]
    return message


def chat_history(run: Run, upto: int) -> list[dict[str, Any]]:
    """System, user, then the assistant and tool messages of the steps before ``upto``."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": run.question}]
    for i, step in enumerate(run.steps[:upto]):
        messages.append(chat_assistant(run, i, step))
        for k, c in enumerate(step.calls):
            messages.append({"role": "tool", "tool_call_id": call_id(run, i, k), "content": c.result})
    return messages


def chat_usage(step: Step) -> dict[str, Any]:
    return {
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
    }


def chat_completion(run: Run, i: int, step: Step) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + ident(run, "response", i, size=29),
        "object": "chat.completion",
        "created": int(step.started_at),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": chat_assistant(run, i, step),
                "logprobs": None,
                "finish_reason": "stop" if step.final else "tool_calls",
            }
        ],
        "usage": chat_usage(step),
        "service_tier": "default",
        "system_fingerprint": "fp_07871e2ad8",
    }


# --- renderers ---------------------------------------------------------------------------


def render_native(run: Run, path: Path) -> Path:
    events: list[dict[str, Any]] = [
        {"type": "trace", "trace": run.id, "format_version": 1, "metadata": {"agent": "docs-bot"}},
        {"type": "labels", "trace": run.id, "labels": {"outcome": "success" if run.success else "failure"}},
    ]
    for i, step in enumerate(run.steps):
        event: dict[str, Any] = {
            "type": "round",
            "trace": run.id,
            "round": i + 1,
            "model": MODEL,
            "started_at": iso(step.started_at),
            "ended_at": iso(step.ended_at),
            "text": step.text,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens, "cached_tokens": 0},
            "finish_reason": "stop" if step.final else "tool_calls",
        }
        if step.calls:
            event["tool_calls"] = [
                {"id": call_id(run, i, k), "name": c.name, "arguments": c.arguments_json}
                for k, c in enumerate(step.calls)
            ]
        events.append(event)
        for k, c in enumerate(step.calls):
            start, end = step.result_times(k)
            events.append(
                {
                    "type": "result",
                    "trace": run.id,
                    "call_id": call_id(run, i, k),
                    "content": c.result,
                    "is_error": c.is_error,
                    "started_at": iso(start),
                    "ended_at": iso(end),
                }
            )
    events.append({"type": "end", "trace": run.id})
    return write_jsonl(path / f"{run.id}.jsonl", events)


def render_openai_chat(run: Run, path: Path) -> Path:
    """A logging proxy: one request/response pair per line; each request resends the history."""
    records = []
    for i, step in enumerate(run.steps):
        records.append(
            {
                "timestamp": iso(step.ended_at),
                "latency_ms": round((step.ended_at - step.started_at) * 1000),
                "request": {
                    "model": "gpt-4o",
                    "messages": chat_history(run, i),
                    "tools": chat_tools(run),
                    "tool_choice": "auto",
                },
                "response": chat_completion(run, i, step),
            }
        )
    return write_jsonl(path / f"{run.id}.jsonl", records)


def render_langchain(run: Run, path: Path) -> Path:
    """``json.dump(messages_to_dict(state["messages"]))`` of a LangGraph ReAct agent."""

    def base(kind: str, content: str, **extra: Any) -> dict[str, Any]:
        data = {
            "content": content,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": kind,
            "name": None,
            "id": None,
        }
        data.update(extra)
        return {"type": kind, "data": data}

    messages = [base("system", SYSTEM), base("human", run.question, example=False)]
    for i, step in enumerate(run.steps):
        calls = [
            {"name": c.name, "args": c.arguments, "id": call_id(run, i, k), "type": "tool_call"}
            for k, c in enumerate(step.calls)
        ]
        raw_calls = chat_assistant(run, i, step).get("tool_calls")
        ai = base(
            "ai",
            step.text,
            id=f"run-{run_uuid(run, 'llm', i)}-0",
            example=False,
            tool_calls=calls,
            invalid_tool_calls=[],
            usage_metadata={
                "input_tokens": step.input_tokens,
                "output_tokens": step.output_tokens,
                "total_tokens": step.input_tokens + step.output_tokens,
                "input_token_details": {"audio": 0, "cache_read": 0},
                "output_token_details": {"audio": 0, "reasoning": 0},
            },
        )
        ai["data"]["additional_kwargs"] = {"tool_calls": raw_calls, "refusal": None} if raw_calls else {"refusal": None}
        ai["data"]["response_metadata"] = {
            "token_usage": chat_usage(step),
            "model_name": MODEL,
            "system_fingerprint": "fp_07871e2ad8",
            "finish_reason": "stop" if step.final else "tool_calls",
            "logprobs": None,
        }
        messages.append(ai)
        for k, c in enumerate(step.calls):
            messages.append(
                base(
                    "tool",
                    c.result,
                    name=c.name,
                    id=run_uuid(run, "toolmsg", i, k),
                    tool_call_id=call_id(run, i, k),
                    artifact=None,
                    status="error" if c.is_error else "success",
                )
            )
    return write_json(path / f"{run.id}.json", messages)


def render_openai_responses(run: Run, path: Path) -> Path:
    """Request/response pairs chained by ``previous_response_id``; tool outputs live in
    the next request's ``input``."""
    tools = [
        {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {arg: {"type": "string"}},
                "required": [arg],
                "additionalProperties": False,
            },
            "strict": True,
        }
        for name, arg, description in run.tools
    ]
    records = []
    previous = None
    for i, step in enumerate(run.steps):
        if i == 0:
            inputs: list[dict[str, Any]] = [{"role": "user", "content": run.question}]
        else:
            earlier = run.steps[i - 1]
            inputs = [
                {"type": "function_call_output", "call_id": call_id(run, i - 1, k), "output": c.result}
                for k, c in enumerate(earlier.calls)
            ]
        output: list[dict[str, Any]] = []
        if step.text:
            output.append(
                {
                    "type": "message",
                    "id": "msg_" + ident(run, "msg", i, size=32),
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": step.text, "annotations": []}],
                }
            )
        for k, c in enumerate(step.calls):
            output.append(
                {
                    "type": "function_call",
                    "id": "fc_" + ident(run, "fc", i, k, size=32),
                    "call_id": call_id(run, i, k),
                    "name": c.name,
                    "arguments": c.arguments_json,
                    "status": "completed",
                }
            )
        response_id = "resp_" + ident(run, "resp", i, size=32)
        request: dict[str, Any] = {"model": "gpt-4.1", "instructions": SYSTEM, "input": inputs, "tools": tools}
        if previous:
            request["previous_response_id"] = previous
        records.append(
            {
                "request": request,
                "response": {
                    "id": response_id,
                    "object": "response",
                    "created_at": int(step.started_at),
                    "status": "completed",
                    "error": None,
                    "incomplete_details": None,
                    "instructions": SYSTEM,
                    "model": "gpt-4.1-2025-04-14",
                    "output": output,
                    "parallel_tool_calls": True,
                    "previous_response_id": previous,
                    "tools": tools,
                    "usage": {
                        "input_tokens": step.input_tokens,
                        "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens": step.output_tokens,
                        "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": step.input_tokens + step.output_tokens,
                    },
                },
            }
        )
        previous = response_id
    return write_jsonl(path / f"{run.id}.jsonl", records)


def render_openai_agents(run: Run, path: Path) -> Path:
    """What a ``TracingProcessor`` writing ``item.export()`` per line produces: the trace
    object when it starts, each span when it ends (so the agent span comes last)."""
    trace_id = "trace_" + ident(run, "trace", size=32)
    agent_span = "span_" + ident(run, "agent")

    def span(key: Any, start: float, end: float, data: dict[str, Any]) -> dict[str, Any]:
        return {
            "object": "trace.span",
            "id": "span_" + ident(run, "span", key),
            "trace_id": trace_id,
            "parent_id": agent_span,
            "started_at": iso(start, 6, zulu=False),
            "ended_at": iso(end, 6, zulu=False),
            "span_data": data,
            "error": None,
        }

    records: list[dict[str, Any]] = [
        {"object": "trace", "id": trace_id, "workflow_name": "Docs agent", "group_id": None, "metadata": None}
    ]
    for i, step in enumerate(run.steps):
        message = chat_assistant(run, i, step)
        message.pop("refusal")
        records.append(
            span(
                f"gen{i}",
                step.started_at,
                step.ended_at,
                {
                    "type": "generation",
                    "input": chat_history(run, i),
                    "output": [message],
                    "model": "gpt-4o",
                    "model_config": {
                        "temperature": None,
                        "tool_choice": None,
                        "base_url": "https://api.openai.com/v1/",
                    },
                    "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens},
                },
            )
        )
        for k, c in enumerate(step.calls):
            start, end = step.result_times(k)
            fn = span(
                f"fn{i}.{k}",
                start,
                end,
                {"type": "function", "name": c.name, "input": c.arguments_json, "output": c.result, "mcp_data": None},
            )
            if c.is_error:
                fn["error"] = {
                    "message": "Error running tool (non-fatal)",
                    "data": {"tool_name": c.name, "error": c.result},
                }
            records.append(fn)
    records.append(
        {
            "object": "trace.span",
            "id": agent_span,
            "trace_id": trace_id,
            "parent_id": None,
            "started_at": iso(run.started_at, 6, zulu=False),
            "ended_at": iso(run.ended_at, 6, zulu=False),
            "span_data": {
                "type": "agent",
                "name": "Docs agent",
                "handoffs": [],
                "tools": [t[0] for t in run.tools],
                "output_type": "str",
            },
            "error": None,
        }
    )
    return write_jsonl(path / f"{run.id}.jsonl", records)


def _lc(kind: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A ``dumpd`` message (the "lc" serialization LangSmith stores)."""
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", kind], "kwargs": kwargs}


def render_langsmith(run: Run, path: Path) -> Path:
    """``run.json()`` of every run ``client.list_runs(trace_id=...)`` returns (newest first)
    for a LangGraph ReAct agent: root chain, ``agent``/``tools`` node chains, the
    ``ChatOpenAI`` llm runs and the tool runs."""
    root_id = run_uuid(run, "root")
    session = run_uuid(run, "project")

    def stamp(t: float) -> str:
        return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")

    def make(
        rid: str,
        name: str,
        run_type: str,
        start: float,
        end: float,
        parents: list[tuple[str, float]],
        inputs,
        outputs,
        tokens=(0, 0),
    ):
        dotted = ".".join(f"{stamp(t)}{p}" for p, t in parents + [(rid, start)])
        return {
            "id": rid,
            "name": name,
            "start_time": naive(start),
            "run_type": run_type,
            "end_time": naive(end),
            "extra": {"metadata": {"ls_run_depth": len(parents), "thread_id": run.id}},
            "error": None,
            "serialized": None,
            "events": [{"name": "start", "time": naive(start)}, {"name": "end", "time": naive(end)}],
            "inputs": inputs,
            "outputs": outputs,
            "reference_example_id": None,
            "parent_run_id": parents[-1][0] if parents else None,
            "tags": [],
            "session_id": session,
            "child_run_ids": None,
            "status": "success",
            "prompt_tokens": tokens[0],
            "completion_tokens": tokens[1],
            "total_tokens": tokens[0] + tokens[1],
            "first_token_time": None,
            "parent_run_ids": [p for p, _ in parents],
            "trace_id": root_id,
            "dotted_order": dotted,
            "in_dataset": False,
        }

    root = [(root_id, run.started_at)]
    runs = []
    total_in = sum(s.input_tokens for s in run.steps)
    total_out = sum(s.output_tokens for s in run.steps)
    history = [
        _lc("SystemMessage", {"content": SYSTEM, "type": "system"}),
        _lc("HumanMessage", {"content": run.question, "type": "human"}),
    ]
    for i, step in enumerate(run.steps):
        node_id = run_uuid(run, "agent", i)
        node_start = step.started_at - 0.002
        llm_id = run_uuid(run, "llm", i)
        ai_kwargs = {
            "content": step.text,
            "additional_kwargs": {"refusal": None},
            "response_metadata": {
                "token_usage": chat_usage(step),
                "model_name": MODEL,
                "finish_reason": "stop" if step.final else "tool_calls",
            },
            "type": "ai",
            "id": f"run-{llm_id}-0",
            "tool_calls": [
                {"name": c.name, "args": c.arguments, "id": call_id(run, i, k), "type": "tool_call"}
                for k, c in enumerate(step.calls)
            ],
            "usage_metadata": {
                "input_tokens": step.input_tokens,
                "output_tokens": step.output_tokens,
                "total_tokens": step.input_tokens + step.output_tokens,
                "input_token_details": {"audio": 0, "cache_read": 0},
                "output_token_details": {"audio": 0, "reasoning": 0},
            },
            "invalid_tool_calls": [],
        }
        ai = _lc("AIMessage", ai_kwargs)
        runs.append(
            make(
                node_id,
                "agent",
                "chain",
                node_start,
                step.ended_at + 0.002,
                root,
                {"messages": []},
                {"messages": []},
                (step.input_tokens, step.output_tokens),
            )
        )
        runs.append(
            make(
                llm_id,
                "ChatOpenAI",
                "llm",
                step.started_at,
                step.ended_at,
                root + [(node_id, node_start)],
                {"messages": [list(history)]},
                {
                    "generations": [
                        [
                            {
                                "text": step.text,
                                "generation_info": {"finish_reason": "stop" if step.final else "tool_calls"},
                                "type": "ChatGeneration",
                                "message": ai,
                            }
                        ]
                    ],
                    "llm_output": {"token_usage": chat_usage(step), "model_name": MODEL},
                    "run": None,
                    "type": "LLMResult",
                },
                (step.input_tokens, step.output_tokens),
            )
        )
        history.append(ai)
        if not step.calls:
            continue
        tools_id = run_uuid(run, "tools", i)
        tools_start = step.result_times(0)[0] - 0.001
        tools_end = step.result_times(len(step.calls) - 1)[1] + 0.001
        runs.append(make(tools_id, "tools", "chain", tools_start, tools_end, root, {"input": {}}, {"messages": []}))
        for k, c in enumerate(step.calls):
            start, end = step.result_times(k)
            message = _lc(
                "ToolMessage",
                {
                    "content": c.result,
                    "type": "tool",
                    "name": c.name,
                    "tool_call_id": call_id(run, i, k),
                    "status": "error" if c.is_error else "success",
                },
            )
            runs.append(
                make(
                    run_uuid(run, "tool", i, k),
                    c.name,
                    "tool",
                    start,
                    end,
                    root + [(tools_id, tools_start)],
                    {"input": repr(c.arguments)},
                    {"output": message},
                )
            )
            history.append(message)
    runs.append(
        make(
            root_id,
            "LangGraph",
            "chain",
            run.started_at,
            run.ended_at,
            [],
            {"messages": [["user", run.question]]},
            {"messages": []},
            (total_in, total_out),
        )
    )
    runs.sort(key=lambda r: r["start_time"], reverse=True)
    return write_jsonl(path / f"{run.id}.jsonl", runs)


def _any(value: Any) -> dict[str, Any]:
    """An OTLP ``AnyValue``."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any(v) for v in value]}}
    return {"stringValue": value}


def _attrs(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _any(v)} for k, v in pairs.items() if v is not None]


def render_otel(run: Run, path: Path) -> Path:
    """The collector's file exporter: one ``ExportTraceServiceRequest`` per batch (here one
    per round, the root ``invoke_agent`` span in the last batch, as it ends last), GenAI
    semantic-convention attributes with content capture on."""
    trace_id = ident(run, "otel-trace", size=32)
    root_span = ident(run, "otel-root", size=16)
    resource = {
        "attributes": _attrs(
            {"service.name": "docs-agent", "telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry"}
        )
    }

    def span(
        key: str,
        name: str,
        kind: int,
        start: float,
        end: float,
        attributes: dict[str, Any],
        parent: str | None = root_span,
        status: int = 0,
    ):
        out = {
            "traceId": trace_id,
            "spanId": ident(run, "otel", key, size=16),
            "name": name,
            "kind": kind,
            "startTimeUnixNano": nanos(start),
            "endTimeUnixNano": nanos(end),
            "attributes": _attrs(attributes),
            "status": {"code": status},
        }
        if parent:
            out["parentSpanId"] = parent
        return out

    def request(spans: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "resourceSpans": [
                {
                    "resource": resource,
                    "scopeSpans": [{"scope": {"name": "docs_agent.telemetry", "version": "0.3.0"}, "spans": spans}],
                }
            ]
        }

    lines = []
    for i, step in enumerate(run.steps):
        parts: list[dict[str, Any]] = [{"type": "text", "content": step.text}] if step.text else []
        parts += [
            {"type": "tool_call", "id": call_id(run, i, k), "name": c.name, "arguments": c.arguments}
            for k, c in enumerate(step.calls)
        ]
        finish = "stop" if step.final else "tool_call"
        spans = [
            span(
                f"chat{i}",
                "chat gpt-4o",
                3,
                step.started_at,
                step.ended_at,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.response.model": MODEL,
                    "gen_ai.response.id": "chatcmpl-" + ident(run, "response", i, size=29),
                    "gen_ai.response.finish_reasons": ["stop" if step.final else "tool_calls"],
                    "gen_ai.usage.input_tokens": step.input_tokens,
                    "gen_ai.usage.output_tokens": step.output_tokens,
                    "gen_ai.conversation.id": run.id,
                    "gen_ai.output.messages": json.dumps(
                        [{"role": "assistant", "parts": parts, "finish_reason": finish}]
                    ),
                },
            )
        ]
        for k, c in enumerate(step.calls):
            start, end = step.result_times(k)
            spans.append(
                span(
                    f"tool{i}.{k}",
                    f"execute_tool {c.name}",
                    1,
                    start,
                    end,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": c.name,
                        "gen_ai.tool.call.id": call_id(run, i, k),
                        "gen_ai.tool.type": "function",
                        "gen_ai.tool.call.arguments": c.arguments_json,
                        "gen_ai.tool.call.result": c.result,
                        "error.type": "ToolError" if c.is_error else None,
                    },
                    status=2 if c.is_error else 0,
                )
            )
        lines.append(request(spans))
    lines[-1]["resourceSpans"][0]["scopeSpans"][0]["spans"].append(
        span(
            "root",
            "invoke_agent Docs agent",
            1,
            run.started_at,
            run.ended_at,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "Docs agent",
                "gen_ai.provider.name": "openai",
            },
            parent=None,
        )
    )
    return write_jsonl(path / f"{run.id}.jsonl", lines)


def _anthropic_content(run: Run, i: int, step: Step, name: Callable[[str], str] = lambda n: n) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
    blocks += [
        {"type": "tool_use", "id": call_id(run, i, k, "toolu_"), "name": name(c.name), "input": c.arguments}
        for k, c in enumerate(step.calls)
    ]
    return blocks


def _anthropic_usage(step: Step) -> dict[str, Any]:
    return {
        "input_tokens": step.input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": step.output_tokens,
        "service_tier": "standard",
    }


def _anthropic_results(run: Run, i: int, step: Step, flag_success: bool) -> list[dict[str, Any]]:
    blocks = []
    for k, c in enumerate(step.calls):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call_id(run, i, k, "toolu_"),
            "content": c.result,
        }
        if c.is_error or flag_success:
            block["is_error"] = c.is_error
        blocks.append(block)
    return blocks


def render_anthropic(run: Run, path: Path) -> Path:
    """A logging wrapper around ``client.messages.create``: one request/response per line."""
    tools = [
        {
            "name": name,
            "description": description,
            "input_schema": {"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]},
        }
        for name, arg, description in run.tools
    ]
    records = []
    messages: list[dict[str, Any]] = [{"role": "user", "content": run.question}]
    for i, step in enumerate(run.steps):
        content = _anthropic_content(run, i, step)
        records.append(
            {
                "timestamp": iso(step.ended_at),
                "latency_ms": round((step.ended_at - step.started_at) * 1000),
                "request": {
                    "model": "claude-sonnet-4-5",
                    "max_tokens": 4096,
                    "system": SYSTEM,
                    "tools": tools,
                    "messages": list(messages),
                },
                "response": {
                    "id": "msg_01" + ident(run, "anthropic", i, size=22),
                    "type": "message",
                    "role": "assistant",
                    "model": CLAUDE,
                    "content": content,
                    "stop_reason": "end_turn" if step.final else "tool_use",
                    "stop_sequence": None,
                    "usage": _anthropic_usage(step),
                },
            }
        )
        messages.append({"role": "assistant", "content": content})
        if step.calls:
            messages.append({"role": "user", "content": _anthropic_results(run, i, step, flag_success=True)})
    return write_jsonl(path / f"{run.id}.jsonl", records)


def claude_code_name(name: str) -> str:
    """Claude Code names tools of an MCP server ``mcp__<server>__<tool>``."""
    return f"mcp__docs__{name}"


def render_claude_code(run: Run, path: Path) -> Path:
    """A session file: one entry per content block of each response (same ``message.id``,
    ``requestId`` and usage on each), tool results as user entries."""
    session = run_uuid(run, "session")
    entries: list[dict[str, Any]] = []
    parent: list[str | None] = [None]

    def entry(kind: str, key: Any, t: float, message: dict[str, Any], **extra: Any) -> None:
        uid = run_uuid(run, "cc", key)
        item = {
            "parentUuid": parent[0],
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/dev/http-client",
            "sessionId": session,
            "version": "2.0.37",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uid,
            "timestamp": iso(t),
        }
        item.update(extra)
        entries.append(item)
        parent[0] = uid

    entry("user", "prompt", run.started_at, {"role": "user", "content": run.question})
    for i, step in enumerate(run.steps):
        message_id = "msg_01" + ident(run, "cc-msg", i, size=22)
        request_id = "req_011C" + ident(run, "cc-req", i, size=20)
        blocks = _anthropic_content(run, i, step, claude_code_name)
        for b, block in enumerate(blocks):
            # One entry per block, written as each block finishes streaming.
            t = step.ended_at - 0.3 * (len(blocks) - 1 - b)
            message = {
                "model": CLAUDE,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": ("end_turn" if step.final else "tool_use") if b == len(blocks) - 1 else None,
                "stop_sequence": None,
                "usage": _anthropic_usage(step),
            }
            entry("assistant", (i, b), t, message, requestId=request_id)
        for k, c in enumerate(step.calls):
            block = _anthropic_results(run, i, step, flag_success=False)[k]
            entry(
                "user",
                (i, "result", k),
                step.result_times(k)[1],
                {"role": "user", "content": [block]},
                toolUseResult=c.result,
            )
    return write_jsonl(path / f"{session}.jsonl", entries)


def render_codex_cli(run: Run, path: Path) -> Path:
    """A Codex CLI rollout: typed lines; per response its assistant message and function
    calls, then the token count, then the tool outputs (MCP tools: no exit code)."""
    session = run_uuid(run, "codex")
    lines: list[dict[str, Any]] = []

    def line(t: float, kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": iso(t), "type": kind, "payload": payload})

    start = run.started_at
    line(start, "session_meta", {"id": session, "timestamp": iso(start), "cwd": "/home/dev/http-client", "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None, "source": "exec", "model_provider": "openai"})
    line(start, "turn_context", {"cwd": "/home/dev/http-client", "approval_policy": "never", "model": "gpt-5-codex", "summary": "auto"})
    line(start, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": run.question}]})
    line(start, "event_msg", {"type": "user_message", "message": run.question, "images": []})
    total = [0, 0]
    for i, step in enumerate(run.steps):
        text_time = step.ended_at if step.final else step.ended_at - 0.2
        line(text_time, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": step.text}]})
        for k, c in enumerate(step.calls):
            line(step.ended_at, "response_item", {"type": "function_call", "name": c.name, "arguments": c.arguments_json, "call_id": call_id(run, i, k)})
        total = [total[0] + step.input_tokens, total[1] + step.output_tokens]
        last = {"input_tokens": step.input_tokens, "cached_input_tokens": 0, "output_tokens": step.output_tokens, "reasoning_output_tokens": 0, "total_tokens": step.input_tokens + step.output_tokens}
        summed = {"input_tokens": total[0], "cached_input_tokens": 0, "output_tokens": total[1], "reasoning_output_tokens": 0, "total_tokens": sum(total)}
        line(step.ended_at + 0.01, "event_msg", {"type": "token_count", "info": {"total_token_usage": summed, "last_token_usage": last, "model_context_window": 272000}, "rate_limits": None})
        for k, c in enumerate(step.calls):
            line(step.result_times(k)[1], "response_item", {"type": "function_call_output", "call_id": call_id(run, i, k), "output": c.result})
    return write_jsonl(path / f"rollout-2025-03-10T08-00-00-{session}.jsonl", lines)


def render_swe_agent(run: Run, path: Path) -> Path:
    """A SWE-agent 1.x ``.traj`` of the function-calling agent; the last step is ``submit``.
    Usage is a run total only (``info.model_stats``)."""
    history: list[dict[str, Any]] = [
        {"message_type": "system_prompt", "role": "system", "content": SYSTEM, "agent": "main"},
        {
            "message_type": "observation",
            "role": "user",
            "content": f"<issue>\n{run.question}\n</issue>",
            "agent": "main",
        },
    ]
    trajectory = []
    for i, step in enumerate(run.steps):
        calls = [(c.name, c.arguments_json, c.command, c.result) for c in step.calls]
        if step.final:
            calls = [("submit", "{}", "submit", run.answer)]
        tool_calls = [
            {"function": {"arguments": args, "name": name}, "id": call_id(run, i, k), "type": "function"}
            for k, (name, args, _, _) in enumerate(calls)
        ]
        history.append(
            {
                "message_type": "action",
                "role": "assistant",
                "content": step.text,
                "thought": step.text,
                "action": calls[0][2],
                "agent": "main",
                "tool_calls": tool_calls,
            }
        )
        for k, (_, _, _, result) in enumerate(calls):
            history.append(
                {
                    "message_type": "observation",
                    "role": "tool",
                    "content": result,
                    "agent": "main",
                    "tool_call_ids": [call_id(run, i, k)],
                }
            )
        trajectory.append(
            {
                "action": calls[0][2],
                "observation": calls[0][3],
                "response": step.text,
                "thought": step.text,
                "execution_time": 0.4,
                "state": {"open_file": "n/a", "working_dir": "/repo"},
                "query": [],
                "extra_info": {},
            }
        )
    document = {
        "trajectory": trajectory,
        "history": history,
        "info": {
            "swe_agent_hash": "a4d7a1c1e0a3f53b7d77b1e4a3f4c7a5b2d8e6f1",
            "swe_agent_version": "1.0.1",
            "swe_rex_version": "1.2.1",
            "submission": run.answer,
            "exit_status": "submitted",
            "model_stats": {
                "instance_cost": 0.0123,
                "tokens_sent": sum(s.input_tokens for s in run.steps),
                "tokens_received": sum(s.output_tokens for s in run.steps),
                "api_calls": len(run.steps),
            },
        },
        "replay_config": json.dumps(
            {"problem_statement": {"id": run.id, "type": "text"}, "agent": {"model": {"name": "gpt-4o"}}}
        ),
        "environment": "main",
    }
    return write_json(path / f"{run.id}.traj", document, indent=2)


def render_openhands(run: Run, path: Path) -> Path:
    """A saved OpenHands trajectory (a JSON list of events). The docs tools are MCP tools
    (``call_tool_mcp`` actions, ``mcp`` observations); the run ends with ``finish``."""
    events: list[dict[str, Any]] = []

    def add(event: dict[str, Any]) -> int:
        event = {"id": len(events), **event}
        events.append(event)
        return event["id"]

    add(
        {
            "timestamp": naive(run.started_at - 0.02),
            "source": "user",
            "message": run.question,
            "action": "message",
            "args": {"content": run.question, "image_urls": None, "wait_for_response": False},
        }
    )
    add(
        {
            "timestamp": naive(run.started_at),
            "source": "environment",
            "message": "",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "running", "reason": ""},
        }
    )
    for i, step in enumerate(run.steps):
        calls = [(c.name, c.arguments_json, c) for c in step.calls] or [
            ("finish", json.dumps({"message": step.text}), None)
        ]
        response = {
            "id": "chatcmpl-" + ident(run, "oh", i, size=29),
            "created": int(step.ended_at),
            "model": MODEL,
            "object": "chat.completion",
            "system_fingerprint": "fp_07871e2ad8",
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "index": 0,
                    "message": {
                        "content": step.text,
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": k,
                                "function": {"arguments": args, "name": name},
                                "id": call_id(run, i, k),
                                "type": "function",
                            }
                            for k, (name, args, _) in enumerate(calls)
                        ],
                        "function_call": None,
                    },
                }
            ],
            "usage": {
                "completion_tokens": step.output_tokens,
                "prompt_tokens": step.input_tokens,
                "total_tokens": step.input_tokens + step.output_tokens,
                "completion_tokens_details": None,
                "prompt_tokens_details": {"audio_tokens": None, "cached_tokens": 0},
            },
        }
        for k, (name, args, c) in enumerate(calls):
            metadata = {
                "function_name": name,
                "tool_call_id": call_id(run, i, k),
                "model_response": response,
                "total_calls_in_response": len(calls),
            }
            if c is None:
                add(
                    {
                        "timestamp": naive(step.ended_at),
                        "source": "agent",
                        "message": step.text,
                        "action": "finish",
                        "tool_call_metadata": metadata,
                        "args": {"final_thought": step.text, "task_completed": "true", "outputs": {}, "thought": ""},
                    }
                )
                continue
            start, end = step.result_times(k)
            action = add(
                {
                    "timestamp": naive(step.ended_at if k == 0 else start),
                    "source": "agent",
                    "message": f"**MCPAction**\nNAME: {name}\nARGUMENTS: {args}",
                    "action": "call_tool_mcp",
                    "tool_call_metadata": metadata,
                    "args": {"name": name, "arguments": c.arguments, "thought": step.text if k == 0 else ""},
                }
            )
            add(
                {
                    "timestamp": naive(end),
                    "source": "agent",
                    "message": c.result,
                    "cause": action,
                    "observation": "mcp",
                    "tool_call_metadata": metadata,
                    # OpenHands stores the MCP CallToolResult as JSON text.
                    "content": json.dumps(
                        {
                            "meta": None,
                            "content": [{"type": "text", "text": c.result, "annotations": None}],
                            "isError": c.is_error,
                        }
                    ),
                    "extras": {"name": name, "arguments": c.arguments},
                }
            )
    add(
        {
            "timestamp": naive(run.ended_at),
            "source": "environment",
            "message": "",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "finished", "reason": ""},
        }
    )
    return write_json(path / f"{run.id}.json", events, indent=2)


def render_inspect(run: Run, path: Path) -> Path:
    """An Inspect AI ``.json`` log with one sample: ``model`` events carry usage and
    times, ``tool`` events the results."""
    messages: list[dict[str, Any]] = [
        {"id": ident(run, "m", "sys", size=22), "content": SYSTEM, "source": "input", "role": "system"},
        {"id": ident(run, "m", "user", size=22), "content": run.question, "source": "input", "role": "user"},
    ]
    events: list[dict[str, Any]] = [
        {
            "span_id": "init",
            "timestamp": iso(run.started_at, 6, zulu=False),
            "working_start": 0.0,
            "event": "span_begin",
            "id": "init",
            "type": "init",
            "name": "init",
        },
        {
            "span_id": "init",
            "timestamp": iso(run.started_at, 6, zulu=False),
            "working_start": 0.0,
            "event": "sample_init",
            "sample": {"input": run.question, "id": run.id},
            "state": {},
        },
        {
            "span_id": "init",
            "timestamp": iso(run.started_at, 6, zulu=False),
            "working_start": 0.0,
            "event": "span_end",
            "id": "init",
        },
        {
            "span_id": "solver",
            "timestamp": iso(run.started_at, 6, zulu=False),
            "working_start": 0.0,
            "event": "span_begin",
            "id": "solver",
            "type": "solver",
            "name": "react",
        },
    ]
    usage_in = usage_out = 0
    for i, step in enumerate(run.steps):
        message: dict[str, Any] = {
            "id": ident(run, "m", i, size=22),
            "content": step.text,
            "source": "generate",
            "role": "assistant",
            "model": MODEL,
        }
        if step.calls:
            message["tool_calls"] = [
                {"id": call_id(run, i, k), "function": c.name, "arguments": c.arguments, "type": "function"}
                for k, c in enumerate(step.calls)
            ]
        messages.append(message)
        seconds = round(step.ended_at - step.started_at, 4)
        events.append(
            {
                "span_id": "solver",
                "timestamp": iso(step.started_at, 6, zulu=False),
                "working_start": round(step.started_at - run.started_at, 4),
                "event": "model",
                "model": f"openai/{MODEL}",
                "input": [],
                "tools": [],
                "tool_choice": "auto",
                "config": {},
                "output": {
                    "model": MODEL,
                    "choices": [{"message": message, "stop_reason": "stop" if step.final else "tool_calls"}],
                    "usage": {
                        "input_tokens": step.input_tokens,
                        "output_tokens": step.output_tokens,
                        "total_tokens": step.input_tokens + step.output_tokens,
                    },
                    "time": seconds,
                },
                "completed": iso(step.ended_at, 6, zulu=False),
                "working_time": seconds,
            }
        )
        usage_in += step.input_tokens
        usage_out += step.output_tokens
        for k, c in enumerate(step.calls):
            start, end = step.result_times(k)
            tool_event: dict[str, Any] = {
                "span_id": f"tool-{i}-{k}",
                "timestamp": iso(start, 6, zulu=False),
                "working_start": round(start - run.started_at, 4),
                "event": "tool",
                "type": "function",
                "id": call_id(run, i, k),
                "function": c.name,
                "arguments": c.arguments,
                "result": c.result,
                "events": [],
                "completed": iso(end, 6, zulu=False),
                "working_time": 0.4,
            }
            if c.is_error:
                tool_event["error"] = {"type": "unknown", "message": c.result}
            events.append(tool_event)
            tool_message = {
                "id": ident(run, "m", i, k, size=22),
                "content": c.result,
                "role": "tool",
                "tool_call_id": call_id(run, i, k),
                "function": c.name,
            }
            if c.is_error:
                tool_message["error"] = {"type": "unknown", "message": c.result}
            messages.append(tool_message)
    events.append(
        {
            "span_id": "solver",
            "timestamp": iso(run.ended_at, 6, zulu=False),
            "working_start": 0.0,
            "event": "span_end",
            "id": "solver",
        }
    )
    usage = {
        f"openai/{MODEL}": {"input_tokens": usage_in, "output_tokens": usage_out, "total_tokens": usage_in + usage_out}
    }
    sample = {
        "id": run.id,
        "epoch": 1,
        "input": run.question,
        "target": "3 retries, exponential backoff with jitter",
        "messages": messages,
        "output": {"model": MODEL, "choices": [{"message": messages[-1], "stop_reason": "stop"}], "usage": None},
        "scores": {"model_graded_qa": {"value": "C" if run.success else "I", "answer": run.answer, "explanation": ""}},
        "metadata": {},
        "events": events,
        "model_usage": usage,
        "total_time": round(run.ended_at - run.started_at, 3),
        "working_time": round(run.ended_at - run.started_at, 3),
        "uuid": ident(run, "uuid", size=22),
        "error_retries": [],
        "attachments": {},
    }
    document = {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": ident(run, "eval", size=22),
            "run_id": ident(run, "run", size=22),
            "created": iso(run.started_at, 3, zulu=False),
            "task": "docs_qa",
            "task_id": ident(run, "task", size=22),
            "task_version": 0,
            "dataset": {"samples": 1, "sample_ids": [run.id], "shuffled": False},
            "model": f"openai/{MODEL}",
            "config": {"epochs": 1},
        },
        "plan": {"name": "plan", "steps": [{"solver": "react", "params": {}}], "config": {}},
        "results": {"total_samples": 1, "completed_samples": 1, "scores": []},
        "stats": {
            "started_at": iso(run.started_at, 3, zulu=False),
            "completed_at": iso(run.ended_at, 3, zulu=False),
            "model_usage": usage,
        },
        "samples": [sample],
    }
    return write_json(path / f"{run.id}.json", document, indent=2)


def render_tau_bench(run: Run, path: Path) -> Path:
    """τ-bench's results file: a JSON array of ``EnvRunResult`` (no usage, no times)."""
    traj: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": run.question}]
    for i, step in enumerate(run.steps):
        message: dict[str, Any] = {"content": step.text, "role": "assistant", "tool_calls": None, "function_call": None}
        if step.calls:
            message["tool_calls"] = [
                {
                    "function": {"arguments": c.arguments_json, "name": c.name},
                    "id": call_id(run, i, k),
                    "type": "function",
                }
                for k, c in enumerate(step.calls)
            ]
        traj.append(message)
        for k, c in enumerate(step.calls):
            traj.append({"role": "tool", "tool_call_id": call_id(run, i, k), "name": c.name, "content": c.result})
    reward = 1.0 if run.success else 0.0
    result = {
        "task_id": 7,
        "reward": reward,
        "info": {
            "task": {"user_id": "dev_042", "actions": [], "instruction": run.question, "outputs": []},
            "source": "user",
            "user_cost": 0.0031,
            "reward_info": {"reward": reward, "info": {"r_outputs": reward}, "actions": []},
        },
        "traj": traj,
        "trial": 0,
    }
    return write_json(path / f"{run.id}.json", [result], indent=2)


def render_mini_swe_agent(run: Run, path: Path) -> Path:
    """mini-swe-agent 2.x with a text-based model: one ```` ```mswea_bash_command ````
    block per response, ``<returncode>``/``<output>`` observations, and the submit
    command (``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``) as the last step."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer.\n\n" + SYSTEM},
        {
            "role": "user",
            "content": f"Please answer this question: {run.question}",
            "extra": {"timestamp": run.started_at},
        },
    ]
    for i, step in enumerate(run.steps):
        command = (
            step.calls[0].command
            if step.calls
            else f"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && echo {shlex.quote(step.text)}"
        )
        content = f"THOUGHT: {step.text}\n\n```mswea_bash_command\n{command}\n```"
        response = chat_completion(run, i, step)
        response["choices"][0]["message"] = {
            "content": content,
            "role": "assistant",
            "tool_calls": None,
            "function_call": None,
        }
        response["choices"][0]["finish_reason"] = "stop"
        messages.append(
            {
                "role": "assistant",
                "content": content,
                "extra": {
                    "actions": [{"command": command}],
                    "response": response,
                    "cost": 0.0011,
                    "timestamp": step.ended_at,
                },
            }
        )
        if step.calls:
            c = step.calls[0]
            returncode = 1 if c.is_error else 0
            messages.append(
                {
                    "role": "user",
                    "content": f"<returncode>{returncode}</returncode>\n<output>\n{c.result}\n</output>",
                    "extra": {
                        "raw_output": c.result + "\n",
                        "returncode": returncode,
                        "timestamp": step.result_times(0)[1],
                    },
                }
            )
    messages.append(
        {"role": "exit", "content": run.answer, "extra": {"exit_status": "Submitted", "submission": run.answer + "\n"}}
    )
    document = {
        "info": {
            "model_stats": {"instance_cost": 0.0055, "api_calls": len(run.steps)},
            "config": {
                "model": {"model_name": "openai/gpt-4o"},
                "model_type": "minisweagent.models.litellm_textbased_model.LitellmTextbasedModel",
            },
            "mini_version": "2.0.0",
            "exit_status": "Submitted",
            "submission": run.answer + "\n",
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
    }
    return write_json(path / f"{run.id}.traj.json", document, indent=2)


def render_swe_smith(run: Run, path: Path) -> Path:
    """A SWE-smith fine-tuning line (``collect_trajs``, style ``xml``): SWE-agent's messages
    as ``{role, content}``, each call as ``<function=NAME><parameter=KEY>…`` in the
    assistant text, each result a user message ``OBSERVATION:\n…``; the last step calls
    ``submit``."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"<pr_description>\n{run.question}\n</pr_description>"},
    ]
    for step in run.steps:
        calls = step.calls or (Call("submit", {}, ""),)
        blocks = [
            "\n".join([f"<function={c.name}>", *(f"<parameter={k}>{v}</parameter>" for k, v in c.arguments.items()), "</function>"])
            for c in calls
        ]
        messages.append({"role": "assistant", "content": f"{step.text}\n\n" + "\n".join(blocks)})
        messages.extend({"role": "user", "content": f"OBSERVATION:\n{c.result}"} for c in step.calls)
    line = {
        "messages": messages,
        "instance_id": run.id,
        "resolved": run.success,
        "model": "claude-3-7-sonnet-20250219",
        "traj_id": f"{run.id}.{ident(run, 'swe-smith', size=8)}",
        "patch": "",
    }
    return write_jsonl(path / f"{run.id}.xml.jsonl", [line])


def render_react_text(run: Run, path: Path) -> Path:
    """LangChain's classic AgentExecutor transcript (Thought / Action / Action Input /
    Observation ... Final Answer), after the ReAct prompt header."""
    lines = [
        "Answer the following questions as best you can. You have access to the following tools:",
        "",
        *(f"{name}({arg}: str) -> str - {description}" for name, arg, description in run.tools),
        "",
        "Begin!",
        "",
        f"Question: {run.question}",
    ]
    for step in run.steps:
        if step.final:
            lines += ["Thought: I now know the final answer", f"Final Answer: {step.text}"]
            continue
        call = step.calls[0]
        lines += [
            f"Thought: {step.text}",
            f"Action: {call.name}",
            f"Action Input: {next(iter(call.arguments.values()))}",
        ]
        lines.append(f"Observation: {call.result}")
    path = path / f"{run.id}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def render_atif(run: Run, path: Path) -> Path:
    """A Harbor trial folder: ``agent/trajectory.json`` as Harbor's Claude Code converter
    writes ATIF-v1.2 (a response's text step carries ``metrics``; each tool_use is its own
    ``Executed …`` step with the response's timestamp and its observation) and the trial's
    ``result.json`` one folder up with the verifier's reward."""
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "timestamp": iso(run.started_at), "source": "user", "message": run.question, "extra": {"is_sidechain": False}}
    ]

    def add(step: dict[str, Any]) -> None:
        step["step_id"] = len(steps) + 1
        steps.append(step)

    for i, step in enumerate(run.steps):
        t = iso(step.ended_at)
        metrics = {
            "prompt_tokens": step.input_tokens,
            "completion_tokens": step.output_tokens,
            "cached_tokens": 0,
            "extra": {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        }
        base = {"timestamp": t, "source": "agent", "model_name": CLAUDE}
        add({**base, "message": step.text, "metrics": metrics, "extra": {"stop_reason": "end_turn" if step.final else "tool_use", "cwd": "/app"}})
        for k, c in enumerate(step.calls):
            cid = call_id(run, i, k, "toolu_")
            raw = {"type": "tool_result", "tool_use_id": cid, "content": c.result, "is_error": c.is_error}
            add(
                {
                    **base,
                    "message": f"Executed {c.name} {cid}",
                    "tool_calls": [{"tool_call_id": cid, "function_name": c.name, "arguments": c.arguments}],
                    "observation": {"results": [{"source_call_id": cid, "content": c.result}]},
                    "extra": {
                        "tool_use_name": c.name,
                        "raw_arguments": c.arguments,
                        "tool_result_is_error": c.is_error,
                        "tool_result_metadata": {"raw_tool_result": raw},
                    },
                }
            )
    document = {
        "schema_version": "ATIF-v1.2",
        "session_id": run_uuid(run, "session"),
        "agent": {"name": "claude-code", "version": "2.1.89", "model_name": CLAUDE},
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": sum(s.input_tokens for s in run.steps),
            "total_completion_tokens": sum(s.output_tokens for s in run.steps),
            "total_cached_tokens": 0,
            "total_steps": len(steps),
        },
    }
    trial = path / f"{run.id}__Ab12Cd3"
    (trial / "agent").mkdir(parents=True)
    write_json(trial / "result.json", {"trial_name": run.id, "verifier_result": {"rewards": {"reward": 1.0 if run.success else 0.0}}}, indent=4)
    return write_json(trial / "agent" / "trajectory.json", document, indent=2)


def render_cline(run: Run, path: Path) -> Path:
    """A Roo Code task folder of the XML-calling era: ``api_conversation_history.json``
    (``ts`` in ms on every message; calls as XML in the text: the docs search through
    ``use_mcp_tool``, ``read_file`` built in; results as ``[tool for 'x'] Result:`` text
    blocks) and ``ui_messages.json`` beside it, one ``api_req_started`` per response
    (tokens, the request's start, ``conversationHistoryIndex``). The answer is
    ``attempt_completion``, which gets no result."""
    env = "<environment_details>\n# Current Mode\n<slug>ask</slug>\n<name>Ask</name>\n</environment_details>"

    def ms(t: float) -> int:
        return round(t * 1000)

    def xml(tag: str, params: dict[str, str]) -> str:
        inner = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
        return f"<{tag}>\n{inner}</{tag}>"

    history: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": f"<task>\n{run.question}\n</task>"}, {"type": "text", "text": env}], "ts": ms(run.started_at)}]
    ui: list[dict[str, Any]] = [{"ts": ms(run.started_at), "type": "say", "say": "text", "text": run.question}]
    for i, step in enumerate(run.steps):
        info = {"apiProtocol": "anthropic", "tokensIn": step.input_tokens, "tokensOut": step.output_tokens, "cacheWrites": 0, "cacheReads": 0, "cost": 0.001}
        # Said before the request's user message is added: the index of the response before it.
        ui.append({"ts": ms(step.started_at), "type": "say", "say": "api_req_started", "text": json.dumps(info), "conversationHistoryIndex": len(history) - 2})
        if step.final:
            history.append({"role": "assistant", "content": [{"type": "text", "text": xml("attempt_completion", {"result": step.text})}], "ts": ms(step.ended_at)})
            break
        blocks, results = [], []
        for k, c in enumerate(step.calls):
            if c.name == "read_file":
                blocks.append(xml("read_file", {str(key): str(v) for key, v in c.arguments.items()}))
                header = f"[read_file for '{c.arguments['path']}'] Result:"
            else:
                blocks.append(xml("use_mcp_tool", {"server_name": "docs", "tool_name": c.name, "arguments": c.arguments_json}))
                header = "[use_mcp_tool for 'docs'] Result:"
            results += [{"type": "text", "text": header}, {"type": "text", "text": c.result}]
        text = step.text + "\n\n" + "\n\n".join(blocks)
        history.append({"role": "assistant", "content": [{"type": "text", "text": text}], "ts": ms(step.ended_at)})
        end = step.result_times(len(step.calls) - 1)[1]
        history.append({"role": "user", "content": [*results, {"type": "text", "text": env}], "ts": ms(end)})
    folder = path / run_uuid(run, "roo")
    folder.mkdir(parents=True)
    write_json(folder / "ui_messages.json", ui)
    return write_json(folder / "api_conversation_history.json", history)


# name -> (renderer, the file's expected format name)
RENDERERS: dict[str, Callable[[Run, Path], Path]] = {
    "native": render_native,
    "openai-chat": render_openai_chat,
    "langchain": render_langchain,
    "openai-responses": render_openai_responses,
    "openai-agents": render_openai_agents,
    "langsmith": render_langsmith,
    "otel": render_otel,
    "anthropic": render_anthropic,
    "claude-code": render_claude_code,
    "codex-cli": render_codex_cli,
    "cline": render_cline,
    "atif": render_atif,
    "swe-agent": render_swe_agent,
    "openhands": render_openhands,
    "inspect": render_inspect,
    "tau-bench": render_tau_bench,
    "mini-swe-agent": render_mini_swe_agent,
    "swe-smith": render_swe_smith,
    "react-text": render_react_text,
}
