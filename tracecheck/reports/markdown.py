"""The replay report as Markdown (for PR comments and job summaries)."""

from __future__ import annotations

from typing import Any

from ..textsafe import neutralize, one_line


def _cell(text: Any) -> str:
    """Untrusted text inside a table cell: no pipes, no newlines, no HTML."""
    value = neutralize(str(text)).replace("|", "\\|").replace("\n", " ")
    return value.replace("<", "&lt;").replace(">", "&gt;")


def render_markdown(data: dict[str, Any]) -> str:
    lines = ["# tracecheck replay", ""]
    totals = data["totals"]
    saved, whole, share = totals["saved"], totals["whole"], totals["share"]

    def pct(key: str) -> str:
        return f" ({share[key] * 100:.0f}%)" if share.get(key) is not None else ""

    lines += [
        f"{totals['traces']} traces · {totals['traces_with_fires']} with fires · {totals['traces_stopped']} stopped by the policy",
        "",
        "| saved | of | share |",
        "|---|---|---|",
        f"| {saved['llm_calls']} LLM calls | {whole['llm_calls']} | {pct('llm_calls').strip(' ()') or '-'} |",
        f"| {saved['tool_calls']} tool calls | {whole['tool_calls']} | {pct('tool_calls').strip(' ()') or '-'} |",
        f"| {saved['tokens']} tokens{' (some estimated)' if saved['tokens_estimated'] else ''} | {whole['tokens']} | {pct('tokens').strip(' ()') or '-'} |",
        f"| {saved['seconds']}s | {whole['seconds']}s | {pct('seconds').strip(' ()') or '-'} |",
        "",
        "| trace | outcome | guard | round | phase | action | reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for trace in data["traces"]:
        for fire in trace["fires"]:
            lines.append(
                "| "
                + " | ".join(
                    _cell(v)
                    for v in (
                        f"{trace['id']} ({trace['file']}:{trace['line']})",
                        trace["labels"].get("outcome", ""),
                        f"{fire['code']} {fire['name']}",
                        fire["round"],
                        fire["phase"],
                        fire["action"],
                        one_line(fire["reason"], 200),
                    )
                )
                + " |"
            )
    lines.append("")
    return "\n".join(lines)
