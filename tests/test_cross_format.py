"""One looping run and one healthy run, written in every supported format, replay alike.

``crossformat.py`` holds the two canonical runs and a writer per format that puts them
on disk the way that format's own tool does. Every rendering is read back through the
public API and compared with the native rendering: the same rounds (how many, how many
calls each, which is the final answer), the same guard fires (code, round, phase,
action) with every guard selected, the same tokens per round where the format carries
per-round usage, and the same times where it carries them.

Where a format cannot carry something, the difference is written down here rather than
hidden: which formats have no error flag, no usage, no times, and the one format whose
tool names change what a guard can see (mini-swe-agent, where every call is ``bash``).
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from pathlib import Path

import pytest

import crossformat as cf
from tracecheck.config import load_settings
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.engine.replay import replay_trace
from tracecheck.readers.load import read_traces
from tracecheck.readers import READER_NAMES, reader_by_name

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")

FORMATS = list(cf.RENDERERS)
RUNS = list(cf.RUNS)

# --- what each format carries (from the readers' docstrings) -----------------------------

# Usage per round (a response's own token counts).
PER_ROUND_USAGE = {
    "native",
    "openai-chat",
    "langchain",
    "openai-responses",
    "openai-agents",
    "langsmith",
    "otel",
    "anthropic",
    "claude-code",
    "codex-cli",
    "autogen",
    "gemini-cli",
    "cline",
    "atif",
    "openhands",
    "openhands-v1",
    "inspect",
    "mini-swe-agent",
    "pydantic-ai",
    "smolagents",
}
# Only a run total: SWE-agent's info.model_stats (tokens_sent / tokens_received), Goose's
# accumulated_input_tokens / accumulated_output_tokens; Magentic-One's LLMCallEvent lines
# (every model call of every agent, tied to no round).
RUN_TOTAL_ONLY = {"swe-agent", "goose", "magentic-one"}
# Input per round, output only as a run total: Claude Code's stream lines repeat the usage
# the API sent when the response started (the input is the response's, the output count
# is not), and the result line holds the run's usage, output included.
INPUT_PER_ROUND_TOTAL_AT_END = {"claude-code-stream"}
# No usage at all: τ-bench results, SWE-smith's fine-tuning lines, ReAct text and
# Who&When runs (its histories keep the messages only).
NO_USAGE = {"tau-bench", "swe-smith", "react-text", "who-and-when"}

# An error flag on results (so a success reads back as is_error=False); the others
# leave it None and the guards fall back to failure patterns on the text.
ERROR_FLAG = {
    "native",
    "langchain",
    "openai-agents",
    "langsmith",
    "otel",
    "anthropic",
    "claude-code",
    "claude-code-stream",
    "autogen",
    "gemini-cli",
    "cline",
    "atif",
    "openhands",
    "openhands-v1",
    "inspect",
    "mini-swe-agent",
    "goose",
    "pydantic-ai",
    "smolagents",
}

# Round times. EXACT: the response's start and end are on disk. END_ONLY: only when the
# response arrived; the start is the timestamp of the event before it. CREATED_SECONDS:
# the Responses API's created_at, whole seconds, and no end. The rest have no times.
# (cline: the request's start from ui_messages.json, the response's end from its ts.)
EXACT_TIMES = {"native", "openai-chat", "openai-agents", "langsmith", "otel", "anthropic", "inspect", "pydantic-ai", "cline"}
END_ONLY_TIMES = {"claude-code", "codex-cli", "gemini-cli", "autogen", "magentic-one", "atif", "openhands", "openhands-v1", "mini-swe-agent"}
CREATED_SECONDS = {"openai-responses"}
# END_ONLY in whole seconds: Goose's "created" (Unix seconds, an integer) of the
# response's message; the start is the "created" of the message before it.
WHOLE_SECOND_ENDS = {"goose"}
# STEP_TIMES: a step's timing (smolagents) starts with the model call and ends after its
# tools ran: the round's start is exact, its end only for a round without calls.
STEP_TIMES = {"smolagents"}

# Formats written by Claude Code, which names the tools of an MCP server mcp__<server>__<tool>.
CLAUDE_CODE_NAMES = {"claude-code", "claude-code-stream"}

# Guards that find search calls by tool name (``*search*`` by default). mini-swe-agent
# calls everything "bash", so these guards see no search at all there: its fires are
# compared without them (test_mini_swe_agent_differs_by_tool_name_only shows that
# naming bash a search tool brings them back). R001/R002 are unaffected: the command
# text is identical across the loop and differs between the healthy run's calls.
SEARCH_NAME_GUARDS = {"P001", "P002", "P003", "B003"}
# P001 finds a search's query by argument name (query, q, ...): Magentic-One's calls are
# instructions to agents ({"instruction": ...}), so P001 sees no query there
# (test_magentic_one_differs_by_query_key_only shows that naming the key brings it back).
FIRE_EXCLUSIONS = {"mini-swe-agent": SEARCH_NAME_GUARDS, "magentic-one": {"P001"}, "who-and-when": {"P001"}}

# Warnings a format documents for runs like these: none so far.
EXPECTED_WARNINGS: dict[str, list[str]] = {}

# (format, run) -> reason, for a reader bug that makes a case fail (xfail, strict).
READER_BUGS: dict[tuple[str, str], str] = {}

# What the native rendering must give, so that a broken canonical run cannot make every
# comparison trivially equal.
LOOP_FIRES = [
    ("R001", 2, "before_tools", "hint"),
    ("R002", 2, "before_tools", "block"),
    ("P001", 3, "before_tools", "stop"),
    ("R001", 3, "before_tools", "stop"),
    ("R002", 3, "before_tools", "block"),
    ("P003", 3, "after_tools", "stop"),
    ("R002", 4, "before_tools", "block"),
]


def missing_reader(fmt: str) -> str | None:
    info = reader_by_name(fmt)
    if info is None:
        return f"no {fmt} reader registered yet"
    try:
        importlib.import_module(f"tracecheck.readers.{info.module}")
    except ImportError as exc:
        return f"the {fmt} reader cannot be imported yet ({exc})"
    return None


def cases():
    for fmt in FORMATS:
        for run in RUNS:
            marks = []
            reason = missing_reader(fmt)
            if reason:
                marks.append(pytest.mark.skip(reason=reason))
            if (fmt, run) in READER_BUGS:
                marks.append(pytest.mark.xfail(strict=True, reason=READER_BUGS[fmt, run]))
            yield pytest.param(fmt, run, marks=marks, id=f"{fmt}-{run}")


CASES = list(cases())


# --- reading and replaying, once per (format, run) ---------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cross_format")


def settings(*assignments: str):
    # cwd=/ so that no tracecheck.toml or pyproject.toml of the checkout is picked up.
    return load_settings(select=["ALL"], sets=assignments, cwd=Path("/"), preset="seeds")


@cache
def _read(fmt: str, run: str, root: str):
    folder = Path(root) / fmt / run
    folder.mkdir(parents=True)
    path = cf.RENDERERS[fmt](cf.RUNS[run], folder)
    diagnostics = Diagnostics()
    traces = list(read_traces([str(path)], diagnostics))
    return traces, [d.reason for d in diagnostics]


@pytest.fixture(scope="module")
def read_back(workdir):
    def read(fmt: str, run: str):
        traces, warnings = _read(fmt, run, str(workdir))
        assert len(traces) == 1, f"{fmt}: {len(traces)} traces read from one run"
        return traces[0], warnings

    return read


def fires(trace, *assignments: str) -> list[tuple[str, int, str, str]]:
    result = replay_trace(trace, settings(*assignments).build())
    return [(f.code, f.round, f.phase.value, f.action.value) for f in result.fires]


# --- the reference ------------------------------------------------------------------------


def test_native_rendering_is_the_reference(read_back):
    loop, warnings = read_back("native", "loop")
    assert warnings == []
    assert fires(loop) == LOOP_FIRES
    healthy, warnings = read_back("native", "healthy")
    assert warnings == []
    assert fires(healthy) == []
    assert [len(r.tool_calls) for r in loop.rounds] == [1, 1, 1, 1, 0]
    assert [len(r.tool_calls) for r in healthy.rounds] == [1, 1, 1, 0]


def test_every_registered_format_has_a_renderer():
    # A new reader needs a writer in crossformat.py, so that it is compared too.
    assert sorted(READER_NAMES) == sorted(FORMATS), "add a renderer to tests/crossformat.py"


# --- the comparisons ----------------------------------------------------------------------


@pytest.mark.parametrize("fmt,run", CASES)
def test_detected_and_read_without_warnings(read_back, fmt, run):
    trace, warnings = read_back(fmt, run)
    assert trace.format == fmt
    assert warnings == EXPECTED_WARNINGS.get(fmt, [])
    # Both runs end with an answer; none ended in an error.
    assert trace.error is None
    assert trace.answered


def tool_text(fmt: str, content: str) -> str:
    """The tool's own text inside a format's wrapper: OpenHands keeps an MCP tool's
    ``CallToolResult`` as JSON; mini-swe-agent wraps output in <returncode>/<output>
    (the text is inside as it is)."""
    if fmt == "openhands":
        return "\n".join(part["text"] for part in json.loads(content)["content"])
    return content


@pytest.mark.parametrize("fmt,run", CASES)
def test_same_rounds(read_back, fmt, run):
    trace, _ = read_back(fmt, run)
    native, _ = read_back("native", run)
    canonical = cf.RUNS[run]
    assert len(trace.rounds) == len(native.rounds) == len(canonical.steps)
    assert [r.index for r in trace.rounds] == list(range(1, len(canonical.steps) + 1))
    assert [len(r.tool_calls) for r in trace.rounds] == [len(r.tool_calls) for r in native.rounds]
    assert [r.is_final for r in trace.rounds] == [r.is_final for r in native.rounds]
    for rnd, step in zip(trace.rounds, canonical.steps):
        for call, expected in zip(rnd.tool_calls, step.calls):
            if fmt == "mini-swe-agent":  # one tool, bash; the argument is the command line
                assert (call.name, call.arguments) == ("bash", expected.command)
            elif fmt == "react-text":  # Action Input is plain text: the argument's value
                assert (call.name, call.arguments) == (expected.name, next(iter(expected.arguments.values())))
            elif fmt in ("magentic-one", "who-and-when"):  # an instruction (the argument's value) to the agent named after the tool
                assert (call.name, call.arguments) == (expected.name, {"instruction": next(iter(expected.arguments.values()))})
            else:  # parsed JSON objects; Claude Code and Goose prefix tools with their server
                rename = {f: cf.claude_code_name for f in CLAUDE_CODE_NAMES} | {"goose": cf.goose_name}
                name = rename[fmt](expected.name) if fmt in rename else expected.name
                assert (call.name, call.arguments) == (name, expected.arguments)
            assert call.arguments_error is None
            assert call.result is not None
            assert expected.result in tool_text(fmt, call.result.content)
            assert call.result.is_error is (False if fmt in ERROR_FLAG else None)


@pytest.mark.parametrize("fmt,run", CASES)
def test_same_fires(read_back, fmt, run):
    trace, _ = read_back(fmt, run)
    native, _ = read_back("native", run)
    excluded = FIRE_EXCLUSIONS.get(fmt, set())
    got = [f for f in fires(trace) if f[0] not in excluded]
    want = [f for f in fires(native) if f[0] not in excluded]
    assert got == want
    if excluded:
        # Excluded because they cannot see this format's calls, not because they disagree.
        assert [f for f in fires(trace) if f[0] in excluded] == []


def test_mini_swe_agent_differs_by_tool_name_only(read_back):
    """With ``bash`` named as the search tool, mini-swe-agent gives every native fire."""
    bash_is_search = ("P001.search_tools=bash", "P002.search_tools=bash", "P003.tools=bash", "B003.tools=bash")
    for run in RUNS:
        trace, _ = read_back("mini-swe-agent", run)
        native, _ = read_back("native", run)
        assert fires(trace, *bash_is_search) == fires(native)


def test_magentic_one_differs_by_query_key_only(read_back):
    """With ``instruction`` named as a query key, Magentic-One gives every native fire."""
    for run in RUNS:
        trace, _ = read_back("magentic-one", run)
        native, _ = read_back("native", run)
        assert fires(trace, "P001.query_keys=instruction") == fires(native)


@pytest.mark.parametrize("fmt,run", CASES)
def test_same_usage(read_back, fmt, run):
    trace, _ = read_back(fmt, run)
    canonical = cf.RUNS[run]
    per_round = [(s.input_tokens, s.output_tokens) for s in canonical.steps]
    native, _ = read_back("native", run)
    assert [(r.usage.input_tokens, r.usage.output_tokens) for r in native.rounds] == per_round
    if fmt in PER_ROUND_USAGE:
        assert [(r.usage.input_tokens, r.usage.output_tokens) for r in trace.rounds] == per_round
        assert trace.usage_total is None
    elif fmt in INPUT_PER_ROUND_TOTAL_AT_END:
        assert [(r.usage.input_tokens, r.usage.output_tokens) for r in trace.rounds] == [(i, None) for i, _ in per_round]
        total = trace.usage_total
        assert (total.input_tokens, total.output_tokens) == tuple(map(sum, zip(*per_round)))
    elif fmt in RUN_TOTAL_ONLY:
        assert [r.usage for r in trace.rounds] == [None] * len(per_round)
        total = trace.usage_total
        assert (total.input_tokens, total.output_tokens) == tuple(map(sum, zip(*per_round)))
    else:
        assert fmt in NO_USAGE
        assert [r.usage for r in trace.rounds] == [None] * len(per_round)
        assert trace.usage_total is None


@pytest.mark.parametrize("fmt,run", CASES)
def test_same_times(read_back, fmt, run):
    trace, _ = read_back(fmt, run)
    steps = cf.RUNS[run].steps
    starts = [r.started_at for r in trace.rounds]
    ends = [r.ended_at for r in trace.rounds]
    if fmt in EXACT_TIMES:
        assert starts == pytest.approx([s.started_at for s in steps], abs=1e-3)
        assert ends == pytest.approx([s.ended_at for s in steps], abs=1e-3)
    elif fmt in END_ONLY_TIMES:
        assert ends == pytest.approx([s.ended_at for s in steps], abs=1e-3)
        # The start is the event before the response: never after the response itself.
        assert all(start is not None and start <= s.started_at for start, s in zip(starts, steps))
    elif fmt in CREATED_SECONDS:
        assert starts == [float(int(s.started_at)) for s in steps]
    elif fmt in WHOLE_SECOND_ENDS:
        assert ends == [float(int(s.ended_at)) for s in steps]
        assert all(start is not None and start <= s.started_at for start, s in zip(starts, steps))
    elif fmt in STEP_TIMES:
        assert starts == pytest.approx([s.started_at for s in steps], abs=1e-3)
        assert ends == [pytest.approx(s.ended_at, abs=1e-3) if s.final else None for s in steps]
    else:
        assert starts == ends == [None] * len(steps)
