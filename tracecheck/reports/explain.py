"""Explaining guards to people: ``tracecheck guard CODE`` (and docs/guards/, from the
same Markdown) and the per-round guard state that ``tracecheck show`` prints under each
round."""

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
from ..text.memo import remembered
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


def _as_default_runs_it(guard: type[Guard]) -> str | None:
    """The summary as the default preset runs the guard, where that differs from its own."""
    from ..config import Settings, apply_preset

    # The preset as defined, not as a config file in the working directory customises it.
    settings = apply_preset(Settings.defaults(), "default", "--preset")
    if guard.code not in {g.code for g in settings.enabled()}:
        return None
    text = guard.describe(settings.options[guard.code])
    return text if text != guard.describe() else None


def guard_markdown(guard: type[Guard]) -> str:
    """A guard's documentation as Markdown: code, name, summary, where it comes from, what
    it fires on (the class docstring after its lead sentence, which the summary and
    origin say), its options with types and defaults, its messages for the model and its
    examples. ``tracecheck guard CODE`` renders it on a terminal and prints it plain in a
    pipe; docs/guards/CODE.md is this text."""
    body = textwrap.dedent("    " + guard.explanation()).strip().split("\n\n", 1)
    lines = [f"# {guard.code} {guard.name}", "", _markdown_text(guard.describe()), ""]
    in_default = _as_default_runs_it(guard)
    if in_default is not None:
        lines += [f"In the `default` preset: {_markdown_text(in_default)}", ""]
    if guard.origin:
        lines += [f"**From:** {_markdown_text(guard.origin)}", ""]
    if len(body) > 1:
        lines += [_markdown_text(body[1].replace("``", "`")), ""]
    lines += [
        "## Options",
        "",
        f"Set with `--set {guard.code}.OPTION=VALUE` or under `[guards.{guard.code}]` in the config file.",
        "",
    ]
    for f in dataclasses.fields(guard.Options):
        default = option_default(f)
        facts = [_kind(default)]
        if "choices" in f.metadata:
            facts.append("one of " + ", ".join(f"`{c}`" for c in f.metadata["choices"]))
        if "minimum" in f.metadata:
            facts.append(f"at least {f.metadata['minimum']}")
        if "maximum" in f.metadata:
            facts.append(f"at most {f.metadata['maximum']}")
        facts.append(f"default `{toml_value(default)}`")
        lines.append(f"- `{f.name}` ({'; '.join(facts)}): {_markdown_text(f.metadata.get('help', ''))}")
    lines += ["", *explain_messages(guard), "", "## Examples", "", "Each one runs as a test (the guard alone replays it)."]
    for example in guard.examples:
        lines += ["", f"### {_markdown_text(example.title)}", ""]
        settings = []
        if example.options:
            settings.append("options: " + ", ".join(f"`{k} = {toml_value(v)}`" for k, v in example.options.items()))
        if example.metadata:
            settings.append(f"run metadata: `{_args(example.metadata)}`")
        if settings:
            lines += ["; ".join(settings), ""]
        lines.append("```text")
        for number, step in enumerate(example.steps, 1):
            if step.user is not None:
                lines.append(f"user: {one_line(step.user, 80)}")
            at = f" (at {step.at:g}s)" if step.at is not None else ""
            if step.calls:
                shown = "; ".join(
                    f"{c.name}({c.args if isinstance(c.args, str) else _args(c.args)}) -> {one_line(c.result, 40)}"
                    + (" [error]" if c.error else "")
                    + (f" [ran {c.seconds:g} s]" if c.seconds is not None else "")
                    for c in step.calls
                )
            else:
                shown = f"final answer: {one_line(step.text, 60)}"
            lines.append(f"round {number}{at}: {shown}")
        if example.expect:
            lines.append("fires: " + ", ".join(f"round {r} {p.replace('_', ' ')}: {a}" for r, p, a in example.expect))
        else:
            lines.append("fires: nothing")
        lines.append("```")
    return "\n".join(lines) + "\n"


def _kind(default: Any) -> str:
    """An option's type in words, from its default."""
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    if isinstance(default, str):
        return "text"
    if isinstance(default, (list, tuple)):
        return "list of text"
    if isinstance(default, dict):
        return "table"
    return type(default).__name__


