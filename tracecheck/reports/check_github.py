"""``check --format github``: GitHub Actions workflow commands, and a job summary.

Each failing finding becomes an ``::error`` annotation on the trace file and the line of
the round concerned; a known finding that does not fail the gate (in the baseline with
``--fail-on new``) becomes a ``::warning``, as does an input warning. Accepted and
allowed findings are decided already: they are not annotated, only counted.

GitHub shows at most 10 errors and 10 warnings of a step and drops the rest without a
word, so at most that many of each are written (``check_data`` lists the most
important first); then one ``::notice`` says how many were left out, and those are
listed in the log as plain lines (which the runner never reads as commands).

Untrusted text is escaped as the runner unescapes it: ``%``, CR and LF in the message;
also ``:`` and ``,`` in a property (file, title). Other control and invisible characters
are made visible first (a message keeps its line breaks, a property does not).
"""

from __future__ import annotations

import os
from typing import Any

from .check_records import CheckReport, FindingRecord
from .wording import check_summary, finding_text, named, status_tag

MAX_ERRORS = 10
MAX_WARNINGS = 10
SUMMARY_LIMIT = 1000 * 1024  # GitHub refuses a step summary over 1024 KiB; keep clear of it
_LOG_PREFIX = "tracecheck: "  # plain log lines start with text of ours, never with "::"


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR, LF as the runner unescapes them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _visible(text: str) -> str:
    """Untrusted text for a message: controls and invisible characters shown as escapes,
    line breaks kept (the annotation shows them)."""
    from ..text.textsafe import neutralize_keeping_layout

    return neutralize_keeping_layout(text.replace("\r\n", "\n").replace("\t", " "))


def command(kind: str, message: str, **properties: Any) -> str:
    """One workflow command line; properties whose value is None are left out."""
    from ..text.textsafe import neutralize

    props = ",".join(f"{name}={escape_property(neutralize(str(value)))}" for name, value in properties.items() if value is not None)
    return f"::{kind}{' ' + props if props else ''}::{escape_data(_visible(message))}"


def _annotation(kind: str, finding: FindingRecord) -> str:
    return command(kind, finding.message + status_tag(finding), file=finding.file, line=finding.line, title=f"tracecheck {finding.rule}: {named(finding)}")


def _log_line(finding: FindingRecord) -> str:
    from ..text.textsafe import neutralize

    where = f"{finding.file}:{finding.line or 1}"
    return neutralize(f"{_LOG_PREFIX}{where}: {finding_text(finding)}")


def write_github(report: CheckReport) -> str:
    errors = [f for f in report.findings if f.failing]
    warnings = [f for f in report.findings if not f.failing and f.status == "baseline"]
    lines = [_annotation("error", f) for f in errors[:MAX_ERRORS]]
    shown_warnings = [_annotation("warning", f) for f in warnings[:MAX_WARNINGS]]
    room = MAX_WARNINGS - len(shown_warnings)
    shown_warnings += [command("warning", w.reason, file=w.file, line=w.line, title="tracecheck input") for w in report.warnings[:room]]
    lines += shown_warnings
    left_errors, left_warnings = errors[MAX_ERRORS:], warnings[MAX_WARNINGS:]
    left_input = max(0, len(report.warnings) - room)
    left = len(left_errors) + len(left_warnings) + left_input
    if left:
        parts = [f"{n} {what}" for n, what in ((len(left_errors), "failing"), (len(left_warnings), "known"), (left_input, "input warnings")) if n]
        lines.append(
            command(
                "notice",
                f"{left} more not annotated ({', '.join(parts)}): GitHub shows at most {MAX_ERRORS} errors and "
                f"{MAX_WARNINGS} warnings of a step; they are listed in the log",
                title="tracecheck",
            )
        )
        lines += [_log_line(f) for f in [*left_errors, *left_warnings]]
        from ..text.textsafe import neutralize

        lines += [neutralize(f"{_LOG_PREFIX}{w.file}:{w.line or 1}: warning: {w.reason}") for w in report.warnings[room:]]
    lines.append(_LOG_PREFIX + check_summary(report) + (" · passed" if report.passed else " · failed"))
    return "\n".join(lines) + "\n"


def github_summary(report: CheckReport, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown report for ``$GITHUB_STEP_SUMMARY``, cut to ``limit`` bytes (whole rows,
    then a line saying how many findings were left out)."""
    from .markdown import check_markdown_lines

    head, rows = check_markdown_lines(report)
    text = "\n".join(head) + "\n"
    size = len(text.encode())
    for shown, row in enumerate(rows):
        row_size = len(row.encode()) + 1
        # Leave room for the closing line about the rows left out.
        if size + row_size + 200 > limit:
            left = len(rows) - shown
            return text + f"\n… {left} more finding{'s' if left != 1 else ''} not shown (the step summary is limited to 1 MiB)\n"
        text += row + "\n"
        size += row_size
    return text


def append_github_summary(report: CheckReport, environ: Any = None) -> str | None:
    """Append :func:`github_summary` to the file ``$GITHUB_STEP_SUMMARY`` names; return that
    path, or None when the variable is not set (outside GitHub Actions)."""
    environ = os.environ if environ is None else environ
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    from ..input.diagnostics import TracecheckError

    try:
        with open(path, "a", encoding="utf-8") as out:
            out.write(github_summary(report) + "\n")
    except OSError as exc:
        raise TracecheckError(f"$GITHUB_STEP_SUMMARY {path}: cannot append the summary: {exc.strerror or exc}") from None
    return path

