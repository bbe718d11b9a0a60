"""LangSmith runs: ``client.list_runs`` dumps and recorded ingest payloads.

Checked against a real ``{post, patch}`` recording of langsmith-sdk 0.1.131
(langchain-core 0.2.21; ``tests/corpus/langsmith-sdk/``) and runs as langsmith-sdk
0.3.45 writes them with langchain-core 0.3.63 and LangGraph 0.4.8 (hand-made fixtures).

Shapes read:

- **one run per line** (``run.json()`` of each run ``client.list_runs`` returns): flat,
  children not nested, in any order. A JSON array of runs, and a run carrying nested
  ``child_runs`` (``read_run(..., load_child_runs=True)``), are flattened the same way.
- **ingest recording** ``{"post": [runs], "patch": [updates]}`` (the body of the batch
  endpoint), as one document or one batch per line. A patch is applied to the posted run
  with the same id once the whole file is read (a patch may come in a later batch than
  its post): every field it sets (``end_time``, ``outputs``, ``error``, ``extra``, ...)
  replaces the posted one.

The same run id seen twice is one run (later non-empty fields win), so a file that
repeats runs still gives one round per model response.

Grouping and order: runs are grouped by ``trace_id`` (= the root run's id; when absent,
the id in the first ``dotted_order`` segment, else the root of the ``parent_run_id``
chain) and ordered by ``dotted_order`` (the start time and id of every ancestor, then of
the run: sorting it gives execution order); by start time when a run has none. Traces
are yielded in order of their first line, once the whole file is read (any line may
still add a run, or a patch, to any trace).

Rounds: each ``llm`` run with an output is one round. Output shapes: LangChain
``generations[0][0]`` (``message`` as ``dumpd`` AIMessage(Chunk) with ``tool_calls`` and
``usage_metadata``, else ``text``), raw OpenAI chat/completions responses
(``wrap_openai``: ``choices[0]``; ``usage_metadata`` or ``usage``), Responses API objects
(``output`` items), Anthropic messages (``content`` blocks), and ``@traceable`` outputs
in the documented LangChain/OpenAI message format (``messages`` list, ``message``, or
the message itself). An ``llm`` run that failed with no output is no round (no model
response exists); one that is still pending is warned about. Round id = run id.

Tool executions: each ``tool`` run. Its result pairs with a call of an earlier round by
the ``tool_call_id`` of the ToolMessage in ``outputs.output`` (LangGraph ``ToolNode``);
without one (``@traceable`` tools, AgentExecutor), with the oldest unanswered call of
the same name, else the oldest unanswered call of the latest round. A tool run that matches no call becomes a call of
the latest round when that round made no native tool calls (a ReAct text agent, whose
actions exist only as text): its ``inputs.input`` (LangChain writes ``str(args)``, a
Python literal, which is re-encoded as JSON; free text stays text) or ``@traceable``
input dict are the arguments. Otherwise it is warned about. ``is_error``: run ``status``
"error" or a non-empty ``error`` (content = the error's first line when there is no
output), or a ToolMessage with ``status: "error"`` -> True; a finished run otherwise ->
False.

User messages: each ``llm`` run records the whole history it was sent
(``inputs.messages``, a batch's first list; a Responses ``inputs.input``). The user
messages at the end of that history, after the agent's last message or tool result, are
what the round answers: they are user messages placed before it and open a turn
(earlier ones are history: a LangGraph thread resends every past turn); the same ones
again in the next call's input are not counted twice. System messages are not user
messages, nor are user messages that carry tool results. When the first round's input
shows no user message (a completion model's rendered ``prompts``), the root run's
``inputs`` do: its ``messages``, else its ``input``/``question``/``query``/``prompt``
string. Runs carry no time for what the user said.

``llm``/``tool`` runs nested inside another ``tool`` or ``llm`` run (a sub-agent used as
a tool, a tool calling a tool) are part of that execution, not rounds or calls of this
trace.

Times: ``start_time``/``end_time`` (ISO-8601, naive = UTC, or epoch milliseconds in
recordings). Usage per round: the message's ``usage_metadata``, else the output's
``usage_metadata``/``usage``, else ``llm_output.token_usage``, else the run's own
``prompt_tokens``/``completion_tokens`` (both 0 = unknown: the server writes 0 when it
has no count). Chain runs are never summed; when no round has usage, the root run's
own totals become ``trace.usage_total``.

Ending: a root run with ``status: "error"`` or a non-empty ``error`` ended without an
answer: ``trace.error`` = the error's first line and ``ending="limit"`` when it is a
framework's limit (``GraphRecursionError``, an iteration limit, ...), else ``"error"``.

Outcome: never set. An error is how the run ended, not a grade, and LangSmith's
feedback scores are user-defined (no documented verdict); a labels file gives one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record
from .contract import ReadContext, first_item
from .common import (
    Counts,
    Warn,
    as_dict,
    as_list,
    as_str_or_int,
    brief,
    content_text,
    failure,
    finish_trace,
    make_usage,
    new_call,
    parse_time,
    scalar_text,
    visible_text,
    error_ending,
)
from .chat_messages import NewUserMessages, ai_calls, message_role_and_text, message_usage, parse_message
from .tool_runs import Linker, input_call

FORMAT = "langsmith"

_NOT_A_RUN = "JSON that is not a LangSmith run (no 'id' and 'run_type') nor a {post, patch} batch"


def _first_line(text: Any) -> str:
    text = scalar_text(text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text


def _has_error(run: dict) -> bool:
    error = run.get("error")
    return run.get("status") == "error" or (error is not None and scalar_text(error).strip() != "")


# --- collecting runs -----------------------------------------------------------------


class _Entry:
    __slots__ = ("run", "line", "seq", "pointer")

    def __init__(self, run: dict, line: int, seq: int, pointer: str | None) -> None:
        self.run = run
        self.line = line
        self.seq = seq
        self.pointer = pointer  # where in the JSON value on ``line`` the run (or its parent) is


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


class _Collector:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.runs: dict[str, _Entry] = {}
        self.patches: list[tuple[int, dict]] = []

    def add_run(self, run: dict, line: int, pointer: str | None = None) -> None:
        # Nested child_runs are walked with a stack: they may nest deeper than Python recurses.
        pending = [run]
        while pending:
            run = pending.pop()
            run_id = as_str_or_int(run.get("id"))
            if run_id is None:
                self.ctx.warn(line, "LangSmith run without an 'id'; skipped")
                continue
            children = run.get("child_runs")
            run = {k: v for k, v in run.items() if k != "child_runs"}
            entry = self.runs.get(run_id)
            if entry is None:
                self.runs[run_id] = _Entry(run, line, len(self.runs), pointer)
            else:
                # The same run again (a repeated export): later non-empty fields win.
                for key, value in run.items():
                    if not _empty(value) or key not in entry.run:
                        entry.run[key] = value
            pending.extend(reversed([child for child in as_list(children) if isinstance(child, dict)]))

    def add_value(self, value: Any, line: int, where: str = "", pointer: str | None = None) -> None:
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, list):  # runs are objects: an array inside the array is none
                    self.ctx.warn(line, _NOT_A_RUN + f" (array element {index})")
                else:
                    self.add_value(item, line, f" (array element {index})", f"[{index}]")
            return
        if not isinstance(value, dict):
            self.ctx.warn(line, _NOT_A_RUN + where)
            return
        posts, patches = value.get("post"), value.get("patch")
        if isinstance(posts, list) or isinstance(patches, list):
            for index, item in enumerate(as_list(posts)):
                if isinstance(item, dict):
                    self.add_run(item, line, f"{pointer}.post[{index}]" if pointer else f"post[{index}]")
                else:
                    self.ctx.warn(line, "'post' item that is not a run object; skipped")
            for item in as_list(patches):
                if isinstance(item, dict) and as_str_or_int(item.get("id")) is not None:
                    self.patches.append((line, item))
                else:
                    self.ctx.warn(line, "'patch' item without a run id; skipped")
            return
        if "run_type" in value and "id" in value:
            self.add_run(value, line, pointer)
            return
        self.ctx.warn(line, _NOT_A_RUN + where)

    def apply_patches(self) -> None:
        for line, patch in self.patches:
            run_id = scalar_text(as_str_or_int(patch["id"]))
            entry = self.runs.get(run_id)
            if entry is None:
                self.ctx.warn(line, f"patch for unknown run id {brief(run_id)} (no posted run); skipped")
                continue
            for key, value in patch.items():
                if value is not None:
                    entry.run[key] = value
        self.patches.clear()


# --- run structure ---------------------------------------------------------------------


def _dotted_ids(run: dict) -> list[str] | None:
    """Run ids along ``dotted_order`` (root first, the run itself last)."""
    dotted = run.get("dotted_order")
    if not isinstance(dotted, str) or not dotted:
        return None
    # Each segment is <YYYYMMDDTHHMMSSffffff>Z<run id>.
    ids = [segment.partition("Z")[2] for segment in dotted.split(".")]
    return ids if all(ids) else None


def _ancestors(run: dict, runs: dict[str, _Entry]) -> list[str]:
    ids = _dotted_ids(run)
    if ids is not None:
        return ids[:-1]
    chain: list[str] = []
    parent = as_str_or_int(run.get("parent_run_id"))
    while parent is not None and parent not in chain:
        chain.append(parent)
        entry = runs.get(parent)
        parent = as_str_or_int(entry.run.get("parent_run_id")) if entry is not None else None
    chain.reverse()
    return chain


def _trace_key(run: dict, runs: dict[str, _Entry]) -> str:
    trace_id = as_str_or_int(run.get("trace_id"))
    if trace_id is not None:
        return trace_id
    ancestors = _ancestors(run, runs)
    if ancestors:
        return ancestors[0]
    return scalar_text(run["id"])


def _order_key_time(entry: _Entry) -> tuple:
    started = parse_time(entry.run.get("start_time"))
    return (started if started is not None else float("inf"), entry.line, entry.seq)


# --- model output ------------------------------------------------------------------------


class _Output:
    """What one llm run's output says: the round's content and the provider's numbers."""

    __slots__ = ("text", "calls", "usage", "finish_reason", "model", "found", "warn")

    def __init__(self, warn: Warn | None = None) -> None:
        self.warn = warn  # reports token counts that are not counts
        self.text = ""
        self.calls: list[ToolCall] = []
        self.usage = None
        self.finish_reason: str | None = None
        self.model: str | None = None
        self.found = False


