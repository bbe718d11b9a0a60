"""Facts about calls and results that several guards share: which tool is a search,
what a call's identity is, whether a result is a failure, whether it found anything."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from ..text.arguments import dump_json
from ..model import ToolCall, ToolResult
from ..text.memo import PerObject, remembered
from .tool_kinds import identity_arguments, shell_command

DEFAULT_SEARCH_TOOLS = ("*search*",)
DEFAULT_QUERY_KEYS = ("query", "q", "search_query", "keywords")
# Seed 002's answer_indicators (P003's stop_on_answer), as its should_terminate lists
# them, and English equivalents of each (the seed matches with ``in``: case matters).
SEED_ANSWER_INDICATORS = ("是的", "不，", "根据", "第一条", "答案是", "具体来说")
ENGLISH_ANSWER_INDICATORS = ("Yes,", "No,", "According to", "Article 1", "The answer is", "Specifically")
DEFAULT_FAILURE_PATTERNS = (
    r"^\s*(Error|ERROR|Exception|EXCEPTION|Traceback)\b",
    # A Python exception rendered as "FileNotFoundError: ..." (a tool that returns str(exc)).
    r"^\s*[A-Z]\w*(Error|Exception):",
    # A Python traceback anywhere in a command's output (after the shell's own complaints).
    r"(?m)^Traceback \(most recent call last\):",
    # The shell could not run the command at all.
    r"(?m)^(/bin/|/usr/bin/)?(ba|da|z)?sh: (line \d+: )?\S+: (command )?not found",
    # The shell could not parse it (prose or a pasted file view run as a command).
    r"(?m)^(/bin/|/usr/bin/)?(ba|da|z)?sh: (-c: )?(line \d+: )?(syntax error|unexpected EOF while looking for matching)",
    # Python could not compile the code it was given (no traceback header: python -c, a heredoc, a script).
    r"(?m)^(SyntaxError|IndentationError|TabError): ",
    # A patch that did not apply (Codex CLI's apply_patch, patch(1), git apply): no file changed.
    r"^\s*(apply_patch verification failed|Failed to find (expected lines|context)|Invalid patch|error: patch failed)",
)
# Text that any match of a default failure pattern contains: a substring test (C speed)
# skips the regex, which would try every line start of a long result. Only the default
# patterns have one; patterns from the configuration always run.
_REQUIRED_TEXT = {
    DEFAULT_FAILURE_PATTERNS[2]: "Traceback (most recent call last):",
    DEFAULT_FAILURE_PATTERNS[3]: "not found",
}
DEFAULT_EMPTY_PATTERNS = (
    r"^\s*$",
    # Empty values as tools print them: JSON, Python's repr ("None"), an empty string.
    r"(?i)^\s*(\[\s*\]|\{\s*\}|null|none|\"\"|'')\s*$",
    r"(?i)\bno (results|matches|documents|items|records|files|entries|hits)\b",
    r"(?i)\b0 (results|matches|files|documents|items|records|entries|hits)\b",
    r"(?i)\bnothing (was )?found\b",
    # A harness's note in place of empty output: Claude Code's "(Bash completed with no output)".
    r"(?i)^\s*\(?[\w ]{0,40}\b(completed|finished|ran|exited)( successfully)? with no output\)?\.?\s*$",
)
# The same for the default empty-result patterns that ignore case: lowercase text any
# match holds, tested against the lowered head of an ASCII result.
_REQUIRED_FOLDED = {
    DEFAULT_EMPTY_PATTERNS[2]: "no ",
    DEFAULT_EMPTY_PATTERNS[3]: "0 ",
    DEFAULT_EMPTY_PATTERNS[4]: "nothing",
}


def query_text(call: ToolCall, keys: Sequence[str] = DEFAULT_QUERY_KEYS) -> str:
    """The query of a search call: the first query-like argument; a plain-text input
    (a ReAct "Action Input") as it is; "" when there is no query to fingerprint."""
    args = call.arguments
    if isinstance(args, dict):
        for key in keys:
            value = args.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list):
                # Keywords as a list; nested values as JSON (str() of deep nesting recurses).
                return " ".join(v if isinstance(v, str) else canonical_json(v) for v in value)
    if isinstance(args, str):
        return args
    if isinstance(args, dict) or call.arguments_error is None:
        # No query argument: nothing to fingerprint. (The raw JSON would share its key
        # names and fixed values between every call and look like the same search.)
        return ""
    return call.arguments_raw


# The argument that names what a lookup asks for: a file, a path, a pattern, a term.
_TARGET_KEYS = (
    "file_name", "filename", "file_path", "filepath", "path", "pattern", "glob", "search_term", "query", "q",
    "name", "url", "id",
)
_PATH_KEYS = frozenset({"file_path", "filepath", "path"})
_TARGET_NOISE = re.compile(r"[\W_]+")


def lookup_target(call: ToolCall) -> str | None:
    """What a call looks up, in a form in which the same target asked again in other
    words is one. A path argument (``file_path``, ``path``) is that file, in any case
    (``main.py`` in another folder is another file). A name, pattern or search term (a
    shell command's last word) is taken without folders, quotes, glob stars, an
    extension or separators, lowercased (``/repo/lib/Commons-IO.jar``, ``commons-io`` and
    ``"commons_io"`` are one target; ``guava.jar`` is another); a record's id or name
    (``order_id``, ``user_name``) likewise. None when the call names
    no target (a no-op, a call without arguments)."""
    args = call.arguments
    value: str | None = None
    if isinstance(args, dict):
        key = next((k for k in _TARGET_KEYS if isinstance(args.get(k), str) and args[k].strip()), None)
        if key in _PATH_KEYS:
            # A path read is that file: main.py in another folder is another file.
            return args[key].strip().strip("'\"`").rstrip("/").removeprefix("./").lower() or None
        if key is None:
            # An id or a name of a record (order_id, user_name): the thing asked for.
            key = next((k for k in args if isinstance(k, str) and k.endswith(("_id", "_name")) and isinstance(args[k], str)), None)
        value = args[key] if key is not None else None
    if value is None:
        words = (shell_command(call) or (args if isinstance(args, str) else "")).split()
        value = words[-1] if words else None
    if value is None:
        return None
    name = value.strip().strip("'\"`").rstrip("/").rsplit("/", 1)[-1].replace("*", "")
    stem, dot, ext = name.rpartition(".")
    if dot and stem and 1 <= len(ext) <= 5 and ext.isalnum():
        name = stem
    target = _TARGET_NOISE.sub("", name.lower())
    return target or None


_NOT_FOUND = re.compile(
    r"(?i)no such file|does not exist|doesn't exist|not found|cannot find|can't find|could not find|no matches"
    r"|is not a (?:file|directory)|enoent"
)


def says_not_found(text: str) -> bool:
    """Whether a result's start says that what was asked for is not there (``No such file
    or directory``, ``File does not exist``, ``No matches found``): an answer about the
    target, not a tool that failed. (``command not found`` is the shell's, not a lookup's.)"""
    head = text[:300]
    return bool(_NOT_FOUND.search(head)) and "command not found" not in head


def excerpt(text: str, limit: int = 80) -> str:
    """The start of a text on one line, at most ``limit`` characters, for a guard's reason.
    Not escaped (reports escape what they print); only the start is looked at, so a
    megabyte result costs no more than a short one."""
    line = " ".join(text[: limit * 4 + 16].split())
    if len(line) > limit or len(text) > limit * 4 + 16:
        return line[: limit - 1] + "…"
    return line


def truncated(text: str, limit: int = 200) -> str:
    """``text`` as it is, cut to ``limit`` characters: for identities shown in details."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def token_list(tokens: Iterable[str], limit: int = 60) -> list[str]:
    """Sorted tokens for a reason or a guard's state, the first ``limit`` of them, each
    excerpted, with a count of the rest: a query of a megabyte stays a short report line."""
    ordered = sorted(tokens)
    shown = [excerpt(t, 40) for t in ordered[:limit]]
    if len(ordered) > limit:
        shown.append(f"…(+{len(ordered) - limit})")
    return shown


