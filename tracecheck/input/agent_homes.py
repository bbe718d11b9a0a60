"""Where the coding agents keep their sessions, as data: ``tracecheck scan`` looks in
these folders (below a home folder, the XDG folders or %APPDATA%, or where an
environment variable moves them) and nothing else, and only reads.

Each ``Agent`` names the reader format its transcripts are read with (which may not be
registered yet: scan then lists the sessions and says "no reader"), the folders per
platform, the environment variables that move a folder, the glob patterns of its
transcripts below a folder, the files beside them that are not transcripts, and how a
session's project shows in its path.

The facts, from each tool's own source or documentation (as stored in late 2025/2026):

- Claude Code: ``~/.claude/projects/<project-slug>/<session-id>.jsonl``, sub-agents in
  ``<session-id>/subagents/agent-<id>.jsonl`` beside ``agent-<id>.meta.json`` and a
  ``journal.jsonl`` of their lifecycle; ``CLAUDE_CONFIG_DIR`` replaces ``~/.claude``. The
  slug is the working folder with every other character than letters and digits made
  ``-`` (Claude Code's environment variables page, code.claude.com/docs/en/env-vars:
  CLAUDE_CONFIG_DIR; the layout as session tools read it, e.g. docs.rs
  ``agent-top-core`` ``harness/claude.rs``).
- Codex CLI: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``,
  ``CODEX_HOME`` defaulting to ``~/.codex`` (openai/codex ``codex-rs/core/src/rollout/
  recorder.rs``; ``find_codex_home``, in ``codex-rs/core/src/config.rs`` and later
  ``codex-rs/utils/home-dir/src/lib.rs``); the earliest 2025 builds wrote
  ``rollout-*.jsonl`` straight into ``sessions/``.

A variable that moves a folder counts when it holds an absolute path (a relative one is
ignored, as Goose ignores it; the tools that would resolve it resolve it against their
own working folder, which scan cannot know).
- Gemini CLI: ``<home>/.gemini/tmp/<project>/chats/session-<time>-<id>.json`` and the
  ``/chat save`` checkpoints ``<home>/.gemini/tmp/<project>/checkpoint-<tag>.json``, where
  ``<project>`` is the SHA-256 of the project root (a short slug from
  ``~/.gemini/projects.json`` since late 2025) and ``GEMINI_CLI_HOME`` replaces the home
  folder (google-gemini/gemini-cli ``packages/core/src/config/storage.ts``
  ``getGlobalTempDir``/``getWorkspaceTempDir``, ``packages/core/src/utils/paths.ts``
  ``homedir``; ``logs.json`` and ``shell_history`` sit beside them).
- Cline: ``<globalStorage>/saoudrizwan.claude-dev/tasks/<task-id>/
  api_conversation_history.json`` beside ``ui_messages.json``, ``task_metadata.json`` and
  ``context_history.json``; VS Code's ``User/globalStorage`` is in ``$XDG_CONFIG_HOME``
  (``~/.config``) on Linux, ``~/Library/Application Support`` on macOS and ``%APPDATA%``
  on Windows (microsoft/vscode ``src/vs/platform/environment/node/userDataPath.ts``), and
  likewise for its forks (Code - Insiders, VSCodium, Cursor, Windsurf). The Cline CLI and
  JetBrains hosts keep it in ``$CLINE_DIR/data`` (default ``~/.cline/data``;
  ``CLINE_DATA_DIR`` names that folder itself) (cline/cline ``src/standalone/
  vscode-context.ts`` ``initializeContext``).
- Roo Code: the same layout under ``rooveterinaryinc.roo-cline``.
- Goose: ``<data>/sessions/<name>.jsonl`` with ``<data>`` ``$XDG_DATA_HOME/goose``
  (``~/.local/share/goose``) on Linux and macOS, ``%APPDATA%\\Block\\goose\\data`` on
  Windows, and ``$GOOSE_PATH_ROOT/data`` when that absolute path is set (block/goose
  ``crates/goose/src/config/paths.rs``: etcetera's ``choose_app_strategy``, XDG except on
  Windows). Goose 1.10 and later keep sessions in ``sessions/sessions.db`` (SQLite),
  which no reader reads.
- OpenHands: ``~/.openhands/conversations/<id>/events/*.json`` (the V1 CLI; one event per
  file; ``OPENHANDS_PERSISTENCE_DIR`` moves ``~/.openhands``,
  ``OPENHANDS_CONVERSATIONS_DIR`` the conversations folder itself; All-Hands-AI/OpenHands
  ``openhands-cli/openhands_cli/locations.py``) and the V0 server's
  ``~/.openhands/sessions/<id>/events/*.json``.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from pathlib import Path

from ..dataclass_lite import frozen_dataclass

PLATFORMS = ("linux", "darwin", "win32")
ALL = PLATFORMS

# The base folders a place may be below; each is its environment variable when that is
# set (and absolute), else the default below the home folder.
BASES: dict[str, str | None] = {
    "HOME": None,  # the home folder itself
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "APPDATA": "AppData/Roaming",
    "MAC_APP_SUPPORT": "Library/Application Support",  # no variable: always below the home
}


@frozen_dataclass(slots=True)
class Place:
    """A folder where an agent keeps sessions: ``path`` below the base ``base`` on the
    ``platforms`` listed, unless one of ``moved_by`` (environment variable, path below
    it) is set: then there, on any platform."""

    base: str
    path: str
    platforms: tuple[str, ...] = ALL
    moved_by: tuple[tuple[str, str], ...] = ()


@frozen_dataclass(slots=True)
class Agent:
    """A coding agent: ``name`` (what ``--agent`` takes), its ``format`` (the reader's
    FORMAT name), where it keeps sessions (``places``), which files below such a folder
    are transcripts (``patterns``, globs on the path below the folder) and which are its
    side files (``side_files``, never read), how a session's ``project`` shows in the path
    (the index of the path part below the folder, or None when the path has none), and
    whether a session is one file or a folder of event files (``unit``)."""

    name: str
    title: str
    format: str
    places: tuple[Place, ...]
    patterns: tuple[str, ...]
    side_files: tuple[str, ...] = ()
    project: int | None = None
    unit: str = "file"  # "file", or "folder": a session is the folder its events are in


# Editors whose User/globalStorage holds Cline's and Roo Code's task folders.
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")


def _global_storage(extension: str) -> tuple[Place, ...]:
    places = []
    for editor in EDITORS:
        below = f"{editor}/User/globalStorage/{extension}/tasks"
        places += [
            Place("XDG_CONFIG_HOME", below, ("linux",)),
            Place("MAC_APP_SUPPORT", below, ("darwin",)),
            Place("APPDATA", below, ("win32",)),
        ]
    return tuple(places)


_TASK_SIDE_FILES = ("*/ui_messages.json", "*/task_metadata.json", "*/context_history.json", "*/settings/*")

AGENTS: tuple[Agent, ...] = (
    Agent(
        "claude-code",
        "Claude Code",
        "claude-code",
        (Place("HOME", ".claude/projects", moved_by=(("CLAUDE_CONFIG_DIR", "projects"),)),),
        ("*/*.jsonl", "*/*/subagents/agent-*.jsonl"),
        ("*/*/subagents/*.meta.json", "*/*/subagents/journal.jsonl", "*/*/tool-results/*", "*/*/workflows/*", "*/memory/*"),
        project=0,
    ),
    Agent(
        "codex",
        "Codex CLI",
        "codex-cli",
        (Place("HOME", ".codex/sessions", moved_by=(("CODEX_HOME", "sessions"),)),),
        ("*/*/*/rollout-*.jsonl", "rollout-*.jsonl"),
        (),
        project=None,  # no project folder: the session's cwd says it
    ),
    Agent(
        "gemini-cli",
        "Gemini CLI",
        "gemini-cli",
        (Place("HOME", ".gemini/tmp", moved_by=(("GEMINI_CLI_HOME", ".gemini/tmp"),)),),
        ("*/chats/session-*.json", "*/checkpoint-*.json"),
        ("*/logs.json", "*/shell_history", "bin/*"),
        project=0,
    ),
    Agent(
        "cline",
        "Cline",
        "cline",
        (
            *_global_storage("saoudrizwan.claude-dev"),
            Place("HOME", ".cline/data/tasks", moved_by=(("CLINE_DATA_DIR", "tasks"), ("CLINE_DIR", "data/tasks"))),
        ),
        ("*/api_conversation_history.json",),
        _TASK_SIDE_FILES,
    ),
    Agent(
        "roo-code",
        "Roo Code",
        "cline",
        _global_storage("rooveterinaryinc.roo-cline"),
        ("*/api_conversation_history.json",),
        _TASK_SIDE_FILES,
    ),
    Agent(
        "goose",
        "Goose",
        "goose",
        (
            Place("XDG_DATA_HOME", "goose/sessions", ("linux", "darwin"), moved_by=(("GOOSE_PATH_ROOT", "data/sessions"),)),
            Place("APPDATA", "Block/goose/data/sessions", ("win32",), moved_by=(("GOOSE_PATH_ROOT", "data/sessions"),)),
        ),
        ("*.jsonl",),
        ("sessions.db", "sessions.db-*"),
    ),
    Agent(
        "openhands",
        "OpenHands",
        "openhands-v1",
        (
            Place(
                "HOME",
                ".openhands/conversations",
                moved_by=(("OPENHANDS_CONVERSATIONS_DIR", ""), ("OPENHANDS_PERSISTENCE_DIR", "conversations")),
            ),
        ),
        ("*/events/*.json",),
        ("*/base_state.json", "*/TASKS.json"),
        unit="folder",
    ),
    Agent(
        "openhands-v0",
        "OpenHands (V0)",
        "openhands",
        (Place("HOME", ".openhands/sessions", moved_by=(("OPENHANDS_PERSISTENCE_DIR", "sessions"),)),),
        ("*/events/*.json",),
        ("*/metadata.json", "*/agent_state.pkl", "*/conversation_stats.pkl"),
        unit="folder",
    ),
)

AGENT_NAMES = tuple(agent.name for agent in AGENTS)


def agent_by_name(name: str) -> Agent | None:
    return next((agent for agent in AGENTS if agent.name == name), None)


def current_platform(value: str | None = None) -> str:
    """``linux``, ``darwin`` or ``win32`` (every other Unix counts as Linux)."""
    import sys

    value = value or sys.platform
    return value if value in PLATFORMS else "linux"


@frozen_dataclass(slots=True)
class Folder:
    """A folder looked in: where it is, which variable put it there (None: the default)."""

    agent: str
    path: Path
    moved_by: str | None


def _absolute(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name, "")
    return Path(value) if value and os.path.isabs(value) else None


def base_folder(base: str, home: Path, env: Mapping[str, str]) -> Path:
    below = BASES[base]
    if base != "MAC_APP_SUPPORT" and base != "HOME":
        found = _absolute(env, base)
        if found is not None:
            return found
    return home if below is None else home / below


def folders(agent: Agent, home: Path, env: Mapping[str, str], platform: str) -> list[Folder]:
    """The folders to look in for ``agent``'s sessions, in the table's order, each once."""
    out: list[Folder] = []
    for place in agent.places:
        moved = next(((name, below) for name, below in place.moved_by if _absolute(env, name) is not None), None)
        if moved is not None:
            name, below = moved
            found = Folder(agent.name, _absolute(env, name) / below if below else _absolute(env, name), name)
        elif platform in place.platforms:
            found = Folder(agent.name, base_folder(place.base, home, env) / place.path, None)
        else:
            continue
        if all(found.path != f.path for f in out):
            out.append(found)
    return out


@frozen_dataclass(slots=True)
class SessionPath:
    """One session found: its transcript (a file, or a folder of event files), the
    project its path names (None when the path names none)."""

    agent: str
    path: Path
    project: str | None


def _matches(relative: str, patterns: tuple[str, ...]) -> bool:
    parts = relative.split("/")
    for pattern in patterns:
        if len(pattern.split("/")) == len(parts) and fnmatch.fnmatchcase(relative, pattern):
            return True
    return False


def sessions_in(agent: Agent, folder: Path) -> list[SessionPath]:
    """The sessions below ``folder``: the files its ``patterns`` match (one path part per
    ``/``, so ``*`` never crosses a folder), not its side files, not hidden ones; with
    ``unit == "folder"`` each session's folder once. Sorted by path; nothing is opened."""
    found: dict[Path, SessionPath] = {}
    depth = max(len(p.split("/")) for p in agent.patterns)
    for relative in _walk(folder, depth):
        text = relative.as_posix()
        if not _matches(text, agent.patterns) or _matches(text, agent.side_files):
            continue
        parts = relative.parts
        project = parts[agent.project] if agent.project is not None and len(parts) > agent.project + 1 else None
        if agent.unit == "folder":
            top = folder / parts[0]
            found.setdefault(top, SessionPath(agent.name, top, project))
        else:
            path = folder / relative
            found[path] = SessionPath(agent.name, path, project)
    return [found[key] for key in sorted(found)]


def _walk(folder: Path, depth: int):
    """Paths of the regular files below ``folder``, at most ``depth`` parts deep, relative
    to it; hidden names and unreadable folders skipped, symbolic links not followed."""
    stack = [(folder, ())]
    while stack:
        here, parts = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if len(parts) + 1 < depth:
                        stack.append((Path(entry.path), (*parts, entry.name)))
                elif entry.is_file(follow_symlinks=False):
                    yield Path(*parts, entry.name)
            except OSError:
                continue
