"""The round-by-round timeline of normalized traces (``tracecheck show``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone

from rich.console import Console
from rich.text import Text

from ..engine.costs import RoundCost, round_costs, trace_totals
from ..model import Round, ToolCall, Trace, Usage
from .data import BASIS_NOTES, count as _count, seconds, shown_id
from ..text.textsafe import one_line, plain, single_line

# A hook that lets a caller add lines under each round (the guard engine adds its state).
RoundAnnotator = Callable[[Trace, Round], Iterable[Text]]


def _clock(value: float | None) -> str:
    if value is None:
        return "--:--:--"
    try:
        return datetime.fromtimestamp(value, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    except (ValueError, OverflowError, OSError):  # readers keep times in range; a model built by hand may not
        return "--:--:--"


def _seconds(value: float | None) -> str:
    return "?" if value is None else seconds(value)


def _number(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _tokens(usage: Usage | None, cost: RoundCost) -> str:
    if cost.basis != "measured" or usage is None:
        # What replay counts for this round, and how it is known.
        return f"in {cost.input_tokens:,} / out {cost.output_tokens:,} ({cost.basis})"
    parts = [f"in {_number(usage.input_tokens)}", f"out {_number(usage.output_tokens)}"]
    if usage.cached_tokens:
        parts.append(f"cached {usage.cached_tokens:,}")
    if usage.reasoning_tokens:
        parts.append(f"reasoning {usage.reasoning_tokens:,}")
    return " / ".join(parts)


def trace_summary(trace: Trace, costs: list[RoundCost] | None = None) -> Text:
    """The header line of a trace: id, where it came from, its labels and size (the same
    figures, from the same cost model, as ``replay`` prints)."""
    costs = round_costs(trace) if costs is None else costs
    totals = trace_totals(trace, costs)
    head = Text()
    head.append("trace ", style="bold")
    head.append_text(plain(trace.id, "bold cyan"))
    where = trace.file if trace.line is None else f"{trace.file}:{trace.line}"
    if shown_id({"id": trace.id, "file": trace.file, "line": trace.line}) is None:
        where = where[: -len(trace.id)]  # the id names the file and line: only the folder is left to say
    head.append("  ")
    head.append_text(plain(f"{where} · {trace.format}" if where else trace.format, "dim"))
    head.append("\n  ")
    facts = [_count(totals.turns, "turn")] if totals.turns > 1 else []
    facts += [_count(totals.llm_calls, "round"), _count(totals.tool_calls, "tool call")]
    facts.append(f"{totals.tokens:,} tokens{BASIS_NOTES[totals.tokens_basis]}")
    if totals.seconds is not None:
        facts.append(seconds(round(totals.seconds, 3)))  # rounded as the report data rounds it
    head.append(" · ".join(facts))
    if "outcome" in trace.labels:
        head.append("  ")
        head.append_text(plain(f"outcome={trace.labels['outcome']}", "magenta"))
    if trace.ending is not None:  # how it ended, beside (never instead of) the grader's verdict
        head.append("  ")
        head.append_text(plain(f"ending={trace.ending}", "magenta"))
    for key, value in sorted(trace.labels.items()):
        if key != "outcome":
            head.append("\n  ")
            head.append_text(plain(f"{key}: {single_line(value, 200)}", "dim magenta"))
    if trace.error is not None:
        head.append("\n  ")
        head.append("ended without an answer: ", style="bold red")
        head.append_text(plain(one_line(trace.error)))
    elif not trace.answered:
        head.append("\n  ")
        head.append("no final answer recorded", style="yellow")
    return head


def _call_lines(call: ToolCall) -> list[Text]:
    line = Text("    → ", style="cyan")
    line.append_text(plain(call.name, "bold"))
    line.append(" ")
    line.append_text(plain(one_line(call.arguments_raw, 200)))
    line.append_text(plain(f"  [{call.id}]", "dim"))
    lines = [line]
    if call.arguments_error:
        lines.append(plain(f"      ! {call.arguments_error}", "yellow"))
    res = call.result
    out = Text("      ← ", style="cyan")
    if res is None:
        out.append("no result recorded", style="yellow")
    else:
        if res.is_error is True:
            out.append("error ", style="bold red")
        elif res.is_error is False:
            out.append("ok ", style="green")
        else:
            out.append("? ", style="dim")
        if res.seconds is not None:
            out.append(f"{_seconds(res.seconds)} ", style="dim")
        out.append_text(plain(one_line(res.content, 160)))
    lines.append(out)
    return lines


def _put(console: Console, line: Text) -> None:
    """Print a timeline line within the console's width: wrapped between words, the
    continuation indented two past the line's own indent (as the replay report does)."""
    from .terminal import emit

    for part in line.split("\n"):
        emit(console, part, len(part.plain) - len(part.plain.lstrip(" ")) + 2)


