"""``tracecheck check`` and ``tracecheck baseline``: gate CI on regression traces."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import (
    ConfigOpt,
    ExcludeOpt,
    IgnoreOpt,
    InputFormatOpt,
    JobsOpt,
    LabelsOpt,
    NoLabelsOpt,
    PathsArg,
    PlainGroup,
    PresetOpt,
    SelectOpt,
    SelectTracesOpt,
    SetOpt,
    StrictOpt,
    app,
    command,
    finish_input,
    guard_settings,
    job_count,
    load_labels_option,
    stderr_console,
)
from .report_files import BASELINE_FILES, CHECK_FILES, listed_ends

class CheckFormat(str, enum.Enum):
    full = "full"
    concise = "concise"
    json = "json"
    jsonl = "jsonl"
    github = "github"
    junit = "junit"
    sarif = "sarif"
    gitlab = "gitlab"
    markdown = "markdown"


OutputOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help=f"Also write the report to FILE; a name ending in {listed_ends(CHECK_FILES)} says the format (.xml: JUnit), "
        "FORMAT:FILE names it. Repeatable.",
    ),
]
MaxRoundsOpt = Annotated[
    Optional[int], typer.Option("--max-wasted-rounds", min=0, metavar="N", help="Fail when the policy would have saved more than N rounds on a trace.")
]
MaxTokensOpt = Annotated[
    Optional[int], typer.Option("--max-wasted-tokens", min=0, metavar="N", help="Fail when the policy would have saved more than N tokens on a trace.")
]


def _evaluate(
    paths, config, select, ignore, set_, preset, input_format, labels, no_labels, baseline, fail_on, max_wasted_rounds, max_wasted_tokens, exclude=(), jobs=1,
    selection=None, skip=(),
):
    """``exclude``: files that are check's own (a baseline being written); ``skip``: the
    --exclude globs of a folder walk; ``selection``: -k."""
    from ..engine.check import load_baseline, run_check
    from ..input.diagnostics import Diagnostics, TracecheckError
    from ..input.sources import expand_paths

    if preset and "," in preset:
        raise TracecheckError("check runs one preset at a time; compare presets with 'tracecheck replay --preset a,b'")
    settings = guard_settings(config, select, ignore, set_, (), preset)
    sidecar = load_labels_option(labels, no_labels, config)
    known = load_baseline(baseline) if baseline is not None else None
    diagnostics = Diagnostics()
    result = run_check(
        expand_paths(paths, diagnostics, skip),
        settings,
        input_format=input_format,
        labels=sidecar,
        baseline=known,
        fail_on=fail_on,
        max_wasted_rounds=max_wasted_rounds,
        max_wasted_tokens=max_wasted_tokens,
        diagnostics=diagnostics,
        exclude=[str(p) for p in exclude],
        jobs=job_count(jobs),
        selection=selection,
    )
    return settings, result, diagnostics


def _inputs(paths, exclude):
    """The trace files below ``paths``, without the baseline file itself."""
    import os

    from ..input.diagnostics import Diagnostics
    from ..input.sources import expand_paths

    skip = {os.path.realpath(str(p)) for p in exclude}
    return [s for s in expand_paths(paths, Diagnostics()) if os.path.realpath(s.name) not in skip]


@command
def check(
    paths: PathsArg,
    output_format: Annotated[
        Optional[CheckFormat], typer.Option("--format", "-f", metavar="FORMAT", help="Report format on standard output (default: full; -o FILE's name says its own).")
    ] = None,
    output_format_alias: Annotated[Optional[CheckFormat], typer.Option("--output-format", metavar="FORMAT", hidden=True)] = None,  # the older spelling of -f
    output: OutputOpt = None,
    baseline: Annotated[Optional[Path], typer.Option("--baseline", metavar="FILE", help="Known findings: fail only on new ones.")] = None,
    fail_on: Annotated[str, typer.Option("--fail-on", metavar="WHEN", help="new: fail on new findings only; any: on any finding not accepted.")] = "new",
    max_wasted_rounds: MaxRoundsOpt = None,
    max_wasted_tokens: MaxTokensOpt = None,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Report, but exit 0 even when the gate fails.")] = False,
    allow_empty: Annotated[
        bool,
        typer.Option("--allow-empty", help="Exit 0, not 5, when the traces hold nothing to check (no expectation, label or outcome)."),
    ] = False,
    github_summary: Annotated[
        bool,
        typer.Option(
            "--github-summary",
            envvar="TRACECHECK_GITHUB_SUMMARY",
            help="Append a Markdown summary to the file $GITHUB_STEP_SUMMARY names (GitHub Actions).",
        ),
    ] = False,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    preset: PresetOpt = None,
    jobs: JobsOpt = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Full and concise reports: only the failing findings and the summary.")] = False,
    statistics: Annotated[
        bool,
        typer.Option("--statistics", help="Instead of the findings one by one, a table of findings per rule and the summary, as ruff --statistics."),
    ] = False,
    keyword: SelectTracesOpt = None,
    exclude: ExcludeOpt = None,
) -> None:
    """Fail (exit 1) when a trace's expectations break, the policy cuts a successful run, or an agent loops;
    exit 5 when the traces hold nothing to check (as pytest when it collects no test)."""
    from ..input.diagnostics import TracecheckError
    from ..input.sources import expand_paths
    from ..output import open_output
    from ..reports.check_report import FORMATS, check_data, render
    from .report_files import all_inputs, format_of_file

    if output_format and output_format_alias and output_format != output_format_alias:
        raise TracecheckError(f"--format {output_format.value} and --output-format {output_format_alias.value} disagree; give one")
    output_format = output_format or output_format_alias or CheckFormat.full
    if (quiet or statistics) and output_format not in (CheckFormat.full, CheckFormat.concise):
        raise TracecheckError(f"{'--quiet' if quiet else '--statistics'} shortens the full and concise reports; -f {output_format.value} writes every finding")
    from ..input.selection import parse_selection

    selection = parse_selection(keyword)
    targets = []
    for spec in output or ():
        name, sep, path = spec.partition(":")
        if sep and name in FORMATS:
            if not path:
                raise TracecheckError(f"-o {spec}: no file name after the format")
            targets.append((format_of_file("check", path, CHECK_FILES, name, named=f"the '{name}:' before it"), path))
            continue
        if sep and name.isalpha() and len(name) > 1:
            from ..text.suggest import did_you_mean

            raise TracecheckError(f"-o {spec}: unknown format {name!r}{did_you_mean(name, FORMATS)}; choose one of: {', '.join(FORMATS)}")
        chosen = format_of_file("check", spec, CHECK_FILES)
        if chosen is None:
            raise TracecheckError(f"-o {spec}: cannot tell the format from the file name; write FORMAT:{spec}")
        targets.append((chosen, spec))
    written = [path for _, path in targets]
    if len(set(written)) < len(written):
        raise TracecheckError("-o names the same file twice: " + ", ".join(sorted({p for p in written if written.count(p) > 1})))
    settings, result, diagnostics = _evaluate(
        paths, config, select, ignore, set_, preset, input_format, labels, no_labels, baseline, fail_on, max_wasted_rounds, max_wasted_tokens, jobs=jobs,
        selection=selection, skip=exclude or (),
    )
    result.allow_empty = allow_empty
    finish_input(paths, diagnostics, strict, result.traces, selection)
    if result.unreadable:
        # A regression trace that cannot be read checks nothing: that is no pass.
        raise TracecheckError("no trace could be read from " + ", ".join(result.unreadable) + " (see the warnings above)")
    data = check_data(result, settings)
    inputs = all_inputs(expand_paths(paths, type(diagnostics)(), exclude or ()), labels, baseline, config)
    for name, path in targets:
        with open_output(path, inputs) as out:
            out.write(render(name, data, settings).encode())
    with open_output("-", inputs) as out:
        if statistics:
            from ..reports.check_report import write_statistics

            out.write(write_statistics(data).encode())
        else:
            shown = {**data, "findings": [f for f in data["findings"] if f["failing"]]} if quiet else data
            out.write(render(output_format.value, shown, settings).encode())
    if github_summary:
        from ..reports.check_report import append_github_summary

        if append_github_summary(data) is None:
            stderr_console().print("note: --github-summary: GITHUB_STEP_SUMMARY is not set (outside GitHub Actions): no summary written", markup=False, highlight=False)
    if result.exit_code and not exit_zero:
        raise typer.Exit(result.exit_code)


baseline_app = typer.Typer(help="Record known findings so that check fails only on new ones.", no_args_is_help=True, rich_markup_mode=None, cls=PlainGroup)
app.add_typer(baseline_app, name="baseline")


@command(on=baseline_app)
def write(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Write the baseline (JSON) to FILE.")] = Path("tracecheck-baseline.json"),
    max_wasted_rounds: MaxRoundsOpt = None,
    max_wasted_tokens: MaxTokensOpt = None,
    input_format: InputFormatOpt = None,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    preset: PresetOpt = None,
    jobs: JobsOpt = 1,
) -> None:
    """Record today's findings as known (the file's accepted findings, with their reasons, stay)."""
    from ..engine.check import load_baseline, write_baseline
    from .report_files import format_of_file

    format_of_file("baseline write", str(output), BASELINE_FILES)
    previous = load_baseline(output) if output.exists() else None
    _, result, diagnostics = _evaluate(paths, config, select, ignore, set_, preset, input_format, labels, no_labels, None, "new", max_wasted_rounds, max_wasted_tokens, [output], jobs)
    finish_input(paths, diagnostics, False, result.traces)
    written = write_baseline(output, result, previous, _inputs(paths, [output]))
    stderr_console().print(f"wrote {len(written.findings)} finding(s) to {output}" + (f", kept {len(written.accepted)} accepted" if written.accepted else ""), markup=False, highlight=False)


@command(on=baseline_app)
def prune(
    baseline: Annotated[Path, typer.Argument(metavar="BASELINE", help="The baseline file to prune.")],
    paths: PathsArg,
    max_wasted_rounds: MaxRoundsOpt = None,
    max_wasted_tokens: MaxTokensOpt = None,
    input_format: InputFormatOpt = None,
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    preset: PresetOpt = None,
    jobs: JobsOpt = 1,
) -> None:
    """Remove the entries no finding matches any more; never add one."""
    from ..engine.check import load_baseline, prune_baseline

    known = load_baseline(baseline)
    _, result, diagnostics = _evaluate(paths, config, select, ignore, set_, preset, input_format, labels, no_labels, None, "new", max_wasted_rounds, max_wasted_tokens, [baseline], jobs)
    known.warn_unread(result.traces_read, diagnostics)  # kept, never pruned: say why
    finish_input(paths, diagnostics, False, result.traces)
    kept, removed = prune_baseline(baseline, result, known, _inputs(paths, [baseline]))
    stderr_console().print(f"{baseline}: removed {removed} fixed entr{'ies' if removed != 1 else 'y'}, kept {kept}", markup=False, highlight=False)
