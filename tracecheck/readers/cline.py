"""Cline and Roo Code task history: ``api_conversation_history.json`` (one format for both).

Where the files are: a task folder, ``<VS Code globalStorage>/saoudrizwan.claude-dev/tasks/<taskId>/``
(Cline), ``.../rooveterinaryinc.roo-cline/tasks/<taskId>/`` (Roo Code) or
``~/.cline/data/tasks/<taskId>/`` (the Cline CLI), holds ``api_conversation_history.json``
(the transcript read here), ``ui_messages.json`` (what the chat showed: read beside the
transcript for tokens and times) and ``task_metadata.json`` (files in context, models
used: not read; both are skipped by a directory walk, ``readers/__init__.NOT_TRANSCRIPTS``).

Followed from the tools' own source: cline/cline ``src/shared/messages/content.ts``
(``ClineStorageMessage``: an Anthropic ``MessageParam`` plus ``modelInfo``),
``src/shared/messages/metrics.ts`` (``metrics.tokens`` {prompt, completion, cached} on
assistant messages, Cline 3.3x on), ``src/shared/ExtensionMessage.ts`` (``ClineMessage``
{ts, type, say, text, conversationHistoryIndex}, ``ClineApiReqInfo``),
``src/core/prompts/responses.ts`` (``formatResponse``: the error and refusal texts below),
``src/core/task/index.ts`` / ``ToolExecutor.ts`` (``pushToolResult``: the ``[tool for
'x'] Result:`` header), ``src/core/assistant-message/parse-assistant-message.ts`` (XML
tool calls); RooCodeInc/Roo-Code ``src/core/tools/ExecuteCommandTool.ts`` (the exit code
Roo writes into a command's result) and its task persistence (a ``ts`` on every history
message). Checked against Cline 3.x (2025 to 2026) and Roo Code 3.x; a real Cline file
of 2026 (native tool calls, results as text) is among the fixtures.

The file is one JSON array of messages ``{"role": "user"|"assistant", "content": string |
blocks, "ts"?, "modelInfo"?, "metrics"?}``; it is one trace. Trace id: the task folder's
name (the task id) when the file has its own name, else the file's stem.
``trace.metadata["tool"]`` is ``cline`` or ``roo-code`` when the folder (the extension's
storage name, ``.cline``) or the environment details (Roo's ``<slug>`` mode, Cline's
``PLAN MODE``/``ACT MODE``) tell; ``task_id`` the folder's name.

Rounds: each assistant message is one round (one model response). Its calls are its
``tool_use`` blocks (native tool calling) or, in XML-calling versions, the tool blocks in
its text (``<execute_command><command>npm test</command></execute_command>``: the
parameters are the child tags, values stripped; a block left open at the end of the
message is a call with what it holds, as Cline runs it). The round's text is what is
left outside the tool blocks. ``use_mcp_tool`` is read as the MCP tool it calls: named
by its ``tool_name``, its ``arguments`` JSON as the arguments (the server is not kept).
The round's model is ``modelInfo.modelId`` when written.

Results: in the next user message, as ``tool_result`` blocks (paired by ``tool_use_id``)
or as text: a block starting ``[<tool> for '<what>'] Result:`` (or ``[<tool>] Result:``)
answers the next call still waiting, the text after the header line (else the next text
block, as older versions wrote it) being the result. ``Tool [x] was not executed because a
tool has already been used in this message`` and ``Skipping tool [...] due to user
rejecting a previous tool`` answer the calls Cline did not run. A result no call waits
for is a warning.

Errors, from Cline's own wording of a failure: ``The tool execution failed with the
following error:`` (``formatResponse.toolError``), ``The user denied this operation``,
the ``.clineignore`` refusal, ``Missing value for required parameter``, ``Invalid JSON
argument used with``, the not-executed and skipped notes, and Roo's command results
(``Exit code: N`` ≠ 0, ``Process terminated by signal``): ``is_error=True``; any other
result is ``False`` (Cline ran the tool; a Cline command's exit code is not written, so a
failing command reads as its output). A ``tool_result`` block's ``is_error`` wins.

User messages: the task (``<task>…</task>``), a user's reply to a stop
(``<feedback>``), new instructions on resumption (``<user_message>``), and the user's
feedback to ``attempt_completion`` or reply to ``plan_mode_respond`` open a turn.
Environment details, task-progress reminders and Cline's ``[ERROR] You did not use a
tool`` note are the harness's, never the user's.

Ending: a last round whose only call is ``attempt_completion`` (or ``plan_mode_respond``)
with no result presented the answer: that round is the final answer, its text the
``result`` (``response``) parameter, and the call is dropped. A last response Cline
marked ``[Response interrupted by API Error]`` sets ``trace.error``; one the user
interrupted (``[Response interrupted by user]``) is read as the response it is.
Outcome: never set (the format holds no grade).

Tokens, per round: the assistant message's own ``metrics.tokens`` (``prompt`` includes
cached tokens, ``cached`` is the cache reads); else the ``api_req_started`` messages of
``ui_messages.json`` beside the file (``claude_messages.json`` in the oldest versions),
read the careful way (``input/side_files.py``: a regular file of at most 64 MB, UTF-8,
nesting and numbers the parser can take; an unreadable one is a warning naming it, and
no tokens). It is read only beside a file named ``api_conversation_history.json``. Matching them to assistant messages: by ``conversationHistoryIndex`` (the length of
the history less one when the request was said; Cline says it before it adds the
request's user message, so the response is the first assistant message after that
index) when every request carries one, else in order, the k-th request to the k-th
assistant message, and only when the counts agree (otherwise a warning and no tokens: a
request that failed or was cut adds one without a response). Input is ``tokensIn`` plus
``cacheWrites`` and ``cacheReads`` (the Anthropic convention Cline counts the context
with; Roo's ``apiProtocol: "openai"`` says ``tokensIn`` includes them already), cached
is ``cacheReads``. Rounds with neither are ``None``.

Times (milliseconds since the epoch): an assistant message's ``ts`` (Roo, newer Cline)
is when the response ended; the matched ``api_req_started``'s ``ts`` when it started (or
the ``ts`` of the message before it); a result ends at the ``ts`` of its user message.
Without them, ``None``.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterator
from typing import Any

import orjson

from ..input.diagnostics import TracecheckError
from ..input.side_files import read_json
from ..input.sources import Record, display_name
from ..model import Round, ToolCall, ToolResult, Trace
from .common import Counts, as_dict, as_str, brief, declined_by_user, dump_json, file_stem, finish_trace, make_usage, new_call, parse_time
from .contract import ReadContext, read_each

FORMAT = "cline"

HISTORY_FILE = "api_conversation_history.json"
UI_FILES = ("ui_messages.json", "claude_messages.json")

# Tool names of Cline's and Roo Code's XML calling (their system prompts' tool lists).
XML_TOOLS = (
    "execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content",
    "search_and_replace", "search_files", "list_files", "list_code_definition_names", "codebase_search",
    "browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question", "attempt_completion",
    "plan_mode_respond", "plan_mode_response", "act_mode_respond", "new_task", "switch_mode",
    "fetch_instructions", "load_mcp_documentation", "web_fetch", "web_search", "condense", "summarize_task",
    "report_bug", "new_rule", "update_todo_list", "run_slash_command", "generate_image", "use_skill",
)  # fmt: skip
_OPEN_TOOL = re.compile(r"<(" + "|".join(XML_TOOLS) + r")>")
_OPEN_PARAM = re.compile(r"<([A-Za-z_][\w-]*)>")
# Parameters whose values may hold their own closing tag (file contents, diffs): they end
# at the last one, as Cline's parser takes them.
_GREEDY_PARAMS = ("content", "diff")
_HEADER = re.compile(r"\A\[([\w.:-]+)(?: for .*)?\] Result:[ \t]*(?:\n|\Z)")
_NOT_EXECUTED = re.compile(r"\ATool \[([\w.:-]+)\] was not executed because")
_SKIPPED = re.compile(r"\ASkipping tool \[([\w.:-]+)")
_ERROR_TEXTS = (
    "The tool execution failed with the following error:",
    "The user denied this operation",
    "Missing value for required parameter",
    "Invalid JSON argument used with",
)
_CLINEIGNORE = re.compile(r"\AAccess to .* is blocked by the \.clineignore file settings")
_EXIT_CODE = re.compile(r"^(?:Command execution was not successful.*\n)?Exit code: (-?\d+)|^Process terminated by signal", re.M)
_SAID_TAGS = re.compile(r"<(task|feedback|user_message)>\n?(.*?)\n?</\1>", re.S)
_HARNESS_TEXT = ("<environment_details>", "[ERROR] You did not use a tool", "[TASK RESUMPTION]")
_HARNESS_NOTES = re.compile(r"\A\s*#\s*(?:task_progress|TODO LIST UPDATE REQUIRED)")
_ANSWER_TOOLS = {"attempt_completion": "result", "plan_mode_respond": "response", "plan_mode_response": "response"}
_API_ERROR = "[Response interrupted by API Error]"


# --- sniffing ----------------------------------------------------------------------------


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]


def sniff(value: Any) -> bool:
    """A list of messages whose first is the user's ``<task>`` (Cline and Roo start every
    task so), or whose user messages answer calls with Cline's ``[tool] Result:`` header."""
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return False
    first = value[0]
    if first.get("role") != "user" or "content" not in first:
        return False
    if any(text.lstrip().startswith("<task>") for text in _texts(first.get("content"))):
        return True
    for message in value[:12]:
        if isinstance(message, dict) and message.get("role") == "user":
            if any(_HEADER.match(text) for text in _texts(message.get("content"))):
                return True
    return False


