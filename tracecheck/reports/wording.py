"""The words and figures of every report, in one place: how a count, a share, a time or a
place is written, and what a policy, a check finding or a sweep point says in words.

Every writer (terminal, Markdown, HTML, the check and sweep formats) phrases things with
these, so that the formats cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..model import place_text

if TYPE_CHECKING:
    from ..model import Trace
    from .records import FireRecord, OutcomeTotals, PolicyRecord, RecordedCost, SavedTotals, SavingRecord, StopRecord, TotalsRecord, TraceRecord
    from .check_records import CheckReport, FindingRecord

# --- figures ---------------------------------------------------------------------------

BASIS_NOTES = {
    "measured": "",
    "estimated": " (estimated)",
    "some estimated": " (some estimated)",
    "apportioned": " (run total measured, per round apportioned)",
    "some apportioned": " (some apportioned from run totals)",
}


def basis_note(measure: TraceRecord | SavingRecord | SavedTotals | RecordedCost | OutcomeTotals) -> str:
    """How a token figure is known, as the words after it."""
    return BASIS_NOTES.get(measure.tokens_basis, "")


def pct(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return ""
    return f" ({100 * part / whole:.0f}%)"


def notes(*parts: str) -> str:
    """Parenthesised notes after a figure, such as " (59%)" and " (estimated)", written
    as one: " (59%, estimated)"."""
    inner = [part.strip()[1:-1] for part in parts if part.strip()]
    return f" ({', '.join(inner)})" if inner else ""


def count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if abs(number) == 1 else "s")


def enable_hint(codes) -> str:
    """How to run guards the settings leave out: "run it with --set R001.enabled=true"."""
    codes = sorted(codes)
    if len(codes) == 1:
        return f"run it with --set {codes[0]}.enabled=true"
    return "run them with --set CODE.enabled=true"


def unchecked_remedy(codes) -> str | None:
    """``--preset seeds`` when that preset runs every guard in ``codes`` (expectations
    about guards the settings do not run), else None: it is offered only where it helps."""
    from ..presets import preset_by_name

    seeds = preset_by_name("seeds")
    return "--preset seeds" if seeds is not None and set(codes) <= set(seeds.guards) else None


def seconds(value: float | None) -> str:
    """A time as every human format writes it: to one decimal, thousands separated."""
    return "unknown" if value is None else f"{value:,.1f}s"


def number(value: int | float | None) -> str:
    """A figure with thousands separated, ``?`` when it is unknown."""
    return "?" if value is None else f"{value:,}"


def figure(value: Any) -> str:
    """A sweep figure: a float to three significant digits (one decimal from 10 on), an
    integer with thousands separated, ``unknown`` for None."""
    if value is None:
        return "unknown"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{value:,}"


def ratio(value: float | None) -> str:
    """A recall or a precision to two decimals, ``-`` when there is none."""
    return "-" if value is None else f"{value:.2f}"


def csv_value(value: Any) -> str:
    """A setting's value in a CSV cell: empty for None, a list joined by commas."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


def value_text(value: Any) -> str:
    """A setting's value as a sweep shows it (``0.5``, ``r001,p001``)."""
    return f"{value:g}" if isinstance(value, float) else csv_value(value)


# --- traces and the policy -----------------------------------------------------------


def location(trace: TraceRecord | Trace) -> str:
    """Where a trace is, by the one rule of ``model.place_text``: ``file:line``, the file,
    or with its place inside a document of many runs, ``file#simulations[3]``."""
    return place_text(trace.file, trace.line, trace.pointer)


def shown_id(trace: TraceRecord | Trace) -> str | None:
    """The trace's id, or None when it is the same text as its location (a reader that
    names traces by their file and line): the two are not printed twice."""
    where, ident = location(trace), trace.id
    if ident == where or where.endswith(("/" + ident, "\\" + ident)):
        return None
    return ident


def where_text(item: FireRecord | StopRecord, turns: int) -> str:
    """``round 5`` or, in a conversation of several turns, ``turn 2 round 5``."""
    return (f"turn {item.turn} " if turns > 1 else "") + f"round {item.round}"


def stops_text(policy: PolicyRecord, turns: int) -> str:
    return "; ".join(
        f"{stop.action} at {where_text(stop, turns)} {stop.phase.replace('_', ' ')} ({stop.code})" for stop in policy.stops
    )


