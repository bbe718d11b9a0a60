"""``tracecheck show``: traces round by round, with every guard's state."""

import enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..input.diagnostics import TracecheckError
from .app import (
    ConfigOpt,
    ExcludeOpt,
    IgnoreOpt,
    InputFormatOpt,
    JobsOpt,
    LabelsOpt,
    NoLabelsOpt,
    PathsArg,
    PresetOpt,
    SelectOpt,
    SelectTracesOpt,
    SetOpt,
    StrictOpt,
    command,
    finish_input,
    format_option,
    load_labels_option,
    guard_settings,
    job_count,
    output_option,
    tokenizer_list,
)
from ..reports.formats import SHOW

ShowFormat = enum.Enum("ShowFormat", {name: name for name in SHOW.names}, type=str)


class ShowState(str, enum.Enum):
    changed = "changed"
    all = "all"


@command
def show(
    paths: PathsArg,
    trace: Annotated[Optional[str], typer.Option("--trace", "-t", metavar="ID", help="Show only the trace with this id.")] = None,
    guards: Annotated[bool, typer.Option("--guards/--no-guards", help="Show each guard's state and fires per round.")] = True,
    format: Annotated[Optional[ShowFormat], format_option("terminal")] = None,
    output: Annotated[Optional[Path], output_option(SHOW.files)] = None,
    state: Annotated[
        ShowState, typer.Option("--state", help="changed: a guard's state where it changed or the guard fired; all: under every round.")
    ] = ShowState.changed,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Terminal: one summary line per trace (id, file, labels, size), no rounds.")] = False,
    keyword: SelectTracesOpt = None,
    exclude: ExcludeOpt = None,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    tokenizer: Annotated[
        Optional[str], typer.Option("--tokenizer", metavar="NAME", help="P001 tokenizer: char or jieba (replay compares the two).")
    ] = None,
    preset: PresetOpt = None,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    jobs: JobsOpt = 1,
) -> None:
    """Show traces round by round: calls, results, tokens, times, and why each guard fired or not.
    --format json writes the replay report (tracecheck schema report) with each trace's rounds."""
    from ..commands.show import ShowRequest, show as show_traces
    from ..input.diagnostics import Diagnostics
    from ..input.selection import parse_selection
    from ..input.sources import expand_paths
    from ..input.output_files import open_output
    from .report_files import all_inputs, report_format

    chosen = report_format("show", output, format, SHOW.files, "terminal")
    if quiet and chosen != "terminal":
        raise TracecheckError(f"--quiet shortens the terminal timeline; -f {chosen} writes every round")
    selection = parse_selection(keyword)
    if preset and "," in preset:
        raise TracecheckError("show replays one preset at a time; compare presets with 'tracecheck replay --preset a,b'")
    tokenizers = tokenizer_list(tokenizer)
    if len(set(tokenizers)) > 1:
        raise TracecheckError(
            f"show replays P001 with one tokenizer at a time (--tokenizer {tokenizers[0]}); "
            f"compare them with 'tracecheck replay --tokenizer {tokenizer}'"
        )
    settings = guard_settings(config, select, ignore, set_, tokenizers, preset) if guards else None
    sidecar = load_labels_option(labels, no_labels, config)
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics, exclude or ())
    ids: list[str] = []
    # Every check is made before the file is renamed into place: a failed show replaces nothing.
    with open_output(str(output) if output is not None else "-", all_inputs(sources, labels, config)) as out:
        request = ShowRequest(
            sources, format=chosen, to_file=output is not None, settings=settings, trace_id=trace, input_format=input_format, labels=sidecar,
            jobs=job_count(jobs), all_states=state is ShowState.all, selection=selection, quiet=quiet,
        )
        seen, shown = show_traces(request, out, diagnostics=diagnostics, seen_ids=ids)
        finish_input(paths, diagnostics, strict, seen, selection)
        if trace is not None and not shown:
            from ..text.suggest import did_you_mean

            listed = ", ".join(repr(i) for i in ids) + (f" and {seen - len(ids)} more" if seen > len(ids) else "")
            raise TracecheckError(f"no trace with id {trace!r}{did_you_mean(trace, ids)}; the traces here: {listed}")
