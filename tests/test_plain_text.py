"""``PlainText`` wraps as Rich's ``Text`` does: the terminal report writes it to files and
pipes, Rich's ``Text`` to colour terminals, and both must break the same lines at the same
places (ids and places kept whole, cut with "…" when longer than a line)."""

from __future__ import annotations

import random

import pytest

from tracecheck.reports.plain_text import PlainConsole, PlainText, plain_width
from tracecheck.reports.terminal import whole, wrapped, wrapped_plain

WORDS = ["round", "3", "·", "P004", "北京天气", "stop", "—", "…", "a" * 30, "x" * 90, '{"query":', "é", "👍", "results,", "task-[mobile_data_issue]"]


def random_line(rng: random.Random, make: type):
    """A report line of words and whole stretches, built the same way as either class."""
    line = make("  ")
    for _ in range(rng.randrange(1, 14)):
        if rng.random() < 0.2:
            value = "/".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))
            line.append_text(whole(value, "dim", keep=rng.choice(["start", "end"]), line_class=make))
        else:
            line.append(rng.choice(WORDS), style="bold")
        line.append(" " * rng.randrange(0, 3))
        if rng.random() < 0.05:
            line.append("\n")
    return line


@pytest.mark.parametrize("seed", range(8))
def test_plain_text_wraps_as_rich_text_does(seed):
    from rich.text import Text

    rng = random.Random(seed)
    for _ in range(250):
        state = rng.getstate()
        rich_line = random_line(rng, Text)
        rng.setstate(state)
        plain_line = random_line(rng, PlainText)
        assert plain_line.plain == rich_line.plain
        width, indent = rng.randrange(20, 130), rng.randrange(0, 12)
        expected = [line.plain for line in wrapped(rich_line, width, indent)]
        assert [line.plain for line in wrapped(plain_line, width, indent)] == expected
        assert wrapped_plain(plain_line, width, indent) == expected


def test_pieces_split_and_cut_as_rich_text():
    from rich.text import Text

    for text in ["", "abc", "a\nb\n", "\n\nx", "北京天气 and more words", "x" * 50]:
        rich, plain = Text(text), PlainText(text)
        assert [p.plain for p in plain.split("\n", allow_blank=True)] == [p.plain for p in rich.split("\n", allow_blank=True)]
        assert [p.plain for p in plain.split("\n", allow_blank=False)] == [p.plain for p in rich.split("\n", allow_blank=False)]
        for offsets in ([], [0], [1, 2], [len(text)], [2, len(text)]):
            assert [p.plain for p in plain.divide(offsets)] == [p.plain for p in rich.divide(offsets)]
        for limit in (1, 3, 7, 40):
            cut_rich, cut_plain = rich.copy(), PlainText(text)
            cut_rich.truncate(limit, overflow="ellipsis")
            cut_plain.truncate(limit, overflow="ellipsis")
            assert cut_plain.plain == cut_rich.plain


def test_a_console_prints_text_and_buffers_inside_with():
    import io

    out = io.StringIO()
    console = PlainConsole(out, 80)
    with console:
        console.print(PlainText("one"))
        console.print()
        assert out.getvalue() == ""
    console.print("two")
    assert out.getvalue() == "one\n\ntwo\n"


@pytest.mark.parametrize(
    ("env", "tty", "to_file", "plain"),
    [
        ({}, False, False, True),
        ({}, True, False, False),
        ({}, True, True, True),
        ({"FORCE_COLOR": "1"}, False, False, False),
        ({"FORCE_COLOR": ""}, True, False, True),
        ({"TTY_COMPATIBLE": "1"}, False, False, False),
        ({"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, True, False, True),
        ({"COLUMNS": "123"}, False, False, True),
    ],
)
def test_written_without_rich_exactly_where_rich_would_write_no_colour(env, tty, to_file, plain):
    import io

    from rich.console import Console

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    stream = Stream()
    width = plain_width(stream, to_file=to_file, environ=env)
    assert (width is not None) == plain
    rich = Console(file=stream, highlight=False, soft_wrap=True, _environ=env, **({"no_color": True, "force_terminal": False} if to_file else {}))
    assert (rich.color_system is None) == plain
    if plain:
        assert width == rich.width


def test_each_trace_block_and_line_reaches_the_pipe_as_it_is_printed():
    # A buffered stream (standard output into a pipe): what was printed is flushed at
    # once, as Rich flushes it, so a log follows the replay trace by trace.
    import io

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8")  # buffered, as sys.stdout into a pipe
    console = PlainConsole(stream, 80)
    with console:
        console.print(PlainText("trace one"))
    assert raw.getvalue() == b"trace one\n"
    console.print("Summary")
    assert raw.getvalue() == b"trace one\nSummary\n"
