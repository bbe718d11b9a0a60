"""The Markdown replay report: everything the terminal report says (per-trace policy and
savings, fires with their reasons, counterfactual notes, expectations, totals, presets
side by side, tokenizer comparisons, warnings), with the same figures, pinned by golden
files (``python -m pytest tests/test_markdown_report.py --snapshot-update`` rewrites
them after a deliberate change: review the diff)."""

from __future__ import annotations

import json
import re

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from conftest import SAMPLES, write_jsonl

CASES = {
    "weather": ["seed000_weather_loop.jsonl"],
    "dialogue": ["tau_retail_order_lookup_loop.jsonl", "tau_airline_same_lookup_loop.jsonl"],
    "coding": ["swe_test_view_loop.jsonl", "swe_healthy_reproduce_edit_retest.jsonl", "seed001_evidence_gate.jsonl"],
    "presets": ["seed004_query_db_identical.jsonl", "seed000_weather_loop.jsonl", "--preset", "openhands,gemini-cli,default"],
    "tokenizers": ["seed002_contract_search_token_limit.jsonl", "seed000_weather_loop.jsonl", "--tokenizer", "char,jieba"],
    "seeds": ["healthy_fix_and_retest.jsonl", "seed004_report_polling.jsonl", "--preset", "seeds"],
}


class GoldenMarkdown(SingleFileSnapshotExtension):
    file_extension = "md"
    _file_extension = "md"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenMarkdown)


def _markdown(cli, *args: str) -> str:
    result = cli("replay", "-f", "markdown", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout.replace(str(SAMPLES) + "/", "sample_traces/")


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_markdown_report(cli, golden, case):
    args = [str(SAMPLES / a) if a.endswith(".jsonl") else a for a in CASES[case]]
    text = _markdown(cli, *args)
    for line in text.splitlines():
        assert line == line.rstrip(), repr(line)
    assert text == golden


def test_warnings_are_part_of_the_report(cli, tmp_path):
    lines = (SAMPLES / "seed004_query_db_identical.jsonl").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines[:3] + ["{not json"] + lines[3:]) + "\n", encoding="utf-8")
    text = cli("replay", "-f", "markdown", str(broken)).stdout
    warnings = text.split("\n## Warnings\n", 1)[1]
    assert "1 input warning:" in warnings and f"- {broken}:4: " in warnings


def _terminal_and_markdown(cli, *args):
    terminal = cli("replay", *args).stdout
    markdown = cli("replay", "-f", "markdown", *args).stdout
    data = json.loads(cli("replay", "-f", "json", *args).stdout)
    return terminal, markdown, data


def test_the_markdown_report_says_what_the_terminal_report_says(cli, monkeypatch):
    """Per trace the policy's headline and notes, every fire's guard and reason, the
    counterfactual's notes and the totals, in the same words and figures."""
    from tracecheck.config import load_settings
    from tracecheck.engine.batch import replay_stream
    from tracecheck.reports.data import fire_groups, item_data
    from tracecheck.reports.wording import policy_lines
    from tracecheck.reports.markdown import md
    from tracecheck.text.textsafe import one_line

    monkeypatch.setenv("COLUMNS", "1000")  # the terminal report on one line per item, to compare
    terminal, markdown, data = _terminal_and_markdown(cli, str(SAMPLES))
    flat_terminal = " ".join(terminal.split())
    records = [item_data(item) for item in replay_stream([str(SAMPLES)], load_settings())]
    assert [trace.to_json() for trace in records] == data["traces"]  # what the reports were written from
    for trace in records:
        if not trace.fires:
            continue
        headline, notes = policy_lines(trace)
        for words in (headline, *notes):
            assert " ".join(words.split()) in flat_terminal, words  # the same words on a terminal ...
            assert md(words) in markdown, words  # ... and in Markdown
        for fire, _, after_stop in fire_groups(trace):
            assert md(one_line(fire.reason, 240)) in markdown
            if after_stop:
                assert "(alone, after the policy's stop)" in markdown
        if trace.policy.outcome_change:
            assert f"**{md(trace.policy.outcome_change)}**" in markdown
    totals = data["totals"]
    summary = markdown.split("\n## Summary\n", 1)[1]
    for figure in (
        f"{totals['traces']} traces · {totals['traces_with_fires']} with fires · {totals['traces_stopped']} stopped by the policy",
        f"| LLM calls | {totals['saved']['llm_calls']:,} | {totals['whole']['llm_calls']:,} |",
        f"| tokens (some estimated) | {totals['saved']['tokens']:,} | {totals['whole']['tokens']:,} |",
        f"| time | {totals['saved']['seconds']:,.1f}s | {totals['whole']['seconds']:,.1f}s |",
        f"{totals['no_answer_to_forced_answer']} no answer → forced answer",
        "expectations not checked: about F002, P003, R001, R002",
    ):
        assert figure in summary, figure
    for number in re.findall(r"\d[\d,]*\.\d+s", terminal):  # seconds alike: one decimal, thousands separated
        assert re.fullmatch(r"\d{1,3}(,\d{3})*\.\d", number[:-1]), number


