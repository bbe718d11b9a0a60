"""Help, listings and usage errors as a person reads them: every command's ``--help``
and the ``guards``, ``formats`` and ``presets`` listings fit 80 columns (words wrapped,
never cut inside a word or a hyphenated name), use the full width when there is room,
write placeholders one way and name no Python types."""

from __future__ import annotations

import re

import pytest
import typer

from tracecheck.cli.main import app


def _commands(group=None, prefix=()):
    """Every command path of the CLI, the groups included ((), ("replay",), ("baseline", "write"), ...)."""
    group = group or typer.main.get_command(app)
    yield prefix
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*prefix, name)) if hasattr(command, "commands") else [(*prefix, name)]


COMMANDS = sorted(_commands())


def _help(capsys, *command: str) -> str:
    """``tracecheck COMMAND --help`` in this process as a console script runs it (typer's
    CliRunner would pin the help to 80 columns)."""
    capsys.readouterr()
    typer.main.get_command(app).main([*command, "--help"], prog_name="tracecheck", standalone_mode=False)
    return capsys.readouterr().out


def _fits(text: str, columns: int) -> None:
    for line in text.splitlines():
        assert len(line) <= columns, line
        assert line == line.rstrip(), repr(line)


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "tracecheck")
def test_help_fits_and_writes_placeholders_one_way(capsys, monkeypatch, command, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    text = _help(capsys, *command)
    _fits(text, columns)
    # No Python types (<list[str]>, <int>, <float range>), no {PATH} braces, no x>=0 bounds.
    assert not re.search(r"<[a-z|\[\] ]+>|\{[A-Z]+\}|\bx[<>]=|<=x\b", text), text
    assert not re.search(r"\w-\n", text), "a word broken at a hyphen: " + text
    usage = text.splitlines()[0]
    assert usage.startswith("Usage: tracecheck " + " ".join(command))
    if "Files or directories of transcripts" in text:
        assert "PATH..." in usage and "\n  PATH...  " in text


def test_help_uses_the_whole_width_when_there_is_room(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    wide = _help(capsys, "replay")
    assert max(len(line) for line in wide.splitlines()) > 100
    assert "Usage: tracecheck replay [OPTIONS] PATH..." in wide
    assert "  PATH...  Files or directories of transcripts" in wide
    assert "-f, --format FORMAT" in wide and "one of: terminal, json, jsonl, markdown" in wide
    commands = _help(capsys)
    assert "Replay traces through the guards: where each fires, what it would do, what it saves." in commands
    monkeypatch.setenv("COLUMNS", "80")
    narrow = _help(capsys)
    assert "  replay    Replay traces through the guards: where each fires, what it..." in narrow


def test_arguments_and_options_have_placeholders(cli):
    assert "Usage: tracecheck guard [OPTIONS] CODE" in cli("guard", "--help").stdout
    assert "Usage: tracecheck baseline prune [OPTIONS] BASELINE PATH..." in cli("baseline", "prune", "--help").stdout
    sweep = cli("sweep", "--help").stdout
    for placeholder in ("--grid GUARD.OPTION=VALUES", "--max-combos N", "--holdout SHARE", "--folds K", "-j, --jobs N", "--objective NAME"):
        assert placeholder in sweep
    assert "-o, --output FILE" in cli("convert", "--help").stdout
    assert "[0.05 to 0.95]" in " ".join(sweep.split()) and "[default: 1; at least 0]" in sweep
    # Several presets side by side are replay's; show and check take one.
    assert "--preset NAMES" in cli("replay", "--help").stdout
    for command in ("show", "check"):
        text = cli(command, "--help").stdout
        assert "--preset NAME " in text and "side by side" not in text
    assert "Usage: tracecheck schema [OPTIONS] [NAME]" in cli("schema", "--help").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "-f", "mark"], "Invalid value for '--format' / '-f': 'mark' is not one of: terminal, json, jsonl, markdown"),
        (["replay", "--format=jsn"], "'jsn' is not one of: terminal, json, jsonl, markdown"),
        (["sweep", "-fcvs"], "'cvs' is not one of: terminal, json, csv, markdown"),
        (["label", "--format", "yaml"], "'yaml' is not one of: json, csv"),
        (["check", "-f", "jsn"], "Invalid value for '--format' / '-f': 'jsn' is not one of: full, concise, json, jsonl, github, junit, sarif, gitlab, markdown"),
        (["check", "--output-format", "jsn"], "Invalid value for '--output-format': 'jsn' is not one of: full, concise, json,"),
        (["show", "-f", "jsn"], "'jsn' is not one of: terminal, json, jsonl"),
    ],
)
def test_a_value_outside_the_choices_lists_them_plainly(cli, args, message):
    from conftest import SAMPLES

    result = cli(*args, str(SAMPLES / "healthy_pagination.jsonl"))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Value error" not in result.stderr
    close = {"mark": "markdown", "jsn": "json", "cvs": "csv"}
    for typo, meant in close.items():
        if f"'{typo}'" in message:
            assert f"(did you mean '{meant}'?)" in result.stderr


