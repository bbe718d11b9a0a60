"""The guards inside a real LangChain v1 agent (``create_agent``), driven by a scripted
chat model: what the model is asked, which tools run, and how each decision ends up in
the conversation."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from conftest import ROOT, SAMPLES  # noqa: E402
from tracecheck.config import load_settings  # noqa: E402
from tracecheck.engine.replay import replay_trace  # noqa: E402
from tracecheck.input.diagnostics import Diagnostics  # noqa: E402
from tracecheck.integrations.langchain import TracecheckMiddleware  # noqa: E402
from tracecheck.readers.load import read_traces  # noqa: E402


class ScriptedModel(BaseChatModel):
    """Answers with its script, one message per call, and notes what each call was given:
    the messages and the names of the tools bound (None: no tools)."""

    script: list
    calls: list = []

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(tools_bound=[t.name for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, tools_bound=None, **kwargs):
        self.calls.append((list(messages), tools_bound))
        if len(self.calls) > len(self.script):
            raise AssertionError(f"the model was called {len(self.calls)} times, the script has {len(self.script)} answers")
        return ChatResult(generations=[ChatGeneration(message=self.script[len(self.calls) - 1])])

    @property
    def _llm_type(self) -> str:
        return "scripted"


def calls(*specs) -> AIMessage:
    """An AIMessage asking for tools: (id, name, args) each."""
    return AIMessage(content="", tool_calls=[{"id": i, "name": n, "args": a, "type": "tool_call"} for i, n, a in specs])


def run_agent(tools, script, middleware, question):
    model = ScriptedModel(script=script, calls=[])
    agent = create_agent(model, tools, middleware=[middleware])
    result = agent.invoke({"messages": [HumanMessage(question)]})
    return result["messages"], model.calls


def decisions(into: list, messages: dict | None = None):
    """Collects (phase, action); ``messages`` gets the first message for the model of each action."""

    def note(phase, decision):
        into.append((phase, decision.action))
        if messages is not None and decision.message:
            messages.setdefault(decision.action, decision.message)

    return note


def weather():
    """Seed 000's searches and their results, as recorded."""
    (trace,) = read_traces([str(SAMPLES / "seed000_weather_loop.jsonl")], Diagnostics())
    searches = [(c.id, json.loads(c.arguments_raw)["query"], c.result.content) for r in trace.rounds for c in r.tool_calls]
    ran = []

    @tool
    def webSearch(query: str) -> str:  # noqa: N802 - the seed's tool name
        """Search the web."""
        ran.append(query)
        return next(content for _, q, content in searches if q == query)

    return trace, searches, webSearch, ran


FORCED = AIMessage(content="我没能查到您所在城市今天的天气，请告诉我城市名。")


def test_seed_000_weather_loop_is_stopped_before_round_3_and_answered_without_tools():
    trace, searches, web_search, ran = weather()
    seen, said = [], {}
    script = [calls((i, "webSearch", {"query": q})) for i, q, _ in searches[:3]] + [FORCED]
    messages, model_calls = run_agent([web_search], script, TracecheckMiddleware(preset="seed-000", on_decision=decisions(seen, said)), trace.metadata["user_query"])
    assert ran == [searches[0][1], searches[1][1]]  # round 3's search never ran
    assert seen[:5] == [("before_tools", "continue"), ("after_tools", "continue"), ("before_tools", "continue"), ("after_tools", "continue"), ("before_tools", "stop")]
    assert len(model_calls) == 4
    assert [tools for _, tools in model_calls] == [["webSearch"]] * 3 + [None]  # the forced answer: no tools bound
    forced_input = model_calls[-1][0]
    closing = forced_input[-1]
    assert isinstance(closing, HumanMessage) and closing.text == said["stop"]  # the guard's closing prompt
    unanswered = [m for m in forced_input if isinstance(m, ToolMessage) and m.tool_call_id == searches[2][0]]
    assert len(unanswered) == 1 and unanswered[0].text.startswith("Not run") and unanswered[0].status == "error"
    assert messages[-1].text == FORCED.text and not messages[-1].tool_calls


