"""benchmarks/corpus.py: the same seed gives the same bytes, every format it claims is
written, and every file reads back through tracecheck's readers without a warning."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

SPEC = importlib.util.spec_from_file_location("bench_corpus", Path(__file__).resolve().parent.parent / "benchmarks" / "corpus.py")
corpus = importlib.util.module_from_spec(SPEC)
sys.modules[SPEC.name] = corpus  # dataclasses look their module up
SPEC.loader.exec_module(corpus)

SIZE = 1 << 20  # 1 MB
FOLDER_FORMAT = {"native": "native", "openai": "openai-chat", "anthropic": "anthropic", "tau2": "tau-bench", "swe_agent": "swe-agent"}


def digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("corpus")
    manifest = corpus.generate(root, SIZE, seed=7, long_rounds=100)
    return root, manifest


def test_same_seed_same_bytes_other_seed_other_bytes(generated, tmp_path):
    root, _ = generated
    again = corpus.generate(tmp_path / "again", SIZE, seed=7, long_rounds=100)
    assert digest(tmp_path / "again") == digest(root)
    assert again["bytes"] >= SIZE
    corpus.generate(tmp_path / "other", SIZE, seed=8, long_rounds=100)
    assert digest(tmp_path / "other") != digest(root)


def test_every_format_kind_and_language_is_written(generated):
    root, manifest = generated
    assert sorted(manifest["formats"]) == sorted(corpus.FORMATS)
    for folder in corpus.FORMATS:
        assert any((root / folder).iterdir()), folder
    kinds = {k.removeprefix("long ") for f in manifest["formats"].values() for k in f}
    assert kinds == set(corpus.KINDS)
    assert any(k.startswith("long ") for f in manifest["formats"].values() for k in f)
    text = "".join(p.read_text(encoding="utf-8") for p in (root / "native").iterdir())
    assert '"language": "zh"' in text and '"language": "en"' in text
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text) and "Based on these results" in text


def test_every_file_reads_back_without_warnings(generated):
    root, manifest = generated
    diagnostics = Diagnostics()
    seen: dict[str, set[str]] = {}
    rounds = 0
    traces = list(read_traces([str(root)], diagnostics))
    for trace in traces:
        folder = Path(trace.file).relative_to(root).parts[0] if Path(trace.file).is_absolute() else Path(trace.file).parts[-2]
        seen.setdefault(folder, set()).add(trace.format)
        rounds += len(trace.rounds)
        assert trace.rounds, trace.id
    assert not diagnostics.items, [str(d) for d in diagnostics.items[:5]]
    assert {f: sorted(v) for f, v in seen.items()} == {f: [FOLDER_FORMAT[f]] for f in corpus.FORMATS}
    assert len(traces) == manifest["traces"]
    assert rounds == manifest["rounds"]
    long_ones = [t for t in traces if t.id.startswith("long-") or "long-" in t.id]
    assert long_ones and max(len(t.rounds) for t in long_ones) == 100


def test_manifest_is_hidden_from_a_directory_walk(generated):
    root, manifest = generated
    assert json.loads((root / ".manifest.json").read_text())["seed"] == 7
    assert not (root / "manifest.json").exists()


def test_parse_size():
    assert corpus.parse_size("10MB") == 10 << 20
    assert corpus.parse_size("1GB") == 1 << 30
    with pytest.raises(Exception):
        corpus.parse_size("lots")


def test_swe_agent_runs_are_graded_by_a_report_not_by_their_submit(generated):
    root, _ = generated
    traces = list(read_traces([str(root / "swe_agent")], Diagnostics()))
    assert traces and all(t.ending == "submitted" for t in traces)
    report = json.loads((root / "swe_agent" / "results.json").read_text())
    expected = {i: "success" for i in report["resolved_ids"]} | {i: "failure" for i in report["unresolved_ids"]}
    assert {t.id: t.outcome for t in traces} == expected
    # Loop runs submit too; only the report tells them from the healthy ones.
    for trace in traces:
        kind = trace.id.removeprefix("long-").split("-")[0]
        assert trace.outcome == ("success" if kind in ("search", "coding", "support") else "failure"), trace.id
