"""Guard documentation: ``tracecheck guard CODE`` (Markdown rendered on a terminal, plain
in a pipe), the pages of docs/guards/ made from the same metadata, and what they say:
the summary once, where the guard comes from in words, and no guard, command, option or
preset that does not exist."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import typer

from conftest import ROOT
from tracecheck.cli.main import app
from tracecheck.guards import all_guards, guard_by_key
from tracecheck.presets import PRESETS
from tracecheck.reports.explain import guard_markdown

GUARDS = all_guards()
CODES = {g.code for g in GUARDS}


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("guard", GUARDS, ids=lambda g: g.code)
def test_a_guard_explained_in_a_pipe_says_its_summary_once_and_where_it_comes_from(cli, guard):
    text = cli("guard", guard.code).stdout
    flat = _words(text)
    assert text.startswith(f"{guard.code} {guard.name}\n")
    assert flat.count(_words(guard.describe().replace("`", ""))) == 1
    # The docstring's lead sentence repeats the summary: it is left out.
    lead = _words(guard.explanation().split("\n\n", 1)[0].replace("``", ""))
    assert lead not in flat
    assert guard.origin and f"From: {_words(guard.origin)}" in flat
    prose = "\n".join(line for line in text.splitlines() if not re.match(r"    (round \d|fires:|user:)|        ", line))  # not the examples' code
    assert "**" not in prose and "`" not in prose and "\n#" not in prose  # plain: no Markdown marks
    for section in ("Options", "Messages for the model", "Examples"):
        assert f"\n{section}\n" in text


def test_every_guard_says_where_it_comes_from_in_words():
    titles = {"000": "《给 ReAct 装一个熔断闸", "001": "《让 Agent 不翻车的工程护栏》", "002": "《ReAct 循环中陷入", "004": "《从 0 到 1 打造 AI 提示流编排器"}
    for guard in GUARDS:
        assert "\n" not in guard.origin and len(guard.origin) > 40, guard.code
        assert not re.fullmatch(r"\(?seeds? [\d, ]+\)?", guard.origin), guard.code  # words, not "(seed 000)"
        seeds = re.findall(r"seeds? (\d{3})", guard.source)
        for seed in seeds[:1]:  # the article named, by its title
            assert titles[seed] in guard.origin, guard.code


def _mentions(text: str) -> dict[str, set[str]]:
    code_spans = " ".join(re.findall(r"`([^`]+)`", text))
    return {
        "guards": set(re.findall(r"\b[A-Z]\d{3}\b", text)),
        "commands": set(re.findall(r"\btracecheck ([a-z][a-z-]*)", text)),
        "explained": set(re.findall(r"\btracecheck guard ([A-Za-z0-9-]+)", text)),
        "presets": set(re.findall(r"--preset[ =]([a-z0-9-]+)", text)) | set(re.findall(r"\bpreset `([a-z0-9-]+)`", text)),
        "options": set(re.findall(r"\b([A-Z]\d{3})\.([a-z_]+)\b", text + " " + code_spans)),
        # Options of tracecheck's own command lines (other agents' flags may be named too).
        "flags": {flag for line in re.findall(r"\btracecheck [a-z][^\n`]*", text) for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", line)},
    }


def _all_flags() -> set[str]:
    group = typer.main.get_command(app)
    flags = {"--help", "--version"}

    def walk(command):
        for param in getattr(command, "params", []):
            flags.update(o for o in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])] if o.startswith("--"))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(group)
    return flags


def test_guard_docs_mention_only_guards_commands_options_and_presets_that_exist():
    commands = set(typer.main.get_command(app).commands)
    flags = _all_flags()
    for guard in GUARDS:
        found = _mentions(guard_markdown(guard))
        assert found["guards"] <= CODES, (guard.code, found["guards"] - CODES)
        assert found["commands"] <= commands, (guard.code, found["commands"] - commands)
        assert all(guard_by_key(key) for key in found["explained"]), (guard.code, found["explained"])
        assert found["presets"] <= set(PRESETS), (guard.code, found["presets"] - set(PRESETS))
        assert found["flags"] <= flags, (guard.code, found["flags"] - flags)
        for code, option in found["options"]:
            names = {f for f in guard_by_key(code).Options.__dataclass_fields__}
            assert option in names or option in ("OPTION", "messages"), (guard.code, f"{code}.{option}")


def test_the_mention_check_catches_what_does_not_exist():
    found = _mentions("like P009 does; run `tracecheck explain P001` or --preset gemini, `tracecheck replay --treshold`, with P001.treshold = 2")
    assert "P009" in found["guards"] and "explain" in found["commands"] and "gemini" in found["presets"]
    assert "--treshold" in found["flags"] and ("P001", "treshold") in found["options"]


def test_on_a_terminal_the_markdown_is_rendered(cli, monkeypatch):
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # standard output counts as a terminal
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "80")
    text = cli("guard", "P001").stdout
    assert "\x1b[1m" in text  # emphasis and headings drawn, not marked up
    assert "**" not in text and "```" not in text and "\n## " not in text
    assert " • " in text  # lists as bullets
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    from rich.cells import cell_len

    assert all(cell_len(line) <= 80 and line == line.rstrip() for line in plain.splitlines())
    assert _words(guard_by_key("P001").describe()) in _words(plain)


def test_the_reference_pages_are_current():
    """docs/guards/ holds what scripts/guard_docs.py makes from the guards now."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "guard_docs.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for guard in GUARDS:
        page = (ROOT / "docs" / "guards" / f"{guard.code}.md").read_text(encoding="utf-8")
        assert page.endswith(guard_markdown(guard))
    index = (ROOT / "docs" / "guards" / "README.md").read_text(encoding="utf-8")
    assert all(f"[{code}]({code}.md)" in index for code in CODES)
    assert "docs/guards/README.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_stale_page_is_caught(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import guard_docs
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    for name, text in guard_docs.pages().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(guard_docs, "FOLDER", tmp_path)
    assert guard_docs.stale() == []
    (tmp_path / "P001.md").write_text("old text\n", encoding="utf-8")
    (tmp_path / "P099.md").write_text("a guard that is gone\n", encoding="utf-8")
    assert guard_docs.stale() == ["P001.md", "P099.md"]


