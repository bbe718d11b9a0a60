"""Inspect AI eval logs: the ``.json`` log and the zipped ``.eval`` log.

Checked against a real Inspect AI 0.3.95 (dev build) log, log ``version`` 2
(``tests/corpus/inspect_ai/``), and 0.3.104 ``.json`` / ``.eval`` logs (hand-made
fixtures).

Layouts read:

- ``.json``: one document ``{version, status, eval: {task, model, ...}, plan, results,
  stats: {model_usage}, samples: [...], reductions}``;
- ``.eval``: a ZIP archive with ``header.json`` (the same document without samples;
  ``_journal/start.json`` stands in for it while a run is still going) and one
  ``samples/<id>_epoch_<n>.json`` member per sample. Members are read one at a time,
  in (epoch, id) order, so memory grows with the largest sample, not the archive.
  A member that cannot be decompressed or parsed is reported and skipped.

One trace per sample, id ``<task>/<sample id>/<epoch>``. ``trace.line`` is the line
of the document (1 for both layouts); warnings about an ``.eval`` member name it.

Rounds come from the sample's ``events`` when it has ``model`` events: one round per
model event (model calls made by scorers, i.e. inside a ``scorer`` span or step, are
not part of the run and are left out; a model event without output, i.e. a failed
or still pending call, is no round). The round's text, calls (``function`` = name,
``arguments`` = an object, ``parse_error`` = the model's bad JSON) and
``stop_reason`` come from ``output.choices[0].message``; its usage from
``output.usage``. Times: Inspect stamps a model event when the call starts
(``timestamp``) and records ``completed`` when it returns, so ``started_at`` =
``timestamp`` and ``ended_at`` = ``completed``, else ``timestamp`` + ``working_time``
(or ``output.time``, the request's duration). Results come from ``tool`` events
(matched on ``id``; ``timestamp`` = start, ``completed`` = end; ``error`` or
``failed`` → ``is_error`` True, else False: Inspect always records a tool's error
there), then, for calls no tool event answered, from the ``tool`` messages
(``tool_call_id``; ``error`` {type, message} → ``is_error`` True).

Without model events (logs written without events), the ``messages`` are read
instead: one round per assistant message that the run generated (``source`` not
``input``), results from ``tool`` messages; no usage and no times then.

User messages: each model event records the whole ``input`` it sent. The user messages
at the end of it, after the model's last message or a tool result, are what the round
answers: they are user messages placed before it (text parts) and open a turn (the
sample's input opens turn 1; a follow-up such as an agent's "please proceed" message a
later one); earlier ones are history, and the same ones again in the next event's input
are not counted twice. Without model events, every ``user`` message of ``messages`` is
a user message at its place. System messages are not user messages, nor are user
messages carrying a tool's output (``tool_call_id`` set: a computer-use screenshot).
Inspect records no time for them.

Strings that Inspect moved into the sample's ``attachments`` (``attachment://<hash>``)
are resolved.

Usage: Inspect's ``input_tokens`` counts all prompt tokens for OpenAI-style
providers (``total_tokens`` = input + output) but only the uncached ones for
Anthropic (``total_tokens`` = input + output + cache read + cache write). When
``total_tokens`` says the cache counts are not part of ``input_tokens``, they are
added, so that a round's input is always the whole prompt. Cached =
``input_tokens_cache_read``. The sample's ``model_usage`` (a total per model, summed
over models) becomes ``trace.usage_total`` only when no round has usage.

Ending: a sample ``error`` → ``trace.error`` (its message) and ``ending="error"``;
a sample that hit a ``limit`` (token, message, time, ...) with its last round still
calling tools → ``trace.error`` says which limit, ``ending="limit"``; a last round
without tool calls → ``answered``.

Outcome, only from the grader, the first scorer in the sample's ``scores``: ``"C"``
(correct), ``True``, ``1``/``1.0`` (within 1e-9), or yes/pass spellings →
``success``; ``"I"`` (incorrect), ``"N"`` (no answer), ``False``, ``0``/``0.0``, or
no/fail spellings → ``failure``; anything else (``"P"`` partial, 0.5, a dict of
values) → no outcome. The scorer and its value are kept in ``metadata``. An errored
sample Inspect did not score has no outcome (an error is an ending, not a grade).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace, Usage
from ..input.sources import ArchiveError, Record, TextDocument, ZipDocument, read_member
from .contract import ReadContext, read_each
from .common import (
    Counts,
    Warn,
    brief,
    dump_json,
    failure,
    finish_trace,
    make_usage,
    new_call,
    parse_time,
    rebuild,
    scalar_text,
    shift_time,
)
from .chat_messages import NewUserMessages, message_role_and_text

FORMAT = "inspect"

_ATTACHMENT = "attachment://"
# ASCII digits only: \d also matches "²" and other digits int() refuses.
_SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>[0-9]+)\.json$")
_SCORER_SPANS = ("scorer", "scorers")
_SUCCESS_WORDS = ("C", "CORRECT", "Y", "YES", "TRUE", "PASS", "PASSED")
_FAILURE_WORDS = ("I", "INCORRECT", "N", "NO", "FALSE", "FAIL", "FAILED")


def sniff(value: Any) -> bool:
    if isinstance(value, ZipDocument):
        try:
            names = value.names()
        except OSError:  # ArchiveError: the source already said the archive is unreadable
            return False
        # header.json is written when an eval ends; a running or killed one has the journal.
        return "header.json" in names or "_journal/start.json" in names
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and ("samples" in value or "results" in value or "status" in value)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    def eval_log(value: Any, line: int) -> Iterator[Trace]:
        if isinstance(value, ZipDocument):
            yield from _read_archive(value, line, ctx)
        elif isinstance(value, TextDocument):
            ctx.warn(line, "plain text, not an Inspect eval log")
        elif isinstance(value, dict) and isinstance(value.get("eval"), dict):
            yield from _read_log(value, line, ctx)
        else:
            ctx.warn(line, "JSON that is not an Inspect eval log (no 'eval' object)")

    return read_each(records, ctx, eval_log)


# --- the two layouts ---------------------------------------------------------------


class _Header:
    """What every sample of one log shares: task name and model."""

    __slots__ = ("task", "model")

    def __init__(self, doc: Any) -> None:
        spec = doc.get("eval") if isinstance(doc, dict) else None
        spec = spec if isinstance(spec, dict) else {}
        task = spec.get("task")
        self.task = scalar_text(task) or "task"
        self.model = spec.get("model") if isinstance(spec.get("model"), str) else None


def _read_log(doc: dict, line: int, ctx: ReadContext) -> Iterator[Trace]:
    header = _Header(doc)
    samples = doc.get("samples")
    if samples is None:
        ctx.warn(line, f"eval log of task {brief(header.task)} has no samples (written with log_samples=False?)")
        return
    if not isinstance(samples, list):
        ctx.warn(line, "'samples' is not a list; nothing read")
        return
    for number, sample in enumerate(samples, 1):
        if not isinstance(sample, dict):
            ctx.warn(line, f"sample {number} is not a JSON object; skipped")
            continue
        trace = _guarded(sample, header, line, ctx, None, f"sample {number}")
        if trace is not None:
            trace.pointer = f"samples[{number - 1}]"
            yield trace


def _guarded(sample: dict, header: _Header, line: int, ctx: ReadContext, member: str | None, where: str) -> Trace | None:
    """One sample's trace; a bug on one odd sample must not cost the other samples."""
    try:
        return _sample_trace(sample, header, line, ctx, member)
    except Exception as exc:
        ctx.warn(line, f"{where}: could not read this sample ({failure(exc)}); skipped")
        return None