def canonical_json(value: Any) -> str:
    return dump_json(value, sort_keys=True)


def call_signature(call: ToolCall, canonical: bool = True) -> str:
    """name + arguments, never the call id. Canonical: sorted-key compact JSON of the
    parsed arguments (whitespace-normalized raw text when they do not parse); a shell
    call's string values stripped of leading and trailing whitespace and its
    presentation arguments (Claude Code's Bash ``description`` and ``timeout``) left
    out: they do not change what it runs (``tool_kinds.identity_arguments``)."""
    if not canonical:
        return f"{call.name}:{call.arguments_raw}"
    if call.arguments_error is None and call.arguments is not None:
        return f"{call.name}:{canonical_json(identity_arguments(call))}"
    return f"{call.name}:{' '.join(call.arguments_raw.split())}"


def compiled_patterns(patterns: Sequence[str], what: str = "pattern") -> list[re.Pattern[str]]:
    return list(_compile_all(tuple(patterns), what))


@remembered(maxsize=512)
def _compile_all(patterns: tuple[str, ...], what: str) -> tuple[re.Pattern[str], ...]:
    # Guards compile their patterns at every reset; a sweep resets them thousands of times.
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            # Patterns come from config files and the command line: name the bad one.
            raise ValueError(f"invalid {what} {pattern!r}: {exc}") from None
    return tuple(compiled)


