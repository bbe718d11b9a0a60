"""Conformance: Gemini CLI ``LoopDetectionService``'s own test scenarios (peers.md §3.7,
``loopDetectionService.test.ts``) replayed with ``--preset gemini-cli``.

Gemini checks each tool-call request as it streams in, before the tool runs: a fire on
the k-th call is ``before_tools`` of the round holding it. Its content detector reads
the streamed text; here a round's text is checked whole, so "fires on the 10th chunk"
is a fire in the round that holds the 10th chunk (``final`` for a reply). Every
scenario is one prompt: one turn.

Not expressible (modelling limits, also in the preset's notes):

- **strike management**: Gemini's first detection injects feedback and, after
  ``clearDetection()``, lets the model try once more; the second detection halts. Its
  tool-call history survives the recovery, so one more identical call is strike 2.
  Replay stops the turn at the first detection and has no recovery turn to replay.
- **disabling for the session** after a detection (``disableForSession()``): a user's
  choice in the UI, not in a trace. Disabling by configuration is replayed
  (``--set R003.enabled=false``).
- **the LLM judge** (from turn 30, confidence ≥ 0.9 from two models): no offline
  equivalent.
- **streaming**: Gemini halts mid-response; a round is replayed whole, so its own
  tokens are never saved, only what would have come after.
- **key order**: Gemini keys calls by ``JSON.stringify`` of the arguments (key order
  matters); R003 compares sorted-key JSON. No source test depends on it.
"""

from __future__ import annotations

import random

from conformance import Call, Step, answer, calls, fires, message, stops

CHUNK = 50


def test_tool(param: str = "value", text: str = "") -> Step:
    return calls(Call("testTool", {"param": param}), text=text)


test_tool.__test__ = False  # a builder, not a test


def repetitive(ident: int, length: int) -> str:
    # The test's helper: "This is a unique sentence, id=N. " repeated, cut to `length`.
    base = f"This is a unique sentence, id={ident}. "
    return (base * (length // len(base) + 1))[:length]


def test_identical_call_fires_on_the_5th_and_once():
    # "should not detect a loop for fewer than TOOL_CALL_LOOP_THRESHOLD identical calls",
    # "should detect a loop on the 5th", a 6th is already detected (no second fire).
    assert fires("gemini-cli", *(test_tool() for _ in range(4)), answer()) == []
    assert fires("gemini-cli", *(test_tool() for _ in range(6)), answer()) == [("R003", 5, "before_tools", "stop")]


def test_five_parallel_identical_calls_in_one_response_fire():
    # §3.2: a model turn with 5 parallel identical calls also trips it.
    assert fires("gemini-cli", calls(*(Call("testTool", {"param": "value"}) for _ in range(5))), answer()) == [
        ("R003", 1, "before_tools", "stop")
    ]


def test_different_calls_never_fire():
    # [testTool(value1), testTool(value2), anotherTool(value1)] ×3 → never.
    block = (test_tool("value1"), test_tool("value2"), calls(Call("anotherTool", {"param": "value1"})))
    assert fires("gemini-cli", *(block * 3), answer()) == []


def test_a_thought_between_identical_calls_does_not_reset():
    # testTool ×4, a thought event, testTool → fires (other events do not reset the count).
    steps = (*(test_tool() for _ in range(4)), test_tool(text="Let me think about this again."), answer())
    assert fires("gemini-cli", *steps) == [("R003", 5, "before_tools", "stop")]


def test_disabled_in_config_never_fires():
    steps = (*(test_tool() for _ in range(6)), answer("This is a unique sentence. " * 40))
    assert fires("gemini-cli", *steps, sets=("R003.enabled=false", "T002.enabled=false")) == []


def test_cycles_of_period_2_3_and_5():
    # [read_file(loop_a.txt), read_file(loop_b.txt)] over 15 calls → fires on the 10th.
    ab = [calls(Call("read_file", {"file_path": f"loop_{c}.txt"})) for c in "ab"]
    assert fires("gemini-cli", *(ab * 8)[:15], answer()) == [("R003", 10, "before_tools", "stop")]
    # [a, b, c] over 20 calls → on the 15th; t({id: 1..5}) cyclic over 30 calls → on the 25th.
    abc = [calls(Call(name, {})) for name in ("a", "b", "c")]
    assert fires("gemini-cli", *(abc * 7)[:20], answer()) == [("R003", 15, "before_tools", "stop")]
    five = [calls(Call("t", {"id": i})) for i in range(1, 6)]
    assert fires("gemini-cli", *(five * 6), answer()) == [("R003", 25, "before_tools", "stop")]


def test_a_broken_alternation_never_fires():
    # A, B, A, B, C, A, B, A, B → never.
    assert fires("gemini-cli", *(calls(Call(name, {})) for name in "ABABCABAB"), answer()) == []


def test_random_text_never_fires():
    # 1000 random 10-character strings.
    rng = random.Random(7)
    text = "".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(10)) for _ in range(1000))
    assert fires("gemini-cli", message(text)) == []


