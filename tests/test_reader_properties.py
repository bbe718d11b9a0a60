"""Property tests: every reader, fed real transcripts damaged at random, never raises,
never needs its safety net, warns as ``file:line`` within the file, and never loses a
valid trace because of a broken one before it or beside it.

Seeds are the real files under ``tests/fixtures``, ``tests/corpus`` and ``sample_traces``.
Damage: truncation at a byte, flipped bytes, invalid UTF-8, any JSON value replaced by
one of another type (null, numbers, huge and non-ASCII numbers, strings, lists, objects,
deep nesting, a long string) or by a value copied from elsewhere in the file, one key's
value swapped wherever it occurs (null ids everywhere, numbers for every role), deleted
keys, duplicated records. Each reader is read with ``--input-format`` forced (the
reader's own robustness) and sniffed (whatever reader takes the damaged file); a few
examples per reader also go through ``replay``, ``show`` and ``convert``.

Where a broken part and a valid part meet:

- JSON Lines formats: a valid trace (its ids relabelled, so it cannot join a damaged
  trace) is appended after the damaged lines; it must come out as it does alone.
- documents whose traces are independent elements (Inspect samples, τ-bench results,
  conversation arrays, .eval members): damage is kept to one element, and every trace of
  the other elements must come out as it does without that element.
- any document: a valid file read after the damaged one must come out whole.

``TRACECHECK_FUZZ_EXAMPLES=N`` runs N random examples per reader (and N/20 through the
CLI); the default is a fixed, derandomized set of 200 (and 6), to keep the suite within its
five minutes on two cores; set the variable for a longer campaign.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import tempfile
import zipfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tracecheck.text.arguments import dump_json
from tracecheck.cli.main import app
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces
from tracecheck.readers import READER_NAMES
from tracecheck.readers.common import brief
from tracecheck.input.sources import Source, TextDocument, display_name, read_records

from conftest import usage_tuple

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
CORPUS = HERE / "corpus"
SAMPLES = HERE.parent / "sample_traces"

FUZZ_EXAMPLES = int(os.environ.get("TRACECHECK_FUZZ_EXAMPLES", "0"))
_SETTINGS = dict(
    derandomize=not FUZZ_EXAMPLES,
    deadline=timedelta(seconds=5),
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FUZZ = settings(max_examples=FUZZ_EXAMPLES or 200, **_SETTINGS)
CLI_FUZZ = settings(max_examples=max(FUZZ_EXAMPLES // 20, 6), **_SETTINGS)  # whole commands: fewer

# --- seeds: real inputs each reader reads ---------------------------------------------------

SEEDS: dict[str, list[Path]] = {
    "native": [
        SAMPLES / "seed004_query_db_identical.jsonl",
        SAMPLES / "healthy_pagination.jsonl",
        SAMPLES / "seed001_tool_failure_streak.jsonl",
    ],
    "openai-chat": [
        FIXTURES / "openai_chat" / "request_response.jsonl",
        FIXTURES / "openai_chat" / "messages.jsonl",
        FIXTURES / "openai_chat" / "batch_output.jsonl",
        FIXTURES / "openai_chat" / "batch_input.jsonl",
        FIXTURES / "openai_chat" / "finetune.jsonl",
        FIXTURES / "openai_chat" / "conversations.json",
        SAMPLES / "openai" / "seed004_query_db_identical.jsonl",
    ],
    "openai-responses": [
        FIXTURES / "openai_responses" / "function_loop.jsonl",
        FIXTURES / "openai_responses" / "hosted_tools.jsonl",
        FIXTURES / "openai_responses" / "items.jsonl",
        FIXTURES / "openai_responses" / "mcp_approval.jsonl",
        FIXTURES / "openai_responses" / "stream_events.jsonl",
        FIXTURES / "openai_responses" / "failures.jsonl",
        FIXTURES / "openai_responses" / "responses_array.json",
        FIXTURES / "openai_responses" / "state_items.json",
    ],
    "openai-agents": [
        FIXTURES / "openai_agents" / "weather.jsonl",
        FIXTURES / "openai_agents" / "two_traces.jsonl",
        FIXTURES / "openai_agents" / "ingest_body.json",
    ],
    "langchain": [
        FIXTURES / "langchain" / "message_per_line.jsonl",
        FIXTURES / "langchain" / "langgraph_runs.jsonl",
        FIXTURES / "langchain" / "openai_messages.json",
        FIXTURES / "langchain" / "dumpd_messages.json",
        FIXTURES / "langchain" / "react_steps.json",
        FIXTURES / "langchain" / "tool_agent_result.json",
        FIXTURES / "langchain" / "anthropic_messages.json",
        SAMPLES / "langchain" / "healthy_progressive_search.json",
    ],
    "langsmith": [
        FIXTURES / "langsmith" / "langgraph_runs.jsonl",
        FIXTURES / "langsmith" / "traceable_ingest.jsonl",
        FIXTURES / "langsmith" / "react_executor_runs.json",
        CORPUS / "langsmith-sdk" / "langsmith_py_wrap_openai_.json",
    ],
    "otel": [
        FIXTURES / "otel" / "genai_attributes.jsonl",
        FIXTURES / "otel" / "genai_events.jsonl",
        FIXTURES / "otel" / "openinference.jsonl",
        FIXTURES / "otel" / "openllmetry.jsonl",
        FIXTURES / "otel" / "split_trace.jsonl",
        FIXTURES / "otel" / "values_kvlist.jsonl",
    ],
    "anthropic": [
        FIXTURES / "anthropic" / "request_response.jsonl",
        FIXTURES / "anthropic" / "conversations.jsonl",
        FIXTURES / "anthropic" / "responses.jsonl",
        FIXTURES / "anthropic" / "conversation.json",
    ],
    "claude-code": [
        FIXTURES / "claude_code" / "session.jsonl",
        FIXTURES / "claude_code" / "sidechain_inline.jsonl",
        FIXTURES / "claude_code" / "agent-a7e91c2.jsonl",
        FIXTURES / "claude_code" / "api_error.jsonl",
        CORPUS / "claude-code-log" / "representative_messages.jsonl",
    ],
    "claude-code-stream": [
        FIXTURES / "claude_code_stream" / "claude-code.txt",
        FIXTURES / "claude_code_stream" / "subagent.jsonl",
        FIXTURES / "claude_code_stream" / "max_turns.jsonl",
        FIXTURES / "claude_code_stream" / "api_error.jsonl",
    ],
    "gemini-cli": [
        FIXTURES / "gemini_cli" / "session-2025-10-21T20-04-0b23371a.json",
        FIXTURES / "gemini_cli" / "session-2026-05-20T09-12-7c9e6679.jsonl",
        FIXTURES / "gemini_cli" / "session-2026-05-20T10-30-3f1a2b4c.jsonl",
        FIXTURES / "gemini_cli" / "checkpoint-before-refactor.json",
        FIXTURES / "gemini_cli" / "checkpoint-files.json",
    ],
    "codex-cli": [
        FIXTURES / "codex_cli" / "rollout-2025-10-16T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
        FIXTURES / "codex_cli" / "rollout-2025-10-16T11-00-00-0199a214-2b6e-7d31-9f0c-6c1f0e5d9a77.jsonl",
        FIXTURES / "codex_cli" / "rollout-2025-10-16T12-00-00-0199a215-0c4d-7a10-8e3b-51d2c6a0f4e1.jsonl",
        FIXTURES / "codex_cli" / "rollout-2025-08-21T09-14-02-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
        FIXTURES / "codex_cli" / "exec_loop.jsonl",
        FIXTURES / "codex_cli" / "exec_tools.jsonl",
    ],
    "goose": [
        FIXTURES / "goose" / "20250612_143020.jsonl",
        FIXTURES / "goose" / "20250820_091500.jsonl",
        FIXTURES / "goose" / "20251001_100000.jsonl",
        FIXTURES / "goose" / "goose-session-20251108_1.json",
        FIXTURES / "goose" / "goose_repo_test_deserialization.json",
    ],
    "autogen": [
        FIXTURES / "autogen" / "ag2_groupchat.json",
        FIXTURES / "autogen" / "ag2_chat_result.json",
        FIXTURES / "autogen" / "agentchat_task_result.json",
        FIXTURES / "autogen" / "openinference_weather_agent.json",
        FIXTURES / "autogen" / "repomaster_nvidia_drawdown.json",
    ],
    # Documents only: a log.jsonl names no run, so a valid run appended after damaged
    # lines cannot be told apart from them (no TAILS entry); the logs_list dumps are
    # checked as documents (a valid file after a damaged one comes out whole).
    "who-and-when": [
        CORPUS / "who-and-when" / "ag-52.json",
        CORPUS / "who-and-when" / "hc-14.json",
    ],
    "magentic-one": [
        FIXTURES / "magentic_one" / "outlook_unread_emails.json",
        FIXTURES / "magentic_one" / "max_rounds_logs_list.json",
    ],
    "openhands-v1": [
        FIXTURES / "openhands_v1" / "error.jsonl",
        FIXTURES / "openhands_v1" / "export.json",
        FIXTURES / "openhands_v1" / "search_page.json",
    ],
    "cline": [
        FIXTURES / "cline" / "real-mike4567-MRA04242026" / "api_conversation_history.json",
        FIXTURES / "cline" / "1741593612000" / "api_conversation_history.json",
        FIXTURES / "cline" / "0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7" / "api_conversation_history.json",
    ],
    "swe-agent": [
        FIXTURES / "swe_agent" / "psf__requests-2317.traj",
        FIXTURES / "swe_agent" / "xarray_exit_cost.traj",
        CORPUS / "SWE-agent" / "marshmallow-code__marshmallow-1867.traj",
        FIXTURES / "swe_agent" / "pallets__flask-4045.traj",
    ],
    "mini-swe-agent": [
        FIXTURES / "mini_swe_agent" / "count_py_v1.traj.json",
        FIXTURES / "mini_swe_agent" / "readme_typo.traj.json",
        FIXTURES / "mini_swe_agent" / "timeparse-17.traj.json",
        CORPUS / "mini-swe-agent" / "github_issue.traj.json",
    ],
    "atif": [
        CORPUS / "CodeTracer" / "qemu-startup__8shUpSy" / "trajectory.json",
        CORPUS / "CodeTracer" / "regex-log__XYfBZFy" / "trajectory.json",
    ],
    "openhands": [
        FIXTURES / "openhands" / "events.jsonl",
        FIXTURES / "openhands" / "output.jsonl",
        FIXTURES / "openhands" / "output_v1.jsonl",
        FIXTURES / "openhands" / "resolver_output.jsonl",
        FIXTURES / "openhands" / "editor_errors.json",
        CORPUS / "OpenHands" / "basic.json",
        CORPUS / "OpenHands" / "wrong_initial_state.json",
    ],
    "swe-smith": [
        FIXTURES / "swe_smith" / "tenacity.xml.jsonl",
    ],
    "inspect": [
        FIXTURES / "inspect_ai" / "research_eval.json",
        CORPUS / "inspect_ai" / "2025-05-12T20-27-36-04-00_browser.json",
        Path("research.eval"),  # built from research_eval.json (see _eval_archive)
    ],
    "tau-bench": [
        FIXTURES / "tau_bench" / "tau_results.json",
        FIXTURES / "tau_bench" / "tau2_results.json",
        FIXTURES / "tau_bench" / "tau_react.json",
        FIXTURES / "tau_bench" / "c0ffee00-1111-4222-8333-944455556666.json",
    ],
    "pydantic-ai": [
        FIXTURES / "pydantic_ai" / "real_roll_dice_gemini.json",
        FIXTURES / "pydantic_ai" / "weather_retries.json",
        FIXTURES / "pydantic_ai" / "legacy_runs.jsonl",
    ],
    # A whole smolagents file is one run (a valid run appended after damaged lines would
    # join it): its JSON Lines fixtures are not seeds, its documents are.
    "smolagents": [
        FIXTURES / "smolagents" / "code_agent_steps.json",
        FIXTURES / "smolagents" / "toolcalling_run_result.json",
    ],
    "react-text": [
        FIXTURES / "react_text" / "search_loop.txt",
        FIXTURES / "react_text" / "verbose_iteration_limit.txt",
        FIXTURES / "react_text" / "observation_first.txt",
    ],
}

# Documents whose traces are independent elements of one list: (file name, path to the list).
INDEPENDENT_ELEMENTS = {
    "research_eval.json": ("samples",),
    "tau_results.json": (),
    "tau2_results.json": ("simulations",),
    "conversations.json": (),
}


# --- the valid trace appended after damaged lines -------------------------------------------
#
# Each is a real file whose grouping ids are relabelled: a damaged line can then never
# name the valid trace and join it (which would be the format working as specified).

_ID_KEY = re.compile(r"^(id|trace|uuid|.*_id|.*Id|.*Uuid|conversation)$")


def _relabel(value, prefix: str = "tail-"):
    """Every id-like value (keys named id, *_id, *Id, *Uuid, trace) prefixed, consistently."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "dotted_order" and isinstance(item, str):
                # <time>Z<run id> segments: relabel the run ids.
                out[key] = ".".join(p.replace("Z", "Z" + prefix, 1) for p in item.split("."))
            elif _ID_KEY.match(key) and isinstance(item, (str, int)) and not isinstance(item, bool):
                out[key] = f"{prefix}{item}"
            else:
                out[key] = _relabel(item, prefix)
        return out
    if isinstance(value, list):
        return [_relabel(item, prefix) for item in value]
    return value


