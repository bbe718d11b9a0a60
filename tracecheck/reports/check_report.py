"""The check report: typed records (``--format json``) and a writer per format.

Every format is fed ``check_data(result)`` (a ``check_records.CheckReport``); none knows how
guards or expectations work.
Findings are listed most important first: new ones, then known ones; within those,
broken expectations, then harm, then waste; then by file and line.
"""

from __future__ import annotations

from dataclasses import field

from .. import __version__
from ..dataclass_lite import mutable_dataclass
from ..engine.check import CheckResult, Finding
from .check_records import CheckReport, ExpectationCounts, FindingCounts, FindingRecord
from .records import InputWarning
from .wording import check_summary, named, status_tag

SCHEMA_VERSION = 1
FORMATS = ("full", "concise", "json", "jsonl", "github", "junit", "sarif", "gitlab", "markdown")
_STATUS_ORDER = {"new": 0, "baseline": 1, "accepted": 2, "allowed": 3}
_KIND_ORDER = {"expectation": 0, "harm": 1, "waste": 2}


def ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (_STATUS_ORDER[f.status], _KIND_ORDER[f.kind], f.file, f.line or 0, f.rule))


def finding_record(finding: Finding, failing: bool) -> FindingRecord:
    return FindingRecord(
        kind=finding.kind,
        rule=finding.rule,
        trace=finding.trace,
        file=finding.file,
        line=finding.line,
        pointer=finding.pointer,
        place=finding.location,
        round=finding.round,
        expected_round=finding.expected_round,
        deviation=finding.deviation,
        turn=finding.turn,
        message=finding.message,
        fingerprint=finding.fingerprint,
        status=finding.status,
        reason=finding.reason,
        failing=failing,
    )


def check_data(result: CheckResult, settings=None) -> CheckReport:
    """The check report of ``result``: what every format writes."""
    failing = {id(f) for f in result.failing}
    counts = {status: sum(1 for f in result.findings if f.status == status) for status in _STATUS_ORDER}
    return CheckReport(
        schema_version=SCHEMA_VERSION,
        tool={"name": "tracecheck", "version": __version__},
        preset=getattr(settings, "preset", None),
        labels=result.labels_file,
        passed=result.exit_code == 0,
        nothing_to_check=result.nothing_to_check,
        exit_code=result.exit_code,
        fail_on=result.fail_on,
        traces=result.traces,
        expectations=ExpectationCounts(checked=result.expectations, met=result.expectations_met, not_checked=result.expectations_unchecked),
        findings=tuple(finding_record(f, id(f) in failing) for f in ordered(result.findings)),
        expectation_checks=tuple(result.expectation_checks),
        counts=FindingCounts(**counts, failing=len(failing)),
        baseline_fixed=result.baseline_fixed,
        warnings=tuple(InputWarning(d.file, d.line, d.reason) for d in result.diagnostics),
        # -k: only when it left traces out
        deselected=len(result.diagnostics.deselected) or None,
    )


def verdict(report: CheckReport) -> str:
    """The last line of the text reports."""
    return "passed" if report.passed else "failed" if report.counts.failing else "nothing checked"


def write_full(report: CheckReport) -> str:
    """Like ruff's full output: each finding with its location and words, then the verdict."""
    from ..text.textsafe import neutralize

    lines = []
    for f in report.findings:
        lines.append(f"{neutralize(f.file)}:{f.line or 1}: {f.rule} {neutralize(named(f))}{status_tag(f)}")
        lines.append(f"  {neutralize(f.message)}")
    if lines:
        lines.append("")
    lines.append(check_summary(report))
    if report.nothing_to_check and not report.counts.failing:
        lines.append(
            "nothing to check: no expectation, no label and no outcome in these traces"
            + ("" if report.passed else " (exit 5; --allow-empty passes)")
        )
    lines.append(verdict(report))
    return "\n".join(lines) + "\n"