def test_seed_004_identical_query_is_hinted_at_the_2nd_call_and_halted_at_the_3rd():
    ran = []

    @tool
    def query_db(status: str) -> str:
        """Query the orders."""
        ran.append(status)
        return "[]"

    seen, said = [], {}
    answer = AIMessage(content="No orders are pending.")
    script = [calls((f"q{k}", "query_db", {"status": "pending"})) for k in range(1, 4)] + [answer]
    messages, model_calls = run_agent([query_db], script, TracecheckMiddleware(preset="patchcat", on_decision=decisions(seen, said)), "Which orders are pending?")
    assert [a for p, a in seen if p == "before_tools"] == ["continue", "hint", "stop"]
    assert ran == ["pending", "pending"]
    hint_input = model_calls[2][0]  # the call after the hinted round's result
    hint = hint_input[-1]
    assert isinstance(hint, HumanMessage) and hint.id.startswith("tracecheck-")
    assert isinstance(hint_input[-2], ToolMessage) and hint_input[-2].tool_call_id == "q2"  # after the result, not between
    assert hint.text == said["hint"]
    assert model_calls[3][1] is None and model_calls[3][0][-1].text == said["stop"] and messages[-1].text == answer.text
    assert not any(isinstance(m, HumanMessage) and m.id.startswith("tracecheck-") for m in model_calls[1][0])  # no hint at the 1st call


def test_a_healthy_poll_is_left_alone():
    statuses = iter(["running", "done: 3 rows"])

    @tool
    def get_report_status(report_id: str) -> str:
        """Status of a report."""
        return next(statuses)

    seen = []
    script = [calls((f"s{k}", "get_report_status", {"report_id": "r-7"})) for k in (1, 2)] + [AIMessage(content="The report is done: 3 rows.")]
    messages, model_calls = run_agent([get_report_status], script, TracecheckMiddleware(preset="default", on_decision=decisions(seen)), "Is report r-7 ready?")
    assert {a for _, a in seen} == {"continue"} and len(seen) == 5
    assert [m.text for m in messages if isinstance(m, ToolMessage)] == ["running", "done: 3 rows"]
    assert not [m for m in messages if m.id and m.id.startswith("tracecheck-")]
    assert [tools for _, tools in model_calls] == [["get_report_status"]] * 3


def test_a_blocked_call_does_not_run_and_the_model_sees_its_synthetic_result():
    ran = []

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(path)
        return "same"

    seen = []
    script = [calls((f"r{k}", "read_file", {"path": "a.py"})) for k in range(1, 5)] + [AIMessage(content="done")]
    middleware = TracecheckMiddleware(preset="roo", on_decision=decisions(seen))  # the 4th identical call is refused
    messages, model_calls = run_agent([read_file], script, middleware, "Fix a.py")
    assert [a for p, a in seen if p == "before_tools"] == ["continue", "continue", "continue", "block"]
    assert len(ran) == 3
    refusal = [m for m in model_calls[4][0] if isinstance(m, ToolMessage) and m.tool_call_id == "r4"]
    assert len(refusal) == 1 and "repetition limit" in refusal[0].text.lower()
    assert messages[-1].text == "done"


