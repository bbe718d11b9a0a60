"""Settings, labels and baseline files a user hands tracecheck are read one careful way
(input/side_files.py): each damaged or hostile shape is ``file:line: reason`` and exit 2,
never the last-resort "internal error", never a hang (issue 26's cases, as reported)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

TRACE = str(ROOT / "sample_traces" / "seed000_weather_loop.jsonl")

# (file name, its bytes, the command after 'tracecheck', what the error must say)
CONFIGS = [
    ("pyproject.toml", b"tool = 1\n", ["replay", TRACE], "pyproject.toml:1: 'tool' must be a table"),
    ("pyproject.toml", b"[project]\nname = 'x'\n[tool]\ntracecheck = 3\n", ["replay", TRACE], "pyproject.toml:4: [tool] 'tracecheck' must be a table"),
    ("tracecheck.toml", b'preset = "default"\nselect = ["\xff"]\n', ["replay", TRACE], "tracecheck.toml:2: not UTF-8 (byte 0xff)"),
    ("tracecheck.toml", b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n", ["replay", TRACE], "tracecheck.toml:1: nested more than"),
    ("tracecheck.toml", b"\n\nx = " + b"9" * 5000 + b"\n", ["replay", TRACE], "tracecheck.toml:3: a number of 5000 digits"),
    ("tracecheck.toml", b"\nx = " + b"_".join([b"9"] * 4400) + b"\n", ["replay", TRACE], "tracecheck.toml:2: a number of 4400 digits"),
    ("tracecheck.toml", b"preset = \n", ["replay", TRACE], "tracecheck.toml:1: not valid TOML"),
    ("tracecheck.toml", b"[guards.P001]\ncontainment = " + b"9" * 400 + b"\n", ["replay", TRACE], "P001.containment"),
    ("tracecheck.toml", b"sweep = 5\n", ["sweep", TRACE], "'sweep' must be a table"),
    ("tracecheck.toml", b"[sweep]\npreset = [1, 2]\n", ["sweep", TRACE], "'preset' must be a preset name or a list of names"),
    ("tracecheck.toml", b'[sweep.grid]\n"R001.stop_at" = {a = 1}\n', ["sweep", TRACE], "must be a range string or a list of values"),
]


def _run(args, cwd, timeout=60):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tracecheck", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize(("name", "data", "args", "said"), CONFIGS, ids=[c[3][:40] for c in CONFIGS])
def test_a_damaged_settings_file_is_file_line_reason(cli, tmp_path, monkeypatch, name, data, args, said):
    (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = cli(*args, "-f", "json")
    assert result.exit_code == 2, result.stderr
    assert said in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(
    ("grid", "said"),
    [
        ("P001.containment=0:1:1e-1000000", "has a number beyond"),
        ("P001.containment=0:1e5000:1", "has a number beyond"),
        ("P001.containment=0:1e50:1", "has more than 100,000 values"),
    ],
)
def test_extreme_grid_ranges_are_refused(cli, grid, said):
    result = cli("sweep", TRACE, "--grid", grid)
    assert result.exit_code == 2
    assert said in result.stderr and "internal error" not in result.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"traces": [' * 1100 + "]" * 1100 + "}", "labels.json:1: nested more than"),
        ('{"traces": [\n{"trace": "x", "stop_by": ' + "7" * 5000 + "}]}", "labels.json:2: a number of 5000 digits"),
    ],
    ids=["deep", "long-number"],
)
def test_a_hostile_labels_json_is_file_line_reason(cli, tmp_path, text, said):
    labels = tmp_path / "labels.json"
    labels.write_text(text, encoding="utf-8")
    result = cli("replay", TRACE, "--labels", str(labels))
    assert result.exit_code == 2
    assert said in result.stderr and "internal error" not in result.stderr


def test_many_long_digit_runs_are_scanned_in_linear_time(cli, tmp_path):
    """Runs of 3,999 digits (one short of refused), 600 of them: scanned once each, not
    once per starting digit (that took about 25 s for this file)."""
    import time

    labels = tmp_path / "labels.json"
    why = " ".join(["9" * 3999] * 600)
    labels.write_text(f'{{"version": 1, "traces": [{{"trace": "seed000_weather_loop", "kind": "loop", "stop_by": 3, "why": "{why}"}}]}}', encoding="utf-8")
    started = time.monotonic()
    result = cli("replay", TRACE, "--labels", str(labels), "-f", "json")
    assert result.exit_code == 0, result.stderr
    assert time.monotonic() - started < 8


@pytest.mark.parametrize("value", ["²", "1" * 5000])
def test_a_labels_csv_round_that_is_no_ascii_number_is_refused_by_line(cli, tmp_path, value):
    labels = tmp_path / "labels.csv"
    labels.write_text(f"trace,kind,stop_by\nseed000_weather_loop,loop,{value}\n", encoding="utf-8")
    result = cli("replay", TRACE, "--labels", str(labels))
    assert result.exit_code == 2
    assert "labels.csv:2: 'stop_by'" in result.stderr and "not a positive round number" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("option", ["--labels", "--baseline", "--config"])
def test_a_fifo_or_endless_device_given_as_a_side_file_is_refused_not_read(tmp_path, option):
    fifo = tmp_path / "side.fifo"
    os.mkfifo(fifo)
    command = ["check", TRACE] if option == "--baseline" else ["replay", TRACE]
    for path in (str(fifo), "/dev/zero"):
        result = _run([*command, option, path], tmp_path, timeout=60)
        assert result.returncode == 2, result.stderr
        assert "not a regular file" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tracecheck.toml", "select = 3\n"),
        ("tracecheck.toml", "select = [1, 2]\n"),
        ("tracecheck.toml", "[guards]\nR001 = 2\n"),
        ("tracecheck.toml", "guards = 4\n"),
        ("pyproject.toml", "tool = 1\n"),
        ("pyproject.toml", "[tool]\ntracecheck = 1\n"),
    ],
)
def test_write_config_into_a_file_of_another_shape_leaves_it_untouched(tmp_path, name, text):
    from tracecheck.config import write_winning_config
    from tracecheck.input.diagnostics import TracecheckError

    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    with pytest.raises(TracecheckError, match="cannot update it"):
        write_winning_config(target, {"guards": {"R001": {"stop_at": 4}}})
    assert target.read_text(encoding="utf-8") == text
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left either


def test_an_output_name_with_terminal_escapes_is_printed_neutralised(cli, tmp_path):
    name = tmp_path / "bl\x1b]0;TITLE\x07.json"
    result = cli("baseline", "write", TRACE, "-o", str(name))
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "bl\\x1b]0;TITLE\\x07.json" in result.stderr
    assert name.exists()
