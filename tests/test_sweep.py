"""`tracecheck sweep`: the grid, sweep results equal to plain replays, the Pareto front,
the constrained choice, holdout and folds, and the winning settings written back."""

from __future__ import annotations

import re

import json

import pytest

from conftest import ROOT, SAMPLES
from tracecheck.config import load_settings
from tracecheck.engine.grid import expand, parse_dimension, preset_dimension
from tracecheck.engine.replay import replay_trace
from tracecheck.engine.sweep import (
    Constraint,
    best_index,
    evaluate,
    load_all,
    pareto,
    read_features,
    settings_of,
    sweep,
    sweep_features,
    parse_constraints,
    stratified_folds,
    stratified_split,
    trace_kind,
)
from tracecheck.input.diagnostics import TracecheckError

TRACES = load_all([str(SAMPLES)])


def sweep_json(cli, *args):
    result = cli("sweep", "--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# --- the grid ----------------------------------------------------------------------


def test_ranges_are_inclusive_and_exact_and_lists_keep_their_order():
    assert parse_dimension("P001.containment=0.6:0.95:0.05").values == (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
    assert parse_dimension("R001.stop_at=2:6:2").values == (2, 4, 6)
    assert parse_dimension("R001.stop_at=4,2,3").values == (4, 2, 3)
    assert parse_dimension("P001.tokenizer=char,jieba").values == ("char", "jieba")
    assert parse_dimension("R003.compare_results=true,false").values == (True, False)
    assert preset_dimension("ALL").values[-1] == "default" and len(preset_dimension("all").values) >= 14


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("X999.threshold=1,2", "unknown guard 'X999'"),
        ("P001.nope=1,2", "P001 has no option 'nope'"),
        ("R001.stop_at=two,three", "'two' is not a valid int"),
        ("P001.containment=0.9:0.6:0.05", "is empty"),
        ("P001.containment=0.1:0.2:0", "step of '0.1:0.2:0' must be positive"),
        ("P001.containment=0.5:1.5:0.5", "above the maximum"),
        ("R001.stop_at=", "empty value"),
        ("R001.stop_at", "expected GUARD.OPTION=VALUES"),
        ("P001.tokenizer=char,klingon", "klingon"),
    ],
)
def test_a_bad_grid_exits_2_naming_it(cli, grid, message):
    result = cli("sweep", "--grid", grid, str(SAMPLES))
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_the_number_of_combinations_comes_first_and_a_grid_above_the_cap_is_refused(cli):
    result = cli("sweep", "--grid", "P001.containment=0.5:0.95:0.05", "--grid", "R003.laps=2:5", "--max-combos", "39", str(SAMPLES))
    assert result.exit_code == 2
    assert "sweep: 40 combinations of P001.containment (10), R003.laps (4)" in result.stderr
    assert "more than --max-combos 39" in result.stderr
    assert cli("sweep", str(SAMPLES)).exit_code == 2  # nothing to sweep
    assert "twice" in cli("sweep", "--grid", "R001.stop_at=2", "--grid", "R001.stop_at=3", str(SAMPLES)).stderr


# --- sweep equals replay -------------------------------------------------------------


def _points(*specs, presets=None):
    dims = [parse_dimension(s) for s in specs]
    if presets:
        dims.insert(0, preset_dimension(presets))
    return expand(dims, lambda name: load_settings(preset=name, cwd=ROOT))


@pytest.mark.parametrize(
    "points",
    [
        _points("P001.containment=0.5,0.8,0.95", "P001.metric=containment,jaccard"),
        _points("P004.threshold=2,4", "R003.laps=2,3"),
        _points("F001.threshold=1,3", "T001.similarity=0.6,1.0"),
        _points(presets="ALL"),
    ],
    ids=["P001", "P004-R003", "F001-T001", "every-preset"],
)
def test_every_grid_point_equals_a_plain_replay_of_every_sample(points):
    outcomes = evaluate(TRACES, [p.settings for p in points])
    for t, trace in enumerate(TRACES):
        for j, point in enumerate(points):
            plain = replay_trace(trace, point.settings.build()).policy
            got = outcomes[t][j]
            saved = plain.saved
            assert (got.stopped, got.tokens, got.llm_calls, got.tool_calls, got.stale_blocks) == (
                bool(plain.stops),
                saved.tokens if saved else 0,
                saved.llm_calls if saved else 0,
                saved.tool_calls if saved else 0,
                plain.stale_blocks,
            ), (trace.id, point.label)


