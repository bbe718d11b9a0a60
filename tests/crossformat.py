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


def render_claude_code_stream(run: Run, path: Path) -> Path:
    """``claude -p --output-format stream-json --verbose``: the init line, one assistant
    line per content block (the usage of the response's start on each: output 1, no
    stop_reason), one user line per tool result, the result line with the run's usage."""
    session = run_uuid(run, "stream")
    lines: list[dict[str, Any]] = []
    tools = ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", *(claude_code_name(name) for name, _, _ in run.tools)]
    lines.append({"type": "system", "subtype": "init", "cwd": "/home/dev/http-client", "session_id": session, "tools": tools, "mcp_servers": [{"name": "docs", "status": "connected"}], "model": CLAUDE, "permissionMode": "bypassPermissions", "apiKeySource": "ANTHROPIC_API_KEY", "claude_code_version": "2.0.76", "output_style": "default", "uuid": run_uuid(run, "stream", "init")})
    for i, step in enumerate(run.steps):
        message_id = "msg_01" + ident(run, "stream-msg", i, size=22)
        usage = {**_anthropic_usage(step), "output_tokens": 1}  # as the response started
        for b, block in enumerate(_anthropic_content(run, i, step, claude_code_name)):
            message = {"model": CLAUDE, "id": message_id, "type": "message", "role": "assistant", "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage, "context_management": None}
            lines.append({"type": "assistant", "message": message, "parent_tool_use_id": None, "session_id": session, "uuid": run_uuid(run, "stream", i, b)})
        for k, block in enumerate(_anthropic_results(run, i, step, flag_success=False)):
            lines.append({"type": "user", "message": {"role": "user", "content": [block]}, "parent_tool_use_id": None, "session_id": session, "uuid": run_uuid(run, "stream", i, "result", k), "tool_use_result": step.calls[k].result})
    inputs, outputs = sum(s.input_tokens for s in run.steps), sum(s.output_tokens for s in run.steps)
    total = {"input_tokens": inputs, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": outputs, "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard"}
    seconds = run.ended_at - run.started_at
    lines.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": round(seconds * 1000), "duration_api_ms": round(sum(s.ended_at - s.started_at for s in run.steps) * 1000), "num_turns": len(run.steps), "result": run.answer, "session_id": session, "total_cost_usd": 0.0215, "usage": total, "permission_denials": [], "uuid": run_uuid(run, "stream", "result")})
    return write_jsonl(path / "claude-code.txt", lines)


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


def goose_name(name: str) -> str:
    """Goose names a tool ``<extension>__<tool>``."""
    return f"docs__{name}"


def render_goose(run: Run, path: Path) -> Path:
    """A Goose session file (1.8): the metadata line (the run total accumulated, the last
    call's usage), then one message a line, ``created`` in whole seconds; each response one
    assistant message, its results one user message of ``toolResponse`` blocks."""
    visible = {"userVisible": True, "agentVisible": True}
    last = run.steps[-1]
    meta = {
        "working_dir": "/home/dev/http-client", "description": "HTTP client retry policy", "schedule_id": None,
        "message_count": 1 + len(run.steps) + sum(1 for s in run.steps if s.calls),
        "total_tokens": last.input_tokens + last.output_tokens, "input_tokens": last.input_tokens, "output_tokens": last.output_tokens,
        "accumulated_total_tokens": sum(s.input_tokens + s.output_tokens for s in run.steps),
        "accumulated_input_tokens": sum(s.input_tokens for s in run.steps),
        "accumulated_output_tokens": sum(s.output_tokens for s in run.steps),
    }
    lines: list[dict[str, Any]] = [meta, {"id": None, "role": "user", "created": int(run.started_at), "content": [{"type": "text", "text": run.question}], "metadata": visible}]
    for i, step in enumerate(run.steps):
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}]
        for k, c in enumerate(step.calls):
            content.append({"type": "toolRequest", "id": call_id(run, i, k, "toolu_"), "toolCall": {"status": "success", "value": {"name": goose_name(c.name), "arguments": c.arguments}}})
        lines.append({"id": f"msg_{ident(run, 'msg', i)}", "role": "assistant", "created": int(step.ended_at), "content": content, "metadata": visible})
        if step.calls:
            results = [
                {"type": "toolResponse", "id": call_id(run, i, k, "toolu_"), "toolResult": {"status": "success", "value": {"content": [{"type": "text", "text": c.result}], "isError": c.is_error}}}
                for k, c in enumerate(step.calls)
            ]
            lines.append({"id": None, "role": "user", "created": int(step.result_times(len(step.calls) - 1)[1]), "content": results, "metadata": visible})
    stamp = datetime.fromtimestamp(run.started_at, tz=timezone.utc).strftime("%Y%m%d_%H%M%S")
    return write_jsonl(path / f"{stamp}.jsonl", lines)


