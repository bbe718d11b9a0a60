"""``benchmarks/quality.py``: every preset per family of labelled runs, ``default`` chosen
without looking at the family it is scored on (leave one family out), and ``default``'s
verdict on every run of every family pinned in ``tests/default_verdicts.json``.

After a deliberate change of a verdict (a retuned guard or preset) rewrite the pins with

    python benchmarks/quality.py --pin

and the README's tables with ``python scripts/preset_table.py --write``; the diff of
``tests/default_verdicts.json`` shows which runs changed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from tracecheck.engine.scoring import RunLabel, RunVerdict, Score
from tracecheck.presets import PRESETS

sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))
import preset_table  # noqa: E402  (the script that writes the README's tables)
import quality  # noqa: E402


@pytest.fixture(scope="module")
def report():
    return quality.report()


def test_every_folder_with_a_labels_sidecar_is_a_family(tmp_path):
    assert {"CodeTracer", "tau-bench", "tau2-bench"} <= {f.name for f in quality.families()}
    # A new folder with its labels.json is found with no code change; a labels.json in
    # another form (the shared scorer's) or a folder without one is not a family.
    shutil.copytree(ROOT / "tests/corpus/tau-bench", tmp_path / "new-agent")
    (tmp_path / "other").mkdir()
    shutil.copy(ROOT / "tests/corpus/CodeTracer/source-labels.json", tmp_path / "other" / "labels.json")
    (tmp_path / "unlabelled").mkdir()
    found = quality.families(tmp_path)
    assert [f.name for f in found] == ["new-agent"]
    bench = quality.Bench(found)
    from tracecheck.config import load_settings

    (score,) = bench.scores(load_settings(preset="default", cwd=ROOT)).values()
    assert (score.figures()["runs"], score.figures()["healthy"], score.figures()["mixed"]) == (13, 12, 1)


def test_default_verdict_on_every_run_of_every_family_is_pinned(report):
    pinned = json.loads(quality.PINNED.read_text(encoding="utf-8"))
    now = report["verdicts"]
    missing = sorted(set(now) - set(pinned))
    assert not missing, f"families not pinned: {', '.join(missing)}: run python benchmarks/quality.py --pin"
    changed = []
    for family, runs in now.items():
        for run in sorted(set(runs) | set(pinned[family])):
            if runs.get(run) != pinned[family].get(run):
                changed.append(f"{family}/{run}: pinned {pinned[family].get(run)!r}, now {runs.get(run)!r}")
    assert not changed, "default's verdict changed on:\n" + "\n".join(changed) + "\n(if meant: python benchmarks/quality.py --pin)"
    assert sorted(pinned) == sorted(now)


def test_every_preset_is_scored_per_family_and_in_total(report):
    names = [f["name"] for f in report["families"]]
    assert list(report["presets"]) == list(PRESETS)
    for by_family in report["presets"].values():
        assert list(by_family) == [*names, "total"]
        for figure in ("runs", "loops", "loops_stopped_in_time", "healthy_cut", "successes_cut", "mixed_flagged", "mixed_stopped", "unread"):
            assert by_family["total"][figure] == sum(by_family[name][figure] for name in names), figure
    # The presets disagree: the figures are measured, not constant.
    assert len({json.dumps(p["total"]) for p in report["presets"].values()}) > 3


def test_the_figures_are_what_sweep_prints_for_each_family(cli, report):
    """The README's per-family tables come from here; `tracecheck sweep` must agree."""
    from tracecheck.reports.sweep_report import benchmark_markdown

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(preset_table.START, 1)[1].split(preset_table.END, 1)[0]
    for family in quality.families():
        result = cli("sweep", "--preset", "ALL", "--labels", str(family.labels), str(family.folder), "-f", "json")
        assert result.exit_code == 0, result.stderr
        points = json.loads(result.stdout)["benchmark"]["points"]
        for point in points:
            mine = report["presets"][point["values"]["preset"]][family.name]
            assert {k: point[k] for k in mine} == mine, (family.name, point["values"])
        table = benchmark_markdown(json.loads(result.stdout)["benchmark"])
        assert table in section, f"README.md's table of {family.name} is stale: run python scripts/preset_table.py --write"
    # Then the totals and leave-one-family-out, as quality.py reports them; the samples last.
    generated = "\n".join(preset_table.benchmark_section(report))
    assert generated in section, "README.md's tables of labelled runs are stale: run python scripts/preset_table.py --write"
    assert section.index(generated) < section.index("**Samples**")


