"""``replay --jobs N`` on one large JSON Lines file: the file is cut into parts that
workers read side by side, and every report is still the one a single process writes,
byte for byte (traces, ids, warnings with the whole file's line numbers, labels)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tracecheck.config import load_settings
from tracecheck.engine.batch import replay_stream
from tracecheck.input.sources import Source
from tracecheck.readers.load import plan_parts

from conftest import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
FORMATS = ("json", "jsonl", "markdown", "terminal", "html")
SIZE = 2_200_000  # bytes of each large file: 8 parts for 2 jobs


_SAMPLE_EVENTS = [
    [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] for path in sorted(SAMPLES.glob("*.jsonl"))
]
DAMAGE = ("{not json", "[1, 2", '{"type": "round", "trace": ')


def _native_copy(copy: int, damage: bool = False) -> list[str]:
    """The samples' runs, their ids made this copy's own; ``damage``: a broken line after
    every fourth run."""
    lines = []
    for number, events in enumerate(_SAMPLE_EVENTS):
        lines.extend(json.dumps({**event, "trace": f"{event['trace']}-{copy}"}, ensure_ascii=False) for event in events)
        if damage and number % 4 == 3:
            lines.append(DAMAGE[number % len(DAMAGE)])
    return lines


_SIMULATIONS = json.loads((CORPUS / "tau2-bench" / "telecom-workflow_grok-3.json").read_text(encoding="utf-8"))["simulations"]
_TRAJECTORIES = [
    (path.parent.name, json.loads(path.read_text(encoding="utf-8"))) for path in sorted((CORPUS / "CodeTracer").glob("*/trajectory.json"))[:12]
]


def _tau2_copy(copy: int) -> list[str]:
    return [json.dumps({**simulation, "trial": f"{simulation.get('trial')}-{copy}"}, ensure_ascii=False) for simulation in _SIMULATIONS]


def _atif_copy(copy: int, session_ids: bool = True) -> list[str]:
    lines = []
    for name, trajectory in _TRAJECTORIES:
        trajectory = dict(trajectory)
        if session_ids:
            trajectory["session_id"] = f"{name}-{copy}"
        else:
            trajectory.pop("session_id", None)  # every trace named by the file: ids repeat
        lines.append(json.dumps(trajectory, ensure_ascii=False))
    return lines


def _write(path: Path, copies, damage_every: int = 0, last: bytes = b"") -> tuple[Path, list[int]]:
    """Copies of lines up to SIZE bytes, a damaged line after every ``damage_every``
    copies, then ``last`` (no newline); with the numbers of the damaged lines."""
    data, copy = [], 0
    size = 0
    while size < SIZE:
        lines = copies(copy)
        data.extend(lines)
        size += sum(len(line) + 1 for line in lines)
        copy += 1
        if damage_every and copy % damage_every == 0:
            data.append(DAMAGE[copy % len(DAMAGE)])
    path.write_bytes("".join(line + "\n" for line in data).encode("utf-8") + last)
    return path, [number for number, line in enumerate(data, 1) if line in DAMAGE]


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> dict[str, tuple[Path, list[int]]]:
    root = tmp_path_factory.mktemp("jobs-split")
    files = {
        # native events with damaged lines between the runs (more than the 20 warnings a
        # file shows) and a last line cut short
        "native": _write(root / "native.jsonl", lambda copy: _native_copy(copy, damage=True), last=b'{"type": "end", "trace": "cut'),
        "tau2": _write(root / "tau2.jsonl", _tau2_copy, damage_every=3),
        "atif": _write(root / "atif.jsonl", _atif_copy, damage_every=2),
    }
    # Trace ids taken from the file name: each repeats, numbered by order in the whole file.
    files["atif-file-ids"] = _write(root / "atif-file-ids.jsonl", lambda copy: _atif_copy(copy, session_ids=False))
    # A run that stays open across the whole file: no cut holds, the file is read whole.
    first = _native_copy(0)[0]
    interleaved = [first, *(line for copy in range(1, 9) for line in _native_copy(copy))]
    interleaved.append(json.dumps({"type": "round", "trace": json.loads(first)["trace"], "text": "the end"}))
    (root / "interleaved.jsonl").write_text("\n".join(interleaved) + "\n", encoding="utf-8")
    files["interleaved"] = (root / "interleaved.jsonl", [])
    # A run whose id comes back after its end, far down the file: a warning at that line.
    again = [line for copy in range(8) for line in _native_copy(copy)]
    again.append(json.dumps({"type": "user", "trace": json.loads(again[0])["trace"], "text": "and again"}))
    (root / "again.jsonl").write_text("\n".join(again) + "\n", encoding="utf-8")
    files["again"] = (root / "again.jsonl", [])
    return files


def path_lines(path: str) -> list[bytes]:
    return Path(path).read_bytes().splitlines()


def _replay(cli, *args: str):
    result = cli("replay", *args)
    return result.exit_code, result.stdout_bytes, result.stderr


def test_the_large_files_are_cut_where_their_formats_allow(large):
    for name in ("native", "tau2", "atif"):
        reader, spans = plan_parts(Source(str(large[name][0])), None, 8)
        assert len(spans) >= 4 and reader == {"native": "native", "tau2": "tau-bench", "atif": "atif"}[name]
        lines = large[name][0].read_bytes().split(b"\n")
        for span in spans[1:]:  # each cut before a line the format allows, numbered as in the whole file
            offset = sum(len(line) + 1 for line in lines[: span.line - 1])
            assert offset == span.start
            first = json.loads(lines[span.line - 1])
            assert name != "native" or first["type"] == "trace"


def test_a_format_that_cannot_be_cut_is_not(tmp_path):
    """LangSmith runs come in any order: a run's children may be anywhere in the file."""
    runs = (CORPUS / "langsmith-sdk" / "langsmith_py_wrap_openai_.json").read_text(encoding="utf-8")
    values = json.loads(runs)
    values = values if isinstance(values, list) else [values]
    line = "\n".join(json.dumps(v) for v in values) + "\n"
    path = tmp_path / "runs.jsonl"
    path.write_text(line * (SIZE // len(line) + 1), encoding="utf-8")
    assert plan_parts(Source(str(path)), None, 8) is None
    gz = tmp_path / "native.jsonl.gz"
    import gzip

    gz.write_bytes(gzip.compress(("\n".join(_native_copy(0) * 200) + "\n").encode()))
    assert plan_parts(Source(str(gz)), None, 8) is None  # compressed: no seeking


def _pid(item) -> int:
    return os.getpid()


def test_one_large_file_is_replayed_by_several_workers(large):
    pids = set(replay_stream([str(large["native"][0])], load_settings(), jobs=2, prepare=_pid))
    assert len(pids) == 2 and os.getpid() not in pids


@pytest.mark.parametrize("format", FORMATS)
def test_every_format_is_the_same_with_two_and_three_jobs(cli, large, format):
    for name in ("native", "tau2", "atif"):
        path = str(large[name][0])
        one = _replay(cli, path, "-f", format, "--jobs", "1")
        assert one[0] == 0 and one[1]
        assert _replay(cli, path, "-f", format, "--jobs", "2") == one, name
        assert _replay(cli, path, "-f", format, "--jobs", "3") == one, name


def test_a_named_input_format_is_the_same_with_two_jobs(cli, large):
    for name, format in (("native", "native"), ("tau2", "tau-bench"), ("atif-file-ids", "atif")):
        path = str(large[name][0])
        one = _replay(cli, path, "-f", "jsonl", "--input-format", format, "--jobs", "1")
        assert one[0] == 0 and _replay(cli, path, "-f", "jsonl", "--input-format", format, "--jobs", "2") == one, name


def test_warnings_name_the_lines_of_the_whole_file(cli, large):
    path, damaged = large["native"]
    code, out, err = _replay(cli, str(path), "-f", "json", "--jobs", "2")
    assert (code, out, err) == _replay(cli, str(path), "-f", "json", "--jobs", "1")
    assert len(damaged) > 20
    for line in damaged[:20]:  # a file shows its first 20 warnings, then a count
        assert f"{path.name}:{line}: not valid JSON" in err
    assert f"{path.name}:{damaged[20]}:" not in err
    assert "more warnings about this file not shown" in err
    last = len(path.read_bytes().split(b"\n"))
    assert f"{path.name}:{last}: truncated last line" not in err  # past the 20 shown, counted
    report = json.loads(out)
    assert report["traces"] and all(trace["file"].endswith("native.jsonl") for trace in report["traces"])
    for name in ("tau2", "atif"):
        path, damaged = large[name]
        err = _replay(cli, str(path), "-f", "json", "--jobs", "3")[2]
        assert [line for line in damaged if f"{path.name}:{line}: not valid JSON" in err] == damaged


def test_files_whose_cuts_do_not_hold_are_read_whole_the_same(cli, large):
    for name in ("atif-file-ids", "interleaved", "again"):
        path = str(large[name][0])
        one = _replay(cli, path, "-f", "jsonl", "--jobs", "1")
        assert _replay(cli, path, "-f", "jsonl", "--jobs", "2") == one, name
        ids = [json.loads(line).get("id") for line in one[1].splitlines()]
        if name == "atif-file-ids":
            assert "atif-file-ids#2" in ids
        if name == "again":
            assert f"again.jsonl:{len(path_lines(path))}: trace " in one[2] and "event after its 'end' event starts a new trace" in one[2]


def test_labels_and_selection_are_the_same_with_two_jobs(cli, large, tmp_path):
    path = large["tau2"][0]
    report = json.loads(_replay(cli, str(path), "-f", "json", "--jobs", "1")[1])
    ids = [trace["id"] for trace in report["traces"]]
    labels = tmp_path / "labels.json"
    entries = [
        {"trace": ids[1], "outcome": "failure", "labels": {"scenario": "picked"}},
        {"trace": ids[-2], "outcome": "success"},  # in the last part
        {"trace": "no-such-trace", "outcome": "failure"},
    ]
    labels.write_text(json.dumps({"version": 1, "traces": entries}), encoding="utf-8")
    for args in (("--labels", str(labels)), ("--labels", str(labels), "-k", "picked or success")):
        one = _replay(cli, str(path), "-f", "jsonl", *args, "--jobs", "1")
        assert _replay(cli, str(path), "-f", "jsonl", *args, "--jobs", "2") == one
        assert "no-such-trace" in one[2]
