"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels``."""

from __future__ import annotations

import enum
from typing import Annotated, Optional

from .app import InputFormatOpt, PathsArg, StrictOpt, command, finish_input, format_option, output_option, safe, stderr_console
from .report_files import LABEL_FILES


class LabelsFormat(str, enum.Enum):
    json = "json"
    csv = "csv"


@command
def label(
    paths: PathsArg,
    format: Annotated[Optional[LabelsFormat], format_option("json", "Labels file format, csv for a spreadsheet")] = None,
    output: Annotated[Optional[str], output_option(LABEL_FILES, "the labels file")] = None,
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

    from .report_files import report_format

    chosen = report_format("label", output, format, LABEL_FILES, "json")
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    target = output or "-"
    with open_output(target, sources) as out:
        entries = template_entries(read_traces(sources, diagnostics, input_format), diagnostics)
        if not entries:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
        write_template(entries, out, chosen, diagnostics)
    finish_input(paths, diagnostics, strict, len(entries))
    if output is not None:
        stderr_console().print(safe(f"wrote labels for {len(entries)} trace(s) to {output}"))
