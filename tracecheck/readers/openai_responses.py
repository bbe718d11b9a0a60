"""OpenAI Responses API transcripts: response objects, request/response logs, item lists.

Shapes (every record is recognised on its own, so a file may mix the first three):

1. **response objects**, one per line (``{"object": "response", ...}``; a logger may add
   the request's ``input`` beside ``output``), or a JSON array of them;
2. **request/response pairs** ``{"request": {"input": [...], "previous_response_id"?},
   "response": {...}}`` (a proxy or a custom logger; ``timestamp``/``latency_ms`` next to
   them as in Chat Completions logs). A pair whose ``response`` is null and which carries
   an ``error`` is a failed request;
3. **streaming events** ``{"type": "response.completed", "response": {...}}``: events that
   carry a response snapshot are read like response objects (the ``created`` /
   ``in_progress`` snapshots are replaced by the final one of the same id); the other
   events (deltas, ``output_item.added`` …) repeat what the final snapshot holds and are
   skipped silently;
4. **a flat item list**, the conversation state one re-sends as ``input``: a JSON array
   of items (one trace per array, id ``<file name>:<line>``), or one item per line (the
   whole file is one trace named after the file).

A trace named by its place (``<file name>:<line>``) keeps that name only while it is
the only trace of its file; among several it is named by its content (``identity.py``).

**Grouping.** A response continues the trace that holds its ``previous_response_id``, or
that shares its ``conversation`` id, or (state managed by hand, no id linking them) whose
items its request re-sends (an output item id or a call id already seen). Anything
else starts a new trace: its id is the conversation id, else the first response's id,
else ``<file name>:<line>``. Up to 64 traces stay open at once; the least recently
continued is finished first. A response id seen again is the same response and is not
counted twice.

**Rounds.** One response is one round, with one exception: the server runs hosted tools
(web/file search, code interpreter, image generation, remote MCP) inside a single
response, sampling the model again after each, so a response's output is cut into one
round per model step: a new round starts where a message, a reasoning item or a client
call follows a hosted call. (Consecutive hosted calls stay together: on disk they cannot
be told apart from parallel ones.) Otherwise ``[web_search_call, message]`` would be one
round with a tool call and the run would never end with an answer. The response's usage
and ``created_at`` go to its first round, ``completed_at`` (else the logger's
timestamp) and the finish reason to its last; round ids are the response id, then
``<id>#2``, ``<id>#3``. The per-step split of usage is not known.

Items: an assistant ``message`` gives the round's text (``output_text`` and ``refusal``
parts). ``reasoning`` is not a tool call and its summary is kept out of the text (it is
not what the model said). ``function_call``, ``custom_tool_call`` (free-text input),
``computer_call``, ``local_shell_call``, ``shell_call`` and ``apply_patch_call`` are calls
the client runs: they pair with ``*_output`` items on ``call_id`` (never the item
``id``; ``local_shell_call_output`` names the call in its ``id``), which arrive in the
next request's ``input`` and attach to the calling round. Hosted calls
(``web_search_call`` → ``web_search`` with the ``action``'s query/queries/url as
arguments, ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``,
``mcp_call`` by its tool name, any other ``*_call`` without a ``call_id``) carry their
result inline: the status and sources / results / logs / output as text, images as a
short digest. ``mcp_approval_request`` is the call; the ``mcp_call`` that executes it in a
later response (same ``approval_request_id``) is its result, and a denial is an error
result. ``mcp_list_tools``, ``item_reference`` and compaction items are not rounds.
Model output items found in a request's ``input`` that no logged response produced
(history from before the log started) become rounds without usage; items a request
re-sends are recognised by their ids and skipped.

``is_error``: hosted calls ``failed`` → True, ``completed`` → False; client results have
no error flag (their ``status`` only says whether the item is complete) → None, except
``apply_patch_call_output`` (status ``failed``) and ``shell_call_output`` (an exit code
other than 0, or a timeout).

Finish reason: ``completed`` → ``tool_calls`` / ``stop``; ``incomplete`` →
``length`` (``max_output_tokens``) or the ``incomplete_details`` reason; ``failed`` →
``error``; ``cancelled``. A ``failed`` or ``cancelled`` response without output is no
round. Ending: when the last response of a trace failed or was cancelled (or the last
request got an error instead of a response), ``trace.error`` is its error message and
``ending="error"``; a later response in the chain (a retry) clears it. A last response
without tool calls is ``answered``. Outcome: never set: the format carries no grade
(a failed response is how the run ended, not a verdict); a labels file gives one.

User messages: an input item with role ``user`` (a ``message`` item or the short form
``{"role": "user", "content": ...}``; a string ``input`` is one) is a user message at
its place among the items and opens a turn; its text is its ``input_text`` parts, with
images and files as short placeholders. ``system``/``developer`` items are not. When a
request re-sends the conversation by hand, the user messages before the last model item
already read are history and are not counted again; a response snapshot that replaces
an in-progress one of the same id does not read its request's user messages twice. The
format has no time for them.

``trace.metadata``: ``shape`` (``responses`` or ``items``) and the first non-empty
``metadata`` object of a response (``response_metadata``; task ids and the like).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .request_log import OpenTraces, error_text, in_file_order, thread_trace_id, time_of, with_latency
from .contract import ReadContext, first_item, read_with_reader
from .common import (
    Counts,
    Warn,
    as_str,
    brief,
    content_text,
    dump_json,
    finish_trace,
    make_trace,
    first_of,
    make_usage,
    new_call,
    scalar_text,
)

FORMAT = "openai-responses"

NO_SHAPE = "JSON that matches no known OpenAI Responses shape"
_MAX_OPEN = 64

# Client-run calls: their results come back in a later request, paired on call_id.
_CLIENT_CALLS = {
    "function_call": None,  # named by the item
    "custom_tool_call": None,
    "computer_call": "computer",
    "local_shell_call": "local_shell",
    "shell_call": "shell",
    "apply_patch_call": "apply_patch",
}
# Server-run calls: the result is inside the item itself.
_HOSTED_CALLS = {
    "web_search_call": "web_search",
    "file_search_call": "file_search",
    "code_interpreter_call": "code_interpreter",
    "image_generation_call": "image_generation",
    "mcp_call": "mcp",  # named by the item
}
_NOT_ROUNDS = {"mcp_list_tools", "item_reference", "compaction", "compaction_summary", "tool_search_output"}
_TERMINAL = ("completed", "incomplete", "failed", "cancelled")
_MODEL_KINDS = ("text", "call", "hosted", "reasoning", "approval")


_RESPONSES_ITEM_TYPES = ("function_call", "function_call_output", "reasoning", "web_search_call", "file_search_call", "computer_call", "custom_tool_call", "mcp_call", "code_interpreter_call", "local_shell_call")


def sniff(value: Any) -> bool:
    item = first_item(value)
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


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


# --- small helpers --------------------------------------------------------------------


def _kind(item: Any) -> str:
    """What an item is to the reader: text / call / hosted / reasoning / approval (model
    output), result / approval_response / input (sent by the client), other, unknown."""
    if not isinstance(item, dict):
        return "invalid"
    kind = item.get("type")
    if kind == "message" or (kind is None and "role" in item):
        return "text" if item.get("role") == "assistant" else "input"
    if not isinstance(kind, str):
        return "unknown"
    if kind in _CLIENT_CALLS:
        return "call"
    if kind in _HOSTED_CALLS:
        return "hosted"
    if kind == "reasoning":
        return "reasoning"
    if kind == "mcp_approval_request":
        return "approval"
    if kind == "mcp_approval_response":
        return "approval_response"
    if kind.endswith("_call_output"):
        return "result"
    if kind in _NOT_ROUNDS:
        return "other"
    if kind.endswith("_call"):  # a tool type newer than this reader
        return "call" if as_str(item.get("call_id")) else "hosted"
    return "unknown"


def _digest(data: str) -> str:
    return hashlib.sha1(data.encode("utf-8", "replace")).hexdigest()[:12]


def _image_ref(url: Any, file_id: Any) -> str:
    # Data URLs are megabytes of base64: a digest keeps "same image" comparable.
    if as_str(file_id):
        return file_id
    if as_str(url):
        return f"sha1:{_digest(url)}" if url.startswith("data:") else url
    return "?"


def _parts_text(content: Any) -> str:
    """Text of message content or a tool output: a string or a list of typed parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    pieces = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part)
            continue
        if not isinstance(part, dict):
            pieces.append(dump_json(part))
            continue
        kind = part.get("type")
        if isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            pieces.append(part["refusal"])
        elif kind in ("input_image", "computer_screenshot", "image"):
            pieces.append(f"[image {_image_ref(part.get('image_url') or part.get('url'), part.get('file_id'))}]")
        elif kind == "input_file":
            pieces.append(f"[file {part.get('filename') or part.get('file_id') or '?'}]")
        else:
            pieces.append(dump_json(part))
    return "\n".join(pieces)


