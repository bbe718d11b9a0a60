"""``--jobs N``: replaying input files in worker processes, with the output of one.

Any command that reads files can use it: its per-file work is an object with
``items(source, diagnostics)`` (what one file gives, in order) and ``labels`` (a
``Labels`` or None), picklable, run by ``items_in_order``.

Each input file is one task: a worker reads it, replays its traces and sends back, in
one message, what the file gave (each item as ``FileReplayer.prepare`` made it), the
warnings it raised and the labels entries its traces matched. The parent takes the
files back in input order, so items, warnings and labels are exactly what one process
gives, in the same order. At most ``FILES_AHEAD × jobs`` files are in flight: memory
grows with the report items of that many files, not with the input. Standard input is read by the
parent, in its place in the order.

Workers start by ``fork`` where the platform has it, else by ``spawn`` (the settings
are pickled to each worker once). When no worker process can be started the files are
replayed in this process, with a note on standard error.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..input.diagnostics import Diagnostic, Diagnostics
from ..input.sources import STDIN_NAME, Source

_replayer: Any = None  # the worker's FileReplayer, set once by _start

# Files handed to workers ahead of the one being written, per job. With 2 per job, one
# large file stalled the other workers once they had finished the few small files after
# it; report items are small next to their input, so looking further ahead costs little.
FILES_AHEAD = 8


def _start(replayer: Any) -> None:
    global _replayer
    _replayer = replayer


def _replay_file(source: Source) -> tuple[list[Any], list[Diagnostic], list[tuple[int, str]], list[str]]:
    """In a worker: one file's items, warnings, labels matches (entry index, file) and the
    ids of the traces ``-k`` left out."""
    diagnostics = Diagnostics()
    items = list(_replayer.items(source, diagnostics))
    matched: list[tuple[int, str]] = []
    labels = _replayer.labels
    if labels is not None:
        for index, entry in enumerate(labels.entries):
            matched.extend((index, file) for file in sorted(entry.matched))
            entry.matched.clear()
    return items, diagnostics.items, matched, diagnostics.deselected


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
    """``replayer``'s items of every source in order, the files replayed by ``jobs`` processes."""
    try:
        pool = _context().Pool(min(jobs, len(sources)), initializer=_start, initargs=(replayer,))
    except (OSError, ValueError, ImportError) as exc:  # no processes here (a sandbox, no /dev/shm)
        print(f"note: --jobs: cannot start worker processes ({exc}); replaying in one process", file=sys.stderr)
        for number, source in enumerate(sources, 1):
            if on_file is not None:
                on_file(number, len(sources), source.name)
            yield from replayer.items(source, diagnostics)
        return
    try:
        pending: deque[tuple[Source, Any]] = deque()
        ahead = iter(sources)

        def submit() -> None:
            for source in ahead:
                task = None if source.name == STDIN_NAME else pool.apply_async(_replay_file, (Source(source.name, source.members),))
                pending.append((source, task))
                if len(pending) >= FILES_AHEAD * jobs:
                    return

        submit()
        number = 0
        while pending:
            source, task = pending.popleft()
            number += 1
            if on_file is not None:
                on_file(number, len(sources), source.name)
            if task is None:  # standard input: this process reads it, in its turn
                yield from replayer.items(source, diagnostics)
                submit()
                continue
            items, warnings, matched, deselected = task.get()
            submit()
            diagnostics.items.extend(warnings)
            diagnostics.deselected.extend(deselected)
            if replayer.labels is not None:
                for index, file in matched:
                    replayer.labels.entries[index].matched.add(file)
            yield from items
    finally:
        pool.terminate()
        pool.join()


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
    for number, source in enumerate(sources, 1):
        if on_file is not None:
            on_file(number, len(sources), source.name)
        yield from worker.items(source, diagnostics)


def default_jobs() -> int:
    """The processors this process may use (for ``--jobs 0``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
