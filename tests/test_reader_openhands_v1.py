"""The OpenHands V1 reader (software-agent SDK events): an events/ folder is one trace,
the actions of one LLM response are one round, results attach by action id, errors from
the observation's own flag and exit code, tokens per response from base_state.json; read
through the public ``read_traces`` API and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tracecheck.readers import reader_by_name

from conftest import (
    assert_show_and_convert_round_trip,
    read_with_warnings as read,
    round_usage_tuple as usage_tuple,
    usage_tuple as counts_tuple,
    utc,
    write_jsonl,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "openhands_v1"
REAL = FIXTURES / "real" / "cd94562403b9487ebdd4018e3f531dfd"
LOOP = FIXTURES / "loop" / "5e1f0c2ab7d94c0e9a3d2f61b8c4e7aa"
EXPORT = FIXTURES / "export.json"
PAGE = FIXTURES / "search_page.json"
ERROR = FIXTURES / "error.jsonl"


def _events(folder: Path) -> list[Path]:
    return sorted((folder / "events").glob("event-*.json"))


def test_real_conversation_folder_is_one_trace_with_tokens_from_base_state():
    # Named by its conversation folder (or its events/ folder): the same one trace, base_state.json not a transcript.
    for given in (REAL.parent, REAL, REAL / "events"):
        (trace,), warnings = read(given)
        assert warnings == []
        assert (trace.id, trace.format) == ("cd945624-03b9-487e-bdd4-018e3f531dfd", "openhands-v1")
        assert (trace.file, trace.line, trace.end_line) == (f"{REAL / 'events'}".replace(str(Path.cwd()) + "/", ""), 1, 8)
    assert [m.text for m in trace.user_messages] == [
        "Use the terminal tool to run `pwd` and write the output to tool_output.txt. Reply with a short confirmation once done.",
        "Without using any tools, summarize in one sentence what you did.",
    ]
    # Three responses: a terminal call; a finish (the answer, no call); a plain message.
    assert [r.id for r in trace.rounds] == ["chatcmpl-D5rlWUdHeehJ1YAPoStNh1wWFayTf", "chatcmpl-D5rlXVHL3O2F73PrKIeJuVlLiGGRy", "chatcmpl-D5rlZyAE0lEpf0kEWhm5eSgodQ6HM"]
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 0, 0]
    assert [r.turn for r in trace.rounds] == [1, 1, 2]
    (call,) = trace.rounds[0].tool_calls
    # The executed action's arguments (the model's add summary and security_risk).
    assert (call.id, call.name, call.arguments) == ("call_KaQ0kUcBb5tbMzhxbIx9dvoZ", "terminal", {"command": "pwd > tool_output.txt", "is_input": False, "reset": False})
    assert (call.result.content, call.result.is_error, call.result.line) == ("", False, 4)
    assert (call.result.started_at, call.result.ended_at) == (utc(2026, 2, 5, 11, 24, 47, 142819), utc(2026, 2, 5, 11, 24, 47, 284017))
    assert trace.rounds[1].text == "The current directory has been written to tool_output.txt."
    assert trace.rounds[2].text.startswith("I executed the `pwd` command")
    # base_state.json's stats.usage_to_metrics.agent.token_usages, by response id, by hand.
    assert [usage_tuple(r) for r in trace.rounds] == [(3778, 36, 0, 0), (3869, 32, 3712, 0), (3936, 26, 3840, 0)]
    assert {r.model for r in trace.rounds} == {"openai/gpt-4o-mini"}
    assert trace.usage_total is None
    # A round starts at the event before it and ends at its last action.
    assert (trace.rounds[0].started_at, trace.rounds[0].ended_at) == (utc(2026, 2, 5, 11, 24, 45, 305360), utc(2026, 2, 5, 11, 24, 47, 142819))
    assert [r.finish_reason for r in trace.rounds] == ["tool_calls", "stop", "stop"]
    assert (trace.ending, trace.error) == ("answered", None)


def test_parallel_calls_errors_rejection_and_unknown_tool(cli):
    (trace,), warnings = read(LOOP)
    assert warnings == []
    assert trace.id == "5e1f0c2a-b7d9-4c0e-9a3d-2f61b8c4e7aa"
    assert [len(r.tool_calls) for r in trace.rounds] == [1, 1, 1, 1, 2, 1, 1, 1, 0]
    calls = list(trace.tool_calls())
    assert [c.name for c in calls] == ["terminal"] * 5 + ["file_editor", "file_editor", "terminal", "browser"]
    # Exit code 1 with is_error false: the command failed; exit 0: it did not.
    assert [c.result.is_error for c in calls] == [True, True, True, True, False, False, True, True, True]
    # The two calls of one response: one round, with the first action's thought; results out of order.
    parallel = trace.rounds[4]
    assert parallel.text == "Look at the code and the test together."
    assert [c.result.line for c in parallel.tool_calls] == [14, 13]
    assert calls[6].result.content.startswith("ERROR:\nNo replacement was performed")
    assert calls[7].result.content == "Do not delete files."
    # A call the agent had no tool for: a round of its own, its arguments not kept.
    assert (calls[8].id, calls[8].arguments, calls[8].result.content) == ("toolu_09", {}, "Tool 'browser' not found. Available: ['terminal', 'file_editor', 'finish', 'think']")
    assert [usage_tuple(r) for r in trace.rounds] == [
        (5600, 41, 0, 0), (6000, 42, 5200, 0), (6400, 43, 5600, 0), (6800, 44, 6000, 0),
        (7200, 45, 6400, 0), (7600, 46, 6800, 0), (8000, 47, 7200, 0), None, (8400, 48, 7600, 0),
    ]
    assert trace.ending == "answered"
    report = json.loads(cli("replay", str(LOOP), "-f", "json").stdout)
    fired = {f["code"] for t in report["traces"] for f in t["fires"]}
    assert {"P004", "F003"} <= fired


def test_event_list_and_search_page():
    (listed,), warnings = read(EXPORT)
    assert warnings == []
    (paged,), warnings = read(PAGE)
    assert warnings == []
    for trace in (listed, paged):
        assert [len(r.tool_calls) for r in trace.rounds] == [1, 0]
        assert trace.rounds[1].text == "README.md says: a tiny shop."
        assert trace.rounds[0].tool_calls[0].result.content == "     1\t# Shop\n     2\tA tiny shop.\n"
    assert (listed.id, paged.id) == ("export", "search_page")
    # No stats for the list; the page's stats came in a state update event.
    assert [usage_tuple(r) for r in listed.rounds] == [None, None]
    assert [usage_tuple(r) for r in paged.rounds] == [(1800, 30, 0, 0), (1900, 25, 1664, 0)]
    assert [r.model for r in paged.rounds] == ["gpt-5-mini", "gpt-5-mini"]


def test_conversation_error_is_the_ending_and_a_timeout_is_a_failure():
    (trace,), warnings = read(ERROR)
    assert warnings == []
    assert (trace.ending, trace.error) == ("error", "LLMBadRequestError: litellm.BadRequestError: context window exceeded")
    (call,) = trace.rounds[0].tool_calls
    assert call.result.is_error is True  # exit code -1: still running when its timeout hit


def test_cat_of_event_files_and_jq_lines_read_as_the_folder(tmp_path):
    folder, _ = read(REAL)
    joined = tmp_path / "conversation.json"
    joined.write_bytes(b"".join(p.read_bytes() for p in _events(REAL)))  # `cat events/*.json`: no newlines
    assert b"\n" not in joined.read_bytes().strip()
    lines = write_jsonl(tmp_path / "conversation.jsonl", [json.loads(p.read_text()) for p in _events(REAL)])  # `jq -c .`
    for path in (joined, lines):
        (trace,), warnings = read(path)
        assert warnings == []
        assert [(len(r.tool_calls), r.text) for r in trace.rounds] == [(len(r.tool_calls), r.text) for r in folder[0].rounds]
        assert trace.format == "openhands-v1"


def test_conversations_joined_in_one_file_are_two_traces(tmp_path):
    events = [json.loads(p.read_text()) for p in _events(REAL)] + [json.loads(p.read_text()) for p in _events(LOOP)]
    (first, second), warnings = read(write_jsonl(tmp_path / "two.jsonl", events))
    assert warnings == []
    assert ([len(r.tool_calls) for r in first.rounds], len(second.rounds)) == ([1, 0, 0], 9)
    assert second.line == 9


def test_base_state_beside_a_file_and_the_state_file_alone(tmp_path, cli):
    conversation = tmp_path / "conv"
    shutil.copytree(REAL, conversation)
    (conversation / "events.jsonl").write_text("".join(p.read_text() + "\n" for p in _events(REAL)))
    shutil.rmtree(conversation / "events")
    (trace,), warnings = read(conversation)
    assert warnings == []
    assert trace.id == "cd945624-03b9-487e-bdd4-018e3f531dfd"
    assert [usage_tuple(r) for r in trace.rounds] == [(3778, 36, 0, 0), (3869, 32, 3712, 0), (3936, 26, 3840, 0)]
    # Alone, base_state.json is no transcript of an unknown format: it is skipped quietly.
    result = cli("replay", str(conversation / "base_state.json"))
    assert "no traces found" in result.output and "matches no known transcript format" not in result.output


def test_run_total_when_no_response_id_matches(tmp_path):
    state = json.loads((REAL / "base_state.json").read_text())
    for entry in state["stats"]["usage_to_metrics"]["agent"]["token_usages"]:
        entry["response_id"] = "other"
    conversation = tmp_path / "c0ffee"
    shutil.copytree(REAL / "events", conversation / "events")
    (conversation / "base_state.json").write_text(json.dumps(state))
    (trace,), _ = read(conversation)
    assert [r.usage for r in trace.rounds] == [None, None, None]
    assert counts_tuple(trace.usage_total) == (11583, 94, 7552, 0)


def test_damaged_event_files_are_warnings_naming_the_file(tmp_path):
    conversation = tmp_path / "deadbeef"
    shutil.copytree(LOOP / "events", conversation / "events")
    files = sorted((conversation / "events").glob("event-*.json"))
    files[3].write_text(files[3].read_text()[:-20])  # truncated: observation of round 1 lost
    files[5].write_text("")  # empty
    unknown = json.loads(files[16].read_text())
    unknown["kind"] = "HologramEvent"
    files[16].write_text(json.dumps(unknown))  # an AgentErrorEvent becomes an unknown kind
    orphan = json.loads(files[7].read_text())
    orphan["action_id"], orphan["tool_call_id"] = "nobody", "toolu_nobody"
    files[7].write_text(json.dumps(orphan))  # a result without its call
    odd = json.loads(files[10].read_text())
    odd["thought"], odd["timestamp"] = 12, "yesterday"
    files[10].write_text(json.dumps(odd))  # wrong field types
    (trace,), warnings = read(conversation)
    assert trace.id == "deadbeef"
    assert len(trace.rounds) == 8
    assert {(Path(file).name, line) for file, line, _ in warnings} >= {(files[3].name, 1), (files[5].name, None), (files[16].name, None), (files[7].name, None)}
    by_file: dict[str, str] = {}
    for file, _, reason in warnings:
        by_file[Path(file).name] = f"{by_file.get(Path(file).name, '')} | {reason}"
    assert "not valid JSON" in by_file[files[3].name]
    assert "empty file" in by_file[files[5].name]
    assert "unknown kind 'HologramEvent'" in by_file[files[16].name]
    assert "tool result for unknown call id 'toolu_nobody'" in by_file[files[7].name]
    assert "ActionEvent timestamp 'yesterday' is not a time" in by_file[files[10].name]
    assert "ActionEvent thought 12 is not a list" in by_file[files[10].name]
    # The calls left without results are named by their action's event file.
    no_result = [Path(f).name for f, _, reason in warnings if reason.endswith("has no result")]
    assert no_result == [files[2].name, files[4].name, files[6].name]  # their results: truncated, empty, orphaned


def test_a_kind_that_is_not_a_string_is_no_event(tmp_path, cli):
    # A list for "kind" once reached the set of kinds: an internal error, sniffed or forced.
    assert not reader_by_name("openhands-v1").sniff({"kind": [], "source": "agent"})
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps({"kind": ["ActionEvent"], "source": "agent"}) + "\n")
    for forced in ((), ("--input-format", "openhands-v1")):
        result = cli("replay", *forced, str(path))
        assert "internal error" not in result.stderr and f"{path.name}:1:" in result.stderr


def test_a_known_kind_from_an_unknown_source_is_named_as_such(tmp_path):
    events = [json.loads(p.read_text()) for p in _events(LOOP)]
    events[1]["source"] = "hologram"
    path = tmp_path / "events.jsonl"
    write_jsonl(path, events)
    _, warnings = read(path)
    assert (path.name, 2, f"OpenHands {events[1]['kind']} of unknown source 'hologram' skipped") in warnings


def test_no_output_is_written_over_an_event_file_or_the_state_beside_the_events(tmp_path, cli):
    # An event file is an input of its folder's source; base_state.json is read with them.
    conversation = tmp_path / "conversation"
    shutil.copytree(LOOP, conversation)
    state = conversation / "base_state.json"
    files = [*_events(conversation), state]
    before = [p.read_bytes() for p in files]
    for command, inputs, output in (
        (["convert"], conversation, files[1]),
        (["replay", "-f", "json"], conversation / "events", files[0]),
        (["convert"], conversation / "events", state),
        (["show"], shutil.copy(EXPORT, conversation), state),
    ):
        result = cli(*command, str(inputs), "-o", str(output))
        assert result.exit_code == 2 and "never writes over an input" in result.stderr, (command, output.name, result.stderr)
    assert [p.read_bytes() for p in files] == before


def test_sniffed_listed_and_jobs(cli):
    traces, _ = read(REAL.parent, LOOP.parent, EXPORT, PAGE, ERROR)
    assert {t.format for t in traces} == {"openhands-v1"} and len(traces) == 5
    listed = cli("formats").stdout
    assert "openhands-v1" in listed and "software-agent SDK" in listed
    one = json.loads(cli("replay", str(FIXTURES), "-f", "json").stdout)
    many = json.loads(cli("replay", str(FIXTURES), "-f", "json", "--jobs", "2").stdout)
    assert [t["id"] for t in one["traces"]] == [t["id"] for t in many["traces"]]
    assert len(one["traces"]) == 5


def test_show_and_convert_round_trip(tmp_path):
    assert_show_and_convert_round_trip(REAL, ["openhands-v1", "cd945624-03b9-487e-bdd4-018e3f531dfd"], [REAL, LOOP, EXPORT, PAGE, ERROR], tmp_path)


def test_no_other_formats_file_is_sniffed_as_openhands_v1():
    v1 = reader_by_name("openhands-v1")
    others = [p for p in FIXTURES.parent.rglob("*") if p.suffix in (".jsonl", ".json") and "openhands_v1" not in p.parts]
    assert len(others) > 50
    for path in others:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            first = json.loads(text.splitlines()[0]) if path.suffix == ".jsonl" else json.loads(text)
        except (ValueError, IndexError):
            continue
        assert not v1.sniff(first), path
    # V0 events are not V1 events, and V1 events are sniffed before V0's reader sees them.
    v0 = reader_by_name("openhands")
    first_action = json.loads(_events(REAL)[2].read_text())
    assert v0.sniff(first_action) and v1.sniff(first_action)


def test_an_unreadable_base_state_is_a_warning_and_the_trace_is_kept(tmp_path):
    conversation = tmp_path / "c0de"
    shutil.copytree(REAL, conversation)
    (conversation / "base_state.json").write_text('{"id": ')
    (trace,), warnings = read(conversation / "events")
    assert (trace.id, len(trace.rounds), [r.usage for r in trace.rounds]) == ("c0de", 3, [None, None, None])
    assert [(file, line) for file, line, _ in warnings] == [("events", None)]
    assert "base_state.json: conversation state unreadable" in warnings[0][2]