def render_gemini_cli(run: Run, path: Path) -> Path:
    """A Gemini CLI 0.39+ session log (``chats/session-<time>-<id8>.jsonl``): a metadata
    line, the user message, then per response its message written again as it changes
    (text, then tokens, then the finished tool calls with their results), and ``$set``
    lines updating ``lastUpdated``."""
    session = run_uuid(run, "gemini")
    lines: list[dict[str, Any]] = [
        {"sessionId": session, "projectHash": "5eb97eaffa8e54844d59a44d0c1a399d7e11eff9b0dbdc4f65d4ab7faecd90e1", "startTime": iso(run.started_at), "lastUpdated": iso(run.started_at), "kind": "main"},
        {"id": run_uuid(run, "gemini-user"), "timestamp": iso(run.started_at), "type": "user", "content": [{"text": run.question}]},
    ]
    for i, step in enumerate(run.steps):
        message: dict[str, Any] = {"id": run_uuid(run, f"gemini-{i}"), "timestamp": iso(step.ended_at), "type": "gemini", "content": [{"text": step.text}], "thoughts": [], "tokens": None, "model": "gemini-2.5-pro"}
        lines.append(dict(message))
        total = step.input_tokens + step.output_tokens
        message["tokens"] = {"input": step.input_tokens, "output": step.output_tokens, "cached": 0, "thoughts": 0, "tool": 0, "total": total}
        lines.append(dict(message))
        if step.calls:
            records = []
            for k, c in enumerate(step.calls):
                cid = call_id(run, i, k)
                records.append({
                    "id": cid, "name": c.name, "args": c.arguments,
                    "result": [{"functionResponse": {"id": cid, "name": c.name, "response": {"output": c.result}}}],
                    "status": "success", "timestamp": iso(step.result_times(k)[1]), "resultDisplay": c.result,
                    "displayName": c.name, "description": "", "renderOutputAsMarkdown": True,
                })
            message["toolCalls"] = records
            lines.append(dict(message))
        lines.append({"$set": {"lastUpdated": iso(step.ended_at)}})
    return write_jsonl(path / f"session-2025-03-10T08-00-{session[:8]}.jsonl", lines)


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


