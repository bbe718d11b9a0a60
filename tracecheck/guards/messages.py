"""Model-facing messages: the text an agent sends to the model with a verdict.

A verdict's ``reason`` explains the fire to people reading a report; its ``message``
is a prompt written for the model (seed 001: what happened, the current state, and
the way out). Each guard declares one :class:`Message` per action it can take, keyed
by the action's name (``hint``, ``block``, ``stop``, ``abort``, ``reject``), in English
and Chinese. The common ``messages`` option overrides them from the config file::

    [guards.P001.messages]
    stop = "You keep searching for the same thing. Answer now."   # every language
    "stop.zh" = "请直接作答。"                                       # Chinese only

A key ``ACTION.LANG`` wins for that language; a bare ``ACTION`` serves every language
that has no override of its own. Templates are ``str.format`` strings over the fields
the message declares; an unknown key or field is an error when the config is loaded.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from ..dataclass_lite import frozen_dataclass

LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = "en"

# Every field a message may use: what it holds, and a sample value that checks a
# template's format specs when the config is loaded. The sample has the type the guards
# really pass (tests/test_guard_messages.py checks it on every guard's examples).
FIELDS: dict[str, tuple[str, Any]] = {
    "tool": ("the tool's name", "web_search"),
    "count": ("how many times in a row (calls, rounds, failures or replies)", 3),
    "times": ("the count in words, as seed 004 writes it: 'twice', '3 times'", "twice"),
    "query": ("the search query that repeated an earlier one", "北京天气 气温"),
    "earlier": ("the earlier query it repeats", "北京天气"),
    "result": ("the earlier result (R002: the whole cached result; others: an excerpt)", "[]"),
    "error": ("an excerpt of the last error", "Error: ENOENT"),
    "missing": ("the required tools still missing, comma-separated", "search_code, read_file"),
    "rejections": ("final answers refused so far", 1),
    "period": ("the number of calls in one lap of the cycle", 2),
    "laps": ("how many laps of the cycle were made", 3),
    "calls": ("the calls in the repeated cycle, comma-separated", "open_page, go_back"),
    "max_rounds": ("the round budget", 10),
    "tokens": ("tokens spent so far", 120000),
    "budget": ("the token budget", 100000),
    "max_calls": ("the call cap", 3),
    # B004 passes both as text already formatted ("300", "1,312"): a {seconds:d} spec fails at load.
    "seconds": ("the time budget in seconds", "300"),
    "elapsed": ("seconds spent so far", "1,312"),
    "limit": ("the call's time limit in seconds, as text", "5"),
    "dead_end": ("the kind of dead end: the same error, the same empty answer, the same result as before", "the same empty answer"),
    "others": ("the other calls of the same response, comma-separated", "explore_code, read_file"),
    "window": ("the passage the text keeps repeating", "I will now check the file again."),
    "pattern": ("the loop pattern seen, in words (R007)", "read was called 10 times with identical arguments"),
}


# When each kind of message is sent, unless a message says more.
WHEN = {
    "hint": "injected as guidance; the call still runs",
    "block": "the synthetic result of the call that is not run",
    "stop": "the closing prompt of the forced final answer, tools withheld",
    "abort": "the error the run ends with",
    "reject": "the push-back sent instead of accepting the final answer",
}


@frozen_dataclass(slots=True)
class Message:
    """One model-facing message: English and Chinese templates, the fields they may
    use, and when the guard sends it where that says more than ``WHEN`` (for
    ``tracecheck guard CODE``)."""

    en: str
    zh: str
    fields: tuple[str, ...] = ()
    when: str = ""

    def text(self, language: str) -> str:
        return self.zh if language == "zh" else self.en


def template_fields(template: str) -> list[str]:
    """The field names a template uses; ``ValueError`` on broken braces, positional
    fields or attribute/index access (a template only names fields)."""
    names = []
    for _literal, name, _spec, _conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if name == "" or name.isdigit():
            raise ValueError("positional fields such as {} or {0} are not allowed; name a field")
        if not name.isidentifier():
            raise ValueError(f"{{{name}}} is not a plain field name")
        names.append(name)
    return names


def template_problem(template: str, allowed: tuple[str, ...]) -> str | None:
    """Why ``template`` cannot be used with the fields ``allowed``, or None."""
    try:
        names = template_fields(template)
    except ValueError as exc:
        return str(exc)
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        known = ", ".join("{" + f + "}" for f in allowed) or "none"
        return f"unknown field(s) {', '.join('{' + u + '}' for u in unknown)} (fields: {known})"
    try:
        template.format(**{name: FIELDS[name][1] for name in allowed})
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        return f"cannot be formatted: {exc}"
    return None


def override_keys(catalogue: Mapping[str, Message]) -> list[str]:
    """The keys the ``messages`` option accepts for a guard with this catalogue."""
    keys = []
    for key in catalogue:
        keys += [key] + [f"{key}.{language}" for language in LANGUAGES]
    return keys


def check_overrides(catalogue: Mapping[str, Message], overrides: Mapping[str, Any]) -> str | None:
    """Why these ``messages`` overrides are wrong for this catalogue, or None."""
    allowed = override_keys(catalogue)
    for key, template in overrides.items():
        if key not in allowed:
            return f"unknown message key {key!r} (allowed: {', '.join(allowed) or 'none'})"
        if not isinstance(template, str):
            return f"message {key!r} must be a string, got {template!r}"
        problem = template_problem(template, catalogue[key.partition(".")[0]].fields)
        if problem is not None:
            return f"message {key!r}: {problem}"
    return None


def language_of(language: str | None) -> str:
    """A supported language: ``zh`` (any ``zh-*`` too), otherwise English."""
    lowered = (language or "").strip().lower()
    return "zh" if lowered == "zh" or lowered.startswith("zh-") or lowered.startswith("zh_") else DEFAULT_LANGUAGE


def render(
    catalogue: Mapping[str, Message], overrides: Mapping[str, str], key: str, language: str | None, fields: Mapping[str, Any]
) -> str:
    """The message ``key`` in ``language`` (English where there is no such language),
    an override from the config first, with its fields filled in."""
    lang = language_of(language)
    template = overrides.get(f"{key}.{lang}")
    if template is None:
        template = overrides.get(key)
    if template is None:
        template = catalogue[key].text(lang)
    return template.format(**fields)


def count_in_words(count: int) -> str:
    """Seed 004's "twice" for 2; "N times" otherwise."""
    return {1: "once", 2: "twice"}.get(count, f"{count} times")
