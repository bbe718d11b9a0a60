"""``tracecheck sweep``: every trace replayed under a grid of guard settings; savings
against harm, the Pareto front and the best choice, written in one of
``reports.formats.SWEEP``'s formats."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..config import Settings
from ..dataclass_lite import frozen_dataclass
from ..engine.grid import Dimension
from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.selection import Selection
from ..input.sources import Source
from ..reports.formats import SWEEP


def command_line_dimensions(grid: Sequence[str] = (), preset: str | None = None, tokenizer: str | None = None, metric: str | None = None) -> list[Dimension]:
    """The dimensions the command line names: ``--grid`` specs (GUARD.OPTION=VALUES),
    ``--preset`` names first, ``--tokenizer`` and ``--metric`` as P001's options."""
    from ..engine.grid import parse_dimension, preset_dimension

    dimensions = [parse_dimension(spec) for spec in grid or ()]
    if preset:
        dimensions.insert(0, preset_dimension(preset))
    if tokenizer:
        dimensions.append(parse_dimension(f"P001.tokenizer={tokenizer}", "--tokenizer"))
    if metric:
        dimensions.append(parse_dimension(f"P001.metric={metric}", "--metric"))
    return dimensions


def sweep_dimensions(dimensions: Sequence[Dimension], base: Settings) -> list[Dimension]:
    """The dimensions swept: those given, else the config file's ``sweep`` table; one per
    key (TracecheckError when there is none)."""
    from ..engine.grid import merge

    dimensions = list(dimensions)
    if not dimensions and base.source:
        from ..config import read_config
        from ..engine.grid import dimensions_from_table

        table, _ = read_config(base.source)
        sweep_table = table.get("sweep")
        if sweep_table:
            dimensions = dimensions_from_table(sweep_table, base.source)
    dimensions = merge(dimensions)
    if not dimensions:
        raise TracecheckError("nothing to sweep: give --grid GUARD.OPTION=VALUES, --preset NAMES, --tokenizer or --metric")
    return dimensions


@frozen_dataclass
class SweepRequest:
    """What to sweep and where the report goes.

    ``paths``: the traces (``skip``: --exclude globs of a folder walk); ``dimensions``
    (see ``sweep_dimensions``) over ``base`` settings; ``settings_for(preset name or
    None)``: the settings a gridded preset starts from. ``objective``, ``constraints``,
    ``holdout`` / ``folds`` and ``seed``: how the best point is chosen (see
    ``engine.sweep.sweep``). ``output``: the report file (``-`` standard output) in
    ``format``, ``to_file`` when it is a file; ``quiet``: the terminal report without its
    table. ``write_config``: a config file to write the winning settings into.
    ``also_read``: files read besides the traces, which no output may replace."""

    paths: Sequence[str | Source]
    base: Settings
    dimensions: Sequence[Dimension]
    settings_for: Callable[[str | None], Settings]
    objective: str = "tokens_saved"
    constraints: Sequence[Any] = ()
    holdout: float | None = None
    folds: int | None = None
    seed: int = 0
    jobs: int = 1
    input_format: str | None = None
    labels: Any = None
    selection: Selection | None = None
    skip: Sequence[str] = ()
    format: str = "terminal"
    output: str = "-"
    to_file: bool = False
    quiet: bool = False
    write_config: str | Path | None = None
    also_read: Sequence[str | Path | None] = ()


@frozen_dataclass
class SweepOutcome:
    """The sweep report's data (``reports.sweep_report.sweep_data``), and whether the
    winning settings were written to ``write_config`` (None when none was asked; False
    when they are not worth a change: the file keeps what it has)."""

    data: dict[str, Any]
    config_written: bool | None


def sweep(
    request: SweepRequest,
    *,
    diagnostics: Diagnostics | None = None,
    on_read: Callable[[int], Any] | None = None,
    progress: Callable[[int], Any] | None = None,
) -> SweepOutcome:
    """Read every trace below ``request.paths`` one at a time, replay each under every
    grid point (keeping its features, not the trace), sweep the grid and write the
    report. ``on_read(traces)`` is called once the traces are read and replayed, before
    the choice is made; ``progress(files)`` is a context manager around the reading that
    gives an ``on_progress(files done, files)`` callback or None."""
    from ..engine.grid import expand
    from ..engine.sweep import read_features, settings_of, sweep_features
    from ..input.output_files import open_output
    from ..input.sources import expand_paths
    from ..reports.sweep_report import sweep_data

    points = expand(request.dimensions, request.settings_for)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sources = expand_paths(request.paths, diagnostics, request.skip)
    if request.write_config is not None:
        from ..input.output_files import check_not_an_input

        check_not_an_input(str(request.write_config), sources)  # before the work, whatever it recommends
    with progress(len(sources)) if progress is not None else contextlib.nullcontext() as advance:
        on_file = None if advance is None else (lambda number, files, name: advance(number - 1, files))
        features = read_features(
            sources, settings_of(points, request.base), input_format=request.input_format, diagnostics=diagnostics, labels=request.labels,
            jobs=request.jobs, selection=request.selection, on_file=on_file,
        )
        if advance is not None:
            advance(len(sources), len(sources))
    if on_read is not None:
        on_read(len(features))
    result = sweep_features(
        features, points, baseline=request.base, objective=request.objective, constraints=request.constraints, holdout=request.holdout,
        folds=request.folds, seed=request.seed, labels=request.labels,
    )
    data = sweep_data(result, list(request.dimensions))
    inputs = [*sources, *(Source(str(f)) for f in request.also_read if f is not None)]
    with open_output(request.output, inputs) as out:
        SWEEP.writer(request.format)(data, out, request.to_file, request.quiet)
    if request.write_config is None:
        return SweepOutcome(data, None)
    from ..config import write_winning_config

    if data["best"] is None:
        raise TracecheckError(f"no winning settings to write to {request.write_config}: {data['verdict']}")
    if not data["config"]:
        return SweepOutcome(data, False)  # not worth a change: the file keeps the settings it has
    write_winning_config(request.write_config, data["config"], sources)
    return SweepOutcome(data, True)