def _run(kind, stopped=None, fire=None, outcome="failure", name="r", stop_by=None, fire_by=None):
    return RunVerdict(name, "f", RunLabel(kind, stop_by, fire_by, outcome), stopped, fire)


def _scores(**families):
    return {name: Score(tuple(runs)) for name, runs in families.items()}


def test_a_rule_is_taken_only_when_it_helps_and_harms_no_family():
    loop_missed = _run("loop", stop_by=3)
    loop_caught = _run("loop", stopped=3, fire=3, stop_by=3)
    healthy = _run("healthy")
    healthy_cut = _run("healthy", stopped=2, fire=2)
    before = _scores(a=[loop_missed, healthy], b=[healthy])
    # More loops in time, nothing cut: taken.
    assert quality.better(before, _scores(a=[loop_caught, healthy], b=[healthy]), ["a", "b"])
    # More loops in time in one family, a healthy run cut in the other: not taken.
    assert not quality.better(before, _scores(a=[loop_caught, healthy], b=[healthy_cut]), ["a", "b"])
    # ... unless that family is the one left out: the choice does not see it.
    assert quality.better(before, _scores(a=[loop_caught, healthy], b=[healthy_cut]), ["a"])
    # Nothing changes: not taken. Less harm, no fewer loops: taken.
    assert not quality.better(before, before, ["a", "b"])
    cut = _scores(a=[loop_caught, healthy_cut], b=[healthy])
    assert quality.better(cut, _scores(a=[loop_caught, healthy], b=[healthy]), ["a", "b"])
    # A mixed run stopped (its recovery cut) is harm; a successful run stopped too.
    mixed = _scores(a=[_run("mixed", fire=2, fire_by=2)])
    assert not quality.better(mixed, _scores(a=[_run("mixed", stopped=2, fire=2, fire_by=2), loop_caught]), ["a"])
    success = _scores(a=[_run("mixed", fire=2, fire_by=2, outcome="success")])
    assert not quality.better(success, _scores(a=[_run("mixed", stopped=9, fire=2, fire_by=2, outcome="success")]), ["a"])


def test_the_family_left_out_does_not_shape_its_own_choice(report):
    """Relabel every run of the family left out (all loops to stop at round 1): the rules
    chosen for it do not change, only its figures do."""
    name = "CodeTracer"  # the family with loops today: the rules that catch them are at stake
    bench = quality.Bench()
    held = next(f for f in bench.families if f.name == name)
    held.runs = [(trace, RunLabel("loop", 1, None, "failure"), cache) for trace, _, cache in held.runs]
    others = [f.name for f in bench.families if f.name != name]
    taken = [rule.name for rule in quality.choose(bench, others)]
    assert taken == report["leave_one_family_out"][name]["rules"]
    relabelled = bench.scores(quality.rule_settings(quality.choose(bench, others)))[name].figures()
    assert relabelled["loops"] == relabelled["runs"] != report["leave_one_family_out"][name]["figures"]["loops"]


def test_the_command_prints_the_report_and_its_json(tmp_path, report):
    # The script starts from any folder (its --help); the report it prints with --json is
    # quality.report() (the module fixture: one replay of every family per test run).
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "quality.py"), "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "--json" in done.stdout, done.stderr
    data = json.loads(json.dumps(report))
    lofo = data["leave_one_family_out"]
    assert set(lofo) == {f["name"] for f in data["families"]} | {"total"}
    for name, entry in lofo.items():
        assert set(entry["targets"]) == {"loops_stopped_in_time", "healthy_cut", "successes_cut", "mixed_flagged", "mixed_stopped"}
        assert all(isinstance(t["met"], bool) for t in entry["targets"].values())
        if name != "total":
            assert set(entry["rules"]) <= {r["name"] for r in data["rules"]}
    assert lofo["total"]["figures"]["runs"] == sum(f["runs"] for f in data["families"])
    # Every candidate rule is a set of --set assignments that load.
    from tracecheck.config import load_settings

    for rule in data["rules"]:
        load_settings(preset="default", sets=rule["without"] + rule["change"], cwd=ROOT)
    text = quality.text(data)
    assert "Leave one family out" in text and "All families:" in text
    assert all(f"\n{f['name']}:\n" in text for f in data["families"])
