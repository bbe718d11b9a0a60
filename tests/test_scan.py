"""``tracecheck scan``: the coding agents' sessions found in a home folder laid out as each
agent lays it out, listed, replayed (with replay's own figures), filtered by date and
agent, warned about when damaged, and never written to.

The fake home is built from ``LAYOUT``: agent -> [(path below the home, fixture)], each
session a fixture of its agent's reader, with the files its reader reads beside it
(``COMPANIONS``) and the side files it never reads (``SIDE_FILES``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from tracecheck.commands import ReplayRequest, ScanRequest, replay, scan
from tracecheck.config import load_settings
from tracecheck.input.agent_homes import AGENTS, agent_by_name, folders
from tracecheck.readers import reader_by_name

FIXTURES = ROOT / "tests" / "fixtures"

CLAUDE_A = ".claude/projects/-home-dev-invoice-api/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0.jsonl"
CLAUDE_B = ".claude/projects/-home-dev-ci-tools/5b6c7d8e-9f01-4a2b-8c3d-4e5f60718293.jsonl"
CLAUDE_SUB = ".claude/projects/-home-dev-invoice-api/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0/subagents/agent-a7e91c2.jsonl"
CODEX_DAY = ".codex/sessions/2025/10/16/"
CODEX_LOOP = CODEX_DAY + "rollout-2025-10-16T11-00-00-0199a214-2b6e-7d31-9f0c-6c1f0e5d9a77.jsonl"
CODEX_QUIET = CODEX_DAY + "rollout-2025-10-16T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"
CODEX_BARE = ".codex/sessions/2025/08/21/rollout-2025-08-21T09-14-02-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"

CLINE_VSCODE = ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1741593612000/"
ROO = ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7/"
OPENHANDS_ID = "5e1f0c2ab7d94c0e9a3d2f61b8c4e7aa"
OPENHANDS = f".openhands/conversations/{OPENHANDS_ID}/"

LAYOUT: dict[str, list[tuple[str, str]]] = {
    "claude-code": [(CLAUDE_A, "claude_code/session.jsonl"), (CLAUDE_B, "claude_code/turns.jsonl"), (CLAUDE_SUB, "claude_code/agent-a7e91c2.jsonl")],
    "codex": [
        (CODEX_QUIET, "codex_cli/rollout-2025-10-16T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"),
        (CODEX_LOOP, "codex_cli/rollout-2025-10-16T11-00-00-0199a214-2b6e-7d31-9f0c-6c1f0e5d9a77.jsonl"),
        (CODEX_BARE, "codex_cli/rollout-2025-08-21T09-14-02-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"),
    ],
    "gemini-cli": [
        (".gemini/tmp/9f2c4a1e8b7d6c5f/chats/session-2025-10-21T20-04-0b23371a.json", "gemini_cli/session-2025-10-21T20-04-0b23371a.json"),
        (".gemini/tmp/9f2c4a1e8b7d6c5f/checkpoint-refactor.json", "gemini_cli/checkpoint-before-refactor.json"),
    ],
    "cline": [
        (CLINE_VSCODE + "api_conversation_history.json", "cline/1741593612000/api_conversation_history.json"),
        (".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks/1730000000001/api_conversation_history.json", "cline/real-mike4567-MRA04242026/api_conversation_history.json"),
        (".cline/data/tasks/1730000000002/api_conversation_history.json", "cline/1741593612000/api_conversation_history.json"),
    ],
    "roo-code": [(ROO + "api_conversation_history.json", "cline/0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7/api_conversation_history.json")],
    "goose": [(".local/share/goose/sessions/20250612_143020.jsonl", "goose/20250612_143020.jsonl")],
    "openhands": [(OPENHANDS + "events/" + p.name, f"openhands_v1/loop/{OPENHANDS_ID}/events/{p.name}") for p in sorted((FIXTURES / "openhands_v1/loop" / OPENHANDS_ID / "events").iterdir())],
    # the V0 server's one event a file: the lines of an event stream fixture (file#line)
    "openhands-v0": [(f".openhands/sessions/7e8f9a0b/events/{k}.json", f"openhands/events.jsonl#{k + 1}") for k in range(5)],
}

# Files an agent writes beside a session that its reader reads too (tokens, times, state).
COMPANIONS = [
    (CLINE_VSCODE + "ui_messages.json", "cline/1741593612000/ui_messages.json"),
    (CLINE_VSCODE + "task_metadata.json", "cline/1741593612000/task_metadata.json"),
    (ROO + "ui_messages.json", "cline/0199ec51-6a2e-7c10-b5f3-2f6a9d10c4e7/ui_messages.json"),
    (OPENHANDS + "base_state.json", f"openhands_v1/loop/{OPENHANDS_ID}/base_state.json"),
]

# Files the agents write beside their transcripts: never sessions.
SIDE_FILES = [
    ".claude/projects/-home-dev-invoice-api/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0/subagents/agent-a1.meta.json",
    ".claude/projects/-home-dev-invoice-api/0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0/subagents/journal.jsonl",
    ".claude/projects/-home-dev-invoice-api/memory/notes.md",
    ".claude/history.jsonl",
    ".codex/history.jsonl",
    ".gemini/tmp/9f2c4a1e8b7d6c5f/logs.json",
    CLINE_VSCODE + "ui_messages.json",
    CLINE_VSCODE + "task_metadata.json",
    ".openhands/conversations/4c1b2a3d/base_state.json",
]

# The sessions each agent has in LAYOUT (a folder-per-session agent: its folders).
EXPECTED_SESSIONS = {"claude-code": 3, "codex": 3, "gemini-cli": 2, "cline": 3, "roo-code": 1, "goose": 1, "openhands": 1, "openhands-v0": 1}


def fixture_bytes(fixture: str) -> bytes:
    """A fixture file's bytes; ``file#n``: its n-th line alone."""
    name, _, line = fixture.partition("#")
    data = (FIXTURES / name).read_bytes()
    return data.splitlines()[int(line) - 1] if line else data


