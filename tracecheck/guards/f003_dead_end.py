from __future__ import annotations

import re
from typing import Any

try:  # hashlib's own blake2b, without hashlib loading OpenSSL's library first (start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

from ..dataclass_lite import frozen_dataclass
from ..model import Round, ToolCall
from ..text.error_class import error_class, same_template, template_edges
from ..text.volatile import without_screen_text
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import (
    DEFAULT_EMPTY_PATTERNS,
    DEFAULT_FAILURE_PATTERNS,
    ResultClassifier,
    excerpt,
    lookup_target,
    says_not_found,
    truncated,
)
from .tool_kinds import call_kind, shell_command

# How much of a result is compared to tell a repeated view: a stuck view repeats from
# its first character, and a megabyte result must cost no more than its head.
_VIEW_CHARS = 4000
# A real program name the shell did not find (not prose or junk run as a command).
_MISSING_PROGRAM = re.compile(r"(?m)^(?:\S*sh: )?(?:line \d+: )?([a-z][a-z0-9._+-]{1,40}): (?:command )?not found\s*$")
# A failure that says nothing beyond that it failed ("Error", "Exit code 1").
_BARE_ERROR = 16
# Error texts kept to match a changing middle against: bounded, so that a long stretch of
# ever-new errors costs the same per call as a short one.
_TEMPLATES_KEPT = 32


@frozen_dataclass
class F003Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    threshold: int = option(
        4, "Times the same dead end came back with nothing new in between (siblings of its first occurrence count once) at which the run stops.", minimum=2
    )
    noop_threshold: int = option(
        4,
        "The same for commands that cannot do anything (the shell's ':' no-op, a comment): they carry no "
        "information at all, so a preset may stop them sooner.",
        minimum=2,
    )
    hint_at: int = option(0, "From this many times on, each further one is hinted (the calls ran); 0 = no hints.", minimum=0)
    action: str = option("stop", "What the guard does at the threshold.", choices=("stop", "abort"))
    views: bool = option(
        True,
        "Also count a result seen before (the same view of an unchanged file, the same page) as a dead end; "
        "off counts only errors and empty answers.",
    )
    by_target: bool = option(
        False,
        "Count an answer that what was asked for is not there (an empty answer, 'No such file', 'No matches found') "
        "per target asked for (signals.lookup_target: the file, path, pattern or term, in any case, folder or "
        "extension): the same question reworded is a dead end, another target is another question.",
    )
    failure_patterns: list[str] = option(
        list(DEFAULT_FAILURE_PATTERNS), "Regular expressions for a failed result where the format has no error flag."
    )
    empty_patterns: list[str] = option(list(DEFAULT_EMPTY_PATTERNS), "Regular expressions for an empty answer (looked for at the start of a result).")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _garbled(command: str, result: str = "(Bash completed with no output)") -> Call:
    return Call("Bash", {"command": command, "description": "Run the step"}, result)


def _not_a_command(i: int, text: str) -> Call:
    return Call("bash", {"command": text}, text, error=True)


