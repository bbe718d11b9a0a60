"""The ``default`` preset: it stops every labelled loop by the round its sample asks, no
labelled healthy run, none of the loop-free real runs in ``tests/corpus/`` and at most
one in a hundred of the successful τ²-bench dialogues; and every other preset gets at
least one of those cases wrong that ``default`` gets right (the README's table)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES
from tracecheck.config import load_settings
from tracecheck.engine.batch import replay_paths
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.presets import PRESETS
from tracecheck.readers.load import read_traces

sys.path.insert(0, str(ROOT / "scripts"))
import preset_table  # noqa: E402  (the script that writes the README's table)

POLICY_LABELLED = [t for t in read_traces([str(SAMPLES)], Diagnostics()) if any(e.guard == "policy" for e in t.expectations)]


@pytest.fixture(scope="module")
def default_report():
    report = replay_paths([str(SAMPLES)], load_settings(preset="default", cwd=ROOT))
    return {r.trace.id: r for r in report.results}


def test_the_samples_label_loops_and_healthy_runs_of_every_kind():
    expected = [next(e for e in t.expectations if e.guard == "policy") for t in POLICY_LABELLED]
    assert sum(e.fires for e in expected) >= 15 and sum(not e.fires for e in expected) >= 10


@pytest.mark.parametrize("trace", POLICY_LABELLED, ids=lambda t: t.id)
def test_default_stops_each_labelled_loop_in_time_and_no_healthy_run(trace, default_report):
    result = default_report[trace.id]
    (checked,) = [e for e in result.expectations if e.expectation.guard == "policy"]
    assert checked.met, checked.message
    # A stop the label asks for must not feed the model stale data on the way.
    assert result.policy.stale_blocks == 0


@pytest.mark.parametrize("path", preset_table.CORPUS_HEALTHY, ids=lambda p: Path(p).parent.name + "/" + Path(p).name)
def test_default_leaves_the_loop_free_real_runs_alone(path, cli):
    report = json.loads(cli("replay", "--format", "json", str(ROOT / path)).stdout)
    assert report["preset"] == "default"
    for trace in report["traces"]:
        assert trace["policy"]["stops"] == [] and trace["policy"]["stale_blocks"] == 0, trace["id"]


def test_default_stops_at_most_one_in_a_hundred_successful_tau2_dialogues():
    report = replay_paths([str(ROOT / preset_table.TAU)], load_settings(preset="default", cwd=ROOT))
    success = [r for r in report.results if r.trace.outcome == "success"]
    assert len(success) >= 45  # both domains: 12 telecom + 37 airline
    stopped = [r.trace.id for r in success if r.policy.stops]
    assert len(stopped) * 100 <= len(success), stopped


def test_every_other_preset_gets_a_case_wrong_that_default_gets_right():
    rows = preset_table.rows()
    assert rows, "no labelled cases"
    for name in PRESETS:
        if name == "default":
            continue
        assert any(row.right["default"] and row.right[name] is False for row in rows), name
    assert all(row.right["default"] is not False for row in rows)


def test_the_readme_table_is_what_the_presets_do_today():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "preset_table.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_readme_first_command_breaks_no_expectation(cli):
    # `tracecheck replay sample_traces/` (nothing chosen: the default preset) is what a new user runs first.
    totals = json.loads(cli("replay", "--format", "json", str(SAMPLES)).stdout)["totals"]
    assert totals["expectations_broken"] == 0 and totals["traces_stopped"] >= 16
