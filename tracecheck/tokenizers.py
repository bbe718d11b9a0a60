"""Query normalization and tokenizers for fingerprints (seed 000).

normalize: trim -> lowercase -> drop punctuation and symbols (full-width ones too).
``char``:  CJK text one token per character, other scripts whitespace words
           (a run of Latin letters/digits stuck to CJK is its own word).
``jieba``: CJK runs segmented into words by jieba (optional extra), other scripts
           as in ``char``. jieba is imported only when asked for, with its log noise
           silenced and its dictionary cache kept in a writable cache directory.
"""

from __future__ import annotations

import os
import tempfile
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from .diagnostics import TracecheckError

TOKENIZERS = ("char", "jieba")
JIEBA_INSTALL = "pip install 'tracecheck[jieba]'"


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x20000 <= code <= 0x2EBEF  # extensions B-F
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0xAC00 <= code <= 0xD7AF  # hangul syllables
    )


def normalize(text: str) -> str:
    """Trim, lowercase (NFKC folds full-width letters), and turn punctuation, symbols and
    control characters into spaces so they separate words instead of gluing them."""
    folded = unicodedata.normalize("NFKC", text).strip().lower()
    return "".join(" " if unicodedata.category(ch)[0] in "PSC" else ch for ch in folded)


def _split_runs(text: str) -> list[tuple[bool, str]]:
    """(is_cjk, run) pieces of normalized text; whitespace separates non-CJK words."""
    runs: list[tuple[bool, str]] = []
    for ch in text:
        cjk = is_cjk(ch)
        if ch.isspace():
            runs.append((False, ""))
            continue
        if runs and runs[-1][0] == cjk and runs[-1][1]:
            runs[-1] = (cjk, runs[-1][1] + ch)
        else:
            runs.append((cjk, ch))
    return [(cjk, run) for cjk, run in runs if run]


def char_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for cjk, run in _split_runs(normalize(text)):
        tokens.extend(run) if cjk else tokens.append(run)
    return tokens


def _jieba_cache_file() -> str:
    """A writable place for jieba's dictionary cache (read-only CI checkouts included)."""
    configured = os.environ.get("TRACECHECK_JIEBA_CACHE")
    if configured:
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (Path(base) / "tracecheck", Path(tempfile.gettempdir()) / "tracecheck"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return str(folder / "jieba.cache")
        except OSError:
            continue
    return str(Path(tempfile.gettempdir()) / "tracecheck-jieba.cache")


@lru_cache(maxsize=1)
def _jieba_cut() -> Callable[[str], list[str]]:
    try:
        import logging
        import warnings

        with warnings.catch_warnings():
            # jieba 0.42 warns about pkg_resources and invalid escapes on import.
            warnings.simplefilter("ignore")
            import jieba
    except ImportError:
        raise TracecheckError(
            f"the jieba tokenizer needs the optional jieba package: {JIEBA_INSTALL}"
        ) from None
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.cache_file = _jieba_cache_file()
    tokenizer.tmp_dir = os.path.dirname(tokenizer.cache_file)
    return lambda text: tokenizer.lcut(text, HMM=True)


def jieba_tokens(text: str) -> list[str]:
    cut = _jieba_cut()
    tokens: list[str] = []
    for cjk, run in _split_runs(normalize(text)):
        if cjk:
            tokens.extend(word for word in cut(run) if word.strip())
        else:
            tokens.append(run)
    return tokens


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    if name == "char":
        return char_tokens
    if name == "jieba":
        _jieba_cut()  # fail early with the install hint
        return jieba_tokens
    raise TracecheckError(f"unknown tokenizer {name!r}; choose one of: {', '.join(TOKENIZERS)}")
