"""Who&When failure-attribution runs: one JSON document per run, as the dataset of "Which
Agent Causes Task Failures and When?" (ICML 2025) publishes them in ``Who&When/
Algorithm-Generated/<n>.json`` and ``Who&When/Hand-Crafted/<n>.json``.

Followed from the files themselves (ag2ai/Agents_Failure_Attribution, 2025): a document is
``{"history": [...], "question", "ground_truth", "question_ID", "level", "mistake_agent",
"mistake_step", "mistake_reason"}``, plus ``"is_correct"`` and ``"system_prompt"`` (one
prompt per agent) in the algorithm-generated set, ``"is_corrected"`` (sic) and sometimes
``"mistake_type"`` in the hand-crafted set. The history comes in two shapes:

**Algorithm-generated** (CaptainAgent's AG2 group chats of experts on GAIA and
AssistantBench): ``{content, role, name}`` messages, the AG2 group-chat history that the
``autogen`` reader reads, with what a Who&When team adds:

- The first message is the task (a user message): the manager's brief to the team, sent
  under the first expert's name. It often ends with code "from the last response", which
  the executor runs at once; that execution answers no model response of this run, so its
  output is a user message too (part of the task's turn).
- Every later message of a speaker that is not the executor is one round (one model
  response of that expert), its content the round's text.
- The executor (the speaker of ``exitcode: N (execution succeeded|failed)`` replies,
  ``Computer_terminal`` in the dataset) answers the fenced code blocks of the message before
  it: that reply is the result of one call ``execute_code`` made by that round (arguments:
  the blocks), ``is_error`` when ``N != 0``, as in the ``autogen`` reader. The executor's
  other messages, and AG2's canned notice "There is no code from the last N message for me
  to execute ..." from whoever sends it (the executor speaks no other way), are neither a
  model response nor a result: they are skipped.

**Hand-crafted** (Magentic-One on GAIA and AssistantBench): ``{content, role}`` messages
whose ``role`` is the Magentic-One log's source (``human``, ``Orchestrator (thought)``,
``Orchestrator (-> WebSurfer)``, ``WebSurfer``, ``Orchestrator (termination
condition)`` ...), read as the ``magentic-one`` reader reads those sources: the human's
message is the task; each ``<orchestrator> (-> <agent>)`` instruction is one round, a call
whose tool is the agent, ``{"instruction": ...}``, answered by that agent's next message
(WebSurfer's page, the Coder's reply, ComputerTerminal's output; no error flag); the
orchestrator's thoughts since its last round are the round's text; ``Max rounds`` / ``Max
time`` end the run by a limit. The dataset's histories leave some agent replies out (an
instruction followed by the next instruction): such a call has no result, and their number
goes to ``trace.metadata["unanswered_instructions"]`` (no warning: every hand-crafted run
has some, and it is the dataset's cut, not a damaged file).

Both: no tokens and no times (the files carry none). Outcome: the dataset's own grade,
``is_correct`` (``is_corrected`` in the hand-crafted set): ``false`` is a failure (every run
of the dataset is one), ``true`` a success. ``question``, ``ground_truth``,
``question_ID``, ``level`` and the dataset's attribution (``mistake_agent``,
``mistake_step``, ``mistake_reason``, ``mistake_type``: the agent and step the annotators
blame, not a loop label) go to ``trace.metadata``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Trace
from .autogen import EXECUTION_REPLY as _EXITCODE
from .autogen import Ag2History as _Ag2
from .common import as_str, brief, content_text, finish_trace, make_trace, scalar_text
from .contract import ReadContext, read_documents
from .magentic_one import ORCHESTRATOR_SOURCE as _ORCHESTRATOR_SOURCE
from .magentic_one import LogReader as _MagenticReader

FORMAT = "who-and-when"

# What the dataset writes beside the history (one of them is enough with a question).
_RUN_KEYS = ("mistake_agent", "mistake_step", "mistake_reason", "is_correct", "is_corrected", "ground_truth")
_METADATA_KEYS = ("question", "ground_truth", "question_ID", "level", "mistake_agent", "mistake_step", "mistake_reason", "mistake_type")
_LOOKAHEAD = 50
# What AG2's executor answers in a group chat when the messages before it hold no code.
_NO_CODE = re.compile(r"^There is no code from the last \d+ messages? for me to execute\.")


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str) and "content" in value


def sniff(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    history = value.get("history")
    if not isinstance(history, list) or not history or not all(_is_message(m) for m in history[:_LOOKAHEAD]):
        return False
    return "question" in value and any(key in value for key in _RUN_KEYS)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_documents(records, ctx, _read_document)


def _read_document(value: Any, line: int, ctx: ReadContext, first: bool) -> Trace | None:
    if not sniff(value):
        ctx.warn(line, f"not a Who&When run ({brief(value)}); skipped")
        return None
    trace = make_trace(None, FORMAT, ctx.file, os.path.basename(ctx.file) or ctx.file, line)
    history = value["history"]
    if any(_ORCHESTRATOR_SOURCE.match(m["role"]) for m in history if _is_message(m)):
        trace = _read_magentic(history, trace, line, ctx)
    else:
        trace = _read_ag2(history, trace, line, ctx)
    for key in _METADATA_KEYS:
        if key in value and value[key] is not None:
            trace.metadata[key] = scalar_text(value[key])
    grade = value.get("is_correct", value.get("is_corrected"))
    if isinstance(grade, bool):
        trace.labels["outcome"] = "success" if grade else "failure"
    elif grade is not None:
        ctx.warn(line, f"trace {trace.id}: is_correct {brief(grade)} is not true or false; outcome unknown")
    return trace


def _read_ag2(history: list, trace: Trace, line: int, ctx: ReadContext) -> Trace:
    executors = {as_str(m.get("name")) for m in history if _is_message(m) and isinstance(m.get("content"), str) and _EXITCODE.match(m["content"])}
    executors.discard(None)
    reader = _Ag2(ctx, trace)
    for position, message in enumerate(history):
        if position == 0 or not _is_message(message):
            reader.message(message, line, position)
            continue
        text = message.get("content")
        is_exit = isinstance(text, str) and _EXITCODE.match(text) is not None
        if is_exit and reader.last_speaker_round is None:
            trace.add_user_message(content_text(text), line=line)  # the task's own code, run
        elif not is_exit and (as_str(message.get("name")) in executors or (isinstance(text, str) and _NO_CODE.match(text))):
            continue  # the executor's "no code to execute" notice
        else:
            reader.message(message, line, position)
    return reader.finish()


def _read_magentic(history: list, trace: Trace, line: int, ctx: ReadContext) -> Trace:
    reader = _MagenticReader(ctx)
    reader.trace = trace
    for position, message in enumerate(history):
        where = f" (message {position})"
        if not _is_message(message):
            ctx.warn(line, f"message {brief(message)} is not a {{role, content}} object{where}; skipped")
            continue
        role = _ORCHESTRATOR_SOURCE.match(message["role"])
        if role is not None and role.group(2).startswith("-> "):
            reader.waiting.pop(role.group(2)[3:], None)  # the reply the history leaves out
        reader.on_entry({"source": message["role"], "message": message.get("content")}, line, where)
    for rnd in trace.rounds:
        rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
    if reader.speakers:
        trace.metadata["speakers"] = reader.speakers
    unanswered = sum(1 for rnd in trace.rounds for call in rnd.tool_calls if call.result is None)
    if unanswered:
        trace.metadata["unanswered_instructions"] = unanswered
    if trace.error is not None and trace.ending is None:
        trace.ending = "error"
    return finish_trace(trace, ctx.diagnostics, warn_missing_results=False)


__all__ = ["FORMAT", "read", "sniff"]
