"""Cline's loop-detection tests (peers.md §6.1, ``loop-detection.test.ts``) replayed
with the ``cline`` preset.

Cline counts a call after it ran, so its warning (3rd identical call) and its
escalation (5th) are ``after_tools`` fires of R001: a hint, then a stop of the turn.
Where Cline's test asserts a count ("count 1"), the scenario goes on with probe calls
that reach the warning exactly when the count was what the test says.

Not expressible:

- "exactly one warning message, mistake count = 3" (test 1, second half): the text
  Cline appends and its mistake counter are not part of a replay; the single hint
  fire is what stands for the single warning.
- Cline's SDK (§6.2) and its mistake tracker have no test list in peers.md.
"""

from __future__ import annotations

from conformance import Call, calls, fires, message

MAIN = {"path": "src/main.ts"}


def read(args: dict, user: str | None = None) -> object:
    return calls(Call("read_file", args, "export const main = () => {}"), user=user)


def test_same_read_five_times_warns_at_3rd_and_escalates_at_5th():
    # Test 1: read_file({path:"src/main.ts"}) x5 -> soft at the 3rd only, hard at the 5th only.
    assert fires("cline", *(read(MAIN) for _ in range(5)), message("Done.")) == [
        ("R001", 3, "after_tools", "hint"),
        ("R001", 5, "after_tools", "stop"),
    ]


def test_a_different_path_or_tool_restarts_the_count():
    # Test 2: a.ts, a.ts, b.ts -> count 1; then b.ts, list_files(b.ts) -> count 1.
    # Probes: two more list_files(b.ts) make the 3rd in a row, so the warning lands on round 7.
    steps = (
        read({"path": "a.ts"}),
        read({"path": "a.ts"}),
        read({"path": "b.ts"}),
        read({"path": "b.ts"}),
        *(calls(Call("list_files", {"path": "b.ts"}, "b.ts")) for _ in range(3)),
        message("Done."),
    )
    assert fires("cline", *steps) == [("R001", 7, "after_tools", "hint")]


def test_same_params_on_different_tools_are_different_calls():
    # Test 3: the same params on read_file, search_files, list_files -> count 1.
    # Probes: two more list_files reach the warning at round 5, not earlier.
    steps = (
        calls(Call("read_file", {"path": "src"}, "...")),
        calls(Call("search_files", {"path": "src"}, "...")),
        *(calls(Call("list_files", {"path": "src"}, "...")) for _ in range(3)),
        message("Done."),
    )
    assert fires("cline", *steps) == [("R001", 5, "after_tools", "hint")]


def test_after_the_user_continues_the_detector_fires_again():
    # Test 4 (re-arm): x5, reset, x5 -> soft at the 3rd and hard at the 5th again.
    # The reset is the user's reply to the mistake ask: a new turn.
    first = [read(MAIN) for _ in range(5)]
    second = [read(MAIN, user="Keep going."), *(read(MAIN) for _ in range(4))]
    assert fires("cline", *first, *second, message("Done.")) == [
        ("R001", 3, "after_tools", "hint"),
        ("R001", 5, "after_tools", "stop"),
        ("R001", 8, "after_tools", "hint"),
        ("R001", 10, "after_tools", "stop"),
    ]


def test_after_the_reset_a_different_tool_is_no_false_positive():
    # Test 5: after a reset, a different tool -> no warning. Probes: list_files x3 warns
    # exactly at its own 3rd call (round 8), so nothing of the old streak was left.
    steps = (
        *(read(MAIN) for _ in range(5)),
        calls(Call("list_files", {"path": "src"}, "main.ts"), user="Keep going."),
        calls(Call("list_files", {"path": "src"}, "main.ts")),
        calls(Call("list_files", {"path": "src"}, "main.ts")),
        message("Done."),
    )
    assert fires("cline", *steps) == [
        ("R001", 3, "after_tools", "hint"),
        ("R001", 5, "after_tools", "stop"),
        ("R001", 8, "after_tools", "hint"),
    ]


def test_a_changing_task_progress_is_ignored():
    # Test 6: read_file({path, task_progress:"step i of 5"}) x5 -> soft at 3, hard at 5.
    steps = (read({**MAIN, "task_progress": f"step {i} of 5"}) for i in range(1, 6))
    assert fires("cline", *steps, message("Done.")) == [
        ("R001", 3, "after_tools", "hint"),
        ("R001", 5, "after_tools", "stop"),
    ]
