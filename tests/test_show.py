"""`tracecheck show`: the timeline, and untrusted text printed literally."""

from __future__ import annotations

import json

from conftest import SAMPLES, write_jsonl

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


def test_show_explains_each_guard_round_by_round(cli):
    from conftest import SAMPLES

    path = str(SAMPLES / "seed000_mixed_round.jsonl")
    out = cli("show", path).stdout
    assert "P001 round=similar search: +1 no_progress=1" in out
    assert "P001 round=mixed round: let through, not counted no_progress=1" in out
    assert "tokens={上,今,天,日,气,海,温} best=1.00 against=上海天气" in out
    stopped = cli("show", str(SAMPLES / "seed000_weather_loop.jsonl")).stdout
    assert "! P001 STOP (before tools)" in stopped and "■ the policy stops here (P001 stop)" in stopped
    plain = cli("show", "--no-guards", path).stdout
    assert "P001" not in plain and "round  3" in plain