def build_home(root: Path, layout=LAYOUT) -> Path:
    home = root / "home"
    chosen = {below for entries in layout.values() for below, _ in entries}
    companions = [(below, fixture) for below, fixture in COMPANIONS if any(b.startswith(below.rsplit("/", 1)[0]) for b in chosen)]
    for below, fixture in [entry for entries in layout.values() for entry in entries] + companions:
        path = home / below
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(fixture_bytes(fixture))
    for below in SIDE_FILES:  # what a companion is not: left as the agent would leave it
        path = home / below
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text("{}\n")
    return home


def run_scan(home: Path, **options) -> tuple[dict, ScanRequest]:
    options.setdefault("env", {})
    options.setdefault("platform", "linux")
    request = ScanRequest(load_settings(), home=home, format="json", **options)
    out = io.BytesIO()
    report = scan(request, out)
    data = json.loads(out.getvalue())
    assert data == report.to_json()  # the JSON is the report's record, field for field
    return data, request


def agent_of(data: dict, name: str) -> dict:
    return next(a for a in data["agents"] if a["agent"] == name)


def session_of(data: dict, home: Path, below: str) -> dict:
    wanted = os.path.realpath(home / below)
    return next(s for s in data["sessions"] if os.path.realpath(s["file"]) == wanted)


