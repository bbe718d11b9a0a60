"""Conformance: OpenHands V0 ``StuckDetector``'s own test scenarios (peers.md §1.6,
``tests/unit/controller/test_is_stuck.py``) replayed with ``--preset openhands``.

OpenHands checks for a loop before every agent step, i.e. once the last observation is
in: a loop seen in the history after round k's tool result is a fire ``after_tools`` of
round k (a monologue, ``final`` of the third message). One action + its observation is
one round here. The source's tests run in headless mode unless they say otherwise;
headless mode looks at the whole history, which is every guard at ``scope = run``.

Not expressible (modelling limits, also in the preset's notes):

- **thought text**: OpenHands' action equality includes the model's ``thought``; the
  same command with other reasoning is no repeat there, and is one here (the round's
  text is not compared).
- **shell observations compare command + exit code only**: OpenHands ignores the
  output, so ``ls ⇒ "a"`` then ``ls ⇒ "b"`` are equal there; P004 and R003 compare the
  result text (what P004 would need is in the branch's report).
- **SyntaxError sub-cases of scenario 2** (§1.6 #5): OpenHands parses the Jupyter
  output (``Cell In[1], line N``, the error in the third-from-last line, the trailer)
  and is stuck at the 3rd identical SyntaxError; tracecheck has no such parser. Only
  the case of 4 wholly identical observations is replayed (P004, as scenario 1).
- **an agent message between repeated actions**: OpenHands counts it as an action, so
  ``ls, ls, M, ls, ls`` is not 4 equal actions there; P004 (not this branch's) and
  R003 ignore replies and fire. F002 handles it (``consecutive``).
- **an action without an observation** (``echo 42`` in the monologue test, an
  observation without an action): a round's call always carries its result here.
- **context-window condensation** (§1.6 #9): condensation events are not in the trace
  model.
- **delegates** (§1.6 #10): a delegate's history is not a separate stream here.
- **a still-stuck history**: the source re-asks ``is_stuck`` on a history that already
  fired (headless, after ``U: "Hello"``); replay has no event for a user message alone,
  so the next round is where it fires again.
"""

from __future__ import annotations

from conformance import Call, calls, fires, message, stops

HEADLESS = ("P004.scope=run", "F002.scope=run", "T001.scope=run", "R003.scope=run")


def ls(result: str = "", user: str | None = None):
    return calls(Call("execute_bash", {"command": "ls"}, result), user=user)


def test_too_short_is_not_stuck():
    # §1.6 #1 test_history_too_short: one action and its observation.
    steps = (ls("file1.txt\nfile2.txt", user="Hello"),)
    assert fires("openhands", *steps, sets=HEADLESS) == []
    assert fires("openhands", *steps) == []


def test_interactive_reset():
    # §1.6 #2 test_interactive_mode_resets_history_on_user_input.
    steps = (ls(), ls(), ls(), ls(), ls(user="Hello"), ls(), ls(), ls())
    # ls ⇒ "" ×4 → stuck in both modes, once the 4th observation is in.
    assert fires("openhands", *steps[:4]) == [("P004", 4, "after_tools", "stop")]
    assert fires("openhands", *steps[:4], sets=HEADLESS) == [("P004", 4, "after_tools", "stop")]
    # Interactive: after U:"Hello", 2 more are not stuck; 2 more after those are.
    assert fires("openhands", *steps[:6]) == [("P004", 4, "after_tools", "stop")]
    assert fires("openhands", *steps) == [("P004", 4, "after_tools", "stop"), ("P004", 8, "after_tools", "stop")]
    # Headless: the user message does not break the loop; it is still stuck at the next round.
    assert stops("openhands", *steps[:6], sets=HEADLESS) == [
        ("P004", 4, "after_tools", "stop"),
        ("P004", 5, "after_tools", "stop"),
    ]


def test_repeating_action_observation():
    # §1.6 #3 test_is_stuck_repeating_action_observation (headless): M:"Hello", ls ×2,
    # U:"Done", ls → 3 pairs, not stuck; one more ls → stuck.
    steps = (message("Hello", user="Hi"), ls(), ls(), ls(user="Done"), ls())
    assert fires("openhands", *steps[:4], sets=HEADLESS) == []
    assert fires("openhands", *steps, sets=HEADLESS) == [("P004", 5, "after_tools", "stop")]
    # Interactive mode sees only the 2 pairs after "Done".
    assert fires("openhands", *steps) == []


def invalid(error: str, user: str | None = None):
    return calls(Call("execute_bash", {"command": "invalid_command"}, error, error=True), user=user)


