"""Sidecar labels: outcomes, free labels and expectations for traces in any format,
kept in a file beside them instead of in the traces (``--labels FILE``).

Two forms, chosen by the file's first non-blank character (``{`` is JSON, else CSV):

JSON (``tracecheck schema labels``)::

    {"version": 1,
     "traces": [
       {"trace": "task-001", "file": "batch_output.jsonl", "outcome": "failure",
        "labels": {"loop": "search"},
        "expect": [{"guard": "policy", "fires": true, "by_round": 4, "note": "stop the loop"}]},
       {"trace": "task-002", "kind": "loop", "stop_by": 8, "why": "the same empty search 3 times"}]}

CSV, one row per trace (blank cells say nothing)::

    trace,file,outcome,label.loop,expect.policy,expect.policy.by_round,expect.policy.note
    task-001,batch_output.jsonl,failure,search,fires,4,stop the loop

An entry names its trace by ``trace`` (the id reports show) and, when ids repeat across
files, by ``file`` too: a path that ends the trace's file path, whole components
(``batch_output.jsonl`` matches ``runs/batch_output.jsonl``). Ids are not qualified as
``file:id`` because ids themselves hold colons (``finetune.jsonl:9e0d1292216f``). When several
entries match a trace, the one with the longest ``file`` is used, alone.

A hand label for benchmarks (``tracecheck sweep --labels``, ``engine/scoring.py``):
``kind`` (loop: a no-progress stretch to stop, by round ``stop_by``, never recovered
from; healthy: none; mixed: a stall to flag, by round ``fire_by`` — a hint is enough —
that the run then recovers from, so a stop there is a false positive; ``stop_by`` on a
mixed run names a later terminal loop) and ``why``. They land on the trace as labels of
the same names (``stop_by`` and ``fire_by`` as digits), so reports show them.

What wins: the sidecar. Its outcome and labels replace the trace's labels of the same
name (others stay); its expectations replace the trace's expectations about the same
guard key (as written, any case) and add the rest.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
from collections.abc import Iterable
from dataclasses import field
from typing import Any, BinaryIO

from ..dataclass_lite import mutable_dataclass
from ..model import OUTCOMES, Expectation, Trace
from .diagnostics import Diagnostics, TracecheckError
from .sources import display_name

VERSION = 1
ENTRY_KEYS = ("trace", "file", "outcome", "kind", "stop_by", "fire_by", "why", "labels", "expect")
KINDS = ("loop", "healthy", "mixed")
# The hand label's own fields: a free label may not take their names (it would be
# overwritten, or read back as a kind it was not written as).
KIND_FIELDS = ("kind", "stop_by", "fire_by", "why")
EXPECT_KEYS = ("guard", "fires", "by_round", "note")
FIRES_WORDS = {"fires": True, "yes": True, "true": True, "quiet": False, "no": False, "false": False}
FORMATS = ("json", "csv")


_PLACE_ID = re.compile(r":\d+(?:#\d+)?$")


def stale_id_note(trace_id: str, rewrite: str) -> str:
    """What to add when a labels or baseline entry names an id no trace has: an id made of
    a line number may be one read before ids were made from content. ``rewrite``: the
    command that writes the current ids."""
    if not _PLACE_ID.search(trace_id):
        return ""
    return (
        f"; {trace_id!r} looks like a line-based id: a trace without an id of its own, in a file that holds several, "
        f"is now named by its content ('<file>:<12 hex digits>'), not its line; '{rewrite}' writes the current ids"
    )


@mutable_dataclass(slots=True)
class LabelEntry:
    """What the sidecar says about one trace."""

    trace: str
    file: str | None = None
    outcome: str | None = None
    kind: str | None = None  # loop | healthy | mixed (see the module's docstring)
    stop_by: int | None = None
    fire_by: int | None = None
    why: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    expectations: list[Expectation] = field(default_factory=list)
    line: int | None = None  # where the entry starts in the labels file
    matched: set[str] = field(default_factory=set)  # files of the traces it was applied to
    origin: str = ""  # in a template: the file of the trace it was made from

    @property
    def parts(self) -> tuple[str, ...]:
        return _path_parts(self.file) if self.file else ()

    def describe(self) -> str:
        return repr(self.trace) + (f" (file {self.file!r})" if self.file else "")


def _path_parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.replace("\\", "/").split("/") if p not in ("", "."))


@mutable_dataclass
class Labels:
    """A loaded labels file: ``apply`` each trace as it is read, then ``finish``."""

    file: str
    entries: list[LabelEntry]

    def __post_init__(self) -> None:
        self._by_id: dict[str, list[LabelEntry]] = {}
        for entry in self.entries:
            self._by_id.setdefault(entry.trace, []).append(entry)

    def entry_for(self, trace: Trace) -> LabelEntry | None:
        """The most specific entry matching ``trace`` (longest ``file``), if any."""
        parts = _path_parts(trace.file)
        found = [e for e in self._by_id.get(trace.id, ()) if not e.parts or parts[-len(e.parts):] == e.parts]
        return max(found, key=lambda e: len(e.parts), default=None)

    def apply(self, trace: Trace) -> Trace:
        """Put the sidecar's outcome, labels and expectations on ``trace`` (in place)."""
        entry = self.entry_for(trace)
        if entry is None:
            return trace
        entry.matched.add(trace.file)
        trace.labels.update(entry.labels)
        if entry.outcome is not None:
            trace.labels["outcome"] = entry.outcome
        if entry.kind is not None:
            # A new kind replaces the whole hand label: no stale stop_by from the trace's own.
            for name in KIND_FIELDS:
                trace.labels.pop(name, None)
            trace.labels.update(kind_labels(entry))
        if entry.expectations:
            replaced = {e.guard.lower() for e in entry.expectations}
            kept = [e for e in trace.expectations if e.guard.lower() not in replaced]
            trace.expectations = kept + [Expectation(e.guard, e.fires, e.by_round, e.note) for e in entry.expectations]
        return trace

    def finish(self, diagnostics: Diagnostics) -> None:
        """Warn about entries that matched no trace, and about entries without a ``file``
        that matched traces in several files (each got the labels)."""
        for entry in self.entries:
            if not entry.matched:
                note = stale_id_note(entry.trace, "tracecheck label")
                diagnostics.warn(self.file, entry.line, f"no trace matches the labels of {entry.describe()}{note}")
            elif len(entry.matched) > 1 and not entry.file:
                diagnostics.warn(
                    self.file,
                    entry.line,
                    f"the labels of {entry.describe()} went to traces in {len(entry.matched)} files; give a 'file' to choose one",
                )


