"""Gating CI on regression traces: the plain function behind ``tracecheck check``::

    from tracecheck.config import load_settings
    from tracecheck.engine.check import run_check

    result = run_check(["regressions/"], load_settings())
    for finding in result.failing:
        print(finding.location, finding.message)

A **finding** is something a reviewer must look at:

- ``expectation``: an expectation of the trace does not hold (a native ``expect``
  event, or the labels sidecar): a guard or the policy had to intervene by round N (give
  or take ``tolerance``) and did not, or had to stay quiet and did not;
- ``harm``: the policy stops a run labelled a success, healthy or mixed, unless its
  labels ask for the stop (``tracecheck.engine.scoring.harm``, the one definition
  ``replay`` and ``sweep`` use too);
- ``waste``: the policy would have saved more than ``--max-wasted-rounds`` rounds (or
  ``--max-wasted-tokens`` tokens) on a trace: the agent loops.

Each finding has a **fingerprint** made without line numbers (the rule, the trace id,
what was expected, and the calls of the round the policy acted on), so a baseline keeps
recognising it when the file moves. A finding is ``new``, or absorbed: ``allowed`` by
an inline ``allow`` event in the trace, ``accepted`` (with a reason) or ``baseline`` in
a baseline file. ``--fail-on new`` (the default) fails on new findings only, ``any`` on
every finding not allowed or accepted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import field, fields, replace
from pathlib import Path
from typing import Any

from ..config import Settings
from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..guards import guard_by_key
from ..guards.base import Action
from ..guards.signals import call_signature
from ..input.diagnostics import Diagnostics, TracecheckError
from ..input.labels import stale_id_note
from ..model import Expectation, Trace, place_text
from .replay import TraceResult, replay_trace
from .scoring import harm, harm_subject, policy_expectation, run_label

KINDS = ("expectation", "harm", "waste")


@mutable_dataclass(slots=True)
class Finding:
    kind: str  # expectation | harm | waste
    rule: str  # the guard code, "policy", "TC-WASTE-ROUNDS" or "TC-WASTE-TOKENS"
    trace: str
    file: str
    line: int | None  # of the round concerned, else of the expectation, else of the trace
    round: int | None
    message: str  # one line a person understands at a glance
    fingerprint: str
    status: str = "new"  # new | baseline | accepted | allowed
    reason: str | None = None  # why it is accepted or allowed
    cause: str | None = None  # the guard whose stop made it (harm, waste): an allow for it covers it
    # What was expected against what happened: the round a guard or the policy had to act
    # by (None: it had to stay quiet), and how it deviated: "late", "never" (a loop not
    # caught), "acted" (it should have stayed quiet), "cut" (a success stopped), "waste".
    expected_round: int | None = None
    deviation: str | None = None
    turn: int | None = None  # the conversation turn of ``round``
    pointer: str | None = None  # the trace's place inside a document of many runs (Trace.pointer)

    @property
    def location(self) -> str:
        return place_text(self.file, self.line, self.pointer)

    @property
    def failing(self) -> bool:
        return self.status in ("new", "baseline")


@frozen_dataclass(slots=True)
class ExpectationCheck:
    """One expectation of a trace as check judged it, met or not: what the JUnit report
    makes a testcase of (a broken one also has its finding, by ``fingerprint``). The check
    report holds it as it is (``expectation_checks``): ``to_json()`` is its entry there."""

    trace: str
    file: str
    line: int | None  # where the expectation is written, else where the trace starts
    guard: str  # the guard's code, "policy", or the name as written when no guard has it
    fires: bool  # must intervene (by ``by_round``), or stay quiet
    by_round: int | None
    status: str  # met | broken | not_checked (its guard is not run) | unknown_guard
    round: int | None  # where the guard or the policy first acted; None: it never did
    message: str  # what was expected and what happened, in words
    note: str | None = None
    fingerprint: str | None = None  # of its finding (broken, unknown_guard)
    pointer: str | None = None  # the trace's place inside a document of many runs (Trace.pointer)

    def to_json(self) -> dict[str, Any]:
        """Its fields in their declared order (every value is JSON already)."""
        return {item.name: getattr(self, item.name) for item in fields(self)}


@mutable_dataclass(slots=True)
class TraceCheck:
    """What check makes of one trace: its findings and its expectations, judged."""

    trace: str
    labelled: bool  # an outcome or a kind label: the policy's harm is checked on it
    findings: list[Finding]
    expectations: list[ExpectationCheck]

    @property
    def checked(self) -> int:
        return sum(1 for e in self.expectations if e.status in ("met", "broken"))

    @property
    def met(self) -> int:
        return sum(1 for e in self.expectations if e.status == "met")

    @property
    def unchecked(self) -> int:
        return sum(1 for e in self.expectations if e.status == "not_checked")


@mutable_dataclass(slots=True)
class FileChecked:
    """The end of one input file's traces: how many it gave and warnings it raised (a file
    that gave no trace but warnings could not be read)."""

    name: str
    traces: int
    warnings: int


# pytest's exit code when it collected no test: the run checked nothing, which is no pass.
NOTHING_TO_CHECK = 5


@mutable_dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    expectation_checks: list[ExpectationCheck] = field(default_factory=list)  # every expectation, in input order
    traces: int = 0
    expectations: int = 0  # checked
    expectations_met: int = 0
    expectations_unchecked: int = 0  # about guards the settings do not run
    unreadable: list[str] = field(default_factory=list)  # files that gave no trace at all
    baseline_fixed: int = 0  # baseline entries no finding matches any more
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    fail_on: str = "new"
    labelled: int = 0  # traces with an outcome or a kind label: the policy's harm is checked on them
    allow_empty: bool = False  # nothing to check is a pass (exit 0), not exit 5
    guards_run: set[str] = field(default_factory=set)  # codes of the guards the settings run
    traces_read: set[str] = field(default_factory=set)  # ids of the traces read
    checked_guards: set[tuple[str, str]] = field(default_factory=set)  # (trace id, guard code) of the expectations checked
    labels_file: str | None = None  # the labels file the traces were labelled from

    def add(self, checked: TraceCheck) -> None:
        self.findings += checked.findings
        self.expectation_checks += checked.expectations
        self.traces += 1
        self.traces_read.add(checked.trace)
        self.labelled += checked.labelled
        self.expectations += checked.checked
        self.expectations_met += checked.met
        self.expectations_unchecked += checked.unchecked
        self.checked_guards |= {(e.trace, e.guard) for e in checked.expectations if e.status in ("met", "broken") and guard_by_key(e.guard) is not None}

    def could_see(self, entry: dict[str, Any]) -> bool:
        """Whether a baseline entry's finding could have come back in this run: its trace was
        read and, for a guard's own expectation, that guard ran. Otherwise the entry is not
        checked, never "fixed"."""
        if entry.get("trace") not in self.traces_read:
            return False
        rule = str(entry.get("rule", ""))
        return not (entry.get("kind") == "expectation" and guard_by_key(rule) is not None and rule not in self.guards_run)

    @property
    def failing(self) -> list[Finding]:
        if self.fail_on == "any":
            return [f for f in self.findings if f.failing]
        return [f for f in self.findings if f.status == "new"]

    @property
    def nothing_to_check(self) -> bool:
        """No expectation (checked or not), no labelled trace and no finding: a gate that
        looked at nothing it could hold the traces to, as pytest collecting no test."""
        return not (self.expectations or self.expectations_unchecked or self.labelled or self.findings)

    @property
    def exit_code(self) -> int:
        if self.failing:
            return 1
        return NOTHING_TO_CHECK if self.nothing_to_check and not self.allow_empty else 0


def fingerprint(*parts: Any) -> str:
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _round_signature(trace: Trace, round_number: int | None) -> str:
    """What a round did, without where it is: its calls (name + canonical arguments),
    or its text for a reply."""
    if round_number is None:
        return ""
    rnd = next((r for r in trace.rounds if r.index == round_number), None)
    if rnd is None:
        return ""
    if rnd.tool_calls:
        return "|".join(call_signature(c) for c in rnd.tool_calls)
    return hashlib.sha256(" ".join(rnd.text.split()).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _round_line(trace: Trace, round_number: int | None) -> int | None:
    rnd = next((r for r in trace.rounds if r.index == round_number), None) if round_number is not None else None
    return rnd.line if rnd is not None and rnd.line is not None else None


def _guard_state_at(trace: Trace, settings: Settings, code: str, round_number: int | None) -> str | None:
    """Why the guard did not fire by the expected round: its own sentence, else its state."""
    guard_class = guard_by_key(code)
    if guard_class is None or code not in settings.options or round_number is None:
        return None
    guard = guard_class(settings.options[code])
    seen: dict[str, Any] = {}

    def observe(rnd, phase, guards):
        if rnd.index == round_number:
            seen["state"], seen["sentence"] = guard.state(), guard.near_miss()

    replay_trace(trace, [guard], observe)
    if seen.get("sentence"):
        return seen["sentence"]
    state = seen.get("state")
    if not state:
        return None
    from ..text.textsafe import neutralize

    return "; ".join(f"{k}={neutralize(str(v))}" for k, v in state.items() if v not in (None, "", [], {}))


def _turn_of(trace: Trace, round_number: int | None) -> int | None:
    if round_number is None:
        return None
    return next((r.turn for r in trace.rounds if r.index == round_number), None)


def _deviation(fires: bool, fired_round: int | None) -> str:
    if fires:
        return "never" if fired_round is None else "late"
    return "acted"


def _who(exp: Expectation) -> str:
    return "the policy" if exp.guard.lower() == "policy" else exp.guard


def _expectation_findings(trace: Trace, result: TraceResult, settings: Settings) -> tuple[list[Finding], list[ExpectationCheck]]:
    """The findings of the trace's broken expectations, and every expectation judged."""
    out: list[Finding] = []
    judged: list[ExpectationCheck] = []
    for checked in result.expectations:
        exp = checked.expectation
        rule = "policy" if exp.guard.lower() == "policy" else (guard_by_key(exp.guard).code if guard_by_key(exp.guard) else exp.guard)
        verdict = ExpectationCheck(
            trace=trace.id,
            file=trace.file,
            pointer=trace.pointer,
            line=exp.line or trace.line,
            guard=rule,
            fires=exp.fires,
            by_round=exp.by_round,
            status="met" if checked.met else "broken" if checked.met is False else "unknown_guard" if checked.unknown else "not_checked",
            round=checked.round,
            message=checked.message,
            note=exp.note,
        )
        judged.append(verdict)
        if checked.met is None and checked.unknown:
            finding = Finding(
                kind="expectation",
                rule=exp.guard,
                trace=trace.id,
                file=trace.file,
                pointer=trace.pointer,
                line=exp.line or trace.line,
                round=None,
                message=f"an expectation about {exp.guard!r}, which is not a guard (a typo?), cannot be checked",
                fingerprint=fingerprint("unknown-guard", exp.guard, trace.id, exp.fires, exp.by_round),
            )
            judged[-1] = replace(verdict, fingerprint=finding.fingerprint)  # frozen: the verdict with its finding's fingerprint
            out.append(finding)
            continue
        if checked.met is not False:
            continue
        message = checked.message
        # Where it first acted (late, or when it should have stayed quiet); None: never.
        fired_round = checked.round
        if exp.fires:
            if rule != "policy":
                state = _guard_state_at(trace, settings, rule, exp.by_round or (trace.rounds[-1].index if trace.rounds else None))
                if state:
                    from ..text.textsafe import one_line

                    message += f" — at round {exp.by_round or trace.rounds[-1].index}: {one_line(state, 240)}"
        else:
            hits = result.policy.stops if rule == "policy" else [f for f in result.fires if f.code == rule and f.action is not Action.HINT]
            if hits:
                message += f" ({hits[0].reason})" if rule != "policy" else ""
        if exp.note:
            message += f" [{exp.note}]"
        # A loop caught late or never points at its expectation; a guard that should have
        # stayed quiet, at the round where it acted.
        line = (exp.line or trace.line) if exp.fires else (_round_line(trace, fired_round) or exp.line or trace.line)
        finding = Finding(
            kind="expectation",
            rule=rule,
            trace=trace.id,
            file=trace.file,
            pointer=trace.pointer,
            line=line,
            round=fired_round,
            message=message,
            expected_round=exp.by_round if exp.fires else None,
            deviation=_deviation(exp.fires, fired_round),
            turn=_turn_of(trace, fired_round),
            # The deviation is part of it: "one round late" and "never" are different
            # findings, so a baseline of the first cannot hide the second.
            fingerprint=fingerprint(
                "expectation", rule, trace.id, exp.fires, exp.by_round, _deviation(exp.fires, fired_round), _round_signature(trace, fired_round)
            ),
        )
        judged[-1] = replace(verdict, fingerprint=finding.fingerprint)
        out.append(finding)
    return out, judged


