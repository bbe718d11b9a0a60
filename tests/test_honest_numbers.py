"""Numbers a user can trust: negative savings are costs, a stop on a successful run is a
possible harm, expectations are checked by replay, unknown seconds stay unknown."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES, write_jsonl


def search_round(trace: str, n: int, query: str, result: str, **extra) -> list[dict]:
    return [
        {"type": "round", "trace": trace, "tool_calls": [{"id": f"c{n}", "name": "web_search", "arguments": json.dumps({"query": query})}], **extra},
        {"type": "result", "trace": trace, "call_id": f"c{n}", "content": result},
    ]


def identical_loop(trace: str, outcome: str, laps: int = 3, answer: str | None = "done", **extra) -> list[dict]:
    """The same lookup ``laps`` times (R001 stops the third before it runs), then an answer."""
    events: list[dict] = [{"type": "labels", "trace": trace, "labels": {"outcome": outcome}}]
    for n in range(laps):
        events += [
            {"type": "round", "trace": trace, "tool_calls": [{"id": f"c{n}", "name": "query_db", "arguments": '{"status": "pending"}'}], **extra},
            {"type": "result", "trace": trace, "call_id": f"c{n}", "content": "[]"},
        ]
    if answer is not None:
        events.append({"type": "round", "trace": trace, "text": answer, **extra})
    return events


def replay(cli, path, *args):
    result = cli("replay", *args, str(path))
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.usefixtures("seed_guards")
def test_a_forced_answer_dearer_than_what_it_replaces_is_a_cost(tmp_path, cli):
    # R001 stops the third lap before it runs (R002 blocked the second lap's call): the
    # answer round is saved, but the forced answer that replaces it is charged round 3's
    # context (1,000 input tokens and more) and the reply.
    usage = {"usage": {"input_tokens": 1000, "output_tokens": 10}}
    path = write_jsonl(tmp_path / "dear.jsonl", identical_loop("dear", "failure", **usage))

    data = json.loads(replay(cli, path, "--format", "json").stdout)["traces"][0]
    saved = data["policy"]["saved"]
    assert saved["llm_calls"] == 0 and saved["tokens"] < 0  # JSON keeps the sign

    terminal = replay(cli, path).stdout
    policy_line = next(line for line in terminal.splitlines() if line.startswith("  policy:"))
    assert "saves 2 tool calls (67%)" in policy_line
    assert f"costs {-saved['tokens']:,} tokens" in policy_line
    assert "-" not in policy_line.split("→")[1]  # never "saves -N"
    assert f"  costs: {-saved['tokens']:,} more tokens" in terminal

    markdown = replay(cli, path, "--format", "markdown").stdout
    assert f"| tokens | costs {-saved['tokens']:,} more |" in markdown


def test_a_stop_on_a_run_labelled_success_is_a_possible_harm_in_every_format(tmp_path, cli):
    path = write_jsonl(
        tmp_path / "runs.jsonl",
        identical_loop("good", "success") + identical_loop("bad", "failure"),
    )
    report = json.loads(replay(cli, path, "--format", "json").stdout)
    harm = {t["id"]: t["policy"]["possible_harm"] for t in report["traces"]}
    assert harm["bad"] is None
    assert harm["good"] == "the run is labelled a success: the policy would have replaced its work by a forced answer"
    assert report["totals"]["possible_harm"] == 1

    terminal = replay(cli, path).stdout
    assert terminal.count("harm: the run is labelled a success") == 1
    assert "1 harmed (labelled a success, healthy or mixed, and stopped)" in terminal
    markdown = replay(cli, path, "--format", "markdown").stdout
    assert "**Harm**" in markdown and "- good (" in markdown


def test_a_stop_of_a_successful_dialogue_is_harm_in_any_turn_unless_its_labels_ask_for_it(cli, tmp_path):
    # Turn 2 repeats a failing lookup four times, then apologises; turns 3-5 solve the task.
    # Its own policy expectation asks for the stop: no harm, in any command.
    path = SAMPLES / "tau_retail_order_lookup_loop.jsonl"
    for preset in ("patchcat", "openhands"):
        policy = json.loads(replay(cli, path, "--format", "json", "--preset", preset).stdout)["traces"][0]["policy"]
        assert policy["stops"] and policy["possible_harm"] is None, preset
    # Without it, the run is a success the policy stops: harm, in an earlier turn too
    # (after a forced reply the later turns need not happen as recorded).
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True) if '"guard":"policy"' not in line), encoding="utf-8")
    stopped = json.loads(replay(cli, bare, "--format", "json", "--preset", "patchcat").stdout)["traces"][0]["policy"]
    assert [(s["turn"], s["round"], s["action"]) for s in stopped["stops"]] == [(2, 6, "stop")]
    assert stopped["stops"][0]["new_information"] is None and stopped["later_turns_as_recorded"]
    assert stopped["possible_harm"] == "the run is labelled a success: the policy would have replaced the rest of turn 2 by a forced reply"
    aborted = json.loads(replay(cli, bare, "--format", "json", "--preset", "openhands").stdout)["traces"][0]["policy"]
    assert aborted["possible_harm"] == "the run is labelled a success: the policy would have aborted it"


@pytest.mark.usefixtures("seed_guards")
def test_replay_checks_expect_events_and_prints_the_broken_ones(tmp_path, cli):
    events = identical_loop("loop", "failure") + [
        {"type": "expect", "trace": "loop", "guard": "R001", "by_round": 3},  # met: stop at 3
        {"type": "expect", "trace": "loop", "guard": "P001", "by_round": 2, "note": "no search here"},  # broken
        {"type": "expect", "trace": "loop", "guard": "identical-call-streak", "fires": False},  # broken
        {"type": "expect", "trace": "loop", "guard": "policy", "by_round": 3},  # met
        {"type": "expect", "trace": "loop", "guard": "X999"},  # unknown: not checked
    ]
    path = write_jsonl(tmp_path / "expect.jsonl", events)

    data = json.loads(replay(cli, path, "--format", "json").stdout)
    checked = [(e["guard"], e["met"], e["message"]) for e in data["traces"][0]["expectations"]]
    assert checked == [
        ("R001", True, "R001 should intervene by round 3; it did at round 3 (stop)"),
        ("P001", False, "P001 should intervene by round 2; it did not"),
        ("identical-call-streak", False, "R001 should stay quiet; it did not: stop at round 3"),
        ("policy", True, "the policy should intervene by round 3; it did at round 2 (block)"),  # R002 answers from its cache
        ("X999", None, "X999 is not a guard: expectation not checked"),
    ]
    assert data["totals"]["expectations_broken"] == 2

    lines = replay(cli, path).stdout.splitlines()
    assert "  ✗ expectation broken: P001 should intervene by round 2; it did not (no search here)" in lines
    assert "  ✗ expectation broken: R001 should stay quiet; it did not: stop at round 3" in lines
    assert "  ? expectation not checked: X999 is not a guard: expectation not checked" in lines
    assert not any("R001 should intervene by round 3" in line for line in lines)  # met ones stay quiet

    markdown = replay(cli, path, "--format", "markdown").stdout
    assert "**Broken expectations:**" in markdown and "P001 should intervene by round 2; it did not" in markdown


def test_unknown_seconds_are_null_not_zero(tmp_path, cli):
    path = write_jsonl(tmp_path / "untimed.jsonl", identical_loop("untimed", "failure"))
    data = json.loads(replay(cli, path, "--format", "json").stdout)
    assert data["traces"][0]["seconds"] is None
    assert data["traces"][0]["policy"]["saved"]["seconds"] is None
    assert data["totals"]["whole"]["seconds"] is None and data["totals"]["saved"]["seconds"] is None


def test_a_cached_answer_that_differs_from_the_recorded_result_is_stale_not_saved(tmp_path, cli):
    # A poll: the same call answers differently the second time (the job moved on).
    events = [{"type": "labels", "trace": "poll", "labels": {"outcome": "success"}}]
    for n, status in enumerate(["running", "running", "done"]):
        events += [
            {"type": "round", "trace": "poll", "tool_calls": [{"id": f"p{n}", "name": "job_status", "arguments": '{"job": 7}'}]},
            {"type": "result", "trace": "poll", "call_id": f"p{n}", "content": json.dumps({"status": status})},
        ]
    events.append({"type": "round", "trace": "poll", "text": "The job is done."})
    path = write_jsonl(tmp_path / "poll.jsonl", events)

    data = json.loads(replay(cli, path, "--format", "json", "--select", "R002").stdout)["traces"][0]
    assert [(f["round"], f["action"], f["stale"]) for f in data["fires"]] == [(2, "block", False), (3, "block", True)]
    # Only the block that would have returned what really came back saves a call.
    assert data["policy"]["blocked_calls"] == 1 and data["policy"]["stale_blocks"] == 1
    assert data["policy"]["saved"]["tool_calls"] == 1

    terminal = replay(cli, path, "--select", "R002").stdout
    assert "stale: the call's recorded result changed; the block would have hidden it" in terminal
    assert "1 block would have returned stale data (not counted)" in terminal
    assert "| block · stale: the call's recorded result changed" in replay(cli, path, "--format", "markdown", "--select", "R002").stdout


def test_a_stop_before_the_recorded_run_found_new_information_says_so(tmp_path, cli):
    same = "1. Weather https://weather.example/today\n2. Forecast https://weather.example/week"
    events = []
    for n, (query, result) in enumerate(
        [
            ("weather", same),
            ("weather today", same),
            ("weather today temperature", same),
            ("weather today temperature rain", same + "\n3. Radar https://radar.example/now"),
        ]
    ):
        events += search_round("found", n, query, result)
    events.append({"type": "round", "trace": "found", "text": "Rain later today."})
    path = write_jsonl(tmp_path / "found.jsonl", events)

    data = json.loads(replay(cli, path, "--format", "json", "--select", "P001").stdout)["traces"][0]
    (stop,) = data["policy"]["stops"]
    assert (stop["code"], stop["round"], stop["phase"]) == ("P001", 3, "before_tools")
    assert stop["new_information"] == {"round": 4, "what": "1 new URL"}
    assert "the recorded run found new information at round 4 (1 new URL)" in replay(cli, path, "--select", "P001").stdout

    # Without the new URL in round 4, nothing was cut that mattered.
    quiet = write_jsonl(tmp_path / "quiet.jsonl", [e if e.get("call_id") != "c3" else {**e, "content": same} for e in events])
    stop = json.loads(replay(cli, quiet, "--format", "json", "--select", "P001").stdout)["traces"][0]["policy"]["stops"][0]
    assert stop["new_information"] is None


def test_a_refused_call_is_stale_when_its_result_had_changed_and_saved_when_it_had_not(cli):
    # CrewAI refuses the 2nd identical call; here it is a poll whose status went from generating to done.
    polling = json.loads(replay(cli, str(SAMPLES / "seed004_report_polling.jsonl"), "--format", "json", "--preset", "crewai").stdout)
    (trace,) = polling["traces"]
    blocks = [f for f in trace["fires"] if f["action"] == "block"]
    assert [(f["round"], f["stale"]) for f in blocks] == [(3, True)]
    assert trace["policy"]["stale_blocks"] == 1 and trace["policy"]["blocked_calls"] == 0
    # Roo refuses the 4th identical query_db, which returned [] like the three before it.
    identical = json.loads(replay(cli, str(SAMPLES / "seed004_query_db_identical.jsonl"), "--format", "json", "--preset", "roo").stdout)
    (trace,) = identical["traces"]
    assert [(f["round"], f["stale"]) for f in trace["fires"] if f["action"] == "block"] == [(4, False)]
    assert trace["policy"]["blocked_calls"] == 1 and trace["policy"]["saved"]["tool_calls"] == 1


def test_expectations_about_guards_the_settings_do_not_run_are_counted_once_not_listed(cli):
    terminal = replay(cli, str(SAMPLES / "alternating_ab_loop.jsonl")).stdout
    assert "? expectation not checked" not in terminal
    assert "  2 expectations not checked: about R001, R002, which the settings do not run (run them with --set CODE.enabled=true, or use --preset seeds)" in terminal
    seeds = replay(cli, str(SAMPLES / "alternating_ab_loop.jsonl"), "--preset", "seeds").stdout
    assert "not checked" not in seeds