def _usage_metadata(value: Any, warn: Warn | None):
    return message_usage({"usage_metadata": value}, warn) if isinstance(value, dict) else None


def _provider_usage(value: Any, warn: Warn | None):
    # OpenAI (prompt_tokens), Anthropic (input_tokens + cache), Bedrock: LangChain's reader knows them.
    return message_usage({"response_metadata": {"usage": value}}, warn) if isinstance(value, dict) else None


def _plain_calls(message: dict) -> list[ToolCall]:
    """Calls of a message in OpenAI, LangChain or Anthropic layout (not ``dumpd``)."""
    calls: list[ToolCall] = []
    for spec in as_list(message.get("tool_calls")):
        if not isinstance(spec, dict):
            continue
        function = spec.get("function")
        if isinstance(function, dict):
            calls.append(new_call(spec.get("id"), function.get("name"), function.get("arguments")))
        else:
            args = spec["args"] if "args" in spec else spec.get("arguments", spec.get("input"))
            calls.append(new_call(spec.get("id"), spec.get("name"), args))
    if calls:
        return calls
    content = message.get("content")
    for block in as_list(content):
        if isinstance(block, dict) and block.get("type") == "tool_use":
            calls.append(new_call(block.get("id"), block.get("name"), block.get("input")))
    if not calls and isinstance(message.get("function_call"), dict):
        legacy = message["function_call"]
        calls.append(new_call(None, legacy.get("name"), legacy.get("arguments")))
    return calls