def _member_order(name: str) -> tuple[int, int, int, str]:
    """(epoch, numeric id first, id) of a sample member; any other name sorts by itself
    in epoch 0, so an odd name never stops the other members from being read."""
    match = _SAMPLE_MEMBER.match(name)
    if match is None or len(match.group("epoch")) > 18:  # int() refuses thousands of digits
        return (0, 1, 0, name)
    epoch, sid = int(match.group("epoch")), match.group("id")
    if sid.isascii() and sid.isdigit() and len(sid) <= 18:
        return (epoch, 0, int(sid), "")
    return (epoch, 1, 0, sid)


def _read_archive(doc: ZipDocument, line: int, ctx: ReadContext) -> Iterator[Trace]:
    # Opened once for all members (ZipDocument.read reopens the archive on every call).
    try:
        archive = doc.open()
    except ArchiveError as exc:
        ctx.warn(line, str(exc))
        return
    with archive:
        names = archive.namelist()
        head: Any = None
        for member in ("header.json", "_journal/start.json"):
            if member in names:
                head = _load_member(archive, member, line, ctx)
                if head is not None:
                    break
        if head is None:
            ctx.warn(line, "no readable header.json or _journal/start.json: task name unknown")
            head = {}
        header = _Header(head)
        members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")), key=_member_order)
        if not members:
            ctx.warn(line, f"eval log of task {brief(header.task)} has no samples/ members")
        for member in members:
            sample = _load_member(archive, member, line, ctx)
            if sample is None:
                continue
            if not isinstance(sample, dict):
                ctx.warn(line, f"{member}: not a JSON object; skipped")
                continue
            trace = _guarded(sample, header, line, ctx, member, member)
            if trace is not None:
                trace.pointer = member  # the sample's own file inside the .eval archive
                yield trace