def test_repeating_action_error_whatever_the_error_texts():
    # §1.6 #4 test_is_stuck_repeating_action_error (headless): the same action answered
    # by an error 3 times, texts differing. The source asks after the 4th error; the
    # condition already holds after the 3rd, where OpenHands (checking before every
    # step) raises AgentStuckInLoopError: an abort.
    steps = (
        message("Hello", user="Hi"),
        invalid("Command not found"),
        invalid("Command still not found or another error"),
        invalid("Different error", user="Done"),
        invalid("Command not found"),
    )
    assert fires("openhands", *steps[:3], sets=HEADLESS) == []
    assert stops("openhands", *steps, sets=HEADLESS) == [("F002", 4, "after_tools", "abort")]
    # Interactive: only 2 errors after "Done".
    assert fires("openhands", *steps) == []
    # §1.2 scenario 2 wants the same last 3 actions: another action between the errors breaks it.
    view = calls(Call("str_replace_editor", {"command": "view", "path": "a.py"}, "x = 1"))
    assert fires("openhands", steps[1], view, *steps[2:4], sets=HEADLESS) == []
    assert fires("openhands", steps[1], view, *steps[2:], sets=HEADLESS) == [("F002", 5, "after_tools", "abort")]


def ipython(line: int):
    code = "edit_file_by_replace('book_store.py', to_replace=\"\"\"def total(basket):\n    ...\"\"\")"
    output = (
        f"Cell In[1], line {line}\n    def total(basket):\n                ^\n"
        "SyntaxError: invalid syntax. Perhaps you forgot a comma?\n"
        "[Jupyter current working directory: /workspace]\n[Jupyter Python interpreter: /usr/bin/python]"
    )
    return calls(Call("execute_ipython_cell", {"code": code}, output))


def test_the_same_syntax_error_four_times_is_stuck_and_varying_lines_are_not():
    # §1.6 #5, the sub-case tracecheck can express: 4 identical actions whose observations
    # are wholly identical (line 42 each time) match scenario 1 as well. (The
    # SyntaxError-specific match at the 3rd is not expressible: module docstring.)
    assert fires("openhands", *(ipython(42) for _ in range(4)), sets=HEADLESS) == [("P004", 4, "after_tools", "stop")]
    # Line numbers 10/20/30/40 → not stuck.
    assert fires("openhands", *(ipython(n) for n in (10, 20, 30, 40)), sets=HEADLESS) == []


def pair(user: str | None = None):
    return (
        calls(Call("execute_bash", {"command": "ls"}, "file1.txt\nfile2.txt"), user=user),
        calls(Call("str_replace_editor", {"command": "view", "path": "file1.txt"}, "File content")),
    )


def test_repeating_action_observation_pattern():
    # §1.6 #6 test_is_stuck_repeating_action_observation_pattern (headless): U:"Come on",
    # [ls, read file1] ×2, U:"Come on", [ls, read file1] → stuck once the 6th observation is in.
    steps = (*pair(user="Come on"), *pair(), *pair(user="Come on"))
    assert fires("openhands", *steps[:5], sets=HEADLESS) == []
    assert fires("openhands", *steps, sets=HEADLESS) == [("R003", 6, "after_tools", "stop")]
    # Interactive: only one lap after the second "Come on".
    assert fires("openhands", *steps) == []


def test_not_stuck_with_two_laps():
    # §1.6 #7 test_is_not_stuck (headless): ls, read file1, pwd, read file2, U:"Done", pwd, read file2.
    pwd = calls(Call("execute_bash", {"command": "pwd"}, "/home/user"))
    read2 = calls(Call("str_replace_editor", {"command": "view", "path": "file2.txt"}, "Another file content"))
    steps = (
        *pair(),
        pwd,
        read2,
        calls(Call("execute_bash", {"command": "pwd"}, "/home/user"), user="Done"),
        read2,
    )
    assert fires("openhands", *steps, sets=HEADLESS) == []


MONO = "I'm doing well, thanks for asking."


def test_monologue():
    # §1.6 #8 test_is_stuck_monologue: U:"Hi there!", M:"Hi there!", U:"How are you?",
    # echo 42 (its missing observation cannot be written: it gets one), M ×3 → stuck at the 3rd.
    steps = (
        message("Hi there!", user="Hi there!"),
        calls(Call("execute_bash", {"command": "echo 42"}, "42"), user="How are you?"),
        message(MONO),
        message(MONO),
        message(MONO),
    )
    assert fires("openhands", *steps, sets=HEADLESS) == [("T001", 5, "final", "abort")]
    assert fires("openhands", *steps) == [("T001", 5, "final", "abort")]
    assert fires("openhands", *steps[:4]) == []


def test_monologue_with_an_observation_between_is_not_stuck():
    # §1.6 #8, second half: an observation between the first and the third message
    # (here a round with a call: an observation always has its action).
    steps = (
        message(MONO, user="How are you?"),
        calls(Call("execute_bash", {"command": "storybook"}, "")),
        message(MONO),
        message(MONO),
    )
    assert fires("openhands", *steps, sets=HEADLESS) == []
