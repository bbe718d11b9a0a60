"""The codex-sessions family: 67 real Codex CLI rollouts two users committed to their public
repositories (tests/corpus/codex-sessions/PROVENANCE.md), labelled by reading them before
any replay (labels.json). These tests check that tracecheck reads every one of them, by
content and with no warning, under the ids the labels use, and that its rounds are the
ones counted by hand in three of them (the labels' round numbers depend on it). Which
guard fires where is pinned elsewhere.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

FOLDER = ROOT / "tests" / "corpus" / "codex-sessions"
LABELS = FOLDER / "labels.json"


def _labels() -> list[dict]:
    return json.loads(LABELS.read_text(encoding="utf-8"))["traces"]


def test_every_run_is_read_as_codex_cli_with_no_warning(cli):
    labels = _labels()
    files = sorted(p.name for p in FOLDER.glob("*.jsonl.gz"))
    assert len(files) == len(labels) == 67
    assert sorted(label["file"].split("/")[-1] for label in labels) == files
    result = cli("replay", str(FOLDER), "--labels", str(LABELS), "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
    report = json.loads(result.stdout)
    assert report["warnings"] == []
    traces = {t["id"]: t for t in report["traces"]}
    assert len(traces) == len(report["traces"]) == 67  # one id per run, none shared
    assert set(traces) == {label["trace"] for label in labels}
    for label in labels:
        trace = traces[label["trace"]]
        assert trace["format"] == "codex-cli", trace["file"]
        assert trace["file"].endswith(label["file"]), (trace["file"], label["file"])
        assert trace["error"] is None, (label["trace"], trace["error"])
        assert trace["rounds"] >= 4, label["trace"]  # the family keeps runs of 4 rounds or more
        assert trace["labels"]["kind"] == label["kind"]
        if label["kind"] == "loop":
            assert label["stop_by"] <= trace["rounds"], label["trace"]
        if label["kind"] == "mixed":
            assert label["fire_by"] <= trace["rounds"], label["trace"]


def _rounds(name: str) -> list[dict]:
    """The ``round`` events ``tracecheck convert`` writes for one file of the family."""
    out = subprocess.run(
        [sys.executable, "-m", "tracecheck", "convert", str(FOLDER / name), "-o", "-"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    assert "warning" not in out.stderr.lower(), out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert {e["type"] for e in events} >= {"trace", "round", "result"}
    return [e for e in events if e["type"] == "round"]


def test_rounds_match_a_hand_count():
    # 2025 bare-line rollout (ocodex): 9 web searches and a reasoning-only response
    # (round 3, the turn the user then repeats) -> 10 rounds.
    rounds = _rounds("rollout-2025-08-26T22-30-10-897c57c3-b551-4b23-88fb-4c35fe662fbb.jsonl.gz")
    assert [r["round"] for r in rounds] == list(range(1, 11))
    assert [len(r.get("tool_calls") or []) for r in rounds] == [1, 1, 0, 1, 1, 1, 1, 1, 1, 1]
    # 2026 typed rollout: 9 responses, the 6th with two parallel shell_command calls.
    rounds = _rounds("rollout-2026-02-04T20-56-42-019c2a3a-7de1-7c11-8099-326909cfa51a.jsonl.gz")
    assert [len(r.get("tool_calls") or []) for r in rounds] == [1, 1, 1, 1, 0, 2, 1, 1, 0]
    # 2025 rollout over two user turns: 19 responses before the second user message, 6 after.
    rounds = _rounds("rollout-2025-08-25T08-11-23-b3f182bb-a39c-46d1-8459-8ad3be563a38.jsonl.gz")
    assert len(rounds) == 25
    assert [r["round"] for r in rounds if not r.get("tool_calls")] == [19, 25]
