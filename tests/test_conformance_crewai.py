"""CrewAI's repeated-usage check and ``max_iter`` (peers.md §11) replayed with the
``crewai`` preset.

peers.md lists no CrewAI test file; these scenarios are the behaviour §11 describes
(and ``tool_usage.py`` shows): a tool call identical to the immediately previous tool
use is not run and gets a canned observation; after 25 model calls the next one is
asked for the final answer without tools.

Not expressible:

- ``max_usage_count`` (a per-tool cap, unset by default): not part of the preset.
- The parse-error retries (``_max_parsing_attempts``): a replay sees parsed calls only.
"""

from __future__ import annotations

from conformance import Call, calls, fires, message
from tracecheck.config import load_settings
from tracecheck.guards.base import Action, RunContext
from tracecheck.guards.examples import Example

CANNED = "I tried reusing the same input, I must stop using this action input. I'll try something else instead."


def search(query: str) -> object:
    return calls(Call("search_internet", {"query": query}, f"results for {query}"))


def test_the_2nd_identical_call_in_a_row_is_not_run():
    assert fires("crewai", search("crewai loops"), search("crewai loops"), message("Done.")) == [
        ("R001", 2, "before_tools", "block")
    ]


def test_a_refused_call_stays_refused_while_the_model_repeats_it():
    # A refused call never becomes the last tool use, so the 3rd identical call is compared with the 1st.
    steps = (search("crewai loops"), search("crewai loops"), search("crewai loops"), message("Done."))
    assert fires("crewai", *steps) == [("R001", 2, "before_tools", "block"), ("R001", 3, "before_tools", "block")]


def test_argument_dicts_are_equal_whatever_the_key_order():
    steps = (
        calls(Call("search_internet", '{"query": "x", "limit": 5}', "...")),
        calls(Call("search_internet", '{"limit": 5, "query": "x"}', "...")),
        message("Done."),
    )
    assert fires("crewai", *steps) == [("R001", 2, "before_tools", "block")]


def test_only_the_immediately_previous_use_counts():
    # A, B, A: the second A follows B, so it runs.
    assert fires("crewai", search("a"), search("b"), search("a"), message("Done.")) == []


def test_the_refused_call_gets_the_canned_observation():
    guard = next(g for g in load_settings(preset="crewai").build() if g.code == "R001")
    trace = Example("crewai", (search("x"), search("x"))).trace()
    verdicts = [v for rnd in trace.rounds for v in guard.before_tools(rnd, RunContext())]
    assert [(v.action, v.refusal) for v in verdicts] == [(Action.BLOCK, CANNED)]


def test_max_iter_25_forces_the_final_answer_at_the_26th_model_call():
    steps = tuple(search(f"query {i}") for i in range(1, 31)) + (message("Done."),)
    assert fires("crewai", *steps) == [("B001", 26, "before_tools", "stop")]


def test_a_run_that_answers_within_max_iter_is_not_touched():
    steps = tuple(search(f"query {i}") for i in range(1, 25)) + (message("Done."),)
    assert fires("crewai", *steps) == []
