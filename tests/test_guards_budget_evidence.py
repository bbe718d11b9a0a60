"""F001, E001, B001, B002 and B003 through the library API: replay_trace on traces
built with the example builders (or by hand where usage must be measured)."""

from __future__ import annotations

import dataclasses

import pytest

from tracecheck.engine.replay import replay_trace
from tracecheck.guards.b001_round_budget import RoundBudget
from tracecheck.guards.b002_token_budget import TokenBudget
from tracecheck.guards.b003_tool_call_cap import ToolCallCap
from tracecheck.guards.base import Action, Phase
from tracecheck.guards.e001_evidence_gate import EvidenceGate
from tracecheck.guards.examples import Call, Example, answer, calls, search
from tracecheck.guards.f001_tool_failure_streak import ToolFailureStreak
from tracecheck.guards.signals import ResultClassifier
from tracecheck.model import Round, ToolCall, ToolResult, Trace, Usage

GUARDS = (ToolFailureStreak, EvidenceGate, RoundBudget, TokenBudget, ToolCallCap)


def fail(tool="read_file", text="Error: No such file", error=True):
    return calls(Call(tool, {"path": "x"}, text, error=error))


def ok(tool="read_file", text="def main(): ..."):
    return calls(Call(tool, {"path": "x"}, text))


def run(guard, *steps, metadata=None):
    trace = Example("t", tuple(steps), metadata=metadata or {}).trace()
    return replay_trace(trace, [guard])


def fired(result):
    return [(f.round, f.phase.value, f.action.value) for f in result.fires]


# --- F001 tool-failure-streak -------------------------------------------------------


def test_f001_aborts_on_the_third_consecutive_failure_and_saves_the_rest():
    result = run(ToolFailureStreak(), fail(), fail(), fail(), fail(), ok(), answer())
    assert fired(result) == [(3, "after_tools", "abort")]
    fire = result.fires[0]
    assert fire.details["failures"] == 3 and fire.details["tool"] == "read_file"
    assert "3 times in a row" in fire.reason
    # Abort after the tools of round 3 of 6: the 3 later model calls and their 2 tool
    # calls never happen, and an abort is charged no forced answer.
    assert fire.saved.llm_calls == 3
    assert fire.saved.tool_calls == 2
    assert fire.saved.forced_answer_tokens is None
    assert fire.saved.tokens > 0
    assert result.policy.outcome_change == "answer → aborted, no answer"


def test_f001_a_success_in_between_resets_the_count():
    assert fired(run(ToolFailureStreak(), fail(), fail(), ok(), fail(), fail(), answer())) == []
    # ...while the same run without the success aborts.
    assert fired(run(ToolFailureStreak(), fail(), fail(), fail(), answer())) == [(3, "after_tools", "abort")]


def test_f001_failures_of_different_tools_count_separately():
    steps = (fail("read_file"), fail("run_shell"), fail("read_file"), fail("run_shell"), answer())
    assert fired(run(ToolFailureStreak(), *steps)) == []
    # A success of another tool does not reset read_file's count.
    steps = (fail("read_file"), ok("run_shell"), fail("read_file"), ok("run_shell"), fail("read_file"), answer())
    assert fired(run(ToolFailureStreak(), *steps)) == [(5, "after_tools", "abort")]


def test_f001_unflagged_result_starting_with_error_counts():
    unflagged = lambda: fail(text="Error: permission denied", error=None)  # noqa: E731
    result = run(ToolFailureStreak(), unflagged(), unflagged(), unflagged(), answer())
    assert fired(result) == [(3, "after_tools", "abort")]
    assert "failure pattern" in result.fires[0].reason
    # The format's own flag wins: the same text flagged as a success is not a failure.
    flagged_ok = lambda: fail(text="Error: permission denied", error=False)  # noqa: E731
    assert fired(run(ToolFailureStreak(), flagged_ok(), flagged_ok(), flagged_ok(), answer())) == []


def test_f001_json_error_object_counts_and_failure_patterns_are_options():
    json_error = lambda: fail(text='{"error": {"code": 404}}', error=None)  # noqa: E731
    assert fired(run(ToolFailureStreak(), json_error(), json_error(), json_error(), answer())) == [
        (3, "after_tools", "abort")
    ]
    custom = lambda: fail(text="command failed: exit 2", error=None)  # noqa: E731
    assert fired(run(ToolFailureStreak(), custom(), custom(), custom(), answer())) == []
    guard = ToolFailureStreak(failure_patterns=[r"^command failed"])
    assert fired(run(guard, custom(), custom(), custom(), answer())) == [(3, "after_tools", "abort")]


