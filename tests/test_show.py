"""`tracecheck show`: the timeline, and untrusted text printed literally."""

from __future__ import annotations

import json

import pytest

from conftest import CORE_CORPUS, SAMPLES, write_jsonl

HOSTILE = [
    {"type": "labels", "trace": "evil", "labels": {"outcome": "unknown"}},
    {
        "type": "round",
        "trace": "evil",
        "started_at": "2026-03-04T09:15:00Z",
        "ended_at": "2026-03-04T09:15:02Z",
        "text": "[link=https://x.example]click[/link]",
        "tool_calls": [{"id": "c1", "name": "web_search", "arguments": '{"query": "[red]q[/red]"}'}],
        "usage": {"input_tokens": 700, "output_tokens": 25},
    },
    {
        "type": "result",
        "trace": "evil",
        "call_id": "c1",
        "content": "[bold red]PWNED[/bold red] \u001b[2J\u001b[31mred\u001b[0m \u001b]0;title\u0007 \u009b31m",
        "is_error": False,
        "started_at": "2026-03-04T09:15:02Z",
        "ended_at": "2026-03-04T09:15:03.5Z",
    },
    {"type": "round", "trace": "evil", "text": "done", "finish_reason": "stop"},
]


def test_markup_and_escapes_in_trace_text_print_literally(tmp_path, cli):
    result = cli("show", str(write_jsonl(tmp_path / "evil.jsonl", HOSTILE)))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "[bold red]PWNED[/bold red]" in out
    assert "[link=https://x.example]click[/link]" in out
    assert '{"query": "[red]q[/red]"}' in out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "\\x1b[2J" in out and "\\x1b]0;title\\x07" in out and "\\x9b31m" in out


def test_timeline_shows_rounds_calls_results_tokens_and_durations(tmp_path, cli):
    result = cli("show", str(write_jsonl(tmp_path / "evil.jsonl", HOSTILE)))
    out = result.stdout
    assert "trace evil" in out and "outcome=unknown" in out
    assert "round  1  09:15:00.000 +2.0s  in 700 / out 25" in out
    assert "→ web_search" in out and "[c1]" in out
    assert "← ok 1.5s" in out
    assert "round  2" in out and "final answer" in out


def test_trace_option_selects_one_trace_and_unknown_id_is_an_error(tmp_path, cli):
    events = HOSTILE + [{"type": "round", "trace": "calm", "text": "hi"}]
    path = write_jsonl(tmp_path / "two.jsonl", events)
    only = cli("show", str(path), "--trace", "calm")
    assert "trace calm" in only.stdout and "trace evil" not in only.stdout
    missing = cli("show", str(path), "--trace", "nope")
    assert missing.exit_code == 2 and "no trace with id 'nope'" in missing.stderr
    assert "the traces here: 'evil'" in missing.stderr and "'calm'" in missing.stderr
    many = cli("show", str(SAMPLES), "--trace", "seed000_weather_lop", "--no-guards")
    assert "(did you mean 'seed000_weather_loop'?)" in many.stderr and " more" in many.stderr


def test_standard_input_is_read_with_dash(cli):
    text = "".join(json.dumps(e) + "\n" for e in HOSTILE)
    result = cli("show", "-", input=text)
    assert result.exit_code == 0 and "trace evil" in result.stdout


def test_show_explains_each_guard_round_by_round(cli, monkeypatch):
    from conftest import SAMPLES

    monkeypatch.setenv("COLUMNS", "1000")  # whole lines: this test reads what they say

    path = str(SAMPLES / "seed000_mixed_round.jsonl")
    out = cli("show", path).stdout
    assert "P001 round='similar search: +1' no_progress=1" in out
    assert "P001 round='mixed round: let through, not counted' no_progress=1" in out
    assert "query='上海今日天气 气温' tokens=[上, 今, 天, 日, 气, 海, 温] best=1.00 against=上海天气}]" in out
    stopped = cli("show", str(SAMPLES / "seed000_weather_loop.jsonl")).stdout
    assert "! P001 STOP (before tools)" in stopped and "■ the policy stops here (P001 stop)" in stopped
    plain = cli("show", "--no-guards", path).stdout
    assert "P001" not in plain and "round  3" in plain


