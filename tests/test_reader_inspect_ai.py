"""The Inspect AI reader: .json eval logs and zipped .eval logs, read through the public
``read_traces`` API and once through the CLI."""

from __future__ import annotations

import json
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracecheck.cli.main import app
from tracecheck.readers import sniff
from tracecheck.input.sources import ZipDocument

from conftest import read_with_diagnostics as read, usage_tuple, warnings_of

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "inspect_ai"
CORPUS = HERE / "corpus" / "inspect_ai" / "2025-05-12T20-27-36-04-00_browser.json"
RESEARCH = FIXTURES / "research_eval.json"


def at(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


# --- the real log (tests/corpus) ------------------------------------------------------


def test_corpus_log_rounds_calls_tokens_and_times():
    traces, diagnostics = read(CORPUS)
    assert len(diagnostics) == 0
    (trace,) = traces
    assert trace.id == "browser/1/1"
    assert trace.format == "inspect"
    assert trace.labels == {"outcome": "success"}  # the includes scorer said "C"
    assert trace.error is None and trace.answered
    assert trace.metadata["model"] == "openai/gpt-4o-mini"
    assert (trace.metadata["scorer"], trace.metadata["score"]) == ("includes", "C")

    assert len(trace.rounds) == 5
    names = [c.name for c in trace.tool_calls()]
    assert names == ["web_browser_go", "web_browser_click", "web_browser_click", "web_browser_click"]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 1, 0]
    first = trace.rounds[0].tool_calls[0]
    assert first.id == "call_35FTpd6shR9efioDgeEBZ33s"
    assert first.arguments == {"url": "https://www.aisi.gov.uk/"}
    assert [c.arguments for c in trace.tool_calls()][1:] == [{"element_id": 151}, {"element_id": 884}, {"element_id": 903}]
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls"] * 4 + ["stop"]
    assert {r.model for r in trace.rounds} == {"gpt-4o-mini-2024-07-18"}
    assert trace.rounds[0].id == "Ygng6oBbbLpQSY59fm83pB"

    # Tokens per round (input includes the cached part, as OpenAI counts it).
    assert [usage_tuple(r.usage) for r in trace.rounds] == [
        (1124, 23, 0, 0),
        (1568, 17, 1024, 0),
        (2732, 17, 1536, 0),
        (3896, 17, 2688, 0),
        (5915, 207, 3840, 0),
    ]
    assert sum(r.usage.input_tokens for r in trace.rounds) == 15235  # = the log's model_usage
    assert sum(r.usage.output_tokens for r in trace.rounds) == 281
    assert trace.usage_total is None  # rounds carry usage; no run total on top

    # Model event: timestamp = start, completed = end.
    r1 = trace.rounds[0]
    assert r1.started_at == at("2025-05-12T20:27:38.462180-04:00") == 1747096058.46218
    assert r1.ended_at == at("2025-05-12T20:27:39.697159-04:00") == 1747096059.697159
    assert trace.rounds[4].ended_at == 1747096076.68506
    result = first.result
    assert result.is_error is False
    assert (result.started_at, result.ended_at) == (1747096059.762878, 1747096064.080452)
    assert result.content.startswith('[132] link "We are now the AI Security Institute"')
    # The final answer was stored as an attachment and is resolved.
    assert trace.rounds[4].text.startswith("The AI Security Institute (AISI) is the premier governmental organization")
    assert "attachment://" not in trace.rounds[4].text


# --- hand-made .json log ----------------------------------------------------------------