def test_a_misspelt_option_is_suggested(cli):
    from conftest import SAMPLES

    result = cli("replay", "--selct", "P001", str(SAMPLES))
    assert result.exit_code == 2 and "No such option: --selct" in result.stderr and "--select" in result.stderr


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("listing", [("guards",), ("formats",), ("presets",), ("preset", "default"), ("preset", "loopagent")])
def test_listings_fit_the_width(cli, monkeypatch, listing, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    text = cli(*listing).stdout
    _fits(text, columns)
    assert not re.search(r"\w-\n", text)
    if columns == 200 and listing == ("guards",):
        # Wide enough: one line per guard.
        assert len(text.splitlines()) == 1 + _guard_count()
    if columns == 80 and listing == ("guards",):
        lines = text.splitlines()
        # A summary wraps under its own column, not under the code.
        continued = [line for line in lines[1:] if line.startswith(" ")]
        assert continued and all(line.startswith(" " * 46) for line in continued)


def _guard_count() -> int:
    from tracecheck.guards import all_guards

    return len(all_guards())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "--tokenizer", "jeiba"], "unknown tokenizer 'jeiba' (did you mean 'jieba'?); choose one of: char, jieba"),
        (["replay", "--input-format", "nativ"], "unknown input format 'nativ' (did you mean 'native'?); choose one of: native,"),
        (["sweep", "--grid", "P001.threshold=2,3", "--objective", "token_saved"], "(did you mean 'tokens_saved'?); choose one of: tokens_saved,"),
        (["sweep", "--grid", "P001.threshold=2,3", "--constraint", "harn<=0.1"], "unknown metric 'harn' (did you mean 'harm'?); choose one of:"),
        (["schema", "reprt"], "unknown schema 'reprt' (did you mean 'report'?); choose one of: native, report, labels"),
    ],
)
def test_a_misspelt_value_gets_a_suggestion_and_the_choices(cli, args, message):
    from conftest import SAMPLES

    paths = [] if args[0] == "schema" else [str(SAMPLES / "healthy_pagination.jsonl")]
    result = cli(*args, *paths)
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def _options(command: tuple[str, ...]) -> dict[str, object]:
    """The command's options by their long name."""
    group = typer.main.get_command(app)
    for name in command:
        group = group.commands[name]
    return {max(p.opts, key=len): p for p in group.params if p.param_type_name == "option" and not p.hidden}


READS_TRACES = [c for c in COMMANDS if "--input-format" in _options(c) and c not in (("convert",), ("label",))]


def test_every_command_spells_format_output_and_jobs_one_way():
    """-f/--format FORMAT, -o/--output FILE and -j/--jobs N: the same names, placeholders and,
    where they mean the same, the same words on every command."""
    assert sorted(READS_TRACES) == [("baseline", "prune"), ("baseline", "write"), ("check",), ("replay",), ("show",), ("sweep",)]
    jobs_help = set()
    for command in COMMANDS:
        options = _options(command)
        if "--format" in options:
            assert sorted(options["--format"].opts) == ["--format", "-f"] and options["--format"].metavar == "FORMAT", command
        if "--output" in options:
            assert sorted(options["--output"].opts) == ["--output", "-o"] and options["--output"].metavar == "FILE", command
        if command in READS_TRACES:
            jobs = options["--jobs"]
            assert sorted(jobs.opts) == ["--jobs", "-j"] and jobs.metavar == "N" and jobs.default == 1, command
            jobs_help.add(jobs.help)
    assert len(jobs_help) == 1
    # Each command that writes one report says its default and what -o FILE's name does in the same words.
    for command, default in ((("replay",), "terminal"), (("show",), "terminal"), (("sweep",), "terminal"), (("label",), "json")):
        options = _options(command)
        assert options["--format"].help.endswith(f"(default: the one -o FILE's name says, else {default}).")
        assert options["--output"].help.startswith("Write ") and "instead of standard output; a name ending in " in options["--output"].help
    # The old spelling of check's -f still works, out of the way of the help.
    assert "--output-format" not in _options(("check",))


def test_command_parameters_are_read_without_evaluating_strings():
    # Typer takes each command's parameters from its annotations on every start: they
    # must be objects already, not strings a postponed-annotations module leaves to eval.
    import inspect

    from tracecheck.cli import main as cli_main

    for info in cli_main.app.registered_commands:
        for name, annotation in inspect.get_annotations(info.callback).items():
            assert not isinstance(annotation, str), f"{info.callback.__module__}.{info.callback.__name__}: {name} is {annotation!r}"
