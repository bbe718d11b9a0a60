from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import Action, Guard, GuardOptions, RunContext, Verdict, option
from .evidence import (
    METADATA_ALL,
    METADATA_ANY,
    EvidenceLedger,
    Requirements,
    empty_patterns_option,
    failure_patterns_option,
    required_all_option,
    required_any_option,
)
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import ResultClassifier


@frozen_dataclass
class E001Options(GuardOptions):
    required_all: list[str] = required_all_option()
    required_any: list[str] = required_any_option()
    max_rejections: int = option(
        2, "Final answers refused before the next one aborts the run (LoopAgent: 2).", minimum=0
    )
    empty_patterns: list[str] = empty_patterns_option()
    failure_patterns: list[str] = failure_patterns_option()


def docs(query: str, result: str = "3 matches: docs/retry.md#backoff ...", tool: str = "search_docs", error=False):
    return calls(Call(tool, {"query": query}, result, error=error))


class EvidenceGate(Guard):
    """Refuses a final answer the run has no evidence for (seed 001, "睁眼说瞎话").

    **What it fires on.** After the tools of each round, every call that **succeeded
    and was productive** adds its tool to the run's evidence. When the model gives a
    final answer, the requirements are checked against that evidence: every
    ``required_all`` pattern must match an evidence tool, and when ``required_any`` is
    set, at least one of its patterns must. The requirements are the options plus the
    run's recorded configuration in the trace metadata (``required_tools``: all of
    them; ``required_any_of``: at least one), as LoopAgent takes
    ``requiredToolNames`` / ``requiredAnyOfToolNames`` per run. Patterns are globs on
    the tool name, any case.

    Something missing → ``reject`` with LoopAgent's push-back, "Before finishing, call
    required tool(s): …", and an account of how those tools' calls went. After
    ``max_rejections`` (2) refusals the next missing-evidence answer is an ``abort``
    (LoopAgent: ``if (requiredToolRetries >= 2) throw``). A run with no requirements is
    never touched.

    **Why productive, not just succeeded.** A search that ran fine but found nothing
    is not a failure (F001 leaves it alone), yet it proves nothing either: counting it
    would let the model answer on "I searched and got nothing". Productive = not a
    failure (error flag, or failure patterns where the format has none) and not an
    empty result (``empty_patterns``: blank, ``[]``, "No results", ...).

    **What replay can say.** A reject is a soft action: nobody knows what the model
    would have done after the push-back, so replay goes on with the recorded rounds
    and reports the reject as a quality finding ("this answer was given without
    evidence"). Only a recorded run that really answered again (three answers without
    evidence) reaches the abort.

    **Known misses.** Whether a result "found something" is read from its text: a
    tool that reports emptiness in its own words ("the index holds no such symbol")
    counts as evidence until a pattern says otherwise. Traces rarely record the
    required tools: without options or metadata the gate stays off.
    """

    code = "E001"
    name = "evidence-gate"
    summary = "Reject a final answer until the required tools have run and found something; abort after {max_rejections} rejections."
    source = "seed 001"
    origin = (
        "seed article 001, 《让 Agent 不翻车的工程护栏》: LoopAgent's evidence gate against 睁眼说瞎话 (answering with eyes shut), no final answer before the required tools succeeded"
    )
    Options = E001Options
    messages = {
        "reject": Message(
            # Seed 001's LoopAgent push-back, word for word.
            en="Before finishing, call required tool(s): {missing}.",
            zh="在给出最终答案之前，请先调用必需的工具：{missing}。",
            fields=("missing", "rejections"),
        ),
        "abort": Message(
            # Seed 001's error after the second refusal.
            en="Required tools were not called successfully: {missing}",
            zh="必需的工具没有被成功调用：{missing}",
            fields=("missing", "rejections"),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "An answer after a search that found nothing is rejected twice, then aborted",
                (docs("retry policy", "No results found"), answer(), answer(), answer()),
                expect=((2, "final", "reject"), (3, "final", "reject"), (4, "final", "abort")),
                metadata={METADATA_ALL: ["search_docs"]},
            ),
            Example(
                "A productive search before the answer passes",
                (docs("retry policy", "No results found"), docs("retry backoff"), answer()),
                metadata={METADATA_ALL: ["search_docs"]},
            ),
            Example(
                "A failed call is no evidence; the answer is rejected once and the retry passes",
                (
                    docs("retry", "Error: search backend timed out", error=None),
                    answer("Retries use exponential backoff."),
                    docs("retry"),
                    answer("Retries use exponential backoff (docs/retry.md)."),
                ),
                expect=((2, "final", "reject"),),
                options={"required_all": ["search_*"]},
            ),
            Example(
                "Any-of: one productive tool of the group is enough",
                (calls(Call("grep", {"pattern": "retry"}, "src/net.py:12: def retry(")), answer()),
                options={"required_any": ["search_docs", "grep"]},
            ),
            Example(
                "Any-of from metadata: answering from memory is rejected",
                (answer("I believe it retries 3 times."),),
                expect=((1, "final", "reject"),),
                metadata={METADATA_ANY: ["search_docs", "grep"]},
            ),
            Example(
                "No requirements: the gate never fires",
                (answer("Hello!"),),
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        opts = self.options
        self.requirements = Requirements.gather(
            opts.required_all, opts.required_any, context.metadata if context is not None else None
        )
        self.ledger = EvidenceLedger(ResultClassifier(opts.failure_patterns, opts.empty_patterns))
        self.rejections = 0
        self.last_missing: list[str] = []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if self.requirements:
            self.ledger.record(rnd)
        return []

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if not self.requirements:
            return []
        missing = self.last_missing = self.ledger.missing(self.requirements)
        if not missing:
            return []
        account = self.ledger.account(self.requirements, missing)
        limit = self.options.max_rejections
        details = {
            "missing": missing,
            "evidence": sorted(self.ledger.evidence),
            "rejections": self.rejections,
            "max_rejections": limit,
            "requirements": self.requirements.to_dict(),
        }
        if self.rejections >= limit:
            reason = (
                f"final answer still without evidence after {self.rejections} rejection(s) "
                f"(max {limit}): required tools were not called productively: {', '.join(missing)} ({account})"
            )
            message = self.say("abort", context, missing=", ".join(missing), rejections=self.rejections)
            return [Verdict(Action.ABORT, reason, details=details, message=message)]
        self.rejections += 1
        details["rejections"] = self.rejections
        reason = (
            f"Before finishing, call required tool(s): {', '.join(missing)} "
            f"({account}); rejection {self.rejections} of {limit}"
        )
        message = self.say("reject", context, missing=", ".join(missing), rejections=self.rejections)
        return [Verdict(Action.REJECT, reason, details=details, message=message)]

    def state(self) -> dict[str, Any]:
        return {
            "requirements": self.requirements.to_dict(),
            **self.ledger.snapshot(),
            "missing": self.ledger.missing(self.requirements) if self.requirements else [],
            "rejections": self.rejections,
        }

