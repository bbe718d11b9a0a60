"""The replay report a person reads in a terminal.

Each line is made as a Rich ``Text`` for a console that shows colours, and as a
``PlainText`` for one that does not (a file, a pipe: see ``plain_text``), which needs
nothing of Rich: ``_text_class`` says which, and the wrapping below serves both.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..text.textsafe import neutralize, one_line
from .plain_text import CELLS, PlainConsole, PlainText, cell_len
from .data import count_unchecked, fire_groups
from .records import ComparisonRecord, FireRecord, HeaderRecord, TotalsRecord, TraceRecord
from .wording import basis_note, count, enable_hint, location, notes, number, outcome_lines, pct, policy_headline, policy_lines, recorded_text, seconds, shown_id, unchecked_remedy

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

ACTION_STYLES = {"hint": "cyan", "block": "yellow", "reject": "magenta", "stop": "bold red", "abort": "bold red"}


def _text_class(console: Console | PlainConsole) -> type:
    """What a line printed on ``console`` is made of: ``PlainText`` for a console without
    colours, Rich's ``Text`` otherwise."""
    if isinstance(console, PlainConsole):
        return PlainText
    from rich.text import Text

    return Text


def _literal(line_class: type, value: str, style: str = "") -> Text | PlainText:
    """Untrusted text as one line of ``line_class``: neutralized, never read as markup
    (``textsafe.plain`` for either kind of line)."""
    return line_class(neutralize(value), style=style)


def _expectations(console: Console | PlainConsole, trace: TraceRecord) -> None:
    """Broken expectations, first: they are what a reader must not miss. (Those about
    guards that are not running are counted in the summary, not listed per trace.)"""
    T = _text_class(console)
    for item in trace.expectations:
        if item.met is False:
            line = T("  ✗ expectation broken: ", style="bold red")
        elif item.unknown_guard:
            line = T("  ? expectation not checked: ", style="yellow")
        else:
            continue
        line.append_text(_literal(T, item.message + (f" ({item.note})" if item.note else "")))
        emit(console, line, 4)


def _where(fire: FireRecord, turns: int) -> str:
    """``round 5`` or, in a conversation of several turns, ``turn 2 round 5``."""
    return (f"turn {fire.turn} " if turns > 1 else "") + f"round {fire.round:>2}"


def print_table(console: Console | PlainConsole, table) -> None:
    """A Rich table without the spaces Rich pads its last column with."""
    if isinstance(console, PlainConsole):
        with console.rich().capture() as captured:
            console.rich().print(table)
        for line in captured.get().splitlines():
            console.print(line.rstrip())
        return
    from rich.text import Text

    with console.capture() as captured:
        console.print(table)
    for line in captured.get().splitlines():
        console.print(Text.from_ansi(line.rstrip()))


def whole(value: str, style: str = "", *, keep: str = "start", line_class: type | None = None) -> Text | PlainText:
    """Untrusted text that names something (a trace id, a place): ``emit`` moves it to a
    line of its own when it does not fit where it is and, when it is longer than a whole
    line, cuts it with an ellipsis, keeping its ``start`` (an id) or its ``end`` (a path,
    whose file name and place come last); it never breaks it inside (a folded id,
    ``task-[mo`` / ``bile_data_issue]``, reads as two words and cannot be copied).
    A Rich ``Text`` unless ``line_class`` says ``PlainText``."""
    safe = neutralize(value)
    if line_class is PlainText:
        return PlainText(safe, style, wholes=[(0, len(safe), keep)])
    from rich.style import Style
    from rich.text import Text

    text = Text(safe, style=style)
    text.stylize(Style(meta={"whole": keep}))  # a mark for emit: no look of its own
    return text


def _whole_spans(text: Text | PlainText) -> list[tuple[int, int, str]]:
    if isinstance(text, PlainText):
        return text.wholes
    return [(s.start, s.end, meta["whole"]) for s in text.spans if (meta := getattr(s.style, "meta", None)) and meta.get("whole")]


