"""The round-by-round timeline of normalized traces (``tracecheck show``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone

from rich.console import Console
from rich.text import Text

from ..engine.costs import RoundCost, round_costs, trace_totals
from ..model import Round, ToolCall, Trace, Usage
from .wording import BASIS_NOTES, count, number, seconds, shown_id
from .plain_text import PlainText
from .terminal import whole, wrapped, wrapped_plain
from ..text.textsafe import neutralize, one_line, plain, single_line

# A hook that lets a caller add lines under each round (the guard engine adds its state).
RoundAnnotator = Callable[[Trace, Round], Iterable[Text]]


# What a timeline's lines are made of: Rich's Text, or plain lines for a colourless console.
LineMaker = Callable[..., "Text | PlainText"]


def _clock(value: float | None) -> str:
    if value is None:
        return "--:--:--"
    try:
        return datetime.fromtimestamp(value, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    except (ValueError, OverflowError, OSError):  # readers keep times in range; a model built by hand may not
        return "--:--:--"


def _seconds(value: float | None) -> str:
    return "?" if value is None else seconds(value)


def _tokens(usage: Usage | None, cost: RoundCost) -> str:
    if cost.basis != "measured" or usage is None:
        # What replay counts for this round, and how it is known.
        return f"in {cost.input_tokens:,} / out {cost.output_tokens:,} ({cost.basis})"
    parts = [f"in {number(usage.input_tokens)}", f"out {number(usage.output_tokens)}"]
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
    head.append_text(whole(trace.id, "bold cyan"))
    where = trace.place
    if shown_id(trace) is None:
        where = where[: -len(trace.id)]  # the id names the file and line: only the folder is left to say
    head.append("  ")
    if where:
        head.append_text(whole(where, "dim", keep="end"))
        head.append(" · ", style="dim")
    head.append_text(plain(trace.format, "dim"))
    head.append("\n  ")
    facts = [count(totals.turns, "turn")] if totals.turns > 1 else []
    facts += [count(totals.llm_calls, "round"), count(totals.tool_calls, "tool call")]
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


def _call_lines(call: ToolCall, new: LineMaker = Text) -> list[Text | PlainText]:
    # append(neutralize(x), style) is what append_text(plain(x, style)) adds to a Text.
    line = new("    → ", style="cyan")
    line.append(neutralize(call.name), "bold")
    line.append(" ")
    line.append(neutralize(one_line(call.arguments_raw, 200)))
    line.append(neutralize(f"  [{call.id}]"), "dim")
    lines = [line]
    if call.arguments_error:
        lines.append(new(neutralize(f"      ! {call.arguments_error}"), style="yellow"))
    res = call.result
    out = new("      ← ", style="cyan")
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
        out.append(neutralize(one_line(res.content, 160)))
    lines.append(out)
    return lines


def _wrapped(width: int, line: Text) -> Iterator[Text]:
    """A timeline line as printed within ``width``: wrapped between words, the
    continuation indented two past the line's own indent (as the replay report does)."""
    for part in line.split("\n") if "\n" in line.plain else (line,):
        yield from wrapped(part, width, _indent(part) + 2)


def _indent(line: Text) -> int:
    return len(line.plain) - len(line.plain.lstrip(" "))


def _writes_plain_text(console: Console) -> bool:
    """Whether ``console`` writes text without any escape code (no colours, no links)
    and keeps nothing of it (no recording, no capture, no notebook)."""
    return console.color_system is None and not console.record and not console.is_jupyter and not getattr(console, "_buffer_index", 1)  # inside a capture: Rich keeps it


def timeline(trace: Trace, annotate: RoundAnnotator | None = None, new: LineMaker = Text) -> Iterator[Text | PlainText]:
    """The lines ``show`` prints for ``trace`` (a line may hold line breaks), unwrapped,
    made a round at a time as they are printed (the lines already printed are not kept);
    a worker process (``--jobs``) makes them all and sends them back as a list. ``new``
    makes each line after the head: ``Text``, or ``PlainText`` for a colourless console."""
    costs = round_costs(trace)
    yield trace_summary(trace, costs)
    lines: list[Text | PlainText] = []
    said = {m.before_round: m for m in trace.user_messages}
    several_turns = len({r.turn for r in trace.rounds}) > 1
    for rnd, cost in zip(trace.rounds, costs):
        message = said.get(rnd.index)
        if several_turns and (message is not None or rnd.index == 1):
            lines.append(new(f"  turn {rnd.turn}", style="bold magenta"))
        if message is not None:
            lines.append(new("    user: ", style="magenta").append(neutralize(one_line(message.text, 200))))
        head = new(f"  round {rnd.index:>2}", style="bold")
        if rnd.started_at is None and rnd.ended_at is not None:
            head.append(f"  ended {_clock(rnd.ended_at)}", style="dim")  # the format records when the reply came only
        else:
            head.append(f"  {_clock(rnd.started_at)}", style="dim")
        if rnd.seconds is not None:
            head.append(f" +{_seconds(rnd.seconds)}", style="dim")
        head.append(f"  {_tokens(rnd.usage, cost)}", style="dim")
        if rnd.finish_reason:
            head.append(neutralize(f"  {rnd.finish_reason}"), "dim")
        if rnd.is_final:
            head.append("  final answer" if rnd is trace.rounds[-1] else "  reply", style="green")
        lines.append(head)
        if rnd.text.strip():
            lines.append(new("    ").append(neutralize(one_line(rnd.text, 200)), "italic"))
        for call in rnd.tool_calls:
            lines += _call_lines(call, new)
        if annotate is not None:
            lines += annotate(trace, rnd)
        yield from lines
        lines.clear()
    for message in trace.user_messages:
        if message.before_round > len(trace.rounds):
            yield new("    user: ", style="magenta").append(neutralize(one_line(message.text, 200)))