def test_sweep_metrics_are_the_replay_totals_of_the_same_settings(cli):
    data = sweep_json(cli, "--grid", "P001.containment=0.6,0.9", str(SAMPLES))
    for point in data["points"]:
        value = point["values"]["P001.containment"]
        replayed = json.loads(cli("replay", "--format", "json", "--set", f"P001.containment={value}", str(SAMPLES)).stdout)["totals"]
        row = point["metrics"]
        assert row["traces_stopped"] == replayed["traces_stopped"]
        assert row["saved"]["tokens"] == replayed["saved"]["tokens"] and row["saved"]["llm_calls"] == replayed["saved"]["llm_calls"]
        # Harm is one definition: the sweep counts the runs replay calls harmed.
        assert row["harmed"] == replayed["possible_harm"] and row["stale_blocks"] == replayed["stale_blocks"]
        assert row["harm"] == round(row["harmed"] / row["traces"], 4)


# --- choosing ------------------------------------------------------------------------


def _row(saved, harm, recall=None):
    return {"tokens_saved": saved, "harm": harm, "recall": recall}


def test_pareto_marks_rows_no_other_beats_on_both_savings_and_harm():
    rows = [_row(100, 0.1), _row(90, 0.0), _row(80, 0.05), _row(100, 0.2), _row(50, 0.0)]
    assert pareto(rows, "tokens_saved") == [True, True, False, False, False]


def test_the_best_row_meets_every_constraint_and_ties_go_to_less_harm():
    rows = [_row(100, 0.1, 0.5), _row(90, 0.0, 1.0), _row(90, 0.01, 1.0), _row(120, 0.3, 1.0)]
    assert best_index(rows, "tokens_saved", []) == 3
    assert best_index(rows, "tokens_saved", parse_constraints("harm<=0.2")) == 0
    assert best_index(rows, "tokens_saved", parse_constraints("harm<=0.2,recall>=0.9")) == 1
    assert best_index(rows, "tokens_saved", [Constraint("harm", "<", 0.0)]) is None
    for bad in ("harm=<0.1", "speed>=1", "harm<=x"):
        with pytest.raises(TracecheckError):
            parse_constraints(bad)


def test_a_constraint_changes_the_choice_and_the_verdict_says_so(cli):
    # Without a limit on harm the choice may not harm more than the current settings
    # (`default`, harm 0): `seeds` saves a little more at harm 0.06 (it stops two runs
    # labelled a success), and is named.
    careful = sweep_json(cli, "--preset", "ALL", str(SAMPLES))
    chosen = next(p for p in careful["points"] if p["best"])
    assert chosen["values"] == {"preset": "default"}
    assert careful["constraints"] == [] and careful["harm_ceiling"] == careful["baseline"]["harm"]
    assert "preset=seeds saves more" in careful["verdict"] and "--constraint 'harm<=0.0606'" in careful["verdict"]
    # What it offers keeps the limits asked for: a row that breaks them is not offered.
    strict = sweep_json(cli, "--preset", "ALL", "--constraint", "recall>=0.99", str(SAMPLES))
    assert "preset=seeds" not in strict["verdict"], strict["verdict"]
    offered = re.search(r"--constraint '([^']*)'", strict["verdict"])
    assert offered is None or offered.group(1).startswith("recall>=0.99,harm<=")
    # Nothing harms as little as the current settings: the least harm is named, with its rule.
    tight = sweep_json(cli, "--grid", "F001.threshold=1,2", str(SAMPLES))
    assert tight["best"] is None
    assert "the least harm is" in tight["verdict"] and "--constraint 'harm<=" in tight["verdict"], tight["verdict"]
    loose = sweep_json(cli, "--preset", "ALL", "--constraint", "harm<=1", str(SAMPLES))
    assert loose["best"] == next(p["number"] for p in loose["points"] if p["values"]["preset"] == "seeds")
    assert loose["constraints"] == ["harm<=1"] and loose["harm_ceiling"] is None
    tight = sweep_json(cli, "--preset", "ALL", "--constraint", "harm<=0.05,recall>=0.9", str(SAMPLES))
    chosen = next(p for p in tight["points"] if p["best"])
    assert chosen["values"] == {"preset": "default"} and chosen["pareto"]
    # The best row is what runs now: nothing to change, nothing offered to paste.
    assert tight["verdict"].startswith("the best grid point is the current settings: keep them")
    assert tight["config"] == {} and tight["toml"] is None and tight["recommendation"]["change"] is False
    none = sweep_json(cli, "--preset", "ALL", "--constraint", "harm<0", str(SAMPLES))
    assert none["best"] is None and none["verdict"] == "no grid point meets harm<0" and none["toml"] is None


