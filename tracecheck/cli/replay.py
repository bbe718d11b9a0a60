"""``tracecheck replay``: where each guard fires on each trace, and what it saves."""

import enum
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import (
    HTML_ON_TERMINAL,
    ConfigOpt,
    ExcludeOpt,
    IgnoreOpt,
    InputFormatOpt,
    JobsOpt,
    LabelsOpt,
    NoLabelsOpt,
    PathsArg,
    PresetsOpt,
    SelectOpt,
    SelectTracesOpt,
    SetOpt,
    StrictOpt,
    TokenizerOpt,
    command,
    finish_input,
    format_option,
    load_labels_option,
    job_count,
    output_option,
    preset_settings,
    progress_console,
    tokenizer_list,
)
from ..reports.formats import REPLAY

ReportFormat = enum.Enum("ReportFormat", {name: name for name in REPLAY.names}, type=str)


@command
def replay(
    paths: PathsArg,
    format: Annotated[Optional[ReportFormat], format_option("terminal")] = None,
    output: Annotated[Optional[Path], output_option(REPLAY.files)] = None,
    only_fires: Annotated[bool, typer.Option("--only-fires", help="List only traces where a guard fired.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Terminal report: the summary only, no trace by trace.")] = False,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Terminal report: only a table of each guard's fires and the traces it fired in, as ruff --statistics.")
    ] = False,
    all_traces: Annotated[
        bool, typer.Option("--all-traces", help="List every trace; by default the terminal report lists 3 where nothing fired and counts the rest.")
    ] = False,
    keyword: SelectTracesOpt = None,
    exclude: ExcludeOpt = None,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    tokenizer: TokenizerOpt = None,
    preset: PresetsOpt = None,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    jobs: JobsOpt = 1,
) -> None:
    """Replay traces through the guards: where each fires, what it would do, what it saves."""
    from ..commands.replay import ReplayRequest, replay as replay_traces
    from ..input.diagnostics import Diagnostics
    from ..input.output_files import open_output
    from ..input.diagnostics import TracecheckError
    from ..input.sources import expand_paths
    from .report_files import all_inputs, report_format

    format = ReportFormat(report_format("replay", output, format, REPLAY.files, "terminal"))
    if (quiet or statistics) and format is not ReportFormat.terminal:
        raise TracecheckError(f"{'--quiet' if quiet else '--statistics'} shortens the terminal report; -f {format.value} writes every trace")
    selection = None
    if keyword is not None:
        from ..input.selection import parse_selection  # here: only -k needs it (start-up)

        selection = parse_selection(keyword)
    if format is ReportFormat.html and output is None and sys.stdout.isatty():
        raise TracecheckError(HTML_ON_TERMINAL.format(name="report.html"))
    names = tokenizer_list(tokenizer)
    settings, presets = preset_settings(config, select, ignore, set_, names, preset)
    sidecar = load_labels_option(labels, no_labels, config)
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics, exclude or ())
    # The bar shares the screen with nothing: only when the report goes elsewhere (a file,
    # a pipe); a report printed to the terminal shows its own progress, trace by trace.
    report_on_screen = output is None and sys.stdout.isatty()
    with open_output(str(output) if output is not None else "-", all_inputs(sources, labels, config)) as out:
        with _progress(not report_on_screen) as advance:  # cleared before anything else is said
            request = ReplayRequest(
                sources,
                settings,
                format=format.value,
                to_file=output is not None,
                only_fires=only_fires,
                all_traces=all_traces,
                input_format=input_format,
                tokenizers=names,
                presets=presets,
                labels=sidecar,
                jobs=job_count(jobs),
                selection=selection,
                quiet=quiet,
                statistics=statistics,
            )
            traces = replay_traces(request, out, diagnostics=diagnostics, on_progress=advance)
        if not traces:
            finish_input(paths, diagnostics, strict, 0, selection)  # exits before an empty output replaces anything
    finish_input(paths, diagnostics, strict, traces, selection)


class _progress:
    """A progress bar on stderr, only when stderr is a terminal and the report is not
    printed to the same screen: bytes read of all the input (so that one large file
    moves too) and traces replayed. It is cleared when the replay ends."""

    def __init__(self, wanted: bool = True) -> None:
        self.bar = None
        self.wanted = wanted

    def __enter__(self):
        if not self.wanted:
            return None
        self.console = progress_console()
        if self.console is None:
            return None
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

        self.bar = Progress(
            TextColumn("replaying"),
            BarColumn(),
            DownloadColumn(),
            TextColumn("{task.fields[traces]}"),
            console=self.console,
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task("input", total=None, traces="")

        def advance(done: int, total: int | None, traces: int) -> None:
            self.bar.update(self.task, completed=done, total=total, traces=f"· {traces:,} trace{'s' if traces != 1 else ''}")

        return advance

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
