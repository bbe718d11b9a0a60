from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from ..text.memo import remembered
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import excerpt

# Gemini CLI's distance rule: the last ``threshold`` occurrences of a window must lie
# on average at most this many chunk lengths apart...
MAX_MEAN_DISTANCE_IN_CHUNKS = 5
# ...and the texts between consecutive occurrences may take at most this many forms
# (a list whose items share a long prefix has a different text between each).
MAX_DISTINCT_PERIODS = 5

CHANT = "I need to check the file. The file does not exist. I will create the file. "
CODE_LINE = "print('processing record, please wait for the result')\n"


@frozen_dataclass
class T002Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    chunk: int = option(50, "Length in characters of the text window that is looked for again.", minimum=10)
    threshold: int = option(
        10, "Occurrences of one window, close together, at which the run stops.", minimum=2
    )
    markdown_breaks: bool = option(
        False,
        "Also start afresh at every list item, heading, blockquote or table row, as Gemini CLI resets its "
        "tracking there; off, only code fences and divider lines break the text (a chant written as a list is caught).",
    )


def _is_fence(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("```") or stripped.startswith("~~~")


def _is_divider(line: str) -> bool:
    """A line with no letter or digit: a rule, a box-drawing border, a blank line of dots."""
    return bool(line.strip()) and not any(ch.isalnum() for ch in line)


# Markdown structure at the start of a line: a list item (bullet or number), a
# heading, a blockquote, a table row. Gemini CLI resets its text tracking at each.
_MARKDOWN_LINE = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\|.*\|)")


def prose_segments(text: str, markdown_breaks: bool = False) -> Iterator[str]:
    """The stretches of ``text`` outside fenced code blocks, split at divider lines
    (Gemini CLI resets its tracking at both); with ``markdown_breaks`` a line of
    markdown structure also starts a new stretch (the line itself belongs to it, as
    Gemini keeps analysing the chunk that made it reset)."""
    in_code = False
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if _is_fence(line):
            in_code = not in_code
        elif not in_code and not _is_divider(line):
            if markdown_breaks and current and _MARKDOWN_LINE.match(line):
                yield "".join(current)
                current = []
            current.append(line)
            continue
        if current:
            yield "".join(current)
            current = []
    if current and not in_code:
        yield "".join(current)


@frozen_dataclass(slots=True)
class Chant:
    window: str
    occurrences: int
    mean_distance: float
    start: int


def find_chant(segment: str, chunk: int, threshold: int) -> Chant | None:
    # A sweep looks at the same responses under many settings: remember the short ones.
    if len(segment) <= 16_384:
        return _find_chant_remembered(segment, chunk, threshold)
    return _find_chant(segment, chunk, threshold)


def _find_chant(segment: str, chunk: int, threshold: int) -> Chant | None:
    """The first window of ``chunk`` characters whose last ``threshold`` occurrences
    lie close together (Gemini CLI's rule), or ``None``.

    Each window is hashed once and only the last ``threshold`` positions of each hash
    are kept, so the cost is linear in the length of the segment (times ``chunk``, plus
    at most ``threshold`` × 5 × ``chunk`` characters per position for the period check).
    """
    max_mean_distance = MAX_MEAN_DISTANCE_IN_CHUNKS * chunk
    if not _may_repeat(segment, chunk, max_mean_distance):
        return None
    recent: dict[int, list[int]] = {}
    for start in range(len(segment) - chunk + 1):
        window = segment[start : start + chunk]
        key = hash(window)
        positions = recent.get(key)
        if positions is None:
            recent[key] = [start]
            continue
        last = positions[-1]
        if segment[last : last + chunk] != window:
            continue  # a hash collision, not a repeat
        if window.count(window[0]) == chunk:
            continue  # one character over and over (a run of dots or dashes)
        positions.append(start)
        if len(positions) > threshold:
            del positions[0]
        if len(positions) < threshold:
            continue
        mean_distance = (positions[-1] - positions[0]) / (threshold - 1)
        if mean_distance > max_mean_distance:
            continue
        periods = {segment[a:b] for a, b in zip(positions, positions[1:])}
        if len(periods) <= MAX_DISTINCT_PERIODS:
            return Chant(window, threshold, mean_distance, positions[0])
    return None


def _may_repeat(segment: str, chunk: int, distance: int) -> bool:
    """Whether a window of ``chunk`` characters can recur within ``distance`` of itself:
    what a chant needs (two of its occurrences are at most the mean distance apart).

    Any window holds a whole block of ``chunk // 2 + 1`` characters starting at a
    multiple of the step ``chunk - block + 1``, and that block recurs as far off as the
    window does; so when no such block recurs within ``distance`` (``str.find``, a
    block every step instead of a window every character) there is no chant to find."""
    block = chunk // 2 + 1
    step = chunk - block + 1
    for start in range(0, len(segment) - block + 1, step):
        if segment.find(segment[start : start + block], start + 1, start + distance + block) != -1:
            return True
    return False


_find_chant_remembered = remembered(maxsize=4096)(_find_chant)


def _unrelated_text(words: int, seed: int) -> str:
    return " ".join(f"item{seed}x{i * 7919 % 10007}" for i in range(words)) + " "


