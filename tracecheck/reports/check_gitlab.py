"""``check --format gitlab``: GitLab Code Quality (a JSON array of issues).

Each finding is an issue on the trace file and the line of the round concerned, with the
finding's fingerprint (no line number in it, so a merge request shows only what is new)
and a severity: ``major`` when it fails the gate, ``minor`` when it is known (in the
baseline), ``info`` when it is accepted or allowed.
"""

from __future__ import annotations

from .check_records import CheckReport, FindingRecord
from .wording import finding_text


def severity(finding: FindingRecord) -> str:
    if finding.failing:
        return "major"
    return "minor" if finding.status == "baseline" else "info"


def write_gitlab(report: CheckReport) -> str:
    import orjson

    from ..text.textsafe import neutralize

    issues = [
        {
            "type": "issue",
            "check_name": f.rule,
            "description": neutralize(finding_text(f)),
            "fingerprint": f.fingerprint,
            "severity": severity(f),
            "location": {"path": f.file, "lines": {"begin": f.line or 1}},
        }
        for f in report.findings
    ]
    return orjson.dumps(issues, option=orjson.OPT_INDENT_2).decode() + "\n"