def test_presets_ranked_side_by_side_put_default_on_the_pareto_front(cli):
    data = sweep_json(cli, "--preset", "ALL", str(SAMPLES))
    by_name = {p["values"]["preset"]: p for p in data["points"]}
    assert set(by_name) == set(preset_dimension("ALL").values)
    assert by_name["default"]["pareto"] and by_name["default"]["metrics"]["recall"] == 1.0
    savings = [p["metrics"]["tokens_saved"] for p in data["points"]]
    assert savings == sorted(savings, reverse=True)


# --- validation ----------------------------------------------------------------------


def test_the_holdout_split_is_stratified_and_reproducible_for_a_seed():
    kinds = [trace_kind(t)[0] for t in TRACES]
    first = stratified_split(kinds, 0.3, seed=7)
    assert first == stratified_split(kinds, 0.3, seed=7)
    assert first != stratified_split(kinds, 0.3, seed=8)
    train, test = first
    assert sorted(train + test) == list(range(len(TRACES))) and not set(train) & set(test)
    for kind in ("loop", "healthy"):
        members = [k for k, v in enumerate(kinds) if v == kind]
        assert sum(1 for k in test if kinds[k] == kind) == round(len(members) * 0.3)
    folds = stratified_folds(kinds, 3, seed=1)
    assert sorted(sum(folds, [])) == list(range(len(TRACES))) and folds == stratified_folds(kinds, 3, seed=1)


def test_holdout_and_folds_report_the_choice_on_traces_it_was_not_made_on(cli):
    data = sweep_json(cli, "--preset", "default,seeds,openhands", "--holdout", "0.3", "--seed", "3", str(SAMPLES))
    validation = data["validation"]
    assert validation["kind"] == "holdout" and validation["train"] + validation["test"] == 33
    assert data["traces"] == validation["train"] and validation["best_on_test"]["traces"] == validation["test"]
    again = sweep_json(cli, "--preset", "default,seeds,openhands", "--holdout", "0.3", "--seed", "3", str(SAMPLES))
    assert again["validation"] == validation
    folds = sweep_json(cli, "--preset", "default,seeds", "--folds", "3", str(SAMPLES))["validation"]
    assert [f["fold"] for f in folds["per_fold"]] == [1, 2, 3] and sum(f["traces"] for f in folds["per_fold"]) == 33
    assert cli("sweep", "--preset", "default", "--holdout", "0.3", "--folds", "3", str(SAMPLES)).exit_code == 2


# --- output --------------------------------------------------------------------------


def test_terminal_csv_and_markdown_show_the_same_ranking(cli):
    args = ("--grid", "P001.containment=0.5:0.95:0.05", "--tokenizer", "char,jieba", "--metric", "containment,jaccard", str(SAMPLES))
    terminal = cli("sweep", *args).stdout
    assert "40 settings on 33 traces, sorted by tokens_saved" in terminal
    # Seed 000: at 0.8 Jaccard never catches the weather loop, containment does.
    assert "P001.metric  seed000_weather_loop (loop)  containment: r3 · jaccard: -  at P001.containment=0.8 P001.tokenizer=char" in terminal
    assert "[tool.tracecheck.guards.P001]" in terminal and "verdict: " in terminal
    csv_lines = cli("sweep", "--format", "csv", *args).stdout.splitlines()
    assert csv_lines[0].startswith("number,P001.containment,P001.tokenizer,P001.metric,traces_stopped")
    assert len(csv_lines) == 41
    markdown = cli("sweep", "--format", "markdown", *args).stdout
    assert markdown.count("\n| ") == 41 and "**Verdict:**" in markdown


