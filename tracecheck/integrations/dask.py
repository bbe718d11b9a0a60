"""Replay on a Dask cluster: the report of ``tracecheck replay``, byte for byte, with the
traces replayed on many machines (the ``dask`` extra: ``pip install '.[dask]'`` from a checkout).
It supplies another stream of report items to the same replay command
(``tracecheck.commands.replay``): the request, the writers and the totals are the same.

Replaying a trace is a pure function of the trace and the settings, so the work maps
over a Dask bag of input files: each partition (a few files) is read and replayed on a
worker, which sends back, per file, every trace's summary and report data and the
file's input warnings. The driver (this process) expands the paths as the CLI does,
then takes the files' results **in file order**, adds up the totals and writes them
with the CLI's report writers, so the report is the one ``tracecheck replay`` writes::

    from distributed import Client
    from tracecheck.commands import ReplayRequest
    from tracecheck.config import load_settings
    from tracecheck.integrations.dask import replay_on_dask

    client = Client("tcp://scheduler:8786")  # or Client() for a cluster on this machine
    with open("report.json", "wb") as out:
        replay_on_dask(ReplayRequest(["runs/"], load_settings(), format="json"), out, client=client)

Input paths are opened by the workers under the names given (the report shows those
names), so the workers must see the files at the same paths: a shared file system and
the same working directory, as a ``LocalCluster`` has. Standard input (``-``) cannot be
sent to workers. Without a client the work runs on Dask's default scheduler (a
``distributed.Client`` made earlier in this process, else local threads).

Importing ``tracecheck`` does not import this module or Dask.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, BinaryIO

from ..commands.replay import ReplayRequest, ReportItem, replay
from ..config import Settings
from ..dataclass_lite import mutable_dataclass
from ..engine.batch import replay_stream
from ..input.diagnostics import Diagnostic, Diagnostics, TracecheckError
from ..input.labels import Labels, as_labels
from ..input.selection import Selection
from ..input.sources import STDIN_NAME, Source, expand_paths
from ..readers.load import check_input_format
from ..reports.replay_report import entry_maker

PARTITIONS_PER_THREAD = 4  # enough to even out files of different sizes, few enough to keep task overhead low


@mutable_dataclass(slots=True)
class Job:
    """Everything a worker needs besides the files: sent once per partition. Settings
    and presets travel together, so that a preset that is the main settings stays the
    same object on the worker (and is not replayed twice)."""

    settings: Settings
    input_format: str | None = None
    tokenizers: tuple[str, ...] = ()
    presets: Mapping[str, Settings] | None = None
    labels: Labels | None = None
    format: str = "json"  # the report's: HTML asks for each trace round by round
    selection: Selection | None = None  # -k: the traces it leaves out are not replayed


@mutable_dataclass(slots=True)
class FileResult:
    """One input file replayed on a worker."""

    name: str
    items: list[ReportItem]  # per trace: report data, totals entry, fired (report_entry)
    diagnostics: list[Diagnostic]
    matched: list[set[str]] | None  # per labels entry: the files of the traces it labelled
    deselected: list[str]  # the ids of the traces -k left out


class _WorkerLabels(Labels):
    """The labels on a worker: applied to each trace, but the warnings about entries
    that matched nothing wait for the driver, which has seen every file."""

    def finish(self, diagnostics: Diagnostics) -> None:
        pass


def replay_files(names: Sequence[str], job: Job) -> list[FileResult]:
    """Replay the traces of each named file (run on a worker; a pure function)."""
    labels = None
    if job.labels is not None:  # entries of its own: what they match here is this call's
        labels = _WorkerLabels(job.labels.file, [dataclasses.replace(e, matched=set()) for e in job.labels.entries])
    results = []
    for name in names:
        diagnostics = Diagnostics()
        items = list(
            replay_stream(
                [Source(name)],
                job.settings,
                input_format=job.input_format,
                tokenizers=job.tokenizers,
                diagnostics=diagnostics,
                presets=job.presets,
                labels=labels,
                prepare=entry_maker(job.format),
                selection=job.selection,
            )
        )
        matched = None
        if labels is not None:
            matched = [e.matched for e in labels.entries]
            for entry in labels.entries:
                entry.matched = set()
        results.append(FileResult(name, items, list(diagnostics), matched, diagnostics.deselected))
    return results


def _replay_partition(names: list[str], job: Job) -> list[FileResult]:
    return replay_files(list(names), job)


def replay_results(
    paths: Sequence[str | Source],
    job: Job,
    *,
    client: Any = None,
    files_per_partition: int | None = None,
    diagnostics: Diagnostics | None = None,
) -> Iterator[FileResult]:
    """Every input file's result, in the CLI's file order, replayed over a Dask bag.
    Warnings about the paths themselves go to ``diagnostics`` at once; each file's own
    warnings come with its result. By default the files are split into about four
    partitions per worker thread (``client``'s, else this machine's cores)."""
    import dask
    import dask.bag

    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sources = expand_paths(list(paths), diagnostics)
    if any(s.name == STDIN_NAME for s in sources):
        raise TracecheckError("standard input ('-') cannot be replayed on a cluster: write it to a file the workers can read")
    names = [s.name for s in sources]
    if not names:
        return
    if files_per_partition is None:
        threads = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
        files_per_partition = -(-len(names) // (PARTITIONS_PER_THREAD * max(1, threads)))
    bag = dask.bag.from_sequence(names, partition_size=max(1, files_per_partition))
    parts = bag.map_partitions(_replay_partition, job).to_delayed()
    if client is not None:
        futures = client.compute(parts)
        for future in futures:
            yield from future.result()
            future.release()  # the cluster forgets a partition once it is written
    else:
        yield from (result for part in dask.compute(*parts) for result in part)


def dask_items(client: Any = None, files_per_partition: int | None = None):
    """The replay command's items (``commands.replay.ItemSource``) replayed on a Dask
    cluster (``client``, else Dask's default scheduler): the same items, in the same
    order, the same warnings in the diagnostics. ``files_per_partition`` files make one
    task (by default about four tasks per worker thread). The byte progress of a local
    replay is not followed: the files are read on the workers."""

    def items(request: ReplayRequest, diagnostics: Diagnostics, on_file=None, on_progress=None) -> Iterator[ReportItem]:
        check_input_format(request.input_format)
        sidecar = as_labels(request.labels)
        job = Job(request.settings, request.input_format, tuple(request.tokenizers), request.presets, sidecar, request.format, request.selection)
        sources = expand_paths(list(request.paths), diagnostics)
        results = replay_results(sources, job, client=client, files_per_partition=files_per_partition, diagnostics=diagnostics)
        for number, result in enumerate(results, 1):
            if on_file is not None:
                on_file(number, len(sources), result.name)
            diagnostics.items.extend(result.diagnostics)
            diagnostics.deselected.extend(result.deselected)
            if sidecar is not None:
                for entry, matched in zip(sidecar.entries, result.matched):
                    entry.matched |= matched
            yield from result.items
        if sidecar is not None:
            sidecar.finish(diagnostics)

    return items


def replay_on_dask(
    request: ReplayRequest,
    out: BinaryIO,
    *,
    client: Any = None,
    files_per_partition: int | None = None,
    diagnostics: Diagnostics | None = None,
    on_file: Callable[[int, int, str], Any] | None = None,
) -> int:
    """``tracecheck.commands.replay`` with the replay on a Dask cluster (``client``, else
    Dask's default scheduler): the same request, the same bytes written, the same
    warnings in ``diagnostics``, the same count of traces returned (0, with nothing
    written, when there were none). ``request.jobs`` is the local replay's: here the
    cluster's workers share the files."""
    return replay(request, out, diagnostics=diagnostics, on_file=on_file, items=dask_items(client, files_per_partition))
