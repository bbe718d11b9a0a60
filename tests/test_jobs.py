"""``replay --jobs N``: the files are replayed in worker processes, and every report is
the one a single process writes, byte for byte (traces, totals, warnings, their order)."""

from __future__ import annotations

import gzip
import io
import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from tracecheck.config import load_settings
from tracecheck.engine import jobs as jobs_module
from tracecheck.input.diagnostics import TracecheckError
from tracecheck.engine.batch import replay_stream
from tracecheck.reports.data import item_data
from tracecheck.commands import ReplayRequest, replay

from conftest import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "tau2-bench"
FORMATS = ("json", "jsonl", "markdown", "terminal", "html")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Two copies of the samples, the τ²-bench corpus, a file with bad lines and a
    truncated gzip file that cannot be read to its end."""
    root = tmp_path_factory.mktemp("jobs-input")
    for copy in ("a", "b"):
        shutil.copytree(SAMPLES, root / copy)
    shutil.copytree(CORPUS, root / "c-corpus")
    good = (SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8").splitlines()
    (root / "d-warnings.jsonl").write_text("\n".join([good[0], "{not json", *good[1:], "[1, 2"]) + "\n", encoding="utf-8")
    whole = gzip.compress((SAMPLES / "seed004_query_db_identical.jsonl").read_bytes())
    (root / "e-truncated.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    return root


def _replay(cli, *args: str):
    result = cli("replay", *args)
    return result.exit_code, result.stdout_bytes, result.stderr


@pytest.mark.parametrize("format", FORMATS)
def test_every_format_is_the_same_with_two_jobs(cli, folder, format):
    one = _replay(cli, str(folder), "-f", format, "--jobs", "1")
    two = _replay(cli, str(folder), "-f", format, "--jobs", "2")
    assert one == two
    code, out, err = one
    assert code == 0 and out
    assert "d-warnings.jsonl:2" in err and "e-truncated.jsonl.gz: read error" in err


@pytest.mark.parametrize("format", ("json", "terminal"))
def test_every_sample_alone_is_the_same_with_two_jobs(cli, format):
    files = sorted(str(p) for p in SAMPLES.rglob("*.json*"))
    assert _replay(cli, *files, "-f", format, "-j", "1") == _replay(cli, *files, "-f", format, "-j", "2")


def test_only_fires_presets_and_tokenizers_are_the_same_with_three_jobs(cli, folder):
    args = (str(folder), "-f", "json", "--preset", "default,seeds", "--tokenizer", "char,jieba", "--only-fires")
    one = _replay(cli, *args, "-j", "1")
    assert one == _replay(cli, *args, "-j", "3")
    report = json.loads(one[1])
    assert report["presets"] == ["default", "seeds"] and report["tokenizers"] == ["char", "jieba"]
    assert any("tokenizer_comparison" in trace for trace in report["traces"])


def test_labels_are_matched_and_warned_about_as_in_one_process(cli, folder, tmp_path):
    labels = tmp_path / "labels.json"
    entries = [
        {"trace": "seed000_weather_loop", "outcome": "failure"},  # in both copies: a warning
        {"trace": "seed004_query_db_identical", "file": "a/seed004_query_db_identical.jsonl", "outcome": "success"},
        {"trace": "no-such-trace", "outcome": "failure"},  # matches nothing: a warning
    ]
    labels.write_text(json.dumps({"version": 1, "traces": entries}), encoding="utf-8")
    one = _replay(cli, str(folder), "-f", "jsonl", "--labels", str(labels), "-j", "1")
    assert one == _replay(cli, str(folder), "-f", "jsonl", "--labels", str(labels), "-j", "2")
    assert "went to traces in" in one[2] and "no-such-trace" in one[2]


def _report(paths, jobs: int, on_file=None) -> bytes:
    out = io.BytesIO()
    replay(ReplayRequest([str(p) for p in paths], load_settings(), format="json", jobs=jobs), out, on_file=on_file)
    return out.getvalue()


def test_the_plain_functions_take_jobs(folder):
    assert _report([folder], 2) == _report([folder], 1)
    one = [item_data(item) for item in replay_stream([str(folder)], load_settings())]
    two = [item_data(item) for item in replay_stream([str(folder)], load_settings(), jobs=2)]
    assert one == two and len(one) > 50


def _pid(item) -> int:
    return os.getpid()


def test_the_traces_are_replayed_in_other_processes(folder):
    pids = set(replay_stream([str(folder)], load_settings(), jobs=2, prepare=_pid))
    assert pids and os.getpid() not in pids


def test_progress_is_reported_per_file_in_order(folder):
    seen_one, seen_two = [], []
    _report([folder], 1, on_file=lambda n, total, name: seen_one.append((n, total, name)))
    _report([folder], 2, on_file=lambda n, total, name: seen_two.append((n, total, name)))
    assert seen_one == seen_two and len(seen_one) > 10


def test_standard_input_is_read_in_its_place(cli, folder):
    data = (SAMPLES / "seed000_weather_loop.jsonl").read_bytes()
    args = (str(folder / "a"), "-", str(folder / "b"), "-f", "jsonl")
    one = cli("replay", *args, "-j", "1", input=data)
    two = cli("replay", *args, "-j", "2", input=data)
    assert one.stdout_bytes == two.stdout_bytes
    files = [json.loads(line).get("file") for line in one.stdout_bytes.splitlines()]
    assert "<stdin>" in files and files.index("<stdin>") < files.index(str(folder / "b" / "alternating_ab_loop.jsonl"))


def test_spawned_workers_give_the_same_report(folder, monkeypatch):
    monkeypatch.setattr(jobs_module, "_context", lambda: multiprocessing.get_context("spawn"))
    assert _report([folder / "a", folder / "c-corpus"], 2) == _report([folder / "a", folder / "c-corpus"], 1)


def test_without_worker_processes_one_process_replays_with_a_note(folder, monkeypatch, capsys):
    class NoProcesses:
        def Pool(self, *args, **kwargs):
            raise OSError("no semaphores here")

    monkeypatch.setattr(jobs_module, "_context", lambda: NoProcesses())
    assert _report([folder], 2) == _report([folder], 1)
    assert "replaying in one process" in capsys.readouterr().err


def test_a_worker_error_reaches_the_caller(folder):
    settings = load_settings().with_option("P001", "tokenizer", "no-such-tokenizer")
    with pytest.raises(TracecheckError, match="no-such-tokenizer"):
        list(replay_stream([str(folder)], settings, jobs=2))


def test_files_in_flight_are_bounded(folder, monkeypatch):
    """At most FILES_AHEAD × jobs files are handed to workers ahead of the one being written."""
    submitted: list[str] = []
    real = jobs_module._context

    class Counting:
        def __init__(self) -> None:
            self.context = real()

        def Pool(self, *args, **kwargs):
            pool = self.context.Pool(*args, **kwargs)
            apply_async = pool.apply_async

            def counted(func, args):
                submitted.append(args[0])
                return apply_async(func, args)

            pool.apply_async = counted
            return pool

    monkeypatch.setattr(jobs_module, "_context", Counting)
    stream = replay_stream([str(folder)], load_settings(), jobs=2)
    next(stream)
    total = sum(1 for path in folder.rglob("*") if path.is_file())
    assert total > 1 + jobs_module.FILES_AHEAD * 2
    assert len(submitted) == 1 + jobs_module.FILES_AHEAD * 2  # the file written first, and the ones in flight
    stream.close()
