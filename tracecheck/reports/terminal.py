"""The replay report a person reads in a terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..textsafe import one_line, plain

PHASE_ORDER = {"before_tools": 0, "after_tools": 1, "final": 2}
ACTION_STYLES = {"hint": "cyan", "block": "yellow", "reject": "magenta", "stop": "bold red", "abort": "bold red"}


def _pct(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return ""
    return f" ({100 * part / whole:.0f}%)"


def _num(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if abs(number) == 1 else "s")


def _saving_line(saved: dict[str, Any], trace: dict[str, Any]) -> str:
    parts = [
        f"{_count(saved['llm_calls'], 'LLM call')}{_pct(saved['llm_calls'], trace['rounds'])}",
        f"{_count(saved['tool_calls'], 'tool call')}{_pct(saved['tool_calls'], trace['tool_calls'])}",
        f"{_num(saved['tokens'])} tokens{' (estimated)' if saved['tokens_estimated'] else ''}{_pct(saved['tokens'], trace['tokens'])}",
    ]
    if saved["seconds"] is not None:
        parts.append(f"{saved['seconds']:.1f}s{_pct(saved['seconds'], trace['seconds'])}")
    return ", ".join(parts)


def _trace_block(console: Console, trace: dict[str, Any]) -> None:
    head = Text()
    where = f"{trace['file']}:{trace['line']}" if trace["line"] else trace["file"]
    head.append_text(plain(where, "dim"))
    head.append("  ")
    head.append_text(plain(trace["id"], "bold cyan"))
    outcome = trace["labels"].get("outcome")
    if outcome:
        head.append("  ")
        head.append_text(plain(f"outcome={outcome}", "magenta"))
    console.print(head)
    facts = f"  {_count(trace['rounds'], 'round')} · {_count(trace['tool_calls'], 'tool call')} · {_num(trace['tokens'])} tokens"
    if trace["tokens_estimated"]:
        facts += " (estimated)"
    if trace["seconds"] is not None:
        facts += f" · {trace['seconds']:.1f}s"
    if not trace["answered"]:
        facts += " · ended without an answer" + (f": {one_line(trace['error'], 60)}" if trace["error"] else "")
    console.print(plain(facts, "dim"))
    if not trace["fires"]:
        console.print(Text("  no guard fired", style="green"))
        return
    policy = trace["policy"]
    stop_at = (policy["stopped_at"], PHASE_ORDER.get(policy["phase"], 0)) if policy["stopped_at"] else None
    # The same soft action of the same guard many times (R002 blocking every lap of a
    # loop) reads as one line with its rounds, not a screenful.
    shown: set[int] = set()
    fires = trace["fires"]
    for index, fire in enumerate(fires):
        if index in shown:
            continue
        repeats = [
            j
            for j in range(index + 1, len(fires))
            if fires[j]["code"] == fire["code"] and fires[j]["action"] == fire["action"] and fire["action"] in ("hint", "block", "reject")
        ]
        shown.update(repeats)
        # Fires after the policy's stop are what that guard would do alone.
        after_stop = stop_at is not None and (fire["round"], PHASE_ORDER[fire["phase"]]) > stop_at
        line = Text("  ")
        line.append(f"{fire['code']} ", style="bold")
        line.append(f"{fire['name']:<28}", style="dim")
        line.append(f" round {fire['round']:>2} {fire['phase'].replace('_', ' '):<12} ")
        line.append(f"{fire['action'].upper():<6}", style=ACTION_STYLES.get(fire["action"], ""))
        if repeats:
            rounds = ", ".join(str(fires[j]["round"]) for j in repeats)
            line.append(f"  and {len(repeats)} more: round{'s' if len(repeats) > 1 else ''} {rounds}", style="dim")
        if after_stop:
            line.append("  (alone, after the policy's stop)", style="dim")
        console.print(line)
        console.print(Text("      ").append_text(plain(one_line(fire["reason"], 240), "dim" if after_stop else "")))
    if policy["stopped_at"] is None:
        summary = Text("  policy: no stop", style="dim")
        if policy["blocked_calls"]:
            summary.append(f"; {_count(policy['blocked_calls'], 'call')} blocked → saves {_saving_line(policy['saved'], trace)}")
        console.print(summary)
        return
    text = Text("  policy: ", style="bold")
    text.append(
        f"{policy['action']} at round {policy['stopped_at']} {policy['phase'].replace('_', ' ')} ({policy['code']})"
        f" → saves {_saving_line(policy['saved'], trace)}"
    )
    console.print(text)
    notes = []
    if policy["saved"]["forced_answer_tokens"] is not None:
        notes.append(f"one forced answer charged: ~{policy['saved']['forced_answer_tokens']:,} tokens (estimate)")
    if policy["blocked_calls"]:
        notes.append(f"{_count(policy['blocked_calls'], 'call')} blocked before the stop (included)")
    if notes:
        console.print(Text("          " + "; ".join(notes), style="dim"))
    if policy["outcome_change"]:
        console.print(Text(f"          {policy['outcome_change']}", style="bold yellow"))


class TerminalWriter:
    """Prints each trace as it is replayed, then the tokenizer comparison and totals."""

    def __init__(self, console: Console, *, only_fires: bool = False) -> None:
        self.console = console
        self.only_fires = only_fires
        self.tokenizers: list[str] = []
        self.compared = 0
        self.differing: list[tuple[str, dict[str, Any]]] = []

    def begin(self, header: dict[str, Any]) -> None:
        self.tokenizers = header.get("tokenizers", [])

    def trace(self, trace: dict[str, Any]) -> None:
        comparison = trace.get("tokenizer_comparison")
        if comparison is not None:
            self.compared += 1
            if comparison["differs"]:
                self.differing.append((trace["id"], comparison))
        if self.only_fires and not trace["fires"]:
            return
        _trace_block(self.console, trace)
        self.console.print()

    def end(self, totals: dict[str, Any], warnings: list[dict[str, Any]]) -> None:
        if self.tokenizers:
            self._comparison()
        self._summary(totals)

    def _comparison(self) -> None:
        console = self.console
        console.print(Text(f"P001 tokenizer comparison ({' vs '.join(self.tokenizers)})", style="bold underline"))
        if not self.differing:
            console.print(Text(f"  the tokenizers agree on all {_count(self.compared, 'trace')}", style="green"))
            console.print()
            return
        for trace_id, item in self.differing:
            head = Text("  ")
            head.append_text(plain(trace_id, "bold cyan"))
            head.append(
                "  "
                + " · ".join(
                    f"{r['tokenizer']}: {'stop at round ' + str(r['fires_at']) if r['fires_at'] else 'no stop'}"
                    for r in item["runs"]
                )
            )
            console.print(head)
            console.print(Text("    round " + " ".join(f"{r['tokenizer']:>7}" for r in item["runs"]), style="dim"))
            for i in range(len(item["runs"][0]["scores"])):
                cells = [r["scores"][i] for r in item["runs"]]
                if all(c is None for c in cells):
                    continue
                row = f"    {i + 1:>5} " + " ".join(f"{c:>7.2f}" if c is not None else f"{'-':>7}" for c in cells)
                console.print(Text(row))
        console.print(
            Text(
                f"  the tokenizers differ on {len(self.differing)} of {_count(self.compared, 'trace')} "
                "(scores: best similarity of each search round to an earlier search)",
                style="dim",
            )
        )
        console.print()

    def _summary(self, totals: dict[str, Any]) -> None:
        console = self.console
        whole, saved = totals["whole"], totals["saved"]
        console.print(Text("Summary", style="bold underline"))
        console.print(
            Text(
                f"  {_count(totals['traces'], 'trace')} · {totals['traces_with_fires']} with fires · "
                f"{totals['traces_stopped']} stopped by the policy"
                + (
                    f" · {totals['no_answer_to_forced_answer']} no answer → forced answer"
                    if totals["no_answer_to_forced_answer"]
                    else ""
                )
            )
        )
        parts = [
            f"{saved['llm_calls']:,} of {whole['llm_calls']:,} LLM calls{_pct(saved['llm_calls'], whole['llm_calls'])}",
            f"{saved['tool_calls']:,} of {whole['tool_calls']:,} tool calls{_pct(saved['tool_calls'], whole['tool_calls'])}",
            f"{saved['tokens']:,} of {whole['tokens']:,} tokens{_pct(saved['tokens'], whole['tokens'])}"
            + (" (some estimated)" if saved["tokens_estimated"] else ""),
        ]
        if whole["seconds"]:
            parts.append(f"{saved['seconds']:.1f}s of {whole['seconds']:.1f}s{_pct(saved['seconds'], whole['seconds'])}")
        console.print(Text("  saved: " + " · ".join(parts)))
        if totals["by_guard"]:
            console.print(
                Text(
                    "  fires: " + " · ".join(f"{code} {v['fires']} in {_count(v['traces'], 'trace')}" for code, v in totals["by_guard"].items()),
                    style="dim",
                )
            )
