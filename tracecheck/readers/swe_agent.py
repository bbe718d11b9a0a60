"""SWE-agent ``.traj`` trajectories (one JSON document per file).

Checked against SWE-agent 0.7 (text actions) and 1.0 to 1.1 (function calling)
trajectories (hand-made fixtures) and a real function-calling ``.traj`` in the 1.x shape
from SWE-agent's repository (``tests/corpus/SWE-agent/``; it records no version).

A ``.traj`` holds ``trajectory[]`` (one step per executed action: ``action``,
``observation``, ``response``, ``thought``, ``execution_time``, ``state``, maybe
``query``), ``history[]`` (the messages the model saw: ``role``, ``content``,
``agent``, ``message_type``, and in the function-calling variant assistant
``tool_calls`` plus tool messages with a *list* ``tool_call_ids``), ``info``
(``exit_status``, ``submission``, ``model_stats``) and ``replay_config``. A ``.traj``
saved with its ``history`` and ``info`` but no ``trajectory`` list is read from the
history alone.

Rounds (one per model response):

- **function-calling variant** (some assistant history message has ``tool_calls``):
  one round per assistant history message; its ``tool_calls`` are the calls; a tool
  message answers the calls named in its ``tool_call_ids`` (SWE-agent reuses call
  ids across rounds, so an id names the most recent open call). A user
  ``observation`` message right after a round whose calls are still open answers
  them in order. Demonstration messages (``is_demo``) are skipped.
- **text-action variant** with a trajectory: one round per trajectory step; the
  step's ``response`` is the round text; its ``action`` is one call whose name is the
  command's first word (``edit``, ``open``, ``python``, ``submit``, ...) and whose
  arguments are the rest of the command as plain text (no JSON, no parse error); the
  result is the step's ``observation``. A step without an action (a format error SWE-agent
  re-queried) is a round without calls.
- **text-action variant without a trajectory**: one round per assistant history
  message (its ``content`` is the text, its ``action`` the call, read as above); the
  user message after it is the observation (0.x writes no ``message_type``; 1.x
  writes ``observation``). Re-queried responses are not in the history, so they are
  not rounds here.
- A step or message that SWE-agent wrote itself when it stopped the run
  ("Exit due to cost limit", ...; no action, no tool call) is no model response:
  it is left out and its text goes into ``trace.error``.
- **submit**: the ``submit`` call of the last round of a run whose exit status is
  ``submitted`` ended the run with its answer (the patch). That round is a final
  answer (no tool calls, so guards see the run as answered); the patch goes into
  ``trace.metadata["submission"]``. A ``submit`` the run went on after (a review
  step) stays a call.

User turn: the first user message of the history before the model's first response
(the issue, SWE-agent's instance message) is the task and opens the one turn; every
later user message is an observation, a result.

Errors: SWE-agent records no error signal for an action: a trajectory step holds the
action, the observation text, the response, the thought, the state, the execution
time (and ``query``/``extra_info``), but no exit code, and the history messages carry
none either. ``is_error`` is ``None`` for every result; the guards judge results by
their text ("Your proposed edit has introduced new syntax error(s)", tracebacks).

No timestamps: rounds and results have no times. Per-step ``execution_time`` cannot
be placed in time, so only its sum is kept, as ``trace.metadata["tool_seconds"]``.

Usage: ``info.model_stats`` is a run total only: ``trace.usage_total`` with input =
``tokens_sent`` and output = ``tokens_received``; rounds have ``None``. When both are 0
although the run made API calls (replayed runs, models without token accounting),
the numbers were not counted, and the total is unknown (``None``). ``model_stats`` is
also kept as ``trace.metadata["model_stats"]``.

Ending from ``info.exit_status`` (also kept as the label ``exit_status``):

- ``submitted``: the agent submitted its patch → ``ending="submitted"``;
- ``exit_cost``, ``exit_context``, ``exit_total_execution_time`` (a cost, context or
  time limit), also as ``submitted (exit_cost)`` and the like, where SWE-agent
  submitted the patch as it stood → ``ending="limit"`` and ``trace.error``;
- any other status (``exit_format``, ``exit_error``, ``exit_command``,
  ``exit_command_timeout``, ``exit_forfeit``, ``early_exit``, ...; autosubmitted or
  not) → ``ending="error"`` and ``trace.error``;
- no status (a run saved while still going, or a history saved without ``info``) →
  ``submitted`` when its last round is a lone ``submit``, else ``answered`` when the
  last round has no tool calls, else unknown.

Outcome: a ``.traj`` holds no grade. Whether the patch resolves the issue is decided
by the SWE-bench harness, not by the agent's submitting it: the outcome comes only
from a SWE-bench report beside the trajectory that names the instance (see
``graders.py``: ``report.json`` / ``results.json`` in the trajectory's folder or one
up; the file is kept as ``trace.metadata["graded_by"]``), else from a labels file;
otherwise it is unknown, whatever the exit status.

Trace id: ``replay_config.problem_statement.id`` (the instance id), else the file
name without ``.traj``/``.json`` and compression suffixes (in a file of several
trajectories, that name and their content: ``<stem>:<12 hex digits>``, ``identity.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, read_documents
from .graders import swe_bench_verdict
from .common import (
    Counts,
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
    make_usage,
    new_call,
    scalar_text,
)

FORMAT = "swe-agent"

# What SWE-agent writes as the "response" of the step it adds when it stops a run
# (handle_error_with_autosubmission); no model produced it.
_HARNESS_EXIT_PREFIXES = ("Exit due to ", "Exiting due to ")


def sniff(value: Any) -> bool:
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


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_documents(records, ctx, _read_document)


# --- helpers ---------------------------------------------------------------------------


def _replay_config(value: Any) -> dict:
    # Newer SWE-agent stores it as a JSON string (model_dump_json), older as an object.
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return as_dict(value)


def _is_harness_exit(text: Any, action: Any, has_calls: bool) -> bool:
    return (
        not has_calls
        and not (isinstance(action, str) and action.strip())
        and isinstance(text, str)
        and text.startswith(_HARNESS_EXIT_PREFIXES)
    )


def _text_call(action: str) -> ToolCall:
    """A text command as a call: first word is the tool, the rest its raw input."""
    command = action.strip()
    parts = command.split(None, 1)
    name = parts[0] if parts else ""
    rest = parts[1].strip() if len(parts) > 1 else ""
    return ToolCall(id="", name=name, arguments_raw=rest, arguments=rest)


# --- the two variants -------------------------------------------------------------------


def _is_function_calling(history: list) -> bool:
    return any(
        isinstance(m, dict) and m.get("role") == "assistant" and not m.get("is_demo") and as_list(m.get("tool_calls"))
        for m in history
    )


def _rounds_from_history(trace: Trace, history: list, line: int, ctx: ReadContext) -> str | None:
    """Rounds of the function-calling variant; returns the harness's exit message, if any."""
    pending: dict[str, ToolCall] = {}
    open_round: list[ToolCall] = []  # calls of the last round not answered yet, in order
    harness_exit = None
    for k, msg in enumerate(history, 1):
        if not isinstance(msg, dict):
            ctx.warn(line, f"trace {trace.id}: history item {k} is not an object")
            continue
        if msg.get("is_demo"):
            continue
        role = msg.get("role")
        if role == "assistant":
            specs = [s for s in as_list(msg.get("tool_calls")) if isinstance(s, dict)]
            content = msg.get("content")
            if _is_harness_exit(content, msg.get("action"), bool(specs)):
                harness_exit = content
                open_round = []
                continue
            rnd = Round(index=0, text=content_text(content), line=line)
            for spec in specs:
                function = as_dict(spec.get("function"))
                call = new_call(spec.get("id"), function.get("name"), function.get("arguments"))
                if call.id:
                    pending[call.id] = call  # ids recur across rounds: the latest open call wins
                rnd.tool_calls.append(call)
            if not specs and as_str(msg.get("action")) and msg["action"].strip():
                rnd.tool_calls.append(_text_call(msg["action"]))
            open_round = list(rnd.tool_calls)
            trace.rounds.append(rnd)
        elif role == "tool":
            ids = msg.get("tool_call_ids")
            if isinstance(ids, str):
                ids = [ids]
            if not isinstance(ids, list) or not ids:
                single = msg.get("tool_call_id")
                ids = [single] if single else []
            content = content_text(msg.get("content"))
            if not ids:
                # No ids: answer the last round's open calls in order.
                if open_round:
                    call = open_round.pop(0)
                    call.result = ToolResult(content=content, line=line)
                    pending.pop(call.id, None)
                else:
                    ctx.warn(line, f"trace {trace.id}: tool message {k} answers no open call")
                continue
            for call_id in ids:
                call = pending.pop(scalar_text(call_id), None)
                if call is None:
                    ctx.warn(line, f"trace {trace.id}: tool result for unknown call id {brief(scalar_text(call_id))}")
                    continue
                call.result = ToolResult(content=content, line=line)
                open_round = [c for c in open_round if c is not call]
        elif role == "user" and msg.get("message_type") in (None, "observation") and open_round:
            # An observation without tool_call_ids (0.x writes no message_type) still
            # answers the open calls, in order.
            call = open_round.pop(0)
            call.result = ToolResult(content=content_text(msg.get("content")), line=line)
            pending.pop(call.id, None)
        # system prompt, the instance message, demonstrations: no round.
    return harness_exit


