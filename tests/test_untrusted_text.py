"""Untrusted trace text (ids, labels, file names, tool output) in every human report:
nothing in it can act on the terminal, forge a report line, ping or link on GitHub, or
break the JSON reports. Each input is written the way a recording tool writes it."""

from __future__ import annotations

import json
import os
import unicodedata

import pytest

from conftest import write_jsonl

# These tests are about what the seeds' guards see, not about which guards run by default.
pytestmark = pytest.mark.usefixtures("seed_guards")


def repeated_call_events(trace_id: str, content: str = "[]", *, tool: str = "query_db", call_ids=None, labels=None):
    """A native trace that calls ``tool`` three times with the same arguments and gets
    ``content`` back each time: R001 hints then stops it, R002 answers from its cache
    (quoting ``content`` in its reason)."""
    call_ids = call_ids or ["call_1", "call_2", "call_3"]
    events = [
        {"type": "trace", "trace": trace_id, "format_version": 1},
        {"type": "labels", "trace": trace_id, "labels": labels or {"outcome": "failure"}},
    ]
    for number, call_id in enumerate(call_ids, 1):
        events.append(
            {
                "type": "round",
                "trace": trace_id,
                "round": number,
                "tool_calls": [{"id": call_id, "name": tool, "arguments": '{"status": "pending"}'}],
                "usage": {"input_tokens": 300, "output_tokens": 20},
                "finish_reason": "tool_calls",
            }
        )
        events.append({"type": "result", "trace": trace_id, "call_id": call_id, "content": content, "is_error": False})
    events.append({"type": "round", "trace": trace_id, "round": len(call_ids) + 1, "text": "0 pending", "finish_reason": "stop"})
    events.append({"type": "end", "trace": trace_id})
    return events


def output_lines(text: str) -> list[str]:
    # Split on line feeds only: a terminal starts a new line there (and at a CR), not at
    # the other characters str.splitlines() breaks on.
    return text.replace("\r", "\n").split("\n")


# --- invisible and reordering characters ----------------------------------------------

# Characters that draw nothing or reorder the text around them, with the escape a person
# sees instead.
INVISIBLE = {
    "\u061c": "\\u061c",  # ARABIC LETTER MARK
    "\u200e": "\\u200e",  # LEFT-TO-RIGHT MARK
    "\u200f": "\\u200f",  # RIGHT-TO-LEFT MARK
    "\u202a": "\\u202a",  # LEFT-TO-RIGHT EMBEDDING
    "\u202e": "\\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2066": "\\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2069": "\\u2069",  # POP DIRECTIONAL ISOLATE
    "\U000e0001": "\\U000e0001",  # LANGUAGE TAG
    "\U000e0041": "\\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "\U000e007f": "\\U000e007f",  # CANCEL TAG
    "\u2028": "\\u2028",  # LINE SEPARATOR
    "\u2029": "\\u2029",  # PARAGRAPH SEPARATOR
    "\u00ad": "\\xad",  # SOFT HYPHEN
    "\u115f": "\\u115f",  # HANGUL CHOSEONG FILLER
    "\u1160": "\\u1160",  # HANGUL JUNGSEONG FILLER
    "\u3164": "\\u3164",  # HANGUL FILLER
    "\uffa0": "\\uffa0",  # HALFWIDTH HANGUL FILLER
    "\ufff9": "\\ufff9",  # INTERLINEAR ANNOTATION ANCHOR
    "\ufffb": "\\ufffb",  # INTERLINEAR ANNOTATION TERMINATOR
    "\ufe00": "\\ufe00",  # VARIATION SELECTOR-1
    "\ufe0f": "\\ufe0f",  # VARIATION SELECTOR-16
    "\U000e0100": "\\U000e0100",  # VARIATION SELECTOR-17
    "\U000e01ef": "\\U000e01ef",  # VARIATION SELECTOR-256
    "\u200b": "\\u200b",  # ZERO WIDTH SPACE
    "\u200d": "\\u200d",  # ZERO WIDTH JOINER
    "\u2060": "\\u2060",  # WORD JOINER
    "\ufeff": "\\ufeff",  # ZERO WIDTH NO-BREAK SPACE
    "\u180e": "\\u180e",  # MONGOLIAN VOWEL SEPARATOR
    "\u034f": "\\u034f",  # COMBINING GRAPHEME JOINER
    "\x85": "\\x85",  # NEXT LINE (C1)
}


