"""Goose (block/goose) sessions: the JSONL session files of Goose up to about 1.9
(``~/.local/share/goose/sessions/<id>.jsonl`` on Linux, the XDG data dir; macOS and
Windows keep them under their own data dirs) and the JSON of ``goose session export``
(1.10 on: sessions moved into a SQLite ``sessions.db`` with the session manager of
block/goose pull request 4648, September 2025). The SQLite database itself is not read:
export a session with ``goose session export --format json`` first.

Followed from the tool's own source, block/goose:
``crates/goose/src/session/storage.rs`` (``SessionMetadata``, ``save_messages_with_metadata``:
metadata as the first line, then one ``Message`` per line, the whole file rewritten after
each message), ``crates/goose/src/message.rs`` (the JSONL era: ``Message``,
``MessageContent`` with its camelCase ``type`` tags, ``push_message``),
``crates/goose/src/message/tool_result_serde.rs`` and its later home
``crates/goose/src/conversation/tool_result_serde.rs`` (``{"status": "success", "value"}`` /
``{"status": "error", "error"}``, a result's ``value`` a content list before the switch to
``CallToolResult``, an object with ``content`` and ``isError`` after it),
``crates/goose/src/conversation/message/mod.rs`` (``MessageMetadata``: ``userVisible``,
``agentVisible``, ``inference``), ``crates/goose/src/session/session_manager.rs``
(``Session``, ``export_session``: the session serialised whole, its messages under
``conversation``), ``crates/goose/src/session/legacy.rs`` (how 1.10 imports the JSONL
files) and ``crates/goose-mcp/src/developer/shell.rs`` (what the shell tool returns).

**Session files** (JSONL): the first line is the session metadata, ``working_dir``,
``description``, ``schedule_id``, ``message_count``, ``total_tokens`` / ``input_tokens`` /
``output_tokens`` (the provider's *last* usage: the latest call's context, not a sum) and
``accumulated_total_tokens`` / ``accumulated_input_tokens`` / ``accumulated_output_tokens``
(summed over the session's calls). Goose reads a first line that is not metadata as a
message, and so does this reader. Then one message per line: ``id`` (optional),
``role`` (``user`` | ``assistant``), ``created`` (Unix seconds), ``content`` (a list of
blocks) and, from 1.x on, ``metadata``. The trace id is the file name without
``.jsonl`` (Goose's session id); a metadata line after messages starts another trace
(files joined into one).

**Exports** (one JSON object): ``id`` (the trace id), ``working_dir``, ``name`` (or
``description``), ``created_at``, the same token fields, ``conversation`` (the messages,
the same shape as the lines above) and ``message_count``.

Content blocks (``type``): ``text``; ``toolRequest`` (``id``, ``toolCall``: ``{"status":
"success", "value": {"name", "arguments"}}`` or ``{"status": "error", "error"}`` when the
model's call could not be parsed: a call with no name, the error text its argument);
``toolResponse`` (``id``, ``toolResult``); ``frontendToolRequest`` (a call the desktop app
runs: read as a call); ``thinking`` / ``redactedThinking`` / legacy ``reasoning`` (not what
the model said: not read); ``image``; ``toolConfirmationRequest``, ``actionRequired``,
``systemNotification``, ``conversationCompacted`` (bookkeeping, not read);
``contextLengthExceeded`` and ``summarizationRequested`` (the context was full).
An unknown block type is a warning naming the line.

Rounds: an assistant message with text or calls is one model response (Goose merges
streamed chunks of one response into one message, ``push_message``; consecutive
assistant lines sharing an ``id`` are joined here too). Its text is its text blocks
whose ``annotations.audience`` (when given) includes the assistant, joined by newlines;
its model is ``metadata.inference`` (``resolvedModel``, else ``requestedModel``, 1.x
exports only; the JSONL files name no model).

Results pair with their call by ``id``, from ``toolResponse`` blocks of the next user
message. The text is what the model was given: the text contents whose audience includes
the assistant (the developer shell returns its output twice, once for the assistant and
once for the user), a resource's text, ``[image]`` for an image. Errors, from the
tool's own flag: ``status: "error"`` (its ``error`` text is the result: a tool error,
an unknown tool, a refused path) and a ``CallToolResult``'s ``isError``; a success is
``False``. The developer shell reports no exit code: a failing command is a success
whose output says so (``*__shell`` counts as a shell for the guards). A result naming no
call read before is a warning.

User messages: a user message's text blocks open a turn, unless its
``metadata.userVisible`` is false (text Goose put there for the model alone, such as a
compaction summary).

Times (Unix seconds, whole): a round ends at its message's ``created`` and starts at the
``created`` of the message before it; a result ends at its message's ``created``.

Tokens: only the run total, ``accumulated_input_tokens`` / ``accumulated_output_tokens``
of the metadata (or export), as ``trace.usage_total``; rounds have no usage. Older files
without the accumulated fields have no total (their ``input_tokens`` / ``output_tokens``
are the last call's, not the run's).

Ending: the last round without calls is ``answered``; a ``contextLengthExceeded`` or
``summarizationRequested`` block after the last round is ``limit`` with its ``msg`` as
``trace.error``. Outcome: never set (no grade).

Not covered: the SQLite ``sessions.db`` (1.10 on), and the pre-1.0 files of late 2024
(untyped content blocks with ``tool_name`` / ``tool_result``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import Counts, as_dict, as_list, as_str, brief, dump_json, file_stem, finish_trace, make_trace, make_usage, new_call, parse_time
from .contract import ReadContext, read_with_reader

FORMAT = "goose"

# SessionMetadata's fields (storage.rs); its first line holds these and nothing else.
_META_KEYS = frozenset(
    (
        "working_dir",
        "description",
        "schedule_id",
        "message_count",
        "total_tokens",
        "input_tokens",
        "output_tokens",
        "accumulated_total_tokens",
        "accumulated_input_tokens",
        "accumulated_output_tokens",
    )
)
_MESSAGE_KEYS = frozenset(("id", "role", "created", "content", "metadata"))
_CALLS = ("toolRequest", "frontendToolRequest")
_THINKING = ("thinking", "redactedThinking", "reasoning")
_BOOKKEEPING = ("toolConfirmationRequest", "actionRequired", "systemNotification", "conversationCompacted", "image")
_FULL_CONTEXT = ("contextLengthExceeded", "summarizationRequested")
_BLOCK_TYPES = frozenset(("text", "toolResponse", *_CALLS, *_THINKING, *_BOOKKEEPING, *_FULL_CONTEXT))
_SNIFF_MESSAGES = 50  # messages of a bare list looked at by the sniffer


def _is_metadata(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("working_dir"), str)
        and "message_count" in value
        and "description" in value
        and set(value) <= _META_KEYS
    )


def _is_export(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("working_dir"), str)
        and "message_count" in value
        and isinstance(value.get("id"), str)
        and isinstance(value.get("conversation"), (list, type(None)))
        and "conversation" in value
    )


def _is_message(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("role") not in ("user", "assistant") or not set(value) <= _MESSAGE_KEYS:
        return False
    created = value.get("created")
    content = value.get("content")
    if not isinstance(created, int) or isinstance(created, bool) or not isinstance(content, list) or not content:
        return False
    return all(_kind(block) in _BLOCK_TYPES for block in content)


def sniff(value: Any) -> bool:
    if isinstance(value, list):  # a file of bare messages, or a JSON array of them
        head = value[:_SNIFF_MESSAGES]
        return bool(head) and all(_is_message(item) for item in head)
    return _is_metadata(value) or _is_export(value) or _is_message(value)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.first = True  # no trace read yet: the next one is named after the file
        self.start()

    def start(self) -> None:
        self.trace: Trace | None = None
        self.calls: dict[str, ToolCall] = {}
        self.group: Round | None = None  # the round the last assistant line opened
        self.group_id: str | None = None
        self.last_time: float | None = None
        self.full_context: str | None = None  # a context-full notice after the last round

    def warn(self, line: int, reason: str) -> None:
        self.ctx.warn(line, reason)

    def session(self, line: int, session_id: str | None = None) -> Trace:
        if self.trace is None:
            stem = file_stem(self.ctx.file)
            self.trace = make_trace(session_id, FORMAT, self.ctx.file, stem, line)
            if session_id is None and self.first:
                self.trace.id = stem  # Goose's session id; renamed if the file holds more
            self.first = False
        self.trace.end_line = max(self.trace.end_line or line, line)
        return self.trace

    # --- records ------------------------------------------------------------------------

    def record(self, value: Any, line: int) -> list[Trace]:
        if _is_export(value):
            finished = list(self.close())
            self.export(value, line)
            return [*finished, *self.close()]
        if isinstance(value, dict) and isinstance(value.get("working_dir"), str) and "role" not in value:
            finished = list(self.close()) if self.trace is not None and (self.trace.rounds or self.trace.user_messages) else []
            self.metadata(value, line)
            return finished
        if isinstance(value, list):
            for index, item in enumerate(value):
                self.message(item, line, f" (array element {index})")
            return []
        self.message(value, line, "")
        return []

    def metadata(self, value: dict, line: int, session_id: str | None = None) -> None:
        trace = self.session(line, session_id)
        for key in ("working_dir", "description", "schedule_id"):
            if as_str(value.get(key)):
                trace.metadata[key] = value[key]
        if as_str(value.get("name")) and "description" not in trace.metadata:
            trace.metadata["description"] = value["name"]  # an export's name (alias description)
        counts = Counts(value, lambda reason: self.warn(line, reason), "")
        trace.usage_total = make_usage(*counts.each("accumulated_input_tokens", "accumulated_output_tokens"))

    def export(self, value: dict, line: int) -> None:
        self.metadata(value, line, value["id"])
        for index, message in enumerate(as_list(value.get("conversation"))):
            self.message(message, line, f" (conversation[{index}])")

    # --- messages -----------------------------------------------------------------------

    def message(self, msg: Any, line: int, where: str) -> None:
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            got = msg.get("role") if isinstance(msg, dict) else msg
            self.warn(line, f"Goose message{where} with no user or assistant role ({brief(got)}) skipped")
            return
        content = msg.get("content")
        if not isinstance(content, list):
            self.warn(line, f"Goose message{where} whose content is not a list ({brief(content)}) skipped")
            return
        trace = self.session(line)
        moment = parse_time(msg.get("created"), lambda reason: self.warn(line, reason), "created")
        meta = as_dict(msg.get("metadata"))
        if msg["role"] == "assistant":
            self.assistant(trace, msg, content, meta, line, moment, where)
        else:
            self.user(trace, content, meta, line, moment, where)
        if moment is not None:
            self.last_time = moment

    def assistant(self, trace: Trace, msg: dict, content: list, meta: dict, line: int, moment: float | None, where: str) -> None:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content:
            kind = _kind(block)
            if kind == "text":
                if _for_model(block) and as_str(block.get("text")):
                    texts.append(block["text"])
            elif kind in _CALLS:
                call = _call(block)
                if call.id and call.id in self.calls:
                    continue  # the same request again (a frontend copy of it)
                calls.append(call)
            elif kind in _FULL_CONTEXT:
                self.full_context = as_str(block.get("msg")) or kind
            elif kind == "toolResponse":
                self.result(trace, block, line, moment)
            elif kind not in _THINKING and kind not in _BOOKKEEPING:
                self.warn(line, f"Goose content block of unknown type {brief(kind)}{where} skipped")
        if not texts and not calls:
            return
        message_id = as_str(msg.get("id"))
        rnd = self.group if self.group is not None and message_id is not None and message_id == self.group_id else None
        if rnd is None:
            rnd = Round(index=len(trace.rounds) + 1, line=line, started_at=self.last_time, id=message_id, model=_model(meta))
            trace.rounds.append(rnd)
            self.group, self.group_id = rnd, message_id
        if texts:
            text = "\n".join(texts)
            rnd.text = f"{rnd.text}\n{text}" if rnd.text else text
        for call in calls:
            rnd.tool_calls.append(call)
            if call.id:
                self.calls[call.id] = call
        rnd.ended_at = moment
        rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        self.full_context = None  # the model went on after any notice before this

    def user(self, trace: Trace, content: list, meta: dict, line: int, moment: float | None, where: str) -> None:
        self.group = None
        texts: list[str] = []
        for block in content:
            kind = _kind(block)
            if kind == "toolResponse":
                self.result(trace, block, line, moment)
            elif kind == "text":
                if as_str(block.get("text")):
                    texts.append(block["text"])
            elif kind in _FULL_CONTEXT:
                self.full_context = as_str(block.get("msg")) or kind
            elif kind not in _BLOCK_TYPES:
                self.warn(line, f"Goose content block of unknown type {brief(kind)}{where} skipped")
        if texts and meta.get("userVisible") is not False:
            trace.add_user_message("\n".join(texts), at=moment, line=line)

    def result(self, trace: Trace, block: dict, line: int, moment: float | None) -> None:
        call_id = as_str(block.get("id"))
        call = self.calls.get(call_id) if call_id else None
        if call is None or call.result is not None:
            self.warn(line, f"trace {trace.id}: tool result for unknown call id {brief(call_id)}")
            return
        content, is_error = _result(block.get("toolResult"), lambda reason: self.warn(line, f"trace {trace.id}: call {call_id}: {reason}"))
        call.result = ToolResult(content=content, is_error=is_error, ended_at=moment, line=line)

    # --- end of a session ---------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        trace, notice = self.trace, self.full_context
        self.start()
        if trace is not None:
            if notice is not None:  # the context was full after the last round
                trace.error, trace.ending = notice, "limit"
            yield finish_trace(trace, self.ctx.diagnostics)


def _kind(block: Any) -> str | None:
    """A content block's ``type`` when it is a string (anything else is no known type)."""
    return as_str(block.get("type")) if isinstance(block, dict) else None


