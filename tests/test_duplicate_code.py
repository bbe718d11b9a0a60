"""No repeated logic in the layers that grew by copying: engine/, live/, reports/ and
readers/ (pylint's duplicate-code checker: four or more similar lines, comments,
docstrings, imports and signatures aside). Guards' data examples may repeat and are
not checked."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import ROOT

CHECKED = ("engine", "live", "reports", "readers")
PYLINT = [sys.executable, "-m", "pylint", "--disable=all", "--enable=duplicate-code", "--min-similarity-lines=4", "--persistent=n", "--score=n"]


def _duplicates(*paths) -> str:
    result = subprocess.run([*PYLINT, *map(str, paths)], capture_output=True, text=True, cwd=ROOT)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_no_repeated_logic_in_engine_live_reports_readers():
    found = _duplicates(*(ROOT / "tracecheck" / layer for layer in CHECKED))
    assert "R0801" not in found, found


def test_the_check_finds_a_copied_block(tmp_path):
    block = textwrap.dedent(
        """
        def total(rows):
            seen = 0
            for row in rows:
                if row.get("tokens") is not None:
                    seen += row["tokens"] * 2
                elif row.get("estimate"):
                    seen += int(row["estimate"])
            return seen
        """
    )
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "one.py").write_text(block)
    (package / "two.py").write_text("OTHER = 1\n" + block.replace("total", "summed"))
    assert "R0801" in _duplicates(package)