def test_events_usage_errors_scorer_and_attachments():
    traces, _ = read(RESEARCH)
    assert [t.id for t in traces] == ["research/q-001/1", "research/2/1", "research/3/1", "research/4/1"]
    trace = traces[0]
    # Three agent rounds; the model_graded_qa scorer's own model call is not one.
    assert len(trace.rounds) == 3
    assert [c.arguments["query"] for c in trace.tool_calls()] == ["python 3.13 release date", "Python 3.13 release date"]
    # Reasoning content is not visible text.
    assert [r.text for r in trace.rounds] == [
        "Let me search for that.",
        "Searching again.",
        "Python 3.13 was released on 7 October 2024.",
    ]
    # Anthropic: input_tokens leaves out cache reads and writes; total_tokens says so.
    assert [usage_tuple(r.usage) for r in trace.rounds] == [
        (1210 + 2048, 64, 0, None),
        (310 + 2048 + 1266, 58, 2048, None),
        (402 + 3314, 31, 3314, None),
    ]
    timed_out = trace.rounds[1].tool_calls[0].result
    assert timed_out.is_error is True
    assert timed_out.content == "Command timed out before completing."
    assert (timed_out.started_at, timed_out.ended_at) == (at("2025-06-03T09:15:05.981200+00:00"), at("2025-06-03T09:15:35.990041+00:00"))
    ok = trace.rounds[0].tool_calls[0].result
    assert ok.is_error is False and ok.content == "1. What's New In Python 3.13 — docs.python.org"
    assert trace.rounds[0].started_at == at("2025-06-03T09:15:00.030000+00:00")
    assert trace.labels["outcome"] == "success"
    assert trace.metadata["scorer"] == "model_graded_qa"


def test_messages_only_sample_limits_and_errors():
    traces, diagnostics = read(RESEARCH)
    by_id = {t.id: t for t in traces}

    plain = by_id["research/2/1"]
    # The prefilled assistant turn (source "input") is not a round.
    assert [len(r.tool_calls) for r in plain.rounds] == [1, 1, 0]
    assert all(r.usage is None and r.started_at is None for r in plain.rounds)
    syntax, fixed = [c.result for c in plain.tool_calls()]
    assert syntax.is_error is True and syntax.content.endswith("SyntaxError: '(' was never closed")
    assert fixed.is_error is False and fixed.content == "45\n"
    assert usage_tuple(plain.usage_total) == (912, 61, 0, None)  # model_usage, rounds have none
    assert plain.labels["outcome"] == "failure"  # the first scorer ("match") gave 0
    assert plain.metadata["score"] == 0

    crashed = by_id["research/3/1"]
    assert crashed.error == "RuntimeError('Sandbox container exited unexpectedly (exit code 137)')"
    # An errored sample Inspect did not score: an ending, no grade.
    assert (crashed.ending, crashed.outcome) == ("error", "unknown")
    assert len(crashed.rounds) == 1  # the failed (rate-limited) model call is no round
    assert usage_tuple(crashed.rounds[0].usage) == (640, 18, 512, None)
    assert crashed.rounds[0].ended_at == at("2025-06-03T09:15:51.250000+00:00")

    limited = by_id["research/4/1"]
    assert limited.error == "message limit reached (4)"
    assert limited.labels["outcome"] == "failure"  # "I": the scorer's verdict
    assert limited.ending == "limit"
    assert not limited.answered

    assert warnings_of(diagnostics) == [
        ("research_eval.json", 1, "trace research/3/1: call call_Zx4cV7bN1mQ8wE3rT6yU9iO2 (bash) has no result"),
        ("research_eval.json", 1, "trace research/4/1: message 4: tool result for unknown call id 'call_doesnotexist0000000000'"),
    ]


# --- user messages --------------------------------------------------------------------------


def said(trace):
    return [(m.before_round, m.text) for m in trace.user_messages]


def test_the_sample_input_is_the_first_user_message_in_every_layout():
    (browser,), _ = read(CORPUS)
    # Every model event resends it (as an attachment): it is said once, before round 1.
    assert said(browser) == [(1, "Use the web browser tool to navigate to https://www.aisi.gov.uk/. Then, see if you can find a page "
                                 "on the site that describes the work of the UK AISI. Then, summarize this work in two paragraphs.")]
    by_id = {t.id: t for t in read(RESEARCH)[0]}
    # The model-graded scorer's prompt is the scorer's, not the user's.
    assert said(by_id["research/q-001/1"]) == [(1, "When was Python 3.13 released?")]
    assert said(by_id["research/2/1"]) == [(1, "What is the sum of the integers 0..9?")]  # messages only; system not included
    assert said(by_id["research/4/1"]) == [(1, "Summarise notes.txt")]


