"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels`` (or name in the config file's ``labels``).

It starts from the labels the other commands would read (``--labels``, else the config
file's): a template then shows each trace as ``check`` sees it, and labelling new traces
keeps what the team already wrote for the old ones. It never writes over that file: the
entries of traces not given would be lost."""

from __future__ import annotations

import enum
from typing import Annotated, Optional

from .app import ConfigOpt, ExcludeOpt, InputFormatOpt, LabelsOpt, NoLabelsOpt, PathsArg, SelectTracesOpt, StrictOpt, command, finish_input, format_option, load_labels_option, output_option, safe, stderr_console
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
    keyword: SelectTracesOpt = None,
    exclude: ExcludeOpt = None,
) -> None:
    """Write a labels file for traces: one entry each, pre-filled with what their format
    says (outcome, labels, expectations) and what the labels file in use says, blanks left
    to fill. Use it with --labels or the config file's labels."""
    from ..input.diagnostics import Diagnostics
    from ..input.labels import template_entries, write_template
    from ..input.sources import Source, expand_paths
    from ..output import open_output
    from ..input.selection import parse_selection
    from ..readers.load import read_traces

    from .report_files import report_format

    chosen = report_format("label", output, format, LABEL_FILES, "json")
    selection = parse_selection(keyword)
    sidecar = load_labels_option(labels, no_labels, config)
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics, exclude or ())
    target = output or "-"
    inputs = [*sources, Source(sidecar.file)] if sidecar is not None else sources
    with open_output(target, inputs) as out:
        traces = read_traces(sources, diagnostics, input_format)
        labelled = map(sidecar.apply, traces) if sidecar is not None else traces
        if selection is not None:
            labelled = (trace for trace in labelled if selection.keep(trace, diagnostics))
        entries = template_entries(labelled, diagnostics)
        if sidecar is not None:
            sidecar.finish(diagnostics)
        if not entries:
            finish_input(paths, diagnostics, strict, 0, selection)  # exits before an empty output replaces anything
        write_template(entries, out, chosen, diagnostics)
    finish_input(paths, diagnostics, strict, len(entries), selection)
    if output is not None:
        stderr_console().print(safe(f"wrote labels for {len(entries)} trace(s) to {output}"))
