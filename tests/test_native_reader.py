"""The native JSONL format: grouping, model fields, timestamps, arguments."""

from __future__ import annotations

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import write_jsonl

R1 = {
    "type": "round",
    "trace": "run-1",
    "round": 1,
    "model": "gpt-4o-2024-08-06",
    "started_at": "2026-03-04T09:15:00.000Z",
    "ended_at": "2026-03-04T09:15:01.250Z",
    "text": "Searching.",
    "tool_calls": [
        {"id": "call_a", "name": "web_search", "arguments": '{"query": "天气"}'},
        {"id": "call_b", "name": "queryDeviceStatus", "arguments": {"device": "ac-1"}},
    ],
    "usage": {"input_tokens": 612, "output_tokens": 41, "cached_tokens": 512},
    "finish_reason": "tool_calls",
}


def read(path):
    diagnostics = Diagnostics()
    traces = list(read_traces([str(path)], diagnostics))
    return traces, [str(d) for d in diagnostics]


def test_events_build_rounds_calls_and_results(tmp_path):
    path = write_jsonl(
        tmp_path / "run.jsonl",
        [
            {"type": "trace", "trace": "run-1", "format_version": 1, "metadata": {"agent": "weather"}},
            {"type": "labels", "trace": "run-1", "labels": {"outcome": "failure", "scenario": "x"}},
            {"type": "expect", "trace": "run-1", "guard": "P001", "by_round": 3},
            {"type": "expect", "trace": "run-1", "guard": "R001", "fires": False},
            R1,
            {"type": "result", "trace": "run-1", "call_id": "call_b", "content": {"on": True}, "is_error": False},
            {
                "type": "result",
                "trace": "run-1",
                "call_id": "call_a",
                "content": "1. 北京天气",
                "started_at": 1772615701.3,
                "ended_at": 1772615702300,
            },
            {"type": "round", "trace": "run-1", "text": "晴", "finish_reason": "stop"},
        ],
    )
    traces, warnings = read(path)
    assert warnings == []
    (trace,) = traces
    assert trace.id == "run-1" and trace.format == "native" and trace.line == 1 and trace.end_line == 8
    assert trace.metadata == {"agent": "weather"}
    assert trace.labels == {"outcome": "failure", "scenario": "x"} and trace.outcome == "failure"
    assert [(e.guard, e.fires, e.by_round) for e in trace.expectations] == [("P001", True, 3), ("R001", False, None)]
    first, final = trace.rounds
    assert first.index == 1 and first.line == 5 and final.index == 2 and final.is_final
    assert first.seconds == 1.25
    assert first.usage.input_tokens == 612 and first.usage.cached_tokens == 512 and first.usage.reasoning_tokens is None
    assert final.usage is None  # unknown, not zero
    search, device = first.tool_calls
    assert search.arguments == {"query": "天气"} and search.arguments_raw == '{"query": "天气"}'
    assert device.arguments == {"device": "ac-1"} and device.arguments_raw == '{"device":"ac-1"}'
    assert search.result.content == "1. 北京天气" and search.result.is_error is None
    # seconds and milliseconds are told apart by magnitude
    assert search.result.started_at == 1772615701.3 and search.result.ended_at == 1772615702.3
    assert device.result.content == '{"on":true}' and device.result.is_error is False
    assert trace.answered


def test_interleaved_traces_are_grouped_and_end_closes_a_trace(tmp_path):
    path = write_jsonl(
        tmp_path / "two.jsonl",
        [
            {"type": "round", "trace": "a", "tool_calls": [{"id": "1", "name": "f", "arguments": "{}"}]},
            {"type": "round", "trace": "b", "text": "hello"},
            {"type": "result", "trace": "a", "call_id": "1", "content": "ok"},
            {"type": "end", "trace": "a", "error": "Token limit exceeded", "usage": {"input_tokens": 9000}},
            {"type": "end", "trace": "b"},
        ],
    )
    traces, warnings = read(path)
    assert warnings == []
    assert [t.id for t in traces] == ["a", "b"]
    a, b = traces
    assert a.error == "Token limit exceeded" and not a.answered and a.usage_total.input_tokens == 9000
    assert a.rounds[0].tool_calls[0].result.content == "ok"
    assert b.answered and b.rounds[0].text == "hello"


def test_json_string_of_a_json_string_is_decoded_twice(tmp_path):
    raw = '"{\\"location\\": \\"current\\"}"'
    path = write_jsonl(
        tmp_path / "double.jsonl",
        [
            {"type": "round", "trace": "d", "tool_calls": [{"id": "c", "name": "get_loc", "arguments": raw}]},
            {"type": "result", "trace": "d", "call_id": "c", "content": "here"},
        ],
    )
    (trace,), warnings = read(path)
    call = trace.rounds[0].tool_calls[0]
    assert call.arguments == {"location": "current"} and call.arguments_raw == raw and warnings == []


def test_timestamps_in_every_unit_agree(tmp_path):
    moments = ["2026-03-04T09:15:00Z", "2026-03-04T09:15:00", 1772615700, 1772615700000, "1772615700000000000"]
    events = [
        {"type": "round", "trace": f"t{i}", "started_at": m, "ended_at": m, "text": "x"} for i, m in enumerate(moments)
    ]
    traces, _ = read(write_jsonl(tmp_path / "times.jsonl", events))
    assert {t.rounds[0].started_at for t in traces} == {1772615700.0}


def test_labels_outcome_outside_the_vocabulary_is_reported(tmp_path):
    path = write_jsonl(tmp_path / "l.jsonl", [{"type": "labels", "trace": "x", "labels": {"outcome": "great"}}])
    _, warnings = read(path)
    assert warnings == [f"{path}:1: trace x: outcome 'great' is not one of success, failure, unknown"]


