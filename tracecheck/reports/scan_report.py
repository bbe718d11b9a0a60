"""The scan report (``tracecheck scan``): what each replayed session contributes
(``scan_entry``, made where the trace was replayed), the tallies by session and by agent
and project, and the writers (terminal, Markdown; JSON is ``ScanReport.to_json()``).

Every text that comes from a transcript or a file name (a project's working folder, a
path) is untrusted: the terminal writer prints it as ``rich.text.Text``, neutralised, and
the Markdown writer escapes it as the replay report's Markdown does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..engine.batch import ReplayItem
from ..model import Trace
from .data import TotalsAccumulator
from .records import TotalsRecord
from .scan_records import ProjectRecord, ScanReport, ScanSessionRecord
from .wording import count, effect, number, pct

# Trace metadata that names the folder a session ran in (Claude Code and Codex CLI:
# ``cwd``; other coding agents' readers: ``working_dir``, ``workspace``).
PROJECT_KEYS = ("cwd", "working_dir", "workspace")

NO_PROJECT = "(no project in path)"


def trace_times(trace: Trace) -> tuple[float | None, float | None]:
    """The first and last time ``trace`` records (rounds, tool results, user messages),
    Unix seconds; (None, None) when it records none."""
    times: list[float] = []
    for rnd in trace.rounds:
        times += [t for t in (rnd.started_at, rnd.ended_at) if t is not None]
        for call in rnd.tool_calls:
            if call.result is not None:
                times += [t for t in (call.result.started_at, call.result.ended_at) if t is not None]
    times += [m.at for m in trace.user_messages if m.at is not None]
    return (min(times), max(times)) if times else (None, None)


def trace_project(trace: Trace) -> str | None:
    """The folder the session ran in, as its transcript says (None: it does not)."""
    for key in PROJECT_KEYS:
        value = trace.metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


@frozen_dataclass(slots=True)
class TraceFacts:
    """What scan takes from one trace read (or replayed): where it is, its times, its
    project, and with a replay what the totals take (``TotalsAccumulator.entry``)."""

    file: str
    first: float | None
    last: float | None
    project: str | None
    entry: tuple | None = None


def trace_facts(trace: Trace) -> TraceFacts:
    first, last = trace_times(trace)
    return TraceFacts(trace.file, first, last, trace_project(trace))


def scan_entry(item: ReplayItem) -> TraceFacts:
    """One replayed trace of a scan (the ``prepare`` of ``replay_stream``: it runs where
    the trace was replayed, in a worker process with ``--jobs``)."""
    facts = trace_facts(item.result.trace)
    return TraceFacts(facts.file, facts.first, facts.last, facts.project, TotalsAccumulator.entry(item.result))


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@mutable_dataclass
class SessionTally:
    """One session's traces as they come: its dates, project and totals."""

    agent: str
    path: str  # the file (or folder) as it is opened
    file: str  # as reports show it (``display_name``), as the traces read from it name it
    bytes: int
    mtime: float
    path_project: str | None
    cutoff: float | None = None  # --since: traces whose last time is before it are left out
    older_traces: int = 0
    first: float | None = None
    last: float | None = None
    project: str | None = None
    traces: int = 0
    replayed: bool = False
    totals: TotalsAccumulator = field(default_factory=TotalsAccumulator)
    entries: list[tuple] = field(default_factory=list)  # each replayed trace's, for the groups

    def add(self, facts: TraceFacts) -> None:
        if self.cutoff is not None and (facts.last if facts.last is not None else self.mtime) < self.cutoff:
            self.older_traces += 1
            return
        self.traces += 1
        if facts.first is not None:
            self.first = facts.first if self.first is None else min(self.first, facts.first)
        if facts.last is not None:
            self.last = facts.last if self.last is None else max(self.last, facts.last)
        if self.project is None and facts.project is not None:
            self.project = facts.project
        if facts.entry is not None:
            self.replayed = True
            self.totals.add_entry(facts.entry)
            self.entries.append(facts.entry)

    @property
    def dated_by(self) -> str:
        return "session" if self.last is not None else "file"

    def dates(self) -> tuple[float, float]:
        """The session's first and last date: its own, else the file's modification time."""
        if self.last is None:
            return self.mtime, self.mtime
        return self.first if self.first is not None else self.last, self.last

    def older(self) -> bool:
        """Whether ``--since`` leaves the session out: every trace read from it is older
        than the cutoff, or it has none and its file is."""
        if self.cutoff is None:
            return False
        if not self.traces and self.older_traces:
            return True
        return self.dates()[1] < self.cutoff

    def project_name(self) -> str:
        return self.project or self.path_project or NO_PROJECT

    def record(self) -> ScanSessionRecord:
        first, last = self.dates()
        common = dict(
            agent=self.agent, project=self.project_name(), file=self.file, bytes=self.bytes, first=iso(first), last=iso(last), dated_by=self.dated_by
        )
        if not self.replayed:
            return ScanSessionRecord(
                **common, traces=self.traces or None, fires=None, traces_with_fires=None, traces_stopped=None, whole=None, saved=None, share=None
            )
        totals = self.totals.data()
        fires = {code: counts.fires for code, counts in totals.by_guard.items()}
        return ScanSessionRecord(
            **common,
            traces=totals.traces,
            fires=fires,
            traces_with_fires=totals.traces_with_fires,
            traces_stopped=totals.traces_stopped,
            whole=totals.whole,
            saved=totals.saved,
            share=totals.share,
        )


