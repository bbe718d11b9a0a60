"""Conformance: OpenRouter's DoomLoopMonitor scenarios (peers.md §8.2) replayed with the
``openrouter`` preset.

One round is one model response, as OpenRouter counts; a fan-out is several calls in
one step. OpenRouter's ``observe`` rung is tracecheck's ``hint``, one per tool and round.

Not expressible, so not here:

- loopKey: a throwing loopKey falling back to the full arguments (tracecheck's
  ``key_fields`` is a field list; nothing can throw);
- serialize/resume of the monitor's state (a replay has no pause);
- the text detectors ("no no no …" at the tail of one response, a repeated-token tail
  stopping the run at once, identical filler text every step, a paraphrase missed):
  the preset does not model them (see its notes).
"""

from __future__ import annotations

from conformance import Call, calls, fires, first_stop, replay_as

PRESET = "openrouter"


def hint(round_: int) -> tuple[str, int, str, str]:
    return ("R004", round_, "before_tools", "hint")


def block(round_: int) -> tuple[str, int, str, str]:
    return ("R004", round_, "before_tools", "block")


def search(args: dict) -> Call:
    return Call("search", args, "1. a result")


def read(path: str) -> Call:
    return Call("read", {"path": path}, f"contents of {path}")


def blocked_calls(*steps) -> list[str]:
    return [f.call_id for f in replay_as(PRESET, *steps).fires if f.action.value == "block"]


def test_the_same_search_in_three_rounds_observes_at_2_and_blocks_at_3():
    # §8.2: search({query:"same thing"}) in rounds 1, 2, 3 -> none, observe(2), block(3).
    steps = [calls(search({"query": "same thing"})) for _ in range(3)]
    assert fires(PRESET, *steps) == [hint(2), block(3)]
    # The refused call gets a synthetic error as its result, as OpenRouter's block does.
    refused = replay_as(PRESET, *steps).fires[-1].details["result"]
    assert refused.startswith("Error: not run. search was called with these same arguments in 3 consecutive rounds")


def test_six_rounds_of_the_same_search_stop_at_the_6th():
    # §8.2: rounds 1-6 of search({q:"x"}) -> stop at 6 (blocks at 3, 4, 5 on the way).
    steps = [calls(search({"q": "x"})) for _ in range(6)]
    assert fires(PRESET, *steps) == [hint(2), block(3), block(4), block(5), ("R004", 6, "before_tools", "stop")]
    assert first_stop(PRESET, *steps) == (6, "before_tools")


def test_six_identical_calls_in_one_round_count_once():
    # §8.2: six identical search({q:"parallel"}) in round 1 -> streak 1 each; round 2 -> streak 2.
    fan_out = calls(*(search({"q": "parallel"}) for _ in range(6)))
    assert fires(PRESET, fan_out) == []
    result = replay_as(PRESET, fan_out, fan_out)
    assert [(f.round, f.action.value, f.details["streak"]) for f in result.fires] == [(2, "hint", 2)]


def test_a_duplicate_then_another_query_gives_no_verdict_and_the_other_query_repeated_is_streak_2():
    # §8.2: search(a), search(a), search(b) -> no verdict; then search(b) -> streak 2.
    first = calls(search({"q": "a"}), search({"q": "a"}), search({"q": "b"}))
    assert fires(PRESET, first) == []
    result = replay_as(PRESET, first, calls(search({"q": "b"})))
    assert [(f.round, f.action.value, f.details["streak"]) for f in result.fires] == [(2, "hint", 2)]
    assert result.fires[0].details["fingerprints"] == ['search:{"q":"b"}']


def test_interleaved_calls_to_another_tool_do_not_reset_the_streak():
    # §8.2: search(x), read_file(/a), search(x), read_file(/b), search(x) -> observe at 3, block at 5 (streak 3).
    steps = [
        calls(search({"q": "x"})),
        calls(Call("read_file", {"path": "/a"})),
        calls(search({"q": "x"})),
        calls(Call("read_file", {"path": "/b"})),
        calls(search({"q": "x"})),
    ]
    result = replay_as(PRESET, *steps)
    assert fires(PRESET, *steps) == [hint(3), block(5)]
    assert result.fires[-1].details["streak"] == 3