class DeadEnd(Guard):
    """Stops a run that keeps hitting the same dead end while it changes what it sends:
    the same class of error, the same empty answer, or the same view, response after
    response, with nothing new in between.

    **What it fires on.** After the tools of a round ran, each call's result is one of:

    * **news** — a successful result not seen before in this stretch, or any successful
      change (an edit, a write, a shell command that printed nothing because it did its
      work: ``mkdir``, ``cp``). News ends the stretch: every count starts again.
    * **a dead end**, with a class: an *error* (its class by ``tracecheck.text.error_class``:
      a shell's ``command not found``, ``syntax error near unexpected token`` and
      ``unexpected EOF`` are one class, "the text is not a command"; other errors keep their
      text with quoted tokens, numbers, paths, ids and times replaced, and an error whose
      text starts and ends like one already counted — 24 characters alike at each end —
      is that one with a changing middle); an *empty answer*
      from a read, a search or a command that cannot do anything (``: …``, the shell's
      no-op; Claude Code answers it ``(Bash completed with no output)``), its text
      normalised the same way so that ``No matches found for 'a'`` and ``… 'b'`` are one
      class; with ``views`` (on), a *view seen before* (the same text, whitespace aside;
      a view that only a timestamp changes is a poll, left to P004): the same page of the
      same short file after ``goto 40`` as after ``goto 1``.
    * **neither** — bookkeeping (``TodoWrite``: it answers "ok" whatever happens), calls
      without a result.

    Each dead end counts once, except that the parallel siblings of a class's first
    occurrence count with it as one: they were written before the model saw any answer,
    so six calls failing together are one failure; once the model has seen the answer,
    every call that hits it again counts. A round with news counts nothing. At the
    ``threshold``-th (4th) time one class came back → ``stop``; with ``hint_at`` each time
    from that count on is hinted first (the ladder of seed 004: a recovering run gets a
    message, a stuck one a stop). Commands that cannot do anything (``: …``) have their own
    ``noop_threshold``: an empty search still asked something, a no-op asked nothing, and
    several in a row with nothing between mean the agent's arguments arrive garbled.

    **A new user turn.** With ``scope`` ``turn``, a user's message starts the empty answers
    and views seen again afresh (a new request can make the same empty search worth
    asking), but an error's count goes on: what a tool answers to what the agent sends does
    not change because the user spoke (a τ-bench booking refused for the same payment
    total three times, with the user's "yes, go ahead" between the attempts). A
    calculator is bookkeeping: its answer follows from its arguments and tells nothing
    new about the world.

    **Not there, by target.** With ``by_target``, an answer that what was asked for is not
    there (an empty answer, ``No such file``, ``No matches found``) counts per target asked
    for (``signals.lookup_target``: the file, path, pattern or term, whatever its case,
    folder or extension) for the stop: such an answer is a dead end when the same question
    comes back reworded, not when the target changes. Four different jar names looked up,
    each not found, are four questions; three wrong paths read before the right one are
    looking. The class's count still hints (from ``hint_at``): whether the agent is
    looking or lost, only what it does next tells.

    **The user's words.** A call the user declined at a permission prompt (the reader
    marks the result ``declined``) never ran: its text is the user's answer, neither news
    nor a dead end.

    **Why it matters.** Real agents fail this way more than any other: a model whose tool
    arguments arrive garbled sends ``: run the tests``, ``: ls``, ``:`` — every command
    different, every answer the same nothing; a model that pastes its prose into the shell
    gets a different syntax error each time; a dozen different search strings all get
    ``No matches found``. Call-based guards (R001, P004, R003) see only different calls; F002
    sees one error text at a time. What stays the same is the answer's class.

    **What it spares.** Fix-and-retest: an edit between two runs of the same test is news. A
    failing call fixed on the next try. A search that finds something after three empty
    ones. Paging and polling whose results change. A batch of parallel calls that fail
    together (one round). Errors of different classes alternating (each counts on its own,
    but neither is news: they do not reset each other).

    **Known misses.** A stuck agent whose every answer is new text (a different error
    class each time, with no class reaching the threshold) is R003's or a budget's. An
    empty answer from a shell command whose first program is not a known reader or the
    no-op (``mkdir``) is taken for a change that worked.
    """

    code = "F003"
    name = "dead-end"
    summary = "{action:Verb} at the {threshold:nth} call that hits the same dead end (error class, empty answer or view seen before) with nothing new in between."
    source = "tracecheck (real Claude Code / SWE-agent runs on Terminal-Bench and SWE-bench)"
    origin = (
        "tracecheck, from labelled real runs: garbled no-op commands answered by the same empty output, prose run "
        "as shell commands, searches that all find nothing, paging through a file that does not move"
    )
    Options = F003Options
    messages = {
        "hint": Message(
            en="{count} attempts ended the same way ({dead_end}) with nothing new in between: changing the command has not changed the "
            "answer. Check what you are actually sending, or try a different approach.",
            zh="最近 {count} 次尝试都以同样的方式结束（{dead_end}）：改变命令并没有改变结果。请检查实际发送的内容，或换一种方法。",
            fields=("count", "dead_end"),
            when="injected as guidance; the calls still ran",
        ),
        "stop": Message(
            en="{count} attempts ended the same way ({dead_end}), with nothing new in between; more attempts "
            "will not change that. Tools are no longer available: give your final answer from what you have, and say "
            "what did not work.",
            zh="最近 {count} 次尝试都以同样的方式结束（{dead_end}），其间没有任何新信息；继续尝试也不会改变。工具已停用，"
            "请基于现有信息给出最终答案，并说明哪里没有成功。",
            fields=("count", "dead_end"),
        ),
        "abort": Message(
            en="{count} attempts ended the same way ({dead_end}); the run is terminated.",
            zh="最近 {count} 次尝试都以同样的方式结束（{dead_end}），终止运行。",
            fields=("count", "dead_end"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "Garbled no-op commands, each different, all answered by no output: stops at the 4th response",
                tuple(calls(_garbled(cmd)) for cmd in (": run the tests", ": ls /app", ":", ": python3 test.py", ": cat out.txt"))
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "noop_threshold: commands that cannot do anything stop sooner than searches that find nothing",
                tuple(calls(_garbled(cmd)) for cmd in (": run the tests", ": ls /app", ":", ": python3 test.py"))
                + (answer(),),
                options={"enabled": True, "noop_threshold": 3, "hint_at": 2},
                expect=((2, "after_tools", "hint"), (3, "after_tools", "stop")),
            ),
            Example(
                "Prose run as a shell command: different errors of one class (not a command), hinted from the 3rd",
                tuple(
                    calls(_not_a_command(i, text))
                    for i, text in enumerate(
                        (
                            "bash: line 1: DISCUSSION: command not found",
                            "bash: -c: line 3: syntax error near unexpected token `('",
                            "bash: -c: line 1: unexpected EOF while looking for matching `''",
                            "bash: line 2: Let's: command not found",
                        )
                    )
                )
                + (answer(),),
                options={"enabled": True, "hint_at": 3},
                expect=((3, "after_tools", "hint"), (4, "after_tools", "stop")),
            ),
            Example(
                "The same refusal under rewritten calls goes on counting across the user's turns; a calculator is not news",
                (
                    calls(Call("book_reservation", {"paid": 957}, "Error: payment amount does not add up, total price is 1002, but paid 957", error=True)),
                    calls(Call("book_reservation", {"paid": 1047}, "Error: payment amount does not add up, total price is 1002, but paid 1047", error=True), user="Yes, go ahead."),
                    calls(Call("calculate", {"expression": "957 + 45"}, "1002.0")),
                    calls(Call("book_reservation", {"paid": 1000}, "Error: payment amount does not add up, total price is 1002, but paid 1000", error=True), user="Yes."),
                    calls(Call("book_reservation", {"paid": 1001}, "Error: payment amount does not add up, total price is 1002, but paid 1001", error=True)),
                    answer(),
                ),
                options={"enabled": True, "hint_at": 3},
                expect=((4, "after_tools", "hint"), (5, "after_tools", "stop")),
            ),
            Example(
                "Empty answers start afresh at a user's new request: two empty searches, a new turn, two more",
                (
                    calls(Call("search_flights", {"date": "05-20"}, "[]")),
                    calls(Call("search_flights", {"date": "05-21"}, "[]")),
                    calls(Call("search_flights", {"date": "05-24"}, "[]"), user="Try the 24th or the 25th then."),
                    calls(Call("search_flights", {"date": "05-25"}, "[]")),
                    answer(),
                ),
                options={"enabled": True},
            ),
            Example(
                "Python code that does not compile, rewritten each time: a SyntaxError without a traceback is a failure too",
                tuple(
                    calls(Call("bash", {"command": f"python3 -c 'print(\"{n}'"}, f'  File "<string>", line {n}\n    print("{n}\n          ^\nSyntaxError: unterminated string literal (detected at line {n})', error=None))
                    for n in range(1, 5)
                )
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "Searching the repository root and its folders: one empty answer, whatever the folder (stops at the 4th)",
                tuple(
                    calls(Call("search_dir", {"search_term": t, "dir": d}, f'No matches found for "{t}" in {d}'))
                    for t, d in (("retry", "/click"), ("retry", "/click/src"), ("backoff", "/click"), ("backoff", "/click/tests"))
                )
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "Different searches, the same 'No matches found': stops at the 4th",
                tuple(calls(Call("search_dir", {"search_term": t}, f'No matches found for "{t}" in /repo')) for t in ("retry", "Retry", "backoff", "max_retries"))
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "by_target: four different files looked up, each not found, are four questions: hinted, never stopped",
                tuple(calls(Call("find_file", {"file_name": jar}, f'No matches found for "{jar}" in /repo')) for jar in ("junit-4.13.jar", "hamcrest-core-1.3.jar", "mockito-core.jar", "guava-31.1.jar"))
                + (calls(Call("find_file", {"file_name": "commons-io.jar"}, "Found 1 matches for \"commons-io.jar\" in /repo:\n/repo/lib/commons-io.jar")), answer()),
                options={"enabled": True, "by_target": True, "hint_at": 3},
                expect=((3, "after_tools", "hint"), (4, "after_tools", "hint")),
            ),
            Example(
                "by_target: the same file asked for again in other words (folder, case, extension) is the same dead end",
                tuple(calls(Call("find_file", {"file_name": name}, f'No matches found for "{name}" in /repo')) for name in ("Settings.java", "settings.java", "src/Settings.java", "settings"))
                + (answer(),),
                options={"enabled": True, "by_target": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "by_target: reading three wrong paths before the right one is looking: a hint at the 3rd, no stop",
                tuple(calls(Call("Read", {"file_path": p}, "<tool_use_error>File does not exist.</tool_use_error>", error=True)) for p in ("/app/src/main.py", "/app/main.py", "/app/app.py"))
                + (calls(Call("Read", {"file_path": "/app/server/main.py"}, "1\timport flask")), answer()),
                options={"enabled": True, "by_target": True, "hint_at": 3},
                expect=((3, "after_tools", "hint"),),
            ),
            Example(
                "A user who declines an edit three times is not a dead end: the call never ran",
                tuple(
                    calls(Call("Edit", {"file_path": "/app/README.md", "old_string": "Intro", "new_string": f"Intro v{k}"}, "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", error=True, declined=True))
                    for k in range(4)
                )
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "A search that finds something after three empty ones is news: nothing fires",
                tuple(calls(Call("search_dir", {"search_term": t}, f'No matches found for "{t}" in /repo')) for t in ("retry", "Retry", "backoff"))
                + (calls(Call("search_dir", {"search_term": "max_retries"}, "Found 2 matches for \"max_retries\":\n/repo/http.py (2 matches)")),)
                + tuple(calls(Call("search_dir", {"search_term": t}, f'No matches found for "{t}" in /repo')) for t in ("jitter", "sleep"))
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "Stepping through a short file that does not move: the same view after every goto stops at the 4th look",
                (calls(Call("open", {"path": "setup.py"}, "[File: setup.py (12 lines total)]\n1:from setuptools import setup\n2:setup(name='x')")),)
                + tuple(
                    calls(Call("goto", {"line_number": n}, "[File: setup.py (12 lines total)]\n1:from setuptools import setup\n2:setup(name='x')"))
                    for n in (20, 40, 60)
                )
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "A browser clicking the same link on the same page, reworded each time: the page's OCR text differs, the view does not",
                tuple(
                    calls(Call("WebSurfer", {"instruction": f"Open the Vocabulary section and draft a post ({k})"}, "I clicked 'Spanish-English Vocabulary'.\n\nHere is a screenshot of [WordReference Forums](https://forum.wordreference.com/). The viewport shows 21% of the webpage.\nAutomatic OCR of the page screenshot has detected the following text:\n\n" + ("Threads: 801.5K Messages: 4.1M" if k % 2 else "Forums Dictionary search: [Search box] Threads 801.5K")))
                    for k in range(5)
                )
                + (answer(),),
                options={"enabled": True, "hint_at": 3},
                expect=((3, "after_tools", "hint"), (4, "after_tools", "stop")),
            ),
            Example(
                "Python code that opens with a comment is code, not the shell's no-op: the same output four times is one view",
                tuple(calls(Call("execute_code", {"language": "python", "code": f"# filename: check_digit.py\nprint('X')  # attempt {k}"}, "X\n")) for k in range(4))
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "Fix-and-retest: the same test run five times with an edit between never fires",
                tuple(
                    step
                    for k in range(5)
                    for step in (
                        calls(Call("bash", {"command": "python reproduce.py"}, "AssertionError: expected 3, got 2", error=True)),
                        calls(Call("str_replace_editor", {"command": "str_replace", "path": "/repo/a.py", "old_str": f"x = {k}", "new_str": f"x = {k + 1}"}, "The file /repo/a.py has been edited.")),
                    )
                )
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "Six parallel calls failing together are one failure, and the next response's fix is news",
                (
                    calls(*(Call("Grep", {"pattern": p}, "rg: /app: Permission denied (os error 13)", error=True) for p in "abcdef")),
                    calls(Call("Bash", {"command": "grep -rn a /app"}, "/app/x.txt:1:a")),
                    answer(),
                ),
                options={"enabled": True},
            ),
            Example(
                "A to-do list between the failures is neither news nor a failure",
                tuple(
                    step
                    for cmd in (": a", ": b", ": c", ": d")
                    for step in (calls(_garbled(cmd)), calls(Call("TodoWrite", {"todos": [{"content": cmd}]}, "Todos have been modified successfully.")))
                )
                + (answer(),),
                options={"enabled": True},
                expect=((7, "after_tools", "stop"),),
            ),
            Example(
                "Three different patches applied through the shell, each answered the identical 'Success': changes, not a view seen again",
                tuple(
                    calls(Call("shell", {"command": ["apply_patch", f"Begin Patch\nUpdate File: src/app.py\n-x = {k}\n+x = {k + 1}\nEnd Patch"]}, "Success. Updated the following files:\nM src/app.py\n"))
                    for k in range(4)
                )
                + (answer(),),
                options={"enabled": True},
            ),
            Example(
                "Codex's apply_patch failing to apply, rewritten each time: 'verification failed' is a failure",
                tuple(
                    calls(Call("apply_patch", f"Begin Patch\nUpdate File: src/app.py\n-x = {k}\n+x = {k + 1}\nEnd Patch", f"apply_patch verification failed: Failed to find expected lines in /repo/src/app.py:\nx = {k}", error=None))
                    for k in range(4)
                )
                + (answer(),),
                options={"enabled": True},
                expect=((4, "after_tools", "stop"),),
            ),
            Example(
                "A command that did its work silently (mkdir, cp) is a change that worked, not an empty answer",
                tuple(calls(Call("bash", {"command": f"mkdir -p /app/dir{k}"}, "")) for k in range(5)) + (answer(),),
                options={"enabled": True},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        opts = self.options
        self.classifier = ResultClassifier(failure_patterns=opts.failure_patterns, empty_patterns=opts.empty_patterns)
        self.counts: dict[str, int] = {}
        self.shown: dict[str, str] = {}  # class -> an excerpt of the answer, for reasons
        self.views: set[str] = set()  # successful answers seen since the last change
        self.last_news: str | None = None
        self.templates: dict[str, tuple[str, str]] = {}  # error class -> its text's start and end
        self.target_counts: dict[tuple[str, str], int] = {}  # (class, target) -> times asked (by_target)

    def new_turn(self, context: RunContext | None = None) -> None:
        """A user message changes what is asked: the empty answers and views it may make
        news start afresh, but an error the tools gave is the world's answer to what the
        agent sent, and a new request does not change it: its count goes on."""
        errors = {k: v for k, v in self.counts.items() if k.startswith("error:")}
        templates = {k: v for k, v in self.templates.items() if k in errors}
        shown = {k: v for k, v in self.shown.items() if k in errors}
        targets = {k: v for k, v in self.target_counts.items() if k[0] in errors}
        self.reset(context)
        self.counts, self.templates, self.shown, self.target_counts = errors, templates, shown, targets

    def _view_key(self, call: ToolCall) -> str:
        # Whitespace aside, byte for byte: normalising volatile text (timestamps, ids) in
        # every result would cost more than the rest of the replay, and a view that only
        # a timestamp changes is a poll, P004's to judge.
        # A page's screenshot read by OCR differs each time the same page is shown; a log
        # that grows at its end (a poll of an install) is not the same view: its length
        # and its end are part of it.
        content = call.result.content
        text = " ".join(without_screen_text(content[:_VIEW_CHARS]).split())
        if len(content) > _VIEW_CHARS:
            text += f" …{len(content)}… " + " ".join(content[-_VIEW_CHARS // 2 :].split())
        return "view:" + blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()

    def _target(self, key: str, call: ToolCall) -> str | None:
        """With ``by_target``, for an answer that what was asked for is not there (an
        empty answer, "No such file", "No matches found"), the target asked for: such an
        answer stops the run when the same question comes back reworded, not when the
        target changes (four different jar names looked up, each not found, are four
        questions, hinted but not stopped)."""
        if not self.options.by_target or call.result is None:
            return None
        text = call.result.content
        if key.startswith("empty:"):
            return lookup_target(call)
        if not key.startswith("error:"):
            return None
        missing = _MISSING_PROGRAM.search(text[:300])
        if missing is not None:
            # `dig: command not found` after `nslookup: command not found` asks for another
            # program; garbled text (`]}`, `DISCUSSION:`) names none and stays one class.
            return "program " + missing.group(1)
        if says_not_found(text) or (call_kind(call) == "read" and len(text.strip()) <= _BARE_ERROR):
            # A lookup that failed with nothing to say (`which gcc` → "Error") is "not there".
            return lookup_target(call)
        return None

    def _error_key(self, text: str) -> str:
        key = "error: " + error_class(text)
        if key in self.counts:
            return key
        edges = template_edges(text)
        for known, known_edges in self.templates.items():
            if known in self.counts and same_template(edges, known_edges):
                return known  # one message with a changing middle
        self.templates[key] = edges
        if len(self.templates) > _TEMPLATES_KEPT:
            del self.templates[next(iter(self.templates))]  # the oldest: its stretch is long gone
        return key

    def _classify(self, call: ToolCall) -> tuple[str, str | None]:
        """("news" | "change" | "dead" | "none", the dead end's class)."""
        if call.result is None:
            return "none", None
        kind = call_kind(call)
        if kind == "bookkeeping":
            return "none", None
        if call.result.declined:
            return "none", None  # the user's answer, not the tool's
        outcome = self.classifier.outcome(call.result)
        if outcome == "failed":
            return "dead", self._error_key(call.result.content)
        if kind == "write":
            return "change", None
        if kind == "poll":
            return "none", None  # waiting is P004's (poll_threshold): a poll whose output changes is progress
        if outcome == "empty":
            # Nothing found, from a read, a no-op, or a dedicated tool (not a shell).
            if kind == "noop":
                return "dead", "no-op: " + error_class(call.result.content or "(no output)")
            if kind == "read" or shell_command(call) is None:
                return "dead", "empty: " + error_class(call.result.content or "(no output)")
            return "change", None  # a shell command that did its work silently
        if kind == "noop":
            return "news", None  # the tail of an `: … && cmd` chain did run
        if not self.options.views:
            return "news", None
        key = self._view_key(call)
        return ("dead", key) if key in self.views else ("news", key)

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        dead: list[tuple[str, ToolCall]] = []
        news = change = False
        for call in rnd.tool_calls:
            verdict, key = self._classify(call)
            if verdict == "dead":
                dead.append((key, call))
            elif verdict == "change":
                change = True
            elif verdict == "news":
                news = True
                if key is not None:
                    self.views.add(key)
                    self.last_news = key
        if change:
            self.views.clear()
            self.last_news = None
        if change or news:
            self.counts.clear()
            self.target_counts.clear()
            self.templates.clear()
            self.shown.clear()
            return []
        verdicts: list[Verdict] = []
        opened: set[str] = set()
        for key, call in dead:
            if key in opened:
                continue  # a sibling of the class's first occurrence: written before any answer came
            if key not in self.counts:
                opened.add(key)
            # A view repeated right after it was news: that first look was its 1st time.
            start = 1 if key == self.last_news and key not in self.counts else 0
            count = self.counts[key] = self.counts.get(key, start) + 1
            if key not in self.shown:
                self.shown[key] = excerpt(call.result.content if call.result else "", 80)
            threshold = opts.noop_threshold if key.startswith("no-op:") else opts.threshold
            target = self._target(key, call)
            if target is not None:
                # The class's count hints; only the same target asked again stops.
                asked = self.target_counts[(key, target)] = self.target_counts.get((key, target), 0) + 1
                if asked >= threshold:
                    return [self._verdict(Action(opts.action), key, asked, call, context)]
            elif count >= threshold:
                return [self._verdict(Action(opts.action), key, count, call, context)]
            if opts.hint_at and opts.hint_at <= count and (target is not None or count < threshold) and not verdicts:
                verdicts.append(self._verdict(Action.HINT, key, count, call, context))
        return verdicts

    @staticmethod
    def _kind(key: str) -> str:
        kind = key.partition(":")[0]
        return {"error": "the same error", "empty": "the same empty answer", "no-op": "a command that does nothing"}.get(kind, "the same result as before")

    def _what(self, key: str) -> str:
        kind, _, rest = key.partition(":")
        shown = self.shown.get(key, "")
        if kind == "error":
            return f"the same error{' (' + rest.strip() + ')' if rest.strip() else ''}"
        if kind == "empty":
            return f"the same empty answer {shown!r}"
        if kind == "no-op":
            return f"a command that does nothing (the shell's ':' no-op), answered {shown!r}"
        return f"the same result {shown!r}"

    def _verdict(self, action: Action, key: str, count: int, call: ToolCall, context: RunContext) -> Verdict:
        what = self._what(key)
        reason = f"{call.name} hit {what} for the {_ordinal(count)} time with nothing new in between"
        return Verdict(
            action,
            reason,
            call_id=call.id,
            details={"class": truncated(key), "times": count},
            # The model is told the kind of dead end, not a cut excerpt of its own output.
            message=self.say(action.value, context, count=count, dead_end=self._kind(key)),
        )

    def near_miss(self) -> str | None:
        if not self.counts:
            return "no dead end since the last news"
        key, count = max(self.counts.items(), key=lambda item: item[1])
        return f"{self._what(key)} {count} time{'s' if count != 1 else ''} with nothing new in between, of the {self.options.threshold} that stop"

    def state(self) -> dict[str, Any]:
        return {"dead_ends": {truncated(k, 80): n for k, n in self.counts.items()}}

