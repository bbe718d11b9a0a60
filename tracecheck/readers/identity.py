"""Trace ids that survive edits of the file around the trace.

Labels, expectations from a labels file and baseline entries find their trace by its id.
Where a format gives a trace no id of its own (a conversation per line of a fine-tuning
or batch file, a group of bare responses), its reader can only name it by its place:
``<file>:<line>`` (or the file alone, for the first trace of formats that hold one run
per file as a rule). A place is no identity:
insert a conversation above and the label of the loop at line 3 silently lands on the
healthy run that now starts at line 3.

So, after a file is read (``readers/load.py``, one place for every reader):

- a trace named by its place keeps that name while it is the only trace of its file: a
  file name cannot move onto another file's trace;
- in a file holding several traces it is named ``<file>:<digest>``, 12 hex digits of a
  BLAKE2b hash of how it starts: its first user message and its first round (the text,
  and each call's name and sorted-key arguments), whitespace runs made single spaces.
  Rounds a growing log adds later, and conversations added or removed around it, leave
  the id as it was;
- two traces of one file with the same id (they start alike, or their format gave both
  the same id) are told apart by their order, ``id``, ``id#2``, ``id#3``, with a warning
  naming both lines: an entry for one follows that order.

Readers warn about a trace while they read it, by the place id; a renamed trace's
warnings are renamed with it, so that a warning names the trace as every report does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..input.diagnostics import Diagnostic
from ..model import Trace
from ..text.arguments import dump_json
from .contract import ReadContext

DIGEST_HEX = 12  # 48 bits: a file of 100,000 distinct traces collides with odds of 1 in 50,000


def content_digest(trace: Trace) -> str:
    """How the trace starts, hashed: the same on every run and platform."""
    parts = [_words(trace.user_messages[0].text) if trace.user_messages else ""]
    if trace.rounds:
        first = trace.rounds[0]
        parts.append(_words(first.text))
        parts.extend(f"{call.name}\x1e{_arguments(call)}" for call in first.tool_calls)
    elif trace.error:
        parts.append(_words(trace.error))  # a request that failed: its error is all there is
    import hashlib  # here: only runs without an id of their own need it (start-up)

    text = "\x1f".join(parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_HEX // 2).hexdigest()


def _words(text: str) -> str:
    return " ".join(text.split())


def _arguments(call) -> str:
    if call.arguments_error is None and call.arguments is not None:
        return dump_json(call.arguments, sort_keys=True)
    return _words(call.arguments_raw)


def settle_ids(traces: Iterable[Trace], ctx: ReadContext, several: bool = False) -> Iterator[Trace]:
    """The traces of one file, in order, with the ids described above. The first trace is
    held until the second arrives (or the file ends): only then is it known to be alone.
    ``several``: the traces are a part of a file known to hold several (``--jobs``), each
    named as such from the first."""
    held: Trace | None = None
    start = len(ctx.diagnostics)  # the warnings about this file's traces come after
    namer: _Namer | None = _Namer(ctx, start) if several else None
    for trace in traces:
        if held is None and namer is None:
            held = trace
            continue
        if namer is None:
            namer = _Namer(ctx, start)
            yield namer.name(held)
            held = None
        yield namer.name(trace)
    if held is not None:
        held.id_base = None
        yield held


# "trace <id>: reason", the way readers begin a warning about one trace.
_ABOUT_TRACE = re.compile(r"trace (.+?): ")


class _Namer:
    """Names the traces of a file that holds several, and renames the reader's warnings
    about a trace it renames, so that they name it as every report does."""

    def __init__(self, ctx: ReadContext, start: int) -> None:
        self.ctx = ctx
        # id -> where its first trace is in the file: "line 12", "simulations[3]", or None
        self.first_line: dict[str, str | None] = {}
        self.repeats: dict[str, int] = {}
        self.warnings = ctx.diagnostics.items
        self.scanned = start
        self.warned: dict[str, list[int]] = {}  # place id -> its warnings (their indexes)

    def name(self, trace: Trace) -> Trace:
        place = trace.id
        by_content = trace.id_base is not None
        if by_content:
            trace.id = f"{trace.id_base}:{content_digest(trace)}"
            trace.id_base = None  # settled: the handover from the reader is done
        wanted = trace.id
        if wanted in self.first_line:
            trace.id = self.next_free(wanted)
        self.first_line[trace.id] = trace.pointer or (f"line {trace.line}" if trace.line is not None else None)
        if by_content:  # a place names one trace; an id of the format's own may name several
            self.rename_warnings(place, trace.id)
        if trace.id != wanted:
            first = self.first_line[wanted]
            at = first if first is not None else "an earlier trace"
            why = "starts as the trace at" if by_content else "has the same id as the trace at"
            self.ctx.warn(
                trace.line,
                f"this trace{f' ({trace.pointer})' if trace.pointer else ''} {why} {at} ({wanted!r}): named {trace.id!r} by its order in the file, "
                "so a label or baseline entry for either follows that order",
            )
        return trace

    def next_free(self, wanted: str) -> str:
        number = self.repeats.get(wanted, 1)
        while True:
            number += 1
            candidate = f"{wanted}#{number}"
            if candidate not in self.first_line:
                self.repeats[wanted] = number
                return candidate

    def scan(self) -> None:
        for index in range(self.scanned, len(self.warnings)):
            found = _ABOUT_TRACE.match(self.warnings[index].reason)
            if found is not None:
                self.warned.setdefault(found.group(1), []).append(index)
        self.scanned = len(self.warnings)

    def rename_warnings(self, old: str, new: str) -> None:
        self.scan()
        for index in self.warned.pop(old, ()):
            item = self.warnings[index]
            reason = f"trace {new}: {item.reason[len(old) + 8:]}"
            self.warnings[index] = Diagnostic(item.file, item.line, reason)

