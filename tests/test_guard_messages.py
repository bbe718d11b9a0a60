"""Model-facing messages (issue 12, item 2): every verdict carries the text an agent sends
to the model, in English and Chinese, worded as the seeds word it, overridable in the
config file and documented by ``tracecheck guard CODE``."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tracecheck.config import load_settings
from tracecheck.engine.replay import replay_trace
from tracecheck.guards import Action, RunContext, all_guards, guard_by_key
from tracecheck.guards.examples import Call, Example, answer, calls, search
from tracecheck.guards.messages import FIELDS, LANGUAGES, WHEN, template_fields, template_problem
from tracecheck.input.diagnostics import TracecheckError

from conftest import ROOT

UNFORMATTED = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
CJK = re.compile(r"[\u4e00-\u9fff]")


def recorded(guard, trace, language: str) -> tuple[list, list]:
    """Replay ``trace`` through ``guard`` (a built guard) with messages in ``language``:
    (the replay's fires, every verdict the guard gave)."""
    verdicts: list = []
    cls = type(guard)

    class Recording(cls):  # type: ignore[misc, valid-type]
        def before_tools(self, rnd, context):
            context.language = language
            verdicts.extend(out := super().before_tools(rnd, context))
            return out

        def after_tools(self, rnd, context):
            context.language = language
            verdicts.extend(out := super().after_tools(rnd, context))
            return out

        def final(self, rnd, context):
            context.language = language
            verdicts.extend(out := super().final(rnd, context))
            return out

    result = replay_trace(trace, [Recording(guard.options)])
    return result.fires, verdicts


CASES = [(g, i) for g in all_guards() for i, e in enumerate(g.examples) if e.expect]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("guard", "index"), CASES, ids=[f"{g.code}-{i}" for g, i in CASES])
def test_every_verdict_of_every_example_has_a_message_in_both_languages(guard, index, language):
    example = guard.examples[index]
    fires, verdicts = recorded(guard(**example.options), example.trace(), language)
    # The language changes what the model reads, never what fires.
    assert [(f.round, f.phase.value, f.action.value) for f in fires] == list(example.expect)
    assert verdicts
    for verdict in verdicts:
        assert verdict.message and verdict.message.strip(), (guard.code, verdict)
        assert not UNFORMATTED.search(verdict.message), verdict.message
        assert verdict.message != verdict.reason
        if language == "zh":
            assert CJK.search(verdict.message), verdict.message
        else:
            assert verdict.message == verdict.message.encode("ascii", "ignore").decode() or CJK.search(
                verdict.reason
            ), f"{guard.code}: English message with Chinese text of its own: {verdict.message}"


def _actions_possible(guard) -> set[str]:
    """What a guard can do: what its examples do, plus every choice of its action options."""
    actions = {action for example in guard.examples for _r, _p, action in example.expect}
    for f in dataclasses.fields(guard.Options):
        if f.name in ("action", "stop_action"):
            actions |= set(f.metadata["choices"])
    return actions


@pytest.mark.parametrize("guard", all_guards(), ids=lambda g: g.code)
def test_every_action_a_guard_can_take_has_its_messages(guard):
    keys = set(guard.messages)
    assert _actions_possible(guard) <= keys
    assert keys <= {a.value for a in Action}  # keys are action names
    for key, message in guard.messages.items():
        assert message.en.strip() and message.zh.strip() and (message.when or key in WHEN), (guard.code, key)
        assert CJK.search(message.zh) and not CJK.search(message.en), (guard.code, key)
        for template in (message.en, message.zh):
            assert template_problem(template, message.fields) is None, (guard.code, key, template)
        assert set(message.fields) <= set(FIELDS)


def test_a_guard_action_option_choice_no_example_reaches_still_speaks():
    """T001 aborts only when told to; no example shows it, the message is there anyway."""
    guard = guard_by_key("T001")(action="abort")
    steps = tuple(answer("I am not sure.") for _ in range(3))
    _fires, verdicts = recorded(guard, Example("", steps).trace(), "zh")
    assert [v.action for v in verdicts] == [Action.ABORT]
    assert "3" in verdicts[0].message and "终止运行" in verdicts[0].message


def _only(guard_code: str, steps, language: str, **options):
    guard = guard_by_key(guard_code)(**options)
    _fires, verdicts = recorded(guard, Example("", tuple(steps)).trace(), language)
    return verdicts


POLL = [calls(Call("query_db", {"status": "pending"}, "[]")) for _ in range(3)] + [answer()]