def test_hostile_trace_text_is_literal_on_github(cli, tmp_path):
    markdown_it = pytest.importorskip("markdown_it")
    hostile = "# not a heading @here <img src=x onerror=alert(1)> [x](http://e.vil) **bold** `code` |cell| ~~gone~~ $x$"
    events = [
        {"type": "labels", "trace": hostile, "labels": {"outcome": "failure"}},
        *[
            event
            for k in range(4)
            for event in (
                {"type": "round", "trace": hostile, "tool_calls": [{"id": f"c{k}", "name": "query_db", "arguments": {"q": hostile}}]},
                {"type": "result", "trace": hostile, "call_id": f"c{k}", "content": hostile},
            )
        ],
        {"type": "round", "trace": hostile, "text": "done", "finish_reason": "stop"},
    ]
    path = write_jsonl(tmp_path / "t.jsonl", events)
    markdown = cli("replay", "-f", "markdown", str(path)).stdout
    html = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    for tag in ("<img", "<a ", "<strong>bold", "<code>code", "<s>", "<del>"):
        assert tag not in html, tag
    assert html.count("<h1>") == 1 and "<h1>not a heading" not in html  # the id is no heading of its own
    assert "@&#8203;here" in markdown and "@here" not in markdown
    # Escaped only where needed: the words and the plain punctuation read as they are.
    assert "\\# not a heading @&#8203;here &lt;img src=x onerror=alert(1)> [x]\\(http:&#8203;//e.vil) \\*\\*bold\\*\\* \\`code\\` \\|cell\\| \\~\\~gone\\~\\~ \\$x\\$" in markdown


def test_an_id_that_is_its_location_is_printed_once(cli):
    """Readers that name traces by file and line: the id is not printed beside its location."""
    folder = SAMPLES / "openai"
    terminal = cli("replay", str(folder)).stdout
    assert terminal.count("seed004_query_db_identical.jsonl:1") == 1
    assert "openai/seed004_query_db_identical.jsonl:1\n  6 rounds" in terminal
    markdown = cli("replay", "-f", "markdown", str(folder)).stdout
    assert markdown.count("seed004_query_db_identical.jsonl:1") == 1
    assert any(line.startswith("## ") and line.endswith("openai/seed004_query_db_identical.jsonl:1") for line in markdown.splitlines())
    shown = cli("show", "--no-guards", str(folder / "seed004_query_db_identical.jsonl")).stdout
    first = shown.splitlines()[0]
    assert first.startswith("trace seed004_query_db_identical.jsonl:1  ") and first.endswith("openai/ · openai-chat")
    # An id of its own is printed beside the location.
    assert "seed000_weather_loop (" in cli("replay", "-f", "markdown", str(SAMPLES / "seed000_weather_loop.jsonl")).stdout
