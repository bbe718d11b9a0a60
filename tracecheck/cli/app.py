"""The Typer application and what every command shares: options, error handling,
input warnings and the console-script entry point.

Heavy modules (readers, guards, jieba) are imported inside the commands, so
``tracecheck --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import signal
import sys
from typing import Annotated, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from ..input.diagnostics import TracecheckError
from ..readers import READER_NAMES  # the registry only: no reader module is imported

class _PlainHelp:
    """Help and usage errors written one way for every command: arguments as ``PATH...``
    (never ``{PATH}...`` or ``PATH <list[str]>``), an option's value as its placeholder
    (``FILE``, ``CODE``, ``FORMAT``) with the choices, if any, listed plainly, and a
    value that is not one of the choices named with the choices and the closest one."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _placeholder(param) + ("..." if param.nargs != 1 else "")
                pieces.append(name if param.required else f"[{name}]")
        if getattr(self, "subcommand_metavar", None):  # a group: COMMAND [ARGS]...
            pieces.append(self.subcommand_metavar)
        return pieces

    def format_options(self, ctx, formatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            names, help = record
            if param.param_type_name == "argument":
                names = _placeholder(param) + ("..." if param.nargs != 1 else "")
                help = help.replace("  [required]", "")
                arguments.append((names, help))
            elif param.param_type_name == "option":
                if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
                    names = ", ".join(sorted(param.opts, key=lambda o: o.startswith("--"))) + " " + _placeholder(param)
                help = _range_words(help)
                choices = _choices(param)
                if choices:
                    one_of = "one of: " + ", ".join(choices)
                    help = help[:-1] + f"; {one_of}]" if help.endswith("]") and "  [" in help else f"{help}  [{one_of}]"
                options.append((names, help))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    _write_dl(formatter, rows)
        if hasattr(self, "list_commands"):  # a group lists its commands too
            commands = [(name, self.get_command(ctx, name)) for name in self.list_commands(ctx)]
            commands = [(name, cmd) for name, cmd in commands if cmd is not None and not cmd.hidden]
            if commands:
                limit = formatter.width - 6 - max(len(name) for name, _ in commands)
                with formatter.section("Commands"):
                    _write_dl(formatter, [(name, cmd.get_short_help_str(limit)) for name, cmd in commands])

    def format_help_text(self, ctx, formatter) -> None:
        import inspect

        text = inspect.cleandoc(self.help or "").partition("\f")[0]
        if text:
            formatter.write_paragraph()
            with formatter.indentation():
                width = max(formatter.width - formatter.current_indent, 20)
                paragraphs = [_wrap(" ".join(part.split()), width) for part in text.split("\n\n")]
                formatter.write("\n\n".join("\n".join(" " * formatter.current_indent + line for line in lines) for lines in paragraphs) + "\n")

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        from .values import quicken

        quicken(self, ctx)  # plain values without building Pydantic adapters
        given = list(args)  # parsing consumes the list
        try:
            return super().parse_args(ctx, args)
        except typer.BadParameter as exc:
            _plain_error(exc, given)
            raise


def _wrap(text: str, width: int) -> list[str]:
    """Lines of ``text`` at most ``width`` wide where its words allow: broken between words
    only (never inside a hyphenated name such as mini-swe-agent)."""
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False) or [""]


def _write_dl(formatter, rows: list[tuple[str, str]], col_max: int = 30, spacing: int = 2) -> None:
    """Click's two-column list (names, then help wrapped beside them), wrapped between words."""
    indent = formatter.current_indent
    first = min(max(len(name) for name, _ in rows), col_max) + spacing
    width = max(formatter.width - first - indent, 20)
    for name, help in rows:
        formatter.write(" " * indent + name)
        if not help:
            formatter.write("\n")
            continue
        if len(name) <= first - spacing:
            formatter.write(" " * (first - len(name)))
        else:
            formatter.write("\n" + " " * (first + indent))
        lines = _wrap(" ".join(help.split()), width)
        formatter.write(lines[0] + "\n")
        for line in lines[1:]:
            formatter.write(" " * (first + indent) + line + "\n")


def _placeholder(param) -> str:
    """What a parameter's value is called in help: its metavar, else its name in capitals."""
    if param.metavar:
        return param.metavar
    longest = max(getattr(param, "opts", None) or [param.name or "value"], key=len)
    return longest.lstrip("-").replace("-", "_").upper()


def _range_words(help: str) -> str:
    """Click's bounds (``x>=0``, ``0.05<=x<=0.95``) in words: ``at least 0``, ``0.05 to 0.95``."""
    import re

    help = re.sub(r"(?<=[\[; ])([-\d.]+)<=x<=([-\d.]+)(?=[\];])", r"\1 to \2", help)
    help = re.sub(r"(?<=[\[; ])x>=([-\d.]+)(?=[\];])", r"at least \1", help)
    return re.sub(r"(?<=[\[; ])x<=([-\d.]+)(?=[\];])", r"at most \1", help)


