"""Never lose a trace, never write over an input: damaged files, byte-order marks,
compressed and archived standard input, outputs that are inputs, and write errors,
all through the CLI as a user runs it."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import zipfile
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, write_jsonl
from test_reader_inspect_ai import write_eval

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")

SWE_AGENT_TRAJ = ROOT / "tests" / "corpus" / "SWE-agent" / "marshmallow-code__marshmallow-1867.traj"


def events(trace: str, query: str = "weather") -> list[dict]:
    """A small native trace: one search, its result, an answer."""
    return [
        {"type": "labels", "trace": trace, "labels": {"outcome": "success"}},
        {"type": "round", "trace": trace, "tool_calls": [{"id": "c1", "name": "web_search", "arguments": json.dumps({"query": query})}]},
        {"type": "result", "trace": trace, "call_id": "c1", "content": f"results for {query}"},
        {"type": "round", "trace": trace, "text": "the answer"},
    ]


def jsonl(*traces: list[dict]) -> str:
    return "".join(json.dumps(e) + "\n" for t in traces for e in t)


def warnings(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("warning:")]


def reported_ids(result) -> list[str]:
    """Trace ids of a JSON replay report on stdout."""
    return [t["id"] for t in json.loads(result.stdout)["traces"]]


def replay_json(cli, *args, **kwargs):
    result = cli("replay", "--format", "json", *args, **kwargs)
    assert result.exit_code == 0, result.stderr
    return result


# --- the first line of a file ---------------------------------------------------------------


FIRST_LINES = {
    "a truncated first record": '{"type": "labels", "trace": "t1", "labe',
    "a first line that is not JSON": "garbage written by a crashed logger",
    "an unclosed 10 MB first line": '{"type": "round", "trace": "t0", "text": "' + "x" * 10_000_000,
    "a 10,000-deep first line": "[" * 10_000 + "]" * 10_000,
}


@pytest.mark.parametrize("case", sorted(FIRST_LINES))
def test_a_broken_first_line_loses_only_itself(case, tmp_path, cli):
    path = tmp_path / "runs.jsonl"
    path.write_text(FIRST_LINES[case] + "\n" + jsonl(events("t1"), events("t2")))

    result = replay_json(cli, str(path))
    assert reported_ids(result) == ["t1", "t2"]
    assert len(warnings(result)) == 1 and warnings(result)[0].startswith(f"warning: {path}:1: not valid JSON")

    strict = cli("replay", "--format", "json", "--strict", str(path))
    assert strict.exit_code == 2
    assert [t["id"] for t in json.loads(strict.stdout)["traces"]] == ["t1", "t2"]  # the report still comes


@pytest.mark.parametrize("first", ["garbage from a crashed logger", '{"type": "labels", "trace": "t1", "lab'])
def test_several_broken_first_lines_lose_only_themselves(first, tmp_path, cli):
    path = tmp_path / "runs.jsonl"
    path.write_text(first + "\nmore garbage\n" + '{"cut": \n' + jsonl(events("t1"), events("t2")))
    result = replay_json(cli, str(path))
    assert reported_ids(result) == ["t1", "t2"]
    assert [w.split(": ")[1] for w in warnings(result)] == [f"{path}:{n}" for n in (1, 2, 3)]


def test_plain_text_with_a_json_line_in_it_stays_text(tmp_path, cli):
    transcript = (
        "Question: what is the weather in Paris?\n"
        "Thought: I should search.\n"
        "Action: web_search\n"
        'Action Input: {"query": "Paris weather"}\n'
        '{"results": ["sunny"]}\n'
        "Observation: sunny, 21°C\n"
        "Thought: I now know the final answer\n"
        "Final Answer: Sunny, 21°C.\n"
    )
    path = tmp_path / "run.txt"
    path.write_text(transcript)
    report = json.loads(replay_json(cli, str(path)).stdout)
    assert [t["format"] for t in report["traces"]] == ["react-text"]


def test_a_pretty_printed_document_is_still_one_document(tmp_path, cli):
    # Lines inside a document can be whole JSON on their own (the last element of an
    # array); one such line does not make the file JSON Lines.
    conversation = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": "{\"query\": \"weather\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "assistant", "content": "It is sunny."},
    ]
    path = tmp_path / "conversation.json"
    path.write_text('{"messages": [\n' + ",\n".join(json.dumps(m) for m in conversation[:-1]) + ",\n" + json.dumps(conversation[-1]) + "\n]}\n")
    result = replay_json(cli, str(path))
    assert len(reported_ids(result)) == 1 and not warnings(result)
    assert json.loads(result.stdout)["traces"][0]["rounds"] == 2


def test_a_byte_order_mark_is_dropped_from_json_lines_and_documents(tmp_path, cli):
    lines = tmp_path / "bom.jsonl"
    lines.write_bytes(b"\xef\xbb\xbf" + jsonl(events("t1")).encode())
    document = tmp_path / "bom.traj"
    document.write_bytes(b"\xef\xbb\xbf" + SWE_AGENT_TRAJ.read_bytes())

    result = replay_json(cli, str(lines), str(document))
    traces = json.loads(result.stdout)["traces"]
    assert [t["file"] for t in traces] == [str(lines), str(document)]
    # The first record of the JSON Lines file (the labels) was read, not dropped.
    assert traces[0]["labels"] == {"outcome": "success"}
    assert not warnings(result)


def test_records_of_no_known_shape_before_the_real_ones_are_skipped_not_the_file(tmp_path, cli):
    path = tmp_path / "mixed.jsonl"
    noise = "".join(json.dumps({"log": "starting", "n": n}) + "\n" for n in range(7))
    path.write_text(noise + jsonl(events("t1")))

    result = replay_json(cli, str(path))
    assert reported_ids(result) == ["t1"]
    assert warnings(result) == [
        *(f"warning: {path}:{n}: record that matches no native shape, skipped" for n in range(1, 6)),
        f"warning: {path}: 2 more record(s) up to line 7 match no native shape, skipped",
    ]


# --- compressed and archived input, by magic bytes --------------------------------------------


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_compressed_standard_input_is_read(compress, cli):
    result = replay_json(cli, "-", input=compress(jsonl(events("t1")).encode()))
    assert reported_ids(result) == ["t1"]
    assert json.loads(result.stdout)["traces"][0]["file"] == "<stdin>"


def test_an_eval_archive_on_standard_input_and_gzipped_on_disk(tmp_path, cli):
    archive = write_eval(tmp_path / "run.eval")
    expected = reported_ids(replay_json(cli, str(archive)))
    assert len(expected) >= 2

    assert reported_ids(replay_json(cli, "-", input=archive.read_bytes())) == expected

    packed = tmp_path / "packed" / "run.eval.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(archive.read_bytes()))
    assert reported_ids(replay_json(cli, str(packed))) == expected
    assert reported_ids(replay_json(cli, str(packed.parent))) == expected  # found by a directory walk
    assert reported_ids(replay_json(cli, "-", input=packed.read_bytes())) == expected


def _corrupt_gzip(data: bytes) -> bytes:
    packed = bytearray(gzip.compress(data))
    packed[10] = 0xFF  # the first deflate block header: an invalid block type (zlib.error)
    return bytes(packed)


def _zip_with_unsupported_version(path: Path) -> Path:
    write_eval(path)
    data = bytearray(path.read_bytes())
    central = data.find(b"PK\x01\x02")
    data[central + 6] = 99  # "version needed to extract": 9.9
    path.write_bytes(bytes(data))
    return path


def _zip_with_an_invalid_utf8_name(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", "{}")
        archive.writestr("samples/é_epoch_1.json", "{}")  # a non-ASCII name sets the UTF-8 flag
    path.write_bytes(path.read_bytes().replace("é".encode(), b"\xff\xfe"))
    return path


DAMAGED = {
    "corrupt gzip data": ("bad.jsonl.gz", lambda p: p.write_bytes(_corrupt_gzip(jsonl(events("lost")).encode())), "read error: "),
    "a ZIP of an unsupported version": ("bad.eval", _zip_with_unsupported_version, "cannot open the ZIP archive: zip file version 9.9"),
    "a ZIP member name flagged UTF-8 that is not": ("bad.eval", _zip_with_an_invalid_utf8_name, "cannot open the ZIP archive: a name in it is not valid UTF-8"),
}


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_one_damaged_file_costs_only_itself(case, tmp_path, cli):
    name, make, reason = DAMAGED[case]
    (tmp_path / "in").mkdir()
    bad = tmp_path / "in" / name
    make(bad)
    write_jsonl(tmp_path / "in" / "z_good.jsonl", events("good"))

    result = cli("replay", "--format", "json", str(tmp_path / "in"))
    assert result.exit_code == 0, result.stderr
    assert reported_ids(result) == ["good"]
    assert any(w.startswith(f"warning: {bad}: {reason}") for w in warnings(result)), result.stderr
    assert "internal error" not in result.stderr
    assert cli("replay", "--strict", str(tmp_path / "in")).exit_code == 2


# --- values orjson cannot write back ----------------------------------------------------------


def test_arguments_nested_300_deep_are_read_and_compared(tmp_path, cli):
    deep: object = "x"
    for _ in range(300):
        deep = {"a": deep}
    calls = [
        event
        for n in range(3)
        for event in (
            {"type": "round", "trace": "deep", "tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": deep}]},
            {"type": "result", "trace": "deep", "call_id": f"c{n}", "content": f"page {n}"},
        )
    ]
    path = write_jsonl(tmp_path / "deep.jsonl", [*calls, {"type": "round", "trace": "deep", "text": "done"}, *events("after")])

    report = json.loads(replay_json(cli, str(path)).stdout)
    assert [t["id"] for t in report["traces"]] == ["deep", "after"]  # the rest of the file is read
    fires = report["traces"][0]["fires"]
    assert [(f["code"], f["round"], f["action"]) for f in fires if f["code"] == "R001"] == [("R001", 2, "hint"), ("R001", 3, "stop")]

    out = tmp_path / "out.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    assert [t["id"] for t in json.loads(replay_json(cli, str(out)).stdout)["traces"]] == ["deep", "after"]


# --- outputs ------------------------------------------------------------------------------------


def test_convert_refuses_to_write_over_its_input(tmp_path, cli):
    path = write_jsonl(tmp_path / "x.jsonl", events("t1"))
    before = path.read_bytes()
    result = cli("convert", str(path), "-o", str(path))
    assert result.exit_code == 2
    assert f"error: the output {path} is also an input" in result.stderr
    assert path.read_bytes() == before


def test_replay_refuses_to_write_its_report_over_an_input_found_in_a_directory(tmp_path, cli):
    folder = tmp_path / "runs"
    folder.mkdir()
    path = write_jsonl(folder / "y.jsonl", events("t1"))
    before = path.read_bytes()
    result = cli("replay", str(folder), "--format", "jsonl", "-o", str(path))
    assert result.exit_code == 2 and "is also an input" in result.stderr
    assert path.read_bytes() == before


def test_convert_into_the_directory_it_reads_never_reads_its_own_output(tmp_path, cli):
    folder = tmp_path / "runs"
    folder.mkdir()
    # Larger than a write buffer, so a half-written output would be visible to a reader.
    write_jsonl(folder / "a.jsonl", [e for n in range(200) for e in events(f"t{n}", "q" * 200)])
    out = folder / "z.jsonl"
    result = cli("convert", str(folder), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "wrote 200 trace(s)" in result.stderr
    assert [json.loads(line)["type"] for line in out.read_text().splitlines()].count("trace") == 200
    assert sorted(p.name for p in folder.iterdir()) == ["a.jsonl", "z.jsonl"]  # no temporary left behind


def test_a_failed_run_leaves_an_existing_output_as_it_was(tmp_path, cli):
    out = tmp_path / "report.json"
    out.write_text("yesterday's report\n")
    missing = tmp_path / "missing.jsonl"
    result = cli("replay", str(missing), "--format", "json", "-o", str(out))
    assert result.exit_code == 2
    # No traces: the report is not written, the old one stays, and no temporary is left.
    assert out.read_text() == "yesterday's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [("replay",), ("replay", "--format", "json"), ("convert",)])
def test_a_full_disk_is_a_clear_error_naming_the_output(command, tmp_path, cli):
    path = write_jsonl(tmp_path / "x.jsonl", events("t1"))
    result = cli(*command, str(path), "-o", "/dev/full")
    assert result.exit_code == 2
    assert "error: cannot write /dev/full: no space left on device" in result.stderr
    assert "internal error" not in result.stderr


def test_an_output_in_a_missing_folder_is_a_clear_error(tmp_path, cli):
    path = write_jsonl(tmp_path / "x.jsonl", events("t1"))
    result = cli("convert", str(path), "-o", str(tmp_path / "nowhere" / "out.jsonl"))
    assert result.exit_code == 2
    assert f"error: cannot write {tmp_path / 'nowhere' / 'out.jsonl'}: no such file or directory" in result.stderr


def test_a_json_report_is_written_whole_whatever_numbers_a_trace_holds(tmp_path, cli):
    huge = [
        {"type": "round", "trace": "huge", "text": "hi", "usage": {"input_tokens": 1e300, "output_tokens": 18446744073709551616}},
        {"type": "end", "trace": "huge", "usage": {"input_tokens": 2**64, "output_tokens": 5}},
    ]
    path = write_jsonl(tmp_path / "huge.jsonl", [*huge, *events("after")])
    for format in ("json", "jsonl"):
        result = cli("replay", "--format", format, str(path))
        assert result.exit_code == 0, result.stderr
        if format == "json":
            assert reported_ids(result) == ["huge", "after"]
        else:
            lines = [json.loads(line) for line in result.stdout.splitlines()]
            assert [line["id"] for line in lines if line["type"] == "trace"] == ["huge", "after"]
            assert lines[-1]["type"] == "totals"
    out = tmp_path / "out.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    assert reported_ids(replay_json(cli, str(out))) == ["huge", "after"]


def test_text_cut_inside_a_surrogate_pair_is_read_and_reported(tmp_path, cli):
    # Python's json.dumps writes a lone surrogate as an escape; orjson alone refuses the line.
    cut = [
        {"type": "round", "trace": "cut", "tool_calls": [{"id": "c1", "name": "read_file", "arguments": "{}"}]},
        {"type": "result", "trace": "cut", "call_id": "c1", "content": "emoji cut in half: \ud83d"},
        {"type": "round", "trace": "cut", "text": "done"},
    ]
    path = tmp_path / "cut.jsonl"
    path.write_text(jsonl(cut, events("after")))
    assert '"\\ud83d"' in path.read_text() or "\\ud83d" in path.read_text()

    assert reported_ids(replay_json(cli, str(path))) == ["cut", "after"]
    for args in (("replay",), ("replay", "--format", "markdown"), ("replay", "--format", "jsonl"), ("show",)):
        result = cli(*args, str(path))
        assert result.exit_code == 0 and not warnings(result), (args, result.stderr)
    assert "emoji cut in half: \\ud83d" in cli("show", str(path)).stdout
    out = tmp_path / "out.jsonl"
    assert cli("convert", str(path), "-o", str(out)).exit_code == 0
    assert reported_ids(replay_json(cli, str(out))) == ["cut", "after"]