@pytest.mark.parametrize("char", list(INVISIBLE), ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_invisible_character_is_an_escape_in_show_and_replay(char, tmp_path, cli):
    trace_id = f"admin{char}bot"
    events = repeated_call_events(trace_id, f"rows: none{char} yet")
    path = write_jsonl(tmp_path / "t.jsonl", events)
    escape = INVISIBLE[char]

    shown = cli("show", str(path))
    assert shown.exit_code == 0, shown.output
    assert char not in shown.stdout
    assert f"trace admin{escape}bot" in shown.stdout
    assert f"rows: none{escape} yet" in shown.stdout

    replayed = cli("replay", str(path))
    assert char not in replayed.stdout
    assert f"  admin{escape}bot  outcome=failure" in replayed.stdout
    assert "answered from cache: 'rows: none" in replayed.stdout  # R002 quotes the tool output


def test_every_control_format_and_separator_character_is_escaped():
    # The table in textsafe is written out for a fast import; it must hold every
    # character unicodedata puts in these categories (a newer Unicode may add some).
    from tracecheck.text.textsafe import neutralize, one_line

    categories = {"Cc", "Cf", "Zl", "Zp", "Cs"}
    chars = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in categories)
    missed = [f"U+{ord(c):04X}" for c in neutralize(chars) if unicodedata.category(c) in categories]
    assert missed == []
    excerpt = one_line(chars, limit=len(chars) * 12)
    assert [f"U+{ord(c):04X}" for c in excerpt if unicodedata.category(c) in categories] == []


# --- line breaks in single-line fields ------------------------------------------------


def test_line_break_in_a_trace_id_cannot_forge_a_replay_block(tmp_path, cli):
    # Without escaping, this id prints a fake "no guard fired" line under a trace that is
    # in fact stopped, and a fake trace header below it.
    forged = "loop\n  no guard fired\n\nfake.jsonl:1  healthy"
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events(forged))

    result = cli("replay", str(path))
    assert result.exit_code == 0, result.output
    lines = output_lines(result.stdout)
    assert "  no guard fired" not in lines
    assert not any(line.startswith("fake.jsonl:1") for line in lines)
    assert "t.jsonl:1  loop\\n  no guard fired\\n\\nfake.jsonl:1  healthy  outcome=failure" in result.stdout
    assert any(line.startswith("  policy: stop at round 3") for line in lines)


def test_line_break_in_a_label_cannot_forge_a_policy_line(tmp_path, cli):
    labels = {"outcome": "failure\n  policy: no stop", "note\n  policy: no stop": "x\r  policy: no stop"}
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events("loop", labels=labels))

    replayed = cli("replay", str(path))
    policy_lines = [line for line in output_lines(replayed.stdout) if line.lstrip().startswith("policy:")]
    assert len(policy_lines) == 1 and policy_lines[0].startswith("  policy: stop at round 3 before tools (R001) → saves")
    assert "outcome=failure\\n  policy: no stop" in replayed.stdout

    shown = cli("show", str(path))
    assert not any(line.lstrip().startswith("policy:") for line in output_lines(shown.stdout))
    assert "note\\n  policy: no stop: x\\r  policy: no stop" in shown.stdout


def test_line_break_in_a_file_name_cannot_forge_a_report_line(tmp_path, cli):
    folder = tmp_path / "traces"
    folder.mkdir()
    name = "run\n  no guard fired\n.jsonl"
    try:
        write_jsonl(folder / name, repeated_call_events("loop"))
    except OSError:
        pytest.skip("this file system does not allow a line feed in a file name")

    replayed = cli("replay", str(folder))
    assert replayed.exit_code == 0, replayed.output
    lines = output_lines(replayed.stdout)
    assert "  no guard fired" not in lines and ".jsonl:1  loop  outcome=failure" not in lines
    assert f"{folder}/run\\n  no guard fired\\n.jsonl:1  loop  outcome=failure" in lines

    shown = cli("show", str(folder))
    assert f"trace loop  {folder}/run\\n  no guard fired\\n.jsonl:1 · native" in output_lines(shown.stdout)

    markdown = cli("replay", "-f", "markdown", str(folder)).stdout
    lines = output_lines(markdown)
    headings = [line for line in lines if line.startswith("## loop ")]
    assert headings == [f"## loop ({folder}/run\\n  no guard fired\\n.jsonl:1)"]
    assert not any("no guard fired" in line.lower() for line in lines if not line.startswith("## loop "))


