"""Recording a live run as a native JSONL trace, event by event, as it happens: the
user's messages, each round (text, calls, usage, times), each result, the monitor's
decisions, the forced answer a stop asked for (marked ``forced``), and an ``end``. ``replay``, ``sweep`` and ``check`` read it back and reach
the same verdicts the monitor reached live."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from ..readers.native_writer import FORMAT_VERSION, compact as _compact, result_event, round_event, user_event

ABORTED = "aborted by tracecheck"  # the end event's error for a run a guard aborted


class Recorder:
    """Appends a monitor's run to ``path`` (native JSONL). Attach it with
    ``Recorder(path).attach(monitor)`` (or ``Monitor(...).listeners.append(recorder)``);
    call ``close(error=None)`` when the run ends. Each event is written and flushed as it
    comes, so a crashed agent still leaves a readable trace up to its last event."""

    def __init__(self, path: str | os.PathLike, *, trace_id: str | None = None, labels: dict[str, str] | None = None) -> None:
        self.path = Path(path)
        self.trace_id = trace_id
        self.labels = dict(labels or {})
        self._file = None
        self._started = False
        self._monitor = None  # the monitor it listens to (known at attach or its first event)

    def attach(self, monitor) -> Recorder:
        if self.trace_id is None:
            self.trace_id = monitor.trace.id
        monitor.listeners.append(self)
        self._monitor = monitor
        return self

    def _write(self, event: dict[str, Any]) -> None:
        if self._file is None:
            self._file = open(self.path, "ab")
        self._file.write(orjson.dumps(event) + b"\n")
        self._file.flush()

    def _start(self, monitor) -> None:
        if self._started:
            return
        self._started = True
        if self.trace_id is None:  # added to monitor.listeners without attach()
            self.trace_id = monitor.trace.id
        self._write(_compact({"type": "trace", "trace": self.trace_id, "format_version": FORMAT_VERSION, "metadata": dict(monitor.trace.metadata) or None}))
        if self.labels:
            self._write({"type": "labels", "trace": self.trace_id, "labels": self.labels})

    def __call__(self, kind: str, monitor, *payload: Any) -> None:
        self._monitor = monitor
        self._start(monitor)
        if kind == "user":
            self._write(user_event(self.trace_id, payload[0]))
        elif kind == "round":
            rnd, decision = payload
            event = round_event(self.trace_id, rnd)
            if decision.verdicts:
                event["decisions"] = _decisions(decision)
            self._write(event)
        elif kind == "results":
            rnd, decision = payload
            events = [result_event(self.trace_id, call) for call in rnd.tool_calls if call.result is not None]
            if events and decision.verdicts:
                # Decisions after the tools ride on the round's last result: readers ignore
                # fields they do not know, so the recording stays a plain trace.
                events[-1]["decisions"] = _decisions(decision)
            for event in events:
                self._write(event)

    def close(self, error: str | None = None, labels: dict[str, str] | None = None) -> None:
        """End the trace (``error`` when the run ended without an answer; a run the
        monitor aborted says so by default)."""
        if error is None and self._monitor is not None and self._monitor.aborted:
            error = ABORTED
        if labels:
            self._write({"type": "labels", "trace": self.trace_id, "labels": dict(labels)})
        self._write(_compact({"type": "end", "trace": self.trace_id, "error": error}))
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._file is not None or self._started:
            self.close(error=f"{exc_type.__name__}: {exc}" if exc_type is not None else None)


def _decisions(decision) -> list[dict[str, Any]]:
    return [
        _compact({"guard": code, "action": verdict.action.value, "call_id": verdict.call_id, "reason": verdict.reason})
        for code, verdict in decision.verdicts
    ]
