"""Explaining guards to people: ``tracecheck guard CODE`` and the per-round guard state
that ``tracecheck show`` prints under each round."""

from __future__ import annotations

import dataclasses
import textwrap
from collections import defaultdict
from typing import Any

from rich.text import Text

from ..config import Settings, option_default
from ..engine.replay import Fire, replay_trace
from ..guards.base import Guard, Phase
from ..model import Round, Trace
from ..text.textsafe import neutralize, one_line, plain, single_line


def toml_value(value: Any) -> str:
    """An option value as it is written in the config file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        import orjson

        return orjson.dumps(value).decode()
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def explain_guard(guard: type[Guard]) -> str:
    lines = [f"{guard.code} {guard.name}  ({guard.source})", "", guard.summary, ""]
    lines += [textwrap.dedent("    " + guard.explanation()).strip(), ""]
    lines.append("Options (set with --set CODE.OPTION=VALUE or [guards.CODE] in the config):")
    for f in dataclasses.fields(guard.Options):
        extra = ""
        if "choices" in f.metadata:
            extra = f" [{'|'.join(f.metadata['choices'])}]"
        lines.append(f"  {f.name} = {toml_value(option_default(f))}{extra}")
        lines.append(f"      {f.metadata.get('help', '')}")
    lines += ["", *explain_messages(guard)]
    lines += ["", "Examples (each one runs as a test):"]
    for example in guard.examples:
        lines.append(f"  - {example.title}")
        if example.options:
            lines.append(f"    options: {example.options}")
        if example.metadata:
            lines.append(f"    run metadata: {_args(example.metadata)}")
        for number, step in enumerate(example.steps, 1):
            if step.calls:
                shown = "; ".join(
                    f"{c.name}({c.args if isinstance(c.args, str) else _args(c.args)}) -> {one_line(c.result, 40)}"
                    + (" [error]" if c.error else "")
                    for c in step.calls
                )
            else:
                shown = f"final answer: {one_line(step.text, 60)}"
            lines.append(f"      round {number}: {shown}")
        if example.expect:
            fires = ", ".join(f"round {r} {p.replace('_', ' ')}: {a}" for r, p, a in example.expect)
            lines.append(f"    fires: {fires}")
        else:
            lines.append("    fires: nothing")
    return "\n".join(lines)


def explain_messages(guard: type[Guard]) -> list[str]:
    """The guard's model-facing messages: key, when it is sent, English and Chinese
    text, and the fields a template may use."""
    from ..guards.messages import FIELDS, WHEN

    lines = [
        f"Messages for the model (override in [guards.{guard.code}.messages]: KEY applies to every language, "
        "KEY.en or KEY.zh to one):"
    ]
    for key, message in guard.messages.items():
        lines.append(f"  {key}: {message.when or WHEN[key]}")
        lines.append(f"      en: {message.en}")
        lines.append(f"      zh: {message.zh}")
        fields = "; ".join(f"{{{name}}} {FIELDS[name][0]}" for name in message.fields) or "none"
        lines.append(f"      fields: {fields}")
    return lines


def _args(args: Any) -> str:
    import orjson

    return orjson.dumps(args).decode()


# A string value is quoted when it holds a space or one of the marks that delimit values.
_NEEDS_QUOTES = frozenset(" =[]{},;'")


def _value_text(value: Any) -> str:
    """A guard state value on one line, ``""`` when it holds nothing.

    Nested values are delimited (``{k=v k=v}``, ``[a, b]``, ``[{…}, {…}]``; a set keeps
    its ``{a,b}``), so a key inside one is never read as another top-level key; a string
    with a space or a delimiter in it is quoted. Keys and values may come from the trace
    (call ids, tool names, queries, replies): each is made safe on its own as the
    timeline shows a one-line field (a call id, a tool name): a line break, a carriage
    return or another control character shows as its escape (``\\n``, ``\\r``,
    ``\\x1b``), so nothing blends into the separators or forges a line."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        inner = _pairs(value)
        return "{" + inner + "}" if inner else ""
    if isinstance(value, (set, frozenset)):
        items = [_value_text(v) for v in sorted(value, key=str)]
        return "{" + ",".join(item for item in items if item) + "}" if value else ""
    if isinstance(value, (list, tuple)):
        items = [_value_text(v) for v in value]
        items = [item for item in items if item]
        return "[" + ", ".join(items) + "]" if items else ""
    text = single_line(str(value), 160)
    if not text:
        return ""
    return f"'{text}'" if _NEEDS_QUOTES.intersection(text) else text


