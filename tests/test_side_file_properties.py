"""Damaged settings, labels and baseline files, and grid specs, never get past the loaders
as anything but a TracecheckError (``file:line: reason``, exit 2): no other exception,
which the CLI would show as "internal error". Seeds are real files of each kind (the
settings `tracecheck init` writes, labels written by `tracecheck label`, a baseline
written by `tracecheck baseline write`); hypothesis damages their bytes.

``TRACECHECK_FUZZ_EXAMPLES=N`` runs N random examples per loader (default: a fixed,
derandomized 150, to keep the suite short)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from tracecheck.config import load_settings, write_winning_config
from tracecheck.engine.check import load_baseline
from tracecheck.engine.grid import parse_dimension
from tracecheck.input.diagnostics import TracecheckError
from tracecheck.input.labels import load_labels

from conftest import ROOT, fuzz_settings

FUZZ = fuzz_settings()
TRACE = ROOT / "sample_traces" / "seed000_weather_loop.jsonl"

SETTINGS_SEED = (ROOT / "tracecheck" / "scaffold" / "files" / "tracecheck.toml").read_bytes() + b"""
[guards.P001]
containment = 0.8
messages = { stop = "stop: {query}" }
[sweep]
preset = ["default", "seeds"]
[sweep.grid]
"R001.stop_at" = [3, 4]
"""


@st.composite
def damaged(draw, seed: bytes):
    """``seed`` with a few bytes flipped, cut, repeated or replaced by hostile ones."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "cut", "insert", "repeat"]))
        if kind == "flip":
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[at : at + draw(st.integers(1, 40))]
        elif kind == "insert":
            data[at:at] = draw(st.sampled_from([b"[", b"{", b"\xff", b"9" * 5000, b'"', b"=", b"\n", b"1e999", b"-1", b"\x00", b"[[[[", b"\xe2\x80\xae", b"true"]))
        else:
            end = min(len(data), at + draw(st.integers(1, 80)))
            data[at:at] = data[at:end] * draw(st.integers(2, 50))
    return bytes(data)


def _only_tracecheck_errors(load) -> None:
    try:
        load()
    except TracecheckError:
        pass


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    from typer.testing import CliRunner

    from tracecheck.cli.main import app

    folder = tmp_path_factory.mktemp("side-seeds")
    runner = CliRunner()
    assert runner.invoke(app, ["label", str(ROOT / "sample_traces"), "-o", str(folder / "labels.json")]).exit_code == 0
    assert runner.invoke(app, ["label", str(ROOT / "sample_traces"), "-o", str(folder / "labels.csv")]).exit_code == 0
    result = runner.invoke(app, ["baseline", "write", str(ROOT / "tests" / "corpus" / "tau2-bench"), "-o", str(folder / "baseline.json")])
    assert result.exit_code == 0, result.stderr
    return {name: (folder / name).read_bytes() for name in ("labels.json", "labels.csv", "baseline.json")}


@FUZZ
@given(data=st.data())
def test_damaged_settings_files(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("cfg")
    for name in ("tracecheck.toml", "pyproject.toml"):
        seed = SETTINGS_SEED if name == "tracecheck.toml" else b"[tool.tracecheck]\n" + SETTINGS_SEED.replace(b"[guards", b"[tool.tracecheck.guards").replace(b"[sweep", b"[tool.tracecheck.sweep")
        path = folder / name
        path.write_bytes(data.draw(damaged(seed)))
        _only_tracecheck_errors(lambda: load_settings(config=str(path)))
        _only_tracecheck_errors(lambda: _sweep_table(path))
        before = path.read_bytes()
        try:
            write_winning_config(path, {"guards": {"R001": {"stop_at": 4}}})
        except TracecheckError:
            assert path.read_bytes() == before  # refused: untouched


def _sweep_table(path: Path) -> None:
    from tracecheck.commands.sweep import sweep_dimensions

    sweep_dimensions([], load_settings(config=str(path)))


@FUZZ
@given(data=st.data())
def test_damaged_labels_files(tmp_path_factory, seeds, data):
    folder = tmp_path_factory.mktemp("labels")
    for name in ("labels.json", "labels.csv"):
        path = folder / name
        path.write_bytes(data.draw(damaged(seeds[name])))
        _only_tracecheck_errors(lambda: load_labels(path))


@FUZZ
@given(data=st.data())
def test_damaged_baselines(tmp_path_factory, seeds, data):
    path = tmp_path_factory.mktemp("baseline") / "baseline.json"
    path.write_bytes(data.draw(damaged(seeds["baseline.json"])))
    _only_tracecheck_errors(lambda: load_baseline(path))


GRID_PARTS = st.sampled_from(
    ["P001.containment", "R001.stop_at", "B004.seconds", "preset", "P001.tokenizer", "X9.y", "R001", ""]
)
NUMBERS = st.sampled_from(["0", "1", "0.05", "1e-1000000", "1e5000", "-3", "nan", "inf", "9" * 5000, "", "a", "0.6", "2"])


@FUZZ
@given(key=GRID_PARTS, parts=st.lists(NUMBERS, min_size=1, max_size=4), sep=st.sampled_from([":", ","]))
def test_grid_specs(key, parts, sep):
    _only_tracecheck_errors(lambda: parse_dimension(f"{key}={sep.join(parts)}"))
