"""Hermes Agent's tool-guardrail tests (peers.md §9 "Tests", tests/agent/test_tool_guardrails.py)
replayed through the ``hermes`` preset.

The preset models hard stops on (Hermes' non-interactive platforms). Hermes' controller
decides per call: ``warn`` becomes a tracecheck hint after the tools ran; ``block`` refuses
the call before it runs and halts the turn, so it is a stop before the tools; ``halt``
after a call is a stop after the tools. Every scenario here calls one tool per model
response, so the n-th call is round n.

Two Hermes counters share a guard code with the preset's main ones, and tracecheck runs
one guard per code: the same-tool failure counter (``SAME_TOOL``) and the read-only
no-progress counter (``READ_ONLY``) are replayed with the preset's own ``--set``
assignments, as its notes tell users to.

Hermes' unit tests drive only the failure and no-progress counters (``before_call`` /
``after_call``); its identical-call streak and cycle detector (``observe_call``) run in
the agent loop on the same calls. The preset runs all of them, so where those would fire
on a scenario too, the test says so and asserts it.

Not expressible, hence no test:

- "Nested unicode args ... the metadata hides secret values": the signature half is
  tested below; the other half is not, because tracecheck reports show argument text
  (it replays recorded transcripts, which already hold the secrets), never a hash.
- "From the 2nd byte-identical result of ≥512 chars, the duplicate payload is replaced
  by a reference stub": replay never rewrites a recorded result.
- The subagent cap (50 spawns per turn) and config parsing (nested thresholds, platform
  defaults): the cap counts spawned subagents, not calls, and the preset leaves it out;
  parsing Hermes' config file is not replaying a transcript.
"""

from __future__ import annotations

from conformance import Call, answer, calls, fires, stops
from tracecheck.presets import HERMES_READ_ONLY_SETS, HERMES_SAME_TOOL_SETS

SAME_TOOL = HERMES_SAME_TOOL_SETS
READ_ONLY = HERMES_READ_ONLY_SETS

PYTEST = {"command": "pytest tests/test_x.py -q"}
RED = '{"output": "1 failed", "exit_code": 1}'


def red() -> object:
    return calls(Call("terminal", PYTEST, RED, error=True))


def hints(code: str, *rounds: int) -> list[tuple[str, int, str, str]]:
    return [(code, n, "after_tools", "hint") for n in rounds]


def test_args_in_another_key_order_are_the_same_call():
    # "Nested unicode args in different key order → same signature": the 2nd failure of the
    # reordered call is the 2nd failure of the same call, hence the exact-failure warning.
    args_a = {"z": [{"β": "☤", "a": 1}], "a": {"y": 2, "x": "secret-token-value"}}
    args_b = {"a": {"x": "secret-token-value", "y": 2}, "z": [{"a": 1, "β": "☤"}]}
    got = fires(
        "hermes",
        calls(Call("web_search", args_a, '{"error":"boom"}', error=True)),
        calls(Call("web_search", args_b, '{"error":"boom"}', error=True)),
        answer(),
    )
    assert got == hints("F001", 2)


def test_the_same_failing_search_warns_from_the_2nd_and_is_not_refused_within_5():
    # "Default config, web_search({query:"same"}) failing ×5 → allow then warn ×4, never blocks."
    # The block comes only before a 6th call; with hard stops on (the preset), the
    # identical-call streak of the same 5 calls notices at 3 and halts after the 5th.
    failing = calls(Call("web_search", {"query": "same"}, '{"error":"boom"}', error=True))
    got = fires("hermes", *[failing] * 5, answer())
    assert [f for f in got if f[0] == "F001"] == hints("F001", 2, 3, 4, 5)
    assert [f for f in got if f[0] == "P004"] == hints("P004", 3, 4) + [("P004", 5, "after_tools", "stop")]


