"""What the recorded run tells about an intervention that no live guard could know.

A recorded trace holds what really happened after every point where a guard would have
intervened. Two checks use it:

- **Stale blocks.** A block answers a call with something else (R002: the cached result
  of an earlier identical call). When that differs from the result the call really
  returned, the block would have fed the model stale data: it is reported as stale and
  not counted as a saving. A block that refuses the call (R001 with ``stop_action =
  "block"``: an error text instead of a result) is stale in the same sense when the
  call's recorded result differs from the last result of the same call: the refusal
  hid news (a poll whose status changed).
- **New information after a stop.** When the rounds a stop would have cut (the rest of
  its turn; the rest of the run for an abort) brought new information, the stop likely
  did harm. New information is: a URL no earlier result held; the first success of a
  tool that had only failed so far; a reply after a failure; or a productive result
  without URLs of which most lines appear in no earlier result. The first such round
  is reported.

These signals stand in for labels where a trace has none.
"""

from __future__ import annotations

from ..guards.signals import ResultClassifier, call_signature, urls_in
from ..model import Trace

_CLASSIFIER = ResultClassifier()


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def is_stale(replacement: str | None, recorded: str | None) -> bool | None:
    """Whether a block's replacement differs from the recorded result (None: cannot tell)."""
    if replacement is None or recorded is None:
        return None
    return not _same_text(replacement, recorded)


def refusal_hid_news(trace: Trace, round_index: int, call_id: str | None) -> bool | None:
    """For a block that refuses a call (no cached answer): whether the call's recorded
    result differed from the result of the same call the last time it ran, i.e. the
    refusal hid something new (a poll whose status changed). None: cannot tell."""
    rnd = trace.rounds[round_index]
    position = next((k for k, c in enumerate(rnd.tool_calls) if c.id == call_id), None)
    if position is None or rnd.tool_calls[position].result is None:
        return None
    call = rnd.tool_calls[position]
    signature = call_signature(call)
    # Backwards from the call: a refused repeat usually follows the call it repeats.
    for i in range(round_index, -1, -1):
        calls = trace.rounds[i].tool_calls
        for previous in reversed(calls[:position] if i == round_index else calls):
            if previous.result is not None and call_signature(previous) == signature:
                return not _same_text(previous.result.content, call.result.content)
    return None


class _Seen:
    """What the results up to some point held: URLs, lines, tools that failed or worked."""

    def __init__(self) -> None:
        self.urls: set[str] = set()
        self.lines: set[str] = set()
        self.failed: set[str] = set()
        self.worked: set[str] = set()
        self.any_failure = False

    def add(self, name: str, content: str, outcome: str) -> None:
        self.urls |= urls_in(content)
        self.lines.update(_lines(content))
        if outcome == "failed":
            self.failed.add(name)
            self.any_failure = True
        else:
            self.worked.add(name)


def _lines(content: str) -> set[str]:
    return {" ".join(line.split()).lower() for line in content.splitlines() if line.strip()}


def new_information_after(
    trace: Trace, index: int, after_tools: bool, start: int, end: int, forced_answer: bool = False
) -> tuple[int, str] | None:
    """(round, what) of the first recorded round in a stop's scope that brought new
    information, for a stop at round ``index`` (0-based) in a scope of rounds
    ``start``..``end`` (exclusive): "new" is against what that scope saw before the stop.
    ``forced_answer``: the stop ends with a forced answer, which replies in place of the
    scope's own reply, so that reply is not something the stop loses."""
    seen = _Seen()
    for i in range(start, index + 1 if after_tools else index):
        for call in trace.rounds[i].tool_calls:
            if call.result is not None:
                seen.add(call.name, call.result.content, _CLASSIFIER.outcome(call.result))
    failed_before_stop = seen.any_failure
    first = index + 1 if after_tools else index
    for i in range(first, end):
        rnd = trace.rounds[i]
        if rnd.is_final:
            if failed_before_stop and rnd.text.strip() and not forced_answer:
                return rnd.index, "a reply after a failed tool call"
            continue
        for call in rnd.tool_calls:
            if call.result is None:
                continue
            content = call.result.content
            outcome = _CLASSIFIER.outcome(call.result)
            if outcome == "productive":
                fresh_urls = urls_in(content) - seen.urls
                if fresh_urls:
                    return rnd.index, f"{len(fresh_urls)} new URL{'s' if len(fresh_urls) > 1 else ''}"
                if call.name in seen.failed and call.name not in seen.worked:
                    return rnd.index, f"the first success of {call.name} after failures"
                lines = _lines(content)
                # Results with URLs were judged by their URLs; others by their lines.
                if not urls_in(content) and lines and len(lines - seen.lines) * 2 > len(lines):
                    return rnd.index, f"a new result from {call.name}"
            seen.add(call.name, content, outcome)
    return None