def _lines(path: Path, transform=lambda record: record) -> bytes:
    records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return b"".join(orjson.dumps(transform(_relabel(r))) + b"\n" for r in records)


def _with_thread(record):
    # Request/response logs continue a trace by resent history within a thread: a thread
    # id keeps the valid trace from continuing a damaged one that sent the same history.
    if isinstance(record, dict):
        record = {**record, "conversation_id": "tail-thread"}
    return record


TAILS = {
    "native": lambda: _lines(SAMPLES / "healthy_pagination.jsonl"),
    "openai-chat": lambda: _lines(FIXTURES / "openai_chat" / "request_response.jsonl", _with_thread),
    "openai-responses": lambda: _lines(FIXTURES / "openai_responses" / "function_loop.jsonl"),
    "openai-agents": lambda: _lines(FIXTURES / "openai_agents" / "weather.jsonl"),
    "langchain": lambda: _lines(FIXTURES / "langchain" / "langgraph_runs.jsonl"),
    "langsmith": lambda: _lines(FIXTURES / "langsmith" / "langgraph_runs.jsonl"),
    "otel": lambda: _lines(FIXTURES / "otel" / "genai_attributes.jsonl"),
    "anthropic": lambda: _lines(FIXTURES / "anthropic" / "request_response.jsonl", _with_thread),
    "claude-code": lambda: _lines(FIXTURES / "claude_code" / "session.jsonl"),
    "claude-code-stream": lambda: _lines(FIXTURES / "claude_code_stream" / "subagent.jsonl"),
    "codex-cli": lambda: _lines(FIXTURES / "codex_cli" / "rollout-2025-10-16T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"),
    # Its metadata line starts a session of its own after whatever the damaged lines left open.
    "goose": lambda: _lines(FIXTURES / "goose" / "20250612_143020.jsonl"),
    "gemini-cli": lambda: _lines(FIXTURES / "gemini_cli" / "session-2026-05-20T10-30-3f1a2b4c.jsonl"),
    "openhands": lambda: _lines(FIXTURES / "openhands" / "output_v1.jsonl"),
    # Starts with a SystemPromptEvent: the events after the damaged ones are another conversation.
    "openhands-v1": lambda: _lines(FIXTURES / "openhands_v1" / "error.jsonl"),
    "swe-smith": lambda: _lines(FIXTURES / "swe_smith" / "tenacity.xml.jsonl"),
    "react-text": lambda: (FIXTURES / "react_text" / "search_loop.txt").read_bytes(),
    "pydantic-ai": lambda: _lines(FIXTURES / "pydantic_ai" / "legacy_runs.jsonl"),
}

