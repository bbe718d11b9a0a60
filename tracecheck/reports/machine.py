"""JSON and JSON Lines reports, written as traces stream in (stdout holds nothing else)."""

from __future__ import annotations

from typing import Any

import orjson

from ..text.arguments import dump_json
from .records import HeaderRecord, Record, TotalsRecord, TraceRecord, json_value


def _record_json(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_json()
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON; a report record (anywhere in it) as its ``to_json()``."""
    try:
        return orjson.dumps(value, default=_record_json, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS)
    except TypeError:  # deeper or larger than orjson writes: never half a report
        return dump_json(json_value(value)).encode()


class JsonWriter:
    """One JSON document (``tracecheck schema report``), one trace object per line."""

    def __init__(self, write) -> None:
        self.write = write
        self.first = True

    def begin(self, header: HeaderRecord) -> None:
        self.write(b"{\n")
        for key, value in header.to_json().items():
            self.write(b'"' + key.encode() + b'": ' + dumps(value) + b",\n")
        self.write(b'"traces": [\n')

    def trace(self, trace: TraceRecord) -> None:
        self.write((b"" if self.first else b",\n") + dumps(trace))
        self.first = False

    def end(self, totals: TotalsRecord, warnings: list[dict[str, Any]]) -> None:
        self.write(b"\n],\n")
        self.write(b'"totals": ' + dumps(totals) + b",\n")
        self.write(b'"warnings": ' + dumps(warnings) + b"\n}\n")


class JsonlWriter:
    """A ``header`` line, a ``trace`` line per trace, ``warning`` lines, a ``totals`` line."""

    def __init__(self, write) -> None:
        self.write = write

    def _line(self, kind: str, data: dict[str, Any]) -> None:
        self.write(dumps({"type": kind, **data}) + b"\n")

    def begin(self, header: HeaderRecord) -> None:
        self._line("header", header.to_json())

    def trace(self, trace: TraceRecord) -> None:
        self._line("trace", trace.to_json())

    def end(self, totals: TotalsRecord, warnings: list[dict[str, Any]]) -> None:
        for warning in warnings:
            self._line("warning", warning)
        self._line("totals", totals.to_json())
