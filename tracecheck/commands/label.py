"""``tracecheck label``: a labels file for a set of traces, to fill in and pass to
``--labels``. It starts from the labels the other commands would read: a template then
shows each trace as ``check`` sees it, and labelling new traces keeps what the team
already wrote for the old ones."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import Diagnostics
from ..input.labels import Labels
from ..input.selection import Selection
from ..input.sources import Source
from ..reports.formats import LABEL


@frozen_dataclass
class LabelRequest:
    """``paths``: the traces; ``format``: json or csv; ``labels``: the labels file in use
    (its entries fill the template in); ``selection`` (``-k``): only the traces it matches."""

    paths: Sequence[str | Source]
    format: str = "json"
    input_format: str | None = None
    labels: Labels | None = None
    selection: Selection | None = None


def label(
    request: LabelRequest, out: BinaryIO, *, diagnostics: Diagnostics | None = None, on_read: Callable[[int], Any] | None = None
) -> int:
    """Write a labels file for the traces to ``out``: one entry each, pre-filled with what
    their format says (outcome, labels, expectations) and what ``request.labels`` says,
    blanks left to fill. ``on_read(entries)`` is called once the traces are read, before
    anything is written. Returns how many entries were written."""
    from ..input.labels import template_entries
    from ..readers.load import read_traces

    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    sidecar, selection = request.labels, request.selection
    traces = read_traces(request.paths, diagnostics, request.input_format)
    labelled = map(sidecar.apply, traces) if sidecar is not None else traces
    if selection is not None:
        labelled = (trace for trace in labelled if selection.keep(trace, diagnostics))
    entries = template_entries(labelled, diagnostics)
    if sidecar is not None:
        sidecar.finish(diagnostics)
    if on_read is not None:
        on_read(len(entries))
    LABEL.writer(request.format, "labels")(entries, out, request.format, diagnostics)
    return len(entries)