def test_reordered_argument_keys_are_the_same_call():
    # §8.2: run({cmd:"ls",cwd:"/tmp"}) then run({cwd:"/tmp",cmd:"ls"}) -> streak 2.
    steps = [calls(Call("run", '{"cmd": "ls", "cwd": "/tmp"}')), calls(Call("run", '{"cwd": "/tmp", "cmd": "ls"}'))]
    result = replay_as(PRESET, *steps)
    assert [(f.round, f.action.value, f.details["streak"]) for f in result.fires] == [(2, "hint", 2)]


def test_repeated_empty_argument_calls_observe_then_block():
    # §8.2: list_tasks({}) x3 -> observe, block.
    assert fires(PRESET, *(calls(Call("list_tasks", {}, "[]")) for _ in range(3))) == [hint(2), block(3)]


def test_a_repeated_fan_out_observes_at_round_2_and_blocks_all_three_at_round_3():
    # §8.2 fan-out: [read(a), read(b), read(c)] repeated -> round 2 observe, round 3 all three blocked.
    fan_out = calls(read("a"), read("b"), read("c"))
    assert fires(PRESET, fan_out, fan_out, fan_out) == [hint(2), block(3), block(3), block(3)]
    assert blocked_calls(fan_out, fan_out, fan_out) == ["call_3_1", "call_3_2", "call_3_3"]


def test_a_fan_out_with_one_new_call_blocks_the_repeated_ones_and_runs_the_new_one():
    # §8.2 fan-out: a round 3 of [a, b, c, d] after two rounds of [a, b, c] -> a, b, c blocked, d runs.
    fan_out = calls(read("a"), read("b"), read("c"))
    wider = calls(read("a"), read("b"), read("c"), read("d"))
    assert fires(PRESET, fan_out, fan_out, wider) == [hint(2), block(3), block(3), block(3)]
    assert blocked_calls(fan_out, fan_out, wider) == ["call_3_1", "call_3_2", "call_3_3"]


def test_a_call_repeating_inside_varying_company_is_a_3_peat():
    # §8.2 fan-out: [a, b], [a, c], [a, d] -> a is a 3-peat.
    steps = [calls(read("a"), read("b")), calls(read("a"), read("c")), calls(read("a"), read("d"))]
    assert fires(PRESET, *steps) == [hint(2), block(3)]
    assert blocked_calls(*steps) == ["call_3_1"]


def test_a_smaller_repeat_of_a_fan_out_flags_both_repeated_calls_at_observe():
    # §8.2 fan-out: [a, b, c] then [a, b] -> flags a and b at observe.
    result = replay_as(PRESET, calls(read("a"), read("b"), read("c")), calls(read("a"), read("b")))
    assert [(f.round, f.action.value) for f in result.fires] == [(2, "hint")]
    assert result.fires[0].details["fingerprints"] == ['read:{"path":"a"}', 'read:{"path":"b"}']


BASH_KEY = ("R004.key_fields=bash.command,bash.cwd",)


def test_a_command_and_cwd_loop_key_tells_the_same_command_in_another_cwd_apart():
    # §8.2 loopKey: bash {command, cwd}, the same command in a different cwd -> not a loop.
    steps = [
        calls(Call("bash", {"command": "ls", "cwd": "/srv/a", "description": "list"})),
        calls(Call("bash", {"command": "ls", "cwd": "/srv/b", "description": "list"})),
    ]
    assert fires(PRESET, *steps, sets=BASH_KEY) == []
    # The projection is what makes it a loop when only a field outside the key changes.
    same_cwd = [
        calls(Call("bash", {"command": "ls", "cwd": "/srv/a", "env": {"PAGER": "less"}})),
        calls(Call("bash", {"command": "ls", "cwd": "/srv/a", "env": {"PAGER": "cat"}})),
    ]
    assert fires(PRESET, *same_cwd) == []
    assert fires(PRESET, *same_cwd, sets=BASH_KEY) == [hint(2)]
    # A shell call's description (a caption for the user) is never part of its identity.
    captioned = [
        calls(Call("bash", {"command": "ls", "cwd": "/srv/a", "description": "list"})),
        calls(Call("bash", {"command": "ls ", "cwd": "/srv/a", "description": "list it again"})),
    ]
    assert fires(PRESET, *captioned) == [hint(2)]


def test_an_exempt_poller_is_never_counted():
    # §8.2 loopKey: a null return exempts polling (here: the tool is in exempt_tools).
    steps = [calls(Call("poll_job", {"job": "j1"}, '{"status": "running"}')) for _ in range(6)]
    assert fires(PRESET, *steps, sets=("R004.exempt_tools=poll_*",)) == []
    assert first_stop(PRESET, *steps) == (6, "before_tools")
