"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels``."""

from __future__ import annotations

import enum
from typing import Annotated, Optional

import typer

from .app import InputFormatOpt, PathsArg, StrictOpt, command, finish_input, safe, stderr_console


class LabelsFormat(str, enum.Enum):
    json = "json"
    csv = "csv"


@command
def label(
    paths: PathsArg,
    output: Annotated[Optional[str], typer.Option("--output", "-o", metavar="FILE", help="Write the labels file here (default: standard output).")] = None,
    format: Annotated[LabelsFormat, typer.Option("--format", "-f", help="json, or csv for a spreadsheet.")] = LabelsFormat.json,
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Write a labels file for traces: one entry each, pre-filled with what their format
    says (outcome, labels, expectations), blanks left to fill. Use it with --labels."""
    from ..input.diagnostics import Diagnostics
    from ..input.labels import template_entries, write_template
    from ..input.sources import expand_paths
    from ..output import open_output
    from ..readers.load import read_traces

    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    target = output or "-"
    with open_output(target, sources) as out:
        entries = template_entries(read_traces(sources, diagnostics, input_format), diagnostics)
        if not entries:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
        write_template(entries, out, format.value, diagnostics)
    finish_input(paths, diagnostics, strict, len(entries))
    if output is not None:
        stderr_console().print(safe(f"wrote labels for {len(entries)} trace(s) to {output}"))
