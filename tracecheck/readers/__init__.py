"""The reader registry: which formats exist, in which order they are sniffed, where each
one's module is.

Each format's module (its sniffer beside its parser) provides what ``contract.FormatModule``
declares; it is imported only when a file is sniffed or read, never by ``--help`` or
``tracecheck formats``: the registry keeps the names and descriptions itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the registry is imported by every command, --help included: keep it light
    from ..input.sources import Record
    from ..model import Trace
    from .contract import FormatModule, ReadContext


@dataclass(slots=True, frozen=True)
class ReaderInfo:
    name: str
    module: str
    description: str

    def load(self) -> FormatModule:
        return importlib.import_module(f"{__name__}.{self.module}")

    def sniff(self, value: Any) -> bool:
        return self.load().sniff(value)


# Order matters: the first reader whose sniff accepts the first record wins, and the
# shapes overlap, so a sniffer that would also accept another format's records comes
# after that format:
# - native first, then the exports whose records carry their own marker (a Claude Code
#   entry, a Codex rollout line's "type" + "payload" envelope, an Agents SDK "object", a
#   LangSmith run, OTLP "resourceSpans", an Inspect log); codex-cli also takes a bare-era
#   rollout's first line (session meta with "instructions") and `codex exec --json`
#   events (dotted types: "thread.started", "item.completed"), which no other shape has;
# - the agent and benchmark formats (swe-agent .. mini-swe-agent) before the chat formats:
#   their documents hold chat messages that openai-chat would also accept;
# - cline after them and before openai-responses/anthropic/openai-chat: a Cline or Roo
#   task history is a bare Anthropic message list (anthropic takes it when it has
#   tool_use blocks, openai-chat otherwise); its first message, the user's <task>, or a
#   "[tool] Result:" header says whose it is;
# - openai-responses before anthropic: an assistant "message" item with a content list
#   passes anthropic's sniffer too; its input_text/output_text parts say it is Responses;
# - anthropic before openai-chat: both accept a dumped messages list, anthropic only one
#   with its content blocks (tool_use, tool_result, thinking);
# - swe-smith before openai-chat: its chats are OpenAI messages with XML calls in the text;
# - openai-chat accepts any {"messages": [...]} and any bare message list: it comes after
#   every format that has such lists; react-text (plain text) is last.
READERS: tuple[ReaderInfo, ...] = (
    ReaderInfo("native", "native", "tracecheck's own JSONL events"),
    ReaderInfo("claude-code", "claude_code", "Claude Code session JSONL (entries grouped by message id)"),
    ReaderInfo("codex-cli", "codex_cli", "Codex CLI session rollouts (~/.codex/sessions/**/rollout-*.jsonl), codex exec --json events"),
    ReaderInfo("openai-agents", "openai_agents", "OpenAI Agents SDK trace/span export"),
    ReaderInfo("langsmith", "langsmith", "LangSmith runs (one per line, any order) and {post, patch} ingest recordings"),
    ReaderInfo("otel", "otel", "OpenTelemetry OTLP/JSON with GenAI or OpenInference attributes"),
    ReaderInfo("inspect", "inspect_ai", "Inspect AI eval logs (.json, zipped .eval)"),
    ReaderInfo("swe-agent", "swe_agent", "SWE-agent .traj trajectories (a SWE-bench report beside them as outcome)"),
    ReaderInfo("atif", "atif", "ATIF trajectories (Harbor / Terminal-Bench trajectory.json; result.json reward as outcome)"),
    ReaderInfo("openhands", "openhands", "OpenHands event streams and evaluation output.jsonl"),
    ReaderInfo("tau-bench", "tau_bench", "τ-bench / τ²-bench result arrays (reward as outcome)"),
    ReaderInfo("mini-swe-agent", "mini_swe_agent", "mini-swe-agent message lists and .traj.json (a SWE-bench report beside them as outcome)"),
    ReaderInfo("cline", "cline", "Cline / Roo Code task history (api_conversation_history.json; ui_messages.json beside it for tokens)"),
    ReaderInfo("openai-responses", "openai_responses", "OpenAI Responses API: response objects or flat item lists"),
    ReaderInfo("anthropic", "anthropic", "Anthropic Messages requests/responses, dumped message lists (tool_use / tool_result blocks)"),
    ReaderInfo("langchain", "langchain", "LangChain messages_to_dict / dumpd lists, AgentExecutor intermediate_steps"),
    ReaderInfo("swe-smith", "swe_smith", "SWE-smith fine-tuning chats: XML function calls in assistant text, OBSERVATION: results"),
    ReaderInfo("openai-chat", "openai_chat", "OpenAI Chat Completions: conversations, request/response logs, Batch output, message-per-line, dumped message lists"),
    ReaderInfo("react-text", "react_text", "ReAct text transcripts (Thought / Action / Action Input / Observation)"),
)

READER_NAMES = tuple(r.name for r in READERS)


# Files that sit beside transcripts and are not transcripts: a directory walk skips them
# without a warning (naming one on the command line says what it is).
def _is_harbor_result(value: Any) -> bool:
    from .atif import is_harbor_result

    return is_harbor_result(value)


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


def _is_cline_ui_messages(value: Any) -> bool:
    from .cline import is_ui_messages

    return is_ui_messages(value)


def _is_cline_task_metadata(value: Any) -> bool:
    from .cline import is_task_metadata

    return is_task_metadata(value)


NOT_TRANSCRIPTS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("a Harbor trial result (its reward is read as the outcome of the trajectory beside it)", _is_harbor_result),
    ("a SWE-bench grading report (its verdicts are read as the outcomes of the trajectories beside it)", _is_swe_bench_report),
    ("a labels file (give it with --labels)", _is_labels),
    ("Cline's / Roo Code's UI messages (read for tokens and times beside the api_conversation_history.json they belong to)", _is_cline_ui_messages),
    ("Cline's task metadata (files in context, models used)", _is_cline_task_metadata),
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
    from .chat_messages import is_bare_messages

    return sniff(values) if is_bare_messages(values) else None


def read_with(info: ReaderInfo, records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return info.load().read(records, ctx)
