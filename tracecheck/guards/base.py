"""What a guard is: a stateful object fed one round (phase) at a time.

The same guard object serves offline replay (a loop over recorded rounds) and a live
agent (call it from the agent loop): it never looks ahead, never reads formats, and
keeps all it knows in its own state. ``reset()`` starts a new run.

Phases of a round:

- ``before_tools``: the model asked for its tool calls; nothing ran yet.
- ``after_tools``: the results are in.
- ``final``: the round is a final answer (no tool calls).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import field
from typing import Any, ClassVar

from ..dataclass_lite import frozen_dataclass, mutable_dataclass
from ..model import Round
from .messages import Message, check_overrides, render


class Phase(str, enum.Enum):
    BEFORE_TOOLS = "before_tools"
    AFTER_TOOLS = "after_tools"
    FINAL = "final"

    def __str__(self) -> str:
        return self.value.replace("_", " ")


class Action(str, enum.Enum):
    HINT = "hint"  # inject guidance; the call still runs
    BLOCK = "block"  # one call is not executed; a synthetic result returns
    STOP = "stop"  # leave the loop; one forced final answer without tools
    ABORT = "abort"  # end the run with an error, no answer
    REJECT = "reject"  # refuse a final answer and push the model back

    @property
    def ends_run(self) -> bool:
        return self in (Action.STOP, Action.ABORT)

    def __str__(self) -> str:
        return self.value


@mutable_dataclass(slots=True)
class Verdict:
    """What a guard would do at this point, and why (``reason`` is for people,
    ``details`` for machines: the scores and counters that crossed the line)."""

    action: Action
    reason: str
    call_id: str | None = None  # the call a hint/block is about
    details: dict[str, Any] = field(default_factory=dict)
    replacement: str | None = None  # for a block that answers from a cache: the cached result returned instead
    refusal: str | None = None  # for a block that refuses the call: the error text returned instead
    # What the agent sends to the model with this verdict (``reason`` is for people):
    # hint: guidance to inject; block: the synthetic tool result (R002: the seed's note
    # around the cached ``replacement``); stop: the closing prompt of the forced final
    # answer without tools; reject: the push-back; abort: a short explanation.
    message: str | None = None


@mutable_dataclass(slots=True)
class RunContext:
    """What the agent loop knows besides the round itself.

    ``metadata`` is the run's recorded configuration (e.g. ``required_tools``);
    ``tokens_so_far`` the tokens spent up to and including the current round
    (measured, or estimated from text where the trace has no usage); ``turn`` the
    conversation turn of the current round (1-based); ``language`` the language of
    the messages guards write for the model (a live monitor sets it; replay says "en").
    """

    metadata: Mapping[str, Any] = field(default_factory=dict)
    tokens_so_far: int = 0
    tokens_estimated: bool = False
    turn: int = 1
    language: str = "en"  # of the model-facing messages: "en" or "zh" (anything else is English)


def option(default: Any, help: str, **constraints: Any) -> Any:
    """A guard option: a dataclass field with a help text and simple constraints
    (``minimum``, ``maximum``, ``choices``)."""
    if isinstance(default, (list, dict, set)):
        value = default
        return field(default_factory=lambda: type(value)(value), metadata={"help": help, **constraints})
    return field(default=default, metadata={"help": help, **constraints})


SCOPES = ("turn", "run")


@frozen_dataclass
class GuardOptions:
    """Options every guard has. Subclasses add their own with ``option()``."""

    enabled: bool = option(True, "Whether the guard runs at all.")
    scope: str = option(
        "turn",
        "What the guard's state covers: one conversation turn (it starts afresh at each new "
        "user message, as Gemini CLI and OpenHands reset) or the whole run.",
        choices=SCOPES,
    )
    messages: dict[str, str] = option(
        {},
        "Model-facing message templates that replace the guard's own: a table of ACTION (every language) or "
        "ACTION.LANG (en, zh) = template with {field}s (see the guard's messages for keys and fields).",
    )


def check_options(code: str, options: GuardOptions, names) -> None:
    """The constraints ``option()`` declares (type, minimum, maximum, choices), checked
    for options given in code, as the config file and ``--set`` check them: a guard built
    with ``containment=2.0`` is a ValueError, not a guard that never fires."""
    fields = {f.name: f for f in dataclasses.fields(options)}
    for name in names:
        f = fields[name]
        value, default, meta = getattr(options, name), f.default if f.default is not dataclasses.MISSING else f.default_factory(), f.metadata
        kind = type(default)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{code}.{name}: {value!r} is not a valid {kind.__name__}")
        if "choices" in meta and value not in meta["choices"]:
            raise ValueError(f"{code}.{name}: {value!r} is not one of {', '.join(meta['choices'])}")
        if "minimum" in meta and value < meta["minimum"]:
            raise ValueError(f"{code}.{name}: {value!r} is below the minimum {meta['minimum']}")
        if "maximum" in meta and value > meta["maximum"]:
            raise ValueError(f"{code}.{name}: {value!r} is above the maximum {meta['maximum']}")


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


class _OptionText:
    """An option's value in a summary: ``{threshold:nth}`` is "3rd", ``{action:Verb}`` "Stop"."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        if spec == "nth":
            return ordinal(int(self.value))
        if spec == "Verb":
            return str(self.value).capitalize()
        return format(self.value, spec)