def test_an_abort_ends_the_run_with_a_message_and_every_call_answered():
    @tool
    def q(x: int) -> str:
        """A tool."""
        return "same"

    seen = []
    middleware = TracecheckMiddleware(preset="default", options={"B001": {"max_rounds": 1, "final_window": 0, "required_all": ["search_docs"]}}, on_decision=decisions(seen))
    script = [calls((f"c{k}", "q", {"x": k})) for k in range(1, 3)] + [AIMessage(content="never")]
    messages, model_calls = run_agent([q], script, middleware, "go")
    assert seen[-1] == ("before_tools", "abort")  # the 2nd round: past max_rounds, the evidence never came
    assert len(model_calls) == 2
    assert messages[-1].text.startswith("The run was ended by tracecheck (B001)")
    ai_calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    assert ai_calls == {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    assert all(text != "never" for text in (m.text for m in messages))


def test_a_recorded_run_replays_to_the_same_stop(tmp_path):
    trace, searches, web_search, ran = weather()
    path = tmp_path / "live-{run}.jsonl"
    script = [calls((i, "webSearch", {"query": q})) for i, q, _ in searches[:3]] + [FORCED]
    middleware = TracecheckMiddleware(preset="seed-000", record_to=path)
    run_agent([web_search], script, middleware, trace.metadata["user_query"])
    (recording,) = tmp_path.glob("live-run-*.jsonl")
    (recorded,) = read_traces([str(recording)], Diagnostics())
    assert [len(r.tool_calls) for r in recorded.rounds] == [1, 1, 1, 0] and recorded.rounds[-1].text == FORCED.text
    assert [c.result is not None for r in recorded.rounds[:3] for c in r.tool_calls] == [True, True, False]
    assert [r.forced for r in recorded.rounds] == [False, False, False, True]  # the answer the stop asked for
    replayed = replay_trace(recorded, load_settings(preset="seed-000", cwd=ROOT).build())
    assert [(s.round, s.code, s.already_stopped) for s in replayed.policy.stops] == [(3, "P001", True)]
    # The run was stopped: its 3rd call never ran, its forced answer is recorded. Nothing
    # more to save, and no second forced answer to charge.
    saved = replayed.policy.saved
    assert (saved.llm_calls, saved.tool_calls, saved.tokens, saved.forced_answer_tokens) == (0, 0, 0, None)
    assert json.loads(recording.read_text().splitlines()[-1])["type"] == "end"
    assert middleware.monitor(recorded.id) is None  # the run ended with its invocation


def test_one_middleware_serves_several_runs_and_a_threads_turns():
    from langgraph.checkpoint.memory import InMemorySaver

    @tool
    def query_db(status: str) -> str:
        """Query the orders."""
        return "[]"

    middleware = TracecheckMiddleware(preset="patchcat")
    same = calls(("q1", "query_db", {"status": "pending"}))
    # Two separate runs: each starts afresh, so neither sees a repeated call.
    for _ in range(2):
        messages, _ = run_agent([query_db], [same, AIMessage(content="none")], middleware, "pending?")
        assert not [m for m in messages if m.id and m.id.startswith("tracecheck-")]
    # One thread, two user messages: one monitor, two turns.
    model = ScriptedModel(script=[same, AIMessage(content="none"), calls(("q2", "query_db", {"status": "pending"})), AIMessage(content="still none")], calls=[])
    agent = create_agent(model, [query_db], middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t-1"}}
    agent.invoke({"messages": [HumanMessage("pending?")]}, config)
    agent.invoke({"messages": [HumanMessage("and now?")]}, config)
    monitor = middleware.monitor("t-1")
    assert [m.text for m in monitor.trace.user_messages] == ["pending?", "and now?"]
    assert [r.turn for r in monitor.trace.rounds] == [1, 1, 2, 2]
    middleware.close("t-1")
    assert middleware.monitor("t-1") is None


def test_bad_settings_fail_when_the_middleware_is_built():
    with pytest.raises(ValueError, match="P001 has no option 'threshhold'"):
        TracecheckMiddleware(preset="default", options={"P001": {"threshhold": 2}})


def test_importing_tracecheck_imports_no_langchain():
    import subprocess
    import sys

    code = "import sys, tracecheck, tracecheck.integrations; tracecheck.Monitor; print(any(m.split('.')[0] in ('langchain', 'langchain_core', 'langgraph') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_the_async_agent_is_guarded_the_same_way():
    import asyncio

    trace, searches, web_search, ran = weather()
    script = [calls((i, "webSearch", {"query": q})) for i, q, _ in searches[:3]] + [FORCED]
    model = ScriptedModel(script=script, calls=[])
    agent = create_agent(model, [web_search], middleware=[TracecheckMiddleware(preset="seed-000")])
    result = asyncio.run(agent.ainvoke({"messages": [HumanMessage(trace.metadata["user_query"])]}))
    assert len(ran) == 2 and model.calls[-1][1] is None and result["messages"][-1].text == FORCED.text


def test_an_answer_without_evidence_is_pushed_back_then_the_run_is_aborted():
    @tool
    def search_docs(query: str) -> str:
        """Search the docs."""
        return "No results found"

    seen, said = [], {}
    middleware = TracecheckMiddleware(preset="default", options={"E001": {"required_all": ["search_docs"]}}, on_decision=decisions(seen, said))
    script = [calls(("d1", "search_docs", {"query": "retry policy"}))] + [AIMessage(content=f"Retries: {k}.") for k in range(3)]
    messages, model_calls = run_agent([search_docs], script, middleware, "What is the retry policy?")
    assert [a for p, a in seen if p == "final"] == ["reject", "reject", "abort"]
    pushed = model_calls[2][0][-1]  # the call after the first answer was refused
    assert isinstance(pushed, HumanMessage) and pushed.id.startswith("tracecheck-") and pushed.text == said["reject"]
    assert [tools for _, tools in model_calls] == [["search_docs"]] * 4  # a push-back keeps the tools
    assert messages[-1].text.startswith("The run was ended by tracecheck (E001)")


def test_the_readme_langchain_example_runs_and_its_recording_replays(tmp_path, monkeypatch, capsys):
    import re

    section = (ROOT / "README.md").read_text(encoding="utf-8").split("### LangChain\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    assert "pip install '.[langchain]'" in section
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out.splitlines()[-1] == "No orders are pending."
    (recorded,) = read_traces([str(tmp_path / "langchain-run.jsonl")], Diagnostics())
    assert [len(r.tool_calls) for r in recorded.rounds] == [1, 1, 1, 0]  # the 3rd result stopped it; the answer came without tools
    replayed = replay_trace(recorded, load_settings(preset="default", cwd=ROOT).build())
    assert [(s.round, s.code) for s in replayed.policy.stops] == [(3, "P004")]
