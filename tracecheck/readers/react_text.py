"""ReAct text transcripts: LangChain's classic ``Thought / Action / Action Input /
Observation`` format (``create_react_agent``, ``initialize_agent`` ZERO_SHOT_REACT).

The whole file is one text record. A transcript starts at a ``Question:`` line or at
AgentExecutor's verbose ``> Entering new AgentExecutor chain...`` line, and ends at
the matching ``> Finished chain.``, at the next ``Question:`` (when the transcript
already has a question or a round) or at the end of the file: several transcripts
in one file give several traces. Text before the first transcript (a prompt header)
is skipped, and so is the prompt template's own format block (``Question: the input
question you must answer`` ...). Output of chains run by a tool (nested ``> Entering
new ... chain`` blocks) is skipped.

Rounds: each LLM completion (``Thought:`` or untagged text, ``Action:``, ``Action
Input:``; numbered spellings such as ``Action 1:`` / ``Action 1 Input:`` too) is one
round with at most one call: name = the Action, arguments = the Action Input as
plain text (surrounding spaces and quotes stripped, as LangChain's parser does; a
JSON object or array is also parsed, never a parse error). The ``Observation:``
that follows (over as many lines as it takes, up to the next label) is its result.
A completion LangChain could not parse (no ``Action:``, no ``Action Input:``, or an
action together with a final answer) and that got an Observation (such as
``Invalid Format: Missing 'Action:' after 'Thought:'``) is AgentExecutor's
``_Exception`` pseudo-step: a call of tool ``_Exception`` whose argument and result
are the observation, ``is_error`` True. Otherwise results have ``is_error`` None
(the text has no error flag). ``Final Answer:`` makes the final round (its text is
the answer). An Observation with no model output before it is reported and
ignored. A thought that neither acts nor answers at the end of a transcript is a
round without calls, and ``trace.error`` says the transcript has no Final Answer.

The executor's own "Agent stopped due to iteration limit or time limit." (or "...
max iterations.") is no model output: the run ended without an answer, so it sets
``trace.error`` and adds no round.

Trace id ``<file name>:<line of the transcript's first line>`` for the only transcript
of a file; among several, ``<file name>:<12 hex digits>`` of its content (``identity.py``). The ``Question:`` is the
user message (at its line, before the first round) that opens the one turn of a
transcript, and also ``metadata["input"]``; a later ``Question:`` starts a new
transcript, not a turn. Everything else in the text is the agent's or the tools'. Round, call and result lines are the lines they start on.
No ids (synthesized), no usage, no timestamps. Ending: the executor's iteration/time
limit stop → ``"limit"``; a ``Final Answer`` → ``answered``; a transcript that just
stops (``trace.error`` says it has no Final Answer) → unknown. No outcome: the text
carries no grade.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import orjson

from ..model import Round, ToolCall, ToolResult, Trace
from ..input.sources import Record, TextDocument
from .contract import ReadContext, read_each
from .common import finish_trace, make_trace

FORMAT = "react-text"

_LABEL = re.compile(
    r"^\s*(?P<label>Question|Thought\s*\d*|Action\s*\d*\s*Input\s*\d*|Action\s*\d*|Observation\s*\d*|Final\s+Answer)\s*:[ \t]?(?P<rest>.*)$"
)
_ENTER = re.compile(r"^\s*> Entering new (?P<name>.*?) chain\.\.\.\s*$")
_FINISHED = re.compile(r"^\s*> Finished chain\.\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_STOPPED = (
    "Agent stopped due to iteration limit or time limit.",
    "Agent stopped due to max iterations.",
)
_TEMPLATE_QUESTION = "the input question you must answer"
_EXCEPTION_TOOL = "_Exception"


_REACT_ACTION = re.compile(r"^\s*(Action\s*\d*\s*:|Final Answer\s*:)", re.M)


def sniff(value: Any) -> bool:
    return isinstance(value, TextDocument) and bool(_REACT_ACTION.search(value.text))


def read(records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
    def transcript(value: Any, line: int) -> Iterator[Trace]:
        if not isinstance(value, TextDocument):
            ctx.warn(line, "not a plain-text ReAct transcript; skipped")
            return
        yield from _Parser(ctx, line).run(value.text)

    return read_each(records, ctx, transcript, what="transcript")


def _kind(label: str) -> str:
    word = re.sub(r"[\s\d]+", " ", label).strip()
    return {"Action Input": "input", "Action": "action", "Thought": "thought", "Observation": "observation",
            "Question": "question"}.get(word, "final")


def _plain_call(name: str, text: str) -> ToolCall:
    """A call whose input is free text: kept raw, parsed only when it is a JSON object/array."""
    parsed: Any = text
    if text.lstrip()[:1] in ("{", "["):
        try:
            decoded = orjson.loads(text)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, (dict, list)):
            parsed = decoded
    return ToolCall(id="", name=name, arguments_raw=text, arguments=parsed)


class _Completion:
    """One LLM completion being collected."""

    __slots__ = ("line", "thought", "action", "input", "final", "has_input", "has_final")

    def __init__(self, line: int) -> None:
        self.line = line
        self.thought: list[str] = []
        self.action: str | None = None
        self.input: list[str] = []
        self.final: list[str] = []
        self.has_input = False
        self.has_final = False

    def empty(self) -> bool:
        return self.action is None and not self.has_input and not self.has_final and not "".join(self.thought).strip()

    def well_formed_action(self) -> bool:
        return self.action is not None and bool(self.action.strip()) and self.has_input and not self.has_final

    def thought_text(self) -> str:
        return "\n".join(self.thought).strip()

    def input_text(self) -> str:
        return "\n".join(self.input).strip().strip('"')


class _Transcript:
    __slots__ = ("line", "end_line", "question", "question_line", "rounds", "error", "template", "no_answer")

    def __init__(self, line: int, template: bool = False) -> None:
        self.line = line
        self.end_line = line
        self.question: list[str] | None = None
        self.question_line: int | None = None
        self.rounds: list[Round] = []
        self.error: str | None = None
        self.template = template
        self.no_answer = False

    def has_content(self) -> bool:
        return self.question is not None or bool(self.rounds)


class _Parser:
    def __init__(self, ctx: ReadContext, first_line: int) -> None:
        self.ctx = ctx
        self.first_line = first_line
        self.base = os.path.basename(ctx.file) or ctx.file
        self.current: _Transcript | None = None
        self.completion: _Completion | None = None
        self.observation: tuple[ToolCall, list[str]] | None = None  # the call being answered
        self.section: str | None = None  # where an untagged line goes
        self.depth = 0  # verbose chain nesting: 1 = the agent's own chain
        self.done: list[Trace] = []

    # transcript boundaries -----------------------------------------------------------

    def open(self, line: int, template: bool = False) -> None:
        self.close()
        self.current = _Transcript(line, template)
        self.section = None

    def close(self) -> None:
        transcript = self.current
        if transcript is None:
            return
        self.flush_observation()
        self.flush_completion(at_end=True)
        self.current = None
        self.section = None
        if transcript.template or not (transcript.has_content() or transcript.error):
            return
        trace = make_trace(None, FORMAT, self.ctx.file, self.base, transcript.line)
        trace.end_line = transcript.end_line
        if transcript.question is not None:
            trace.metadata["input"] = "\n".join(transcript.question).strip()
            trace.add_user_message(trace.metadata["input"], line=transcript.question_line)
        trace.rounds = transcript.rounds
        if transcript.error is not None:
            trace.error = transcript.error
            trace.ending = "limit"  # only the executor's iteration/time-limit stop sets it
        elif transcript.no_answer:
            trace.error = "the transcript ends without a Final Answer"
        self.done.append(finish_trace(trace, self.ctx.diagnostics))

    def ensure_open(self, line: int) -> _Transcript:
        if self.current is None:
            self.open(line)
        return self.current  # type: ignore[return-value]

    # rounds ---------------------------------------------------------------------------

    def flush_observation(self) -> None:
        if self.observation is not None:
            call, lines = self.observation
            content = "\n".join(lines).strip()
            call.result.content = content  # type: ignore[union-attr]
            if call.name == _EXCEPTION_TOOL:
                # AgentExecutor runs _Exception with the error text as its input.
                call.arguments_raw = call.arguments = content
            self.observation = None

    def flush_completion(self, at_end: bool = False) -> None:
        """Turn a completion that got no Observation into a round (an answer, or a call
        left without a result)."""
        comp, self.completion = self.completion, None
        transcript = self.current
        if comp is None or transcript is None or comp.empty():
            return
        if comp.has_final and comp.action is None:
            answer = "\n".join(comp.final).strip()
            if answer in _STOPPED:
                transcript.error = answer
                return
            transcript.rounds.append(Round(index=0, text=answer, line=comp.line))
            return
        rnd = Round(index=0, text=comp.thought_text(), line=comp.line)
        if comp.action is not None:
            rnd.tool_calls.append(_plain_call(comp.action.strip(), comp.input_text()))
        elif at_end:
            transcript.no_answer = True
        transcript.rounds.append(rnd)

    def start_completion(self, line: int) -> _Completion:
        if self.completion is None:
            self.completion = _Completion(line)
        return self.completion

    def observe(self, text: str, line: int) -> None:
        transcript = self.ensure_open(line)
        comp, self.completion = self.completion, None
        if comp is None or comp.empty():
            self.ctx.warn(line, f"trace {self.base}:{transcript.line}: Observation with no Action before it; ignored")
            self.section = "ignore"
            return
        rnd = Round(index=0, text=comp.thought_text(), line=comp.line)
        result = ToolResult(content="", line=line)
        if comp.well_formed_action():
            call = _plain_call(comp.action.strip(), comp.input_text())  # type: ignore[union-attr]
        else:
            # LangChain could not parse this completion; the observation is its error.
            call = ToolCall(id="", name=_EXCEPTION_TOOL, arguments_raw="", arguments="")
            result.is_error = True
        call.result = result
        rnd.tool_calls.append(call)
        transcript.rounds.append(rnd)
        self.observation = (call, [text])
        self.section = "observation"

    # lines ----------------------------------------------------------------------------

    def run(self, text: str) -> Iterator[Trace]:
        for offset, raw in enumerate(text.split("\n")):
            self.line(_ANSI.sub("", raw.rstrip("\r")), self.first_line + offset)
            # Hand over finished transcripts as they come; keep the last one back, since
            # the executor prints "Agent stopped ..." after its "> Finished chain.".
            while len(self.done) > 1:
                yield self.done.pop(0)
        self.close()
        yield from self.done

    def line(self, text: str, number: int) -> None:
        if _ENTER.match(text):
            if self.depth == 0:
                self.open(number)
            self.depth += 1
            return
        if _FINISHED.match(text):
            if self.depth > 1:
                self.depth -= 1
            elif self.depth == 1:
                self.depth = 0
                if self.current is not None:
                    self.current.end_line = number
                self.close()
            return
        if self.depth > 1:
            return  # output of a chain a tool ran, not the agent's text
        stripped = text.strip()
        if stripped in _STOPPED:
            if self.current is None and self.done:
                # The executor's output printed after its "> Finished chain.".
                self.done[-1].error = stripped
                self.done[-1].ending = "limit"
                self.done[-1].end_line = number
                return
            transcript = self.ensure_open(number)
            self.flush_observation()
            comp = self.completion
            if comp is not None and comp.action is None and not comp.has_input and not comp.has_final:
                self.completion = None  # a thought cut off by the stop is no model step
            self.flush_completion()
            transcript.error = stripped
            transcript.end_line = number
            self.section = "ignore"
            return
        match = _LABEL.match(text)
        if match is None:
            self.untagged(text, number)
            return
        kind, rest = _kind(match.group("label")), match.group("rest")
        if kind == "question":
            if self.current is None or self.current.has_content() or self.current.template:
                self.open(number, template=rest.strip() == _TEMPLATE_QUESTION)
            self.current.question = [rest]  # type: ignore[union-attr]
            self.current.question_line = number  # type: ignore[union-attr]
            self.current.end_line = number  # type: ignore[union-attr]
            self.section = "question"
            return
        transcript = self.ensure_open(number)
        if transcript.template:
            return  # the prompt's format description, not a run
        transcript.end_line = number
        self.flush_observation()
        if kind == "observation":
            self.observe(rest, number)
            return
        comp = self.completion
        if kind == "thought":
            if comp is not None and (comp.action is not None or comp.has_input or comp.has_final):
                self.flush_completion()  # a new completion though the last got no Observation
            comp = self.start_completion(number)
            comp.thought.append(rest)
            self.section = "thought"
        elif kind == "action":
            if comp is not None and (comp.action is not None or comp.has_final):
                self.flush_completion()
            comp = self.start_completion(number)
            comp.action = rest
            self.section = "action"
        elif kind == "input":
            comp = self.start_completion(number)
            comp.has_input = True
            comp.input.append(rest)
            self.section = "input"
        else:  # Final Answer
            comp = self.start_completion(number)
            comp.has_final = True
            comp.final.append(rest)
            self.section = "final"

    def untagged(self, text: str, number: int) -> None:
        if self.current is None:
            return  # prompt header or other text before any transcript
        if self.current.template:
            return
        section = self.section
        if section == "ignore":
            return
        if text.strip():
            self.current.end_line = number
        if section == "question":
            self.current.question.append(text)  # type: ignore[union-attr]
        elif section == "observation" and self.observation is not None:
            self.observation[1].append(text)
        elif section == "input" and self.completion is not None:
            self.completion.input.append(text)
        elif section == "final" and self.completion is not None:
            self.completion.final.append(text)
        elif section == "action" and self.completion is not None:
            if text.strip():
                self.completion.thought.append(text)  # text after the action name: keep it visible
        elif text.strip():
            # Untagged model text (verbose logs print the first thought without "Thought:").
            comp = self.start_completion(number)
            comp.thought.append(text)
            self.section = "thought"