def _choices(param) -> list[str] | None:
    """The values a parameter takes, when it takes only some (an enum)."""
    described = getattr(param, "type_descriptor", None)
    choices = (
        getattr(described, "choices", None) if getattr(described, "is_choice", False) else getattr(getattr(param, "type", None), "choices", None)
    )
    if not choices:
        return None
    return [str(getattr(c, "value", c)) for c in choices]


def _plain_error(exc, args: list[str]) -> None:
    """Reword a bad value's error without the validator's words ("Value error, …"): for a
    choice, the value, the choices and the closest one."""
    message = str(exc.message)
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    param = getattr(exc, "param", None)
    choices = _choices(param) if param is not None else None
    if choices:
        value = _given(param, args)
        if value is not None:
            from ..text.suggest import did_you_mean

            message = f"{value!r} is not one of: {', '.join(choices)}{did_you_mean(value, choices)}"
    exc.message = message


def _given(param, args: list[str]) -> str | None:
    """The last value given on the command line for an option (``-f x``, ``--format=x``, ``-fx``)."""
    value = None
    for index, arg in enumerate(args):
        for opt in getattr(param, "opts", ()):
            if arg == opt and index + 1 < len(args):
                value = args[index + 1]
            elif opt.startswith("--") and arg.startswith(opt + "="):
                value = arg[len(opt) + 1 :]
            elif not opt.startswith("--") and arg.startswith(opt) and len(arg) > len(opt):
                value = arg[len(opt) :]
    return value


class PlainCommand(_PlainHelp, TyperCommand):
    pass


class PlainGroup(_PlainHelp, TyperGroup):
    pass


# Help uses the terminal's whole width (click stops at 80 columns unless told).
HELP_SETTINGS = {"max_content_width": 10_000}

app = typer.Typer(
    name="tracecheck",
    help="Replay recorded LLM-agent transcripts through loop and no-progress guards.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=PlainGroup,
    context_settings=HELP_SETTINGS,
)

EXIT_ERROR = 2  # usage, config or input error (0 is success; 1 is kept for a failed gate)
# An HTML page is for a browser, not for the screen: it goes to a file or a pipe.
HTML_ON_TERMINAL = "--format html writes a web page, not text for the terminal: give -o {name} (or redirect standard output)"

PathsArg = Annotated[list[str], typer.Argument(metavar="PATH", help="Files or directories of transcripts; '-' reads standard input.")]
InputFormatOpt = Annotated[
    Optional[str],
    typer.Option("--input-format", metavar="FORMAT", help="Read every file as this format instead of sniffing: " + ", ".join(READER_NAMES) + "."),
]
SelectTracesOpt = Annotated[
    Optional[str],
    typer.Option(
        "-k",
        metavar="EXPR",
        help="Only the traces EXPR matches, as pytest's -k: a word matches a trace whose id holds it or a label value equal to it "
        "(case-insensitive); combine with and, or, not and parentheses, e.g. -k 'loop and not airline'.",
    ),
]
ExcludeOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Skip the files of a folder walk that GLOB matches: their path below the folder, a folder name or the file name "
        "(repeatable). package.json, tsconfig.json and the like, and node_modules, are skipped anyway; a file named on the command line never is.",
    ),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Treat any input warning as an error (exit code 2).")]
ConfigOpt = Annotated[
    Optional[str], typer.Option("--config", metavar="FILE", help="Config file (default: nearest tracecheck.toml or pyproject.toml [tool.tracecheck]).")
]
SelectOpt = Annotated[
    Optional[list[str]], typer.Option("--select", metavar="CODES", help="Guards to run: codes, prefixes, names or ALL (repeatable, comma-separated).")
]
IgnoreOpt = Annotated[Optional[list[str]], typer.Option("--ignore", metavar="CODES", help="Guards not to run (repeatable, comma-separated).")]
SetOpt = Annotated[
    Optional[list[str]], typer.Option("--set", metavar="GUARD.OPTION=VALUE", help="Set one guard option, e.g. --set P001.threshold=3 (repeatable).")
]
PresetOpt = Annotated[
    Optional[str],
    typer.Option(
        "--preset",
        metavar="NAME",
        help="Start from a preset's guards and options (see 'tracecheck presets'); --select, --ignore and --set change it.",
    ),
]
PresetsOpt = Annotated[  # replay's: several side by side
    Optional[str],
    typer.Option(
        "--preset",
        metavar="NAMES",
        help="Start from a preset's guards and options (see 'tracecheck presets'); --select, --ignore and --set change it. "
        "Several, comma-separated, replay side by side.",
    ),
]
LabelsOpt = Annotated[
    Optional[str],
    typer.Option(
        "--labels",
        metavar="FILE",
        help="Labels file (JSON or CSV, see 'tracecheck label'): outcomes, labels and expectations for the traces; it wins over what the traces carry. "
        "Default: the config file's labels.",
    ),
]
NoLabelsOpt = Annotated[bool, typer.Option("--no-labels", help="Read no labels file, not even the one the config file names.")]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        min=0,
        help="Read and replay the input files in N processes (0: one per processor); the output is the same as with 1.",
    ),
]


