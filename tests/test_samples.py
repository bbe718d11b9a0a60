"""The shipped sample traces: each one's labelled expectations hold, and the seeds'
acceptance cases come out as the seeds say."""

from __future__ import annotations

import json

import pytest

from tracecheck.guards import all_guards
from tracecheck.input.diagnostics import Diagnostics
from tracecheck.readers.load import read_traces

from conftest import SAMPLES

SAMPLE_TRACES = list(read_traces([str(SAMPLES)], Diagnostics()))
LABELLED = [t for t in SAMPLE_TRACES if t.expectations]


def _replay(*options: str) -> dict:
    from typer.testing import CliRunner

    from tracecheck.cli.main import app

    result = CliRunner().invoke(app, ["replay", "--format", "json", *options, str(SAMPLES)])
    assert result.exit_code == 0, result.output
    return {t["id"]: t for t in json.loads(result.stdout)["traces"]}


@pytest.fixture(scope="module")
def report():
    # Every guard by name, with its own defaults: the samples' expectations are about guards.
    every_guard = ",".join(g.code for g in all_guards() if not g.code.startswith("B"))
    return _replay("--preset", "seeds", "--select", every_guard)


@pytest.fixture(scope="module")
def seeds_report():
    return _replay("--preset", "seeds")


def test_samples_read_without_a_single_warning():
    diagnostics = Diagnostics()
    traces = list(read_traces([str(SAMPLES)], diagnostics))
    assert [str(d) for d in diagnostics] == []
    assert len(traces) >= 20 and len(LABELLED) >= 19


@pytest.mark.parametrize("trace", LABELLED, ids=lambda t: t.id)
def test_every_labelled_expectation_holds(trace, report):
    fires = report[trace.id]["fires"]
    # This replay runs every guard by name, so every guard expectation is checked.
    assert [e for e in report[trace.id]["expectations"] if e["met"] is None] == []
    for exp in trace.expectations:
        if exp.guard == "policy":
            continue  # about a preset's guards together: test_default_preset.py
        # An expectation is about interventions: a hint changes nothing, so it does not count.
        mine = [f for f in fires if exp.guard in (f["code"], f["name"]) and f["action"] != "hint"]
        if exp.fires:
            assert mine, f"{exp.guard} should fire ({exp.note})"
            assert exp.by_round is None or mine[0]["round"] <= exp.by_round, f"{exp.guard} fired late: {mine[0]}"
        else:
            assert not mine, f"{exp.guard} should stay quiet: {mine}"


def test_seed000_weather_loop_is_stopped_before_round_3_tools_with_its_savings(report):
    trace = report["seed000_weather_loop"]
    policy = trace["policy"]
    assert policy["stopped_at"] in (2, 3) and policy["phase"] == "before_tools" and policy["code"] == "P001"
    saved = policy["saved"]
    # Worked by hand from the file: rounds 4-6 (1315 + 1620 + 1936 tokens) never happen;
    # one forced answer (round 3's 1035 + 45 context, 40 prompt, the real answer's 95) does.
    assert (saved["llm_calls"], saved["tool_calls"]) == (2, 3)
    assert saved["forced_answer_tokens"] == 1035 + 45 + 40 + 95
    assert saved["tokens"] == 1315 + 1620 + 1936 - 1215 and not saved["tokens_estimated"]
    assert saved["seconds"] == pytest.approx(20.718 - 2.38, abs=0.01)  # less the real answer's 2.38 s


def test_seed002_contract_loop_char_vs_jieba_and_no_answer_becomes_a_forced_answer(cli):
    path = SAMPLES / "seed002_contract_search_token_limit.jsonl"
    result = cli("replay", "--format", "json", "--tokenizer", "char,jieba", str(path))
    data = json.loads(result.stdout)
    (trace,) = data["traces"]
    # The seed's algorithm with per-character tokens: containment of rounds 5 and 6
    # against earlier searches crosses 0.8 twice in a row -> stop before round 6's search.
    p001 = [(f["round"], f["phase"], f["action"]) for f in trace["fires"] if f["code"] == "P001"]
    assert p001 == [(6, "before_tools", "stop")]
    # The policy stops at the earliest stop: P002 sees no new contract URL in rounds 4 and 5.
    assert (trace["policy"]["stopped_at"], trace["policy"]["phase"], trace["policy"]["code"]) == (5, "after_tools", "P002")
    assert trace["policy"]["outcome_change"] == "no answer → forced answer"
    assert not trace["answered"] and trace["error"] == "Token limit exceeded"
    comparison = trace["tokenizer_comparison"]
    runs = {r["tokenizer"]: r for r in comparison["runs"]}
    assert runs["char"]["fires_at"] == 6
    assert runs["jieba"]["fires_at"] != 6 and comparison["differs"]
    assert runs["char"]["scores"][4] >= 0.8 and runs["char"]["scores"][2] < 0.8
    terminal = cli("replay", "--tokenizer", "char,jieba", str(path)).stdout
    assert "P001 tokenizer comparison (char vs jieba)" in terminal
    assert "char: stop at round 6" in terminal and "jieba: stop at round" in terminal


