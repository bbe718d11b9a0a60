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
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from ..input.diagnostics import MissingExtra, TracecheckError
from .memo import remembered

TOKENIZERS = ("char", "jieba")


# CJK ideographs (unified, extension A, extensions B-F, compatibility), hiragana and
# katakana, hangul syllables. One character class, so whole texts are scanned by the
# regex engine instead of a Python call per character.
_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2EBEF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0xAC00, 0xD7AF))
_CJK = "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES)  # the same, as a regex class's ranges
_BELOW_CJK = chr(min(low for low, _ in _CJK_RANGES))  # a text whose largest character is below it has no CJK


# Non-ASCII texts still to be checked by their largest character rather than the regex:
# compiling the regex costs a small run more than checking its few texts, but per text
# ``max`` is slower than the regex, so a long run soon compiles it.
_CHECKS_WITHOUT_REGEX = [64]


def _has_no_cjk(text: str) -> bool:
    """True when ``text`` certainly holds no CJK character (all ASCII, or, for the first
    non-ASCII texts of a run, every character below the first CJK block); False when
    the regex must look."""
    if text.isascii():
        return True
    if _CHECKS_WITHOUT_REGEX[0] > 0:
        _CHECKS_WITHOUT_REGEX[0] -= 1
        return max(text) < _BELOW_CJK
    return False


@lru_cache(maxsize=1)
def _cjk_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a CJK run; a CJK run, group "cjk", or a run of anything else not whitespace),
    compiled on the first text that may hold CJK: a class this wide takes milliseconds to
    compile, and most runs hold none. ``\\s`` is str.isspace(), what str.split() splits on."""
    return re.compile(f"[{_CJK}]+"), re.compile(f"(?P<cjk>[{_CJK}]+)|[^\\s{_CJK}]+")


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def count_cjk(text: str) -> int:
    """How many characters of ``text`` are CJK (as ``is_cjk`` says), in one regex scan."""
    if _has_no_cjk(text):
        return 0
    return sum(map(len, _cjk_patterns()[0].findall(text)))


# Punctuation, symbols and control characters (Unicode categories P*, S*, C*) become
# spaces. A translate table filled on first sight of each character: str.translate
# runs in C, and ASCII text hits the table's fast path.
_SEPARATOR_TABLE_LIMIT = 1 << 16  # past this many distinct characters, look up without storing


class _SeparatorTable(dict):
    def __missing__(self, code: int) -> int | str:
        value: int | str = " " if unicodedata.category(chr(code))[0] in "PSC" else code
        if len(self) < _SEPARATOR_TABLE_LIMIT:
            self[code] = value
        return value


_SEPARATORS = _SeparatorTable()


def normalize(text: str) -> str:
    """Trim, lowercase (NFKC folds full-width letters), and turn punctuation, symbols and
    control characters into spaces so they separate words instead of gluing them."""
    return unicodedata.normalize("NFKC", text).strip().lower().translate(_SEPARATORS)


def _split_runs(text: str) -> list[tuple[bool, str]]:
    """(is_cjk, run) pieces of normalized text; whitespace separates non-CJK words."""
    if _has_no_cjk(text):
        return [(False, word) for word in text.split()]
    return [(match.lastgroup == "cjk", match.group()) for match in _cjk_patterns()[1].finditer(text)]


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
    import tempfile  # here: only jieba needs it (start-up)

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (Path(base) / "tracecheck", Path(tempfile.gettempdir()) / "tracecheck"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if os.access(folder, os.W_OK):
                return str(folder / "jieba.cache")
        except OSError:
            continue
    return str(Path(tempfile.gettempdir()) / "tracecheck-jieba.cache")


# A library loaded once for the process, not a run's memory (see text.memo).
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
        raise MissingExtra("the jieba tokenizer", "jieba") from None
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.cache_file = _jieba_cache_file()
    tokenizer.tmp_dir = os.path.dirname(tokenizer.cache_file)
    return lambda text: tokenizer.lcut(text, HMM=True)


def unload_jieba() -> None:
    """Forget the loaded jieba: its next use imports it again (a test that hides the
    package, or installs it, sees the change)."""
    _jieba_cut.cache_clear()


def jieba_tokens(text: str) -> list[str]:
    cut = _jieba_cut()
    tokens: list[str] = []
    for cjk, run in _split_runs(normalize(text)):
        if cjk:
            tokens.extend(word for word in cut(run) if word.strip())
        else:
            tokens.append(run)
    return tokens


@remembered(maxsize=65536)
def token_set(name: str, text: str) -> frozenset[str]:
    """The set of tokens of ``text`` under tokenizer ``name``, remembered for the most
    recent texts: a sweep fingerprints the same queries under many settings."""
    return frozenset(get_tokenizer(name)(text))


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    if name == "char":
        return char_tokens
    if name == "jieba":
        _jieba_cut()  # fail early with the install hint
        return jieba_tokens
    from .suggest import did_you_mean

    raise TracecheckError(f"unknown tokenizer {name!r}{did_you_mean(name, TOKENIZERS)}; choose one of: {', '.join(TOKENIZERS)}")
