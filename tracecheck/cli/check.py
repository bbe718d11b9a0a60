"""``tracecheck check`` and ``tracecheck baseline``: gate CI on regression traces."""

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
    safe,
)
from ..reports.formats import BASELINE, CHECK
from .report_files import listed_ends

CheckFormat = enum.Enum("CheckFormat", {name: name for name in CHECK.names}, type=str)


OutputOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help=f"Also write the report to FILE; a name ending in {listed_ends(CHECK.files)} says the format (.xml: JUnit), "
        "FORMAT:FILE names it. Repeatable.",
    ),
]
MaxRoundsOpt = Annotated[
    Optional[int], typer.Option("--max-wasted-rounds", min=0, metavar="N", help="Fail when the policy would have saved more than N rounds on a trace.")
]
MaxTokensOpt = Annotated[
    Optional[int], typer.Option("--max-wasted-tokens", min=0, metavar="N", help="Fail when the policy would have saved more than N tokens on a trace.")
]


def _settings(config, select, ignore, set_, preset, labels, no_labels):
    """The settings and labels file a check runs with (one preset at most)."""
    from ..input.diagnostics import TracecheckError

    if preset and "," in preset:
        raise TracecheckError("check runs one preset at a time; compare presets with 'tracecheck replay --preset a,b'")
    return guard_settings(config, select, ignore, set_, (), preset), load_labels_option(labels, no_labels, config)


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
    from ..commands.check import CheckRequest, check as check_traces
    from ..engine.check import load_baseline
    from ..input.diagnostics import Diagnostics, TracecheckError
    from .report_files import format_of_file

    formats = CHECK.names

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
        if sep and name in formats:
            if not path:
                raise TracecheckError(f"-o {spec}: no file name after the format")
            targets.append((format_of_file("check", path, CHECK.files, name, named=f"the '{name}:' before it"), path))
            continue
        if sep and name.isalpha() and len(name) > 1:
            from ..text.suggest import did_you_mean

            raise TracecheckError(f"-o {spec}: unknown format {name!r}{did_you_mean(name, formats)}; choose one of: {', '.join(formats)}")
        chosen = format_of_file("check", spec, CHECK.files)
        if chosen is None:
            raise TracecheckError(f"-o {spec}: cannot tell the format from the file name; write FORMAT:{spec}")
        targets.append((chosen, spec))
    written = [path for _, path in targets]
    if len(set(written)) < len(written):
        raise TracecheckError("-o names the same file twice: " + ", ".join(sorted({p for p in written if written.count(p) > 1})))
    settings, sidecar = _settings(config, select, ignore, set_, preset, labels, no_labels)
    request = CheckRequest(
        paths, settings, input_format=input_format, labels=sidecar, baseline=load_baseline(baseline) if baseline is not None else None, fail_on=fail_on,
        max_wasted_rounds=max_wasted_rounds, max_wasted_tokens=max_wasted_tokens, jobs=job_count(jobs), selection=selection, skip=exclude or (),
        format=output_format.value, outputs=targets, quiet=quiet, statistics=statistics, allow_empty=allow_empty, github_summary=github_summary,
        also_read=(labels, baseline, config),
    )
    diagnostics = Diagnostics()
    outcome = check_traces(request, diagnostics=diagnostics, on_read=lambda traces: finish_input(paths, diagnostics, strict, traces, selection))
    if github_summary and outcome.summary is None:
        stderr_console().print("note: --github-summary: GITHUB_STEP_SUMMARY is not set (outside GitHub Actions): no summary written", markup=False, highlight=False)
    if outcome.exit_code and not exit_zero:
        raise typer.Exit(outcome.exit_code)


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
    from ..commands.check import BaselineRequest, baseline_write
    from ..engine.check import load_baseline
    from ..input.diagnostics import Diagnostics
    from .report_files import format_of_file

    format_of_file(BASELINE.command, str(output), BASELINE.files)
    previous = load_baseline(output) if output.exists() else None
    settings, sidecar = _settings(config, select, ignore, set_, preset, labels, no_labels)
    request = BaselineRequest(output, paths, settings, input_format, sidecar, max_wasted_rounds, max_wasted_tokens, job_count(jobs), previous)
    diagnostics = Diagnostics()
    written = baseline_write(request, diagnostics=diagnostics, on_read=lambda traces: finish_input(paths, diagnostics, False, traces))
    stderr_console().print(safe(f"wrote {len(written.findings)} finding(s) to {output}" + (f", kept {len(written.accepted)} accepted" if written.accepted else "")), markup=False, highlight=False)


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
    from ..commands.check import BaselineRequest, baseline_prune
    from ..engine.check import load_baseline
    from ..input.diagnostics import Diagnostics

    known = load_baseline(baseline)
    settings, sidecar = _settings(config, select, ignore, set_, preset, labels, no_labels)
    request = BaselineRequest(baseline, paths, settings, input_format, sidecar, max_wasted_rounds, max_wasted_tokens, job_count(jobs), known)
    diagnostics = Diagnostics()
    kept, removed = baseline_prune(request, diagnostics=diagnostics, on_read=lambda traces: finish_input(paths, diagnostics, False, traces))
    stderr_console().print(safe(f"{baseline}: removed {removed} fixed entr{'ies' if removed != 1 else 'y'}, kept {kept}"), markup=False, highlight=False)