def _rounds_from_trajectory(trace: Trace, steps: list, line: int, ctx: ReadContext) -> str | None:
    """Rounds of the text-action variant; returns the harness's exit message, if any."""
    harness_exit = None
    for k, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            ctx.warn(line, f"trace {trace.id}: trajectory step {k} is not an object")
            continue
        action = step.get("action")
        response = step.get("response")
        text = response if isinstance(response, str) else step.get("thought")
        if _is_harness_exit(text, action, False):
            harness_exit = text
            continue
        rnd = Round(index=0, text=content_text(text), line=line)
        if isinstance(action, str) and action.strip():
            call = _text_call(action)
            observation = step.get("observation")
            call.result = ToolResult(content=content_text(observation), line=line)
            rnd.tool_calls.append(call)
        trace.rounds.append(rnd)
    return harness_exit


# --- the document --------------------------------------------------------------------------


def _model_stats_usage(stats: dict, n_rounds: int, warn: Warn):
    counts = Counts(stats, warn, "info.model_stats")
    sent, received = counts.get("tokens_sent"), counts.get("tokens_received")
    calls = as_int(stats.get("api_calls")) or 0
    if not sent and not received and (calls > 0 or n_rounds > 0):
        return None  # 0 tokens for real API calls: not counted, not zero
    return make_usage(sent, received)