def _for_model(block: dict) -> bool:
    """Whether a content block was given to the model: no audience, or one naming it."""
    audience = as_dict(block.get("annotations")).get("audience")
    return not isinstance(audience, list) or "assistant" in audience


def _model(meta: dict) -> str | None:
    inference = as_dict(meta.get("inference"))
    return as_str(inference.get("resolvedModel")) or as_str(inference.get("requestedModel"))


def _call(block: dict) -> ToolCall:
    call_id = block.get("id")
    tool_call = as_dict(block.get("toolCall"))
    if tool_call.get("status") == "error" or "value" not in tool_call:
        # The model's call could not be parsed: no name; the error is all there is.
        error = as_str(tool_call.get("error")) or dump_json(block.get("toolCall"))
        return ToolCall(id=as_str(call_id) or "", name="", arguments_raw=error, arguments=error)
    value = as_dict(tool_call.get("value"))
    arguments = value.get("arguments")
    return new_call(call_id, value.get("name"), {} if arguments is None else arguments)


def _result(result: Any, warn) -> tuple[str, bool | None]:
    """A toolResult's text and error flag (see the module docstring)."""
    outcome = as_dict(result)
    status = outcome.get("status")
    if status == "error":
        return as_str(outcome.get("error")) or "", True
    if status != "success" or "value" not in outcome:
        warn(f"tool result of unknown shape ({brief(result)}) read as its JSON")
        return dump_json(result), None
    value = outcome["value"]
    if isinstance(value, list):  # a list of contents (before CallToolResult)
        return _contents_text(value), False
    if isinstance(value, dict) and isinstance(value.get("content"), list):  # CallToolResult
        flag = value.get("isError")
        return _contents_text(value["content"]), flag if isinstance(flag, bool) else False
    warn(f"tool result value of unknown shape ({brief(value)}) read as its JSON")
    return dump_json(value), None


def _contents_text(contents: list) -> str:
    pieces = []
    for item in contents:
        if not isinstance(item, dict) or not _for_model(item):
            continue
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str):
            pieces.append(item["text"])
        elif kind == "resource":
            resource = as_dict(item.get("resource"))
            text = resource.get("text")
            pieces.append(text if isinstance(text, str) else f"[resource {brief(resource.get('uri'))}]")
        else:
            pieces.append(f"[{brief(kind)}]" if kind != "image" else "[image]")
    return "\n".join(pieces)


__all__ = ["FORMAT", "read", "sniff"]