def _harm_findings(trace: Trace, result: TraceResult) -> list[Finding]:
    policy = result.policy
    # Harm is replay's, one definition (scoring.harm): possible_harm is set exactly then.
    if policy.possible_harm is None:
        return []
    stop = next(s for s in policy.stops if not s.already_stopped)
    last = trace.rounds[-1].index if trace.rounds else stop.round
    rest = max(0, last - stop.round)
    label = run_label(trace.labels)
    what = harm_subject(harm(True, label.kind if label else None, trace.outcome, policy_expectation(trace.expectations))).removeprefix("the run is labelled ")
    message = (
        f"the policy {stop.action.value}s a run labelled {what} at round {stop.round} "
        f"{str(stop.phase)} ({stop.code}: {stop.reason}), {rest} round{'s' if rest != 1 else ''} before its recorded end"
    )
    if stop.new_information:
        message += f"; the recorded run found new information at round {stop.new_information[0]} ({stop.new_information[1]})"
    return [
        Finding(
            kind="harm",
            rule="policy",
            trace=trace.id,
            file=trace.file,
            pointer=trace.pointer,
            line=_round_line(trace, stop.round) or trace.line,
            round=stop.round,
            message=message,
            fingerprint=fingerprint("harm", trace.id, stop.code, _round_signature(trace, stop.round)),
            cause=stop.code,
            deviation="cut",
            turn=_turn_of(trace, stop.round),
        )
    ]


