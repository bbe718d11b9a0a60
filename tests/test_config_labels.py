"""``labels = "PATH"`` in ``[tool.tracecheck]`` / ``tracecheck.toml``: the labels file every
command that reads traces uses without ``--labels``, resolved against the config file,
through the CLI. The pre-commit hook's own test is in test_ci_integration.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLES

TRACE = "seed004_query_db_identical"  # the default policy stops its identical query at round 3
# A hand label that a run without the labels file cannot know: a loop to stop by round 2
# (the policy is late: check fails), scored as a loop by sweep, graded a failure.
LATE = {"trace": TRACE, "outcome": "failure", "kind": "loop", "stop_by": 4, "why": "the same empty query", "expect": [{"guard": "policy", "by_round": 2}]}
IN_TIME = {"trace": TRACE, "expect": [{"guard": "policy", "by_round": 4}]}


def _labels(path: Path, *entries: dict) -> Path:
    path.write_text(json.dumps({"version": 1, "traces": list(entries)}), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository: pyproject.toml naming regressions/labels.json, a trace without labels
    or expectations, and the commands run from a folder below it (as a hook may)."""
    root = tmp_path / "project"
    regressions = root / "regressions"
    regressions.mkdir(parents=True)
    kept = [line for line in (SAMPLES / f"{TRACE}.jsonl").read_text(encoding="utf-8").splitlines() if json.loads(line)["type"] not in ("expect", "labels")]
    (regressions / "loop.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    _labels(regressions / "labels.json", LATE)
    (root / "pyproject.toml").write_text('[project]\nname = "agent"\n\n[tool.tracecheck]\nlabels = "regressions/labels.json"\n', encoding="utf-8")
    (root / "docs").mkdir()
    monkeypatch.chdir(root / "docs")
    return root


def test_check_reads_the_configured_labels_from_a_folder_below_the_config(cli, project):
    result = cli("check", "../regressions")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "the policy should intervene by round 2; it first did at round 3" in result.stdout
    assert result.stderr == f"labels: {project / 'regressions' / 'labels.json'} (from {project / 'pyproject.toml'})\n"
    report = json.loads(cli("check", "-f", "json", "../regressions").stdout)
    assert report["labels"] == str(project / "regressions" / "labels.json")
    # Without it the trace holds nothing to check.
    bare = cli("check", "--no-labels", "-f", "json", "../regressions")
    assert bare.exit_code == 5 and bare.stderr == "" and json.loads(bare.stdout)["labels"] is None


def test_labels_on_the_command_line_win_over_the_config(cli, project):
    in_time = _labels(project / "in_time.json", IN_TIME)
    result = cli("check", "--labels", str(in_time), "../regressions")
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == "passed"
    assert "labels:" not in result.stderr  # the file given is the one used: nothing to say
    # Even when the configured file is missing, a --labels file replaces it.
    (project / "regressions" / "labels.json").unlink()
    assert cli("check", "--labels", str(in_time), "../regressions").exit_code == 0
    assert "--labels and --no-labels" in cli("check", "--labels", str(in_time), "--no-labels", "../regressions").stderr


def test_replay_show_and_sweep_use_the_configured_labels(cli, project):
    report = json.loads(cli("replay", "-f", "json", "../regressions").stdout)
    (trace,) = report["traces"]
    assert trace["labels"]["outcome"] == "failure" and [(e["by_round"], e["met"]) for e in trace["expectations"]] == [(2, False)]
    shown = cli("show", "--no-guards", "../regressions")
    assert shown.exit_code == 0 and "outcome=failure" in shown.stdout.splitlines()[1]
    swept = json.loads(cli("sweep", "--preset", "default", "-f", "json", "../regressions").stdout)
    (point,) = swept["benchmark"]["points"]
    assert (point["runs"], point["loops"], point["loops_stopped_in_time"]) == (1, 1, 1)
    assert json.loads(cli("sweep", "--preset", "default", "-f", "json", "--no-labels", "../regressions").stdout)["benchmark"] is None


def test_baseline_write_and_prune_use_the_configured_labels(cli, project):
    baseline = project / "baseline.json"
    written = cli("baseline", "write", "../regressions", "-o", str(baseline))
    assert "wrote 1 finding(s)" in written.stderr
    assert cli("check", "--baseline", str(baseline), "../regressions").exit_code == 0
    # The labelled expectation's finding is still there: prune keeps its entry.
    assert f"{baseline}: removed 0 fixed entries, kept 1" in cli("baseline", "prune", str(baseline), "../regressions").stderr


def test_a_config_file_given_with_config_brings_its_labels_relative_to_itself(cli, project, tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    _labels(team / "labels.json", LATE)
    (team / "tracecheck.toml").write_text('labels = "labels.json"\n', encoding="utf-8")
    (project / "regressions" / "labels.json").unlink()  # the nearest config's file is not read
    result = cli("check", "--config", str(team / "tracecheck.toml"), "../regressions")
    assert result.exit_code == 1 and f"labels: {team / 'labels.json'}" in result.stderr


def test_a_configured_labels_file_that_is_missing_or_not_a_path_is_an_error(cli, project):
    (project / "regressions" / "labels.json").unlink()
    for command in (("check",), ("replay",), ("show",), ("label",), ("sweep", "--preset", "default"), ("baseline", "write", "-o", "b.json")):
        result = cli(*command, "../regressions")
        assert result.exit_code == 2, command
        assert result.stderr == f"error: {project / 'pyproject.toml'}: labels = 'regressions/labels.json': no labels file at {project / 'regressions' / 'labels.json'}\n"
    assert cli("check", "--no-labels", "../regressions").exit_code == 5
    (project / "pyproject.toml").write_text("[tool.tracecheck]\nlabels = 3\n", encoding="utf-8")
    result = cli("check", "../regressions")
    assert result.exit_code == 2 and "pyproject.toml: 'labels' must be the path of a labels file (a string), not 3" in result.stderr


def test_label_starts_from_the_configured_labels_and_never_writes_over_them(cli, project):
    result = cli("label", "../regressions")
    (entry,) = json.loads(result.stdout)["traces"]
    assert (entry["outcome"], entry["kind"], entry["stop_by"], entry["expect"][0]["by_round"]) == ("failure", "loop", 4, 2)
    blank = json.loads(cli("label", "--no-labels", "../regressions").stdout)["traces"][0]
    assert (blank["outcome"], blank["expect"]) == (None, [])
    labels = project / "regressions" / "labels.json"
    before = labels.read_bytes()
    refused = cli("label", "../regressions", "-o", str(labels))
    assert refused.exit_code == 2 and "is also an input" in refused.stderr and labels.read_bytes() == before
