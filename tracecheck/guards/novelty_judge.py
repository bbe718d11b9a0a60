"""Seed 002's exercise: a small local model judges whether a tool result brings new
information (P003's ``metric = "judge"``).

The judge is asked over HTTP, with the standard library only (``urllib``), in one of
three JSON dialects chosen by the endpoint's path:

* ``/api/generate`` (Ollama, the default: ``http://localhost:11434/api/generate``):
  ``{"model", "prompt", "stream": false}`` -> ``{"model", "response": "YES", "done": true, ...}``;
* ``/api/chat`` (Ollama): ``{"model", "messages", "stream": false}`` -> ``{"message": {"content"}}``;
* anything else, e.g. ``/v1/chat/completions`` (OpenAI-compatible servers: llama.cpp,
  vLLM, LM Studio, Ollama's own): ``{"model", "messages"}`` -> ``{"choices": [{"message": {"content"}}]}``.

Answers are kept in a JSON cache file keyed by the model and the SHA-256 of the prompt,
so a second replay of the same traces asks nothing. The file is only ever written when
it is missing or already a judge cache: any other file at that path (a trace, a report)
is left alone and the answers stay in memory. Requests, cache hits and the seconds spent
are counted (:class:`JudgeStats`) for P003 to report beside its text similarity.

A judge that cannot be reached (connection refused, a timeout, an HTTP error, an answer
that is not JSON) is marked dead for its endpoint for the rest of the process: P003
falls back to its text-similarity metric and one warning says so on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..dataclass_lite import mutable_dataclass
from ..input.diagnostics import TracecheckError
from ..input.side_files import read_side_text
from ..text.textsafe import neutralize

DEFAULT_ENDPOINT = "http://localhost:11434/api/generate"
DEFAULT_MODEL = "qwen2.5:3b"  # seed 002's choice
CACHE_MARK = "tracecheck P003 judge cache"

PROMPT = """You assess search results for an agent. Decide whether the NEW result contains information that the EARLIER results do not.

EARLIER RESULTS (the most recent {kept} that brought new information):
{earlier}

NEW RESULT:
{new}

Answer with one word: YES if the new result brings information not in the earlier results, NO if it only repeats them."""


def judge_prompt(earlier: list[str], new: str, max_chars: int) -> str:
    """The question put to the judge: the earlier novel observations (the seed passes the
    last three, ``previous_results[-3:]``) and the new one, each cut to ``max_chars``."""

    def cut(text: str) -> str:
        return text if len(text) <= max_chars else text[:max_chars] + " [...]"

    listed = "\n---\n".join(cut(t) for t in earlier) or "(none)"
    return PROMPT.format(kept=len(earlier), earlier=listed, new=cut(new))


def parse_answer(text: str) -> bool | None:
    """YES -> True (new information), NO -> False, anything else -> None. The first word
    decides, so "YES." and "No, it repeats ..." are read; a model that rambles first is
    not (None: P003 measures that observation by text similarity)."""
    word = text.strip().lstrip("*\"'`#> ").split(maxsplit=1)
    if not word:
        return None
    head = word[0].strip(".,!:;*\"'`").upper()
    return {"YES": True, "NO": False, "是": True, "否": False}.get(head)


def endpoint_problem(endpoint: str) -> str | None:
    """Why ``endpoint`` cannot be the judge's URL (the config loader refuses it), or None:
    an http(s) URL with a host, and without a user or password (the URL is printed in
    warnings and reports; a server that needs credentials is not a local judge)."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(endpoint)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        return f"{endpoint!r} is not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{endpoint!r} is not an http(s) URL with a host (e.g. {DEFAULT_ENDPOINT})"
    if parts.username is not None or parts.password is not None:
        return "the URL holds a user name or password; give the judge's address without credentials"
    if any(ord(c) < 33 or ord(c) == 127 for c in endpoint):
        return f"{endpoint!r} holds spaces or control characters"
    return None


