"""Tokenizers: the seed's char splitting, and jieba as an optional, quiet extra."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tracecheck.text.tokenizers import char_tokens, normalize


def test_char_tokens_follow_the_seed():
    # trim, lowercase, drop punctuation (full-width too), CJK per character, others per word
    assert char_tokens("  北京天气？！ ") == ["北", "京", "天", "气"]
    assert char_tokens("SaaS 订阅合同，自动续费") == ["saas", "订", "阅", "合", "同", "自", "动", "续", "费"]
    assert char_tokens("iPhone15价格") == ["iphone15", "价", "格"]
    assert char_tokens("Ｗｅａｔｈｅｒ Beijing!") == ["weather", "beijing"]
    assert normalize("a,b") == "a b"


def test_jieba_segments_words_and_stays_quiet(tmp_path):
    pytest.importorskip("jieba")
    cache = tmp_path / "cache" / "jieba.cache"
    cache.parent.mkdir()
    code = (
        "from tracecheck.text.tokenizers import jieba_tokens\n"
        "print('|'.join(jieba_tokens('SaaS 订阅合同 自动续费')))\n"
    )
    env = {**os.environ, "TRACECHECK_JIEBA_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "saas|订阅|合同|自动|续费"
    assert proc.stderr == ""  # no "Building prefix dict" / "Loading model cost" noise, no warnings
    assert cache.is_file()  # the dictionary cache goes where we said, not into the checkout


def test_text_without_cjk_splits_on_whitespace_whatever_its_script():
    # Non-ASCII text below the first CJK block (accents, dashes, Cyrillic, Greek) takes
    # the whitespace split; text with CJK anywhere takes the CJK scan: both give the
    # seed's tokens.
    assert char_tokens("Café — naïve\u00a0Ελλάδα Москва") == ["café", "naïve", "ελλάδα", "москва"]
    assert char_tokens("Café — 北京 naïve") == ["café", "北", "京", "naïve"]
    assert char_tokens("ひらがな—Москва") == ["ひ", "ら", "が", "な", "москва"]
    assert char_tokens("") == []
