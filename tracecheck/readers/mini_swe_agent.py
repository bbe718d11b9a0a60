"""mini-swe-agent trajectories: a bare message list, or ``{"info", "messages",
"trajectory_format": "mini-swe-agent-1…"}`` (what ``save_traj``/``agent.save`` write).

Checked against mini-swe-agent 1.1 (``trajectory_format`` ``mini-swe-agent-1``) and 2.0
(``mini-swe-agent-1.1``) trajectories (hand-made fixtures) and a real message list from
mini-swe-agent's tests (``tests/corpus/mini-swe-agent/``; it records no version).

Messages are ``{"role", "content", "extra"?}``. One assistant message is one round.

- **Text actions** (v1, and v2's text-based models): the fenced
  ```` ```mswea_bash_command ```` block in the assistant text is one call named ``bash``
  whose arguments are the command text, kept as a plain string (no JSON, no parse
  error). Older versions fence with ```` ```bash ````; those blocks count only when the
  trajectory never uses the ``mswea_bash_command`` fence (otherwise a ```` ```bash ````
  block is just an example in the text). v2 records the parsed commands in
  ``extra.actions``; they win over the regex when present.
- **Tool calls** (v2's default): assistant ``tool_calls`` (the ``bash`` function with
  ``{"command": ...}`` JSON arguments) answered by ``role: "tool"`` messages with a
  ``tool_call_id``.
- **Observations**: the user message after a text-action round answers its call:
  ``<returncode>N</returncode><output>…</output>`` (v2 also ``extra.returncode``); the
  result is the output inside the tags when they are all there is (the wrapper is the
  harness's: an edit's empty output is empty, as in any other format). Such
  a message is a result, never a conversation turn: the only user turn is the task,
  the first user message before any response.
- **Format errors**: mini-swe-agent runs a text response only when it holds exactly
  one command. A response with none or several ran nothing: it is a round without
  calls (its text keeps the commands; the harness pushed the model back, and a repeat
  is the loop guards' business). v2 does not keep such responses as assistant
  messages; its format-error user message carries the text (``extra.model_response``),
  which becomes the round.
- **Submission**: the command that printed ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``
  (or the older ``MINI_SWE_AGENT_FINAL_OUTPUT``) ended the run with its answer. When
  the run did submit (exit status ``Submitted``, or — in a bare list — the message
  after that command is the submission itself, not a ``<returncode>`` observation), that
  round is a **final answer**: it keeps its text (the command is in it) and has no
  tool calls; the submitted output goes into ``trace.metadata["submission"]``. A
  submit command that did not end the run stays an ordinary call.
- ``role: "exit"`` (v2) carries ``extra.exit_status`` / ``extra.submission``.

Errors (``is_error``): the command's return code (``extra.returncode``, a ``returncode``
field, else the ``<returncode>N</returncode>`` tag of the observation text; ``tool``
messages the same) ≠ 0 → True, 0 → False. Without a return code: the timeout message
("The last command <command>… timed out") and v2's interruptions (``extra.interrupt_type``)
→ True; any other text → None (unknown).

Usage per round from the assistant message's ``extra.response.usage`` (LiteLLM's
chat-completion usage: ``prompt_tokens`` already counts Anthropic cache reads and
writes, so they are not added again; cached = ``prompt_tokens_details.cached_tokens``
or ``cache_read_input_tokens``). ``info.model_stats`` holds no tokens (only
``instance_cost``, ``api_calls``): it is kept as ``trace.metadata["model_stats"]``.

Times (v2): ``extra.timestamp`` of an assistant message is when the response arrived
(round end); the round starts at the timestamp of the message before it (the agent
queries the model right after appending it). A call runs from its round's end to its
observation's ``extra.timestamp``. v1 lists carry no times.

Ending from ``info.exit_status`` (else the ``exit`` message's): ``Submitted`` →
``ending="submitted"``; ``LimitsExceeded`` (step or cost limit), ``TimeExceeded``,
``ContextWindowExceeded`` → ``"limit"`` and ``trace.error``; any other status
(``UserInterruption``, an exception name) → ``"error"`` and ``trace.error``; no status
(a bare list, or a run saved mid-way) → ``answered`` when the last round has no tool
calls, else unknown. The status is also kept as the label ``exit_status``.

Outcome: a trajectory holds no grade (submitting is not resolving). It comes only from
a SWE-bench report beside the trajectory that names the instance (the document's
``instance_id``, else the trace id; see ``graders.py``), else from a labels file;
otherwise it is unknown.

Trace id: the file name without ``.traj``/``.json`` (and compression) suffixes. A file
of several documents names each by its content, ``<stem>:<12 hex digits>``
(``identity.py``), not by its line: a label stays on its trace when lines move.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, read_documents
from .graders import swe_bench_verdict
from .common import (
    Warn,
    as_dict,
    as_int,
    as_list,
    as_str,
    brief,
    content_text,
    file_stem,
    finish_trace,
    make_trace,
    litellm_usage,
    new_call,
    parse_time,
    scalar_text,
)

FORMAT = "mini-swe-agent"

_MSWEA_FENCE = "```mswea_bash_command"
_MSWEA_BLOCK = re.compile(r"```mswea_bash_command\s*\n(.*?)\n```", re.S)
_BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?[0-9]{1,18})\s*</returncode>")  # ASCII: int() refuses "²"
# An observation that is only the harness's wrapper around the command's output.
_WRAPPED = re.compile(r"\A\s*<returncode>\s*-?[0-9]{1,18}\s*</returncode>\s*<output>\n?(.*?)</output>\s*\Z", re.DOTALL)


def _output(text: str) -> str:
    """The command's output of an observation (``<returncode>0</returncode><output>…</output>``):
    the wrapper is the harness's, the same around every result, and would make every
    empty output of an edit (``sed -i``, ``cat > file``) look like the same answer."""
    found = _WRAPPED.match(text)
    return found.group(1) if found else text
_SUBMIT_WORDS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_TIMEOUT_START = "The last command <command>"


def _mentions_mswea(messages: Any) -> bool:
    if not isinstance(messages, list):
        return False
    for message in messages[:6]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and ("mswea_bash_command" in content or "<returncode>" in content):
            return True
    return False


def sniff(value: Any) -> bool:
    if isinstance(value, dict):
        fmt = value.get("trajectory_format")
        return (isinstance(fmt, str) and fmt.startswith("mini-swe-agent")) or _mentions_mswea(value.get("messages"))
    return _mentions_mswea(value)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_documents(records, ctx, _read_document)


# --- helpers -------------------------------------------------------------------------------


def _returncode(msg: dict) -> int | None:
    code = as_int(as_dict(msg.get("extra")).get("returncode"))
    if code is None and isinstance(msg.get("returncode"), int) and not isinstance(msg.get("returncode"), bool):
        code = msg["returncode"]
    if code is None:
        text = content_text(msg.get("content"))
        found = _RETURNCODE.search(text)
        if found:
            code = int(found.group(1))
    return code


def _is_error(code: int | None, text: str, extra: dict) -> bool | None:
    """The return code decides; without one, a timeout or an interruption is a failure."""
    if code is not None:
        return code != 0
    if text.lstrip().startswith(_TIMEOUT_START) or extra.get("interrupt_type"):
        return True
    return None


def _is_submit_command(command: str) -> bool:
    return any(word in command for word in _SUBMIT_WORDS)


def _bash_call(call_id: Any, command: str) -> ToolCall:
    return ToolCall(id=scalar_text(call_id) if call_id else "", name="bash", arguments_raw=command, arguments=command)


class _Builder:
    __slots__ = ("trace", "ctx", "line", "fence", "by_id", "open_calls", "last_time", "submitted_by")

    def __init__(self, trace: Trace, ctx: ReadContext, line: int, fence: re.Pattern) -> None:
        self.trace = trace
        self.ctx = ctx
        self.line = line
        self.fence = fence
        self.by_id: dict[str, ToolCall] = {}
        self.open_calls: list[ToolCall] = []  # the text-action call (0 or 1) the next user message answers
        self.last_time: float | None = None
        self.submitted_by: Round | None = None  # the round whose command printed the submission

    def warner(self) -> Warn:
        return lambda reason: self.ctx.warn(self.line, f"trace {self.trace.id}: {reason}")

    def new_round(self, text: str, extra: dict) -> Round:
        response = as_dict(extra.get("response"))
        choices = as_list(response.get("choices"))
        first_choice = as_dict(choices[0]) if choices else {}
        warn = self.warner()
        ended = parse_time(extra.get("timestamp"), warn, "extra.timestamp")
        rnd = Round(
            index=0,
            text=text,
            usage=litellm_usage(response.get("usage"), warn),
            started_at=self.last_time if ended is not None else None,
            ended_at=ended,
            finish_reason=as_str(first_choice.get("finish_reason")),
            line=self.line,
            id=as_str(response.get("id")),
            model=as_str(response.get("model")),
        )
        self.trace.rounds.append(rnd)
        return rnd

    def text_commands(self, text: str, extra: dict) -> list[tuple[Any, str]]:
        """The commands that ran: v2's parsed actions, else the one fenced block."""
        actions = extra.get("actions")
        if isinstance(actions, list) and all(isinstance(a, dict) and isinstance(a.get("command"), str) for a in actions):
            return [(a.get("tool_call_id"), a["command"]) for a in actions]
        blocks = [m.strip() for m in self.fence.findall(text)]
        return [(None, blocks[0])] if len(blocks) == 1 else []  # else a format error: nothing ran

    def assistant(self, msg: dict) -> None:
        extra = as_dict(msg.get("extra"))
        text = content_text(msg.get("content"))
        rnd = self.new_round(text, extra)
        self.open_calls = []
        specs = [s for s in as_list(msg.get("tool_calls")) if isinstance(s, dict)]
        if specs:
            for spec in specs:
                function = as_dict(spec.get("function"))
                call = new_call(spec.get("id"), function.get("name"), function.get("arguments"))
                if call.id:
                    self.by_id[call.id] = call
                rnd.tool_calls.append(call)
        else:
            commands = self.text_commands(text, extra)
            for call_id, command in commands:
                rnd.tool_calls.append(_bash_call(call_id, command))
            self.open_calls = list(rnd.tool_calls)
        self.last_time = rnd.ended_at if rnd.ended_at is not None else self.last_time

    def format_error_message(self, extra: dict) -> None:
        """v2: the response that broke the format is kept only inside this message."""
        self.new_round(extra["model_response"], {"timestamp": extra.get("timestamp")})
        self.open_calls = []

    def user(self, msg: dict) -> None:
        extra = as_dict(msg.get("extra"))
        moment = parse_time(extra.get("timestamp"), self.warner(), "extra.timestamp")
        if extra.get("interrupt_type") == "FormatError" and isinstance(extra.get("model_response"), str) and not self.open_calls:
            self.format_error_message(extra)
        elif self.open_calls:
            self.answer_open_calls(msg, extra, moment)
        if moment is not None:
            self.last_time = moment

    def answer_open_calls(self, msg: dict, extra: dict, moment: float | None) -> None:
        text = content_text(msg.get("content"))
        code = _returncode(msg)
        rnd = self.trace.rounds[-1]
        started = rnd.ended_at
        call = self.open_calls.pop(0)
        timed_out = text.lstrip().startswith(_TIMEOUT_START)
        if code is None and not timed_out and extra.get("interrupt_type") is None and _is_submit_command(call.arguments_raw):
            # v1: what follows the submit command is the submission (str(Submitted)),
            # not an observation.
            self.submitted_by = rnd
        call.result = ToolResult(
            content=_output(text),
            is_error=_is_error(code, text, extra),
            started_at=started if moment is not None else None,
            ended_at=moment,
            line=self.line,
        )

    def tool(self, msg: dict) -> None:
        extra = as_dict(msg.get("extra"))
        moment = parse_time(extra.get("timestamp"), self.warner(), "extra.timestamp")
        call_id = msg.get("tool_call_id")
        call = self.by_id.pop(scalar_text(call_id), None) if call_id is not None else None
        if call is None:
            self.ctx.warn(self.line, f"trace {self.trace.id}: tool result for unknown call id {brief(call_id)}")
            return
        code = _returncode(msg)
        started = self.trace.rounds[-1].ended_at if self.trace.rounds else None
        text = content_text(msg.get("content"))
        call.result = ToolResult(
            content=_output(text),
            is_error=_is_error(code, text, extra),
            started_at=started if moment is not None else None,
            ended_at=moment,
            line=self.line,
        )
        if moment is not None:
            self.last_time = moment


