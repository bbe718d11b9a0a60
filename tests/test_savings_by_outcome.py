"""Savings a user can bank: the replay totals split by how the runs ended. What a stop
saves on a run that failed anyway is bankable; on a run that succeeded it is at risk (the
stop may have cost the success); ungraded runs are a bucket of their own. The figures are
the per-trace policy savings added up, so they are checked against real graded runs."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, SAMPLES

CODETRACER = ROOT / "tests" / "corpus" / "CodeTracer"
FAILED = CODETRACER / "mailman__azhsPLd"  # labelled a failure (reward 0); the policy stops it at round 5
SUCCEEDED = CODETRACER / "polyglot-c-py__3z6k7TU"  # labelled a success (reward 1); stopped at round 5
UNGRADED = SAMPLES / "openai" / "seed004_query_db_identical.jsonl"  # OpenAI chat: no outcome
KEYS = ("llm_calls", "tool_calls", "tokens")


def replay_json(cli, *args):
    result = cli("replay", "--format", "json", *map(str, args))
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_failed_run_is_bankable_a_successful_one_at_risk_and_the_three_add_up(cli):
    report = replay_json(cli, FAILED, SUCCEEDED, UNGRADED)
    traces = {t["labels"].get("outcome", "unknown"): t for t in report["traces"]}
    split = report["totals"]["saved_by_outcome"]
    assert list(split) == ["failure", "success", "unknown"]  # bankable first
    failed, risky, ungraded = split["failure"], split["success"], split["unknown"]
    # The stall that failed anyway: its stop at round 5 saves 6 LLM calls, 19 tool calls
    # and 154,410 measured tokens (net of the ~25,560-token forced answer) — banked.
    assert traces["failure"]["policy"]["stopped_at"] == 5
    assert {k: failed[k] for k in (*KEYS, "traces", "traces_stopped", "possible_harm")} == {
        "llm_calls": 6, "tool_calls": 19, "tokens": 154_410, "traces": 1, "traces_stopped": 1, "possible_harm": 0,
    }
    assert failed["forced_answer_tokens"] == 25_560 and failed["tokens_basis"] == "measured"
    # The run that succeeded is stopped at round 5: 56 LLM calls and 1,374,896 tokens at risk
    # (its label calls it a loop whose deliverable was already written: a stop lost nothing,
    # but only a label can say so, so the savings stay "at risk").
    assert traces["success"]["policy"]["stopped_at"] == 5
    assert {k: risky[k] for k in (*KEYS, "traces_stopped", "possible_harm")} == {
        "llm_calls": 56, "tool_calls": 78, "tokens": 1_374_896, "traces_stopped": 1, "possible_harm": 1,
    }
    assert {k: ungraded[k] for k in (*KEYS, "traces")} == {"llm_calls": 2, "tool_calls": 2, "tokens": 1_013, "traces": 1}
    # Each bucket is its traces' policy savings, and the buckets add up to the total.
    for outcome, bucket in split.items():
        assert {k: bucket[k] for k in KEYS} == {k: traces[outcome]["policy"]["saved"][k] for k in KEYS}
        assert bucket["whole"]["tokens"] == traces[outcome]["tokens"]
    saved = report["totals"]["saved"]
    for key in KEYS:
        assert failed[key] + risky[key] + ungraded[key] == saved[key]
    assert failed["seconds"] + risky["seconds"] + ungraded["seconds"] == pytest.approx(saved["seconds"], abs=0.002)
    assert saved["tokens"] == 1_530_319  # the total is what it was: nothing is dropped or moved


def test_the_summary_lists_the_bankable_figure_first(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = cli("replay", str(UNGRADED), str(SUCCEEDED), str(FAILED))  # the order of the input does not matter
    assert result.exit_code == 0, result.stderr
    summary = result.stdout[result.stdout.index("\nSummary\n") :]
    flat = " ".join(summary.split())
    assert "by outcome (shares of those runs as recorded):" in flat
    bankable = flat.index("failed anyway — bankable: 1 of 1 trace stopped → saves 6 LLM calls (50%), 19 tool calls (53%), 154,410 tokens (56%)")
    at_risk = flat.index("succeeded — at risk, a stop may have cost the success: 1 of 1 trace stopped, 1 harmed → saves 56 LLM calls")
    ungraded = flat.index("ungraded: 1 of 1 trace stopped → saves 2 LLM calls")
    assert bankable < at_risk < ungraded
    assert "forced answers charged: ~25,560 tokens (estimate)" in flat


def test_the_outcome_comes_from_the_labels_and_estimated_tokens_say_so(cli, tmp_path):
    """A labels file that grades the sample's weather loop a success moves its saving from
    bankable to at risk; the trace's tokens are measured, so no "estimated" is claimed,
    while the ungraded OpenAI copy of a trace without usage says "estimated"."""
    weather = SAMPLES / "seed000_weather_loop.jsonl"
    plain = replay_json(cli, weather)["totals"]["saved_by_outcome"]
    assert (plain["failure"]["llm_calls"], plain["failure"]["tokens"], plain["success"]["traces"]) == (2, 3_656, 0)
    labels = tmp_path / "labels.csv"
    labels.write_text("trace,outcome\nseed000_weather_loop,success\n", encoding="utf-8")
    relabelled = replay_json(cli, weather, "--labels", labels)["totals"]["saved_by_outcome"]
    assert (relabelled["success"]["llm_calls"], relabelled["success"]["tokens"], relabelled["failure"]["traces"]) == (2, 3_656, 0)
    result = cli("replay", str(weather), "--labels", str(labels))
    assert "all on runs that succeeded: at risk, a stop may have cost the success" in result.stdout
    assert "bankable" not in result.stdout
    # Graded nowhere: no split is printed (it would repeat the totals), the JSON still has it.
    finetune = SAMPLES / "openai" / "seed000_weather_loop.finetune.jsonl"
    report = replay_json(cli, finetune)
    assert report["totals"]["saved_by_outcome"]["unknown"]["tokens"] == report["totals"]["saved"]["tokens"]
    assert report["totals"]["saved_by_outcome"]["unknown"]["tokens_basis"] == report["totals"]["saved"]["tokens_basis"]
    assert report["totals"]["saved"]["tokens_basis"] == "estimated"  # the OpenAI fine-tuning file has no usage
    assert "by outcome" not in cli("replay", str(finetune)).stdout
    # Beside a graded run, its bucket is printed and its tokens say they are estimated.
    flat = " ".join(cli("replay", str(weather), str(finetune)).stdout.split())
    assert "failed anyway — bankable: 1 of 1 trace stopped → saves 2 LLM calls (33%), 3 tool calls (60%), 3,656 tokens (51%), 18.3s (53%)" in flat
    assert "ungraded: 1 of 1 trace stopped → saves 2 LLM calls (33%), 3 tool calls (60%), 2,892 tokens (59%, estimated)" in flat


def test_every_sample_and_preset_adds_up_and_validates(cli):
    import jsonschema

    report = replay_json(cli, SAMPLES, "--preset", "default,seeds")
    jsonschema.validate(report, json.loads(cli("schema", "report").stdout))
    for totals in (report["totals"], *report["totals"]["by_preset"].values()):
        split = totals["saved_by_outcome"]
        for key in KEYS:
            assert sum(bucket[key] for bucket in split.values()) == totals["saved"][key]
            assert sum(bucket["whole"][key] for bucket in split.values()) == totals["whole"][key]
        assert sum(bucket["traces"] for bucket in split.values()) == totals["traces"]
        assert sum(bucket["traces_stopped"] for bucket in split.values()) == totals["traces_stopped"]
        assert split["success"]["possible_harm"] == totals["possible_harm"]
    # Per trace: each stopped trace's saving sits in the bucket of its label.
    expected = {"failure": dict.fromkeys(KEYS, 0), "success": dict.fromkeys(KEYS, 0), "unknown": dict.fromkeys(KEYS, 0)}
    for trace in report["traces"]:
        outcome = trace["labels"].get("outcome", "unknown")
        for key in KEYS:
            expected[outcome][key] += trace["policy"]["saved"][key]
    assert {o: {k: b[k] for k in KEYS} for o, b in report["totals"]["saved_by_outcome"].items()} == expected


def test_tau2_bench_rewards_grade_the_runs(cli):
    """τ²-bench's rewards are the outcome: 49 runs succeeded, the rest failed. The one
    stall (task 35: the same transfer notice while the user refuses, then a booking) is
    hinted, not stopped, so nothing is saved and no successful run is put at risk."""
    report = replay_json(cli, ROOT / "tests" / "corpus" / "tau2-bench")
    split = report["totals"]["saved_by_outcome"]
    assert [t for t in report["traces"] if t["policy"]["stops"]] == []
    hinted = [t for t in report["traces"] if any(f["code"] == "T001" for f in t["fires"])]
    assert "task-35/trial-1" in [t["id"] for t in hinted]
    assert all(f["action"] == "hint" for t in hinted for f in t["fires"] if f["code"] == "T001" and f["round"] <= 11)
    assert (split["failure"]["traces_stopped"], split["failure"]["llm_calls"], split["failure"]["tokens"]) == (0, 0, 0)
    assert split["failure"]["traces"] == 86 - 49
    assert (split["success"]["traces"], split["success"]["traces_stopped"], split["success"]["tokens"]) == (49, 0, 0)
    assert split["unknown"]["traces"] == 0


def test_markdown_and_html_carry_the_split_in_the_same_words(cli, tmp_path):
    args = [str(FAILED), str(SUCCEEDED), str(UNGRADED)]
    markdown = cli("replay", *args, "--format", "markdown").stdout
    summary = markdown[markdown.index("## Summary") :]
    assert "**By outcome (shares of those runs as recorded):**" in summary
    lines = [line for line in summary.splitlines() if line.startswith("- **")]
    assert lines[0].startswith("- **failed anyway — bankable:** 1 of 1 trace stopped → saves 6 LLM calls (50%)")
    assert lines[1].startswith("- **succeeded — at risk, a stop may have cost the success:** 1 of 1 trace stopped, 1 harmed")
    assert lines[2].startswith("- **ungraded:** 1 of 1 trace stopped → saves 2 LLM calls")
    page = tmp_path / "report.html"
    assert cli("replay", *args, "-o", str(page)).exit_code == 0
    html = page.read_text(encoding="utf-8")
    bankable = html.index('<span class="good">failed anyway — bankable:</span> 1 of 1 trace stopped → saves 6 LLM calls (50%)')
    at_risk = html.index('<span class="warn">succeeded — at risk, a stop may have cost the success:</span>')
    assert bankable < at_risk < html.index("<span>ungraded:</span> 1 of 1 trace stopped")


def test_worker_processes_give_the_same_split(cli):
    one = replay_json(cli, CODETRACER)["totals"]["saved_by_outcome"]
    assert one == replay_json(cli, CODETRACER, "--jobs", "2")["totals"]["saved_by_outcome"]
    assert one["failure"]["traces"] == 40 and one["success"]["traces"] == 1
    assert one["failure"]["tokens"] == 9_342_482 and one["success"]["tokens"] == 1_374_896


# --- sweep --------------------------------------------------------------------------


def sweep_json(cli, *args):
    result = cli("sweep", "--format", "json", *map(str, args))
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_sweep_row_splits_its_savings_as_replay_does(cli):
    """The current settings' row of a sweep is what replay prints with them: the same
    savings on failed runs, at risk and ungraded, adding up to the total."""
    data = sweep_json(cli, SAMPLES, "--grid", "P001.containment=0.6,0.8")
    replayed = replay_json(cli, SAMPLES)["totals"]["saved_by_outcome"]
    baseline = data["baseline"]
    for outcome in ("failure", "success", "unknown"):
        mine, theirs = baseline["saved_by_outcome"][outcome], replayed[outcome]
        assert {k: mine[k] for k in (*KEYS, "traces", "traces_stopped")} == {k: theirs[k] for k in (*KEYS, "traces", "traces_stopped")}
    assert baseline["tokens_saved_on_failure"] == replayed["failure"]["tokens"] == 260_463
    assert baseline["tokens_at_risk"] == replayed["success"]["tokens"] == 4_969
    assert baseline["llm_calls_at_risk"] == replayed["success"]["llm_calls"] == 3
    for point in data["points"]:
        row = point["metrics"]
        for key in KEYS:
            assert sum(bucket[key] for bucket in row["saved_by_outcome"].values()) == row["saved"][key]
        assert row["tokens_saved_on_failure"] == row["saved_by_outcome"]["failure"]["tokens"]


def test_the_sweep_table_leads_with_the_savings_on_failed_runs(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    text = cli("sweep", str(SAMPLES), "--grid", "P001.containment=0.6,0.8").stdout
    header = next(line for line in text.splitlines() if "at risk" in line and "stops" in line)
    assert header.split()[-9:] == ["stops", "on", "failed", "at", "risk", "all", "harm", "recall", "prec."]
    best = next(line for line in text.splitlines() if line.startswith(">"))
    assert best.split()[-6:-3] == ["274,044", "4,969", "282,918"], best  # on failed, at risk, all (ungraded too)
    current = next(line for line in text.splitlines() if line.startswith("current settings: "))
    assert "260,463 tokens saved on runs that failed anyway · 4,969 at risk on runs that succeeded · 269,337 in all" in current
    # Ungraded traces only: nothing to split, the table is as it was.
    plain = cli("sweep", str(SAMPLES / "openai"), "--grid", "P001.containment=0.6,0.8").stdout
    assert "at risk" not in plain and "tokens saved" in plain


def test_the_bankable_savings_can_be_the_objective(cli):
    data = sweep_json(cli, SAMPLES, "--grid", "P001.containment=0.5,0.8,0.95", "--objective", "tokens_saved_on_failure")
    ranked = [p["metrics"]["tokens_saved_on_failure"] for p in data["points"]]
    assert ranked == sorted(ranked, reverse=True) and len(set(ranked)) > 1
    assert data["verdict"].split(": ", 1)[1].startswith("tokens_saved_on_failure ")
    csv = cli("sweep", str(SAMPLES), "--grid", "P001.containment=0.5,0.8", "--format", "csv").stdout.splitlines()
    head = csv[0].split(",")
    assert "tokens_saved_on_failure" in head and "tokens_at_risk" in head
    for line in csv[1:]:
        row = dict(zip(head, line.split(",")))
        assert int(row["tokens_saved_on_failure"]) + int(row["tokens_at_risk"]) <= int(row["tokens_saved"])
