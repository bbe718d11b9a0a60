from __future__ import annotations

from typing import Any

from ..dataclass_lite import frozen_dataclass
from ..model import Round
from .base import SCOPES, Action, Guard, GuardOptions, RunContext, Verdict, option
from .examples import Call, Example, answer, calls, examples_made_when_read
from .messages import Message
from .signals import excerpt

APOLOGY = "I'm sorry, I can't access that file. Could you paste its contents here?"

# τ-bench's dead end: every user turn gets the same transfer message after the same tool.
_TRANSFER_LOOP = tuple(
    step
    for request in ("Cancel my flight", "I said cancel it", "Just cancel it!")
    for step in (
        calls(Call("transfer_to_human_agents", {"summary": request}, "Transfer successful"), user=request),
        answer("YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."),
    )
)


@frozen_dataclass
class T001Options(GuardOptions):
    enabled: bool = option(False, "Whether the guard runs at all (off until a preset enables it).")
    scope: str = option(
        "run",
        "What the streak covers: the whole run (an agent that sends the user the same reply turn "
        "after turn repeats across turns) or one conversation turn.",
        choices=SCOPES,
    )
    threshold: int = option(3, "Replies in a row with the same text at which the run stops.", minimum=2)
    hint_at: int = option(
        0,
        "Replies in a row with the same text from which each further one is hinted before the threshold "
        "(the ladder: a dialogue that recovers gets a message, not a cut); 0 = no hints.",
        minimum=0,
    )
    similarity: float = option(
        1.0,
        "How alike two replies must be to count as the same: 1.0 = identical after normalising "
        "whitespace and case; lower = Jaccard similarity of their character trigrams.",
        minimum=0.0,
        maximum=1.0,
    )
    action: str = option(
        "stop",
        "What the guard does at the threshold: stop (the reply is replaced by a forced one and the next turn "
        "goes on) or abort (the conversation ends there, as a hand-off to a person would end it).",
        choices=("stop", "abort"),
    )
    tool_calls_break: bool = option(
        True,
        "Whether a round with tool calls between two replies ends the streak (OpenHands: no observation "
        "between); off compares the replies the user gets whatever the agent did between them.",
    )


def normalised(text: str) -> str:
    return " ".join(text.split()).casefold()


def trigrams(text: str) -> set[str]:
    if len(text) < 3:
        return {text}
    return set(map("".join, zip(text, text[1:], text[2:])))  # the fastest way Python builds them


