"""``-k EXPR``: which traces a command reads, as pytest's ``-k`` selects tests.

A word matches a trace whose id contains it (case-insensitive), or one of whose label
values it equals (case-insensitive: ``loop``, ``healthy``, ``success``, ``airline``).
Words combine with ``and``, ``or``, ``not`` and parentheses; ``not`` binds tightest,
then ``and``, then ``or``. A word is any run of characters other than spaces and
parentheses, so ids such as ``runs/a.jsonl:3f2a`` need no quoting inside the expression.

The expression is parsed once, into nested tuples (picklable, for ``--jobs`` workers);
nothing is evaluated as Python.
"""

from __future__ import annotations

import re
from typing import Any

from ..dataclass_lite import frozen_dataclass
from .diagnostics import Diagnostics, TracecheckError

_TOKEN = re.compile(r"\s*(?:(\()|(\))|([^\s()]+))")
_KEYWORDS = ("and", "or", "not")


@frozen_dataclass
class Selection:
    """A parsed ``-k`` expression."""

    text: str
    tree: Any

    def matches(self, trace_id: str, labels: dict[str, Any]) -> bool:
        values = {str(v).strip().lower() for v in labels.values() if v is not None}
        return _evaluate(self.tree, trace_id.lower(), values)

    def keep(self, trace, diagnostics: Diagnostics) -> bool:
        """Whether ``trace`` (labelled already) is selected; one that is not is counted
        in ``diagnostics.deselected`` (by id: a baseline must not call it missing)."""
        if self.matches(trace.id, trace.labels):
            return True
        diagnostics.deselected.append(trace.id)
        return False


def _evaluate(tree: Any, trace_id: str, values: set[str]) -> bool:
    kind = tree[0]
    if kind == "word":
        return tree[1] in trace_id or tree[1] in values
    if kind == "not":
        return not _evaluate(tree[1], trace_id, values)
    if kind == "and":
        return _evaluate(tree[1], trace_id, values) and _evaluate(tree[2], trace_id, values)
    return _evaluate(tree[1], trace_id, values) or _evaluate(tree[2], trace_id, values)


def parse_selection(text: str | None) -> Selection | None:
    """The ``-k`` expression ``text`` parsed, or None when none was given; a malformed
    one is a TracecheckError that says where (exit 2)."""
    if text is None:
        return None
    tokens = _tokens(text)
    if not tokens:
        raise TracecheckError(f"-k {text!r}: empty expression; give words to match trace ids or label values")
    parser = _Parser(text, tokens)
    tree = parser.expression()
    if parser.position < len(tokens):
        column, token = tokens[parser.position]
        raise parser.error(f"unexpected {token!r}", column)
    return Selection(text, tree)


def _tokens(text: str) -> list[tuple[int, str]]:
    """(column from 1, token) of each token."""
    tokens, position = [], 0
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:  # only spaces were left
            break
        start = found.start(found.lastindex)
        tokens.append((start + 1, found.group(found.lastindex)))
        position = found.end()
    return tokens


class _Parser:
    """Recursive descent: or ← and ('or' and)*; and ← not ('and' not)*; not ← 'not' not | atom."""

    def __init__(self, text: str, tokens: list[tuple[int, str]]) -> None:
        self.text, self.tokens, self.position = text, tokens, 0

    def error(self, what: str, column: int | None = None) -> TracecheckError:
        where = f"column {column}" if column is not None else "the end"
        return TracecheckError(f"-k {self.text!r}: {what} at {where}")

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def expression(self) -> Any:
        return self.chain("or", self.conjunction)

    def conjunction(self) -> Any:
        return self.chain("and", self.negation)

    def chain(self, operator: str, operand) -> Any:
        """``operand (operator operand)*``, grouped from the left."""
        tree = operand()
        while self.peek() == operator:
            self.position += 1
            tree = (operator, tree, operand())
        return tree

    def negation(self) -> Any:
        if self.peek() == "not":
            self.position += 1
            return ("not", self.negation())
        return self.atom()

    def atom(self) -> Any:
        if self.position >= len(self.tokens):
            raise self.error("expected a word or '('")
        column, token = self.tokens[self.position]
        self.position += 1
        if token == "(":
            tree = self.expression()
            if self.peek() != ")":
                raise self.error("expected ')'", self.tokens[self.position][0] if self.position < len(self.tokens) else None)
            self.position += 1
            return tree
        if token == ")" or token in _KEYWORDS:
            raise self.error(f"expected a word or '(', not {token!r}", column)
        return ("word", token.lower())
