"""Shared test helpers: a CLI runner with stable (uncoloured, wide) output, file writers,
and the small readers and projections the reader tests have in common."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracecheck.cli.main import app
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

ROOT = Path(__file__).resolve().parent.parent


def fuzz_settings():
    """Hypothesis settings of the fuzz tests: ``TRACECHECK_FUZZ_EXAMPLES=N`` runs N random
    examples; by default a fixed, derandomized 150, to keep the suite short."""
    from datetime import timedelta

    from hypothesis import HealthCheck, settings

    examples = int(os.environ.get("TRACECHECK_FUZZ_EXAMPLES", "0"))
    return settings(
        max_examples=examples or 150,
        derandomize=not examples,
        deadline=timedelta(seconds=5),
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


SAMPLES = ROOT / "sample_traces"
# The corpus folders every reader's real file came with (tests/corpus before the labelled
# families grew it to some 600 runs): what a test that renders whole reports over real
# files walks, where the families add nothing a writer has not met.
CORE_CORPUS = tuple(
    f"tests/corpus/{name}"
    for name in ("CodeTracer", "OpenHands", "SWE-agent", "claude-code-log", "inspect_ai", "langsmith-sdk", "mini-swe-agent", "tau-bench", "tau2-bench")
)
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_sessionstart(session):
    # Many tests start `python -m tracecheck`: each would compile the package from source
    # where PYTHONDONTWRITEBYTECODE is set (as on CI machines). Compiled once here, they
    # read the bytecode (the variable stops writing it, not reading it).
    import compileall

    compileall.compile_dir(str(ROOT / "tracecheck"), quiet=1, workers=1)


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    # Same output locally and under GitHub Actions: no colour, no forced terminal, wide.
    for var in ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TERM", "dumb")
    # A `python -m tracecheck` the tests start runs this checkout, not an installed copy.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))))


@pytest.fixture
def seed_guards(tmp_path_factory, monkeypatch):
    """Run the commands from a folder whose tracecheck.toml selects the seeds' guards as
    shipped (``preset = "seeds"``), for tests about what those guards see rather than
    about which guards tracecheck recommends."""
    folder = tmp_path_factory.mktemp("seeds-config")
    (folder / "tracecheck.toml").write_text('preset = "seeds"\n', encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def cli():
    """Invoke the CLI; returns the result with separate stdout and stderr."""
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        result = runner.invoke(app, list(args), input=input, catch_exceptions=False)
        # The last-resort handler around each reader is a safety net: no test input may
        # reach it (every failure has a message of its own naming file and line).
        assert "reader failed (" not in result.stderr, result.stderr
        return result

    return invoke


def write_jsonl(path: Path, events: list) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    return path


def read_with_diagnostics(*paths: Path, **kwargs):
    """Read ``paths`` through the public API: (list of traces, the Diagnostics collected)."""
    diagnostics = Diagnostics()
    traces = list(read_traces([str(p) for p in paths], diagnostics, **kwargs))
    assert not any("reader failed (" in d.reason for d in diagnostics), [str(d) for d in diagnostics]
    return traces, diagnostics


def warnings_of(diagnostics):
    """Each diagnostic as (file name, line, reason)."""
    return [(Path(d.file).name, d.line, d.reason) for d in diagnostics]


def read_with_warnings(*paths: Path, **kwargs):
    """Read ``paths`` through the public API: (list of traces, warnings as (file name, line, reason))."""
    traces, diagnostics = read_with_diagnostics(*paths, **kwargs)
    return traces, warnings_of(diagnostics)


_CONTENT_ID = re.compile(r"(.+):[0-9a-f]{12}((?:#\d+)?)")


def shown_ids(traces) -> list[str]:
    """The traces' ids, a content-made one (``<file>:<12 hex digits>``, readers/identity.py)
    written ``<file>:@<line>``: a test says which trace has it without pinning a hash."""
    shown = []
    for trace in traces:
        found = _CONTENT_ID.fullmatch(trace.id)
        shown.append(f"{found.group(1)}:@{trace.line}{found.group(2)}" if found else trace.id)
    return shown


def without_digests(text: str) -> str:
    """``text`` (a warning) with the digest of each content-made id written ``<digest>``."""
    return re.sub(r":[0-9a-f]{12}\b", ":<digest>", text)


def by_line(traces) -> dict:
    return {trace.line: trace for trace in traces}


def utc(*parts) -> float:
    """The POSIX timestamp of ``datetime(*parts)`` taken as UTC."""
    return datetime(*parts, tzinfo=timezone.utc).timestamp()


def usage_tuple(usage):
    """A Usage as (input, output, cached, reasoning) tokens, or None."""
    return None if usage is None else (usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.reasoning_tokens)


def round_usage_tuple(rnd):
    """A round's usage as (input, output, cached, reasoning) tokens, or None."""
    return usage_tuple(rnd.usage)