# --- values a damaged file may hold -----------------------------------------------------------


def _deep(depth: int, kind: str):
    value: object = "bottom"
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


SMALL_REPLACEMENTS = [
    None, True, False, 0, 1, -1, 1.5, -0.0, 1e300, -1e300, 2**53, 2**63, 2**64 - 1, 2**64, -(2**63) - 1,
    "", "x", "²", "٣", "12k", "nan", "inf", "-1", "9" * 30, "0" * 5000,
    "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", "attachment://missing",
    "assistant", "user", "tool", "function", "message", "text", "tool_use", "tool_result", "function_call",
    "ai", "error", "run", "llm", "chat", "execute_tool", "Action:", "submit", "\ud800",
    [], {}, [None], [1, "x"], {"": None}, {"type": None}, {"role": "assistant"}, [[]], [{}],
]
# Values too big to put in many places at once.
BIG_REPLACEMENTS = [_deep(300, "list"), _deep(300, "dict"), _deep(1000, "list"), "ab" * 300_000]
REPLACEMENTS = SMALL_REPLACEMENTS + BIG_REPLACEMENTS


class Draws:
    """The choices damage is made of, drawn from Hypothesis (shrinkable, reproducible)."""

    def __init__(self, data) -> None:
        self.data = data

    def choice(self, options, label: str):
        # Drawn by index, shown briefly: a failing example must not print a megabyte value.
        value = options[self.data.draw(st.integers(0, len(options) - 1), label=label)]
        note(f"{label}: {brief(value)}")
        return value

    def integer(self, low: int, high: int, label: str) -> int:
        return self.data.draw(st.integers(low, high), label=label)

    def boolean(self, label: str) -> bool:
        return self.data.draw(st.booleans(), label=label)


