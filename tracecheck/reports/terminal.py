"""The replay report a person reads in a terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..engine.batch import ReplayReport
from ..textsafe import one_line, plain
from .data import report_data

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
    for fire in trace["fires"]:
        # Fires after the policy's stop are what that guard would do alone.
        after_stop = stop_at is not None and (fire["round"], PHASE_ORDER[fire["phase"]]) > stop_at
        line = Text("  ")
        line.append(f"{fire['code']} ", style="bold")
        line.append(f"{fire['name']:<28}", style="dim")
        line.append(f" round {fire['round']:>2} {fire['phase'].replace('_', ' '):<12} ")
        line.append(f"{fire['action'].upper():<6}", style=ACTION_STYLES.get(fire["action"], ""))
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


def _comparison(console: Console, data: dict[str, Any]) -> None:
    comparison = data.get("tokenizer_comparison")
    if not comparison:
        return
    names = comparison["tokenizers"]
    differing = [t for t in comparison["traces"] if t["differs"]]
    console.print(Text(f"P001 tokenizer comparison ({' vs '.join(names)})", style="bold underline"))
    if not differing:
        console.print(Text(f"  the tokenizers agree on all {len(comparison['traces'])} traces", style="green"))
        console.print()
        return
    for item in differing:
        head = Text("  ")
        head.append_text(plain(item["trace"], "bold cyan"))
        head.append(
            "  " + " · ".join(f"{r['tokenizer']}: {'stop at round ' + str(r['fires_at']) if r['fires_at'] else 'no stop'}" for r in item["runs"])
        )
        console.print(head)
        rounds = len(item["runs"][0]["scores"])
        header = "    round " + " ".join(f"{r['tokenizer']:>7}" for r in item["runs"])
        console.print(Text(header, style="dim"))
        for i in range(rounds):
            cells = [r["scores"][i] for r in item["runs"]]
            if all(c is None for c in cells):
                continue
            row = f"    {i + 1:>5} " + " ".join(f"{c:>7.2f}" if c is not None else f"{'-':>7}" for c in cells)
            console.print(Text(row))
    console.print()


def render_report(console: Console, report: ReplayReport, *, quiet_traces: bool = True) -> None:
    data = report_data(report)
    for trace in data["traces"]:
        if not quiet_traces and not trace["fires"]:
            continue
        _trace_block(console, trace)
        console.print()
    _comparison(console, data)
    totals = data["totals"]
    whole, saved = totals["whole"], totals["saved"]
    console.print(Text("Summary", style="bold underline"))
    console.print(
        Text(
            f"  {_count(totals['traces'], 'trace')} · {totals['traces_with_fires']} with fires · "
            f"{totals['traces_stopped']} stopped by the policy"
            + (f" · {totals['no_answer_to_forced_answer']} no answer → forced answer" if totals["no_answer_to_forced_answer"] else "")
        )
    )
    parts = [
        f"{saved['llm_calls']:,} of {whole['llm_calls']:,} LLM calls{_pct(saved['llm_calls'], whole['llm_calls'])}",
        f"{saved['tool_calls']:,} of {whole['tool_calls']:,} tool calls{_pct(saved['tool_calls'], whole['tool_calls'])}",
        f"{saved['tokens']:,} of {whole['tokens']:,} tokens{_pct(saved['tokens'], whole['tokens'])}"
        + (" (some estimated)" if saved["tokens_estimated"] else ""),
        f"{saved['seconds']:.1f}s of {whole['seconds']:.1f}s{_pct(saved['seconds'], whole['seconds'])}",
    ]
    console.print(Text("  saved: " + " · ".join(parts)))
    if totals["by_guard"]:
        console.print(
            Text(
                "  fires: " + " · ".join(f"{code} {v['fires']} in {v['traces']} trace(s)" for code, v in totals["by_guard"].items()),
                style="dim",
            )
        )
