"""The replay report as Markdown (for PR comments and job summaries)."""

from __future__ import annotations

import re
from typing import Any

from ..textsafe import neutralize, one_line


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")
# GitHub turns these into notifications and links even in escaped text: @mentions (and
# e-mail autolinks), #123 and GH-123 issue references, bare scheme:// and www. URLs.
# A zero width space right after the trigger keeps the text as it reads, not what it does.
_ZERO_WIDTH_SPACE = "&#8203;"
_GITHUB_TRIGGERS = re.compile(r"@|(?<=#)(?=\d)|(?<=\bGH)(?=-\d)|(?<=[a-z0-9]:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)


def _cell(text: Any) -> str:
    """Untrusted text inside a table cell: Markdown punctuation escaped (no links, code
    spans or emphasis), no HTML, no newlines, no control characters, no mentions, issue
    references or autolinks."""
    value = neutralize(str(text))
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _GITHUB_TRIGGERS.sub(lambda m: m.group() + _ZERO_WIDTH_SPACE, value)


class MarkdownWriter:
    """A fires table row per fire as traces stream in, the savings table at the end."""

    def __init__(self, write) -> None:
        self.write = write

    def begin(self, header: dict[str, Any]) -> None:
        self.write(
            "# tracecheck replay\n\n"
            "| trace | outcome | guard | round | phase | action | reason |\n"
            "|---|---|---|---|---|---|---|\n"
        )

    def trace(self, trace: dict[str, Any]) -> None:
        for fire in trace["fires"]:
            cells = (
                f"{trace['id']} ({trace['file']}:{trace['line']})",
                trace["labels"].get("outcome", ""),
                f"{fire['code']} {fire['name']}",
                fire["round"],
                fire["phase"],
                fire["action"],
                one_line(fire["reason"], 200),
            )
            self.write("| " + " | ".join(_cell(v) for v in cells) + " |\n")

    def end(self, totals: dict[str, Any], warnings: list[dict[str, Any]]) -> None:
        saved, whole, share = totals["saved"], totals["whole"], totals["share"]

        def pct(key: str) -> str:
            return f"{share[key] * 100:.0f}%" if share.get(key) is not None else "-"

        estimated = " (some estimated)" if saved["tokens_estimated"] else ""
        self.write(
            "\n"
            f"{totals['traces']} traces · {totals['traces_with_fires']} with fires · "
            f"{totals['traces_stopped']} stopped by the policy\n\n"
            "| saved | of | share |\n|---|---|---|\n"
            f"| {saved['llm_calls']} LLM calls | {whole['llm_calls']} | {pct('llm_calls')} |\n"
            f"| {saved['tool_calls']} tool calls | {whole['tool_calls']} | {pct('tool_calls')} |\n"
            f"| {saved['tokens']} tokens{estimated} | {whole['tokens']} | {pct('tokens')} |\n"
            f"| {saved['seconds']}s | {whole['seconds']}s | {pct('seconds')} |\n"
        )
