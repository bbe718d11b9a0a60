"""`tracecheck show` and `convert` on every shipped file of every format: the timeline
renders, and converting to native JSONL reads back as the same model."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import FIXTURES, SAMPLES, comparable

CORPUS = FIXTURES.parent / "corpus"
CODETRACER_RUNS = {"qemu-startup__8shUpSy", "regex-log__XYfBZFy", "sanitize-git-repo__tVYCtFW"}
INPUTS = sorted(
    p
    for folder in (SAMPLES, FIXTURES, CORPUS)
    for p in folder.rglob("*")
    if p.is_file() and p.suffix not in (".md", ".py") and "cross_format" not in p.parts
    # The labelled Terminal-Bench runs: three trajectories stand for the 41 (the rest only
    # cost time here), and a trial's result.json, reward.txt and labels.json are companions.
    and ("CodeTracer" not in p.parts or p.parent.name in CODETRACER_RUNS and p.name == "trajectory.json")
)


def test_there_are_inputs_of_every_shipped_kind():
    assert any(p.is_relative_to(SAMPLES) for p in INPUTS)
    assert any("openai" in str(p) for p in INPUTS) and any("langchain" in str(p) for p in INPUTS)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_convert_then_read_gives_the_same_model(path: Path, tmp_path, cli):
    original = list(read_traces([str(path)], Diagnostics()))
    if not original:
        pytest.skip("a bad-input fixture without any trace")
    shown = cli("show", str(path))
    assert shown.exit_code == 0, shown.output
    assert all(f"trace {t.id}" in shown.stdout for t in original if "\x1b" not in t.id)
    out = tmp_path / "native.jsonl"
    result = cli("convert", str(path), "-o", str(out))
    assert result.exit_code == 0, result.output
    diagnostics = Diagnostics()
    converted = list(read_traces([str(out)], diagnostics))
    assert [comparable(t) for t in converted] == [comparable(t) for t in original]
    # The native file itself is clean: only calls without results (kept as they were)
    # and arguments that were never JSON may be reported again.
    assert all("has no result" in d.reason or "not valid JSON" in d.reason for d in diagnostics), [
        str(d) for d in diagnostics
    ]


def _figures(report: dict) -> list[tuple]:
    return [
        (t["id"], t["turns"], t["rounds"], t["tool_calls"], t["tokens"], t["tokens_basis"], t["seconds"])
        for t in report["traces"]
    ]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_replay_show_and_converted_replay_print_the_same_numbers(path: Path, tmp_path, cli):
    import json

    from tracecheck.reports.wording import BASIS_NOTES

    if not list(read_traces([str(path)], Diagnostics())):
        pytest.skip("a bad-input fixture without any trace")
    report = json.loads(cli("replay", "--format", "json", str(path)).stdout)
    out = tmp_path / "native.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    again = json.loads(cli("replay", "--format", "json", str(out)).stdout)
    assert _figures(again) == _figures(report)
    # show's header line gives each trace's tokens with the same mark.
    shown = cli("show", "--no-guards", str(path)).stdout
    for trace in report["traces"]:
        assert f"{trace['tokens']:,} tokens{BASIS_NOTES[trace['tokens_basis']]}" in shown, trace["id"]
        if trace["seconds"] is not None:
            assert f" · {trace['seconds']:,.1f}s" in shown, trace["id"]  # 1,065.4s as the tokens are written


def test_converting_files_whose_trace_ids_repeat_keeps_the_traces_apart(tmp_path, cli):
    import shutil

    for name in ("a", "b"):
        shutil.copy(SAMPLES / "seed004_query_db_identical.jsonl", tmp_path / f"{name}.jsonl")
    out = tmp_path / "out" / "all.jsonl"
    out.parent.mkdir()
    result = cli("convert", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "-o", str(out))
    assert result.exit_code == 0 and "renamed so that they stay apart: 'seed004_query_db_identical' → 'seed004_query_db_identical (b.jsonl)'" in result.stderr
    report = json.loads(cli("replay", "--format", "json", str(out)).stdout)
    assert [t["id"] for t in report["traces"]] == ["seed004_query_db_identical", "seed004_query_db_identical (b.jsonl)"]
    assert [t["rounds"] for t in report["traces"]] == [6, 6]


@pytest.mark.parametrize(("suffix", "magic"), [(".jsonl.gz", b"\x1f\x8b"), (".jsonl.bz2", b"BZh"), (".jsonl.xz", b"\xfd7zXZ\x00")])
def test_a_compressed_name_is_written_compressed_and_reads_back(tmp_path, cli, suffix, magic):
    from conftest import SAMPLES

    source = SAMPLES / "seed000_weather_loop.jsonl"
    out = tmp_path / f"runs{suffix}"
    result = cli("convert", str(source), "-o", str(out))
    assert result.exit_code == 0 and "note:" not in result.stderr
    assert out.read_bytes().startswith(magic)
    again = list(read_traces([str(tmp_path)], Diagnostics()))  # found in its folder, decompressed
    assert [comparable(t) for t in again] == [comparable(t) for t in read_traces([str(source)], Diagnostics())]


def test_a_name_a_folder_walk_would_miss_is_said(tmp_path, cli):
    from conftest import SAMPLES

    out = tmp_path / "runs.txt"
    result = cli("convert", str(SAMPLES / "seed000_weather_loop.jsonl"), "-o", str(out))
    assert result.exit_code == 0 and out.is_file()
    assert "note: " in result.stderr and "name it .jsonl to have it found" in result.stderr
    assert "wrote 1 trace(s)" in result.stderr.split("note:")[0]  # what was done, then the note
    assert "note:" not in cli("convert", str(SAMPLES / "seed000_weather_loop.jsonl"), "-o", str(tmp_path / "ok.ndjson")).stderr
    assert "note:" not in cli("convert", str(SAMPLES / "seed000_weather_loop.jsonl"), "-o", "-").stderr