# --- applying damage --------------------------------------------------------------------------


def _nodes(root) -> list[tuple]:
    """Every path (a tuple of keys and indexes) in a JSON value, root first (iterative:
    the values may be deeper than Python's recursion limit)."""
    paths: list[tuple] = []
    stack = [((), root)]
    while stack:
        path, value = stack.pop()
        paths.append(path)
        if len(path) > 40:
            continue  # inside deep nesting there is nothing new to reach
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value))
    return paths


def _get(root, path):
    for key in path:
        root = root[key]
    return root


def _set(root, path, value):
    if not path:
        return value
    _get(root, path[:-1])[path[-1]] = value
    return root


def _copy(value):
    """An independent copy of a JSON value of any depth (a lone surrogate stays a string)."""
    if not isinstance(value, (list, dict)):
        return value
    text = dump_json(value)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # a lone surrogate inside: Python's decoder keeps it
        return json.loads(text)


def _is_field(value) -> bool:
    return value is None or isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 40)


def _damage_value(root, data, within: tuple = ()) -> object:
    """One structural change to ``root`` below ``within``: replace, copy over, delete a key,
    or duplicate a list element."""
    paths = [p for p in _nodes(root) if p[: len(within)] == within]
    if data.boolean("field"):
        # Half the time a field: a number, a flag, an id, a type, a role or a time rather
        # than message text, which is where a reader's assumptions live.
        fields = [p for p in paths if _is_field(_get(root, p))]
        paths = fields or paths
    op = data.choice(["replace", "replace", "replace", "copy", "delete", "duplicate", "everywhere"], "op")
    path = paths[data.integer(0, len(paths) - 1, "path")]
    if op == "everywhere":
        # One key's value swapped in every object that has it: null ids everywhere,
        # numbers for every role, and so on.
        keys = sorted({p[-1] for p in paths if p and isinstance(p[-1], str)})
        if not keys:
            return root
        key = keys[data.integer(0, len(keys) - 1, "key")]
        value = data.choice(SMALL_REPLACEMENTS, "value")
        for where in sorted(paths, key=len, reverse=True):  # inner ones first: outer paths stay valid
            if where and where[-1] == key:
                _set(root, where, _copy(value))
        return root
    if op == "replace":
        value = data.choice(REPLACEMENTS, "value")
        # A fresh copy: later changes to the damaged file must not change REPLACEMENTS.
        return _set(root, path, _copy(value))
    if op == "copy":
        source = _nodes(root)[data.integer(0, 10**6, "from") % len(_nodes(root))]
        return _set(root, path, _copy(_get(root, source)) if len(source) < 40 else None)
    parent_path = path[:-1]
    parent = _get(root, parent_path) if path else None
    if op == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    elif op == "duplicate" and isinstance(parent, list):
        parent.insert(path[-1], _copy(parent[path[-1]]))
    return root