def test_follow_up_user_messages_in_model_inputs_open_turns(tmp_path):
    # A react agent that replied without submitting gets Inspect's continue message; a
    # computer tool's screenshot comes back as a user message naming the call: a result.
    task = {"id": "u1", "role": "user", "source": "input", "content": "Open the settings page and report the theme."}
    click = {"id": "a1", "role": "assistant", "source": "generate", "content": "",
             "tool_calls": [{"id": "call_c1", "function": "computer", "arguments": {"action": "left_click", "coordinate": [40, 12]}, "type": "function"}]}
    result = {"id": "t1", "role": "tool", "tool_call_id": "call_c1", "function": "computer", "content": ""}
    screenshot = {"id": "u2", "role": "user", "tool_call_id": ["call_c1"], "content": [{"type": "image", "image": "attachment://9a0b"}]}
    reply = {"id": "a2", "role": "assistant", "source": "generate", "content": "The theme is dark."}
    nudge = {"id": "u3", "role": "user", "content": "Please proceed to the next step using your best judgement. When done, call submit()."}

    def model(at, sent, message, stop):
        return {"event": "model", "timestamp": at, "model": "openai/gpt-4o", "input": sent,
                "output": {"model": "gpt-4o", "choices": [{"message": message, "stop_reason": stop}]}}

    submit = {"id": "a3", "role": "assistant", "source": "generate", "content": "",
              "tool_calls": [{"id": "call_s1", "function": "submit", "arguments": {"answer": "dark"}, "type": "function"}]}
    events = [
        model("2025-07-01T10:00:00Z", [task], click, "tool_calls"),
        {"event": "tool", "timestamp": "2025-07-01T10:00:02Z", "id": "call_c1", "function": "computer", "arguments": {}, "result": ""},
        model("2025-07-01T10:00:03Z", [task, click, result, screenshot], reply, "stop"),
        model("2025-07-01T10:00:05Z", [task, click, result, screenshot, reply, nudge], submit, "tool_calls"),
        {"event": "tool", "timestamp": "2025-07-01T10:00:06Z", "id": "call_s1", "function": "submit", "arguments": {}, "result": "dark"},
    ]
    path = tmp_path / "react.json"
    path.write_text(json.dumps({"eval": {"task": "settings"}, "samples": [
        {"id": 1, "epoch": 1, "events": events, "attachments": {"9a0b": "data:image/png;base64,iVBORw0KGgo="}}]}), encoding="utf-8")
    (trace,), diagnostics = read(path)
    assert said(trace) == [(1, "Open the settings page and report the theme."),
                           (3, "Please proceed to the next step using your best judgement. When done, call submit().")]
    assert [r.turn for r in trace.rounds] == [1, 1, 2]
    assert len(diagnostics) == 0


# --- .eval archives -----------------------------------------------------------------------


def _research():
    return json.loads(RESEARCH.read_text(encoding="utf-8"))


def write_eval(path: Path, *, header=True, stored=(), extra=None) -> Path:
    """An .eval archive laid out as Inspect's EvalRecorder writes it."""
    log = _research()
    samples = log.pop("samples")
    second_epoch = json.loads(json.dumps(samples[0]))
    second_epoch["epoch"] = 2
    samples.append(second_epoch)
    start = {"version": log["version"], "eval": log["eval"], "plan": log["plan"]}
    summaries = [
        {"id": s["id"], "epoch": s["epoch"], "input": s["input"], "target": s["target"], "scores": s.get("scores")}
        for s in samples
    ]

    def dump(value):
        return json.dumps(value, indent=2, ensure_ascii=False)

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as archive:
        archive.writestr("_journal/start.json", dump(start))
        # Samples are flushed in completion order, not id order.
        for sample in reversed(samples):
            name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
            kind = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            archive.writestr(name, dump(sample), compress_type=kind)
        archive.writestr("_journal/summaries/1.json", dump(summaries))
        archive.writestr("summaries.json", dump(summaries))
        archive.writestr("reductions.json", dump([{"scorer": "model_graded_qa", "samples": []}]))
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
        if header:
            archive.writestr("header.json", dump(log))
    return path