def _read_message(out: _Output, message: Any) -> bool:
    """Fill ``out`` from one assistant message in any known layout."""
    parsed = parse_message(message)
    if parsed is not None:
        kind, fields = parsed
        if kind not in ("ai", "chat"):
            return False
        out.text = visible_text(fields.get("content"))
        out.calls = ai_calls(fields)
        out.usage = message_usage(fields, out.warn)
        meta = as_dict(fields.get("response_metadata"))
        out.finish_reason = out.finish_reason or as_str_or_int(meta.get("finish_reason")) or as_str_or_int(meta.get("stop_reason"))
        out.model = out.model or as_str_or_int(meta.get("model_name")) or as_str_or_int(meta.get("model"))
        out.found = True
        return True
    if not isinstance(message, dict):
        return False
    if "content" not in message and "tool_calls" not in message and "function_call" not in message:
        return False
    out.text = visible_text(message.get("content"))
    out.calls = _plain_calls(message)
    out.usage = _usage_metadata(message.get("usage_metadata"), out.warn)
    out.found = True
    return True


def _is_assistant(message: Any) -> bool:
    parsed = parse_message(message)
    if parsed is not None:
        return parsed[0] == "ai"
    return isinstance(message, dict) and (message.get("role") in ("assistant", "ai") or message.get("type") in ("ai", "assistant"))


