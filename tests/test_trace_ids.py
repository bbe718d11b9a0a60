"""Trace ids that survive edits (readers/identity.py): a trace its format gives no id is
named by its content when its file holds several, so labels and baselines stay on their
trace when conversations are added around it. Through the CLI."""

from __future__ import annotations

import json

from conftest import FIXTURES, write_jsonl

SYSTEM = {"role": "system", "content": "You are a support agent with tools."}
# P004, F001 and F003 are what stop LOOP under the default preset: without them it escapes.
ESCAPE = ("--set", "P004.enabled=false", "--set", "F001.enabled=false", "--set", "F003.enabled=false")


def conversation(question, steps, answer):
    """One line of an OpenAI fine-tuning / batch file: the messages of one run."""
    messages = [SYSTEM, {"role": "user", "content": question}]
    for number, (name, arguments, result) in enumerate(steps, 1):
        call = {"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": result})
    messages.append({"role": "assistant", "content": answer})
    return {"messages": messages}


LOOP = conversation("Where is order 8812?", [("get_order", {"order_id": 8812}, '{"error": "order service timeout"}')] * 6, "I could not reach the order service.")
PAGES = conversation(
    "List every open order.",
    [("list_orders", {"page": page}, json.dumps({"orders": [f"A{page}", f"B{page}"], "next_page": page + 1})) for page in range(1, 7)],
    "There are 12 open orders.",
)
HELLO = conversation("Say hello.", [], "Hello!")


def label_ids(cli, path):
    result = cli("label", str(path))
    assert result.exit_code == 0, result.output
    return [entry["trace"] for entry in json.loads(result.stdout)["traces"]]


def check_json(cli, *args):
    result = cli("check", "--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


def test_a_label_stays_on_the_loop_when_a_conversation_is_inserted_above_it(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES])
    loop_id, pages_id = label_ids(cli, batch)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"version": 1, "traces": [
        {"trace": loop_id, "kind": "loop", "stop_by": 3, "expect": [{"guard": "policy", "fires": True, "by_round": 3}]},
        {"trace": pages_id, "kind": "healthy", "expect": [{"guard": "policy", "fires": False}]},
    ]}))
    code, before = check_json(cli, "--labels", str(labels), str(batch))
    assert (code, before["expectations"], before["warnings"]) == (0, {"checked": 2, "met": 2, "not_checked": 0}, [])

    # The user's edit: one more conversation at the top. Named by their lines, the loop's
    # label would now sit on HELLO and the healthy one's on the loop.
    write_jsonl(batch, [HELLO, LOOP, PAGES])
    assert label_ids(cli, batch)[1:] == [loop_id, pages_id]
    code, after = check_json(cli, "--labels", str(labels), str(batch))
    assert (code, after["expectations"], after["warnings"]) == (0, {"checked": 2, "met": 2, "not_checked": 0}, [])

    # And the label still bites: a loop that escapes fails on the loop's trace.
    code, escaped = check_json(cli, *ESCAPE, "--labels", str(labels), str(batch))
    assert code == 1
    assert [(f["trace"], f["rule"], f["line"]) for f in escaped["findings"]] == [(loop_id, "policy", 2)]


def test_a_baseline_entry_stays_on_its_trace_when_a_conversation_is_inserted(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES])
    loop_id, _ = label_ids(cli, batch)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"version": 1, "traces": [{"trace": loop_id, "expect": [{"guard": "policy", "by_round": 3}]}]}))
    baseline = tmp_path / "baseline.json"
    written = cli("baseline", "write", *ESCAPE, "--labels", str(labels), "-o", str(baseline), str(batch))
    assert written.exit_code == 0, written.output
    assert [e["trace"] for e in json.loads(baseline.read_text())["findings"]] == [loop_id]

    write_jsonl(batch, [HELLO, LOOP, PAGES])
    code, data = check_json(cli, *ESCAPE, "--labels", str(labels), "--baseline", str(baseline), str(batch))
    assert code == 0
    # Known, and about the loop (now at line 2), not about whatever starts at line 1.
    assert [(f["trace"], f["line"], f["status"]) for f in data["findings"]] == [(loop_id, 2, "baseline")]
    assert data["warnings"] == []


def test_replay_check_and_label_name_the_traces_alike(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [HELLO, LOOP, PAGES])
    replayed = cli("replay", "--format", "json", str(batch))
    assert replayed.exit_code == 0, replayed.output
    replay_ids = [trace["id"] for trace in json.loads(replayed.stdout)["traces"]]
    assert replay_ids == label_ids(cli, batch)
    assert len(set(replay_ids)) == 3 and all(i.startswith("batch.jsonl:") for i in replay_ids)
    # The policy stops the loop 3 rounds early: a waste finding, on the loop's id.
    code, data = check_json(cli, "--max-wasted-rounds", "0", str(batch))
    assert code == 1
    assert {f["trace"] for f in data["findings"]} == {replay_ids[1]}


