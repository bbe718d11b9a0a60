"""Seed 002's other two stop conditions as P003 options (issue 25, item 3):
``max_observations`` (its ``len(accumulated_results) >= 5``) and ``stop_on_answer`` with
``answer_indicators`` (its "当前结果已包含明确答案" heuristic), off by default and on in
the ``seed-002`` preset, replayed on the seed's contract-search sample."""

from __future__ import annotations

import json
from pathlib import Path

from tracecheck.engine.replay import replay_trace
from tracecheck.guards import RunContext
from tracecheck.guards.examples import answer, search
from tracecheck.guards.p003_no_new_information import (
    ANSWERED,
    AUTO_RENEWAL,
    DATA_PROCESSING,
    NoNewInformation,
)
from tracecheck.guards.signals import SEED_ANSWER_INDICATORS
from tracecheck.guards.examples import Example
from tracecheck.presets import preset_by_name

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_traces" / "seed002_contract_search_token_limit.jsonl"

# Seed 002's should_terminate, walked by hand over the sample's eight search_contract
# results (the callback appends each output to accumulated, calls has_new_information,
# then should_terminate(output, accumulated)):
#
#   obs  difflib ratio to the joined novel history   stagnant  len(acc)  indicator
#    1   (first: always new)                              0         1       -
#    2   0.499  (1,079 chars vs 1,651 kept)               0         2       -
#    3   0.483                                            0         3       -
#    4   0.299                                            0         4       -
#    5   0.231  (1,079 chars vs 5,900 kept)               0         5       -
#    6   0.414                                            0         6      根据
#    7   0.230                                            0         7       -
#    8   0.325                                            0         8      根据
#
# No ratio is over 0.7, so condition 1 (stagnant_count >= 2) never holds; condition 2
# (len(accumulated_results) >= 5) holds first, at observation 5, i.e. after round 5's
# tool; condition 3 would first hold at round 6, whose 5th result (KB-LEGAL-0225, a
# renewal reminder letter) reads "…将于{到期日}到期。根据《SaaS 订阅服务协议》第 7.2 条…".
# (Ratios from difflib.SequenceMatcher(None, " ".join(kept), output).ratio() on the
# sample's result contents; none of the six indicators is in results 1-5: grep them.)


def replay_json(cli, *args: str) -> dict:
    out = cli("replay", str(SAMPLE), "-f", "json", *args).stdout
    (trace,) = json.loads(out)["traces"]
    return trace


def p003_fires(trace: dict) -> list[dict]:
    return [f for f in trace["fires"] if f["code"] == "P003"]


def test_seed_002_preset_stops_the_contract_search_where_should_terminate_would(cli):
    trace = replay_json(cli, "--preset", "seed-002")
    (fire,) = p003_fires(trace)
    assert (fire["round"], fire["phase"], fire["action"]) == (5, "after_tools", "stop")
    assert fire["details"]["condition"] == "observations"
    assert fire["details"]["observations"] == 5
    assert fire["reason"] == "5 observations of the watched tools so far (max_observations 5): enough information gathered"
    assert fire["message"].startswith("Enough information has been gathered (5 tool results)")
    # the policy stops there: rounds 6-8 are cut, 3 LLM calls and 3 tool calls, less the
    # forced answer's one LLM call -> 2 LLM calls, 3 tool calls; the run had no answer
    policy = trace["policy"]
    assert (policy["stopped_at"], policy["code"]) == (5, "P003")
    assert (policy["saved"]["llm_calls"], policy["saved"]["tool_calls"]) == (2, 3)
    assert policy["outcome_change"] == "no answer \u2192 forced answer"


def test_the_text_report_says_which_condition_fired(cli):
    out = cli("replay", str(SAMPLE), "--preset", "seed-002").stdout
    assert "round  5 after tools  STOP" in out
    assert "max_observations 5): enough" in out


def test_without_the_count_the_answer_indicator_fires_at_round_6(cli):
    trace = replay_json(cli, "--preset", "seed-002", "--set", "P003.max_observations=0")
    (fire,) = p003_fires(trace)
    assert (fire["round"], fire["details"]["condition"], fire["details"]["indicator"]) == (6, "answer", "根据")
    assert fire["reason"] == "search_contract result holds the answer indicator '根据': it already holds a clear answer"


def test_both_off_the_seed_002_gate_lets_the_sample_run_as_before(cli):
    # The stagnation condition alone never fires here (the ratios above stay under 0.7).
    trace = replay_json(cli, "--preset", "seed-002", "--set", "P003.max_observations=0", "--set", "P003.stop_on_answer=false")
    assert p003_fires(trace) == []


def test_off_by_default(cli):
    assert NoNewInformation.Options().max_observations == 0
    assert NoNewInformation.Options().stop_on_answer is False
    trace = replay_json(cli, "--preset", "seeds")
    assert p003_fires(trace) == []


def test_the_default_list_keeps_the_seeds_words_and_adds_english():
    words = NoNewInformation.Options().answer_indicators
    assert list(SEED_ANSWER_INDICATORS) == ["是的", "不，", "根据", "第一条", "答案是", "具体来说"]
    assert words[: len(SEED_ANSWER_INDICATORS)] == list(SEED_ANSWER_INDICATORS)
    assert "According to" in words and "The answer is" in words
    # the preset replays the seed's own list, Chinese only
    assert preset_by_name("seed-002").guards["P003"]["answer_indicators"] == list(SEED_ANSWER_INDICATORS)


def test_a_custom_list_and_case_as_the_seed_matches():
    steps = (search("q1", AUTO_RENEWAL), search("q2", "per clause 8.2: thirty days"), answer())
    trace = Example("custom", steps).trace()
    fires = replay_trace(trace, [NoNewInformation(stop_on_answer=True, answer_indicators=["Per clause"])]).fires
    assert fires == []  # 'per clause' is not 'Per clause': `in` is case-sensitive, as in the seed
    fires = replay_trace(trace, [NoNewInformation(stop_on_answer=True, answer_indicators=["per clause"])]).fires
    assert [(f.round, f.details["indicator"]) for f in fires] == [(2, "per clause")]


def test_stagnation_comes_first_when_two_conditions_hold_at_once():
    # round 2 repeats round 1 verbatim (ratio 1.0, stagnant 1), round 3 too (stagnant 2)
    # and is the 3rd observation: conditions 1 and 2 hold together; the seed checks 1 first.
    steps = (search("a", AUTO_RENEWAL), search("b", AUTO_RENEWAL), search("c", AUTO_RENEWAL), answer())
    (fire,) = replay_trace(Example("both", steps).trace(), [NoNewInformation(max_observations=3)]).fires
    assert fire.round == 3 and "condition" not in fire.details
    assert "observations in a row without new information" in fire.reason


def test_the_messages_in_chinese_and_overridden():
    steps = (search("a", AUTO_RENEWAL), search("b", ANSWERED), search("c", DATA_PROCESSING), answer())
    trace = Example("zh", steps).trace()
    guard = NoNewInformation(stop_on_answer=True)
    context = RunContext()
    context.language = "zh"
    guard.reset(context)
    guard.after_tools(trace.rounds[0], context)
    (verdict,) = guard.after_tools(trace.rounds[1], context)
    assert verdict.message == "当前 web_search 结果已包含明确答案，终止搜索。请据此给出最终答案。"
    overridden = NoNewInformation(stop_on_answer=True, messages={"stop": "Stop after {count} results."})
    (fire,) = replay_trace(trace, [overridden]).fires
    assert fire.message == "Stop after 2 results."
