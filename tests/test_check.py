"""`tracecheck check`: findings, exit codes, baselines, inline allowances, and the gate
options, through the CLI."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import SAMPLES, write_jsonl

LOOP = "seed004_query_db_identical.jsonl"  # query_db -> [] five times; expects a stop by round 3
# The default preset's guards that catch LOOP: P004 (the same call answered the same way) by
# round 3, and F003 (the same empty answer) one round later.
ESCAPE = ("--set", "P004.enabled=false", "--set", "F003.enabled=false")


def check(cli, *args):
    return cli("check", *args)


def check_json(cli, *args):
    result = cli("check", "--output-format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture
def folder(tmp_path):
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in (LOOP, "seed004_report_polling.jsonl", "healthy_pagination.jsonl"):
        shutil.copy(SAMPLES / name, traces / name)
    return traces


def test_the_shipped_samples_pass(cli):
    result = check(cli, str(SAMPLES))
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[-2].startswith("33 traces · 82 of 82 expectations hold · 42 not checked (their guards are not run) · 0 failing findings")
    assert result.stdout.splitlines()[-1] == "passed"


def test_a_loop_that_escapes_fails_with_a_message_a_person_understands(cli, folder):
    result = check(cli, *ESCAPE, str(folder))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"{folder / LOOP}:5: policy seed004_query_db_identical" in lines  # the line of its expect event
    assert "  the policy should intervene by round 3; it did not [the same call answered the same way: stop by its 3rd]" in lines
    assert lines[-1] == "failed"


def test_a_guard_that_misses_says_where_it_stood(cli, tmp_path):
    # P001 must stop by round 3, but with Jaccard the rewritten queries are not similar enough.
    shutil.copy(SAMPLES / "seed000_weather_loop.jsonl", tmp_path / "w.jsonl")
    code, data = check_json(cli, "--preset", "seeds", "--set", "P001.metric=jaccard", str(tmp_path))
    assert code == 1
    p001 = next(f for f in data["findings"] if f["rule"] == "P001")
    assert p001["message"].startswith(
        "P001 should intervene by round 3; it did not — at round 3: best jaccard 0.71 < 0.8 ('今日天气 气温 晴雨' against '今日天气 气温')"
    )
    assert p001["kind"] == "expectation" and p001["failing"]


def test_each_kind_of_broken_expectation(cli, tmp_path):
    def run(events):
        path = write_jsonl(tmp_path / "t.jsonl", events)
        return check_json(cli, "--preset", "seeds", str(path))

    def loop(*expects, outcome="failure"):
        events = [{"type": "labels", "trace": "t", "labels": {"outcome": outcome}}, *({"type": "expect", "trace": "t", **e} for e in expects)]
        for n in range(4):
            events += [
                {"type": "round", "trace": "t", "tool_calls": [{"id": f"c{n}", "name": "query_db", "arguments": '{"s": 1}'}]},
                {"type": "result", "trace": "t", "call_id": f"c{n}", "content": "[]"},
            ]
        return events + [{"type": "round", "trace": "t", "text": "done"}]

    # R001 stops at round 3 (its 3rd identical call).
    assert run(loop({"guard": "R001", "by_round": 3}))[0] == 0
    code, data = run(loop({"guard": "R001", "by_round": 2}))
    assert code == 1 and data["findings"][0]["message"].startswith("R001 should intervene by round 2; it first did at round 3 (stop)")
    assert run(loop({"guard": "R001", "by_round": 2, "tolerance": 1}))[0] == 0  # late by one round is allowed
    code, data = run(loop({"guard": "R001", "fires": False}))
    assert code == 1 and data["findings"][0]["message"].startswith("R001 should stay quiet; it did not: stop at round 3")
    assert data["findings"][0]["line"] == 7  # the round R001 stopped at, not the expect event
    code, data = run(loop({"guard": "policy", "fires": False}))
    assert code == 1 and data["findings"][0]["rule"] == "policy"
    # The policy must not stop a run labelled a success.
    code, data = run(loop(outcome="success"))
    assert code == 1 and data["findings"][0]["kind"] == "harm"
    assert data["findings"][0]["message"].startswith(
        "the policy stops a run labelled a success at round 3 before tools (R001: 3 consecutive identical calls"
    )
    assert data["findings"][0]["message"].endswith("2 rounds before its recorded end")


def test_exit_codes(cli, folder, tmp_path):
    assert check(cli, str(folder)).exit_code == 0
    assert check(cli, *ESCAPE, str(folder)).exit_code == 1
    assert check(cli, *ESCAPE, "--exit-zero", str(folder)).exit_code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert check(cli, str(empty)).exit_code == 2  # no traces found
    assert check(cli, "--fail-on", "some", str(folder)).exit_code == 2
    assert check(cli, "--output-format", "yaml", str(folder)).exit_code == 2
    assert check(cli, "-o", str(tmp_path / "report.unknown"), str(folder)).exit_code == 2
    unreadable = tmp_path / "broken.jsonl"
    unreadable.write_bytes(b"\x1f\x8b not really gzip")
    assert check(cli, str(unreadable)).exit_code == 2


def test_waste_gates_fail_when_the_agent_loops(cli, folder):
    code, data = check_json(cli, "--max-wasted-rounds", "1", str(folder))
    assert code == 1
    waste = [f for f in data["findings"] if f["kind"] == "waste"]
    assert [f["rule"] for f in waste] == ["TC-WASTE-ROUNDS"] and waste[0]["trace"] == "seed004_query_db_identical"
    assert "saving 2 rounds (more than --max-wasted-rounds 1)" in waste[0]["message"]
    assert check(cli, "--max-wasted-rounds", "2", str(folder)).exit_code == 0
    assert check(cli, "--max-wasted-tokens", "100", str(folder)).exit_code == 1


def test_a_baseline_absorbs_every_finding_and_a_new_one_fails(cli, folder, tmp_path):
    baseline = tmp_path / "baseline.json"
    assert cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder)).exit_code == 0
    recorded = json.loads(baseline.read_text())
    assert recorded["version"] == 1 and len(recorded["findings"]) == 1 and recorded["accepted"] == []
    code, data = check_json(cli, *ESCAPE, "--baseline", str(baseline), str(folder))
    assert code == 0 and data["counts"]["baseline"] == 1 and data["counts"]["failing"] == 0
    assert check(cli, *ESCAPE, "--baseline", str(baseline), "--fail-on", "any", str(folder)).exit_code == 1
    # A new finding on top of the baseline fails: the agent now loops past the waste gate.
    code, data = check_json(cli, *ESCAPE, "--baseline", str(baseline), "--max-wasted-tokens", "10", "--set", "R001.enabled=true", str(folder))
    assert code == 1 and [f["status"] for f in data["findings"] if f["failing"]] == ["new"]


def test_baseline_entries_that_no_longer_match_look_fixed_and_prune_removes_them_never_adding(cli, folder, tmp_path):
    baseline = tmp_path / "baseline.json"
    cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder))
    code, data = check_json(cli, "--baseline", str(baseline), str(folder))  # P004 back on: fixed
    assert code == 0 and data["baseline_fixed"] == 1
    assert "1 baseline entry looks fixed" in check(cli, "--baseline", str(baseline), str(folder)).stdout
    # Prune with findings present that the baseline never had: nothing is added.
    result = cli("baseline", "prune", str(baseline), "--max-wasted-rounds", "0", str(folder))
    assert result.exit_code == 0 and "removed 1 fixed entry, kept 0" in result.stderr
    assert json.loads(baseline.read_text())["findings"] == []


def test_accepted_findings_need_a_reason_and_never_fail(cli, folder, tmp_path):
    baseline = tmp_path / "baseline.json"
    cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder))
    data = json.loads(baseline.read_text())
    entry = data["findings"].pop()
    data["accepted"].append({"fingerprint": entry["fingerprint"], "reason": "P004 is off on purpose while we tune it"})
    baseline.write_text(json.dumps(data))
    code, report = check_json(cli, *ESCAPE, "--baseline", str(baseline), "--fail-on", "any", str(folder))
    assert code == 0 and report["findings"][0]["status"] == "accepted"
    assert report["findings"][0]["reason"] == "P004 is off on purpose while we tune it"
    # Writing the baseline again keeps the accepted entry with its reason.
    cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder))
    assert json.loads(baseline.read_text())["accepted"][0]["reason"] == "P004 is off on purpose while we tune it"
    data["accepted"][0]["reason"] = " "
    baseline.write_text(json.dumps(data))
    bad = check(cli, "--baseline", str(baseline), str(folder))
    assert bad.exit_code == 2 and "needs a 'reason'" in bad.stderr


def test_fingerprints_ignore_line_numbers(cli, folder, tmp_path):
    _, first = check_json(cli, *ESCAPE, str(folder))
    moved = tmp_path / "moved"
    moved.mkdir()
    lines = (folder / LOOP).read_text().splitlines()
    (moved / LOOP).write_text("\n".join([lines[0], "", "", *lines[1:]]) + "\n")  # blank lines shift everything
    _, second = check_json(cli, *ESCAPE, str(moved))
    assert [f["fingerprint"] for f in first["findings"] if f["trace"] == "seed004_query_db_identical"] == [
        f["fingerprint"] for f in second["findings"]
    ]
    assert first["findings"][0]["line"] != second["findings"][0]["line"]


def test_an_inline_allow_event_accepts_a_finding_with_its_reason(cli, tmp_path):
    events = [json.loads(line) for line in (SAMPLES / LOOP).read_text().splitlines()]
    events.insert(1, {"type": "allow", "trace": "seed004_query_db_identical", "guard": "policy", "reason": "known flaky backend"})
    path = write_jsonl(tmp_path / "allowed.jsonl", events)
    code, data = check_json(cli, *ESCAPE, "--fail-on", "any", str(path))
    assert code == 0 and data["findings"][0]["status"] == "allowed" and data["findings"][0]["reason"] == "known flaky backend"
    events[1].pop("reason")
    path = write_jsonl(tmp_path / "bad.jsonl", events)
    assert "'allow' needs a 'reason'" in check(cli, "--strict", str(path)).stderr


def test_an_allow_appended_after_the_end_of_a_trace_applies_to_it(cli, tmp_path):
    # The natural edit: append one line to the trace file, after its 'end' event.
    path = tmp_path / "appended.jsonl"
    shutil.copy(SAMPLES / LOOP, path)
    assert check(cli, *ESCAPE, str(path)).exit_code == 1
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "allow", "trace": "seed004_query_db_identical", "guard": "policy", "reason": "known flaky backend"}) + "\n")
    result = check(cli, *ESCAPE, "--strict", "--output-format", "json", str(path))
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and result.stderr == "" and data["warnings"] == []
    assert data["traces"] == 1 and [(f["status"], f["reason"]) for f in data["findings"]] == [("allowed", "known flaky backend")]


def test_an_expectation_appended_after_the_end_of_a_trace_is_checked(cli, tmp_path):
    bare = _without_expectations(SAMPLES / LOOP, tmp_path / "loop.jsonl")
    assert check(cli, str(bare)).exit_code == 5
    with bare.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "expect", "trace": "seed004_query_db_identical", "guard": "policy", "by_round": 2}) + "\n")
    code, data = check_json(cli, "--strict", str(bare))
    assert code == 1 and data["traces"] == 1 and data["expectations"]["checked"] == 1
    (finding,) = data["findings"]
    assert finding["rule"] == "policy" and "should intervene by round 2; it first did at round 3" in finding["message"]


def test_o_writes_every_file_in_the_format_its_name_says(cli, folder, tmp_path):
    out_json, out_md = tmp_path / "report.json", tmp_path / "report.md"
    result = check(cli, *ESCAPE, "-o", str(out_json), "-o", f"concise:{tmp_path / 'report.log'}", "-o", str(out_md), str(folder))
    assert result.exit_code == 1
    assert json.loads(out_json.read_text())["passed"] is False
    assert (tmp_path / "report.log").read_text().startswith(f"{folder / LOOP}:5: policy [seed004_query_db_identical]")
    assert out_md.read_text().startswith("## tracecheck check: failed")
    assert check(cli, "-o", str(folder / LOOP), str(folder)).exit_code == 2  # never over an input


def test_a_closed_pipe_is_not_an_error(tmp_path):
    import subprocess
    import sys

    command = f"{sys.executable} -m tracecheck check --output-format concise --set P004.enabled=false {SAMPLES} | head -1"
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    assert result.stderr == "" and result.stdout.count("\n") == 1


def test_github_summary_appends_the_markdown_report_to_the_step_summary(cli, folder, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = check(cli, *ESCAPE, "--output-format", "github", "--github-summary", str(folder))
    assert result.exit_code == 1 and result.stdout.startswith("::error file=")
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "## tracecheck check: failed" in text
    monkeypatch.setenv("TRACECHECK_GITHUB_SUMMARY", "1")  # what action.yml sets
    check(cli, *ESCAPE, str(folder))
    assert summary.read_text().count("## tracecheck check: failed") == 2


def test_an_expectation_about_no_guard_and_an_unreadable_file_do_not_pass(cli, folder, tmp_path):
    events = [json.loads(line) for line in (folder / LOOP).read_text().splitlines()]
    events.insert(1, {"type": "expect", "trace": "seed004_query_db_identical", "guard": "P0O4", "fires": True})
    path = write_jsonl(tmp_path / "typo.jsonl", events)
    code, data = check_json(cli, str(path))
    assert code == 1 and "'P0O4', which is not a guard (a typo?)" in data["findings"][0]["message"]
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not a trace at all\n")
    result = check(cli, str(garbage), str(folder))
    assert result.exit_code == 2 and "no trace could be read from" in result.stderr and "garbage.jsonl" in result.stderr


def test_an_allow_for_the_guard_that_stopped_covers_the_waste_it_made(cli, tmp_path):
    events = [json.loads(line) for line in (SAMPLES / LOOP).read_text().splitlines()]
    events.insert(1, {"type": "allow", "trace": "seed004_query_db_identical", "guard": "P004", "round": 3, "reason": "a slow backend"})
    path = write_jsonl(tmp_path / "allowed.jsonl", events)
    code, data = check_json(cli, "--max-wasted-rounds", "1", str(path))
    assert code == 0 and [(f["rule"], f["status"]) for f in data["findings"]] == [("TC-WASTE-ROUNDS", "allowed")]


def test_o_refuses_an_unknown_format_and_the_same_file_twice(cli, folder, tmp_path):
    assert "unknown format 'foo'" in check(cli, "-o", f"foo:{tmp_path / 'x.json'}", str(folder)).stderr
    assert "no file name after the format" in check(cli, "-o", "json:", str(folder)).stderr
    twice = check(cli, "-o", f"sarif:{tmp_path / 'a.json'}", "-o", str(tmp_path / "a.json"), str(folder))
    assert twice.exit_code == 2 and "the same file twice" in twice.stderr


def test_a_baseline_kept_beside_the_traces_is_not_read_as_one(cli, folder):
    baseline = folder / "tracecheck-baseline.json"
    assert cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder)).exit_code == 0
    result = check(cli, *ESCAPE, "--strict", "--baseline", str(baseline), str(folder))
    assert result.exit_code == 0 and "tracecheck-baseline.json" not in result.stderr


def test_baseline_write_and_prune_work_on_a_baseline_inside_the_traces_folder(cli, folder):
    baseline = folder / "tracecheck-baseline.json"
    for _ in range(2):  # the second write replaces the first, which now sits among the traces
        result = cli("baseline", "write", *ESCAPE, "-o", str(baseline), str(folder))
        assert result.exit_code == 0 and "warning" not in result.stderr, result.stderr
    assert cli("baseline", "prune", str(baseline), str(folder)).exit_code == 0


def test_check_runs_one_preset_at_a_time(cli, folder):
    result = check(cli, "--preset", "default,seeds", str(folder))
    assert result.exit_code == 2 and "one preset at a time" in result.stderr


def test_p004_and_r001_say_how_far_they_got_when_they_miss(cli, tmp_path):
    shutil.copy(SAMPLES / LOOP, tmp_path / LOOP)
    code, data = check_json(cli, "--preset", "seeds", "--set", "R001.stop_at=6", str(tmp_path))
    r001 = next(f for f in data["findings"] if f["rule"] == "R001")
    assert "— at round 3: 3 identical calls in a row (query_db:" in r001["message"] and "of the 6 that stop" in r001["message"]
    code, data = check_json(cli, "--set", "P004.threshold=5", str(tmp_path))
    policy = next(f for f in data["findings"] if f["rule"] == "policy")
    assert policy["message"].startswith("the policy should intervene by round 3")


def _without_expectations(source, target):
    """A sample as a team would have it before labelling anything: no expect, no labels."""
    kept = [line for line in source.read_text(encoding="utf-8").splitlines() if '"type":"expect"' not in line.replace(" ", "") and '"type":"labels"' not in line.replace(" ", "")]
    target.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return target


def test_nothing_to_check_exits_5_as_pytest_and_allow_empty_passes(cli, tmp_path):
    bare = _without_expectations(SAMPLES / "healthy_pagination.jsonl", tmp_path / "pagination.jsonl")
    result = check(cli, str(bare))
    assert result.exit_code == 5, result.stdout
    assert result.stdout.splitlines()[-2:] == [
        "nothing to check: no expectation, no label and no outcome in these traces (exit 5; --allow-empty passes)",
        "nothing checked",
    ]
    code, data = check_json(cli, str(bare))
    assert (code, data["passed"], data["nothing_to_check"], data["exit_code"]) == (5, False, True, 5)
    allowed = check(cli, "--allow-empty", str(bare))
    assert allowed.exit_code == 0 and allowed.stdout.splitlines()[-1] == "passed"
    # One outcome label is something to hold the run to (the policy must not cut it).
    labelled = tmp_path / "labelled"
    labelled.mkdir()
    shutil.copy(bare, labelled / bare.name)
    with (labelled / bare.name).open("a", encoding="utf-8") as out:
        out.write('{"type":"labels","trace":"healthy_pagination","labels":{"outcome":"success"}}\n')
    assert check(cli, str(labelled)).exit_code == 0
    # The samples as shipped hold expectations: a pass is a pass.
    assert check(cli, str(SAMPLES / "healthy_pagination.jsonl")).exit_code == 0


def test_a_baseline_of_a_late_stop_does_not_hide_a_stop_that_never_comes(cli, tmp_path):
    """Issue 20: the baseline records "stop by round 3; it first did at round 4"; switching
    the stopping guards off makes it "it did not", a different finding that fails."""
    trace = shutil.copy(SAMPLES / "seed001_tool_failure_streak.jsonl", tmp_path / "t.jsonl")
    baseline = tmp_path / "bl.json"
    late = ("--set", "F001.threshold=4")
    assert cli("baseline", "write", str(trace), *late, "-o", str(baseline)).exit_code == 0
    code, data = check_json(cli, str(trace), *late, "--baseline", str(baseline))
    assert code == 0
    policy = next(f for f in data["findings"] if f["rule"] == "policy")
    assert (policy["round"], policy["status"]) == (4, "baseline")  # where it first acted, pinned
    code, data = check_json(cli, str(trace), "--ignore", "F001,F003", "--baseline", str(baseline))
    assert code == 1
    never = next(f for f in data["findings"] if f["rule"] == "policy")
    assert (never["round"], never["status"]) == (None, "new") and "it did not" in never["message"]
    assert never["fingerprint"] != policy["fingerprint"]


def test_prune_keeps_entries_of_guards_that_did_not_run_and_traces_not_read(cli, tmp_path):
    trace = shutil.copy(SAMPLES / "seed001_tool_failure_streak.jsonl", tmp_path / "t.jsonl")
    baseline = tmp_path / "bl.json"
    # F003 as it was before by_target: it stops the loop late once F001 is ignored.
    old_f003 = ("--set", "F003.by_target=false")
    assert cli("baseline", "write", str(trace), "--set", "F001.threshold=4", *old_f003, "-o", str(baseline)).exit_code == 0
    before = json.loads(baseline.read_text())["findings"]
    assert "F001" in [e["rule"] for e in before]
    # F001 switched off: its expectation is not checked, so its entry is not "fixed".
    result = cli("baseline", "prune", str(baseline), str(trace), "--set", "F001.threshold=4", *old_f003, "--ignore", "F001")
    assert result.exit_code == 0, result.output
    assert [e["rule"] for e in json.loads(baseline.read_text())["findings"]] == [e["rule"] for e in before]
    # Another file only: the entries are about a trace that was not read.
    other = shutil.copy(SAMPLES / "healthy_pagination.jsonl", tmp_path / "other.jsonl")
    assert cli("baseline", "prune", str(baseline), str(other)).exit_code == 0
    assert len(json.loads(baseline.read_text())["findings"]) == len(before)
    # The guard back at its default threshold: the late stop is gone for real and pruned.
    assert cli("baseline", "prune", str(baseline), str(trace)).exit_code == 0
    assert json.loads(baseline.read_text())["findings"] == []


def test_check_takes_format_as_replay_and_sweep_spell_it(cli):
    path = str(SAMPLES / "healthy_pagination.jsonl")
    for spelling in ("-f", "--format", "--output-format"):
        result = cli("check", spelling, "json", path)
        assert result.exit_code == 0, (spelling, result.output)
        assert json.loads(result.stdout)["passed"] is True