def render_openhands_v1(run: Run, path: Path) -> Path:
    """An OpenHands V1 conversation folder as the software-agent SDK persists it:
    ``events/event-<index>-<id>.json`` (compact JSON, no newline) and ``base_state.json``
    with the token counts per response; the run ends with the ``finish`` tool."""
    conversation = path / ident(run, "ohv1", size=32)
    events: list[dict[str, Any]] = []

    def add(at: float, source: str, kind: str, **fields: Any) -> str:
        event = {"id": run_uuid(run, "ohv1-event", len(events)), "timestamp": naive(at), "source": source, **fields, "kind": kind}
        events.append(event)
        return event["id"]

    def text(value: str) -> list[dict[str, Any]]:
        return [{"cache_prompt": False, "type": "text", "text": value}] if value else []

    add(run.started_at - 0.03, "agent", "SystemPromptEvent", system_prompt={"cache_prompt": False, "type": "text", "text": SYSTEM}, tools=[])
    add(run.started_at - 0.02, "user", "MessageEvent", llm_message={"role": "user", "content": text(run.question), "thinking_blocks": []}, activated_skills=[], extended_content=[])
    usages = []
    for i, step in enumerate(run.steps):
        response = "chatcmpl-" + ident(run, "ohv1", i, size=29)
        usages.append({"model": MODEL, "prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens, "cache_read_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0, "context_window": 128000, "per_turn_token": step.input_tokens + step.output_tokens, "response_id": response})
        calls = [(c.name, c.arguments, c) for c in step.calls] or [("finish", {"message": step.text}, None)]
        actions = []
        for k, (name, arguments, _) in enumerate(calls):
            kind = "FinishAction" if name == "finish" else "".join(part.title() for part in name.split("_")) + "Action"
            tool_call = {"id": call_id(run, i, k), "name": name, "arguments": json.dumps({**arguments, "security_risk": "LOW", "summary": name}), "origin": "completion"}
            thought = text(step.text) if k == 0 and step.calls else []
            actions.append(add(step.ended_at, "agent", "ActionEvent", thought=thought, thinking_blocks=[], action={**arguments, "kind": kind}, tool_name=name, tool_call_id=call_id(run, i, k), tool_call=tool_call, llm_response_id=response, security_risk="LOW", summary=name))
        for k, (name, _, c) in enumerate(calls):
            start, end = step.result_times(k)
            result = step.text if c is None else c.result
            kind = "FinishObservation" if c is None else "".join(part.title() for part in name.split("_")) + "Observation"
            add(end, "environment", "ObservationEvent", tool_name=name, tool_call_id=call_id(run, i, k), observation={"content": text(result), "is_error": bool(c is not None and c.is_error), "kind": kind}, action_id=actions[k])
    (conversation / "events").mkdir(parents=True)
    for index, event in enumerate(events):
        (conversation / "events" / f"event-{index:05d}-{event['id']}.json").write_text(json.dumps(event, separators=(",", ":")), encoding="utf-8")
    state = {
        "id": run_uuid(run, "ohv1"),
        "agent": {"llm": {"model": MODEL, "api_key": "**********", "usage_id": "agent"}, "tools": [{"name": name, "params": {}} for name, _, _ in TOOLS], "kind": "Agent"},
        "workspace": {"working_dir": "/workspace", "kind": "LocalWorkspace"},
        "persistence_dir": str(conversation),
        "max_iterations": 500,
        "execution_status": "finished",
        "stats": {"usage_to_metrics": {"agent": {"model_name": MODEL, "token_usages": usages}}},
    }
    (conversation / "base_state.json").write_text(json.dumps(state, separators=(",", ":")), encoding="utf-8")
    return conversation


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


