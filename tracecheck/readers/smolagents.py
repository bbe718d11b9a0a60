"""smolagents agent memory: the step dicts of ``agent.memory.get_full_steps()`` (or
``get_succinct_steps()``), ``RunResult.dict()`` (``agent.run(..., return_full_result=True)``)
and step-callback logs of ``step.dict()`` one step per line.

Followed from the framework's own source, huggingface/smolagents ``src/smolagents/memory.py``
(``ActionStep.dict()``, ``PlanningStep.dict()``, ``TaskStep`` / ``FinalAnswerStep`` /
``SystemPromptStep`` through ``asdict``, ``ToolCall.dict()``), ``monitoring.py``
(``Timing``, ``TokenUsage``), ``utils.py`` (``AgentError.dict()``: ``{"type",
"message"}``) and ``agents.py`` (``_run_stream``, ``_handle_max_steps_reached``,
``ToolCallingAgent.process_tool_calls``, ``CodeAgent._step_stream``, ``RunResult``), as
stored for the 1.8 to 1.2x releases (2025-02 on). Two step shapes:

- 1.15 on: ``ActionStep`` ``{"step_number", "timing": {"start_time", "end_time",
  "duration"}, "model_input_messages", "tool_calls", "error", "model_output_message",
  "model_output", "code_action", "observations", "observations_images",
  "action_output", "token_usage": {"input_tokens", "output_tokens", "total_tokens"},
  "is_final_answer"}``; ``PlanningStep`` ``{"model_input_messages",
  "model_output_message", "plan", "timing", "token_usage"}``;
- 1.8 to 1.14: ``"step"`` (the step number), ``"start_time"``, ``"end_time"``,
  ``"duration"`` on the step itself, no ``token_usage`` (the Gradio UI of those versions
  set ``input_token_count`` / ``output_token_count`` on the step object; a log that kept
  them is read), no ``is_final_answer``.

Shapes on disk: a JSON array of steps; ``{"steps": [...]}`` (``RunResult.dict()``: its
``state``, ``output``, ``token_usage`` are read too); JSON Lines of one step per line.
smolagents itself writes no file (``memory.replay`` prints; OpenTelemetry export is
another format): these are what people dump with ``json.dump``. A whole file is one run.

Steps: a ``TaskStep`` (``task``, ``task_images``) opens a turn with its task. Each
``PlanningStep`` is one round (a model call: the plan is its text, it has no calls).
Each ``ActionStep`` is one round. Its text is ``model_output`` (else the content of
``model_output_message``); its calls are ``tool_calls`` (``{"id", "type": "function",
"function": {"name", "arguments"}}``): a ``CodeAgent`` step has one call named
``python_interpreter`` whose arguments are the code; when a ``ToolCallingAgent`` tool
failed, smolagents recorded no ``tool_calls``, and the calls are read from
``model_output_message.tool_calls``. ``FinalAnswerStep`` (``output``; older
``final_answer``) is not a round: its output is ``trace.metadata["final_answer"]``, as is
the last action's ``action_output``. ``SystemPromptStep`` is skipped.

Results: the step's ``observations`` answer its call. The step's ``error`` is that
call's error: ``is_error`` True, its text the error's ``message`` (after any
observations); a step without an error ran its call cleanly (False). With several
calls, smolagents joins their observations with newlines in call-id order: one line
per call gives each its own; otherwise each call gets the joined text. An error with
several calls belongs to the call whose name the message quotes (else the last one); the
others have no recorded result.

Final answer: the step marked ``is_final_answer`` (older steps: the last step, without
an error, calling ``final_answer`` or running code that does) is the run's answer: its
round has no calls (the answer is not a tool use) and keeps its text. The step
smolagents adds when the run hits ``max_steps`` (error ``AgentMaxStepsError``, no
model output, the forced answer as ``action_output``) is a round whose text is that
answer; the run ended by a limit (``ending="limit"``, ``trace.error``). Another error on
the last step (a model output that could not be parsed, a generation error) ends the
run in an error. A step with an error and no model output at all is no round.

Tokens per round from ``token_usage`` (``input_tokens`` is the prompt as the provider
counts it, cached tokens included; no cached or reasoning counts), older
``input_token_count`` / ``output_token_count``. ``RunResult.token_usage`` is the run
total, used only when no step has counts.

Times (Unix seconds): a round starts at its step's ``start_time`` (the model is called
first). Its ``end_time`` is after the tools ran: it is the round's end only for a round
without calls (a plan, the final answer, the max-steps answer), and the end of the
step's call results otherwise.

Trace id: the file's name. Outcome: never (no grade; ``state`` ``success`` is not one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from ..input.sources import Record
from ..model import Round, ToolCall, ToolResult, Trace
from .common import (
    Counts,
    as_dict,
    as_list,
    as_str,
    brief,
    content_text,
    dump_json,
    finish_trace,
    first_of,
    make_trace,
    make_usage,
    new_call,
    parse_time,
)
from .contract import ReadContext, first_item, read_with_reader

FORMAT = "smolagents"

_ACTION_KEYS = ("model_output_message", "observations", "tool_calls", "timing", "model_output", "action_output")
_MAX_STEPS = "AgentMaxStepsError"


def _kind(step: Any) -> str | None:
    """Which memory step a dict is (its class is not written): action, planning, task,
    final or system, else None."""
    if not isinstance(step, dict):
        return None
    if "step_number" in step or ("step" in step and "model_output_message" in step and "observations" in step):
        return "action" if any(key in step for key in _ACTION_KEYS) else None
    if "plan" in step and "model_output_message" in step:
        return "planning"
    if "task" in step and "task_images" in step:
        return "task"
    if "system_prompt" in step and len(step) == 1:
        return "system"
    if len(step) == 1 and ("output" in step or "final_answer" in step):
        return "final"
    return None


def _steps_of(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("steps"), list):
        return value["steps"]
    return value


def sniff(value: Any) -> bool:
    """A step list (or a line holding one step, or ``{"steps": [...]}``) whose first step
    is a task, planning or action step: shapes of smolagents' own ``dict()`` methods."""
    return _kind(first_item(_steps_of(value))) in ("action", "planning", "task")


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    return read_with_reader(_Reader(ctx), records, ctx)


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.trace: Trace | None = None
        self.last_action: tuple[Round, dict, int] | None = None  # the latest action step read
        self.finals: list[Any] = []
        self.run_total: Any = None

    def session(self, line: int) -> Trace:
        if self.trace is None:
            base = os.path.basename(self.ctx.file) or self.ctx.file
            self.trace = make_trace(None, FORMAT, self.ctx.file, base, line)
        self.trace.end_line = max(self.trace.end_line or line, line)
        return self.trace

    def record(self, value: Any, line: int) -> list[Trace]:
        if isinstance(value, dict) and isinstance(value.get("steps"), list):
            self.run_result(value, line)
            value = value["steps"]
        if isinstance(value, list):
            for index, step in enumerate(value):
                self.step(step, line, f" (step {index})")
        else:
            self.step(value, line, "")
        return []

    def run_result(self, value: dict, line: int) -> None:
        trace = self.session(line)
        state = as_str(value.get("state"))
        if state:
            trace.metadata["state"] = state
        if value.get("output") is not None:
            self.finals.append(value["output"])
        self.run_total = value.get("token_usage")

    def step(self, step: Any, line: int, where: str) -> None:
        kind = _kind(step)
        if kind is None:
            self.ctx.warn(line, f"not a smolagents memory step{where}: {brief(step)} skipped")
            return
        trace = self.session(line)
        if kind == "task":
            trace.add_user_message(content_text(step.get("task")), line=line)
        elif kind == "final":
            self.finals.append(first_of(step, ("output", "final_answer")))
        elif kind == "planning":
            rnd = self.new_round(step, line)
            rnd.text = as_str(step.get("plan")) or _message_text(step.get("model_output_message"))
            rnd.ended_at = self.times(step, line)[1]
        elif kind == "action":
            self.action(step, line)

    def times(self, step: dict, line: int) -> tuple[float | None, float | None]:
        timing = step.get("timing") if isinstance(step.get("timing"), dict) else step
        warn = lambda reason: self.ctx.warn(line, reason)  # noqa: E731 - a closure over the line
        return parse_time(timing.get("start_time"), warn, "start_time"), parse_time(timing.get("end_time"), warn, "end_time")

    def new_round(self, step: dict, line: int) -> Round:
        trace = self.session(line)
        rnd = Round(index=len(trace.rounds) + 1, line=line, started_at=self.times(step, line)[0])
        rnd.usage = _usage(step, lambda reason: self.ctx.warn(line, reason))
        message = as_dict(step.get("model_output_message"))
        rnd.model = as_str(as_dict(message.get("raw")).get("model"))
        trace.rounds.append(rnd)
        return rnd

    def action(self, step: dict, line: int) -> None:
        error = step.get("error")
        error_type = as_str(as_dict(error).get("type"))
        message = as_str(as_dict(error).get("message")) or (error if isinstance(error, str) else None)
        output = step.get("model_output")
        text = output if isinstance(output, str) else (content_text(output) if output is not None else _message_text(step.get("model_output_message")))
        calls = _calls(step)
        trace = self.session(line)
        if error_type == _MAX_STEPS:
            rnd = self.new_round(step, line)
            answer = step.get("action_output")
            rnd.text = text or ("" if answer is None else answer if isinstance(answer, str) else dump_json(answer))
            rnd.ended_at = self.times(step, line)[1]
            trace.error, trace.ending = message or _MAX_STEPS, "limit"
            self.last_action = None
            return
        if not text and not calls and step.get("model_output_message") is None:
            if error is not None:  # the model gave nothing (a generation error)
                trace.error, trace.ending = message or error_type or "error", "error"
            return
        rnd = self.new_round(step, line)
        rnd.text = text
        trace.error, trace.ending = None, None  # the model went on after any earlier error
        end = self.times(step, line)[1]
        if step.get("is_final_answer") is True:
            self.finish_answer(rnd, step, end)
            self.last_action = None
            return
        rnd.tool_calls = calls
        self.results(rnd, step, message, end, line)
        if error is not None and not calls:
            trace.error, trace.ending = message or error_type or "error", "error"
        self.last_action = (rnd, step, end) if "is_final_answer" not in step else None

    def finish_answer(self, rnd: Round, step: dict, end: float | None) -> None:
        rnd.tool_calls = []
        rnd.ended_at = end
        if step.get("action_output") is not None:
            self.finals.append(step["action_output"])

    def results(self, rnd: Round, step: dict, message: str | None, end: float | None, line: int) -> None:
        calls = rnd.tool_calls
        if not calls:
            return
        observations = step.get("observations")
        observed = observations if isinstance(observations, str) else ("" if observations is None else dump_json(observations))
        if message is not None:
            target = next((c for c in calls if f"'{c.name}'" in message or f"tool {c.name}," in message), calls[-1])
            text = f"{observed}\n{message}" if observed else message
            target.result = ToolResult(content=text, is_error=True, ended_at=end, line=line)
            return
        pieces = observed.split("\n") if len(calls) > 1 else [observed]
        for k, call in enumerate(calls):
            content = pieces[k] if len(pieces) == len(calls) else observed
            call.result = ToolResult(content=content, is_error=False, ended_at=end, line=line)

    def close(self) -> list[Trace]:
        trace = self.trace
        if trace is None:
            return []
        if self.last_action is not None and trace.error is None:
            rnd, step, end = self.last_action
            if _calls_final_answer(rnd.tool_calls):  # older steps: no is_final_answer
                self.finish_answer(rnd, step, end)
        if self.finals:
            final = self.finals[-1]
            trace.metadata["final_answer"] = final if isinstance(final, str) else dump_json(final)
        if trace.metadata.get("state") == "max_steps_error" and trace.ending is None:
            trace.ending = "limit"
        if all(r.usage is None for r in trace.rounds) and isinstance(self.run_total, dict):
            counts = Counts(self.run_total, lambda reason: self.ctx.warn(trace.line or 1, reason), "token_usage")
            trace.usage_total = make_usage(*counts.each("input_tokens", "output_tokens"))
        for rnd in trace.rounds:
            rnd.finish_reason = "tool_calls" if rnd.tool_calls else "stop"
        self.trace = None
        return [finish_trace(trace, self.ctx.diagnostics)]


