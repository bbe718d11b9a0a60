"""``check --format sarif``: SARIF 2.1.0 for code scanning (GitHub's upload-sarif).

``tool.driver.rules`` is every registered guard (id = its code, name, summary and
explanation) and the rules of tracecheck's own findings (``policy``,
``TC-WASTE-ROUNDS``, ``TC-WASTE-TOKENS``), always all of them in the same order, so
``ruleIndex`` stays put. Each finding is a result on the trace file (the path as given,
as a relative URI reference) and the line of the round concerned:

- ``level`` ``error`` when it fails the gate, ``note`` when it does not;
- ``partialFingerprints`` ``{"tracecheck/v1": fingerprint}``: the baseline's identity of
  the finding, which has no line number in it, so code scanning keeps one alert per
  finding however the file moves;
- ``baselineState`` ``new`` or ``unchanged`` (in the baseline, accepted or allowed);
- ``suppressions``: an accepted finding is suppressed ``external`` (by the baseline
  file), an allowed one ``inSource`` (by an ``allow`` event in the trace), with the reason
  as the justification.

Input warnings are the invocation's ``toolExecutionNotifications``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ..text.textsafe import neutralize_keeping_layout
from .check_records import CheckReport, FindingRecord
from .wording import named

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "tracecheck/v1"
# tracecheck's own rules, besides one per guard.
OWN_RULES = (
    (
        "policy",
        "policy-expectation",
        "The policy of all enabled guards did not do what a trace expects of it.",
        "A trace expects the policy (every enabled guard together) to intervene by a round, or never "
        "to intervene; or the policy stops a run labelled a success, healthy or mixed (harm).",
    ),
    (
        "TC-WASTE-ROUNDS",
        "wasted-rounds",
        "The policy would have saved more rounds than --max-wasted-rounds allows: the agent is looping.",
        "Rounds that the policy of the enabled guards would have cut, on one trace, above the limit "
        "given with --max-wasted-rounds.",
    ),
    (
        "TC-WASTE-TOKENS",
        "wasted-tokens",
        "The policy would have saved more tokens than --max-wasted-tokens allows: the agent is looping.",
        "Tokens that the policy of the enabled guards would have saved, on one trace, above the limit "
        "given with --max-wasted-tokens.",
    ),
)


def rules() -> list[dict[str, Any]]:
    """The driver's rules: one per guard, from its metadata, then tracecheck's own."""
    import inspect

    from ..guards import all_guards

    found = []
    for guard in all_guards():
        explanation = inspect.cleandoc(guard.explanation())
        found.append(
            {
                "id": guard.code,
                "name": guard.name,
                "shortDescription": {"text": guard.describe()},
                "fullDescription": {"text": explanation.split("\n\n", 1)[0]},
                "help": {"text": explanation},
                "defaultConfiguration": {"level": "error"},
                "properties": {"source": guard.source, "tags": ["guard"]},
            }
        )
    for code, name, summary, description in OWN_RULES:
        found.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": summary},
                "fullDescription": {"text": description},
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["tracecheck"]},
            }
        )
    return found


def artifact_uri(path: str) -> str:
    """A file name as a URI reference: forward slashes, anything unsafe percent-encoded
    (a ``:`` too, so that ``a:b.jsonl`` does not read as a scheme)."""
    return quote(path.replace("\\", "/"), safe="/")


def _location(file: str, line: int | None, pointer: str | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(file)}}
    if line:
        physical["region"] = {"startLine": line}
    location: dict[str, Any] = {"physicalLocation": physical}
    if pointer:  # the run's own place inside a document of many, which the line does not tell
        location["logicalLocations"] = [{"name": pointer, "fullyQualifiedName": f"{file}#{pointer}", "kind": "object"}]
    return location


def _result(finding: FindingRecord, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": "error" if finding.failing else "note",
        "message": {"text": neutralize_keeping_layout(f"{finding.message} (trace {named(finding)})")},
        "locations": [_location(finding.file, finding.line, finding.pointer)],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "baselineState": "new" if finding.status == "new" else "unchanged",
        "properties": {"trace": finding.trace, "kind": finding.kind, "round": finding.round, "status": finding.status},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    if finding.status in ("accepted", "allowed"):
        suppression = {"kind": "external" if finding.status == "accepted" else "inSource", "status": "accepted"}
        if finding.reason:
            suppression["justification"] = finding.reason
        result["suppressions"] = [suppression]
    return result


def sarif_log(report: CheckReport) -> dict[str, Any]:
    driver_rules = rules()
    index = {rule["id"]: i for i, rule in enumerate(driver_rules)}
    tool = report.tool
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if report.warnings:
        invocation["toolExecutionNotifications"] = [
            {"level": "warning", "message": {"text": neutralize_keeping_layout(w.reason)}, "locations": [_location(w.file, w.line)]} for w in report.warnings
        ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": tool["name"], "version": tool["version"], "semanticVersion": tool["version"], "rules": driver_rules}},
                "invocations": [invocation],
                "results": [_result(f, index) for f in report.findings],
                "columnKind": "unicodeCodePoints",
                "properties": {
                    "passed": report.passed,
                    "traces": report.traces,
                    "expectations": report.expectations.to_json(),
                    "baselineFixed": report.baseline_fixed,
                },
            }
        ],
    }


def write_sarif(report: CheckReport) -> str:
    import orjson

    return orjson.dumps(sarif_log(report), option=orjson.OPT_INDENT_2).decode() + "\n"
