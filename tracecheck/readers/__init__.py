"""The reader registry: which formats exist, how each is recognised, where its code lives.

Sniffing functions live here (they are a few dictionary look-ups), the readers in
their own modules, imported only when a file of that format is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostics
from ..model import Trace
from ..sources import Record


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


NATIVE_EVENT_TYPES = ("trace", "labels", "expect", "round", "result", "end")


def _is_openai_chat(value: Any) -> bool:
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
    ReaderInfo("langchain", "langchain", _is_langchain, "LangChain messages_to_dict / dumpd lists, AgentExecutor intermediate_steps"),
    ReaderInfo("openai-chat", "openai_chat", _is_openai_chat, "OpenAI Chat Completions: conversations, request/response logs, Batch output, message-per-line"),
)

READER_NAMES = tuple(r.name for r in READERS)


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


def read_with(info: ReaderInfo, records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return info.load().read(records, ctx)