def _cut_whole(text: Text | PlainText, limit: int) -> Text | PlainText:
    """``text`` with each whole stretch longer than ``limit`` cells cut to it with "…"."""
    for start, end, keep in sorted(_whole_spans(text), reverse=True):
        stretch = text.plain[start:end]
        if cell_len(stretch) <= limit:
            continue
        before, middle, after = text.divide([start, end]) if start else (type(text)(), *text.divide([end]))
        if keep == "start":
            middle.truncate(limit, overflow="ellipsis")
        else:
            first = next(k for k in range(1, len(stretch)) if cell_len(stretch[k:]) <= limit - 1)
            middle = middle.divide([first - 1])[1]
            middle.plain = "…" + middle.plain[1:]  # same length: the styles stay in place
        text = type(text)(style=text.style, end=text.end).append_text(before).append_text(middle).append_text(after)
    return text


def emit(console: Console | PlainConsole, text: Text | PlainText, indent: int = 4) -> None:
    """Print ``text`` within the console's width: words wrapped (never cut by the
    terminal mid-word), continuation lines indented by ``indent``, no trailing spaces;
    a ``whole`` stretch is never broken inside."""
    width = max(40, console.width)
    if isinstance(console, PlainConsole):
        for piece in wrapped_plain(text, width, indent):
            console.print(piece)
        return
    for line in wrapped(text, width, indent):
        console.print(line)


def wrapped(text: Text | PlainText, width: int, indent: int = 4) -> list[Text | PlainText]:
    """The lines ``emit`` prints for ``text`` at ``width`` cells (each within it)."""
    text.rstrip()
    if cell_len(text.plain) <= width:
        return [text]
    text = _cut_whole(text, width - indent)
    lines: list[Text] = []
    for paragraph in text.split("\n", allow_blank=True) if "\n" in text.plain else (text,):
        first = width if not lines else width - indent
        for line in paragraph.divide(_breaks(paragraph.plain, first, width - indent, _whole_spans(paragraph))):
            line.rstrip()
            lines.append(line if not lines else type(text)(" " * indent).append_text(line))
    return lines


def wrapped_plain(text: Text | PlainText, width: int, indent: int = 4) -> list[str]:
    """The plain text of the lines ``wrapped`` makes, broken at the same places, without
    a Text for each piece: what a console without colours prints."""
    if _whole_spans(text):  # a stretch that may need cutting first: rare, done on the Text
        return [line.plain for line in wrapped(text, width, indent)]
    whole_text = text.plain.rstrip()
    if cell_len(whole_text) <= width:
        return [whole_text]
    lines: list[str] = []
    for paragraph in whole_text.split("\n"):
        first = width if not lines else width - indent
        cuts = _breaks(paragraph, first, width - indent)
        for start, end in zip([0, *cuts], [*cuts, len(paragraph)]):
            piece = paragraph[start:end].rstrip()
            lines.append(piece if not lines else " " * indent + piece)
    return lines


# A word and the spaces after it (group 1: the word, with any spaces before the first).
_WORD = re.compile(r"(\s*\S+)\s*")


def _words(text: str, whole: list[tuple[int, int, str]]) -> list[tuple[int, int, int]]:
    """The words of ``text``: where each starts, where its spaces start and where they
    end; the words of a ``whole`` stretch are one."""
    out: list[tuple[int, int, int]] = []
    for match in _WORD.finditer(text):
        start = match.start()
        if whole and out and any(a < start < b and a <= out[-1][0] for a, b, _keep in whole):
            out[-1] = (out[-1][0], match.end(1), match.end())
        else:
            out.append((start, match.end(1), match.end()))
    return out