def comparable(trace):
    """The model without where it came from (file, lines and the place in a document
    change on conversion)."""
    data = dataclasses.asdict(trace)
    for key in ("file", "line", "end_line", "pointer"):
        data.pop(key)
    for message in data["user_messages"]:
        message.pop("line")
    for rnd in data["rounds"]:
        rnd.pop("line")
        for call in rnd["tool_calls"]:
            if call["result"] is not None:
                call["result"].pop("line")
    return data


def replay_shape(trace):
    """What a replay uses, in comparable form (arguments parsed, so spelling does not matter)."""
    return {
        "id": trace.id,
        "error": trace.error,
        "ending": trace.ending,
        "usage_total": trace.usage_total,
        "user_messages": [(m.text, m.at, m.before_round) for m in trace.user_messages],
        "rounds": [
            (
                r.index, r.turn, r.id, r.model, r.text, r.usage, r.started_at, r.ended_at, r.finish_reason,
                [
                    (c.id, c.name, c.arguments, None if c.result is None else (
                        c.result.content, c.result.is_error, c.result.started_at, c.result.ended_at))
                    for c in r.tool_calls
                ],
            )
            for r in trace.rounds
        ],
    }


def assert_show_and_convert_round_trip(shown_path: Path, expected: list[str], paths, tmp_path: Path, *show_options: str):
    """`show` one file (its output holds each of ``expected``); `convert` each of ``paths`` and read it back unchanged."""
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(shown_path), *show_options])
    assert shown.exit_code == 0, shown.output
    for text in expected:
        assert text in shown.stdout, text
    for path in paths:
        out = tmp_path / f"{path.stem}.native.jsonl"
        converted = runner.invoke(app, ["convert", str(path), "-o", str(out)])
        assert converted.exit_code == 0, converted.output
        original = list(read_traces([str(path)], Diagnostics()))
        again = list(read_traces([str(out)], Diagnostics()))
        assert original, path.name
        assert [t.id for t in again] == [t.id for t in original], path.name
        assert [comparable(t) for t in again] == [comparable(t) for t in original], path.name


def assert_round_trip_keeps_replay_shape(source: Path, tmp_path: Path):
    """`show` ``source`` (its first trace id is shown); `convert` it and read back the same replay shape and labels, cleanly."""
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(source)])
    assert shown.exit_code == 0, shown.output
    original, _ = read_with_diagnostics(source)
    assert original[0].id in shown.stdout

    out = tmp_path / (source.stem + ".native.jsonl")
    converted = runner.invoke(app, ["convert", str(source), "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    again, diagnostics = read_with_diagnostics(out)
    assert [replay_shape(t) for t in again] == [replay_shape(t) for t in original]
    assert [t.labels for t in again] == [t.labels for t in original]
    assert len(diagnostics) == 0


def first_json_value(path: Path):
    """The first record of a fixture: a JSON Lines file's first line, else the whole document."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return json.loads(text.splitlines()[0]) if path.suffix == ".jsonl" else json.loads(text)


def assert_sniffed_alone(name: str, own: list[Path]) -> None:
    """No other format's fixture is sniffed as format ``name``, and each of ``own`` is
    sniffed as ``name`` (no reader before it takes it)."""
    from tracecheck.readers import reader_by_name, sniff

    mine = reader_by_name(name)
    # The format's fixture folder (its files may sit deeper); a format known only from the
    # corpus has none among the fixtures.
    folder = FIXTURES / own[0].relative_to(FIXTURES).parts[0] if own[0].is_relative_to(FIXTURES) else None
    others = [p for p in FIXTURES.rglob("*") if p.suffix in (".jsonl", ".json") and folder not in p.parents]
    assert len(others) > 50
    for path in others:
        try:
            first = first_json_value(path)
        except (ValueError, IndexError):
            continue
        assert not mine.sniff(first), path
    for path in own:
        assert sniff(first_json_value(path)) is mine, path
