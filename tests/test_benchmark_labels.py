"""The labelled real benchmark: 127 hand-labelled real runs of two families in
``tests/corpus/`` (41 CodeTracer runs, 86 τ²-bench dialogues), their labels as
tracecheck's sidecars (``tests/corpus/<family>/labels.json``, written by
``scripts/import_labels.py`` from the labellers' ``source-labels.json``), and every
preset scored on them by ``tracecheck sweep --preset ALL --labels``.

``default``'s verdict on every run of every family is pinned by ``tests/test_quality.py``
(``tests/default_verdicts.json``); the README's tables are checked there too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT
from tracecheck.input.schemas import LABELS_SCHEMA
from tracecheck.presets import PRESETS

sys.path.insert(0, str(ROOT / "scripts"))
import import_labels  # noqa: E402,F401  (the script that writes the sidecars)

CORPUS = ROOT / "tests" / "corpus"
FAMILIES = ("CodeTracer", "tau2-bench")  # the two families import_labels.py writes
LABELLED = [str(CORPUS / name) for name in FAMILIES]
# A few runs, for what does not need all of them: a loop and a healthy run that `seeds` cuts.
FEW = [str(ROOT / "tests/corpus/CodeTracer" / name) for name in ("build-pmars__E722qnQ", "sanitize-git-repo__tVYCtFW")]
SIDECAR = CORPUS / "CodeTracer" / "labels.json"
SHARED = Path("/work/shared")
SCORER = SHARED / "tools" / "score_labels.py"
SHARED_CORPUS = [SHARED / "corpus" / "CodeTracer", SHARED / "corpus" / "tau2-bench"]


def both_families(folder: Path) -> Path:
    """One labels file for both families: their sidecars' entries, each ``file`` given
    from the corpus folder (a labels file may label runs of several folders)."""
    entries = []
    for name in FAMILIES:
        for entry in json.loads((CORPUS / name / "labels.json").read_text(encoding="utf-8"))["traces"]:
            entries.append({**entry, "file": f"{name}/{entry['file']}"})
    path = folder / "labels.json"
    path.write_text(json.dumps({"version": 1, "traces": entries}, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def sweep_json(tmp_path_factory):
    """The command's JSON report, once per module: every preset on every labelled run."""
    from typer.testing import CliRunner

    from tracecheck.cli.main import app

    labels = both_families(tmp_path_factory.mktemp("labels"))
    result = CliRunner().invoke(app, ["sweep", "--preset", "ALL", "--labels", str(labels), *LABELLED, "-f", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def by_preset(data: dict) -> dict[str, dict]:
    return {point["values"]["preset"]: point for point in data["benchmark"]["points"]}


# --- the sidecar --------------------------------------------------------------------


def test_import_labels_writes_the_committed_sidecars_again(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_labels.py"), "--output-dir", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for name in FAMILIES:
        fresh = tmp_path / name / "labels.json"
        assert fresh.read_bytes() == (CORPUS / name / "labels.json").read_bytes(), f"tests/corpus/{name}/labels.json is stale: run python scripts/import_labels.py"
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_labels.py"), "--check", "--output-dir", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 0
    fresh = tmp_path / "CodeTracer" / "labels.json"
    fresh.write_text(fresh.read_text(encoding="utf-8").replace('"stop_by": 8', '"stop_by": 9', 1), encoding="utf-8")
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_labels.py"), "--check", "--output-dir", str(tmp_path)], capture_output=True, text=True)
    assert check.returncode == 1 and "CodeTracer" in check.stderr and "stale" in check.stderr


def test_the_sidecar_keeps_kind_rounds_in_responses_outcome_and_why(tmp_path):
    combined = both_families(tmp_path)
    entries = {(e["file"], e["trace"]): e for e in json.loads(combined.read_text(encoding="utf-8"))["traces"]}
    assert len(entries) == 127
    codetracer = json.loads((ROOT / "tests/corpus/CodeTracer/source-labels.json").read_text(encoding="utf-8"))
    source = codetracer["db-wal-recovery__KrUq6sC/trajectory.json"]
    entry = entries[("CodeTracer/db-wal-recovery__KrUq6sC/trajectory.json", "db-wal-recovery__KrUq6sC")]
    # CodeTracer's rounds are ATIF steps; tracecheck's are model responses.
    assert (entry["kind"], entry["stop_by"], entry["fire_by"]) == ("mixed", source["stop_by_response"], source["fire_by_response"])
    assert source["stop_by_response"] != source["stop_by_round"]
    assert entry["outcome"] == source["outcome"] and entry["why"] == source["why"]
    mixed_tau = entries[("tau2-bench/airline_grok-4-fast-reasoning.json.gz", "task-35/trial-1")]
    assert (mixed_tau["kind"], mixed_tau["fire_by"], mixed_tau["outcome"]) == ("mixed", 10, "failure")
    # `tracecheck schema labels` describes them, and refuses a loop without its round.
    for name in FAMILIES:
        jsonschema.validate(json.loads((CORPUS / name / "labels.json").read_text(encoding="utf-8")), LABELS_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "traces": [{"trace": "a", "kind": "loop"}]}, LABELS_SCHEMA)
    kinds = [e["kind"] for e in entries.values()]
    assert (kinds.count("loop"), kinds.count("healthy"), kinds.count("mixed")) == (12, 106, 9)


def test_replay_with_the_sidecar_puts_the_labels_on_the_runs(cli):
    result = cli("replay", *FEW, "--labels", str(SIDECAR), "-f", "json")
    assert result.exit_code == 0, result.stderr
    traces = json.loads(result.stdout)["traces"]
    assert len(traces) == 2 and all(t["labels"].get("kind") for t in traces)
    build = next(t for t in traces if t["id"] == "build-pmars__E722qnQ")
    assert {k: build["labels"][k] for k in ("kind", "stop_by", "outcome")} == {"kind": "loop", "stop_by": "8", "outcome": "failure"}


BAD_KINDS = [
    ("typo", '{"trace": "a", "kind": "loops", "stop_by": 3}', "kind 'loops' is not one of loop, healthy, mixed"),
    ("loop without stop_by", '{"trace": "a", "kind": "loop"}', "a loop needs 'stop_by'"),
    ("healthy with stop_by", '{"trace": "a", "kind": "healthy", "stop_by": 4}', "a healthy run has no 'stop_by'"),
    ("fire_by on a loop", '{"trace": "a", "kind": "loop", "stop_by": 4, "fire_by": 2}', "only for kind mixed"),
    ("rounds without kind", '{"trace": "a", "stop_by": 4}', "give 'kind'"),
    ("kind as a free label", '{"trace": "a", "labels": {"kind": "loop"}}', "give 'kind' in its own field"),
    ("round zero", '{"trace": "a", "kind": "mixed", "fire_by": 0}', "'fire_by' 0 is not a positive round number"),
]


@pytest.mark.parametrize("entry, reason", [b[1:] for b in BAD_KINDS], ids=[b[0] for b in BAD_KINDS])
def test_a_bad_hand_label_exits_2_naming_line_and_reason(cli, tmp_path, entry, reason):
    sidecar = tmp_path / "labels.json"
    sidecar.write_text('{"version": 1, "traces": [\n' + entry + "]}", encoding="utf-8")
    result = cli("sweep", "--preset", "default", "--labels", str(sidecar), str(ROOT / "sample_traces"))
    assert result.exit_code == 2 and "labels.json:2: " in result.stderr and reason in result.stderr, result.stderr


def test_csv_hand_labels_and_the_template_round_trip(cli, tmp_path):
    csv_labels = tmp_path / "labels.csv"
    csv_labels.write_text("trace,file,kind,stop_by,fire_by,why\ntask-35/trial-1,airline_grok-4-fast-reasoning.json.gz,mixed,,10,transfers\n", encoding="utf-8")
    tau = str(ROOT / "tests/corpus/tau2-bench")
    replayed = json.loads(cli("replay", tau, "--labels", str(csv_labels), "-f", "json").stdout)["traces"]
    (mixed,) = [t for t in replayed if t["labels"].get("kind")]
    assert {k: mixed["labels"][k] for k in ("kind", "fire_by", "why")} == {"kind": "mixed", "fire_by": "10", "why": "transfers"}
    # `tracecheck label` of a run that carries a hand label writes it in its own fields.
    native = tmp_path / "run.jsonl"
    native.write_text(
        '{"type": "trace", "trace": "r"}\n{"type": "labels", "trace": "r", "labels": {"kind": "loop", "stop_by": "3"}}\n'
        '{"type": "round", "trace": "r", "round": 1, "text": "done", "finish_reason": "stop"}\n{"type": "end", "trace": "r"}\n',
        encoding="utf-8",
    )
    written = json.loads(cli("label", str(native)).stdout)["traces"][0]
    assert (written["kind"], written["stop_by"], written["labels"]) == ("loop", 3, {})


# --- scoring: the command and the reference scorer ----------------------------------


def test_the_command_scores_every_preset_on_every_labelled_run(sweep_json):
    points = by_preset(sweep_json)
    assert list(points) == list(PRESETS)
    for point in points.values():
        assert point["runs"] == 127 and point["unread"] == 0 and len(point["verdicts"]) == 127
        assert (point["loops"], point["healthy"], point["mixed"], point["successes"]) == (12, 106, 9, 49)
    # The presets disagree: the figures are measured, not constant.
    assert len({point["summary"] for point in points.values()}) > 3


def test_default_meets_the_bars_on_the_labelled_real_runs(sweep_json):
    """Issue 19's bars: >= 95% of the loops stopped by their labelled round, <= 2% of the
    healthy runs cut, no successful run cut, >= 7 of 8 mixed runs flagged (here 9)."""
    default = by_preset(sweep_json)["default"]
    assert default["loops_stopped_in_time"] / default["loops"] >= 0.95
    assert default["healthy_cut"] / default["healthy"] <= 0.02
    assert default["successes_cut"] == 0
    assert default["mixed_flagged"] / default["mixed"] >= 7 / 8
    assert default["unread"] == 0


def test_default_is_at_least_as_good_as_every_preset_on_every_figure(sweep_json):
    points = by_preset(sweep_json)
    default = points.pop("default")
    higher = ("loops_stopped_in_time", "loops_stopped", "mixed_flagged")
    lower = ("healthy_cut", "successes_cut", "unread")
    for name, point in points.items():
        assert all(default[f] >= point[f] for f in higher) and all(default[f] <= point[f] for f in lower), name
        better = [f for f in higher if default[f] > point[f]] + [f for f in lower if default[f] < point[f]]
        assert better, f"default is no better than {name} on any figure"


def test_terminal_and_markdown_show_the_six_figures(cli, tmp_path):
    sidecar = tmp_path / "labels.json"
    entries = json.loads(SIDECAR.read_text(encoding="utf-8"))["traces"]
    few = [e for e in entries if e["trace"] in ("build-pmars__E722qnQ", "sanitize-git-repo__tVYCtFW")]
    sidecar.write_text(json.dumps({"version": 1, "traces": few}), encoding="utf-8")
    args = ["sweep", "--preset", "default,seeds", "--labels", str(sidecar), *FEW]
    terminal = cli(*args).stdout
    assert "2 labelled runs: 1 loops, 1 healthy, 0 mixed" in terminal
    assert re.search(r"^seeds +1/1 +1/1 +1/1 +0/0 +0/0 +0/0 +0/2$", terminal, re.M), terminal
    markdown = cli(*args, "-f", "markdown").stdout
    assert "| settings | loops stopped in time | loops stopped at all | healthy runs cut | successful runs cut | mixed runs flagged | mixed runs stopped | runs not read |" in markdown
    csv_text = cli(*args, "-f", "csv").stdout
    assert "labelled.loops_stopped_in_time" in csv_text.splitlines()[0]


def test_an_entry_that_matches_no_run_is_not_read(cli, tmp_path):
    sidecar = tmp_path / "labels.json"
    entries = json.loads(SIDECAR.read_text(encoding="utf-8"))
    entries["traces"].append({"trace": "no-such-run", "kind": "loop", "stop_by": 3})
    sidecar.write_text(json.dumps(entries), encoding="utf-8")
    result = cli("sweep", "--preset", "default", "--labels", str(sidecar), *FEW, "-f", "json")
    (point,) = json.loads(result.stdout)["benchmark"]["points"]
    # The 39 labelled runs of the family not given are not read either.
    assert (point["runs"], point["loops"], point["unread"]) == (42, 13, 40)
    assert point["summary"].endswith("unread 40/42")
    assert {"trace": "no-such-run", "file": None, "verdict": "unread"}.items() <= point["verdicts"][-1].items()


def _scorer_verdicts(lines: list[str]) -> dict[str, str]:
    """score_labels.py --verbose lines as {run name: verdict word}, in its names."""
    out = {}
    for line in lines:
        match = re.match(r"(UNREAD|LATE|MISSED|UNFLAGGED|STOPPED|CUT|HARM) +(\S+?)(?::|$)", line)
        if match:
            word, name = match.groups()
            out[name] = out[name] + "+" + word.lower() if name in out else word.lower()
    return out


def _module_verdicts(point: dict) -> dict[str, str]:
    """The command's per-run verdicts in the scorer's names (folder/labels key[#run id]),
    keeping only those the scorer prints a line for."""
    out = {}
    for run in point["verdicts"]:
        parts = Path(run["file"]).parts
        folder = parts[parts.index("corpus") + 1]
        key = "/".join(parts[parts.index("corpus") + 2 :]).removesuffix(".gz")
        name = f"{folder}/{key}" if folder == "CodeTracer" else f"{folder}/{key}#{run['trace']}"
        # The scorer says nothing of a loop caught, a healthy run left alone or a mixed
        # run flagged; it names a mixed run stopped, and a successful one harmed too.
        words = [w for w in run["verdict"].split("+") if w not in ("caught", "ok", "flagged")]
        if words:
            out[name] = "+".join(words)
    return out


@pytest.mark.skipif(not SCORER.exists(), reason="the reference scorer (/work/shared/tools/score_labels.py) is not here")
def test_default_agrees_with_the_reference_scorer_run_by_run(sweep_json, tmp_path):
    # The scorer reads a JSON replay report of the shared corpus (the same runs; the
    # airline results uncompressed there), from a folder with no tracecheck config.
    # default gets every run right today, so seeds (which does not) is compared too.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    dirs = [arg for folder in SHARED_CORPUS for arg in ("--labels-dir", str(folder))]
    disagreements = 0
    for preset in ("default", "seeds"):
        out = tmp_path / f"{preset}.json"
        report = subprocess.run(
            [sys.executable, "-m", "tracecheck", "replay", *map(str, SHARED_CORPUS), "--preset", preset, "-f", "json", "-o", str(out)],
            capture_output=True, text=True, cwd=tmp_path, env=env,
        )
        assert report.returncode == 0, report.stderr
        scored = subprocess.run([sys.executable, str(SCORER), str(out), "--verbose", *dirs], capture_output=True, text=True)
        assert scored.returncode == 0, scored.stderr
        *lines, summary = scored.stdout.strip().splitlines()
        point = by_preset(sweep_json)[preset]
        assert point["summary"] == summary, preset
        assert _module_verdicts(point) == _scorer_verdicts(lines), preset
        assert "unread" not in summary.replace("unread 0/", "")
        disagreements += len(_scorer_verdicts(lines))
    assert disagreements  # the scorer had runs to call late, missed or cut
