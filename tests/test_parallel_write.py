"""R006 parallel-write (issue 25 item 2, seed 001): a report-only finding for a model
response whose parallel calls include a write beside other calls. It hints, never
stops, saves nothing, and runs by default only in the ``loopagent`` preset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from tracecheck.config import load_settings
from tracecheck.engine.replay import replay_trace
from tracecheck.guards import guard_by_code
from tracecheck.model import Round, ToolCall, ToolResult, Trace
from tracecheck.presets import PRESETS

SAMPLE = FIXTURES / "openai_chat" / "parallel_write.json"
CODETRACER = ROOT / "tests" / "corpus" / "CodeTracer"

# The real Claude Code (kimi-k2.5) runs of tests/corpus/CodeTracer whose responses ask for
# a write beside other calls, read in the ATIF trajectories by hand (the agent steps of one
# response share its timestamp after the step carrying its metrics):
#   db-wal-recovery          round 44 Write + Bash, 47 Write + Bash (49: Write + the no-op
#                            ': …' Bash, which can do nothing: quiet)
#   headless-terminal        round 36 Glob + Write + Bash (a no-op, but Glob is a partner)
#   large-scale-text-editing round 3 Write + Bash + Bash
#   modernize-scientific-stack rounds 4, 5, 6: Write + Write (steps 10-11, 13-14, 16-17)
#   nginx-request-logging    round 5 Write + Write + Read, 6 Edit + Write, 9 Edit + Bash
# Responses of TodoWrite beside one other call (8 runs) are bookkeeping: quiet.
CORPUS_FIRES = {
    "db-wal-recovery__KrUq6sC": [44, 47],
    "headless-terminal__bemYu3W": [36],
    "large-scale-text-editing__ZgUdWkr": [3],
    "modernize-scientific-stack__gDr77c7": [4, 5, 6],
    "nginx-request-logging__KgTBE9j": [5, 6, 9],
}


def _json_report(cli, *args: str) -> dict:
    result = cli("replay", *args, "-f", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_loopagent_reports_the_samples_parallel_write_and_saves_nothing(cli):
    # The sample's 2nd assistant message asks for read_file and apply_edit together; the
    # 1st asks for two explore_code reads, the 3rd for one apply_edit alone.
    report = _json_report(cli, "--preset", "loopagent", str(SAMPLE))
    [trace] = report["traces"]
    [fire] = trace["fires"]
    assert (fire["code"], fire["round"], fire["phase"], fire["action"]) == ("R006", 2, "before_tools", "hint")
    assert fire["call_id"] == "call_Mn5bV7cX9zQ2wE4rT6yU8iPo"  # the apply_edit
    assert fire["details"] == {"write": "apply_edit", "writes": 1, "others": 1, "calls": 2}
    assert "apply_edit beside 1 other call (read_file)" in fire["reason"] and "LoopAgent" in fire["reason"]
    assert "race" in fire["message"]
    # A hint saves nothing: no saving on the fire, none in the policy, none in the totals.
    assert fire["saved"] is None
    assert trace["policy"]["stops"] == [] and trace["policy"]["saved"]["llm_calls"] == 0
    assert report["totals"]["saved"]["llm_calls"] == report["totals"]["saved"]["tool_calls"] == report["totals"]["saved"]["tokens"] == 0
    assert report["totals"]["by_guard"]["R006"] == {"traces": 1, "fires": 1}


def test_the_terminal_report_names_the_finding(cli):
    result = cli("replay", "--preset", "loopagent", str(SAMPLE))
    assert result.exit_code == 0
    assert "R006 parallel-write" in result.stdout and "HINT" in result.stdout
    assert "saved: nothing" in result.stdout


def test_only_the_loopagent_preset_runs_it():
    assert [name for name, preset in PRESETS.items() if "R006" in preset.guards] == ["loopagent"]
    assert "R006" in {g.code for g in load_settings(preset="loopagent", cwd=ROOT).enabled()}
    for name in PRESETS:
        if name != "loopagent":
            assert "R006" not in {g.code for g in load_settings(preset=name, cwd=ROOT).enabled()}, name


def test_the_default_preset_is_quiet_on_the_sample(cli):
    report = _json_report(cli, str(SAMPLE))
    assert report["traces"][0]["fires"] == []


def test_on_the_corpus_it_fires_exactly_on_the_responses_with_parallel_writes(cli):
    report = _json_report(cli, "--preset", "loopagent", "--select", "R006", str(ROOT / "tests" / "corpus"))
    got: dict[str, list[int]] = {}
    for trace in report["traces"]:
        rounds = [f["round"] for f in trace["fires"]]
        assert all(f["action"] == "hint" for f in trace["fires"])
        if rounds:
            got[Path(trace["file"]).parent.name] = rounds
    assert got == CORPUS_FIRES
    assert report["totals"]["saved"]["llm_calls"] == 0 and report["totals"]["traces_stopped"] == 0


def test_write_tools_is_configurable(cli):
    # Without apply_edit among the writing tools the sample has no write beside others.
    report = _json_report(cli, "--preset", "loopagent", "--set", "R006.write_tools=write_file", str(SAMPLE))
    assert report["traces"][0]["fires"] == []


def _timed(name: str, args: dict, start: float, end: float, k: int) -> ToolCall:
    return ToolCall(id=f"c{k}", name=name, arguments_raw=json.dumps(args), arguments=args, result=ToolResult("ok", False, start, end))


@pytest.mark.parametrize(
    ("read_span", "overlapped", "words"),
    [
        ((10.0, 12.0), True, "overlapped another call"),  # read 10-12 s, write 11-13 s: they overlap
        ((10.0, 11.0), False, "ran apart from the others"),  # read ends at 11 s as the write starts
    ],
)
def test_timed_results_say_whether_the_recorded_run_overlapped(read_span, overlapped, words):
    trace = Trace(id="t", format="example", file="<t>")
    trace.rounds.append(
        Round(index=1, tool_calls=[_timed("read_file", {"path": "a.py"}, *read_span, 1), _timed("apply_edit", {"path": "a.py"}, 11.0, 13.0, 2)])
    )
    trace.rounds.append(Round(index=2, text="done"))
    trace.number_turns()
    [fire] = replay_trace(trace, [guard_by_code("R006")(enabled=True)]).fires
    assert fire.details["overlapped"] is overlapped and fire.saved is None
    assert words in fire.reason
