"""`tracecheck replay`, `guards`, `guard`, `schema report` and configuration, through the CLI."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import write_jsonl

QUERIES = ["天气", "今日天气 气温", "今日天气 气温 晴雨", "今日天气 气温 晴雨 风力"]


def weather_events(trace="weather"):
    events = [{"type": "labels", "trace": trace, "labels": {"outcome": "failure"}}]
    t = 1_772_615_700
    for i, q in enumerate(QUERIES, 1):
        events.append(
            {
                "type": "round",
                "trace": trace,
                "started_at": t,
                "ended_at": t + 2,
                "tool_calls": [{"id": f"c{i}", "name": "web_search", "arguments": json.dumps({"query": q}, ensure_ascii=False)}],
                "usage": {"input_tokens": 600 * i, "output_tokens": 30},
            }
        )
        events.append(
            {
                "type": "result",
                "trace": trace,
                "call_id": f"c{i}",
                "content": f"1. 北京天气预报 https://weather.example/bj/{i} | [bold]x[/bold]",
                "started_at": t + 2,
                "ended_at": t + 7,
            }
        )
        t += 7
    events.append({"type": "round", "trace": trace, "started_at": t, "ended_at": t + 3, "text": "晴，25°C", "usage": {"input_tokens": 3000, "output_tokens": 40}})
    return events


@pytest.fixture
def weather(tmp_path):
    return write_jsonl(tmp_path / "weather.jsonl", weather_events())


def replay_json(cli, *args):
    result = cli("replay", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # stdout holds the JSON and nothing else


def test_terminal_report_shows_fires_reasons_savings_and_totals(cli, weather):
    result = cli("replay", str(weather))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "weather" in out and "outcome=failure" in out
    assert "P001 similar-query-stagnation" in out and "round  3 before tools STOP" in out
    assert "containment {今,天,日,晴,气,温,雨} vs {今,天,日,气,温} = 1.00 ≥ 0.8" in out
    assert "policy: stop at round 3 before tools (P001) → saves 1 LLM call (20%)" in out
    assert "Summary" in out and "1 trace · 1 with fires · 1 stopped by the policy" in out
    assert "[bold]x[/bold]" not in out  # result text is not printed in the report, and never as markup


def test_json_report_has_the_documented_fields_and_validates_against_its_schema(cli, weather):
    jsonschema = pytest.importorskip("jsonschema")
    data = replay_json(cli, str(weather))
    schema = json.loads(cli("schema", "report").stdout)
    jsonschema.validate(data, schema)
    (trace,) = data["traces"]
    assert trace["id"] == "weather" and trace["file"].endswith("weather.jsonl") and trace["line"] == 1
    assert trace["format"] == "native" and trace["labels"] == {"outcome": "failure"} and trace["rounds"] == 5
    fire = next(f for f in trace["fires"] if f["code"] == "P001")
    assert {k: fire[k] for k in ("code", "name", "round", "phase", "action")} == {
        "code": "P001",
        "name": "similar-query-stagnation",
        "round": 3,
        "phase": "before_tools",
        "action": "stop",
    }
    policy = trace["policy"]
    assert policy["stopped_at"] == 3 and policy["action"] == "stop"
    assert set(policy["saved"]) >= {"llm_calls", "tool_calls", "tokens", "tokens_estimated", "seconds"}
    assert policy["saved"]["tool_calls"] == 2 and policy["saved"]["llm_calls"] == 1


def test_jsonl_and_markdown_formats(cli, weather):
    rows = [json.loads(line) for line in cli("replay", "-f", "jsonl", str(weather)).stdout.splitlines()]
    assert [r["type"] for r in rows] == ["header", "trace", "totals"] and rows[1]["policy"]["stopped_at"] == 3
    md = cli("replay", "-f", "markdown", str(weather)).stdout
    assert md.startswith("# tracecheck replay") and "| P001 similar-query-stagnation | round 3 before tools | stop |" in md


def test_a_disabled_guard_changes_nothing_byte_for_byte(cli, weather):
    without = cli("replay", "-f", "json", "--ignore", "P001", str(weather)).stdout
    disabled = cli("replay", "-f", "json", "--set", "P001.enabled=false", str(weather)).stdout
    assert without == disabled
    assert without != cli("replay", "-f", "json", str(weather)).stdout  # P001 does fire on this trace


def test_select_ignore_and_set_change_what_fires(cli, weather):
    only_r = replay_json(cli, "--select", "R", str(weather))
    assert {f["code"] for f in only_r["traces"][0]["fires"]} <= {"R001", "R002"}
    later = replay_json(cli, "--select", "P001", "--set", "P001.threshold=3", str(weather))
    assert [f["round"] for f in later["traces"][0]["fires"]] == [4]
    jaccard = replay_json(cli, "--select", "similar-query-stagnation", "--set", "P001.metric=jaccard", str(weather))
    assert jaccard["traces"][0]["fires"] == []


def test_config_file_is_read_and_the_command_line_beats_it(cli, weather, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tracecheck]\nselect = ["P001"]\n[tool.tracecheck.guards.similar-query-stagnation]\nthreshold = 3\n'
    )
    monkeypatch.chdir(tmp_path)
    from_file = replay_json(cli, str(weather))
    assert [(f["code"], f["round"]) for f in from_file["traces"][0]["fires"]] == [("P001", 4)]
    assert from_file["guards"][0]["options"]["threshold"] == 3
    overridden = replay_json(cli, "--set", "P001.threshold=2", str(weather))
    assert [(f["code"], f["round"]) for f in overridden["traces"][0]["fires"]] == [("P001", 3)]
    own = tmp_path / "strict.toml"
    own.write_text('select = ["R001"]\n')
    assert replay_json(cli, "--config", str(own), str(weather))["guards"][0]["code"] == "R001"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--select", "Z999"], "unknown guard 'Z999'"),
        (["--set", "P001.nope=1"], "P001 has no option 'nope'"),
        (["--set", "P001.containment=high"], "P001.containment in --set: 'high' is not a valid float"),
        (["--set", "P001.containment=1.5"], "above the maximum 1.0"),
        (["--set", "P001.tokenizer=spaces"], "'spaces' is not one of char, jieba"),
        (["--set", "P001threshold"], "--set expects GUARD.OPTION=VALUE"),
        (["--format", "xml"], "'xml' is not one of: terminal, json, jsonl, markdown"),
        (["--config", "missing.toml"], "config file 'missing.toml' not found"),
    ],
)
def test_bad_configuration_is_exit_code_2_naming_the_problem(cli, weather, args, message):
    result = cli("replay", *args, str(weather))
    assert result.exit_code == 2
    assert message in result.stderr


def test_bad_config_file_key_is_named(cli, weather, tmp_path):
    bad = tmp_path / "tracecheck.toml"
    bad.write_text('[guards.P001]\nthreshhold = 3\n')
    result = cli("replay", "--config", str(bad), str(weather))
    assert result.exit_code == 2 and "P001 has no option 'threshhold'" in result.stderr


def test_guards_lists_every_guard_and_guard_explains_one(cli):
    listing = cli("guards").stdout.splitlines()
    assert listing[0].split() == ["code", "name", "default", "preset", "summary"]  # every column named
    codes = [line.split()[0] for line in listing[1:]]
    assert codes[:3] == ["P001", "P002", "P003"] and "R001" in codes and "B003" in codes
    state = {line.split()[0]: line.split(None, 2)[2][:14].strip() for line in listing[1:]}
    assert (state["P001"], state["P003"], state["P004"], state["B002"]) == ("runs", "-", "runs", "off until set")
    text = cli("guard", "P001").stdout
    assert "similar-query-stagnation" in text and "containment (number; at least 0.0; at most 1.0; default 0.8)" in text
    assert 'tokenizer (text; one of char, jieba; default "char")' in text
    assert "\nExamples\n" in text and "round 3 before tools: stop" in text
    assert cli("guard", "similar-query-stagnation").stdout == text
    assert cli("guard", "X123").exit_code == 2


def test_tokenizer_comparison_shows_both_and_jieba_missing_gives_the_install_command(cli, weather, monkeypatch):
    both = replay_json(cli, "--tokenizer", "char,jieba", str(weather))
    assert both["tokenizers"] == ["char", "jieba"]
    runs = {r["tokenizer"]: r for r in both["traces"][0]["tokenizer_comparison"]["runs"]}
    assert runs["char"]["fires_at"] == 3 and len(runs["jieba"]["scores"]) == 5

    from tracecheck.text import tokenizers

    tokenizers.unload_jieba()
    monkeypatch.setitem(sys.modules, "jieba", None)  # as if the extra were not installed
    try:
        result = cli("replay", "--tokenizer", "char,jieba", str(weather))
    finally:
        tokenizers.unload_jieba()
    assert result.exit_code == 2
    assert "needs the optional jieba package: pip install jieba" in result.stderr


def test_jieba_is_not_imported_by_help_or_a_char_replay(tmp_path, weather):
    import subprocess

    code = (
        "import sys\nfrom tracecheck.cli.main import app\n"
        "from typer.testing import CliRunner\n"
        f"CliRunner().invoke(app, ['replay', {str(weather)!r}])\n"
        "assert 'jieba' not in sys.modules, 'jieba imported'\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr
    helped = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom tracecheck.cli.main import app\nimport tracecheck.readers\nprint(sorted(m for m in sys.modules if m.startswith('tracecheck.readers.') or m == 'jieba'))"],
        capture_output=True,
        text=True,
    )
    assert helped.stdout.strip() == "[]", helped.stdout + helped.stderr


def test_untrusted_text_is_inert_in_every_report_format(cli, tmp_path):
    evil = "[red]x[/red]\x1b[2J\u202e`code` [link](http://e.vil) <b>|"
    events = weather_events(trace=evil)
    events[1]["tool_calls"][0]["name"] = "web_search" + evil
    events.insert(0, {"type": "labels", "trace": evil, "labels": {"outcome": evil}})
    path = write_jsonl(tmp_path / "evil.jsonl", events)
    terminal = cli("replay", str(path)).stdout
    assert "[red]x[/red]" in terminal and "\x1b" not in terminal and "\u202e" not in terminal
    assert "\\x1b[2J" in terminal and "\\u202e" in terminal
    md = cli("replay", "-f", "markdown", str(path)).stdout
    assert "[link](http://e.vil)" not in md and "[link]\\(http:&#8203;//e.vil)" in md
    assert "<b>" not in md and "\x1b" not in md and "\\`code\\`" in md
    data = json.loads(cli("replay", "-f", "json", str(path)).stdout)
    assert data["traces"][0]["id"] == evil  # JSON keeps the text exactly; escaping is the reader's job


def test_o_picks_the_report_format_from_the_file_name(cli, weather, tmp_path):
    for name, check in (("r.json", lambda t: json.loads(t)["traces"]), ("r.md", lambda t: t.startswith("# tracecheck replay")), ("r.txt", lambda t: "Summary" in t)):
        assert cli("replay", "-o", str(tmp_path / name), str(weather)).exit_code == 0
        assert check((tmp_path / name).read_text())
    assert cli("replay", "-o", str(tmp_path / "r.jsonl"), str(weather)).exit_code == 0
    assert json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])["type"] == "header"
    # An explicit --format that the name contradicts is refused, not written as the name's.
    result = cli("replay", "-f", "terminal", "-o", str(tmp_path / "forced.json"), str(weather))
    assert result.exit_code == 2 and "the name says JSON (.json), not terminal; name the file .txt" in result.stderr
    assert not (tmp_path / "forced.json").exists()
    assert cli("replay", "-f", "terminal", "-o", str(tmp_path / "forced.log"), str(weather)).exit_code == 0
    assert "Summary" in (tmp_path / "forced.log").read_text()  # a name that says no format takes --format


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (("replay", "--select", "P0001"), "unknown guard 'P0001' (did you mean 'P001'?)"),
        (("replay", "--set", "P001.containmnet=0.5"), "has no option 'containmnet' (did you mean 'containment'?)"),
        (("guard", "similar-query-stagnaton"), "(did you mean 'similar-query-stagnation'?)"),
        (("preset", "opnhands"), "unknown preset 'opnhands' (did you mean 'openhands'?)"),
        (("sweep", "--grid", "R01.stop_at=2,3"), "(did you mean 'R001'?)"),
    ],
)
def test_a_misspelt_guard_option_or_preset_gets_a_suggestion(cli, weather, args, suggestion):
    result = cli(*args, str(weather)) if args[0] in ("replay", "sweep") else cli(*args)
    assert result.exit_code == 2 and suggestion in result.stderr


def test_a_list_option_takes_the_form_guard_prints(cli, weather):
    listed = replay_json(cli, "--set", 'B003.tools=["open_page", "web_search"]', "--set", "B003.max_calls=1", str(weather))
    assert next(g for g in listed["guards"] if g["code"] == "B003")["options"]["tools"] == ["open_page", "web_search"]
    assert cli("replay", "--set", 'B003.tools=["open_page"', str(weather)).exit_code == 2


def test_a_misspelt_preset_in_replay_gets_a_suggestion(cli, weather):
    result = cli("replay", "--preset", "opnhands,default", str(weather))
    assert result.exit_code == 2 and "unknown preset 'opnhands' (did you mean 'openhands'?)" in result.stderr


def test_settings_that_cannot_do_what_was_asked_say_so(cli, weather):
    nothing = cli("replay", "--ignore", "ALL", str(weather))
    assert nothing.exit_code == 0 and "note: no guard runs with these settings: nothing can fire" in nothing.stderr
    budget = cli("replay", "--select", "B002,P001", str(weather))
    assert "note: B002 is selected but off until it is given a limit (see 'tracecheck guard B002')" in budget.stderr
    given = cli("replay", "--select", "B002,P001", "--set", "B002.budget=1000", str(weather))
    assert "B002 is selected" not in given.stderr


def test_guard_explanations_read_plain_in_a_pipe(cli):
    for code in ("P001", "R001", "T001"):
        text = cli("guard", code).stdout
        assert "**" not in text and "``" not in text
        assert "What it fires on." in text


def _run_with_terminals(args, *, stdout_tty: bool, stderr_tty: bool, env=None):
    """Run ``python -m tracecheck ARGS`` with stdout and stderr each a pseudo-terminal or a
    pipe, as a person's shell would; returns (exit code, stdout bytes, stderr bytes)."""
    import os
    import pty
    import select
    import subprocess
    import sys

    ends, readers = {}, {}
    for name, tty in (("stdout", stdout_tty), ("stderr", stderr_tty)):
        if tty:
            master, slave = pty.openpty()
            ends[name], readers[name] = slave, master
        else:
            ends[name] = subprocess.PIPE
    process = subprocess.Popen([sys.executable, "-m", "tracecheck", *args], stdout=ends["stdout"], stderr=ends["stderr"], env=env)
    for name in readers:
        os.close(ends[name])
    streams = {"stdout": process.stdout, "stderr": process.stderr}
    got = {"stdout": b"", "stderr": b""}
    open_fds = {name: (readers[name] if name in readers else streams[name].fileno()) for name in got}
    while open_fds:
        ready, _, _ = select.select(list(open_fds.values()), [], [], 30)
        assert ready, "tracecheck hung"
        for name, fd in list(open_fds.items()):
            if fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # a pseudo-terminal whose other end closed
                    chunk = b""
                if chunk:
                    got[name] += chunk
                else:
                    del open_fds[name]
    for fd in readers.values():
        os.close(fd)
    for stream in streams.values():
        if stream is not None:
            stream.close()
    return process.wait(), got["stdout"], got["stderr"]