def _top_level(state: str) -> list[tuple[str, str]]:
    """``key=value`` pairs of a state line, split at the spaces outside brackets and quotes."""
    pairs, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(state + " "):
        if char == "'" and (i == 0 or state[i - 1] in "=[{ ,") and not quoted:
            quoted = True
        elif char == "'" and quoted and (i + 1 >= len(state) or state[i + 1] in " ]},"):
            quoted = False
        elif not quoted and char in "[{":
            depth += 1
        elif not quoted and char in "]}":
            depth -= 1
        elif char == " " and not depth and not quoted:
            key, _, value = state[start:i].partition("=")
            pairs.append((key, value))
            start = i + 1
    return pairs


def test_guard_state_lines_are_readable(tmp_path, cli):
    """No key twice, nested values delimited, nothing empty, every guard on every round,
    and a carriage return in trace text shown as the timeline shows it."""
    events = [
        {"type": "round", "trace": "t", "text": "looking", "tool_calls": [
            {"id": "a\r", "name": "web_search", "arguments": {"query": "北京天气"}},
            {"id": "b", "name": "web_search", "arguments": {"query": "北京天气 气温"}},
        ]},
        {"type": "result", "trace": "t", "call_id": "a\r", "content": "1. x https://a.example/1"},
        {"type": "result", "trace": "t", "call_id": "b", "content": "1. y https://a.example/2"},
        {"type": "round", "trace": "t", "tool_calls": [{"id": "c", "name": "read_file", "arguments": {"path": "x"}}]},
        {"type": "result", "trace": "t", "call_id": "c", "content": "Error: no such file\r\nat line 2", "is_error": True},
        {"type": "round", "trace": "t", "text": "first line\r\nsecond line\x1b[31m", "finish_reason": "stop"},
    ]
    out = cli("show", "--state", "all", "--select", "ALL", str(write_jsonl(tmp_path / "t.jsonl", events))).stdout
    rounds = out.split("  round ")[1:]
    assert len(rounds) == 3
    for number, text in enumerate(rounds, 1):
        states = {line.split()[1]: line.split(" ", 8)[-1] for line in text.splitlines() if line.startswith("      · ")}
        # Every guard that holds a state is there on every round (T002 holds none; F003
        # none before the first failure).
        holding = {"P001", "P002", "P003", "P004", "R001", "R002", "R003", "R005", "F001", "T001", "E001"} | ({"F003"} if number > 1 else set())
        assert set(states) == holding, states
        for code, state in states.items():
            pairs = _top_level(state.removesuffix(" …"))  # pairs that do not fit are left out whole
            keys = [key for key, _ in pairs]
            assert len(keys) == len(set(keys)), (code, state)  # no key twice
            assert all(value for _, value in pairs), (code, state)  # nothing empty ("requirements=")
    first = rounds[0]
    # Two searches in one round: each score delimited, its keys inside its own braces.
    assert "scores=[{call_id=a\\r query=北京天气 tokens=[京, 北, 天, 气] best=0.00}, {call_id=b query='北京天气 气温'" in first
    assert "E001 rejections=0" in first
    last = rounds[2]
    # Control characters as the timeline shows them: the call id's carriage return as
    # on its call line, an escape code in the reply's text escaped.
    assert "[a\\r]" in first
    assert "text='first line second line\\x1b[31m'" in last  # T001 folds the reply's whitespace
    assert "\r" not in out and "\x1b" not in out
    failure = rounds[1]
    assert "last_error={read_file='Error: no such file at line 2'}" in failure


def test_show_refuses_several_tokenizers_and_says_where_to_compare_them(cli):
    path = str(SAMPLES / "seed000_weather_loop.jsonl")
    result = cli("show", "--tokenizer", "char,jieba", path)
    assert result.exit_code == 2 and result.stdout == ""
    assert "show replays P001 with one tokenizer at a time" in result.stderr
    assert "'tracecheck replay --tokenizer char,jieba'" in result.stderr
    one = cli("show", "--tokenizer", "jieba", path)
    assert one.exit_code == 0 and "tokens=[今日, 天气, 气温]" in one.stdout  # jieba's words, not characters


