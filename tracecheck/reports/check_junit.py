"""``check --format junit``: JUnit XML for CI test-report viewers (GitLab, Jenkins).

One ``<testsuite name="tracecheck check">`` in a ``<testsuites>``. A testcase per
expectation of every trace, met or not, so a dashboard reads "4 of 31 expectations
broken", not "every test failed": ``classname`` the trace id, ``name`` the guard and
what it should do ("P001 should intervene by round 5", "policy should stay quiet"; a
second one alike on the same trace gets " #2"), so a viewer keeps the same test from run
to run. Then a testcase per finding that is no expectation (harm, waste), named by rule
and kind ("policy harm", "TC-WASTE-ROUNDS waste").

A met expectation passes; a broken one, or a finding, that fails the gate has a
``<failure>`` whose message names the trace, the guard and the rounds (expected, and
where it acted or that it never did); one that does not fail the gate (accepted,
allowed, or known in the baseline) is ``<skipped>`` with the reason, as is an expectation
about a guard the settings do not run. A run with no testcase at all has one passing
testcase ("tracecheck" / "all traces") so that no viewer takes the report for one where
no test ran. The suite's properties hold the counts; input warnings go to its
``<system-err>``.

Built with ElementTree (which escapes markup); characters XML 1.0 cannot carry (controls
other than tab and line breaks, lone surrogates, U+FFFE/U+FFFF) are written as visible
escapes such as ``\\x1b``.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine.check import ExpectationCheck
from .check_records import CheckReport, FindingRecord
from .wording import check_summary, named

# What XML 1.0 forbids (its Char production), tab, LF and CR excepted.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: Any) -> str:
    """Untrusted text as XML 1.0 can carry it: forbidden characters made visible escapes."""
    from ..text.textsafe import escape_char

    return _NOT_XML.sub(escape_char, str(text))


def xml_attribute(text: Any) -> str:
    """Untrusted text for an attribute: one line, every control or invisible character escaped."""
    from ..text.textsafe import neutralize

    return neutralize(str(text))


def _testcase(suite, item: ExpectationCheck | FindingRecord, name: str, finding: FindingRecord | None, failure_message: str | None = None) -> str:
    """Append the testcase of an expectation or a finding (``item``), judged by ``finding``
    when there is one; return what it counts as: passed, failures or skipped."""
    import xml.etree.ElementTree as ET

    where = finding or item  # a broken expectation points where its finding does (the round that acted)
    attributes = {"classname": xml_attribute(item.trace), "name": xml_attribute(name), "file": xml_attribute(where.file)}
    if where.line:
        attributes["line"] = str(where.line)
    case = ET.SubElement(suite, "testcase", attributes)
    if finding is None:
        if item.status == "met":
            return "passed"
        ET.SubElement(case, "skipped", {"message": xml_attribute(item.message)})  # not checked: its guard is not run
        return "skipped"
    where = f"{finding.file}:{finding.line or 1}"
    if finding.failing:
        failure = ET.SubElement(case, "failure", {"message": xml_attribute(failure_message or finding.message), "type": finding.kind})
        failure.text = xml_text(f"{where}: {finding.rule} [{named(finding)}] ({finding.status})\n{finding.message}\n")
        return "failures"
    reason = finding.reason or ("known in the baseline" if finding.status == "baseline" else None)
    ET.SubElement(case, "skipped", {"message": xml_attribute(finding.status + (f": {reason}" if reason else ""))}).text = xml_text(f"{where}: {finding.message}\n")
    return "skipped"


def expectation_name(expectation: ExpectationCheck) -> str:
    """What the expectation asks, as a test's name: "P001 should intervene by round 5"."""
    if not expectation.fires:
        return f"{expectation.guard} should stay quiet"
    return f"{expectation.guard} should intervene" + (f" by round {expectation.by_round}" if expectation.by_round is not None else "")


def _broken(expectation: ExpectationCheck) -> str:
    """A broken expectation in one line: trace, guard, the rounds expected and where it acted."""
    if expectation.status == "unknown_guard":
        return f"{expectation.trace}: {expectation.guard} is not a guard (a typo?); the expectation cannot be checked"
    if expectation.round is None:
        acted = "it never did"
    else:
        acted = f"it {'first ' if expectation.fires else ''}acted at round {expectation.round}"
    return f"{expectation.trace}: {expectation_name(expectation)}; {acted}"


def _unique(seen: dict[tuple[str, str], int], trace: str, name: str) -> str:
    seen[(trace, name)] = seen.get((trace, name), 0) + 1
    return name if seen[(trace, name)] == 1 else f"{name} #{seen[(trace, name)]}"


def write_junit(report: CheckReport) -> str:
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", {"name": "tracecheck"})
    suite = ET.SubElement(root, "testsuite", {"name": "tracecheck check"})
    properties = ET.SubElement(suite, "properties")
    tool = report.tool
    for name, value in (
        ("tool", f"{tool['name']} {tool['version']}"),
        ("preset", report.preset),
        ("fail_on", report.fail_on),
        ("traces", report.traces),
        ("expectations_checked", report.expectations.checked),
        ("expectations_met", report.expectations.met),
        ("baseline_fixed", report.baseline_fixed),
    ):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": xml_attribute(value)})
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seen: dict[tuple[str, str], int] = {}
    # A broken expectation's finding, by fingerprint: its testcase is the expectation's.
    by_fingerprint: dict[str, list[FindingRecord]] = {}
    for finding in report.findings:
        if finding.kind == "expectation":
            by_fingerprint.setdefault(finding.fingerprint, []).append(finding)
    taken: set[int] = set()
    for expectation in report.expectation_checks:
        found = by_fingerprint.get(expectation.fingerprint or "")
        finding = found.pop(0) if found else None
        if finding is not None:
            taken.add(id(finding))
        name = _unique(seen, expectation.trace, expectation_name(expectation))
        outcome = _testcase(suite, expectation, name, finding, _broken(expectation) if finding is not None else None)
        counts["tests"] += 1
        if outcome != "passed":
            counts[outcome] += 1
    for finding in report.findings:
        if id(finding) in taken:
            continue
        name = _unique(seen, finding.trace, f"{finding.rule} {finding.kind}")
        counts[_testcase(suite, finding, name, finding)] += 1
        counts["tests"] += 1
    if not counts["tests"]:
        case = ET.SubElement(suite, "testcase", {"classname": "tracecheck", "name": "all traces"})
        ET.SubElement(case, "system-out").text = xml_text(check_summary(report) + "\n")
        counts["tests"] = 1
    out = ET.SubElement(suite, "system-out")
    out.text = xml_text(check_summary(report) + ("\npassed\n" if report.passed else "\nfailed\n"))
    if report.warnings:
        err = ET.SubElement(suite, "system-err")
        err.text = xml_text("".join(f"{w.file}:{w.line or 1}: {w.reason}\n" for w in report.warnings))
    for element in (root, suite):
        for name, value in counts.items():
            element.set(name, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
