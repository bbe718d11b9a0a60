"""The terminal report as people see it, pinned at 80 and 200 columns (golden files kept
by syrupy: ``python -m pytest tests/test_terminal_golden.py --snapshot-update`` rewrites
them after a deliberate change). At 80 columns every line fits: words wrap with a
hanging indent instead of being cut by the terminal, and no line ends in spaces."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from conftest import SAMPLES

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
