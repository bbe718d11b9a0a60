"""Roo Code's ``ToolRepetitionDetector.spec.ts`` scenarios (peers.md §5.4) replayed
with the ``roo`` preset.

Roo's limit N allows N identical calls in a row and refuses the (N+1)-th; tracecheck's
R001 counts the call it acts on, so Roo's "limit N" is ``R001.stop_at=N+1``. A refused
call is a ``block`` before its tools run, and the streak starts over after it.

Not expressible:

- "Different tool names with identical params" as Roo's test writes it: the test mocks
  Roo's serializer so that two tool names give the same key and asserts a block.
  tracecheck's signature always holds the tool name (there is nothing to mock); the
  test below replays peers.md's reading, that the counters of different tools are
  separate.
- A negative limit read as unlimited: tracecheck rejects ``stop_at=-1`` as a
  configuration error (``stop_at=0`` is unlimited, and is tested).
- "params plus nativeArgs, or params only": Roo keeps a tool's XML parameters and its
  native arguments apart; a trace has one argument object per call, so the
  ``nativeArgs`` scenarios are replayed as differences within those arguments.
- The user ask (``mistake_limit_reached``) that comes with a block: replay has no user
  to ask and goes on with the recorded rounds.
"""

from __future__ import annotations

import pytest

from conformance import Call, calls, fires, message
from tracecheck.config import load_settings
from tracecheck.guards.base import Action, RunContext
from tracecheck.guards.examples import Example


def use(name: str = "test", params: dict | None = None) -> object:
    return calls(Call(name, params or {}, "ok"))


def limit(n: int) -> tuple[str, ...]:
    return (f"R001.stop_at={n + 1}",)  # Roo's limit n refuses the (n+1)-th call


def blocks_at(*rounds: int) -> list[tuple[str, int, str, str]]:
    return [("R001", r, "before_tools", "block") for r in rounds]


def test_default_limit_3_blocks_the_4th():
    # Default (3): test x4 -> allow, allow, allow, block.
    assert fires("roo", *(use() for _ in range(4)), message("Done.")) == blocks_at(4)


def test_limit_2_blocks_the_3rd():
    # Limit 2: test x3 -> allow, allow, block.
    assert fires("roo", *(use() for _ in range(3)), message("Done."), sets=limit(2)) == blocks_at(3)


def test_different_calls_are_all_allowed():
    # first, second, third -> all allowed.
    assert fires("roo", use("first"), use("second"), use("third"), message("Done.")) == []


def test_a_different_call_resets_the_count():
    # Limit 2: same, different, same -> allowed. Probes: two more "same" calls make
    # three in a row, so the block lands on round 5 and not before.
    steps = (use("same"), use("different"), use("same"), use("same"), use("same"), message("Done."))
    assert fires("roo", *steps, sets=limit(2)) == blocks_at(5)


def test_after_a_block_a_new_call_is_allowed():
    # Limit 2, repeat x3 -> block; then new -> allowed.
    steps = (use("repeat"), use("repeat"), use("repeat"), use("new"), message("Done."))
    assert fires("roo", *steps, sets=limit(2)) == blocks_at(3)


def test_after_a_block_the_limit_must_be_reached_again():
    # After a block, the same tool again -> allowed; 2 more -> the 3rd after the reset is blocked.
    steps = tuple(use("repeat") for _ in range(6)) + (message("Done."),)
    assert fires("roo", *steps, sets=limit(2)) == blocks_at(3, 6)


def test_the_block_message_names_the_tool():
    # The refused call's result (Roo's error text) contains the tool name.
    settings = load_settings(preset="roo", sets=limit(2))
    (guard,) = settings.build()
    trace = Example("roo", tuple(use("special-tool-name") for _ in range(3))).trace()
    guard.reset(RunContext())
    verdicts = [v for rnd in trace.rounds for v in guard.before_tools(rnd, RunContext())]
    assert [v.action for v in verdicts] == [Action.BLOCK]
    assert verdicts[0].refusal == (
        "Tool call repetition limit reached for special-tool-name. Please try a different approach."
    )


def test_a_tool_without_parameters_is_blocked_too():
    # Empty tool call (a tool with no parameters), limit 2 -> the 3rd is blocked.
    assert fires("roo", *(use("empty-tool") for _ in range(3)), message("Done."), sets=limit(2)) == blocks_at(3)


def test_different_tool_names_with_identical_params_count_separately():
    # Different tool names with identical params: counters are separate (limit 2).
    param = {"param": "value"}
    steps = (use("tool-name-1", param), use("tool-name-2", param), use("tool-name-2", param), message("Done."))
    assert fires("roo", *steps, sets=limit(2)) == []


def test_key_order_is_ignored():
    # {a,b,c} in three orders, limit 2 -> the 3rd is blocked.
    orders = ('{"a": "1", "b": "2", "c": "3"}', '{"c": "3", "a": "1", "b": "2"}', '{"b": "2", "c": "3", "a": "1"}')
    steps = tuple(calls(Call("same-tool", raw, "ok")) for raw in orders)
    assert fires("roo", *steps, message("Done."), sets=limit(2)) == blocks_at(3)


@pytest.mark.parametrize(("roo_limit", "blocked"), [(1, 2), (2, 3), (3, 4), (5, 6)])
def test_nth_call_table(roo_limit, blocked):
    # Nth-call table: limit 1 blocks the 2nd, 2 the 3rd, 3 the 4th, 5 the 6th.
    steps = tuple(use("tool") for _ in range(blocked)) + (message("Done."),)
    assert fires("roo", *steps, sets=limit(roo_limit)) == blocks_at(blocked)


def test_limit_0_never_blocks():
    # Limit 0 (unlimited): 10 identical calls, none refused.
    steps = tuple(use("tool") for _ in range(10)) + (message("Done."),)
    assert fires("roo", *steps, sets=("R001.stop_at=0",)) == []


def test_after_a_block_with_limit_2_the_next_call_is_allowed():
    # Nth-call table, last case: after the block at the 3rd, the 4th identical call runs.
    steps = tuple(use("tool") for _ in range(4)) + (message("Done."),)
    assert fires("roo", *steps, sets=limit(2)) == blocks_at(3)


def read_files(*files: dict) -> object:
    return calls(Call("read_file", {"files": list(files)}, "..."))


def test_native_args_different_files_are_distinct():
    # nativeArgs: read_file with different files -> distinct (limit 2).
    steps = (read_files({"path": "a.ts"}), read_files({"path": "b.ts"}), read_files({"path": "c.ts"}))
    assert fires("roo", *steps, message("Done."), sets=limit(2)) == []


def test_native_args_same_files_repeat():
    # nativeArgs: the same files -> repeat (limit 2: the 3rd is blocked).
    steps = tuple(read_files({"path": "a.ts"}, {"path": "b.ts"}) for _ in range(3))
    assert fires("roo", *steps, message("Done."), sets=limit(2)) == blocks_at(3)


def test_native_args_different_slice_offsets_are_distinct():
    # nativeArgs: different slice offsets of one file -> distinct (limit 2).
    steps = tuple(read_files({"path": "a.ts", "offset": offset}) for offset in (1, 200, 400))
    assert fires("roo", *steps, message("Done."), sets=limit(2)) == []