def default_cache_path() -> str:
    """``$XDG_CACHE_HOME/tracecheck/p003-judge.json`` (``~/.cache`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return str(Path(base) / "tracecheck" / "p003-judge.json")


@mutable_dataclass
class JudgeStats:
    """What judging cost: HTTP requests made, answers read from the cache, seconds spent
    waiting for the server, answers that were neither YES nor NO."""

    requests: int = 0
    cached: int = 0
    seconds: float = 0.0
    unclear: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "cached": self.cached, "seconds": round(self.seconds, 3), "unclear": self.unclear}


class JudgeUnavailable(Exception):
    """The judge could not be asked; the message says why."""


def read_cache(path: str) -> tuple[dict[str, str] | None, str | None]:
    """The answers of the judge cache at ``path`` ({} when there is no file), or None
    with the reason it must not be written (not a regular file, unreadable, too large,
    nested too deep, or not a judge cache). Read the careful way side files are: a FIFO
    or a device (/dev/full) is never opened, and no content raises."""
    try:
        text = read_side_text(path, "P003 judge cache")
    except TracecheckError as exc:
        if not os.path.lexists(path):
            return {}, None
        return None, f"{exc}: it is left alone, answers are kept in memory only"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("format") != CACHE_MARK or not isinstance(data.get("answers"), dict):
        # Not ours (a trace, a report, anything): never written over.
        return None, f"{path} is not a P003 judge cache: it is left alone, answers are kept in memory only"
    return {k: v for k, v in data["answers"].items() if isinstance(k, str) and isinstance(v, str)}, None


class AnswerCache:
    """Answers by (model, prompt hash), in memory and in a JSON file."""

    def __init__(self, path: str) -> None:
        self.path = path
        answers, self.problem = read_cache(path)
        self.writable = answers is not None
        self.answers: dict[str, str] = answers or {}

    @staticmethod
    def key(model: str, prompt: str) -> str:
        return model + "\t" + hashlib.sha256(prompt.encode("utf-8")).hexdigest()

    def get(self, model: str, prompt: str) -> str | None:
        return self.answers.get(self.key(model, prompt))

    def put(self, model: str, prompt: str, answer: str) -> None:
        self.answers[self.key(model, prompt)] = answer
        if not self.writable:
            return
        # What other processes (replay --jobs workers) wrote since is kept: read, merge, replace.
        on_disk, problem = read_cache(self.path)
        if on_disk is None:
            self.writable, self.problem = False, problem
            warn_once("cache:" + self.path, f"P003 judge cache: {problem}")
            return
        self.answers = {**on_disk, **self.answers}
        target = Path(self.path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            payload = {"format": CACHE_MARK, "answers": self.answers}
            temporary.write_text(json.dumps(payload, ensure_ascii=False, indent=0, sort_keys=True), encoding="utf-8")
            os.replace(temporary, target)
        except OSError as exc:
            self.writable, self.problem = False, f"cannot write {self.path}: {exc.strerror or exc}"
            warn_once("cache:" + self.path, f"P003 judge cache: {self.problem}")


# Endpoints found dead in this process, with why: asked once, warned about once.
_DEAD: dict[str, str] = {}
# Caches by path, shared by the guards of one process (a replay builds a guard per trace
# and replays each trace twice: alone and as the policy).
_CACHES: dict[str, AnswerCache] = {}


def _cache(path: str) -> AnswerCache:
    if path not in _CACHES:
        _CACHES[path] = AnswerCache(path)
    return _CACHES[path]


def warn_once(key: str, text: str) -> None:
    """One line on stderr per ``key`` per process."""
    if key in _WARNED:
        return
    _WARNED.add(key)
    # Straight to the terminal, not through a report writer: what a server or a path says is neutralised here.
    print(f"tracecheck: warning: {neutralize(text)}", file=sys.stderr)


_WARNED: set[str] = set()


class Judge:
    """Asks ``model`` at ``endpoint`` whether a result is new; counts what that costs."""

    def __init__(self, endpoint: str, model: str, timeout: float, cache_path: str) -> None:
        self.endpoint = endpoint
        self.model = model
        self.timeout = timeout
        self.cache = _cache(cache_path or default_cache_path())
        self.stats = JudgeStats()
        if self.cache.problem:
            warn_once("cache:" + self.cache.path, f"P003 judge cache: {self.cache.problem}")

    @property
    def dead(self) -> str | None:
        """Why the endpoint cannot be asked, or None."""
        return _DEAD.get(self.endpoint)

    def ask(self, prompt: str) -> bool | None:
        """True: new information; False: none; None: an answer that is neither. Raises
        :class:`JudgeUnavailable` when the server cannot be asked (and marks it dead)."""
        answer = self.cache.get(self.model, prompt)
        if answer is not None:
            self.stats.cached += 1
        else:
            if self.dead:
                raise JudgeUnavailable(self.dead)
            started = time.perf_counter()
            try:
                answer = self._request(prompt)
            except JudgeUnavailable as exc:
                _DEAD[self.endpoint] = str(exc)
                raise
            finally:
                self.stats.seconds += time.perf_counter() - started
                self.stats.requests += 1
            self.cache.put(self.model, prompt, answer)
        verdict = parse_answer(answer)
        if verdict is None:
            self.stats.unclear += 1
        return verdict

    def _request(self, prompt: str) -> str:
        import urllib.error  # here: only a judge that is asked needs them (start-up time)
        import urllib.parse
        import urllib.request

        problem = endpoint_problem(self.endpoint)
        if problem is not None:  # a guard built in code: the config loader refuses these
            raise JudgeUnavailable(problem)
        path = urllib.parse.urlparse(self.endpoint).path.rstrip("/")
        if path.endswith("/api/generate"):
            body: dict[str, Any] = {"model": self.model, "prompt": prompt, "stream": False, "options": {"temperature": 0}}
        elif path.endswith("/api/chat"):
            body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "stream": False, "options": {"temperature": 0}}
        else:
            body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "temperature": 0, "max_tokens": 4}
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(body).encode("utf-8"), headers={"Content-Type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read(1_000_000)
        except urllib.error.HTTPError as exc:
            raise JudgeUnavailable(f"{self.endpoint} answered HTTP {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            raise JudgeUnavailable(f"{self.endpoint} cannot be reached: {exc.reason}") from None
        except TimeoutError:
            raise JudgeUnavailable(f"{self.endpoint} did not answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise JudgeUnavailable(f"{self.endpoint} cannot be reached: {exc.strerror or exc}") from None
        try:
            data = json.loads(raw)
        except ValueError:
            raise JudgeUnavailable(f"{self.endpoint} answered something that is not JSON") from None
        text = _answer_text(data)
        if text is None:
            raise JudgeUnavailable(f"{self.endpoint} answered JSON without a response, message or choices field")
        return text


def _answer_text(data: Any) -> str | None:
    """The model's text in an Ollama generate, Ollama chat or OpenAI chat answer."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("response"), str):
        return data["response"]
    message = data.get("message")
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return message["content"]
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
    return None


def forget() -> None:
    """Forget dead endpoints, warnings and loaded caches (tests; a long-lived monitor)."""
    _DEAD.clear()
    _WARNED.clear()
    _CACHES.clear()
