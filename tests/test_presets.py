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
    assert _stops(cli, str(DRIFT)) == [("R001", 3, "before_tools")]  # canonical JSON, the default
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
    assert [g["code"] for g in json.loads(cli("replay", "--format", "json", str(IDENTICAL)).stdout)["guards"]] == [
        "P001", "P002", "P003", "R001", "R002", "F001", "E001"
    ]
