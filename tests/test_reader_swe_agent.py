"""The SWE-agent reader: .traj files in the function-calling and the text-action variant,
read through the public ``read_traces`` API and once through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces
from tracecheck.model import Usage

from conftest import assert_show_and_convert_round_trip, read_with_warnings as read

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "swe_agent"
CORPUS = Path(__file__).resolve().parent / "corpus" / "SWE-agent"
MARSHMALLOW = CORPUS / "marshmallow-code__marshmallow-1867.traj"


# --- the real trajectory (function calling) -------------------------------------------------


def test_corpus_function_calling_trajectory_is_pinned():
    traces, warnings = read(MARSHMALLOW)
    assert warnings == []
    [trace] = traces
    assert trace.id == "marshmallow-code__marshmallow-1867"  # replay_config.problem_statement.id
    assert trace.format == "swe-agent"
    assert (trace.line, trace.end_line) == (1, 1)
    assert len(trace.rounds) == 11
    names = [c.name for c in trace.tool_calls()]
    assert names == ["create", "insert", "bash", "bash", "find_file", "open", "edit", "edit", "bash", "bash"]
    first = trace.rounds[0]
    (create,) = first.tool_calls
    assert create.id == "call_cyI71DYnRdoLHWwtZgIaW2wr"
    assert create.arguments == {"filename": "reproduce.py"}
    assert create.arguments_raw == '{"filename":"reproduce.py"}'
    assert create.result.content.startswith("[File: reproduce.py (1 lines total)]")
    assert create.result.is_error is None  # SWE-agent has no error flag
    assert first.text.startswith("Let's first start by reproducing the results of the issue.")
    # The instance message is the task, the one turn's user message; observations are results.
    [task] = trace.user_messages
    assert task.text.startswith("We're currently solving the following issue within our repository.")
    assert task.before_round == 1 and {r.turn for r in trace.rounds} == {1}
    # Call ids recur across rounds: each tool message answers the open call of its round.
    assert [c.id for c in trace.tool_calls()].count("call_5iDdbOYybq7L19vqXmR0DPaU") == 4
    assert trace.rounds[2].tool_calls[0].result.content.startswith("344\n")
    assert trace.rounds[8].tool_calls[0].result.content.startswith("345\n")
    assert trace.rounds[6].tool_calls[0].result.content.startswith("Your proposed edit has introduced new syntax error(s).")
    # The submit that ended the run is its answer.
    last = trace.rounds[-1]
    assert last.is_final and last.text == "Calling `submit` to submit."
    assert trace.answered
    assert trace.metadata["submission"].startswith("\r\ndiff --git a/src/marshmallow/fields.py")
    # No usage, no times: model_stats counted 0 tokens for 11 API calls (a replay).
    assert trace.usage_total is None
    assert all(r.usage is None for r in trace.rounds)
    assert trace.metadata["model_stats"] == {"instance_cost": 0, "tokens_sent": 0, "tokens_received": 0, "api_calls": 11}
    assert first.started_at is None and first.ended_at is None
    assert create.result.started_at is None and create.result.ended_at is None
    assert trace.metadata["tool_seconds"] == 3.999127
    assert trace.metadata["model"] == "gpt-4o"
    # Submitted is how the run ended; no SWE-bench report beside it grades the patch.
    assert trace.labels == {"exit_status": "submitted"}
    assert (trace.ending, trace.outcome, trace.error) == ("submitted", "unknown", None)


# --- text actions ------------------------------------------------------------------------------


def test_text_action_trajectory_one_round_per_step():
    traces, warnings = read(FIXTURES / "psf__requests-2317.traj")
    assert warnings == []
    [trace] = traces
    assert trace.id == "psf__requests-2317"  # no problem id in the replay config: the file name
    assert len(trace.rounds) == 6
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["find_file"], ["open"], [], ["edit"], ["python"], []]
    find, opened, requeried, edit, python, submit = trace.rounds
    (call,) = find.tool_calls
    # The rest of the command is plain text, not JSON, and not an error.
    assert (call.arguments_raw, call.arguments, call.arguments_error) == ('"sessions.py"', '"sessions.py"', None)
    assert call.id == "r1.c1"
    assert call.result.content == 'Found 1 matches for "sessions.py" in /psf__requests:\n/psf__requests/requests/sessions.py'
    assert opened.tool_calls[0].arguments == "requests/sessions.py 428"
    assert edit.tool_calls[0].arguments == "428:428\n        method = to_native_string(method)\nend_of_edit"
    assert python.tool_calls[0].arguments == "reproduce.py"
    assert python.tool_calls[0].result.content == "GET\nScript completed successfully, no errors."
    # The response SWE-agent re-queried (no command) is a round without calls.
    assert requeried.text == "I will now change builtin_str to to_native_string so that bytes are decoded."
    # The round text is the whole response, command block included.
    assert find.text == "First, let's find the sessions.py file mentioned in the issue.\n```\nfind_file \"sessions.py\"\n```\n"
    assert submit.is_final and submit.text.startswith("The method is now a native string.")
    assert trace.metadata["submission"].startswith("\ndiff --git a/requests/sessions.py")
    assert trace.usage_total == Usage(input_tokens=48213, output_tokens=1187)
    assert trace.metadata["tool_seconds"] == 2.6736
    assert trace.metadata["model"] == "gpt4"
    assert (trace.ending, trace.outcome) == ("submitted", "unknown")
    assert trace.answered


def test_cost_limit_with_autosubmission_is_a_limit_without_an_answer():
    traces, warnings = read(FIXTURES / "xarray_exit_cost.traj")
    assert warnings == []
    [trace] = traces
    assert trace.id == "pydata__xarray-4094"
    # The demonstration is skipped and SWE-agent's own "Exit due to cost limit" is no round.
    assert len(trace.rounds) == 3
    assert {c.arguments_raw for c in trace.tool_calls()} == {'{"command": "python -c \\"import xarray; print(xarray.__version__)\\""}'}
    assert [c.id for c in trace.tool_calls()] == [
        "call_Q1b8mTz0VfL3xY6nK2pR9dWs",
        "call_H7cJ2kP5nW8qT1vB4xZ6mL0e",
        "call_R3tY6uI9oP2aS5dF8gH1jK4l",
    ]
    assert all(c.result.content == "0.15.2.dev71+ga64cf2d5\n" for c in trace.tool_calls())
    # The cost limit ended the run (the harness submitted after it): an ending, not a grade.
    assert trace.labels == {"exit_status": "submitted (exit_cost)"}
    assert (trace.ending, trace.outcome) == ("limit", "unknown")
    assert trace.error == "Exit due to cost limit [submitted (exit_cost)]"
    assert not trace.answered
    assert trace.usage_total == Usage(input_tokens=1187342, output_tokens=9814)
    assert trace.metadata["model"] == "claude-3-7-sonnet-20250219"
    assert "submission" not in trace.metadata  # the model never submitted; the harness did


def test_a_traj_with_only_its_history_reads_rounds_from_the_messages():
    path = FIXTURES / "pallets__flask-4045.traj"
    traces, warnings = read(path)
    assert warnings == []
    [trace] = traces
    assert (trace.id, trace.format) == ("pallets__flask-4045", "swe-agent")  # sniffed without a trajectory list
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["find_file"], ["open"], ["edit"], ["edit"], ["python"], []]
    assert trace.rounds[1].tool_calls[0].arguments == "src/flask/blueprints.py 186"
    # 0.x writes no message_type: the user message after a round is its observation.
    rejected = trace.rounds[2].tool_calls[0].result
    assert rejected.content.startswith("Your proposed edit has introduced new syntax error(s).")
    assert rejected.is_error is None  # SWE-agent records no exit code or error flag
    assert trace.rounds[4].tool_calls[0].result.content.startswith("Traceback (most recent call last):")
    assert [task.text[:45] for task in trace.user_messages] == ["We're currently solving the following issue w"]
    last = trace.rounds[-1]
    assert last.is_final and last.text.startswith("A dotted blueprint name now raises ValueError")
    assert trace.metadata["submission"].startswith("\ndiff --git a/src/flask/blueprints.py")
    assert trace.labels == {"exit_status": "submitted"} and trace.ending == "submitted"
    # The run total of model_stats: 40,771 tokens sent, 762 received.
    assert trace.usage_total == Usage(input_tokens=40771, output_tokens=762)
    assert all(r.usage is None for r in trace.rounds)


def test_the_run_total_is_shared_out_over_the_rounds(cli):
    path = FIXTURES / "pallets__flask-4045.traj"
    [shown] = json.loads(cli("replay", "--format", "json", str(path)).stdout)["traces"]
    assert (shown["rounds"], shown["tool_calls"], shown["tokens"], shown["tokens_basis"]) == (6, 5, 41533, "apportioned")
    assert "41,533 tokens (run total measured, per round apportioned)" in cli("show", "--no-guards", str(path)).stdout


# --- a history-only .traj (function calling) ------------------------------------------------


def test_history_only_function_calling_traj_ends_submitted_with_no_outcome():
    traces, warnings = read(FIXTURES / "django__django-11099.traj")
    assert warnings == []
    [trace] = traces
    assert (trace.id, trace.format) == ("django__django-11099", "swe-agent")  # sniffed without a trajectory list
    assert [[c.name for c in r.tool_calls] for r in trace.rounds] == [["str_replace_editor"], ["str_replace_editor"], []]
    view, edit = (r.tool_calls[0] for r in trace.rounds[:2])
    assert view.id == "toolu_01Hq3VbN8wXk2mPz7rTf5LcY" and view.arguments["command"] == "view"
    assert edit.result.content == "The file /testbed/django/contrib/auth/validators.py has been edited."
    assert trace.rounds[-1].is_final and trace.metadata["submission"].startswith("diff --git a/django/contrib/auth/validators.py")
    assert trace.usage_total == Usage(input_tokens=15873, output_tokens=402)
    assert (trace.ending, trace.outcome, trace.labels) == ("submitted", "unknown", {"exit_status": "submitted"})


def test_history_without_info_is_still_a_swe_agent_traj(tmp_path):
    doc = json.loads((FIXTURES / "django__django-11099.traj").read_text())
    del doc["info"]
    path = tmp_path / "django__django-11099.traj"
    path.write_text(json.dumps(doc, indent=2))
    [trace], warnings = read(path)
    assert warnings == [] and trace.format == "swe-agent"
    # No exit status, but the last round's lone submit ended the run.
    assert len(trace.rounds) == 3 and trace.rounds[-1].is_final
    assert (trace.ending, trace.outcome, trace.labels) == ("submitted", "unknown", {})


# --- graders beside the trajectories -------------------------------------------------------------


def _instance_report(instance_id: str, resolved: bool) -> dict:
    """What the SWE-bench harness writes to logs/run_evaluation/<run>/<model>/<id>/report.json."""
    return {
        instance_id: {
            "patch_is_None": False,
            "patch_exists": True,
            "patch_successfully_applied": True,
            "resolved": resolved,
            "tests_status": {"FAIL_TO_PASS": {"success": [], "failure": []}, "PASS_TO_PASS": {"success": [], "failure": []}},
        }
    }


def _run_layout(tmp_path: Path, *names: str) -> Path:
    """SWE-agent 1.x's layout: <run>/<instance id>/<instance id>.traj."""
    run = tmp_path / "run"
    for name in names:
        folder = run / name
        folder.mkdir(parents=True)
        (folder / f"{name}.traj").write_bytes((FIXTURES / f"{name}.traj").read_bytes())
    return run