def test_a_guard_that_stopped_shows_no_state_while_it_sits_out_its_turn(cli):
    """After its own stop a guard sees no round of that turn: its state is not repeated
    under the later rounds as if it had judged them; in the next turn it is back."""
    out = cli("show", "--state", "all", str(SAMPLES / "seed000_weather_loop.jsonl")).stdout
    rounds = out.split("  round ")[1:]
    p001 = [any(line.startswith("      · P001 ") for line in r.splitlines()) for r in rounds]
    assert p001 == [True, True, True, False, False, False]  # it stops before the tools of round 3
    assert "! P001 STOP (before tools)" in rounds[2]
    # Guards that did not stop keep their state on every round.
    assert all(any(line.startswith("      · P002 ") for line in r.splitlines()) for r in rounds)
    dialogue = cli("show", "--state", "all", str(SAMPLES / "tau_retail_order_lookup_loop.jsonl")).stdout
    turns = dialogue.split("\n  turn ")[1:]
    # P004 stops in turn 2 (round 6) and is back, afresh, in turn 3.
    assert "· P004 " not in turns[1].split("  round  7")[1]
    assert "· P004 " in turns[2]


@pytest.mark.parametrize("columns", [80, 120])
def test_show_fits_the_terminal_width_and_wraps_between_words(cli, monkeypatch, columns):
    from rich.cells import cell_len

    from conftest import SAMPLES

    monkeypatch.setenv("COLUMNS", str(columns))
    out = cli("show", str(SAMPLES / "seed002_contract_search_token_limit.jsonl")).stdout
    lines = out.splitlines()
    assert max(cell_len(line) for line in lines) <= columns
    assert not [line for line in lines if line != line.rstrip()]
    # A guard's state that does not fit goes on under it, indented past its "·".
    state = next(k for k, line in enumerate(lines) if line.startswith("      · P001 "))
    assert lines[state + 1].startswith("        ") and not lines[state + 1].startswith("         ")


def test_a_chinese_sentence_is_folded_beside_its_label_not_moved_under_it(cli, tmp_path, monkeypatch):
    """Chinese has no spaces to wrap at: the text starts on the label's line and is folded
    at the width, as a terminal would, instead of leaving "user:" alone on a line."""
    from rich.cells import cell_len

    trace = "对话"
    write_jsonl(tmp_path / "zh.jsonl", [
        {"type": "user", "trace": trace, "text": "请帮我查一下明天北京的天气情况以及是否需要带伞出门，另外顺便看看后天上海的空气质量指数和紫外线强度怎么样。"},
        {"type": "round", "trace": trace, "text": "好的，我先查询北京明天的天气预报，然后再查询上海后天的空气质量指数和紫外线强度，请稍等片刻。"},
    ])
    monkeypatch.setenv("COLUMNS", "60")
    lines = cli("show", str(tmp_path / "zh.jsonl")).stdout.splitlines()
    user = next(line for line in lines if line.lstrip().startswith("user:"))
    assert user.strip() != "user:" and "请帮我" in user
    assert all(cell_len(line) <= 60 for line in lines)
    assert "".join(line.strip() for line in lines if "请" in line or "紫外线" in line or line.startswith("      ")).count("怎么样") == 1


def test_by_default_a_guard_state_is_shown_where_it_changed_or_the_guard_fired(cli):
    """The default view is for reading: a state line appears when it differs from the last
    one shown for that guard (a guard's fresh state, counters at zero, is never shown), or
    where the guard fires; --state all repeats every state under every round."""
    from conftest import SAMPLES

    path = str(SAMPLES / "tau_retail_order_lookup_loop.jsonl")
    changed = cli("show", path).stdout
    everything = cli("show", "--state", "all", path).stdout
    assert len(changed.splitlines()) < len(everything.splitlines())
    last: dict[str, str] = {}
    for line in changed.splitlines():
        if line.startswith("  turn "):
            last.clear()  # a stopped guard comes back afresh in the next turn
        if line.startswith("      · "):
            code, state = line.split()[1], line.split(" ", 8)[-1]
            assert last.get(code) != state, line
            last[code] = state
    assert "seen_urls=0" not in changed and "rejections=0" not in changed
    # Every fire still has its guard's state above it, as it stood.
    for block in changed.split("  round ")[1:]:
        fired = {line.split()[1] for line in block.splitlines() if line.startswith("      ! ")}
        stated = {line.split()[1] for line in block.splitlines() if line.startswith("      · ")}
        assert fired <= stated | {"B001", "B002", "B003", "B004"}, block


