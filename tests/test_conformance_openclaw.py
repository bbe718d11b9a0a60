"""Conformance: the scenarios of OpenClaw's own loop-detection tests replayed through the
``openclaw`` preset: src/agents/tool-loop-detection.test.ts at openclaw/openclaw 0410b692 for
the revision the preset follows, and at 58db2f91 for OpenClaw's first version (thresholds
configurable, a generic loop only warned, one history per session), replayed with the
preset's ``OPENCLAW_FIRST_SETS``.

OpenClaw's tests record N calls and then ask the detector about the next one; here the
trace holds those N calls and the next one, one call per model response, so "the call
after N recorded calls" is round N + 1, judged before its tools run. A ``warning`` is a
hint, a ``critical`` result (the call is refused, the run goes on) a block.

A warning reaches OpenClaw's log (not the model) once per pattern at each multiple of 10
of its count; the detector itself answers ``warning`` at every call past the threshold.
The preset models the log (``warning_bucket`` 10); where a scenario checks the detector's
level at a count that is not a multiple of 10, the test sets ``R007.warning_bucket=0``
and says so.

OpenClaw's tests write the history directly; a replay builds it through the detector, so a
call refused once never enters it. Where a test records more calls than the detector would
let through (20 unknown-tool failures, 30 identical reads), the replay refuses earlier and
the test says where.

Not expressible, hence no test:

- The argument hashes themselves (fixed size, SHA-256 hex, circular params): tracecheck
  compares signatures as text; what the hashes decide (key order does not matter,
  another argument or another tool is another call) is tested below.
- Result hashing of structured details: exec results compared by status, exit code and
  output tail; message-send results without their ids and timestamps (#89090);
  update_plan reduced to its statuses. A transcript has the result text only; the
  closest behaviour is tested where the text tells (same text: same outcome).
- Argument churn (the breaker counting calls that cycle through a few argument variants
  with the same outcome): a later revision's detector than the one the preset follows.
- Bookkeeping with no loop decision: result hashes of large outputs, timestamps, the
  record returned to the caller, outcomes attached across run ids, getToolCallStats.
"""

from __future__ import annotations

import json

from conformance import Call, answer, calls, first_stop, replay_as

from tracecheck.guards.examples import Example, Step
from tracecheck.presets import OPENCLAW_FIRST_SETS
from tracecheck.readers.native_writer import write_native

PRESET = "openclaw"
FIRST = OPENCLAW_FIRST_SETS
WARNING, CRITICAL, BREAKER, UNKNOWN_TOOL = 10, 20, 30, 10

SAME_READ = Call("read", {"path": "/same.txt"}, "same output")


def poll(session: str = "sess-1", output: str = "(no new output)\n\nProcess still running.") -> Call:
    return Call("process", {"action": "poll", "sessionId": session}, output)


def r007(*steps, sets: tuple[str, ...] = ()) -> list[tuple[int, str, str, int]]:
    """R007's verdicts: (round, action, detector, count)."""
    result = replay_as(PRESET, *steps, sets=sets)
    return [(f.round, f.action.value, f.details["detector"], f.details["count"]) for f in result.fires if f.code == "R007"]


def repeated(call: Call, times: int) -> list:
    return [calls(call) for _ in range(times)]


def ping_pong(count: int, text=lambda tool, i: f"{tool} stable") -> list:
    return [
        calls(Call("read", {"path": "/a.txt"}, text("read", i)) if i % 2 == 0 else Call("list", {"dir": "/workspace"}, text("list", i)))
        for i in range(count)
    ]


# --- detectToolCallLoop: the revision the preset follows (tests @ 0410b692) ---


def test_detection_off_flags_nothing():
    # "is disabled by default": 20 identical reads, then the same read, loopDetection not enabled.
    steps = repeated(SAME_READ, 21)
    assert r007(*steps, sets=("R007.enabled=false",)) == []
    # The guard is off unless a preset turns it on: the default preset does not run it.
    assert "R007" not in {f.code for f in replay_as("default", *steps).fires}


def test_unique_calls_are_not_flagged():
    # "does not flag unique tool calls": 15 reads of different files, then a 16th new one.
    steps = [calls(Call("read", {"path": f"/file{i}.txt"})) for i in range(15)] + [calls(Call("read", {"path": "/new-file.txt"}))]
    assert r007(*steps, answer()) == []


