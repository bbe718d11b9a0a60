"""The reader registry: which formats exist, how each is recognised, where its code lives.

Sniffing functions live here (they are a few dictionary look-ups), the readers in
their own modules, imported only when a file of that format is read.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..input.diagnostics import Diagnostics

if TYPE_CHECKING:  # the registry is imported by every command, --help included: keep it light
    from ..input.sources import Record
    from ..model import Trace


@dataclass(slots=True)
class ReadContext:
    file: str  # name shown in warnings and reports
    diagnostics: Diagnostics

    def warn(self, line: int | None, reason: str) -> None:
        self.diagnostics.warn(self.file, line, reason)


def _first(value: Any) -> Any:
    """The first element of a list (a .json array of items), else the value itself."""
    if isinstance(value, list) and value:
        return value[0]
    return value


def _is_native(value: Any) -> bool:
    return isinstance(value, dict) and "trace" in value and value.get("type") in NATIVE_EVENT_TYPES


NATIVE_EVENT_TYPES = ("trace", "labels", "expect", "allow", "user", "round", "result", "end")


# What json.dump(messages) writes: bare chat messages, a role and content (or calls),
# with no envelope ("type" would make it a Responses item or an Anthropic response).
_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_ENVELOPE_KEYS = ("type", "messages", "request", "response", "data", "lc")


def is_bare_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in _CHAT_ROLES
        and ("content" in value or "tool_calls" in value)
        and not any(key in value for key in _ENVELOPE_KEYS)
    )


def _is_bare_messages(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(is_bare_message(v) for v in value)


def _is_openai_chat(value: Any) -> bool:
    # A dumped messages list with no Anthropic blocks (the anthropic sniffer comes first;
    # a list without tools reads the same either way).
    if _is_bare_messages(value):
        return True
    item = _first(value)
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("messages"), list):
        return True
    if "request" in item and "response" in item:
        request = item["request"]
        return isinstance(request, dict) and "messages" in request
    if "custom_id" in item and ("response" in item or "body" in item):
        return True
    return "role" in item and ("conversation_id" in item or "thread_id" in item or "session_id" in item)


_LANGCHAIN_TYPES = ("human", "ai", "tool", "system", "function", "chat")


def _is_langchain(value: Any) -> bool:
    def is_message(obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        if obj.get("lc") == 1:
            return True
        kind = obj.get("type")
        # messages_to_dict writes chunk classes by their class name ("AIMessageChunk").
        if kind in _LANGCHAIN_TYPES or (isinstance(kind, str) and kind.endswith("MessageChunk")):
            if isinstance(obj.get("data"), dict):
                return True
            # A bare message.model_dump(): content plus LangChain's metadata dicts.
            return "content" in obj and ("additional_kwargs" in obj or "response_metadata" in obj)
        return False

    item = _first(value)
    if isinstance(item, dict):
        if is_message(item):
            return True
        if isinstance(item.get("intermediate_steps"), list):
            return True
        if "tool" in item and "tool_input" in item:
            return True
        # A LangGraph state {"messages": [...]} of LangChain (not OpenAI) messages.
        messages = item.get("messages")
        if isinstance(messages, list) and messages and is_message(messages[0]):
            return True
    if isinstance(item, list) and item and isinstance(item[0], dict):
        if is_message(item[0]):  # several conversations in one document
            return True
        action = item[0]
        return len(item) == 2 and "tool" in action and "tool_input" in action
    return False


def _is_claude_code(value: Any) -> bool:
    item = _first(value)
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind in ("user", "assistant", "system") and isinstance(item.get("message"), dict):
        return "sessionId" in item or "uuid" in item
    return kind in ("summary", "file-history-snapshot") and ("leafUuid" in item or "messageId" in item or "snapshot" in item)


def _is_openai_agents(value: Any) -> bool:
    item = _first(value)
    if isinstance(item, dict) and isinstance(item.get("data"), list):  # a captured ingest POST body
        item = _first(item["data"])
    return isinstance(item, dict) and item.get("object") in ("trace", "trace.span")


def _is_langsmith(value: Any) -> bool:
    item = _first(value)
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("post"), list) or isinstance(item.get("patch"), list):
        return True
    return "run_type" in item and ("dotted_order" in item or "trace_id" in item or "parent_run_id" in item)


def _is_otel(value: Any) -> bool:
    item = _first(value)
    return isinstance(item, dict) and isinstance(item.get("resourceSpans"), list)


def _is_inspect(value: Any) -> bool:
    from ..input.sources import ZipDocument

    if isinstance(value, ZipDocument):
        try:
            names = value.names()
        except OSError:  # ArchiveError: the source already said the archive is unreadable
            return False
        # header.json is written when an eval ends; a running or killed one has the journal.
        return "header.json" in names or "_journal/start.json" in names
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and ("samples" in value or "results" in value or "status" in value)


def _is_swe_agent(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("trajectory"), list):
        return "history" in value or "info" in value
    # A .traj that keeps only the messages: SWE-agent's history items carry their "agent";
    # 1.x items also their "message_type", which is enough without "info".
    history = value.get("history")
    first = history[0] if isinstance(history, list) and history else None
    return (
        "trajectory" not in value
        and isinstance(first, dict)
        and "role" in first
        and "agent" in first
        and (isinstance(value.get("info"), dict) or "message_type" in first)
    )


def _is_openhands_event(obj: Any) -> bool:
    return isinstance(obj, dict) and "source" in obj and ("action" in obj or "observation" in obj)


def _is_openhands(value: Any) -> bool:
    item = _first(value)
    if _is_openhands_event(item):
        return True
    if isinstance(item, list) and len(item) == 2 and all(isinstance(e, dict) for e in item):
        # The old format: [action, observation] pairs.
        return "action" in item[0] and "observation" in item[1]
    if isinstance(item, dict) and "instance_id" in item and "history" in item and item["history"] is None:
        return True  # an evaluation line whose run produced no history
    if not (isinstance(item, dict) and isinstance(item.get("history"), list)):
        return False
    history = item["history"]
    if not history or _is_openhands_event(history[0]):
        return True
    # Old evaluation and resolver lines: flat events without "source" (no chat "role").
    first = history[0]
    return (
        ("instruction" in item or "instance_id" in item)
        and isinstance(first, dict)
        and "role" not in first
        and (isinstance(first.get("action"), str) or isinstance(first.get("observation"), str))
    )


def _is_tau_bench(value: Any) -> bool:
    if isinstance(value, dict) and "task_id" not in value and isinstance(value.get("info"), dict):
        # τ²-bench results: {timestamp, info, tasks, simulations} (the directory
        # format's results.json has a simulation_index instead of simulations).
        if isinstance(value.get("simulations"), list) or isinstance(value.get("simulation_index"), list):
            return "tasks" in value
    item = _first(value)
    if not isinstance(item, dict) or "task_id" not in item:
        return False
    if "traj" in item:
        return "reward" in item or "trial" in item
    # A τ²-bench SimulationRun keeps its reward under reward_info.
    return "messages" in item and ("reward" in item or "reward_info" in item or "termination_reason" in item)


def _mentions_mswea(messages: Any) -> bool:
    if not isinstance(messages, list):
        return False
    for message in messages[:6]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and ("mswea_bash_command" in content or "<returncode>" in content):
            return True
    return False


def _is_mini_swe_agent(value: Any) -> bool:
    if isinstance(value, dict):
        fmt = value.get("trajectory_format")
        return (isinstance(fmt, str) and fmt.startswith("mini-swe-agent")) or _mentions_mswea(value.get("messages"))
    return _mentions_mswea(value)


_RESPONSES_ITEM_TYPES = ("function_call", "function_call_output", "reasoning", "web_search_call", "file_search_call", "computer_call", "custom_tool_call", "mcp_call", "code_interpreter_call", "local_shell_call")


def _is_openai_responses(value: Any) -> bool:
    item = _first(value)
    if not isinstance(item, dict):
        return False
    if item.get("object") == "response":
        return True
    response = item.get("response")
    if isinstance(response, dict) and response.get("object") == "response":
        return True
    if item.get("type") in _RESPONSES_ITEM_TYPES:
        return True
    # A typed message item (one item per line): its parts are input_text/output_text,
    # where an Anthropic message has text/tool_use blocks.
    content = item.get("content")
    if item.get("type") == "message" and isinstance(content, list):
        if any(isinstance(p, dict) and p.get("type") in ("input_text", "output_text") for p in content):
            return True
    # A flat item list that starts with a short-form or typed message.
    return isinstance(value, list) and any(isinstance(v, dict) and v.get("type") in _RESPONSES_ITEM_TYPES for v in value[:20])


_ANTHROPIC_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use")


def _has_anthropic_blocks(messages: Any) -> bool:
    if not isinstance(messages, list):
        return False
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in _ANTHROPIC_BLOCKS for b in content):
            return True
    return False


def _is_anthropic(value: Any) -> bool:
    if _is_bare_messages(value):  # json.dump(messages) of Anthropic messages
        return _has_anthropic_blocks(value)
    item = _first(value)
    if not isinstance(item, dict):
        return False
    if item.get("type") == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), list):
        return True  # a Messages API response object
    response = item.get("response")
    if isinstance(response, dict) and response.get("type") == "message":
        return True
    request = item.get("request") if isinstance(item.get("request"), dict) else item
    return _has_anthropic_blocks(request.get("messages")) or (
        isinstance(request.get("system"), (str, list)) and isinstance(request.get("messages"), list) and "model" in request
    )


def _is_swe_smith(value: Any) -> bool:
    item = _first(value)
    messages = item.get("messages") if isinstance(item, dict) else None
    if not isinstance(messages, list):
        return False
    # An assistant text with an XML function call (SWE-agent's <function=NAME> syntax).
    for message in messages[:8]:
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, str) and "<function=" in content and "</function>" in content:
                return True
    return False


def _is_atif(value: Any) -> bool:
    version = value.get("schema_version") if isinstance(value, dict) else None
    return isinstance(version, str) and version.upper().startswith("ATIF") and isinstance(value.get("steps"), list)


def _is_react_text(value: Any) -> bool:
    from ..input.sources import TextDocument

    return isinstance(value, TextDocument) and bool(_REACT_ACTION.search(value.text))


_REACT_ACTION = re.compile(r"^\s*(Action\s*\d*\s*:|Final Answer\s*:)", re.M)


@dataclass(slots=True, frozen=True)
class ReaderInfo:
    name: str
    module: str
    sniff: Callable[[Any], bool]
    description: str

    def load(self):
        return importlib.import_module(f"{__name__}.{self.module}")


# Order matters: the first reader whose sniff accepts the first record wins.
READERS: tuple[ReaderInfo, ...] = (
    ReaderInfo("native", "native", _is_native, "tracecheck's own JSONL events"),
    ReaderInfo("claude-code", "claude_code", _is_claude_code, "Claude Code session JSONL (entries grouped by message id)"),
    ReaderInfo("openai-agents", "openai_agents", _is_openai_agents, "OpenAI Agents SDK trace/span export"),
    ReaderInfo("langsmith", "langsmith", _is_langsmith, "LangSmith runs (one per line, any order) and {post, patch} ingest recordings"),
    ReaderInfo("otel", "otel", _is_otel, "OpenTelemetry OTLP/JSON with GenAI or OpenInference attributes"),
    ReaderInfo("inspect", "inspect_ai", _is_inspect, "Inspect AI eval logs (.json, zipped .eval)"),
    ReaderInfo("swe-agent", "swe_agent", _is_swe_agent, "SWE-agent .traj trajectories (a SWE-bench report beside them as outcome)"),
    ReaderInfo("atif", "atif", _is_atif, "ATIF trajectories (Harbor / Terminal-Bench trajectory.json; result.json reward as outcome)"),
    ReaderInfo("openhands", "openhands", _is_openhands, "OpenHands event streams and evaluation output.jsonl"),
    ReaderInfo("tau-bench", "tau_bench", _is_tau_bench, "τ-bench / τ²-bench result arrays (reward as outcome)"),
    ReaderInfo("mini-swe-agent", "mini_swe_agent", _is_mini_swe_agent, "mini-swe-agent message lists and .traj.json (a SWE-bench report beside them as outcome)"),
    ReaderInfo("openai-responses", "openai_responses", _is_openai_responses, "OpenAI Responses API: response objects or flat item lists"),
    ReaderInfo("anthropic", "anthropic", _is_anthropic, "Anthropic Messages requests/responses, dumped message lists (tool_use / tool_result blocks)"),
    ReaderInfo("langchain", "langchain", _is_langchain, "LangChain messages_to_dict / dumpd lists, AgentExecutor intermediate_steps"),
    ReaderInfo("swe-smith", "swe_smith", _is_swe_smith, "SWE-smith fine-tuning chats: XML function calls in assistant text, OBSERVATION: results"),
    ReaderInfo("openai-chat", "openai_chat", _is_openai_chat, "OpenAI Chat Completions: conversations, request/response logs, Batch output, message-per-line, dumped message lists"),
    ReaderInfo("react-text", "react_text", _is_react_text, "ReAct text transcripts (Thought / Action / Action Input / Observation)"),
)

READER_NAMES = tuple(r.name for r in READERS)


# Files that sit beside transcripts and are not transcripts: a directory walk skips them
# without a warning (naming one on the command line says what it is).
def _is_harbor_result(value: Any) -> bool:
    return isinstance(value, dict) and ("verifier_result" in value or "agent_result" in value or "trial_results" in value) and (
        "trial_name" in value or "task_name" in value or "n_total_trials" in value or "stats" in value
    )


def _is_labels(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("traces"), list) and "version" in value:  # tracecheck's own sidecar
        return True
    # Hand-written labels keyed by run: a "_doc" and entries holding a "kind".
    entries = [v for k, v in value.items() if not str(k).startswith("_")]
    return "_doc" in value and bool(entries) and all(isinstance(v, dict) and ("kind" in v or "runs" in v) for v in entries[:5])


def _is_swe_bench_report(value: Any) -> bool:
    from .graders import is_swe_bench_report

    return is_swe_bench_report(value)


NOT_TRANSCRIPTS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("a Harbor trial result (its reward is read as the outcome of the trajectory beside it)", _is_harbor_result),
    ("a SWE-bench grading report (its verdicts are read as the outcomes of the trajectories beside it)", _is_swe_bench_report),
    ("a labels file (give it with --labels)", _is_labels),
)


def not_a_transcript(value: Any) -> str | None:
    """What a file is when it is a known companion of transcripts, else ``None``."""
    for what, sniff_it in NOT_TRANSCRIPTS:
        if sniff_it(value):
            return what
    return None


def reader_by_name(name: str) -> ReaderInfo | None:
    for info in READERS:
        if info.name == name:
            return info
    return None


def sniff(value: Any) -> ReaderInfo | None:
    for info in READERS:
        if info.sniff(value):
            return info
    return None


# Bare messages looked at, one per line, to tell whose they are (tool calls or blocks
# usually show within the first few exchanges).
MESSAGE_LOOKAHEAD = 200


def sniff_message_lines(values: list) -> ReaderInfo | None:
    """The reader of a file of bare chat messages, one per line: sniffed as the list
    ``json.dump(messages)`` would have written (a first line alone, {"role": "user",
    "content": "..."}, fits OpenAI, Anthropic and Responses alike)."""
    return sniff(values) if _is_bare_messages(values) else None


def read_with(info: ReaderInfo, records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return info.load().read(records, ctx)