def format_option(default: str, what: str = "Report format"):
    """``-f/--format``, worded one way for every command that writes a report."""
    return typer.Option("--format", "-f", metavar="FORMAT", help=f"{what} (default: the one -o FILE's name says, else {default}).")


def output_option(files, what: str = "the report"):
    """``-o/--output`` of a command that writes one report: the name ends it may have
    (``files``, see ``report_files``) say its format."""
    from .report_files import listed_ends

    ends = listed_ends(files)
    return typer.Option("--output", "-o", metavar="FILE", help=f"Write {what} to FILE instead of standard output; a name ending in {ends} says the format.")
TokenizerOpt = Annotated[
    Optional[str],
    typer.Option("--tokenizer", metavar="NAMES", help="P001 tokenizer: char, jieba, or 'char,jieba' to replay both and compare."),
]


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"tracecheck {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Replay recorded LLM-agent transcripts through loop and no-progress guards."""


def stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def progress_console():
    """The stderr console a progress bar may animate, or None. Only a real terminal (or
    TTY_INTERACTIVE=1, rich's explicit ask) gets one: FORCE_COLOR asks for colour, and in
    CI a bar redrawn into a log floods it."""
    interactive = os.environ.get("TTY_INTERACTIVE")
    if interactive == "0" or not (sys.stderr.isatty() or interactive == "1"):
        return None
    console = stderr_console()
    return console if console.is_terminal else None


def stdout_console():
    """The console for human reports on standard output; write errors name it."""
    from rich.console import Console

    from ..input.output_files import CheckedText

    return Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)


def safe(message: str):
    """Messages may quote input (file names, ids): no terminal escapes or line breaks get
    through, and as a ``Text`` neither markup nor ``:emoji:`` codes are interpreted."""
    from ..text.textsafe import plain

    return plain(message)


def command(func=None, *, on=None):
    """Register a command (on ``app``, or the sub-app ``on``) whose user errors
    (TracecheckError) print briefly and exit 2."""
    if func is None:
        return functools.partial(command, on=on)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except TracecheckError as exc:
            stderr_console().print(safe(f"error: {exc}"), markup=False)
            _drop_unwritable_stdout()
            raise typer.Exit(EXIT_ERROR) from None

    return (on or app).command(cls=PlainCommand)(wrapper)


def _drop_unwritable_stdout() -> None:
    """After a write error on standard output, point it at /dev/null so Python's own
    flush at exit does not fail a second time with a traceback."""
    try:
        sys.stdout.flush()
    except OSError:
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def finish_input(paths: list[str], diagnostics, strict: bool, traces: int, selection=None) -> None:
    """Print input warnings to stderr, then apply the no-traces and --strict rules (exit 2).
    With ``selection`` (``-k``), say how many traces it left out, as pytest's "N deselected"."""
    from ..text.textsafe import plain

    deselected = len(diagnostics.deselected)
    if not len(diagnostics) and traces and selection is None:
        return  # nothing to say: no console (and no rich) needed
    from ..reports.data import count

    err = stderr_console()
    for item in diagnostics:
        err.print(plain(f"warning: {item}", "yellow"))
    if selection is not None:
        err.print(plain(f"-k {selection.text!r}: {traces:,} selected, {deselected:,} deselected", "dim"))
    if not traces and deselected:
        err.print(plain(f"error: -k {selection.text!r} matches none of the {count(deselected, 'trace')} in " + ", ".join(paths), "bold red"))
        raise typer.Exit(EXIT_ERROR)
    if not traces:
        err.print(plain("error: no traces found in " + ", ".join(paths), "bold red"))
        raise typer.Exit(EXIT_ERROR)
    if strict and len(diagnostics):
        err.print(plain(f"error: {len(diagnostics)} input warning(s) and --strict was given", "bold red"))
        raise typer.Exit(EXIT_ERROR)