def _read_responses_items(out: _Output, items: list) -> None:
    texts = []
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            if isinstance(content, list):  # output_text parts
                texts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
            else:
                texts.append(visible_text(content))
        elif kind in ("function_call", "custom_tool_call"):
            args = item.get("arguments") if kind == "function_call" else item.get("input")
            out.calls.append(new_call(item.get("call_id") or item.get("id"), item.get("name"), args))
    out.text = "\n".join(t for t in texts if t)
    out.found = True


def _llm_output(run: dict, warn: Warn | None = None) -> _Output | None:
    outputs = run.get("outputs")
    if not isinstance(outputs, dict) or not outputs:
        return None
    out = _Output(warn)
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        if isinstance(first, list):
            first = first[0] if first else None
        if isinstance(first, dict):
            if not _read_message(out, first.get("message")):
                out.text = content_text(first.get("text"))
                out.found = True
            info = as_dict(first.get("generation_info"))
            out.finish_reason = out.finish_reason or as_str_or_int(info.get("finish_reason"))
        llm_output = as_dict(outputs.get("llm_output"))
        if out.usage is None:
            for key in ("token_usage", "usage"):
                out.usage = out.usage or _provider_usage(llm_output.get(key), out.warn)
        out.model = out.model or as_str_or_int(llm_output.get("model_name")) or as_str_or_int(llm_output.get("model"))
    elif isinstance(outputs.get("choices"), list):  # wrap_openai: the raw chat/completions response
        choice = outputs["choices"][0] if outputs["choices"] else None
        if isinstance(choice, dict):
            if not _read_message(out, choice.get("message")):
                out.text = content_text(choice.get("text"))
                out.found = True
            out.finish_reason = as_str_or_int(choice.get("finish_reason"))
    elif isinstance(outputs.get("output"), list) and (outputs.get("object") == "response" or "usage_metadata" in outputs):
        _read_responses_items(out, outputs["output"])  # wrap_openai on the Responses API
        out.finish_reason = as_str_or_int(outputs.get("status"))
    elif isinstance(outputs.get("content"), list) and (outputs.get("role") == "assistant" or outputs.get("type") == "message"):
        _read_message(out, outputs)  # wrap_anthropic: a Messages API response
        out.finish_reason = as_str_or_int(outputs.get("stop_reason"))
    elif isinstance(outputs.get("messages"), list):
        assistant = [m for m in outputs["messages"] if _is_assistant(m)]
        if assistant:
            _read_message(out, assistant[-1])
    elif isinstance(outputs.get("message"), dict):
        _read_message(out, outputs["message"])
    elif _is_assistant(outputs) or "tool_calls" in outputs:
        _read_message(out, outputs)
    elif isinstance(outputs.get("output"), str):
        out.text = outputs["output"]
        out.found = True
    if not out.found:
        return None
    if out.usage is None:
        out.usage = _usage_metadata(outputs.get("usage_metadata"), out.warn) or _provider_usage(outputs.get("usage"), out.warn)
    out.model = as_str_or_int(outputs.get("model")) or out.model
    return out


