"""What each round cost, and what a stop at some point would have saved.

Measured usage is used where the trace has it; otherwise tokens are estimated from
text (and marked estimated), with input tokens growing with the context round by
round as in a real loop: the input of round k is everything said before it. A trace
that records only a run total (SWE-agent's ``model_stats``, a native ``end.usage``)
keeps that measured total: it is shared out over the rounds in proportion to their
estimates, and those figures are marked apportioned, not estimated.

Every figure carries its basis: ``measured``, ``estimated``, ``apportioned``, or
``some estimated`` / ``some apportioned`` for sums of mixed rounds.
"""

from __future__ import annotations

from dataclasses import field
from typing import NamedTuple

from ..dataclass_lite import mutable_dataclass
from ..model import Round, Trace
from ..text.tokenizers import count_cjk

DEFAULT_ANSWER_TOKENS = 200  # output of a forced answer when the run gave no answer to copy
FORCED_ANSWER_PROMPT_TOKENS = 40  # the closing instruction injected before a forced answer


# What str.split() splits ASCII text on (str.isspace(): the C0 separators too).
_ASCII_WHITESPACE = bytes(c for c in range(128) if chr(c).isspace())


def estimate_tokens(text: str) -> int:
    """About one token per CJK character and one per four other non-space characters."""
    if not text:
        return 0
    # Counted by C loops, not per character in Python: results can be megabytes.
    if text.isascii():  # no CJK; dropping the whitespace bytes is 4× faster than split()
        return (len(text.encode("ascii").translate(None, _ASCII_WHITESPACE)) + 3) // 4
    cjk = count_cjk(text)
    other = sum(map(len, text.split())) - cjk
    return cjk + (other + 3) // 4


@mutable_dataclass(slots=True)
class RoundCost:
    input_tokens: int
    output_tokens: int
    estimated: bool  # any part of the token count was estimated from text
    result_tokens: int  # estimated size of this round's tool results (they join the context)
    llm_seconds: float | None
    tool_seconds: list[float | None]
    apportioned: bool = False  # shared out from a measured run total
    estimate: int | None = None  # before apportioning: the text estimate of the round's tokens

    @property
    def basis(self) -> str:
        if self.estimated and self.apportioned:
            return "some estimated"  # one side shared out from a total, the other estimated
        return "estimated" if self.estimated else "apportioned" if self.apportioned else "measured"

    @property
    def live_tokens(self) -> int:
        """The tokens a guard in a live agent could know at this round."""
        return self.estimate if self.estimate is not None else self.tokens

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def _output_text_tokens(rnd: Round) -> int:
    return estimate_tokens(rnd.text) + sum(
        estimate_tokens(c.name) + estimate_tokens(c.arguments_raw) for c in rnd.tool_calls
    )


def tool_result_tokens(rnd: Round) -> int:
    """The estimated tokens of the results ``rnd``'s calls got: they join the context."""
    return sum(estimate_tokens(c.result.content) for c in rnd.tool_calls if c.result is not None)


class RoundTokens(NamedTuple):
    """One round's model call in tokens, as the agent loop knows it when the call returns."""

    input_tokens: int  # measured, else the estimated context said before the round
    output_tokens: int  # measured, else ``output_estimate``
    measured_input: bool
    measured_output: bool
    output_estimate: int  # its text and calls estimated from text: they join the context

    @property
    def estimated(self) -> bool:
        return not (self.measured_input and self.measured_output)


def round_tokens(rnd: Round, context: int) -> RoundTokens:
    """The tokens of ``rnd``: its measured usage where it has it, else the estimate from
    text, ``context`` (the estimated tokens of everything said before it) as its input.
    Replay's round costs and the live Monitor's token context both come from here."""
    usage = rnd.usage
    out_est = _output_text_tokens(rnd)
    has_in = usage is not None and usage.input_tokens is not None
    has_out = usage is not None and usage.output_tokens is not None
    return RoundTokens(
        usage.input_tokens if has_in else context, usage.output_tokens if has_out else out_est, has_in, has_out, out_est
    )


def round_costs(trace: Trace) -> list[RoundCost]:
    costs: list[RoundCost] = []
    context = 0  # estimated tokens of everything said before the current round
    user_text = {m.before_round: m.text for m in trace.user_messages}
    measured_in: list[bool] = []
    measured_out: list[bool] = []
    for rnd in trace.rounds:
        context += estimate_tokens(user_text.get(rnd.index, ""))
        tokens = round_tokens(rnd, context)
        measured_in.append(tokens.measured_input)
        measured_out.append(tokens.measured_output)
        results = tool_result_tokens(rnd)
        costs.append(
            RoundCost(
                input_tokens=tokens.input_tokens,
                output_tokens=tokens.output_tokens,
                estimated=tokens.estimated,
                result_tokens=results,
                llm_seconds=rnd.seconds,
                tool_seconds=[c.result.seconds if c.result is not None else None for c in rnd.tool_calls],
            )
        )
        context += tokens.output_estimate + results
    total = trace.usage_total
    if total is not None and costs and not any(measured_in) and not any(measured_out):
        _apportion(costs, total.input_tokens, total.output_tokens)
    return costs


