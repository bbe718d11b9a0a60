"""``tracecheck init`` as a new project gets it: what it writes passes ``check``, the
workflow and the hook it writes run ``check`` on it, it never writes over a file, and
every way of weakening a guard (or of cutting the healthy run) in the settings file it
wrote fails the gate with a finding naming the trace, the guard and the rounds."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
import yaml

LOOP, HEALTHY = "read_file_failure_streak", "read_file_recovers"


@pytest.fixture
def project(cli, tmp_path, monkeypatch):
    """A folder after ``tracecheck init``, as the working directory."""
    monkeypatch.chdir(tmp_path)
    result = cli("init")
    assert result.exit_code == 0, result.output
    return tmp_path


def test_init_writes_settings_regressions_workflow_and_hook(project, cli):
    written = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert written == [
        ".github/workflows/tracecheck.yml",
        ".pre-commit-config.yaml",
        f"regressions/{LOOP}.jsonl",
        f"regressions/{HEALTHY}.jsonl",
        "tracecheck.toml",
    ]
    settings = tomllib.loads((project / "tracecheck.toml").read_text(encoding="utf-8"))
    assert settings == {"preset": "default"}  # the rest is commented out, to uncomment
    result = cli("check", "regressions/", "-f", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert report["expectations"] == {"checked": 4, "met": 4, "not_checked": 0}
    assert report["traces"] == 2 and report["findings"] == []


def test_init_never_writes_over_a_file(project, cli):
    settings = project / "tracecheck.toml"
    settings.write_text('preset = "default"\nignore = ["T002"]\n', encoding="utf-8")
    (project / f"regressions/{LOOP}.jsonl").unlink()
    hook = project / ".pre-commit-config.yaml"
    hook.write_text("repos: []\n", encoding="utf-8")
    result = cli("init")
    assert result.exit_code == 0
    assert settings.read_text(encoding="utf-8") == 'preset = "default"\nignore = ["T002"]\n'
    assert hook.read_text(encoding="utf-8") == "repos: []\n"
    assert (project / f"regressions/{LOOP}.jsonl").is_file()  # only the missing one is written again
    lines = result.stdout.splitlines()
    assert "kept tracecheck.toml (exists: left alone)" in lines
    assert f"wrote regressions/{LOOP}.jsonl" in lines
    # The hook is not in the existing pre-commit file: init says what to add to it.
    assert "kept .pre-commit-config.yaml (exists: left alone)" in lines
    assert "- id: tracecheck-check" in [line.strip() for line in lines]


def test_init_puts_the_settings_in_pyproject_when_asked(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "agent"\n', encoding="utf-8")
    assert cli("init", "--pyproject", "--source", "acme/tracecheck@v1.2").exit_code == 0
    assert not (tmp_path / "tracecheck.toml").exists()
    data = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"] == {"name": "agent"} and data["tool"]["tracecheck"] == {"preset": "default"}
    # The section is the one check reads: weakening F001 there fails the gate.
    with (tmp_path / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("[tool.tracecheck.guards.F001]\nthreshold = 4\n")
    assert cli("check", "regressions/").exit_code == 1
    workflow = yaml.safe_load((tmp_path / ".github/workflows/tracecheck.yml").read_text(encoding="utf-8"))
    assert [s.get("uses") for s in workflow["jobs"]["check"]["steps"]] == ["actions/checkout@v4", "acme/tracecheck@v1.2"]
    (repo,) = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"]
    assert (repo["repo"], repo["rev"]) == ("https://github.com/acme/tracecheck", "v1.2")
    # A second section would shadow or be shadowed: init leaves the settings alone.
    again = cli("init", "--pyproject")
    assert "kept pyproject.toml (has a [tool.tracecheck] section already: left alone)" in again.stdout


def test_a_bad_source_is_a_usage_error(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("init", "--source", "acme/tracecheck")
    assert result.exit_code == 2 and "expected OWNER/NAME@REF" in result.stderr
    assert not list(tmp_path.iterdir())


# Each change to the settings file init wrote that weakens a guard or cuts the healthy
# run, with the failing findings (trace, rule, deviation) it must give.
MUTATIONS = {
    # Without F001 nothing stops the loop: F003 takes a different path not found each time
    # for looking (by_target), and only hints.
    "F001 off (ignore)": ('ignore = ["F001"]\n', {(LOOP, "F001", "unchecked"), (HEALTHY, "F001", "unchecked"), (LOOP, "policy", "never")}),
    "F001 off (enabled)": ("[guards.F001]\nenabled = false\n", {(LOOP, "F001", "unchecked"), (HEALTHY, "F001", "unchecked"), (LOOP, "policy", "never")}),
    "F001 threshold raised by one": ("[guards.F001]\nthreshold = 4\n", {(LOOP, "F001", "late"), (LOOP, "policy", "late")}),
    "F001 threshold raised past the loop": ("[guards.F001]\nthreshold = 9\n", {(LOOP, "F001", "never"), (LOOP, "policy", "never")}),
    "failing tool exempted": ('[guards.F001]\nexempt_tools = ["read_*"]\n', {(LOOP, "F001", "never"), (LOOP, "policy", "never")}),
    "everything off": ('select = ["B001"]\n', {(LOOP, "F001", "unchecked"), (HEALTHY, "F001", "unchecked"), (LOOP, "policy", "never")}),
    # The healthy run is labelled a success too: its stop is harm as well as a broken expectation.
    "F001 threshold lowered": ("[guards.F001]\nthreshold = 2\n", {(HEALTHY, "F001", "acted"), (HEALTHY, "policy", "acted"), (HEALTHY, "policy", "cut")}),
    "F003 threshold lowered": ("[guards.F003]\nthreshold = 2\nby_target = false\n", {(HEALTHY, "policy", "acted"), (HEALTHY, "policy", "cut")}),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_every_weakening_of_the_settings_fails_the_gate(project, cli, mutation):
    baseline = project / "tracecheck-baseline.json"
    assert cli("baseline", "write", "regressions/", "-o", str(baseline)).exit_code == 0
    assert cli("check", "regressions/", "--baseline", str(baseline)).exit_code == 0
    change, expected = MUTATIONS[mutation]
    with (project / "tracecheck.toml").open("a", encoding="utf-8") as handle:
        handle.write(change)
    result = cli("check", "regressions/", "--baseline", str(baseline), "-f", "json")
    assert result.exit_code == 1, result.stdout
    failing = [f for f in json.loads(result.stdout)["findings"] if f["failing"]]
    assert {(f["trace"], f["rule"], f["deviation"]) for f in failing} == expected
    for finding in failing:
        # The rounds: what was expected and what happened, in the message a person reads too.
        if finding["trace"] == LOOP and finding["deviation"] in ("late", "never", "unchecked"):
            assert finding["expected_round"] == 3 and "by round 3" in finding["message"]
        if finding["trace"] == HEALTHY and finding["kind"] == "expectation":
            assert finding["expected_round"] is None and "should stay quiet" in finding["message"]
        if finding["kind"] == "harm":
            assert finding["deviation"] == "cut" and f"a run labelled a success at round {finding['round']} " in finding["message"]
        elif finding["deviation"] in ("late", "acted"):
            assert finding["round"] is not None and re.search(rf"at round {finding['round']}\b", finding["message"])
        else:
            assert finding["round"] is None


def test_the_workflow_init_writes_runs_the_action_on_regressions(project):
    from test_ci_integration import run_action

    workflow = yaml.safe_load((project / ".github/workflows/tracecheck.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in workflow["jobs"]["check"]["steps"] if s.get("uses", "").endswith("/tracecheck@REF")]
    assert workflow["permissions"]["security-events"] == "write"  # the action uploads SARIF
    inputs = {key.replace("-", "_"): value for key, value in step["with"].items()}
    codes, outputs, _ = run_action(project, **inputs)
    assert codes == {"check": 0, "verdict": 0}, outputs
    assert outputs["stdout"].splitlines()[-1] == "tracecheck: 2 traces · 4 of 4 expectations hold · 0 failing findings · passed"
    with (project / "tracecheck.toml").open("a", encoding="utf-8") as handle:
        handle.write("[guards.F001]\nthreshold = 2\n")
    codes, outputs, _ = run_action(project, **inputs)
    assert codes["verdict"] == 1 and outputs["stdout"].startswith(f"::error file=regressions/{HEALTHY}.jsonl,line=")


def test_the_hook_init_writes_checks_the_regressions_it_matches(project):
    import subprocess

    from test_ci_integration import _env, hook

    (repo,) = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"]
    (configured,) = repo["hooks"]
    assert configured["id"] == hook()["id"]
    pattern = re.compile(configured["files"])
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    matched = [f for f in files if pattern.search(f) and re.search(hook()["files"], f)]
    assert matched == [f"regressions/{LOOP}.jsonl", f"regressions/{HEALTHY}.jsonl"]
    ran = subprocess.run(hook()["entry"].split() + matched, cwd=project, env=_env(), capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