def _terminal_env():
    import os

    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    return env


BAR = "━".encode()


def test_the_progress_bar_shows_on_a_terminal_stderr_and_never_reaches_standard_output():
    from conftest import SAMPLES

    code, out, err = _run_with_terminals(["replay", "-f", "json", str(SAMPLES)], stdout_tty=False, stderr_tty=True, env=_terminal_env())
    assert code == 0
    report = json.loads(out)  # nothing but the report on standard output
    assert report["totals"]["traces"] >= 30 and BAR not in out and b"replaying" not in out
    # The bar counts bytes and traces, on the terminal, and is cleared at the end.
    assert b"replaying" in err and BAR in err and b"kB" in err
    assert f"{report['totals']['traces']} traces".encode() in err
    assert err.rstrip(b"\r\n").endswith(b"\x1b[2K")  # the last thing written erases the bar's line


def test_no_progress_bar_where_stderr_is_no_terminal_or_the_report_shares_the_screen():
    from conftest import SAMPLES

    code, out, err = _run_with_terminals(["replay", "-f", "json", str(SAMPLES)], stdout_tty=False, stderr_tty=False, env=_terminal_env())
    assert code == 0 and json.loads(out) and err == b""  # not a terminal: nothing at all
    code, out, err = _run_with_terminals(["replay", str(SAMPLES / "seed000_weather_loop.jsonl")], stdout_tty=True, stderr_tty=True, env=_terminal_env())
    assert code == 0 and b"seed000_weather_loop" in out
    assert err == b"" and BAR not in out  # the report prints to this screen: no bar before it


