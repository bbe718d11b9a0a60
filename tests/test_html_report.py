"""``replay --format html`` and ``sweep --format html``: one self-contained page each,
checked as HTML here and in a real browser (Debian's Chromium, driven by Playwright).

The browser tests skip when Chromium is not installed, unless ``CI`` is set: there they
fail (``.ci/run`` installs it)."""

from __future__ import annotations

import html
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, write_jsonl

CORPUS = ROOT / "tests" / "corpus"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Everything the pages are made of; trace text must never add to it.
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "script", "h1", "h2", "h3", "p", "div", "span", "b",
    "br", "a", "pre", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "button", "label", "select", "option",
    "details", "summary", "svg", "line", "text", "circle", "path", "polyline", "title",
}
# Markup, template syntax, Rich markup, terminal escapes and a bidi override: in every field.
EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)></script><!-- {{7*7}} [bold red]x[/] \x1b[31mANSI\u202eRTL \"q\" 'a' &amp;"
EVIL_FILE = "h<img src=x onerror=alert(3)>.jsonl"


class Page(HTMLParser):
    """A page's tags (name, attributes) in order, its script bodies and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)

    def rows(self) -> list[dict[str, str | None]]:
        """The summary table's rows (their attributes)."""
        return [attrs for tag, attrs in self.tags if tag == "tr" and "data-guards" in attrs]


def replay_json(cli, *args) -> dict:
    result = cli("replay", "-f", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def replay_html(cli, tmp_path: Path, *args, name: str = "report.html") -> Path:
    target = tmp_path / name
    result = cli("replay", *args, "-o", str(target))
    assert result.exit_code == 0, result.stderr
    return target


def assert_self_contained(text: str) -> Page:
    """One page that loads nothing: no URL anywhere, one script, allowed by its hash."""
    page = Page(text)
    assert text.startswith("<!DOCTYPE html>")
    names = {tag for tag, _ in page.tags}
    assert names <= PAGE_TAGS, names - PAGE_TAGS
    for tag, attrs in page.tags:
        assert not any(key.startswith("on") for key in attrs), (tag, attrs)
        assert not {"src", "srcset", "action", "formaction", "poster", "xmlns", "xlink:href"} & set(attrs), (tag, attrs)
        if "href" in attrs:
            assert re.fullmatch(r"#t\d+", attrs["href"] or ""), attrs  # a link to a timeline of the page
        assert "url(" not in (attrs.get("style") or ""), attrs
    style = text.split("<style>", 1)[1].split("</style>", 1)[0]
    assert "url(" not in style and "@import" not in style and "://" not in style and "://" not in page.scripts[0]
    assert [tag for tag, _ in page.tags].count("script") == 1
    policy = next(attrs["content"] for tag, attrs in page.tags if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy and "unsafe-inline" not in policy.split("script-src")[1]
    return page


# --- the page as HTML ------------------------------------------------------------------


def test_o_report_html_writes_one_self_contained_page_with_a_row_per_trace(cli, tmp_path):
    report = replay_json(cli, str(SAMPLES))
    page = assert_self_contained(replay_html(cli, tmp_path, str(SAMPLES)).read_text(encoding="utf-8"))
    rows = page.rows()
    assert len(rows) == len(report["traces"]) == report["totals"]["traces"]
    for row, trace in zip(rows, report["traces"]):
        assert row["data-guards"].split() == sorted({f["code"] for f in trace["fires"]})
        assert row["data-outcome"] == trace["labels"].get("outcome", "unknown")
        assert row["data-stopped"] == str(int(bool(trace["policy"]["stops"])))
    # Every trace of the samples gets a timeline (fewer than the caps), each marked as in the table.
    sections = [attrs for tag, attrs in page.tags if tag == "details"]
    assert [s["data-guards"] for s in sections] == [r["data-guards"] for r in rows]
    text = "".join(page.text)
    totals = report["totals"]
    saved, whole = totals["saved"], totals["whole"]
    assert f"{saved['tokens']:,}" in text and f"of {whole['tokens']:,} tokens" in text
    assert f"{saved['seconds']:.1f}s" in text and f"of {whole['seconds']:.1f}s" in text
    assert "some estimated" in text  # the samples' tokens are partly estimated, and the page says so


def test_the_summary_figures_are_the_json_reports(cli, tmp_path):
    """Each row's sortable figures are the JSON report's, trace by trace."""
    report = replay_json(cli, str(SAMPLES), str(CORPUS))
    text = replay_html(cli, tmp_path, str(SAMPLES), str(CORPUS)).read_text(encoding="utf-8")
    rows = re.findall(r"<tr data-guards=.*?</tr>", text)
    assert len(rows) == len(report["traces"])
    for row, trace in zip(rows, report["traces"]):
        values = re.findall(r'data-v="([^"]*)"', row)
        assert html.unescape(values[0]) == trace["id"]
        rounds, tokens, seconds = values[2], values[3], values[4]
        assert (int(rounds), int(tokens)) == (trace["rounds"], trace["tokens"])
        assert seconds == ("" if trace["seconds"] is None else repr(trace["seconds"]))
        saved_tokens, saved_seconds = values[-2], values[-1]
        policy = trace["policy"]
        if policy["stops"] or policy["blocked_calls"]:
            assert int(saved_tokens) == policy["saved"]["tokens"]
            assert saved_seconds == ("" if policy["saved"]["seconds"] is None else repr(policy["saved"]["seconds"]))
        if trace["seconds"] is None:
            assert ">unknown</td>" in row  # unknown time is said, never 0
        if trace["tokens_basis"] != "measured":
            assert f">~{trace['tokens']:,}</span>" in row  # estimated tokens are marked


def test_each_rounds_figures_are_the_transcripts(cli, tmp_path):
    """The timeline's tokens per round are the native file's usage, round by round, and
    its result sizes are the recorded results'."""
    source = SAMPLES / "seed000_weather_loop_en.jsonl"
    events = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    text = replay_html(cli, tmp_path, str(source)).read_text(encoding="utf-8")
    rounds = re.findall(r'<div class="rw[^"]*" data-round="(\d+)">.*?<div class="fig">([^<]*)</div>', text)
    usage = [e["usage"] for e in events if e["type"] == "round"]
    assert [int(n) for n, _ in rounds] == list(range(1, len(usage) + 1))
    for (_, figure), used in zip(rounds, usage):
        assert figure == f"{used['input_tokens']:,} in · {used['output_tokens']:,} out"
    sizes = [len(e["content"]) for e in events if e["type"] == "result"]
    shown = [int(n.replace(",", "")) for n in re.findall(r"· ([\d,]+) characters", text)]
    assert shown == sizes
    # The stop is on its round, the rounds after it greyed, and what it cut is said.
    stop = replay_json(cli, str(source))["traces"][0]["policy"]["stops"][0]
    assert f'data-round="{stop["round"]}"' in text
    cut = re.findall(r'<div class="rw cut" data-round="(\d+)"', text)
    assert [int(n) for n in cut] == list(range(stop["round"] + 1, len(usage) + 1))
    assert "not run: the policy stopped before the tools" in text
    assert f"the recorded run found new information at round {stop['new_information']['round']}" in text


def test_a_block_sits_on_the_call_it_refuses_and_a_stale_one_says_so(cli, tmp_path):
    source = SAMPLES / "healthy_fix_and_retest.jsonl"
    trace = replay_json(cli, "--preset", "seeds", str(source))["traces"][0]
    blocks = [f for f in trace["fires"] if f["action"] == "block"]
    assert blocks and all(f["stale"] for f in blocks) and trace["policy"]["stale_blocks"] == len(blocks)
    text = replay_html(cli, tmp_path, "--preset", "seeds", str(source)).read_text(encoding="utf-8")
    for fire in blocks:
        row = re.search(rf'<div class="rw[^"]*" data-round="{fire["round"]}">(.*?)</div></div></div>', text, re.S).group(1)
        call = row.split('<div class="call">', 1)[1]  # the fire comes after the call's name and arguments, inside it
        assert f'>{fire["code"]}</span> <span class="badge a-block">BLOCK</span>' in call
        assert "stale: the call's recorded result changed; the block would have hidden it" in call
    assert f'<span class="tag new" title="blocks that would have hidden a changed result (not counted as saved)">{len(blocks)} stale blocks</span>' in text
    assert "2 blocks would have returned stale data (not counted)" in text


def test_markup_in_every_field_stays_text(cli, tmp_path):
    """A trace id, labels, user text, the model's text, call ids, names, arguments,
    results, an error, an expectation's note and a file name full of markup: the page
    holds it as text only (and the reasons that quote it too)."""
    path = tmp_path / EVIL_FILE
    write_jsonl(path, hostile_events())
    text = replay_html(cli, tmp_path, str(path)).read_text(encoding="utf-8")
    page = assert_self_contained(text)
    assert "\x1b" not in text and "\u202e" not in text  # shown as \x1b and \u202e
    shown = "".join(page.text)
    for piece in ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "<!--", "{{7*7}}", "[bold red]x[/]", "\\x1b[31mANSI", "\\u202eRTL"):
        assert piece in shown, piece  # visible as it was written
    assert "P001" in shown and "weather <script>" in shown  # a reason quoting the queries
    assert "h<img src=x onerror=alert(3)>.jsonl" in shown
    assert len(page.rows()) == 1
    # The other reports are what they were: the markup is the HTML writer's to escape.
    assert json.loads(cli("replay", "-f", "json", str(path)).stdout)["traces"][0]["id"] == "t" + EVIL


def hostile_events() -> list[dict]:
    trace = "t" + EVIL
    events = [
        {"type": "trace", "trace": trace, "format_version": 1},
        {"type": "labels", "trace": trace, "labels": {"outcome": "failure", "scenario" + EVIL: EVIL}},
        {"type": "expect", "trace": trace, "guard": "policy", "fires": False, "note": EVIL},
        {"type": "user", "trace": trace, "text": "user " + EVIL},
    ]
    for number in range(1, 6):
        call = f"c{number}{EVIL}"
        query = json.dumps({"query": "weather " + EVIL + " more" * number})
        events.append(
            {"type": "round", "trace": trace, "round": number, "text": "think " + EVIL, "usage": {"input_tokens": 100 * number, "output_tokens": 10},
             "tool_calls": [{"id": call, "name": "web_search", "arguments": query}]}
        )
        events.append({"type": "result", "trace": trace, "call_id": call, "content": f"result {EVIL}\nhttps://same.example/a"})
    events.append({"type": "end", "trace": trace, "error": "ended " + EVIL})
    return events


def test_the_other_formats_never_carry_the_timeline(cli):
    """Only the HTML report asks for the trace round by round."""
    for format in ("json", "jsonl"):
        result = cli("replay", "-f", format, str(SAMPLES))
        assert '"timeline"' not in result.stdout and '"calls"' not in result.stdout


def test_timelines_are_capped_and_the_page_says_so(cli, tmp_path):
    """Three copies of the samples: every trace in the table, timelines for the first
    25 where no guard fired (and all where one did, fewer than 100)."""
    folder = tmp_path / "copies"
    for copy in ("a", "b", "c"):
        shutil.copytree(SAMPLES, folder / copy)
    report = replay_json(cli, str(folder))
    fired = sum(1 for t in report["traces"] if t["fires"])
    quiet = len(report["traces"]) - fired
    assert quiet > 25 and fired < 100
    page = Page(replay_html(cli, tmp_path, str(folder)).read_text(encoding="utf-8"))
    sections = [attrs for tag, attrs in page.tags if tag == "details"]
    assert len(page.rows()) == len(report["traces"])
    assert sum(1 for s in sections if s["data-guards"]) == fired
    assert sum(1 for s in sections if not s["data-guards"]) == 25
    assert f"the first 25 of the {quiet} traces where none did; the table lists every trace" in "".join(page.text)


def test_the_page_is_written_a_piece_at_a_time_never_whole(tmp_path):
    """Issue 24: the table has a row per trace, so the page is written piece by piece
    (a row, a timeline at a time), never put together in one string whose copies made
    the peak memory grow with the input; the bytes are the page's all the same."""
    import io

    from tracecheck.commands import ReplayRequest, replay
    from tracecheck.config import load_settings

    class Writes(io.BytesIO):
        sizes: list[int] = []

        def write(self, data):
            self.sizes.append(len(data))
            return super().write(data)

    folder = tmp_path / "copies"
    for copy in ("a", "b", "c"):
        shutil.copytree(SAMPLES, folder / copy)
    out = Writes()
    traces = replay(ReplayRequest([str(folder)], load_settings(cwd=ROOT), format="html"), out)
    page = Page(out.getvalue().decode("utf-8"))
    assert len(page.rows()) == traces and out.getvalue().rstrip().endswith(b"</html>")
    assert len(out.sizes) > traces and max(out.sizes) < len(out.getvalue()) / 4


def test_a_long_trace_keeps_its_start_its_end_and_the_rounds_around_its_fires(cli, tmp_path):
    events = [{"type": "trace", "trace": "long", "format_version": 1}, {"type": "user", "trace": "long", "text": "go"}]
    for number in range(1, 501):
        same = 300 <= number <= 305
        events.append(
            {"type": "round", "trace": "long", "round": number, "usage": {"input_tokens": 100 + number, "output_tokens": 10},
             "tool_calls": [{"id": f"c{number}", "name": "read", "arguments": json.dumps({"q": "same" if same else f"q{number}"})}]}
        )
        events.append({"type": "result", "trace": "long", "call_id": f"c{number}", "content": "same" if same else f"r{number}" * 400})
    events.append({"type": "round", "trace": "long", "round": 501, "text": "done"})
    path = write_jsonl(tmp_path / "long.jsonl", events)
    stops = replay_json(cli, "--preset", "seeds", str(path))["traces"][0]["policy"]["stops"]
    text = replay_html(cli, tmp_path, "--preset", "seeds", str(path)).read_text(encoding="utf-8")
    shown = [int(n) for n in re.findall(r'data-round="(\d+)"', text)]
    assert shown[:60] == list(range(1, 61)) and shown[-20:] == list(range(482, 502))
    assert stops and all(stop["round"] in shown for stop in stops)
    gaps = [int(n) for n in re.findall(r'<div class="gap">… (\d+) rounds not shown', text)]
    assert gaps and sum(gaps) + len(shown) == 501
    assert len(text) < 400_000  # 500 results of 1,600 characters: excerpts only


def test_presets_side_by_side_get_a_column_each(cli, tmp_path):
    report = replay_json(cli, "--preset", "default,seeds", str(SAMPLES))
    text = replay_html(cli, tmp_path, "--preset", "default,seeds", str(SAMPLES)).read_text(encoding="utf-8")
    page = assert_self_contained(text)
    heads = re.findall(r"<th[^>]*><button[^>]*>([^<]*)</button></th>", text)
    assert heads[-2:] == ["default", "seeds"]
    assert len(page.rows()) == len(report["traces"])
    shown = "".join(page.text)
    for name, totals in report["totals"]["by_preset"].items():
        assert f"{totals['traces_stopped']} of {totals['traces']}" in shown, name


def test_sweep_writes_its_table_and_frontier_chart(cli, tmp_path):
    args = (str(SAMPLES), "--grid", "P001.containment=0.6,0.8", "--preset", "default,seeds")
    data = json.loads(cli("sweep", *args, "-f", "json").stdout)
    target = tmp_path / "sweep.html"
    assert cli("sweep", *args, "-o", str(target)).exit_code == 0
    text = target.read_text(encoding="utf-8")
    page = assert_self_contained(text)
    # '#' is the rank in the order shown; the grid point's own number is kept beside it.
    rows = re.findall(r'<tr[^>]*><td class="r" data-v="(\d+)" data-grid="(\d+)" title="grid point #(\d+)">(\d+)</td>', text)
    assert [(int(v), int(g), int(n)) for v, g, _, n in rows] == [(k, p["number"], k) for k, p in enumerate(data["points"], 1)]
    assert [int(g) for _, g, _, _ in rows] != list(range(1, len(rows) + 1))  # the grid order is not the order shown
    marks = {(p["metrics"]["harm"], p["metrics"][data["objective"]]) for p in data["points"]}
    circles = [attrs for tag, attrs in page.tags if tag == "circle"]
    assert len(circles) == len(marks)
    assert sum(int(c["data-points"]) for c in circles) == len(data["points"])
    assert sum(1 for c in circles if "best" in c["class"]) == (1 if data["best"] is not None else 0)
    shown = "".join(page.text)
    assert data["verdict"] in shown and "[tool.tracecheck]" in shown
    best = next(p for p in data["points"] if p["best"])
    assert f"{best['metrics']['tokens_saved']:,}" in shown


@pytest.mark.parametrize("command", ["replay", "sweep"])
def test_html_is_not_printed_on_a_terminal(command, tmp_path):
    """On a terminal the page is refused with the hint to write a file; in a pipe it is written."""
    args = [sys.executable, "-m", "tracecheck", command, str(SAMPLES / "seed000_weather_loop_en.jsonl"), "-f", "html"]
    if command == "sweep":
        args += ["--grid", "P001.containment=0.6,0.8"]
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(args, stdout=follower, stderr=subprocess.PIPE, text=True, timeout=60, cwd=tmp_path)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 2
    assert "--format html writes a web page, not text for the terminal: give -o" in done.stderr
    piped = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert piped.returncode == 0 and piped.stdout.startswith("<!DOCTYPE html>")


# --- in a browser ----------------------------------------------------------------------


def _unavailable(reason: str):
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason}; CI must run the browser tests (.ci/run installs Debian's chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module's browser tests (Debian's, never a downloaded one)."""
    if not os.path.exists(CHROMIUM):
        _unavailable(f"Chromium is not installed ({CHROMIUM}; Debian's package 'chromium')")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install '.[dev]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Opened:
    """A page opened from a file, with whatever it logged, raised, asked or fetched."""

    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.as_uri()
        self.page.goto(self.url)

    def visible(self) -> list[tuple[str, str]]:
        """The visible rows of the summary table as (trace id, file:line), in order."""
        return [
            tuple(row)
            for row in self.page.eval_on_selector_all(
                "#traces tbody tr",
                "rows => rows.filter(r => !r.hidden).map(r => [r.cells[0].getAttribute('data-v'), r.cells[0].querySelector('[title]').title])",
            )
        ]

    def close(self) -> None:
        assert self.problems == [] and self.dialogs == []
        assert set(self.requests) == {self.url}  # the page itself, nothing else
        self.page.close()


def where(trace: dict) -> tuple[str, str]:
    return trace["id"], f"{trace['file']}:{trace['line']}" if trace["line"] else trace["file"]


def test_the_report_renders_filters_and_sorts_in_a_browser(browser, cli, tmp_path):
    report = replay_json(cli, str(SAMPLES))
    traces = report["traces"]
    opened = Opened(browser, replay_html(cli, tmp_path, str(SAMPLES)))
    page = opened.page
    assert opened.visible() == [where(t) for t in traces]
    assert page.text_content("#shown") == f"{len(traces)} of {len(traces)} traces shown"

    def shown_with(guard: str, outcome: str = "") -> list[tuple[str, str]]:
        page.select_option("#f-guard", guard)
        page.select_option("#f-outcome", outcome)
        visible = opened.visible()
        sections = page.eval_on_selector_all("details.trace", "s => s.filter(x => !x.hidden).length")
        assert sections == len(visible)  # the timelines follow the filter (every sample has one)
        assert page.text_content("#shown") == f"{len(visible)} of {len(traces)} traces shown"
        return visible

    for code in report["totals"]["by_guard"]:
        expected = [where(t) for t in traces if any(f["code"] == code for f in t["fires"])]
        assert shown_with(f"code:{code}") == expected, code
    assert shown_with("none") == [where(t) for t in traces if not t["fires"]]
    assert shown_with("stopped") == [where(t) for t in traces if t["policy"]["stops"]]
    for outcome in ("success", "failure", "unknown"):
        assert shown_with("", outcome) == [where(t) for t in traces if t["labels"].get("outcome", "unknown") == outcome], outcome
    both = shown_with("any", "success")
    assert both == [where(t) for t in traces if t["fires"] and t["labels"].get("outcome") == "success"] and both
    shown_with("", "")

    # Sorting: tokens ascending, then descending (ties keep the report's order).
    page.click("#traces thead th:nth-child(4) button")
    assert opened.visible() == [where(t) for t in sorted(traces, key=lambda t: t["tokens"])]
    page.click("#traces thead th:nth-child(4) button")
    assert opened.visible() == [where(t) for t in sorted(traces, key=lambda t: -t["tokens"])]
    assert page.get_attribute("#traces thead th:nth-child(4)", "aria-sort") == "descending"

    # A trace's link opens its timeline.
    page.click("#traces tbody tr:first-child td:first-child a")
    target = page.evaluate("location.hash").lstrip("#")
    assert page.evaluate(f"document.getElementById('{target}').open") is True

    shot = tmp_path / "report.png"
    page.goto(opened.url)
    page.screenshot(path=str(shot))
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 900)
    assert len(png) > 30_000  # a page, not a blank
    opened.close()


def test_markup_in_a_trace_runs_nothing_in_a_browser(browser, cli, tmp_path):
    path = tmp_path / EVIL_FILE
    write_jsonl(path, hostile_events())
    opened = Opened(browser, replay_html(cli, tmp_path, str(path)))
    page = opened.page
    page.wait_for_timeout(200)  # an injected handler would have fired by now
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed, link, base, form').length") == 0
    assert page.evaluate("document.scripts.length") == 1
    assert page.evaluate("[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length") == 0
    assert "<script>alert(1)</script>" in page.text_content("#traces tbody tr td")
    assert page.title() == "tracecheck replay"
    opened.close()  # no dialog, no console error, no request


def test_the_sweep_page_draws_its_frontier_in_a_browser(browser, cli, tmp_path):
    args = (str(SAMPLES), "--grid", "P001.containment=0.6,0.8", "--preset", "default,seeds")
    data = json.loads(cli("sweep", *args, "-f", "json").stdout)
    target = tmp_path / "sweep.html"
    assert cli("sweep", *args, "-o", str(target)).exit_code == 0
    opened = Opened(browser, target)
    page = opened.page
    assert page.evaluate("document.querySelectorAll('svg#frontier circle.point').length") >= 2
    box = page.locator("svg#frontier").bounding_box()
    assert box["width"] > 400 and box["height"] > 150
    numbers = lambda: [int(n) for n in page.eval_on_selector_all("#grid tbody tr", "rows => rows.map(r => r.cells[0].textContent)")]
    assert numbers() == list(range(1, len(data["points"]) + 1))
    page.click("#grid thead th:nth-child(1) button")
    assert numbers() == list(range(1, len(data["points"]) + 1))
    page.click("#grid thead th:nth-child(1) button")
    assert numbers() == list(range(len(data["points"]), 0, -1))
    opened.close()


def test_figures_are_written_as_in_the_other_human_formats(cli, tmp_path):
    """Seconds to one decimal with thousands separated (4,624.9s), everywhere on the
    page; a trace named by its file and line is named once in its row."""
    text = replay_html(cli, tmp_path, str(SAMPLES), str(CORPUS)).read_text(encoding="utf-8")
    shown = html.unescape(re.sub(r"<[^>]+>", " ", text))
    report = replay_json(cli, str(SAMPLES), str(CORPUS))
    assert f"of {report['totals']['whole']['seconds']:,.1f}s" in shown
    assert not re.search(r"\b\d{4,}\.\ds\b", shown), re.findall(r"\b\d{4,}\.\ds\b", shown)
    (row,) = [r for r in re.findall(r"<tr data-guards=.*?</tr>", text) if 'data-v="healthy_progressive_search.json:1"' in r]
    first = re.search(r"<td[^>]*>(.*?)</td>", row).group(1)
    assert html.unescape(re.sub(r"<[^>]+>", " ", first)).split() == ["healthy_progressive_search.json:1"]


def test_the_sweep_table_writes_figures_as_the_markdown_table(cli, tmp_path):
    args = (str(SAMPLES), "--grid", "P001.containment=0.6,0.8")
    target = tmp_path / "sweep.html"
    assert cli("sweep", *args, "-o", str(target)).exit_code == 0
    markdown = cli("sweep", *args, "-f", "markdown").stdout
    table = target.read_text(encoding="utf-8").split('<table id="grid"', 1)[1]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("<tbody>", 1)[1])
    lines = [line for line in markdown.splitlines() if line.startswith("| ") and line.split(" | ")[1][:1].isdigit()]
    assert len(rows) == len(lines) == 2
    for row, line in zip(rows, lines):
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(?:<b>)?(.*?)(?:</b>)?</td>", row)]
        assert cells[3:] == [c.strip() for c in line.strip("|").split("|")][2:]  # after #, mark and the setting


def test_long_trace_ids_wrap_inside_the_table_in_a_browser(browser, cli, tmp_path):
    """Ids with no space for a long way (τ²-bench's telecom task names) wrap in their
    column: the table stays inside the page at 1280 pixels, as wide as the cards above it."""
    opened = Opened(browser, replay_html(cli, tmp_path, str(CORPUS)))
    right = opened.page.evaluate("document.getElementById('traces').getBoundingClientRect().right")
    cards = opened.page.evaluate("document.querySelector('.cards').getBoundingClientRect().right")
    assert right <= cards + 1 and opened.page.evaluate("document.documentElement.scrollWidth") <= 1280
    opened.close()


def test_the_table_fits_a_1024_pixel_window_in_a_browser(browser, cli, tmp_path):
    """Below 1,100 pixels the trace and policy columns give up their wide minimums, so the
    page does not scroll sideways on a laptop's half screen."""
    opened = Opened(browser, replay_html(cli, tmp_path, str(SAMPLES)))
    opened.page.set_viewport_size({"width": 1024, "height": 800})
    assert opened.page.evaluate("document.documentElement.scrollWidth") <= 1024
    opened.close()


TAU2_SWEEP = (str(CORPUS / "tau2-bench"), "--preset", "default,seeds", "--grid", "P001.containment=0.6,0.8", "--grid", "R001.stop_at=2,3")


def test_graded_runs_are_named_by_their_grade_on_the_sweep_page(cli, tmp_path):
    """τ²-bench's runs carry the grader's reward as their outcome: where one setting
    alone changes what happens to such a run, the page calls it a graded failure, not
    unlabelled; the table's titles may wrap, so that it fits the window."""
    data = json.loads(cli("sweep", *TAU2_SWEEP, "-f", "json").stdout)
    assert data["disagreements"] and {d["kind"] for d in data["disagreements"]} == {"unlabelled"}
    assert {d["outcome"] for d in data["disagreements"]} == {"failure"}
    target = tmp_path / "sweep.html"
    assert cli("sweep", *TAU2_SWEEP, "-o", str(target)).exit_code == 0
    text = target.read_text(encoding="utf-8")
    shown = "".join(assert_self_contained(text).text)
    assert "(unlabelled)" not in shown
    for item in data["disagreements"]:
        assert f"{item['trace']} (graded failure): first stop or block" in shown
    assert "#grid thead th{white-space:normal" in text  # titles wrap (the browser test measures the width)


def test_the_sweep_table_fits_1280_pixels_in_a_browser(browser, cli, tmp_path):
    """Three dimensions and the savings by outcome (17 columns): the last one, precision,
    ends inside a 1,280-pixel window and the page does not scroll sideways."""
    target = tmp_path / "sweep.html"
    assert cli("sweep", *TAU2_SWEEP, "-o", str(target)).exit_code == 0
    opened = Opened(browser, target)
    page = opened.page
    heads = page.eval_on_selector_all("#grid thead th", "cells => cells.map(c => [c.textContent, c.getBoundingClientRect().right])")
    assert len(heads) == 17 and heads[-1][0] == "precision"
    assert heads[-1][1] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    opened.close()


def test_an_error_result_is_marked_as_show_marks_it(cli, tmp_path):
    """A result the format flags as an error, and one it does not flag whose text reads
    as a failure, carry the error style and the word; a successful one does not; the
    result's markup stays text."""
    events = [{"type": "trace", "trace": "e", "format_version": 1}, {"type": "user", "trace": "e", "text": "fetch"}]
    results = [
        {"content": "HTTP 503 Service Unavailable <u>retry</u>", "is_error": True},
        {"content": "Traceback (most recent call last):\n  File \"x.py\"\nConnectionError: <i>503</i>"},
        {"content": "{\"status\": 200, \"body\": \"ok\"}", "is_error": False},
    ]
    for number, result in enumerate(results, 1):
        events.append({"type": "round", "trace": "e", "round": number, "tool_calls": [{"id": f"c{number}", "name": "http_get", "arguments": "{}"}]})
        events.append({"type": "result", "trace": "e", "call_id": f"c{number}", **result})
    events.append({"type": "round", "trace": "e", "round": 4, "text": "done"})
    source = write_jsonl(tmp_path / "errors.jsonl", events)
    assert "← error HTTP 503 Service Unavailable <u>retry</u>" in cli("show", str(source)).stdout
    text = replay_html(cli, tmp_path, str(source)).read_text(encoding="utf-8")
    page = assert_self_contained(text)
    assert not {"u", "i"} & {tag for tag, _ in page.tags}
    shown = re.findall(r'<div class="res ([^"]*)">← (.*?)<pre>(.*?)</pre>', text, re.S)
    assert [(cls, html.unescape(pre)) for cls, _, pre in shown] == [
        ("err", results[0]["content"]), ("err", results[1]["content"]), ("", results[2]["content"])
    ]
    flagged, read, ok = (marker for _, marker, _ in shown)
    assert flagged.startswith('<span class="badge r-err">error</span>')
    assert read.startswith('<span class="badge r-err" title="the format records no error flag: its text reads as a failure">error</span>')
    assert ok.startswith("ok") and "error" not in ok