def _run_usage(run: dict, warn: Warn | None = None):
    counts = Counts(run, warn, "run")
    prompt, completion = counts.get("prompt_tokens"), counts.get("completion_tokens")
    if not prompt and not completion:
        return None  # the server writes 0 where it counted nothing
    return make_usage(
        prompt,
        completion,
        counts.within("prompt_token_details").get("cache_read"),
        counts.within("completion_token_details").get("reasoning"),
    )


def _model_name(run: dict) -> str | None:
    meta = as_dict(as_dict(run.get("extra")).get("metadata"))
    return as_str_or_int(meta.get("ls_model_name"))


# --- tool runs -----------------------------------------------------------------------------


def _tool_result(run: dict, line: int) -> tuple[ToolResult, str | None]:
    """The result of a tool run and the call id its ToolMessage names."""
    outputs = as_dict(run.get("outputs"))
    output = outputs.get("output") if "output" in outputs else (outputs or None)
    call_id = None
    message_status = None
    parsed = parse_message(output)
    if parsed is not None and parsed[0] == "tool":
        fields = parsed[1]
        content = content_text(fields.get("content"))
        call_id = as_str_or_int(fields.get("tool_call_id"))
        message_status = fields.get("status")
    elif isinstance(output, str):
        content = output
    elif output is None:
        content = ""
    else:
        content = content_text(output)
    failed = _has_error(run)
    if failed and not content and run.get("error"):
        content = _first_line(run["error"])
    if failed or message_status == "error":
        is_error: bool | None = True
    elif run.get("status") == "success" or run.get("end_time") is not None or message_status == "success":
        is_error = False
    else:
        is_error = None
    result = ToolResult(
        content=content,
        is_error=is_error,
        started_at=parse_time(run.get("start_time")),
        ended_at=parse_time(run.get("end_time")),
        line=line,
    )
    return result, call_id


def _llm_input(run: dict) -> list:
    """The messages an llm run was sent: LangChain's ``messages`` (a batch: the first
    list), a wrapped client's ``messages``, or a Responses ``input`` (a string is one
    user message). A completion model's ``prompts`` are one rendered text: none."""
    inputs = as_dict(run.get("inputs"))
    messages = inputs.get("messages")
    if isinstance(messages, list):
        return messages[0] if messages and isinstance(messages[0], list) else messages
    given = inputs.get("input")
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    return as_list(given)


_ROOT_QUESTION_KEYS = ("input", "question", "query", "prompt")


def _root_question(run: dict) -> str | None:
    """What the user asked, from the root run's inputs (an AgentExecutor's ``input``, a
    graph's ``messages``): used only when no model call's input shows it."""
    inputs = as_dict(run.get("inputs"))
    if isinstance(inputs.get("messages"), list):
        texts = NewUserMessages().take(inputs["messages"], message_role_and_text)
        return "\n\n".join(texts) if texts else None
    for key in _ROOT_QUESTION_KEYS:
        if isinstance(inputs.get(key), str):
            return inputs[key]
    return None


def _tool_input(run: dict) -> Any:
    inputs = run.get("inputs")
    if isinstance(inputs, dict):
        if set(inputs) == {"input"}:
            return inputs["input"]
        return inputs
    return inputs


# --- building traces ---------------------------------------------------------------------


def _run_warner(ctx: ReadContext, line: int, trace_id: str, run: dict) -> Warn:
    run_id = scalar_text(run.get("id"))[:100]
    return lambda reason: ctx.warn(line, f"trace {trace_id}: run {run_id}: {reason}")