def test_the_history_of_another_run_is_not_counted():
    # "ignores repeated history from other runs": 10 identical reads in run heartbeat-1, the
    # same read in run heartbeat-2: nothing. A new message starts a new run (scope turn).
    steps = [*repeated(SAME_READ, 10), Step(calls=(SAME_READ,), user="heartbeat 2")]
    assert r007(*steps) == []
    # "detects repeated history within the same run": the same 11 calls in one run.
    assert r007(*repeated(SAME_READ, 11)) == [(11, "hint", "generic_repeat", WARNING)]


def test_the_same_call_after_ten_identical_calls_is_warned():
    # "warns on generic repeated tool+args calls": 10 identical reads recorded, the 11th is a
    # generic_repeat warning with count 10.
    assert r007(*repeated(SAME_READ, 11), answer()) == [(11, "hint", "generic_repeat", WARNING)]
    message = replay_as(PRESET, *repeated(SAME_READ, 11)).fires[0].message
    assert message.startswith("WARNING") and f"{WARNING} times" in message


def test_a_generic_loop_answered_the_same_way_is_refused_at_20():
    # "blocks generic no-progress loops at critical threshold": 20 identical reads with the
    # same result; the 21st is critical generic_repeat. The run goes on: nothing stops.
    result = replay_as(PRESET, *repeated(SAME_READ, 21), answer())
    fired = [(f.round, f.action.value, f.details["detector"], f.details["count"]) for f in result.fires]
    assert fired == [(11, "hint", "generic_repeat", 10), (21, "block", "generic_repeat", CRITICAL)]
    assert result.fires[-1].message.startswith("CRITICAL") and "identical results" in result.fires[-1].message
    assert first_stop(PRESET, *repeated(SAME_READ, 21), answer()) is None


def test_a_refused_call_stays_refused():
    # The hook returns before recordToolCall for a refused call, and the veto result gets no
    # outcome hash ("keeps a critical send block sticky after the veto result is recorded"):
    # the history does not change and the same call is refused again.
    got = r007(*repeated(SAME_READ, 23))
    assert [g[:2] for g in got if g[1] == "block"] == [(21, "block"), (22, "block"), (23, "block")]
    # A different call in between changes nothing: the 20 reads answered alike are still in
    # the 30-call window, and the next read is refused too.
    steps = [*repeated(SAME_READ, 21), calls(Call("list", {"dir": "/"})), calls(SAME_READ)]
    assert [g[:2] for g in r007(*steps)] == [(11, "hint"), (21, "block"), (23, "block")]


def test_identical_denials_by_another_policy_escalate():
    # "still escalates repeated plugin/approval vetoes to a critical loop": 20 identical calls
    # answered by the same denial (not the loop detector's own): the 21st is critical.
    denied = Call("message", {"action": "read", "target": "feishu:oc_chat"}, "blocked", error=True)
    assert r007(*repeated(denied, 21))[-1] == (21, "block", "generic_repeat", CRITICAL)


def test_a_poll_without_progress_is_warned_at_10():
    # "warns for known polling no-progress loops": 10 identical polls, identical results.
    assert r007(*repeated(poll(), 11), answer()) == [(11, "hint", "known_poll_no_progress", WARNING)]
    assert "no progress" in replay_as(PRESET, *repeated(poll(), 11)).fires[0].message


def test_a_poll_without_progress_is_refused_at_20():
    # "blocks known polling no-progress loops at critical threshold": 20 identical polls,
    # the 21st is critical: refused, its result the CRITICAL message; the run goes on.
    result = replay_as(PRESET, *repeated(poll(), 21), answer())
    fired = [(f.round, f.action.value, f.details["detector"]) for f in result.fires]
    assert fired == [(11, "hint", "known_poll_no_progress"), (21, "block", "known_poll_no_progress")]
    assert result.fires[-1].message.startswith("CRITICAL")
    assert first_stop(PRESET, *repeated(poll(), 21), answer()) is None


def test_a_poll_whose_output_progresses_is_not_flagged():
    # "does not block known polling when output progresses": 25 polls, each with new output,
    # then a 26th: nothing (polls are never generic repeats).
    steps = [calls(poll(output=f"line {i}")) for i in range(26)]
    assert r007(*steps, answer()) == []


def test_the_process_tool_is_a_poller_only_when_it_polls_or_reads_its_log():
    # isKnownPollToolCall: command_status always; process only with action poll or log.
    status = Call("command_status", {"id": "c1"}, "running")
    assert r007(*repeated(status, 21))[-1] == (21, "block", "known_poll_no_progress", CRITICAL)
    log = Call("process", {"action": "log", "sessionId": "s"}, "tail")
    assert r007(*repeated(log, 21))[-1] == (21, "block", "known_poll_no_progress", CRITICAL)
    # process write is not a poll: a generic repeat (hinted at 10, refused at 20 as generic).
    write = Call("process", {"action": "write", "sessionId": "s", "data": "y"}, "ok")
    assert r007(*repeated(write, 21)) == [(11, "hint", "generic_repeat", 10), (21, "block", "generic_repeat", 20)]


