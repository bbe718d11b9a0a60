"""The replay report as Markdown (for PR comments and job summaries)."""

from __future__ import annotations

import re
from typing import Any

from ..text.textsafe import neutralize, one_line
from .data import basis_note, count, effect


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
        self.presets: list[str] = []
        self.harmed: list[tuple[str, str]] = []  # (trace, what the policy would do to it)
        self.broken: list[tuple[str, str]] = []  # (trace, the broken expectation in words)

    def begin(self, header: dict[str, Any]) -> None:
        self.presets = header.get("presets", [])
        if self.presets:
            self.write(
                "# tracecheck replay: presets side by side\n\n"
                + "| trace | outcome | "
                + " | ".join(_cell(name) for name in self.presets)
                + " |\n|---|---|"
                + "---|" * len(self.presets)
                + "\n"
            )
            return
        self.write(
            "# tracecheck replay\n\n"
            "| trace | outcome | guard | round | phase | action | reason |\n"
            "|---|---|---|---|---|---|---|\n"
        )

    def trace(self, trace: dict[str, Any]) -> None:
        name = f"{trace['id']} ({trace['file']}:{trace['line']})"
        if self.presets:
            self._preset_row(name, trace)
            return
        several_turns = trace.get("turns", 1) > 1
        for fire in trace["fires"]:
            cells = (
                name,
                trace["labels"].get("outcome", ""),
                f"{fire['code']} {fire['name']}",
                f"{fire['round']} (turn {fire['turn']})" if several_turns else fire["round"],
                fire["phase"],
                fire["action"] + (": stale" if fire.get("stale") else ""),
                one_line(fire["reason"], 200)
                + (
                    f" — the recorded run found new information at round {fire['new_information']['round']} ({fire['new_information']['what']})"
                    if fire.get("new_information")
                    else ""
                ),
            )
            self.write("| " + " | ".join(_cell(v) for v in cells) + " |\n")
        self.broken.extend((name, e["message"]) for e in trace.get("expectations", []) if e["met"] is False)
        harm = trace["policy"].get("possible_harm")
        if harm:
            self.harmed.append((name, harm))

    def _preset_row(self, name: str, trace: dict[str, Any]) -> None:
        cells = [name, trace["labels"].get("outcome", "")]
        for run in trace["presets"].values():
            policy = run["policy"]
            if policy["stops"]:
                text = "; ".join(f"{s['action']} round {s['round']} {s['phase'].replace('_', ' ')} ({s['code']})" for s in policy["stops"])
                text += f": {effect(policy['saved'], trace)}"
            elif policy["blocked_calls"]:
                text = f"no stop; {count(policy['blocked_calls'], 'call')} blocked: {effect(policy['saved'], trace)}"
            else:
                text = "no stop"
            notes = []
            if policy.get("possible_harm"):
                notes.append("possible harm")
                self.harmed.append((name, policy["possible_harm"]))
            if any(s.get("new_information") for s in policy["stops"]):
                notes.append("cut before new information")
            if policy.get("stale_blocks"):
                notes.append(count(policy["stale_blocks"], "stale block"))
            if run["expectations_broken"]:
                notes.append(f"{count(run['expectations_broken'], 'expectation')} broken")
            cells.append(text + (" — " + ", ".join(notes) if notes else ""))
        self.write("| " + " | ".join(_cell(v) for v in cells) + " |\n")

    def _preset_totals(self, by_preset: dict[str, dict[str, Any]]) -> None:
        self.write(
            "\n| preset | stops | possible harm | cut before new information | stale blocks | LLM calls saved | tool calls saved | tokens saved | time saved |\n"
            "|---|---|---|---|---|---|---|---|---|\n"
        )
        for name, totals in by_preset.items():
            saved = totals["saved"]
            cells = (
                name,
                f"{totals['traces_stopped']} of {totals['traces']}",
                totals["possible_harm"],
                totals["stops_before_new_information"],
                totals["stale_blocks"],
                _number(saved["llm_calls"]),
                _number(saved["tool_calls"]),
                _number(saved["tokens"]) + basis_note(saved),
                _number(saved["seconds"], "s"),
            )
            self.write("| " + " | ".join(_cell(v) for v in cells) + " |\n")

    def end(self, totals: dict[str, Any], warnings: list[dict[str, Any]]) -> None:
        if self.presets:
            self._preset_totals(totals["by_preset"])
            return
        saved, whole, share = totals["saved"], totals["whole"], totals["share"]

        def row(key: str, noun: str, unit: str = "", note: str = "") -> str:
            value = saved[key]
            if value is None:
                return f"| unknown {noun or 'time'} | {_number(whole[key], unit)} | - |\n"
            shown = _number(abs(value), unit)
            share_text = f"{abs(share[key]) * 100:.0f}%" if share.get(key) is not None else "-"
            if value < 0:
                return f"| costs {shown} more {noun}{note} | {_number(whole[key], unit)} | {share_text} |\n"
            return f"| {shown} {noun}{note} | {_number(whole[key], unit)} | {share_text} |\n"

        estimated = basis_note(saved)
        self.write(
            "\n"
            f"{totals['traces']} traces · {totals['traces_with_fires']} with fires · "
            f"{totals['traces_stopped']} stopped by the policy\n\n"
            "| saved | of | share |\n|---|---|---|\n"
            + row("llm_calls", "LLM calls")
            + row("tool_calls", "tool calls")
            + row("tokens", "tokens", note=estimated)
            + row("seconds", "", unit="s")
        )
        if self.broken:
            self.write("\n**Broken expectations:**\n\n")
            for name, message in self.broken:
                self.write(f"- {_cell(name)}: {_cell(message)}\n")
        if self.harmed:
            self.write("\n**Possible harm** (runs labelled a success that the policy cuts):\n\n")
            for name, harm in self.harmed:
                self.write(f"- {_cell(name)}: {_cell(harm)}\n")


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "unknown"
    return f"{value:.1f}{unit}" if unit == "s" else f"{value:,}{unit}"
