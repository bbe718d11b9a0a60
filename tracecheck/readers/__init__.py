"""The reader registry: which formats exist, in which order they are sniffed, where each
one's module is.

Each format's module (its sniffer beside its parser) provides what ``contract.FormatModule``
declares; it is imported only when a file is sniffed or read, never by ``--help`` or
``tracecheck formats``: the registry keeps the names and descriptions itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..dataclass_lite import frozen_dataclass

if TYPE_CHECKING:  # the registry is imported by every command, --help included: keep it light
    from ..input.sources import Record
    from ..model import Trace
    from .contract import FormatModule, ReadContext


@frozen_dataclass(slots=True)
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
#   goose takes a session file's metadata line (working_dir, description, message_count
#   and nothing else), a `goose session export` object, and Goose messages (an integer
#   "created" and camelCase content blocks: toolRequest, toolResponse), before every
#   chat format, whose bare-message sniffers would otherwise take its message lines;
# - claude-code-stream before claude-code: a stream's assistant line has a "uuid" and a
#   "message", which claude-code's sniffer takes too; only stream lines say
#   "session_id" (session entries say "sessionId"), so the stream's sniffer is the strict one;
#   gemini-cli's records carry "sessionId" + "projectHash" (a session document holds a
#   "messages" list that openai-chat would take) and its saved chats are Gemini API
#   contents (role user/model with "parts"), which no other format writes;
# - the agent and benchmark formats (swe-agent .. mini-swe-agent) before the chat formats:
#   their documents hold chat messages that openai-chat would also accept;
# - who-and-when before autogen and magentic-one: its documents hold their messages under
#   "history", beside the dataset's "question" and "mistake_*" keys, which no other format has;
# - autogen and magentic-one before the chat formats too: an AG2 history is an OpenAI
#   message list told apart by AutoGen's own marks (tool_responses, the executor's
#   "exitcode: N (execution ...)" replies), a TaskResult is {"messages": [...]} of
#   agentchat messages ("type" + "source" + "models_usage"); a Magentic-One log is
#   {timestamp, source, message, type} entries no other reader takes;
# - openhands-v1 before openhands: a V1 ActionEvent has the "source" and "action" keys the
#   V0 sniffer looks for; V1 events name their class in "kind", which V0 events lack;
# - pydantic-ai and smolagents before the chat formats: a Pydantic AI message list
#   ("kind" request/response with "parts" carrying "part_kind") and smolagents memory
#   steps ("step_number", "model_output_message", "observations"; a TaskStep's "task" +
#   "task_images") are shapes of their own, and lists of them must not reach openai-chat;
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
    ReaderInfo("claude-code-stream", "claude_code_stream", "Claude Code headless output: claude -p --output-format stream-json (Harbor's claude-code.txt)"),
    ReaderInfo("claude-code", "claude_code", "Claude Code session JSONL (entries grouped by message id)"),
    ReaderInfo("codex-cli", "codex_cli", "Codex CLI session rollouts (~/.codex/sessions/**/rollout-*.jsonl), codex exec --json events"),
    ReaderInfo("goose", "goose", "Goose session files (~/.local/share/goose/sessions/*.jsonl, to 1.9) and goose session export JSON"),
    ReaderInfo("gemini-cli", "gemini_cli", "Gemini CLI chat recordings (~/.gemini/tmp/*/chats/session-*.json, .jsonl) and /chat save checkpoints"),
    ReaderInfo("openai-agents", "openai_agents", "OpenAI Agents SDK trace/span export"),
    ReaderInfo("langsmith", "langsmith", "LangSmith runs (one per line, any order) and {post, patch} ingest recordings"),
    ReaderInfo("otel", "otel", "OpenTelemetry OTLP/JSON with GenAI or OpenInference attributes"),
    ReaderInfo("inspect", "inspect_ai", "Inspect AI eval logs (.json, zipped .eval)"),
    ReaderInfo("swe-agent", "swe_agent", "SWE-agent .traj trajectories (a SWE-bench report beside them as outcome)"),
    ReaderInfo("atif", "atif", "ATIF trajectories (Harbor / Terminal-Bench trajectory.json; result.json reward as outcome)"),
    ReaderInfo("openhands-v1", "openhands_v1", "OpenHands V1 (software-agent SDK) conversations: events/ folders of event-*.json, event lists and search pages"),
    ReaderInfo("openhands", "openhands", "OpenHands event streams and evaluation output.jsonl"),
    ReaderInfo("tau-bench", "tau_bench", "τ-bench / τ²-bench result arrays (reward as outcome)"),
    ReaderInfo("mini-swe-agent", "mini_swe_agent", "mini-swe-agent message lists and .traj.json (a SWE-bench report beside them as outcome)"),
    ReaderInfo("who-and-when", "who_and_when", "Who&When failure-attribution runs: AG2 expert chats (a round per expert message, the executor's exitcode reply the result of its code) and Magentic-One logs (a round per orchestrator instruction); is_correct as outcome"),
    ReaderInfo("autogen", "autogen", "AutoGen / AG2 chat histories (groupchat.messages, chat_history) and autogen-agentchat TaskResult messages"),
    ReaderInfo("magentic-one", "magentic_one", "Magentic-One orchestrator logs (log.jsonl of OrchestrationEvent / LLMCallEvent entries)"),
    ReaderInfo("pydantic-ai", "pydantic_ai", "Pydantic AI message histories (all_messages_json / ModelMessagesTypeAdapter dumps)"),
    ReaderInfo("smolagents", "smolagents", "smolagents agent memory steps (memory.get_full_steps(), RunResult.dict(), one step per line)"),
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


def _is_terminal_bench_result(value: Any) -> bool:
    from .claude_code_stream import is_terminal_bench_result

    return is_terminal_bench_result(value)


def _is_openhands_state(value: Any) -> bool:
    from .openhands_v1 import is_conversation_state

    return is_conversation_state(value)


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


def _is_gemini_prompt_log(value: Any) -> bool:
    from .gemini_cli import is_prompt_log

    return is_prompt_log(value)


def _is_cline_ui_messages(value: Any) -> bool:
    from .cline import is_ui_messages

    return is_ui_messages(value)


def _is_cline_task_metadata(value: Any) -> bool:
    from .cline import is_task_metadata

    return is_task_metadata(value)


NOT_TRANSCRIPTS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("a Harbor trial result (its reward is read as the outcome of the trajectory beside it)", _is_harbor_result),
    ("a Terminal-Bench trial result (its is_resolved is read as the outcome of the Claude Code stream beside it)", _is_terminal_bench_result),
    ("a SWE-bench grading report (its verdicts are read as the outcomes of the trajectories beside it)", _is_swe_bench_report),
    ("an OpenHands V1 conversation state (its token counts are read with the events/ folder beside it)", _is_openhands_state),
    ("a labels file (give it with --labels)", _is_labels),
    ("a Gemini CLI prompt log (logs.json: the user's prompts only; the session is in chats/)", _is_gemini_prompt_log),
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
