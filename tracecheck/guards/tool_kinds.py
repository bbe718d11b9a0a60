"""What a call can still change: the tool vocabulary guards use to tell a repeat that is
never progress (re-applying an identical edit) from one that can be (polling a read).

Tools are known by name patterns (globs, any case) and, for the agents that name one
tool for many actions, by their command vocabulary: SWE-agent's ``edit`` / ``create``
/ ``insert`` commands, OpenHands' and SWE-smith's ``str_replace_editor`` subcommands,
Claude Code's ``Write`` / ``Edit`` / ``MultiEdit``. A shell command is neither read nor
write by its tool (``bash`` runs anything); its first program says what it does where
that is plain (``grep``, ``ls``, ``cat`` read), and a command that cannot do anything
(the no-op ``:``, a comment) is recognised as such.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable
from typing import Any

from ..model import ToolCall
from ..text.memo import remembered

# Tools that run any command: a failing command is routine there (grep finds nothing,
# a test fails), so failures are judged by their text, not by the tool. The names the
# coding agents give theirs: Claude Code Bash, OpenHands execute_bash, Gemini CLI
# run_shell_command, Codex CLI shell / shell_command / exec_command / local_shell, Cline and
# Roo Code execute_command, Goose developer__shell (extension__tool).
SHELL_TOOLS = (
    "bash", "shell", "terminal", "execute_bash", "run_command", "run_shell_command", "execute_code", "python", "ipython",
    "shell_command", "exec_command", "local_shell", "execute_command", "*__shell",
)
# Tools that change the world: after one succeeds, earlier failures are a new experiment,
# and the identical change made again is never progress.
EDIT_TOOLS = ("*edit*", "*write*", "*replace*", "*patch*", "*create*", "*insert*", "*update*", "*apply*")
# Seed 004's single-step watchdogs by tool name (GLOBS=SECONDS): PatchCat kills a code
# sandbox's Web Worker after 5 s and aborts a network tool with AbortSignal.timeout(30 s).
SEED_004_TIME_LIMITS = ("*exec*|*python*|*sandbox*=5", "*fetch*|*http*|*search*=30")
# Tools that send input to a running process (Codex CLI's write_stdin, a terminal's
# send_keys): what they change is what the process does with the input, not a file, and
# with nothing to send they only wait and read what the process printed since: a poll.
STDIN_TOOLS = ("write_stdin", "*stdin*", "send_input", "send_keys", "*_send_keys")
# Tools that only wait for a running process or read what it printed (Claude Code's
# BashOutput, a job's status or log): polls.
POLL_TOOLS = (
    "bashoutput", "taskoutput", "read_output", "get_output", "read_*_output", "get_*_output", "*poll*", "wait", "wait_for*",
    "*_wait", "sleep",
)
# Bookkeeping: a to-do list or a scratchpad answers the same "ok" whatever happens, so
# it is neither progress nor a failure (Claude Code's TodoWrite, OpenAI's update_plan).
BOOKKEEPING_TOOLS = ("todowrite", "todoread", "*todo*", "think", "update_plan", "*scratchpad*", "calculate", "*calculator*")
# Arguments that say how to run a shell command, not what it does: Claude Code's Bash
# `description` (a caption for the user) and `timeout`. Two calls that differ only there
# run the same command.
SHELL_PRESENTATION_ARGS = frozenset({"description", "timeout"})

# Editor subcommands (str_replace_editor's `command`, OpenHands' file_editor).
_EDITOR_WRITES = frozenset({"create", "str_replace", "insert", "undo_edit", "write", "append", "edit"})
_EDITOR_READS = frozenset({"view", "read", "show", "list"})

# Programs whose output is a look at the world, never a change to it.
_READ_PROGRAMS = frozenset(
    {
        "ls", "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "find", "locate",
        "which", "whereis", "type", "tree", "stat", "file", "wc", "du", "df", "pwd", "ps", "env", "printenv",
        "find_file", "search_dir", "search_file", "open", "goto", "scroll_up", "scroll_down",
    }
)
# Programs that change files: a patch applied through the shell (Codex CLI's apply_patch).
_WRITE_PROGRAMS = frozenset({"apply_patch", "applypatch", "patch"})
# A command that does nothing: the shell's no-op `:` (its arguments are never run),
# `true`, a comment. Agents whose arguments arrive garbled send these by the dozen.
_NOOP = re.compile(r"^\s*(?::(?:\s|$)|:$|true\s*$|#)")


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """Whether a tool name matches one of the glob patterns (case-insensitive)."""
    if not isinstance(patterns, tuple):
        patterns = tuple(patterns)
    if len(name) > _REMEMBERED_NAME:  # a malformed or hostile name: not kept in memory
        return _match(name, patterns)
    return _matches_any(name, patterns)


_REMEMBERED_NAME = 256


def _match(name: str, patterns: tuple[str, ...]) -> bool:
    globs = _globs(patterns)
    return globs is not None and globs.match(name.lower()) is not None


@functools.lru_cache(maxsize=256)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for a whole list of globs (fnmatch's translation of each, as
    ``fnmatchcase`` matches them): compiled once per list, not once per glob."""
    if not patterns:
        return None
    return re.compile("|".join(fnmatch.translate(p.lower()) for p in patterns))


# Several guards ask this of every call's tool name, and a run has few tool names.
_matches_any = remembered(maxsize=4096)(_match)