def test_annotations_appended_after_end_annotate_the_ended_trace_without_a_warning(tmp_path):
    # Two runs end, then a grader and a reviewer append their lines at the end of the file.
    path = write_jsonl(
        tmp_path / "appended.jsonl",
        [
            {"type": "round", "trace": "a", "text": "done"},
            {"type": "round", "trace": "b", "text": "done too"},
            {"type": "end", "trace": "a"},
            {"type": "end", "trace": "b"},
            {"type": "labels", "trace": "a", "labels": {"outcome": "failure"}},
            {"type": "allow", "trace": "a", "guard": "P004", "round": 1, "reason": "a slow backend"},
            {"type": "expect", "trace": "b", "guard": "policy", "fires": False},
        ],
    )
    traces, warnings = read(path)
    assert warnings == []
    assert [t.id for t in traces] == ["a", "b"]  # in the order they ended, no third trace
    a, b = traces
    assert a.outcome == "failure" and [(x.guard, x.round, x.reason, x.line) for x in a.allowances] == [("P004", 1, "a slow backend", 6)]
    assert a.end_line == 6 and a.rounds[0].text == "done"
    assert [(e.guard, e.fires, e.line) for e in b.expectations] == [("policy", False, 7)]


def test_after_end_anything_but_an_annotation_or_a_late_one_still_starts_a_new_trace(tmp_path):
    # Another run's round hands the ended traces on: a reader of a long stream keeps no
    # ended run waiting for annotations that may never come.
    path = write_jsonl(
        tmp_path / "again.jsonl",
        [
            {"type": "round", "trace": "a", "text": "first"},
            {"type": "end", "trace": "a"},
            {"type": "round", "trace": "a", "text": "second"},
            {"type": "end", "trace": "a"},
            {"type": "end", "trace": "a"},
            {"type": "round", "trace": "b", "text": "other"},
            {"type": "allow", "trace": "a", "guard": "P004", "reason": "slow"},
        ],
    )
    traces, warnings = read(path)
    # Traces that share an id in one file are told apart by their order (see test_trace_ids).
    assert [(t.id, [r.text for r in t.rounds], len(t.allowances)) for t in traces] == [
        ("a", ["first"], 0),
        ("a#2", ["second"], 0),
        ("a#3", [], 0),
        ("b", ["other"], 0),
        ("a#4", [], 1),
    ]
    said = "trace a: event after its 'end' event starts a new trace with the same id"
    renamed = "this trace has the same id as the trace at line 1 ('a'): named 'a#{}' by its order in the file, so a label or baseline entry for either follows that order"
    assert warnings == [
        f"{path}:3: {said}",
        f"{path}:5: {said}",
        f"{path}:3: {renamed.format(2)}",
        f"{path}:5: {renamed.format(3)}",
        f"{path}:7: {said} (an annotation applies to an ended trace only before other events than 'end' and annotations follow)",
        f"{path}:7: {renamed.format(4)}",
    ]


def test_an_ended_trace_is_handed_on_at_the_next_event_of_a_run(tmp_path):
    from tracecheck.input.sources import Record
    from tracecheck.readers.contract import ReadContext
    from tracecheck.readers.native import read as read_native

    events = [
        {"type": "round", "trace": "a", "text": "x"},
        {"type": "end", "trace": "a"},
        {"type": "allow", "trace": "a", "guard": "P004", "reason": "slow"},
        {"type": "round", "trace": "b", "text": "y"},
        {"type": "round", "trace": "b", "text": "z"},
    ]
    taken: list[int] = []

    def records():
        for line, value in enumerate(events, 1):
            taken.append(line)
            yield Record(line, value)

    traces = read_native(records(), ReadContext("stream.jsonl", Diagnostics()))
    first = next(traces)
    assert (first.id, len(first.allowances), taken) == ("a", 1, [1, 2, 3, 4])  # not the whole stream


def test_call_warnings_are_named_five_per_trace_then_counted(tmp_path):
    # A round of a thousand calls that never got results is one finding per trace, not a
    # thousand lines; the next trace of the file gets its own five.
    calls = [{"id": f"c{k}", "name": "search", "arguments": "{}"} for k in range(1000)]
    bad_args = [{"id": f"b{k}", "name": "search", "arguments": "{not json"} for k in range(3)]
    path = write_jsonl(
        tmp_path / "many.jsonl",
        [
            {"type": "trace", "trace": "wide", "format_version": 1},
            {"type": "round", "trace": "wide", "round": 1, "tool_calls": bad_args + calls},
            {"type": "round", "trace": "wide", "round": 2, "text": "done"},
            {"type": "trace", "trace": "next", "format_version": 1},
            {"type": "round", "trace": "next", "round": 1, "tool_calls": calls[:2]},
        ],
    )
    traces, warnings = read(path)
    assert [len(t.rounds) for t in traces] == [2, 1]
    wide = [w for w in warnings if "trace wide" in w]
    assert all(w.startswith(f"{path}:2: trace wide: ") for w in wide)
    named = [w.split("trace wide: ", 1)[1] for w in wide[:5]]
    assert [n.split(":")[0].split(" has")[0] for n in named] == ["call b0 (search)", "call b0 (search)", "call b1 (search)", "call b1 (search)", "call b2 (search)"]
    assert ["has no result" in n for n in named] == [False, True, False, True, False]
    # b2's missing result and the thousand others are counted on one line.
    assert wide[5:] == [f"{path}:2: trace wide: 1,001 more calls with no result (the first 5 warnings of this trace are named)"]
    assert [w.split(": ", 1)[1] for w in warnings if "trace next" in w] == [
        "trace next: call c0 (search) has no result",
        "trace next: call c1 (search) has no result",
    ]