def test_the_breaker_at_30_catches_what_the_detectors_let_through():
    # "blocks any tool with global no-progress breaker at 30": OpenClaw's test writes 30
    # identical reads into the history; through the detector the 21st is already refused
    # (generic critical) and never recorded, so the history never holds 30. With the generic
    # detector off, the same reads reach the breaker: the 31st call, count 30.
    result = replay_as(PRESET, *repeated(SAME_READ, 31), sets=("R007.generic_repeat=false",))
    last = result.fires[-1]
    assert len(result.fires) == 1
    assert (last.round, last.action.value, last.details["detector"], last.details["count"]) == (31, "block", "global_circuit_breaker", BREAKER)
    assert "circuit breaker" in last.message


def test_completed_exec_with_the_same_output_is_refused_at_20():
    # "blocks repeated completed exec calls despite volatile runtime details": the same
    # command, the same output, duration and cwd changing in the details (not in the text).
    steps = repeated(Call("exec", {"command": "grafana-api.sh datasources"}, "Loki\nPrometheus"), 21)
    assert r007(*steps)[-1] == (21, "block", "generic_repeat", CRITICAL)


def test_exec_whose_output_changes_is_only_warned():
    # "keeps changing exec output below the global no-progress breaker": `date` 30 times,
    # "tick i" each time: the 31st is a warning (count 30), nothing refused.
    steps = [calls(Call("exec", {"command": "date"}, f"tick {i}")) for i in range(31)]
    assert r007(*steps) == [(11, "hint", "generic_repeat", 10), (21, "hint", "generic_repeat", 20), (31, "hint", "generic_repeat", 30)]
    # "keeps changing empty-output exec failures below the global no-progress breaker".
    failing = [calls(Call("exec", {"command": "openclaw flaky-helper"}, f"Runtime failed before spawn: attempt {i}", error=True)) for i in range(31)]
    assert [g[1] for g in r007(*failing)] == ["hint", "hint", "hint"]


def test_running_exec_with_new_session_ids_is_only_warned_here():
    # "blocks repeated running exec calls despite volatile session details and text": OpenClaw
    # compares a running exec by its status and output tail, which the result's text does not
    # show; here every "Command still running (session sess-i, pid N)" is a new outcome, so the
    # closest behaviour is the generic warnings at 10 and 20 and no refusal.
    steps = [
        calls(Call("exec", {"command": "tail -f /var/log/app.log", "yieldMs": 1000}, f"Command still running (session sess-{i}, pid {1000 + i})"))
        for i in range(21)
    ]
    assert r007(*steps) == [(11, "hint", "generic_repeat", 10), (21, "hint", "generic_repeat", 20)]


def test_a_missing_tool_is_refused_after_10_failures_whatever_the_arguments():
    # "does not block repeated unknown-tool failures before the unknown-tool threshold": 9
    # "Tool exec not found" failures with changing commands, then a 10th call: allowed.
    missing = [calls(Call("exec", {"command": f"echo {i}"}, "Tool exec not found", error=True)) for i in range(UNKNOWN_TOOL - 1)]
    assert r007(*missing, calls(Call("exec", {"command": "echo still allowed"}))) == []
    # "blocks repeated unknown-tool failures even when the args keep changing": OpenClaw's test
    # writes 20 failures; through the detector the 11th call is already refused, and every
    # call of the tool after it (the refused ones never enter the history).
    attempts = [{"command": "ls"}, {"command": "pwd"}, {"input": "whoami"}, {"cmd": "env"}, {"shell": "bash -lc ls"}]
    attempts += [{"command": f"cmd {i}"} for i in range(15)]
    steps = [calls(Call("exec", args, "Tool exec not found", error=True)) for args in attempts]
    got = r007(*steps, calls(Call("exec", {"command": "echo still looping"})))
    assert got == [(n, "block", "unknown_tool_repeat", UNKNOWN_TOOL) for n in range(11, 22)]


def test_ping_pong_is_warned_at_10_calls():
    # "warns on ping-pong alternating patterns": 9 alternating calls read, list, ..., read;
    # the 10th, a list, continues the alternation: count 10.
    got = r007(*ping_pong(10), answer())
    assert got == [(10, "hint", "ping_pong", WARNING)]
    assert "alternat" in replay_as(PRESET, *ping_pong(10)).fires[0].message