def _usage(value: Any, warn: Warn | None = None):
    if not isinstance(value, dict):
        return None
    counts = Counts(value, warn)
    return make_usage(
        counts.get("input_tokens", "prompt_tokens"),
        counts.get("output_tokens", "completion_tokens"),
        counts.within("input_tokens_details", "prompt_tokens_details").get("cached_tokens"),
        counts.within("output_tokens_details", "completion_tokens_details").get("reasoning_tokens"),
    )


def _conversation_id(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    conv = obj.get("conversation")
    if isinstance(conv, dict):
        return as_str(conv.get("id"))
    return as_str(conv)


def _status_error(status: Any) -> bool | None:
    if status == "failed":
        return True
    if status == "completed":
        return False
    return None


def _is_response(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("object") == "response" or isinstance(value.get("output"), list))


def _is_response_record(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("object") == "response":
        return True
    return "response" in value and (_is_response(value.get("response")) or value.get("response") is None)


# --- one trace being rebuilt ----------------------------------------------------------


class _State:
    __slots__ = ("trace", "calls", "approvals", "known", "group", "error", "keys", "responses")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.calls: dict[str, ToolCall] = {}  # client calls by call_id, answered or not
        self.approvals: dict[str, ToolCall] = {}  # MCP approval requests by their item id
        self.known: set[str] = set()  # ids and call ids of model output items already read
        self.group: list[tuple[dict, int]] = []  # model items not yet cut into rounds
        self.error: str | None = None
        self.keys: list[tuple[str, str]] = []  # index entries pointing here (for eviction)
        self.responses: dict[str, tuple[str | None, list[Round]]] = {}  # id -> (status, rounds)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.base = os.path.basename(ctx.file) or ctx.file
        self.open: OpenTraces[_State] = OpenTraces(_MAX_OPEN)
        self.index: dict[tuple[str, str], _State] = {}  # ("resp"|"conv"|"item", id) -> state
        self.items_state: _State | None = None  # the file-level trace of one item per line
        self.used_ids: dict[str, int] = {}

    # --- records ---------------------------------------------------------------------

    def record(self, value: Any, line: int) -> Iterator[Trace]:
        if isinstance(value, list):
            if any(_is_response_record(v) for v in value):
                for number, element in enumerate(value):
                    if _is_response_record(element):
                        yield from self.exchange(element, line, number)
                    else:
                        self.ctx.warn(line, f"{NO_SHAPE} (array element {number})")
                return
            yield self.flat_array(value, line)
            return
        if not isinstance(value, dict):
            self.ctx.warn(line, NO_SHAPE)
            return
        if _is_response_record(value):
            yield from self.exchange(value, line, None)
            return
        kind = value.get("type")
        if (isinstance(kind, str) and kind.startswith("response.")) or (kind == "error" and "sequence_number" in value):
            return  # a streaming event without a response snapshot: the final snapshot has it all
        if _kind(value) not in ("unknown", "invalid"):
            self.item_line(value, line)
            return
        self.ctx.warn(line, NO_SHAPE)

    # --- shape 4: item lists ---------------------------------------------------------

    def flat_array(self, items: list, line: int) -> Trace:
        state = _State(self.new_trace(None, line, "items"))
        self.read_items(state, items, line, skip_known=False)
        self.flush(state)
        return self.finish(state)

    def item_line(self, item: dict, line: int) -> None:
        if self.items_state is None:
            self.items_state = _State(self.new_trace(self.base, line, "items"))
        state = self.items_state
        state.trace.end_line = line
        self.read_items(state, [item], line, skip_known=False)

    # --- shapes 1-3: responses -------------------------------------------------------

    def exchange(self, record: dict, line: int, number: int | None) -> Iterator[Trace]:
        if record.get("object") == "response":
            request, response = {}, record
        else:
            request = record.get("request") if isinstance(record.get("request"), dict) else {}
            response = record.get("response") if isinstance(record.get("response"), dict) else None
        rid = as_str(response.get("id")) if response else None
        prev = as_str((response or {}).get("previous_response_id")) or as_str(request.get("previous_response_id"))
        conv = _conversation_id(response) or _conversation_id(request)
        items = request.get("input")
        if items is None and response is not None:
            items = response.get("input")  # saved beside the output by some loggers
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        elif items is not None and not isinstance(items, list):
            self.ctx.warn(line, "request 'input' must be a string or a list of items; ignored")
            items = None

        replacing = False  # the final snapshot of a response whose in-progress one was read
        if rid is not None and ("resp", rid) in self.index:
            state = self.index[("resp", rid)]
            status, rounds = state.responses[rid]
            if status in _TERMINAL or not self.drop_rounds(state, rounds):
                self.touch(state, line)
                return  # the same response again: counted once
            replacing = True
        else:
            state = self.find(prev, conv, items)
        if state is None:
            own = conv or rid
            state = _State(self.new_trace(thread_trace_id(self.used_ids, own) if own else None, line, "responses", number))
            yield from self.add_state(state)
        self.touch(state, line)
        if conv is not None:
            self.remember(state, "conv", conv)

        if items:
            self.read_items(state, items, line, skip_known=True, users=not replacing)
            self.flush(state)
        if response is None:
            error = error_text(record.get("error"))
            if error is None:
                self.ctx.warn(line, f"trace {state.trace.id}: record without a response object")
            else:
                state.error = error
            return
        self.read_response(state, record, response, line)

    def read_response(self, state: _State, record: dict, response: dict, line: int) -> None:
        rid = as_str(response.get("id"))
        status = as_str(response.get("status"))
        output = response.get("output")
        if output is None:
            output = []
        elif not isinstance(output, list):
            self.ctx.warn(line, f"trace {state.trace.id}: response 'output' must be a list; ignored")
            output = []
        model_items = []
        for number, item in enumerate(output, 1):
            kind = _kind(item)
            if kind == "hosted" and self.executes_approval(state, item, line):
                continue
            if kind in _MODEL_KINDS:
                model_items.append(item)
            elif kind == "invalid":
                self.ctx.warn(line, f"trace {state.trace.id}: output item {number} is not an object; skipped")
            elif kind == "unknown":
                self.ctx.warn(line, f"trace {state.trace.id}: output item of unknown type {brief(item.get('type'))} skipped")
        rounds = [self.build_round(state, segment, line) for segment in _segments(model_items)]
        if not rounds and status not in ("failed", "cancelled", "in_progress", "queued"):
            rounds = [Round(index=0, line=line)]  # a response that said nothing is still one
        for k, rnd in enumerate(rounds):
            rnd.id = rid if k == 0 or rid is None else f"{rid}#{k + 1}"
            rnd.model = as_str(response.get("model"))
            rnd.finish_reason = "tool_calls"
        if rounds:
            warn = self.warner(state, line)
            rounds[0].usage = _usage(response.get("usage"), warn)
            started, ended = _times(record, response, warn)
            rounds[0].started_at = started
            rounds[-1].ended_at = ended
            rounds[-1].finish_reason = _finish_reason(status, response, rounds[-1])
        state.trace.rounds.extend(rounds)
        if rid is not None:
            state.responses[rid] = (status, rounds)
            self.remember(state, "resp", rid)
        if status in ("failed", "cancelled"):
            state.error = error_text(response.get("error")) or f"response {status}"
        elif status != "queued":
            state.error = None
        if state.trace.metadata.get("response_metadata") is None and isinstance(response.get("metadata"), dict) and response["metadata"]:
            state.trace.metadata["response_metadata"] = dict(response["metadata"])

    def drop_rounds(self, state: _State, rounds: list[Round]) -> bool:
        """Take back the rounds of an in-progress snapshot so its final copy replaces them."""
        count = len(rounds)
        if count == 0:
            return True
        if len(state.trace.rounds) < count or any(a is not b for a, b in zip(state.trace.rounds[-count:], rounds)):
            return False  # later rounds were built on it: keep the snapshot
        del state.trace.rounds[len(state.trace.rounds) - count :]
        for rnd in rounds:
            for call in rnd.tool_calls:
                if state.calls.get(call.id) is call:
                    del state.calls[call.id]
                state.known.discard(call.id)
        return True

    # --- items -----------------------------------------------------------------------

    def read_items(self, state: _State, items: list, line: int, skip_known: bool, users: bool = True) -> None:
        """Items in conversation order: model output is grouped into rounds, results and
        user turns close the group. With ``skip_known``, model items a request re-sends
        (up to the last one already read) and the user messages before them are history
        and skipped; with ``users`` False no user message is read."""
        last_known = -1
        if skip_known:
            for number, item in enumerate(items):
                if _kind(item) in _MODEL_KINDS and self.is_known(state, item):
                    last_known = number
        for number, item in enumerate(items):
            kind = _kind(item)
            if kind in _MODEL_KINDS:
                if number <= last_known or self.is_known(state, item):
                    continue
                state.group.append((item, line))
            elif kind == "result":
                self.flush(state)
                self.attach_result(state, item, line)
            elif kind == "approval_response":
                self.flush(state)
                self.approval_answer(state, item, line)
            elif kind == "input":
                self.flush(state)
                if users and number > last_known and item.get("role") == "user":
                    state.trace.add_user_message(_parts_text(item.get("content")), line=line)
            elif kind == "invalid":
                self.ctx.warn(line, f"trace {state.trace.id}: item {number + 1} is not an object; skipped")
            elif kind == "unknown":
                self.ctx.warn(line, f"trace {state.trace.id}: item of unknown type {brief(item.get('type'))} skipped")

    def is_known(self, state: _State, item: dict) -> bool:
        for key in ("id", "call_id"):
            value = as_str(item.get(key))
            if value is not None and value in state.known:
                return True
        return False

    def flush(self, state: _State) -> None:
        """Cut the grouped model items into rounds (no usage: no logged response made them)."""
        if not state.group:
            return
        items = [item for item, _ in state.group]
        first_line = state.group[0][1]
        state.group = []
        for segment in _segments(items):
            state.trace.rounds.append(self.build_round(state, segment, first_line))

    def build_round(self, state: _State, items: list[dict], line: int) -> Round:
        rnd = Round(index=len(state.trace.rounds) + 1, line=line)
        texts = []
        for item in items:
            for key in ("id", "call_id"):
                if as_str(item.get(key)):
                    state.known.add(item[key])
                    self.remember(state, "item", item[key])
            kind = _kind(item)
            if kind == "text":
                text = _parts_text(item.get("content"))
                if text:
                    texts.append(text)
            elif kind == "call":
                self.register(state, rnd, self.client_call(item), line)
            elif kind == "approval":
                call = new_call(item.get("id"), item.get("name"), item.get("arguments"))
                rnd.tool_calls.append(call)
                if call.id:
                    state.approvals[call.id] = call
            elif kind == "hosted":
                rnd.tool_calls.append(_hosted_call(item, line))
        rnd.text = "\n".join(texts)
        return rnd

    def client_call(self, item: dict) -> ToolCall:
        kind = item["type"]
        call_id = item.get("call_id")
        if kind == "function_call":
            return new_call(call_id, item.get("name"), item.get("arguments"))
        if kind == "custom_tool_call":
            # Free-text input (a grammar, a patch): text, not JSON arguments.
            given = item.get("input")
            raw = given if isinstance(given, str) else ("" if given is None else dump_json(given))
            return ToolCall(id=scalar_text(call_id), name=scalar_text(item.get("name")) or "custom_tool", arguments_raw=raw, arguments=raw)
        name = _CLIENT_CALLS.get(kind) or kind.removesuffix("_call")
        if kind == "computer_call":
            arguments = item.get("action") if item.get("action") is not None else {"actions": item.get("actions")}
        elif kind in ("local_shell_call", "shell_call"):
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            arguments = {k: v for k, v in action.items() if k != "type"}
        elif kind == "apply_patch_call":
            arguments = item.get("operation") or {}
        else:
            arguments = first_of(item, ("arguments", "action", "input")) or {}
        return new_call(call_id, name, arguments)

    def register(self, state: _State, rnd: Round, call: ToolCall, line: int) -> None:
        if call.id:
            if call.id in state.calls:
                self.ctx.warn(line, f"trace {state.trace.id}: call id {brief(call.id)} used twice; results go to the later call")
            state.calls[call.id] = call
        rnd.tool_calls.append(call)

    def attach_result(self, state: _State, item: dict, line: int) -> None:
        kind = item["type"]
        call_id = as_str(item.get("call_id"))
        if call_id is None and kind == "local_shell_call_output":
            call_id = as_str(item.get("id"))  # this output names its call in ``id``
        call = state.calls.get(call_id) if call_id else None
        if call is None:
            self.ctx.warn(line, f"trace {state.trace.id}: tool result for unknown call id {brief(call_id)}")
            return
        if call.result is not None:
            return  # re-sent history: the first copy stands
        call.result = _client_result(item, line)

    def approval_answer(self, state: _State, item: dict, line: int) -> None:
        request_id = as_str(item.get("approval_request_id"))
        call = state.approvals.get(request_id) if request_id else None
        if call is None:
            self.ctx.warn(line, f"trace {state.trace.id}: approval response for unknown request id {brief(request_id)}")
            return
        if item.get("approve") is False and call.result is None:
            reason = as_str(item.get("reason"))
            text = "approval denied" + (f": {reason}" if reason else "")
            call.result = ToolResult(content=text, is_error=True, line=line)

    def executes_approval(self, state: _State, item: dict, line: int) -> bool:
        """An ``mcp_call`` that runs an approved request is that request's result."""
        request_id = as_str(item.get("approval_request_id"))
        call = state.approvals.get(request_id) if request_id else None
        if item.get("type") != "mcp_call" or call is None:
            return False
        if call.result is None:
            call.result = _hosted_call(item, line).result
        return True

    # --- traces ----------------------------------------------------------------------

    def warner(self, state: _State, line: int) -> Warn:
        return lambda reason: self.ctx.warn(line, f"trace {state.trace.id}: {reason}")

    def new_trace(self, trace_id: str | None, line: int, shape: str, index: int | None = None) -> Trace:
        trace = make_trace(trace_id, FORMAT, self.ctx.file, self.base, line, index)
        trace.metadata["shape"] = shape
        return trace

    def find(self, prev: str | None, conv: str | None, items: list | None) -> _State | None:
        if prev is not None and ("resp", prev) in self.index:
            return self.index[("resp", prev)]
        if conv is not None and ("conv", conv) in self.index:
            return self.index[("conv", conv)]
        for item in reversed(items or ()):
            if isinstance(item, dict) and (_kind(item) in _MODEL_KINDS or _kind(item) == "result"):
                for key in ("call_id", "id"):
                    value = as_str(item.get(key))
                    if value is not None and ("item", value) in self.index:
                        return self.index[("item", value)]
        return None

    def remember(self, state: _State, space: str, key: str) -> None:
        # Only chainable traces are indexed: item-list traces take no responses.
        if state in self.open and (space, key) not in self.index:
            self.index[(space, key)] = state
            state.keys.append((space, key))

    def add_state(self, state: _State) -> Iterator[Trace]:
        for pushed_out in self.open.add(state):
            yield self.retire(pushed_out)

    def touch(self, state: _State, line: int) -> None:
        if state in self.open:
            self.open.touch(state)
        state.trace.end_line = line

    def retire(self, state: _State) -> Trace:
        for key in state.keys:
            if self.index.get(key) is state:
                del self.index[key]
        return self.finish(state)

    def finish(self, state: _State) -> Trace:
        self.flush(state)
        trace = state.trace
        if state.error is not None:
            trace.error = state.error
            trace.ending = "error"  # a failed or cancelled last response; no grade
        return finish_trace(trace, self.ctx.diagnostics)

    def close(self) -> Iterator[Trace]:
        states = self.open.drain()
        if self.items_state is not None:
            states.append(self.items_state)
        for state in in_file_order(states, lambda s: s.trace):
            yield self.retire(state)


# --- pieces of a response -------------------------------------------------------------


def _segments(items: list[dict]) -> list[list[dict]]:
    """Cut one response's output into model steps: a step ends after hosted calls when
    the model speaks, reasons or calls a client tool again."""
    segments: list[list[dict]] = []
    current: list[dict] = []
    after_hosted = False
    for item in items:
        kind = _kind(item)
        if kind != "hosted" and after_hosted and current:
            segments.append(current)
            current = []
        current.append(item)
        after_hosted = kind == "hosted"
    if current:
        segments.append(current)
    return segments


def _finish_reason(status: str | None, response: dict, last: Round) -> str | None:
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return "length" if reason == "max_output_tokens" else (as_str(reason) or "incomplete")
    if status == "failed":
        return "error"
    if status in ("completed", None):
        return "tool_calls" if last.tool_calls else ("stop" if status else None)
    return status


def _times(record: dict, response: dict, warn: Warn) -> tuple[float | None, float | None]:
    started = time_of(response, warn, "created_at")
    if started is None:
        started = time_of(record, warn, "started_at", "start_time", "startTime")
    ended = time_of(response, warn, "completed_at")
    if ended is None and record is not response:
        # A logger writes its line once the response is in: its timestamp is the end.
        ended = time_of(record, warn, "ended_at", "end_time", "endTime", "timestamp")
    return with_latency(started, ended, record.get("latency_ms", record.get("duration_ms")))


def _hosted_call(item: dict, line: int) -> ToolCall:
    kind = item["type"]
    status = as_str(item.get("status"))
    payload: dict[str, Any] = {"status": status}
    text: str | None = None
    is_error = _status_error(status)
    name = _HOSTED_CALLS.get(kind) or kind.removesuffix("_call")
    if kind == "web_search_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        arguments: Any = {k: v for k, v in action.items() if k != "sources"}
        sources = action.get("sources")
        if isinstance(sources, list) and sources:
            payload["sources"] = [s.get("url") if isinstance(s, dict) else s for s in sources]
    elif kind == "file_search_call":
        arguments = {"queries": item.get("queries") or []}
        results = item.get("results")
        if isinstance(results, list) and results:
            keep = ("filename", "file_id", "score", "text")
            payload["results"] = [
                {k: r[k] for k in keep if r.get(k) is not None} if isinstance(r, dict) else r for r in results
            ]
    elif kind == "code_interpreter_call":
        arguments = {"code": item.get("code")}
        outputs = item.get("outputs")
        pieces = []
        for out in outputs if isinstance(outputs, list) else ():
            if isinstance(out, dict) and isinstance(out.get("logs"), str):
                pieces.append(out["logs"])
            elif isinstance(out, dict) and out.get("type") == "image":
                pieces.append(f"[image {_image_ref(out.get('url'), None)}]")
        if pieces:
            text = "\n".join(pieces)
    elif kind == "image_generation_call":
        arguments = {"prompt": item["revised_prompt"]} if as_str(item.get("revised_prompt")) else {}
        if as_str(item.get("result")):
            text = f"[image sha1:{_digest(item['result'])}]"
    elif kind == "mcp_call":
        name = as_str(item.get("name")) or "mcp"
        arguments = item.get("arguments")
        error = error_text(item.get("error"))
        if error is not None:
            text, is_error = error, True
        else:
            text = _parts_text(item.get("output"))
            if is_error is None and item.get("output") is not None:
                is_error = False
    else:
        arguments = first_of(item, ("arguments", "action", "input")) or {}
    call = new_call(item.get("id"), name, arguments if arguments is not None else {})
    content = text if text is not None else dump_json({k: v for k, v in payload.items() if v is not None})
    call.result = ToolResult(content=content, is_error=is_error, line=line)
    return call


def _client_result(item: dict, line: int) -> ToolResult:
    kind = item["type"]
    output = item.get("output")
    is_error = True if item.get("status") == "failed" else None
    if kind == "shell_call_output" and isinstance(output, list):
        pieces = []
        for chunk in output:
            if not isinstance(chunk, dict):
                continue
            pieces.extend(s for s in (chunk.get("stdout"), chunk.get("stderr")) if isinstance(s, str) and s)
            outcome = chunk.get("outcome")
            if isinstance(outcome, dict):
                failed = outcome.get("type") == "timeout" or outcome.get("exit_code") not in (0, None)
                is_error = True if failed else (is_error or False)
        content = "\n".join(pieces)
    elif kind == "apply_patch_call_output":
        content = _parts_text(output)
        is_error = _status_error(item.get("status"))
    elif isinstance(output, dict) and output.get("type") == "computer_screenshot":
        content = f"[image {_image_ref(output.get('image_url'), output.get('file_id'))}]"
    elif isinstance(output, (str, list)) or output is None:
        content = _parts_text(output)
    else:
        content = content_text(output)
    return ToolResult(content=content, is_error=is_error, line=line)


__all__ = ["FORMAT", "read"]
