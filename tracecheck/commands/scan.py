"""``tracecheck scan``: find the coding agents' sessions below a home folder (the folders
``input.agent_homes`` names, and where their environment variables move them), list
them, and replay them through the guards with replay's own machinery
(``engine.batch.replay_stream``). It only reads: no file is written, nothing is sent.

Callable without the CLI::

    import sys
    from tracecheck.commands import ScanRequest, scan
    from tracecheck.config import load_settings

    scan(ScanRequest(load_settings(), since="7d", format="json"), sys.stdout.buffer)
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from ..config import Settings
from ..dataclass_lite import frozen_dataclass
from ..engine.batch import replay_stream
from ..input.agent_homes import (
    AGENT_NAMES,
    AGENTS,
    Agent,
    Folder,
    agent_by_name,
    current_platform,
    folders,
    sessions_in,
)
from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.sources import Source, display_name, expand_paths
from ..reports.data import SCHEMA_VERSION, header_data
from ..reports.formats import SCAN
from ..reports.records import InputWarning
from ..reports.scan_records import AgentRecord, FolderRecord, ScanReport
from ..reports.scan_report import (
    SessionTally,
    TraceFacts,
    iso,
    project_records,
    scan_entry,
    totals_of,
    trace_facts,
    worst_first,
)


@frozen_dataclass
class ScanRequest:
    """What to scan and how to report it.

    ``home``: the home folder (None: the user's); ``env``: the environment whose
    variables move the agents' folders (None: this process's); ``platform``: ``linux``,
    ``darwin`` or ``win32`` (None: this machine's), which chooses the default folders.
    ``agents``: names from ``input.agent_homes.AGENT_NAMES`` (empty: all). ``since``: a
    duration before ``now`` (``7d``, ``12h``, ``30m``, ``2w``) or a date (``2026-11-01``):
    only sessions whose last recorded time is from then on (a session that records no
    time: its file's modification time). ``list_only``: list, replay nothing.
    ``format``: terminal, json or markdown; ``all_sessions``: list every session, not the
    worst 10. ``jobs`` above 1 replays in that many processes."""

    settings: Settings
    home: str | Path | None = None
    env: Mapping[str, str] | None = None
    platform: str | None = None
    agents: Sequence[str] = ()
    since: str | None = None
    now: float | None = None
    list_only: bool = False
    format: str = "terminal"
    to_file: bool = True
    all_sessions: bool = False
    jobs: int = 1


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float) -> float:
    """The cutoff ``--since`` names, in Unix seconds: ``now`` less a duration (``7d``,
    ``12h``, ``30m``, ``2w``), or a date or time (``2026-11-01``, ``2026-11-01T08:00``;
    UTC unless it says its offset)."""
    found = _DURATION.match(text)
    if found:
        return now - float(found.group(1)) * _UNITS[found.group(2)]
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise TracecheckError(f"--since {text!r}: give a duration before now (7d, 12h, 30m, 2w) or a date (2026-11-01)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.timestamp()


def chosen_agents(names: Sequence[str]) -> list[Agent]:
    """The agents ``--agent`` names (all when none), in the table's order; an unknown
    name is an error that lists the known ones."""
    wanted = [n.strip() for name in names for n in name.split(",") if n.strip()]
    for name in wanted:
        if agent_by_name(name) is None:
            from ..text.suggest import did_you_mean

            raise TracecheckError(f"--agent: unknown agent {name!r}{did_you_mean(name, AGENT_NAMES)}; known agents: {', '.join(AGENT_NAMES)}")
    return [a for a in AGENTS if not wanted or a.name in wanted]


def _stat(path: Path, unit: str) -> tuple[int, float]:
    """Bytes and last modification time of a session (a folder's: of its files)."""
    if unit == "file":
        found = path.stat()
        return found.st_size, found.st_mtime
    size, mtime = 0, 0.0
    for here, _dirs, files in os.walk(path):
        for name in files:
            try:
                found = os.stat(os.path.join(here, name), follow_symlinks=False)
            except OSError:
                continue
            size += found.st_size
            mtime = max(mtime, found.st_mtime)
    return size, mtime


def scan(request: ScanRequest, out: BinaryIO, *, diagnostics: Diagnostics | None = None) -> ScanReport:
    """Find, list and (unless ``list_only``) replay the agents' sessions; write the report
    in ``request.format`` to ``out`` and return it. Unreadable sessions are warnings in
    ``diagnostics`` (and in the report); the others are still reported."""
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    writer = SCAN.writer(request.format)
    agents = chosen_agents(request.agents)
    home = Path(request.home) if request.home is not None else Path.home()
    env = dict(os.environ) if request.env is None else dict(request.env)
    platform = current_platform(request.platform)
    now = time.time() if request.now is None else request.now
    cutoff = parse_since(request.since, now) if request.since is not None else None

    agent_records: list[AgentRecord] = []
    tallies: list[SessionTally] = []
    for agent in agents:
        record, found = _scan_agent(agent, request, home, env, platform, cutoff, diagnostics)
        agent_records.append(record)
        tallies += found

    report = ScanReport(
        schema_version=SCHEMA_VERSION,
        tool=header_data(None, ()).tool,
        home=str(home),
        platform=platform,
        now=iso(now) or "",
        since=request.since,
        cutoff=iso(cutoff),
        listed_only=request.list_only,
        header=None if request.list_only else header_data(request.settings, ()),
        agents=tuple(agent_records),
        projects=tuple(project_records(tallies)),
        sessions=tuple(worst_first(t.record() for t in tallies)),
        totals=None if request.list_only else totals_of(tallies),
        warnings=tuple(InputWarning(d.file, d.line, d.reason) for d in diagnostics),
    )
    writer(report, out, request.to_file, request.all_sessions)
    return report


def _scan_agent(
    agent: Agent, request: ScanRequest, home: Path, env: Mapping[str, str], platform: str, cutoff: float | None, diagnostics: Diagnostics
) -> tuple[AgentRecord, list[SessionTally]]:
    """One agent's folders, the sessions found in them (read, and replayed unless
    listing), and its record in the report."""
    from ..readers import reader_by_name

    reader = reader_by_name(agent.format) is not None
    replay = reader and not request.list_only
    note = None
    if not reader:
        note = f"no reader for the {agent.format} format"
    found: list[tuple[Folder, bool, list[SessionTally]]] = []
    older = 0
    for folder in folders(agent, home, env, platform):
        exists = folder.path.is_dir()
        kept: list[SessionTally] = []
        for session in sessions_in(agent, folder.path) if exists else ():
            shown = display_name(str(session.path))
            try:
                size, mtime = _stat(session.path, agent.unit)
            except OSError as exc:
                diagnostics.warn(shown, None, f"cannot read: {exc.strerror or exc}")
                continue
            if cutoff is not None and mtime < cutoff:
                older += 1  # not written since the cutoff: no time in it can be later
                continue
            kept.append(SessionTally(agent.name, str(session.path), shown, size, mtime, session.project, cutoff))
        found.append((folder, exists, kept))
    if reader:
        _read(agent, [t for _folder, _exists, kept in found for t in kept], request, diagnostics, replay)
    records, sessions = [], []
    for folder, exists, kept in found:
        older += sum(1 for t in kept if t.older())
        kept = [t for t in kept if not t.older()]
        dates = [t.dates() for t in kept]
        records.append(
            FolderRecord(
                path=str(folder.path),
                moved_by=folder.moved_by,
                exists=exists,
                sessions=len(kept),
                bytes=sum(t.bytes for t in kept),
                first=iso(min(d[0] for d in dates)) if dates else None,
                last=iso(max(d[1] for d in dates)) if dates else None,
            )
        )
        sessions += kept
    record = AgentRecord(agent.name, agent.title, agent.format, reader, replay and bool(sessions), tuple(records), len(sessions), older, note)
    return record, sessions


def _read(agent: Agent, sessions: list[SessionTally], request: ScanRequest, diagnostics: Diagnostics, replay: bool) -> None:
    """Read (with ``replay``: replay, as ``tracecheck replay`` does) ``sessions`` with
    ``agent``'s reader, adding each trace's facts to its session (``--since`` keeps the
    traces whose last time is not before the cutoff: see ``SessionTally.add``)."""
    if agent.unit == "file":
        by_file = {t.file: t for t in sessions}
        sources = [Source(t.path) for t in sessions]
    else:  # a folder of event files: the input layer makes it one source, named after it
        by_file, sources = {}, []
        for tally in sessions:
            for source in expand_paths([tally.path], diagnostics):
                if source.members:  # not the files beside the events (the state, metadata)
                    sources.append(source)
                    by_file[display_name(source.name)] = tally
    if not sources:
        return
    if replay:
        facts = replay_stream(sources, request.settings, input_format=agent.format, diagnostics=diagnostics, prepare=scan_entry, jobs=request.jobs)
    else:
        facts = _read_only(sources, agent.format, diagnostics)
    for item in facts:
        tally = by_file.get(item.file)
        if tally is not None:
            tally.add(item)


def _read_only(sources: list[Source], input_format: str, diagnostics: Diagnostics) -> Iterator[TraceFacts]:
    from ..readers.load import read_source

    for source in sources:
        for trace in read_source(source, diagnostics, input_format):
            yield trace_facts(trace)
