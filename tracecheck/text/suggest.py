"""Suggestions for a misspelt name: every layer that rejects a name (an input format, a
tokenizer, a guard, a preset, a command-line choice) offers the closest one the same way."""

from __future__ import annotations


def did_you_mean(word: str, choices) -> str:
    """`` (did you mean 'P001'?)`` when a choice is close to a misspelt word, else ``""``."""
    import difflib

    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""