def test_markdown_writes_the_figures_as_the_terminal_does(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    args = ("--grid", "P001.containment=0.6,0.8,0.95", "--holdout", "0.3", str(SAMPLES))
    terminal = cli("sweep", *args).stdout
    markdown = cli("sweep", "--format", "markdown", *args).stdout
    # The samples are graded: the terminal leads with the tokens saved on failed runs and
    # at risk, then all of them; Markdown has the same columns after the stops.
    table = [line for line in terminal.splitlines() if line[:1] in (">", " ") and line[3:4].isdigit() and len(line[3:].split()) == 8]
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and line.split(" | ")[1][:1].isdigit()]
    assert len(table) == len(rows) == 3
    for shown, row in zip(table, rows):
        value, stops, failed, at_risk, tokens, harm, recall, precision = shown[3:].split()
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == value and cells[2] == stops and (cells[3], cells[4]) == (failed, at_risk)
        assert cells[6].startswith(f"{tokens} (") and cells[6].endswith("%)")
        assert (cells[8], cells[12], cells[13]) == (harm, recall, precision)  # 0.03, 1.00: two decimals in both
        assert cells[7].endswith("%)") and re.fullmatch(r"[\d,]+\.\ds \(\d+%\)", cells[7])  # time: one decimal
    assert "cut ok" not in markdown and "| harmed |" in markdown
    for words in ("current settings: ", "verdict: ", "holdout: chosen on "):
        line = next(line for line in terminal.splitlines() if line.lower().startswith(words))
        assert line.split(": ", 1)[1] in markdown.replace("**Verdict:** ", "Verdict: ")


def test_the_written_config_keeps_the_rest_of_the_file_and_replays_as_the_sweep_chose(tmp_path, cli, monkeypatch):
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "agent"  # keep me\n\n[tool.tracecheck]\nignore = ["T002"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    chosen = json.loads(cli("sweep", "--format", "json", "--grid", "P004.threshold=2,5", "--constraint", "harm<=0.3", str(SAMPLES)).stdout)
    assert chosen["recommendation"]["change"] is True
    result = cli("sweep", "--grid", "P004.threshold=2,5", "--constraint", "harm<=0.3", "--write-config", str(project), str(SAMPLES))
    assert result.exit_code == 0, result.stderr
    text = project.read_text(encoding="utf-8")
    assert 'name = "agent"  # keep me' in text and 'ignore = ["T002"]' in text
    assert "[tool.tracecheck.guards.P004]" in text
    threshold = chosen["config"]["guards"]["P004"]["threshold"]
    replayed = json.loads(cli("replay", "--format", "json", str(SAMPLES)).stdout)
    p004 = next(g for g in replayed["guards"] if g["code"] == "P004")
    assert p004["options"]["threshold"] == threshold and "T002" not in {g["code"] for g in replayed["guards"]}
    best = next(p for p in chosen["points"] if p["best"])
    assert replayed["totals"]["saved"]["tokens"] == best["metrics"]["saved"]["tokens"]


def test_write_config_never_writes_over_an_input(tmp_path, cli):
    trace = tmp_path / "run.jsonl"
    trace.write_bytes((SAMPLES / "seed004_query_db_identical.jsonl").read_bytes())
    result = cli("sweep", "--grid", "P004.threshold=2,3", "--write-config", str(trace), str(trace))
    assert result.exit_code == 2 and trace.read_bytes() == (SAMPLES / "seed004_query_db_identical.jsonl").read_bytes()


