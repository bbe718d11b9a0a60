"""Regression tests for inputs that used to cost data or kill a command: each bad value is
one ``file:line: reason`` warning, every other trace of the file is still reported, and
``--strict`` turns the warning into exit code 2. Run through the CLI, as a user meets them."""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import pytest

from tracecheck.text.arguments import dump_json
from tracecheck.readers.common import format_time, parse_time

from conftest import FIXTURES, read_with_diagnostics, shown_ids, usage_tuple, without_digests

NOT_A_COUNT = "is not a token count (a whole number from 0 to 2**53 - 1); read as unknown"
NOT_A_TIME = "is not a usable time (out of range or not finite); read as unknown"


# --- helpers --------------------------------------------------------------------------------


def _records(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _set(value, path: tuple, new) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


def _write_lines(path: Path, records: list) -> Path:
    # json.dumps writes what orjson would not: integers past 64 bits, 1e300, NaN.
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def _changed_copy(fixture: Path, record: int, path: tuple, value, directory: Path) -> tuple[Path, int]:
    """The fixture with one value replaced, written as its tool writes it; (file, line of the change)."""
    out = directory / fixture.name
    if fixture.suffix == ".jsonl":
        records = _records(fixture)
        _set(records[record], path, value)
        return _write_lines(out, records), record + 1
    document = json.loads(fixture.read_text(encoding="utf-8"))
    _set(document, path, value)
    out.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    return out, 1


def _replay(cli, path: Path, *options: str):
    """(exit code, report) of ``replay --format json``; the report must be valid JSON."""
    result = cli("replay", "--format", "json", *options, str(path))
    return result.exit_code, (json.loads(result.stdout) if result.exit_code == 0 else None), result


def _warnings(result) -> list[str]:
    return [line.removeprefix("warning: ") for line in result.stderr.splitlines() if line.startswith("warning: ")]


def _ids(traces) -> list[str]:
    return [t.id for t in traces]


# --- the native reader: one bad event costs only itself -----------------------------------


def _native_run(trace: str, usage: dict | None = None, started_at=None) -> list[dict]:
    first = {
        "type": "round",
        "trace": trace,
        "model": "gpt-4o-2024-08-06",
        "started_at": "2026-03-04T09:15:00.000Z",
        "ended_at": "2026-03-04T09:15:01.250Z",
        "tool_calls": [{"id": f"{trace}-c1", "name": "web_search", "arguments": '{"query": "weather Paris"}'}],
        "usage": {"input_tokens": 612, "output_tokens": 41},
    }
    if usage is not None:
        first["usage"] = usage
    if started_at is not None:
        first["started_at"] = started_at
    return [
        first,
        {"type": "result", "trace": trace, "call_id": f"{trace}-c1", "content": "11°C, light rain"},
        {"type": "round", "trace": trace, "text": "11°C and light rain in Paris.", "usage": {"input_tokens": 700, "output_tokens": 12}},
    ]


# Token counts a log can hold that are no count: how each is shown in the warning.
BAD_COUNTS = [
    ("²", "'²'"),  # str.isdigit() says yes, int() says no: the native reader lost the rest of the file
    ("٣", "'٣'"),  # an Arabic-Indic three: int() reads it, a count it is not
    (-5, "-5"),
    ("12k", "'12k'"),
    ([], "an empty array"),
    ({}, "an empty object"),
    (1.5, "1.5"),
    (2**53, "9007199254740992"),
    (1e300, "1e+300"),  # became a 301-digit integer that broke the JSON report
    (2**64, "1.8446744073709552e+19"),  # orjson reads it as a float
    ("9" * 20, "'99999999999999999999'"),
]


@pytest.mark.parametrize(("value", "shown"), BAD_COUNTS, ids=[shown for _, shown in BAD_COUNTS])
def test_native_token_count_that_is_no_count_is_one_warning_and_every_trace_is_read(value, shown, tmp_path, cli):
    path = _write_lines(
        tmp_path / "runs.jsonl",
        _native_run("first") + _native_run("second", usage={"input_tokens": value, "output_tokens": 17}) + _native_run("third"),
    )
    code, report, result = _replay(cli, path)
    assert code == 0, result.output
    assert [t["id"] for t in report["traces"]] == ["first", "second", "third"]
    assert _warnings(result) == [f"{path}:4: trace second: usage.input_tokens {shown} {NOT_A_COUNT}"]

    traces, _ = read_with_diagnostics(path)
    assert usage_tuple(traces[1].rounds[0].usage) == (None, 17, None, None)  # the good count is kept
    assert cli("replay", "--strict", str(path)).exit_code == 2


def test_native_bug_on_one_event_costs_only_that_event(tmp_path, cli, monkeypatch):
    # The last-resort guard around each event: a reader bug (simulated here) on one
    # event is a warning at its line; the events and traces after it are still read.
    import tracecheck.readers.native as native

    real = native.content_text

    def failing(value):
        if value == "boom":
            raise RuntimeError("simulated reader bug")
        return real(value)

    monkeypatch.setattr(native, "content_text", failing)
    runs = _native_run("first") + [{"type": "round", "trace": "first", "text": "boom"}] + _native_run("second")
    path = _write_lines(tmp_path / "runs.jsonl", runs)
    code, report, result = _replay(cli, path)
    assert code == 0
    assert [t["id"] for t in report["traces"]] == ["first", "second"]
    assert _warnings(result) == [f"{path}:4: could not read this event (RuntimeError: simulated reader bug)"]
    assert cli("replay", "--strict", str(path)).exit_code == 2


def test_native_field_of_the_wrong_type_is_reported_not_kept(tmp_path, cli):
    runs = _native_run("first")
    runs[0]["model"] = {"name": "gpt-4o"}
    runs[0]["usage"] = "612 in, 41 out"
    path = _write_lines(tmp_path / "runs.jsonl", runs + _native_run("second"))
    code, report, result = _replay(cli, path)
    assert code == 0 and [t["id"] for t in report["traces"]] == ["first", "second"]
    assert sorted(_warnings(result)) == [
        f"{path}:1: trace first: 'model' must be a string, not an object of 1 item; ignored",
        f"{path}:1: trace first: 'usage' must be an object, not '612 in, 41 out'; ignored",
    ]


# --- token counts in every reader that reads usage ----------------------------------------

# (reader, fixture, record, path to a count, how the warning names it)
USAGE_FIELDS = [
    ("openai-chat", FIXTURES / "openai_chat" / "request_response.jsonl", 0, ("response", "usage", "prompt_tokens"), "usage.prompt_tokens"),
    ("openai-responses", FIXTURES / "openai_responses" / "function_loop.jsonl", 0, ("response", "usage", "input_tokens"), "usage.input_tokens"),
    ("openai-agents", FIXTURES / "openai_agents" / "weather.jsonl", 1, ("span_data", "usage", "input_tokens"), "usage.input_tokens"),
    ("langchain", FIXTURES / "langchain" / "langgraph_runs.jsonl", 0, (1, "data", "usage_metadata", "input_tokens"), "usage_metadata.input_tokens"),
    (
        "langsmith",
        FIXTURES / "langsmith" / "langgraph_runs.jsonl",
        3,  # an llm run of the agent (record 1 runs inside a tool: not a round)
        ("outputs", "generations", 0, 0, "message", "kwargs", "usage_metadata", "input_tokens"),
        "usage_metadata.input_tokens",
    ),
    (
        "otel",
        FIXTURES / "otel" / "genai_attributes.jsonl",
        0,
        ("resourceSpans", 0, "scopeSpans", 0, "spans", 0, "attributes", 7, "value"),
        "gen_ai.usage.input_tokens",
    ),
    ("anthropic", FIXTURES / "anthropic" / "request_response.jsonl", 0, ("response", "usage", "input_tokens"), "usage.input_tokens"),
    ("claude-code", FIXTURES / "claude_code" / "session.jsonl", 3, ("message", "usage", "input_tokens"), "usage.input_tokens"),
    ("swe-agent", FIXTURES / "swe_agent" / "psf__requests-2317.traj", 0, ("info", "model_stats", "tokens_sent"), "info.model_stats.tokens_sent"),
    (
        "mini-swe-agent",
        FIXTURES / "mini_swe_agent" / "timeparse-17.traj.json",
        0,
        ("messages", 2, "extra", "response", "usage", "prompt_tokens"),
        "usage.prompt_tokens",
    ),
    (
        "openhands",
        FIXTURES / "openhands" / "output.jsonl",
        0,
        ("history", 3, "tool_call_metadata", "model_response", "usage", "prompt_tokens"),
        "usage.prompt_tokens",
    ),
    ("inspect", FIXTURES / "inspect_ai" / "research_eval.json", 0, ("samples", 0, "events", 4, "output", "usage", "input_tokens"), "output.usage.input_tokens"),
    (
        "tau-bench",
        FIXTURES / "tau_bench" / "c0ffee00-1111-4222-8333-944455556666.json",
        0,
        ("messages", 1, "raw_data", "usage", "prompt_tokens"),
        "raw_data.usage.prompt_tokens",
    ),
]


@pytest.mark.parametrize(("reader", "fixture", "record", "path", "field"), USAGE_FIELDS, ids=[u[0] for u in USAGE_FIELDS])
def test_every_reader_reports_a_token_count_that_is_no_count(reader, fixture, record, path, field, tmp_path, cli):
    bad = {"stringValue": "12k"} if reader == "otel" else "12k"
    changed, line = _changed_copy(fixture, record, path, bad, tmp_path)
    original, _ = read_with_diagnostics(fixture)

    code, report, result = _replay(cli, changed)
    assert code == 0, result.output
    assert [t["id"] for t in report["traces"]] == _ids(original)  # nothing else lost
    reported = [w for w in _warnings(result) if NOT_A_COUNT in w]
    assert len(reported) == 1 and reported[0].startswith(f"{changed}:{line}: "), _warnings(result)
    assert f"{field} '12k' {NOT_A_COUNT}" in reported[0]
    assert cli("replay", "--strict", str(changed)).exit_code == 2


def test_a_count_too_large_for_json_no_longer_breaks_the_report(tmp_path, cli):
    # 1e300 used to become a 301-digit integer, which the JSON report cannot write.
    records = _records(FIXTURES / "openai_chat" / "request_response.jsonl")
    records[0]["response"]["usage"]["completion_tokens"] = 1e300
    records[1]["response"]["usage"]["prompt_tokens"] = 2**64 + 1
    path = _write_lines(tmp_path / "log.jsonl", records)
    code, report, result = _replay(cli, path)
    assert code == 0, result.output
    assert len([w for w in _warnings(result) if NOT_A_COUNT in w]) == 2
    assert all(isinstance(t["tokens"], int) and t["tokens"] < 2**53 for t in report["traces"])


# --- timestamps ----------------------------------------------------------------------------

BAD_TIMES = [
    ("nan", "'nan'"),
    ("inf", "'inf'"),
    (1e300, "1e+300"),
    (-1e300, "-1e+300"),
    ("0001-01-01T00:00:00+05:00", "'0001-01-01T00:00:00+05:00'"),  # before year 1 in UTC
    ("9999-12-31T23:59:59-05:00", "'9999-12-31T23:59:59-05:00'"),  # after year 9999 in UTC
]


@pytest.mark.parametrize(("value", "shown"), BAD_TIMES, ids=[shown for _, shown in BAD_TIMES])
def test_native_time_out_of_range_is_unknown_and_show_and_convert_still_work(value, shown, tmp_path, cli):
    path = _write_lines(tmp_path / "runs.jsonl", _native_run("first", started_at=value) + _native_run("second"))

    shown_result = cli("show", str(path))
    assert shown_result.exit_code == 0, shown_result.output
    assert "trace first" in shown_result.stdout and "trace second" in shown_result.stdout
    assert _warnings(shown_result) == [f"{path}:1: trace first: started_at {shown} {NOT_A_TIME}"]

    out = tmp_path / "converted.jsonl"
    converted = cli("convert", str(path), "-o", str(out))
    assert converted.exit_code == 0, converted.output
    again, diagnostics = read_with_diagnostics(out)
    assert _ids(again) == ["first", "second"] and len(diagnostics) == 0
    assert again[0].rounds[0].started_at is None and again[0].rounds[0].ended_at is not None

    assert cli("show", "--strict", str(path)).exit_code == 2


# (reader, fixture, record, path to a time, bad value, what the warning says)
TIME_FIELDS = [
    ("openai-chat", FIXTURES / "openai_chat" / "request_response.jsonl", 0, ("timestamp",), 1e300, f"timestamp 1e+300 {NOT_A_TIME}"),
    ("openai-responses", FIXTURES / "openai_responses" / "function_loop.jsonl", 0, ("response", "created_at"), "nan", f"created_at 'nan' {NOT_A_TIME}"),
    ("openai-agents", FIXTURES / "openai_agents" / "weather.jsonl", 1, ("started_at",), "inf", f"started_at 'inf' {NOT_A_TIME}"),
    ("langsmith", FIXTURES / "langsmith" / "langgraph_runs.jsonl", 3, ("start_time",), "9999-12-31T23:59:59-05:00", "bad start_time '9999-12-31T23:59:59-05:00'; ignored"),
    (
        "otel",
        FIXTURES / "otel" / "genai_attributes.jsonl",
        0,
        ("resourceSpans", 0, "scopeSpans", 0, "spans", 0, "startTimeUnixNano"),
        "9" * 23,
        f"bad startTimeUnixNano '{'9' * 23}'; ignored",
    ),
    ("anthropic", FIXTURES / "anthropic" / "request_response.jsonl", 0, ("timestamp",), -1e300, f"timestamp -1e+300 {NOT_A_TIME}"),
    ("claude-code", FIXTURES / "claude_code" / "session.jsonl", 2, ("timestamp",), "0001-01-01T00:00:00+05:00", f"timestamp '0001-01-01T00:00:00+05:00' {NOT_A_TIME}"),
    ("mini-swe-agent", FIXTURES / "mini_swe_agent" / "timeparse-17.traj.json", 0, ("messages", 2, "extra", "timestamp"), 1e300, f"extra.timestamp 1e+300 {NOT_A_TIME}"),
    ("openhands", FIXTURES / "openhands" / "output.jsonl", 0, ("history", 3, "timestamp"), "inf", f"timestamp 'inf' {NOT_A_TIME}"),
    ("inspect", FIXTURES / "inspect_ai" / "research_eval.json", 0, ("samples", 0, "events", 4, "timestamp"), "nan", f"event 5: timestamp 'nan' {NOT_A_TIME}"),
    ("tau-bench", FIXTURES / "tau_bench" / "c0ffee00-1111-4222-8333-944455556666.json", 0, ("messages", 1, "timestamp"), 1e300, f"timestamp 1e+300 {NOT_A_TIME}"),
]


@pytest.mark.parametrize(("reader", "fixture", "record", "path", "value", "reason"), TIME_FIELDS, ids=[t[0] for t in TIME_FIELDS])
def test_every_reader_reports_a_time_out_of_range_and_show_and_convert_still_work(
    reader, fixture, record, path, value, reason, tmp_path, cli
):
    changed, line = _changed_copy(fixture, record, path, value, tmp_path)
    original, _ = read_with_diagnostics(fixture)

    shown = cli("show", str(changed))
    assert shown.exit_code == 0, shown.output
    for trace in original:
        assert f"trace {trace.id}" in shown.stdout  # nothing else lost
    reported = [w for w in _warnings(shown) if reason in w]
    assert len(reported) == 1 and reported[0].startswith(f"{changed}:{line}: "), _warnings(shown)

    converted = cli("convert", str(changed), "-o", str(tmp_path / "converted.jsonl"))
    assert converted.exit_code == 0, converted.output
    assert cli("show", "--strict", str(changed)).exit_code == 2


def test_times_that_are_no_time_are_unknown_and_formatting_never_raises():
    for value in ("nan", "inf", "-inf", 1e300, -1e300, "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"):
        assert parse_time(value) is None, value
    assert parse_time("9999-12-30T00:00:00Z") is not None and parse_time("0001-01-02T00:00:00Z") is not None
    for value in (math.nan, math.inf, -math.inf, 1e300, -1e20, 2**70):
        assert format_time(value) is None, value


# --- Inspect archives: an odd member name costs at most that member ------------------------


def _eval_archive(path: Path, renames: dict[str, str], extra: dict[str, bytes] | None = None) -> Path:
    log = json.loads((FIXTURES / "inspect_ai" / "research_eval.json").read_text(encoding="utf-8"))
    samples = log.pop("samples")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps({"version": log["version"], "eval": log["eval"], "plan": log["plan"]}))
        for sample in samples:
            name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
            archive.writestr(renames.get(name, name), json.dumps(sample, indent=2, ensure_ascii=False))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
        archive.writestr("header.json", json.dumps(log))
    path.write_bytes(out.getvalue())
    return path