def test_with_warn_and_block_at_2_the_3rd_identical_call_is_refused():
    # "H with warn=block=2 → 1st failure allow, 2nd warn, next before_call block".
    failing = calls(Call("web_search", {"query": "same"}, '{"error":"boom"}', error=True))
    sets = ("F001.threshold=2", "F001.hint_at=2")
    got = fires("hermes", failing, failing, failing, answer(), sets=sets)
    # Alone, P004 sees the recorded 3rd call run and notices the 3rd identical result;
    # together, the refusal ends the turn before it.
    assert got == hints("F001", 2) + [("F001", 3, "before_tools", "stop")] + hints("P004", 3)
    assert stops("hermes", failing, failing, failing, answer(), sets=sets) == [("F001", 3, "before_tools", "stop")]


def test_a_read_only_call_with_the_same_output_warns_at_the_2nd_and_the_3rd_is_refused():
    # "skill_view / skills_list success with the same output → 2nd warn, then block"
    # (no-progress warn = block = 2).
    for tool, args, result in (
        ("skill_view", {"name": "gui-agent-ml-operations"}, '{"success":true,"content":"same"}'),
        ("skills_list", {"category": "mlops"}, '{"success":true,"skills":[{"name":"gui-agent-ml-operations"}]}'),
    ):
        same = calls(Call(tool, args, result))
        got = fires("hermes", same, same, same, answer(), sets=READ_ONLY + ("P004.threshold=2",))
        assert got == hints("P004", 2) + [("P004", 3, "before_tools", "stop")], tool


def test_writes_and_unknown_tools_with_the_same_output_are_never_refused():
    # "write_file / custom tool with the same output ×3 → never blocked" (no-progress warn =
    # block = 2). Hermes interleaves the two tools and counts per signature; P004 counts
    # repeats in a row, so each tool's three calls come in a row here.
    write = calls(Call("write_file", {"path": "/tmp/x", "content": "x"}, "ok"))
    custom = calls(Call("custom_tool", {"x": 1}, "ok"))
    assert fires("hermes", write, write, write, custom, custom, custom, answer(), sets=READ_ONLY + ("P004.threshold=2",)) == []


def test_the_same_successful_terminal_call_with_the_same_output_halts_at_the_5th():
    # "H, terminal({command:"hermes config get memory.provider"}) ⇒ "local\n" ×5 → halt on
    # the 5th (identical_call_streak_halt)"; the notice comes from the 3rd.
    same = calls(Call("terminal", {"command": "hermes config get memory.provider"}, "local\n"))
    got = fires("hermes", *[same] * 5, answer())
    assert got == hints("P004", 3, 4) + [("P004", 5, "after_tools", "stop")]


def test_an_unchanged_poll_never_halts():
    # "process_manage poll ×6 → never halts": a poller is exempt from the identical-call streak.
    poll = calls(Call("process_manage", {"action": "poll", "session_id": "p1"}, "running"))
    assert fires("hermes", *[poll] * 6, answer()) == []


def test_a_call_whose_result_changes_never_halts():
    # "terminal(date) ⇒ t{i} (result changes) → never halts".
    steps = [calls(Call("terminal", {"command": "date"}, f"t{i}")) for i in range(6)]
    assert fires("hermes", *steps, answer()) == []


def test_fix_and_retest_is_never_halted():
    # "Fix-retest: pytest ⇒ exit 1 ×12, with a successful patch between each → never halted".
    steps = []
    for i in range(12):
        steps.append(red())
        steps.append(calls(Call("patch", {"path": "x.py", "old_string": "a", "new_string": f"b{i}"}, '{"success": true}')))
    assert fires("hermes", *steps, answer()) == []


def test_a_pure_replay_of_a_failing_test_run_is_refused_its_6th_try():
    # "Pure replay: pytest ⇒ exit 1 ×5 → next call blocked". The identical-call streak sees the
    # same five calls and halts after the 5th, one call before the block (the policy's stop).
    got = fires("hermes", *[red()] * 6, answer())
    assert [f for f in got if f[0] == "F001"] == hints("F001", 2, 3, 4, 5) + [("F001", 6, "before_tools", "stop")]
    assert [f for f in got if f[0] == "P004"] == hints("P004", 3, 4) + [("P004", 5, "after_tools", "stop")]