def as_labels(value: Labels | str | os.PathLike | None) -> Labels | None:
    """A ``Labels`` as it is, a path loaded, ``None`` as it is."""
    if value is None or isinstance(value, Labels):
        return value
    return load_labels(value)


# ---------------------------------------------------------------- reading


class _Problem(Exception):
    def __init__(self, line: int | None, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def load_labels(path: str | os.PathLike) -> Labels:
    """Read and check a labels file (JSON or CSV). Any problem is a ``TracecheckError``
    naming the file, the line and the reason (exit code 2)."""
    from .side_files import check_parsable, decode_side_file, read_side_file

    name = os.fspath(path)
    shown = display_name(name)
    data = read_side_file(name, "labels file")
    try:
        text = decode_side_file(data, shown, "labels file")
        is_json = text.lstrip().startswith("{")
        if is_json:
            check_parsable(text, shown)  # the JSON parser recurses per level and converts any integer
        entries = _read_json(text) if is_json else _read_csv(text)
        _check_unique(entries)
    except _Problem as problem:
        where = shown if problem.line is None else f"{shown}:{problem.line}"
        raise TracecheckError(f"{where}: {problem.reason}") from None
    return Labels(shown, entries)


def _check_unique(entries: list[LabelEntry]) -> None:
    seen: dict[tuple[str, tuple[str, ...]], LabelEntry] = {}
    for entry in entries:
        first = seen.setdefault((entry.trace, entry.parts), entry)
        if first is not entry:
            raise _Problem(entry.line, f"{entry.describe()} is labelled twice (first at line {first.line})")


def _outcome(value: Any, line: int | None) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.strip().lower() not in OUTCOMES:
        raise _Problem(line, f"outcome {value!r} is not one of {', '.join(OUTCOMES)} (or blank)")
    return value.strip().lower()


def _by_round(value: Any, line: int | None, where: str, text: bool = False) -> int | None:
    """A positive round number, or None; ``text`` (a CSV cell) may hold its digits."""
    if value is None or value == "":
        return None
    if text and isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) < 10:
        value = int(value.strip())  # ASCII digits only: isdigit() alone takes '²
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _Problem(line, f"{where} {value!r} is not a positive round number")
    return value