@pytest.mark.parametrize("resolved, outcome", [(True, "success"), (False, "failure")])
def test_a_swe_bench_report_beside_the_traj_grades_it(tmp_path, resolved, outcome):
    run = _run_layout(tmp_path, "django__django-11099")
    report = run / "django__django-11099" / "report.json"
    report.write_text(json.dumps(_instance_report("django__django-11099", resolved), indent=4))
    [trace], warnings = read(run)
    assert warnings == []  # the report is a known companion, not an unreadable transcript
    assert (trace.ending, trace.outcome) == ("submitted", outcome)
    assert trace.metadata["graded_by"].endswith("report.json")


def test_a_run_summary_one_folder_up_grades_each_instance(tmp_path):
    run = _run_layout(tmp_path, "django__django-11099", "pallets__flask-4045", "psf__requests-2317")
    # The harness's run summary (make_run_report), saved as results.json in the run folder.
    summary = {
        "total_instances": 3, "submitted_instances": 3, "completed_instances": 2, "resolved_instances": 1,
        "unresolved_instances": 1, "empty_patch_instances": 0, "error_instances": 1,
        "completed_ids": ["django__django-11099", "pallets__flask-4045"], "incomplete_ids": [],
        "empty_patch_ids": [], "submitted_ids": ["django__django-11099", "pallets__flask-4045", "psf__requests-2317"],
        "resolved_ids": ["django__django-11099"], "unresolved_ids": ["pallets__flask-4045"],
        "error_ids": ["psf__requests-2317"], "schema_version": 2,
    }
    (run / "results.json").write_text(json.dumps(summary, indent=4))
    traces, warnings = read(run)
    assert warnings == []
    by_id = {t.id: t for t in traces}
    assert {i: (t.ending, t.outcome) for i, t in by_id.items()} == {
        "django__django-11099": ("submitted", "success"),
        "pallets__flask-4045": ("submitted", "failure"),
        "psf__requests-2317": ("submitted", "unknown"),  # the harness could not grade it: no verdict
    }


