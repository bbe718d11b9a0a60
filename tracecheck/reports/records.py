"""What a replay report says, as typed, frozen records: a trace, its fires, the policy,
savings, the totals and the header. ``reports.data`` makes them from engine results;
every writer reads their attributes; ``to_json()`` is the one place a record becomes the
JSON the ``--format json|jsonl`` reports write, field for field in the order declared
here (reports/schema.py describes the same fields).

A sweep point is ``SweepPointRecord``. The check report's records are in
``check_records.py``, the scan report's in ``scan_records.py`` (built on ``Record`` here):
a replay does not pay for creating their classes.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ..dataclass_lite import frozen_dataclass

# A field with this metadata is left out of the JSON when it is None (an optional part
# of a report: a tokenizer comparison, presets side by side, a timeline).
OPTIONAL = {"optional": True}


def json_value(value: Any) -> Any:
    """``value`` as JSON data: records by their ``to_json()``, containers item by item."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if hasattr(value, "to_json"):  # a record, or an engine record the report holds as it is
        return value.to_json()
    if isinstance(value, dict):
        return {key: json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    return value


@frozen_dataclass(slots=True)
class Record:
    """A part of a report; its JSON is its fields in their declared order."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, optional in _json_fields(type(self)):
            value = getattr(self, name)
            if value is None and optional:
                continue
            out[name] = json_value(value)
        return out

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        # Pickled by --jobs workers: the class and its values, read in one call and given
        # back to its __init__ (dataclasses' own pickling of slots looks the fields up
        # again for every record, and takes twice as long both ways).
        return type(self), _field_values(type(self))(self)


@functools.cache
def _json_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """A record class's fields in order, each with whether it is left out when None."""
    return tuple((item.name, bool(item.metadata.get("optional"))) for item in dataclasses.fields(cls))


@functools.cache
def _field_values(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving a record's field values in order, as a tuple (init fields only:
    they are what __init__ takes back)."""
    names = [item.name for item in dataclasses.fields(cls) if item.init]
    if len(names) == 1:
        only = names[0]
        return lambda record: (getattr(record, only),)
    return operator.attrgetter(*names) if names else lambda record: ()


@frozen_dataclass(slots=True)
class SavingRecord(Record):
    """What a stop (or the policy's stops and blocks) saves; negative figures are costs."""

    llm_calls: int
    tool_calls: int
    tokens: int
    tokens_estimated: bool
    tokens_basis: str
    seconds: float | None
    forced_answer_tokens: int | None


NO_SAVING = SavingRecord(0, 0, 0, False, "measured", None, None)


@frozen_dataclass(slots=True)
class NewInformation(Record):
    """The first cut round of the recorded run that brought something new."""

    round: int
    what: str


@frozen_dataclass(slots=True)
class FireRecord(Record):
    code: str
    name: str
    turn: int
    round: int
    phase: str
    action: str
    reason: str
    line: int | None
    call_id: str | None
    details: dict[str, Any]
    message: str | None
    saved: SavingRecord | None
    stale: bool | None
    new_information: NewInformation | None


@frozen_dataclass(slots=True)
class StopRecord(Record):
    """Where the policy ends a turn (stop) or the run (abort)."""

    turn: int
    round: int
    phase: str
    code: str
    action: str
    saved: SavingRecord | None
    new_information: NewInformation | None
    already_stopped: bool


@frozen_dataclass(slots=True)
class PolicyRecord(Record):
    """Where the guards together stop, and what that saves."""

    stops: tuple[StopRecord, ...]
    stale_blocks: int
    later_turns_as_recorded: bool
    possible_harm: str | None
    stopped_at: int | None
    phase: str | None
    code: str | None
    action: str | None
    saved: SavingRecord
    blocked_calls: int
    blocked_seconds: float | None
    outcome_change: str | None


@frozen_dataclass(slots=True)
class ExpectationRecord(Record):
    """What a trace expects of a guard (or the policy), and whether it holds (``met``
    None: no running guard could check it)."""

    guard: str
    fires: bool
    by_round: int | None
    note: str | None
    met: bool | None
    message: str
    unknown_guard: bool


@frozen_dataclass(slots=True)
class TurnRounds(Record):
    turn: int
    first_round: int
    last_round: int


@frozen_dataclass(slots=True)
class TokenizerRun(Record):
    tokenizer: str
    fires_at: int | None
    scores: list[float | None]


@frozen_dataclass(slots=True)
class ComparisonRecord(Record):
    """P001 replayed with each tokenizer: where each stops, its scores by round."""

    differs: bool
    runs: tuple[TokenizerRun, ...]


@frozen_dataclass(slots=True)
class PresetRunRecord(Record):
    """One preset's replay of a trace, for the side-by-side comparison."""

    fires: int
    expectations_broken: int
    policy: PolicyRecord


@frozen_dataclass(slots=True)
class RecordedCost(Record):
    """What runs cost as recorded."""

    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None
    tokens_basis: str


@frozen_dataclass(slots=True)
class CallRecord(Record):
    """A tool call of a timeline's round, its arguments and result cut to excerpts."""

    id: str
    name: str
    args: str
    args_chars: int | None  # only when the excerpt leaves some out
    result: str | None
    result_chars: int | None
    error: bool | None
    # Where the format records no flag: whether the guards' default classifier reads the
    # text as a failure (an exception, a traceback, a JSON error), as F001 counts it.
    failed: bool
    blocked: bool
    seconds: float | None


@frozen_dataclass(slots=True)
class RoundRecord(Record):
    """One round of a timeline, with what ``tracecheck show`` prints for it."""

    round: int
    turn: int
    user: str | None  # the user's message before the round, if any
    text: str
    final: bool
    input_tokens: int
    output_tokens: int
    basis: str
    llm_seconds: float | None
    tool_seconds: float | None
    calls: tuple[CallRecord, ...]
    more_calls: int  # calls not listed (a fan-out keeps its first few)


@frozen_dataclass(slots=True)
class GapRecord(Record):
    """Rounds a long trace's timeline leaves out."""

    gap: int


@frozen_dataclass(slots=True)
class TimelineRecord(Record):
    """A trace round by round (``reports.rounds``), and the user messages after its last round."""

    rows: tuple[RoundRecord | GapRecord, ...]
    user_after: tuple[str, ...]


@frozen_dataclass(slots=True)
class TraceRecord(Record):
    id: str
    file: str
    line: int | None
    pointer: str | None
    place: str | None
    format: str
    labels: dict[str, Any]
    turns: int
    turn_rounds: tuple[TurnRounds, ...]
    rounds: int
    tool_calls: int
    tokens: int
    tokens_estimated: bool
    tokens_basis: str
    seconds: float | None
    answered: bool
    ending: str | None
    error: str | None
    fires: tuple[FireRecord, ...]
    expectations: tuple[ExpectationRecord, ...]
    policy: PolicyRecord
    tokenizer_comparison: ComparisonRecord | None = field(default=None, metadata=OPTIONAL)
    presets: dict[str, PresetRunRecord] | None = field(default=None, metadata=OPTIONAL)
    # The trace round by round (reports.rounds), for the HTML report and show.
    timeline: TimelineRecord | None = field(default=None, metadata=OPTIONAL)

    @property
    def recorded(self) -> RecordedCost:
        return RecordedCost(self.rounds, self.tool_calls, self.tokens, self.seconds, self.tokens_basis)

    def fired(self) -> bool:
        """Whether any guard fired (under any preset, with presets side by side)."""
        if self.presets is not None:
            return any(run.fires for run in self.presets.values())
        return bool(self.fires)


@frozen_dataclass(slots=True)
class GuardRecord(Record):
    """A guard the settings run, with its options."""

    code: str
    name: str
    options: dict[str, Any]


@frozen_dataclass(slots=True)
class HeaderRecord(Record):
    """What a report starts with: the schema, the tool, the guards and preset run."""

    schema_version: int
    tool: dict[str, str]
    guards: tuple[GuardRecord, ...]
    preset: str | None
    tokenizers: tuple[str, ...] | None = field(default=None, metadata=OPTIONAL)
    presets: tuple[str, ...] | None = field(default=None, metadata=OPTIONAL)


@frozen_dataclass(slots=True)
class SavedTotals(Record):
    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None
    tokens_estimated: bool
    tokens_basis: str


@frozen_dataclass(slots=True)
class Shares(Record):
    """The savings as shares of what the runs cost as recorded (None: unknown)."""

    llm_calls: float | None
    tool_calls: float | None
    tokens: float | None
    seconds: float | None


@frozen_dataclass(slots=True)
class OutcomeTotals(Record):
    """The savings on the traces of one outcome, with what those traces cost as recorded."""

    traces: int
    traces_stopped: int
    possible_harm: int
    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None
    tokens_estimated: bool
    tokens_basis: str
    forced_answer_tokens: int | None
    whole: RecordedCost


@frozen_dataclass(slots=True)
class GuardCounts(Record):
    traces: int
    fires: int


@frozen_dataclass(slots=True)
class TotalsRecord(Record):
    traces: int
    traces_with_fires: int
    traces_stopped: int
    no_answer_to_forced_answer: int
    possible_harm: int
    expectations_broken: int
    stale_blocks: int
    stops_before_new_information: int
    whole: RecordedCost
    saved: SavedTotals
    share: Shares
    # The same savings split by how the runs ended; the three add up to "saved".
    saved_by_outcome: dict[str, OutcomeTotals]
    by_guard: dict[str, GuardCounts]
    by_preset: dict[str, TotalsRecord] | None = field(default=None, metadata=OPTIONAL)


@frozen_dataclass(slots=True)
class SweepPointRecord(Record):
    """One point of a sweep's grid: its settings, where it ranks, what it scores."""

    number: int
    values: dict[str, Any]
    label: str
    pareto: bool
    best: bool
    metrics: dict[str, Any]  # the engine's figures of the point (engine.sweep)


@frozen_dataclass(slots=True)
class InputWarning(Record):
    """A warning about the input (a line that could not be read, a label for no trace)."""

    file: str
    line: int | None
    reason: str