def prints_plain(console: Console) -> bool:
    """Whether ``print_timeline`` writes to ``console`` plain text only (no colours, no
    folding by Rich): then ``PlainText`` lines are all it needs."""
    return _writes_plain_text(console) and max(40, console.width) <= console.width


def print_timeline(console: Console, lines: Iterable[Text | PlainText]) -> None:
    """Print a timeline, then a blank line. The wrapped lines go to the console a block
    at a time: one print per line cost more than everything else ``show`` does; to a
    console without colours (a file, a pipe) they are written as plain text, which is
    all Rich would write there."""
    width = max(40, console.width)
    if prints_plain(console):
        write = console.file.write
        for line in lines:
            for part in line.split("\n") if "\n" in line.plain else (line,):
                write("".join(piece + "\n" for piece in wrapped_plain(part, width, _indent(part) + 2)))
        console.print()
        return
    block: list[Text] = []
    for line in lines:
        block.extend(_wrapped(width, Text(line.plain) if isinstance(line, PlainText) else line))
        if len(block) >= _BLOCK_LINES:
            _print_block(console, block, width)
            block = []
    _print_block(console, block, width)
    console.print()


_BLOCK_LINES = 200


def _print_block(console: Console, block: list[Text], width: int) -> None:
    if not block:
        return
    if width > console.width:  # a console narrower than 40 cells folds the lines itself
        for line in block:
            console.print(line)
        return
    # The lines fit: their segments are printed as they are (Rich would split them again).
    from rich.segment import Segments

    console.print(Segments([segment for line in block for segment in line.render(console, end="\n")]), end="", soft_wrap=True)


class TimelineMaker:
    """What ``show`` writes for each trace of one input file, made where the file is read
    (in a worker process with ``--jobs``, see ``engine.jobs``): (trace id, its timeline
    lines or report entry), with None for a trace that ``trace_id`` leaves out."""

    def __init__(
        self, settings, input_format: str | None, labels, trace_id: str | None, format: str, all_states: bool = False, selection=None, quiet: bool = False, lazy: bool = False,
        plain_lines: bool = False,
    ) -> None:
        self.settings, self.input_format, self.labels, self.trace_id, self.format = settings, input_format, labels, trace_id, format
        self.all_states = all_states  # every guard's state under every round, not only where it changed
        self.selection = selection  # -k: the traces left out are not seen at all
        self.quiet = quiet  # the terminal timeline's first line only: the trace's summary
        self.lazy = lazy  # the timeline made as it is printed (not in a worker: it is sent back whole)
        self.plain_lines = plain_lines  # for a console without colours: PlainText, not Text

    def items(self, source, diagnostics):
        from ..engine.batch import ReplayItem
        from ..engine.replay import replay_trace
        from ..readers.load import read_source
        from .explain import guard_annotator
        from .replay_report import report_entry_with_rounds

        for trace in read_source(source, diagnostics, self.input_format):
            if self.labels is not None:
                self.labels.apply(trace)
            if self.selection is not None and not self.selection.keep(trace, diagnostics):
                continue
            if self.trace_id is not None and trace.id != self.trace_id:
                yield trace.id, None
            elif self.format == "terminal" and self.quiet:
                yield trace.id, [trace_summary(trace)]
            elif self.format == "terminal":
                new = PlainText if self.plain_lines else Text
                annotate = guard_annotator(trace, self.settings, self.all_states, new) if self.settings is not None else None
                made = timeline(trace, annotate, new)
                yield trace.id, made if self.lazy else list(made)
            else:
                guards = self.settings.build() if self.settings is not None else []
                yield trace.id, report_entry_with_rounds(ReplayItem(replay_trace(trace, guards)))
