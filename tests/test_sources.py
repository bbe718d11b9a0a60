"""Inputs: compressed streams, directory walks, text and ZIP documents."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import ROOT, SAMPLES

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


def test_a_folder_of_event_files_is_one_source_in_index_order(tmp_path):
    from tracecheck.input.sources import Source, expand_paths, read_records

    events = tmp_path / "conv" / "events"
    events.mkdir(parents=True)
    # Index order, not name order: the SDK pads to five digits and goes on past 99999.
    for index in (100000, 2, 99999, 0):
        (events / f"event-{index:05d}-0a1b2c3d-{index:04x}.json").write_text(f'{{"n": {index}}}')
    (events / ".eventlog.lock").write_text("")  # the SDK's bookkeeping: hidden, skipped
    (tmp_path / "conv" / "base_state.json").write_text("{}")
    (tmp_path / "conv" / "event-notes.json").write_text("{}")  # not an event file name
    diagnostics = Diagnostics()
    sources = expand_paths([str(tmp_path)], diagnostics)
    folder = next(s for s in sources if s.members)
    assert folder.name == str(events)
    assert [m.rsplit("/", 1)[-1].split("-")[1] for m in folder.members] == ["00000", "00002", "99999", "100000"]
    assert sorted(s.name.rsplit("/", 1)[-1] for s in sources if not s.members) == ["base_state.json", "event-notes.json"]
    # Named directly, the events folder is the same one source.
    assert expand_paths([str(events)], diagnostics) == [folder]
    # One record per member, numbered by position; a member's own problems name it.
    (events / "event-00002-0a1b2c3d-0002.json").write_text('{"n": ')
    records = list(read_records(Source(folder.name, folder.members), diagnostics))
    assert [(r.line, r.value) for r in records] == [(1, {"n": 0}), (3, {"n": 99999}), (4, {"n": 100000})]
    assert [(d.file.rsplit("/", 1)[-1], d.line) for d in diagnostics] == [("event-00002-0a1b2c3d-0002.json", 1)]


def test_json_values_written_one_after_another_are_records(tmp_path):
    from tracecheck.input.sources import Source, read_records

    joined = tmp_path / "joined.json"
    joined.write_text('{"a": 1}{"b": [2]} {"c": 3}')  # cat of files without a final newline
    diagnostics = Diagnostics()
    assert [(r.line, r.value) for r in read_records(Source(str(joined)), diagnostics)] == [(1, {"a": 1}), (1, {"b": [2]}), (1, {"c": 3})]
    lines = tmp_path / "lines.jsonl"
    lines.write_text('{"a": 1}\n{"b": 2}{"c": 3}\n{"d": 4}\n')
    assert [(r.line, r.value) for r in read_records(Source(str(lines)), diagnostics)] == [(1, {"a": 1}), (2, {"b": 2}), (2, {"c": 3}), (3, {"d": 4})]
    assert list(diagnostics) == []
    # Not values one after another: still a warning, nothing guessed.
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": 1}{"b": ')
    assert list(read_records(Source(str(broken)), diagnostics)) == []
    assert "not valid JSON" in diagnostics.items[-1].reason


def test_an_openhands_v0_events_folder_is_one_source_read_in_event_order(tmp_path):
    # The V0 server writes sessions/<sid>/events/<id>.json, one event each: read as the
    # event stream they make, in number order (10.json after 9.json), named by the folder.
    from tracecheck.input.sources import expand_paths

    stream = ROOT / "tests" / "fixtures" / "openhands" / "events.jsonl"
    events = tmp_path / "sid-7" / "events"
    events.mkdir(parents=True)
    lines = [line for line in stream.read_text(encoding="utf-8").splitlines() if line.strip()]
    numbers = [0, 1, 2, 9, 10][: len(lines)]
    for number, line in zip(numbers, lines):
        (events / f"{number}.json").write_text(line, encoding="utf-8")
    (tmp_path / "sid-7" / "12.json").write_text(lines[0], encoding="utf-8")  # not in an events folder: a file of its own
    diagnostics = Diagnostics()
    sources = expand_paths([str(tmp_path)], diagnostics)
    assert [(Path(s.name).name, [Path(m).name for m in s.members]) for s in sources] == [
        ("12.json", []),
        ("events", [f"{n}.json" for n in numbers]),
    ]
    (from_folder,) = [t for t in read_traces([str(events)], diagnostics)]
    (from_stream,) = list(read_traces([str(stream)], Diagnostics()))
    assert [(r.index, [c.name for c in r.tool_calls]) for r in from_folder.rounds] == [(r.index, [c.name for c in r.tool_calls]) for r in from_stream.rounds]
    assert from_folder.usage_total == from_stream.usage_total and from_folder.error == from_stream.error