def _build(trace_id: str, entries: list[_Entry], runs: dict[str, _Entry], ctx: ReadContext) -> Trace:
    lines = [e.line for e in entries]
    trace = Trace(id=trace_id, format=FORMAT, file=ctx.file, line=min(lines), end_line=max(lines))
    # Placed by its first run: a trace's runs may lie apart in an exported array.
    trace.pointer = min(entries, key=lambda e: (e.line, e.seq)).pointer
    if all(_dotted_ids(e.run) is not None for e in entries):
        entries = sorted(entries, key=lambda e: (e.run["dotted_order"], e.seq))
    else:
        entries = sorted(entries, key=_order_key_time)

    members = {scalar_text(e.run["id"]) for e in entries}
    busy = {scalar_text(e.run["id"]) for e in entries if e.run.get("run_type") in ("llm", "tool")}
    root = runs.get(trace_id) if trace_id in members else None
    if root is None:
        root = next((e for e in entries if as_str_or_int(e.run.get("parent_run_id")) not in members), None)

    linker = Linker(trace, ctx)
    users = NewUserMessages()
    for entry in entries:
        run, line = entry.run, entry.line
        kind = run.get("run_type")
        if kind not in ("llm", "tool"):
            continue
        if any(a in busy for a in _ancestors(run, runs)):
            continue  # inside another model call or tool execution
        name = as_str_or_int(run.get("name")) or ""
        for key in ("start_time", "end_time"):
            if run.get(key) not in (None, "") and parse_time(run[key]) is None:
                ctx.warn(line, f"trace {trace_id}: run {run['id']}: bad {key} {brief(run[key])}; ignored")
        warn = _run_warner(ctx, line, trace_id, run)
        if kind == "llm":
            out = _llm_output(run, warn)
            if out is None:
                if _has_error(run):
                    continue  # the call failed: no model response, so no round
                if _empty(run.get("outputs")):
                    ctx.warn(line, f"trace {trace_id}: llm run {run['id']} has no model output (still pending?); skipped")
                else:
                    ctx.warn(line, f"trace {trace_id}: llm run {run['id']}: outputs match no known model output shape; skipped")
                continue
            rnd = Round(
                index=0,
                text=out.text,
                tool_calls=out.calls,
                usage=out.usage or _run_usage(run, warn),
                started_at=parse_time(run.get("start_time")),
                ended_at=parse_time(run.get("end_time")),
                finish_reason=out.finish_reason,
                line=line,
                id=scalar_text(run["id"]),
                model=out.model or _model_name(run),
            )
            said = users.take(_llm_input(run), message_role_and_text)
            if not said and not trace.rounds and root is not None:
                question = _root_question(root.run)
                said = [question] if question is not None else []
            for text in said:
                trace.add_user_message(text, line=line)
            linker.add_round(rnd)
        else:
            result, call_id = _tool_result(run, line)
            linker.add_result(name, call_id, result, lambda: input_call(call_id, name, _tool_input(run)))

    if root is not None:
        run = root.run
        if as_str_or_int(run.get("name")):
            trace.metadata["name"] = run["name"]
        meta = as_dict(as_dict(run.get("extra")).get("metadata"))
        for key in ("thread_id", "session_id", "conversation_id"):
            if as_str_or_int(meta.get(key)):
                trace.metadata["thread_id"] = scalar_text(meta[key])
                break
        if _has_error(run):
            trace.error = _first_line(run.get("error") or "root run ended with status 'error'")
            trace.ending = error_ending(trace.error)  # how it ended; no grade
        if root.run.get("run_type") != "llm" and all(r.usage is None for r in trace.rounds):
            trace.usage_total = _run_usage(run, _run_warner(ctx, root.line, trace_id, run))
    return finish_trace(trace, ctx.diagnostics)


def sniff(value: Any) -> bool:
    item = first_item(value)
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("post"), list) or isinstance(item.get("patch"), list):
        return True
    return "run_type" in item and ("dotted_order" in item or "trace_id" in item or "parent_run_id" in item)


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    # Runs come in any order and a trace is complete only at the end of the file.
    collector = _Collector(ctx)
    for record in records:
        try:
            collector.add_value(record.value, record.line)
        except Exception as exc:  # noqa: BLE001 - one odd record must not cost the rest of the file
            ctx.warn(record.line, f"could not read this record ({failure(exc)})")
    collector.apply_patches()

    groups: dict[str, list[_Entry]] = {}
    for entry in collector.runs.values():
        groups.setdefault(_trace_key(entry.run, collector.runs), []).append(entry)
    ordered = sorted(groups.items(), key=lambda item: min((e.line, e.seq) for e in item[1]))
    for trace_id, entries in ordered:
        try:
            trace = _build(trace_id, entries, collector.runs, ctx)
        except Exception as exc:  # noqa: BLE001 - a bug on one odd trace must not cost the others
            ctx.warn(min(e.line for e in entries), f"trace {trace_id}: could not read this trace ({failure(exc)})")
            continue
        yield trace
