"""Seed 002's exercise (issue 25, item 4): P003's ``judge`` metric asks a local model
"does this result bring new information? YES/NO" over HTTP. Tested against a real HTTP
server in a thread that answers as Ollama does, counting the requests it gets."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tracecheck.engine.replay import replay_trace
from tracecheck.guards import novelty_judge
from tracecheck.guards.examples import Example, answer, search
from tracecheck.guards.novelty_judge import CACHE_MARK, parse_answer
from tracecheck.guards.p003_no_new_information import AUTO_RENEWAL, DATA_PROCESSING, NoNewInformation

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
SAMPLE = SAMPLES / "seed002_contract_search_token_limit.jsonl"
DOC_ID = "KB-LEGAL-"


def doc_ids(text: str) -> set[str]:
    return {text[i : i + len(DOC_ID) + 4] for i in range(len(text)) if text.startswith(DOC_ID, i)}


class FakeOllama(BaseHTTPRequestHandler):
    """Answers /api/generate, /api/chat and /v1/chat/completions the way those servers
    shape their JSON. Its judgement: NO when every contract document id of the NEW
    RESULT is among the EARLIER RESULTS, YES otherwise."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        server.requests.append((self.path, body))  # type: ignore[attr-defined]
        time.sleep(server.delay)  # type: ignore[attr-defined]
        prompt = body["prompt"] if "prompt" in body else body["messages"][-1]["content"]
        earlier, _, new = prompt.partition("NEW RESULT:")
        word = "NO" if doc_ids(new) <= doc_ids(earlier) else "YES"
        if self.path == "/api/generate":
            # Ollama's non-streaming /api/generate answer (docs.ollama.com/api/usage)
            reply = {"model": body["model"], "created_at": "2026-12-05T09:30:00.000000Z", "response": word, "done": True,
                     "done_reason": "stop", "total_duration": 174560334, "eval_count": 2}
        elif self.path == "/api/chat":
            reply = {"model": body["model"], "message": {"role": "assistant", "content": word}, "done": True}
        else:
            reply = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": word}, "finish_reason": "stop"}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    httpd.requests = []  # type: ignore[attr-defined]
    httpd.delay = 0.0  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def fresh_process_state():
    novelty_judge.forget()  # no dead endpoints, warnings or loaded caches from other tests
    yield
    novelty_judge.forget()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the block ends: nothing listens there


def url(httpd, path="/api/generate") -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}{path}"


def judge_args(endpoint: str, cache: Path, *more: str) -> list[str]:
    return ["--set", "P003.metric=judge", "--set", f"P003.judge_endpoint={endpoint}", "--set", f"P003.judge_cache={cache}", *more]


def replay(cli, *args: str, path: Path = SAMPLE):
    result = cli("replay", str(path), "-f", "json", *args)
    return json.loads(result.stdout), result.stderr


def p003(report: dict) -> list[dict]:
    return [f for t in report["traces"] for f in t["fires"] if f["code"] == "P003"]


