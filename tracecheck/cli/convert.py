"""``tracecheck convert``: any supported format into tracecheck's native JSONL."""

from pathlib import Path
from typing import Annotated

import typer

from .app import InputFormatOpt, PathsArg, StrictOpt, command, finish_input, safe, stderr_console


@command
def convert(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Native JSONL file to write ('-' for stdout); a .gz, .bz2 or .xz name compresses it.")],
    input_format: InputFormatOpt = None,
    strict: StrictOpt = False,
) -> None:
    """Convert transcripts of any supported format into tracecheck's native JSONL."""
    from ..commands.convert import ConvertRequest, convert as convert_traces, suffix_note
    from ..input.diagnostics import Diagnostics
    from ..input.output_files import open_output
    from ..input.sources import expand_paths

    diagnostics = Diagnostics()
    sources = expand_paths(paths, diagnostics)
    renamed: list[tuple[str, str]] = []
    with open_output(str(output), sources) as out:
        count = convert_traces(ConvertRequest(sources, str(output), input_format), out, diagnostics=diagnostics, renamed=renamed)
        if not count:
            finish_input(paths, diagnostics, strict, 0)  # exits before an empty output replaces anything
    finish_input(paths, diagnostics, strict, count)
    err = stderr_console()
    if renamed:
        shown = ", ".join(f"{old!r} → {new!r}" for old, new in renamed[:5]) + (f" and {len(renamed) - 5} more" if len(renamed) > 5 else "")
        err.print(safe(f"note: trace ids repeat across files; renamed so that they stay apart: {shown}"))
    err.print(safe(f"wrote {count} trace(s) to {'standard output' if str(output) == '-' else output}"))
    note = suffix_note(str(output))
    if note:
        err.print(safe(f"note: {note}"))
