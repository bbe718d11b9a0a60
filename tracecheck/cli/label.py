"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels`` (or name in the config file's ``labels``).

It starts from the labels the other commands would read (``--labels``, else the config
file's): a template then shows each trace as ``check`` sees it, and labelling new traces
keeps what the team already wrote for the old ones. It never writes over that file: the
entries of traces not given would be lost."""

import enum
from typing import Annotated, Optional

from .app import ConfigOpt, ExcludeOpt, InputFormatOpt, LabelsOpt, NoLabelsOpt, PathsArg, SelectTracesOpt, StrictOpt, command, finish_input, format_option, load_labels_option, output_option, safe, stderr_console
from ..reports.formats import LABEL

LabelsFormat = enum.Enum("LabelsFormat", {name: name for name in LABEL.names}, type=str)


@command
def label(
    paths: PathsArg,
    format: Annotated[Optional[LabelsFormat], format_option("json", "Labels file format, csv for a spreadsheet")] = None,
    output: Annotated[Optional[str], output_option(LABEL.files, "the labels file")] = None,
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
    from ..commands.label import LabelRequest, label as label_traces
    from ..input.diagnostics import Diagnostics
    from ..input.sources import Source, expand_paths
    from ..input.output_files import open_output
    from ..input.selection import parse_selection

    from .report_files import report_format

    chosen = report_format("label", output, format, LABEL.files, "json")
    selection = parse_selection(keyword)
    sidecar = load_labels_option(labels, no_labels, config)
    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics, exclude or ())
    target = output or "-"
    inputs = [*sources, Source(sidecar.file)] if sidecar is not None else sources

    def none_read(entries: int) -> None:
        if not entries:
            finish_input(paths, diagnostics, strict, 0, selection)  # exits before an empty output replaces anything

    with open_output(target, inputs) as out:
        written = label_traces(LabelRequest(sources, chosen, input_format, sidecar, selection), out, diagnostics=diagnostics, on_read=none_read)
    finish_input(paths, diagnostics, strict, written, selection)
    if output is not None:
        stderr_console().print(safe(f"wrote labels for {written} trace(s) to {output}"))