def _waste_findings(trace: Trace, result: TraceResult, max_rounds: int | None, max_tokens: int | None) -> list[Finding]:
    policy = result.policy
    saved = policy.saved
    if saved is None or not policy.stops:
        return []
    stop = policy.stops[0]
    out = []
    for rule, limit, value, noun in (
        ("TC-WASTE-ROUNDS", max_rounds, saved.llm_calls, "rounds"),
        ("TC-WASTE-TOKENS", max_tokens, saved.tokens, "tokens"),
    ):
        if limit is None or value <= limit:
            continue
        out.append(
            Finding(
                kind="waste",
                rule=rule,
                trace=trace.id,
                file=trace.file,
                pointer=trace.pointer,
                line=_round_line(trace, stop.round) or trace.line,
                round=stop.round,
                message=f"the agent loops: {stop.code} would have {'ended the run' if stop.action is Action.ABORT else 'stopped it'} at round {stop.round} ({stop.reason}), "
                f"saving {value:,} {noun if value != 1 else noun[:-1]} (more than --max-wasted-{noun} {limit:,})"
                + (
                    f"; but the recorded run found new information at round {stop.new_information[0]} "
                    f"({stop.new_information[1]}): look before calling it a loop"
                    if stop.new_information
                    else ""
                ),
                fingerprint=fingerprint("waste", rule, trace.id, stop.code, _round_signature(trace, stop.round)),
                cause=stop.code,
                deviation="waste",
                turn=_turn_of(trace, stop.round),
            )
        )
    return out