def test_reference_pages_are_safe_markdown():
    """Our own prose on GitHub: no @mention pings anyone, no stray HTML opens."""
    for guard in GUARDS:
        text = re.sub(r"```.*?```", "", guard_markdown(guard), flags=re.S)
        outside_code = re.sub(r"`[^`]*`", "", text)
        assert "@" not in outside_code, guard.code
        assert not re.search(r"<[A-Za-z/!]", outside_code), guard.code


def test_the_guards_listing_says_what_the_default_preset_runs(cli):
    from tracecheck.config import Settings, apply_preset
    from tracecheck.guards import all_guards

    flat = " ".join(cli("guards").stdout.split())
    settings = apply_preset(Settings.defaults(), "default", "--preset")
    running = {g.code for g in settings.enabled()}
    for guard in all_guards():
        described = guard.describe(settings.options[guard.code] if guard.code in running else None)
        assert " ".join(described.split()) in flat, guard.code
    # The numbers and actions come from the options, not from a sentence written once.
    assert "Stop at the 3rd identical call in a row" in flat and "4th identical call" not in flat  # P004 threshold 3
    assert "Stop when one tool fails 3 times in a row" in flat  # F001's action in default is stop
    assert "Abort at the 5th reply in a row with the same text, tool calls between them or not" in flat  # T001
    assert "off until a preset enables it" not in flat


def test_a_summary_follows_the_options_it_names():
    from tracecheck.guards import guard_by_key

    p004 = guard_by_key("P004")
    assert p004.describe(p004.Options(threshold=11, action="block")) == "Block at the 11th identical call in a row that got the identical result."
    assert guard_by_key("R001").describe().startswith("Hint at the 2nd identical call in a row, stop before the 3rd runs")
