"""Claude Code headless output: ``claude -p --output-format stream-json --verbose``.

What CI jobs keep of a Claude Code run, and what Harbor / Terminal-Bench capture as
``agent/claude-code.txt`` (``claude --verbose --output-format stream-json ... 2>&1 | tee``:
the CLI's stderr is mixed in, so lines that are not JSON are warnings naming file and
line, and the trace is kept). Not the session JSONL the CLI keeps under
``~/.claude/projects`` (the ``claude-code`` reader): stream lines say ``session_id``,
session entries ``sessionId``.

Followed from the Agent SDK's parser of the stream, anthropics/claude-agent-sdk-python
``src/claude_agent_sdk/_internal/message_parser.py`` (commit 008e361d, 2026; the SDK's
``SDKSystemMessage`` / ``SDKAssistantMessage`` / ``SDKUserMessage`` /
``SDKResultMessage``), Harbor's ``agents/installed/claude_code.py`` (how the file is
captured), and real files written by Claude Code 2.1.63 (sourcegraph/CodeScaleBench
``docs/official_results/traces/*/claude-code.txt``). Checked against CLI 1.0.x to 2.1.x.

One JSON object per line, by ``type``:

- ``system`` ``subtype: "init"``: ``session_id``, ``cwd``, ``model``, ``tools``,
  ``claude_code_version``, ``permissionMode`` ... The session id is the trace id (else the
  file name); ``cwd``, ``model`` and ``claude_code_version`` go to the metadata. Other
  subtypes (``task_started``, ``hook_*``, ``compact_boundary``, ``status`` ...) are not
  rounds; a ``task_started`` names the agent id of a sub-agent run (``task_id``).
- ``assistant``: ``message`` is an Anthropic Messages response (``id``, ``model``, one
  content block per line: ``thinking``, ``text``, ``tool_use``), with ``session_id``,
  ``parent_tool_use_id``, ``uuid``. The CLI writes each block as it completes, so one
  response is several lines repeating ``message.id`` and the usage: lines are grouped
  by ``message.id`` into one round (as the ``claude-code`` reader does, with the
  ``anthropic`` reader's block and usage rules), its tokens counted once.
- ``user``: ``message.content`` of ``tool_result`` blocks, attached to their calls by
  ``tool_use_id``; ``is_error: true`` marks a failure, a block without it is a success
  (Claude Code flags every failed call). ``tool_use_result`` repeats the result in a
  per-tool structure and is not read. A user line of text is what the user said (a
  prompt given with ``--input-format stream-json``, or a sub-agent's prompt) and opens a
  turn, unless the CLI wrote it itself (``isSynthetic``). ``claude -p "..."`` does not
  echo its prompt: such a run has no user message.
- ``result`` (``subtype`` ``success`` | ``error_max_turns`` | ``error_max_budget_usd``
  | ``error_during_execution`` | ``error_max_structured_output_retries``, ``is_error``,
  ``num_turns``, ``duration_ms``, ``duration_api_ms``, ``total_cost_usd``, ``usage``,
  ``result``, ``errors``): how the run ended. ``success`` without ``is_error`` leaves the
  ending to the last round (a reply without calls is ``answered``); the turn and budget
  limits are ``ending="limit"`` with ``trace.error`` naming the limit; the other errors
  (and ``success`` with ``is_error: true``, a failed API call whose message is the
  ``result`` text) are ``ending="error"`` with the ``errors`` (else ``result``) text.
  ``num_turns``, ``duration_ms``, ``duration_api_ms``, ``total_cost_usd`` and the subtype
  (``result_subtype``) go to the metadata. A stream without a result line was cut
  before the run ended: a warning; the ending is then read from the rounds alone.
- not part of the conversation, skipped: ``stream_event`` (the partial messages of
  ``--include-partial-messages``; the assistant lines repeat them whole),
  ``rate_limit_event``, ``subagent_token_usage``, ``tool_progress``, ``auth_status``, the
  ``control_*`` and ``keep_alive`` messages of the SDK protocol. A line of another type
  is a warning naming the line.

Tokens: a line's usage is the one the API sent when the response started, so its input
counts (``input_tokens`` plus both cache counts; ``cache_read_input_tokens`` cached) are
the response's, but ``output_tokens`` is the count so far (1 to a few tokens) and the
lines have ``stop_reason: null``. A round's output tokens are therefore read only from
a line that carries a ``stop_reason`` (the response had ended when it was written),
else unknown (``None``); the reports estimate them from the text. The ``result`` line's
``usage`` is the run's total, output included (summed over the result lines of a file
that holds several runs of one session): ``trace.usage_total``.

Times: stream lines carry no timestamps, so rounds and results have no times; the
run's ``duration_ms`` is kept in the metadata.

Sub-agents (the ``Task`` / ``Agent`` tool): their lines carry the ``parent_tool_use_id``
of the call that started them. As the ``claude-code`` reader does with sidechains, each
sub-agent run is a trace of its own, ``<session_id>/<parent_tool_use_id>``, with
``parent_session``, ``parent_tool_use_id`` and, when a ``task_started`` line or the
``Task`` result's ``tool_use_result.agentId`` names it, ``agent_id`` in its metadata; the parent's trace keeps the call and the sub-agent's
answer as its result. Its user message is the prompt the parent gave it (its first user
line, else the call's ``prompt`` argument). Sub-agent runs end without a result line of
their own.

API errors: an assistant line the CLI makes up (``model: "<synthetic>"``, with
``isApiErrorMessage`` / ``is_api_error_message`` or an ``error``) is not a round; when no
real response follows it in its trace, its text is ``trace.error`` (``ending="error"``)
unless a result line says otherwise. A file may hold several sessions (each its own
trace); an ``init`` of a session already read, after its result line (``--resume``),
continues that trace with a new turn (with an empty user message: the prompt is not in
the stream).

Outcome: the stream carries no grade. Terminal-Bench's own harness (``tb run``, before
Harbor) keeps each trial as ``<trial>/results.json`` (``trial_name``, ``task_id``,
``is_resolved``, ``failure_mode``, ``parser_results``, token counts, times) with the agent's
stream in ``<trial>/sessions/``: a ``results.json`` of that shape beside the stream or one
folder up gives the main runs' outcome (``is_resolved`` true → success, false → failure,
null: the tests could not be parsed → none) and ``graded_by`` in the metadata; a
directory walk skips it. Sub-agent runs get none (the trial is graded, not they).
Otherwise only a labels file gives an outcome. Checked against the trials of
NJU-LINK/CodeTracer ``data/traj/claude_code/`` (corpus).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import orjson

from ..input.sources import Record
from ..model import Round, Trace, Usage
from .anthropic import CallTracker, conclude, content_blocks_text, finish_reason, usage_from
from .common import as_str, brief, finish_trace, make_trace
from .contract import ReadContext, first_item, read_with_reader

FORMAT = "claude-code-stream"
# A Terminal-Bench results.json is a few KB; a larger file is read no further than this.
_RESULT_LIMIT = 16 * 1024 * 1024

# Lines of the stream that are not part of the conversation (see the module docstring).
_NOT_CONVERSATION = frozenset(
    (
        "stream_event",
        "rate_limit_event",
        "subagent_token_usage",
        "tool_progress",
        "auth_status",
        "control_request",
        "control_response",
        "control_cancel_request",
        "keep_alive",
    )
)
_LIMITS = ("error_max_turns", "error_max_budget_usd")
_INIT_META = ("cwd", "model", "claude_code_version")
_RESULT_META = ("num_turns", "duration_ms", "duration_api_ms", "total_cost_usd")


def sniff(value: Any) -> bool:
    item = first_item(value)
    if not isinstance(item, dict) or "sessionId" in item or not isinstance(item.get("session_id"), str):
        return False  # session JSONL entries say "sessionId": the claude-code reader's
    kind = item.get("type")
    if kind == "system":
        return isinstance(item.get("subtype"), str) and "message" not in item
    return kind in ("assistant", "user") and isinstance(item.get("message"), dict)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


def is_terminal_bench_result(value: Any) -> bool:
    """A trial's ``results.json`` written by Terminal-Bench's own harness (the registry
    skips it in a directory walk; its ``is_resolved`` is the outcome of the stream beside
    it)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("trial_name"), str)
        and "is_resolved" in value
        and ("parser_results" in value or "failure_mode" in value)
    )


