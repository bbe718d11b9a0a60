"""The command line: thin Typer commands that parse options and call plain functions.

Heavy modules (readers, guards, jieba) are imported inside the commands, so
``tracecheck --help`` stays fast.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..diagnostics import TracecheckError

app = typer.Typer(
    name="tracecheck",
    help="Replay recorded LLM-agent transcripts through loop and no-progress guards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

PathsArg = Annotated[list[str], typer.Argument(help="Files or directories of transcripts; '-' reads standard input.")]
InputFormatOpt = Annotated[
    Optional[str],
    typer.Option("--input-format", help="Read every file as this format instead of sniffing (see 'tracecheck formats')."),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Treat any input warning as an error (exit code 2).")]


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


def _stderr():
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def command(func):
    """Register a command whose user errors (TracecheckError) print briefly and exit 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except TracecheckError as exc:
            _stderr().print(f"error: {exc}", markup=False)
            raise typer.Exit(EXIT_ERROR) from None

    return app.command()(wrapper)


def load_or_exit(paths: list[str], input_format: str | None, strict: bool):
    """Read every trace, print input warnings to stderr, and apply --strict / no-traces rules."""
    from ..diagnostics import Diagnostics
    from ..load import read_traces
    from ..textsafe import plain

    diagnostics = Diagnostics()
    traces = list(read_traces(paths, diagnostics, input_format))
    err = _stderr()
    for item in diagnostics:
        err.print(plain(f"warning: {item}", "yellow"))
    if strict and len(diagnostics):
        err.print(plain(f"error: {len(diagnostics)} input warning(s) and --strict was given", "bold red"))
        raise typer.Exit(EXIT_ERROR)
    if not traces:
        err.print(plain("error: no traces found in " + ", ".join(paths), "bold red"))
        raise typer.Exit(EXIT_ERROR)
    return traces, diagnostics


@command
def show(
    paths: PathsArg,
    trace: Annotated[Optional[str], typer.Option("--trace", "-t", help="Show only the trace with this id.")] = None,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Show traces round by round: tool calls, arguments, results, errors, tokens and times."""
    from rich.console import Console

    from ..show import render_trace

    traces, _ = load_or_exit(paths, input_format, strict)
    if trace is not None:
        traces = [t for t in traces if t.id == trace]
        if not traces:
            raise TracecheckError(f"no trace with id {trace!r} (use 'tracecheck show' without --trace to list them)")
    console = Console(highlight=False)
    for item in traces:
        render_trace(console, item)


@command
def convert(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Native JSONL file to write ('-' for stdout).")],
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Convert transcripts of any supported format into tracecheck's native JSONL."""
    from ..convert import write_native

    traces, _ = load_or_exit(paths, input_format, strict)
    if str(output) == "-":
        count = write_native(traces, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        with open(output, "wb") as out:
            count = write_native(traces, out)
    _stderr().print(f"wrote {count} trace(s) to {output}", highlight=False, markup=False)


@command
def schema(
    name: Annotated[str, typer.Argument(help="Which schema: 'native' (input events) or 'report' (replay JSON).")] = "native",
) -> None:
    """Print a JSON Schema: the native input format or the JSON report."""
    import orjson

    from ..schemas import SCHEMAS

    if name not in SCHEMAS:
        raise TracecheckError(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
    sys.stdout.buffer.write(orjson.dumps(SCHEMAS[name], option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))


@command
def formats() -> None:
    """List the transcript formats tracecheck reads (names for --input-format)."""
    from ..readers import READERS

    for info in READERS:
        typer.echo(f"{info.name:<14} {info.description}")


def run() -> None:
    """Console-script entry point: user errors exit 2 without a traceback."""
    try:
        app()  # standalone: usage errors print and exit 2, typer.Exit carries the code
    except TracecheckError as exc:
        _stderr().print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("TRACECHECK_DEBUG"):
            raise
        _stderr().print(
            f"internal error: {type(exc).__name__}: {exc}\n(run with TRACECHECK_DEBUG=1 for the traceback)",
            markup=False,
            highlight=False,
        )
        sys.exit(EXIT_ERROR)
