"""``tracecheck sweep``: which guard settings to choose, savings against harm."""

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
    SelectOpt,
    SelectTracesOpt,
    SetOpt,
    StrictOpt,
    command,
    finish_input,
    format_option,
    guard_settings,
    job_count,
    load_labels_option,
    output_option,
    stderr_console,
    safe,
)
from ..reports.formats import SWEEP

SweepFormat = enum.Enum("SweepFormat", {name: name for name in SWEEP.names}, type=str)


@command
def sweep(
    paths: PathsArg,
    grid: Annotated[
        Optional[list[str]],
        typer.Option(
            "--grid",
            metavar="GUARD.OPTION=VALUES",
            help="A dimension: a list (R001.stop_at=2,3,4) or an inclusive range START:STOP:STEP "
            "(P001.containment=0.6:0.95:0.05). Repeatable.",
        ),
    ] = None,
    preset: Annotated[
        Optional[str], typer.Option("--preset", metavar="NAMES", help="Presets as a dimension (comma-separated, or ALL).")
    ] = None,
    tokenizer: Annotated[
        Optional[str], typer.Option("--tokenizer", metavar="NAMES", help="P001 tokenizers as a dimension: char,jieba.")
    ] = None,
    metric: Annotated[
        Optional[str], typer.Option("--metric", metavar="NAMES", help="P001 similarity metrics as a dimension: containment,jaccard.")
    ] = None,
    objective: Annotated[
        str,
        typer.Option("--objective", metavar="NAME", help=(
                "What to maximise: tokens_saved, llm_calls_saved, tool_calls_saved, seconds_saved, recall, precision; "
                "tokens_saved_on_failure (and llm_calls_, tool_calls_, seconds_saved_on_failure): the savings on runs "
                "that failed anyway, which a user can bank."
            ),),
    ] = "tokens_saved",
    constraint: Annotated[
        Optional[str], typer.Option("--constraint", metavar="RULES", help="Limits on the choice, e.g. 'harm<=0.02,recall>=0.9'. Without a limit on harm the choice harms no more than the current settings.")
    ] = None,
    max_combos: Annotated[int, typer.Option("--max-combos", metavar="N", help="Refuse grids with more combinations than this.")] = 256,
    holdout: Annotated[
        Optional[float], typer.Option("--holdout", metavar="SHARE", min=0.05, max=0.95, help="Choose on the other traces, report on this share of them.")
    ] = None,
    folds: Annotated[Optional[int], typer.Option("--folds", metavar="K", min=2, help="K-fold cross-validation of the choice.")] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Seed of the holdout / fold split.")] = 0,
    jobs: JobsOpt = 1,
    format: Annotated[Optional[SweepFormat], format_option("terminal")] = None,
    output: Annotated[Optional[Path], output_option(SWEEP.files)] = None,
    write_config: Annotated[
        Optional[Path],
        typer.Option("--write-config", metavar="FILE", help="Write the winning settings into FILE's [tool.tracecheck] (pyproject.toml) or top level (tracecheck.toml)."),
    ] = None,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Terminal report: only the current settings, the verdict and the settings to paste, no table.")
    ] = False,
    keyword: SelectTracesOpt = None,
    exclude: ExcludeOpt = None,
) -> None:
    """Replay traces under a grid of guard settings: savings against harm, the Pareto front, and the best choice."""
    from ..commands.sweep import SweepRequest, command_line_dimensions, sweep as sweep_traces, sweep_dimensions
    from ..engine.grid import combinations
    from ..engine.sweep import OBJECTIVES, parse_constraints
    from ..input.diagnostics import Diagnostics, TracecheckError
    from ..config import load_settings

    from .report_files import report_format

    format = SweepFormat(report_format("sweep", output, format, SWEEP.files, "terminal"))
    if quiet and format is not SweepFormat.terminal:
        raise TracecheckError(f"--quiet shortens the terminal report; -f {format.value} writes every grid point")
    from ..input.selection import parse_selection

    selection = parse_selection(keyword)
    if format is SweepFormat.html and output is None and sys.stdout.isatty():
        raise TracecheckError(HTML_ON_TERMINAL.format(name="sweep.html"))
    if objective not in OBJECTIVES:
        from ..text.suggest import did_you_mean

        raise TracecheckError(f"--objective: unknown {objective!r}{did_you_mean(objective, OBJECTIVES)}; choose one of: {', '.join(OBJECTIVES)}")
    if holdout is not None and folds is not None:
        raise TracecheckError("choose --holdout or --folds, not both")
    constraints = parse_constraints(constraint)
    dimensions = command_line_dimensions(grid, preset, tokenizer, metric)
    base = guard_settings(config, select, ignore, set_)
    sidecar = load_labels_option(labels, no_labels, config)  # a missing file stops the sweep before it starts
    dimensions = sweep_dimensions(dimensions, base)
    count = combinations(dimensions)
    err = stderr_console()
    err.print(f"sweep: {count:,} combination{'s' if count != 1 else ''} of " + ", ".join(f"{d.key} ({len(d.values)})" for d in dimensions), markup=False, highlight=False)
    if count > max_combos:
        raise TracecheckError(f"{count:,} combinations is more than --max-combos {max_combos}; narrow the grid or raise the cap")

    def settings_for(name):
        return base if name is None else load_settings(config, select or (), ignore or (), set_ or (), preset=name)

    request = SweepRequest(
        paths, base, dimensions, settings_for, objective=objective, constraints=constraints, holdout=holdout, folds=folds, seed=seed, jobs=job_count(jobs),
        input_format=input_format, labels=sidecar, selection=selection, skip=exclude or (), format=format.value,
        output=str(output) if output is not None else "-", to_file=output is not None, quiet=quiet, write_config=write_config, also_read=(labels, config),
    )
    diagnostics = Diagnostics()
    outcome = sweep_traces(
        request, diagnostics=diagnostics, on_read=lambda traces: finish_input(paths, diagnostics, strict, traces, selection),
        progress=lambda files: _progress(err, files),
    )
    if outcome.config_written is False:
        err.print(safe(f"{write_config} left as it is: {outcome.data['verdict']}"), markup=False, highlight=False)
    elif outcome.config_written:
        err.print(safe(f"wrote the winning settings to {write_config}"), markup=False, highlight=False)


class _progress:
    """A progress bar over the input files on stderr, only when stderr is a terminal."""

    def __init__(self, console, total: int) -> None:
        self.total, self.bar = total, None

    def __enter__(self):
        from .app import progress_console

        self.console = progress_console()
        if self.console is None:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(TextColumn("sweeping"), BarColumn(), MofNCompleteColumn(), TextColumn("files, every grid point"), console=self.console, transient=True)
        self.bar.start()
        task = self.bar.add_task("files", total=self.total)
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