def test_two_identical_conversations_get_distinct_ids_and_a_warning(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES, LOOP])
    result = cli("label", str(batch))
    assert result.exit_code == 0, result.output
    first, _, again = [entry["trace"] for entry in json.loads(result.stdout)["traces"]]
    assert again == f"{first}#2"
    assert (
        f"warning: {batch}:3: this trace starts as the trace at line 1 ({first!r}): named {again!r} by its order in the file, "
        "so a label or baseline entry for either follows that order"
    ) in result.stderr.replace("\n", " ")


def test_a_stale_line_based_id_in_a_labels_file_is_named_with_what_to_do(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES, HELLO])
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"version": 1, "traces": [{"trace": "batch.jsonl:3", "expect": [{"guard": "policy", "fires": False}]}]}))
    code, data = check_json(cli, "--labels", str(labels), str(batch))
    assert code == 5  # the label reached no trace: nothing checked, and never the trace now at line 3
    (warning,) = data["warnings"]
    assert (warning["file"], warning["line"]) == (str(labels), 1)
    assert warning["reason"].startswith("no trace matches the labels of 'batch.jsonl:3'; 'batch.jsonl:3' looks like a line-based id")
    assert warning["reason"].endswith("'tracecheck label' writes the current ids")


def test_a_baseline_entry_for_an_id_no_trace_has_is_warned_about(cli, tmp_path):
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES])
    baseline = tmp_path / "baseline.json"
    entry = {"fingerprint": "0123456789abcdef0123", "rule": "policy", "kind": "expectation", "trace": "batch.jsonl:1", "message": "old"}
    baseline.write_text(json.dumps({"version": 1, "findings": [entry], "accepted": []}))
    result = cli("check", "--baseline", str(baseline), "--allow-empty", str(batch))
    assert result.exit_code == 0, result.output
    shown = " ".join(result.stderr.split())
    assert f"warning: {baseline}: 1 entry names trace 'batch.jsonl:1', which no input holds: not checked; 'batch.jsonl:1' looks like a line-based id" in shown
    assert "'tracecheck baseline write' writes the current ids" in shown
    # prune keeps what it cannot judge, and says which entries those are.
    pruned = cli("baseline", "prune", str(baseline), str(batch))
    assert pruned.exit_code == 0, pruned.output
    assert "1 entry names trace 'batch.jsonl:1', which no input holds" in " ".join(pruned.stderr.split())
    assert json.loads(baseline.read_text())["findings"] == [entry]


def test_a_lone_trace_keeps_its_name_and_ids_do_not_depend_on_the_run(cli, tmp_path):
    alone = write_jsonl(tmp_path / "alone.jsonl", [LOOP])
    assert label_ids(cli, alone) == ["alone.jsonl:1"]
    # Pinned: a content id is written into labels files and baselines, so the same
    # conversation must get the same id on every run, platform and version.
    batch = write_jsonl(tmp_path / "batch.jsonl", [LOOP, PAGES])
    assert label_ids(cli, batch) == ["batch.jsonl:c9ed54c78959", "batch.jsonl:9e0d1292216f"]


def test_a_growing_request_log_keeps_its_trace_ids(cli, tmp_path):
    def completion(rid, message):
        return {"id": rid, "object": "chat.completion", "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}]}

    ask = {"role": "user", "content": "Where is order 8812?"}
    lookup = {"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": 8812}'}}]}
    first = {"request": {"messages": [SYSTEM, ask]}, "response": completion("chatcmpl-1", lookup)}
    other = {"request": {"messages": [SYSTEM, {"role": "user", "content": "Say hello."}]}, "response": completion("chatcmpl-2", {"content": "Hello!"})}
    log = write_jsonl(tmp_path / "proxy.jsonl", [first, other])
    before = label_ids(cli, log)
    answered = {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "shipped"}'}
    more = {"request": {"messages": [SYSTEM, ask, {"role": "assistant", **lookup}, answered]}, "response": completion("chatcmpl-3", {"content": "It shipped."})}
    write_jsonl(log, [first, other, more])
    assert label_ids(cli, log) == before


def test_a_file_of_several_trajectories_names_none_of_them_after_the_file(cli, tmp_path):
    # mini-swe-agent names a lone trajectory after its file; the first of several must
    # not keep that name, or a trajectory inserted before it would take its labels.
    count, typo = (json.loads((FIXTURES / "mini_swe_agent" / name).read_text()) for name in ("count_py_v1.traj.json", "readme_typo.traj.json"))
    runs = write_jsonl(tmp_path / "runs.jsonl", [count, typo])
    both = label_ids(cli, runs)
    assert "runs" not in both and all(i.startswith("runs:") for i in both)
    write_jsonl(runs, [typo, count])
    assert label_ids(cli, runs) == both[::-1]
    write_jsonl(runs, [typo])
    assert label_ids(cli, runs) == ["runs"]
