"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels`` (or name in the config file's ``labels``).

It starts from the labels the other commands would read (``--labels``, else the config
file's): a template then shows each trace as ``check`` sees it, and labelling new traces
keeps what the team already wrote for the old ones. It never writes over that file: the
entries of traces not given would be lost."""

from __future__ import annotations

import enum
from typing import Annotated, Optional

from .app import ConfigOpt, InputFormatOpt, LabelsOpt, NoLabelsOpt, PathsArg, StrictOpt, command, finish_input, format_option, load_labels_option, output_option, safe, stderr_console
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
    labels: LabelsOpt = None,
    no_labels: NoLabelsOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Write a labels file for traces: one entry each, pre-filled with what their format
    says (outcome, labels, expectations) and what the labels file in use says, blanks left
    to fill. Use it with --labels or the config file's labels."""
    from ..input.diagnostics import Diagnostics
    from ..input.labels import template_entries, write_template
    from ..input.sources import Source, expand_paths
    from ..output import open_output
    from ..readers.load import read_traces

    from .report_files import report_format

    chosen = report_format("label", output, format, LABEL_FILES, "json")
    sidecar = load_labels_option(labels, no_labels, config)
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    target = output or "-"
    inputs = [*sources, Source(sidecar.file)] if sidecar is not None else sources
    with open_output(target, inputs) as out:
        traces = read_traces(sources, diagnostics, input_format)
        entries = template_entries(map(sidecar.apply, traces) if sidecar is not None else traces, diagnostics)
        if sidecar is not None:
            sidecar.finish(diagnostics)
        if not entries:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
        write_template(entries, out, chosen, diagnostics)
    finish_input(paths, diagnostics, strict, len(entries))
    if output is not None:
        stderr_console().print(safe(f"wrote labels for {len(entries)} trace(s) to {output}"))