@mutable_dataclass
class _RuleRow:
    """One rule's row of ``--statistics``."""

    kind: str
    findings: int = 0
    failing: int = 0
    traces: set[str] = field(default_factory=set)


def write_statistics(report: CheckReport) -> str:
    """``--statistics``, as ruff's: one row per rule (findings, how many fail, in how many
    traces, the guard's name or the kind of finding), most findings first, then the summary
    and the verdict, instead of the findings one by one."""
    from ..guards import guard_by_key
    from ..text.textsafe import neutralize

    by_rule: dict[str, _RuleRow] = {}
    for f in report.findings:
        row = by_rule.setdefault(f.rule, _RuleRow(f.kind))
        row.findings += 1
        row.failing += f.failing
        row.traces.add(f.trace)
    lines = []
    if by_rule:
        names = {rule: getattr(guard_by_key(rule), "name", None) or row.kind for rule, row in by_rule.items()}
        lines.append(f"{'findings':>8}  {'failing':>7}  {'traces':>6}  rule")
        for rule, row in sorted(by_rule.items(), key=lambda item: (-item[1].findings, item[0])):
            lines.append(f"{row.findings:>8,}  {row.failing:>7,}  {len(row.traces):>6,}  {neutralize(rule)} {neutralize(names[rule])}")
        lines.append("")
    lines.append(check_summary(report))
    lines.append(verdict(report))
    return "\n".join(lines) + "\n"


def write_concise(report: CheckReport) -> str:
    from ..text.textsafe import neutralize

    lines = [f"{neutralize(f.file)}:{f.line or 1}: {f.rule} [{neutralize(named(f))}] {neutralize(f.message)}{status_tag(f)}" for f in report.findings]
    lines.append(check_summary(report))
    return "\n".join(lines) + "\n"


def write_json(report: CheckReport) -> str:
    import orjson

    return orjson.dumps(report.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n"


def write_jsonl(report: CheckReport) -> str:
    import orjson

    head = {k: v for k, v in report.to_json().items() if k not in ("findings", "expectation_checks", "warnings")}
    lines = [orjson.dumps({"type": "finding", **f.to_json()}).decode() for f in report.findings]
    lines += [orjson.dumps({"type": "expectation", **e.to_json()}).decode() for e in report.expectation_checks]
    lines += [orjson.dumps({"type": "warning", **w.to_json()}).decode() for w in report.warnings]
    lines.append(orjson.dumps({"type": "summary", **head}).decode())
    return "\n".join(lines) + "\n"


def write_markdown(report: CheckReport) -> str:
    from .markdown import check_markdown_lines

    head, rows = check_markdown_lines(report)
    return "\n".join(head + rows) + "\n"


def _lazy(module: str, name: str):
    """A writer defined in a module of its own, imported when it is first used."""

    def writer(report: CheckReport) -> str:
        import importlib

        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(report)

    writer.__name__ = name
    return writer


WRITERS = {
    "full": write_full,
    "concise": write_concise,
    "json": write_json,
    "jsonl": write_jsonl,
    "github": _lazy("check_github", "write_github"),
    "junit": _lazy("check_junit", "write_junit"),
    "sarif": _lazy("check_sarif", "write_sarif"),
    "gitlab": _lazy("check_gitlab", "write_gitlab"),
    "markdown": write_markdown,
}


def append_github_summary(report: CheckReport, environ=None) -> str | None:
    """For ``check --github-summary``: append the Markdown report to ``$GITHUB_STEP_SUMMARY``
    (at most 1 MiB); the path written, or None when the variable is not set."""
    from .check_github import append_github_summary as append

    return append(report, environ)


def render(format: str, report: CheckReport, settings=None) -> str:
    writer = WRITERS.get(format)
    if writer is None:
        from ..input.diagnostics import TracecheckError

        raise TracecheckError(f"--format {format!r} is not written yet; choose one of: {', '.join(WRITERS)}")
    return writer(report)