def guard_settings(config, select, ignore, sets, tokenizers=(), preset=None, quiet: bool = False):
    from ..config import load_settings

    if preset is not None and not preset.strip():
        raise TracecheckError("--preset: no preset named (see 'tracecheck presets')")
    settings = load_settings(
        config=config,
        select=select or (),
        ignore=ignore or (),
        sets=sets or (),
        tokenizer=tokenizers[0] if tokenizers else None,
        preset=preset,
    )
    if not quiet:
        for note in settings_notes(settings, select or ()):
            stderr_console().print(safe(f"note: {note}"), markup=False)
    return settings


def settings_notes(settings, select) -> list[str]:
    """What the settings will not do although the command line seems to ask for it."""
    from ..config import codes_named_exactly
    from ..guards import guard_by_code

    notes = list(settings.notes)
    if settings.config_skipped:
        notes.append(f"{settings.config_skipped} customises another preset; {settings.preset} runs as the preset defines it")
    if not settings.enabled():
        notes.append("no guard runs with these settings: nothing can fire")
    for code in sorted(codes_named_exactly(select)):
        guard = guard_by_code(code)
        if settings.options[code].enabled and guard.is_off(settings.options[code]):
            notes.append(f"{code} is selected but off until it is given a limit (see 'tracecheck guard {code}')")
    return notes


def labels_file(labels: str | None, no_labels: bool, config: str | None) -> str | None:
    """The labels file to read: ``--labels``, else the config file's ``labels`` (said on
    standard error, so a log shows where the expectations came from), else none."""
    if labels is not None and no_labels:
        raise TracecheckError("--labels and --no-labels: give one of them")
    if labels is not None or no_labels:
        return labels
    from ..config import configured_labels
    from ..input.sources import display_name

    found = configured_labels(config)
    if found is None:
        return None
    path, where = found
    stderr_console().print(safe(f"labels: {display_name(path)} (from {display_name(where)})"), markup=False)
    return path


def load_labels_option(labels: str | None, no_labels: bool, config: str | None):
    """The loaded labels file ``labels_file`` chooses, or None."""
    path = labels_file(labels, no_labels, config)
    if path is None:
        return None
    from ..input.labels import load_labels  # here: a run without labels never reads them (start-up)

    return load_labels(path)


def preset_settings(config, select, ignore, sets, tokenizers, preset: str | None):
    """Settings for ``--preset``: one preset (or none), or with ``a,b,c`` the settings of
    each, by name, to compare side by side (the first is the report's main replay)."""
    from ..presets import preset_by_name

    if preset is not None and not preset.strip(", "):
        raise TracecheckError("--preset: no preset named (see 'tracecheck presets')")
    names = [n.strip() for n in (preset or "").split(",") if n.strip()]
    unknown = next((n for n in names if preset_by_name(n) is None), None)
    if unknown is not None:
        from ..config import unknown_preset

        raise unknown_preset(unknown, "--preset")
    names = list(dict.fromkeys(preset_by_name(n).name for n in names))  # OpenHands,openhands: one
    if len(names) < 2:
        return guard_settings(config, select, ignore, sets, tokenizers, names[0] if names else None), None
    by_name = {name: guard_settings(config, select, ignore, sets, tokenizers, name, quiet=True) for name in names}
    said: list[str] = []
    for name, settings in by_name.items():
        for note in settings_notes(settings, select or ()):
            if note not in said:  # once, not once per preset
                said.append(note)
                stderr_console().print(safe(f"note: {note}"), markup=False)
    return next(iter(by_name.values())), by_name


def job_count(jobs: int) -> int:
    """``--jobs``: 0 means one process per processor this process may use."""
    if jobs:
        return jobs
    from ..engine.jobs import default_jobs

    return default_jobs()


def tokenizer_list(value: str | None) -> list[str]:
    if not value:
        return []
    from ..text.tokenizers import TOKENIZERS

    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        if name not in TOKENIZERS:
            from ..text.suggest import did_you_mean

            raise TracecheckError(f"unknown tokenizer {name!r}{did_you_mean(name, TOKENIZERS)}; choose one of: {', '.join(TOKENIZERS)}")
    return names


def run() -> None:
    """Console-script entry point: user errors exit 2 without a traceback."""
    if hasattr(signal, "SIGPIPE"):
        # A reader that stops early (``| head``) ends tracecheck quietly, as it ends cat.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        app()  # standalone: usage errors print and exit 2, typer.Exit carries the code
    except TracecheckError as exc:
        stderr_console().print(safe(f"error: {exc}"), markup=False, highlight=False)
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("TRACECHECK_DEBUG"):
            raise
        stderr_console().print(
            safe(f"internal error: {type(exc).__name__}: {exc}") + "\n(run with TRACECHECK_DEBUG=1 for the traceback)",
            markup=False,
            highlight=False,
        )
        sys.exit(EXIT_ERROR)