def test_an_edit_resets_the_replay_streak_only_once():
    # "4 reds, one write_file, 5 reds → the next call is blocked (the reset applies once)".
    edit = calls(Call("write_file", {"path": "x.py", "content": "y"}, '{"bytes_written": 1}'))
    got = fires("hermes", *[red()] * 4, edit, *[red()] * 5, red(), answer())
    assert [f for f in got if f[0] == "F001"] == hints("F001", 2, 3, 4, 7, 8, 9, 10) + [("F001", 11, "before_tools", "stop")]
    # The second run of five identical reds is also an identical-call streak: it halts after round 10.
    assert [f for f in got if f[0] == "P004"] == hints("P004", 3, 4, 8, 9) + [("P004", 10, "after_tools", "stop")]


def test_distinct_failing_grep_commands_never_halt():
    # "12 distinct failing grep commands → never halts": no call fails twice, and terminal is
    # failure-tolerant for the same-tool counter, which warns from the 3rd failure only.
    steps = [calls(Call("terminal", {"command": f"grep -q needle{i} haystack.txt"}, RED, error=True)) for i in range(12)]
    assert fires("hermes", *steps, answer()) == []
    assert fires("hermes", *steps, answer(), sets=SAME_TOOL) == hints("F001", *range(3, 13))


def test_a_tool_failing_8_different_ways_halts_at_the_8th():
    # "send_message failing 8 distinct ways → halt" (same_tool_failure_halt), after warnings from the 3rd.
    steps = [calls(Call("send_message", {"to": f"u{i}"}, '{"error": "no route"}', error=True)) for i in range(8)]
    assert fires("hermes", *steps, answer(), sets=SAME_TOOL) == hints("F001", *range(3, 8)) + [
        ("F001", 8, "after_tools", "stop")
    ]
    assert fires("hermes", *steps, answer()) == []  # the exact-failure counter: no call repeats


def test_retrying_navigation_after_a_click_is_not_a_replay():
    # "browser_navigate ⇒ timeout alternating with browser_click(#retry) ×8 → never halted":
    # the click's success resets the navigation's failure count, for both failure counters.
    nav = calls(Call("browser_navigate", {"url": "https://example.test/app"}, '{"error": "timeout"}', error=True))
    click = calls(Call("browser_click", {"selector": "#retry"}, '{"ok": true}'))
    steps = [nav, click] * 8
    got = fires("hermes", *steps, answer())
    assert [f for f in got if f[0] == "F001"] == []
    assert fires("hermes", *steps, answer(), sets=SAME_TOOL) == [f for f in got if f[0] != "F001"]
    # The unit test drives only the failure counters. The same 2-call batch with the same
    # results is a cycle: Hermes' cycle detector halts after the 10th call (lap 5); R003
    # stops before it runs.
    assert got == [("R003", 10, "before_tools", "stop")]


def test_the_web_search_cap_refuses_the_search_past_it():
    # "web_search cap 3 → the 4th distinct query is blocked".
    steps = [calls(Call("web_search", {"query": f"q{i}"}, f"results for q{i}")) for i in range(4)]
    assert fires("hermes", *steps, answer(), sets=("B003.max_calls=3",)) == [("B003", 4, "before_tools", "stop")]
    assert fires("hermes", *steps, answer()) == []  # the preset's cap is 50


def test_without_an_error_flag_hermes_own_failure_signs_count():
    # Not a scenario of §9: the pure replay again, from a format that records no error flag.
    # Hermes' fallback classifier calls a non-zero exit_code or a quoted "error" a failure;
    # tracecheck's default patterns alone would see no failure in either.
    for result in (RED, '[{"step": 1, "error": "permission denied"}]'):
        steps = [calls(Call("terminal", PYTEST, result, error=None))] * 6
        got = [f for f in fires("hermes", *steps, answer()) if f[0] == "F001"]
        assert got == hints("F001", 2, 3, 4, 5) + [("F001", 6, "before_tools", "stop")], result
    unflagged_success = [calls(Call("terminal", PYTEST, '{"output": "3 passed", "exit_code": 0}', error=None))] * 6
    assert [f for f in fires("hermes", *unflagged_success, answer()) if f[0] == "F001"] == []
