"""A replayed trace round by round, as a ``records.TimelineRecord``, for the HTML
report's timelines and ``show --format json``.

Not part of the replay's JSON report: ``replay --format html`` asks for it (``report_entry``
with ``rounds=True``), where the trace was replayed (in a worker process with
``--jobs``), so it must be picklable: frozen records of plain values. Text is cut to short excerpts with
control and invisible characters made visible (``textsafe.excerpt``): a 40 MB input
does not make a 40 MB page. Every figure is what ``tracecheck show`` prints for the
round, from the same cost model as the report's totals.
"""

from __future__ import annotations

from ..engine.replay import TraceResult
from ..guards.signals import ResultClassifier
from ..text.textsafe import excerpt, excerpt_is_cut, single_line
from .records import CallRecord, GapRecord, RoundRecord, TimelineRecord

FAILURES = ResultClassifier()  # the default patterns: its verdicts are cached on the result as the guards'

TEXT_CHARS = 300  # the model's text and the user's message, per round
ARGUMENT_CHARS = 300
RESULT_CHARS = 400
RESULT_LINES = 6
CALLS_PER_ROUND = 12  # a fan-out of 200 calls shows the first 12 and says how many more
ROUNDS = 200  # a longer trace keeps its start, its end and the rounds around each fire
CALL_ID_CHARS = 120  # a call's id as kept (a block names the call it refuses by it)


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _call(call) -> CallRecord:
    result = call.result
    args, cut = excerpt_is_cut(call.arguments_raw, ARGUMENT_CHARS, 4)
    return CallRecord(
        id=single_line(call.id, CALL_ID_CHARS),
        name=single_line(call.name, 120),
        args=args,
        args_chars=len(call.arguments_raw) if cut else None,
        result=None if result is None else excerpt(result.content, RESULT_CHARS, RESULT_LINES),
        result_chars=None if result is None else len(result.content),
        error=None if result is None else result.is_error,
        failed=bool(result is not None and result.is_error is None and FAILURES.is_failure(result)),
        blocked=bool(result is not None and result.blocked),
        seconds=None if result is None else _seconds(result.seconds),
    )


def _kept(result: TraceResult) -> list[int]:
    """The 1-based rounds a timeline shows: all of them, or for a long trace its first
    and last rounds and those around each fire and stop."""
    count = len(result.trace.rounds)
    if count <= ROUNDS:
        return list(range(1, count + 1))
    keep = set(range(1, 61)) | set(range(count - 19, count + 1))
    for stop in result.policy.stops:  # always: the page marks what each one cuts
        keep.update(range(stop.round - 3, stop.round + 4))
    for number in sorted({f.round for f in result.fires}):
        if len(keep) >= 2 * ROUNDS:
            break  # a trace that fires everywhere: its first fires, and the table has them all
        keep.update(range(number - 3, number + 4))
    return sorted(n for n in keep if 1 <= n <= count)


def rounds_data(result: TraceResult) -> TimelineRecord:
    """Each round of ``result``'s trace (with a ``GapRecord`` for rounds a long trace
    leaves out), and the user messages after the last round."""
    trace, costs = result.trace, result.costs
    said = {m.before_round: m for m in trace.user_messages}
    rows: list[RoundRecord | GapRecord] = []
    previous = 0
    for number in _kept(result):
        if number > previous + 1:
            rows.append(GapRecord(number - previous - 1))
        previous = number
        rnd, cost = trace.rounds[number - 1], costs[number - 1]
        message = said.get(number)
        calls = rnd.tool_calls
        tool_seconds = [c.result.seconds for c in calls if c.result is not None and c.result.seconds is not None]
        rows.append(
            RoundRecord(
                round=number,
                turn=rnd.turn,
                user=None if message is None else excerpt(message.text, TEXT_CHARS, 4),
                text=excerpt(rnd.text, TEXT_CHARS, 4),
                final=rnd.is_final,
                input_tokens=cost.input_tokens,
                output_tokens=cost.output_tokens,
                basis=cost.basis,
                llm_seconds=_seconds(rnd.seconds),
                tool_seconds=_seconds(sum(tool_seconds)) if tool_seconds else None,
                calls=tuple(_call(c) for c in calls[:CALLS_PER_ROUND]),
                more_calls=max(0, len(calls) - CALLS_PER_ROUND),
            )
        )
    if previous < len(trace.rounds):
        rows.append(GapRecord(len(trace.rounds) - previous))
    after = tuple(excerpt(m.text, TEXT_CHARS, 4) for m in trace.user_messages if m.before_round > len(trace.rounds))
    return TimelineRecord(tuple(rows), after)
