"""Turn the hand labels of the real runs in tests/corpus/ into tracecheck's labels sidecar.

tests/corpus/CodeTracer/labels.json and tests/corpus/tau2-bench/labels.json are written
in their labeller's own form (read their ``_doc``); this writes the same labels as one
sidecar, tests/corpus/labels.json, that ``--labels`` reads:

    python scripts/import_labels.py            # (re)write tests/corpus/labels.json
    python scripts/import_labels.py --check    # exit 1 if it is not what the labels say
    tracecheck sweep --preset ALL --labels tests/corpus/labels.json tests/corpus/CodeTracer tests/corpus/tau2-bench

Kept per run: kind (loop, healthy, mixed), the round a loop should be stopped by
(``stop_by``; on a mixed run a later terminal loop), the round a mixed run's stall
should be flagged by (``fire_by``), the outcome and the labeller's ``why``. Rounds are
tracecheck's (one model response): CodeTracer's ``stop_by_response`` /
``fire_by_response`` (its ``*_by_round`` count ATIF steps, several per response);
τ²-bench's ``stop_by_round`` / ``fire_by_round`` as they are (assistant messages,
counting the scripted greeting: the scoring's round of slack covers it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
OUTPUT = CORPUS / "labels.json"
SOURCES = ("CodeTracer", "tau2-bench")


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


def entries(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    out = []
    for name in SOURCES:
        folder = corpus / name
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
        for key, value in labels.items():
            if key.startswith("_"):
                continue
            file = f"{name}/{_stored_as(folder, key)}"
            if "runs" in value:  # τ²-bench: one label per simulation, tracecheck's id task-<id>/trial-<n>
                for run_id, label in value["runs"].items():
                    trace = f"task-{label['task_id']}/trial-{label['trial']}" if "task_id" in label else run_id
                    out.append(_entry(trace, file, label, "stop_by_round", "fire_by_round"))
            else:  # CodeTracer: one run per folder, whose name is the trace id
                stop, fire = ("stop_by_response", "fire_by_response") if "stop_by_response" in value else ("stop_by_round", "fire_by_round")
                out.append(_entry(key.split("/")[0], file, value, stop, fire))
    return out


def render(corpus: Path = CORPUS) -> str:
    return json.dumps({"version": 1, "traces": entries(corpus)}, ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the sidecar is stale")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write (default: tests/corpus/labels.json)")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not args.output.exists() or args.output.read_text(encoding="utf-8") != text:
            print(f"{args.output} is stale: run python scripts/import_labels.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    from tracecheck.input.labels import load_labels

    load_labels(args.output)  # what --labels will say about it, now rather than later
    print(f"wrote {len(json.loads(text)['traces'])} labelled runs to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