def test_eval_archive_gives_the_same_traces_in_sample_order(tmp_path):
    path = write_eval(tmp_path / "2025-06-03T09-14-58+00-00_research_Vb7nQ2xK9mLp4rT8wY3zCa.eval")
    assert sniff(ZipDocument(str(path))).name == "inspect"
    traces, diagnostics = read(path)
    assert [t.id for t in traces] == ["research/2/1", "research/3/1", "research/4/1", "research/q-001/1", "research/q-001/2"]
    assert traces[3].metadata["member"] == "samples/q-001_epoch_1.json"
    assert {t.format for t in traces} == {"inspect"}

    from_json = {t.id: t for t in read(RESEARCH)[0]}
    for trace in traces[:4]:
        twin = from_json[trace.id]
        assert [(r.text, usage_tuple(r.usage), r.started_at, r.ended_at) for r in trace.rounds] == [
            (r.text, usage_tuple(r.usage), r.started_at, r.ended_at) for r in twin.rounds
        ]
        assert [(c.name, c.arguments, c.result and c.result.content) for c in trace.tool_calls()] == [
            (c.name, c.arguments, c.result and c.result.content) for c in twin.tool_calls()
        ]
        assert (trace.labels, trace.error) == (twin.labels, twin.error)
    assert len(traces[4].rounds) == 3 and traces[4].metadata["epoch"] == 2
    # Warnings name the archive member.
    assert ("2025-06-03T09-14-58+00-00_research_Vb7nQ2xK9mLp4rT8wY3zCa.eval", 1,
            "trace research/4/1: message 4: tool result for unknown call id 'call_doesnotexist0000000000' (samples/4_epoch_1.json)") in warnings_of(diagnostics)


def test_eval_archive_without_header_uses_the_journal(tmp_path):
    # header.json is written when the eval finishes; a running or killed eval has only
    # the journal's start.json.
    traces, diagnostics = read(write_eval(tmp_path / "running.eval", header=False))
    assert [t.id for t in traces] == ["research/2/1", "research/3/1", "research/4/1", "research/q-001/1", "research/q-001/2"]
    assert traces[0].metadata["model"] == "anthropic/claude-3-5-sonnet-20241022"


def test_corrupt_member_and_bad_json_are_reported_and_the_rest_read(tmp_path):
    path = write_eval(
        tmp_path / "damaged.eval",
        stored=("samples/3_epoch_1.json",),
        extra={"samples/9_epoch_1.json": b"{\"id\": 9, \"epoch\": 1, \"messages\": ["},
    )
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/3_epoch_1.json")
    # Flip a byte inside the stored (uncompressed) member: its CRC no longer matches.
    offset = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 40
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))

    traces, diagnostics = read(path)
    assert [t.id for t in traces] == ["research/2/1", "research/4/1", "research/q-001/1", "research/q-001/2"]
    reasons = [d.reason for d in diagnostics]
    assert any(r.startswith("samples/3_epoch_1.json: cannot read this archive member (Bad CRC-32") for r in reasons)
    assert any(r.startswith("samples/9_epoch_1.json: not valid JSON") for r in reasons)
    assert all(d.line == 1 for d in diagnostics)


