"""``-f/--format`` and ``-o/--output`` one way for every command: a report file's name
says its format, and a command refuses (exit 2) a name it cannot write or one that says
another format than ``--format`` (terminal text in ``report.sarif`` would pass a broken
upload)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..input.diagnostics import TracecheckError

# Every report file a tracecheck command writes, by the end of its name, in words.
FILE_KINDS = {
    ".sarif.json": "SARIF",
    ".gitlab.json": "GitLab Code Quality",
    ".codequality.json": "GitLab Code Quality",
    ".junit.xml": "JUnit XML",
    ".json": "JSON",
    ".jsonl": "JSON Lines",
    ".md": "Markdown",
    ".html": "HTML",
    ".htm": "HTML",
    ".sarif": "SARIF",
    ".xml": "JUnit XML",
    ".csv": "CSV",
    ".txt": "text",
}

# What each command writes (a file name's end -> the formats such a file may hold) is in
# ``reports.formats``, with the formats themselves.


def name_suffix(path: str, writes: Mapping[str, Sequence[str]]) -> str | None:
    """The longest known end of ``path`` (``.sarif.json`` before ``.json``), or None."""
    lowered = path.lower()
    known = sorted({*FILE_KINDS, *writes}, key=len, reverse=True)
    return next((suffix for suffix in known if lowered.endswith(suffix) and len(lowered) > len(suffix)), None)


def listed_ends(writes: Mapping[str, Sequence[str]]) -> str:
    """The name ends a command writes, one per format (``.html``, not also ``.htm``)."""
    firsts = {tuple(formats): end for end, formats in reversed(list(writes.items()))}
    return ", ".join(end for end, formats in writes.items() if firsts[tuple(formats)] == end)


def format_of_file(command: str, path: str, writes: Mapping[str, Sequence[str]], chosen: str | None = None, named: str = "--format") -> str | None:
    """The format ``path`` is written in: ``chosen`` (the format named by ``named``), else
    what the name says; None when neither says one (``report.log``, ``-``, ``/dev/stdout``).

    A name that says a report kind the command does not write, or another format than
    ``chosen``, is refused (TracecheckError, exit 2)."""
    suffix = name_suffix(path, writes) if path != "-" else None
    if suffix is None:
        return chosen
    if suffix not in writes:
        raise TracecheckError(
            f"-o {path}: {command} does not write {FILE_KINDS[suffix]} ({suffix}); it writes {listed_ends(writes)} files"
            + (" (tracecheck check writes SARIF and JUnit XML)" if FILE_KINDS[suffix] in ("SARIF", "JUnit XML") and command != "check" else "")
        )
    formats = writes[suffix]
    if chosen is None:
        return formats[0]
    if chosen not in formats:
        fitting = [end for end, held in writes.items() if chosen in held]
        raise TracecheckError(
            f"-o {path}: the name says {FILE_KINDS.get(suffix, suffix)} ({suffix}), not {chosen}"
            + (f"; name the file {' or '.join(fitting)}" if fitting else "")
            + f", or leave {named} out"
        )
    return chosen


def report_format(command: str, output, chosen, writes: Mapping[str, Sequence[str]], default: str) -> str:
    """``--format`` (a choice, or None) and ``-o FILE`` (a path, or None) of a command that
    writes one report: the format it is written in (``default`` when neither says one)."""
    chosen = getattr(chosen, "value", chosen)
    if output is None:
        return chosen or default
    return format_of_file(command, str(output), writes, chosen) or default


def all_inputs(sources, *files) -> list:
    """The inputs an output must not replace: the trace ``sources`` and the files the
    command reads besides them (labels, baseline, config), those given."""
    from ..input.sources import Source

    return [*sources, *(Source(str(f)) for f in files if f is not None)]
