"""``tracecheck check`` and ``tracecheck baseline``: gate CI on regression traces.

``check`` reads the traces, checks their expectations and what the policy would do, and
writes the report (to standard output and to any files asked for); ``baseline_write``
records today's findings as known, ``baseline_prune`` drops the entries no finding
matches any more."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..config import Settings
from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.selection import Selection
from ..input.sources import Source
from ..reports.check_records import CheckReport
from ..reports.formats import BASELINE, CHECK


@frozen_dataclass
class CheckRequest:
    """What to check and where the report goes.

    ``paths``: the traces (``skip``: --exclude globs of a folder walk); ``baseline``: the
    known findings (a loaded ``engine.check.Baseline``); ``fail_on``: new or any;
    ``max_wasted_rounds`` / ``max_wasted_tokens``: fail when the policy would have saved
    more on a trace. ``format`` is the report on standard output (``quiet``: only the
    failing findings; ``statistics``: a table per rule), ``outputs`` (format, file) the
    files written besides; ``github_summary`` appends the Markdown report to
    ``$GITHUB_STEP_SUMMARY``. ``also_read``: files the check reads besides the traces
    (labels, baseline, config), which no output may replace."""

    paths: Sequence[str | Source]
    settings: Settings
    input_format: str | None = None
    labels: Any = None
    baseline: Any = None
    fail_on: str = "new"
    max_wasted_rounds: int | None = None
    max_wasted_tokens: int | None = None
    jobs: int = 1
    selection: Selection | None = None
    skip: Sequence[str] = ()
    format: str = "full"
    outputs: Sequence[tuple[str, str]] = ()
    quiet: bool = False
    statistics: bool = False
    allow_empty: bool = False
    github_summary: bool = False
    also_read: Sequence[str | Path | None] = ()


@frozen_dataclass
class CheckOutcome:
    """What ``check`` found: the ``engine.check.CheckResult``, its report (a
    ``reports.check_records.CheckReport``), and the step summary file written (None when
    ``$GITHUB_STEP_SUMMARY`` is not set or none was asked)."""

    result: Any
    data: CheckReport
    summary: str | None

    @property
    def exit_code(self) -> int:
        return self.result.exit_code


def evaluate(request: CheckRequest, diagnostics: Diagnostics, exclude: Sequence[str | Path] = ()):
    """The check result (``engine.check.CheckResult``) of ``request``'s traces; ``exclude``:
    files that are check's own (a baseline being written)."""
    from ..engine.check import run_check
    from ..input.sources import expand_paths
    from ..text.memo import forget_remembered

    forget_remembered()  # what the last run remembered is not this run's
    return run_check(
        expand_paths(request.paths, diagnostics, request.skip),
        request.settings,
        input_format=request.input_format,
        labels=request.labels,
        baseline=request.baseline,
        fail_on=request.fail_on,
        max_wasted_rounds=request.max_wasted_rounds,
        max_wasted_tokens=request.max_wasted_tokens,
        diagnostics=diagnostics,
        exclude=[str(p) for p in exclude],
        jobs=request.jobs,
        selection=request.selection,
    )


def check(request: CheckRequest, *, diagnostics: Diagnostics | None = None, on_read: Callable[[int], Any] | None = None) -> CheckOutcome:
    """Check every trace below ``request.paths`` and write the report: each of
    ``request.outputs``, then ``request.format`` on standard output. ``on_read(traces)``
    is called once the traces are read, before anything is written. A trace file that
    cannot be read at all stops the check (TracecheckError): it checks nothing."""
    from ..input.output_files import open_output
    from ..input.sources import expand_paths
    from ..reports.check_report import check_data

    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    result = evaluate(request, diagnostics)
    result.allow_empty = request.allow_empty
    if on_read is not None:
        on_read(result.traces)
    if result.unreadable:
        # A regression trace that cannot be read checks nothing: that is no pass.
        raise TracecheckError("no trace could be read from " + ", ".join(result.unreadable) + " (see the warnings above)")
    settings = request.settings
    data = check_data(result, settings)
    inputs = [*expand_paths(request.paths, Diagnostics(), request.skip), *(Source(str(f)) for f in request.also_read if f is not None)]
    for name, path in request.outputs:
        with open_output(path, inputs) as out:
            out.write(CHECK.writer(name)(data, settings).encode())
    with open_output("-", inputs) as out:
        if request.statistics:
            from ..reports.check_report import write_statistics

            out.write(write_statistics(data).encode())
        else:
            shown = data.failing_only() if request.quiet else data
            out.write(CHECK.writer(request.format)(shown, settings).encode())
    summary = None
    if request.github_summary:
        from ..reports.check_report import append_github_summary

        summary = append_github_summary(data)
    return CheckOutcome(result, data, summary)


@frozen_dataclass
class BaselineRequest:
    """The baseline ``file`` and the traces it is made from (``paths``), checked with
    ``settings`` as ``CheckRequest``'s; ``known``: the file's baseline if already loaded."""

    file: str | Path
    paths: Sequence[str | Source]
    settings: Settings
    input_format: str | None = None
    labels: Any = None
    max_wasted_rounds: int | None = None
    max_wasted_tokens: int | None = None
    jobs: int = 1
    known: Any = None

    def as_check(self) -> CheckRequest:
        """The check whose findings the baseline records: every trace, new findings only."""
        return CheckRequest(
            self.paths, self.settings, input_format=self.input_format, labels=self.labels, max_wasted_rounds=self.max_wasted_rounds,
            max_wasted_tokens=self.max_wasted_tokens, jobs=self.jobs,
        )


def _trace_inputs(paths, exclude):
    """The trace files below ``paths``, without the baseline file itself."""
    from ..input.sources import expand_paths

    skip = {os.path.realpath(str(p)) for p in exclude}
    return [s for s in expand_paths(paths, Diagnostics()) if os.path.realpath(s.name) not in skip]


def baseline_write(request: BaselineRequest, *, diagnostics: Diagnostics | None = None, on_read: Callable[[int], Any] | None = None):
    """Record today's findings as known in ``request.file`` (the file's accepted
    findings, with their reasons, stay); returns the ``Baseline`` written.
    ``on_read(traces)`` is called once the traces are read, before the file is written."""
    from ..engine.check import load_baseline

    output = Path(request.file)
    previous = request.known if request.known is not None else (load_baseline(output) if output.exists() else None)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    result = evaluate(request.as_check(), diagnostics, [output])
    if on_read is not None:
        on_read(result.traces)
    return BASELINE.writer("json")(output, result, previous, _trace_inputs(request.paths, [output]))


def baseline_prune(request: BaselineRequest, *, diagnostics: Diagnostics | None = None, on_read: Callable[[int], Any] | None = None) -> tuple[int, int]:
    """Remove the entries of ``request.file`` no finding matches any more; never add one.
    Returns (entries kept, entries removed). ``on_read(traces)`` is called once the
    traces are read (an entry whose trace was not read is kept, with a warning)."""
    from ..engine.check import load_baseline, prune_baseline

    baseline = request.file
    known = request.known if request.known is not None else load_baseline(baseline)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    result = evaluate(request.as_check(), diagnostics, [baseline])
    known.warn_unread(result.traces_read, diagnostics)  # kept, never pruned: say why
    if on_read is not None:
        on_read(result.traces)
    return prune_baseline(baseline, result, known, _trace_inputs(request.paths, [baseline]))