def trigram_similarity(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


class RepeatedMessage(Guard):
    """Stops at the 3rd reply in a row with the same text (OpenHands' monologue scenario).

    **What it fires on.** Replies are rounds without tool calls (``final``). Each reply's
    text is normalised (runs of whitespace made one space, case folded) and compared with
    the first reply of the current streak: the same text extends the streak, any other
    restarts it at 1, and a round with tool calls in between ends it (OpenHands: no
    observation between the messages). An empty reply neither counts nor breaks the
    streak. At the ``threshold``-th (3rd) repeated reply → ``stop``.

    With ``similarity`` below 1.0 two replies count as the same when the Jaccard
    similarity of their sets of character trigrams reaches it, so "I can't" and "I
    cannot" in an otherwise identical apology still match (0.8 is a reasonable value).

    **Scope.** ``run`` by default: OpenHands in headless mode drops user messages and
    looks at the whole history, and the case that matters most (an agent answering
    every user message with the same apology for dozens of turns) repeats across turns.
    ``scope = "turn"`` is OpenHands' interactive mode.

    **Why it matters.** An agent that says the same thing three times in a row without
    doing anything in between is not going to say something else the fourth time; the
    user (or the harness) is talking to a stuck loop.

    **Tool calls between.** By default a round with tool calls ends the streak, as
    OpenHands requires no observation between the messages. With ``tool_calls_break``
    off the replies still count if no tool ran between them, or the tools answered
    exactly as they did the last time tools ran between two replies: an agent that answers turn after turn with the same words
    after the same call result (a transfer the user keeps refusing) repeats itself to
    the user just the same, while three templated confirmations of three different
    cancellations are work done, not a loop.

    **Stop or abort.** A ``stop`` replaces the repeated reply by a forced one and lets
    the conversation go on, which saves nothing when the reply was the turn's end
    anyway; in a dialogue the useful action is ``abort``: end the conversation at the
    3rd repetition (hand it to a person) and save the turns that follow.

    **Hint first.** With ``hint_at`` the replies from that count on are hinted until the
    threshold: an agent that repeats a transfer notice three or four times and then, when
    the user changes the request, books the flight, gets a nudge and no cut.

    **Known misses.** Replies that differ by a detail (a counter, a file name) escape
    exact matching; trigram similarity catches many, but not paraphrases. Alternating
    between two canned replies restarts the streak every time. A user who asks the same
    question three times and gets the same (correct) answer is stopped too.
    """

    code = "T001"
    name = "repeated-message"
    summary = "{action:Verb} at the {threshold:nth} reply in a row with the same text{{between}}."

    @classmethod
    def describe(cls, options=None) -> str:
        values = options if options is not None else cls.Options()
        # Whether tool calls between two replies end the streak changes what it counts.
        between = " and no tool call between" if values.tool_calls_break else ", tool calls between them or not"
        return super().describe(values).replace("{between}", between)
    source = "OpenHands StuckDetector (monologue)"
    origin = "OpenHands' StuckDetector, its monologue scenario: the agent sending the same message again with nothing in between"
    Options = T001Options
    messages = {
        "hint": Message(
            en="You have given the same reply {count} times in a row. If the user still needs something else, "
            "answer that instead of repeating yourself.",
            zh="你已连续 {count} 次给出同样的回复。如果用户需要的是别的，请回应那个需求，而不是重复自己。",
            fields=("count",),
            when="added to the conversation after the reply; the reply stands",
        ),
        "stop": Message(
            en="You have given the same reply {count} times in a row; repeating it does not move the task forward. "
            "Give your final answer once, now, without calling tools.",
            zh="你已连续 {count} 次给出同样的回复，重复它不会让任务有任何进展。请现在给出一次最终答案，不要再调用工具。",
            fields=("count",),
        ),
        "abort": Message(
            en="The agent gave the same reply {count} times in a row and is stuck in a loop; the run is terminated.",
            zh="智能体连续 {count} 次给出同样的回复，已陷入循环，终止运行。",
            fields=("count",),
        ),
    }
    @examples_made_when_read
    def examples() -> tuple[Example, ...]:
        return (
            Example(
                "The same reply after a tool call, turn after turn, counts only with tool_calls_break off",
                _TRANSFER_LOOP,
                options={"enabled": True, "tool_calls_break": False},
                expect=((6, "final", "stop"),),
            ),
            Example(
                "Templated replies after tool calls that answered differently are progress, not a loop",
                tuple(
                    step
                    for order in ("W1001", "W1002", "W1003")
                    for step in (
                        calls(Call("cancel_pending_order", {"order_id": order}, f'{{"order_id": "{order}", "status": "cancelled"}}'), user=f"Cancel {order}"),
                        answer(f"Order #{order} is cancelled; the refund goes to your Mastercard ending 2478."),
                    )
                ),
                options={"enabled": True, "tool_calls_break": False, "similarity": 0.8},
            ),
            Example(
                "... and by default the calls between them break the streak",
                _TRANSFER_LOOP,
                options={"enabled": True},
            ),
            Example(
                "The same apology to three user messages stops at the 3rd",
                (
                    answer(APOLOGY, user="Summarise report.pdf"),
                    answer(APOLOGY, user="It is in the uploads folder"),
                    answer(APOLOGY.upper(), user="Please try again"),
                ),
                expect=((3, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "Three identical replies with no tool call between (OpenHands test_is_stuck_monologue)",
                (
                    answer("Hi there!", user="Hi there!"),
                    answer("I'm doing well, thanks for asking.", user="How are you?"),
                    answer("I'm doing well, thanks for asking."),
                    answer("I'm doing well,  thanks for asking.\n"),
                ),
                expect=((4, "final", "stop"),),
                options={"enabled": True},
            ),
            Example(
                "A tool call between the replies ends the streak (OpenHands test_is_stuck_monologue, observation appended)",
                (
                    answer("I'm doing well, thanks for asking.", user="How are you?"),
                    answer("I'm doing well, thanks for asking.", user="And now?"),
                    calls(Call("run_command", {"command": "storybook"}), user="Run storybook"),
                    answer("I'm doing well, thanks for asking.", user="How are you?"),
                    answer("I'm doing well, thanks for asking.", user="Really?"),
                ),
                options={"enabled": True},
            ),
            Example(
                "Three different replies never fire",
                (
                    answer("The report covers Q3 revenue.", user="What is report.pdf about?"),
                    answer("Revenue grew 12% over Q2.", user="And the numbers?"),
                    answer("You're welcome.", user="Thanks"),
                ),
                options={"enabled": True},
            ),
            Example(
                "In scope turn, the same apology to three user messages never fires",
                (
                    answer(APOLOGY, user="Summarise report.pdf"),
                    answer(APOLOGY, user="It is in the uploads folder"),
                    answer(APOLOGY, user="Please try again"),
                ),
                options={"enabled": True, "scope": "turn"},
            ),
            Example(
                "The ladder: hinted from the 2nd identical reply, stopped at the 4th",
                tuple(answer("I'm sorry, could you rephrase that?", user=f"question {k}") for k in range(4)),
                expect=((2, "final", "hint"), (3, "final", "hint"), (4, "final", "stop")),
                options={"enabled": True, "hint_at": 2, "threshold": 4},
            ),
            Example(
                "Near-identical apologies escape exact matching",
                (
                    answer("I'm sorry, I can't access that file.", user="Summarise report.pdf"),
                    answer("I'm sorry, I cannot access that file.", user="Try again"),
                    answer("Sorry, I can't access that file.", user="Again"),
                ),
                options={"enabled": True},
            ),
            Example(
                "The same near-identical apologies stop with similarity 0.8",
                (
                    answer("I'm sorry, I can't access that file.", user="Summarise report.pdf"),
                    answer("I'm sorry, I cannot access that file.", user="Try again"),
                    answer("Sorry, I can't access that file.", user="Again"),
                ),
                expect=((3, "final", "stop"),),
                options={"enabled": True, "similarity": 0.8},
            ),
        )

    def reset(self, context: RunContext | None = None) -> None:
        self.first_text: str | None = None
        self.first_trigrams: set[str] = set()
        self.streak = 0
        self.between: list[str] = []  # what the tools returned since the last reply
        self.last_between: tuple[str, ...] | None = None  # ... and before it

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if self.options.tool_calls_break:
            self.first_text, self.first_trigrams, self.streak = None, set(), 0
        return []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        if not self.options.tool_calls_break:
            self.between += [c.result.content for c in rnd.tool_calls if c.result is not None]
        return []

    def _same_as_first(self, text: str) -> tuple[bool, float, set[str] | None]:
        """Whether ``text`` counts as the streak's first reply, the score, and the
        trigrams of ``text`` when they were worked out."""
        if self.first_text is None:
            return False, 0.0, None
        if text == self.first_text:
            return True, 1.0, None
        similarity = self.options.similarity
        if similarity >= 1.0:
            return False, 0.0, None
        # A text with n trigram positions has at most n trigrams: against a first reply
        # with more than n / similarity of them, the Jaccard similarity is too low anyway.
        if max(1, len(text) - 2) < similarity * len(self.first_trigrams):
            return False, 0.0, None
        grams = trigrams(text)
        score = trigram_similarity(grams, self.first_trigrams)
        return score >= similarity, score, grams

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        text = normalised(rnd.text)
        if not text:
            return []
        same, score, grams = self._same_as_first(text)
        between, self.between = tuple(self.between), []
        if not self.options.tool_calls_break and between:
            # Work between the replies that brought something new is progress, whatever they say.
            same = same and between == self.last_between
            self.last_between = between
        if same:
            self.streak += 1
        else:
            self.first_text, self.streak = text, 1
            if self.options.similarity >= 1.0:
                self.first_trigrams = set()
            else:
                self.first_trigrams = grams if grams is not None else trigrams(text)
        if self.options.hint_at and self.options.hint_at <= self.streak < self.options.threshold:
            return [
                Verdict(
                    Action.HINT,
                    f"{self.streak} replies in a row with the same text {excerpt(rnd.text, 100)!r}",
                    details={"streak": self.streak, "similarity": round(score, 3)},
                    message=self.say("hint", context, count=self.streak),
                )
            ]
        if self.streak >= self.options.threshold:
            return [
                Verdict(
                    Action(self.options.action),
                    f"{self.streak} replies in a row with the same text {excerpt(rnd.text, 100)!r}"
                    + (f" (trigram similarity {score:.2f} ≥ {self.options.similarity:g})" if score < 1.0 else "")
                    + ("" if self.options.tool_calls_break or not between else ", the tool calls between them answered the same"),
                    details={"streak": self.streak, "similarity": round(score, 3)},
                    message=self.say(self.options.action, context, count=self.streak),
                )
            ]
        return []

    def state(self) -> dict[str, Any]:
        return {"streak": self.streak, "text": excerpt(self.first_text, 100) if self.first_text else None}