def test_seed_004_hint_at_the_second_identical_call_and_halt_at_the_third():
    hint, stop = _only("R001", POLL, "en")
    assert (hint.action, stop.action) == (Action.HINT, Action.STOP)
    assert hint.message == (
        '[System Hint: You invoked tool "query_db" twice with identical parameters. If polling or awaiting '
        "state change, continue; otherwise synthesize your final answer.]"
    )
    assert stop.message == (
        "Observation: Execution halted by Deadlock Breaker (3 identical calls). Please synthesize conclusion immediately."
    )
    hint_zh, stop_zh = _only("R001", POLL, "zh")
    assert "query_db" in hint_zh.message and "轮询或等待状态变化，请继续" in hint_zh.message
    assert "最终答案" in hint_zh.message
    assert "死锁熔断器中止（3 次相同调用）" in stop_zh.message


WEATHER = [search("天气"), search("今日天气 气温"), search("今日天气 气温 晴雨"), answer()]


def test_seed_000_forced_answer_prompt_is_its_own_not_the_max_rounds_one():
    (stop_zh,) = _only("P001", WEATHER, "zh")
    assert stop_zh.message == "已就相似查询搜索多次且无新信息，请基于现有结果作答，不要再重复搜索。"
    (stop_en,) = _only("P001", WEATHER, "en")
    assert "searched several times for similar queries and found nothing new" in stop_en.message
    assert "do not search again" in stop_en.message
    (budget_zh,) = _only("B001", WEATHER, "zh", max_rounds=2)
    (budget_en,) = _only("B001", WEATHER, "en", max_rounds=2)
    assert budget_zh.action is Action.STOP and "最大轮次" in budget_zh.message and "相似查询" not in budget_zh.message
    assert "maximum number of rounds (2)" in budget_en.message and "similar" not in budget_en.message


def test_seed_001_cache_note_wraps_the_cached_answer():
    steps = [calls(Call("search_code", {"query": "retryPolicy"}, "src/net/retry.ts:12"))] * 2 + [answer()]
    (block,) = _only("R002", steps, "zh")
    assert block.replacement == "src/net/retry.ts:12"  # the cached answer itself, as before
    assert block.message == "重复调用:已用相同参数调用过 search_code,上次结果:src/net/retry.ts:12。请改变查询或给出最终答案。"
    (block_en,) = _only("R002", steps, "en")
    assert "last result: src/net/retry.ts:12" in block_en.message
    assert block_en.message.endswith("Change the query or give the final answer.")


def test_seed_001_push_back_and_failure_breaker():
    answers = [answer("The answer is 42.")] * 3
    gate = dict(required_all=["search_docs"])
    reject, again, abort = _only("E001", answers, "en", **gate)
    assert reject.message == again.message == "Before finishing, call required tool(s): search_docs."
    assert abort.action is Action.ABORT and abort.message == "Required tools were not called successfully: search_docs"
    assert _only("E001", answers, "zh", **gate)[0].message == "在给出最终答案之前，请先调用必需的工具：search_docs。"
    failing = [calls(Call("read_file", {"path": "a.txt"}, "Error: ENOENT", error=True))] * 3 + [answer()]
    (abort_zh,) = _only("F001", failing, "zh")
    assert abort_zh.message == "工具 read_file 连续失败 3 次,终止运行"


def test_an_unknown_language_falls_back_to_english():
    guard = guard_by_key("P001")()
    fires, _ = recorded(guard, Example("", tuple(WEATHER)).trace(), "fr")
    verdicts = _only("P001", WEATHER, "fr")
    assert fires and verdicts[0].message.startswith("You have searched several times")
    assert RunContext().language == "en"


def test_a_custom_r001_block_message_stays_the_block_message_in_every_language():
    steps = [calls(Call("fetch_user", {"id": 1}, "{}"))] * 3 + [answer()]
    options = dict(hint_at=0, stop_at=3, stop_action="block", block_message="Tool '{tool}' has exceeded maximum repetitions")
    (zh,) = _only("R001", steps, "zh", **options)
    assert zh.message == zh.refusal == "Tool 'fetch_user' has exceeded maximum repetitions"
    (own,) = _only("R001", steps, "zh", **options, messages={"block.zh": "{tool} 重复了 {count} 次"})
    assert own.message == "fetch_user 重复了 3 次" and own.refusal == zh.refusal
    (default_zh,) = _only("R001", steps, "zh", hint_at=0, stop_at=3, stop_action="block")
    assert CJK.search(default_zh.message) and default_zh.refusal.startswith("fetch_user was called 3 times")


