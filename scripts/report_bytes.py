"""Every report, in every format, as a digest: the guard rail of a refactoring.

Runs each command in every output format on a set of inputs (in-process, with the
terminal settings the tests use) and records, per invocation, the exit code and a
SHA-256 of standard output and of standard error. ``--write FILE`` records a manifest,
``--compare FILE`` runs again and lists every invocation whose bytes changed.

    python scripts/report_bytes.py --write /tmp/before.json sample_traces tests/corpus
    python scripts/report_bytes.py --compare /tmp/before.json

The suite runs the comparison on ``sample_traces/`` and ``tests/corpus/`` against
``tests/report_bytes.json`` (tests/test_report_bytes.py); a change of output
that is meant must rewrite that manifest (``--write`` with the same inputs) in the same
commit, so the diff shows which reports changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REPLAY_FORMATS = ("terminal", "json", "jsonl", "markdown", "html")
SHOW_FORMATS = ("terminal", "json", "jsonl")
SWEEP_FORMATS = ("terminal", "json", "csv", "markdown", "html")
CHECK_FORMATS = ("full", "concise", "json", "jsonl", "github", "junit", "sarif", "gitlab", "markdown")
LABEL_FORMATS = ("json", "csv")
# A small grid: the point is every writer on real numbers, not the search itself.
SWEEP_GRID = ("--grid", "R001.stop_at=3,4", "--preset", "default,seeds")


def invocations(inputs: list[str]) -> list[tuple[str, ...]]:
    """The command lines whose output is recorded: every command × format on the first
    input (every writer on real numbers), and on the others (the labelled corpus, some
    600 real runs: large) the JSON of replay, show and check, and convert, which pin
    every figure and finding without running each writer over it again."""
    runs: list[tuple[str, ...]] = []
    for path in inputs[1:]:
        runs.append(("replay", path, "-f", "json"))
        runs.append(("show", path, "-f", "json", "--state", "all"))
        runs.append(("check", path, "-f", "json"))
        runs.append(("convert", path, "-o", "-"))
    for path in inputs[:1]:
        for fmt in REPLAY_FORMATS:
            runs.append(("replay", path, "-f", fmt))
        runs.append(("replay", path, "-f", "terminal", "--all-traces", "--statistics"))
        runs.append(("replay", path, "-f", "json", "--preset", "seeds"))
        for fmt in SHOW_FORMATS:
            runs.append(("show", path, "-f", fmt, "--state", "all"))
        for fmt in SWEEP_FORMATS:
            runs.append(("sweep", path, "-f", fmt, *SWEEP_GRID))
        for fmt in CHECK_FORMATS:
            runs.append(("check", path, "-f", fmt))
        for fmt in LABEL_FORMATS:
            runs.append(("label", path, "-f", fmt))
        runs.append(("convert", path, "-o", "-"))
    return runs


def _digest(data: str | bytes) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()[:16]


def stage(inputs: list[str], scratch: Path) -> list[str]:
    """Copy ``inputs`` into ``scratch``, an empty folder run as the working directory (no
    tracecheck.toml above the inputs changes the settings, and every path a report
    prints is the same on every machine); returns their names there."""
    names = []
    for path in inputs:
        source = Path(path).resolve()
        target = scratch / source.name
        if not target.exists():
            (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
        names.append(source.name)
    return names


def run_one(args: tuple[str, ...]) -> dict:
    """One invocation in the current directory: exit code and digests of both streams."""
    from typer.testing import CliRunner

    from tracecheck.cli.main import app

    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return {"exit": result.exit_code, "stdout": _digest(result.stdout_bytes), "stderr": _digest(result.stderr_bytes)}


TERMINAL = {"NO_COLOR": "1", "COLUMNS": "200", "TERM": "dumb"}
UNSET = ("FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE")


def run_all(inputs: list[str]) -> dict[str, dict]:
    """Run every invocation on ``inputs``; {command line: outcome}."""
    for key in UNSET:
        os.environ.pop(key, None)
    os.environ.update(TERMINAL)
    cwd = os.getcwd()
    scratch = Path(tempfile.mkdtemp(prefix="report-bytes-"))
    try:
        names = stage(inputs, scratch)
        os.chdir(scratch)
        return {" ".join(args): run_one(args) for args in invocations(names)}
    finally:
        os.chdir(cwd)
        shutil.rmtree(scratch, ignore_errors=True)


def compare(recorded: dict, now: dict) -> list[str]:
    """One line per invocation whose exit code or bytes differ (or that is new/missing)."""
    changed = []
    for key in sorted(set(recorded) | set(now)):
        before, after = recorded.get(key), now.get(key)
        if before != after:
            parts = [] if before and after else ["missing before" if before is None else "missing now"]
            for field in ("exit", "stdout", "stderr"):
                if before and after and before[field] != after[field]:
                    parts.append(field)
            changed.append(f"{key}: {', '.join(parts)} changed" if before and after else f"{key}: {parts[0]}")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="FILE")
    action.add_argument("--compare", metavar="FILE")
    parser.add_argument("inputs", nargs="*", help="files or folders (with --compare: the manifest's own)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.write:
        inputs = args.inputs or ["sample_traces", "tests/corpus"]
        manifest = {"inputs": inputs, "reports": run_all(inputs)}
        Path(args.write).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(manifest['reports'])} reports recorded in {args.write}")
        return 0
    manifest = json.loads(Path(args.compare).read_text(encoding="utf-8"))
    changed = compare(manifest["reports"], run_all(args.inputs or manifest["inputs"]))
    for line in changed:
        print(line)
    print(f"{len(changed)} of {len(manifest['reports'])} reports changed")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