# --- the document ----------------------------------------------------------------------------


def _uses_mswea_fence(messages: list) -> bool:
    return any(isinstance(m, dict) and _MSWEA_FENCE in content_text(m.get("content")) for m in messages)


# The exit statuses of mini-swe-agent's step/cost, time and context-window limits.
_LIMIT_STATUSES = ("LimitsExceeded", "TimeExceeded", "ContextWindowExceeded")


def _read_document(value: Any, line: int, ctx: ReadContext, first: bool) -> Trace | None:
    info: dict = {}
    if isinstance(value, dict):
        messages = value.get("messages")
        info = as_dict(value.get("info"))
        if not isinstance(messages, list):
            ctx.warn(line, "JSON that is not a mini-swe-agent trajectory (no 'messages' list)")
            return None
    elif isinstance(value, list):
        messages = value
    else:
        ctx.warn(line, "JSON that is not a mini-swe-agent trajectory (neither a message list nor an object)")
        return None
    trace = make_trace(None, FORMAT, ctx.file, file_stem(ctx.file), line)
    if first:
        trace.id = trace.id_base  # named after its file while no other trace joins it
    fence = _MSWEA_BLOCK if _uses_mswea_fence(messages) else _BASH_BLOCK
    b = _Builder(trace, ctx, line, fence)
    exit_extra: dict = {}
    exit_content = None
    for k, msg in enumerate(messages, 1):
        if not isinstance(msg, dict):
            ctx.warn(line, f"trace {trace.id}: message {k} is not an object")
            continue
        role = msg.get("role")
        if role == "assistant":
            b.assistant(msg)
        elif role == "user":
            if not trace.rounds and not trace.user_messages:
                # The task; every later user message answers a command or reports a format error.
                moment = parse_time(as_dict(msg.get("extra")).get("timestamp"))
                trace.add_user_message(content_text(msg.get("content")), at=moment, line=line)
            b.user(msg)
        elif role == "tool":
            b.tool(msg)
        elif role == "exit":
            exit_extra = as_dict(msg.get("extra"))
            exit_content = content_text(msg.get("content"))
        elif role != "system":
            ctx.warn(line, f"trace {trace.id}: message {k} has an unknown role {brief(role)}")

    status = as_str(info.get("exit_status")) or as_str(exit_extra.get("exit_status"))
    submission = as_str(info.get("submission")) or as_str(exit_extra.get("submission"))
    _final_answer(trace, b, status, submission)
    stats = info.get("model_stats")
    if isinstance(stats, dict) and stats:
        trace.metadata["model_stats"] = stats
    model = as_str(as_dict(as_dict(info.get("config")).get("model")).get("model_name"))
    if model:
        trace.metadata["model"] = model
    if status is not None:
        trace.labels["exit_status"] = status
        if status == "Submitted":
            trace.ending = "submitted"  # how it ended; whether the patch works is the grader's to say
        else:
            trace.ending = "limit" if status in _LIMIT_STATUSES else "error"
            detail = (exit_content or "").strip().splitlines()
            trace.error = f"{status}: {detail[0]}" if detail and detail[0] != status else status
    instance_id = as_str(value.get("instance_id")) if isinstance(value, dict) else None
    grade = swe_bench_verdict(ctx, instance_id or trace.id)
    if grade is not None:
        trace.labels["outcome"], trace.metadata["graded_by"] = grade
    return finish_trace(trace, ctx.diagnostics)


def _final_answer(trace: Trace, b: _Builder, status: str | None, submission: str | None) -> None:
    """Turn the round whose command submitted the run into the run's final answer."""
    rnd = b.submitted_by
    if rnd is None and status == "Submitted":
        # v2: the submit command raised Submitted before any observation was written.
        rnd = next(
            (r for r in reversed(trace.rounds) if any(_is_submit_command(c.arguments_raw) for c in r.tool_calls)),
            None,
        )
    if rnd is None or rnd is not (trace.rounds[-1] if trace.rounds else None):
        if submission:
            trace.metadata["submission"] = submission
        return
    printed = next((c.result.content for c in rnd.tool_calls if c.result is not None), None)
    for call in rnd.tool_calls:
        b.by_id.pop(call.id, None)
    rnd.tool_calls = []
    if submission or printed:
        trace.metadata["submission"] = submission or printed