def test_overriding_a_message_in_the_config_file_changes_the_verdict_message(tmp_path: Path):
    config = tmp_path / "tracecheck.toml"
    config.write_text(
        'select = ["P001"]\n'
        "[guards.P001.messages]\n"
        'stop = "Enough searching about {query!r}: answer now."\n'
        '"stop.zh" = "别再搜了（{count} 次），直接回答。"\n',
        encoding="utf-8",
    )
    settings = load_settings(config=str(config), cwd=tmp_path)
    (guard,) = settings.build()
    assert guard.options.messages["stop"].startswith("Enough")
    trace = Example("", tuple(WEATHER)).trace()
    _fires, (en,) = recorded(guard, trace, "en")
    _fires, (zh,) = recorded(guard, trace, "zh")
    assert en.message == "Enough searching about '今日天气 气温 晴雨': answer now."
    assert zh.message == "别再搜了（2 次），直接回答。"
    # Reasons are for people and do not change.
    assert en.reason == zh.reason and "containment" in en.reason


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[guards.P001.messages]\nhint = "x"\n', "P001.messages in "),
        ('[guards.P001.messages]\nhint = "x"\n', "unknown message key 'hint' (allowed: stop, stop.en, stop.zh)"),
        ('[guards.P001.messages]\n"stop.fr" = "x"\n', "unknown message key 'stop.fr'"),
        ('[guards.P001.messages]\nstop = "answer about {topic}"\n', "unknown field(s) {topic} (fields: {query}, {earlier}, {count})"),
        ('[guards.P001.messages]\nstop = "answer {"\n', "message 'stop'"),
        ('[guards.P001.messages]\nstop = "{0}"\n', "positional fields"),
        ('[guards.P001.messages]\nstop = "{query.__class__}"\n', "not a plain field name"),
        ('[guards.P001.messages]\nstop = "{count:q}"\n', "cannot be formatted"),
        ("[guards.P001.messages]\nstop = 3\n", "P001.messages in "),
        ('[guards.P001]\nmessages = "stop"\n', "is not a valid table of strings"),
        ("[guards.R002.messages]\nblock = \"{tool} again; {count}\"\n", "R002.messages in "),
    ],
)
def test_bad_message_overrides_are_exit_code_2_naming_the_option(cli, tmp_path, table, message):
    config = tmp_path / "bad.toml"
    config.write_text(table, encoding="utf-8")
    trace = Path(__file__).parent.parent / "sample_traces" / "seed000_mixed_round.jsonl"
    result = cli("replay", "--config", str(config), str(trace))
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_messages_on_the_command_line_are_refused_with_a_pointer_to_the_config_file(cli):
    trace = Path(__file__).parent.parent / "sample_traces" / "seed000_mixed_round.jsonl"
    result = cli("replay", "--set", "P001.messages=stop", str(trace))
    assert result.exit_code == 2 and "P001.messages in --set" in result.stderr and "config file" in result.stderr


def test_a_guard_built_in_code_checks_its_messages_too():
    with pytest.raises(ValueError, match=r"R001.messages: unknown message key 'reject'"):
        guard_by_key("R001")(messages={"reject": "no"})
    with pytest.raises(ValueError, match=r"unknown field\(s\) \{query\}"):
        guard_by_key("R001")(messages={"hint.zh": "{query}"})


def test_template_fields_are_the_named_ones():
    assert template_fields("{tool} x {count:>3} {{literal}}") == ["tool", "count"]
    assert template_problem("{{tool}}", ()) is None


def test_guard_explanation_documents_every_message(cli):
    for guard in all_guards():
        text = " ".join(cli("guard", guard.code).stdout.split())  # lines wrap to the terminal
        assert f"[guards.{guard.code}.messages]" in text
        for key, message in guard.messages.items():
            assert f"- {key}: " in text
            assert f"en: {' '.join(message.en.split())}" in text and f"zh: {message.zh}" in text
            for name in message.fields:
                assert f"{{{name}}} {FIELDS[name][0]}" in text


@pytest.mark.parametrize(("guard", "index"), CASES, ids=[f"{g.code}-{i}" for g, i in CASES])
def test_the_fields_a_guard_passes_have_the_types_the_load_time_check_samples(guard, index, monkeypatch):
    # A template passes the load-time check with FIELDS' samples; the same template must
    # then format at fire time, so every field a guard passes has its sample's type
    # (B004 passing text where the check sampled an int let '{elapsed:d}' crash a replay).
    import tracecheck.guards.base as base

    passed: list[tuple[str, object]] = []
    real_render = base.render

    def recording_render(catalogue, overrides, key, language, fields):
        passed.extend(fields.items())
        return real_render(catalogue, overrides, key, language, fields)

    monkeypatch.setattr(base, "render", recording_render)
    example = guard.examples[index]
    replay_trace(example.trace(), [guard(**example.options)])
    assert passed, guard.code
    for name, value in passed:
        assert type(value) is type(FIELDS[name][1]), (guard.code, name, value, FIELDS[name][1])


def test_a_b004_template_with_a_number_spec_is_refused_when_the_settings_load(cli, tmp_path):
    (tmp_path / "tracecheck.toml").write_text('[guards.B004]\nseconds = 1\nmessages = { stop = "{elapsed:d}" }\n', encoding="utf-8")
    result = cli("replay", str(ROOT / "sample_traces" / "seed000_weather_loop.jsonl"), "--config", str(tmp_path / "tracecheck.toml"), "--select", "B004")
    assert result.exit_code == 2
    assert "B004.messages" in result.stderr and "cannot be formatted" in result.stderr
