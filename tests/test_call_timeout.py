"""B005 call-timeout (seed 004's single-step watchdog) on traces that time their tool calls.

Every figure below was checked by hand against the recorded timestamps of the file
(the result event's timestamp minus its action's); the comments say how.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracecheck.guards import guard_by_code
from tracecheck.presets import PRESETS
from tracecheck.engine.replay import replay_trace
from tracecheck.readers.load import read_traces

ROOT = Path(__file__).parent
FIXTURE = ROOT / "fixtures" / "openhands" / "call_timeouts.json"
GUI_MODE = ROOT / "corpus" / "OpenHands" / "basic_gui_mode.json"
INSPECT = ROOT / "corpus" / "inspect_ai" / "2025-05-12T20-27-36-04-00_browser.json"
TAU2 = ROOT / "corpus" / "tau2-bench" / "telecom-workflow_grok-3.json"


def b005_fires(cli, path: Path, *args: str) -> list[tuple[int, dict]]:
    result = cli("replay", *args, "--format", "json", str(path))
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    fires = [(f["round"], f["details"], f) for t in report["traces"] for f in t["fires"] if f["code"] == "B005"]
    for _, _, fire in fires:
        assert fire["action"] == "hint" and fire["phase"] == "after_tools"
    return [(r, d) for r, d, _ in fires], report


def test_fixture_cuts_three_calls_and_counts_only_the_failed_ones(cli):
    fires, report = b005_fires(cli, FIXTURE, "--preset", "patchcat")
    assert [r for r, _ in fires] == [2, 3, 4]  # round 1: curl ran 7.006 - 4.906 = 2.1 s <= 5 s: no fire
    by_round = dict(fires)
    # Round 2: execute_ipython_cell (matches *exec* and *python*: 5 s) from 12.114 s to 132.464 s = 120.35 s;
    # its result says "timed out" (IPython cells carry no error flag): 120.35 - 5 = 115.35 s saved.
    assert by_round[2] == {
        "tool": "execute_ipython_cell", "limit": 5.0, "limit_of": "*exec*|*python*|*sandbox*", "seconds": 120.35,
        "cut_seconds": 115.35, "recorded": "timed out", "saved_seconds": 115.35, "estimated": True,
    }
    # Round 3: execute_bash 140.271 -> 148.071 = 7.8 s, limit 5: 2.8 s past it, but it printed 0.04153 with
    # exit code 0, the figure the final answer gives: not counted.
    assert by_round[3]["seconds"] == 7.8 and by_round[3]["cut_seconds"] == 2.8
    assert by_round[3]["recorded"] == "productive" and by_round[3]["saved_seconds"] == 0.0
    # Round 4: the MCP fetch (*fetch*: 30 s) 152.530 -> 198.030 = 45.5 s; isError true: 15.5 s saved.
    assert by_round[4]["limit"] == 30.0 and by_round[4]["seconds"] == 45.5
    assert by_round[4]["recorded"] == "failed" and by_round[4]["saved_seconds"] == 15.5
    # Hints: the policy stops nothing and counts nothing.
    policy = report["traces"][0]["policy"]
    assert policy["stops"] == [] and policy["blocked_calls"] == 0


def test_fixture_reasons_say_what_the_agent_would_have_got(cli):
    result = cli("replay", "--preset", "patchcat", "--select", "B005", "--format", "json", str(FIXTURE))
    reasons = [f["reason"] for f in json.loads(result.stdout)["traces"][0]["fires"]]
    assert all("timeout error instead of its result" in r for r in reasons)
    assert "~115.4 s saved (estimate)" in reasons[0]
    assert "2.8 s not counted as saved" in reasons[1]
    assert "~15.5 s saved (estimate)" in reasons[2]
    messages = [f["message"] for f in json.loads(result.stdout)["traces"][0]["fires"]]
    assert messages[0] == "Error: execute_ipython_cell was stopped after 5 s (its time limit) and returned no result."


def test_openhands_corpus_server_left_running_is_a_safe_cut(cli):
    fires, _ = b005_fires(cli, GUI_MODE, "--preset", "patchcat")
    # Round 4: `python3 -m http.server 8000` via execute_bash, events at 20:29:59.282034 and 20:30:29.862264
    # = 30.58023 s, exit code -1 (still running at OpenHands' timeout): 30.58 - 5 = 25.58 s saved.
    assert fires == [(4, {
        "tool": "execute_bash", "limit": 5.0, "limit_of": "*exec*|*python*|*sandbox*", "seconds": 30.58,
        "cut_seconds": 25.58, "recorded": "failed", "saved_seconds": 25.58, "estimated": True,
    })]
    # The other OpenHands corpus runs: every call under 1 s (wrong_initial_state's longest, mv, 0.649 s).
    for name in ("basic.json", "wrong_initial_state.json", "basic_interactions.json"):
        assert b005_fires(cli, GUI_MODE.parent / name, "--preset", "patchcat")[0] == []


def test_inspect_corpus_browser_tools_are_unbounded_by_the_seed_and_not_counted_when_bounded(cli):
    # web_browser_go / web_browser_click match neither *exec*|*python*|*sandbox* nor *fetch*|*http*|*search*.
    assert b005_fires(cli, INSPECT, "--preset", "patchcat")[0] == []
    fires, _ = b005_fires(cli, INSPECT, "--select", "B005", "--set", "B005.limits=web_browser_*=2")
    # Round 1 go: 4.3176 s -> 2.318 s past 2 s; round 3 click: 2.9945 s -> 0.995 s; rounds 2 and 4 (1.28 s, 1.27 s)
    # stay under. Both results are the pages the agent went on to read: nothing counted.
    assert [(r, d["seconds"], d["cut_seconds"], d["saved_seconds"]) for r, d in fires] == [
        (1, 4.318, 2.318, 0.0), (3, 2.995, 0.995, 0.0)
    ]


def test_a_trace_without_call_times_never_fires_and_says_why(cli):
    assert b005_fires(cli, TAU2, "--select", "B005", "--set", "B005.default_limit=0.001")[0] == []
    guard = guard_by_code("B005")(default_limit=0.001)
    trace = next(iter(read_traces([str(TAU2)])))
    replay_trace(trace, [guard])
    calls = sum(1 for r in trace.rounds for c in r.tool_calls if c.result is not None)
    assert calls and guard.near_miss() == f"{calls} tool result{'s' if calls > 1 else ''}, none with start and end times: nothing to time"
    explained = cli("guard", "B005").stdout
    assert "never fires" in explained and "tau2-bench" in explained


def test_patchcat_sets_the_seed_limits_and_default_does_not_run_it():
    assert PRESETS["patchcat"].guards["B005"]["limits"] == ["*exec*|*python*|*sandbox*=5", "*fetch*|*http*|*search*=30"]
    assert "B005" not in PRESETS["default"].guards


@pytest.mark.parametrize("entry", ["foo", "*exec*=0", "*exec*=abc", "=5"])
def test_a_bad_limit_is_a_config_error(cli, entry):
    result = cli("replay", "--select", "B005", "--set", f"B005.limits={entry}", str(FIXTURE))
    assert result.exit_code == 2 and "GLOBS=SECONDS" in result.stderr


def test_a_result_that_mentions_timeouts_is_not_a_timeout():
    # A web search (no error flag in the format) ran 41 s, limit 30 s: its result is HTTPX's docs on
    # timeouts ("... raise a TimeoutException after 5 seconds"), what the run went on with. Counted as
    # "timed out" before, 41 - 30 = 11 s were reported saved; it is a success: 11 s cut, 0 saved.
    from tracecheck.engine.replay import replay_trace as replay
    from tracecheck.guards.b005_call_timeout import CallTimeout, timed
    from tracecheck.guards.examples import Example, answer
    from tracecheck.guards.p003_no_new_information import HTTPX
    from tracecheck.guards.tool_kinds import SEED_004_TIME_LIMITS

    def fire(text: str):
        trace = Example("docs", (timed("web_search", 41.0, text, error=None, args={"query": "httpx timeout"}), answer())).trace()
        (only,) = replay(trace, [CallTimeout(limits=list(SEED_004_TIME_LIMITS))]).fires
        return only.details

    docs = fire(HTTPX)
    assert docs["recorded"] == "productive" and docs["cut_seconds"] == 11.0 and docs["saved_seconds"] == 0.0
    # The tool's own timeout, said where its result opens, still counts: 11 s saved.
    gave_up = fire("[Search timed out after 41 seconds. No results were returned.]")
    assert gave_up["recorded"] == "timed out" and gave_up["saved_seconds"] == 11.0


def test_a_live_monitor_times_a_lone_call():
    # The Monitor recorded when results came in, never when a call started: B005 never fired live,
    # although its docs say a live agent's monitor can apply it. Now a lone call runs from the end of
    # its response (before_tools, clock 100.0) to after_tools (clock 112.4): 12.4 s, limit 5 s
    # (*python*), its result timed out itself: 7.4 s saved. Parallel calls share their span: untimed.
    from tracecheck import Monitor

    now = [90.0]
    monitor = Monitor("patchcat", clock=lambda: now[0])
    monitor.new_turn("compute the mean")
    now[0] = 100.0
    monitor.before_tools([{"id": "c1", "name": "python_sandbox", "arguments": {"code": "while True: pass"}}])
    now[0] = 112.4
    decision = monitor.after_tools([("c1", "Error: execution timed out after 12 s", True)])
    ((code, verdict),) = decision.verdicts
    assert code == "B005" and decision.action == "hint"
    assert verdict.details["seconds"] == 12.4 and verdict.details["saved_seconds"] == 7.4
    now[0] = 200.0
    monitor.before_tools([
        {"id": "c2", "name": "python_sandbox", "arguments": {"code": "a()"}},
        {"id": "c3", "name": "web_fetch", "arguments": {"url": "https://example.com"}},
    ])
    now[0] = 260.0
    assert monitor.after_tools([("c2", "Error: timed out", True), ("c3", "<html></html>")]).verdicts == []
    assert monitor.trace.rounds[1].tool_calls[0].result.seconds is None