def render_trace(console: Console, trace: Trace, annotate: RoundAnnotator | None = None) -> None:
    costs = round_costs(trace)
    _put(console, trace_summary(trace, costs))
    said = {m.before_round: m for m in trace.user_messages}
    several_turns = len({r.turn for r in trace.rounds}) > 1
    for rnd, cost in zip(trace.rounds, costs):
        message = said.get(rnd.index)
        if several_turns and (message is not None or rnd.index == 1):
            _put(console, Text(f"  turn {rnd.turn}", style="bold magenta"))
        if message is not None:
            line = Text("    user: ", style="magenta")
            line.append_text(plain(one_line(message.text, 200)))
            _put(console, line)
        head = Text(f"  round {rnd.index:>2}", style="bold")
        if rnd.started_at is None and rnd.ended_at is not None:
            head.append(f"  ended {_clock(rnd.ended_at)}", style="dim")  # the format records when the reply came only
        else:
            head.append(f"  {_clock(rnd.started_at)}", style="dim")
        if rnd.seconds is not None:
            head.append(f" +{_seconds(rnd.seconds)}", style="dim")
        head.append(f"  {_tokens(rnd.usage, cost)}", style="dim")
        if rnd.finish_reason:
            head.append_text(plain(f"  {rnd.finish_reason}", "dim"))
        if rnd.is_final:
            head.append("  final answer" if rnd is trace.rounds[-1] else "  reply", style="green")
        _put(console, head)
        if rnd.text.strip():
            _put(console, Text("    ").append_text(plain(one_line(rnd.text, 200), "italic")))
        for call in rnd.tool_calls:
            for line in _call_lines(call):
                _put(console, line)
        if annotate is not None:
            for line in annotate(trace, rnd):
                _put(console, line)
    trailing = [m for m in trace.user_messages if m.before_round > len(trace.rounds)]
    for message in trailing:
        line = Text("    user: ", style="magenta")
        line.append_text(plain(one_line(message.text, 200)))
        _put(console, line)
    console.print()


def show_traces(
    paths,
    console: Console,
    *,
    settings=None,
    trace_id: str | None = None,
    input_format: str | None = None,
    diagnostics=None,
    labels=None,
    seen_ids: list[str] | None = None,
    all_states: bool = False,
) -> tuple[int, int]:
    """Print the timeline of every trace below ``paths`` (only ``trace_id`` when given),
    with each guard's state when ``settings`` are given: the plain function behind
    ``tracecheck show``. Returns (traces read, traces shown); one trace in memory at a time.
    ``labels`` (a labels file's path or a loaded ``Labels``) labels each trace as it is read;
    ``seen_ids`` collects the ids read (the first 20), to say which there were;
    ``all_states`` shows every guard's state under every round, not only where it changed."""
    from ..input.diagnostics import Diagnostics
    from ..input.labels import as_labels
    from ..readers.load import read_traces
    from .explain import guard_annotator

    labels = as_labels(labels)
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    seen = shown = 0
    for trace in read_traces(paths, diagnostics, input_format):
        seen += 1
        if seen_ids is not None and len(seen_ids) < 20:
            seen_ids.append(trace.id)
        if labels is not None:
            labels.apply(trace)
        if trace_id is not None and trace.id != trace_id:
            continue
        shown += 1
        render_trace(console, trace, guard_annotator(trace, settings, all_states) if settings is not None else None)
    if labels is not None:
        labels.finish(diagnostics)
    console.file.flush()
    return seen, shown