def _damage_bytes(raw: bytes, data) -> bytes:
    if not raw:
        return raw
    op = data.choice(["truncate", "flip", "utf8"], "byte op")
    at = data.integer(0, len(raw) - 1, "offset")
    if op == "truncate":
        return raw[:at]
    if op == "flip":
        return raw[:at] + bytes([raw[at] ^ data.integer(1, 255, "xor")]) + raw[at + 1 :]
    bad = data.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00"], "bytes")
    return raw[:at] + bad + raw[at:]


def _serialize(value) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:  # too deep or too big for orjson: the iterative encoder
        return dump_json(value).encode("utf-8", "surrogatepass")


def _record_bytes(value) -> bytes:
    return dump_json(value).encode("utf-8", "surrogatepass") + b"\n"


def _is_json_lines(raw: bytes) -> bool:
    try:
        for line in raw.splitlines():
            if line.strip():
                orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


# --- reading and the properties -------------------------------------------------------------

SAFETY_NET = ("reader failed", "could not read this")


def _line_count(raw: bytes) -> int:
    return raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)


def _read(paths: list[Path], input_format: str | None):
    """Read through the public API; check the properties every read must have."""
    diagnostics = Diagnostics()
    traces = list(read_traces([str(p) for p in paths], diagnostics, input_format=input_format))
    lines = {display_name(str(p)): (1 if p.suffix == ".eval" else _line_count(p.read_bytes())) for p in paths}
    for warning in diagnostics:
        text = str(warning)
        assert not any(marker in warning.reason for marker in SAFETY_NET), text
        assert warning.file in lines, text
        assert warning.line is None or 1 <= warning.line <= lines[warning.file], (text, lines[warning.file])
    return traces, diagnostics