# Characters a Markdown renderer (GitHub's) would act on in our own prose: an @mention
# pings, a leading "<" may open HTML. Our texts use emphasis and code on purpose.
def _markdown_text(text: str) -> str:
    """Prose of ours (summaries, help, docstrings) for a Markdown page: an ``@name`` is
    written as code, so that GitHub does not mention anyone; ``<`` outside code as ``&lt;``."""
    import re

    parts = re.split(r"(`[^`]*`)", text)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"(?<![\\w`])@([\\w/.-]+)", r"`@\\1`", parts[i]).replace("<", "&lt;")
    return "".join(parts)


def explain_messages(guard: type[Guard]) -> list[str]:
    """The guard's model-facing messages as Markdown: key, when it is sent, English and
    Chinese text, and the fields a template may use."""
    from ..guards.messages import FIELDS, WHEN

    lines = [
        "## Messages for the model",
        "",
        f"Override them under `[guards.{guard.code}.messages]`: `KEY` applies to every language, `KEY.en` or `KEY.zh` to one.",
        "",
    ]
    for key, message in guard.messages.items():
        lines.append(f"- `{key}`: {_markdown_text(message.when or WHEN[key])}")
        lines.append(f"  - en: {_markdown_text(message.en)}")
        lines.append(f"  - zh: {_markdown_text(message.zh)}")
        fields = "; ".join(f"`{{{name}}}` {FIELDS[name][0]}" for name in message.fields) or "none"
        lines.append(f"  - fields: {fields}")
    if not guard.messages:
        lines.append("None: the guard never speaks to the model.")
    return lines


