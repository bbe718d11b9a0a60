"""What `tracecheck label` writes, `--labels` reads back to the same outcomes, labels and
expectations: on every sample and corpus trace, and on a trace whose recorded values a
labels file cannot hold (they are left out with a warning, not written to be refused)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, write_jsonl

INPUTS = [ROOT / "sample_traces", ROOT / "tests" / "corpus"]


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.name)
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_what_label_writes_replay_reads_back(cli, tmp_path, source, fmt):
    labels = tmp_path / f"labels.{fmt}"
    written = cli("label", str(source), "-o", str(labels))
    assert written.exit_code == 0, written.stderr
    before = json.loads(cli("replay", str(source), "-f", "json", "--no-labels").stdout)
    after = cli("replay", str(source), "-f", "json", "--labels", str(labels))
    assert after.exit_code == 0, after.stderr
    report = json.loads(after.stdout)
    # The labels file restates what the traces carry: the same outcomes, every recorded
    # expectation (a hand label's kind adds the policy's own), the same other labels.
    assert [t["id"] for t in report["traces"]] == [t["id"] for t in before["traces"]]
    for was, now in zip(before["traces"], report["traces"]):
        assert was.get("outcome") == now.get("outcome"), was["id"]
        expected = {(e["guard"], e["fires"], e["by_round"], e["note"]) for e in was["expectations"]}
        assert expected <= {(e["guard"], e["fires"], e["by_round"], e["note"]) for e in now["expectations"]}, was["id"]
        assert was.get("labels") == now.get("labels"), was["id"]

def test_values_a_labels_file_cannot_hold_are_left_out_with_a_warning(cli, tmp_path):
    trace = write_jsonl(
        tmp_path / "odd.jsonl",
        [
            {"type": "trace", "trace": "odd", "format_version": 1},
            {"type": "labels", "trace": "odd", "labels": {"outcome": "maybe", "kind": "weird", "team": "search"}},
            {"type": "expect", "trace": "odd", "guard": "R001", "fires": False, "by_round": 2},
            {"type": "round", "trace": "odd", "round": 1, "text": "", "tool_calls": [{"id": "c1", "name": "search", "arguments": "{\"q\": \"w\"}"}]},
            {"type": "result", "trace": "odd", "call_id": "c1", "content": "sunny"},
            {"type": "round", "trace": "odd", "round": 2, "text": "Sunny."},
        ],
    )
    labels = tmp_path / "labels.json"
    written = cli("label", str(trace), "-o", str(labels))
    assert written.exit_code == 0
    assert "left out of the labels file" in written.stderr
    entry = json.loads(labels.read_text(encoding="utf-8"))["traces"][0]
    assert "outcome" not in entry or entry["outcome"] in (None, "")
    assert entry.get("labels", {}).get("team") == "search" and "kind" not in entry.get("labels", {})
    back = cli("replay", str(trace), "--labels", str(labels), "-f", "json")
    assert back.exit_code == 0, back.stderr


def test_an_expectation_fires_that_is_no_boolean_is_a_warning_and_strict_fails(cli, tmp_path):
    # "false" as a string once read as true: the expectation turned around, unsaid.
    trace = write_jsonl(
        tmp_path / "strings.jsonl",
        [
            {"type": "trace", "trace": "s", "format_version": 1},
            {"type": "expect", "trace": "s", "guard": "R001", "fires": "false"},
            {"type": "round", "trace": "s", "round": 1, "text": "Done."},
        ],
    )
    result = cli("replay", str(trace), "-f", "json")
    assert result.exit_code == 0
    assert "strings.jsonl:2: trace s: 'fires' must be true or false, not 'false'" in result.stderr
    assert json.loads(result.stdout)["traces"][0]["expectations"] == []
    assert cli("replay", str(trace), "--strict").exit_code == 2