def test_eval_archive_member_with_an_odd_name_costs_nothing(tmp_path, cli):
    # "samples/²_epoch_1.json" matched \d, and int("²") lost the whole archive.
    path = _eval_archive(
        tmp_path / "odd.eval",
        {"samples/2_epoch_1.json": "samples/²_epoch_1.json", "samples/3_epoch_1.json": "samples/3_epoch_².json"},
        extra={"samples/x_epoch_99999999999999999999999.json": b'{"id": "x", "epoch": 1, "messages": ['},
    )
    code, report, result = _replay(cli, path)
    assert code == 0, result.output
    ids = sorted(t["id"] for t in report["traces"])
    assert ids == ["research/2/1", "research/3/1", "research/4/1", "research/q-001/1"]
    assert [w.split(": ", 1)[1] for w in _warnings(result) if "samples/x_epoch" in w][0].startswith(
        "samples/x_epoch_99999999999999999999999.json: not valid JSON"
    )
    assert all(w.startswith(f"{path}:1: ") for w in _warnings(result))
    assert cli("replay", "--strict", str(path)).exit_code == 2


# --- deeply nested and huge values ---------------------------------------------------------


def _deep(depth: int):
    value: object = "bottom"
    for _ in range(depth):
        value = {"k": [value]} if depth < 500 else [value]
    return value