def test_the_experiments_results_json_and_an_unnamed_instance(tmp_path):
    run = _run_layout(tmp_path, "django__django-11099", "pallets__flask-4045", "psf__requests-2317")
    # SWE-bench/experiments' results/results.json: generated-but-not-resolved is unresolved.
    results = {"no_generation": [], "generated": ["django__django-11099", "pallets__flask-4045"], "with_logs": ["django__django-11099", "pallets__flask-4045"],
               "install_fail": [], "reset_failed": [], "no_apply": [], "applied": ["django__django-11099", "pallets__flask-4045"],
               "test_errored": [], "test_timeout": [], "resolved": ["pallets__flask-4045"]}
    (run / "results.json").write_text(json.dumps(results))
    by_id = {t.id: t.outcome for t in read(run)[0]}
    assert by_id == {"django__django-11099": "failure", "pallets__flask-4045": "success", "psf__requests-2317": "unknown"}


def test_a_limit_run_the_harness_autosubmitted_can_still_resolve_and_replay_calls_a_stop_harm(tmp_path, cli):
    run = tmp_path / "run" / "pydata__xarray-4094"
    run.mkdir(parents=True)
    (run / "pydata__xarray-4094.traj").write_bytes((FIXTURES / "xarray_exit_cost.traj").read_bytes())
    ungraded = json.loads(cli("replay", "--format", "json", str(tmp_path)).stdout)["traces"][0]
    assert (ungraded["ending"], ungraded["labels"].get("outcome")) == ("limit", None)
    assert "harm: the run is labelled" not in cli("replay", str(tmp_path)).stdout  # no verdict: no harm claimed
    (run / "report.json").write_text(json.dumps(_instance_report("pydata__xarray-4094", True), indent=4))
    graded = json.loads(cli("replay", "--format", "json", str(tmp_path)).stdout)["traces"][0]
    assert (graded["ending"], graded["labels"]["outcome"]) == ("limit", "success")
    assert "harm: the run is labelled a success" in cli("replay", str(tmp_path)).stdout  # P004 stops a run the grader resolved


