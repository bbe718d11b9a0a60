"""The ReAct text reader (LangChain's classic Thought / Action / Action Input /
Observation transcripts), through the public ``read_traces`` API and once through the CLI."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tracecheck.cli.main import app
from tracecheck.readers import sniff
from tracecheck.input.sources import TextDocument

from conftest import read_with_diagnostics as read, shown_ids, warnings_of

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "react_text"
LOOP = FIXTURES / "search_loop.txt"
VERBOSE = FIXTURES / "verbose_iteration_limit.txt"
OBSERVATION_FIRST = FIXTURES / "observation_first.txt"


def test_transcripts_split_at_each_question_and_the_template_is_skipped():
    traces, diagnostics = read(LOOP)
    assert len(diagnostics) == 0
    # The prompt's own format block (lines 7-14) is not a transcript.
    assert list(zip(shown_ids(traces), [(t.line, t.end_line) for t in traces])) == [
        ("search_loop.txt:@19", (19, 43)),
        ("search_loop.txt:@45", (45, 51)),
    ]
    assert {t.format for t in traces} == {"react-text"}
    assert traces[0].metadata["input"] == "Who won the 2024 Tour de France, and how old was he then?"
    # The question is the user message of each transcript's one turn.
    assert [[(m.before_round, m.text, m.line) for m in t.user_messages] for t in traces] == [
        [(1, "Who won the 2024 Tour de France, and how old was he then?", 19)],
        [(1, traces[1].metadata["input"], 45)],
    ]
    assert {r.turn for t in traces for r in t.rounds} == {1}


def test_repeated_search_and_parse_errors():
    (tour, _), _ = read(LOOP)
    assert len(tour.rounds) == 7
    assert [r.line for r in tour.rounds] == [20, 25, 29, 33, 35, 38, 42]
    calls = [r.tool_calls[0] if r.tool_calls else None for r in tour.rounds]
    assert [c.name if c else None for c in calls] == [
        "web_search",
        "web_search",
        "web_search",
        "_Exception",
        "_Exception",
        "calculator",
        None,
    ]
    # Action Input is plain text: quotes stripped as LangChain's parser does, no parse error.
    assert [c.arguments_raw for c in calls[:3]] == ["2024 Tour de France winner", "Tadej Pogacar age", "tadej pogacar age"]
    assert all(c.arguments == c.arguments_raw and c.arguments_error is None for c in calls[:3])
    assert [c.id for c in calls[:3]] == ["r1.c1", "r2.c1", "r3.c1"]
    assert calls[0].result.content == (
        "1. Tadej Pogačar wins 2024 Tour de France - cyclingnews.com\n2. 2024 Tour de France - Wikipedia"
    )
    assert calls[0].result.line == 23 and calls[0].result.is_error is None
    assert calls[1].result.content == calls[2].result.content

    # A completion LangChain could not parse: AgentExecutor's _Exception pseudo-step.
    missing_action, missing_input = calls[3], calls[4]
    assert tour.rounds[3].text == "I should compute his age on 21 July 2024."
    assert missing_action.arguments_raw == "Invalid Format: Missing 'Action:' after 'Thought:'"
    assert missing_action.result.content == "Invalid Format: Missing 'Action:' after 'Thought:'"
    assert missing_action.result.is_error is True
    assert missing_input.result.content == "Invalid Format: Missing 'Action Input:' after 'Action:'"
    assert missing_input.result.is_error is True

    assert calls[5].arguments_raw == "2024 - 1998 - 1" and calls[5].result.content == "25"
    final = tour.rounds[6]
    assert final.is_final and final.text == "Tadej Pogačar won the 2024 Tour de France; he was 25 years old."
    assert tour.answered and tour.error is None
    # Text has no usage and no times.
    assert all(r.usage is None and r.started_at is None for r in tour.rounds)
    assert tour.usage_total is None and "outcome" not in tour.labels


def test_numbered_actions_with_json_input():
    (_, product), _ = read(LOOP)
    (calc,) = product.rounds[0].tool_calls
    assert calc.name == "calculator"
    assert calc.arguments_raw == '{"expression": "17 * 23"}'
    assert calc.arguments == {"expression": "17 * 23"}
    assert calc.result.content == "391" and calc.result.line == 49
    assert product.rounds[1].text == "391"


def test_verbose_executor_output_with_a_nested_chain_and_the_iteration_limit():
    (trace,), diagnostics = read(VERBOSE)
    assert len(diagnostics) == 0
    assert (trace.id, trace.line, trace.end_line) == ("verbose_iteration_limit.txt:3", 3, 33)
    # The first thought has no "Thought:" label in verbose output.
    assert trace.rounds[0].text == "I need to find the population of Lyon and multiply it by 2."
    assert [c.name for c in trace.tool_calls()] == ["Search", "Calculator", "Search", "Search"]
    assert [c.arguments_raw for c in trace.tool_calls()] == ["Lyon population", "522250*2", "Lyon population", "Lyon population"]
    # The LLMMathChain's own output (lines 12-19) is neither input nor observation.
    assert trace.rounds[1].tool_calls[0].result.content == "Answer: 1044500"
    assert trace.rounds[1].tool_calls[0].result.line == 21
    # The executor gave up: no model wrote that, so it is no round; the run has no answer.
    assert len(trace.rounds) == 4
    assert trace.error == "Agent stopped due to iteration limit or time limit."
    assert not trace.answered


def test_observation_before_any_action_is_reported(tmp_path):
    (trace,), diagnostics = read(OBSERVATION_FIRST)
    assert warnings_of(diagnostics) == [
        ("observation_first.txt", 2, "trace observation_first.txt:1: Observation with no Action before it; ignored")
    ]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0]
    assert trace.rounds[0].tool_calls[0].result.content == "Canberra is the capital city of Australia."
    assert trace.rounds[1].text == "Canberra"


def test_unfinished_transcripts(tmp_path):
    path = tmp_path / "cut.txt"
    path.write_text(
        "\n".join(
            [
                "Question: a",
                "Thought: search it",
                "Action: web_search",
                "Action Input: a",
                "Question: b",
                "Thought: I am still thinking",
                "Question: c",
                "Final Answer: Agent stopped due to max iterations.",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    traces, diagnostics = read(path)
    assert shown_ids(traces) == ["cut.txt:@1", "cut.txt:@5", "cut.txt:@7"]
    a, b, c = traces
    assert a.rounds[0].tool_calls[0].result is None
    assert b.error == "the transcript ends without a Final Answer" and b.rounds[0].text == "I am still thinking"
    assert c.rounds == [] and c.error == "Agent stopped due to max iterations."
    assert warnings_of(diagnostics) == [("cut.txt", 2, f"trace {a.id}: call r1.c1 (web_search) has no result")]


def test_ansi_colours_and_crlf(tmp_path):
    path = tmp_path / "colour.log"
    path.write_bytes(
        b"Question: hi\r\n\x1b[32;1m\x1b[1;3mThought: look\r\nAction: search\r\nAction Input: hi\x1b[0m\r\n"
        b"Observation: \x1b[36;1mhello\x1b[0m\r\nThought: done\r\nFinal Answer: hello\r\n"
    )
    (trace,), diagnostics = read(path)
    assert len(diagnostics) == 0
    assert trace.rounds[0].tool_calls[0].arguments_raw == "hi"
    assert trace.rounds[0].tool_calls[0].result.content == "hello"
    assert trace.rounds[1].text == "hello"


def test_sniffing():
    assert sniff(TextDocument(LOOP.read_text(encoding="utf-8"))).name == "react-text"


def test_cli_show_and_convert_round_trip(tmp_path):
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(LOOP)])
    assert shown.exit_code == 0, shown.output
    assert "search_loop.txt:19" in shown.stdout

    out = tmp_path / "loop.jsonl"
    converted = runner.invoke(app, ["convert", str(LOOP), str(VERBOSE), "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    originals = read(LOOP)[0] + read(VERBOSE)[0]
    copies, _ = read(out)
    assert [t.id for t in copies] == [t.id for t in originals]
    for a, b in zip(originals, copies):
        assert (b.error, b.metadata.get("input")) == (a.error, a.metadata.get("input"))
        assert [r.text for r in b.rounds] == [r.text for r in a.rounds]
        assert [(c.id, c.name, c.arguments_raw, c.arguments, c.arguments_error, c.result and (c.result.content, c.result.is_error)) for c in b.tool_calls()] == [
            (c.id, c.name, c.arguments_raw, c.arguments, c.arguments_error, c.result and (c.result.content, c.result.is_error)) for c in a.tool_calls()
        ]
