"""Chat transcripts whose tool calls are XML in the assistant's text, as SWE-smith writes
SWE-agent trajectories for fine-tuning (``collect_trajs`` with the ``xml`` style).

Shapes: one JSON object per line ``{messages, instance_id?, resolved?, model?, traj_id?,
patch?}`` (SWE-smith's JSON Lines), or a JSON list of such objects; each object is one
trace. Messages are OpenAI-style ``{role, content}`` with roles ``system``, ``user`` and
``assistant`` (a ``tool`` role, which SWE-smith rewrites to ``user``, reads the same).
Content may also be a list of text parts.

Rounds: each assistant message is one round. Every block
``<function=NAME>`` … ``</function>`` in its text is a call named NAME whose arguments
are its ``<parameter=KEY>VALUE</parameter>`` pairs as a JSON object of strings, each
value stripped of surrounding whitespace (SWE-agent's XML parser strips them before it
runs the command; SWE-smith writes long values on lines of their own). The round's text
is what is left outside the blocks (SWE-agent's "thought"). A response without a block
is a round without calls.

Results: the message after a round with calls answers them, in order, one message per
call (SWE-agent runs one call per step). Its ``OBSERVATION:`` label (SWE-agent's
observation template) is taken off; other texts ("Your command ran successfully and did
not produce any output.", the review SWE-agent shows after the first ``submit``) are
results as they are. Such a message is never a conversation turn.

User turns: any other user message is what the user said: the first one is the task
and opens turn 1; a later one opens a new turn. A message starting ``OBSERVATION:``
that answers no call is reported and left out (it is no user turn either).

Errors: nothing in these transcripts says whether a command failed (SWE-agent records
no exit code, and SWE-smith keeps only the texts), so ``is_error`` is ``None`` and the
guards judge results by their text.

Final answer: when the last round's only call is ``submit`` (or ``finish``, which
SWE-agent's parser reads as ``submit``), that submission ended the run: the round is a
final answer without calls. A ``submit`` the run went on after (SWE-agent asks for a
review first) stays a call. The object's ``patch`` is kept as
``trace.metadata["submission"]``.

Ending: ``submitted`` when that submit ended the run; else ``answered`` when the last
round has no tool calls; else unknown (the record holds no exit status).

Outcome, only from a grader: ``resolved`` (the SWE-bench evaluation of the patch,
written into the record) → ``success`` / ``failure``; without it, a SWE-bench/SWE-smith
report beside the file that names the record's ``instance_id`` (see ``graders.py``);
else no outcome. ``model`` is kept as ``trace.metadata["model"]``.
No usage and no times: the format has neither.

Trace id: ``traj_id`` (unique per trajectory), else ``instance_id``, else the file name
stem; in a file of several records, that stem and the record's content
(``<stem>:<12 hex digits>``, ``identity.py``), never its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item
from .graders import swe_bench_verdict
from .common import (
    as_str,
    as_str_or_int,
    brief,
    content_text,
    failure,
    file_stem,
    finish_trace,
    new_call,
)

FORMAT = "swe-smith"

# SWE-agent's XML function-call syntax: a function block with parameters inside.
_FUNCTION = re.compile(r"<function=([^>\n]+)>(.*?)</function>", re.S)
_PARAMETER = re.compile(r"<parameter=([^>\n]+)>(.*?)</parameter>", re.S)
_OBSERVATION_LABEL = re.compile(r"\AOBSERVATION:[ \t]*\n?")
_SUBMIT_NAMES = ("submit", "finish")


def sniff(value: Any) -> bool:
    item = first_item(value)
    messages = item.get("messages") if isinstance(item, dict) else None
    if not isinstance(messages, list):
        return False
    # An assistant text with an XML function call (SWE-agent's <function=NAME> syntax).
    for message in messages[:8]:
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, str) and "<function=" in content and "</function>" in content:
                return True
    return False


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    first = True
    for record in records:
        value, line = record.value, record.line
        try:
            stem = file_stem(ctx.file)
            place = stem if first else f"{stem}:{line}"
            if isinstance(value, dict):
                documents = [(value, place)]
            elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                documents = [(v, f"{place}#{k}") for k, v in enumerate(value)]
            else:
                ctx.warn(line, "JSON that is not a chat transcript object (no 'messages' list)")
                continue
            for document, document_place in documents:
                trace = _read_document(document, line, ctx, document_place)
                if trace is not None:
                    first = False
                    yield trace
        except Exception as exc:  # one odd record must not cost the rest
            ctx.warn(line, f"could not read this record ({failure(exc)})")


def parse_function_calls(text: str) -> tuple[str, list[tuple[str, dict[str, str]]]]:
    """(the text outside the function blocks, [(name, parameters), ...]) of a response."""
    calls = []
    for block in _FUNCTION.finditer(text):
        parameters = {key.strip(): value.strip() for key, value in _PARAMETER.findall(block.group(2))}
        calls.append((block.group(1).strip(), parameters))
    return _FUNCTION.sub("", text).strip(), calls


def _read_document(document: dict, line: int, ctx: ReadContext, place: str) -> Trace | None:
    messages = document.get("messages")
    if not isinstance(messages, list):
        ctx.warn(line, "JSON that is not a chat transcript object (no 'messages' list)")
        return None
    own_id = as_str_or_int(document.get("traj_id")) or as_str_or_int(document.get("instance_id"))
    trace = Trace(id=own_id or place, format=FORMAT, file=ctx.file, line=line, end_line=line)
    if own_id is None:
        trace.id_base = file_stem(ctx.file)  # named by its place until ``identity`` settles it
    trace_id = trace.id
    open_calls: list[ToolCall] = []  # calls of the last round still waiting for their result
    for k, msg in enumerate(messages, 1):
        if not isinstance(msg, dict):
            ctx.warn(line, f"trace {trace_id}: message {k} is not an object")
            continue
        role = msg.get("role")
        text = content_text(msg.get("content"))
        if role == "assistant":
            thought, calls = parse_function_calls(text)
            rnd = Round(index=0, text=thought, line=line)
            rnd.tool_calls = [new_call(None, name, parameters) for name, parameters in calls]
            trace.rounds.append(rnd)
            open_calls = list(rnd.tool_calls)
        elif role in ("user", "tool"):
            if open_calls:
                call = open_calls.pop(0)
                call.result = ToolResult(content=_OBSERVATION_LABEL.sub("", text, count=1), line=line)
            elif _OBSERVATION_LABEL.match(text) or role == "tool":
                ctx.warn(line, f"trace {trace_id}: message {k} is an observation that answers no call")
            else:
                trace.add_user_message(text, line=line)
        elif role != "system":
            ctx.warn(line, f"trace {trace_id}: message {k} has an unknown role {brief(role)}")

    if _final_answer(trace):
        trace.ending = "submitted"
    patch = as_str(document.get("patch"))
    if patch:
        trace.metadata["submission"] = patch
    model = as_str(document.get("model"))
    if model:
        trace.metadata["model"] = model
    resolved = document.get("resolved")
    if isinstance(resolved, bool):  # the SWE-bench evaluation's verdict, kept in the record
        trace.labels["outcome"] = "success" if resolved else "failure"
    else:
        instance_id = as_str(document.get("instance_id"))
        grade = swe_bench_verdict(ctx, instance_id) if instance_id else None
        if grade is not None:
            trace.labels["outcome"], trace.metadata["graded_by"] = grade
    return finish_trace(trace, ctx.diagnostics)


def _final_answer(trace: Trace) -> bool:
    """The submit that ended the run is its answer, not one more tool step."""
    last = trace.rounds[-1] if trace.rounds else None
    if last is not None and len(last.tool_calls) == 1 and last.tool_calls[0].name in _SUBMIT_NAMES:
        last.tool_calls = []
        return True
    return False