def worst_first(sessions: Iterable[ScanSessionRecord]) -> list[ScanSessionRecord]:
    """Replayed sessions by what the policy saves there (tokens, then LLM calls), then by
    how many traces had a loop and what they cost; then those only listed, newest first."""
    sessions = list(sessions)
    replayed = [s for s in sessions if s.saved is not None]
    listed = sorted((s for s in sessions if s.saved is None), key=lambda s: s.file)
    listed.sort(key=lambda s: s.last or "", reverse=True)
    replayed.sort(key=lambda s: (-s.saved.tokens, -s.saved.llm_calls, -(s.traces_with_fires or 0), -s.whole.tokens, s.file))
    return replayed + listed


def totals_of(tallies: Iterable[SessionTally]) -> TotalsRecord:
    """The totals of the traces replayed in ``tallies``, as the replay report's."""
    totals = TotalsAccumulator()
    for tally in tallies:
        for entry in tally.entries:
            totals.add_entry(entry)
    return totals.data()


def project_records(tallies: Iterable[SessionTally]) -> list[ProjectRecord]:
    """The replayed sessions grouped by agent and project, the groups that save most first."""
    groups: dict[tuple[str, str], list[SessionTally]] = {}
    for tally in tallies:
        if tally.replayed:
            groups.setdefault((tally.agent, tally.project_name()), []).append(tally)
    out = []
    for (agent, project), members in groups.items():
        out.append(
            ProjectRecord(
                agent=agent,
                project=project,
                sessions=len(members),
                sessions_with_fires=sum(1 for m in members if m.totals.with_fires),
                sessions_stopped=sum(1 for m in members if m.totals.stopped),
                totals=totals_of(members),
            )
        )
    out.sort(key=lambda p: (-p.totals.saved.tokens, -p.sessions_with_fires, p.agent, p.project))
    return out


# --- writers ---------------------------------------------------------------------------

SHOWN_SESSIONS = 10  # the terminal and Markdown reports list the worst sessions up to this


