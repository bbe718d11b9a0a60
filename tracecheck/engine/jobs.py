"""``--jobs N``: replaying input files in worker processes, with the output of one.

Any command that reads files can use it: its per-file work is an object with
``items(source, diagnostics)`` (what one file gives, in order) and ``labels`` (a
``Labels`` or None), picklable, run by ``items_in_order``.

Each input file is one task: a worker reads it, replays its traces and sends back, in
one message, what the file gave (each item as ``FileReplayer.prepare`` made it), the
warnings it raised and the labels entries its traces matched. The parent takes the
files back in input order, so items, warnings and labels are exactly what one process
gives, in the same order. At most ``FILES_AHEAD × jobs`` tasks are in flight: memory
grows with the report items of that many, not with the input. Standard input is read by the
parent, in its place in the order.

A large JSON Lines file is cut into parts, ``PARTS_PER_JOB × jobs`` of them at most
(a worker whose ``items`` has a ``part_items`` beside it: replay's): where its format
allows a cut (``readers.load.plan_parts``), each part a task that seeks to its first
byte and reads its lines only, numbered as lines of the whole file. The parent takes
a cut file's parts back in order, checks that its cuts held (``readers.load.seams_hold``:
no trace across a cut, ids as the whole file names them) and passes their warnings
through its own ``Diagnostics`` in order, where the per-file cap counts the whole
file; from a cut that did not hold on, it reads the file itself (see ``_cut_file``),
so the report is the one a single process writes either way.

Workers start by ``fork`` where the platform has it, else by ``spawn`` (the settings
are pickled to each worker once). When no worker process can be started the files are
replayed in this process, with a note on standard error.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..input.diagnostics import AllWarnings, Diagnostic, Diagnostics, pass_on
from ..input.sources import STDIN_NAME, Source, Span
from ..readers.load import Seam, plan_parts, seams_hold

_replayer: Any = None  # the worker's FileReplayer, set once by _start

# Files handed to workers ahead of the one being written, per job. With 2 per job, one
# large file stalled the other workers once they had finished the few small files after
# it; report items are small next to their input, so looking further ahead costs little.
FILES_AHEAD = 8

# Parts a large file is cut into, per job: more than one, so that a worker that gets
# the slow parts does not keep the others waiting at the end of the file.
PARTS_PER_JOB = 4


def _start(replayer: Any) -> None:
    global _replayer
    _replayer = replayer
    gc.freeze()  # what the worker inherited is not garbage: no collection scans it


def _replay_file(source: Source) -> tuple[list[Any], list[Diagnostic], list[tuple[int, str]], list[str]]:
    """In a worker: one file's items, warnings, labels matches (entry index, file) and the
    ids of the traces ``-k`` left out."""
    diagnostics = Diagnostics()
    items = list(_replayer.items(source, diagnostics))
    return items, diagnostics.items, _matched(), diagnostics.deselected


def _replay_part(
    source: Source, reader: str, span: Span, last: bool
) -> tuple[list[Any], list[Diagnostic], list[bool], list[tuple[int, str]], list[str], Seam]:
    """In a worker: one part's items, its warnings (every one, with its ``always``
    flag), labels matches, ``-k``'s left-out ids and what it tells of its cuts."""
    diagnostics = AllWarnings()
    seam = Seam()
    gc.disable()  # the items kept for the message would be scanned again and again
    try:
        items = list(_replayer.part_items(source, reader, span, last, diagnostics, seam))
    finally:
        gc.enable()
    return items, diagnostics.items, diagnostics.always, _matched(), diagnostics.deselected, seam


def _matched() -> list[tuple[int, str]]:
    """The labels entries the worker's last task matched (entry index, file), forgotten
    for the next task."""
    matched: list[tuple[int, str]] = []
    labels = _replayer.labels
    if labels is not None:
        for index, entry in enumerate(labels.entries):
            matched.extend((index, file) for file in sorted(entry.matched))
            entry.matched.clear()
    return matched


def file_parts(replayer: Any, source: Source, jobs: int) -> tuple[str, list[Span]] | None:
    """How a file is cut for ``jobs`` workers (None: it is not), see ``plan_parts``."""
    if not hasattr(replayer, "part_items") or source.name == STDIN_NAME:
        return None
    return plan_parts(source, replayer.input_format, PARTS_PER_JOB * jobs)


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else "spawn")


