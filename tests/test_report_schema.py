"""Every replay report in JSON or JSON Lines that the report-bytes matrix writes (replay
and show, on sample_traces/ and tests/corpus/), and one with presets side by side and one
with tokenizers compared, validates against the published schema
(``tracecheck schema report``), read strictly: an object the schema describes may hold
no field the schema does not name. A field added to a report record without its place
in reports/schema.py fails here."""

from __future__ import annotations

import copy
import importlib.util
import json

import pytest

from conftest import ROOT

jsonschema = pytest.importorskip("jsonschema")

_spec = importlib.util.spec_from_file_location("report_bytes", ROOT / "scripts" / "report_bytes.py")
report_bytes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_bytes)

MANIFEST = json.loads((ROOT / "tests" / "report_bytes.json").read_text(encoding="utf-8"))
INPUTS = [str(ROOT / p) for p in MANIFEST["inputs"]]
RUNS = [
    args
    for args in report_bytes.invocations([p.rsplit("/", 1)[-1] for p in MANIFEST["inputs"]])
    if args[0] in ("replay", "show") and args[args.index("-f") + 1] in ("json", "jsonl")
]
# The parts of a report the matrix does not ask for: presets side by side, and P001's
# tokenizers compared.
RUNS += [
    ("replay", "sample_traces", "-f", "json", "--preset", "default,seeds"),
    ("replay", "sample_traces", "-f", "jsonl", "--tokenizer", "char,jieba"),
]


def strict(schema):
    """``schema`` with every object that names its properties closed to other fields."""
    schema = copy.deepcopy(schema)

    def close(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def as_document(stdout: bytes, fmt: str) -> dict:
    """The report as one JSON document: JSON Lines (a header line, trace lines, warning
    lines, a totals line) gathered into the shape ``--format json`` writes."""
    if fmt == "json":
        return json.loads(stdout)
    document: dict = {"traces": [], "warnings": []}
    for line in stdout.decode("utf-8").splitlines():
        item = json.loads(line)
        kind = item.pop("type")
        if kind == "header":
            document.update(item)
        elif kind == "trace":
            document["traces"].append(item)
        elif kind == "warning":
            document["warnings"].append(item)
        else:
            assert kind == "totals", kind
            document["totals"] = item
    return document


@pytest.fixture(scope="module")
def schema():
    from tracecheck.reports.schema import REPORT_SCHEMA

    return strict(REPORT_SCHEMA)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    return tmp_path_factory.mktemp("report-schema")


def test_the_matrix_has_json_reports_to_validate():
    assert {args[0] for args in RUNS} == {"replay", "show"} and len(RUNS) >= 6


@pytest.mark.parametrize("args", RUNS, ids=[" ".join(a) for a in RUNS])
def test_json_report_validates_against_the_strict_schema(args, schema, staged, monkeypatch):
    from typer.testing import CliRunner

    from tracecheck.cli.main import app

    report_bytes.stage(INPUTS, staged)
    monkeypatch.chdir(staged)
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    document = as_document(result.stdout_bytes, args[args.index("-f") + 1])
    assert document["traces"], args
    if "--preset" in args and "," in args[args.index("--preset") + 1]:
        assert "presets" in document["traces"][0] and "by_preset" in document["totals"]
    if "--tokenizer" in args:
        assert "tokenizer_comparison" in document["traces"][0]
    jsonschema.validate(document, schema)


def test_a_field_the_schema_does_not_name_fails(schema):
    # The strict reading is what catches a record field added without the schema.
    from tracecheck.cli.main import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["replay", str(ROOT / "sample_traces" / "alternating_ab_loop.jsonl"), "-f", "json"])
    document = json.loads(result.stdout_bytes)
    jsonschema.validate(document, schema)
    document["traces"][0]["fires"][0]["severity"] = "high"
    with pytest.raises(jsonschema.ValidationError, match="severity"):
        jsonschema.validate(document, schema)