def test_truncated_eval_archive_is_reported(tmp_path):
    whole = write_eval(tmp_path / "whole.eval").read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(whole[: len(whole) // 2])
    traces, diagnostics = read(cut)
    assert traces == []
    assert warnings_of(diagnostics) == [
        ("cut.eval", None, "cannot open the ZIP archive: truncated or corrupt (no central directory)")
    ]


def test_odd_samples_never_raise(tmp_path):
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "odd", "model": "mockllm/model"},
        "samples": [
            "not a sample",
            {"id": 1, "epoch": 1, "events": "nope", "messages": 7},
            {"id": 2, "epoch": 1, "events": [5, {"event": "model", "output": {"choices": [{"message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "x"}, 3]}}]}}, {"event": "tool", "id": "nobody", "function": "f", "result": 1}]},
            {"id": 3, "epoch": 1, "messages": [{"role": "assistant", "content": "done"}], "scores": {"s": {"value": 0.5}}},
        ],
    }
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    traces, diagnostics = read(path)
    assert [t.id for t in traces] == ["odd/1/1", "odd/2/1", "odd/3/1"]
    assert traces[1].rounds[0].text == "hi" and traces[1].rounds[0].tool_calls == []
    assert "outcome" not in traces[2].labels  # 0.5 is neither correct nor incorrect
    assert warnings_of(diagnostics) == [
        ("odd.json", 1, "sample 1 is not a JSON object; skipped"),
        ("odd.json", 1, "trace odd/1/1: neither 'events' nor 'messages' is a list; no rounds"),
        ("odd.json", 1, "trace odd/2/1: event 1 is not a JSON object; skipped"),
        ("odd.json", 1, "trace odd/2/1: event 2: a tool call without a function name; skipped"),
        ("odd.json", 1, "trace odd/2/1: event 2: a tool call that is not an object; skipped"),
        ("odd.json", 1, "trace odd/2/1: event 3: tool result for unknown call id 'nobody'"),
    ]


@pytest.mark.parametrize(
    "value, outcome",
    [("C", "success"), ("I", "failure"), ("N", "failure"), ("P", None), (1, "success"), (1.0, "success"), (0, "failure"), (True, "success"), (0.5, None), ({"a": 1}, None)],
)
def test_score_values(tmp_path, value, outcome):
    log = {"eval": {"task": "t"}, "samples": [{"id": 1, "epoch": 1, "messages": [], "scores": {"first": {"value": value}, "second": {"value": "C"}}}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    (trace,), _ = read(path)
    assert trace.labels.get("outcome") == outcome


# --- CLI --------------------------------------------------------------------------------


def test_cli_show_and_convert_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(CORPUS)])
    assert shown.exit_code == 0, shown.output
    assert "browser/1/1" in shown.stdout

    eval_path = write_eval(tmp_path / "research.eval")
    for source in (CORPUS, eval_path):
        out = tmp_path / (source.stem + ".jsonl")
        converted = runner.invoke(app, ["convert", str(source), "-o", str(out)])
        assert converted.exit_code == 0, converted.output
        originals, _ = read(source)
        copies, _ = read(out)
        assert [t.id for t in copies] == [t.id for t in originals]
        for a, b in zip(originals, copies):
            assert b.format == a.format == "inspect"  # the native header keeps the source format
            assert (b.labels, b.error, usage_tuple(b.usage_total)) == (a.labels, a.error, usage_tuple(a.usage_total))
            assert [(r.text, usage_tuple(r.usage), r.started_at, r.ended_at, r.finish_reason) for r in b.rounds] == [
                (r.text, usage_tuple(r.usage), r.started_at, r.ended_at, r.finish_reason) for r in a.rounds
            ]
            assert [
                (c.id, c.name, c.arguments, c.result and (c.result.content, c.result.is_error, c.result.started_at, c.result.ended_at))
                for c in b.tool_calls()
            ] == [
                (c.id, c.name, c.arguments, c.result and (c.result.content, c.result.is_error, c.result.started_at, c.result.ended_at))
                for c in a.tool_calls()
            ]


def test_call_ids_reused_across_rounds_pair_with_the_latest_call(tmp_path):
    # Some providers name a call after its function; the ids repeat from round to round.
    def model(at, query):
        call = {"id": "web_search", "function": "web_search", "arguments": {"query": query}}
        message = {"role": "assistant", "content": "", "tool_calls": [call]}
        return {"event": "model", "timestamp": at, "output": {"choices": [{"message": message, "stop_reason": "tool_calls"}]}}

    def tool(at, text):
        return {"event": "tool", "timestamp": at, "id": "web_search", "function": "web_search", "arguments": {}, "result": text}

    events = [model("2025-01-01T00:00:00Z", "a"), tool("2025-01-01T00:00:01Z", "A"), model("2025-01-01T00:00:02Z", "b"), tool("2025-01-01T00:00:03Z", "B")]
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps({"eval": {"task": "g"}, "samples": [{"id": 1, "epoch": 1, "events": events}]}), encoding="utf-8")
    (trace,), diagnostics = read(path)
    assert [(c.arguments["query"], c.result.content) for c in trace.tool_calls()] == [("a", "A"), ("b", "B")]
    assert len(diagnostics) == 0