@pytest.mark.parametrize("depth", [300, 1000])
def test_deeply_nested_arguments_and_results_are_read_and_written_back(depth, tmp_path, cli):
    deep = _deep(depth)
    runs = _native_run("first") + _native_run("second")
    runs[0]["tool_calls"][0]["arguments"] = dump_json({"filter": deep})  # a JSON string, as OpenAI writes them
    runs[1]["content"] = dump_json(deep)
    path = tmp_path / "deep.jsonl"
    path.write_text("".join(dump_json(r) + "\n" for r in runs), encoding="utf-8")

    traces, diagnostics = read_with_diagnostics(path)
    assert _ids(traces) == ["first", "second"] and len(diagnostics) == 0
    call = traces[0].rounds[0].tool_calls[0]
    assert call.arguments_error is None and call.arguments_raw.count("[") == depth

    for command in (["replay", "--format", "json"], ["show"]):
        result = cli(*command, str(path))
        assert result.exit_code == 0, (command, result.output)
    out = tmp_path / "converted.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    again, diagnostics = read_with_diagnostics(out)
    assert _ids(again) == ["first", "second"] and len(diagnostics) == 0
    assert dump_json(again[0].rounds[0].tool_calls[0].arguments) == dump_json(call.arguments)  # == recurses


def test_ten_megabyte_strings_are_read_and_written_back(tmp_path, cli):
    huge = "abcdefghij" * 1_000_000
    runs = _native_run("first") + _native_run("second")
    runs[0]["tool_calls"][0]["name"] = "write_file"
    runs[0]["tool_calls"][0]["arguments"] = json.dumps({"path": "big.txt", "content": huge})
    runs[1]["content"] = huge
    path = _write_lines(tmp_path / "huge.jsonl", runs)
    code, report, result = _replay(cli, path)
    assert code == 0 and [t["id"] for t in report["traces"]] == ["first", "second"]
    assert _warnings(result) == []
    out = tmp_path / "converted.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    again, _ = read_with_diagnostics(out)
    assert again[0].rounds[0].tool_calls[0].result.content == huge


