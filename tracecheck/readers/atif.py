"""ATIF trajectories (Agent Trajectory Interchange Format, Harbor's ``trajectory.json``).

Follows ATIF v1.0-v1.5 as Harbor's RFC 0001 defines it and as Harbor writes it for
Claude Code (ATIF-v1.2, Claude Code 2.1.x: ``tests/corpus/CodeTracer/``, whose
``PROVENANCE.md`` describes the quirks handled here).

Shape: one document ``{schema_version: "ATIF-v…", session_id, agent: {name, version,
model_name}, steps: [...], final_metrics}``; a step is ``{step_id, timestamp, source:
"system"|"user"|"agent", message, reasoning_content?, tool_calls?: [{tool_call_id,
function_name, arguments}], observation?: {results: [{source_call_id, content}]},
metrics?: {prompt_tokens, completion_tokens, cached_tokens, cost_usd}, extra}``.

Rounds: one round is one model response. The RFC writes one agent step per response,
but Harbor's Claude Code converter splits a response over several agent steps: its
text/thinking step (carrying ``metrics``), then one step per ``tool_use`` block with the
same timestamp, a synthetic message ``Executed <Tool> <id>``, no metrics, one call and
its observation. So an agent step starts a new round when it carries ``metrics``, or,
without metrics, unless it continues the open round (same timestamp, or the synthetic
``Executed`` message); a file whose steps carry no metrics at all is one round per
agent step. Aborted streamed responses (all-zero metrics, empty message) are rounds,
as the agent did make that call. The synthetic ``Executed …`` messages are not text.

Unexecuted calls: the converter flushes tool calls that never ran to the end of
``steps[]``, after the final reply, with the earlier timestamp of the response that
made them. Such a step (a call with no observation, timestamped before the step
before it) joins the round with its timestamp, or the last round when none has it;
the call keeps no result (never an error: it did not run). Steps are never sorted
by time.

Results: ``observation.results[]`` attach to their call by ``source_call_id`` (a
result without one attaches to the step's own calls in order). The text is the clean
tool result where the converter kept it (``extra.tool_result_metadata.raw_tool_result
.content``), else ``content`` without the converter's appended ``[stdout]``,
``[metadata]`` and ``[error] tool reported failure`` blocks. ``is_error``:
``extra.tool_result_is_error``, else the raw result's ``is_error``, else ``True`` when
the content ends with ``[error] tool reported failure``; a result with none of these is
unknown (``None``).

User messages: ``source: "user"`` steps open turns, except the harness's own
notifications (``<task-notification>`` about a finished background command), which
nobody typed; ``system`` steps are neither.

Tokens: ``metrics`` of the round's first step: ``prompt_tokens`` (input, cache reads
and writes included), ``completion_tokens``, ``cached_tokens``; other steps carry
none. Times: a round ends at its step's ``timestamp`` (when the response was written)
and starts at the previous step's (the result or prompt that triggered it).

Outcome: ATIF carries no grade. Harbor writes the verifier's reward in the trial's
``result.json`` (``verifier_result.rewards.reward``) beside ``agent/trajectory.json``
(or beside the trajectory itself), and ``verifier/reward.txt``: reward ≥ 1 is
``success``, 0 ``failure``; no verifier result (it errored, or no result file) leaves
the outcome unknown. How the run ended is no grade: an agent that answered may still
fail the verifier's tests. Ending: a last agent step without tool calls → ``answered``,
else unknown. The trace id is the trial's name from ``result.json``
(``trial_name``), else ``session_id``, else the file's name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import orjson

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace, Usage
from .contract import ReadContext
from .common import Counts, as_dict, as_list, as_str, content_text, failure, file_stem, finish_trace, new_call, parse_time

FORMAT = "atif"

_EXECUTED = re.compile(r"^Executed \S+ \S+$")
_ERROR_TAIL = "[error] tool reported failure"
# The converter appends these blocks after the tool's own text.
_APPENDED = re.compile(r"\n\n\[(?:stdout|stderr|metadata|error)\][\s\S]*\Z")
_NOTIFICATION = "<task-notification>"


def sniff(value: Any) -> bool:
    version = value.get("schema_version") if isinstance(value, dict) else None
    return isinstance(version, str) and version.upper().startswith("ATIF") and isinstance(value.get("steps"), list)


def is_harbor_result(value: Any) -> bool:
    """A Harbor trial's result.json (the registry skips it in a directory walk; its
    reward is read as the outcome of the trajectory beside it)."""
    return isinstance(value, dict) and ("verifier_result" in value or "agent_result" in value or "trial_results" in value) and (
        "trial_name" in value or "task_name" in value or "n_total_trials" in value or "stats" in value
    )


def cut_before(value: Any) -> bool:
    """Each record (a trajectory, or an array of them) is read on its own: a file of
    one per line may be cut before any line (``--jobs``)."""
    return True


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    for record in records:
        value = record.value
        documents = value if isinstance(value, list) else [value]
        for index, document in enumerate(documents):
            if not sniff(document):
                ctx.warn(record.line, "JSON that is not an ATIF trajectory (an object with 'schema_version' ATIF-… and 'steps')")
                continue
            try:
                trace = _read_trajectory(document, record.line, ctx)
            except Exception as exc:  # one odd trajectory must not cost the rest
                ctx.warn(record.line, f"could not read this trajectory ({failure(exc)})")
                continue
            if isinstance(value, list):
                trace.pointer = f"[{index}]"
            yield trace


def _read_trajectory(doc: dict, line: int, ctx: ReadContext) -> Trace:
    grade = harbor_grade(ctx)
    trace_id = (grade or {}).get("trial_name") or as_str(doc.get("session_id")) or file_stem(ctx.file)
    trace = Trace(id=trace_id, format=FORMAT, file=ctx.file, line=line, end_line=line)
    agent = as_dict(doc.get("agent"))
    for key, name in (("name", "agent"), ("version", "agent_version"), ("model_name", "model")):
        if as_str(agent.get(key)):
            trace.metadata[name] = agent[key]
    if as_str(doc.get("session_id")):
        trace.metadata["session_id"] = doc["session_id"]
    trace.metadata["schema_version"] = doc["schema_version"]

    steps = [s for s in doc["steps"] if isinstance(s, dict)]
    split = any("metrics" in s for s in steps if s.get("source") == "agent")
    calls: dict[str, ToolCall] = {}
    by_time: dict[str, Round] = {}
    open_round: Round | None = None
    last_time: float | None = None
    last_stamp: Any = None

    def warn_at(message: str) -> None:
        ctx.warn(line, message)

    for step in steps:
        source = step.get("source")
        stamp = step.get("timestamp")
        moment = parse_time(stamp, warn_at, "timestamp") if stamp is not None else None
        flushed = (
            source == "agent"
            and bool(step.get("tool_calls"))
            and not step.get("observation")
            and moment is not None
            and last_time is not None
            and moment < last_time
        )
        if source == "user":
            text = content_text(step.get("message"))
            if text.lstrip().startswith(_NOTIFICATION):
                trace.metadata.setdefault("notifications", []).append(text)
            else:
                trace.add_user_message(text, at=moment)
                open_round = None
        elif source == "agent":
            if flushed:
                rnd = by_time.get(stamp) or (trace.rounds[-1] if trace.rounds else None)
            else:
                rnd = open_round
                continues = (
                    rnd is not None
                    and split
                    and "metrics" not in step
                    and (stamp == last_stamp or bool(_EXECUTED.match(str(step.get("message", "")))))
                )
                if not continues:
                    rnd = None
            if rnd is None:
                rnd = Round(index=len(trace.rounds) + 1, started_at=last_time, model=as_str(step.get("model_name")))
                trace.rounds.append(rnd)
                if stamp is not None:
                    by_time.setdefault(stamp, rnd)
            if not flushed:
                open_round = rnd
                if moment is not None:
                    rnd.ended_at = moment
            _add_step(rnd, step, calls, ctx, line)
        # system steps (prompts, harness notes) are neither rounds nor user messages
        if not flushed:
            if moment is not None:
                last_time = moment
            last_stamp = stamp

    if grade is not None:
        reward = grade.get("reward")
        if reward is not None:
            trace.labels["outcome"] = "success" if reward >= 1 else "failure"
            trace.metadata["reward"] = reward
    return finish_trace(trace, ctx.diagnostics, warn_missing_results=False)  # calls that never ran: see the module docstring


def _add_step(rnd: Round, step: dict, calls: dict[str, ToolCall], ctx: ReadContext, line: int) -> None:
    message = content_text(step.get("message"))
    if message and not _EXECUTED.match(message):
        rnd.text = f"{rnd.text}\n\n{message}" if rnd.text else message
    metrics = step.get("metrics")
    if isinstance(metrics, dict) and rnd.usage is None:
        counts = Counts(metrics, lambda m: ctx.warn(line, m), "metrics")
        prompt, completion, cached = counts.each("prompt_tokens", "completion_tokens", "cached_tokens")
        usage = Usage(prompt, completion, cached)
        rnd.usage = None if usage.is_empty() else usage
    extra = as_dict(step.get("extra"))
    reason = as_str(extra.get("stop_reason"))
    if reason is not None:
        rnd.finish_reason = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}.get(reason, reason)
    own: list[ToolCall] = []
    for raw in as_list(step.get("tool_calls")):
        if not isinstance(raw, dict):
            continue
        call = new_call(raw.get("tool_call_id"), raw.get("function_name"), raw.get("arguments"))
        rnd.tool_calls.append(call)
        own.append(call)
        if call.id:
            calls[call.id] = call
    results = as_list(as_dict(step.get("observation")).get("results"))
    waiting = list(own)
    for item in results:
        if not isinstance(item, dict):
            continue
        target = calls.get(as_str(item.get("source_call_id")) or "") or (waiting[0] if waiting else None)
        if target is None:
            ctx.warn(line, f"trace step {step.get('step_id')}: a result for no call ({item.get('source_call_id')!r})")
            continue
        if target in waiting:
            waiting.remove(target)
        target.result = _result(item, extra)


def _result(item: dict, extra: dict) -> ToolResult:
    content = item.get("content")
    text = content if isinstance(content, str) else content_text(content) if content is not None else ""
    meta = as_dict(extra.get("tool_result_metadata"))
    raw = as_dict(meta.get("raw_tool_result"))
    error = extra.get("tool_result_is_error")
    if not isinstance(error, bool):
        error = raw.get("is_error") if isinstance(raw.get("is_error"), bool) else None
    if error is None and text.rstrip().endswith(_ERROR_TAIL):
        error = True
    clean = raw.get("content")
    if isinstance(clean, str):
        text = clean
    elif isinstance(clean, list):
        text = content_text(clean)
    else:
        text = _APPENDED.sub("", text)
    return ToolResult(content=text, is_error=error)


def harbor_grade(ctx: ReadContext) -> dict | None:
    """The verifier's verdict Harbor stored for this trial: ``{"reward", "trial_name"}``
    from ``result.json`` beside the trajectory or one folder up (Harbor keeps the
    trajectory in ``<trial>/agent/``), else ``verifier/reward.txt``; ``None`` when
    neither exists. A reward of ``None`` means the verifier left no reward."""
    here = os.path.dirname(ctx.file) or "."
    for folder in (here, os.path.dirname(os.path.abspath(here))):
        path = os.path.join(folder, "result.json")
        if os.path.isfile(path):
            try:
                with open(path, "rb") as stream:
                    result = orjson.loads(stream.read())
            except (OSError, orjson.JSONDecodeError) as exc:
                ctx.warn(None, f"{path}: Harbor result unreadable ({failure(exc)}); outcome unknown")
                return None
            if not is_harbor_result(result):
                continue
            rewards = as_dict(as_dict(result.get("verifier_result")).get("rewards"))
            reward = rewards.get("reward")
            reward = reward if isinstance(reward, (int, float)) and not isinstance(reward, bool) else None
            if reward is None:
                reward = _reward_txt(folder)
            return {"reward": reward, "trial_name": as_str(result.get("trial_name"))}
        reward = _reward_txt(folder)
        if reward is not None:
            return {"reward": reward, "trial_name": None}
    return None


def _reward_txt(folder: str) -> float | None:
    try:
        with open(os.path.join(folder, "verifier", "reward.txt"), encoding="utf-8") as stream:
            return float(stream.read().strip())
    except (OSError, ValueError):
        return None
