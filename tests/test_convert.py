"""`tracecheck show` and `convert` on every shipped file of every format: the timeline
renders, and converting to native JSONL reads back as the same model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracecheck.diagnostics import Diagnostics
from tracecheck.load import read_traces

from conftest import FIXTURES, SAMPLES, comparable

CORPUS = FIXTURES.parent / "corpus"
INPUTS = sorted(
    p
    for folder in (SAMPLES, FIXTURES, CORPUS)
    for p in folder.rglob("*")
    if p.is_file() and p.suffix not in (".md", ".py") and "cross_format" not in p.parts
)


def test_there_are_inputs_of_every_shipped_kind():
    assert any(p.is_relative_to(SAMPLES) for p in INPUTS)
    assert any("openai" in str(p) for p in INPUTS) and any("langchain" in str(p) for p in INPUTS)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_convert_then_read_gives_the_same_model(path: Path, tmp_path, cli):
    original = list(read_traces([str(path)], Diagnostics()))
    if not original:
        pytest.skip("a bad-input fixture without any trace")
    shown = cli("show", str(path))
    assert shown.exit_code == 0, shown.output
    assert all(f"trace {t.id}" in shown.stdout for t in original if "\x1b" not in t.id)
    out = tmp_path / "native.jsonl"
    result = cli("convert", str(path), "-o", str(out))
    assert result.exit_code == 0, result.output
    diagnostics = Diagnostics()
    converted = list(read_traces([str(out)], diagnostics))
    assert [comparable(t) for t in converted] == [comparable(t) for t in original]
    # The native file itself is clean: only calls without results (kept as they were)
    # and arguments that were never JSON may be reported again.
    assert all("has no result" in d.reason or "not valid JSON" in d.reason for d in diagnostics), [
        str(d) for d in diagnostics
    ]
