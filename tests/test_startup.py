"""Start-up of a small replay (issue 24): the console script registers only the command
it is asked for, command-line values skip Pydantic where they are plain, and a replay
imports only the reader, guards and writer it uses. The speed itself is measured by
benchmarks/startup.py; these tests keep the structure it relies on, and that the
shortcuts change nothing a user sees."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLES

SMALL = SAMPLES / "seed000_containment_vs_jaccard.jsonl"  # native JSONL, 12 lines


def python(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, env=env)


# The console script's own way (tracecheck.cli.main.run), and the same with every command
# module registered first, as `from tracecheck.cli.main import app` does.
ENTRY = "import sys; sys.argv[0] = 'tracecheck'; from tracecheck.cli import main; main.run()"
ENTRY_ALL = "import sys; sys.argv[0] = 'tracecheck'; from tracecheck.cli import main; main.register(); main.run()"


def test_each_command_name_is_registered_by_the_module_the_entry_point_imports():
    from tracecheck.cli.main import COMMAND_MODULES, MODULES

    code = (
        "import importlib, json\n"
        "from tracecheck.cli.app import app\n"
        "names = lambda: [c.name or c.callback.__name__ for c in app.registered_commands] + [g.name for g in app.registered_groups]\n"
        f"found = {{}}\n"
        f"for module in {list(MODULES)!r}:\n"
        "    before = set(names())\n"
        "    importlib.import_module('tracecheck.cli.' + module)\n"
        "    found.update({name: module for name in set(names()) - before})\n"
        "print(json.dumps(found))\n"
    )
    proc = python(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == COMMAND_MODULES


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "--help"],
        ["baseline", "write", "--help"],
        ["guard", "P001"],
        ["sweep", "--help"],
        ["replay", "-f", "xml", str(SMALL)],
        ["replay", "--jobs", "-1", str(SMALL)],
        ["replay", str(SMALL)],
        ["--help"],
        ["nosuch"],
    ],
)
def test_one_command_registered_alone_says_what_the_whole_app_says(args):
    alone, whole = python(ENTRY, *args), python(ENTRY_ALL, *args)
    assert (alone.returncode, alone.stdout, alone.stderr) == (whole.returncode, whole.stdout, whole.stderr)
    assert alone.stdout or alone.stderr


def test_the_entry_point_imports_only_the_named_commands_module():
    code = ENTRY.replace("main.run()", "import atexit, json; atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules if m.startswith(('tracecheck.cli.', 'tracecheck.commands.')))), file=sys.stderr)); main.run()")
    proc = python(code, "replay", str(SMALL))
    assert proc.returncode == 0, proc.stderr
    loaded = json.loads(proc.stderr.strip().splitlines()[-1])
    assert [m for m in loaded if m.startswith("tracecheck.commands.")] == ["tracecheck.commands.replay"]
    assert {m for m in loaded if m.startswith("tracecheck.cli.")} <= {"tracecheck.cli.app", "tracecheck.cli.main", "tracecheck.cli.replay", "tracecheck.cli.report_files", "tracecheck.cli.values"}


def test_the_commands_package_loads_a_command_on_first_use_and_offers_its_function():
    code = (
        "import sys, tracecheck.commands as c\n"
        "print(sorted(m for m in sys.modules if m.startswith('tracecheck.commands.')))\n"
        "import tracecheck.commands.convert\n"
        "from tracecheck.commands.convert import ConvertRequest\n"
        "print(sorted(m for m in sys.modules if m.startswith('tracecheck.commands.')))\n"
        "print(callable(c.convert), c.convert.__module__, c.ConvertRequest is ConvertRequest, c.replay.__name__)\n"
    )
    proc = python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "[]",
        "['tracecheck.commands.convert']",
        "True tracecheck.commands.convert True replay",
    ]


VALUE_LINES = [
    ["replay", str(SMALL), "-f", "json", "--jobs", "1", "--select", "P001,P002", "--set", "P001.threshold=3"],
    ["replay", str(SMALL), "--jobs", "0", "-k", "containment", "--exclude", "a", "--exclude", "b", "-q"],
    ["replay", str(SMALL), "-f", "Json"],  # choices are case-sensitive
    ["replay", str(SMALL), "-f", "xml"],
    ["replay", str(SMALL), "--jobs", "-1"],
    ["replay", str(SMALL), "--jobs", "1.5"],
    ["replay", str(SMALL), "--jobs", "007"],
    ["replay", str(SMALL), "--jobs", " 2"],
    ["replay", str(SMALL), "--jobs", "99999999999999999999999"],
    ["replay", str(SMALL), "-o", ""],
    ["show", str(SMALL), "--state", "all", "-f", "json", "-t", "seed000_containment_vs_jaccard"],
    ["show", str(SMALL), "--state", "some"],
    ["sweep", str(SMALL), "--grid", "P004.threshold=3,4", "-f", "json", "--max-combos", "3", "--holdout", "0.5"],
    ["sweep", str(SMALL), "--grid", "P004.threshold=3,4", "--max-combos", "1"],
]


@pytest.mark.parametrize("args", VALUE_LINES, ids=[" ".join(a[2:]) for a in VALUE_LINES])
def test_plain_values_without_pydantic_are_the_values_typer_gives(cli, monkeypatch, tmp_path, args):
    # The same command line with the shortcut and without it (Typer's Pydantic adapters for
    # every value): the same output, errors and exit code.
    from tracecheck.cli import values

    monkeypatch.chdir(tmp_path)
    quick = cli(*args)
    monkeypatch.setattr(values, "_QUICK", [None])
    typer_own = cli(*args)
    assert (quick.exit_code, quick.stdout, quick.stderr) == (typer_own.exit_code, typer_own.stdout, typer_own.stderr)


def test_a_small_replay_imports_no_pydantic():
    code = ENTRY.replace("main.run()", "import atexit; atexit.register(lambda: print('pydantic' in sys.modules, file=sys.stderr)); main.run()")
    proc = python(code, "replay", str(SMALL), "-f", "json", "--jobs", "1", "--select", "P001", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "False"


def test_the_registry_names_each_guard_by_its_own_code_and_name():
    from tracecheck.guards import GUARD_CODES, all_guards, guard_keys

    guards = all_guards()
    assert GUARD_CODES == tuple(g.code for g in guards)
    assert guard_keys() == [key for g in guards for key in (g.code, g.name)]


def loaded_after(*args: str) -> list[str]:
    """The tracecheck modules (and pydantic, jieba) a run of ``tracecheck ARGS`` imported."""
    code = ENTRY.replace(
        "main.run()",
        "import atexit, json; atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('tracecheck', 'pydantic', 'jieba'))), file=sys.stderr)); main.run()",
    )
    proc = python(code, *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1])


def guard_modules(loaded: list[str]) -> set[str]:
    from tracecheck.guards import _GUARDS

    modules = {f"tracecheck.guards.{module}": code for code, _, module, _ in _GUARDS}
    return {modules[m] for m in loaded if m in modules}


def test_a_replay_imports_only_the_guards_its_settings_configure():
    from tracecheck.config import load_settings
    from tracecheck.presets import preset_by_name

    # The default preset: its guards (budgets included: selected, off until given a limit).
    default = set(preset_by_name("default").guards)
    assert guard_modules(loaded_after("replay", str(SMALL))) == default
    assert {g.code for g in load_settings().enabled()} < default
    # A preset of one guard, and one guard more selected: those two.
    assert guard_modules(loaded_after("replay", str(SMALL), "--preset", "cline", "--select", "R001,P001", "-f", "json")) == {"P001", "R001"}
    assert guard_modules(loaded_after("replay", str(SMALL), "--preset", "openrouter")) == {"R004"}


def test_a_guard_key_is_known_without_importing_the_guard():
    from tracecheck.guards import all_guards, guard_by_key, guard_code

    for guard in all_guards():
        for key in (guard.code, guard.code.lower(), guard.name):
            assert guard_code(key) == guard.code and guard_by_key(key) is guard
    for key in ("P999", "similar_query_stagnation", "policy", ""):
        assert guard_code(key) is None and guard_by_key(key) is None