def test_a_grid_from_the_config_file(tmp_path, cli, monkeypatch):
    (tmp_path / "tracecheck.toml").write_text('[sweep]\npreset = ["default", "openhands"]\n[sweep.grid]\n"P004.threshold" = [3, 4]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    data = sweep_json(cli, str(SAMPLES))
    assert [d["key"] for d in data["dimensions"]] == ["preset", "P004.threshold"] and len(data["points"]) == 4


def test_jobs_give_the_same_result_as_one_process(cli):
    args = ("--grid", "P001.containment=0.6,0.9", "--preset", "default,seeds", str(SAMPLES))
    assert sweep_json(cli, *args)["points"] == sweep_json(cli, "--jobs", "2", *args)["points"]


def test_reading_one_trace_at_a_time_keeps_no_trace_and_gives_the_sweep_of_traces_in_memory():
    # Issue 24: a sweep in flat memory. Each trace is replayed under every setting as it
    # is read and only its features are kept; the result is the in-memory sweep's.
    import gc

    from tracecheck.model import Trace

    points = _points("P001.containment=0.6,0.9", "R003.laps=2,3", presets="default,seeds")
    baseline = load_settings(cwd=ROOT)
    gc.collect()
    alive = sum(1 for o in gc.get_objects() if isinstance(o, Trace))
    features = read_features([str(SAMPLES)], settings_of(points, baseline))
    gc.collect()
    assert sum(1 for o in gc.get_objects() if isinstance(o, Trace)) == alive  # no trace outlives its replay
    assert [f.id for f in features] == [t.id for t in TRACES]
    streamed = sweep_features(features, points, baseline=baseline, holdout=0.3)
    in_memory = sweep(TRACES, points, baseline=baseline, holdout=0.3)
    assert streamed.rows == in_memory.rows and streamed.best == in_memory.best and streamed.validation == in_memory.validation
    assert streamed.disagreements == in_memory.disagreements and streamed.baseline == in_memory.baseline
    # Equal outcomes are one object: what is kept does not grow with repeated traces.
    assert len({id(o) for f in features for o in f.outcomes}) == len({repr(o) for f in features for o in f.outcomes})


def test_a_labels_sidecar_gives_foreign_traces_the_labels_recall_is_measured_on(tmp_path, cli):
    # An OpenAI log has no place for labels: the sidecar says it is a loop to stop by round 3.
    log = SAMPLES / "openai" / "seed004_query_db_identical.jsonl"
    without = sweep_json(cli, "--preset", "default,gemini-cli", str(log))
    assert [p["metrics"]["loops"] for p in without["points"]] == [0, 0]
    trace_id = json.loads(cli("replay", "--format", "json", str(log)).stdout)["traces"][0]["id"]
    sidecar = tmp_path / "labels.csv"
    sidecar.write_text(f"trace,outcome,expect.policy,expect.policy.by_round\n{trace_id},failure,fires,3\n", encoding="utf-8")
    data = sweep_json(cli, "--preset", "default,gemini-cli", "--labels", str(sidecar), str(log))
    recall = {p["values"]["preset"]: p["metrics"]["recall"] for p in data["points"]}
    assert recall == {"default": 1.0, "gemini-cli": 0.0}  # Gemini CLI fires on the 5th call


def test_the_written_config_replays_to_the_winning_row_whatever_the_file_selected(tmp_path, cli, monkeypatch):
    project = tmp_path / "pyproject.toml"
    project.write_text('[tool.tracecheck]\nselect = ["P", "R001"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ("--preset", "roo,seeds", "--grid", "P001.containment=0.5,0.8", "--constraint", "harm<=1", str(SAMPLES))
    chosen = sweep_json(cli, *args)
    assert chosen["recommendation"]["change"] is True
    assert cli("sweep", *args, "--write-config", str(project)).exit_code == 0
    best = next(p for p in chosen["points"] if p["best"])
    replayed = json.loads(cli("replay", "--format", "json", str(SAMPLES)).stdout)["totals"]
    assert (replayed["saved"]["tokens"], replayed["traces_stopped"]) == (best["metrics"]["saved"]["tokens"], best["metrics"]["traces_stopped"])
    # A winner that saves less than what runs now is no recommendation: the file is left as it is.
    project.write_text("[tool.tracecheck]\n", encoding="utf-8")
    roo = ("--preset", "roo", "--grid", "P001.containment=0.5,0.8", str(SAMPLES))
    kept = sweep_json(cli, *roo)
    assert kept["recommendation"]["change"] is False and kept["toml"] is None
    assert kept["verdict"].startswith("no grid point does better on tokens_saved than the current settings")
    written = cli("sweep", *roo, "--write-config", str(project))
    assert written.exit_code == 0 and "left as it is" in written.stderr
    assert project.read_text(encoding="utf-8") == "[tool.tracecheck]\n"


def test_sweep_rejects_what_it_would_otherwise_quietly_misread(cli, tmp_path):
    assert "needs a step" in cli("sweep", "--grid", "P001.containment=0.5:0.6", str(SAMPLES)).stderr
    assert "there are only" in cli("sweep", "--preset", "default,seeds", "--folds", "100", str(SAMPLES)).stderr
    assert cli("sweep", "--preset", "default,seeds", "-o", str(tmp_path / "s.csv"), str(SAMPLES)).exit_code == 0
    assert (tmp_path / "s.csv").read_text().startswith("number,preset,")


def test_a_holdout_says_when_the_choice_does_worse_than_the_current_settings(cli):
    terminal = cli("sweep", "--preset", "ALL", "--holdout", "0.3", "--seed", "7", str(SAMPLES)).stdout
    data = sweep_json(cli, "--preset", "ALL", "--holdout", "0.3", "--seed", "7", str(SAMPLES))["validation"]
    worse = data["best_on_test"]["tokens_saved"] < data["baseline_on_test"]["tokens_saved"]
    assert ("the choice does worse than the current settings: keep them" in terminal) == worse


@pytest.mark.parametrize("columns", [70, 80, 200])
@pytest.mark.parametrize(
    "grid",
    [
        ("--grid", "P001.containment=0.6,0.8", "--holdout", "0.3"),
        # The README's example: three dimensions, and where one alone changes the outcome.
        ("--grid", "P001.containment=0.5,0.8", "--tokenizer", "char,jieba", "--metric", "containment,jaccard"),
    ],
)
def test_the_sweep_report_fits_the_terminal(cli, monkeypatch, columns, grid):
    from rich.cells import cell_len

    monkeypatch.setenv("COLUMNS", str(columns))
    text = cli("sweep", *grid, str(SAMPLES)).stdout
    assert "verdict: " in text and ("holdout: " in text or "Where one setting alone" in text)
    for line in text.splitlines():
        assert cell_len(line) <= columns and line == line.rstrip(), repr(line)
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    table = lines[rule + 1 : next(i for i, line in enumerate(lines) if line.startswith("> best"))]
    for line in table:  # the figures are whole: harm, recall and precision, to two decimals
        assert all(re.fullmatch(r"\d\.\d\d|-", word) for word in line.split()[-3:]), line


def test_the_chart_writes_its_savings_axis_as_the_table_does(cli, monkeypatch):
    pytest.importorskip("plotext")
    monkeypatch.setenv("COLUMNS", "80")
    text = cli("sweep", "--grid", "P001.containment=0.5,0.8", "--metric", "containment,jaccard", str(SAMPLES)).stdout
    labels = [line.split("┤")[0].strip() for line in text.splitlines() if "┤" in line]
    assert labels and all(re.fullmatch(r"\d{1,3}(,\d{3})+", label) for label in labels), labels
    best = next(line for line in text.splitlines() if line.startswith(">"))
    assert best.split()[-4] in labels  # the best row's tokens saved (all), as the table writes it, tops the axis


# -- recommendations: never a change that does not help ----------------------------


def test_a_gain_below_the_minimum_keeps_the_current_settings_and_writes_nothing(cli, tmp_path):
    # Seed 000's traces: containment 0.5 stops one loop a round earlier, 201 tokens of 24,730.
    traces = sorted(str(p) for p in SAMPLES.glob("seed000_*.jsonl"))
    args = ("--grid", "P001.containment=0.5,0.6,0.7", *traces)
    data = sweep_json(cli, *args)
    best = next(p for p in data["points"] if p["best"])
    gain = best["metrics"]["tokens_saved"] - data["baseline"]["tokens_saved"]
    assert 0 < gain < 1_000  # the best row is better, by crumbs
    assert data["recommendation"]["change"] is False and data["toml"] is None and data["config"] == {}
    assert data["verdict"] == (
        f"P001.containment=0.5 gains only {gain} on tokens_saved over the current settings, less than the "
        f"{data['recommendation']['minimum_gain']}: keep them"
    )
    config = tmp_path / "tracecheck.toml"
    config.write_text('preset = "default"\n', encoding="utf-8")
    written = cli("sweep", *args, "--write-config", str(config))
    assert written.exit_code == 0 and config.read_text(encoding="utf-8") == 'preset = "default"\n'
    assert "paste into" not in written.stdout


def test_identical_rows_are_a_tie_that_goes_to_the_current_settings(cli):
    # Three traces on which P001 never acts: every row is the same, and so are the current settings.
    traces = [str(SAMPLES / n) for n in ("healthy_pagination.jsonl", "healthy_fix_and_retest.jsonl", "seed001_tool_failure_streak.jsonl")]
    data = sweep_json(cli, "--grid", "P001.containment=0.6,0.8,0.9", *traces)
    assert len({json.dumps(p["metrics"], sort_keys=True) for p in data["points"]}) == 1
    assert data["recommendation"]["change"] is False and data["toml"] is None
    assert data["verdict"].endswith(": keep them")


def test_a_recommended_change_says_what_it_rests_on(cli):
    # A real gain (five more LLM calls saved) on thirteen traces, at the grid's lowest value.
    traces = sorted(str(p) for pattern in ("seed004_*.jsonl", "swe_*.jsonl", "tau_*.jsonl") for p in SAMPLES.glob(pattern))
    data = sweep_json(cli, "--grid", "P004.threshold=2,5", "--objective", "llm_calls_saved", *traces)
    assert data["recommendation"]["change"] is True and data["config"] == {"guards": {"P004": {"threshold": 2}}}
    assert data["recommendation"]["caveats"] == [
        "P004.threshold=2 is the lowest value in the grid: widen it below 2 before trusting the choice",
        f"it rests on {data['traces']} traces (fewer than 30): try it on more before trusting it",
    ]
    assert data["verdict"].endswith("; but " + "; ".join(data["recommendation"]["caveats"]))


def test_a_gain_the_folds_do_not_repeat_is_within_the_spread(cli):
    data = sweep_json(cli, "--grid", "P001.containment=0.5,0.8", "--folds", "3", str(SAMPLES))
    per_fold = data["validation"]["per_fold"]
    flat = sum(1 for f in per_fold if f["test"]["tokens_saved"] <= f["current_test"]["tokens_saved"])
    assert flat >= 1  # on some fold left out, the choice saves no more than what runs now
    assert f"in {flat} of 3 folds the choice did no better on tokens_saved than the current settings" in data["verdict"]


def test_a_loop_labelled_without_a_round_is_caught_wherever_it_is_stopped(tmp_path, cli):
    # A hand label may say "loop" and no stop_by: the sweep and its benchmark take any stop as caught.
    lines = (SAMPLES / "seed004_query_db_identical.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if json.loads(line)["type"] not in ("expect", "labels")]
    trace = json.loads(kept[0])["trace"]
    labelled = [kept[0], json.dumps({"type": "labels", "trace": trace, "labels": {"kind": "loop", "why": "polls forever"}}), *kept[1:]]
    path = tmp_path / "loop.jsonl"
    path.write_text("\n".join(labelled) + "\n", encoding="utf-8")
    data = sweep_json(cli, "--grid", "P004.threshold=3,4", str(path))
    assert {p["metrics"]["loops"] for p in data["points"]} == {1}
    assert {p["metrics"]["caught"] for p in data["points"]} == {1}
    assert [point["loops_stopped_in_time"] for point in data["benchmark"]["points"]] == [1, 1]


def test_a_list_option_is_a_grid_dimension(cli, tmp_path):
    # A list option's values are lists: the dimension, the disagreements and the edge caveats keyed
    # values by them ('internal error: TypeError: unhashable type: list' for P003.answer_indicators or
    # B005.limits). On seed 002's contract sample: with max_observations 0, the indicator 根据 stops the
    # run at round 6 (its result holds 根据 at character 1,539; no earlier one has it, none has "According to"),
    # and "According to" never does; with 3, round 3 (the third search result).
    sample = SAMPLES / "seed002_contract_search_token_limit.jsonl"
    config = tmp_path / "tracecheck.toml"
    result = cli(
        "sweep", "--format", "json", "--preset", "seed-002", "--grid", "P003.answer_indicators=根据,According to",
        "--grid", "P003.max_observations=0,3", "--write-config", str(config), str(sample),
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted({tuple(p["values"]["P003.answer_indicators"]) for p in report["points"]}) == [("According to",), ("根据",)]
    by_dimension = {d["dimension"]: d["first_round"] for d in report["disagreements"]}
    assert by_dimension["P003.answer_indicators"] == [[["根据"], 6], [["According to"], None]]
    assert by_dimension["P003.max_observations"] == [[0, None], [3, 3]]
    assert 'answer_indicators = ["根据"]' in config.read_text(encoding="utf-8")
    limits = cli("sweep", "--format", "json", "--preset", "patchcat", "--grid", "B005.limits=*exec*=5,*exec*=200", str(sample))
    assert limits.exit_code == 0, limits.stderr