def test_each_agents_sessions_are_found_where_it_keeps_them(tmp_path):
    home = build_home(tmp_path)
    data, _ = run_scan(home, list_only=True)
    assert data["listed_only"] and data["totals"] is None and data["header"] is None
    assert [a["agent"] for a in data["agents"]] == [a.name for a in AGENTS]
    for name, sessions in EXPECTED_SESSIONS.items():
        assert agent_of(data, name)["sessions"] == sessions, name
    found = {os.path.realpath(s["file"]) for s in data["sessions"]}
    for name, entries in LAYOUT.items():
        unit = agent_by_name(name).unit
        for below, _fixture in entries:
            path = home / below
            expected = path if unit == "file" else path.parent.parent  # <id>/events/<n>.json: the <id> folder
            assert os.path.realpath(expected) in found, below
    for below in SIDE_FILES:
        assert os.path.realpath(home / below) not in found
    # Cline: the VS Code and Cursor folders and the CLI's, each with its task
    cline = {f["path"]: f for f in agent_of(data, "cline")["folders"]}
    assert cline[str(home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks")]["sessions"] == 1
    assert cline[str(home / ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks")]["sessions"] == 1
    assert cline[str(home / ".cline/data/tasks")]["sessions"] == 1
    assert not cline[str(home / ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks")]["exists"]
    # projects from the path where it names one, else from the session's own cwd
    by_file = {os.path.realpath(s["file"]): s for s in data["sessions"]}
    assert by_file[os.path.realpath(home / CLAUDE_A)]["project"] == "/home/dev/invoice-api"  # its cwd
    assert by_file[os.path.realpath(home / LAYOUT["gemini-cli"][0][0])]["project"] in ("9f2c4a1e8b7d6c5f",)
    assert by_file[os.path.realpath(home / CODEX_QUIET)]["project"] == "/home/dev/shop"


def test_the_folders_looked_in_are_said_also_when_they_are_not_there(tmp_path):
    home = tmp_path / "empty-home"
    home.mkdir()
    data, _ = run_scan(home)
    paths = [(a["agent"], f["path"], f["exists"], f["sessions"]) for a in data["agents"] for f in a["folders"]]
    assert ("claude-code", str(home / ".claude/projects"), False, 0) in paths
    assert ("codex", str(home / ".codex/sessions"), False, 0) in paths
    assert ("goose", str(home / ".local/share/goose/sessions"), False, 0) in paths
    assert ("openhands", str(home / ".openhands/conversations"), False, 0) in paths
    assert len([p for p in paths if p[0] == "cline"]) == 6  # five editors and the CLI
    assert data["sessions"] == [] and data["projects"] == [] and data["totals"]["traces"] == 0


def test_environment_variables_move_the_folders(tmp_path):
    home = tmp_path / "home"
    env = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-cfg"),
        "CODEX_HOME": str(tmp_path / "codex-home"),
        "GEMINI_CLI_HOME": str(tmp_path / "gemini-home"),
        "CLINE_DIR": str(tmp_path / "cline-dir"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "OPENHANDS_CONVERSATIONS_DIR": str(tmp_path / "oh-conversations"),
        "OPENHANDS_PERSISTENCE_DIR": str(tmp_path / "oh"),
    }

    def looked(name, environment=env, platform="linux"):
        return [(str(f.path), f.moved_by) for f in folders(agent_by_name(name), home, environment, platform)]

    assert looked("claude-code") == [(str(tmp_path / "claude-cfg/projects"), "CLAUDE_CONFIG_DIR")]
    assert looked("codex") == [(str(tmp_path / "codex-home/sessions"), "CODEX_HOME")]
    assert looked("gemini-cli") == [(str(tmp_path / "gemini-home/.gemini/tmp"), "GEMINI_CLI_HOME")]
    assert looked("cline")[0] == (str(tmp_path / "xdg-config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"), None)
    assert looked("cline")[-1] == (str(tmp_path / "cline-dir/data/tasks"), "CLINE_DIR")
    assert looked("cline", {**env, "CLINE_DATA_DIR": str(tmp_path / "cline-data")})[-1] == (str(tmp_path / "cline-data/tasks"), "CLINE_DATA_DIR")
    assert looked("goose") == [(str(tmp_path / "xdg-data/goose/sessions"), None)]
    assert looked("goose", {**env, "GOOSE_PATH_ROOT": str(tmp_path / "g")}) == [(str(tmp_path / "g/data/sessions"), "GOOSE_PATH_ROOT")]
    assert looked("openhands") == [(str(tmp_path / "oh-conversations"), "OPENHANDS_CONVERSATIONS_DIR")]
    assert looked("openhands-v0") == [(str(tmp_path / "oh/sessions"), "OPENHANDS_PERSISTENCE_DIR")]
    # a relative value is no folder the tool would use from anywhere: the default stays
    assert looked("codex", {"CODEX_HOME": "relative/codex"}) == [(str(home / ".codex/sessions"), None)]
    # the other platforms' defaults
    assert looked("cline", {}, "darwin")[0] == (str(home / "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"), None)
    assert looked("cline", {"APPDATA": str(tmp_path / "Roaming")}, "win32")[0] == (
        str(tmp_path / "Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"),
        None,
    )
    assert looked("goose", {}, "win32") == [(str(home / "AppData/Roaming/Block/goose/data/sessions"), None)]
    assert looked("goose", {}, "darwin") == [(str(home / ".local/share/goose/sessions"), None)]


def test_a_moved_folder_is_scanned_and_named_with_its_variable(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    moved = tmp_path / "elsewhere"
    target = moved / "sessions" / CODEX_LOOP.removeprefix(".codex/sessions/")
    target.parent.mkdir(parents=True)
    target.write_bytes((FIXTURES / LAYOUT["codex"][1][1]).read_bytes())
    data, _ = run_scan(home, env={"CODEX_HOME": str(moved)}, agents=["codex"])
    (folder,) = agent_of(data, "codex")["folders"]
    assert (folder["path"], folder["moved_by"], folder["sessions"]) == (str(moved / "sessions"), "CODEX_HOME", 1)


def replay_figures(path: Path) -> dict:
    """What ``tracecheck replay`` says of one file: its traces' policy savings and fires."""
    out = io.BytesIO()
    replay(ReplayRequest([str(path)], load_settings(), format="json"), out)
    data = json.loads(out.getvalue())
    return {
        "saved_tokens": sum(t["policy"]["saved"]["tokens"] for t in data["traces"]),
        "saved_llm_calls": sum(t["policy"]["saved"]["llm_calls"] for t in data["traces"]),
        "tokens": sum(t["tokens"] for t in data["traces"]),
        "fires": sorted(f["code"] for t in data["traces"] for f in t["fires"]),
    }


def test_the_replay_groups_by_agent_and_project_with_replays_own_figures(tmp_path):
    home = build_home(tmp_path, {"claude-code": LAYOUT["claude-code"], "codex": LAYOUT["codex"]})
    data, _ = run_scan(home)
    assert data["header"]["preset"] == "default" and data["header"]["guards"]
    # every replayed session carries what `tracecheck replay` says of its file
    for below in (CLAUDE_A, CLAUDE_B, CLAUDE_SUB, CODEX_LOOP, CODEX_QUIET, CODEX_BARE):
        session = session_of(data, home, below)
        figures = replay_figures(home / below)
        assert session["saved"]["tokens"] == figures["saved_tokens"], below
        assert session["saved"]["llm_calls"] == figures["saved_llm_calls"], below
        assert session["whole"]["tokens"] == figures["tokens"], below
        assert sorted(code for code, n in session["fires"].items() for _ in range(n)) == figures["fires"], below
    # by hand: the Claude Code session's failing Bash loop and the Codex loop
    loop = session_of(data, home, CLAUDE_A)
    assert (loop["traces"], loop["traces_with_fires"], loop["traces_stopped"]) == (1, 1, 1)
    assert loop["saved"]["tokens"] == 46_137 and loop["saved"]["llm_calls"] == 2
    assert session_of(data, home, CODEX_LOOP)["saved"]["tokens"] == 4_112
    # worst first: the most tokens saved, then the rest
    replayed = [s for s in data["sessions"] if s["saved"] is not None]
    assert [os.path.realpath(s["file"]) for s in replayed[:2]] == [os.path.realpath(home / CLAUDE_A), os.path.realpath(home / CODEX_LOOP)]
    assert [s["saved"]["tokens"] for s in replayed] == sorted((s["saved"]["tokens"] for s in replayed), reverse=True)
    # groups: agent and project, with how many sessions looped
    groups = {(g["agent"], g["project"]): g for g in data["projects"]}
    shop = groups[("codex", "/home/dev/shop")]
    assert (shop["sessions"], shop["sessions_with_fires"], shop["sessions_stopped"]) == (2, 1, 1)
    assert shop["totals"]["saved"]["tokens"] == 4_112
    invoice = groups[("claude-code", "/home/dev/invoice-api")]  # the session and its sub-agent's
    assert (invoice["sessions"], invoice["sessions_with_fires"]) == (2, 1)
    assert data["projects"][0]["project"] == "/home/dev/invoice-api"  # the group that saves most first
    assert data["totals"]["saved"]["tokens"] == sum(g["totals"]["saved"]["tokens"] for g in data["projects"])
    assert data["totals"]["traces"] == 6


def test_every_agents_sessions_are_replayed_with_replays_own_figures(tmp_path):
    # A home with sessions of every agent: each read by its own reader (no --input-format),
    # each session carrying what `tracecheck replay` says of that file or event folder.
    home = build_home(tmp_path)
    data, _ = run_scan(home)
    assert data["warnings"] == []
    for agent in AGENTS:
        record = agent_of(data, agent.name)
        assert record["reader"] and record["replayed"] and record["note"] is None, agent.name
        sessions = [s for s in data["sessions"] if s["agent"] == agent.name]
        assert len(sessions) == record["sessions"] == EXPECTED_SESSIONS[agent.name]
        for session in sessions:
            figures = replay_figures(Path(session["file"]))
            assert session["traces"] >= 1 and session["whole"]["tokens"] == figures["tokens"], session["file"]
            assert session["saved"]["tokens"] == figures["saved_tokens"], session["file"]
            assert sorted(code for code, n in session["fires"].items() for _ in range(n)) == figures["fires"], session["file"]
        groups = [g for g in data["projects"] if g["agent"] == agent.name]
        assert sum(g["sessions"] for g in groups) == len(sessions), agent.name
    # the OpenHands conversation (a folder of 21 event files) is one session, one trace:
    # the same failing command again and again, stopped by the default policy
    (openhands,) = [s for s in data["sessions"] if s["agent"] == "openhands"]
    assert (openhands["traces"], openhands["traces_with_fires"], openhands["traces_stopped"]) == (1, 1, 1)
    assert data["totals"]["saved"]["tokens"] == sum(g["totals"]["saved"]["tokens"] for g in data["projects"])
    assert data["totals"]["traces"] == sum(s["traces"] for s in data["sessions"])


def test_since_keeps_sessions_by_their_own_dates_and_file_times_where_they_have_none(tmp_path):
    home = build_home(tmp_path, {"claude-code": LAYOUT["claude-code"], "codex": LAYOUT["codex"]})
    now = dt.datetime(2025, 11, 25, tzinfo=dt.timezone.utc).timestamp()
    # The bare-era rollout records no time: its file's modification time dates it.
    bare = home / CODEX_BARE
    os.utime(bare, (now - 86400, now - 86400))
    data, _ = run_scan(home, since="7d", now=now)
    assert data["cutoff"] == "2025-11-18T00:00:00Z"
    kept = {os.path.realpath(s["file"]): s for s in data["sessions"]}
    # turns.jsonl records 2025-11-20; session.jsonl 2025-11-04 and the rollouts 2025-10-16 are older
    assert set(kept) == {os.path.realpath(home / CLAUDE_B), os.path.realpath(bare)}
    assert kept[os.path.realpath(home / CLAUDE_B)]["dated_by"] == "session"
    assert kept[os.path.realpath(bare)]["dated_by"] == "file"
    assert agent_of(data, "claude-code")["older"] == 2 and agent_of(data, "codex")["older"] == 2  # with the sub-agent of 2025-11-04
    # a file not written since the cutoff is not even opened: an older time is left out too
    os.utime(bare, (now - 30 * 86400, now - 30 * 86400))
    data, _ = run_scan(home, since="2025-11-18", now=now)
    assert {os.path.realpath(s["file"]) for s in data["sessions"]} == {os.path.realpath(home / CLAUDE_B)}
    assert agent_of(data, "codex")["older"] == 3


def test_since_with_list_reads_the_sessions_dates_too(tmp_path):
    home = build_home(tmp_path, {"claude-code": LAYOUT["claude-code"]})
    now = dt.datetime(2025, 11, 25, tzinfo=dt.timezone.utc).timestamp()
    data, _ = run_scan(home, since="10d", now=now, list_only=True)
    (only,) = data["sessions"]
    assert os.path.realpath(only["file"]) == os.path.realpath(home / CLAUDE_B)
    assert only["saved"] is None and only["dated_by"] == "session" and only["last"].startswith("2025-11-20")


@pytest.mark.parametrize("bad", ["yesterday", "7 days", "-3d", ""])
def test_a_since_that_is_no_duration_or_date_is_an_error(tmp_path, bad):
    from tracecheck.input.diagnostics import TracecheckError

    with pytest.raises(TracecheckError, match="--since"):
        run_scan(tmp_path, since=bad)


def test_agent_filter_and_an_unknown_agent(tmp_path):
    home = build_home(tmp_path)
    data, _ = run_scan(home, agents=["codex,claude-code"])
    assert [a["agent"] for a in data["agents"]] == ["claude-code", "codex"]
    assert {s["agent"] for s in data["sessions"]} == {"claude-code", "codex"}
    result = subprocess.run(
        [sys.executable, "-m", "tracecheck", "scan", "--home", str(home), "--agent", "codx"], capture_output=True, text=True, env=_clean_env(home)
    )
    assert result.returncode == 2 and result.stdout == ""
    message = " ".join(result.stderr.split())
    assert "unknown agent 'codx'" in message and "codex" in message
    assert "known agents: claude-code, codex, gemini-cli, cline, roo-code, goose, openhands, openhands-v0" in message


def test_a_damaged_session_is_a_warning_with_its_line_and_the_others_are_reported(tmp_path):
    layout = {
        "claude-code": [*LAYOUT["claude-code"], (".claude/projects/-tmp-scratch/0f1e2d3c-bad.jsonl", "claude_code/bad_input.jsonl")],
        "codex": [
            *LAYOUT["codex"],
            (CODEX_DAY + "rollout-2025-10-16T13-00-00-0199a216-6f3a-7e52-b1d4-2f9c8e7a6b50.jsonl", "codex_cli/rollout-2025-10-16T13-00-00-0199a216-6f3a-7e52-b1d4-2f9c8e7a6b50.jsonl"),
        ],
    }
    home = build_home(tmp_path, layout)
    unreadable = home / ".codex/sessions/2025/10/17/rollout-2025-10-17T09-00-00-0199a299-0000-7000-8000-000000000000.jsonl"
    unreadable.parent.mkdir(parents=True)
    unreadable.write_text("{}\n")
    unreadable.chmod(0)
    try:
        data, _ = run_scan(home, agents=["claude-code", "codex"])
    finally:
        unreadable.chmod(0o644)
    warnings = [(Path(w["file"]).name, w["line"]) for w in data["warnings"]]
    assert ("rollout-2025-10-16T13-00-00-0199a216-6f3a-7e52-b1d4-2f9c8e7a6b50.jsonl", 7) in warnings  # the cut JSON line
    assert any(name == "0f1e2d3c-bad.jsonl" and line is not None for name, line in warnings)
    if os.geteuid() != 0:  # root reads any file
        assert ("rollout-2025-10-17T09-00-00-0199a299-0000-7000-8000-000000000000.jsonl", None) in warnings
    # the others are replayed as without them
    assert session_of(data, home, CLAUDE_A)["saved"]["tokens"] == 46_137
    assert session_of(data, home, CODEX_LOOP)["saved"]["tokens"] == 4_112
    assert agent_of(data, "codex")["sessions"] == 5
    codex, request = run_scan(home, agents=["codex"])
    files = len({w["file"] for w in codex["warnings"]})
    out = io.BytesIO()
    scan(dataclasses.replace(request, format="terminal"), out)
    said = f"{len(codex['warnings'])} warnings about {files} file{'s' if files > 1 else ''} (each with its file:line on standard error"
    assert said in out.getvalue().decode()


def _tree(root: Path) -> dict:
    found = {}
    for here, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(here, name)
            info = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            found[str(path)] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return found


def _clean_env(home: Path) -> dict:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "SYSTEMROOT", "LANG", "TMPDIR", "PYTHONPATH")}
    return {**keep, "HOME": str(home), "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


@pytest.mark.parametrize("options", [[], ["--list"], ["-f", "json"], ["-f", "markdown", "--since", "3650d"]])
def test_scan_writes_nothing(tmp_path, options):
    home = build_home(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    before, cwd_before = _tree(tmp_path), sorted(os.listdir(work))
    result = subprocess.run(
        [sys.executable, "-m", "tracecheck", "scan", "--home", str(home), *options], capture_output=True, text=True, cwd=work, env=_clean_env(home)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout
    assert _tree(tmp_path) == before and sorted(os.listdir(work)) == cwd_before


def test_scan_never_writes_its_report_over_a_file_it_reads(tmp_path, cli):
    home = build_home(tmp_path)
    before = _tree(home)
    for below in (
        CLINE_VSCODE + "api_conversation_history.json",
        CLINE_VSCODE + "ui_messages.json",  # read with the history
        LAYOUT["gemini-cli"][0][0],
        LAYOUT["openhands"][1][0],  # an event file of a conversation
        OPENHANDS + "base_state.json",
    ):
        result = cli("scan", "--home", str(home), "-o", str(home / below))
        assert result.exit_code == 2 and "never writes over an input" in result.stderr, (below, result.stderr)
    assert _tree(home) == before


def test_the_terminal_report_names_folders_groups_and_the_worst_sessions(tmp_path):
    home = build_home(tmp_path)
    result = subprocess.run([sys.executable, "-m", "tracecheck", "scan", "--home", str(home)], capture_output=True, text=True, env=_clean_env(home))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "~/.claude/projects  3 sessions" in out
    assert "~/.config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks  not there" in out
    assert "By agent and project (policy: default)" in out
    assert "Worst sessions first" in out
    first = out.index("Worst sessions first")
    assert out.index("invoice-api", first) < out.index("rollout-2025-10-16T11", first)
    assert "saves 2 LLM calls (22%), 2 tool calls (22%), 46,137 tokens (24%)" in out
    for agent in AGENTS:
        if reader_by_name(agent.format) is None:
            assert f"{agent.name}: {EXPECTED_SESSIONS[agent.name]} session" in out and f"(no reader for the {agent.format} format)" in out
    listed = subprocess.run(
        [sys.executable, "-m", "tracecheck", "scan", "--home", str(home), "--list", "--agent", "claude-code"], capture_output=True, text=True, env=_clean_env(home)
    ).stdout
    assert "Sessions (newest first)" in listed and "not replayed" not in listed and "None" not in listed
    assert listed.index("5b6c7d8e") < listed.index("0f1e2d3c")  # turns.jsonl (2025-11-20) before session.jsonl (2025-11-04)


def test_untrusted_text_in_a_session_is_shown_neutralised(tmp_path):
    home = tmp_path / "home"
    session = home / CLAUDE_A
    session.parent.mkdir(parents=True)
    lines = (FIXTURES / "claude_code/session.jsonl").read_text().splitlines()
    hostile = "/home/dev/\x1b[31mred[/]\u202e[bold]x"
    session.write_text("\n".join(json.dumps({**json.loads(line), "cwd": hostile}) if '"cwd"' in line else line for line in lines) + "\n")
    result = subprocess.run([sys.executable, "-m", "tracecheck", "scan", "--home", str(home)], capture_output=True, text=True, env=_clean_env(home))
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "/home/dev/\\x1b[31mred[/]\\u202e[bold]x" in result.stdout
    markdown = subprocess.run(
        [sys.executable, "-m", "tracecheck", "scan", "--home", str(home), "-f", "markdown"], capture_output=True, text=True, env=_clean_env(home)
    ).stdout
    assert "\x1b" not in markdown and "\u202e" not in markdown


def test_markdown_and_json_carry_the_same_findings(tmp_path):
    home = build_home(tmp_path, {"claude-code": LAYOUT["claude-code"], "codex": LAYOUT["codex"]})
    data, request = run_scan(home)
    out = io.BytesIO()
    scan(dataclasses.replace(request, format="markdown"), out)
    text = out.getvalue().decode()
    assert "## By agent and project" in text and "## Sessions, worst first" in text
    for group in data["projects"]:
        assert group["project"].replace("_", "\\_") in text
    folder_rows = len([f for a in data["agents"] if a["agent"] == "codex" for f in a["folders"]])
    group_rows = sum(1 for g in data["projects"] if g["agent"] == "codex")
    session_rows = sum(1 for s in data["sessions"] if s["agent"] == "codex")
    assert text.count("| codex |") == folder_rows + group_rows + session_rows


def test_the_json_report_goes_to_a_file_named_by_o(tmp_path):
    home = build_home(tmp_path, {"codex": LAYOUT["codex"]})
    target = tmp_path / "out" / "scan.json"
    target.parent.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "tracecheck", "scan", "--home", str(home), "-o", str(target)], capture_output=True, text=True, env=_clean_env(home)
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(target.read_text())
    assert agent_of(data, "codex")["sessions"] == 3 and data["totals"]["traces"] == 3


def test_the_report_is_the_same_with_jobs(tmp_path):
    home = build_home(tmp_path, {"claude-code": LAYOUT["claude-code"], "codex": LAYOUT["codex"]})
    one, _ = run_scan(home, now=1_800_000_000.0)
    two, _ = run_scan(home, now=1_800_000_000.0, jobs=2)
    assert one == two and one["totals"]["traces"] == 6
