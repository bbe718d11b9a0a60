"""``tracecheck.integrations.dask``: the replay report on a Dask cluster (here a local one of
two worker processes) is the report ``tracecheck replay`` writes, byte for byte."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, SAMPLES

pytest.importorskip("dask")
pytest.importorskip("distributed")

from tracecheck.cli.app import preset_settings, tokenizer_list  # noqa: E402
from tracecheck.commands import ReplayRequest  # noqa: E402
from tracecheck.integrations.dask import replay_on_dask  # noqa: E402
from tracecheck.input.diagnostics import Diagnostics, TracecheckError  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
INPUTS = [
    str(SAMPLES),
    str(CORPUS / "OpenHands" / "basic.json"),
    str(CORPUS / "SWE-agent" / "marshmallow-code__marshmallow-1867.traj"),
    str(CORPUS / "tau2-bench" / "airline_grok-4-fast-reasoning.json.gz"),
    str(CORPUS / "claude-code-log" / "representative_messages.jsonl"),
]


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


def dask_report(paths, *, client, format="json", preset=None, tokenizer=None, files_per_partition=None, **options):
    """The report and warnings of the Dask replay, with the CLI's settings for these options."""
    names = tokenizer_list(tokenizer)
    settings, presets = preset_settings(None, None, None, None, names, preset)
    out, diagnostics = io.BytesIO(), Diagnostics()
    request = ReplayRequest([str(p) for p in paths], settings, format=format, tokenizers=names, presets=presets, **options)
    traces = replay_on_dask(request, out, diagnostics=diagnostics, client=client, files_per_partition=files_per_partition)
    return traces, out.getvalue(), [str(d) for d in diagnostics]


def cli_report(cli, paths, *options):
    result = cli("replay", *options, *[str(p) for p in paths])
    warnings = [line.removeprefix("warning: ") for line in result.stderr.splitlines() if line.startswith("warning: ")]
    return result, warnings


@pytest.mark.parametrize(("format", "files_per_partition"), [("json", 1), ("json", None), ("jsonl", 3), ("markdown", 2), ("html", 2)])
def test_the_report_is_the_clis_byte_for_byte(cli, client, format, files_per_partition):
    expected, _ = cli_report(cli, INPUTS, "--format", format)
    assert expected.exit_code == 0, expected.stderr
    traces, written, _ = dask_report(INPUTS, client=client, format=format, files_per_partition=files_per_partition)
    assert written == expected.stdout_bytes
    if format == "json":
        assert traces == len(json.loads(written)["traces"]) > 30


def test_the_terminal_report_to_a_file_is_the_clis(cli, client, tmp_path):
    target = tmp_path / "report.txt"
    assert cli("replay", "--format", "terminal", "-o", str(target), *INPUTS).exit_code == 0
    from tracecheck.config import load_settings
    from tracecheck.input.output_files import open_output

    with open_output(str(tmp_path / "dask.txt")) as out:  # as the CLI writes -o FILE
        replay_on_dask(ReplayRequest(INPUTS, load_settings(), format="terminal"), out, client=client, files_per_partition=2)
    assert (tmp_path / "dask.txt").read_bytes() == target.read_bytes()


def test_presets_side_by_side_tokenizers_and_only_fires_too(cli, client):
    options = ("--preset", "default,seeds", "--tokenizer", "char,jieba", "--only-fires")
    paths = sorted(SAMPLES.glob("seed00*.jsonl"))
    expected, _ = cli_report(cli, paths, "--format", "jsonl", *options)
    _, written, _ = dask_report(
        paths, client=client, format="jsonl", preset="default,seeds", tokenizer="char,jieba", only_fires=True, files_per_partition=3
    )
    assert b'"by_preset"' in written and b'"tokenizer_comparison"' in written
    assert written == expected.stdout_bytes


def test_bad_lines_give_the_clis_warnings_in_its_order(cli, client, tmp_path):
    good = (SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "a_bad_line.jsonl").write_text(good[0] + "{not json\n" + "".join(good[1:]), encoding="utf-8")
    (tmp_path / "b_unknown.jsonl").write_text('{"what": 1}\n{"what": 2}\n', encoding="utf-8")
    (tmp_path / "c_good.jsonl").write_text("".join(good), encoding="utf-8")
    paths = [tmp_path]
    expected, warnings = cli_report(cli, paths, "--format", "json")
    assert len(warnings) >= 2  # the bad line, the unknown file
    traces, written, diagnostics = dask_report(paths, client=client, files_per_partition=1)
    assert diagnostics == warnings
    assert (traces, written) == (2, expected.stdout_bytes)