def is_ui_messages(value: Any) -> bool:
    """Cline's / Roo's ``ui_messages.json``: ClineMessages ``{ts, type: say|ask, ...}``."""
    if not isinstance(value, list) or not value:
        return False
    head = value[:5]
    return all(isinstance(m, dict) and isinstance(m.get("ts"), (int, float)) and m.get("type") in ("say", "ask") for m in head)


def is_task_metadata(value: Any) -> bool:
    """Cline's ``task_metadata.json`` (files in context, models and environments used)."""
    return isinstance(value, dict) and bool(value) and set(value) <= {"files_in_context", "model_usage", "environment_history"}


# --- XML calls ------------------------------------------------------------------------------


def parse_xml_calls(text: str) -> tuple[str, list[tuple[str, dict[str, str]]]]:
    """(the text outside the tool blocks, [(tool name, parameters), ...]) of a response."""
    outside: list[str] = []
    calls: list[tuple[str, dict[str, str]]] = []
    position = 0
    while True:
        opening = _OPEN_TOOL.search(text, position)
        if opening is None:
            outside.append(text[position:])
            break
        outside.append(text[position : opening.start()])
        name = opening.group(1)
        closing = text.find(f"</{name}>", opening.end())
        body_end = closing if closing >= 0 else len(text)
        calls.append((name, _parameters(text[opening.end() : body_end])))
        position = body_end + len(f"</{name}>") if closing >= 0 else len(text)
    return "".join(outside).strip(), calls