def render_autogen(run: Run, path: Path) -> Path:
    """An autogen-agentchat TaskResult (0.5+, ``model_dump_json``): the task, then per
    response a ThoughtEvent with its text and a ToolCallRequestEvent (models_usage), the
    ToolCallExecutionEvent with the results; the answer a TextMessage."""
    messages: list[dict[str, Any]] = []

    def message(t: float, kind: str, content: Any, usage: dict[str, int] | None = None, source: str = "docs_agent") -> None:
        messages.append({"id": run_uuid(run, "autogen", len(messages)), "source": source, "models_usage": usage, "metadata": {}, "created_at": iso(t, 6), "content": content, "type": kind})

    message(run.started_at, "TextMessage", run.question, source="user")
    for i, step in enumerate(run.steps):
        usage = {"prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens}
        if step.final:
            message(step.ended_at, "TextMessage", step.text, usage)
            continue
        message(step.ended_at - 0.001, "ThoughtEvent", step.text)
        message(step.ended_at, "ToolCallRequestEvent", [{"id": call_id(run, i, k), "arguments": c.arguments_json, "name": c.name} for k, c in enumerate(step.calls)], usage)
        last = step.result_times(len(step.calls) - 1)[1]
        message(last, "ToolCallExecutionEvent", [{"content": c.result, "name": c.name, "call_id": call_id(run, i, k), "is_error": False} for k, c in enumerate(step.calls)])
    return write_json(path / f"{run.id}.autogen.json", {"messages": messages, "stop_reason": None}, indent=2)


def render_magentic_one(run: Run, path: Path) -> Path:
    """A Magentic-One log.jsonl: each response the orchestrator's ledger thought (at the
    response's start) and its instruction to the agent named after the tool (at its end;
    the instruction is the argument's value), the agent's answer at the result's end;
    one LLMCallEvent per response; the answer as ``(final answer)``."""
    lines: list[dict[str, Any]] = []

    def event(t: float, source: str, message: str) -> None:
        lines.append({"timestamp": naive(t), "source": source, "message": message, "type": "OrchestrationEvent"})

    event(run.started_at, "human", run.question)
    for step in run.steps:
        lines.append({"timestamp": naive(step.ended_at - 0.002), "prompt_tokens": step.input_tokens, "completion_tokens": step.output_tokens, "type": "LLMCallEvent"})
        if step.final:
            event(step.started_at, "Orchestrator (thought)", "Request satisfied.")
            event(step.ended_at, "Orchestrator (final answer)", step.text)
            continue
        (c,) = step.calls  # one agent instructed per step
        event(step.started_at, "Orchestrator (thought)", f"Updated Ledger:\n{step.text}")
        event(step.ended_at, f"Orchestrator (-> {c.name})", next(iter(c.arguments.values())))
        event(step.ended_at + 0.001, "Orchestrator (thought)", f"Next speaker {c.name}")
        event(step.result_times(0)[1], c.name, c.result)
    event(run.ended_at, "Orchestrator (termination condition)", "No agent selected.")
    return write_jsonl(path / "log.jsonl", lines)


def render_who_and_when(run: Run, path: Path) -> Path:
    """A Who&When hand-crafted run: the Magentic-One log's sources as ``role`` and its
    messages as ``content`` (no times, no tokens) under ``history``, beside the dataset's
    question, ground truth, grade and attribution."""
    history: list[dict[str, Any]] = [{"content": run.question, "role": "human"}]
    for step in run.steps:
        if step.final:
            history.append({"content": step.text, "role": "Orchestrator (final answer)"})
            continue
        (c,) = step.calls  # one agent instructed per step
        history.append({"content": f"Updated Ledger:\n{step.text}", "role": "Orchestrator (thought)"})
        history.append({"content": next(iter(c.arguments.values())), "role": f"Orchestrator (-> {c.name})"})
        history.append({"content": f"Next speaker {c.name}", "role": "Orchestrator (thought)"})
        history.append({"content": c.result, "role": c.name})
    history.append({"content": "No agent selected.", "role": "Orchestrator (termination condition)"})
    document = {
        "history": history,
        "question": run.question,
        "ground_truth": run.answer,
        "is_corrected": run.success,
        "question_ID": run.id,
        "mistake_agent": "Orchestrator",
        "mistake_step": "1",
        "mistake_reason": "made up for the test",
    }
    return write_json(path / f"{run.id}.who-and-when.json", document, indent=2)


def render_pydantic_ai(run: Run, path: Path) -> Path:
    """``result.all_messages_json()`` of a Pydantic AI 1.x agent run: a request (the
    prompt, then each response's tool returns) before every response; requests carry the
    time they were sent, responses the time they were received."""
    run_id = run_uuid(run, "pydantic-ai")
    usage_zero = {"cache_write_tokens": 0, "cache_read_tokens": 0, "input_audio_tokens": 0, "cache_audio_read_tokens": 0, "output_audio_tokens": 0, "details": {}}
    parts: list[dict[str, Any]] = [{"content": run.question, "timestamp": iso(run.started_at, 6), "part_kind": "user-prompt"}]
    messages: list[dict[str, Any]] = []
    for i, step in enumerate(run.steps):
        messages.append({"parts": parts, "timestamp": iso(step.started_at, 6), "instructions": "Answer from the project docs.", "kind": "request", "run_id": run_id, "metadata": None})
        out: list[dict[str, Any]] = [{"content": step.text, "id": None, "provider_name": None, "provider_details": None, "part_kind": "text"}]
        out += [
            {"tool_name": c.name, "args": c.arguments_json, "tool_call_id": call_id(run, i, k), "id": None, "provider_name": None, "provider_details": None, "part_kind": "tool-call"}
            for k, c in enumerate(step.calls)
        ]
        messages.append(
            {
                "parts": out,
                "usage": {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens, **usage_zero},
                "model_name": "gpt-4.1-2025-04-14",
                "timestamp": iso(step.ended_at, 6),
                "kind": "response",
                "provider_name": "openai",
                "provider_url": "https://api.openai.com/v1/",
                "provider_details": {"finish_reason": "tool_calls" if step.calls else "stop"},
                "provider_response_id": "chatcmpl-" + ident(run, "response", i),
                "finish_reason": "tool_call" if step.calls else "stop",
                "run_id": run_id,
                "metadata": None,
            }
        )
        parts = [
            {"tool_name": c.name, "content": c.result, "tool_call_id": call_id(run, i, k), "metadata": None, "timestamp": iso(step.result_times(k)[1], 6), "outcome": "success", "part_kind": "tool-return"}
            for k, c in enumerate(step.calls)
        ]
    return write_json(path / "messages.json", messages)


def render_smolagents(run: Run, path: Path) -> Path:
    """``json.dump(agent.memory.get_full_steps())`` of a smolagents 1.2x ToolCallingAgent:
    the task, one action step per model call; the answer is a ``final_answer`` call on the
    step marked ``is_final_answer``. A step's timing spans the model call and its tools."""
    steps: list[dict[str, Any]] = [{"task": run.question, "task_images": None}]
    for i, step in enumerate(run.steps):
        calls = [(call_id(run, i, k), c.name, c.arguments, c.result) for k, c in enumerate(step.calls)]
        if step.final:
            calls = [(call_id(run, i, 0), "final_answer", {"answer": step.text}, step.text)]
        end = step.result_times(len(step.calls) - 1)[1] if step.calls else step.ended_at
        usage = {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens, "total_tokens": step.input_tokens + step.output_tokens}
        listed = [{"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}} for cid, name, arguments, _ in calls]
        steps.append(
            {
                "step_number": i + 1,
                "timing": {"start_time": step.started_at, "end_time": end, "duration": end - step.started_at},
                "model_input_messages": None,
                "tool_calls": listed,
                "error": None,
                "model_output_message": {"role": "assistant", "content": step.text, "tool_calls": [{**c, "function": {**c["function"], "description": None}} for c in listed], "raw": None, "token_usage": usage},
                "model_output": step.text,
                "code_action": None,
                "observations": "\n".join(result for _, _, _, result in calls),
                "observations_images": None,
                "action_output": step.text if step.final else None,
                "token_usage": usage,
                "is_final_answer": step.final,
            }
        )
    return write_json(path / "memory_steps.json", steps, indent=2)


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
    "claude-code-stream": render_claude_code_stream,
    "codex-cli": render_codex_cli,
    "goose": render_goose,
    "autogen": render_autogen,
    "magentic-one": render_magentic_one,
    "who-and-when": render_who_and_when,
    "gemini-cli": render_gemini_cli,
    "cline": render_cline,
    "atif": render_atif,
    "swe-agent": render_swe_agent,
    "openhands": render_openhands,
    "openhands-v1": render_openhands_v1,
    "inspect": render_inspect,
    "tau-bench": render_tau_bench,
    "mini-swe-agent": render_mini_swe_agent,
    "swe-smith": render_swe_smith,
    "react-text": render_react_text,
    "pydantic-ai": render_pydantic_ai,
    "smolagents": render_smolagents,
}