def _allowed(trace: Trace, finding: Finding) -> str | None:
    """The reason of an ``allow`` event that covers the finding: one naming its rule, or
    the guard whose stop made it (an allowed P004 stop is not waste either)."""
    names = {finding.rule.lower()} | ({finding.cause.lower()} if finding.cause else set())
    for allow in trace.allowances:
        guard = guard_by_key(allow.guard)
        key = guard.code.lower() if guard is not None else allow.guard.lower()
        if key in names and (allow.round is None or allow.round == finding.round):
            return allow.reason
    return None


def check_trace(trace: Trace, settings: Settings, *, max_wasted_rounds: int | None = None, max_wasted_tokens: int | None = None) -> TraceCheck:
    """One trace's findings and its expectations, judged."""
    result = replay_trace(trace, settings.build())
    findings, expectations = _expectation_findings(trace, result, settings)
    findings += _harm_findings(trace, result)
    findings += _waste_findings(trace, result, max_wasted_rounds, max_wasted_tokens)
    for finding in findings:
        reason = _allowed(trace, finding)
        if reason is not None:
            finding.status, finding.reason = "allowed", reason
    labelled = bool(trace.labels.get("outcome") or trace.labels.get("kind"))
    return TraceCheck(trace.id, labelled, findings, expectations)