def policy_headline(policy: PolicyRecord, trace: TraceRecord) -> str | None:
    """A policy's stops, or its blocks, and their effect: "stop at round 5 before tools
    (P001) → saves …"; None when it neither stops nor blocks."""
    turns = trace.turns
    if policy.stops:
        return stops_text(policy, turns) + f" → {effect(policy.saved, trace.recorded)}"
    if policy.blocked_calls:
        return f"no stop; {count(policy.blocked_calls, 'call')} blocked → {effect(policy.saved, trace.recorded)}"
    return None


def policy_notes(policy: PolicyRecord, turns: int) -> list[tuple[str, str]]:
    """The notes under a policy's line, each with what it is: ``note`` (how the figures
    are made), ``stale`` (blocks that would have hidden a change), ``news`` (a stop
    before the recorded run found something new), ``change`` (of the run's outcome),
    ``harm``."""
    from ..text.textsafe import one_line

    out: list[tuple[str, str]] = []
    forced = policy.saved.forced_answer_tokens if policy.stops else None
    if forced is not None:
        answers = sum(1 for stop in policy.stops if stop.action == "stop")
        out.append((f"{'one forced answer' if answers == 1 else f'{answers} forced answers'} charged: ~{forced:,} tokens (estimate)", "note"))
    out += [(text, "note") for text in already_stopped_notes(policy, turns)]
    if policy.blocked_calls and policy.stops:
        out.append((f"{count(policy.blocked_calls, 'call')} blocked before the stop (included)", "note"))
    if policy.stale_blocks:
        out.append((f"{count(policy.stale_blocks, 'block')} would have returned stale data (not counted)", "stale"))
    for stop in policy.stops:
        found = stop.new_information
        if found:
            out.append((f"the recorded run found new information at round {found.round} ({one_line(found.what, 200)}), after the {stop.code} stop", "news"))
    if policy.later_turns_as_recorded:
        out.append(("a stop ends its turn; later turns are assumed to happen as recorded", "note"))
    if policy.outcome_change:
        out.append((policy.outcome_change, "change"))
    if policy.possible_harm:
        out.append(("harm: " + policy.possible_harm, "harm"))
    return out


def policy_lines(trace: TraceRecord) -> tuple[str, list[str]]:
    """What the policy does to a trace, in words: the headline (its stops or blocks and
    their effect) and the notes under it (forced answers charged, blocks, stale data,
    the counterfactual's assumptions)."""
    policy = trace.policy
    headline = policy_headline(policy, trace) or "no stop"
    if not policy.stops:
        if policy.stale_blocks:
            headline += f"; {count(policy.stale_blocks, 'block')} would have returned stale data (not counted)"
        return headline, []
    return headline, [text for text, kind in policy_notes(policy, trace.turns) if kind in ("note", "stale")]


def recorded_text(whole: RecordedCost) -> str:
    """What the runs cost as recorded: "12 LLM calls · 30 tool calls · 4,000 tokens · 9.0s"."""
    return (
        f"{count(whole.llm_calls, 'LLM call')} · {count(whole.tool_calls, 'tool call')} · {whole.tokens:,} tokens"
        + basis_note(whole)
        + (f" · {seconds(whole.seconds)}" if whole.seconds is not None else "")
    )


def already_stopped_notes(policy: PolicyRecord, turns: int) -> list[str]:
    """The policy's stops that the recorded run made itself (a live monitor's recording):
    its forced answer is recorded right after, so such a stop changes nothing."""
    return [
        f"the recorded run was stopped here too: {where_text(dataclasses.replace(stop, round=stop.round + 1), turns)} is its forced answer"
        for stop in policy.stops
        if stop.already_stopped
    ]


