"""Where a trace is: every run of a document of many (a τ²-bench results file) has a
place of its own in every report and check finding; long ids are never broken inside at
80 columns; a folder where little fired reads as what fired, not a screenful per quiet
trace."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from rich.cells import cell_len

from conftest import ROOT, SAMPLES

TAU2 = ROOT / "tests" / "corpus" / "tau2-bench" / "telecom-workflow_grok-3.json"


@pytest.fixture(scope="module")
def tau2_ids():
    """The ids of the τ²-bench document's simulations, in order, as τ²-bench wrote them."""
    document = json.loads(TAU2.read_text(encoding="utf-8"))
    return [f"task-{s['task_id']}/trial-{s['trial']}" for s in document["simulations"]]


def test_each_tau2_simulation_is_placed_by_its_index_in_the_replay_report(cli, tau2_ids):
    result = cli("replay", str(TAU2), "-f", "json")
    assert result.exit_code == 0, result.stderr
    traces = json.loads(result.stdout)["traces"]
    assert [t["id"] for t in traces] == tau2_ids
    assert [t["pointer"] for t in traces] == [f"simulations[{i}]" for i in range(len(tau2_ids))]
    assert [t["place"] for t in traces] == [f"{t['file']}#simulations[{i}]" for i, t in enumerate(traces)]
    assert traces[0]["file"].endswith("tau2-bench/telecom-workflow_grok-3.json")
    assert {t["line"] for t in traces} == {1}  # the line alone tells none of them apart


def test_check_findings_on_tau2_simulations_name_each_ones_place(cli, tmp_path, tau2_ids):
    # Two runs whose expectation (a stop by round 1) no guard meets: one finding each.
    labels = tmp_path / "labels.json"
    picked = {3: tau2_ids[3], 7: tau2_ids[7]}
    labels.write_text(
        json.dumps({"version": 1, "traces": [{"trace": i, "expect": [{"guard": "policy", "fires": True, "by_round": 1}]} for i in picked.values()]}),
        encoding="utf-8",
    )
    report = tmp_path / "check.json"
    result = cli("check", str(TAU2), "--labels", str(labels), "-o", str(report))
    assert result.exit_code == 1, result.stderr
    findings = json.loads(report.read_text(encoding="utf-8"))["findings"]
    assert sorted((f["trace"], f["pointer"], f["place"]) for f in findings) == sorted(
        (ident, f"simulations[{index}]", f"{findings[0]['file']}#simulations[{index}]") for index, ident in picked.items()
    )
    concise = cli("check", str(TAU2), "--labels", str(labels), "-f", "concise").stdout
    for index, ident in picked.items():
        assert f"telecom-workflow_grok-3.json:1: policy [{ident} at simulations[{index}]]" in concise
    sarif = tmp_path / "check.sarif"
    cli("check", str(TAU2), "--labels", str(labels), "-o", str(sarif))
    results = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert sorted(r["locations"][0]["logicalLocations"][0]["name"] for r in results) == ["simulations[3]", "simulations[7]"]
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] == 1 for r in results)
    github = cli("check", str(TAU2), "--labels", str(labels), "-f", "github").stdout
    assert f"title=tracecheck policy: {picked[3]} at simulations[3]" in github.replace("%3A", ":").replace("%2C", ",")


def _whole_or_cut(ident: str, text: str) -> bool:
    """The id on one line, whole, or cut at its end with an ellipsis: never broken inside."""
    for line in text.splitlines():
        if ident in line:
            return True
        stripped = line.strip()
        if stripped.endswith("…") and len(stripped) > 40 and ident.startswith(stripped[:-1]):
            return True
    return False


def test_long_ids_are_never_broken_inside_at_80_columns(cli, monkeypatch, tau2_ids):
    monkeypatch.setenv("COLUMNS", "80")
    replay = cli("replay", str(TAU2), "--all-traces").stdout
    assert any(len(i) > 78 for i in tau2_ids) and any(len(i) <= 78 for i in tau2_ids)  # cut and whole both met
    for ident in tau2_ids:
        assert _whole_or_cut(ident, replay), ident
    assert not re.search(r"task-\[mobil\s*\n", replay)  # the reported fold, "task-[mobil" / "e_data_issue]"
    longest = max(tau2_ids, key=len)
    show = cli("show", str(TAU2), "--trace", longest).stdout
    assert _whole_or_cut(longest, show)
    for text in (replay, show):
        assert all(cell_len(line) <= 80 for line in text.splitlines())


def test_a_folder_with_one_fire_lists_that_fire_and_counts_the_quiet_traces(cli, monkeypatch, tmp_path, tau2_ids):
    monkeypatch.setenv("COLUMNS", "80")
    shutil.copy(TAU2, tmp_path / TAU2.name)
    shutil.copy(SAMPLES / "seed000_weather_loop.jsonl", tmp_path / "seed000_weather_loop.jsonl")
    total = len(tau2_ids) + 1

    default = cli("replay", str(tmp_path)).stdout
    assert "/seed000_weather_loop.jsonl:1\n" in default  # the fire is listed, its long path cut at the start
    assert all(cell_len(line) <= 80 for line in default.splitlines())
    assert default.count("no guard fired\n") == 3
    assert f"… and {total - 4} more traces where no guard fired, not listed (--all-traces lists them)" in default
    assert f"{total} traces · 1 with fires" in default
    assert len(default.splitlines()) < 60

    every = cli("replay", str(tmp_path), "--all-traces").stdout
    assert every.count("no guard fired\n") == total - 1 and "more traces where no guard fired" not in every
    only = cli("replay", str(tmp_path), "--only-fires").stdout
    assert "no guard fired\n" not in only and "more traces where" not in only and "seed000_weather_loop.jsonl" in only
