"""The SWE-smith reader: fine-tuning chats whose tool calls are XML in the assistant text,
read through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read, write_jsonl
import pytest

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "swe_smith"
TENACITY = FIXTURES / "tenacity.xml.jsonl"
OPENAI_FINETUNE = FIXTURES.parent / "openai_chat" / "finetune.jsonl"


def test_xml_function_calls_become_calls_and_observations_their_results():
    traces, warnings = read(TENACITY)
    assert warnings == []
    assert [t.format for t in traces] == ["swe-smith", "swe-smith"]  # sniffed, not read as plain chat
    resolved, unresolved = traces
    assert resolved.id == "jd__tenacity.0d40e76f.func_pm_op_change__r4ah8w2q.7c1e59a3"  # traj_id
    assert [[c.name for c in r.tool_calls] for r in resolved.rounds] == [
        ["bash"], ["str_replace_editor"], ["str_replace_editor"], ["bash"], ["str_replace_editor"], ["bash"], ["bash"], ["submit"], [],
    ]
    grep = resolved.rounds[0].tool_calls[0]
    assert grep.arguments == {"command": 'grep -n "class wait_exponential" -A 40 /testbed/tenacity/wait.py | head -5'}
    assert grep.arguments_error is None and grep.id == "r1.c1"
    # The round's text is the reasoning outside the function block.
    assert resolved.rounds[0].text == "Let me find the implementation of wait_exponential."
    assert resolved.rounds[3].text == ""
    # Values written on lines of their own are stripped, as SWE-agent's parser strips them.
    edit = resolved.rounds[4].tool_calls[0]
    assert edit.arguments == {
        "command": "str_replace",
        "path": "/testbed/tenacity/wait.py",
        "old_str": "return max(min(result, self.min), 0)",
        "new_str": "return max(max(0, self.min), min(result, self.max))",
    }
    # The observation's label is not the tool's output; other templates are kept as they are.
    run = resolved.rounds[3].tool_calls[0]
    assert run.result.content == "[1, 3, 9, 27, 81]"
    assert resolved.rounds[6].tool_calls[0].result.content == "Your command ran successfully and did not produce any output."
    # No failure signal in the format: unknown, for every result.
    assert {c.result.is_error for t in traces for c in t.tool_calls()} == {None}
    # The first submit got SWE-agent's review and the run went on: a call. The last one is the answer.
    review = resolved.rounds[7].tool_calls[0].result.content
    assert review.startswith("Thank you for your work on this issue.")
    assert resolved.rounds[-1].is_final and resolved.answered
    assert resolved.rounds[-1].text == "I removed the reproduction script and changed no test files. Submitting again to confirm."
    # The task is the one user turn; observations are results, not turns.
    [task] = resolved.user_messages
    assert task.text.startswith("<uploaded_files>\n/testbed\n</uploaded_files>") and task.before_round == 1
    assert {r.turn for r in resolved.rounds} == {1}
    assert resolved.labels == {"outcome": "success"}
    assert resolved.metadata["submission"].startswith("diff --git a/tenacity/wait.py b/tenacity/wait.py")
    assert resolved.metadata["model"] == "claude-3-7-sonnet-20250219"
    assert resolved.usage_total is None and all(r.usage is None and r.ended_at is None for r in resolved.rounds)

    assert len(unresolved.rounds) == 6 and unresolved.rounds[-1].is_final
    assert unresolved.labels == {"outcome": "failure"} and "submission" not in unresolved.metadata


def test_replay_counts_one_turn_and_the_calls(cli):
    report = json.loads(cli("replay", "--format", "json", str(TENACITY)).stdout)
    assert [(t["turns"], t["rounds"], t["tool_calls"], t["answered"], t["tokens_basis"]) for t in report["traces"]] == [
        (1, 9, 8, True, "estimated"),
        (1, 6, 5, True, "estimated"),
    ]
    # The same command twice in a row is the identical-call guard's business.
    assert [(f["code"], f["round"], f["action"]) for f in report["traces"][1]["fires"]] == [("R001", 5, "hint")]


def test_a_plain_fine_tuning_chat_is_still_openai_chat():
    traces, _ = read(OPENAI_FINETUNE)
    assert traces and {t.format for t in traces} == {"openai-chat"}


def test_a_later_user_message_opens_a_turn_and_a_stray_observation_is_reported(tmp_path):
    call = "Listing the files.\n\n<function=bash>\n<parameter=command>ls /testbed</parameter>\n</function>"
    line = {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "List the files in /testbed."},
            {"role": "assistant", "content": call},
            {"role": "user", "content": "OBSERVATION:\nREADME.md\nsetup.py"},
            {"role": "assistant", "content": "There are two files: README.md and setup.py."},
            {"role": "user", "content": "OBSERVATION:\nsetup.py"},
            {"role": "user", "content": "Now show me setup.py."},
            {"role": "assistant", "content": "Showing it.\n\n<function=bash>\n<parameter=command>cat /testbed/setup.py</parameter>\n</function>"},
            {"role": "user", "content": "OBSERVATION:\nfrom setuptools import setup\nsetup()"},
            {"role": "assistant", "content": "It calls setup() with no arguments."},
        ],
        "instance_id": "demo",
    }
    traces, warnings = read(write_jsonl(tmp_path / "chat.jsonl", [line]))
    [trace] = traces
    assert trace.id == "demo"
    assert [(m.text, m.before_round) for m in trace.user_messages] == [("List the files in /testbed.", 1), ("Now show me setup.py.", 3)]
    assert [r.turn for r in trace.rounds] == [1, 1, 2, 2]
    assert trace.rounds[0].tool_calls[0].result.content == "README.md\nsetup.py"
    assert warnings == [("chat.jsonl", 1, "trace demo: message 6 is an observation that answers no call")]


def test_cli_show_and_convert(tmp_path):
    assert_show_and_convert_round_trip(TENACITY, ["jd__tenacity.0d40e76f.lm_rewrite__k9w3d0ze.e24b6f10"], [TENACITY], tmp_path)