def _parameters(body: str) -> dict[str, str]:
    parameters: dict[str, str] = {}
    position = 0
    while True:
        opening = _OPEN_PARAM.search(body, position)
        if opening is None:
            return parameters
        key = opening.group(1)
        end_tag = f"</{key}>"
        closing = body.rfind(end_tag, opening.end()) if key in _GREEDY_PARAMS else body.find(end_tag, opening.end())
        value_end = closing if closing >= 0 else len(body)
        parameters.setdefault(key, body[opening.end() : value_end].strip())
        position = value_end + len(end_tag) if closing >= 0 else len(body)


def _call(call_id: Any, name: str, arguments: Any) -> ToolCall:
    """A call; ``use_mcp_tool`` as the MCP tool it calls (see the module docstring)."""
    if name == "use_mcp_tool" and isinstance(arguments, dict) and as_str(arguments.get("tool_name")):
        given = arguments.get("arguments")
        if isinstance(given, str):
            try:
                given = orjson.loads(given)
            except orjson.JSONDecodeError:
                pass  # kept as written: new_call reports arguments that are not JSON
        return new_call(call_id, arguments["tool_name"], given if given is not None else {})
    return new_call(call_id, name, arguments)


# --- results --------------------------------------------------------------------------------


def result_error(text: str) -> bool:
    """Whether a result's text is Cline's (or Roo's) wording of a failure."""
    head = text.lstrip()
    if head.startswith(_ERROR_TEXTS) or _CLINEIGNORE.match(head) or _NOT_EXECUTED.match(head) or _SKIPPED.match(head):
        return True
    if head.startswith("Command executed in "):  # Roo: "... Exit code: N\nOutput:\n..."
        status = _EXIT_CODE.search(head[: head.find("\nOutput:")] if "\nOutput:" in head else head[:600])
        if status is not None:
            return status.group(1) is None or int(status.group(1)) != 0
    return False