def test_tau2_rounds_show_when_the_reply_came(cli):
    """τ² records when each message arrived, not when the call started: show says
    'ended' with that clock instead of an unknown start."""
    import json as _json
    from datetime import datetime, timezone

    from conftest import ROOT

    import gzip

    path = ROOT / "tests" / "corpus" / "tau2-bench" / "airline_grok-4-fast-reasoning.json.gz"
    simulation = _json.loads(gzip.decompress(path.read_bytes()))["simulations"][0]
    first_call = next(m for m in simulation["messages"] if m["role"] == "assistant" and m.get("tool_calls"))
    clock = datetime.fromisoformat(first_call["timestamp"]).replace(tzinfo=timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    out = cli("show", "--no-guards", str(path)).stdout
    first_round = next(line for line in out.splitlines() if line.startswith("  round  1"))
    assert f"ended {clock}" in first_round and "--:--:--" not in first_round


def test_compact_json_wraps_between_tokens(tmp_path, cli, monkeypatch):
    """A call's arguments written as compact JSON (no spaces, as OpenAI writes them) fold
    after a separator, never inside a key or a value."""
    import json as _json

    monkeypatch.setenv("COLUMNS", "80")
    arguments = _json.dumps({f"field_{k:02d}": f"value-{k:02d}-abcdef" for k in range(8)}, separators=(",", ":"))
    events = [
        {"type": "round", "trace": "t", "tool_calls": [{"id": "c1", "name": "update_record", "arguments": arguments}]},
        {"type": "result", "trace": "t", "call_id": "c1", "content": "ok"},
        {"type": "round", "trace": "t", "text": "done", "finish_reason": "stop"},
    ]
    out = cli("show", "--no-guards", str(write_jsonl(tmp_path / "t.jsonl", events))).stdout
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if "→ update_record" in line)
    end = next(k for k in range(start, len(lines)) if lines[k].rstrip().endswith("…") or "[c1]" in lines[k])
    block = lines[start : end + 1]  # the arguments, cut at 200 characters with …
    assert len(block) >= 3  # it did wrap
    for line in block[:-1]:
        assert len(line) <= 80 and line.rstrip()[-1] in ",:{[", line


def test_a_file_gets_the_text_a_colour_terminal_shows(monkeypatch):
    # Without colours show writes its own plain lines (PlainText, cell counts of its own);
    # with colours Rich renders Text lines. The two must say the same, break for break.
    import io
    import re

    from rich.console import Console

    from conftest import ROOT
    from tracecheck.commands import ShowRequest, show
    from tracecheck.config import load_settings

    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "xterm-256color")  # a dumb terminal is 80 columns whatever it is told
    paths = (str(SAMPLES), *(str(ROOT / folder) for folder in CORE_CORPUS))
    request = ShowRequest(paths, settings=load_settings())
    plain_out, colour_out = io.StringIO(), io.StringIO()
    show(request, console=Console(file=plain_out, width=100, color_system=None, force_terminal=False))
    show(request, console=Console(file=colour_out, width=100, color_system="truecolor", force_terminal=True))
    coloured = colour_out.getvalue()
    assert "\x1b[" in coloured and "\x1b[" not in plain_out.getvalue()
    without_escapes = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert plain_out.getvalue().splitlines() == without_escapes.splitlines()


def test_cells_are_counted_as_rich_counts_them():
    import random

    from rich.cells import cell_len as rich_cell_len

    from tracecheck.reports.plain_text import cell_len

    known = ["", "plain ascii", "北京天气", "· state", "→ 调用 tool", "é", "e\u0301", "👍🏽", "👨\u200d👩\u200d👧", "❤\ufe0f", "\x1b[31m", "\t\n", "\u3000全角", "한글", "\U00020001"]
    rng = random.Random(11)
    pool = [chr(code) for code in range(0x20, 0x7F)] + list("北京·…→←ひカ한é\u200d\ufe0f👍\u0301\u3000\x85\u200b\x07")
    pool += [chr(rng.randrange(0x80, 0x30000)) for _ in range(500)]
    pool = [ch for ch in pool if not 0xD800 <= ord(ch) <= 0xDFFF]
    samples = known + ["".join(rng.choice(pool) for _ in range(rng.randrange(30))) for _ in range(3000)]
    assert [cell_len(text) for text in samples] == [rich_cell_len(text) for text in samples]


def test_the_characters_reports_write_are_counted_as_rich_counts_them():
    # The reports' own characters are counted without Rich's tables (a report of ASCII
    # traces then never loads them): each must take the cells Rich gives it.
    from rich.cells import get_character_cell_size

    from tracecheck.reports.plain_text import REPORT_CHARACTERS, cell_len

    assert REPORT_CHARACTERS and all(cell_len(char) == get_character_cell_size(char) == 1 for char in REPORT_CHARACTERS)
