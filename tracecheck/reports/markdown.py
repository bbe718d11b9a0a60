"""The replay report as Markdown (for PR comments and job summaries): what the terminal
report says, in the same words and figures (data.py makes both), laid out for a page.

Trace text is untrusted. It is escaped only where Markdown (GitHub's) would act on it:
``\\`` before punctuation, code and emphasis marks, links (``](``), paired ``~`` and ``$``
(strikethrough, math), ``<`` (HTML and autolinks), ``&`` before an entity, ``|``
(tables), a line-leading block mark; and an ``@mention``, a ``#123`` reference or a bare
URL is broken by a zero width space so that nobody is notified and nothing is linked. The rest reads as it is: ``snake_case``, paths, quotes.
"""

from __future__ import annotations

import re
from typing import Any

from ..text.textsafe import neutralize, one_line
from ..model import place_text
from .data import count_unchecked, fire_groups
from .records import ComparisonRecord, HeaderRecord, TotalsRecord, TraceRecord
from .check_records import CheckReport
from .wording import (
    basis_note,
    check_summary,
    count,
    enable_hint,
    location,
    outcome_lines,
    policy_headline,
    policy_lines,
    recorded_text,
    seconds,
    shown_id,
    status_tag,
    unchecked_remedy,
    where_text,
)