def _load_member(archive: zipfile.ZipFile, member: str, line: int, ctx: ReadContext) -> Any:
    try:
        raw = read_member(archive, member)
    except ArchiveError as exc:
        ctx.warn(line, f"{member}: {exc}; skipped")
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        ctx.warn(line, f"{member}: not valid JSON ({exc}); skipped")
        return None


# --- values ----------------------------------------------------------------------------


class _Attachments:
    """Resolves ``attachment://<hash>`` strings against the sample's attachments."""

    __slots__ = ("table",)

    def __init__(self, table: Any) -> None:
        self.table = table if isinstance(table, dict) else {}

    def text(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith(_ATTACHMENT):
            found = self.table.get(value[len(_ATTACHMENT):])
            return found if isinstance(found, str) else value
        return value

    def deep(self, value: Any) -> Any:
        return rebuild(value, string=self.text)


def _visible_text(content: Any, att: _Attachments) -> str:
    """The text parts of a message's content; reasoning and media are not visible text."""
    content = att.text(content)
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        parts = []
        for part in content:
            part = att.text(part)
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                parts.append(scalar_text(att.text(part.get("text"))))
        return "\n".join(p for p in parts if p)
    return dump_json(content)


def _result_text(value: Any, att: _Attachments) -> str:
    """A tool's return value as text: strings, numbers, content lists (media as a placeholder)."""
    value = att.text(value)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            part = att.text(part)
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                parts.append(scalar_text(att.text(part.get("text"))))
            elif isinstance(part, dict) and isinstance(part.get("type"), str):
                parts.append(f"[{part['type']}]")  # an image or other media: no text to compare
            else:
                parts.append(dump_json(part))
        return "\n".join(parts)
    return dump_json(value)


def _error_message(error: Any) -> str | None:
    if error is None or error is False or error in ("", {}):
        return None
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        message = error.get("message")
        if isinstance(message, str) and message:
            return message
        kind = error.get("type")
        if isinstance(kind, str) and kind:
            return kind
    return dump_json(error)


def _usage(value: Any, warn: Warn | None = None, path: str = "usage") -> Usage | None:
    if not isinstance(value, dict):
        return None
    counts = Counts(value, warn, path)
    prompt = counts.get("input_tokens")
    output = counts.get("output_tokens")
    read = counts.get("input_tokens_cache_read")
    write = counts.get("input_tokens_cache_write")
    total = counts.get("total_tokens")
    cache = (read or 0) + (write or 0)
    if prompt is not None and total is not None and cache and total == prompt + (output or 0) + cache:
        prompt += cache  # the provider counted cached tokens apart (Anthropic)
    return make_usage(prompt, output, read, counts.get("reasoning_tokens"))


def _sum_usage(values: list[Usage]) -> Usage | None:
    def add(field: str) -> int | None:
        numbers = [getattr(u, field) for u in values if getattr(u, field) is not None]
        return sum(numbers) if numbers else None

    total = Usage(add("input_tokens"), add("output_tokens"), add("cached_tokens"), add("reasoning_tokens"))
    return None if total.is_empty() else total


def _plus(start: float | None, seconds: Any) -> float | None:
    if isinstance(seconds, (int, float)) and seconds < 0:
        return None
    return shift_time(start, seconds)


def _scalar(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else dump_json(value)


# --- one sample ------------------------------------------------------------------------


class _Sample:
    def __init__(self, trace: Trace, att: _Attachments, ctx: ReadContext, where: str) -> None:
        self.trace = trace
        self.att = att
        self.ctx = ctx
        self.where = where  # " (samples/x.json)" for archive members
        self.pending: dict[str, ToolCall] = {}  # calls by id, answered or not
        self.order: list[ToolCall] = []  # every call in call order, for id-less results
        self.users = NewUserMessages()

    def role_and_text(self, message: Any) -> tuple[str, str]:
        """A message's role for :class:`NewUserMessages`, a user message's text with its
        attachments resolved."""
        role, _ = message_role_and_text(message)
        return role, _visible_text(message.get("content"), self.att) if role == "user" else ""

    def warn(self, reason: str) -> None:
        self.ctx.warn(self.trace.line, f"trace {self.trace.id}: {reason}{self.where}")

    def warner(self, event_number: int) -> Warn:
        return lambda reason: self.warn(f"event {event_number}: {reason}")

    def calls(self, message: dict, rnd: Round, number: str) -> None:
        items = message.get("tool_calls")
        if items is None:
            return
        if not isinstance(items, list):
            self.warn(f"{number}: 'tool_calls' is not a list; ignored")
            return
        for item in items:
            if not isinstance(item, dict):
                self.warn(f"{number}: a tool call that is not an object; skipped")
                continue
            name = item.get("function")
            if isinstance(name, dict):  # an OpenAI-shaped call, should one turn up
                name, arguments = name.get("name"), name.get("arguments")
            else:
                arguments = item.get("arguments")
            if not isinstance(name, str) or not name:
                self.warn(f"{number}: a tool call without a function name; skipped")
                continue
            call = new_call(item.get("id"), name, self.att.deep(arguments))
            parse_error = item.get("parse_error")
            if isinstance(parse_error, str) and parse_error:
                call.arguments_error = f"the model's arguments were not valid JSON: {parse_error}"
            if not call.id:
                call.id = f"r{len(self.trace.rounds) + 1}.c{len(rnd.tool_calls) + 1}"
            if call.id in self.pending and self.pending[call.id].result is None:
                self.warn(f"{number}: call id {brief(call.id)} reused before its result arrived")
            self.pending[call.id] = call
            self.order.append(call)
            rnd.tool_calls.append(call)

    def answer(self, call_id: Any, function: Any, result: ToolResult, number: str, strict: bool) -> bool:
        call = None
        if isinstance(call_id, (str, int)) and call_id != "":
            call = self.pending.get(scalar_text(call_id))
            if call is None:
                if strict:
                    self.warn(f"{number}: tool result for unknown call id {brief(scalar_text(call_id))}")
                return False
            if call.result is not None:
                if strict:
                    self.warn(f"{number}: second tool result for call id {brief(scalar_text(call_id))} ignored")
                return False
        elif not strict:
            return False  # a backup source is trusted only where ids say which call it answers
        else:
            # No id: the oldest unanswered call, of the same function when named.
            open_calls = [c for c in self.order if c.result is None]
            call = next((c for c in open_calls if c.name == function), open_calls[0] if open_calls else None)
            if call is None:
                self.warn(f"{number}: tool result without a call id and no call awaiting a result")
                return False
        call.result = result
        return True

    # events -------------------------------------------------------------------------

    def from_events(self, events: list, line: int) -> None:
        scorer_spans: set[str] = set()
        scorer_steps = 0
        for number, event in enumerate(events, 1):
            if not isinstance(event, dict):
                self.warn(f"event {number} is not a JSON object; skipped")
                continue
            kind = event.get("event")
            if kind == "span_begin":
                parent = event.get("parent_id")
                if event.get("type") in _SCORER_SPANS or (parent is not None and scalar_text(parent) in scorer_spans):
                    scorer_spans.add(scalar_text(event.get("id")))
            elif kind == "step" and event.get("type") in _SCORER_SPANS:  # older logs: steps, not spans
                scorer_steps += 1 if event.get("action") == "begin" else -1 if event.get("action") == "end" else 0
            elif kind == "model":
                if scorer_steps > 0 or (event.get("span_id") is not None and scalar_text(event["span_id"]) in scorer_spans):
                    continue  # a model-graded scorer's call, not the agent's
                self.model_round(event, number, line)
            elif kind == "tool":
                # In event order, so that a call id a provider reuses names the latest call.
                self.tool_result(event, number, line)

    def tool_result(self, event: dict, number: int, line: int) -> None:
        if event.get("pending") is True:
            return  # still running when the log was written: no result yet
        started = parse_time(event.get("timestamp"), self.warner(number), "timestamp")
        ended = parse_time(event.get("completed"), self.warner(number), "completed")
        if ended is None:
            ended = _plus(started, event.get("working_time"))
        error = _error_message(event.get("error"))
        content = _result_text(event.get("result"), self.att)
        if not content and error:
            content = error
        result = ToolResult(
            content=content,
            is_error=error is not None or event.get("failed") is True,
            started_at=started,
            ended_at=ended,
            line=line,
        )
        self.answer(event.get("id"), event.get("function"), result, f"event {number}", strict=True)

    def model_round(self, event: dict, number: int, line: int) -> None:
        output = event.get("output")
        output = output if isinstance(output, dict) else {}
        choices = output.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        message = choice.get("message") if choice is not None else None
        if not isinstance(message, dict):
            return  # a failed or pending call: no response, no round
        started = parse_time(event.get("timestamp"), self.warner(number), "timestamp")
        ended = parse_time(event.get("completed"), self.warner(number), "completed")
        if ended is None:
            duration = event.get("working_time")
            if not isinstance(duration, (int, float)):
                duration = output.get("time")
            ended = _plus(started, duration)
        model = output.get("model") or message.get("model") or event.get("model")
        sent = event.get("input")
        for text in self.users.take(sent if isinstance(sent, list) else [], self.role_and_text):
            self.trace.add_user_message(text, line=line)
        rnd = Round(
            index=len(self.trace.rounds) + 1,
            text=_visible_text(message.get("content"), self.att),
            usage=_usage(output.get("usage"), self.warner(number), "output.usage"),
            started_at=started,
            ended_at=ended,
            finish_reason=choice.get("stop_reason") if isinstance(choice.get("stop_reason"), str) else None,
            line=line,
            id=message.get("id") if isinstance(message.get("id"), str) else None,
            model=model if isinstance(model, str) else None,
        )
        self.calls(message, rnd, f"event {number}")
        self.trace.rounds.append(rnd)

    # messages -----------------------------------------------------------------------

    def from_messages(self, messages: list, line: int, make_rounds: bool) -> None:
        for number, message in enumerate(messages, 1):
            if not isinstance(message, dict):
                if make_rounds:
                    self.warn(f"message {number} is not a JSON object; skipped")
                continue
            role = message.get("role")
            if role == "assistant" and make_rounds:
                if message.get("source") == "input":
                    continue  # part of the sample's input (a prefilled turn), not generated
                rnd = Round(
                    index=len(self.trace.rounds) + 1,
                    text=_visible_text(message.get("content"), self.att),
                    line=line,
                    id=message.get("id") if isinstance(message.get("id"), str) else None,
                    model=message.get("model") if isinstance(message.get("model"), str) else None,
                )
                self.calls(message, rnd, f"message {number}")
                self.trace.rounds.append(rnd)
            elif role == "user" and make_rounds:
                kind, text = self.role_and_text(message)
                if kind == "user":
                    self.trace.add_user_message(text, line=line)
            elif role == "tool":
                error = _error_message(message.get("error"))
                content = _visible_text(message.get("content"), self.att)
                if not content and error:
                    content = error
                result = ToolResult(content=content, is_error=error is not None, line=line)
                self.answer(message.get("tool_call_id"), message.get("function"), result, f"message {number}", strict=make_rounds)


def _score_outcome(value: Any) -> str | None:
    if isinstance(value, bool):
        return "success" if value else "failure"
    if isinstance(value, (int, float)):
        if abs(value - 1.0) <= 1e-9:
            return "success"
        if abs(value) <= 1e-9:
            return "failure"
        return None
    if isinstance(value, str):
        word = value.strip().upper()
        if word in _SUCCESS_WORDS:
            return "success"
        if word in _FAILURE_WORDS:
            return "failure"
    return None


def _sample_trace(sample: dict, header: _Header, line: int, ctx: ReadContext, member: str | None) -> Trace:
    sid = sample.get("id")
    epoch = sample.get("epoch", 1)
    trace = Trace(
        id=f"{header.task}/{scalar_text(sid) if sid is not None else 'None'}/{scalar_text(epoch) if epoch is not None else 'None'}",
        format=FORMAT,
        file=ctx.file,
        line=line,
        end_line=line,
    )
    meta = trace.metadata
    meta["task"] = header.task
    meta["sample_id"] = _scalar(sid)
    meta["epoch"] = _scalar(epoch)
    if header.model:
        meta["model"] = header.model
    if member is not None:
        meta["member"] = member
    for key in ("total_time", "working_time"):
        if isinstance(sample.get(key), (int, float)) and not isinstance(sample.get(key), bool):
            meta[key] = sample[key]

    att = _Attachments(sample.get("attachments"))
    reader = _Sample(trace, att, ctx, f" ({member})" if member else "")
    events = sample.get("events")
    messages = sample.get("messages")
    has_model_events = isinstance(events, list) and any(
        isinstance(e, dict) and e.get("event") == "model" for e in events
    )
    if has_model_events:
        reader.from_events(events, line)
        if isinstance(messages, list) and any(c.result is None for c in trace.tool_calls()):
            reader.from_messages(messages, line, make_rounds=False)  # results the events lack
    elif isinstance(messages, list):
        reader.from_messages(messages, line, make_rounds=True)
    elif messages is not None or events is not None:
        reader.warn("neither 'events' nor 'messages' is a list; no rounds")

    if not any(r.usage is not None for r in trace.rounds):
        totals = sample.get("model_usage")
        if isinstance(totals, dict):
            usages = (_usage(value, reader.warn, f"model_usage.{model}") for model, value in totals.items())
            trace.usage_total = _sum_usage([u for u in usages if u is not None])

    # The scorer is the grader: its verdict is the outcome, whatever the ending.
    scores = sample.get("scores")
    if isinstance(scores, dict) and scores:
        name, score = next(iter(scores.items()))
        value = score.get("value") if isinstance(score, dict) else score
        meta["scorer"] = name
        meta["score"] = _scalar(value)
        outcome = _score_outcome(value)
        if outcome is not None:
            trace.labels["outcome"] = outcome
    error = _error_message(sample.get("error"))
    if error is not None:
        trace.error = error
        trace.ending = "error"
    else:
        limit = sample.get("limit")
        if isinstance(limit, dict) and limit.get("type"):
            meta["limit"] = _scalar(limit.get("type"))
            if trace.rounds and not trace.rounds[-1].is_final:
                trace.error = f"{scalar_text(limit['type'])} limit reached" + (
                    f" ({scalar_text(limit['limit'])})" if limit.get("limit") is not None else ""
                )
                trace.ending = "limit"
    return finish_trace(trace, ctx.diagnostics)
