"""Shared test helpers: a CLI runner with stable (uncoloured, wide) output, file writers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracecheck.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    # Same output locally and under GitHub Actions: no colour, no forced terminal, wide.
    for var in ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TERM", "dumb")


@pytest.fixture
def cli():
    """Invoke the CLI; returns the result with separate stdout and stderr."""
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke


def write_jsonl(path: Path, events: list) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    return path
