"""Volatile-text normalisation: each rule on a before/after pair, and ordinary text kept."""

from __future__ import annotations

import pytest

from tracecheck.text.volatile import normalize_volatile

PAIRS = [
    # 1. timestamps
    ("started 2026-12-01T16:59:32.123Z ok", "started <TIME> ok"),
    ("at 2026-12-01 16:59:32+02:00: failed", "at <TIME>: failed"),
    ("[16:59:32] connection refused", "[<TIME>] connection refused"),
    # 2. UUIDs
    ("request 123e4567-E89B-12d3-a456-426614174000 failed", "request <UUID> failed"),
    # 3. temp paths
    ("No such file: /tmp/tmpab12cd/out.txt", "No such file: /tmp/<TMP>/out.txt"),
    ("cannot open /var/tmp/tmp_x9y8z7", "cannot open /tmp/<TMP>"),
    # 4. shell line counters
    ("/bin/bash: line 12991: x: command not found", "/bin/bash: line N: x: command not found"),
    ("bash: line 3: cd: nope: No such file or directory", "bash: line N: cd: nope: No such file or directory"),
    ("sh: 12: foo: not found", "sh: N: foo: not found"),
    # 5. hex ids
    ("<Foo object at 0x7f3a2c10>", "<Foo object at 0x<HEX>>"),
    ("fatal: bad object 3f9c2e1ab7d", "fatal: bad object <HEX>"),
    ("container 9b1f0c2d4e5a is not running", "container <HEX> is not running"),
    # 6. PIDs
    ("Killed process 4242 (python)", "Killed process N (python)"),
    ("lock held by pid=1234", "lock held by pid=N"),
    ("PID: 99 exited", "PID: N exited"),
    # 7. durations
    ("Timeout: took 1.23s", "Timeout: took <DUR>"),
    ("elapsed 250 ms, 3 seconds total, 2 min left, 15µs", "elapsed <DUR>, <DUR> total, <DUR> left, <DUR>"),
]


@pytest.mark.parametrize(("before", "after"), PAIRS)
def test_each_rule_replaces_what_varies(before, after):
    assert normalize_volatile(before) == after


def test_errors_differing_only_in_a_shell_counter_become_equal():
    a = normalize_volatile("/bin/bash: line 12991: pytset: command not found")
    b = normalize_volatile("/bin/bash: line 12992: pytset: command not found")
    assert a == b


ORDINARY = [
    "The quick brown fox jumps over the lazy dog.",
    'File "src/app.py", line 42, in main',
    "Released on 2026-12-01 with 3 fixes",
    "deadbeef and facade are words; 1234567 is a number",
    "/tmp/report.csv not found",
    "Error: No such file or directory: src/missing.py",
    "found 12 results in 3 files",
    "version 1.2.3, sha is not shown",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_unchanged(text):
    assert normalize_volatile(text) == text


def test_the_fast_path_gives_what_every_rule_applied_in_turn_gives():
    """Rules are skipped when their text cannot be there; the result must be the same
    as running every rule over the text, in order."""
    import random

    from tracecheck.text import volatile

    def every_rule(text: str, keep_progress: bool) -> str:
        for pattern, replacement, _needs, _fold, progress in volatile.rules():
            if not (keep_progress and progress):
                text = pattern.sub(replacement, text)
        return text

    pieces = ["2026-12-01T16:59:32.5Z", "16:59:32", "123e4567-e89b-12d3-a456-426614174000", "/tmp/tmpab12cd/out",
              "/bin/bash: line 12991: x: command not found", "sh: 12: x: not found", "0x7f3a2c", "deadbeef1",
              "pid=4242", "PID: 7", "proceſs 12", "PROCESS 9", "took 1.23s", "250 ms", " ", "\n", "-", ":", "a", "0",
              "ſ", "İ", "x", "/tmp/", "sh:", "line", "0X1F"]
    rng = random.Random(13)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        for keep in (False, True):
            assert volatile._normalize(text, keep) == every_rule(text, keep), repr(text)