def size_text(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{size} B"


def dates_text(first: str | None, last: str | None) -> str:
    if first is None or last is None:
        return ""
    a, b = first[:10], last[:10]
    return a if a == b else f"{a} … {b}"


def fires_text(fires: dict[str, int]) -> str:
    return ", ".join(code if n == 1 else f"{code} ×{n}" for code, n in sorted(fires.items(), key=lambda kv: (-kv[1], kv[0])))


def session_line(session: ScanSessionRecord) -> str:
    """What a session's line says after its place: its loops and what the policy saves."""
    parts = [dates_text(session.first, session.last) + (" (file time)" if session.dated_by == "file" else "")]
    if session.saved is None:
        return " · ".join(p for p in parts if p)
    if session.traces_with_fires:
        parts.append(fires_text(session.fires or {}))
    parts.append(effect(session.saved, session.whole) if session.traces_stopped else f"no stop · {session.whole.tokens:,} tokens")
    return " · ".join(p for p in parts if p)


def summary_lines(report: ScanReport) -> list[str]:
    found = sum(a.sessions for a in report.agents)
    agents = sum(1 for a in report.agents if a.sessions)
    lines = [f"{count(found, 'session')} found in {count(agents, 'agent')}" + (f" since {report.cutoff[:16].replace('T', ' ')} UTC" if report.cutoff else "")]
    older = sum(a.older for a in report.agents)
    if older:
        lines.append(f"{count(older, 'session')} older than --since left out")
    if report.totals is not None:
        t = report.totals
        replayed = sum(1 for s in report.sessions if s.saved is not None)
        looped = sum(1 for s in report.sessions if s.looped())
        stopped = sum(1 for s in report.sessions if s.traces_stopped)
        lines.append(f"{count(replayed, 'session')} replayed ({count(t.traces, 'trace')}) · {looped:,} with a loop · {stopped:,} stopped by the policy")
        lines.append(
            f"saved: {number(t.saved.llm_calls)} of {number(t.whole.llm_calls)} LLM calls{pct(t.saved.llm_calls, t.whole.llm_calls)}"
            f" · {number(t.saved.tokens)} of {number(t.whole.tokens)} tokens{pct(t.saved.tokens, t.whole.tokens)}"
        )
    listed = [a for a in report.agents if a.sessions and a.note]
    for a in listed:
        lines.append(f"{a.agent}: {count(a.sessions, 'session')} listed, not replayed ({a.note})")
    if report.warnings:
        files = len({w.file for w in report.warnings})
        lines.append(f"{count(len(report.warnings), 'warning')} about {count(files, 'file')} (each with its file:line on standard error; the other sessions are reported)")
    return lines


def _home_relative(path: str, home: str) -> str:
    if path == home:
        return "~"
    if path.startswith(home.rstrip("/\\") + "/") or path.startswith(home.rstrip("/\\") + "\\"):
        return "~" + path[len(home.rstrip("/\\")) :]
    return path


def write_terminal(console: Any, report: ScanReport, show_all: bool = False) -> None:
    """The scan report for a person: where it looked, the groups, the worst sessions."""
    from rich.text import Text

    from ..text.textsafe import neutralize

    def line(*parts: tuple[str, str] | str) -> None:
        text = Text()
        for part in parts:
            if isinstance(part, tuple):
                text.append(neutralize(part[0]), style=part[1])
            else:
                text.append(neutralize(part))
        console.print(text)

    line(("Looked in", "bold"), f" (home {report.home}, {report.platform}; read only, nothing leaves this machine)")
    for agent in report.agents:
        line(f"  {agent.title}", (f" ({agent.agent}, read as {agent.format})", "dim"))
        for folder in agent.folders:
            where = _home_relative(folder.path, report.home) + (f"  (${folder.moved_by})" if folder.moved_by else "")
            if not folder.exists:
                line(f"    {where}", ("  not there", "dim"))
                continue
            found = f"  {count(folder.sessions, 'session')} · {size_text(folder.bytes)}"
            span = dates_text(folder.first, folder.last)
            line(f"    {where}", found + (f" · {span}" if span else ""))
        if agent.sessions and agent.note:
            line(("    listed, not replayed: ", "yellow"), agent.note)
    if report.cutoff:
        line(("since ", "bold"), f"{report.since}: sessions whose last recorded time is from {report.cutoff[:16].replace('T', ' ')} UTC on")
    if not report.listed_only and report.projects:
        preset = report.header.preset if report.header is not None else None
        console.print()
        line(("By agent and project", "bold"), f" (policy: {preset or 'the settings'})")
        for group in report.projects:
            t = group.totals
            said = f"{count(group.sessions, 'session')} · {group.sessions_with_fires:,} with a loop · {group.sessions_stopped:,} stopped"
            said += " · " + (effect(t.saved, t.whole) if t.traces_stopped else f"no stop · {t.whole.tokens:,} tokens")
            line(f"  {group.agent}  ", (group.project, "cyan"))
            line(f"      {said}")
        replayed = [s for s in report.sessions if s.saved is not None]
        shown = replayed if show_all else replayed[:SHOWN_SESSIONS]
        if shown:
            console.print()
            line(("Worst sessions first", "bold"))
            for number_, session in enumerate(shown, 1):
                line(f"  {number_:>2}. ", (_home_relative(session.file, report.home), "cyan"), ("  " + session.agent + " · " + session.project, "dim"))
                line(f"      {session_line(session)}")
            if len(replayed) > len(shown):
                line((f"  … and {len(replayed) - len(shown):,} more (--all-sessions lists them)", "dim"))
    elif report.listed_only and report.sessions:
        console.print()
        line(("Sessions", "bold"), " (newest first)")
        shown = report.sessions if show_all else report.sessions[:SHOWN_SESSIONS]
        for session in shown:
            line("  ", (_home_relative(session.file, report.home), "cyan"), f"  {size_text(session.bytes)} · {session_line(session)}", ("  " + session.project, "dim"))
        if len(report.sessions) > len(shown):
            line((f"  … and {len(report.sessions) - len(shown):,} more (--all-sessions lists them)", "dim"))
    console.print()
    line(("Summary", "bold"))
    for text in summary_lines(report):
        line(f"  {text}")


def write_markdown(report: ScanReport, show_all: bool = False) -> str:
    """The scan report as Markdown: the same sections as the terminal's, as tables."""
    from .markdown import md

    out = ["# tracecheck scan", "", f"Home {md(report.home)} ({report.platform}); read only, nothing leaves this machine.", ""]
    if report.cutoff:
        out += [f"Since {md(report.since or '')}: sessions whose last recorded time is from {report.cutoff} on.", ""]
    out += ["## Where it looked", "", "| agent | reader | folder | moved by | sessions | size | dates |", "|---|---|---|---|---|---|---|"]
    for agent in report.agents:
        for folder in agent.folders:
            out.append(
                f"| {agent.agent} | {agent.format if agent.reader else 'no reader'} | {md(folder.path)} | {folder.moved_by or ''} | "
                + (f"{folder.sessions} | {size_text(folder.bytes)} | {dates_text(folder.first, folder.last)} |" if folder.exists else "not there | | |")
            )
    if report.projects:
        out += ["", "## By agent and project", "", "| agent | project | sessions | with a loop | stopped | policy |", "|---|---|---|---|---|---|"]
        for group in report.projects:
            t = group.totals
            policy = effect(t.saved, t.whole) if t.traces_stopped else "no stop"
            out.append(f"| {group.agent} | {md(group.project)} | {group.sessions} | {group.sessions_with_fires} | {group.sessions_stopped} | {policy} |")
    rows = report.sessions if show_all else report.sessions[:SHOWN_SESSIONS]
    if rows:
        out += ["", "## Sessions" + ("" if report.listed_only else ", worst first"), "", "| session | agent | project | size | found |", "|---|---|---|---|---|"]
        for s in rows:
            out.append(f"| {md(s.file)} | {s.agent} | {md(s.project)} | {size_text(s.bytes)} | {md(session_line(s))} |")
        if len(report.sessions) > len(rows):
            out.append(f"\n… and {len(report.sessions) - len(rows):,} more.")
    out += ["", "## Summary", ""] + [f"- {md(text)}" for text in summary_lines(report)]
    return "\n".join(out) + "\n"