class TraceChecker:
    """Checks the traces of one input file after another (in a worker process with
    ``--jobs``, see ``engine.jobs``): a ``TraceCheck`` per trace, then a ``FileChecked``."""

    def __init__(self, settings: Settings, input_format: str | None, labels, max_wasted_rounds: int | None, max_wasted_tokens: int | None, selection=None) -> None:
        self.settings, self.input_format, self.labels, self.selection = settings, input_format, labels, selection
        self.max_wasted_rounds, self.max_wasted_tokens = max_wasted_rounds, max_wasted_tokens

    def items(self, source, diagnostics: Diagnostics):
        from ..readers.load import read_source

        warned, read = len(diagnostics), 0
        for trace in read_source(source, diagnostics, self.input_format):
            read += 1
            if self.labels is not None:
                self.labels.apply(trace)
            if self.selection is not None and not self.selection.keep(trace, diagnostics):
                continue
            yield check_trace(trace, self.settings, max_wasted_rounds=self.max_wasted_rounds, max_wasted_tokens=self.max_wasted_tokens)
        yield FileChecked(source.name, read, len(diagnostics) - warned)


def _no_longer_checked(check: ExpectationCheck, baseline: Baseline) -> Finding:
    """An expectation about a guard the settings no longer run, which the baseline checked."""
    rule = check.guard
    wanted = f"intervene by round {check.by_round}" if check.fires and check.by_round else ("intervene" if check.fires else "stay quiet")
    return Finding(
        kind="expectation",
        rule=rule,
        trace=check.trace,
        file=check.file,
        line=check.line,
        pointer=check.pointer,
        round=None,
        message=f"{rule} should {wanted}, and is no longer checked: the settings do not run {rule}, "
        f"which ran when the baseline {baseline.file} was written" + (f" [{check.note}]" if check.note else ""),
        fingerprint=fingerprint("unchecked", rule, check.trace, check.fires, check.by_round),
        expected_round=check.by_round if check.fires else None,
        deviation="unchecked",
    )