def test_f001_an_unproductive_success_is_not_a_failure():
    empty = calls(Call("read_file", {"path": "x"}, "No results found"))
    assert fired(run(ToolFailureStreak(), fail(), fail(), empty, fail(), answer())) == []
    classifier = ResultClassifier()
    result = ToolResult("No results found", is_error=None)
    assert not classifier.is_failure(result) and not classifier.is_productive(result)


def test_f001_threshold_option_and_parallel_calls_in_call_order():
    assert fired(run(ToolFailureStreak(threshold=2), fail(), fail(), answer())) == [(2, "after_tools", "abort")]
    parallel = calls(
        Call("read_file", {"path": "a"}, "Error: x", error=True),
        Call("read_file", {"path": "b"}, "Error: x", error=True),
        Call("read_file", {"path": "c"}, "ok"),
    )
    # Two failures then a success in one round: the success (later in call order) resets.
    assert fired(run(ToolFailureStreak(), parallel, fail(), fail(), answer())) == []


def test_f001_state_shows_the_counters():
    seen = []
    trace = Example("t", (fail(), fail(), answer())).trace()
    replay_trace(trace, [guard := ToolFailureStreak()], observe=lambda r, p, g: seen.append(g[0].state()))
    assert seen[-1]["consecutive_failures"] == {"read_file": 2}
    assert guard.state()["threshold"] == 3


def test_bad_failure_pattern_is_a_clear_error():
    with pytest.raises(ValueError, match="invalid failure pattern"):
        ToolFailureStreak(failure_patterns=["(unclosed"])


# --- E001 evidence-gate --------------------------------------------------------------


def docs(result="2 matches: docs/retry.md", error=False):
    return calls(Call("search_docs", {"query": "retry"}, result, error=error))


def test_e001_rejects_an_answer_without_a_productive_required_call_via_options():
    guard = EvidenceGate(required_all=["search_docs"])
    result = run(guard, docs("No results found"), answer())
    assert fired(result) == [(2, "final", "reject")]
    reason = result.fires[0].reason
    assert reason.startswith("Before finishing, call required tool(s): search_docs")
    assert "1 found nothing" in reason
    assert result.fires[0].details["missing"] == ["search_docs"]
    # A reject is soft: the run's outcome is not changed, nothing is "saved".
    assert result.fires[0].saved is None and result.policy.stop is None


def test_e001_reads_requirements_from_trace_metadata():
    meta = {"required_tools": ["search_docs"]}
    assert fired(run(EvidenceGate(), ok("read_file"), answer(), metadata=meta)) == [(2, "final", "reject")]
    assert fired(run(EvidenceGate(), docs(), answer(), metadata=meta)) == []
    any_of = {"required_any_of": ["search_docs", "grep"]}
    assert fired(run(EvidenceGate(), answer(), metadata=any_of)) == [(1, "final", "reject")]
    assert fired(run(EvidenceGate(), ok("grep", "a.py:1: x"), answer(), metadata=any_of)) == []


def test_e001_options_and_metadata_add_up():
    guard = EvidenceGate(required_all=["read_*"])
    meta = {"required_tools": "search_docs"}  # a single name as a string is accepted
    result = run(guard, docs(), answer(), metadata=meta)
    assert fired(result) == [(2, "final", "reject")]
    assert result.fires[0].details["missing"] == ["read_*"]
    assert fired(run(EvidenceGate(required_all=["read_*"]), docs(), ok(), answer(), metadata=meta)) == []


def test_e001_rejects_twice_then_aborts():
    guard = EvidenceGate(required_all=["search_docs"])
    result = run(guard, docs(error=True), answer(), answer(), answer(), answer())
    assert fired(result) == [(2, "final", "reject"), (3, "final", "reject"), (4, "final", "abort")]
    abort = result.fires[-1]
    assert "after 2 rejection(s)" in abort.reason and "1 failed" in abort.reason
    # Aborting the answer of round 4 of 5 saves the one later model call.
    assert abort.saved.llm_calls == 1 and abort.saved.forced_answer_tokens is None
    assert result.policy.stop is abort


def test_e001_max_rejections_zero_aborts_at_once_and_evidence_lifts_the_gate():
    guard = EvidenceGate(required_all=["search_docs"], max_rejections=0)
    assert fired(run(guard, answer())) == [(1, "final", "abort")]
    guard = EvidenceGate(required_all=["search_docs"])
    assert fired(run(guard, answer(), docs(), answer())) == [(1, "final", "reject")]


