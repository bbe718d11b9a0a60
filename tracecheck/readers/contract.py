"""The reader contract: what every format's module provides, and the driver they share.

A format's module (``readers/<module>.py``, listed in the registry, ``readers/__init__``)
provides the names of :class:`FormatModule`: its ``FORMAT`` name, ``sniff`` (does this
first record look like the format?) and ``read`` (a file's records -> its traces, the
traces still open handed on at the end of the file). Most readers build ``read`` from
:func:`read_each`, which keeps one odd record from costing the rest of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ..dataclass_lite import mutable_dataclass
from ..input.diagnostics import Diagnostics
from .common import failure

if TYPE_CHECKING:
    from ..input.sources import Record
    from ..model import Trace


@mutable_dataclass(slots=True)
class ReadContext:
    file: str  # name shown in warnings and reports
    diagnostics: Diagnostics
    # A folder read as one input (``Source.members``): the names shown of its files,
    # record k being the k-th. A warning about record k names that file.
    members: tuple[str, ...] = ()
    # Reading one part of a file cut for ``--jobs`` (``load.read_part``), more of the file
    # after it: a reader that finds a trace still open at the end of its records says so
    # in ``broken`` (the cut was no place to cut: the file is then read whole).
    cut_after: bool = False
    broken: str | None = None

    def place(self, line: int | None) -> tuple[str, int | None]:
        """Where a warning about the record on ``line`` points: the file and its line, or
        for a folder's record its member file."""
        if self.members and line is not None and 0 < line <= len(self.members):
            return self.members[line - 1], None
        return self.file, line

    def warn(self, line: int | None, reason: str) -> None:
        self.diagnostics.warn(*self.place(line), reason)


def first_item(value: Any) -> Any:
    """The first element of a list (a .json array of items), else the value itself: what
    most sniffers look at."""
    if isinstance(value, list) and value:
        return value[0]
    return value


def array_elements(value: Any) -> list[tuple[Any, int | None]]:
    """The items a record holds, each with its index: the elements of a JSON array, else
    the record itself (index None)."""
    if isinstance(value, list):
        return [(item, index) for index, item in enumerate(value)]
    return [(value, None)]


def element_note(index: int | None) -> str:
    """What a warning appends to say which array element it is about."""
    return "" if index is None else f" (array element {index})"


class FormatModule(Protocol):
    """What the registry needs from a format's module (a module satisfies it)."""

    FORMAT: str  # the name of --input-format and of trace.format

    def sniff(self, value: Any) -> bool:
        """Whether a file's first record (a JSON value, a TextDocument or a ZipDocument)
        has this format's shape. Cheap: it runs on every file, in registry order."""

    def read(self, records: Iterator[Record], ctx: ReadContext) -> Iterator[Trace]:
        """The traces of one file's records, in file order."""

    # Optional: ``cut_before(value) -> bool``, whether a JSON Lines file of this format may
    # be cut (``--jobs``) just before a line holding ``value``: reading the lines before
    # and after the cut apart gives the traces reading them together gives. A format
    # without it is never cut. ``load.read_part`` checks each cut after reading (no trace
    # id on both sides, none left open, see ``ReadContext.cut_after``) and the file is read
    # whole when one does not hold.


class RecordReader(Protocol):
    """A reader that takes a file's records one at a time, then closes what is still open."""

    def record(self, value: Any, line: int) -> Iterable[Trace]:
        """The traces this record completes (usually none: most traces end at the file's end)."""

    def close(self) -> Iterable[Trace]:
        """The traces still open at the end of the file."""


def read_each(
    records: Iterable[Record],
    ctx: ReadContext,
    read_record: Callable[[Any, int], Iterable[Trace]],
    close: Callable[[], Iterable[Trace]] | None = None,
    what: str = "record",
) -> Iterator[Trace]:
    """``read_record(value, line)`` for each record, then ``close()``; a reader bug on one
    odd record is a warning about that record (``could not read this <what>``)."""
    for record in records:
        try:
            yield from read_record(record.value, record.line)
        except Exception as exc:  # noqa: BLE001 - one odd record must not cost the rest of the file
            ctx.warn(record.line, f"could not read this {what} ({failure(exc)})")
    if close is not None:
        yield from close()


def read_with_reader(reader: RecordReader, records: Iterable[Record], ctx: ReadContext) -> Iterator[Trace]:
    """:func:`read_each` for a :class:`RecordReader`."""
    return read_each(records, ctx, reader.record, reader.close)


def read_documents(
    records: Iterable[Record],
    ctx: ReadContext,
    read_document: Callable[[Any, int, ReadContext, bool], Trace | None],
) -> Iterator[Trace]:
    """One trace (or none) per record; ``read_document(value, line, ctx, first)`` is told
    whether no trace was read before it (the first trace is named after the file)."""
    first = True

    def read_record(value: Any, line: int) -> Iterator[Trace]:
        nonlocal first
        trace = read_document(value, line, ctx, first)
        if trace is not None:
            first = False
            yield trace

    return read_each(records, ctx, read_record)
