"""``tracecheck.commands``: each command's plain function, given the request its options
make, writes what the command writes, byte for byte; the CLI only builds the request."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from tracecheck.commands import (
    BaselineRequest,
    CheckRequest,
    ConvertRequest,
    LabelRequest,
    ReplayRequest,
    ShowRequest,
    SweepRequest,
    baseline_prune,
    baseline_write,
    check,
    convert,
    label,
    replay,
    show,
    sweep,
)
from tracecheck.commands.sweep import command_line_dimensions, sweep_dimensions
from tracecheck.config import load_settings
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.input.output_files import open_output

from conftest import ROOT, SAMPLES

CHECKED = ROOT / "tests" / "corpus" / "tau2-bench"


@pytest.mark.parametrize("format", ("terminal", "json", "jsonl", "markdown", "html"))
def test_replay_writes_the_clis_report(cli, tmp_path, format):
    written = tmp_path / "cli.out"
    assert cli("replay", str(SAMPLES), "-f", format, "-o", str(written)).exit_code == 0
    mine = tmp_path / "mine.out"
    with open_output(str(mine)) as out:  # as the CLI writes a file: a terminal report's text layer closes what it wraps
        traces = replay(ReplayRequest([str(SAMPLES)], load_settings(), format=format), out)
    assert mine.read_bytes() == written.read_bytes()
    assert traces == len(json.loads(cli("replay", str(SAMPLES), "-f", "json").stdout)["traces"])


@pytest.mark.parametrize("format", ("terminal", "json", "jsonl"))
def test_show_writes_the_clis_timeline(cli, tmp_path, format):
    written = tmp_path / "cli.out"
    sample = str(SAMPLES / "seed000_weather_loop.jsonl")
    assert cli("show", sample, "-f", format, "-o", str(written)).exit_code == 0
    mine, ids = tmp_path / "mine.out", []
    with open_output(str(mine)) as out:
        assert show(ShowRequest([sample], format=format, settings=load_settings()), out, seen_ids=ids) == (1, 1)
    assert mine.read_bytes() == written.read_bytes() and ids == ["seed000_weather_loop"]


def test_an_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match="unknown show format 'xml'; choose one of: terminal, json, jsonl"):
        show(ShowRequest([str(SAMPLES)], format="xml"), io.BytesIO())
    with pytest.raises(ValueError, match="unknown report format 'csv'; choose one of: terminal, json, jsonl, markdown, html"):
        replay(ReplayRequest([str(SAMPLES)], load_settings(), format="csv"), io.BytesIO())


@pytest.mark.parametrize("format", ("json", "csv", "markdown"))
def test_sweep_writes_the_clis_report(cli, tmp_path, format):
    written = tmp_path / "cli.out"
    assert cli("sweep", str(SAMPLES), "--grid", "P004.threshold=3,4", "-f", format, "-o", str(written)).exit_code == 0
    settings = load_settings()
    dimensions = sweep_dimensions(command_line_dimensions(["P004.threshold=3,4"]), settings)
    mine = tmp_path / "mine.out"
    request = SweepRequest([str(SAMPLES)], settings, dimensions, lambda name: settings, format=format, output=str(mine), to_file=True)
    outcome = sweep(request)
    assert mine.read_bytes() == written.read_bytes() and outcome.config_written is None and outcome.data["points"]


def test_check_writes_the_clis_reports_and_exit_code(cli, tmp_path, capsysbinary):
    sarif, jsonl = tmp_path / "cli.sarif", tmp_path / "cli.jsonl"
    result = cli("check", str(SAMPLES), "--max-wasted-rounds", "1", "-f", "json", "-o", str(sarif), "-o", f"jsonl:{jsonl}")
    assert result.exit_code == 1  # the policy would have saved more than a round somewhere
    mine = {"sarif": tmp_path / "mine.sarif", "jsonl": tmp_path / "mine.jsonl"}
    outputs = [(name, str(path)) for name, path in mine.items()]
    request = CheckRequest([str(SAMPLES)], load_settings(), max_wasted_rounds=1, format="json", outputs=outputs)
    seen = []
    outcome = check(request, on_read=seen.append)
    assert capsysbinary.readouterr().out == result.stdout_bytes
    assert mine["sarif"].read_bytes() == sarif.read_bytes() and mine["jsonl"].read_bytes() == jsonl.read_bytes()
    assert outcome.exit_code == result.exit_code and seen == [json.loads(result.stdout)["traces"]]


def test_baseline_write_and_prune_keep_the_clis_file(cli, tmp_path):
    folder = tmp_path / "traces"
    shutil.copytree(SAMPLES, folder)
    by_cli, mine = tmp_path / "cli-baseline.json", tmp_path / "baseline.json"
    assert cli("baseline", "write", str(folder), "--max-wasted-rounds", "1", "-o", str(by_cli)).exit_code == 0
    written = baseline_write(BaselineRequest(mine, [str(folder)], load_settings(), max_wasted_rounds=1))
    assert mine.read_bytes() == by_cli.read_bytes() and written.findings
    # Without the waste gate those findings are fixed: prune drops them, as the CLI does.
    assert baseline_prune(BaselineRequest(mine, [str(folder)], load_settings())) == (0, len(written.findings))
    assert cli("baseline", "prune", str(by_cli), str(folder)).exit_code == 0
    assert mine.read_bytes() == by_cli.read_bytes()


@pytest.mark.parametrize("format", ("json", "csv"))
def test_label_writes_the_clis_template(cli, tmp_path, format):
    written = tmp_path / f"cli.{format}"
    assert cli("label", str(SAMPLES), "-o", str(written)).exit_code == 0
    out, counted = io.BytesIO(), []
    entries = label(LabelRequest([str(SAMPLES)], format), out, on_read=counted.append)
    assert out.getvalue() == written.read_bytes() and counted == [entries] and entries > 1


def test_convert_writes_the_clis_native_file(cli, tmp_path):
    written = tmp_path / "cli.jsonl.gz"
    assert cli("convert", str(CHECKED), "-o", str(written)).exit_code == 0
    out, diagnostics = io.BytesIO(), Diagnostics()
    count = convert(ConvertRequest([str(CHECKED)], "mine.jsonl.gz"), out, diagnostics=diagnostics)
    assert out.getvalue() == written.read_bytes() and count > 1


def test_the_package_root_offers_exactly_the_command_functions_and_requests():
    # The root lists them itself (importing tracecheck.commands would slow every start-up);
    # the two lists must not drift apart.
    import tracecheck
    import tracecheck.commands as commands

    offered = [name for name in tracecheck.__all__ if name not in ("Monitor", "Decision", "Recorder", "closing_messages", "__version__")]
    assert sorted(offered) == sorted(commands.__all__)
    assert all(getattr(tracecheck, name) is getattr(commands, name) for name in commands.__all__)