def test_a_50_character_chunk_fires_on_the_10th_repeat():
    chunk = repetitive(1, CHUNK)
    assert fires("gemini-cli", message(chunk * 9)) == []
    assert fires("gemini-cli", message(chunk * 10)) == [("T002", 1, "final", "stop")]


def test_a_chunk_500_characters_apart_never_fires():
    rng = random.Random(11)
    text = "".join(repetitive(1, CHUNK) + "".join(rng.choice("abcdefghij ") for _ in range(500)) for _ in range(10))
    assert fires("gemini-cli", message(text)) == []


def test_a_150_character_pattern_fires_within_12_chunks():
    # The pattern is streamed 50 characters at a time: 12 chunks are 4 repeats of it.
    pattern = repetitive(1, 150)
    assert fires("gemini-cli", message(pattern * 4)) == [("T002", 1, "final", "stop")]


def test_chanted_sentences_fire_within_15_repeats():
    for sentence in (
        "I will not output any text.\n  I will just end the turn.\n  I am done.\n  ",
        "I have added all the requested logs and verified the test file. I will now mark the task as complete.\n  ",
        "I need to check the file. The file does not exist. I will create the file. ",
    ):
        assert fires("gemini-cli", message(sentence * 15)) == [("T002", 1, "final", "stop")], sentence
    assert fires("gemini-cli", message("Thinking... Done. " * 30)) == [("T002", 1, "final", "stop")]


def test_a_list_with_a_long_shared_prefix_never_fires():
    items = "".join(f"- projects/my-google-cloud-project-12345/locations/us-central1/services/{i}\n" for i in range(15))
    assert fires("gemini-cli", message(items)) == []


def test_repetition_inside_a_code_block_never_fires_and_outside_it_does():
    chunk = repetitive(1, CHUNK)
    assert fires("gemini-cli", message("```\n" + chunk * 12 + "\n```")) == []
    assert fires("gemini-cli", message("```\nx = 1\n```\n" + chunk * 12)) == [("T002", 1, "final", "stop")]


def test_markdown_structure_resets_the_tracking():
    # Tracking resets on a fence, table row, list item, heading, blockquote: 6 repeats,
    # the break, 6 repeats never reach 10. Without a break the same 12 repeats fire.
    chunk = repetitive(1, CHUNK)
    for brk in ("```\n```\n", "| a | b |\n", "- item\n", "## Heading\n", "> quoted\n", "─" * 20 + "\n"):
        assert fires("gemini-cli", message(chunk * 6 + "\n" + brk + chunk * 6)) == [], brk
    assert fires("gemini-cli", message(chunk * 6 + "\n" + chunk * 6)) == [("T002", 1, "final", "stop")]


def test_box_drawing_dividers_never_fire():
    assert fires("gemini-cli", message(("─" * 60 + "\n") * 20 + ("═" * 60 + "\n") * 20)) == []


def test_a_tool_call_resets_the_content_tracking():
    # "Some content." ×9, a tool call, "Fresh content." → 0; and a chant cut in two by
    # a tool call (6 + 6 repeats) is never 10.
    assert fires("gemini-cli", calls(Call("testTool", {}), text="Some content." * 9), message("Fresh content.")) == []
    chunk = repetitive(1, CHUNK)
    assert fires("gemini-cli", calls(Call("testTool", {}), text=chunk * 6), message(chunk * 6)) == []


def test_the_policy_stops_the_turn_at_the_first_detection():
    # Gemini's first detection ends the turn (strike management is not expressible).
    steps = (*(test_tool() for _ in range(6)), answer())
    assert stops("gemini-cli", *steps) == [("R003", 5, "before_tools", "stop")]