def markdown_to_plain(text: str, width: int = 88) -> str:
    """Our Markdown read plain (a pipe, a file): headings as their text, emphasis and
    code marks dropped, paragraphs, list items and code lines wrapped within ``width``
    columns between words (wide characters count twice), code indented."""
    import re

    def inline(line: str) -> str:
        line = re.sub(r"\*\*(.+?)\*\*", r"\1", line)
        line = re.sub(r"`([^`]+)`", r"\1", line)
        return line.replace("&lt;", "<")

    out: list[str] = []
    paragraph: list[str] = []
    lead = ""

    def flush() -> None:
        nonlocal paragraph, lead
        if paragraph:
            out.extend(wrap_cells(lead + inline(" ".join(paragraph)), width, " " * len(lead)))
        paragraph, lead = [], ""

    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            out.extend(wrap_cells("    " + line, width, " " * 8))
            continue
        if not line.strip():
            flush()
            out.append("")
            continue
        heading = re.match(r"#+ (.*)", line)
        if heading:
            flush()
            out.extend(wrap_cells(inline(heading.group(1)), width))
            continue
        item = re.match(r"\s*(?:[-*]|\d+\.) ", line)
        if item:
            flush()
            lead = item.group(0)
            line = line[len(lead) :]
        paragraph.append(line.strip())  # marks are dropped once the lines are joined: a code span may break a line
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def wrap_cells(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns, broken between words; a
    run of wide characters (Chinese) with no space in it is broken between characters,
    a long word of other text is left whole. Lines after the first start with ``indent``."""
    from rich.cells import cell_len

    lead = text[: len(text) - len(text.lstrip(" "))]
    words = text.split()
    lines: list[str] = []
    line = lead
    for word in words:
        while True:
            gap = "" if line.strip() == "" else " "
            if cell_len(line + gap + word) <= width or (line.strip() == "" and not _wide(word)):
                line += gap + word
                break
            if _wide(word) and cell_len(line + gap) < width - 1:
                # Break the wide run where the line is full.
                room = width - cell_len(line + gap)
                cut = 0
                while cut < len(word) and cell_len(word[: cut + 1]) <= room:
                    cut += 1
                if cut:
                    line += gap + word[:cut]
                    word = word[cut:]
            lines.append(line.rstrip())
            line = indent
            if not word:
                break
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]


def _wide(word: str) -> bool:
    from rich.cells import cell_len

    return cell_len(word) > len(word)


def _args(args: Any) -> str:
    import orjson

    return orjson.dumps(args).decode()


# A string value is quoted when it holds a space or one of the marks that delimit values.
_NEEDS_QUOTES = frozenset(" =[]{},;'")


_CONTAINERS = frozenset({dict, list, tuple, set, frozenset})


def _value_text(value: Any) -> str:
    """A guard state value on one line, ``""`` when it holds nothing.

    Nested values are delimited (``{k=v k=v}``, ``[a, b]``, ``[{…}, {…}]``; a set keeps
    its ``{a,b}``), so a key inside one is never read as another top-level key; a string
    with a space or a delimiter in it is quoted. Keys and values may come from the trace
    (call ids, tool names, queries, replies): each is made safe on its own as the
    timeline shows a one-line field (a call id, a tool name): a line break, a carriage
    return or another control character shows as its escape (``\\n``, ``\\r``,
    ``\\x1b``), so nothing blends into the separators or forges a line."""
    kind = type(value)  # the common kinds first, by exact type
    if kind is str:
        return _string_text(value)
    if kind is int:
        return str(value)
    if value is None or (kind in _CONTAINERS and not value):
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
    return _string_text(str(value))


# The same strings (call signatures, queries, keys) sit in a guard's state round after
# round: each is made safe once.
@remembered(4096)
def _string_text(value: str) -> str:
    text = single_line(value, 160)
    if not text:
        return ""
    return f"'{text}'" if _NEEDS_QUOTES.intersection(text) else text


def _pairs(state: dict[str, Any]) -> str:
    """``key=value`` for every key whose value holds something, in the guard's order."""
    shown = ((_key_text(str(key)), _value_text(value)) for key, value in state.items())
    return " ".join(f"{key}={text}" for key, text in shown if text)


@remembered(4096)
def _key_text(key: str) -> str:
    return neutralize(key)


def _state_text(state: dict[str, Any], limit: int = 240) -> str:
    """A guard's state on one line of about ``limit`` characters: the pairs that fit
    whole, then ``…`` for the rest (a pair is never cut in two)."""
    kept: list[str] = []
    length = 0  # of the kept pairs, each with a space after it
    for key, value in state.items():
        text = _value_text(value)
        if not text:
            continue
        pair = f"{_key_text(str(key))}={text}"
        if kept and length + len(pair) > limit:
            kept.append("…")
            break
        kept.append(pair)
        length += len(pair) + 1
    return " ".join(kept)


def guard_annotator(trace: Trace, settings: Settings, all_states: bool = False, new=Text):
    """Replay ``trace`` once, remembering each guard's state after every phase; return a
    function that gives the lines to print under a round: a guard's state (the last
    phase's) where it changed since it was last shown — from the guard's fresh state, so
    counters still at zero are not shown — or where the guard fired (``all_states``: on
    every round where it holds any), then the round's fires. A guard that stopped sits out
    the rest of its turn, and shows no state there: it judged nothing. ``new`` makes the
    lines (``timeline``'s ``LineMaker``)."""
    guards = settings.build()
    fresh = {guard.code: _state_text(guard.state()) for guard in guards}  # before the replay feeds them
    # Per round, the guards that judged it and their states; a state equal to the one
    # before is the same string object, so a long trace costs a tuple per round.
    after: dict[int, tuple[tuple[str, str], ...]] = {}
    last: dict[str, str] = {}

    def observe(rnd: Round, phase: Phase, current) -> None:
        states = dict(after.get(rnd.index, ()))
        for guard in current:
            text = _state_text(guard.state())
            states[guard.code] = last[guard.code] = text if text != last.get(guard.code) else last[guard.code]
        after[rnd.index] = tuple(states.items())

    result = replay_trace(trace, guards, observe)
    fires: dict[int, list[Fire]] = defaultdict(list)
    for fire in result.fires:
        fires[fire.round].append(fire)
    stop = result.policy.stop

    shown = dict(fresh)

    def annotate(_trace: Trace, rnd: Round):
        fired = {fire.code for fire in fires.get(rnd.index, [])}
        for code, text in after.get(rnd.index, ()):
            changed = text != shown.get(code)
            shown[code] = text
            if text and (all_states or changed or code in fired):
                yield new(f"      · {code} ", style="dim").append(text, "dim")  # made safe value by value
        for fire in fires.get(rnd.index, []):
            line = new(f"      ! {fire.code} {fire.action.value.upper()} ({fire.phase}) ", style="bold red" if fire.action.ends_run else "bold yellow")
            yield line.append(neutralize(one_line(fire.reason, 220)))  # what append_text(plain(...)) adds
        if stop is not None and rnd.index == stop.round:
            yield new(f"      ■ the policy stops here ({stop.code} {stop.action.value}); later rounds would not have happened", style="bold red")

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
        reason = preset.reasons.get(code)
        if reason:
            lines.append(f"      {reason}")
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