def _said(text: str) -> str | None:
    """What the user said in a text: the contents of its task, feedback or user-message tags."""
    found = [m.group(2).strip() for m in _SAID_TAGS.finditer(text)]
    return "\n\n".join(found) if found else None


# --- the side file ----------------------------------------------------------------------------


def _ui_messages(ctx: ReadContext) -> tuple[list | None, str | None]:
    """The ClineMessages beside the transcript and the file's name as reports show it, or
    ``(None, None)`` when there are none; an unreadable file is a warning naming it."""
    if ctx.file == "<stdin>" or os.path.basename(ctx.file) != HISTORY_FILE:
        return None, None
    folder = os.path.dirname(ctx.file) or "."
    for name in UI_FILES:
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            continue
        shown = display_name(path)
        try:
            value = read_json(path, "Cline UI messages file")
        except TracecheckError as exc:
            ctx.diagnostics.warn(shown, None, f"{exc}; tokens and request times unknown")
            return None, None
        if not isinstance(value, list):
            ctx.diagnostics.warn(shown, None, "not a list of UI messages; tokens and request times unknown")
            return None, None
        return value, shown
    return None, None


class _Request:
    __slots__ = ("info", "ts", "index")

    def __init__(self, info: dict, ts: float | None, index: int | None) -> None:
        self.info = info
        self.ts = ts
        self.index = index


def _requests(messages: list, path: str, ctx: ReadContext) -> list[_Request]:
    requests = []
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("type") != "say" or message.get("say") != "api_req_started":
            continue
        text = message.get("text")
        try:
            info = orjson.loads(text) if isinstance(text, str) else None
        except orjson.JSONDecodeError:
            info = None
        if not isinstance(info, dict):
            ctx.diagnostics.warn(path, None, f"UI message {position}: api_req_started whose text is not a JSON object; its tokens unknown")
            info = {}
        moment = parse_time(message.get("ts"), lambda reason: ctx.diagnostics.warn(path, None, f"UI message {position}: {reason}"), "ts")
        index = message.get("conversationHistoryIndex")
        requests.append(_Request(info, moment, index if isinstance(index, int) and not isinstance(index, bool) else None))
    return requests


# --- the reader ----------------------------------------------------------------------------


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    first = True

    def read_record(value: Any, line: int) -> Iterator[Trace]:
        nonlocal first
        if not isinstance(value, list):
            ctx.warn(line, "JSON that is not a Cline task history (a list of messages)")
            return
        trace = _History(ctx, line, first).read(value)
        first = False
        yield trace

    return read_each(records, ctx, read_record, what="task history")


