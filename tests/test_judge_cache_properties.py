"""P003's judge cache file (``judge_cache``) is a side file a user points at: whatever is at
that path (a folder, a FIFO, a device, a trace, damaged or hostile JSON) the loader returns
answers or a reason to leave the file alone; it never hangs, never raises and never makes
the file writable unless it is a judge cache. Hypothesis damages a real cache's bytes.

``TRACECHECK_FUZZ_EXAMPLES=N`` runs N random examples (default: a fixed, derandomized 150),
as tests/test_side_file_properties.py does."""

from __future__ import annotations

import json
import os
import threading

import pytest
from hypothesis import given, strategies as st

from tracecheck.guards import novelty_judge
from tracecheck.guards.novelty_judge import CACHE_MARK, AnswerCache, read_cache

from conftest import ROOT, fuzz_settings

FUZZ = fuzz_settings()
SEED = json.dumps({"format": CACHE_MARK, "answers": {"qwen2.5:3b\t" + "ab" * 32: "YES", "qwen2.5:3b\t" + "cd" * 32: "NO"}}).encode()


def within(seconds: float, fn):
    """``fn()``'s value, or a failure if it has not returned after ``seconds`` (a read that blocks)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert out, f"still running after {seconds} s"
    return out[0]


def test_a_fifo_is_left_alone_without_being_opened(tmp_path):
    fifo = tmp_path / "cache.json"
    os.mkfifo(fifo)
    answers, problem = within(5, lambda: read_cache(str(fifo)))
    assert answers is None and "not a regular file (a FIFO)" in problem


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_device_that_never_ends_is_left_alone():
    answers, problem = within(5, lambda: read_cache("/dev/full"))
    assert answers is None and "a device" in problem


def test_a_folder_is_left_alone(tmp_path):
    answers, problem = read_cache(str(tmp_path))
    assert answers is None and "a folder" in problem


@pytest.mark.parametrize(
    "text, why",
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than"),  # json.loads raised RecursionError
        ('{"format": "%s", "answers": {"a": "YES"}, "x": %s}' % (CACHE_MARK, "[" * 5000 + "]" * 5000), "nested more than"),
        ('{"format": "%s", "answers": {"a": %s}}' % (CACHE_MARK, "9" * 5000), "a number of 5000 digits"),
        ('{"format": "%s", "answers": {' % CACHE_MARK, "is not a P003 judge cache"),
        ("\xff\xfe not text", "not UTF-8"),
    ],
)
def test_damaged_caches_are_left_alone_with_the_reason(tmp_path, text, why):
    path = tmp_path / "cache.json"
    path.write_bytes(text.encode("utf-8") if not text.startswith("\xff") else b"\xff\xfe not text")
    answers, problem = read_cache(str(path))
    assert answers is None and why in problem and "left alone" in problem


def test_a_missing_file_is_an_empty_cache_and_a_real_one_is_read(tmp_path):
    assert read_cache(str(tmp_path / "none.json")) == ({}, None)
    path = tmp_path / "cache.json"
    path.write_bytes(SEED)
    answers, problem = read_cache(str(path))
    assert problem is None and sorted(answers.values()) == ["NO", "YES"]


def test_a_trace_is_never_written_over(tmp_path):
    trace = tmp_path / "trace.jsonl"
    original = (ROOT / "sample_traces" / "seed002_contract_search_token_limit.jsonl").read_bytes()
    trace.write_bytes(original)
    novelty_judge.forget()
    cache = AnswerCache(str(trace))
    cache.put("m", "prompt", "YES")
    assert trace.read_bytes() == original and cache.get("m", "prompt") == "YES" and not cache.writable


@FUZZ
@given(data=st.data())
def test_damaged_caches_never_raise(tmp_path_factory, data):
    raw = bytearray(SEED)
    for _ in range(data.draw(st.integers(1, 6))):
        kind = data.draw(st.sampled_from(["flip", "insert", "delete", "nest", "digits"]))
        at = data.draw(st.integers(0, len(raw)))
        if kind == "flip" and at < len(raw):
            raw[at] = data.draw(st.integers(0, 255))
        elif kind == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=20))
        elif kind == "delete":
            del raw[at : at + data.draw(st.integers(1, 40))]
        elif kind == "nest":
            depth = data.draw(st.integers(1, 3000))
            raw[at:at] = b"[" * depth + b"]" * depth
        else:
            raw[at:at] = b"9" * data.draw(st.integers(1, 6000))
    path = tmp_path_factory.mktemp("cache") / "judge.json"
    path.write_bytes(bytes(raw))
    answers, problem = read_cache(str(path))
    assert (answers is None) == (problem is not None)
    if answers is not None:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in answers.items())
        assert json.loads(bytes(raw))["format"] == CACHE_MARK