def _label_name(name: Any, line: int | None) -> str:
    if not isinstance(name, str) or not name.strip():
        raise _Problem(line, "a label needs a name")
    if name.strip() == "outcome":
        raise _Problem(line, "give the outcome in its own 'outcome' field, not as a label")
    if name.strip() in KIND_FIELDS:
        raise _Problem(line, f"give {name.strip()!r} in its own field, not as a label")
    return name.strip()


def kind_labels(entry: LabelEntry) -> dict[str, str]:
    """The hand label as the trace's labels (only what is set)."""
    out = {"kind": entry.kind} if entry.kind else {}
    if entry.stop_by is not None:
        out["stop_by"] = str(entry.stop_by)
    if entry.fire_by is not None:
        out["fire_by"] = str(entry.fire_by)
    if entry.why:
        out["why"] = entry.why
    return out


def _set_kind(entry: LabelEntry, kind: Any, stop_by: Any, fire_by: Any, why: Any, line: int | None, text: bool = False) -> None:
    """Check and set the hand label (``text``: CSV cells)."""
    if kind is not None and kind != "" and (not isinstance(kind, str) or kind.strip().lower() not in KINDS):
        raise _Problem(line, f"kind {kind!r} is not one of {', '.join(KINDS)} (or blank)")
    entry.kind = kind.strip().lower() if kind else None
    entry.stop_by = _by_round(stop_by, line, "'stop_by'", text)
    entry.fire_by = _by_round(fire_by, line, "'fire_by'", text)
    if why is not None and not isinstance(why, str):
        raise _Problem(line, "'why' must be a string")
    entry.why = why or None
    if entry.kind is None:
        if entry.stop_by is not None or entry.fire_by is not None or entry.why:
            raise _Problem(line, "stop_by, fire_by and why describe a kind: give 'kind' (loop, healthy or mixed)")
        return
    if entry.kind == "loop" and entry.stop_by is None:
        raise _Problem(line, "a loop needs 'stop_by': the round it should be stopped by")
    if entry.kind == "healthy" and entry.stop_by is not None:
        raise _Problem(line, "a healthy run has no 'stop_by' (a run with a loop is a loop or mixed)")
    if entry.fire_by is not None and entry.kind != "mixed":
        raise _Problem(line, "'fire_by' is the round a mixed run's stall should be flagged by: only for kind mixed")


# JSON


