"""The Who&When reader on real runs of the dataset (tests/corpus/who-and-when, copied
verbatim from ag2ai/Agents_Failure_Attribution): sniffed without --input-format, the
algorithm-generated AG2 chats (one round per expert message, the executor's exitcode
replies as the results of the code before them, its "no code" notices skipped) and the
hand-crafted Magentic-One histories (one round per orchestrator instruction), the
dataset's grade as the outcome and its attribution as metadata."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tracecheck.cli.main import app
from tracecheck.readers import reader_by_name

from conftest import assert_show_and_convert_round_trip, assert_sniffed_alone, read_with_warnings as read

CORPUS = Path(__file__).resolve().parent / "corpus" / "who-and-when"
AG_LOOP = CORPUS / "ag-52.json"  # the task's code run first, then four rounds each running code
AG_CHAT = CORPUS / "ag-19.json"  # experts only talk; the executor says "There is no code" three times
HAND_CRAFTED = CORPUS / "hc-14.json"  # WebSurfer, FileSurfer and ComputerTerminal instructed
HAND_CRAFTED_CUT = CORPUS / "hc-9.json"  # two WebSurfer replies left out of the history


def test_algorithm_generated_code_runs_are_the_calls_of_the_round_before():
    (trace,), warnings = read(AG_LOOP)
    assert warnings == []
    assert trace.format == "who-and-when"
    assert trace.labels["outcome"] == "failure"  # is_correct: false
    # The manager's brief is the task; the executor ran the code it carried at once: its
    # output joins the task's turn, it answers no round.
    (task,) = trace.user_messages
    assert task.text.startswith("You are given: (1) a task and advises from your manager")
    assert task.text.endswith("check_digit\n``` \n\nexitcode: 0 (execution succeeded)\nCode output: ")  # it printed nothing
    assert trace.metadata["speakers"] == ["VerificationExpert", "VerificationExpert", "VerificationExpert", "Python_Programmer_Expert"]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 1]
    for call in trace.tool_calls():
        assert call.name == "execute_code"
        assert call.arguments["language"] == "python"
        assert call.arguments["code"].startswith("# filename: compute_isbn10_check_digit.py")
        assert (call.result.content, call.result.is_error) == ("X\n", False)
    assert trace.metadata["mistake_agent"] == "ISBNCheckDigit_Expert"
    assert trace.metadata["mistake_step"] == "0"
    assert trace.metadata["ground_truth"] == "3"


def test_the_executors_no_code_notices_are_not_rounds():
    (trace,), warnings = read(AG_CHAT)
    assert warnings == []
    document = json.loads(AG_CHAT.read_text(encoding="utf-8"))
    notices = [m for m in document["history"] if m["content"].startswith("There is no code from the last 1 message")]
    assert len(notices) == 3 and len(document["history"]) == 10
    # 10 messages: the task, 3 notices, 6 expert messages = 6 rounds without calls.
    assert len(trace.rounds) == 6
    assert "Computer_terminal" not in trace.metadata["speakers"]
    assert list(trace.tool_calls()) == []
    assert trace.answered and trace.rounds[-1].text.endswith("TERMINATE")


def test_hand_crafted_instructions_are_calls_to_the_agents():
    (trace,), warnings = read(HAND_CRAFTED)
    assert warnings == []
    assert trace.format == "who-and-when"
    assert trace.labels["outcome"] == "failure"  # is_corrected: false
    (task,) = trace.user_messages  # the human's message: the question, then the attached file's contents
    assert task.text.startswith(json.loads(HAND_CRAFTED.read_text(encoding="utf-8"))["question"])
    assert "Here are the file's contents:" in task.text
    assert [c.name for c in trace.tool_calls()] == ["WebSurfer", "FileSurfer", "ComputerTerminal", "ComputerTerminal", "WebSurfer", "WebSurfer", "WebSurfer"]
    terminal = trace.rounds[2].tool_calls[0]
    assert terminal.arguments["instruction"].startswith("Please run the following Python script")
    assert terminal.result.content.startswith("No code block detected in the messages.")
    assert terminal.result.is_error is None
    assert trace.rounds[0].text.startswith("Initial plan:")  # the orchestrator's thoughts are the round's text
    assert trace.metadata["termination"].startswith("No agent selected.")
    assert trace.metadata["mistake_agent"] == "Orchestrator" and trace.metadata["mistake_step"] == "14"


def test_replies_the_history_leaves_out_are_counted_not_warned():
    (trace,), warnings = read(HAND_CRAFTED_CUT)
    assert warnings == []
    assert len(trace.rounds) == 21
    assert trace.metadata["unanswered_instructions"] == 2
    assert [r.index for r in trace.rounds if r.tool_calls[0].result is None] == [2, 11]


def test_sniffed_alone():
    assert_sniffed_alone("who-and-when", [p for p in sorted(CORPUS.glob("*.json")) if p.name != "labels.json"])


def test_a_question_and_history_alone_are_not_a_run():
    mine = reader_by_name("who-and-when")
    history = [{"role": "user", "content": "hi"}]
    assert not mine.sniff({"history": history, "question": "q"})  # none of the dataset's own keys
    assert mine.sniff({"history": history, "question": "q", "mistake_agent": "A"})
    assert not mine.sniff({"history": [], "question": "q", "mistake_agent": "A"})


def test_through_the_cli(tmp_path):
    assert_show_and_convert_round_trip(AG_LOOP, ["ag-52.json:1"], [AG_LOOP, HAND_CRAFTED], tmp_path)
    listed = CliRunner().invoke(app, ["formats"])
    assert listed.exit_code == 0
    assert "who-and-when" in listed.stdout