def _apportion(costs: list[RoundCost], input_total: int | None, output_total: int | None) -> None:
    """Share measured run totals out over the rounds in proportion to their estimates
    (largest remainders, so the rounds add up to the total exactly)."""
    for cost in costs:
        cost.estimate = cost.tokens
    if input_total is not None:
        for cost, share in zip(costs, _shares(input_total, [c.input_tokens for c in costs])):
            cost.input_tokens = share
    if output_total is not None:
        for cost, share in zip(costs, _shares(output_total, [c.output_tokens for c in costs])):
            cost.output_tokens = share
    for cost in costs:
        cost.apportioned = True
        cost.estimated = input_total is None or output_total is None


def _shares(total: int, weights: list[int]) -> list[int]:
    if not weights:
        return []
    weight_sum = sum(weights)
    if weight_sum <= 0:
        weights, weight_sum = [1] * len(weights), len(weights)
    exact = [total * w / weight_sum for w in weights]
    shares = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: exact[i] - shares[i], reverse=True)
    for i in order[: total - sum(shares)]:
        shares[i] += 1
    return shares


def tokens_basis(costs: list[RoundCost]) -> str:
    """How a sum of these rounds' tokens is known (see the module docstring)."""
    return combine_bases(c.basis for c in costs)


def combine_bases(bases) -> str:
    """The basis of a sum of figures with these bases."""
    kinds = set(bases)
    if len(kinds) <= 1:
        return kinds.pop() if kinds else "measured"
    if kinds & {"estimated", "some estimated"}:
        return "some estimated"
    return "some apportioned"


def _round_times(rnd: Round) -> list[float]:
    out = [t for t in (rnd.started_at, rnd.ended_at) if t is not None]
    for call in rnd.tool_calls:
        if call.result is not None:
            out.extend(t for t in (call.result.started_at, call.result.ended_at) if t is not None)
    return out


def _times(trace: Trace, rounds: range | None = None) -> list[float]:
    out: list[float] = []
    for index in rounds if rounds is not None else range(len(trace.rounds)):
        out.extend(_round_times(trace.rounds[index]))
    return out


@mutable_dataclass(slots=True)
class Totals:
    """The whole run, for "saved as a share of" figures."""

    llm_calls: int
    tool_calls: int
    tokens: int
    seconds: float | None
    turns: int = 1
    tokens_basis: str = "measured"
    turn_rounds: list[tuple[int, int, int]] = field(default_factory=list)  # (turn, first round, last round)

    @property
    def tokens_estimated(self) -> bool:
        """Some of the tokens were estimated from text."""
        return "estimated" in self.tokens_basis


def trace_totals(trace: Trace, costs: list[RoundCost]) -> Totals:
    times = _times(trace)
    spans: list[tuple[int, int, int]] = []
    for rnd in trace.rounds:
        if spans and spans[-1][0] == rnd.turn:
            spans[-1] = (rnd.turn, spans[-1][1], rnd.index)
        else:
            spans.append((rnd.turn, rnd.index, rnd.index))
    if not trace.rounds and trace.usage_total is not None and trace.usage_total.total is not None:
        # Nothing to share the measured total over: it is still what the run cost.
        return Totals(
            llm_calls=0, tool_calls=0, tokens=trace.usage_total.total, seconds=None
        )
    return Totals(
        turns=len(spans) or 1,
        turn_rounds=spans,
        llm_calls=len(trace.rounds),
        tool_calls=sum(len(r.tool_calls) for r in trace.rounds),
        tokens=sum(c.tokens for c in costs),
        tokens_basis=tokens_basis(costs),
        seconds=(max(times) - min(times)) if len(times) >= 2 else None,
    )


@mutable_dataclass(slots=True)
class Saving:
    llm_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    seconds: float | None = None
    forced_answer_tokens: int | None = None  # the estimated cost charged for the forced answer
    tokens_basis: str = "measured"  # of the saved rounds' tokens (the forced answer is always an estimate)

    @property
    def tokens_estimated(self) -> bool:
        """Some of the saved rounds' tokens were estimated from text."""
        return "estimated" in self.tokens_basis


