"""``tracecheck init``: settings, regression traces, a workflow and a pre-commit hook to
start gating CI with."""

from pathlib import Path
from typing import Annotated

import typer

from .app import command, safe, stdout_console


@command
def init(
    folder: Annotated[Path, typer.Argument(metavar="FOLDER", help="The project folder (default: this one).")] = Path("."),
    source: Annotated[
        str,
        typer.Option("--source", metavar="OWNER/NAME@REF", help="The repository and tag the workflow and the hook take tracecheck from."),
    ] = "OWNER/tracecheck@REF",
    pyproject: Annotated[bool, typer.Option("--pyproject", help="Put the settings in pyproject.toml's [tool.tracecheck] instead of tracecheck.toml.")] = False,
) -> None:
    """Start gating CI: a commented settings file, regressions/ with a labelled loop and a
    healthy run, a GitHub workflow and a pre-commit hook that check them. Existing files
    are left alone."""
    from ..scaffold import PLACEHOLDER_SOURCE, init_project

    steps = init_project(folder, source=source, pyproject=pyproject)
    console = stdout_console()
    where = "" if folder == Path(".") else f"{folder}/"
    for step in steps:
        verb = "wrote" if step.written else "kept"
        console.print(safe(f"{verb} {where}{step.path}" + (f" ({step.note})" if step.note else "")))
        if step.snippet:
            console.print(safe("  to run the hook, add to it:"))
            for line in step.snippet.rstrip().splitlines():
                console.print(safe("  " + line))
    if source == PLACEHOLDER_SOURCE:
        console.print(safe(f"note: replace {PLACEHOLDER_SOURCE} in the workflow and the hook by where you take tracecheck from (or pass --source)"))
    console.print(safe(f"next: tracecheck check {where}regressions/"))
