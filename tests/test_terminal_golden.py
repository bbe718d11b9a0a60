"""The terminal report as people see it, pinned at 80 and 200 columns (golden files kept
by syrupy: ``python -m pytest tests/test_terminal_golden.py --snapshot-update`` rewrites
them after a deliberate change). At 80 columns every line fits: words wrap with a
hanging indent instead of being cut by the terminal, and no line ends in spaces."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from conftest import CORE_CORPUS, SAMPLES

CASES = {
    "weather": ["seed000_weather_loop.jsonl"],
    "dialogue": ["tau_retail_order_lookup_loop.jsonl"],
    "coding": ["swe_test_view_loop.jsonl", "swe_healthy_reproduce_edit_retest.jsonl"],
    "presets": ["seed004_query_db_identical.jsonl", "--preset", "openhands,gemini-cli,default"],
    # Broken expectations with long notes, and the tokenizers' comparison: wrapped too.
    "expectations": [
        "tau_retail_apology_loop.jsonl",
        "seed002_contract_search_token_limit.jsonl",
        "--preset",
        "seeds",
        "--tokenizer",
        "char,jieba",
    ],
}


class GoldenText(SingleFileSnapshotExtension):
    file_extension = "txt"
    _file_extension = "txt"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenText)


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_terminal_report(cli, monkeypatch, golden, case, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    args = [str(SAMPLES / a) if a.endswith(".jsonl") else a for a in CASES[case]]
    result = cli("replay", *args)
    assert result.exit_code == 0, result.stderr
    text = result.stdout.replace(str(SAMPLES) + "/", "sample_traces/")
    for line in text.splitlines():
        assert cell_len(line) <= columns, line
        assert line == line.rstrip(), repr(line)
    assert text == golden


@pytest.mark.parametrize("columns", [30, 100])
@pytest.mark.parametrize(
    "args",
    [
        ["sample_traces", *CORE_CORPUS, "--all-traces"],
        ["sample_traces", "--preset", "default,seeds"],
        *([*CASES[case]] for case in sorted(CASES)),
        [*CORE_CORPUS, "--statistics"],
        [*CORE_CORPUS, "--quiet"],
    ],
)
def test_a_pipe_gets_the_text_a_colour_terminal_shows(cli, monkeypatch, args, columns):
    # To a pipe or a file the report is written without Rich (PlainText lines on a
    # PlainConsole); to a colour terminal Rich renders Text lines. Both must say the same,
    # break for break, at a width the report wraps to and at one narrower than it wraps.
    import re

    from conftest import ROOT

    args = [str(SAMPLES / a) if a.endswith(".jsonl") else str(ROOT / a) if "/" in a or a == "sample_traces" else a for a in args]
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    plain = cli("replay", *args)
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = cli("replay", *args)
    assert plain.exit_code == coloured.exit_code == 0, plain.stderr + coloured.stderr
    assert "\x1b[" in coloured.stdout and "\x1b[" not in plain.stdout
    # (Rich pads a table's cells inside their colour codes: a coloured line may end in
    # spaces a terminal never shows.)
    without_escapes = re.sub(r"\x1b\[[0-9;]*m", "", coloured.stdout)
    assert plain.stdout.splitlines() == [line.rstrip() for line in without_escapes.splitlines()]