def test_line_break_in_call_ids_tool_names_and_finish_reasons_stays_on_its_line_in_show(tmp_path, cli):
    fake_call = "\n    → rm -rf /  [c9]"
    events = repeated_call_events("loop", call_ids=["c1" + fake_call, "c2", "c3"], tool="query_db\n      ← ok done")
    events[2]["finish_reason"] = "tool_calls\n  round  9  final answer"
    path = write_jsonl(tmp_path / "t.jsonl", events)

    result = cli("show", str(path))
    assert result.exit_code == 0, result.output
    lines = output_lines(result.stdout)
    assert not any(line.startswith(("    → rm", "      ← ok done", "  round  9")) for line in lines)
    assert '    → query_db\\n      ← ok done {"status": "pending"}  [c1\\n    → rm -rf /  [c9]]' in lines
    assert any(line.endswith("tool_calls\\n  round  9  final answer") for line in lines)
    # The guard state under a round quotes the tool name too.
    assert "      · R001 streak=1 signature='query_db\\n      ← ok done:{\"status\":\"pending\"}'" in lines


def test_multi_line_tool_output_is_a_one_line_excerpt(tmp_path, cli):
    content = "first\n  round  9  final answer\n\n  no guard fired\r\n  policy: no stop"
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events("loop", content))

    shown = output_lines(cli("show", str(path)).stdout)
    assert "      ← ok first round 9 final answer no guard fired policy: no stop" in shown
    assert not any(line.startswith(("  round  9", "  no guard fired", "  policy")) for line in shown)
    replayed = output_lines(cli("replay", str(path)).stdout)
    assert "  no guard fired" not in replayed
    policy_lines = [line for line in replayed if line.lstrip().startswith("policy")]
    assert len(policy_lines) == 1 and policy_lines[0].startswith("  policy: stop at round 3 before tools (R001) → saves")


def test_line_break_in_a_trace_id_cannot_forge_a_warning(tmp_path, cli):
    events = repeated_call_events("loop\nwarning: all input read cleanly")
    events.insert(-1, {"type": "result", "trace": events[0]["trace"], "call_id": "ghost", "content": "?"})
    path = write_jsonl(tmp_path / "t.jsonl", events)

    for command in ("show", "replay"):
        result = cli(command, str(path))
        warnings = [line for line in output_lines(result.stderr) if line.startswith("warning:")]
        assert warnings == [
            f"warning: {path}:{len(events) - 1}: trace loop\\nwarning: all input read cleanly: result for unknown call id 'ghost'"
        ], command


def test_line_break_in_a_trace_id_shows_escaped_in_markdown(tmp_path, cli):
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events("loop\n| forged | row |"))
    markdown = cli("replay", "-f", "markdown", str(path)).stdout
    lines = output_lines(markdown)
    assert [line for line in lines if line.startswith("## ")][0] == f"## loop\\n\\| forged \\| row \\| ({path}:1)"
    assert not any(line.startswith("| forged") for line in lines)


# --- terminal escapes and markup ------------------------------------------------------

OSC_CSI = "\x1b]0;owned\x07\x1b[2J\x9b31m[bold]loud[/bold]"
OSC_CSI_SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\x9b31m[bold]loud[/bold]"


