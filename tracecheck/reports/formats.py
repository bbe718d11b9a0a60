"""Every report format of every command, in one place: the formats a command writes (in
the order ``--format`` lists them), the end of a file name that says one, and what
writes each. The CLI's help and ``-o`` name checks (``cli.report_files``) and the
commands (``tracecheck.commands``) all look them up here.

Importing this module imports no writer: a writer's module is imported when its format
is written, so that ``tracecheck --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, BinaryIO

from ..dataclass_lite import frozen_dataclass

if TYPE_CHECKING:
    from .check_records import CheckReport


@frozen_dataclass
class CommandFormats:
    """The report formats of one command.

    ``writers``: format → what writes it, in the order ``--format`` lists them (what a
    writer is called with is the command's: see each table below). ``files``: a file
    name's end → the formats such a file may hold (the first is the one the name chooses
    when ``--format`` is not given)."""

    command: str
    writers: Mapping[str, Callable[..., Any]]
    files: Mapping[str, tuple[str, ...]]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.writers)

    def writer(self, format: str, what: str = "report") -> Callable[..., Any]:
        """What writes ``format`` (ValueError naming the choices when it is none of them)."""
        found = self.writers.get(format)
        if found is None:
            raise ValueError(f"unknown {what} format {format!r}; choose one of: {', '.join(self.writers)}")
        return found


def report_console(out: BinaryIO, to_file: bool):
    """The console a terminal-style report prints to: ``out`` without colour when it goes
    to a file, else standard output as the terminal shows it."""
    from rich.console import Console

    from ..input.output_files import CheckedText

    if not to_file:
        return Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)
    console = Console(file=io.TextIOWrapper(out, encoding="utf-8", write_through=True), highlight=False, soft_wrap=True, no_color=True, force_terminal=False)
    console.size = console.size  # measured once: Rich otherwise asks the environment on every print
    return console


# The replay report's writers, streaming (``begin``, ``trace`` per trace, ``end``): each is
# called with (out, to_file, only_fires, terminal options) and yields the writer.


def _terminal_writer(out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any]) -> Iterator[Any]:
    from ..input.output_files import CheckedText
    from .plain_text import PlainConsole, plain_width
    from .terminal import TerminalWriter

    # Where Rich would print no colour (a file, a pipe), the report is written without it.
    width = plain_width(sys.stdout, to_file=to_file)
    if width is None:
        console = report_console(out, to_file)
    elif to_file:
        console = PlainConsole(io.TextIOWrapper(out, encoding="utf-8", write_through=True), width)
    else:
        console = PlainConsole(CheckedText(sys.stdout), width)
    yield TerminalWriter(console, only_fires=only_fires, **terminal)
    console.file.flush()


def _markdown_writer(out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any]) -> Iterator[Any]:
    from .markdown import MarkdownWriter

    yield MarkdownWriter(lambda text: out.write(text.encode()))


def _html_writer(out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any]) -> Iterator[Any]:
    from .html import HtmlWriter

    yield HtmlWriter(lambda text: out.write(text.encode("utf-8")), only_fires=only_fires)


def _json_writer(out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any]) -> Iterator[Any]:
    from .machine import JsonWriter

    yield JsonWriter(out.write)


def _jsonl_writer(out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any]) -> Iterator[Any]:
    from .machine import JsonlWriter

    yield JsonlWriter(out.write)


REPLAY = CommandFormats(
    "replay",
    {"terminal": _terminal_writer, "json": _json_writer, "jsonl": _jsonl_writer, "markdown": _markdown_writer, "html": _html_writer},
    {".json": ("json",), ".jsonl": ("jsonl",), ".md": ("markdown",), ".html": ("html",), ".htm": ("html",), ".txt": ("terminal",)},
)


@contextlib.contextmanager
def report_writer(format: str, out: BinaryIO, to_file: bool, only_fires: bool, terminal: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """The writer for a report format, writing to ``out``; ``terminal``: the terminal
    writer's own options (``TerminalWriter``'s quiet, statistics, deselected, all_traces)."""
    yield from REPLAY.writer(format)(out, to_file, only_fires, terminal or {})


# ``show``: its timeline on the terminal (or in a text file), printed to ``report_console``,
# or the replay report's JSON with each trace's rounds (``timeline``, see ``reports.rounds``).
SHOW = CommandFormats(
    "show",
    {"terminal": report_console, "json": _json_writer, "jsonl": _jsonl_writer},
    {".json": ("json",), ".jsonl": ("jsonl",), ".txt": ("terminal",)},
)


# The sweep report's writers: each is called with (data, out, to_file, quiet) and writes
# the whole report (``reports.sweep_report.sweep_data``) to ``out``.


def _sweep_terminal(data: dict[str, Any], out: BinaryIO, to_file: bool, quiet: bool) -> None:
    from rich.console import Console

    from ..input.output_files import CheckedText
    from .sweep_report import frontier_chart, write_terminal

    if not to_file:
        console = Console(file=CheckedText(sys.stdout), highlight=False, soft_wrap=True)
    else:
        console = Console(file=io.TextIOWrapper(out, encoding="utf-8", write_through=True), highlight=False, soft_wrap=True, no_color=True)
    write_terminal(console, data, None if quiet else frontier_chart(data), quiet)
    console.file.flush()


def _sweep_json(data: dict[str, Any], out: BinaryIO, to_file: bool, quiet: bool) -> None:
    from .machine import dumps

    out.write(dumps(data) + b"\n")


def _sweep_csv(data: dict[str, Any], out: BinaryIO, to_file: bool, quiet: bool) -> None:
    from .sweep_report import write_csv

    out.write(write_csv(data).encode())


def _sweep_markdown(data: dict[str, Any], out: BinaryIO, to_file: bool, quiet: bool) -> None:
    from .sweep_report import write_markdown

    out.write(write_markdown(data).encode())


def _sweep_html(data: dict[str, Any], out: BinaryIO, to_file: bool, quiet: bool) -> None:
    from .sweep_html import write_html

    out.write(write_html(data).encode("utf-8"))


SWEEP = CommandFormats(
    "sweep",
    {"terminal": _sweep_terminal, "json": _sweep_json, "csv": _sweep_csv, "markdown": _sweep_markdown, "html": _sweep_html},
    {".json": ("json",), ".csv": ("csv",), ".md": ("markdown",), ".html": ("html",), ".htm": ("html",), ".txt": ("terminal",)},
)


# The check report's writers: each is called with (data, settings) and returns the text
# (``reports.check_report.check_data``'s ``CheckReport``).


def _check_writer(format: str) -> Callable[[CheckReport, Any], str]:
    def write(report: CheckReport, settings: Any = None) -> str:
        from .check_report import render

        return render(format, report, settings)

    write.__name__ = f"write_{format}"
    return write


CHECK = CommandFormats(
    "check",
    {name: _check_writer(name) for name in ("full", "concise", "json", "jsonl", "github", "junit", "sarif", "gitlab", "markdown")},
    {
        ".sarif": ("sarif",),
        ".sarif.json": ("sarif",),
        ".xml": ("junit",),
        ".junit.xml": ("junit",),
        ".gitlab.json": ("gitlab",),
        ".codequality.json": ("gitlab",),
        ".json": ("json", "gitlab", "sarif"),  # GitLab wants gl-code-quality-report.json
        ".jsonl": ("jsonl",),
        ".md": ("markdown",),
        ".txt": ("full", "concise", "github"),
    },
)


def _labels_template(entries, out: BinaryIO, format: str, diagnostics) -> None:
    from ..input.labels import write_template

    write_template(entries, out, format, diagnostics)


# ``label``: the labels file to fill in, called with (entries, out, format, diagnostics).
LABEL = CommandFormats("label", {"json": _labels_template, "csv": _labels_template}, {".json": ("json",), ".csv": ("csv",)})


def _baseline_file(path, result, keep, inputs):
    from ..engine.check import write_baseline

    return write_baseline(path, result, keep, inputs)


# ``baseline write``: the known findings, called with (path, check result, previous baseline, inputs).
BASELINE = CommandFormats("baseline write", {"json": _baseline_file}, {".json": ("json",)})


# ``scan``: the report of the coding agents' sessions found in a home folder, called
# with (report, out, to_file, all_sessions) and writing the whole ``ScanReport``.


def _scan_terminal(report, out: BinaryIO, to_file: bool, all_sessions: bool) -> None:
    from .scan_report import write_terminal

    console = report_console(out, to_file)
    write_terminal(console, report, all_sessions)
    console.file.flush()
    if to_file:
        console.file.detach()  # ``out`` stays open for the caller


def _scan_json(report, out: BinaryIO, to_file: bool, all_sessions: bool) -> None:
    from .machine import dumps

    out.write(dumps(report.to_json()) + b"\n")


def _scan_markdown(report, out: BinaryIO, to_file: bool, all_sessions: bool) -> None:
    from .scan_report import write_markdown

    out.write(write_markdown(report, all_sessions).encode())


SCAN = CommandFormats(
    "scan",
    {"terminal": _scan_terminal, "json": _scan_json, "markdown": _scan_markdown},
    {".json": ("json",), ".md": ("markdown",), ".txt": ("terminal",)},
)
