"""Claims the README makes that a command can show."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import ROOT


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_native_example_reads_cleanly_and_meets_its_own_expectation(tmp_path, cli):
    block = re.search(r"```jsonl\n(.*?)```", readme(), re.S).group(1)
    path = tmp_path / "example.jsonl"
    path.write_text(block, encoding="utf-8")
    result = cli("replay", "--format", "json", "--strict", str(path))
    assert result.exit_code == 0, result.output
    import json

    (trace,) = json.loads(result.stdout)["traces"]
    assert trace["labels"]["outcome"] == "failure"
    assert [(f["code"], f["round"], f["action"]) for f in trace["fires"] if f["code"] == "P001"] == [("P001", 3, "stop")]
    assert not [f for f in trace["fires"] if f["code"] == "R001"]


def test_ci_runs_exactly_the_readme_test_command():
    command = re.search(r"run the tests:\n\n```bash\n(.*?)\n```", readme(), re.S).group(1).strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert command in ci.splitlines()


def test_the_sweep_example_is_what_sweep_prints(cli):
    from conftest import SAMPLES

    block = re.search(r"```console\n\$ tracecheck sweep sample_traces/ (.*?)\n(.*?)```", readme(), re.S)
    args, shown = block.group(1).split(), block.group(2).splitlines()
    result = cli("sweep", str(SAMPLES), *args)
    assert result.exit_code == 0, result.stderr
    printed = [line.split() for line in result.stdout.splitlines()]
    # Every line the README shows (but the chart, whose axis labels follow the width) is printed, in order.
    cursor = 0
    for line in shown[1:]:
        if not line.strip() or line.strip() == "…" or any(ch in line for ch in "│┤┌└┬•"):
            continue
        words = line.split()
        while cursor < len(printed) and printed[cursor] != words:
            cursor += 1
        assert cursor < len(printed), f"not printed: {line}"


def test_the_ci_section_runs_as_written_from_tracecheck_init(cli, tmp_path, monkeypatch):
    """Each command of the CI section's session, run in an empty folder in order, prints
    what the README shows and exits as it says (the last one fails the gate)."""
    import shlex

    block = re.search(r"```console\n(\$ tracecheck init\n.*?)```", readme(), re.S).group(1)
    session = re.split(r"^\$ ", block, flags=re.M)[1:]
    monkeypatch.chdir(tmp_path)
    codes = []
    for step in session:
        command, _, shown = step.partition("\n")
        words = shlex.split(command)
        assert words[0] == "tracecheck", command
        result = cli(*words[1:])
        codes.append(result.exit_code)
        assert result.stdout + result.stderr == shown, command
    assert codes == [0, 0, 0, 1]
    assert sorted(p.name for p in (tmp_path / "regressions").iterdir()) == ["read_file_failure_streak.jsonl", "read_file_recovers.jsonl"]


def test_the_live_examples_run_as_written(tmp_path, monkeypatch, capsys, cli):
    section = readme().split("## Use the guards in your agent", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in [blocks[0], *blocks]:  # the Monitor example twice: two runs appended to run.jsonl
        exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out.splitlines()[-1] == "No orders are pending."
    # ... and its recording replays as what happened: two runs, each stopped where the
    # monitor stopped it, with its forced answer as the final answer and nothing more to save.
    result = cli("replay", "--format", "json", "run.jsonl")
    assert result.exit_code == 0 and result.stderr == ""
    traces = json.loads(result.stdout)["traces"]
    assert len(traces) == 2 and traces[0]["id"] != traces[1]["id"]
    for trace in traces:
        assert re.fullmatch(r"run-[0-9a-f]{12}", trace["id"])
        assert trace["answered"] and trace["rounds"] == 4 and trace["policy"]["outcome_change"] is None
        assert [(s["code"], s["round"], s["already_stopped"]) for s in trace["policy"]["stops"]] == [("P004", 3, True)]
        saved = trace["policy"]["saved"]
        assert (saved["llm_calls"], saved["tool_calls"], saved["tokens"], saved["forced_answer_tokens"]) == (0, 0, 0, None)
    # The replay the README shows ("…" stands for what varies: ids, token counts, lines).
    shown = re.search(r"```console\n\$ tracecheck replay run.jsonl\n(.*?)```", section, re.S).group(1)
    pattern = "".join(r"(?:.*\n)*?" if line == "…" else ".*".join(map(re.escape, line.split("…"))) + r"\n" for line in shown.splitlines())
    monkeypatch.setenv("COLUMNS", "80")
    printed = cli("replay", "run.jsonl").stdout
    assert re.match(pattern, printed), printed


def test_the_replay_example_is_what_replay_prints_at_80_columns(cli, monkeypatch):
    from conftest import SAMPLES

    block = re.search(r"```console\n\$ tracecheck replay sample_traces/(\S+)\n(.*?)```", readme(), re.S)
    monkeypatch.setenv("COLUMNS", "80")
    result = cli("replay", str(SAMPLES / block.group(1)))
    assert result.exit_code == 0, result.stderr
    shown = result.stdout.replace(str(SAMPLES) + "/", "sample_traces/")
    assert shown == block.group(2)
    from rich.cells import cell_len

    assert max(cell_len(line) for line in shown.splitlines()) <= 80


def test_the_python_example_writes_what_replay_prints(cli, capsys, monkeypatch):
    """The "From Python" snippet runs as written and its request writes the bytes of
    ``tracecheck replay --format json``."""
    from conftest import ROOT

    section = readme().split("### From Python\n", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "readme_example"}
    exec(compile(block, "README.md", "exec"), namespace)
    expected = cli("replay", "--format", "json", "sample_traces/").stdout_bytes
    assert namespace["out"].getvalue() == expected
    assert capsys.readouterr().out == f"{namespace['traces']} traces replayed; {len(expected)} bytes of JSON report\n"


def test_every_reader_has_a_formats_row_saying_what_it_was_checked_against():
    """The "Supported formats" table has one row per reader in ``READERS``, and each row
    says which tool, library or format version the reader was checked against."""
    from tracecheck.readers import READER_NAMES

    section = readme().split("\n## Supported formats\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([^`]+)` \| ", line)
        if match:
            assert match.group(1) not in rows, f"two rows for {match.group(1)}"
            rows[match.group(1)] = line
    missing = [name for name in READER_NAMES if name not in rows]
    assert not missing, f"readers without a row in the README's formats table: {missing}"
    assert not set(rows) - set(READER_NAMES), f"rows for no reader: {sorted(set(rows) - set(READER_NAMES))}"
    unchecked = [name for name in READER_NAMES if "Checked against " not in rows[name]]
    assert not unchecked, f"formats rows that do not say what they were checked against: {unchecked}"