def test_labels_are_applied_and_warned_about_across_files(cli, client, tmp_path):
    tau = FIXTURES / "tau_bench"
    paths = [tau / "tau_results.json", tau / "tau2_results.json"]
    labels = tmp_path / "labels.csv"
    labels.write_text("trace,label.note\ntask-0/trial-0,both\nno-such-trace,never\n", encoding="utf-8")
    expected, warnings = cli_report(cli, paths, "--format", "json", "--labels", str(labels))
    assert any("went to traces in 2 files" in w for w in warnings) and any("no trace matches" in w for w in warnings)
    _, written, diagnostics = dask_report(paths, client=client, labels=str(labels), files_per_partition=1)
    assert diagnostics == warnings
    assert written == expected.stdout_bytes


def test_a_selection_replays_only_its_traces_and_counts_the_rest(cli, client, tmp_path):
    """``-k`` on the cluster: the request's selection leaves the same traces out, and the
    terminal report counts them as deselected, as the CLI's does."""
    from tracecheck.config import load_settings
    from tracecheck.input.output_files import open_output
    from tracecheck.input.selection import parse_selection

    target = tmp_path / "cli.txt"
    assert cli_report(cli, [SAMPLES], "-k", "weather or pagination", "-o", str(target))[0].exit_code == 0
    request = ReplayRequest([str(SAMPLES)], load_settings(), selection=parse_selection("weather or pagination"))
    with open_output(str(tmp_path / "dask.txt")) as out:  # a terminal report's text layer closes what it wraps
        traces = replay_on_dask(request, out, client=client, files_per_partition=4)
    assert 0 < traces < len(list(SAMPLES.glob("*.jsonl")))
    assert (tmp_path / "dask.txt").read_bytes() == target.read_bytes() and b"deselected" in target.read_bytes()


def test_no_traces_writes_nothing_with_the_clis_warnings(cli, client, tmp_path):
    (tmp_path / "junk.jsonl").write_text('{"what": 1}\n', encoding="utf-8")
    expected, warnings = cli_report(cli, [tmp_path], "--format", "json")
    assert expected.exit_code == 2 and "error: no traces found" in expected.stderr and expected.stdout == ""
    traces, written, diagnostics = dask_report([tmp_path], client=client)
    assert (traces, written, diagnostics) == (0, b"", warnings)
    assert dask_report([], client=client)[:2] == (0, b"")


def test_without_a_client_it_runs_on_dasks_local_threads(cli):
    import dask

    expected, _ = cli_report(cli, [SAMPLES], "--format", "json")
    with dask.config.set(scheduler="threads"):
        _, written, _ = dask_report([SAMPLES], client=None, files_per_partition=2)
    assert written == expected.stdout_bytes


def test_standard_input_is_refused(client):
    with pytest.raises(TracecheckError, match="standard input"):
        dask_report(["-"], client=client)


def test_importing_tracecheck_does_not_import_dask():
    code = "import sys, tracecheck, tracecheck.cli.main, tracecheck.commands; print([m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')])"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_the_readme_snippet_runs_as_a_script_and_writes_the_clis_report(cli, tmp_path, monkeypatch):
    """Saved as a file and run with ``python``, the README's snippet starts a cluster of
    worker processes on this machine (which import the script again: the ``__main__``
    guard) and writes what ``tracecheck replay --format json runs/`` prints."""
    import re
    import shutil

    section = (ROOT / "README.md").read_text(encoding="utf-8").split("### More than one machine\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    (tmp_path / "runs").mkdir()
    shutil.copy(SAMPLES / "seed000_mixed_round.jsonl", tmp_path / "runs")
    (tmp_path / "replay_on_dask.py").write_text(block, encoding="utf-8")
    run = subprocess.run([sys.executable, "replay_on_dask.py"], cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    monkeypatch.chdir(tmp_path)
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == cli("replay", "--format", "json", "runs/").stdout