def _pairs(state: dict[str, Any]) -> str:
    """``key=value`` for every key whose value holds something, in the guard's order."""
    shown = ((neutralize(str(key)), _value_text(value)) for key, value in state.items())
    return " ".join(f"{key}={text}" for key, text in shown if text)


def _state_text(state: dict[str, Any], limit: int = 240) -> str:
    """A guard's state on one line of about ``limit`` characters: the pairs that fit
    whole, then ``…`` for the rest (a pair is never cut in two)."""
    kept: list[str] = []
    for key, value in state.items():
        text = _value_text(value)
        if not text:
            continue
        pair = f"{neutralize(str(key))}={text}"
        if kept and sum(len(k) + 1 for k in kept) + len(pair) > limit:
            kept.append("…")
            break
        kept.append(pair)
    return " ".join(kept)


def guard_annotator(trace: Trace, settings: Settings):
    """Replay ``trace`` once, remembering each guard's state after every phase; return a
    function that gives the lines to print under a round: every guard's state (the last
    phase's) on every round where it holds any, then the round's fires."""
    guards = settings.build()
    after: dict[int, dict[str, str]] = defaultdict(dict)

    def observe(rnd: Round, phase: Phase, current) -> None:
        for guard in current:
            after[rnd.index][guard.code] = _state_text(guard.state())

    result = replay_trace(trace, guards, observe)
    fires: dict[int, list[Fire]] = defaultdict(list)
    for fire in result.fires:
        fires[fire.round].append(fire)
    stop = result.policy.stop

    def annotate(_trace: Trace, rnd: Round):
        for code, text in after.get(rnd.index, {}).items():
            if text:
                line = Text(f"      · {code} ", style="dim")
                line.append_text(Text(text, "dim"))  # made safe value by value
                yield line
        for fire in fires.get(rnd.index, []):
            line = Text(f"      ! {fire.code} {fire.action.value.upper()} ({fire.phase}) ", style="bold red" if fire.action.ends_run else "bold yellow")
            line.append_text(plain(one_line(fire.reason, 220)))
            yield line
        if stop is not None and rnd.index == stop.round:
            yield Text(f"      ■ the policy stops here ({stop.code} {stop.action.value}); later rounds would not have happened", style="bold red")

    return annotate


def explain_preset(preset, width: int = 88) -> str:
    """``tracecheck preset NAME``: what a preset runs, with which options, and why."""
    from ..guards import guard_by_key

    lines = [f"{preset.name}: {preset.summary}", f"source: {preset.source}", "", "guards:"]
    for code, options in preset.guards.items():
        guard = guard_by_key(code)
        settings = ", ".join(f"{key} = {toml_value(value)}" for key, value in options.items()) or "its defaults"
        built = dataclasses.replace(guard.Options(), **{"enabled": True, **options})
        if guard.is_off(built):
            settings += " (off until given a budget: --set)"
        lines.append(f"  {code} {guard.name}: {settings}")
    lines = [_fill(line, width, indent=len(line) - len(line.lstrip()) + 4) for line in lines]  # hanging indents
    if preset.notes:
        lines += ["", _fill(preset.notes, width)]
    lines += ["", _fill(f"use: tracecheck replay --preset {preset.name} PATH...  (or preset = \"{preset.name}\" in [tool.tracecheck])", width, 4)]
    return "\n".join(lines)


def _fill(text: str, width: int, indent: int = 0) -> str:
    """``text`` wrapped between words (never inside a hyphenated name) within ``width``."""
    return "\n".join(
        textwrap.wrap(text, width, subsequent_indent=" " * indent, break_on_hyphens=False, break_long_words=False) or [""]
    )
