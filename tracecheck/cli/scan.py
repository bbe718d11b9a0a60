"""``tracecheck scan``: the coding agents' sessions in your home folder, found, listed
and replayed through the guards. It only reads, and nothing leaves the machine."""

import enum
import io
from pathlib import Path
from typing import Annotated, Optional

import typer

from .app import ConfigOpt, IgnoreOpt, JobsOpt, PresetOpt, SelectOpt, SetOpt, StrictOpt, command, format_option, guard_settings, job_count, output_option
from ..reports.formats import SCAN

ScanFormat = enum.Enum("ScanFormat", {name: name for name in SCAN.names}, type=str)


@command
def scan(
    agent: Annotated[
        Optional[list[str]],
        typer.Option("--agent", metavar="NAMES", help="Only these agents (repeatable, comma-separated): claude-code, codex, gemini-cli, cline, roo-code, goose, openhands, openhands-v0."),
    ] = None,
    since: Annotated[
        Optional[str],
        typer.Option("--since", metavar="WHEN", help="Only sessions whose last recorded time is this recent: 7d, 12h, 30m, 2w, or a date (2026-11-01)."),
    ] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the sessions found; replay nothing.")] = False,
    home: Annotated[
        Optional[Path],
        typer.Option("--home", metavar="DIR", help="The home folder to look in (default: yours); the agents' variables (CODEX_HOME, CLAUDE_CONFIG_DIR, ...) still move their folders."),
    ] = None,
    format: Annotated[Optional[ScanFormat], format_option("terminal")] = None,
    output: Annotated[Optional[Path], output_option(SCAN.files)] = None,
    all_sessions: Annotated[bool, typer.Option("--all-sessions", help="List every session; by default the worst 10.")] = False,
    config: ConfigOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    set_: SetOpt = None,
    preset: PresetOpt = None,
    strict: StrictOpt = False,
    jobs: JobsOpt = 1,
) -> None:
    """Find the coding agents' sessions below your home folder (Claude Code, Codex CLI,
    Gemini CLI, Cline, Roo Code, Goose, OpenHands), list them, and replay them through the
    guards: by agent and project, the sessions that looped and what the policy would have
    saved, worst first. Only reads; says every folder it looked in."""
    from ..commands.scan import ScanRequest, scan as scan_sessions
    from ..input.diagnostics import Diagnostics
    from ..input.output_files import open_output
    from ..input.sources import expand_paths
    from .app import EXIT_ERROR, stderr_console
    from .report_files import report_format
    from ..text.textsafe import plain

    chosen = ScanFormat(report_format("scan", output, format, SCAN.files, "terminal"))
    settings = guard_settings(config, select, ignore, set_, (), preset)
    diagnostics = Diagnostics()
    request = ScanRequest(
        settings,
        home=home,
        agents=agent or (),
        since=since,
        list_only=list_only,
        format=chosen.value,
        to_file=output is not None,
        all_sessions=all_sessions,
        jobs=job_count(jobs),
    )
    if output is None:
        with open_output("-") as out:
            scan_sessions(request, out, diagnostics=diagnostics)
    else:  # the sessions it read are known after the scan: none of their files is written over
        written = io.BytesIO()
        report = scan_sessions(request, written, diagnostics=diagnostics)
        with open_output(str(output), expand_paths([s.file for s in report.sessions], Diagnostics())) as out:
            out.write(written.getvalue())
    err = stderr_console()
    for item in diagnostics:
        err.print(plain(f"warning: {item}", "yellow"))
    if strict and len(diagnostics):
        err.print(plain(f"error: {len(diagnostics)} input warning(s) and --strict was given", "bold red"))
        raise typer.Exit(EXIT_ERROR)
