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

from ..input.diagnostics import TracecheckError
from ..readers import READER_NAMES  # the registry only: no reader module is imported

app = typer.Typer(
    name="tracecheck",
    help="Replay recorded LLM-agent transcripts through loop and no-progress guards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

EXIT_ERROR = 2  # usage, config or input error (0 is success; 1 is kept for a failed gate)
# An HTML page is for a browser, not for the screen: it goes to a file or a pipe.
HTML_ON_TERMINAL = "--format html writes a web page, not text for the terminal: give -o {name} (or redirect standard output)"

PathsArg = Annotated[list[str], typer.Argument(metavar="PATH", help="Files or directories of transcripts; '-' reads standard input.")]
InputFormatOpt = Annotated[
    Optional[str],
    typer.Option("--input-format", metavar="FORMAT", help="Read every file as this format instead of sniffing: " + ", ".join(READER_NAMES) + "."),
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
        help="Start from a preset's guards and options (see 'tracecheck presets'); --select, --ignore and --set change it. "
        "replay takes several, comma-separated, to compare them side by side.",
    ),
]
LabelsOpt = Annotated[
    Optional[str],
    typer.Option(
        "--labels",
        metavar="FILE",
        help="Labels file (JSON or CSV, see 'tracecheck label'): outcomes, labels and expectations for the traces; it wins over what the traces carry.",
    ),
]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        min=0,
        help="Replay the input files in N processes (0: one per processor); the report is the same as with 1.",
    ),
]
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


def stdout_console():
    """The console for human reports on standard output; write errors name it."""
    from rich.console import Console

    from ..output import CheckedText

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

    return (on or app).command()(wrapper)


def _drop_unwritable_stdout() -> None:
    """After a write error on standard output, point it at /dev/null so Python's own
    flush at exit does not fail a second time with a traceback."""
    try:
        sys.stdout.flush()
    except OSError:
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def finish_input(paths: list[str], diagnostics, strict: bool, traces: int) -> None:
    """Print input warnings to stderr, then apply the no-traces and --strict rules (exit 2)."""
    from ..text.textsafe import plain

    if not len(diagnostics) and traces:
        return  # nothing to say: no console (and no rich) needed
    err = stderr_console()
    for item in diagnostics:
        err.print(plain(f"warning: {item}", "yellow"))
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
    from ..config import _named_exactly
    from ..guards import all_guards

    notes = []
    if settings.config_skipped:
        notes.append(f"{settings.config_skipped} customises another preset; {settings.preset} runs as the preset defines it")
    if not settings.enabled():
        notes.append("no guard runs with these settings: nothing can fire")
    by_code = {g.code: g for g in all_guards()}
    for code in sorted(_named_exactly(select)):
        guard = by_code[code]
        if settings.options[code].enabled and guard.is_off(settings.options[code]):
            notes.append(f"{code} is selected but off until it is given a limit (see 'tracecheck guard {code}')")
    return notes


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
    by_name = {name: guard_settings(config, select, ignore, sets, tokenizers, name) for name in names}
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
            raise TracecheckError(f"unknown tokenizer {name!r}; choose from: {', '.join(TOKENIZERS)}")
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