def _breaks(text: str, first: int, width: int, whole: list[tuple[int, int, str]] = ()) -> list[int]:
    """Where to break ``text`` into lines of at most ``first`` cells, then ``width``
    (the continuation lines are indented): between words; a
    word longer than a whole line (a run of Chinese, a long JSON value) is folded from
    where it starts, not moved under its label first (Rich's own wrap leaves "user:"
    alone on a line above a Chinese sentence). A ``whole`` stretch is one word, cut to
    fit a line beforehand: it is never folded."""
    breaks: list[int] = []
    used = 0
    limit = first
    one_cell_each = text.isascii() and text.isprintable()
    for start, spaces, end in _words(text, whole):
        if one_cell_each:
            length, with_space = spaces - start, end - start
        else:
            length = cell_len(text[start:spaces])
            with_space = length + cell_len(text[spaces:end])  # the word's own cells counted once
        if used + length <= limit:
            used += with_space
            continue
        if length <= width:  # fits on a line of its own: move it there
            if used:
                breaks.append(start)
                limit = width
            used = with_space
            continue
        word = text[start:end]
        position = start
        # Fold: fill this line, then whole lines; in compact JSON, after the last "," ":"
        # "{" or "[" of the line when that keeps it at least half full (between tokens,
        # not inside a key or a value).
        after_token: tuple[int, int] | None = None  # (position after it, cells used up to it)
        for char in word:
            size = 1 if " " <= char < "\x7f" else CELLS[char]
            if used + size > limit and used:
                if after_token is not None and after_token[1] * 2 >= limit and after_token[0] < position:
                    breaks.append(after_token[0])
                    used -= after_token[1]
                else:
                    breaks.append(position)
                    used = 0
                limit = width
                after_token = None
            used += size
            position += 1
            if char in ",:{[":
                after_token = (position, used)
    return [b for b in breaks if 0 < b < len(text)]


def _trace_head(console: Console | PlainConsole, trace: TraceRecord) -> None:
    """Where the trace is, its id and outcome, and what it cost as recorded."""
    T = _text_class(console)
    head = T()
    head.append_text(whole(location(trace), "dim", keep="end", line_class=T))
    ident = shown_id(trace)  # not again when it is the location's own text
    if ident is not None:
        head.append("  ")
        head.append_text(whole(ident, "bold cyan", line_class=T))
    outcome = trace.labels.get("outcome")
    if outcome:
        head.append("  ")
        head.append_text(_literal(T, f"outcome={outcome}", "magenta"))
    # "answered" and an error need no word here (the facts line says "ended without an
    # answer"); a submit or a limit is what tells a reader why no outcome was inferred.
    if trace.ending in ("submitted", "limit"):
        head.append("  ")
        head.append_text(_literal(T, f"ending={trace.ending}", "magenta"))
    emit(console, head, 2)
    turns = trace.turns
    facts = "  " + (f"{count(turns, 'turn')} · " if turns > 1 else "")
    facts += f"{count(trace.rounds, 'round')} · {count(trace.tool_calls, 'tool call')} · {number(trace.tokens)} tokens"
    facts += basis_note(trace)
    if trace.seconds is not None:
        facts += f" · {seconds(trace.seconds)}"
    if not trace.answered:
        facts += " · ended without an answer" + (f": {one_line(trace.error, 60)}" if trace.error else "")
    emit(console, _literal(T, facts, "dim"), 2)


def _trace_block(console: Console | PlainConsole, trace: TraceRecord) -> None:
    T = _text_class(console)
    _trace_head(console, trace)
    turns = trace.turns
    _expectations(console, trace)
    if not trace.fires:
        console.print(T("  no guard fired", style="green"))
        return
    policy = trace.policy
    # The same soft action of the same guard many times (R002 blocking every lap of a
    # loop) reads as one line with its rounds, not a screenful; fires after the policy
    # left their turn are what that guard would do alone.
    for fire, repeats, after_stop in fire_groups(trace):
        line = T("  ")
        line.append(f"{fire.code} ", style="bold")
        line.append(f"{fire.name:<28}", style="dim")
        line.append(f" {_where(fire, turns)} {fire.phase.replace('_', ' '):<12} ")
        line.append(f"{fire.action.upper():<6}", style=ACTION_STYLES.get(fire.action, ""))
        if repeats:
            rounds = ", ".join(str(r) for r in repeats)
            line.append(f"  and {len(repeats)} more: round{'s' if len(repeats) > 1 else ''} {rounds}", style="dim")
        if after_stop:
            line.append("  (alone, after the policy's stop)", style="dim")
        if fire.stale:
            line.append("  stale: the call's recorded result changed; the block would have hidden it", style="bold yellow")
        emit(console, line, 6)
        emit(console, T("      ").append_text(_literal(T, one_line(fire.reason, 240), "dim" if after_stop else "")), 6)
        if fire.new_information:
            found = fire.new_information
            # what it was names the tool: untrusted text, neutralized as the reason above
            emit(console, _literal(T, f"      the recorded run found new information at round {found.round} ({found.what})", "yellow"), 6)
    headline, policy_notes = policy_lines(trace)
    if not policy.stops:
        emit(console, T("  policy: " + headline, style="dim"), 10)
        return
    emit(console, T("  policy: " + headline, style="bold"), 10)
    if policy_notes:
        emit(console, T("          " + "; ".join(policy_notes), style="dim"), 10)
    if policy.outcome_change:
        emit(console, T(f"          {policy.outcome_change}", style="bold yellow"), 10)
    if policy.possible_harm:
        emit(console, T(f"          harm: {policy.possible_harm}", style="bold red"), 10)