def test_an_unreadable_grading_file_is_named_once_and_grades_nothing(tmp_path):
    run = _run_layout(tmp_path, "django__django-11099", "pallets__flask-4045")
    (run / "results.json").write_text('{"resolved_ids": ["django__django-11099"')  # cut mid-write
    diagnostics = Diagnostics()
    traces = list(read_traces([str(run / "django__django-11099"), str(run / "pallets__flask-4045")], diagnostics))
    assert [t.outcome for t in traces] == ["unknown", "unknown"]
    problems = [d for d in diagnostics if "grading file unreadable" in d.reason]
    assert len(problems) == 1 and problems[0].file.endswith("results.json")


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_reported_and_other_files_still_read():
    traces, warnings = read(FIXTURES / "bad")
    assert [t.id for t in traces] == ["unknown_call"]
    [trace] = traces
    assert len(trace.rounds) == 1 and trace.rounds[0].tool_calls[0].result is None
    assert (trace.error, trace.ending, trace.outcome) == ("exit_format", "error", "unknown")
    assert warnings[0][:2] == ("truncated.traj", 1)
    assert warnings[0][2].startswith("not valid JSON (a document starting here)")
    assert warnings[1:] == [
        ("unknown_call.traj", 1, "trace unknown_call: history item 2 is not an object"),
        ("unknown_call.traj", 1, "trace unknown_call: tool result for unknown call id 'call_missing000000000000000'"),
        ("unknown_call.traj", 1, "trace unknown_call: call call_Zx81Yq0aPl3kM5nB7vC9xW2e (bash) has no result"),
    ]


def test_a_document_that_is_no_trajectory_is_reported(tmp_path):
    path = tmp_path / "odd.traj"
    path.write_text('{"trajectory": "not a list", "history": []}')
    diagnostics = Diagnostics()
    traces = list(read_traces([str(path)], diagnostics, input_format="swe-agent"))
    assert traces == []
    assert [(d.line, d.reason) for d in diagnostics] == [
        (1, "JSON that is not a SWE-agent trajectory (no 'trajectory' or 'history' list)"),
        # An empty 'history' list is how an OpenHands trajectory starts: the format asked for read nothing.
        (None, "nothing could be read as swe-agent; the records look like openhands: did you mean --input-format openhands (or leave --input-format out)?"),
    ]


# --- CLI ------------------------------------------------------------------------------------------


def test_cli_show_and_convert(tmp_path):
    paths = (MARSHMALLOW, FIXTURES / "psf__requests-2317.traj", FIXTURES / "xarray_exit_cost.traj", FIXTURES / "pallets__flask-4045.traj")
    assert_show_and_convert_round_trip(MARSHMALLOW, ["marshmallow-code__marshmallow-1867"], paths, tmp_path)
