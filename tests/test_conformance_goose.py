"""Goose's ``repetition_inspector_tests.rs`` scenarios (peers.md §4.3) replayed with
the ``goose`` preset.

REP-001 (R001): with ``--max-tool-repetitions N``, N identical calls in a row run and
every further one is denied, so Goose's N is ``R001.stop_at=N+1`` (the preset uses the
fork's 3). REP-002 (F002): the same error text (first 100 characters) from one tool 3
times in a row, whatever the arguments.

REP-002 differs in what happens, not in when: Goose denies the tool's *next* request
and lets the run go on, while F002 stops the run after the tools of the round that
brought the 3rd error. The tests assert tracecheck's (round, phase, action).

Not expressible:

- Test 5 (``tool_a`` fails 3 times, then a request for ``tool_b`` is not denied): F002
  has no per-tool denial, so the run is already stopped at ``tool_a``'s 3rd error and
  there is no later ``tool_b`` decision to compare.
- Test 2's "an inspect request for my_tool" as a request of its own: Goose's test
  calls ``record_error`` without running calls; here each error is the result of a
  ``my_tool`` call, and the stop comes after the 3rd, one request earlier than the deny.
"""

from __future__ import annotations

from conformance import Call, answer, calls, fires, message


def fetch(user_id: int) -> object:
    return calls(Call("fetch_user", {"id": user_id}, f'{{"id": {user_id}, "name": "user"}}'))


def fails(n: int, text: str = "404 Not Found") -> object:
    # Arguments change every time: REP-002 counts the error whatever the arguments.
    return calls(Call("my_tool", {"attempt": n}, text, error=True))


def test_limit_2_denies_the_3rd_identical_call_and_new_arguments_start_over():
    # Test 1, new(Some(2)): fetch_user({id:123}) allowed, allowed, denied;
    # fetch_user({id:456}) allowed, allowed, denied.
    steps = (*(fetch(123) for _ in range(3)), *(fetch(456) for _ in range(3)), message("Done."))
    assert fires("goose", *steps, sets=("R001.stop_at=3",)) == [
        ("R001", 3, "before_tools", "block"),
        ("R001", 6, "before_tools", "block"),
    ]


def test_limit_3_denies_the_4th_and_a_parameter_change_resets():
    # The fork's test, Some(3): the 4th identical call is denied; a parameter change resets the count.
    steps = (*(fetch(123) for _ in range(4)), *(fetch(456) for _ in range(3)), message("Done."))
    assert fires("goose", *steps) == [("R001", 4, "before_tools", "block")]


def test_the_same_error_three_times_fires_rep_002():
    # Test 2: record_error("my_tool", "404 Not Found") x3, then a request for my_tool -> Deny REP-002.
    steps = (fails(1), fails(2), fails(3), calls(Call("my_tool", {"attempt": 4}, "found")), message("Done."))
    assert fires("goose", *steps) == [("F002", 3, "after_tools", "stop")]


def test_the_same_error_twice_does_not_fire():
    # Test 3: the same error x2 -> no REP-002.
    steps = (fails(1), fails(2), calls(Call("my_tool", {"attempt": 3}, "found")), message("Done."))
    assert fires("goose", *steps) == []


def test_a_success_in_between_clears_the_streak():
    # Test 4: error, error, success, error -> no REP-002.
    steps = (fails(1), fails(2), calls(Call("my_tool", {"attempt": 3}, "found")), fails(4), message("Done."))
    assert fires("goose", *steps) == []


def test_only_the_first_100_characters_of_the_error_are_compared():
    # §4.2: Goose keeps the first 100 characters; errors that differ after them are the same error.
    prefix = "Error: upstream service returned 503 Service Unavailable while fetching the user record from " + "x" * 10
    assert len(prefix) >= 100
    steps = tuple(fails(n, f"{prefix} (request {n})") for n in range(1, 4)) + (message("Done."),)
    assert fires("goose", *steps) == [("F002", 3, "after_tools", "stop")]


def test_rep002_streak_is_cleared_by_any_success_and_broken_by_another_tools_error():
    # peers.md §4.2: the streak counts consecutive identical (tool, text) errors; record_success() clears it.
    fail = calls(Call("my_tool", {"n": 1}, "404 Not Found", error=True))
    other_ok = calls(Call("other_tool", {}, "ok"))
    other_fail = calls(Call("tool_b", {}, "404 Not Found", error=True))
    assert [f for f in fires("goose", fail, other_ok, fail, fail, answer()) if f[0] == "F002"] == []
    assert [f for f in fires("goose", fail, other_fail, fail, fail, answer()) if f[0] == "F002"] == []
    assert [f for f in fires("goose", fail, fail, fail, answer()) if f[0] == "F002"] == [("F002", 3, "after_tools", "stop")]