def _task(history: list) -> str | None:
    """The instance message: the first user message before the model's first response
    (demonstrations left out)."""
    for msg in history:
        if not isinstance(msg, dict) or msg.get("is_demo"):
            continue
        if msg.get("role") == "assistant":
            return None
        if msg.get("role") == "user":
            return content_text(msg.get("content"))
    return None


def _read_document(value: Any, line: int, ctx: ReadContext, first: bool) -> Trace | None:
    steps = value.get("trajectory") if isinstance(value, dict) else None
    if steps is None and isinstance(value, dict) and isinstance(value.get("history"), list):
        steps = []  # a .traj that keeps only the history (and info)
    if not isinstance(steps, list):
        ctx.warn(line, "JSON that is not a SWE-agent trajectory (no 'trajectory' or 'history' list)")
        return None
    info = as_dict(value.get("info"))
    config = _replay_config(value.get("replay_config"))
    trace = make_trace(as_str(as_dict(config.get("problem_statement")).get("id")), FORMAT, ctx.file, file_stem(ctx.file), line)
    if first and trace.id_base is not None:
        trace.id = trace.id_base  # named after its file while no other trace joins it

    history = value.get("history")
    if history is not None and not isinstance(history, list):
        ctx.warn(line, f"trace {trace.id}: 'history' is not a list; reading the trajectory")
        history = None
    task = _task(history) if history else None
    if task is not None:
        trace.add_user_message(task, line=line)  # the issue: the one turn's user message
    if history and (_is_function_calling(history) or not steps):
        harness_exit = _rounds_from_history(trace, history, line, ctx)
    else:
        harness_exit = _rounds_from_trajectory(trace, steps, line, ctx)

    seconds = [s.get("execution_time") for s in steps if isinstance(s, dict)]
    seconds = [float(s) for s in seconds if isinstance(s, (int, float)) and not isinstance(s, bool)]
    if seconds:
        trace.metadata["tool_seconds"] = round(sum(seconds), 6)

    model_config = as_dict(as_dict(config.get("agent")).get("model"))
    model = as_str(model_config.get("name")) or as_str(model_config.get("model_name"))  # 1.x / 0.x
    if model:
        trace.metadata["model"] = model
    stats = as_dict(info.get("model_stats"))
    if stats:
        trace.metadata["model_stats"] = stats
        trace.usage_total = _model_stats_usage(stats, len(trace.rounds), lambda reason: ctx.warn(line, f"trace {trace.id}: {reason}"))

    status = as_str(info.get("exit_status"))
    if status is not None:
        trace.labels["exit_status"] = status
    _apply_ending(trace, status, info, harness_exit)
    grade = swe_bench_verdict(ctx, trace.id)
    if grade is not None:
        trace.labels["outcome"], trace.metadata["graded_by"] = grade
    return finish_trace(trace, ctx.diagnostics)


# Exit statuses of the limits SWE-agent enforces (cost, context window, wall time).
_LIMIT_STATUSES = ("exit_cost", "exit_context", "exit_total_execution_time")


def _apply_ending(trace: Trace, status: str | None, info: dict, harness_exit: str | None) -> None:
    submitted = status == "submitted"
    last = trace.rounds[-1] if trace.rounds else None
    if (
        last is not None
        and (submitted or status is None)
        and len(last.tool_calls) == 1
        and last.tool_calls[0].name == "submit"
    ):
        # The submit that ended the run is its answer, not one more tool step.
        call = last.tool_calls.pop()
        patch = as_str(info.get("submission")) or (call.result.content if call.result else None)
        if patch:
            trace.metadata["submission"] = patch
        trace.ending = "submitted"
    elif submitted and as_str(info.get("submission")):
        trace.metadata["submission"] = info["submission"]
    if status is None:
        return
    if submitted:
        # Submitting is how the run ended, not a verdict: only a grader says resolved.
        trace.ending = "submitted"
        return
    # "submitted (exit_cost)": the harness submitted after the limit stopped the model.
    cause = status[len("submitted (") : -1] if status.startswith("submitted (") and status.endswith(")") else status
    trace.ending = "limit" if cause in _LIMIT_STATUSES else "error"
    trace.error = f"{harness_exit} [{status}]" if harness_exit else status
