"""The GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml) as
a user gets them: the action's shell steps run with their inputs substituted, the hook
through ``pre-commit try-repo`` and through its entry point."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, SAMPLES

ACTION = ROOT / "action.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
PASSING = ("seed000_weather_loop", "seed002_contract_search_token_limit", "healthy_pagination")
STRICTER = "--set P001.containment=0.95 --set P002.enabled=false"  # breaks the seed002 expectations


def _env(**extra: str) -> dict[str, str]:
    """The environment of a step: the tracecheck under test first on PATH, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "TRACECHECK_"))}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    return {**env, **extra}


@pytest.fixture
def traces(tmp_path):
    folder = tmp_path / "work" / "traces"
    folder.mkdir(parents=True)
    for name in PASSING:
        shutil.copy(SAMPLES / f"{name}.jsonl", folder)
    return folder


def action():
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_the_action_is_a_composite_that_installs_checks_uploads_and_fails():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert set(spec["inputs"]) >= {"paths", "args", "sarif-file", "python-version"}
    steps = spec["runs"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert uses[0] == "actions/setup-python@v5" and steps[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    (upload,) = [s for s in steps if s.get("uses") == "github/codeql-action/upload-sarif@v3"]
    assert upload["if"].startswith("always()") and upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    ids = [s.get("id") for s in steps]
    assert ids.index("install") < ids.index("check") < steps.index(upload) < ids.index("verdict")
    assert "${{ github.action_path }}" in steps[ids.index("install")]["env"].values()
    # No input is pasted into a script (that would let a value run shell code).
    assert not [s["run"] for s in steps if "run" in s and "${{" in s["run"]]
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)


def _expression(expr: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    expr = expr.strip()
    if expr == "github.action_path":
        return str(ROOT)
    if expr.startswith("inputs."):
        return inputs[expr.removeprefix("inputs.")]
    if expr.startswith("steps.check.outputs."):
        return outputs.get(expr.removeprefix("steps.check.outputs."), "")
    raise AssertionError(f"an expression the test does not know: {expr}")


def run_action(workdir: Path, **given: str) -> tuple[dict[str, int], dict[str, str], Path]:
    """Run the action's shell steps (but the install: tracecheck is installed already) in
    ``workdir`` as the runner would: inputs and expressions substituted into each step's
    env, ``$GITHUB_OUTPUT`` read back between steps. Returns each step's exit code, the
    check step's outputs and the step summary file."""
    spec = action()
    inputs = {name: str(given.get(name.replace("-", "_"), item.get("default", ""))) for name, item in spec["inputs"].items()}
    outputs: dict[str, str] = {}
    codes: dict[str, int] = {}
    summary = workdir / "step-summary.md"
    for step in spec["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        substituted = {k: re.sub(r"\$\{\{(.*?)\}\}", lambda m: _expression(m.group(1), inputs, outputs), str(v)) for k, v in step.get("env", {}).items()}
        output_file = workdir / f"output-{step['id']}"
        output_file.write_text("", encoding="utf-8")
        env = _env(**substituted, GITHUB_OUTPUT=str(output_file), GITHUB_STEP_SUMMARY=str(summary))
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
        codes[step["id"]] = done.returncode
        for line in output_file.read_text(encoding="utf-8").splitlines():
            name, _, value = line.partition("=")
            outputs[name] = value
        if step["id"] == "check":
            outputs["stdout"], outputs["stderr"] = done.stdout, done.stderr
    return codes, outputs, summary


def test_the_action_passes_on_healthy_expectations_and_writes_sarif(traces):
    workdir = traces.parent
    codes, outputs, _ = run_action(workdir, paths="traces/", sarif_file="out/tracecheck.sarif")
    assert codes == {"check": 0, "verdict": 0}
    assert outputs["exit-code"] == "0"
    log = json.loads((workdir / "out" / "tracecheck.sarif").read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and log["runs"][0]["results"] == []
    assert outputs["stdout"].splitlines()[-1].endswith("· passed")


def test_the_action_fails_the_step_but_still_writes_sarif_when_the_gate_fails(traces):
    workdir = traces.parent
    codes, outputs, _ = run_action(workdir, paths="traces/", args=STRICTER)
    assert codes == {"check": 0, "verdict": 1}  # the check step passes, so the upload runs
    assert outputs["exit-code"] == "1"
    log = json.loads((workdir / "tracecheck.sarif").read_text(encoding="utf-8"))
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"P001", "policy"}
    assert outputs["stdout"].startswith("::error file=traces/seed002_contract_search_token_limit.jsonl,line=")


def test_the_action_reports_an_input_error_with_exit_code_2_and_no_sarif(tmp_path):
    codes, outputs, _ = run_action(tmp_path, paths="no-such-folder/")
    assert codes == {"check": 0, "verdict": 2} and outputs["exit-code"] == "2"
    assert not (tmp_path / "tracecheck.sarif").exists()


def test_an_input_cannot_run_shell_code(traces):
    workdir = traces.parent
    codes, outputs, _ = run_action(workdir, paths="traces/ $(touch pwned) ; touch pwned2")
    assert not (workdir / "pwned").exists() and not (workdir / "pwned2").exists()
    # The words are paths that do not exist (a usage error: exit 2), never commands.
    assert "$(touch: no such file or directory" in outputs["stderr"] and codes["verdict"] == 2  # the check step records 2, then passes it on


# -- pre-commit ---------------------------------------------------------------------


def hook():
    (only,) = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    return only


def test_the_hook_definition():
    spec = hook()
    assert (spec["id"], spec["language"], spec["entry"], spec["pass_filenames"]) == ("tracecheck-check", "python", "tracecheck check", True)
    files = re.compile(spec["files"])
    assert [bool(files.search(n)) for n in ("a/run.jsonl", "run.json", "x.traj", "notes.md", "run.jsonl.bak")] == [True, True, True, False, False]


def _entry(files: list[Path], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    command = hook()["entry"].split() + list(args) + [str(f) for f in files]
    return subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=120, cwd=cwd)


def test_the_hook_entry_with_file_names_passes_and_fails(traces):
    files = sorted(traces.iterdir())
    assert _entry(files).returncode == 0
    failed = _entry(files, *STRICTER.split())
    assert failed.returncode == 1 and "P001 should intervene by round 6" in failed.stdout
    assert _entry([traces / "missing.jsonl"]).returncode == 2


def test_the_hook_entry_reads_the_labels_file_the_repository_config_names(traces):
    # pre-commit runs the entry from the repository root with the staged files' paths:
    # the labels named in [tool.tracecheck] apply without --labels in the hook's args.
    project = traces.parent
    (project / "pyproject.toml").write_text('[tool.tracecheck]\nlabels = "labels/regressions.json"\n', encoding="utf-8")
    (project / "labels").mkdir()
    expect = [{"guard": "P001", "fires": False, "note": "this agent may rephrase"}]
    (project / "labels" / "regressions.json").write_text(json.dumps({"version": 1, "traces": [{"trace": "seed000_weather_loop", "expect": expect}]}), encoding="utf-8")
    failed = _entry([Path("traces") / f"{name}.jsonl" for name in PASSING], cwd=project)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "P001 should stay quiet" in failed.stdout and "labels: labels/regressions.json (from" in failed.stderr


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=_env(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid"))


def test_the_hook_through_pre_commit_try_repo(tmp_path, traces):
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    # try-repo takes committed files (and changes to tracked ones): commit a copy of
    # what the hook installs from, the working tree as it is now.
    repo = tmp_path / "hook-repo"
    repo.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "tracecheck", repo / "tracecheck", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _git(repo, "init", "-q", ".")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "hook")
    project = traces.parent
    _git(project, "init", "-q", ".")
    broken = traces / "broken.jsonl"
    text = (SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8").replace("seed000_weather_loop", "broken")
    head, rest = text.split("\n", 1)
    broken.write_text(head + "\n" + json.dumps({"type": "expect", "trace": "broken", "guard": "P001", "fires": False}) + "\n" + rest, encoding="utf-8")
    _git(project, "add", ".")

    def try_repo(*files: Path) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(repo), "tracecheck-check", "--verbose", "--files", *[str(f.relative_to(project)) for f in files]]
        return subprocess.run(command, cwd=project, env=_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home")), capture_output=True, text=True, timeout=540)

    healthy = [traces / f"{name}.jsonl" for name in PASSING]
    passed = try_repo(*healthy)
    if passed.returncode not in (0, 1) and "An unexpected error has occurred" in passed.stdout + passed.stderr:
        # pre-commit could not build the hook's environment (no package index here): the
        # hook's entry point is still run directly by the test above.
        pytest.skip("pre-commit could not install the hook environment: " + (passed.stdout + passed.stderr)[-300:])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "3 traces ·" in passed.stdout and "· 0 failing findings" in passed.stdout
    failed = try_repo(*healthy, broken)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "P001 should stay quiet" in failed.stdout


def test_the_action_fails_the_step_with_exit_code_5_when_there_is_nothing_to_check(tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    lines = (SAMPLES / "healthy_pagination.jsonl").read_text(encoding="utf-8").splitlines()
    bare = [line for line in lines if json.loads(line)["type"] not in ("labels", "expect")]
    (folder / "unlabelled.jsonl").write_text("\n".join(bare) + "\n", encoding="utf-8")
    codes, outputs, _ = run_action(tmp_path, paths="traces/")
    assert codes == {"check": 0, "verdict": 5} and outputs["exit-code"] == "5"
    codes, outputs, _ = run_action(tmp_path, paths="traces/", args="--allow-empty")
    assert codes == {"check": 0, "verdict": 0}