def test_ping_pong_with_unchanged_results_is_refused_at_20():
    # "blocks ping-pong alternating patterns at critical threshold": 19 alternating calls with
    # stable results, the 20th is critical, count 20.
    assert r007(*ping_pong(20), answer()) == [(10, "hint", "ping_pong", 10), (20, "block", "ping_pong", CRITICAL)]
    assert replay_as(PRESET, *ping_pong(20)).fires[-1].message.startswith("CRITICAL")


def test_ping_pong_with_changing_results_is_only_warned():
    # "does not block ping-pong at critical threshold when outcomes are progressing": the
    # 20th call is a warning with count 20 (logged again: the second multiple of 10).
    steps = ping_pong(20, text=lambda tool, i: f"{tool} {i}")
    assert r007(*steps, answer()) == [(10, "hint", "ping_pong", 10), (20, "hint", "ping_pong", CRITICAL)]


def test_a_broken_alternation_is_not_ping_pong():
    # "does not flag ping-pong when alternation is broken": read, list, read, write, then list.
    steps = [
        calls(Call("read", {"path": "/a.txt"})),
        calls(Call("list", {"dir": "/workspace"})),
        calls(Call("read", {"path": "/a.txt"})),
        calls(Call("write", {"path": "/tmp/out.txt"})),
        calls(Call("list", {"dir": "/workspace"})),
    ]
    # With the warning at 2, the 3rd call (read after read, list) is a ping-pong of 3; the
    # 5th call, the one OpenClaw's test asks about, is nothing.
    got = r007(*steps, sets=("R007.warning_at=2", "R007.warning_bucket=0"))
    assert got == [(3, "hint", "ping_pong", 3)]
    assert r007(*steps) == []


def test_distinct_messages_are_not_a_loop():
    # "does not flag distinct messages (different args) as a no-progress loop": 20 sends of
    # different texts, then a 21st.
    steps = [calls(Call("message", {"action": "send", "target": "feishu:oc_chat", "text": f"line {i}"}, '{"ok": true}')) for i in range(21)]
    assert r007(*steps) == []


def test_the_first_call_is_never_flagged():
    # "handles empty history".
    assert r007(calls(Call("tool", {"arg": 1})), answer()) == []


def test_key_order_does_not_matter_and_arguments_or_tools_do():
    # "produces deterministic hashes regardless of key order"; different params or another
    # tool -> another call.
    ab = [calls(Call("tool", '{"a": 1, "b": 2}' if i % 2 else '{"b": 2, "a": 1}')) for i in range(11)]
    assert r007(*ab) == [(11, "hint", "generic_repeat", 10)]
    other_param = [*repeated(SAME_READ, 10), calls(Call("read", {"path": "/file2.txt"}))]
    assert r007(*other_param) == []
    other_tool = [*repeated(SAME_READ, 10), calls(Call("write", {"path": "/same.txt"}))]
    assert r007(*other_tool) == []


def test_the_history_keeps_the_last_30_calls():
    # "maintains sliding window of last N calls": 10 identical reads, then 20 other calls:
    # all 10 are still among the last 30, and the next read is warned.
    others = [calls(Call("tool", {"iteration": i})) for i in range(20)]
    assert r007(*repeated(SAME_READ, 10), *others, calls(SAME_READ)) == [(31, "hint", "generic_repeat", 10)]
    # One more other call pushes the first read out: 9 left, no warning.
    more = [calls(Call("tool", {"iteration": i})) for i in range(21)]
    assert r007(*repeated(SAME_READ, 10), *more, calls(SAME_READ)) == []


# --- OpenClaw's first version (tests @ 58db2f91): --set OPENCLAW_FIRST_SETS ---


def test_first_version_a_generic_loop_is_only_warned_below_the_breaker():
    # "keeps generic loops warn-only below global breaker threshold": 20 identical reads with
    # the same result; the 21st is a warning, not critical (count 20: logged again); the
    # breaker refuses the 31st ("blocks any tool with global no-progress breaker at 30").
    got = r007(*repeated(SAME_READ, 31), sets=FIRST)
    assert got == [(11, "hint", "generic_repeat", 10), (21, "hint", "generic_repeat", 20), (31, "block", "global_circuit_breaker", 30)]


def test_first_version_history_spans_the_session():
    # One history per session: a new message does not clear it.
    steps = [*repeated(SAME_READ, 10), Step(calls=(SAME_READ,), user="next message")]
    assert r007(*steps, sets=FIRST) == [(11, "hint", "generic_repeat", 10)]