_FINAL_CALL = re.compile(r"\bfinal_answer\s*\(")


def _calls_final_answer(calls: list[ToolCall]) -> bool:
    for call in calls:
        if call.name == "final_answer":
            return True
        if call.name == "python_interpreter" and isinstance(call.arguments, str) and _FINAL_CALL.search(call.arguments):
            return True
    return False


def _calls(step: dict) -> list[ToolCall]:
    listed = as_list(step.get("tool_calls")) or as_list(as_dict(step.get("model_output_message")).get("tool_calls"))
    calls = []
    for item in listed:
        function = as_dict(as_dict(item).get("function"))
        arguments = function.get("arguments")
        if function.get("name") == "python_interpreter" and isinstance(arguments, str):
            # CodeAgent: the code itself, not JSON
            calls.append(ToolCall(id=as_str(as_dict(item).get("id")) or "", name="python_interpreter", arguments_raw=arguments, arguments=arguments))
        else:
            calls.append(new_call(as_dict(item).get("id"), function.get("name"), {} if arguments is None else arguments))
    return calls


def _message_text(message: Any) -> str:
    content = as_dict(message).get("content")
    return content if isinstance(content, str) else (content_text(content) if content is not None else "")


def _usage(step: dict, warn) -> Any:
    usage = step.get("token_usage")
    if isinstance(usage, dict):
        return make_usage(*Counts(usage, warn, "token_usage").each("input_tokens", "output_tokens"))
    counts = Counts(step, warn, "")
    return make_usage(*counts.each("input_token_count", "output_token_count"))


__all__ = ["FORMAT", "read", "sniff"]
