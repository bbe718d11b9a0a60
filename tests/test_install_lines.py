"""Every install line the project shows installs this project or a real dependency, never
the unrelated ``tracecheck`` on the package index; a missing optional dependency is a
user error that says what to install, not a crash."""

from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT

# Where a user reads an install line: the docs, the messages in the code, the CI files.
SHOWN = ["README.md", "action.yml", ".pre-commit-hooks.yaml", "docs/**/*.md", "tracecheck/**/*.py", "benchmarks/*.py", "scripts/*.py", "sample_traces/README.md"]


def _requirements(line: str) -> list[str]:
    words = re.split(r"\s+", line.strip())
    return [w.strip("'\"`") for w in words if w and not w.startswith("-")]


def test_no_install_line_names_the_other_tracecheck():
    import tomllib

    ours = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    assert ours == "tracecheck-guards"
    seen = []
    for pattern in SHOWN:
        for path in ROOT.glob(pattern):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in re.finditer(r"pip install ([^`\n)]*)", line):
                    for requirement in _requirements(match.group(1).split("&&")[0]):
                        name = re.split(r"[\[<>=!~;@ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")
                        seen.append(name)
                        assert name != "tracecheck", f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
    assert "." in seen  # the scan found the README's own lines (".", ".[dev,jieba]")


@pytest.mark.parametrize(
    ("module", "args", "package"),
    [("rapidfuzz", ["--set", "P003.metric=indel"], "rapidfuzz"), ("jieba", ["--tokenizer", "jieba"], "jieba")],
)
def test_a_missing_optional_dependency_is_an_error_with_its_install_line(cli, monkeypatch, module, args, package):
    from conftest import SAMPLES

    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    from tracecheck.text import tokenizers

    tokenizers.unload_jieba()  # a jieba loaded by an earlier test is not asked again
    result = cli("replay", *args, str(SAMPLES / "seed000_weather_loop.jsonl"))
    assert result.exit_code == 2
    assert "\nerror: " in "\n" + result.stderr and "internal error" not in result.stderr
    assert f"needs the optional {package} package: pip install {package}" in result.stderr