def replay_in_workers(
    replayer: Any,
    sources: Sequence[Source],
    diagnostics: Diagnostics,
    on_file: Callable[[int, int, str], Any] | None,
    jobs: int,
) -> Iterator[Any]:
    """``replayer``'s items of every source in order, the files (and the parts of a large
    one) replayed by ``jobs`` processes."""
    plans: dict[int, tuple[str, list[Span]] | None] = {}
    if len(sources) == 1:
        plans[0] = file_parts(replayer, sources[0], jobs)
        if plans[0] is None:  # one file, not cut: nothing to share
            yield from _in_this_process(replayer, sources, diagnostics, on_file)
            return
    if hasattr(replayer, "guards"):
        replayer.guards(replayer.settings)  # the guards' modules imported once, before the workers fork
    try:
        workers = min(jobs, max(len(sources), len(plans[0][1]) if plans else 1))
        pool = _context().Pool(workers, initializer=_start, initargs=(replayer,))
    except (OSError, ValueError, ImportError) as exc:  # no processes here (a sandbox, no /dev/shm)
        print(f"note: --jobs: cannot start worker processes ({exc}); replaying in one process", file=sys.stderr)
        yield from _in_this_process(replayer, sources, diagnostics, on_file)
        return
    try:
        # (source, tasks: one per part of a cut file, None for standard input, else one)
        pending: deque[tuple[Source, list[Any] | None, bool]] = deque()
        ahead = iter(enumerate(sources))
        in_flight = 0

        def submit() -> None:
            nonlocal in_flight
            for position, source in ahead:
                if source.name == STDIN_NAME:
                    pending.append((source, None, False))
                    in_flight += 1
                else:
                    plan = plans.pop(position) if position in plans else file_parts(replayer, source, jobs)
                    if plan is None:
                        tasks = [pool.apply_async(_replay_file, (Source(source.name, source.members),))]
                    else:
                        reader, spans = plan
                        tasks = [
                            pool.apply_async(_replay_part, (Source(source.name), reader, span, k == len(spans) - 1))
                            for k, span in enumerate(spans)
                        ]
                    pending.append((source, tasks, plan is not None))
                    in_flight += len(tasks)
                if in_flight >= FILES_AHEAD * jobs:
                    return

        submit()
        number = 0
        while pending:
            source, tasks, cut = pending.popleft()
            number += 1
            if on_file is not None:
                on_file(number, len(sources), source.name)
            if tasks is None:  # standard input: this process reads it, in its turn
                in_flight -= 1
                yield from replayer.items(source, diagnostics)
                submit()
                continue
            if not cut:
                items, warnings, matched, deselected = tasks[0].get()
                in_flight -= 1
                submit()
                diagnostics.items.extend(warnings)
                _merge(replayer, diagnostics, matched, deselected)
                yield from items
                continue

            def part_done() -> None:
                nonlocal in_flight
                in_flight -= 1
                submit()

            yield from _cut_file(replayer, source, tasks, diagnostics, part_done)
    finally:
        pool.terminate()
        pool.join()


def _cut_file(replayer: Any, source: Source, tasks: list[Any], diagnostics: Diagnostics, part_done: Callable[[], Any]) -> Iterator[Any]:
    """The items of a cut file from its parts' results, in order. A part is given on
    (its items yielded, its warnings passed through ``diagnostics``) once it and the
    parts before it hold together (``seams_hold``) and hold two traces or more: no later
    part can change what it gave. From the first part that does not hold, this process
    reads the file whole, without replaying the traces given on already, and passes on
    only the warnings after theirs."""
    seams: list[Seam] = []
    waiting: list[tuple] = []  # parts that hold, not given on yet (fewer than two traces so far)
    traces = warned = 0  # given on so far
    whole = False
    for task in tasks:
        result = task.get()
        part_done()
        if whole:
            continue  # already reading the file whole; a later part is not needed
        seams.append(result[-1])
        if not seams_hold(seams, final=False):
            whole = True
            continue
        waiting.append(result)
        if sum(len(seam.read) for seam in seams) >= 2:
            for items, warnings, always, matched, deselected, seam in waiting:
                pass_on(warnings, always, diagnostics)
                _merge(replayer, diagnostics, matched, deselected)
                traces += len(seam.read)
                warned += len(warnings)
                yield from items
            waiting.clear()
    if not whole and not waiting:
        return
    # A cut did not hold (or the file holds fewer than two traces): the rest read whole.
    scratch = AllWarnings()
    yield from replayer.items(source, scratch, skip=traces)
    pass_on(scratch.items[warned:], scratch.always[warned:], diagnostics)
    diagnostics.deselected.extend(scratch.deselected)


def _merge(replayer: Any, diagnostics: Diagnostics, matched: list[tuple[int, str]], deselected: list[str]) -> None:
    diagnostics.deselected.extend(deselected)
    if replayer.labels is not None:
        for index, file in matched:
            replayer.labels.entries[index].matched.add(file)


def _in_this_process(
    replayer: Any, sources: Sequence[Source], diagnostics: Diagnostics, on_file: Callable[[int, int, str], Any] | None
) -> Iterator[Any]:
    for number, source in enumerate(sources, 1):
        if on_file is not None:
            on_file(number, len(sources), source.name)
        yield from replayer.items(source, diagnostics)


def items_in_order(
    worker: Any,
    sources: Sequence[Source],
    diagnostics: Diagnostics,
    jobs: int = 1,
    on_file: Callable[[int, int, str], Any] | None = None,
) -> Iterator[Any]:
    """``worker.items`` of every source in input order: in this process, or with ``jobs``
    above 1 (and more than one file) in that many processes; the items and warnings are
    the same either way."""
    if jobs > 1 and len(sources) > 1:
        yield from replay_in_workers(worker, sources, diagnostics, on_file, jobs)
        return
    yield from _in_this_process(worker, sources, diagnostics, on_file)


def default_jobs() -> int:
    """The processors this process may use (for ``--jobs 0``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
