"""The command line: thin Typer commands that parse options and call plain functions.

Heavy modules (readers, guards, jieba) are imported inside the commands, so
``tracecheck --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import io
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..diagnostics import TracecheckError
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

PathsArg = Annotated[list[str], typer.Argument(metavar="PATH", help="Files or directories of transcripts; '-' reads standard input.")]
InputFormatOpt = Annotated[
    Optional[str],
    typer.Option("--input-format", metavar="FORMAT", help="Read every file as this format instead of sniffing: " + ", ".join(READER_NAMES) + "."),
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


def _safe(message: str):
    """Messages may quote input (file names, ids): no terminal escapes or line breaks get
    through, and as a ``Text`` neither markup nor ``:emoji:`` codes are interpreted."""
    from ..textsafe import plain

    return plain(message)


def command(func):
    """Register a command whose user errors (TracecheckError) print briefly and exit 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except TracecheckError as exc:
            _stderr().print(_safe(f"error: {exc}"), markup=False)
            _drop_unwritable_stdout()
            raise typer.Exit(EXIT_ERROR) from None

    return app.command()(wrapper)


def _drop_unwritable_stdout() -> None:
    """After a write error on standard output, point it at /dev/null so Python's own
    flush at exit does not fail a second time with a traceback."""
    try:
        sys.stdout.flush()
    except OSError:
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _finish_input(paths: list[str], diagnostics, strict: bool, traces: int) -> None:
    """Print input warnings to stderr, then apply the no-traces and --strict rules (exit 2)."""
    from ..textsafe import plain

    err = _stderr()
    for item in diagnostics:
        err.print(plain(f"warning: {item}", "yellow"))
    if not traces:
        err.print(plain("error: no traces found in " + ", ".join(paths), "bold red"))
        raise typer.Exit(EXIT_ERROR)
    if strict and len(diagnostics):
        err.print(plain(f"error: {len(diagnostics)} input warning(s) and --strict was given", "bold red"))
        raise typer.Exit(EXIT_ERROR)


class ReportFormat(str, enum.Enum):
    terminal = "terminal"
    json = "json"
    jsonl = "jsonl"
    markdown = "markdown"


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
TokenizerOpt = Annotated[
    Optional[str],
    typer.Option("--tokenizer", metavar="NAMES", help="P001 tokenizer: char, jieba, or 'char,jieba' to replay both and compare."),
]


def _settings(config, select, ignore, sets, tokenizers=()):
    from ..config import load_settings

    return load_settings(
        config=config, select=select or (), ignore=ignore or (), sets=sets or (), tokenizer=tokenizers[0] if tokenizers else None
    )


def _tokenizer_list(value: str | None) -> list[str]:
    if not value:
        return []
    from ..tokenizers import TOKENIZERS

    names = [v.strip() for v in value.split(",") if v.strip()]
    for name in names:
        if name not in TOKENIZERS:
            raise TracecheckError(f"unknown tokenizer {name!r}; choose from: {', '.join(TOKENIZERS)}")
    return names


@command
def show(
    paths: PathsArg,
    trace: Annotated[Optional[str], typer.Option("--trace", "-t", metavar="ID", help="Show only the trace with this id.")] = None,
    guards: Annotated[bool, typer.Option("--guards/--no-guards", help="Show each guard's state and fires per round.")] = True,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    tokenizer: TokenizerOpt = None,
) -> None:
    """Show traces round by round: calls, results, tokens, times, and why each guard fired or not."""
    from rich.console import Console

    from ..show import render_trace

    settings = None
    if guards:
        settings = _settings(config, select, ignore, set_, _tokenizer_list(tokenizer))
    from ..diagnostics import Diagnostics
    from ..explain import guard_annotator
    from ..load import read_traces

    from ..output import CheckedText

    console = Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)
    diagnostics = Diagnostics()
    seen = shown = 0
    for item in read_traces(paths, diagnostics, input_format):  # one trace in memory at a time
        seen += 1
        if trace is not None and item.id != trace:
            continue
        shown += 1
        render_trace(console, item, guard_annotator(item, settings) if settings is not None else None)
    console.file.flush()
    _finish_input(paths, diagnostics, strict, seen)
    if trace is not None and not shown:
        raise TracecheckError(f"no trace with id {trace!r} (use 'tracecheck show' without --trace to list them)")