def _preset_block(console: Console | PlainConsole, trace: TraceRecord) -> None:
    """A trace under several presets: where each one stops, and what that saves."""
    T = _text_class(console)
    _trace_head(console, trace)
    width = max(len(name) for name in trace.presets)
    for name, run in trace.presets.items():
        policy = run.policy
        line = T(f"  {name:<{width}}  ", style="bold")
        headline = policy_headline(policy, trace)
        if headline is not None:
            line.append(headline)
        else:
            line.append("no stop", style="green" if run.fires == 0 else "dim")
        notes = []
        if policy.possible_harm:
            notes.append(("harm: " + policy.possible_harm, "bold red"))
        if any(stop.new_information for stop in policy.stops):
            notes.append(("cut before new information", "yellow"))
        if policy.stale_blocks:
            notes.append((f"{count(policy.stale_blocks, 'stale block')} (not counted)", "yellow"))
        if run.expectations_broken:
            notes.append((f"{count(run.expectations_broken, 'expectation')} broken", "bold red"))
        for text, style in notes:
            line.append("  ")
            line.append(text, style=style)
        emit(console, line, 14)


def _preset_summary(console: Console | PlainConsole, by_preset: dict[str, TotalsRecord]) -> None:
    from rich import box
    from rich.table import Table

    T = _text_class(console)

    table = Table(
        box=box.SIMPLE_HEAD, title="Presets side by side", title_justify="left", title_style="bold underline", pad_edge=False, show_edge=False, collapse_padding=True
    )
    table.add_column("preset", no_wrap=True)
    # Narrow headers: the table must fit an 80-column terminal.
    for column in ("stops", "harm¹", "cut²", "stale³", "saved:\nLLM calls", "\ntool calls", "\ntokens", "\ntime"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, totals in by_preset.items():
        saved = totals.saved

        def cell(key: str, unit: str = "") -> str:
            value = getattr(saved, key)
            if value is None:
                return "unknown"
            return seconds(value) if unit else f"{value:,}"

        table.add_row(
            name,
            f"{totals.traces_stopped}/{totals.traces}",
            str(totals.possible_harm),
            str(totals.stops_before_new_information),
            str(totals.stale_blocks),
            cell("llm_calls"),
            cell("tool_calls"),
            cell("tokens"),
            cell("seconds", "s"),
        )
    print_table(console, table)
    whole = next(iter(by_preset.values())).whole
    emit(console, T(f"  as recorded: {recorded_text(whole)}"), 4)
    broken = [f"{name} {totals.expectations_broken}" for name, totals in by_preset.items() if totals.expectations_broken]
    if broken:
        emit(console, T("  expectations broken: " + " · ".join(broken), style="bold red"), 4)
    emit(
        console,
        T(
            "  saved: what the preset's stops and blocks save (negative: a forced answer dearer than what it replaced)"
            + basis_note(next(iter(by_preset.values())).saved)
            + ". ¹ runs harmed: labelled a success, healthy or mixed, and stopped; ² stops before the recorded run found something new; "
            "³ blocks that would have hidden a changed result (a stale cached answer, or a refused call whose result had changed; not counted as saved).",
            style="dim",
        ),
        4,
    )
    console.print()


def write_statistics(console: Console | PlainConsole, totals: TotalsRecord) -> None:
    """``--statistics``, as ruff's: one row per guard that fired (code, name, fires, traces
    it fired in), most fires first, instead of the report trace by trace."""
    T = _text_class(console)
    from ..guards import guard_by_key

    rows = sorted(totals.by_guard.items(), key=lambda item: (-item[1].fires, item[0]))
    if not rows:
        console.print(T(f"no guard fired on {count(totals.traces, 'trace')}"))
        return
    names = {code: getattr(guard_by_key(code), "name", "") for code, _ in rows}
    width = max(len(name) for name in names.values())
    console.print(T(f"{'fires':>6}  {'traces':>6}  {'code':<5} {'name':<{width}}".rstrip(), style="bold"))
    for code, counts in rows:
        console.print(T(f"{counts.fires:>6,}  {counts.traces:>6,}  {code:<5} {names[code]}".rstrip()))


# Traces where nothing happened (no guard fired, no expectation broken) listed in full
# before the rest are only counted: a folder of 500 runs with one fire reads as that fire
# and the summary, not 2,500 lines of "no guard fired".
QUIET_LISTED = 3


def _quiet(trace: TraceRecord, presets: bool) -> bool:
    """Nothing to see: no guard fired and no expectation is broken or unknown."""
    if presets:
        return not any(run.fires or run.expectations_broken for run in trace.presets.values())
    return not trace.fires and not any(e.met is False or e.unknown_guard for e in trace.expectations)


class TerminalWriter:
    """Prints each trace as it is replayed, then the tokenizer comparison and totals.
    Quiet traces (see ``_quiet``): all with ``all_traces``, none with ``only_fires``, else
    the first ``QUIET_LISTED``, and how many more there were in the summary."""

    def __init__(
        self, console: Console | PlainConsole, *, only_fires: bool = False, all_traces: bool = False, quiet: bool = False, statistics: bool = False, deselected=lambda: 0
    ) -> None:
        self.console = console
        self.T = _text_class(console)  # what its lines are made of
        self.only_fires = only_fires
        self.quiet_room = None if all_traces else 0 if only_fires else QUIET_LISTED
        self.quiet_unlisted = 0
        self.quiet = quiet  # the summary only, no trace blocks
        self.statistics = statistics  # the table of fires per guard instead of the trace blocks and summary
        self.deselected = deselected  # traces -k left out, known once every trace was read
        self.tokenizers: list[str] = []
        self.compared = 0
        self.differing: list[tuple[str, ComparisonRecord]] = []
        self.presets: list[str] = []
        self.unchecked: dict[str, int] = {}  # guard -> expectations about it that no running guard checked

    def begin(self, header: HeaderRecord) -> None:
        self.tokenizers = header.tokenizers or ()
        self.presets = header.presets or ()

    def trace(self, trace: TraceRecord) -> None:
        count_unchecked(self.unchecked, trace)
        if self.quiet or self.statistics:
            return
        comparison = trace.tokenizer_comparison
        if comparison is not None:
            self.compared += 1
            if comparison.differs:
                self.differing.append((trace.id, comparison))
        if self.only_fires and not (any(run.fires for run in trace.presets.values()) if self.presets else trace.fires):
            return
        if self.quiet_room is not None and _quiet(trace, bool(self.presets)):
            if not self.quiet_room:
                self.quiet_unlisted += 1
                return
            self.quiet_room -= 1
        with self.console:  # one write per trace, not one per line
            (_preset_block if self.presets else _trace_block)(self.console, trace)
            self.console.print()

    def end(self, totals: TotalsRecord, warnings: list[dict[str, Any]]) -> None:
        if self.statistics:
            write_statistics(self.console, totals)
            return
        if self.quiet_unlisted:
            emit(
                self.console,
                self.T(
                    f"… and {count(self.quiet_unlisted, 'more trace')} where no guard fired, not listed (--all-traces lists them)",
                    style="dim",
                ),
                2,
            )
            self.console.print()
        if self.tokenizers:
            self._comparison()
        if self.presets:
            _preset_summary(self.console, totals.by_preset)
            return
        self._summary(totals)

    def _comparison(self) -> None:
        console, T = self.console, self.T
        console.print(T(f"P001 tokenizer comparison ({' vs '.join(self.tokenizers)})", style="bold underline"))
        if not self.differing:
            console.print(T(f"  the tokenizers agree on all {count(self.compared, 'trace')}", style="green"))
            console.print()
            return
        for trace_id, item in self.differing:
            head = T("  ")
            head.append_text(whole(trace_id, "bold cyan", line_class=T))
            head.append(
                "  "
                + " · ".join(
                    f"{r.tokenizer}: {'stop at round ' + str(r.fires_at) if r.fires_at else 'no stop'}"
                    for r in item.runs
                )
            )
            emit(console, head, 4)
            console.print(T("    round " + " ".join(f"{r.tokenizer:>7}" for r in item.runs), style="dim"))
            for i in range(len(item.runs[0].scores)):
                cells = [r.scores[i] for r in item.runs]
                if all(c is None for c in cells):
                    continue
                row = f"    {i + 1:>5} " + " ".join(f"{c:>7.2f}" if c is not None else f"{'-':>7}" for c in cells)
                console.print(T(row))
        emit(
            console,
            T(
                f"  the tokenizers differ on {len(self.differing)} of {count(self.compared, 'trace')} "
                "(scores: best similarity of each search round to an earlier search)",
                style="dim",
            ),
            4,
        )
        console.print()

    def _summary(self, totals: TotalsRecord) -> None:
        console, T = self.console, self.T
        whole, saved = totals.whole, totals.saved
        console.print(T("Summary", style="bold underline"))
        emit(
            console,
            T(
                f"  {count(totals.traces, 'trace')}"
                + (f" ({self.deselected():,} deselected by -k)" if self.deselected() else "")
                + f" · {totals.traces_with_fires} with fires · "
                f"{totals.traces_stopped} stopped by the policy"
                + (f" · {totals.possible_harm} harmed (labelled a success, healthy or mixed, and stopped)" if totals.possible_harm else "")
                + (f" · {count(totals.expectations_broken, 'expectation')} broken" if totals.expectations_broken else "")
                + (f" · {totals.stops_before_new_information} cut before new information" if totals.stops_before_new_information else "")
                + (f" · {count(totals.stale_blocks, 'stale block')}" if totals.stale_blocks else "")
                + (
                    f" · {totals.no_answer_to_forced_answer} no answer → forced answer"
                    if totals.no_answer_to_forced_answer
                    else ""
                )
            ),
            4,
        )
        rows = [
            (saved.llm_calls, whole.llm_calls, "LLM call", ""),
            (saved.tool_calls, whole.tool_calls, "tool call", ""),
            (saved.tokens, whole.tokens, "token", basis_note(saved)),
        ]
        gains = [f"{part:,} of {total:,} {noun}s{notes(pct(part, total), note)}" for part, total, noun, note in rows if part > 0]
        costs = [f"{count(-part, 'more ' + noun)}{notes(pct(-part, total), note)}" for part, total, noun, note in rows if part < 0]
        if whole.seconds:
            time = saved.seconds or 0.0
            if time > 0:
                gains.append(f"{seconds(time)} of {seconds(whole.seconds)}{pct(time, whole.seconds)}")
            elif time < 0:
                costs.append(f"{seconds(-time)} more{pct(-time, whole.seconds)}")
        emit(console, T("  saved: " + (" · ".join(gains) if gains else "nothing")), 9)
        if costs:
            emit(console, T("  costs: " + " · ".join(costs) + " — forced answers dearer than what they replaced"), 9)
        heading, split = outcome_lines(totals)
        if heading:
            emit(console, T(f"  {heading}" + (":" if split else ""), style="dim"), 4)
            for bucket, title, text in split:
                line = T("    ")
                line.append(f"{title}:", style={"failure": "bold green", "success": "yellow"}.get(bucket, "bold"))
                line.append(f" {text}")
                emit(console, line, 6)
        if self.unchecked:
            emit(
                console,
                T(
                    f"  {count(sum(self.unchecked.values()), 'expectation')} not checked: about "
                    + ", ".join(sorted(self.unchecked))
                    + f", which the settings do not run ({enable_hint(self.unchecked)}"
                    + (f", or use {remedy})" if (remedy := unchecked_remedy(self.unchecked)) else ")"),
                    style="yellow",
                ),
                4,
            )
        if totals.by_guard:
            emit(
                console,
                T(
                    "  fires: " + " · ".join(f"{code} {v.fires} in {count(v.traces, 'trace')}" for code, v in totals.by_guard.items()),
                    style="dim",
                ),
                9,
            )