def run_check(
    paths: Sequence[str],
    settings: Settings,
    *,
    input_format: str | None = None,
    labels=None,
    baseline: Baseline | None = None,
    fail_on: str = "new",
    max_wasted_rounds: int | None = None,
    max_wasted_tokens: int | None = None,
    diagnostics: Diagnostics | None = None,
    exclude: Sequence[str] = (),
    allow_empty: bool = False,
    jobs: int = 1,
    selection=None,
) -> CheckResult:
    """``exclude``: files below ``paths`` that are not traces (a baseline being written).
    ``jobs`` above 1 reads and checks the files in that many processes; the result is the same.
    ``selection`` (``-k``) checks only the traces it matches."""
    from ..input.sources import expand_paths
    from ..readers.load import check_input_format
    from .jobs import items_in_order

    if fail_on not in ("new", "any"):
        raise TracecheckError(f"--fail-on: choose new or any, not {fail_on!r}")
    check_input_format(input_format)
    result = CheckResult(diagnostics=diagnostics if diagnostics is not None else Diagnostics(), fail_on=fail_on, allow_empty=allow_empty)
    result.guards_run = {guard.code for guard in settings.enabled()}
    result.labels_file = getattr(labels, "file", None)
    import os

    # The baseline and labels files are check's own inputs, not traces, wherever they sit.
    own = {os.path.realpath(f) for f in (getattr(baseline, "file", ""), getattr(labels, "file", ""), *exclude) if f}
    sources = [s for s in expand_paths(list(paths), result.diagnostics) if os.path.realpath(s.name) not in own]
    checker = TraceChecker(settings, input_format, labels, max_wasted_rounds, max_wasted_tokens, selection)
    for item in items_in_order(checker, sources, result.diagnostics, jobs):
        if isinstance(item, FileChecked):
            if not item.traces and item.warnings:
                result.unreadable.append(item.name)
        else:
            if baseline is not None:
                # A guard switched off since the baseline was written leaves its expectations
                # unchecked: that is a regression of the gate, not a pass.
                item.findings += [
                    _no_longer_checked(e, baseline)
                    for e in item.expectations
                    if e.status == "not_checked" and guard_by_key(e.guard) is not None and baseline.checked_before(e.trace, e.guard)
                ]
            result.add(item)
    if labels is not None:
        labels.finish(result.diagnostics)
    if baseline is not None:
        result.baseline_fixed = baseline.absorb(result.findings, result.could_see)
        # A trace -k left out was read: its entries are not missing, only not checked now.
        baseline.warn_unread(result.traces_read | set(result.diagnostics.deselected), result.diagnostics)
    return result


# --- baselines -----------------------------------------------------------------------

BASELINE_VERSION = 1


@mutable_dataclass
class Baseline:
    """Findings recorded on purpose: ``findings`` (known, still failing with ``--fail-on
    any``) and ``accepted`` (each with a reason: never failing)."""

    findings: list[dict[str, Any]] = field(default_factory=list)
    accepted: list[dict[str, Any]] = field(default_factory=list)
    file: str = ""
    # The guard expectations checked when it was written ({"trace", "rule"}): one of them
    # left unchecked later (its guard switched off) fails the gate instead of passing quietly.
    checked: list[dict[str, str]] = field(default_factory=list)

    def checked_before(self, trace: str, rule: str) -> bool:
        return any(e.get("trace") == trace and e.get("rule") == rule for e in self.checked)

    def absorb(self, findings: list[Finding], could_see=lambda entry: True) -> int:
        """Mark findings the baseline knows; return how many entries matched nothing
        although their finding could have come back (``could_see``)."""
        known = {e["fingerprint"]: e for e in self.findings}
        accepted = {e["fingerprint"]: e for e in self.accepted}
        matched: set[str] = set()
        for finding in findings:
            if finding.status != "new":
                continue
            if finding.fingerprint in accepted:
                finding.status, finding.reason = "accepted", accepted[finding.fingerprint].get("reason")
                matched.add(finding.fingerprint)
            elif finding.fingerprint in known:
                finding.status = "baseline"
                matched.add(finding.fingerprint)
        return sum(1 for e in [*self.findings, *self.accepted] if e["fingerprint"] not in matched and could_see(e))

    def warn_unread(self, traces_read: set[str], diagnostics: Diagnostics) -> None:
        """Say which traces the baseline names that no input held: their entries were not
        checked (a trace left out of this run, or an id that changed)."""
        unread: dict[str, int] = {}
        for item in [*self.findings, *self.accepted]:
            trace = item.get("trace")
            if isinstance(trace, str) and trace not in traces_read:
                unread[trace] = unread.get(trace, 0) + 1
        for trace, count in unread.items():
            entries = f"{count} entries name" if count != 1 else "1 entry names"
            note = stale_id_note(trace, "tracecheck baseline write")
            diagnostics.warn(self.file, None, f"{entries} trace {trace!r}, which no input holds: not checked{note}")

    def to_json(self) -> dict[str, Any]:
        return {"version": BASELINE_VERSION, "findings": self.findings, "accepted": self.accepted, "checked": self.checked}