# The judge on the seed's contract sample, by hand (FakeOllama's rule, the sample's doc ids):
#   obs 1  0142 0157 0098 0203 0187   first: always new, not asked
#   obs 2  0157 0142 0098             all in obs 1          -> NO  (stagnant 1)
#   obs 3  0098 0142 0157 0064        0064 (the DPA) is new -> YES (stagnant 0)
#   obs 4  0142 0157                  in obs 1/3            -> NO  (stagnant 1)
#   obs 5  0157 0142 0098             in obs 1/3            -> NO  (stagnant 2: stop after round 5)
# 4 questions. (difflib's ratios on the same results stay under 0.7: P003 alone never fires.)
def test_the_judge_stops_the_contract_search_and_a_second_run_asks_nothing(cli, server, tmp_path):
    cache = tmp_path / "judge.json"
    report, stderr = replay(cli, "--preset", "seeds", *judge_args(url(server), cache))
    (fire,) = p003(report)
    assert (fire["round"], fire["phase"], fire["action"]) == (5, "after_tools", "stop")
    assert fire["details"]["judge"] == "NO" and fire["details"]["similarity_novel"] is True
    cost = fire["details"]["judge_cost"]
    assert (cost["requests"], cost["cached"], cost["judged"]) == (4, 0, 4)
    # similarity agreed on obs 3 only (YES and new by ratio); on the 3 NOs it said new
    assert cost["agreed_with_similarity"] == 1
    assert "judged by qwen2.5:3b to bring no new information" in fire["reason"]
    assert "judge qwen2.5:3b: 4 requests" in fire["reason"] and "ngram similarity:" in fire["reason"]
    assert len(server.requests) == 4  # the policy replay of the same trace is answered from memory
    path, body = server.requests[0]
    assert path == "/api/generate" and body["model"] == "qwen2.5:3b" and body["stream"] is False
    assert "EARLIER RESULTS" in body["prompt"] and "KB-LEGAL-0142" in body["prompt"]
    assert stderr == ""
    saved = json.loads(cache.read_text(encoding="utf-8"))
    assert saved["format"] == CACHE_MARK and len(saved["answers"]) == 4
    assert sorted(saved["answers"].values()) == ["NO", "NO", "NO", "YES"]
    assert all(key.startswith("qwen2.5:3b\t") for key in saved["answers"])

    # A second run, in a process of its own: every answer from the cache file.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    second = subprocess.run(
        [sys.executable, "-m", "tracecheck", "replay", str(SAMPLE), "-f", "json", "--preset", "seeds", *judge_args(url(server), cache)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert second.returncode == 0, second.stderr
    (again,) = p003(json.loads(second.stdout))
    assert len(server.requests) == 4  # no new request
    assert (again["round"], again["details"]["judge_cost"]["requests"], again["details"]["judge_cost"]["cached"]) == (5, 0, 4)


def test_another_model_is_another_cache_key(cli, server, tmp_path):
    cache = tmp_path / "judge.json"
    replay(cli, "--preset", "seeds", *judge_args(url(server), cache))
    replay(cli, "--preset", "seeds", *judge_args(url(server), cache, "--set", "P003.judge_model=qwen2.5:7b"))
    assert len(server.requests) == 8
    assert {body["model"] for _, body in server.requests[4:]} == {"qwen2.5:7b"}


@pytest.mark.parametrize("path", ["/api/chat", "/v1/chat/completions"])
def test_the_chat_apis_give_the_same_verdicts(cli, server, tmp_path, path):
    report, _ = replay(cli, "--preset", "seeds", *judge_args(url(server, path), tmp_path / "c.json"))
    assert [(f["round"], f["details"]["judge"]) for f in p003(report)] == [(5, "NO")]
    _, body = server.requests[0]
    assert body["messages"][0]["role"] == "user" and "NEW RESULT:" in body["messages"][0]["content"]


def test_a_dead_endpoint_falls_back_to_similarity_with_one_warning(cli, tmp_path):
    # Every sample: with the judge on a closed port, P003 gives the similarity metric's
    # fires trace by trace (seed-002: difflib, the fallback set to it).
    dead = f"http://127.0.0.1:{closed_port()}/api/generate"
    started = time.perf_counter()
    judged, stderr = replay(cli, "--preset", "seed-002", *judge_args(dead, tmp_path / "j.json", "--set", "P003.judge_fallback=difflib"), path=SAMPLES)
    elapsed = time.perf_counter() - started
    plain, plain_err = replay(cli, "--preset", "seed-002", path=SAMPLES)

    def outline(report):
        return [(t["id"], [(f["code"], f["round"], f["phase"], f["action"]) for f in t["fires"]], (t["policy"] or {}).get("saved")) for t in report["traces"]]

    assert outline(judged) == outline(plain)
    assert sum(1 for t in plain["traces"] if t["fires"]) >= 3  # the comparison is not empty
    warnings = [line for line in stderr.splitlines() if "P003 judge" in line]
    assert len(warnings) == 1, stderr
    assert "unavailable" in warnings[0] and "cannot be reached" in warnings[0]
    assert "falling back to the difflib text-similarity metric" in warnings[0]
    assert elapsed < 30  # refused at once, asked once: not once per observation
    stagnation = [f for f in p003(judged) if "condition" not in f["details"]]
    assert stagnation and all("judge unavailable" in f["reason"] for f in stagnation)
    assert not (tmp_path / "j.json").exists()  # nothing answered, nothing cached


def test_a_judge_that_times_out_falls_back(server, tmp_path, capsys):
    server.delay = 1.0
    steps = (search("a", AUTO_RENEWAL), search("b", AUTO_RENEWAL), search("c", AUTO_RENEWAL), answer())
    trace = Example("slow", steps).trace()
    guard = NoNewInformation(metric="judge", judge_endpoint=url(server), judge_timeout=0.2, judge_cache=str(tmp_path / "t.json"))
    started = time.perf_counter()
    (fire,) = replay_trace(trace, [guard]).fires
    assert time.perf_counter() - started < 1.0 + 0.5  # one timed-out request, then none
    assert fire.round == 3 and fire.details["judge_cost"]["requests"] == 1
    assert "did not answer within 0.2 s" in fire.details["judge_cost"]["fell_back"]
    assert capsys.readouterr().err.count("P003 judge") == 1


def test_the_cache_never_writes_over_another_file(cli, server, tmp_path):
    copy = tmp_path / "trace.jsonl"
    copy.write_bytes(SAMPLE.read_bytes())
    report, stderr = replay(cli, "--preset", "seeds", *judge_args(url(server), copy), path=copy)
    assert copy.read_bytes() == SAMPLE.read_bytes()
    assert "is not a P003 judge cache: it is left alone" in stderr
    assert [f["round"] for f in p003(report)] == [5]  # the answers are kept in memory instead
    assert len(server.requests) == 4


def test_answers_already_in_the_cache_file_are_kept(cli, server, tmp_path):
    # another process's (a --jobs worker's, an earlier model's) answers survive a write
    cache = tmp_path / "judge.json"
    cache.write_text(json.dumps({"format": CACHE_MARK, "answers": {"other-model\tabc": "YES"}}), encoding="utf-8")
    replay(cli, "--preset", "seeds", *judge_args(url(server), cache))
    answers = json.loads(cache.read_text(encoding="utf-8"))["answers"]
    assert answers["other-model\tabc"] == "YES" and len(answers) == 5


def test_the_default_cache_is_under_the_users_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert novelty_judge.default_cache_path() == str(tmp_path / "tracecheck" / "p003-judge.json")


def test_a_wrong_no_is_overruled_by_the_floor(server, tmp_path):
    # The judge says NO (same doc ids) to a result that shares almost no text: with
    # judge_floor 0.3 the NO is overruled: difflib's ratio of round 2's result to round
    # 1's is 0.16 (392 and 1,250 characters; the ceiling, 0.48, is not enough to decide).
    other = "KB-LEGAL-0142 " + DATA_PROCESSING * 6
    steps = (search("a", "KB-LEGAL-0142 " + AUTO_RENEWAL), search("b", other), search("c", other), answer())
    trace = Example("floor", steps).trace()
    options = dict(metric="judge", judge_endpoint=url(server), judge_cache=str(tmp_path / "f.json"))
    assert [f.round for f in replay_trace(trace, [NoNewInformation(**options)]).fires] == [3]
    guard = NoNewInformation(**options, judge_floor=0.3)
    assert replay_trace(trace, [guard]).fires == []
    guard.reset()
    guard.after_tools(trace.rounds[0], None)
    guard.after_tools(trace.rounds[1], None)
    assert guard.last_scores[0]["judge"] == "NO (overruled)" and guard.last_scores[0]["novel"] is True


@pytest.mark.parametrize("endpoint", ["localhost:11434", "file:///etc/passwd", "not a url"])
def test_an_endpoint_that_is_not_an_http_url_falls_back(endpoint, tmp_path, capsys):
    steps = (search("a", AUTO_RENEWAL), search("b", AUTO_RENEWAL), search("c", AUTO_RENEWAL), answer())
    guard = NoNewInformation(metric="judge", judge_endpoint=endpoint, judge_cache=str(tmp_path / "u.json"))
    (fire,) = replay_trace(Example("url", steps).trace(), [guard]).fires
    assert fire.round == 3 and "not an http(s) URL" in fire.details["judge_cost"]["fell_back"]
    assert "not an http(s) URL" in capsys.readouterr().err


def test_answers_are_read_by_their_first_word():
    assert parse_answer("YES") is True and parse_answer(" yes.") is True and parse_answer("**NO**") is False
    assert parse_answer("No, it repeats the earlier clauses.") is False
    assert parse_answer("The new result adds clause 12") is None and parse_answer("") is None


@pytest.mark.parametrize(
    "endpoint, why",
    [
        ("not a url", "is not an http(s) URL with a host"),
        ("file:///etc/passwd", "is not an http(s) URL with a host"),
        ("localhost:11434", "is not an http(s) URL with a host"),
        ("http://127.0.0.1:port/api/generate", "is not a URL"),  # urllib raised InvalidURL: 'internal error'
        ("http://[::1/api/generate", "is not a URL"),
        ("http://user:secret@127.0.0.1:9/api/generate", "holds a user name or password"),
    ],
)
def test_a_bad_endpoint_is_a_config_error(cli, tmp_path, endpoint, why):
    # --set and the config file refuse it (exit 2) instead of a replay that warns and falls back;
    # the password is never echoed.
    result = cli("replay", "--preset", "seed-002", *judge_args(endpoint, tmp_path / "c.json"), str(SAMPLE))
    assert result.exit_code == 2 and "P003.judge_endpoint in --set: " in result.stderr and why in result.stderr
    assert "secret" not in result.stderr and "internal error" not in result.stderr
    config = tmp_path / "tracecheck.toml"
    config.write_text(f'preset = "seed-002"\n[guards.P003]\nmetric = "judge"\njudge_endpoint = "{endpoint}"\n', encoding="utf-8")
    result = cli("replay", "--config", str(config), str(SAMPLE))
    assert result.exit_code == 2 and why in result.stderr and "secret" not in result.stderr


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:port/api/generate", "http://user:secret@127.0.0.1:9/api/generate"])
def test_a_guard_built_in_code_with_a_bad_endpoint_falls_back_without_echoing_it(endpoint, tmp_path, capsys):
    # built in code (a live Monitor's options bypass nothing: this is Guard(**overrides)), the judge
    # is unavailable with the reason; urllib is never handed the URL (it raised InvalidURL, or sent
    # the credentials' host part to the resolver and printed the password in the warning)
    steps = (search("a", AUTO_RENEWAL), search("b", AUTO_RENEWAL), search("c", AUTO_RENEWAL), answer())
    guard = NoNewInformation(metric="judge", judge_endpoint=endpoint, judge_cache=str(tmp_path / "u.json"))
    (fire,) = replay_trace(Example("url", steps).trace(), [guard]).fires
    assert fire.round == 3 and fire.details["judge_cost"]["requests"] == 1
    assert "secret" not in fire.details["judge_cost"]["fell_back"] and "secret" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "assignment, why",
    [
        ("P003.judge_timeout=1e300", "is above the maximum 3600.0"),  # was 'internal error': OverflowError in urlopen
        ("P003.judge_timeout=0", "is below the minimum 0.1"),
        ("P003.judge_timeout=nan", "is not a valid float"),
        ('P003.answer_indicators=["根据", ""]', "an empty answer indicator would match every observation"),
        ('P003.answer_indicators=["  "]', "an empty answer indicator would match every observation"),
    ],
)
def test_bad_p003_values_are_config_errors(cli, tmp_path, assignment, why):
    result = cli("replay", "--preset", "seed-002", *judge_args("http://127.0.0.1:9/api/generate", tmp_path / "c.json"), "--set", assignment, str(SAMPLE))
    assert result.exit_code == 2 and why in result.stderr and "internal error" not in result.stderr


class HostileStatus(BaseHTTPRequestHandler):
    """A server whose HTTP reason phrase carries a terminal escape (a window title) and a bell."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(500, "\x1b]0;pwned\x07 [bold red]x[/]")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_what_the_server_says_reaches_stderr_neutralised(tmp_path, capsys):
    # The fallback warning is printed on stderr as it is, not through a report writer: the server's
    # reason phrase went to the terminal raw (an OSC escape sets the window title).
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), HostileStatus)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        steps = (search("a", AUTO_RENEWAL), search("b", AUTO_RENEWAL), search("c", AUTO_RENEWAL), answer())
        guard = NoNewInformation(metric="judge", judge_endpoint=url(httpd), judge_cache=str(tmp_path / "h.json"))
        (fire,) = replay_trace(Example("hostile", steps).trace(), [guard]).fires
    finally:
        httpd.shutdown()
        httpd.server_close()
    err = capsys.readouterr().err
    assert "answered HTTP 500" in err and "\\x1b]0;pwned\\x07" in err
    assert "\x1b" not in err and "\x07" not in err
    assert fire.round == 3 and "answered HTTP 500" in fire.details["judge_cost"]["fell_back"]