def _shape(trace) -> tuple:
    """What a trace says, without where it was read (ids, lines, file, metadata)."""
    return (
        trace.error,
        tuple(sorted(trace.labels.items())),
        usage_tuple(trace.usage_total),
        tuple(
            (
                rnd.text,
                rnd.finish_reason,
                rnd.model,
                usage_tuple(rnd.usage),
                rnd.started_at,
                rnd.ended_at,
                tuple(
                    (
                        call.name,
                        call.arguments_raw,
                        None if call.result is None else dataclasses.astuple(call.result)[:4],
                    )
                    for call in rnd.tool_calls
                ),
            )
            for rnd in trace.rounds
        ),
    )


def _assert_kept(expected: list, got: list, what: str) -> None:
    missing = Counter(map(_shape, expected)) - Counter(map(_shape, got))
    assert not missing, f"{what}: {sum(missing.values())} valid trace(s) lost or changed"


# --- .eval archives ---------------------------------------------------------------------------


def _eval_members() -> dict[str, bytes]:
    log = orjson.loads((FIXTURES / "inspect_ai" / "research_eval.json").read_bytes())
    samples = log.pop("samples")
    members = {"_journal/start.json": orjson.dumps({"version": log["version"], "eval": log["eval"], "plan": log["plan"]})}
    for sample in samples:
        members[f"samples/{sample['id']}_epoch_{sample['epoch']}.json"] = orjson.dumps(sample, option=orjson.OPT_INDENT_2)
    members["header.json"] = orjson.dumps(log)
    return members


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


ODD_MEMBER_NAMES = [
    "samples/²_epoch_1.json", "samples/x_epoch_².json", "samples/_epoch_1.json", "samples/.json",
    "samples/9_epoch_99999999999999999999999.json", "samples/a/b_epoch_1.json", "samples/é_epoch_1.json",
]