# How much of a result's start the empty-result patterns look at. A "found nothing"
# message is short and comes first; a long page that merely mentions "no results"
# somewhere in its body did find something.
EMPTY_SCAN_CHARS = 500

# JSON keys that flag a failed call in tool results that carry no format-level flag:
# MCP's CallToolResult serialized whole ({"content": [...], "isError": true}).
_ERROR_FLAG_KEYS = ("isError", "is_error")


def _json_value(text: str) -> tuple[bool, Any]:
    """(parsed, value) of a result that is a whole JSON object or array, else (False, None).

    Only texts that start and end like one are parsed, so ordinary prose costs nothing.
    """
    stripped = text.strip()
    if not stripped or (stripped[0], stripped[-1]) not in (("{", "}"), ("[", "]")):
        return False, None
    try:
        return True, orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return False, None


def _json_failure(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("error"):  # a non-empty error: message, object or code
        return True
    # A "status": "failed" field is not enough: a poll can successfully report a failed job.
    return any(value.get(key) is True for key in _ERROR_FLAG_KEYS)


def _json_empty(value: Any) -> bool:
    """A JSON result that holds nothing: null, "", [], {}, or an object whose
    containers are all empty ({"results": [], "query": "x"}, {"data": {"items": []}}).
    An object without any container ({"ok": true, "id": 7}) is an answer, not empty."""
    if value is None or value == "" or value == [] or value == {}:
        return True
    if isinstance(value, dict):
        containers = [v for v in value.values() if isinstance(v, (dict, list))]
        return bool(containers) and all(_json_empty(v) for v in containers)
    return False


# What classifiers concluded about each result, by their patterns: several guards ask
# "did it fail? was it empty?" of the same result, and a sweep asks again per setting.
_OUTCOMES = PerObject()


class ResultClassifier:
    """Decides failure and productivity of results.

    A result is a **failure** when the format flags it (``is_error``). Where the format
    cannot tell (``is_error`` is ``None``), when its text matches a failure pattern, or
    it is a JSON object with a non-empty ``error`` key (also ``"isError": true``, as an
    MCP tool result serialized whole). A flag the format did
    record always wins over the text: a successful call may return a file that starts
    with "Error".

    A result is **productive** when it is not a failure and does not look empty: blank,
    an empty JSON value or an object whose lists are all empty, or its first
    ``EMPTY_SCAN_CHARS`` characters match an empty-result pattern ("No results", ...).
    An unproductive success is not a failure. A call without a recorded result is
    neither.
    """

    def __init__(
        self,
        failure_patterns: Sequence[str] = DEFAULT_FAILURE_PATTERNS,
        empty_patterns: Sequence[str] = DEFAULT_EMPTY_PATTERNS,
    ) -> None:
        self.failure = [(p, _REQUIRED_TEXT.get(p.pattern)) for p in compiled_patterns(failure_patterns, "failure pattern")]
        self.empty = [(p, _REQUIRED_FOLDED.get(p.pattern)) for p in compiled_patterns(empty_patterns, "empty-result pattern")]
        self.key = (tuple(failure_patterns), tuple(empty_patterns))

    def is_failure(self, result: ToolResult | None) -> bool:
        return result is not None and self.outcome(result) == "failed"

    def _is_failure(self, result: ToolResult) -> bool:
        if result.is_error is not None:
            return result.is_error
        text = result.content
        for pattern, required in self.failure:
            if (required is None or required in text) and pattern.search(text):
                return True
        parsed, value = _json_value(text)
        return parsed and _json_failure(value)

    def is_productive(self, result: ToolResult | None) -> bool:
        return self.outcome(result) == "productive"

    def outcome(self, result: ToolResult | None) -> str:
        """One word for a call's result: ``missing``, ``failed``, ``empty`` or ``productive``."""
        if result is None:
            return "missing"
        memo = _OUTCOMES.of(result)
        found = memo.get(self.key)
        if found is None:
            found = memo[self.key] = self._outcome(result)
        return found

    def _outcome(self, result: ToolResult) -> str:
        if self._is_failure(result):
            return "failed"
        text = result.content
        if not text.strip():
            return "empty"
        head = text.lstrip()[:EMPTY_SCAN_CHARS]
        # Case-insensitive patterns also match "ſ" for "s" and the like: only ASCII is filtered.
        lowered = head.lower() if head.isascii() else None
        for pattern, required in self.empty:
            if (required is None or lowered is None or required in lowered) and pattern.search(head):
                return "empty"
        parsed, value = _json_value(text)
        if parsed and _json_empty(value):
            return "empty"
        return "productive"


URL_PATTERN = re.compile(r"https?://[^\s\"'<>\]\[)(，。；、]+")


def urls_in(text: str) -> set[str]:
    """URLs in a result text, without trailing punctuation or a trailing slash."""
    return {u.rstrip(".,;:!?/").lower() for u in URL_PATTERN.findall(text)}
