"""Every report of every command, in every format, on sample_traces/, and the JSON of
replay, show and check and the conversion of tests/corpus/ (scripts/report_bytes.py
says why), are byte-for-byte what tests/report_bytes.json records (exit code and
digests of both streams). A refactoring must leave them all alone; a change of output
that is meant rewrites the manifest in the same commit:

    python scripts/report_bytes.py --write tests/report_bytes.json sample_traces tests/corpus
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("report_bytes", ROOT / "scripts" / "report_bytes.py")
report_bytes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_bytes)

MANIFEST = json.loads((ROOT / "tests" / "report_bytes.json").read_text(encoding="utf-8"))
INPUTS = [str(ROOT / p) for p in MANIFEST["inputs"]]
RUNS = report_bytes.invocations([p.rsplit("/", 1)[-1] for p in MANIFEST["inputs"]])


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return tmp_path_factory.mktemp("report-bytes")


@pytest.mark.parametrize("args", RUNS, ids=[" ".join(a) for a in RUNS])
def test_report_bytes_unchanged(args, staged, monkeypatch):
    report_bytes.stage(INPUTS, staged)
    monkeypatch.chdir(staged)
    assert report_bytes.run_one(args) == MANIFEST["reports"][" ".join(args)]


def test_manifest_covers_every_format_of_every_command():
    # Every format a command offers is in the matrix, so a new format is not left out.
    from tracecheck.cli.main import app
    from typer.testing import CliRunner

    recorded = set(MANIFEST["reports"])
    for command, formats in (("replay", report_bytes.REPLAY_FORMATS), ("show", report_bytes.SHOW_FORMATS),
                             ("sweep", report_bytes.SWEEP_FORMATS), ("check", report_bytes.CHECK_FORMATS),
                             ("label", report_bytes.LABEL_FORMATS)):
        help_text = " ".join(CliRunner().invoke(app, [command, "--help"]).stdout.split())
        offered = help_text.split("[one of: ", 1)[1].split("]", 1)[0]
        assert sorted(f.strip() for f in offered.split(",")) == sorted(formats), command
        for fmt in formats:
            assert any(k.startswith(f"{command} ") and f"-f {fmt}" in k for k in recorded), (command, fmt)
