"""Harm is one definition (``tracecheck.engine.scoring.harm``; README, "What harm is"):
``replay``, ``check``, ``sweep`` and the labelled benchmark count the same runs harmed on
the same traces under the same settings."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, SAMPLES
from tracecheck.engine.scoring import harm

CODETRACER = ROOT / "tests" / "corpus" / "CodeTracer"
LABELS = CODETRACER / "labels.json"
# A mixed run default and seeds stop, a healthy run seeds cuts, a loop, a healthy run.
RUNS = [str(CODETRACER / name) for name in ("adaptive-rejection-sampler__8swhKXC", "sanitize-git-repo__tVYCtFW", "build-pmars__E722qnQ", "chess-best-move__wpPQ5MU")]


def test_the_definition():
    # A stop harms a run labelled a success, healthy or mixed ...
    assert harm(True, None, "success") == ("success",)
    assert harm(True, "healthy", "failure") == ("healthy",)
    assert harm(True, "mixed", "unknown") == ("mixed",)
    assert harm(True, "healthy", "success") == ("success", "healthy")
    # ... unless its labels ask for the stop, whatever the outcome.
    assert harm(True, "loop", "success") == ()
    assert harm(True, None, "success", policy_expects_stop=True) == ()
    assert harm(True, "healthy", "success", policy_expects_stop=True) == ()
    # A policy expectation to stay quiet is judged as an expectation; it does not make harm.
    assert harm(True, None, "failure", policy_expects_stop=False) == ()
    # No stop, or a run without labels that say anything: no harm.
    assert harm(False, "healthy", "success") == ()
    assert harm(True, None, "failure") == harm(True, None, "unknown") == harm(True, None, None) == ()


def _counts(cli, preset: str, paths: list[str], *labels: str) -> dict[str, int]:
    replayed = json.loads(cli("replay", *paths, *labels, "--preset", preset, "-f", "json").stdout)
    checked = json.loads(cli("check", *paths, *labels, "--preset", preset, "-f", "json").stdout)
    swept = json.loads(cli("sweep", *paths, *labels, "--preset", preset, "-f", "json").stdout)
    (point,) = swept["points"]
    out = {
        "replay": replayed["totals"]["possible_harm"],
        "replay traces": sum(1 for t in replayed["traces"] if t["policy"]["possible_harm"]),
        "check": sum(1 for f in checked["findings"] if f["kind"] == "harm"),
        "sweep": point["metrics"]["harmed"],
    }
    assert point["metrics"]["harm"] == round(out["sweep"] / point["metrics"]["traces"], 4)
    if swept.get("benchmark"):
        (scored,) = swept["benchmark"]["points"]
        out["benchmark"] = scored["harmed"]
    return out


@pytest.mark.parametrize("preset", ["default", "seeds"])
def test_replay_check_sweep_and_the_benchmark_count_the_same_runs_harmed(cli, preset):
    counts = _counts(cli, preset, RUNS, "--labels", str(LABELS))
    assert len(set(counts.values())) == 1, counts
    # The runs are chosen so that each preset harms some: the test can fail.
    assert counts["replay"] == {"default": 1, "seeds": 2}[preset], counts


def test_the_samples_agree_too(cli):
    # Issue 38: a loop labelled a success whose own policy expectation asks for the stop
    # was "possible harm" to replay, nothing to check and 0 harmed but harm 0.03 to sweep.
    for preset in ("default", "seeds"):
        counts = _counts(cli, preset, [str(SAMPLES)])
        assert len(set(counts.values())) == 1, (preset, counts)
    replayed = json.loads(cli("replay", str(SAMPLES / "tau_airline_same_lookup_loop.jsonl"), "-f", "json").stdout)
    (trace,) = replayed["traces"]
    assert trace["policy"]["stops"] and trace["labels"]["outcome"] == "success" and trace["policy"]["possible_harm"] is None


def test_a_healthy_or_mixed_run_stopped_fails_check(cli):
    result = cli("check", *RUNS[:2], "--labels", str(LABELS), "--preset", "seeds", "-f", "json")
    assert result.exit_code == 1
    messages = {f["trace"]: f["message"] for f in json.loads(result.stdout)["findings"] if f["kind"] == "harm"}
    assert messages["adaptive-rejection-sampler__8swhKXC"].startswith("the policy stops a run labelled mixed (a stall it recovers from) at round ")
    assert messages["sanitize-git-repo__tVYCtFW"].startswith("the policy aborts a run labelled healthy at round 2")