@command
def replay(
    paths: PathsArg,
    format: Annotated[ReportFormat, typer.Option("--format", "-f", help="Report format.")] = ReportFormat.terminal,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write the report to this file.")] = None,
    only_fires: Annotated[bool, typer.Option("--only-fires", help="List only traces where a guard fired.")] = False,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    tokenizer: TokenizerOpt = None,
) -> None:
    """Replay traces through the guards: where each fires, what it would do, what it saves."""
    from ..diagnostics import Diagnostics
    from ..engine.batch import replay_stream
    from ..reports.data import TotalsAccumulator, header_data, item_data

    from ..output import open_output
    from ..sources import expand_paths

    format = format.value
    names = _tokenizer_list(tokenizer)
    settings = _settings(config, select, ignore, set_, names)
    err = _stderr()
    diagnostics = Diagnostics()
    totals = TotalsAccumulator()
    sources = expand_paths(paths, diagnostics)
    with open_output(str(output) if output is not None else "-", sources) as out:
        with _report_writer(format, out, output is not None, only_fires) as writer, _progress(err) as advance:
            stream = replay_stream(sources, settings, input_format=input_format, tokenizers=names, diagnostics=diagnostics, on_file=advance)
            started = False
            for item in stream:
                if not started:
                    writer.begin(header_data(settings, tuple(names)))
                    started = True
                totals.add(item.result)
                data = item_data(item)
                if format == "terminal" or not only_fires or data["fires"]:
                    writer.trace(data)
            if started:
                writer.end(totals.data(), [dataclasses.asdict(d) for d in diagnostics])
            else:
                _finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
    _finish_input(paths, diagnostics, strict, totals.traces)


class _progress:
    """A progress bar over input files on stderr, only when stderr is a terminal."""

    def __init__(self, console) -> None:
        self.console = console
        self.bar = None

    def __enter__(self):
        if not self.console.is_terminal:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(TextColumn("replaying"), BarColumn(), MofNCompleteColumn(), console=self.console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task("files", total=None)

        def advance(number: int, total: int, name: str) -> None:
            self.bar.update(self.task, completed=number - 1, total=total)

        return advance

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


@contextlib.contextmanager
def _report_writer(format: str, out, to_file: bool, only_fires: bool):
    """The writer for a report format, writing to ``out`` (standard output or a file)."""
    if format == "terminal":
        from rich.console import Console

        from ..reports.terminal import TerminalWriter

        if not to_file:
            from ..output import CheckedText

            console = Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)
        else:
            console = Console(file=io.TextIOWrapper(out, encoding="utf-8", write_through=True), highlight=False, soft_wrap=True, no_color=True)
        yield TerminalWriter(console, only_fires=only_fires)
        console.file.flush()
        return
    if format == "markdown":
        from ..reports.markdown import MarkdownWriter

        yield MarkdownWriter(lambda text: out.write(text.encode()))
    else:
        from ..reports.machine import JsonlWriter, JsonWriter

        yield (JsonWriter if format == "json" else JsonlWriter)(out.write)


@command
def guards() -> None:
    """List every guard: code, name, whether it is on by default, and its summary."""
    from ..guards import all_guards

    for guard in all_guards():
        state = "off" if guard.is_off(guard.Options()) else "on"
        typer.echo(f"{guard.code}  {guard.name:<28} {state:<4} {guard.summary}")


@command
def guard(key: Annotated[str, typer.Argument(help="A guard code (P001) or name (similar-query-stagnation).")]) -> None:
    """Explain one guard: what it fires on, its options with defaults, and its examples."""
    from ..explain import explain_guard
    from ..guards import guard_by_key

    found = guard_by_key(key)
    if found is None:
        raise TracecheckError(f"unknown guard {key!r} (see 'tracecheck guards')")
    typer.echo(explain_guard(found))


@command
def convert(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Native JSONL file to write ('-' for stdout).")],
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Convert transcripts of any supported format into tracecheck's native JSONL."""
    from ..convert import write_native
    from ..diagnostics import Diagnostics
    from ..load import read_traces

    from ..output import open_output
    from ..sources import expand_paths

    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    with open_output(str(output), sources) as out:
        count = write_native(read_traces(sources, diagnostics, input_format), out)  # streamed: one trace at a time
        if not count:
            _finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
    _finish_input(paths, diagnostics, strict, count)
    _stderr().print(_safe(f"wrote {count} trace(s) to {'standard output' if str(output) == '-' else output}"))


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
        typer.echo(f"{info.name:<17} {info.description}")


def run() -> None:
    """Console-script entry point: user errors exit 2 without a traceback."""
    if hasattr(signal, "SIGPIPE"):
        # A reader that stops early (``| head``) ends tracecheck quietly, as it ends cat.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        app()  # standalone: usage errors print and exit 2, typer.Exit carries the code
    except TracecheckError as exc:
        _stderr().print(_safe(f"error: {exc}"), markup=False, highlight=False)
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("TRACECHECK_DEBUG"):
            raise
        _stderr().print(
            _safe(f"internal error: {type(exc).__name__}: {exc}") + "\n(run with TRACECHECK_DEBUG=1 for the traceback)",
            markup=False,
            highlight=False,
        )
        sys.exit(EXIT_ERROR)