def test_terminal_escapes_and_markup_are_literal_in_every_human_format(tmp_path, cli):
    events = repeated_call_events(f"id{OSC_CSI}", f"out{OSC_CSI}", labels={"outcome": "failure", "note": OSC_CSI})
    events.insert(-1, {"type": "result", "trace": events[0]["trace"], "call_id": f"ghost{OSC_CSI}", "content": "?"})
    path = write_jsonl(tmp_path / "t.jsonl", events)

    shown = cli("show", str(path))
    replayed = cli("replay", str(path))
    markdown = cli("replay", "-f", "markdown", str(path))
    for result in (shown, replayed, markdown):
        for stream in (result.stdout, result.stderr):
            assert "\x1b" not in stream and "\x07" not in stream and "\x9b" not in stream
        assert "loud[/bold]" in result.stderr  # the warning quotes the call id

    assert f"trace id{OSC_CSI_SHOWN}" in shown.stdout and f"note: {OSC_CSI_SHOWN}" in shown.stdout
    assert f"← ok out{OSC_CSI_SHOWN}" in shown.stdout
    assert f"  id{OSC_CSI_SHOWN}  outcome=failure" in replayed.stdout
    assert "answered from cache: 'out" in replayed.stdout
    assert "## id\\x1b]0;owned\\x07\\x1b[2J\\x9b31m[bold]loud[/bold] (" in markdown.stdout


def test_error_messages_do_not_expand_emoji_codes_or_markup(tmp_path, cli):
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events("loop"))
    result = cli("show", str(path), "--trace", ":warning: [bold]all clear[/bold]\nok")
    assert result.exit_code == 2
    assert "error: no trace with id ':warning: [bold]all clear[/bold]\\nok'" in result.stderr
    assert "\u26a0" not in result.stderr


# --- Markdown on GitHub: no mentions, issue references or autolinks -------------------

GITHUB_BAIT = "cc @octocat @org/team a@b.example, see #12 and GH-7 at https://evil.example/x or WWW.evil.example"


def test_markdown_report_neither_mentions_nor_links(tmp_path, cli):
    events = repeated_call_events(f"@maintainer {GITHUB_BAIT}", GITHUB_BAIT, labels={"outcome": "failure"})
    path = write_jsonl(tmp_path / "@release-team www.example.jsonl", events)

    markdown = cli("replay", "-f", "markdown", str(path)).stdout
    lines = [line for line in output_lines(markdown) if "@" in line or "://" in line or "GH" in line]
    heading = [line for line in lines if line.startswith("## @")]
    assert heading == [
        "## @&#8203;maintainer cc @&#8203;octocat @&#8203;org/team a@&#8203;b.example, see #&#8203;12 and GH&#8203;-7 "
        f"at https:&#8203;//evil.example/x or WWW&#8203;.evil.example ({md_path(path)}:1)"
    ]
    reasons = [line for line in lines if "answered from cache" in line]  # R002's two blocks, on one row
    assert len(reasons) == 1 and "and 1 more: round 3" in reasons[0] and f"'{GITHUB_BAIT}'" not in reasons[0]
    for line in lines:
        # No trigger is left without the zero-width space right after it.
        assert "://" not in line and "www." not in line.lower() and "GH-" not in line
        assert line.count("@") == line.count("@&#8203;")
        assert not any(line[i + 1 : i + 2].isdigit() and line[i - 1 : i] != "&" for i, char in enumerate(line) if char == "#")  # no #12 reference


def md_path(path) -> str:
    """A file path as the Markdown report writes it."""
    from tracecheck.reports.markdown import md

    return md(str(path))


def test_markdown_report_is_a_fires_table_per_trace_with_no_html_or_links(tmp_path, cli):
    markdown_it = pytest.importorskip("markdown_it")
    hostile = "a|b</td><script>x</script> [l](http://e.vil) ![i](http://e.vil/i.png) <img src=x> <http://e.vil> `c` *e* _u_ \\| &lt;i&gt; ~~s~~ $m$ \n| x | y |"
    path = write_jsonl(tmp_path / "t.jsonl", repeated_call_events(hostile, hostile))

    markdown = cli("replay", "-f", "markdown", str(path)).stdout
    html = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    for tag in ("<a ", "<script", "<code", "<em", "<strong>x", "<i>", "<img", "<s>", "<del>", "<td><script"):
        assert tag not in html, tag
    fires_table = html.split("<table>")[1].split("</table>")[0]
    assert fires_table.count("<tr>") == 1 + 3  # the header and a row per fire (R002's two blocks on one, as on a terminal)
    assert all(row.count("<td>") == 4 for row in fires_table.split("<tr>")[2:])
    assert html.count("<table>") == 2  # the trace's fires, the summary: no table forged by the text


# --- file names that are not UTF-8 ----------------------------------------------------