def effect(saved: SavingRecord | OutcomeTotals, whole: RecordedCost) -> str:
    """What a policy's stops and blocks change: "saves …", and "costs …" for the parts
    that came out negative (a forced answer dearer than the rounds it replaced); shares
    of ``whole``, what the runs cost as recorded."""
    parts: list[tuple[float, str]] = [
        (saved.llm_calls, count(abs(saved.llm_calls), "LLM call") + pct(abs(saved.llm_calls), whole.llm_calls)),
        (saved.tool_calls, count(abs(saved.tool_calls), "tool call") + pct(abs(saved.tool_calls), whole.tool_calls)),
        (
            saved.tokens,
            f"{abs(saved.tokens):,} tokens{notes(pct(abs(saved.tokens), whole.tokens), basis_note(saved))}",
        ),
    ]
    if saved.seconds is not None:
        parts.append((saved.seconds, f"{seconds(abs(saved.seconds))}{pct(abs(saved.seconds), whole.seconds)}"))
    gains = [text for value, text in parts if value > 0]
    costs = [text for value, text in parts if value < 0]
    out = []
    if gains or not costs:
        out.append("saves " + (", ".join(gains) if gains else "nothing"))
    if costs:
        out.append("costs " + ", ".join(costs))
    return "; ".join(out)


# The buckets of savings by how the run ended (``Trace.outcome``), in the order reports
# list them: runs that failed anyway first (what a stop saves there is bankable: the
# loop burned budget for nothing), then runs that succeeded (what a stop saves there is
# at risk: it may have cost the success), then runs nobody graded.
OUTCOME_BUCKETS = ("failure", "success", "unknown")


OUTCOME_TITLES = {
    "failure": "failed anyway — bankable",
    "success": "succeeded — at risk, a stop may have cost the success",
    "unknown": "ungraded",
}


OUTCOME_HEADING = "by outcome (shares of those runs as recorded)"


# When every graded trace ended the same way (and none is ungraded), one line says it.
OUTCOME_ALL = {
    "failure": "all on runs that failed anyway: bankable, budget the loop burned for nothing",
    "success": "all on runs that succeeded: at risk, a stop may have cost the success",
}


def outcome_lines(totals: TotalsRecord) -> tuple[str, list[tuple[str, str, str]]]:
    """The savings split by outcome, in words: a heading and (bucket, title, text) lines,
    runs that failed anyway first (always, so that "nothing bankable" is said too), then
    those that succeeded and the ungraded ones where there are any. When all the traces
    ended the same way, the heading alone says so; nothing at all when no trace is graded
    (the split would repeat the totals) or the policy saved nothing."""
    split = totals.saved_by_outcome
    if not split or not (split["failure"].traces or split["success"].traces):
        return "", []
    if not totals.traces_stopped and not any(getattr(totals.saved, k) for k in ("llm_calls", "tool_calls", "tokens")):
        return "", []
    present = [bucket for bucket in OUTCOME_BUCKETS if split[bucket].traces]
    if len(present) == 1:
        return OUTCOME_ALL[present[0]], []
    out = []
    for bucket in OUTCOME_BUCKETS:
        item = split[bucket]
        if not item.traces:
            if bucket == "failure":
                out.append((bucket, OUTCOME_TITLES[bucket], "no run labelled a failure: nothing bankable"))
            continue
        text = f"{item.traces_stopped} of {count(item.traces, 'trace')} stopped"
        if item.possible_harm:
            text += f", {item.possible_harm} harmed"
        text += f" → {effect(item, item.whole)}"
        if item.forced_answer_tokens is not None:
            text += f"; forced answers charged: ~{item.forced_answer_tokens:,} tokens (estimate)"
        out.append((bucket, OUTCOME_TITLES[bucket], text))
    return OUTCOME_HEADING, out


# --- sweep points ---------------------------------------------------------------------


def sweep_figures(row: dict[str, Any], by_outcome: bool = False) -> list[str]:
    """A grid point's figures written as the terminal writes them (``by_outcome``: with
    the savings on failed runs and at risk after the stops, as ``columns`` has them)."""
    return [
        str(row["traces_stopped"]),
        *((figure(row["tokens_saved_on_failure"]), figure(row["tokens_at_risk"])) if by_outcome else ()),
        figure(row["llm_calls_saved"]) + pct(row["llm_calls_saved"], row["whole"]["llm_calls"]),
        figure(row["tokens_saved"]) + pct(row["tokens_saved"], row["whole"]["tokens"]),
        seconds(row["seconds_saved"]) + pct(row["seconds_saved"], row["whole"].get("seconds")),
        f"{row['harm']:.2f}",
        str(row["harmed"]),
        str(row["stale_blocks"]),
        str(row["cut_new_information"]),
        ratio(row["recall"]),
        ratio(row["precision"]),
    ]