class TextChanting(Guard):
    """Stops a model that chants: the same stretch of text over and over in one
    response (Gemini CLI's content loop detector).

    **What it fires on.** The text of every round (a tool round's text before its tools
    run, a reply in ``final``), outside fenced code blocks and with divider lines
    (no letter or digit) as breaks, is scanned with a window of ``chunk`` (50)
    characters sliding one character at a time. A window that occurs ``threshold`` (10)
    times is a chant when, as in Gemini CLI, its last 10 occurrences are on average at
    most 5 × ``chunk`` (250) characters apart and the texts between consecutive
    occurrences take at most 5 forms → ``stop``. The period rule (Gemini PR #18975)
    keeps a list whose items share a long prefix from counting; the distance rule keeps
    a phrase that recurs now and then in a long text from counting. A window of one
    character repeated (a row of dashes) is never a chant.

    Gemini checks the streamed text and resets at every tool call; here each round's
    text is checked whole and on its own, so the guard keeps no state between rounds
    and ``scope`` changes nothing.

    **Why it matters.** A model in a degenerate state writes "I will now mark the task
    as complete." until it runs out of output tokens: every one of those tokens is paid
    for and the reply is useless. The repetition is visible long before the end.

    **Known misses.** Repetition inside a code block (a generated file can legitimately
    repeat lines) and text that changes a little every time (a counter in each
    sentence) are not looked at. Gemini also resets at table rows, list items, headings
    and blockquotes; here by default only fences and dividers break the text, so a chant
    written as a list is caught, and a very regular table may be too. ``markdown_breaks``
    resets at those lines as Gemini does (then a list-shaped chant escapes, as there).
    Gemini looks at streamed chunks and stops mid-response; a round's text is looked at
    whole, so the stop saves what comes after the response, not the rest of it.
    """

    code = "T002"
    name = "text-chanting"
    summary = "Stop a response that repeats a {chunk}-character stretch {threshold} times close together."
    source = "Gemini CLI LoopDetectionService (content chanting)"
    origin = "Gemini CLI's LoopDetectionService, its content detector: one stretch of streamed text chanted over and over"
    Options = T002Options
    messages = {
        "stop": Message(
            en='Your reply keeps repeating the same passage ("{window}", {count} times). Stop repeating it: write '
            "your final answer once, concisely, without calling tools.",
            zh="你的回复在反复重复同一段文字（“{window}”，{count} 次）。请停止重复：不调用工具，简洁地给出一次最终答案。",
            fields=("window", "count"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "A reply that repeats a sentence 12 times (Gemini test: 'I need to check the file…')",
                (answer(CHANT * 12),),
                expect=((1, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "Chanting in the text of a tool round stops before its tools run",
                (
                    calls(Call("read_file", {"path": "notes.md"}), text="I will now mark the task as complete.\n  " * 15),
                    answer(),
                ),
                expect=((1, "before_tools", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "A long normal reply never fires",
                (
                    answer(
                        "The build failed because the linker could not find libssl. I installed the development "
                        "package, re-ran the configure step and the build now passes on both targets.\n\n"
                        "Two tests were flaky: test_timeout depends on wall-clock time and test_cache assumed an "
                        "empty temporary directory. I pinned the clock in the first and gave the second its own "
                        "directory.\n\n"
                        "Remaining work: the Windows job still uses the old toolchain image, which I did not change "
                        "because it needs credentials I do not have. The release notes mention the new dependency "
                        "and the minimum OpenSSL version; please review the wording before tagging the release."
                    ),
                ),
                options={"enabled": True},
            ),
            Example(
                "Repeated lines inside a code block never fire",
                (answer("Here is the script:\n\n```python\n" + CODE_LINE * 20 + "```\n\nRun it once."),),
                options={"enabled": True},
            ),
            Example(
                "The same lines outside a code block fire",
                (answer("Here is the output:\n\n" + CODE_LINE * 20 + "\nRun it once."),),
                expect=((1, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "One chunk repeated 10 times, 500 characters apart, never fires (Gemini test: too far apart)",
                (answer((CHANT[:50] + _unrelated_text(45, 0)) * 10),),
                options={"enabled": True},
            ),
            Example(
                "The same text with 110 characters between the chunks fires",
                (answer((CHANT[:50] + _unrelated_text(10, 0)) * 10),),
                expect=((1, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "A 15-item list with a long shared prefix never fires (Gemini PR #18975 test)",
                (
                    answer(
                        "".join(
                            f"- projects/my-google-cloud-project-12345/locations/us-central1/services/svc-{i * 37}\n"
                            for i in range(15)
                        )
                    ),
                ),
                options={"enabled": True},
            ),
            Example(
                "A chant cut in two by a heading still fires by default",
                (answer(CHANT * 6 + "\n## Next step\n" + CHANT * 6),),
                expect=((1, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "With markdown_breaks the heading starts afresh: 6 + 6 repeats never fire (Gemini CLI resets at headings)",
                (answer(CHANT * 6 + "\n## Next step\n" + CHANT * 6),),
                options={"enabled": True, "markdown_breaks": True},
            ),
        )

    def _check(self, rnd: Round, context: RunContext) -> list[Verdict]:
        opts = self.options
        for segment in prose_segments(rnd.text, opts.markdown_breaks):
            chant = find_chant(segment, opts.chunk, opts.threshold)
            if chant is not None:
                return [
                    Verdict(
                        Action.STOP,
                        f"the text repeats {excerpt(chant.window, opts.chunk)!r} {chant.occurrences} times, "
                        f"on average {chant.mean_distance:.0f} characters apart",
                        details={
                            "window": chant.window,
                            "occurrences": chant.occurrences,
                            "mean_distance": round(chant.mean_distance, 1),
                        },
                        message=self.say("stop", context, window=chant.window.strip(), count=chant.occurrences),
                    )
                ]
        return []

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._check(rnd, context)

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return self._check(rnd, context)

    def state(self) -> dict[str, Any]:
        return {}
