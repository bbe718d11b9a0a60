"""``tracecheck guards``, ``guard CODE``, ``formats`` and ``schema``: what tracecheck knows."""

import sys
from typing import Annotated

import typer

from ..input.diagnostics import TracecheckError
from .app import stdout_console, command


@command
def guards() -> None:
    """List every guard: code, name, whether the default preset runs it, and its summary."""
    from ..config import load_settings
    from ..guards import all_guards
    from ..presets import preset_by_name

    default = preset_by_name("default")
    settings = load_settings(preset="default")
    running = {g.code for g in settings.enabled()}
    typer.echo(f"{'code':4}  {'name':<24} {'default preset':<14} summary")
    for guard in all_guards():
        if guard.code in running:
            state = "runs"
        elif guard.code in default.guards:
            state = "off until set"  # a budget the default preset lists without a value
        else:
            state = "-"
        # What it does as the default preset runs it (its own defaults otherwise).
        summary = guard.describe(settings.options[guard.code] if guard.code in running else None)
        echo_row(f"{guard.code}  {guard.name:<24} {state:<14}", summary)


def terminal_width() -> int:
    """The width to fit: the terminal's, $COLUMNS in a pipe, else 80."""
    import shutil

    return max(40, shutil.get_terminal_size().columns)


def wrapped(text: str, width: int, indent: int = 0) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken between words only, the
    lines after the first indented by ``indent``."""
    import textwrap

    return textwrap.wrap(
        text, width, subsequent_indent=" " * indent, break_on_hyphens=False, break_long_words=False
    ) or [""]


def echo_row(head: str, text: str, width: int | None = None) -> None:
    """``head`` then ``text`` beside it, wrapped within the terminal's width under its own
    first column; on a screen too narrow for that, ``text`` goes below, indented."""
    width = width or terminal_width()
    if width - len(head) - 1 >= 32:
        lines = wrapped(text, width - len(head) - 1)
        typer.echo(f"{head} {lines[0]}")
        for line in lines[1:]:
            typer.echo(" " * (len(head) + 1) + line)
    else:
        typer.echo(head.rstrip())
        for line in wrapped(text, width - 6):
            typer.echo(" " * 6 + line)


@command
def guard(key: Annotated[str, typer.Argument(metavar="CODE", help="A guard code (P001) or name (similar-query-stagnation).")]) -> None:
    """Explain one guard: where it comes from, what it fires on, its options, messages and examples."""
    from ..guards import guard_by_key
    from ..reports.explain import guard_markdown, markdown_to_plain

    found = guard_by_key(key)
    if found is None:
        from ..config import unknown_guard

        raise unknown_guard(key)
    text = guard_markdown(found)  # the same Markdown as docs/guards/CODE.md
    console = stdout_console()
    if console.is_terminal:
        from rich.markdown import Markdown

        from rich.text import Text

        console.soft_wrap = False  # Markdown is wrapped to the terminal by rich
        with console.capture() as captured:
            console.print(Markdown(text, code_theme="ansi_dark", hyperlinks=False))
        for line in captured.get().splitlines():  # without the spaces rich pads lines with
            shown = Text.from_ansi(line)
            shown.rstrip()
            console.print(shown, soft_wrap=True)
    else:
        typer.echo(markdown_to_plain(text, terminal_width()), nl=False)


@command
def presets() -> None:
    """List the presets: named bundles of guards and options (use with --preset NAME)."""
    from ..presets import PRESETS

    for preset in PRESETS.values():
        echo_row(f"{preset.name:<11}", preset.summary)
        echo_row(f"{'':<11}", f"guards: {', '.join(preset.guards)}")


@command
def preset(name: Annotated[str, typer.Argument(help="A preset name (see 'tracecheck presets').")]) -> None:
    """Explain one preset: where it comes from, its guards and the options it sets."""
    from ..presets import preset_by_name
    from ..reports.explain import explain_preset

    found = preset_by_name(name)
    if found is None:
        from ..config import unknown_preset

        raise unknown_preset(name)
    typer.echo(explain_preset(found, terminal_width()))


@command
def schema(
    name: Annotated[str, typer.Argument(help="Which schema: 'native' (input events), 'report' (replay JSON) or 'labels' (a --labels file).")] = "native",
) -> None:
    """Print a JSON Schema: the native input format, the JSON report or a labels file."""
    import orjson

    from ..reports.schema import SCHEMAS

    if name not in SCHEMAS:
        from ..text.suggest import did_you_mean

        raise TracecheckError(f"unknown schema {name!r}{did_you_mean(name, SCHEMAS)}; choose one of: {', '.join(SCHEMAS)}")
    sys.stdout.buffer.write(orjson.dumps(SCHEMAS[name], option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))


@command
def formats() -> None:
    """List the transcript formats tracecheck reads (names for --input-format)."""
    from ..readers import READERS

    column = max(len(info.name) for info in READERS) + 1  # the longest name sets the column
    for info in READERS:
        echo_row(f"{info.name:<{column}}", info.description)