def test_the_mixed_round_is_never_cut(report):
    assert not [f for f in report["seed000_mixed_round"]["fires"] if f["code"] == "P001"]


def test_reordered_keys_escape_r001_only_with_canonical_args_off(cli):
    path = str(SAMPLES / "seed004_key_order_drift.jsonl")
    on = json.loads(cli("replay", "-f", "json", "--select", "R001", path).stdout)["traces"][0]
    off = json.loads(cli("replay", "-f", "json", "--select", "R001", "--set", "R001.canonical_args=false", path).stdout)["traces"][0]
    assert [(f["round"], f["action"]) for f in on["fires"]] == [(2, "hint"), (3, "stop")]
    assert off["fires"] == []


def test_p002_stops_the_synonym_rewrite_that_p001_misses(report):
    fires = report["seed000_synonym_same_urls"]["fires"]
    assert [f["code"] for f in fires if f["code"] in ("P001", "P002")] == ["P002"]
    p002 = next(f for f in fires if f["code"] == "P002")
    assert (p002["round"], p002["phase"], p002["action"]) == (3, "after_tools", "stop")


def test_show_renders_every_sample_trace(cli):
    result = cli("show", str(SAMPLES))
    assert result.exit_code == 0, result.output
    for trace in SAMPLE_TRACES:
        assert f"trace {trace.id}" in result.stdout


def test_the_tau_dialogue_has_five_turns_and_a_stop_saves_only_the_rest_of_its_turn(seeds_report):
    report = seeds_report
    trace = next(t for t in SAMPLE_TRACES if t.id == "tau_retail_order_lookup_loop")
    assert [r.turn for r in trace.rounds] == [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 5, 5]
    assert [(t.user.text.split()[0], len(t.rounds), t.reply.index) for t in trace.turns()] == [
        ("Hi!", 3, 3), ("The", 5, 8), ("It's", 2, 10), ("Please", 1, 11), ("Yes.", 2, 13),
    ]
    # The customer's goodbye follows the final answer: it opens no turn.
    assert trace.user_messages[-1].text == "No, that's all. Thanks! ###STOP###"
    assert trace.user_messages[-1].before_round == 14 and trace.answered

    data = report["tau_retail_order_lookup_loop"]
    assert (data["turns"], data["rounds"], data["tool_calls"]) == (5, 13, 8)
    policy = data["policy"]
    (stop,) = policy["stops"]
    assert (stop["code"], stop["turn"], stop["round"], stop["phase"]) == ("R001", 2, 6, "before_tools")
    saved = stop["saved"]
    # Worked by hand from the file: rounds 7 and 8 (1310 + 25, 1355 + 39 tokens) and the
    # lookups of rounds 6 and 7 never happen; one forced reply (round 6's 1265 + 25
    # context, the 40-token prompt, the real reply's 39) does. Turns 3-5 (rounds 9-13)
    # happen as recorded: nothing of them is saved.
    assert (saved["llm_calls"], saved["tool_calls"]) == (1, 2)
    assert saved["forced_answer_tokens"] == 1265 + 25 + 40 + 39
    assert saved["tokens"] == (1310 + 25) + (1355 + 39) - 1369 and not saved["tokens_estimated"]
    # From round 6's end (16:20:17.518) to round 8's (16:20:20.506), less the real reply's 1.129 s.
    assert saved["seconds"] == pytest.approx(20.506 - 17.518 - 1.129, abs=0.001)
    assert policy["later_turns_as_recorded"] and policy["outcome_change"] is None
    # F001 alone would abort the run at the same round; the policy has left turn 2 by then.
    assert [(f["code"], f["turn"], f["round"], f["action"]) for f in data["fires"]] == [
        ("R001", 2, 5, "hint"), ("R001", 2, 6, "stop"), ("F001", 2, 6, "abort"),
    ]


def test_the_off_by_default_loop_guards_stop_the_new_loop_samples_where_labelled(cli):
    # R003 and P004 with their own defaults (not a preset's): the expectations the samples
    # write for them hold on the three loops they exist to show.
    names = ["swe_test_view_loop", "swe_scroll_end_loop", "tau_airline_same_lookup_loop"]
    paths = [str(SAMPLES / f"{name}.jsonl") for name in names]
    result = cli("replay", "-f", "json", "--preset", "seeds", "--select", "R003,P004", *paths)
    traces = {t["id"]: t for t in json.loads(result.stdout)["traces"]}
    assert set(traces) == set(names)
    stops = {name: [(f["code"], f["round"]) for f in t["fires"] if f["action"] == "stop"] for name, t in traces.items()}
    assert stops == {
        "swe_test_view_loop": [("R003", 6)],
        "swe_scroll_end_loop": [("R003", 4), ("P004", 6)],
        "tau_airline_same_lookup_loop": [("R003", 6), ("P004", 7)],
    }
    for name, trace in traces.items():
        labelled = [e for e in trace["expectations"] if e["guard"] in ("R003", "P004")]
        assert labelled and all(e["met"] for e in labelled), (name, labelled)