def terminal_bench_grade(ctx: ReadContext) -> tuple[str, str] | None:
    """``(outcome, path)`` from a Terminal-Bench ``results.json`` beside the stream or one
    folder up (the harness keeps the stream in ``<trial>/sessions/``); ``None`` when there
    is none, or when it holds no verdict (``is_resolved`` null)."""
    if ctx.file in ("", "-") or not os.path.isfile(ctx.file):
        return None  # standard input, a member of an archive: no folder to look in
    here = os.path.dirname(ctx.file) or "."
    for folder in (here, os.path.dirname(os.path.abspath(here))):
        path = os.path.join(folder, "results.json")
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as stream:
                result = orjson.loads(stream.read(_RESULT_LIMIT + 1))
        except (OSError, orjson.JSONDecodeError):
            continue  # not this harness's file (or unreadable): no verdict from it
        if not is_terminal_bench_result(result):
            continue
        resolved = result.get("is_resolved")
        if not isinstance(resolved, bool):
            return None
        return ("success" if resolved else "failure", path)
    return None


class _Run:
    """One trace being rebuilt: the main run of a session, or one sub-agent run."""

    __slots__ = ("trace", "calls", "rounds", "api_error", "results", "usage", "ending", "error", "prompt")

    def __init__(self, trace: Trace, ctx: ReadContext) -> None:
        self.trace = trace
        self.calls = CallTracker(trace, ctx, absent_is_false=True)
        self.rounds: dict[str, Round] = {}
        self.api_error: str | None = None
        self.results = 0  # result lines read
        self.usage: Usage | None = None  # the result lines' usage, summed
        self.ending: str | None = None  # as the last result line says
        self.error: str | None = None
        self.prompt: str | None = None  # a sub-agent's prompt, from its parent's call


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.base = os.path.basename(ctx.file) or ctx.file
        self.runs: dict[tuple[str | None, str | None], _Run] = {}
        self.session: str | None = None  # the session of the latest line that named one
        self.agents: dict[str, str] = {}  # parent tool_use id -> agent id (task_started)
        self.grade = terminal_bench_grade(ctx)  # (outcome, results.json) or None

    # routing --------------------------------------------------------------------------

    def record(self, value: Any, line: int) -> tuple[()]:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            self.ctx.warn(line, "JSON that is not a Claude Code stream message (an object with a 'type')")
            return ()
        kind = value["type"]
        if as_str(value.get("session_id")):
            self.session = value["session_id"]
        if kind == "system":
            self.system(value, line)
        elif kind in ("assistant", "user"):
            if not isinstance(value.get("message"), dict):
                self.ctx.warn(line, f"{kind} message without a 'message' object skipped")
                return ()
            run = self.run_of(as_str(value.get("parent_tool_use_id")), line)
            if kind == "assistant":
                self.assistant(run, value, line)
            else:
                self.user(run, value, line)
        elif kind == "result":
            self.result(self.run_of(None, line), value, line)
        elif kind not in _NOT_CONVERSATION:
            self.ctx.warn(line, f"Claude Code stream message of unknown type {brief(kind)} skipped")
        return ()

    def run_of(self, parent: str | None, line: int) -> _Run:
        key = (self.session, parent)
        run = self.runs.get(key)
        if run is None:
            run = self.runs[key] = self.new_run(parent, line)
        run.trace.end_line = line
        return run

    def new_run(self, parent: str | None, line: int) -> _Run:
        session = self.session
        trace_id = session if parent is None or session is None else f"{session}/{parent}"
        if parent is not None and session is None:
            trace_id = f"{self.base}/{parent}"
        run = _Run(make_trace(trace_id, FORMAT, self.ctx.file, self.base, line), self.ctx)
        if parent is not None:
            meta = run.trace.metadata
            if session is not None:
                meta["parent_session"] = session
            meta["parent_tool_use_id"] = parent
            if parent in self.agents:
                meta["agent_id"] = self.agents[parent]
            main = self.runs.get((session, None))
            pending = main.calls.pending.get(parent) if main is not None else None
            arguments = pending[0].arguments if pending is not None else None
            if isinstance(arguments, dict) and as_str(arguments.get("prompt")):
                run.prompt = arguments["prompt"]
        return run

    # lines ------------------------------------------------------------------------------

    def system(self, value: dict, line: int) -> None:
        subtype = value.get("subtype")
        if subtype == "task_started" and as_str(value.get("tool_use_id")) and as_str(value.get("task_id")):
            self.agents[value["tool_use_id"]] = value["task_id"]
            sub = self.runs.get((self.session, value["tool_use_id"]))
            if sub is not None:
                sub.trace.metadata["agent_id"] = value["task_id"]
        if subtype != "init":
            return
        known = (self.session, None) in self.runs
        run = self.run_of(None, line)
        if known and run.results:
            run.trace.add_user_message("", line=line)  # a resumed session: its next turn
            run.ending = run.error = None
        meta = run.trace.metadata
        for name in _INIT_META:
            if as_str(value.get(name)) and name not in meta:
                meta[name] = value[name]

    def assistant(self, run: _Run, value: dict, line: int) -> None:
        message = value["message"]
        flagged = any(value.get(k) is True for k in ("isApiErrorMessage", "is_api_error_message"))
        if flagged or message.get("model") == "<synthetic>":
            if flagged or value.get("error") is not None:
                text = content_blocks_text(message.get("content")).strip()
                run.api_error = text or as_str(value.get("error")) or "API error"
            return  # written by the CLI, not by the model
        if run.prompt is not None and not run.trace.user_messages and not run.trace.rounds:
            run.trace.add_user_message(run.prompt, line=run.trace.line)
        run.prompt = None
        group = as_str(message.get("id")) or f"line {line}"
        rnd = run.rounds.get(group)
        if rnd is None:
            rnd = Round(index=len(run.trace.rounds) + 1, line=line, id=as_str(message.get("id")), model=as_str(message.get("model")))
            run.rounds[group] = rnd
            run.trace.rounds.append(rnd)
        usage = usage_from(message.get("usage"), run.calls.warner(line))
        reason = finish_reason(message.get("stop_reason"))
        if usage is not None:
            if reason is not None:
                rnd.usage = usage  # written after the response ended: its final counts
            elif rnd.usage is None or rnd.usage.output_tokens is None:
                usage.output_tokens = None  # the count when the response started
                rnd.usage = usage
        if reason is not None:
            rnd.finish_reason = reason
        run.calls.assistant_blocks(rnd, message.get("content"), line)
        run.api_error = None  # a real response came after any earlier API error

    def user(self, run: _Run, value: dict, line: int) -> None:
        content = value["message"].get("content")
        speaks = value.get("isSynthetic") is not True and value.get("isMeta") is not True
        if speaks and run.prompt is not None:
            run.prompt = None  # the sub-agent's prompt is on the stream
        run.calls.user_message(content, line, speaks=speaks)
        detail = value.get("tool_use_result")
        agent = as_str(detail.get("agentId")) if isinstance(detail, dict) else None
        for block in content if agent is not None and isinstance(content, list) else ():
            sub = self.runs.get((self.session, block.get("tool_use_id"))) if isinstance(block, dict) else None
            if sub is not None:
                sub.trace.metadata.setdefault("agent_id", agent)  # the Task result names its agent

    def result(self, run: _Run, value: dict, line: int) -> None:
        run.results += 1
        usage = usage_from(value.get("usage"), run.calls.warner(line))
        if usage is not None:
            run.usage = usage if run.usage is None else _added(run.usage, usage)
        meta = run.trace.metadata
        for name in _RESULT_META:
            number = value.get(name)
            if isinstance(number, (int, float)) and not isinstance(number, bool):
                meta[name] = number
            elif number is not None:
                run.calls.warn(line, f"result {name} {brief(number)} is not a number; ignored")
        subtype = as_str(value.get("subtype"))
        if subtype is not None:
            meta["result_subtype"] = subtype
        run.ending, run.error = _ending(value, subtype)

    # end of file --------------------------------------------------------------------------

    def close(self) -> Iterator[Trace]:
        runs = sorted(self.runs.values(), key=lambda r: r.trace.line or 0)
        self.runs.clear()
        for run in runs:
            trace = run.trace
            if run.prompt is not None and not trace.user_messages:
                trace.add_user_message(run.prompt, line=trace.line)
            main = "parent_tool_use_id" not in trace.metadata
            if main and not run.results and trace.rounds:
                self.ctx.warn(trace.end_line, f"trace {trace.id}: no result line: the stream ends before the run did")
            trace.usage_total = run.usage
            run.calls.settle()
            if run.ending is not None:
                trace.error, trace.ending = run.error, run.ending
            elif not run.results and run.api_error is not None:
                trace.error = run.api_error  # no response and no result line came after it
            if trace.ending is None:
                conclude(trace)
            if main and self.grade is not None:
                trace.labels["outcome"], trace.metadata["graded_by"] = self.grade
            yield finish_trace(trace, self.ctx.diagnostics)


def _ending(value: dict, subtype: str | None) -> tuple[str | None, str | None]:
    """(ending, error) a result line gives (see the module docstring)."""
    failed = value.get("is_error") is True
    if subtype == "success" and not failed:
        return None, None
    if subtype in _LIMITS:
        turns = value.get("num_turns")
        after = f" after {turns} turns" if isinstance(turns, int) and not isinstance(turns, bool) else ""
        return "limit", f"{subtype}{after}"
    if subtype is None and not failed:
        return None, None
    errors = [e for e in value.get("errors") or () if isinstance(e, str) and e.strip()] if isinstance(value.get("errors"), list) else []
    text = "; ".join(e.strip() for e in errors) or (as_str(value.get("result")) or "").strip()
    return "error", text or subtype or "error"


def _added(a: Usage, b: Usage) -> Usage:
    def plus(x: int | None, y: int | None) -> int | None:
        return None if x is None and y is None else (x or 0) + (y or 0)

    return Usage(plus(a.input_tokens, b.input_tokens), plus(a.output_tokens, b.output_tokens), plus(a.cached_tokens, b.cached_tokens), None)
