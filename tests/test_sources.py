"""Inputs: compressed streams, directory walks, text and ZIP documents."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import SAMPLES

WEATHER = SAMPLES / "seed000_weather_loop.jsonl"


@pytest.mark.parametrize(("suffix", "opener"), [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_inputs_read_like_the_plain_file(tmp_path, suffix, opener, cli):
    packed = tmp_path / f"runs.jsonl{suffix}"
    with opener(packed, "wb") as out:
        out.write(WEATHER.read_bytes())
    plain = list(read_traces([str(WEATHER)], Diagnostics()))
    diagnostics = Diagnostics()
    unpacked = list(read_traces([str(tmp_path)], diagnostics))  # found by a directory walk too
    assert [str(d) for d in diagnostics] == []
    assert [(t.id, len(t.rounds), t.rounds[-1].text) for t in unpacked] == [(t.id, len(t.rounds), t.rounds[-1].text) for t in plain]
    assert unpacked[0].line == 1 and unpacked[0].rounds[0].line == plain[0].rounds[0].line
    assert "P001 similar-query-stagnation" in cli("replay", str(packed)).stdout


def test_a_truncated_compressed_file_is_reported_and_what_was_read_is_kept(tmp_path, cli):
    data = gzip.compress(WEATHER.read_bytes() * 2)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) * 3 // 4])
    other = tmp_path / "other.jsonl"
    other.write_bytes(WEATHER.read_bytes())
    result = cli("show", "--no-guards", str(cut), str(other))
    assert result.exit_code == 0
    assert f"warning: {cut}: read error" in result.stderr
    assert result.stdout.count("trace seed000_weather_loop") >= 2


def test_directory_walk_picks_supported_files_and_skips_hidden_ones(tmp_path):
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "x.jsonl").write_bytes(WEATHER.read_bytes())
    (tmp_path / "notes.md").write_text("# not a trace\n")
    (tmp_path / "runs.ndjson").write_bytes(WEATHER.read_bytes())
    diagnostics = Diagnostics()
    traces = list(read_traces([str(tmp_path)], diagnostics))
    assert [t.file.endswith("runs.ndjson") for t in traces] == [True]
    assert list(diagnostics) == []
