"""Bad input: every problem is a `file:line: reason` warning, every other trace is still
read, and --strict turns any warning into exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import write_jsonl

GOOD = [
    {"type": "round", "trace": "good", "tool_calls": [{"id": "c1", "name": "web_search", "arguments": '{"query": "x"}'}]},
    {"type": "result", "trace": "good", "call_id": "c1", "content": "found"},
    {"type": "round", "trace": "good", "text": "answer"},
]


def lines_of(events):
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)


CASES = {
    "not-json": (
        lines_of(GOOD[:1]) + "this is not json\n" + lines_of(GOOD[1:]),
        2,
        "not valid JSON",
    ),
    "no-known-shape": (
        lines_of(GOOD[:1]) + '{"hello": "world"}\n' + lines_of(GOOD[1:]),
        2,
        "not a tracecheck event",
    ),
    "result-without-call": (
        lines_of(GOOD) + lines_of([{"type": "result", "trace": "good", "call_id": "ghost", "content": "?"}]),
        4,
        "trace good: result for unknown call id 'ghost'",
    ),
    "call-without-result": (
        lines_of(GOOD)
        + lines_of([{"type": "round", "trace": "other", "tool_calls": [{"id": "lost", "name": "f", "arguments": "{}"}]}]),
        4,
        "trace other: call lost (f) has no result",
    ),
    "arguments-not-json": (
        lines_of(GOOD)
        + lines_of(
            [
                {"type": "round", "trace": "other", "tool_calls": [{"id": "b", "name": "f", "arguments": "{'city': 'Paris'"}]},
                {"type": "result", "trace": "other", "call_id": "b", "content": "?"},
            ]
        ),
        4,
        "trace other: call b (f): arguments are not valid JSON",
    ),
    "truncated-last-line": (
        lines_of(GOOD) + '{"type": "round", "trace": "cut", "te',
        4,
        "truncated last line",
    ),
    "invalid-utf8": (
        lines_of(GOOD[:2]) + '{"type": "round", "trace": "good", "text": "caf\udce9"}\n',
        3,
        "invalid UTF-8",
    ),
}


def _write(tmp_path, name, text):
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_bad_input_is_reported_with_file_line_and_reason(case, tmp_path, cli):
    text, line, reason = CASES[case]
    bad = _write(tmp_path, case, text)
    other = write_jsonl(tmp_path / "other.jsonl", [{**e, "trace": "intact"} for e in GOOD])

    result = cli("show", str(bad), str(other))
    assert result.exit_code == 0, result.output
    warnings = [l for l in result.stderr.splitlines() if l.startswith("warning:")]
    assert any(l.startswith(f"warning: {bad}:{line}: ") and reason in l for l in warnings), result.stderr
    # Nothing else lost: the good trace of the bad file and the other file are both shown.
    assert "trace good" in result.stdout and "trace intact" in result.stdout

    strict = cli("show", "--strict", str(bad), str(other))
    assert strict.exit_code == 2
    assert "--strict" in strict.stderr


def test_invalid_utf8_line_is_still_read_with_replacement(tmp_path, cli):
    text, _, _ = CASES["invalid-utf8"]
    result = cli("show", str(_write(tmp_path, "u", text)))
    assert "caf\ufffd" in result.stdout


def test_empty_file_and_missing_file_are_reported_and_others_still_read(tmp_path, cli):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    other = write_jsonl(tmp_path / "other.jsonl", GOOD)
    missing = tmp_path / "missing.jsonl"
    result = cli("show", str(empty), str(other))
    assert result.exit_code == 0
    assert f"warning: {empty}: empty file" in result.stderr
    assert "trace good" in result.stdout
    assert cli("show", "--strict", str(empty), str(other)).exit_code == 2
    # A path named on the command line that is not there is a usage error, as in ruff.
    typo = cli("show", str(missing), str(other))
    assert typo.exit_code == 2 and f"error: {missing}: no such file or directory" in typo.stderr and typo.stdout == ""


def test_the_same_file_named_twice_is_read_once(tmp_path, cli):
    other = write_jsonl(tmp_path / "other.jsonl", GOOD)
    report = json.loads(cli("replay", "--format", "json", str(other), str(other), str(tmp_path)).stdout)
    assert len(report["traces"]) == 1


def test_no_traces_found_is_exit_code_2(tmp_path, cli):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    result = cli("show", str(empty))
    assert result.exit_code == 2
    assert "no traces found" in result.stderr


def test_a_file_in_no_known_format_is_skipped_with_its_lines_accounted_for(tmp_path, cli):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"foo": 1}\n{"foo": 2}\n{"foo": 3}\n')
    other = write_jsonl(tmp_path / "other.jsonl", GOOD)
    result = cli("show", str(odd), str(other))
    assert f"warning: {odd}:1: JSON that matches no known transcript format" in result.stderr
    assert f"warning: {odd}: 2 more record(s) skipped" in result.stderr
    assert "trace good" in result.stdout


def test_unknown_input_format_is_a_usage_error(tmp_path, cli):
    result = cli("show", "--input-format", "nope", str(write_jsonl(tmp_path / "g.jsonl", GOOD)))
    assert result.exit_code == 2
    assert "unknown input format 'nope'" in result.stderr and "native" in result.stderr


def test_no_traceback_reaches_the_user(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "tracecheck", "show", str(tmp_path / "missing.jsonl")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "no such file or directory" in proc.stderr


def test_warnings_are_capped_per_file_and_a_wrong_input_format_is_named(tmp_path, cli):
    """A 360-line native file read as OpenAI chat: twenty warnings, a count of the rest,
    and the format the records look like; another file still gets its own warnings."""
    from conftest import SAMPLES

    native = (SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8")
    big = tmp_path / "big.jsonl"
    big.write_text(native * 20, encoding="utf-8")
    lines = len(big.read_text(encoding="utf-8").splitlines())
    other = tmp_path / "other.jsonl"
    other.write_text(native, encoding="utf-8")
    result = cli("replay", "--input-format", "openai-chat", str(big), str(other))
    assert result.exit_code == 2
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    about_big = [w for w in warnings if w.startswith(f"warning: {big}")]
    assert len(about_big) == 20 + 2
    assert f"warning: {big}: {lines - 20:,} more warnings about this file not shown (the first 20 are above)" in about_big
    hint = f"nothing could be read as openai-chat; the records look like native: did you mean --input-format native (or leave --input-format out)?"
    assert about_big[-1] == f"warning: {big}: {hint}"
    assert [w for w in warnings if w.startswith(f"warning: {other}")][-1] == f"warning: {other}: {hint}"
    # --strict counts every warning, those only counted too.
    noisy = tmp_path / "noisy.jsonl"
    noisy.write_text(native + '{"x": 1}\n' * 30, encoding="utf-8")
    strict = cli("replay", "--strict", str(noisy))
    assert strict.exit_code == 2 and "error: 30 input warning(s) and --strict was given" in strict.stderr
    assert len([line for line in strict.stderr.splitlines() if line.startswith("warning: ")]) == 21