def shell_command(call: ToolCall) -> str | None:
    """The command line of a shell tool's call (its ``command``/``cmd``/``code`` argument,
    or the raw text), else None."""
    if not matches_any(call.name, SHELL_TOOLS):
        return None
    arguments = call.arguments
    if isinstance(arguments, dict):
        for key in ("command", "cmd", "code", "script"):
            value = arguments.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                return _argv_command(value)
        return None
    return arguments if isinstance(arguments, str) else call.arguments_raw


_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})


def _argv_command(argv: list[str]) -> str:
    """The command line of an argv list (Codex CLI's ``["bash", "-lc", "ls -la"]``,
    ``["apply_patch", "*** Begin Patch …"]``): a shell's ``-c`` script is the command."""
    if argv[0].rsplit("/", 1)[-1] in _SHELLS and len(argv) >= 3 and argv[1].startswith("-") and "c" in argv[1]:
        return argv[-1]
    return " ".join(argv)


def is_noop_command(command: str) -> bool:
    """A command line that cannot do anything: ``: anything``, ``:``, ``true``, ``# …``.
    A script that opens with a comment (``# filename: check.py`` above Python code) does
    something: only comments and blank lines throughout are a no-op."""
    if not _NOOP.match(command):
        return False
    if command.lstrip().startswith("#"):
        return all(not line.strip() or line.lstrip().startswith("#") for line in command.splitlines())
    return True


def _first_program(command: str) -> str:
    words = command.strip().split()
    while words and ("=" in words[0] or words[0] in ("sudo", "time", "nice", "env")):
        words = words[1:]
    return words[0].rsplit("/", 1)[-1] if words else ""


# The arguments a stdin tool sends (Codex's write_stdin ``chars``).
_STDIN_ARGS = ("chars", "input", "text", "keys", "data")


def _sends_nothing(arguments: Any) -> bool:
    if not isinstance(arguments, dict):
        return not (isinstance(arguments, str) and arguments)
    return not any(isinstance(arguments.get(key), str) and arguments[key] for key in _STDIN_ARGS)


# An output redirection into a file (``cat <<'EOF' > app.py``, ``grep x a >> log``), not
# into /dev/null or another descriptor (``2>&1``, ``>&2``); or tee.
_REDIRECT = re.compile(r"(?<![<>&])\d?>>?(?!&)\s*(?!/dev/null\b)[^\s&|;<>]|(?:^|[|;&]\s*)tee\s")


def _writes_file(command: str) -> bool:
    """Whether a shell command writes a file by redirection: ``cat <<'EOF' > x.py`` is a
    write, whatever its first program."""
    return (">" in command or "tee" in command) and _REDIRECT.search(command) is not None


_CHAIN = re.compile(r"&&|\|\||;|\|")


def _only_reads(command: str) -> bool:
    """Every command of a chain only waits or reads (``sleep 30 && tail -n 5 build.log``)."""
    return all(_first_program(part) in _READ_PROGRAMS or _first_program(part) == "sleep" for part in _CHAIN.split(command))


def _editor_subcommand(arguments: Any) -> str | None:
    if isinstance(arguments, dict):
        value = arguments.get("command")
        if isinstance(value, str) and value.strip() and " " not in value.strip():
            return value.strip().lower()
    return None


def call_kind(call: ToolCall) -> str:
    """``bookkeeping``, ``noop`` (a shell command that cannot do anything), ``poll`` (a
    call that sends nothing to a running process, waits, or reads what it printed),
    ``read``, ``write`` (a call that changes a file) or ``other`` (a shell command that
    may do either, input sent to a process, an unknown tool)."""
    if matches_any(call.name, BOOKKEEPING_TOOLS):
        return "bookkeeping"
    if matches_any(call.name, POLL_TOOLS):
        return "poll"
    if matches_any(call.name, STDIN_TOOLS):
        # Keys sent to a process may do anything; nothing sent only waits for its output.
        return "poll" if _sends_nothing(call.arguments) else "other"
    command = shell_command(call)
    if command is not None:
        if is_noop_command(command):
            return "noop"
        program = _first_program(command)
        if not program or (program == "sleep" and _only_reads(command)):
            return "poll"  # OpenHands' empty command fetches more output; sleep && tail only waits and looks
        if program in _WRITE_PROGRAMS or command.lstrip().startswith("git apply"):
            return "write"
        if program in _READ_PROGRAMS and not _writes_file(command):
            return "read"
        return "other"
    sub = _editor_subcommand(call.arguments)
    if sub in _EDITOR_READS:
        return "read"
    if sub in _EDITOR_WRITES:
        return "write"
    name = call.name.lower()
    if name in _READ_PROGRAMS or matches_any(name, ("read*", "*_read", "get*", "*_get", "list*", "*search*", "view*", "fetch*", "*status*", "glob", "grep", "ls")):
        return "read"
    if matches_any(name, EDIT_TOOLS):
        return "write"
    return "other"


def identity_arguments(call: ToolCall) -> Any:
    """The arguments that say what a call does. For a shell tool: string values without
    leading or trailing whitespace (the shell ignores it) and without the presentation
    arguments. Other tools keep theirs whole: an editor's ``old_str`` indentation is
    part of what it replaces."""
    arguments = call.arguments
    if not matches_any(call.name, SHELL_TOOLS):
        return arguments
    if not isinstance(arguments, dict):
        return arguments.strip() if isinstance(arguments, str) else arguments
    return {
        key: value.strip() if isinstance(value, str) else value
        for key, value in arguments.items()
        if key not in SHELL_PRESENTATION_ARGS
    }