# --- the tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", READER_NAMES)
def test_every_reader_has_seeds_that_it_reads(reader, tmp_path):
    assert set(SEEDS) == set(READER_NAMES)
    for seed in SEEDS[reader]:
        path = _materialize(seed, tmp_path)
        traces, _ = _read([path], reader)
        assert traces, seed.name


def _materialize(seed: Path, directory: Path) -> Path:
    if seed.suffix == ".eval":
        path = directory / seed.name
        path.write_bytes(_zip(_eval_members()))
        return path
    return seed


@pytest.mark.parametrize("reader", READER_NAMES)
@FUZZ
@given(hypothesis_data=st.data())
def test_damaged_input_never_costs_a_valid_trace(reader, hypothesis_data):
    with tempfile.TemporaryDirectory() as tmp:
        check_damaged_input(reader, Draws(hypothesis_data), Path(tmp))


@pytest.mark.parametrize("reader", READER_NAMES)
@CLI_FUZZ
@given(hypothesis_data=st.data())
def test_damaged_input_through_the_cli(reader, hypothesis_data):
    # The commands users run: no internal error, a JSON report that parses, and a
    # conversion that reads back (a valid file beside the damaged one keeps exit code 0).
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as tmp:
        paths = [str(p) for p in check_damaged_input(reader, Draws(hypothesis_data), Path(tmp))]
        for command in (["replay", "--format", "json"], ["show"]):
            result = runner.invoke(app, [*command, "--input-format", reader, *paths], catch_exceptions=False)
            assert result.exit_code == 0, result.output
            assert "internal error" not in result.stderr
        report = runner.invoke(app, ["replay", "--format", "json", "--input-format", reader, *paths], catch_exceptions=False)
        json.loads(report.stdout)
        out = Path(tmp) / "converted.jsonl"
        converted = runner.invoke(app, ["convert", "--input-format", reader, *paths, "-o", str(out)], catch_exceptions=False)
        assert converted.exit_code == 0, converted.output
        _read([out], "native")


def check_damaged_input(reader: str, data: Draws, directory: Path) -> list[Path]:
    """Damage one seed of ``reader``, check every property; the files it read, the valid
    one last."""
    seed = data.choice(SEEDS[reader], "seed")
    if seed.suffix == ".eval":
        return _check_archive(reader, directory, data)
    raw = seed.read_bytes()
    if seed.suffix == ".txt":
        return _check_text(reader, raw, directory, data)
    if seed.suffix == ".jsonl" and _is_json_lines(raw):
        return _check_lines(reader, raw, directory, data)
    return _check_document(reader, seed, raw, directory, data)


def _damage_records(records: list, data) -> bytes:
    for _ in range(data.integer(0, 3, "changes")):
        if not records:
            break
        k = data.integer(0, len(records) - 1, "record")
        records[k] = _damage_value(records[k], data)
    out = b"".join(_record_bytes(r) for r in records)
    if data.boolean("damage bytes"):
        out = _damage_bytes(out, data)
    return out


def _check_lines(reader: str, raw: bytes, directory: Path, data) -> list[Path]:
    records = [orjson.loads(line) for line in raw.splitlines() if line.strip()]
    damaged = _damage_records(records, data)
    tail = TAILS[reader]()
    alone = directory / "tail.jsonl"
    alone.write_bytes(tail)
    expected, _ = _read([alone], reader)
    assert expected
    path = directory / "damaged.jsonl"
    path.write_bytes(damaged + (b"" if damaged.endswith(b"\n") or not damaged else b"\n") + tail)
    got, _ = _read([path], reader)
    _read([path], None)
    if not _source_reads_text(path):
        # (A file whose first lines are mostly broken — fewer than half of the next eight
        # are whole records — is taken for plain text by the source layer.)
        _assert_kept(expected, got, "the valid trace after the damaged lines")
    return [path, alone]