def test_first_version_custom_thresholds_warn_at_2_and_refuse_at_4():
    # "applies custom thresholds when detection is enabled": warningThreshold 2,
    # criticalThreshold 4, only the poll detector on. After 2 polls the 3rd is a warning;
    # after 4 the 5th is critical.
    sets = (*FIRST, "R007.warning_at=2", "R007.critical_at=4", "R007.generic_repeat=false", "R007.ping_pong=false")
    # The detector's level at every call (warning_bucket 0), then as OpenClaw logs it:
    # counts 2 and 3 are below the first multiple of 10, so no warning is logged.
    assert r007(*repeated(poll(), 5), sets=(*sets, "R007.warning_bucket=0")) == [
        (3, "hint", "known_poll_no_progress", 2),
        (4, "hint", "known_poll_no_progress", 3),
        (5, "block", "known_poll_no_progress", 4),
    ]
    assert r007(*repeated(poll(), 5), sets=sets) == [(5, "block", "known_poll_no_progress", 4)]


def test_first_version_thresholds_are_kept_in_order():
    # resolveLoopDetectionConfig: a critical threshold not above the warning one becomes
    # warning + 1, a breaker not above critical becomes critical + 1.
    sets = (*FIRST, "R007.warning_at=3", "R007.critical_at=3", "R007.breaker_at=2", "R007.warning_bucket=0")
    got = r007(*repeated(poll(), 6), sets=sets)
    assert got == [
        (4, "hint", "known_poll_no_progress", 3),
        (5, "block", "known_poll_no_progress", 4),  # critical 3 -> 4
        (6, "block", "known_poll_no_progress", 4),  # the refused 5th never entered the history
    ]
    # The breaker (2 -> 5) needs 5 identical outcomes; with the poll detector off it refuses the 6th.
    assert r007(*repeated(poll(), 6), sets=(*sets, "R007.poll_no_progress=false"))[-1] == (6, "block", "global_circuit_breaker", 5)


def test_first_version_disabled_detectors_do_not_fire():
    # "can disable specific detectors": all three off, 20 identical polls, then the 21st.
    sets = (*FIRST, "R007.generic_repeat=false", "R007.poll_no_progress=false", "R007.ping_pong=false")
    assert r007(*repeated(poll(), 21), sets=sets) == []


def test_first_version_a_configured_history_size_is_respected():
    # "respects configured historySize" (4): with a history of 4, an older repeat is forgotten.
    sets = (*FIRST, "R007.warning_at=3", "R007.warning_bucket=0")
    a = calls(Call("read", {"path": "/a"}))
    steps = [a, a, a, calls(Call("read", {"path": "/b"})), calls(Call("read", {"path": "/c"})), a]
    # A history of 30 still holds the 3 earlier reads of /a: the 6th call is warned.
    assert r007(*steps, sets=sets) == [(6, "hint", "generic_repeat", 3)]
    # A history of 4 holds /a, /a, /b, /c: 2 reads of /a, below the warning.
    assert r007(*steps, sets=(*sets, "R007.history_size=4")) == []


def test_first_version_running_exec_is_a_generic_repeat_here():
    # "warns for repeated exec running retries with dynamic session ids": OpenClaw's first
    # version blanks the session id and pid of a running exec (known from its structured
    # status) and answers known_poll_no_progress, count 10, at the 11th. A transcript has only
    # the text, so here the same call is the generic warning at the same call.
    steps = [
        calls(Call("exec", {"command": "git diff --stat HEAD~1", "pty": True}, f"Command still running (session ocean-{i}, pid {1000 + i})."))
        for i in range(11)
    ]
    assert r007(*steps, sets=FIRST) == [(11, "hint", "generic_repeat", WARNING)]


# --- through the CLI ---


def test_parallel_calls_of_one_response_are_in_the_history_without_results(tmp_path, cli):
    # One response asking for 21 identical polls: each is judged after the ones before it
    # were recorded, their results not in yet (OpenClaw running them in parallel), so no
    # poll streak. Replayed from a native JSONL file through the CLI, as a user would.
    fan_out = Example("fan-out", (calls(*(poll() for _ in range(21))), answer())).trace()
    stuck = Example("stuck-poll", tuple(repeated(poll(), 21)) + (answer(),)).trace()
    path = tmp_path / "openclaw.jsonl"
    with path.open("wb") as out:
        write_native([fan_out, stuck], out)
    report = json.loads(cli("replay", "--preset", PRESET, "--format", "json", str(path)).stdout)
    fires = {t["id"]: [(f["round"], f["action"]) for f in t["fires"]] for t in report["traces"]}
    assert fires == {"fan-out": [], "stuck-poll": [(11, "hint"), (21, "block")]}