def runs_text(pairs: list[list[Any]]) -> str:
    """``0.5: r3, 0.55: r3, 0.6: -`` as ``0.5–0.55: r3 · 0.6: -``."""
    out: list[tuple[Any, Any, Any]] = []  # (first value, last value, round)
    for value, first in pairs:
        if out and out[-1][2] == first:
            out[-1] = (out[-1][0], value, first)
        else:
            out.append((value, value, first))
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v, _ in pairs)
    if not numeric:  # names have no order to make a range of: list them
        by_round: dict[Any, list[Any]] = {}
        for value, first in pairs:
            by_round.setdefault(first, []).append(value)
        return " · ".join(f"{', '.join(value_text(v) for v in values)}: {'r' + str(r) if r is not None else '-'}" for r, values in by_round.items())

    def show(a, b, r):
        span = value_text(a) if a == b else f"{value_text(a)}–{value_text(b)}"
        return f"{span}: {'r' + str(r) if r is not None else '-'}"

    return " · ".join(show(*run) for run in out)


def validation_text(validation: dict[str, Any], data: dict[str, Any]) -> str:
    objective = data["objective"]
    if validation["kind"] == "holdout":
        test = validation.get("best_on_test")
        base = validation.get("baseline_on_test")
        text = (
            f"holdout: chosen on {validation['train']} traces, checked on the other {validation['test']} (seed {validation['seed']}): "
        )
        if test is None:
            return text + "no choice to check"
        text += f"{objective} {figure(test.get(objective))}, harm {test['harm']:.2f}"
        if test.get("recall") is not None:
            text += f", recall {test['recall']:.2f}"
        if base is not None:
            text += f" (current settings on the same traces: {figure(base.get(objective))}, harm {base['harm']:.2f})"
            mine, theirs = test.get(objective), base.get(objective)
            if mine is not None and theirs is not None and (mine < theirs or (mine == theirs and test["harm"] > base["harm"])):
                text += " — on traces it was not chosen on, the choice does worse than the current settings: keep them"
        return text
    parts = []
    for fold in validation["per_fold"]:
        test = fold["test"]
        if test is None:
            parts.append(f"fold {fold['fold']}: no choice")
        else:
            parts.append(f"fold {fold['fold']}: {objective} {figure(test.get(objective))}, harm {test['harm']:.2f}")
    return f"{validation['folds']}-fold cross-validation (seed {validation['seed']}), each choice checked on the fold left out: " + "; ".join(parts)


# --- check findings ------------------------------------------------------------------


def named(finding: FindingRecord) -> str:
    """The trace of a finding as the line-based formats name it beside ``file:line``:
    its id, and its place inside a document of many runs, where the line alone does not
    tell the runs apart (``task-5/trial-0 at simulations[3]``)."""
    return finding.trace + (f" at {finding.pointer}" if finding.pointer else "")


def status_tag(finding: FindingRecord) -> str:
    """`` [baseline]``, `` [accepted: why]``: a known finding's status after its words;
    nothing for a new one."""
    return "" if finding.status == "new" else f" [{finding.status}" + (f": {finding.reason}" if finding.reason else "") + "]"


def finding_text(finding: FindingRecord) -> str:
    """A finding on one line after its place: ``P001 [task-5] looped 4 rounds [baseline]``."""
    return f"{finding.rule} [{named(finding)}] {finding.message}{status_tag(finding)}"


def check_summary(report: CheckReport) -> str:
    """The check's one-line summary: traces, expectations held, failing findings."""
    counts = report.counts
    met, checked = report.expectations.met, report.expectations.checked
    traces = count(report.traces, "trace") + (f" ({report.deselected:,} deselected by -k)" if report.deselected else "")
    parts = [traces, f"{met:,} of {count(checked, 'expectation')} {'holds' if checked == 1 else 'hold'}"]
    unchecked = report.expectations.not_checked
    if unchecked:
        parts.append(f"{unchecked:,} not checked (their guards are not run)")
    known = [f"{n:,} {word}" for n, word in ((counts.baseline, "in the baseline"), (counts.accepted, "accepted"), (counts.allowed, "allowed")) if n]
    parts.append(count(counts.failing, "failing finding") + (f" (known: {', '.join(known)})" if known else ""))
    fixed = report.baseline_fixed
    if fixed:
        parts.append(f"{fixed:,} baseline {'entry looks' if fixed == 1 else 'entries look'} fixed (tracecheck baseline prune)")
    return " · ".join(parts)