def _source_reads_text(path: Path) -> bool:
    first = next(read_records(Source(str(path)), Diagnostics()), None)
    return first is not None and isinstance(first.value, TextDocument)


def _check_document(reader: str, seed: Path, raw: bytes, directory: Path, data) -> list[Path]:
    value = orjson.loads(raw)
    within = INDEPENDENT_ELEMENTS.get(seed.name)
    elements = _get(value, within) if within is not None else None
    companion = directory / f"valid{''.join(seed.suffixes)}"
    companion.write_bytes(raw)
    expected_companion, _ = _read([companion], reader)
    path = directory / f"damaged{''.join(seed.suffixes)}"
    if isinstance(elements, list) and elements and data.boolean("one element"):
        # Damage one element only: every other element's traces must survive.
        k = data.integer(0, len(elements) - 1, "element")
        rest = orjson.loads(raw)
        del _get(rest, within)[k]
        path.write_bytes(_serialize(rest))
        expected, _ = _read([path], reader)
        for _ in range(data.integer(1, 3, "changes")):
            value = _damage_value(value, data, within + (k,))
        path.write_bytes(_serialize(value))
        got, _ = _read([path, companion], reader)
        _assert_kept(expected, got, f"the elements beside damaged element {k}")
    else:
        for _ in range(data.integer(0, 3, "changes")):
            value = _damage_value(value, data)
        damaged = _serialize(value)
        if data.boolean("damage bytes"):
            damaged = _damage_bytes(damaged, data)
        path.write_bytes(damaged)
        got, _ = _read([path, companion], reader)
    _assert_kept(expected_companion, got, "the valid file after the damaged one")
    _read([path], None)
    return [path, companion]


def _check_text(reader: str, raw: bytes, directory: Path, data) -> list[Path]:
    lines = raw.split(b"\n")
    for _ in range(data.integer(0, 3, "changes")):
        op = data.choice(["delete", "duplicate", "swap", "relabel"], "line op")
        k = data.integer(0, len(lines) - 1, "line")
        if op == "delete" and len(lines) > 1:
            del lines[k]
        elif op == "duplicate":
            lines.insert(k, lines[k])
        elif op == "swap":
            j = data.integer(0, len(lines) - 1, "other line")
            lines[k], lines[j] = lines[j], lines[k]
        else:
            label = data.choice([b"Thought:", b"Action:", b"Action Input:", b"Observation:", b"Final Answer:", b"Question:", b"> Entering new AgentExecutor chain...", b"> Finished chain."], "label")
            lines[k] = label + b" " + lines[k]
    damaged = b"\n".join(lines)
    if data.boolean("damage bytes"):
        damaged = _damage_bytes(damaged, data)
    companion = directory / "valid.txt"
    companion.write_bytes(TAILS[reader]())
    expected, _ = _read([companion], reader)
    path = directory / "damaged.txt"
    path.write_bytes(damaged)
    got, _ = _read([path, companion], reader)
    _assert_kept(expected, got, "the valid transcript after the damaged one")
    _read([path], None)
    return [path, companion]


def _check_archive(reader: str, directory: Path, data) -> list[Path]:
    members = _eval_members()
    samples = sorted(name for name in members if name.startswith("samples/"))
    target = data.choice(samples, "member")
    without = {name: body for name, body in members.items() if name != target}
    path = directory / "damaged.eval"
    path.write_bytes(_zip(without))
    expected, _ = _read([path], reader)
    op = data.choice(["rename", "json", "bytes"], "member op")
    if op == "rename":
        members[data.choice(ODD_MEMBER_NAMES, "name")] = members.pop(target)
    elif op == "json":
        value = orjson.loads(members[target])
        for _ in range(data.integer(1, 3, "changes")):
            value = _damage_value(value, data)
        members[target] = _serialize(value)
    else:
        members[target] = _damage_bytes(members[target], data)
    path.write_bytes(_zip(members))
    got, _ = _read([path], reader)
    _assert_kept(expected, got, f"the samples beside damaged member {target}")
    _read([path], None)
    valid = directory / "valid.eval"
    valid.write_bytes(_zip(_eval_members()))
    return [path, valid]
