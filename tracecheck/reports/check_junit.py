"""``check --output-format junit``: JUnit XML for CI test-report viewers (GitLab, Jenkins).

One ``<testsuite name="tracecheck check">`` in a ``<testsuites>``; one ``<testcase>`` per
finding, with ``classname`` the trace id and ``name`` the rule and kind ("P001
expectation", "TC-WASTE-ROUNDS waste"; a second one alike on the same trace gets " #2"),
so a viewer keeps the same test from run to run. A failing finding has a ``<failure>``;
a finding that does not fail the gate (accepted, allowed, or known in the baseline) is
``<skipped>`` with the reason. A run with no finding at all has one passing testcase
("tracecheck" / "all traces") so that no viewer takes the report for one where no test
ran. The suite's properties hold the counts; input warnings go to its ``<system-err>``.

Built with ElementTree (which escapes markup); characters XML 1.0 cannot carry (controls
other than tab and line breaks, lone surrogates, U+FFFE/U+FFFF) are written as visible
escapes such as ``\\x1b``.
"""

from __future__ import annotations

import re
from typing import Any

# What XML 1.0 forbids (its Char production), tab, LF and CR excepted.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: Any) -> str:
    """Untrusted text as XML 1.0 can carry it: forbidden characters made visible escapes."""
    from ..text.textsafe import _escape

    return _NOT_XML.sub(_escape, str(text))


def xml_attribute(text: Any) -> str:
    """Untrusted text for an attribute: one line, every control or invisible character escaped."""
    from ..text.textsafe import neutralize

    return neutralize(str(text))


def _testcase(suite, finding: dict[str, Any], name: str) -> str:
    """Append the finding's testcase; return what it counts as: failure or skipped."""
    import xml.etree.ElementTree as ET

    attributes = {"classname": xml_attribute(finding["trace"]), "name": xml_attribute(name), "file": xml_attribute(finding["file"])}
    if finding["line"]:
        attributes["line"] = str(finding["line"])
    case = ET.SubElement(suite, "testcase", attributes)
    where = f"{finding['file']}:{finding['line'] or 1}"
    if finding["failing"]:
        failure = ET.SubElement(case, "failure", {"message": xml_attribute(finding["message"]), "type": finding["kind"]})
        failure.text = xml_text(f"{where}: {finding['rule']} [{finding['trace']}] ({finding['status']})\n{finding['message']}\n")
        return "failures"
    reason = finding["status"] + (f": {finding['reason']}" if finding["reason"] else "")
    ET.SubElement(case, "skipped", {"message": xml_attribute(reason)}).text = xml_text(f"{where}: {finding['message']}\n")
    return "skipped"


def write_junit(data: dict[str, Any]) -> str:
    import xml.etree.ElementTree as ET

    from .check_report import summary_line

    root = ET.Element("testsuites", {"name": "tracecheck"})
    suite = ET.SubElement(root, "testsuite", {"name": "tracecheck check"})
    properties = ET.SubElement(suite, "properties")
    tool = data["tool"]
    for name, value in (
        ("tool", f"{tool['name']} {tool['version']}"),
        ("preset", data["preset"]),
        ("fail_on", data["fail_on"]),
        ("traces", data["traces"]),
        ("expectations_checked", data["expectations"]["checked"]),
        ("expectations_met", data["expectations"]["met"]),
        ("baseline_fixed", data["baseline_fixed"]),
    ):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": xml_attribute(value)})
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seen: dict[tuple[str, str], int] = {}
    for finding in data["findings"]:
        name = f"{finding['rule']} {finding['kind']}"
        key = (finding["trace"], name)
        seen[key] = seen.get(key, 0) + 1
        counts[_testcase(suite, finding, name if seen[key] == 1 else f"{name} #{seen[key]}")] += 1
        counts["tests"] += 1
    if not data["findings"]:
        case = ET.SubElement(suite, "testcase", {"classname": "tracecheck", "name": "all traces"})
        ET.SubElement(case, "system-out").text = xml_text(summary_line(data) + "\n")
        counts["tests"] = 1
    out = ET.SubElement(suite, "system-out")
    out.text = xml_text(summary_line(data) + ("\npassed\n" if data["passed"] else "\nfailed\n"))
    if data["warnings"]:
        err = ET.SubElement(suite, "system-err")
        err.text = xml_text("".join(f"{w['file']}:{w['line'] or 1}: {w['reason']}\n" for w in data["warnings"]))
    for element in (root, suite):
        for name, value in counts.items():
            element.set(name, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
