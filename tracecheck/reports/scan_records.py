"""The scan report as typed, frozen records (see ``records.py``): ``ScanReport``, what
``tracecheck scan`` found and, with a replay, what the guards found in it."""

from __future__ import annotations

from ..dataclass_lite import frozen_dataclass
from .records import (
    HeaderRecord,
    InputWarning,
    Record,
    RecordedCost,
    SavedTotals,
    Shares,
    TotalsRecord,
)


@frozen_dataclass(slots=True)
class FolderRecord(Record):
    """A folder ``tracecheck scan`` looked in: where (``path``, and ``moved_by``, the
    environment variable that put it there, None for the default), whether it is there,
    and the sessions found in it (after ``--since``), their bytes and dates."""

    path: str
    moved_by: str | None
    exists: bool
    sessions: int
    bytes: int
    first: str | None
    last: str | None


@frozen_dataclass(slots=True)
class AgentRecord(Record):
    """One agent of a scan: its name (``--agent``), the reader format its sessions are
    read with, whether that reader is there (``reader``), whether its sessions were
    replayed, the folders looked in, and why they were not replayed (``note``)."""

    agent: str
    title: str
    format: str
    reader: bool
    replayed: bool
    folders: tuple[FolderRecord, ...]
    sessions: int
    older: int  # sessions left out by --since
    note: str | None


@frozen_dataclass(slots=True)
class ScanSessionRecord(Record):
    """One session found: its transcript (a file, or a folder of event files), the
    project it belongs to, its size and dates (``dated_by``: ``session``, the times it
    records, or ``file``, the file's modification time where it records none), and what
    the guards found when it was replayed (None figures: listed, not replayed)."""

    agent: str
    project: str
    file: str
    bytes: int
    first: str | None
    last: str | None
    dated_by: str
    traces: int | None
    fires: dict[str, int] | None  # guard code -> fires
    traces_with_fires: int | None
    traces_stopped: int | None
    whole: RecordedCost | None
    saved: SavedTotals | None
    share: Shares | None

    def looped(self) -> bool:
        return bool(self.traces_with_fires)


@frozen_dataclass(slots=True)
class ProjectRecord(Record):
    """The replayed sessions of one agent in one project: how many, how many had a
    loop (a guard fired), how many the policy stopped, and the totals of their traces."""

    agent: str
    project: str
    sessions: int
    sessions_with_fires: int
    sessions_stopped: int
    totals: TotalsRecord


@frozen_dataclass(slots=True)
class ScanReport(Record):
    """What ``tracecheck scan`` reports: where it looked (every folder, there or not),
    what it found, and with a replay the groups by agent and project and every replayed
    session, worst first (most tokens the policy saves)."""

    schema_version: int
    tool: dict[str, str]
    home: str
    platform: str
    now: str
    since: str | None
    cutoff: str | None
    listed_only: bool
    header: HeaderRecord | None  # the guards and preset of the replay (None with --list)
    agents: tuple[AgentRecord, ...]
    projects: tuple[ProjectRecord, ...]
    sessions: tuple[ScanSessionRecord, ...]  # replayed ones worst first, then the listed ones
    totals: TotalsRecord | None
    warnings: tuple[InputWarning, ...]
