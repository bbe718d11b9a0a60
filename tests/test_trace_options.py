"""-k, --exclude, -q and --statistics through the CLI, on small native traces."""

from __future__ import annotations

import json

import pytest

from conftest import write_jsonl


def _trace(trace_id: str, kind: str, domain: str, loops: bool) -> list[dict]:
    """A native trace: the same search three times (R001 fires) or three different ones."""
    events = [
        {"type": "trace", "trace": trace_id, "format_version": 1},
        {"type": "labels", "trace": trace_id, "labels": {"pattern": kind, "domain": domain}},
    ]
    if loops:  # an expectation the replay breaks: a finding for check
        events.append({"type": "expect", "trace": trace_id, "guard": "P004", "fires": False})
    for n in (1, 2, 3):
        query = "flights to Oslo" if loops else f"question {n}"
        call = {"id": f"c{n}", "name": "search", "arguments": json.dumps({"q": query})}
        events.append({"type": "round", "trace": trace_id, "round": n, "text": "", "tool_calls": [call], "usage": {"input_tokens": 100, "output_tokens": 10}})
        events.append({"type": "result", "trace": trace_id, "call_id": f"c{n}", "content": "no flights found" if loops else f"answer {n}"})
    return events


@pytest.fixture
def runs(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    write_jsonl(folder / "booking.jsonl", _trace("Booking-Airline-1", "loop", "airline", True) + _trace("booking-retail-2", "healthy", "retail", False))
    write_jsonl(folder / "support.jsonl", _trace("support-3", "loop", "retail", True))
    return folder


def _ids(cli, *args) -> list[str]:
    result = cli("replay", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return [t["id"] for t in json.loads(result.stdout)["traces"]]


def test_k_matches_ids_case_insensitively_and_label_values(cli, runs):
    assert _ids(cli, str(runs)) == ["Booking-Airline-1", "booking-retail-2", "support-3"]
    assert _ids(cli, "-k", "BOOKING", str(runs)) == ["Booking-Airline-1", "booking-retail-2"]
    assert _ids(cli, "-k", "loop and not airline", str(runs)) == ["support-3"]  # label values: pattern, domain
    assert _ids(cli, "-k", "retail and (healthy or support)", str(runs)) == ["booking-retail-2", "support-3"]
    assert _ids(cli, "-k", "not not airline", str(runs)) == ["Booking-Airline-1"]
    # A label value matches whole, not as part of a word: 'loo' is in no id and equals no value.
    result = cli("replay", "-k", "loo", str(runs))
    assert result.exit_code == 2
    assert "error: -k 'loo' matches none of the 3 traces in" in result.stderr


def test_k_counts_what_it_leaves_out(cli, runs):
    result = cli("replay", "-k", "support", str(runs))
    assert result.exit_code == 0, result.stderr
    assert "-k 'support': 1 selected, 2 deselected" in result.stderr
    assert "1 trace (2 deselected by -k)" in result.stdout
    assert "Booking-Airline-1" not in result.stdout
    check = cli("check", "-k", "airline", str(runs))
    assert "1 trace (2 deselected by -k)" in check.stdout
    data = json.loads(cli("check", "-f", "json", "-k", "airline", str(runs)).stdout)
    assert (data["traces"], data["deselected"]) == (1, 2)
    assert "deselected" not in json.loads(cli("check", "-f", "json", str(runs)).stdout)


def test_k_with_jobs_gives_the_same_traces(cli, runs):
    assert _ids(cli, "-j", "2", "-k", "loop", str(runs)) == ["Booking-Airline-1", "support-3"]


def test_k_on_show_label_and_sweep(cli, runs):
    show = cli("show", "-q", "-k", "retail and not support", str(runs))
    assert show.exit_code == 0, show.stderr
    assert [line.split()[1] for line in show.stdout.splitlines() if line.startswith("trace ")] == ["booking-retail-2"]
    assert "round 1" not in show.stdout  # -q: one summary line per trace, no rounds
    label = cli("label", "-k", "airline", str(runs))
    assert [e["trace"] for e in json.loads(label.stdout)["traces"]] == ["Booking-Airline-1"]
    sweep = cli("sweep", "-f", "json", "-k", "loop", "--grid", "R001.stop_at=2,3", str(runs))
    assert sweep.exit_code == 0, sweep.stderr
    assert "2 selected, 1 deselected" in sweep.stderr


@pytest.mark.parametrize(
    "expression, message",
    [
        ("loop and", "expected a word or '(' at the end"),
        ("(loop or healthy", "expected ')' at the end"),
        ("loop healthy", "unexpected 'healthy' at column 6"),
        ("and loop", "expected a word or '(', not 'and' at column 1"),
        ("loop )", "unexpected ')' at column 6"),
        ("  ", "empty expression"),
    ],
)
def test_a_bad_k_expression_is_exit_2_saying_where(cli, runs, expression, message):
    for command in ("replay", "check", "show", "sweep", "label"):
        result = cli(command, "-k", expression, "--grid", "R001.stop_at=2,3", str(runs)) if command == "sweep" else cli(command, "-k", expression, str(runs))
        assert result.exit_code == 2, (command, result.stdout)
        assert f"error: -k {expression!r}: {message}" in result.stderr, (command, result.stderr)


def test_exclude_skips_files_of_a_walk_and_package_json_is_skipped_by_default(cli, runs):
    (runs / "package.json").write_text('{"name": "agent-ui", "version": "1.0.0"}\n')
    (runs / "node_modules" / "x").mkdir(parents=True)
    (runs / "node_modules" / "x" / "data.json").write_text('{"a": 1}\n')
    (runs / "old").mkdir()
    write_jsonl(runs / "old" / "stale.jsonl", _trace("stale-9", "loop", "retail", True))
    result = cli("replay", "-f", "json", str(runs))
    assert result.stderr == ""  # no warning about package.json or node_modules
    assert [t["id"] for t in json.loads(result.stdout)["traces"]] == ["Booking-Airline-1", "booking-retail-2", "stale-9", "support-3"]
    assert _ids(cli, "--exclude", "old", str(runs)) == ["Booking-Airline-1", "booking-retail-2", "support-3"]  # a folder's name
    assert _ids(cli, "--exclude", "old/*.jsonl", "--exclude", "support*", str(runs)) == ["Booking-Airline-1", "booking-retail-2"]
    # A file named on the command line is read whatever the globs say.
    assert _ids(cli, "--exclude", "*.jsonl", str(runs / "support.jsonl")) == ["support-3"]
    named = cli("replay", str(runs / "package.json"))
    assert "package.json" in named.stderr  # read, and warned about: it is no transcript
    check = cli("check", "-f", "json", "--exclude", "booking.jsonl", str(runs))
    assert json.loads(check.stdout)["traces"] == 2


def test_quiet(cli, runs):
    full = cli("replay", str(runs))
    quiet = cli("replay", "-q", str(runs))
    assert "Booking-Airline-1" in full.stdout and "Booking-Airline-1" not in quiet.stdout
    assert quiet.stdout.startswith("Summary")
    assert quiet.stdout.strip() in full.stdout.strip()
    baseline = runs.parent / "baseline.json"
    assert cli("baseline", "write", "-o", str(baseline), str(runs / "support.jsonl")).exit_code == 0
    check_full = cli("check", "--baseline", str(baseline), str(runs))
    check_quiet = cli("check", "-q", "--baseline", str(baseline), str(runs))
    assert check_full.exit_code == check_quiet.exit_code == 1
    assert check_quiet.stdout.splitlines()[-2:] == check_full.stdout.splitlines()[-2:]
    assert "support-3 [baseline]" in check_full.stdout and "support-3" not in check_quiet.stdout  # known: not failing
    assert "P004 Booking-Airline-1" in check_quiet.stdout
    sweep = cli("sweep", "-q", "--grid", "R001.stop_at=2,3", str(runs))
    assert sweep.exit_code == 0, sweep.stderr
    assert "verdict:" in sweep.stdout and "Pareto" not in sweep.stdout
    assert "Pareto" in cli("sweep", "--grid", "R001.stop_at=2,3", str(runs)).stdout
    refused = cli("replay", "-q", "-f", "json", str(runs))
    assert refused.exit_code == 2 and "--quiet shortens the terminal report" in refused.stderr


def test_statistics_counts_fires_per_guard(cli, runs):
    data = json.loads(cli("replay", "-f", "json", str(runs)).stdout)
    by_guard = data["totals"]["by_guard"]
    assert by_guard["P004"]["traces"] == 2
    result = cli("replay", "--statistics", str(runs))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["fires", "traces", "code", "name"]
    rows = {line.split()[2]: line.split() for line in lines[1:]}
    assert rows.keys() == by_guard.keys()
    assert rows["P004"] == [str(by_guard["P004"]["fires"]), "2", "P004", "unchanged-outcome"]
    assert "Booking-Airline-1" not in result.stdout and "Summary" not in result.stdout

    checked = json.loads(cli("check", "-f", "json", str(runs)).stdout)
    stats = cli("check", "--statistics", str(runs))
    assert stats.exit_code == checked["exit_code"]
    body = stats.stdout.splitlines()
    rules = {}
    for f in checked["findings"]:
        rules.setdefault(f["rule"], []).append(f)
    assert body[0].split() == ["findings", "failing", "traces", "rule"]
    assert body[1].split() == ["2", "2", "2", "P004", "unchanged-outcome"]
    assert len(body[1 : body.index("")]) == len(rules)  # one row per rule, then the summary
    assert "support-3" not in stats.stdout  # no finding one by one
    assert body[-1] in ("passed", "failed", "nothing checked")
    refused = cli("check", "--statistics", "-f", "json", str(runs))
    assert refused.exit_code == 2