def _positioned_loads(text: str) -> tuple[Any, dict[int, int]]:
    """``json.loads`` that also remembers where each object starts (id → line)."""
    import json.scanner  # here, as json in this module's other functions: only a labels file needs it (start-up)

    starts: dict[int, int] = {}
    decoder = json.JSONDecoder()
    parse_object = decoder.parse_object

    def remember(state, *args):
        value, end = parse_object(state, *args)
        starts[id(value)] = text.count("\n", 0, state[1]) + 1
        return value, end

    decoder.parse_object = remember
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    try:
        return decoder.decode(text), starts
    except json.JSONDecodeError as exc:
        raise _Problem(exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None


def _read_json(text: str) -> list[LabelEntry]:
    document, starts = _positioned_loads(text)
    if set(document) - {"version", "traces"}:
        raise _Problem(1, f"unknown field(s) {sorted(set(document) - {'version', 'traces'})}; a labels file has 'version' and 'traces'")
    if document.get("version") != VERSION:
        raise _Problem(1, f"'version' must be {VERSION}")
    traces = document.get("traces")
    if not isinstance(traces, list):
        raise _Problem(1, "'traces' must be a list of entries")
    if not all(isinstance(item, dict) for item in traces):
        starts.update(_element_lines(text, traces))
    return [_json_entry(item, starts.get(id(item)), number, starts) for number, item in enumerate(traces)]


def _element_lines(text: str, traces: list) -> dict[int, int]:
    """The line of each element of the 'traces' array, keyed -1 - index (objects are
    placed by id as they are parsed; a number or a string has no identity of its own)."""
    import json

    decoder = json.JSONDecoder()
    found = re.search(r'"traces"\s*:\s*\[', text)
    lines: dict[int, int] = {}
    if found is None:
        return lines
    position = found.end()
    for index in range(len(traces)):
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        lines[-1 - index] = text.count("\n", 0, position) + 1
        try:
            _, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            break
    return lines


def _json_entry(item: Any, line: int | None, number: int, starts: dict[int, int]) -> LabelEntry:
    if not isinstance(item, dict):
        raise _Problem(line if line is not None else starts.get(-1 - number), f"traces[{number}] must be an object")
    unknown = [k for k in item if k not in ENTRY_KEYS]
    if unknown:
        raise _Problem(line, f"unknown field {unknown[0]!r} in traces[{number}]; fields: {', '.join(ENTRY_KEYS)}")
    trace = item.get("trace")
    if isinstance(trace, int) and not isinstance(trace, bool):
        trace = str(trace)
    if not isinstance(trace, str) or not trace:
        raise _Problem(line, f"traces[{number}] needs a 'trace' id")
    file = item.get("file")
    if file is not None and (not isinstance(file, str) or not _path_parts(file)):
        raise _Problem(line, f"'file' of traces[{number}] must be a path")
    labels = item.get("labels") or {}
    if not isinstance(labels, dict):
        raise _Problem(line, f"'labels' of traces[{number}] must be an object of names to texts")
    entry = LabelEntry(trace=trace, file=file, outcome=_outcome(item.get("outcome"), line), line=line)
    _set_kind(entry, item.get("kind"), item.get("stop_by"), item.get("fire_by"), item.get("why"), line)
    for key, value in labels.items():
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise _Problem(line, f"label {key!r} of traces[{number}] must be a string or a number")
        entry.labels[_label_name(key, line)] = str(value)
    expect = item.get("expect") or []
    if not isinstance(expect, list):
        raise _Problem(line, f"'expect' of traces[{number}] must be a list")
    for spec in expect:
        entry.expectations.append(_json_expectation(spec, starts.get(id(spec), line)))
    return entry


def _json_expectation(spec: Any, line: int | None) -> Expectation:
    if not isinstance(spec, dict):
        raise _Problem(line, "an expectation must be an object")
    unknown = [k for k in spec if k not in EXPECT_KEYS]
    if unknown:
        raise _Problem(line, f"unknown field {unknown[0]!r} in an expectation; fields: {', '.join(EXPECT_KEYS)}")
    guard, fires, note = spec.get("guard"), spec.get("fires", True), spec.get("note")
    if not isinstance(guard, str) or not guard.strip():
        raise _Problem(line, "an expectation needs a 'guard' (a code, a name, or 'policy')")
    if not isinstance(fires, bool):
        raise _Problem(line, f"'fires' must be true or false, not {fires!r}")
    if note is not None and not isinstance(note, str):
        raise _Problem(line, "'note' must be a string")
    return _expectation(guard.strip(), fires, _by_round(spec.get("by_round"), line, "'by_round'"), note, line)


def _expectation(guard: str, fires: bool, by_round: int | None, note: str | None, line: int | None) -> Expectation:
    if by_round is not None and not fires:
        raise _Problem(line, f"by_round {by_round} with 'quiet' for {guard!r}: a round applies only when the guard should fire")
    return Expectation(guard=guard, fires=fires, by_round=by_round, note=note or None)


# CSV


def _csv_columns(header: list[str]) -> list[tuple[str, str]]:
    """Each column as (kind, name): ('trace', ''), ('label', 'loop'), ('fires', 'policy'),
    ('by_round', 'policy'), ('note', 'policy'), ..."""
    columns: list[tuple[str, str]] = []
    for title in (h.strip() for h in header):
        head, _, rest = title.partition(".")
        if title in ("trace", "file", "outcome", *KIND_FIELDS):
            column = (title, "")
        elif head == "label" and rest:
            column = ("label", _label_name(rest, 1))
        elif head == "expect" and rest:
            guard, _, part = rest.rpartition(".") if rest.endswith((".by_round", ".note")) else (rest, "", "fires")
            if not guard.strip():
                raise _Problem(1, f"column {title!r} needs a guard: expect.GUARD")
            column = (part, guard.strip())
        else:
            raise _Problem(
                1,
                f"unknown column {title!r}; columns: trace, file, outcome, kind, stop_by, fire_by, why, label.NAME, "
                "expect.GUARD, expect.GUARD.by_round, expect.GUARD.note (GUARD: a code, a name or 'policy')",
            )
        if column in columns:
            raise _Problem(1, f"column {title!r} appears twice")
        columns.append(column)
    if ("trace", "") not in columns:
        raise _Problem(1, "the first row must name the columns, one of them 'trace'")
    return columns


def _read_csv(text: str) -> list[LabelEntry]:
    import csv  # here, as in the writer: only a CSV labels file needs it (start-up)

    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise _Problem(None, "empty labels file")
        columns = _csv_columns(header)
        entries = []
        line = reader.line_num + 1
        for row in reader:
            if any(cell.strip() for cell in row):
                entries.append(_csv_entry(columns, row, line))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise _Problem(reader.line_num, f"not valid CSV: {exc}") from None
    return entries


def _csv_entry(columns: list[tuple[str, str]], row: list[str], line: int) -> LabelEntry:
    if len(row) > len(columns):
        raise _Problem(line, f"{len(row)} cells but {len(columns)} columns")
    cells = {column: _from_csv_cell(cell.strip()) for column, cell in zip(columns, row)}
    if not cells.get(("trace", "")):
        raise _Problem(line, "a row needs a 'trace' id")
    entry = LabelEntry(
        trace=cells[("trace", "")],
        file=cells.get(("file", "")) or None,
        outcome=_outcome(cells.get(("outcome", "")), line),
        line=line,
    )
    kind = [cells.get((name, "")) or None for name in KIND_FIELDS]
    _set_kind(entry, *kind, line, text=True)
    entry.labels = {name: value for (kind, name), value in cells.items() if kind == "label" and value}
    for guard in dict.fromkeys(name for kind, name in columns if kind in ("fires", "by_round", "note")):
        word = cells.get(("fires", guard), "")
        by_round = _by_round(cells.get(("by_round", guard)), line, f"expect.{guard}.by_round", text=True)
        note = cells.get(("note", guard), "")
        if not word and by_round is None:
            if note:
                raise _Problem(line, f"expect.{guard}.note without an expectation (write 'fires' or 'quiet' in expect.{guard})")
            continue
        if word and word.lower() not in FIRES_WORDS:
            raise _Problem(line, f"expect.{guard} {word!r} is not 'fires' or 'quiet' (or blank)")
        fires = FIRES_WORDS[word.lower()] if word else True  # a round alone means it fires by then
        entry.expectations.append(_expectation(guard, fires, by_round, note, line))
    return entry


# ---------------------------------------------------------------- writing a template


def template_entries(traces: Iterable[Trace], diagnostics: Diagnostics | None = None) -> list[LabelEntry]:
    """One entry per trace, holding what its reader found (outcome, labels, expectations).
    ``file`` is set only where the id is used in more than one file, as the shortest
    ending of the path that tells them apart."""
    entries: dict[tuple[str, str], LabelEntry] = {}
    files: dict[str, set[str]] = {}
    for trace in traces:
        key = (trace.id, trace.file)
        if key in entries:
            if diagnostics is not None:
                diagnostics.warn(trace.file, trace.line, f"trace {trace.id!r} appears again in this file; one labels entry covers both")
            continue
        labels = dict(trace.labels)
        outcome = labels.pop("outcome", None)
        entry = LabelEntry(trace.id, trace.file, None, labels=labels, expectations=list(trace.expectations), line=trace.line, origin=trace.file)
        entry.outcome = _loadable_outcome(outcome, trace, diagnostics)
        _kind_from_labels(entry)
        _keep_loadable(entry, trace, diagnostics)
        entries[key] = entry
        files.setdefault(trace.id, set()).add(trace.file)
    for entry in entries.values():
        entry.file = _shortest_qualifier(entry.file, files[entry.trace])
    return list(entries.values())


def _left_out(trace: Trace, diagnostics: Diagnostics | None, what: str) -> None:
    if diagnostics is not None:
        diagnostics.warn(trace.file, trace.line, f"trace {trace.id!r}: {what} left out of the labels file (a labels file cannot hold it)")


def _loadable_outcome(outcome: Any, trace: Trace, diagnostics: Diagnostics | None) -> str | None:
    """The trace's outcome as a labels file can hold it; one the loader would refuse (a
    reader warned about it and kept it) is left out, with a warning."""
    try:
        return _outcome(outcome, None)
    except _Problem:
        _left_out(trace, diagnostics, f"outcome {outcome!r}")
        return None


def _keep_loadable(entry: LabelEntry, trace: Trace, diagnostics: Diagnostics | None) -> None:
    """What ``tracecheck label`` writes, ``--labels`` reads back: labels and expectations
    the loader would refuse are left out (or, for a quiet expectation with a round, the
    round is), each with a warning."""
    for name in list(entry.labels):
        try:
            _label_name(name, None)
        except _Problem:
            _left_out(trace, diagnostics, f"label {name!r}")
            del entry.labels[name]
    kept = []
    for expectation in entry.expectations:
        if not expectation.fires and expectation.by_round is not None:
            _left_out(trace, diagnostics, f"round {expectation.by_round} of the quiet expectation about {expectation.guard!r}")
            expectation = dataclasses.replace(expectation, by_round=None)
        kept.append(expectation)
    entry.expectations = kept


def _kind_from_labels(entry: LabelEntry) -> None:
    """Move a hand label the trace carries as labels into the entry's own fields; one
    that does not check out stays in ``labels``, where loading the file names it."""
    fields = {name: entry.labels.get(name) for name in KIND_FIELDS}
    if not any(fields.values()):
        return
    trial = LabelEntry(entry.trace)
    try:
        _set_kind(trial, fields["kind"], fields["stop_by"], fields["fire_by"], fields["why"], None, text=True)
    except _Problem:
        return
    entry.kind, entry.stop_by, entry.fire_by, entry.why = trial.kind, trial.stop_by, trial.fire_by, trial.why
    for name in KIND_FIELDS:
        entry.labels.pop(name, None)


def _shortest_qualifier(file: str, files: set[str]) -> str | None:
    """No file when the id is in one file only; else the fewest last path components of
    ``file`` that no other of ``files`` ends with (the sidecar survives a move)."""
    if len(files) < 2:
        return None
    parts = _path_parts(file)
    others = [_path_parts(f) for f in files if f != file]
    for size in range(1, len(parts) + 1):
        if all(o[-size:] != parts[-size:] for o in others):
            return "/".join(parts[-size:])
    return file


def write_template(entries: list[LabelEntry], out: BinaryIO, format: str = "json", diagnostics: Diagnostics | None = None) -> None:
    """Write ``entries`` as a labels file in ``format`` ('json' or 'csv'). CSV has one set
    of columns per guard: a second expectation about the same guard is left out, with a
    warning in ``diagnostics``."""
    if format == "json":
        import json

        out.write(json.dumps({"version": VERSION, "traces": [_json_form(e) for e in entries]}, ensure_ascii=False, indent=2).encode() + b"\n")
    elif format == "csv":
        _write_csv(entries, out, diagnostics if diagnostics is not None else Diagnostics())
    else:
        raise TracecheckError(f"unknown labels format {format!r}; choose one of: {', '.join(FORMATS)}")


def _json_form(entry: LabelEntry) -> dict[str, Any]:
    form: dict[str, Any] = {"trace": entry.trace}
    if entry.file:
        form["file"] = entry.file
    form["outcome"] = entry.outcome
    if entry.kind:
        form["kind"] = entry.kind
        form.update({name: value for name, value in (("stop_by", entry.stop_by), ("fire_by", entry.fire_by), ("why", entry.why)) if value is not None})
    form["labels"] = entry.labels
    form["expect"] = [
        {"guard": e.guard, "fires": e.fires, **({"by_round": e.by_round} if e.by_round else {}), **({"note": e.note} if e.note else {})}
        for e in entry.expectations
    ]
    return form


def _write_csv(entries: list[LabelEntry], out: BinaryIO, diagnostics: Diagnostics) -> None:
    label_names = list(dict.fromkeys(name for e in entries for name in e.labels))
    guards = list(dict.fromkeys(["policy", *(x.guard for e in entries for x in e.expectations)]))
    kinds = any(e.kind for e in entries)  # the hand label's columns only when one is set
    header = ["trace", "file", "outcome", *(KIND_FIELDS if kinds else ()), *(f"label.{n}" for n in label_names)]
    for guard in guards:
        header += [f"expect.{guard}", f"expect.{guard}.by_round", f"expect.{guard}.note"]
    import csv

    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    for entry in entries:
        kind = [entry.kind or "", entry.stop_by or "", entry.fire_by or "", entry.why or ""] if kinds else []
        row = [entry.trace, entry.file or "", entry.outcome or "", *kind, *(entry.labels.get(n, "") for n in label_names)]
        by_guard: dict[str, Expectation] = {}
        for exp in entry.expectations:
            if by_guard.setdefault(exp.guard, exp) is not exp:
                diagnostics.warn(
                    entry.origin, entry.line, f"trace {entry.trace!r}: a CSV labels file holds one expectation per guard; left out a second one about {exp.guard!r} (use --format json)"
                )
        for guard in guards:
            exp = by_guard.get(guard)
            row += ["", "", ""] if exp is None else ["fires" if exp.fires else "quiet", exp.by_round or "", exp.note or ""]
        writer.writerow([_to_csv_cell(str(cell)) for cell in row])
    out.write(text.getvalue().encode())


# A spreadsheet runs a cell that starts with one of these as a formula, and trace ids and
# notes come from untrusted transcripts: such a cell is written behind a quote, which
# the spreadsheet shows as text and reading the file takes off again (OWASP's advice).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def _to_csv_cell(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA_START) else text


def _from_csv_cell(text: str) -> str:
    return text[1:] if len(text) > 1 and text[0] == "'" and text[1] in "=+-@'\t\r" else text
