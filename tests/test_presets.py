"""Presets: named bundles of guards and options that replay a trace as a system would."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from tracecheck.config import load_settings
from tracecheck.presets import PRESETS

DRIFT = SAMPLES / "seed004_key_order_drift.jsonl"
WEATHER = SAMPLES / "seed000_weather_loop.jsonl"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_valid_and_selects_exactly_its_guards(name):
    settings = load_settings(preset=name, cwd=SAMPLES)
    preset = PRESETS[name]
    assert settings.selected == set(preset.guards)
    for code, options in preset.guards.items():
        for option, value in options.items():
            assert getattr(settings.options[code], option) == value


def _stops(cli, *args) -> list[tuple]:
    result = cli("replay", "--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return [(s["code"], s["round"], s["phase"]) for s in json.loads(result.stdout)["traces"][0]["policy"]["stops"]]


def test_patchcat_compares_raw_argument_text_and_misses_key_order_drift(cli):
    # Seed 004: PatchCat's signature is the arguments string as written; reordered keys escape it.
    assert _stops(cli, "--preset", "patchcat", str(DRIFT)) == []
    assert _stops(cli, "--preset", "seeds", str(DRIFT)) == [("R001", 3, "before_tools")]  # canonical JSON, R001's default
    assert _stops(cli, "--preset", "patchcat", "--set", "R001.canonical_args=true", str(DRIFT)) == [("R001", 3, "before_tools")]


def test_seed_000_stops_the_weather_loop_before_round_3_tools(cli):
    assert _stops(cli, "--preset", "seed-000", str(WEATHER)) == [("P001", 3, "before_tools")]
    report = json.loads(cli("replay", "--format", "json", "--preset", "seed-000", str(WEATHER)).stdout)
    assert report["preset"] == "seed-000" and [g["code"] for g in report["guards"]] == ["P001"]


def test_a_config_file_starts_from_a_preset_and_changes_it(tmp_path, cli, monkeypatch):
    (tmp_path / "tracecheck.toml").write_text('preset = "patchcat"\n[guards.R001]\ncanonical_args = true\n')
    monkeypatch.chdir(tmp_path)
    assert _stops(cli, str(DRIFT)) == [("R001", 3, "before_tools")]
    (tmp_path / "tracecheck.toml").write_text('preset = "patchcat"\n')
    assert _stops(cli, str(DRIFT)) == []
    assert _stops(cli, "--preset", "seed-000", str(DRIFT)) == []  # the command line's preset wins


def test_presets_are_listed_and_explained_and_a_wrong_name_is_a_usage_error(cli):
    listing = cli("presets").stdout
    assert all(name in listing for name in PRESETS)
    explained = cli("preset", "loopagent").stdout
    assert "source: seed 001" in explained and "R002 repeated-call-cache: canonical_args = false" in explained
    for args in (("preset", "gemini"), ("replay", "--preset", "gemini", str(WEATHER))):
        result = cli(*args)
        assert result.exit_code == 2 and "unknown preset 'gemini'" in result.stderr and "patchcat" in result.stderr


IDENTICAL = SAMPLES / "seed004_query_db_identical.jsonl"  # query_db -> [] five times
ALTERNATING = SAMPLES / "alternating_ab_loop.jsonl"  # open_page, scroll_down: 4 laps of 2 calls
POLLING = SAMPLES / "seed004_report_polling.jsonl"  # a poll whose status changes


@pytest.mark.parametrize(
    ("preset", "identical", "alternating"),
    [
        # OpenHands: 4 equal action/observation pairs, stuck once the 4th observation is in;
        # the A-B pattern after 3 laps, once the 6th observation is in too (peers.md §1.2).
        ("openhands", [("P004", 4, "after_tools")], [("R003", 6, "after_tools")]),
        # Gemini CLI: an identical call fires on the 5th; an A-B alternation only on the 10th
        # call, which this 8-call loop never reaches.
        ("gemini-cli", [("R003", 5, "before_tools")], []),
    ],
)
def test_agent_presets_stop_where_their_detectors_do_and_spare_a_changing_poll(preset, identical, alternating, cli):
    assert _stops(cli, "--preset", preset, str(IDENTICAL)) == identical
    assert _stops(cli, "--preset", preset, str(ALTERNATING)) == alternating
    assert _stops(cli, "--preset", preset, str(POLLING)) == []


def test_a_preset_runs_guards_that_are_off_by_default(cli):
    report = json.loads(cli("replay", "--format", "json", "--preset", "gemini-cli", str(IDENTICAL)).stdout)
    assert [g["code"] for g in report["guards"]] == ["R003", "T002"]
    assert [g["code"] for g in json.loads(cli("replay", "--format", "json", "--preset", "seeds", str(IDENTICAL)).stdout)["guards"]] == [
        "P001", "P002", "P003", "R001", "R002", "F001", "E001"
    ]


def test_the_default_preset_runs_when_nothing_is_chosen(cli):
    report = json.loads(cli("replay", "--format", "json", str(IDENTICAL)).stdout)
    assert report["preset"] == "default"
    assert [g["code"] for g in report["guards"]] == [
        g["code"] for g in json.loads(cli("replay", "--format", "json", "--preset", "default", str(IDENTICAL)).stdout)["guards"]
    ]
    # Budgets are in the preset but off until given one.
    assert not {"B001", "B002", "B003", "B004"} & {g["code"] for g in report["guards"]}
    budget = json.loads(cli("replay", "--format", "json", "--set", "B001.max_rounds=2", "--set", "B001.final_window=0", str(IDENTICAL)).stdout)
    assert [(s["code"], s["round"]) for s in budget["traces"][0]["policy"]["stops"]] == [("B001", 3)]


def test_presets_side_by_side_equal_their_own_replays_and_validate_against_the_schema(cli):
    import jsonschema

    names = ["openhands", "gemini-cli", "patchcat"]
    result = cli("replay", "--format", "json", "--preset", ",".join(names), str(SAMPLES))
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, json.loads(cli("schema", "report").stdout))
    assert report["presets"] == names and report["preset"] == "openhands"
    for name in names:
        alone = json.loads(cli("replay", "--format", "json", "--preset", name, str(SAMPLES)).stdout)
        by_id = {t["id"]: t["policy"] for t in alone["traces"]}
        assert {t["id"]: t["presets"][name]["policy"] for t in report["traces"]} == by_id
        assert report["totals"]["by_preset"][name]["saved"] == alone["totals"]["saved"]
        assert report["totals"]["by_preset"][name]["traces_stopped"] == sum(1 for p in by_id.values() if p["stops"])


def test_presets_side_by_side_in_the_terminal_and_in_markdown(cli):
    terminal = cli("replay", "--preset", "patchcat,gemini-cli", str(IDENTICAL)).stdout
    assert "patchcat    stop at round 3 before tools (R001)" in terminal
    assert "gemini-cli  stop at round 5 before tools (R003)" in terminal
    table = terminal[terminal.index("Presets side by side"):]
    assert [line.split()[:2] for line in table.splitlines() if line.startswith(("patchcat", "gemini-cli"))] == [
        ["patchcat", "1/1"], ["gemini-cli", "1/1"]
    ]
    markdown = cli("replay", "--format", "markdown", "--preset", "patchcat,gemini-cli", str(POLLING), str(IDENTICAL)).stdout
    assert "| trace | outcome | patchcat | gemini-cli |" in markdown
    assert "| patchcat | 1/2 | 0 |" in markdown
    shown = cli("show", "--preset", "patchcat,gemini-cli", str(IDENTICAL))
    assert shown.exit_code == 2 and "one preset at a time" in shown.stderr


def test_naming_a_guard_that_is_off_by_default_runs_it(cli):
    report = json.loads(cli("replay", "--format", "json", "--select", "R003,F002", str(ALTERNATING)).stdout)
    assert [g["code"] for g in report["guards"]] == ["R003", "F002"]
    assert [s["code"] for s in report["traces"][0]["policy"]["stops"]] == ["R003"]
    prefixed = json.loads(cli("replay", "--format", "json", "--preset", "seeds", "--select", "R", str(ALTERNATING)).stdout)
    assert [g["code"] for g in prefixed["guards"]] == ["R001", "R002"]  # a prefix takes only the guards that are on


def test_a_config_file_extends_a_preset_adding_guards_and_changing_options(tmp_path, cli, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tracecheck]\nextend-preset = "gemini-cli"\nselect = ["F002"]\n[tool.tracecheck.guards.R003]\nlaps = 3\n'
    )
    monkeypatch.chdir(tmp_path)
    report = json.loads(cli("replay", "--format", "json", str(ALTERNATING)).stdout)
    assert report["preset"] == "gemini-cli"
    assert {g["code"]: g["options"].get("laps") for g in report["guards"]} == {"R003": 3, "F002": None, "T002": None}
    # Three laps of the two-call block: gemini-cli alone needs five.
    assert [(s["code"], s["round"]) for s in report["traces"][0]["policy"]["stops"]] == [("R003", 6)]
    (tmp_path / "pyproject.toml").write_text('[tool.tracecheck]\nextend-preset = "gemini-cli"\npreset = "openhands"\n')
    both = cli("replay", str(ALTERNATING))
    assert both.exit_code == 2 and "either 'preset' or 'extend-preset'" in both.stderr


def test_a_config_file_customises_its_own_preset_and_leaves_the_others_as_defined(tmp_path, cli, monkeypatch):
    (tmp_path / "tracecheck.toml").write_text("[guards.P004]\nthreshold = 5\n", encoding="utf-8")  # tunes default
    monkeypatch.chdir(tmp_path)
    result = cli("replay", "--format", "json", "--preset", "openhands,default", str(IDENTICAL))
    assert "note: " in result.stderr and "openhands runs as the preset defines it" in result.stderr
    runs = json.loads(result.stdout)["traces"][0]["presets"]
    stops = {name: [(s["code"], s["round"]) for s in run["policy"]["stops"]] for name, run in runs.items()}
    # query_db -> [] five times: P004 tuned to 5 by the file; default's F003 stops the same empty answer at the 4th
    assert stops == {"openhands": [("P004", 4)], "default": [("F003", 4)]}


def test_set_on_a_guard_the_preset_does_not_run_adds_it(cli):
    report = json.loads(cli("replay", "--format", "json", "--preset", "openhands", "--set", "B001.max_rounds=2", "--set", "B001.final_window=0", str(IDENTICAL)).stdout)
    assert "B001" in [g["code"] for g in report["guards"]]
    assert report["traces"][0]["policy"]["stops"][0]["code"] == "B001"
    added = json.loads(cli("replay", "--format", "json", "--set", "R004.enabled=true", str(IDENTICAL)).stdout)
    assert "R004" in [g["code"] for g in added["guards"]]
    kept_out = json.loads(cli("replay", "--format", "json", "--set", "R001.enabled=false", str(IDENTICAL)).stdout)
    assert "R001" not in [g["code"] for g in kept_out["guards"]]


def test_preset_names_are_matched_in_any_case_once_and_an_empty_one_is_an_error(cli):
    single = json.loads(cli("replay", "--format", "json", "--preset", "openhands,OpenHands", str(IDENTICAL)).stdout)
    assert "presets" not in single and single["preset"] == "openhands"
    for empty in ("", ",", " "):
        result = cli("replay", "--preset", empty, str(IDENTICAL))
        assert result.exit_code == 2 and "no preset named" in result.stderr


def test_only_fires_with_several_presets_keeps_a_trace_any_of_them_acts_on(cli):
    report = json.loads(cli("replay", "--format", "json", "--only-fires", "--preset", "roo,default", str(SAMPLES)).stdout)
    kept = {t["id"] for t in report["traces"]}
    everything = json.loads(cli("replay", "--format", "json", "--preset", "roo,default", str(SAMPLES)).stdout)["traces"]
    assert kept == {t["id"] for t in everything if any(run["fires"] for run in t["presets"].values())}
    assert len(kept) > sum(1 for t in everything if t["presets"]["roo"]["fires"])