def _stop_time(trace: Trace, index: int, after_tools: bool) -> float | None:
    rnd = trace.rounds[index]
    if not after_tools:
        return rnd.ended_at
    ends = [c.result.ended_at for c in rnd.tool_calls if c.result is not None and c.result.ended_at is not None]
    if ends:
        return max(ends)
    if index + 1 < len(trace.rounds) and trace.rounds[index + 1].started_at is not None:
        return trace.rounds[index + 1].started_at
    return rnd.ended_at


def turn_end(trace: Trace, index: int) -> int:
    """The index after the last round of round ``index``'s turn."""
    turn = trace.rounds[index].turn
    end = index + 1
    while end < len(trace.rounds) and trace.rounds[end].turn == turn:
        end += 1
    return end


def forced_answer_cost(
    trace: Trace, costs: list[RoundCost], index: int, after_tools: bool, end: int | None = None
) -> tuple[int, float | None]:
    """Estimated tokens and seconds of the one forced reply after a stop at round ``index``
    (rounds up to ``end``, exclusive, are the stop's scope: its turn).

    Input: the context at the stop point (round k's input and output, plus its tool
    results when they ran) and the closing prompt. Output: as long as the real reply
    that ended the scope, or a typical answer when there was none.
    """
    end = len(trace.rounds) if end is None else end
    cost = costs[index]
    context = cost.input_tokens + cost.output_tokens + FORCED_ANSWER_PROMPT_TOKENS
    if after_tools:
        following = costs[index + 1] if index + 1 < end else None
        context = (
            following.input_tokens + FORCED_ANSWER_PROMPT_TOKENS
            if following and not following.estimated
            else context + cost.result_tokens
        )
    replied = trace.rounds[end - 1].is_final and (end < len(trace.rounds) or trace.error is None)
    if replied:
        output = costs[end - 1].output_tokens
        seconds = costs[end - 1].llm_seconds
    else:
        output = DEFAULT_ANSWER_TOKENS
        seconds = None
    if seconds is None:
        from statistics import (
            median,  # here: statistics imports fractions and decimal, a start-up cost
        )

        known = [c.llm_seconds for c in costs if c.llm_seconds is not None]
        seconds = median(known) if known else None
    return context + output, seconds


def stopped_when_recorded(trace: Trace, index: int, end: int) -> bool:
    """Whether the recorded run was already stopped at round ``index`` (0-based): the one
    round after it in its scope (up to ``end``, exclusive) is the forced answer a live
    guard's stop asked for (a ``Monitor`` recording). A stop there changes nothing."""
    return end == index + 2 and trace.rounds[index + 1].forced


def saving_after(
    trace: Trace, costs: list[RoundCost], index: int, after_tools: bool, forced_answer: bool, end: int | None = None
) -> Saving:
    """What ending the run (or, up to ``end``, exclusive, the turn) at round ``index``
    (0-based) would have saved.

    Before tools, round k's tools never run; after tools, they did. The rounds after
    k up to ``end`` are saved entirely. A ``stop`` is charged one forced reply
    (estimated); an ``abort`` ends with no answer and is charged nothing. A stop where
    the recorded run was stopped already (``stopped_when_recorded``) keeps the recorded
    forced answer as its own: it saves only round k's calls that ran although a stop
    before the tools would have kept them from running.
    """
    end = len(trace.rounds) if end is None else end
    if forced_answer and stopped_when_recorded(trace, index, end):
        saving = saving_after(trace, costs, index, after_tools, False, index + 1)
        if not after_tools:
            saving.tool_calls = sum(1 for c in trace.rounds[index].tool_calls if c.result is not None and not c.result.blocked)
        return saving
    later = range(index + 1, end)
    saving = Saving()
    saving.llm_calls = len(later)
    saving.tool_calls = sum(len(trace.rounds[i].tool_calls) for i in later)
    if not after_tools:
        saving.tool_calls += len(trace.rounds[index].tool_calls)
    saving.tokens = sum(costs[i].tokens for i in later)
    saving.tokens_basis = tokens_basis([costs[i] for i in later])
    end_times = _times(trace, range(index, end))
    stop_time = _stop_time(trace, index, after_tools)
    if end_times and stop_time is not None:
        saving.seconds = max(0.0, max(end_times) - stop_time)
    if forced_answer:
        tokens, seconds = forced_answer_cost(trace, costs, index, after_tools, end)
        saving.llm_calls -= 1
        saving.tokens -= tokens
        saving.forced_answer_tokens = tokens
        if saving.seconds is not None:
            saving.seconds = saving.seconds - seconds if seconds is not None else None
    return saving