# Where each format keeps tool arguments; every copy of them (a request re-sends the
# history) is replaced, so the copies still match as the format expects.
ARGUMENT_KEYS = ("arguments", "input", "args", "tool_input")
DEEP_FIXTURES = [
    ("openai-chat", FIXTURES / "openai_chat" / "request_response.jsonl"),  # history matched by canonical JSON
    ("openai-responses", FIXTURES / "openai_responses" / "function_loop.jsonl"),
    ("openai-agents", FIXTURES / "openai_agents" / "weather.jsonl"),  # tool spans matched by canonical JSON
    ("langchain", FIXTURES / "langchain" / "langgraph_runs.jsonl"),
    ("anthropic", FIXTURES / "anthropic" / "request_response.jsonl"),
    ("claude-code", FIXTURES / "claude_code" / "session.jsonl"),
    ("openhands", FIXTURES / "openhands" / "output.jsonl"),
    ("inspect", FIXTURES / "inspect_ai" / "research_eval.json"),  # attachments resolved in the arguments
    ("tau-bench", FIXTURES / "tau_bench" / "c0ffee00-1111-4222-8333-944455556666.json"),
]


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _with_deep_arguments(value, deep):
    """Every object-valued argument (an object, or a JSON string of one) replaced by
    ``{"filter": deep}`` in the same form. Iterative: ``deep`` is deeper than recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key in ARGUMENT_KEYS and isinstance(child, dict):
                    item[key] = {"filter": deep}
                elif key in ARGUMENT_KEYS and isinstance(child, str) and _is_json_object(child):
                    item[key] = dump_json({"filter": deep})
                elif isinstance(child, (dict, list)):
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(child for child in item if isinstance(child, (dict, list)))
    return value


@pytest.mark.parametrize("depth", [300, 1000])
@pytest.mark.parametrize(("reader", "fixture"), DEEP_FIXTURES, ids=[f[0] for f in DEEP_FIXTURES])
def test_every_reader_reads_deeply_nested_arguments(reader, fixture, depth, tmp_path, cli):
    # orjson writes 254 levels at most and Python recurses about 1000 deep: readers that
    # compared arguments through orjson, or walked them recursively, lost the record.
    deep: object = "bottom"
    for _ in range(depth):
        deep = [deep]
    out = tmp_path / fixture.name
    if fixture.suffix == ".jsonl":
        out.write_text("".join(dump_json(_with_deep_arguments(r, deep)) + "\n" for r in _records(fixture)), encoding="utf-8")
    else:
        out.write_text(dump_json(_with_deep_arguments(json.loads(fixture.read_text(encoding="utf-8")), deep)), encoding="utf-8")

    original, before = read_with_diagnostics(fixture)
    traces, after = read_with_diagnostics(out)
    # Ids made from content differ (the arguments are part of it); the traces are the same.
    assert list(zip(shown_ids(traces), [len(t.rounds) for t in traces])) == list(zip(shown_ids(original), [len(t.rounds) for t in original]))
    assert sorted(without_digests(d.reason) for d in after) == sorted(without_digests(d.reason) for d in before)
    assert any(c.arguments_raw.count("[") >= depth for t in traces for c in t.tool_calls())

    code, report, result = _replay(cli, out)
    assert code == 0, result.output
    assert cli("convert", str(out), "-o", str(tmp_path / "converted.jsonl")).exit_code == 0
