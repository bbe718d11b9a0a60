"""Turn the hand labels of the real runs in tests/corpus/ into tracecheck's labels sidecars.

tests/corpus/CodeTracer/source-labels.json and tests/corpus/tau2-bench/source-labels.json
are written in their labeller's own form (read their ``_doc``; it is the form of the
shared scorer, which reads them as ``labels.json`` in ../shared/corpus); this writes the
same labels as each family's sidecar, ``tests/corpus/<family>/labels.json``, the name
every family of labelled runs uses (``benchmarks/quality.py`` finds them by it):

    python scripts/import_labels.py            # (re)write both families' labels.json
    python scripts/import_labels.py --check    # exit 1 if one is not what the labels say
    tracecheck sweep --preset ALL --labels tests/corpus/CodeTracer/labels.json tests/corpus/CodeTracer

Kept per run: kind (loop, healthy, mixed), the round a loop should be stopped by
(``stop_by``; on a mixed run a later terminal loop), the round a mixed run's stall
should be flagged by (``fire_by``), the outcome and the labeller's ``why``. Rounds are
tracecheck's (one model response): CodeTracer's ``stop_by_response`` /
``fire_by_response`` (its ``*_by_round`` count ATIF steps, several per response);
τ²-bench's ``stop_by_round`` / ``fire_by_round`` as they are (assistant messages,
counting the scripted greeting: the scoring's round of slack covers it). A run's
``file`` is its path inside the family's folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
SOURCES = ("CodeTracer", "tau2-bench")
SOURCE_NAME = "source-labels.json"  # the labeller's form
SIDECAR_NAME = "labels.json"  # tracecheck's sidecar, in every family's folder


def _entry(trace: str, file: str, label: dict[str, Any], stop_key: str, fire_key: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"trace": trace, "file": file, "outcome": label.get("outcome"), "kind": label["kind"]}
    if label.get(stop_key) is not None:
        entry["stop_by"] = label[stop_key]
    # Only a mixed run's fire round is scored (a loop is scored by its stop).
    if label["kind"] == "mixed" and label.get(fire_key) is not None:
        entry["fire_by"] = label[fire_key]
    if label.get("why"):
        entry["why"] = label["why"]
    return entry


def _stored_as(folder: Path, key: str) -> str:
    """The file a labels key names, as stored here (the airline results are gzipped)."""
    if not (folder / key).exists() and (folder / (key + ".gz")).exists():
        return key + ".gz"
    return key


def entries(name: str, corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """The sidecar entries of one family, from its labeller's file."""
    folder = corpus / name
    labels = json.loads((folder / SOURCE_NAME).read_text(encoding="utf-8"))
    out = []
    for key, value in labels.items():
        if key.startswith("_"):
            continue
        file = _stored_as(folder, key)
        if "runs" in value:  # τ²-bench: one label per simulation, tracecheck's id task-<id>/trial-<n>
            for run_id, label in value["runs"].items():
                trace = f"task-{label['task_id']}/trial-{label['trial']}" if "task_id" in label else run_id
                out.append(_entry(trace, file, label, "stop_by_round", "fire_by_round"))
        else:  # CodeTracer: one run per folder, whose name is the trace id
            stop, fire = ("stop_by_response", "fire_by_response") if "stop_by_response" in value else ("stop_by_round", "fire_by_round")
            out.append(_entry(key.split("/")[0], file, value, stop, fire))
    return out


def render(name: str, corpus: Path = CORPUS) -> str:
    return json.dumps({"version": 1, "traces": entries(name, corpus)}, ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a sidecar is stale")
    parser.add_argument("--output-dir", type=Path, default=CORPUS, help="where to write <family>/labels.json (default: tests/corpus)")
    args = parser.parse_args()
    stale = []
    for name in SOURCES:
        text = render(name)
        output = args.output_dir / name / SIDECAR_NAME
        if args.check:
            if not output.exists() or output.read_text(encoding="utf-8") != text:
                stale.append(output)
            continue
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        from tracecheck.input.labels import load_labels

        load_labels(output)  # what --labels will say about it, now rather than later
        print(f"wrote {len(json.loads(text)['traces'])} labelled runs to {output}", file=sys.stderr)
    for output in stale:
        print(f"{output} is stale: run python scripts/import_labels.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
