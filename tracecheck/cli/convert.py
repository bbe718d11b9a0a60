"""``tracecheck convert``: any supported format into tracecheck's native JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import InputFormatOpt, PathsArg, StrictOpt, command, finish_input, safe, stderr_console


@command
def convert(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="Native JSONL file to write ('-' for stdout).")],
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Convert transcripts of any supported format into tracecheck's native JSONL."""
    from ..input.diagnostics import Diagnostics
    from ..readers.load import read_traces
    from ..output import open_output
    from ..readers.native_writer import write_native
    from ..input.sources import expand_paths

    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    with open_output(str(output), sources) as out:
        count = write_native(read_traces(sources, diagnostics, input_format), out)  # streamed: one trace at a time
        if not count:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
    finish_input(paths, diagnostics, strict, count)
    stderr_console().print(safe(f"wrote {count} trace(s) to {'standard output' if str(output) == '-' else output}"))