def _tool_of(path: str, messages: list) -> str | None:
    parts = os.path.abspath(path).replace("\\", "/").lower()
    if "rooveterinaryinc.roo-cline" in parts:
        return "roo-code"
    if "saoudrizwan.claude-dev" in parts or "/.cline/" in parts:
        return "cline"
    for message in messages[:4]:
        for text in _texts(message.get("content") if isinstance(message, dict) else None):
            if "<environment_details>" in text and "# Current Mode" in text:
                mode = text[text.find("# Current Mode") :][:200]
                if "<slug>" in mode:
                    return "roo-code"
                if "PLAN MODE" in mode or "ACT MODE" in mode:
                    return "cline"
    return None


class _History:
    def __init__(self, ctx: ReadContext, line: int, first: bool) -> None:
        self.ctx = ctx
        self.line = line
        base = os.path.basename(ctx.file) or ctx.file
        folder = os.path.basename(os.path.dirname(os.path.abspath(ctx.file))) if base == HISTORY_FILE else ""
        own_id = folder if first and folder else None
        stem = file_stem(ctx.file)
        self.trace = Trace(id=own_id or (stem if first else f"{stem}:{line}"), format=FORMAT, file=ctx.file, line=line, end_line=line)
        if own_id is None:
            self.trace.id_base = stem  # named by its place until ``identity`` settles it
        else:
            self.trace.metadata["task_id"] = own_id
        self.pending: list[ToolCall] = []  # calls of the latest round still waiting, in order
        self.by_id: dict[str, ToolCall] = {}
        self.started: dict[int, float | None] = {}  # id(call) -> when its round ended
        self.previous_ts: float | None = None

    def warn(self, number: int, reason: str) -> None:
        self.ctx.warn(self.line, f"trace {self.trace.id}: {reason} (message {number})")

    def read(self, messages: list) -> Trace:
        trace = self.trace
        tool = _tool_of(self.ctx.file, messages)
        if tool is not None:
            trace.metadata["tool"] = tool
        usage_by_message, start_by_message = self.side_usage(messages)
        for number, message in enumerate(messages, 1):
            if not isinstance(message, dict):
                self.warn(number, "a message must be a JSON object; skipped")
                continue
            moment = parse_time(message.get("ts"), lambda reason, n=number: self.warn(n, reason), "ts") if "ts" in message else None
            role = message.get("role")
            if role == "assistant":
                rnd = self.assistant(message, number, moment)
                own = self.own_usage(message, number)
                rnd.usage = own if own is not None else usage_by_message.get(number - 1)
                rnd.started_at = start_by_message.get(number - 1, self.previous_ts)
            elif role == "user":
                self.user(message.get("content"), number, moment)
            else:
                self.warn(number, f"message with unknown role {brief(role)} skipped")
            if moment is not None:
                self.previous_ts = moment
        self.conclude()
        return finish_trace(trace, self.ctx.diagnostics)

    # --- assistant messages --------------------------------------------------------------

    def assistant(self, message: dict, number: int, moment: float | None) -> Round:
        trace = self.trace
        rnd = Round(index=len(trace.rounds) + 1, line=self.line, ended_at=moment)
        model = as_dict(message.get("modelInfo")).get("modelId")
        rnd.model = as_str(model)
        trace.rounds.append(rnd)
        self.pending = []  # calls left without a result: finish_trace names them
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            self.warn(number, "assistant content must be a string or a list of blocks; ignored")
            return rnd
        texts: list[str] = []
        # Native calls: the text is only text (Cline parses no XML from it then).
        native = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks)
        for block in blocks:
            if not isinstance(block, dict):
                self.warn(number, "content block that is not an object skipped")
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                outside, xml_calls = (block["text"].strip(), []) if native else parse_xml_calls(block["text"])
                if outside:
                    texts.append(outside)
                for name, parameters in xml_calls:
                    self.add_call(rnd, _call(None, name, parameters), moment)
            elif kind == "tool_use":
                name = as_str(block.get("name"))
                if name is None:
                    self.warn(number, "tool_use block without a name skipped")
                    continue
                self.add_call(rnd, _call(block.get("id"), name, block.get("input")), moment)
            # thinking, redacted_thinking, images: neither text nor calls
        rnd.text = "\n".join(texts)
        rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        return rnd

    def add_call(self, rnd: Round, call: ToolCall, moment: float | None) -> None:
        if not call.id:
            call.id = f"r{rnd.index}.c{len(rnd.tool_calls) + 1}"
        rnd.tool_calls.append(call)
        self.pending.append(call)
        self.by_id[call.id] = call
        self.started[id(call)] = moment

    def own_usage(self, message: dict, number: int):
        tokens = as_dict(message.get("metrics")).get("tokens")
        if not isinstance(tokens, dict):
            return None
        counts = Counts(tokens, lambda reason: self.warn(number, reason), "metrics.tokens")
        return make_usage(*counts.each("prompt", "completion", "cached"), None)

    # --- user messages ---------------------------------------------------------------------

    def user(self, content: Any, number: int, moment: float | None) -> None:
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            self.warn(number, "user content must be a string or a list of blocks; ignored")
            return
        said: list[str] = []
        plain: list[str] = []
        waiting_for_body: ToolCall | None = None  # a header block alone: its text is the next block
        for block in blocks:
            if not isinstance(block, dict):
                self.warn(number, "content block that is not an object skipped")
                continue
            kind = block.get("type")
            if kind == "tool_result":
                waiting_for_body = None
                self.tool_result(block, number, moment)
                continue
            if kind != "text" or not isinstance(block.get("text"), str):
                continue  # images, documents
            text = block["text"]
            header = _HEADER.match(text)
            refusal = _NOT_EXECUTED.match(text) or _SKIPPED.match(text)
            if header is not None or refusal is not None:
                name = (header or refusal).group(1)
                body = text[header.end() :] if header is not None else text
                call = self.answer(name, body, number, moment)
                waiting_for_body = call if header is not None and not body.strip() and call is not None else None
                if call is not None and call.name in _ANSWER_TOOLS and call.result is not None:
                    said.extend(filter(None, [_said(body)]))
                continue
            if waiting_for_body is not None and not text.lstrip().startswith(_HARNESS_TEXT):
                call, waiting_for_body = waiting_for_body, None
                call.result.content = text
                call.result.is_error = result_error(text)
                if call.name in _ANSWER_TOOLS:
                    said.extend(filter(None, [_said(text)]))
                continue
            waiting_for_body = None
            if text.lstrip().startswith(_HARNESS_TEXT) or _HARNESS_NOTES.match(text):
                continue
            tags = _said(text)
            if tags is not None:
                said.append(tags)
            elif text.strip():
                plain.append(text.strip())
        if said:
            self.trace.add_user_message("\n\n".join(said), at=moment, line=self.line)
        elif plain and not self.trace.rounds and not self.trace.user_messages:
            self.trace.add_user_message("\n\n".join(plain), at=moment, line=self.line)

    def answer(self, name: str, body: str, number: int, moment: float | None) -> ToolCall | None:
        """The result ``body`` for the next waiting call (by name first, else in order)."""
        call = next((c for c in self.pending if c.name == name), None)
        if call is None and self.pending:
            call = self.pending[0]
        if call is None:
            self.warn(number, f"result for {brief(name)} with no call waiting for it")
            return None
        self.take(call)
        call.result = ToolResult(content=body, is_error=result_error(body), started_at=self.started.get(id(call)), ended_at=moment, line=self.line)
        call.result.declined = declined_by_user(body)
        return call

    def take(self, call: ToolCall) -> bool:
        """Whether ``call`` was waiting (it no longer is); by identity: equal calls differ."""
        for position, waiting in enumerate(self.pending):
            if waiting is call:
                del self.pending[position]
                return True
        return False

    def tool_result(self, block: dict, number: int, moment: float | None) -> None:
        call_id = as_str(block.get("tool_use_id"))
        call = self.by_id.get(call_id) if call_id else None
        if call is None:
            self.warn(number, f"tool result for unknown call id {brief(call_id)}")
            return
        if not self.take(call):
            self.warn(number, f"second tool result for call id {brief(call_id)} ignored (the first is kept)")
            return
        content = block.get("content")
        if isinstance(content, list):
            text = "\n".join(b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else f"[{brief(b.get('type') if isinstance(b, dict) else b)}]" for b in content)
        else:
            text = content if isinstance(content, str) else ("" if content is None else dump_json(content))
        flag = block.get("is_error")
        error = flag if isinstance(flag, bool) else result_error(text)
        call.result = ToolResult(content=text, is_error=error, started_at=self.started.get(id(call)), ended_at=moment, line=self.line)
        call.result.declined = declined_by_user(text)

    # --- tokens from ui_messages.json ---------------------------------------------------------

    def side_usage(self, messages: list) -> tuple[dict, dict]:
        """Per assistant message (by its 0-based position): usage and start time from the
        UI messages beside the file (see the module docstring)."""
        ui, path = _ui_messages(self.ctx)
        if ui is None or path is None:
            return {}, {}
        requests = _requests(ui, path, self.ctx)
        assistants = [k for k, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"]
        pairs: list[tuple[int, _Request]] = []
        if requests and all(r.index is not None for r in requests):
            for request in requests:
                # The first response after the index: Cline says api_req_started before it
                # adds the request's user message (the index is the response before it).
                later = bisect.bisect_right(assistants, request.index)
                if later < len(assistants):
                    pairs.append((assistants[later], request))
        elif len(requests) == len(assistants):
            pairs = list(zip(assistants, requests))
        elif requests:
            self.ctx.diagnostics.warn(path, None, f"{len(requests)} API requests for {len(assistants)} responses in {os.path.basename(self.ctx.file)}: tokens not matched")
            return {}, {}
        usage, starts = {}, {}
        for position, request in pairs:
            usage[position] = self.request_usage(request.info, path, position)
            if request.ts is not None:
                starts[position] = request.ts
        return usage, starts

    def request_usage(self, info: dict, path: str, position: int):
        counts = Counts(info, lambda reason: self.ctx.diagnostics.warn(path, None, f"api_req_started for message {position + 1}: {reason}"))
        tokens_in, tokens_out, writes, reads = counts.each("tokensIn", "tokensOut", "cacheWrites", "cacheReads")
        if tokens_in is not None and info.get("apiProtocol") != "openai":
            tokens_in += (writes or 0) + (reads or 0)
        return make_usage(tokens_in, tokens_out, reads, None)

    # --- the end ---------------------------------------------------------------------------------

    def conclude(self) -> None:
        trace = self.trace
        if not trace.rounds:
            return
        last = trace.rounds[-1]
        if len(last.tool_calls) == 1 and last.tool_calls[0].name in _ANSWER_TOOLS and last.tool_calls[0].result is None:
            call = last.tool_calls.pop()
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            answer = arguments.get(_ANSWER_TOOLS[call.name])
            shown = answer if isinstance(answer, str) else ("" if answer is None else dump_json(answer))
            last.text = f"{last.text}\n{shown}" if last.text and shown else (last.text or shown)
            last.finish_reason = "stop"
        if _API_ERROR in last.text:
            trace.error = "response interrupted by API error"
            trace.ending = "error"


__all__ = ["FORMAT", "is_task_metadata", "is_ui_messages", "parse_xml_calls", "read", "result_error", "sniff"]