def entry(finding: Finding) -> dict[str, Any]:
    return {"fingerprint": finding.fingerprint, "rule": finding.rule, "kind": finding.kind, "trace": finding.trace, "message": finding.message}


def load_baseline(path: str | Path) -> Baseline:
    import orjson

    from ..input.side_files import read_side_file

    path = Path(path)
    if not path.exists():
        raise TracecheckError(f"baseline {path} not found (write one with 'tracecheck baseline write')")
    try:
        data = orjson.loads(read_side_file(path, "baseline"))
    except orjson.JSONDecodeError as exc:
        raise TracecheckError(f"{path}: not a readable baseline: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise TracecheckError(f"{path}: not a tracecheck baseline (expected an object with \"version\": {BASELINE_VERSION})")
    sections = {}
    for key in ("findings", "accepted"):
        items = data.get(key, [])
        if not isinstance(items, list) or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in items):
            raise TracecheckError(f"{path}: '{key}' must be a list of objects with a 'fingerprint'")
        sections[key] = items
    checked = data.get("checked", [])  # absent in baselines written before it existed
    if not isinstance(checked, list) or not all(isinstance(e, dict) and isinstance(e.get("trace"), str) and isinstance(e.get("rule"), str) for e in checked):
        raise TracecheckError(f"{path}: 'checked' must be a list of objects with a 'trace' and a 'rule'")
    for item in sections["accepted"]:
        if not isinstance(item.get("reason"), str) or not item["reason"].strip():
            raise TracecheckError(f"{path}: accepted finding {item['fingerprint']} needs a 'reason'")
    return Baseline(sections["findings"], sections["accepted"], str(path), checked)


def write_baseline(path: str | Path, result: CheckResult, keep: Baseline | None = None, inputs=()) -> Baseline:
    """Today's failing findings as the baseline; a previous file's accepted entries stay."""
    accepted = list(keep.accepted) if keep is not None else []
    taken = {e["fingerprint"] for e in accepted}
    findings = [entry(f) for f in result.findings if f.status in ("new", "baseline") and f.fingerprint not in taken]
    checked = [{"trace": trace, "rule": rule} for trace, rule in sorted(result.checked_guards)]
    baseline = Baseline(findings, accepted, str(path), checked)
    _write_json(path, baseline.to_json(), inputs)
    return baseline


def prune_baseline(path: str | Path, result: CheckResult, baseline: Baseline, inputs=()) -> tuple[int, int]:
    """Drop the entries no finding matches any more; never add one, and never drop one whose
    finding could not have come back (its trace not read, its guard not run). (kept, removed)."""
    present = {f.fingerprint for f in result.findings}
    findings = [e for e in baseline.findings if e["fingerprint"] in present or not result.could_see(e)]
    accepted = [e for e in baseline.accepted if e["fingerprint"] in present or not result.could_see(e)]
    removed = len(baseline.findings) + len(baseline.accepted) - len(findings) - len(accepted)
    # What was checked is kept as it is: pruning removes fixed findings, it adds nothing.
    _write_json(path, Baseline(findings, accepted, checked=baseline.checked).to_json(), inputs)
    return len(findings) + len(accepted), removed


def _write_json(path: str | Path, data: dict[str, Any], inputs) -> None:
    import orjson

    from ..input.output_files import open_output

    with open_output(str(path), inputs) as out:
        out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


__all__ = ["Baseline", "CheckResult", "ExpectationCheck", "Finding", "KINDS", "TraceCheck", "check_trace", "load_baseline", "prune_baseline", "run_check", "write_baseline"]