# A backslash before ASCII punctuation would escape it: it is escaped itself.
_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
# Marks that start code or emphasis, or end a table cell.
_ALWAYS = re.compile(r"([`*|])")
# A link or an image is [text](target): the parenthesis after the bracket is escaped.
# (A bare [text] is no link: this report never defines a reference.)
_LINK = re.compile(r"\](?=\()")
# Strikethrough and math need a pair: a lone ~ or $ stays as it is.
_PAIRED = re.compile(r"([~$])")
# An underscore starts emphasis only at a word's edge (snake_case is left alone).
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# A block mark at the start: a heading, a quote, a list item, a setext underline, a
# task list's box (the text may follow "- ").
_LEADING_BLOCK = re.compile(r"^(?:[#>+=\[-]|\d+(?=[.)](?:\s|$)))")
# GitHub turns these into notifications and links even in escaped text: @mentions (and
# e-mail autolinks), #123 and GH-123 issue references, bare scheme:// and www. URLs.
# A zero width space right after the trigger keeps the text as it reads, not what it does.
_ZERO_WIDTH_SPACE = "&#8203;"
_GITHUB_TRIGGERS = re.compile(r"@|(?<=#)(?=\d)|(?<=\bGH)(?=-\d)|(?<=[a-z0-9]:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)


def md(text: Any) -> str:
    """Untrusted text (an id, a reason, a file name) as literal Markdown on one line."""
    value = neutralize(str(text))
    value = _BACKSLASH.sub(r"\\\\", value)
    value = _ALWAYS.sub(r"\\\1", value)
    value = _LINK.sub("]\\\\", value)
    if any(value.count(mark) > 1 for mark in "~$"):
        value = _PAIRED.sub(r"\\\1", value)
    value = _EDGE_UNDERSCORE.sub(r"\\_", value)
    value = _ENTITY.sub("&amp;", value).replace("<", "&lt;")
    value = _LEADING_BLOCK.sub(lambda m: m.group() + "\\" if m.group()[0].isdigit() else "\\" + m.group(), value)
    return _GITHUB_TRIGGERS.sub(lambda m: m.group() + _ZERO_WIDTH_SPACE, value)



def _row(name: str, *figures: Any) -> str:
    """A table row: a name (escaped), then figures of ours (written as they are)."""
    return "| " + " | ".join([md(name), *map(str, figures)]) + " |\n"


def _name(trace: TraceRecord) -> str:
    """A trace as a heading or a cell names it: its id and where it is, once."""
    ident = shown_id(trace)
    return md(location(trace)) if ident is None else f"{md(ident)} ({md(location(trace))})"


def _facts(trace: TraceRecord) -> str:
    turns = trace.turns
    facts = [count(turns, "turn")] if turns > 1 else []
    tokens = "?" if trace.tokens is None else f"{trace.tokens:,}"
    facts += [count(trace.rounds, "round"), count(trace.tool_calls, "tool call"), f"{tokens} tokens{basis_note(trace)}"]
    if trace.seconds is not None:
        facts.append(seconds(trace.seconds))
    text = " · ".join(facts)
    if not trace.answered:
        text += " · ended without an answer" + (f": {md(one_line(trace.error, 60))}" if trace.error else "")
    return text


class MarkdownWriter:
    """A section per trace as traces stream in; the totals, comparisons and warnings at the end."""

    def __init__(self, write) -> None:
        self.write = write
        self.presets: list[str] = []
        self.tokenizers: list[str] = []
        self.compared = 0
        self.differing: list[tuple[str, ComparisonRecord]] = []
        self.unchecked: dict[str, int] = {}
        self.harmed: list[tuple[str, str]] = []  # (trace, what the policy would do to it)
        self.broken: list[tuple[str, str]] = []  # (trace, the broken expectation in words)

    def begin(self, header: HeaderRecord) -> None:
        self.presets = header.presets or ()
        self.tokenizers = header.tokenizers or ()
        if self.presets:
            self.write(
                "# tracecheck replay: presets side by side\n\n"
                + "| trace | outcome | "
                + " | ".join(md(name) for name in self.presets)
                + " |\n|---|---|"
                + "---|" * len(self.presets)
                + "\n"
            )
            return
        self.write("# tracecheck replay\n")

    def trace(self, trace: TraceRecord) -> None:
        count_unchecked(self.unchecked, trace)
        comparison = trace.tokenizer_comparison
        if comparison is not None:
            self.compared += 1
            if comparison.differs:
                self.differing.append((_name(trace), comparison))
        if self.presets:
            self._preset_row(trace)
            return
        out = [f"\n## {_name(trace)}\n\n"]
        outcome = trace.labels.get("outcome")
        out.append((f"outcome: **{md(outcome)}** · " if outcome else "") + _facts(trace) + "\n")
        expectations = []
        for item in trace.expectations:
            words = md(item.message + (f" ({item.note})" if item.note else ""))
            if item.met is False:
                expectations.append(f"- ✗ **expectation broken:** {words}\n")
                self.broken.append((_name(trace), words))
            elif item.unknown_guard:
                expectations.append(f"- ? expectation not checked: {words}\n")
        if expectations:
            out += ["\n", *expectations]
        if not trace.fires:
            out.append("\nNo guard fired.\n")
            self.write("".join(out))
            return
        turns = trace.turns
        out.append("\n| guard | where | action | why |\n|---|---|---|---|\n")
        for fire, repeats, after_stop in fire_groups(trace):
            action = fire.action
            if repeats:
                action += f", and {len(repeats)} more: round{'s' if len(repeats) > 1 else ''} " + ", ".join(map(str, repeats))
            if after_stop:
                action += " (alone, after the policy's stop)"
            if fire.stale:
                action += " · stale: the call's recorded result changed; the block would have hidden it"
            why = md(one_line(fire.reason, 240))
            if fire.new_information:
                found = fire.new_information
                why += f" — the recorded run found new information at round {found.round} ({md(found.what)})"
            where = f"{where_text(fire, turns)} {fire.phase.replace('_', ' ')}"
            out.append(f"| {md(fire.code + ' ' + fire.name)} | {where} | {md(action)} | {why} |\n")
        headline, notes = policy_lines(trace)
        policy = trace.policy
        out.append(f"\n**Policy:** {md(headline)}\n")
        for note in notes:
            out.append(f"- {md(note)}\n")
        if policy.outcome_change:
            out.append(f"- **{md(policy.outcome_change)}**\n")
        if policy.possible_harm:
            out.append(f"- **harm:** {md(policy.possible_harm)}\n")
            self.harmed.append((_name(trace), md(policy.possible_harm)))
        self.write("".join(out))

    def _preset_row(self, trace: TraceRecord) -> None:
        cells = [_name(trace), md(trace.labels.get("outcome", ""))]
        for run in trace.presets.values():
            policy = run.policy
            text = policy_headline(policy, trace) or "no stop"
            notes = []
            if policy.possible_harm:
                notes.append("harm: " + policy.possible_harm)
                self.harmed.append((_name(trace), md(policy.possible_harm)))
            if any(s.new_information for s in policy.stops):
                notes.append("cut before new information")
            if policy.stale_blocks:
                notes.append(f"{count(policy.stale_blocks, 'stale block')} (not counted)")
            if run.expectations_broken:
                notes.append(f"{count(run.expectations_broken, 'expectation')} broken")
            cells.append(md(text + ("; " + "; ".join(notes) if notes else "")))
        self.write("| " + " | ".join(cells) + " |\n")

    def _preset_totals(self, by_preset: dict[str, TotalsRecord]) -> None:
        self.write(
            "\n## Presets side by side\n\n"
            "| preset | stops | harm¹ | cut² | stale³ | LLM calls saved | tool calls saved | tokens saved | time saved |\n"
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n"
        )
        for name, totals in by_preset.items():
            saved = totals.saved
            self.write(
                _row(
                    name,
                    f"{totals.traces_stopped}/{totals.traces}",
                    totals.possible_harm,
                    totals.stops_before_new_information,
                    totals.stale_blocks,
                    _number(saved.llm_calls),
                    _number(saved.tool_calls),
                    _number(saved.tokens),
                    seconds(saved.seconds),
                )
            )
        first = next(iter(by_preset.values()))
        whole = first.whole
        self.write(f"\nAs recorded: {recorded_text(whole)}\n")
        broken = [f"{md(name)} {totals.expectations_broken}" for name, totals in by_preset.items() if totals.expectations_broken]
        if broken:
            self.write("\n**Expectations broken:** " + " · ".join(broken) + "\n")
        self.write(
            "\nSaved: what the preset's stops and blocks save (negative: a forced answer dearer than what it replaced)"
            + basis_note(first.saved)
            + ". ¹ runs harmed: labelled a success, healthy or mixed, and stopped; ² stops before the recorded run found something new; "
            "³ blocks that would have hidden a changed result (a stale cached answer, or a refused call whose result had changed; not counted as saved).\n"
        )

    def end(self, totals: TotalsRecord, warnings: list[dict[str, Any]]) -> None:
        if self.presets:
            self._preset_totals(totals.by_preset)
        else:
            self._summary(totals)
        if self.tokenizers:
            self._comparison()
        if self.broken:
            self.write("\n**Broken expectations:**\n\n")
            for name, message in self.broken:
                self.write(f"- {name}: {message}\n")
        if self.harmed:
            self.write("\n**Harm** (runs labelled a success, healthy or mixed that the policy stops):\n\n")
            for name, harm in self.harmed:
                self.write(f"- {name}: {harm}\n")
        if warnings:
            self.write(f"\n## Warnings\n\n{count(len(warnings), 'input warning')}:\n\n")
            for item in warnings:
                where = item["file"] + (f":{item['line']}" if item.get("line") else "")
                self.write(f"- {md(where)}: {md(item['reason'])}\n")

    def _summary(self, totals: TotalsRecord) -> None:
        whole, saved, share = totals.whole, totals.saved, totals.share
        parts = [count(totals.traces, "trace"), f"{totals.traces_with_fires} with fires", f"{totals.traces_stopped} stopped by the policy"]
        if totals.possible_harm:
            parts.append(f"{totals.possible_harm} harmed (labelled a success, healthy or mixed, and stopped)")
        if totals.expectations_broken:
            parts.append(f"{count(totals.expectations_broken, 'expectation')} broken")
        if totals.stops_before_new_information:
            parts.append(f"{totals.stops_before_new_information} cut before new information")
        if totals.stale_blocks:
            parts.append(count(totals.stale_blocks, "stale block"))
        if totals.no_answer_to_forced_answer:
            parts.append(f"{totals.no_answer_to_forced_answer} no answer → forced answer")
        self.write("\n## Summary\n\n" + " · ".join(parts) + "\n\n| | saved | as recorded | share |\n|---|--:|--:|--:|\n")
        rows = [
            ("LLM calls", "llm_calls", _number),
            ("tool calls", "tool_calls", _number),
            ("tokens" + basis_note(saved), "tokens", _number),
            ("time", "seconds", seconds),
        ]
        for title, key, shown in rows:
            value, share_of_key = getattr(saved, key), getattr(share, key)
            part = "-" if share_of_key is None else f"{abs(share_of_key) * 100:.0f}%"
            if value is None:
                text = "unknown"
            elif value < 0:
                text = f"costs {shown(-value)} more"
            else:
                text = shown(value)
            self.write(f"| {title} | {text} | {shown(getattr(whole, key))} | {part} |\n")
        if any(getattr(saved, key) is not None and getattr(saved, key) < 0 for key in ("llm_calls", "tool_calls", "tokens", "seconds")):
            self.write("\nCosts: forced answers dearer than what they replaced.\n")
        heading, split = outcome_lines(totals)
        if heading:
            heading = md(heading[0].upper() + heading[1:])
            self.write(f"\n**{heading}:**\n\n" if split else f"\n{heading}.\n")
            for _bucket, title, text in split:
                self.write(f"- **{md(title)}:** {md(text)}\n")
        if self.unchecked:
            number = sum(self.unchecked.values())
            self.write(
                f"\n{count(number, 'expectation')} not checked: about {', '.join(md(g) for g in sorted(self.unchecked))}, which the settings do not run "
                f"({enable_hint(self.unchecked).replace('with ', 'with `', 1)}`"
                + (f", or use `{remedy}`)\n" if (remedy := unchecked_remedy(self.unchecked)) else ")\n")
            )
        if totals.by_guard:
            self.write(
                "\nFires: " + " · ".join(f"{md(code)} {v.fires} in {count(v.traces, 'trace')}" for code, v in totals.by_guard.items()) + "\n"
            )

    def _comparison(self) -> None:
        self.write(f"\n## P001 tokenizer comparison ({' vs '.join(md(t) for t in self.tokenizers)})\n\n")
        if not self.differing:
            self.write(f"The tokenizers agree on all {count(self.compared, 'trace')}.\n")
            return
        for name, item in self.differing:
            stops = " · ".join(f"{md(r.tokenizer)}: {'stop at round ' + str(r.fires_at) if r.fires_at else 'no stop'}" for r in item.runs)
            self.write(f"**{name}**: {stops}\n\n| round | " + " | ".join(md(r.tokenizer) for r in item.runs) + " |\n|--:|" + "--:|" * len(item.runs) + "\n")
            for i in range(len(item.runs[0].scores)):
                cells = [r.scores[i] for r in item.runs]
                if all(c is None for c in cells):
                    continue
                self.write(f"| {i + 1} | " + " | ".join(f"{c:.2f}" if c is not None else "-" for c in cells) + " |\n")
            self.write("\n")
        self.write(
            f"The tokenizers differ on {len(self.differing)} of {count(self.compared, 'trace')} "
            "(scores: best similarity of each search round to an earlier search).\n"
        )


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "unknown"
    return f"{value:,}{unit}"


def check_markdown_lines(report: CheckReport) -> tuple[list[str], list[str]]:
    """The check's Markdown report as (heading, verdict and table head; one table row per finding)."""
    head = [f"## tracecheck check: {'passed' if report.passed else 'failed'}", "", check_summary(report), ""]
    rows = []
    if report.findings:
        head += ["| | rule | trace | where | finding |", "|---|---|---|---|---|"]
        for f in report.findings:
            mark = "❌" if f.failing else "➖"
            where = place_text(f.file, f.line or 1, f.pointer)
            rows.append(f"| {mark} | {md(f.rule)} | {md(f.trace)} | {md(where)} | {md(f.message + status_tag(f))} |")
    return head, rows