class Guard:
    """Base class of every guard. Subclasses set the class attributes and override
    the phase methods they need; each returns a list of verdicts (usually empty)."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line; names options as {threshold:nth}, see describe()
    source: ClassVar[str]
    # Where the guard comes from, in words and in one line: which article or agent, and
    # what of it (``tracecheck guard CODE`` and docs/guards/CODE.md print it).
    origin: ClassVar[str] = ""
    Options: ClassVar[type[GuardOptions]] = GuardOptions
    examples: ClassVar[tuple[Any, ...]] = ()
    # The model-facing message of each action the guard can take (see messages.py).
    messages: ClassVar[Mapping[str, Message]] = {}

    @classmethod
    def describe(cls, options: GuardOptions | None = None) -> str:
        """The summary with the values of ``options`` (the guard's own defaults when None):
        what it does as configured, so that a listing never says "4th" where the settings
        stop at the 3rd. A summary names an option as ``{threshold:nth}`` or ``{action:Verb}``."""
        values = options if options is not None else cls.Options()
        return cls.summary.format_map({f.name: _OptionText(getattr(values, f.name)) for f in dataclasses.fields(values)})

    def __init__(self, options: GuardOptions | None = None, **overrides: Any) -> None:
        base = options if options is not None else self.Options()
        self.options = dataclasses.replace(base, **overrides) if overrides else base
        if overrides:
            check_options(self.code, self.options, overrides)
        problem = self.message_problem(self.options.messages)
        if problem is not None:
            # Built from code (a live monitor): what the config loader says, as a ValueError.
            raise ValueError(f"{self.code}.messages: {problem}")
        self.reset()

    @classmethod
    def message_problem(cls, overrides: Mapping[str, Any]) -> str | None:
        """Why these ``messages`` overrides do not fit this guard, or None."""
        if not isinstance(overrides, Mapping):
            return f"{overrides!r} is not a table of message templates"
        return check_overrides(cls.messages, overrides)

    @classmethod
    def option_problem(cls, name: str, value: Any) -> str | None:
        """Why ``value`` does not fit option ``name`` beyond its type and bounds (a list
        entry's own syntax), or None; the config loader asks, so that a bad value is a
        config error, not a failure at the first replay."""
        return None

    def say(self, key: str, context: RunContext | None, **fields: Any) -> str:
        """The model-facing message ``key`` in the context's language (English when
        there is no context or no such language), as overridden in the config, with
        ``fields`` filled in."""
        language = context.language if context is not None else "en"
        return render(self.messages, self.options.messages, key, language, fields)

    @classmethod
    def is_off(cls, options: GuardOptions) -> bool:
        """Whether these options switch the guard off (budgets of 0); an off guard is
        not built at all, so it cannot fire and adds nothing to reports."""
        return not options.enabled

    def reset(self, context: RunContext | None = None) -> None:
        """Forget everything: a new run starts (or, for a guard whose ``scope`` is
        ``turn``, a new conversation turn)."""

    def new_turn(self, context: RunContext | None = None) -> None:
        """A new conversation turn for a guard whose ``scope`` is ``turn``: by default it
        forgets everything, as ``reset``; a guard may keep what a user message cannot
        change."""
        self.reset(context)

    def before_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return []

    def after_tools(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return []

    def final(self, rnd: Round, context: RunContext) -> list[Verdict]:
        return []

    def state(self) -> dict[str, Any]:
        """A snapshot of the guard's state, for ``tracecheck show``."""
        return {}

    @classmethod
    def explanation(cls) -> str:
        """The long documentation: the class docstring."""
        return (cls.__doc__ or "").strip()

    def near_miss(self) -> str | None:
        """Why the guard did not fire at this point, in a sentence a person reads at a
        glance ("best containment 0.57 < 0.8"); None: its ``state()`` says it. ``check``
        prints it under an expectation the guard missed."""
        return None
