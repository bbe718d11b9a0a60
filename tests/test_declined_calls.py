"""A call the user declined at a permission prompt: the reader marks its result
``declined`` (the text is the user's answer, not the tool's), the native format keeps
the mark, and no failure guard counts it: a user rejecting three drafts is not a tool
failing three times (issue 34, class 5)."""

from __future__ import annotations

import json

from conftest import read_with_warnings as read, write_jsonl

SESSION = "5b1e7c2a-9d3f-4e8b-a6c4-0f2d8e1b7a93"
# Claude Code's own words for a rejected edit, with the user's feedback after them.
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n{feedback}"
)


def _entry(kind: str, uuid: str, parent: str | None, second: int, message: dict) -> dict:
    return {
        "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/blog",
        "sessionId": SESSION, "version": "2.0.42", "gitBranch": "main", "type": kind, "message": message,
        "uuid": uuid, "timestamp": f"2025-11-20T14:02:{second:02d}.000Z",
    }


def _session(drafts: int) -> list[dict]:
    """A user asks for a post; Claude Code writes a draft; the user rejects it with a
    reason, ``drafts`` times; then the agent answers."""
    events = [_entry("user", "u0", None, 0, {"role": "user", "content": "Write the release post in /home/dev/blog/post.md"})]
    parent = "u0"
    for k in range(drafts):
        tool_id = f"toolu_01Draft{k}"
        events.append(_entry("assistant", f"a{k}", parent, 2 + 3 * k, {
            "id": f"msg_01Draft{k}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "tool_use", "id": tool_id, "name": "Write",
                         "input": {"file_path": "/home/dev/blog/post.md", "content": f"# Release 2.{k}\n\nDraft {k}."}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 900 + k, "output_tokens": 120},
        }))
        events.append(_entry("user", f"r{k}", f"a{k}", 3 + 3 * k, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "is_error": True,
             "content": REJECTED.format(feedback=f"too long, draft {k}")},
        ]}))
        parent = f"r{k}"
    events.append(_entry("assistant", "done", parent, 59, {
        "id": "msg_01Done", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "Tell me what the post should say and I will write it."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 1400, "output_tokens": 20},
    }))
    return events


def test_claude_code_marks_a_rejected_call_declined(tmp_path):
    path = write_jsonl(tmp_path / f"{SESSION}.jsonl", _session(3))
    (trace,), warnings = read(path)
    assert warnings == []
    results = [c.result for c in trace.tool_calls()]
    assert len(results) == 3
    assert all(r.declined for r in results)
    assert all(r.is_error is True for r in results)  # the format's flag is kept as written


def test_a_tool_error_is_not_declined(tmp_path):
    events = _session(1)
    events[2]["message"]["content"][0]["content"] = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    (trace,), _ = read(write_jsonl(tmp_path / f"{SESSION}.jsonl", events))
    assert next(trace.tool_calls()).result.declined is False


def test_default_does_not_stop_a_user_rejecting_drafts(tmp_path, cli):
    path = write_jsonl(tmp_path / f"{SESSION}.jsonl", _session(5))
    report = json.loads(cli("replay", "--format", "json", str(path)).stdout)
    (trace,) = report["traces"]
    assert trace["fires"] == []
    assert (trace.get("policy") or {}).get("stopped_at") is None


def test_the_same_failures_not_declined_are_stopped(tmp_path, cli):
    # The control: the same five Write calls failing with a tool error are a failing tool.
    events = _session(5)
    for event in events:
        for block in event["message"]["content"] if isinstance(event["message"]["content"], list) else ():
            if block.get("type") == "tool_result":
                block["content"] = "<tool_use_error>EACCES: permission denied, open '/home/dev/blog/post.md'</tool_use_error>"
    path = write_jsonl(tmp_path / f"{SESSION}.jsonl", events)
    report = json.loads(cli("replay", "--format", "json", str(path)).stdout)
    (trace,) = report["traces"]
    assert trace["policy"]["stopped_at"] == 3


def test_native_keeps_the_mark(tmp_path, cli):
    path = write_jsonl(tmp_path / f"{SESSION}.jsonl", _session(2))
    out = tmp_path / "native.jsonl"
    cli("convert", str(path), "-o", str(out))
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [e.get("declined") for e in events if e["type"] == "result"] == [True, True]
    (trace,), warnings = read(out)
    assert warnings == []
    assert [c.result.declined for c in trace.tool_calls()] == [True, True]