def test_e001_failed_and_empty_calls_are_no_evidence_but_no_requirements_never_fires():
    guard = EvidenceGate(required_all=["search_docs"])
    assert fired(run(guard, docs("[]"), docs("Error: timeout", error=None), answer())) == [(3, "final", "reject")]
    assert fired(run(EvidenceGate(), docs("[]"), answer())) == []


# --- B001 round-budget ---------------------------------------------------------------


def test_b001_stops_past_max_rounds_when_evidence_is_in():
    steps = [search(f"q{n}") for n in range(1, 7)] + [answer()]
    result = run(RoundBudget(max_rounds=3), *steps)
    assert fired(result) == [(4, "before_tools", "stop")]
    saved = result.fires[0].saved
    # Before the tools of round 4 of 7: rounds 5-7 are not needed, but one forced
    # answer is charged; round 4's search and the two later ones never run.
    assert saved.llm_calls == 3 - 1
    assert saved.tool_calls == 3
    assert saved.forced_answer_tokens and saved.forced_answer_tokens > 0
    assert fired(run(RoundBudget(), *steps)) == []  # off by default


def test_b001_missing_evidence_keeps_tools_allowed_then_aborts():
    steps = [ok() for _ in range(7)] + [answer()]
    guard = RoundBudget(max_rounds=2, final_window=3, required_all=["search_docs"])
    result = run(guard, *steps)
    assert fired(result) == [(6, "before_tools", "abort")]
    assert "Model did not produce a final answer" in result.fires[0].reason
    # Same run, no requirement: stopped at round 3, the first past the budget.
    assert fired(run(RoundBudget(max_rounds=2), *steps)) == [(3, "before_tools", "stop")]


def test_b001_stop_vs_abort_with_evidence_from_metadata():
    meta = {"required_tools": ["search_docs"]}
    # Evidence arrives in round 4 (inside the window): round 5 is stopped.
    steps = (ok(), ok(), docs("No results found"), docs(), ok(), ok(), answer())
    assert fired(run(RoundBudget(max_rounds=2), *steps, metadata=meta)) == [(5, "before_tools", "stop")]
    # Only empty searches: the window runs out and the run is aborted.
    steps = (ok(), ok(), docs("No results found"), docs("[]"), docs("No results found"), ok(), answer())
    assert fired(run(RoundBudget(max_rounds=2), *steps, metadata=meta)) == [(6, "before_tools", "abort")]
    # A final answer inside the window is what the budget asks for.
    assert fired(run(RoundBudget(max_rounds=2), ok(), ok(), ok(), answer(), metadata=meta)) == []


def test_b001_a_late_final_answer_past_the_window_is_aborted():
    steps = (ok(), ok(), ok(), answer())
    guard = RoundBudget(max_rounds=1, final_window=1, required_all=["search_docs"])
    assert fired(run(guard, *steps)) == [(3, "before_tools", "abort")]
    guard = RoundBudget(max_rounds=1, final_window=2, required_all=["search_docs"])
    assert fired(run(guard, *steps)) == [(4, "final", "abort")]


def test_b001_without_a_window_the_first_round_past_the_budget_decides():
    steps = (ok(), ok(), ok(), answer())
    assert fired(run(RoundBudget(max_rounds=2, final_window=0), *steps)) == [(3, "before_tools", "stop")]
    guard = RoundBudget(max_rounds=2, final_window=0, required_all=["search_docs"])
    assert fired(run(guard, *steps)) == [(3, "before_tools", "abort")]
    # Evidence that arrives in the last window round comes too late: no step is left.
    guard = RoundBudget(max_rounds=2, final_window=1, required_all=["search_docs"])
    assert fired(run(guard, ok(), ok(), docs(), ok(), answer())) == [(4, "before_tools", "abort")]


# --- B002 token-budget ---------------------------------------------------------------


def measured_trace(per_round: list[tuple[int, int]]) -> Trace:
    """Rounds with measured usage; all but the last call a tool."""
    trace = Trace(id="measured", format="test", file="<test>")
    for n, (inp, out) in enumerate(per_round, 1):
        rnd = Round(index=n, usage=Usage(input_tokens=inp, output_tokens=out))
        if n < len(per_round):
            rnd.tool_calls.append(ToolCall(f"c{n}", "read_file", "{}", {}, None, ToolResult("data", False)))
        else:
            rnd.text = "done"
        trace.rounds.append(rnd)
    return trace