@pytest.fixture
def non_utf8_folder(tmp_path):
    """A folder holding a looping trace whose file name has the byte 0xff."""
    folder = tmp_path / "traces"
    folder.mkdir()
    raw = os.path.join(os.fsencode(folder), b"run-\xff.jsonl")
    text = "".join(json.dumps(e) + "\n" for e in repeated_call_events("loop"))
    try:
        with open(raw, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError:
        pytest.skip("this file system only allows UTF-8 file names")
    return folder


def test_non_utf8_file_name_is_shown_escaped_in_json(non_utf8_folder, cli):
    result = cli("replay", "-f", "json", str(non_utf8_folder))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [t["file"] for t in report["traces"]] == [f"{non_utf8_folder}/run-\\xff.jsonl"]
    assert [len(t["fires"]) for t in report["traces"]] == [4]


def test_non_utf8_file_name_is_shown_escaped_in_jsonl(non_utf8_folder, cli):
    result = cli("replay", "-f", "jsonl", str(non_utf8_folder))
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["type"] for r in records] == ["header", "trace", "totals"]
    assert records[1]["file"] == f"{non_utf8_folder}/run-\\xff.jsonl"


def test_non_utf8_file_name_is_shown_escaped_in_markdown_terminal_and_show(non_utf8_folder, cli):
    markdown = cli("replay", "-f", "markdown", str(non_utf8_folder))
    assert markdown.exit_code == 0, markdown.output
    assert f"## loop ({non_utf8_folder}/run-\\xff.jsonl:1)" in output_lines(markdown.stdout)

    terminal = cli("replay", str(non_utf8_folder))
    assert f"{non_utf8_folder}/run-\\xff.jsonl:1  loop  outcome=failure" in output_lines(terminal.stdout)
    shown = cli("show", str(non_utf8_folder))
    assert f"trace loop  {non_utf8_folder}/run-\\xff.jsonl:1 · native" in output_lines(shown.stdout)


def test_non_utf8_file_name_in_a_warning_does_not_break_json(non_utf8_folder, cli):
    with open(os.path.join(os.fsencode(non_utf8_folder), b"run-\xff.jsonl"), "a", encoding="utf-8") as handle:
        handle.write("not json\n")
        handle.write(json.dumps({"type": "round", "trace": "other", "text": "hi"}) + "\n")
    result = cli("replay", "-f", "json", str(non_utf8_folder))
    report = json.loads(result.stdout)
    assert [w["file"] for w in report["warnings"]] == [f"{non_utf8_folder}/run-\\xff.jsonl"]


def test_printable_ascii_passes_and_any_other_character_is_still_seen():
    # Printable ASCII is returned as it is without a regex; a single control or invisible
    # character anywhere in otherwise plain text still sends it through the replacement.
    from tracecheck.text.textsafe import neutralize, neutralize_keeping_layout, neutralize_lines

    for code in [*range(0x00, 0xA0), 0xAD, 0x200B, 0x202E, 0xFEFF, 0xE0041]:
        char = chr(code)
        text = f"id-{char}-end"
        printable = 0x20 <= code < 0x7F
        assert (neutralize(text) == text) is printable, hex(code)
        kept_by_layout = printable or char in "\t\n\r\x0b\x0c"
        assert (neutralize_keeping_layout(text) == text) is kept_by_layout, hex(code)
        assert (neutralize_lines(text) == text) is (printable or char == "\n"), hex(code)


def test_tool_name_in_the_new_information_line_is_escaped(tmp_path, cli):
    # A stop cut the recorded run before a new result came back: the terminal report says
    # from which tool, and that name may hold anything (here a tab, a colour code, a CR).
    tool = "search\tweb\x1b[31m\rok"
    events = repeated_call_events("loop", tool=tool, call_ids=["c1", "c2", "c3", "c4", "c5"])
    events[-3]["content"] = "a first new line\nand a second one"
    path = write_jsonl(tmp_path / "t.jsonl", events)

    result = cli("replay", str(path))
    assert result.exit_code == 0, result.output
    assert "the recorded run found new information at round 5 (a new result from search\\tweb\\x1b[31m\\rok)" in result.stdout
    for char in "\t\x1b\r":
        assert char not in result.stdout