def test_forced_colour_in_ci_draws_no_progress_bar_into_the_log():
    """FORCE_COLOR (set by many CI setups) asks for colour, not for an animated bar: with
    stderr a log file, replay and sweep write no bar to it."""
    from conftest import SAMPLES

    env = {**_terminal_env(), "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    for command in (["replay", "-f", "json", str(SAMPLES)], ["sweep", "-f", "json", "--grid", "P004.threshold=3,4", str(SAMPLES)]):
        code, out, err = _run_with_terminals(command, stdout_tty=False, stderr_tty=False, env=env)
        assert code == 0 and json.loads(out)
        assert BAR not in err and b"replaying" not in err and b"sweeping" not in err, err[:300]


def test_progress_moves_through_one_large_file(tmp_path):
    """One file of many traces: the bytes read grow trace by trace, not only at the end."""
    import io

    from tracecheck.config import load_settings
    from tracecheck.commands import ReplayRequest, replay
    from conftest import SAMPLES

    events = [json.loads(line) for line in (SAMPLES / "seed000_weather_loop.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as handle:
        for k in range(60):
            for event in events:
                handle.write(json.dumps({**event, "trace": f"run-{k}"}, ensure_ascii=False) + "\n")
    seen = []
    traces = replay(ReplayRequest([str(big)], load_settings(), format="json"), io.BytesIO(), on_progress=lambda *a: seen.append(a))
    size = big.stat().st_size
    assert traces == 60
    assert all(total == size for _, total, _ in seen)
    inside = [done for done, _, count in seen if 0 < done < size]
    assert len(inside) >= 50 and inside == sorted(inside)  # it moved inside the file
    assert seen[-1] == (size, size, 60)


def test_expectations_not_checked_offer_the_seeds_preset_only_where_it_runs_them(cli):
    from conftest import SAMPLES

    default = cli("replay", str(SAMPLES / "seed000_weather_loop.jsonl")).stdout
    assert "about R001, which the settings do not run (run it with --set R001.enabled=true, or use --preset seeds)" in default
    # The seeds preset runs neither P004, R003 nor F002: it is no remedy for those.
    seeds = cli("replay", "--preset", "seeds", str(SAMPLES)).stdout
    assert "about F002, P004, R003, which the settings do not run (run them with --set CODE.enabled=true)" in seeds
    assert "--preset seeds" not in seeds
    markdown = cli("replay", "--preset", "seeds", "--format", "markdown", str(SAMPLES)).stdout
    assert "(run them with `--set CODE.enabled=true`)" in markdown and "`--preset seeds`" not in markdown


def test_the_html_report_says_how_to_check_the_expectations_it_could_not(cli, tmp_path):
    from conftest import SAMPLES

    # --preset seeds is offered only where it runs every guard left unchecked: not for the
    # whole folder under default (expectations about F002, which seeds does not run either).
    identical = SAMPLES / "seed004_query_db_identical.jsonl"
    for preset, path, remedy in (("default", identical, ", or use --preset seeds)"), ("default", SAMPLES, ")"), ("seeds", SAMPLES, ")")):
        target = tmp_path / f"{preset}-{path.name}.html"
        assert cli("replay", "--preset", preset, "-o", str(target), str(path)).exit_code == 0
        assert "which the settings do not run (run them with --set CODE.enabled=true" + remedy in target.read_text(encoding="utf-8")


def _fired(cli, *args):
    report = replay_json(cli, *args)
    return sorted({fire["code"] for trace in report["traces"] for fire in trace["fires"]})


def test_set_on_a_guard_that_does_not_run_turns_it_on_and_says_so(cli):
    from conftest import SAMPLES

    path = str(SAMPLES / "seed004_query_db_identical.jsonl")
    result = cli("replay", "--select", "P001", "--set", "R001.stop_at=2", path)
    assert "note: --set R001.stop_at turns on R001, which these settings did not run" in result.stderr
    assert _fired(cli, "--select", "P001", "--set", "R001.stop_at=2", path) == ["R001"]
    # A guard that already runs: nothing to say.
    assert "note:" not in cli("replay", "--set", "P004.threshold=4", path).stderr
    assert "note:" not in cli("replay", "--set", "R001.enabled=true", path).stderr


@pytest.mark.parametrize(
    "args",
    [
        ("--ignore", "R001", "--set", "R001.stop_at=2"),
        ("--ignore", "R001", "--set", "R001.enabled=true"),
        ("--set", "R001.enabled=false", "--set", "R001.stop_at=2"),
        ("--set", "R001.stop_at=2", "--set", "R001.enabled=false"),
    ],
)
def test_an_explicit_no_wins_over_setting_an_option(cli, args):
    from conftest import SAMPLES

    path = str(SAMPLES / "seed004_query_db_identical.jsonl")
    assert "R001" not in _fired(cli, *args, path)
    result = cli("replay", *args, path)
    assert "turns on R001" not in result.stderr
    if "--ignore" in args:
        option = args[-1].split("=")[0]
        assert f"note: --set {option} changes nothing: R001 is ignored (--ignore)" in result.stderr


def test_config_options_for_a_guard_that_does_not_run_are_pointed_out(cli, tmp_path, monkeypatch):
    from conftest import SAMPLES

    monkeypatch.chdir(tmp_path)
    path = str(SAMPLES / "seed004_query_db_identical.jsonl")
    (tmp_path / "tracecheck.toml").write_text("[guards.R001]\nstop_at = 2\n", encoding="utf-8")
    result = cli("replay", path)
    assert "[guards.R001] sets options of R001, which these settings do not run (select it to run it)" in result.stderr
    assert "note:" not in cli("replay", "--select", "R001", path).stderr
    (tmp_path / "tracecheck.toml").write_text('select = ["R001"]\n[guards.R001]\nstop_at = 2\n[guards.R002]\nenabled = false\n', encoding="utf-8")
    assert "note:" not in cli("replay", path).stderr


def test_presets_side_by_side_say_each_note_once(cli):
    from conftest import SAMPLES

    result = cli("replay", "--preset", "seeds,default", "--ignore", "ALL", str(SAMPLES / "healthy_pagination.jsonl"))
    assert result.stderr.count("note: no guard runs with these settings") == 1


def test_a_figure_carries_its_notes_in_one_parenthesis(cli):
    """'2,892 tokens (59%, estimated)', not '(estimated) (59%)': the share and how the
    figure is known read as one note."""
    import re

    from conftest import SAMPLES

    result = cli("replay", str(SAMPLES / "openai"))
    assert result.exit_code == 0, result.stderr
    assert re.search(r"[\d,]+ tokens \(\d+%, estimated\)", result.stdout), result.stdout
    assert re.search(r"[\d,]+ tokens \(\d+%, some estimated\)", result.stdout), result.stdout
    assert ") (" not in result.stdout.replace("\n", " ")


def test_replay_refuses_a_report_file_it_cannot_write_instead_of_writing_text(cli, tmp_path):
    from conftest import SAMPLES

    for name, words in (("report.sarif", "SARIF"), ("junit.xml", "JUnit XML"), ("rows.csv", "CSV")):
        target = tmp_path / name
        result = cli("replay", "-o", str(target), str(SAMPLES / "healthy_pagination.jsonl"))
        assert result.exit_code == 2 and f"replay does not write {words}" in result.stderr, result.output
        assert not target.exists()
    # A name it has no format for is still terminal text (report.txt, run.log).
    assert cli("replay", "-o", str(tmp_path / "report.txt"), str(SAMPLES / "healthy_pagination.jsonl")).exit_code == 0