def test_b002_fires_at_the_right_round_with_measured_usage():
    # Cumulative: 110, 320, 630, 1040, 1550.
    trace = measured_trace([(100, 10), (200, 10), (300, 10), (400, 10), (500, 10)])
    result = replay_trace(trace, [TokenBudget(budget=1000)])
    assert fired(result) == [(4, "after_tools", "stop")]
    fire = result.fires[0]
    assert fire.details == {"tokens": 1040, "budget": 1000, "estimated": False}
    assert "1,040 tokens" in fire.reason and "measured" in fire.reason
    # Stopped after round 4's tools: round 5 (510 measured tokens) is replaced by a
    # forced answer; no tool call is saved.
    assert fire.saved.tool_calls == 0 and fire.saved.llm_calls == 0
    assert fire.saved.tokens == 510 - fire.saved.forced_answer_tokens
    # Reaching the budget exactly is enough; a budget above the run never fires.
    assert fired(replay_trace(trace, [TokenBudget(budget=630)])) == [(3, "after_tools", "stop")]
    assert fired(replay_trace(trace, [TokenBudget(budget=5000)])) == []
    assert fired(replay_trace(trace, [TokenBudget()])) == []


def test_b002_never_stops_a_final_answer():
    trace = measured_trace([(100, 10), (5000, 100)])
    assert fired(replay_trace(trace, [TokenBudget(budget=1000)])) == []


def test_b002_says_when_tokens_are_estimated():
    big = "word " * 400  # ~100 estimated tokens per result
    steps = [calls(Call("read_file", {"path": f"f{n}"}, big)) for n in range(5)] + [answer()]
    result = run(TokenBudget(budget=300), *steps)
    assert len(result.fires) == 1 and result.fires[0].action is Action.STOP
    fire = result.fires[0]
    assert fire.details["estimated"] is True and "estimated" in fire.reason
    assert fire.details["tokens"] >= 300
    # It fired at the first round whose cumulative estimate reached the budget.
    cumulative = 0
    for cost, rnd in zip(result.costs, result.trace.rounds):
        cumulative += cost.tokens
        if rnd.index < fire.round:
            assert cumulative < 300
    assert fire.round < 5


# --- B003 tool-call-cap --------------------------------------------------------------


def test_b003_stops_before_the_fourth_search():
    steps = [search(f"续费 {n}", tool="search_contract") for n in range(8)] + [answer()]
    result = run(ToolCallCap(max_calls=3), *steps)
    assert fired(result) == [(4, "before_tools", "stop")]
    fire = result.fires[0]
    assert fire.details["used"] == 3 and "call 4" in fire.reason
    # Searches 4-8 never run; 9 model calls - 4 happened + 1 forced answer.
    assert fire.saved.tool_calls == 5
    assert fire.saved.llm_calls == 9 - 4 - 1
    assert fired(run(ToolCallCap(), *steps)) == []  # off by default


def test_b003_counts_only_matching_tools_and_parallel_calls():
    steps = (search("a"), ok(), ok(), search("b"), search("c"), answer())
    assert fired(run(ToolCallCap(max_calls=3), *steps)) == []
    assert fired(run(ToolCallCap(max_calls=2), *steps)) == [(5, "before_tools", "stop")]
    parallel = calls(Call("web_search", {"query": "x"}), Call("doc_search", {"query": "y"}))
    assert fired(run(ToolCallCap(max_calls=2), search("a"), parallel, answer())) == [(2, "before_tools", "stop")]
    assert fired(run(ToolCallCap(max_calls=2, tools=["web_*"]), search("a"), parallel, answer())) == []


# --- all five -------------------------------------------------------------------------


@pytest.mark.parametrize("guard", GUARDS, ids=lambda g: g.code)
def test_a_prefix_replays_to_the_same_verdicts(guard):
    # A live agent feeds one round at a time: verdicts may never depend on later rounds.
    for example in guard.examples:
        trace = example.trace()
        full = [(f.round, f.phase, f.action, f.reason) for f in replay_trace(trace, [guard(**example.options)]).fires]
        for k in range(1, len(trace.rounds) + 1):
            prefix = dataclasses.replace(trace, rounds=trace.rounds[:k])
            got = [(f.round, f.phase, f.action, f.reason) for f in replay_trace(prefix, [guard(**example.options)]).fires]
            assert got == [f for f in full if f[0] <= k], (example.title, k)


def test_the_policy_ends_at_the_first_stop_or_abort():
    steps = (fail(), fail(), search("a"), search("b"), fail(), answer())
    guards = [ToolFailureStreak(threshold=3), ToolCallCap(max_calls=1), RoundBudget(max_rounds=10)]
    result = replay_trace(Example("t", steps).trace(), guards)
    assert result.policy.stop.code == "B003" and result.policy.stop.round == 4
    assert result.policy.stop.phase is Phase.BEFORE_TOOLS
