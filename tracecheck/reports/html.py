"""The replay report as one self-contained HTML page (``replay --format html``).

A summary table of every trace (sortable, filterable by guard and by outcome) under the
run's totals, then, per trace, its timeline round by round: tokens and seconds as bars,
the calls with their arguments and result excerpts, the user's turns, each guard's fires
on their round, the policy's stop with what it saves and the rounds it would have cut,
and the warnings the recording gives (a stale block, a stop before new information).

The page loads nothing: inline CSS, a short inline script (sorting, filtering) allowed
by its hash in the page's Content-Security-Policy, no URL at all. It is rendered here,
on the server side: every piece of trace text is HTML-escaped (and its control and
invisible characters made visible) before it is written, and the script reads the page
with ``textContent`` and attributes only, never writing markup.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Callable, Iterator
from typing import Any

from ..model import OUTCOMES, place_text
from ..text.textsafe import neutralize, neutralize_lines, one_line, single_line
from .data import after_policy_stop, count_unchecked
from .records import CallRecord, FireRecord, GapRecord, HeaderRecord, PolicyRecord, RoundRecord, StopRecord, TotalsRecord, TraceRecord
from .wording import (
    BASIS_NOTES,
    basis_note,
    count,
    effect,
    enable_hint,
    location,
    number,
    outcome_lines,
    pct,
    policy_headline,
    policy_notes,
    recorded_text,
    seconds,
    shown_id,
    stops_text,
    unchecked_remedy,
    where_text,
)
from .rounds import CALL_ID_CHARS

FIRED_TIMELINES = 100  # timelines for the first traces where a guard fired ...
QUIET_TIMELINES = 25  # ... and for the first traces where none did; the table lists every trace

# The class of each kind of policy note on the page (see ``wording.policy_notes``).
NOTE_CLASSES = {"note": "note", "stale": "warn", "news": "warn", "change": "warn", "harm": "bad"}
PHASES = {"before_tools": "before tools", "after_tools": "after tools", "final": "final"}


# --- text ---------------------------------------------------------------------------


def esc(value: Any, limit: int | None = None) -> str:
    """Untrusted text as one line of HTML text: controls and invisible characters
    visible, ``<``, ``>``, ``&`` and quotes escaped (safe in attributes too)."""
    text = neutralize(str(value))
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


def esc_lines(value: str) -> str:
    """Untrusted multi-line text (an excerpt) as HTML text for a ``pre-wrap`` block."""
    return html.escape(neutralize_lines(value), quote=True)


def tokens_text(value: int | None, basis: str) -> str:
    """A token figure, ``~`` before it when it is not measured (the title says how)."""
    if basis == "measured":
        return number(value)
    return f'<span class="est" title="{esc(BASIS_NOTES.get(basis, basis).strip(" ()"))}">~{number(value)}</span>'


def sort_value(value: float | int | None) -> str:
    return "" if value is None else repr(value)


def outcome_of(trace: TraceRecord) -> tuple[str, str]:
    """(filter category, shown label): the category is one of success, failure, unknown
    (no label counts as unknown, as the engine counts it)."""
    label = trace.labels.get("outcome")
    if label is None:
        return "unknown", "unknown"
    return (label if label in OUTCOMES else "unknown"), str(label)


# --- the page -----------------------------------------------------------------------

STYLE = """
:root{--ink:#1d2330;--dim:#5d6677;--faint:#8a93a3;--line:#e3e7ee;--bg:#f6f7f9;--card:#fff;
--in:#9fbbe3;--out:#2f63b5;--llm:#b49ae6;--tool:#e6a948;--stop:#c62828;--warn:#b26a00;--ok:#2e7d32;--hint:#00838f;--block:#b26a00;--reject:#8e24aa}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1400px;margin:0 auto;padding:20px 24px 60px}
h1{font-size:22px;margin:0 0 2px}h2{font-size:17px;margin:28px 0 10px}
.sub{color:var(--dim);margin:0 0 14px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(210px,1fr));gap:10px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.card .k{color:var(--dim);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
.card .n{color:var(--dim);font-size:12.5px}
.facts{margin:6px 0}.facts span{margin-right:14px}
.note{color:var(--dim);font-size:12.5px;margin:4px 0}
.warn{color:var(--warn)}.bad{color:var(--stop);font-weight:600}.good{color:var(--ok)}
.controls{display:flex;flex-wrap:wrap;gap:16px;align-items:center;margin:16px 0 8px}
.controls label{color:var(--dim)}select{font:inherit;padding:3px 6px;border:1px solid #c8ceda;border-radius:5px;background:#fff}
table{border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:8px;width:100%}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{position:sticky;top:0;background:#eef1f6;z-index:1;font-size:12.5px;white-space:nowrap}
th button{all:unset;cursor:pointer;font-weight:600}th button:focus-visible{outline:2px solid var(--out)}
th[aria-sort=ascending] button::after{content:" ▲";font-size:10px}th[aria-sort=descending] button::after{content:" ▼";font-size:10px}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:#f3f6fb}
td .where{color:var(--faint);font-size:12px;overflow-wrap:anywhere}
#traces td:first-child{max-width:380px;min-width:230px;overflow-wrap:anywhere}#traces td.pol{min-width:250px}
@media (max-width:1100px){#traces td:first-child{min-width:150px}#traces td.pol{min-width:160px}th,td{padding:5px 6px}thead th{white-space:normal}}
td .tag{white-space:nowrap}
a{color:#1f5fbf;text-decoration:none}a:hover{text-decoration:underline}
.badge{display:inline-block;border-radius:4px;padding:0 5px;font-size:12px;font-weight:600;margin:1px 2px 1px 0;border:1px solid transparent;white-space:nowrap}
.o-success{background:#e6f4ea;color:var(--ok)}.o-failure{background:#fdecea;color:var(--stop)}.o-unknown{background:#eef0f4;color:var(--dim)}
.code{background:#eef1f6;color:var(--ink)}
.a-hint{color:var(--hint);border-color:#9fd3d8}.a-block{color:var(--block);border-color:#f0cf9c}.a-reject{color:var(--reject);border-color:#dcb4e6}
.a-stop,.a-abort{color:#fff;background:var(--stop)}
.est{border-bottom:1px dotted var(--faint)}
details.trace{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:12px 0;padding:0 14px}
details.trace>summary{cursor:pointer;padding:10px 0;list-style-position:outside}
details.trace>summary h3{display:inline;font-size:15px;margin:0}
details.trace[open]>summary{border-bottom:1px solid var(--line);margin-bottom:8px}
.policy{border-left:4px solid var(--stop);background:#fff5f5;padding:6px 10px;margin:8px 0;border-radius:0 6px 6px 0}
.policy.none{border-color:var(--ok);background:#f3faf4}
.labels{color:var(--dim);font-size:12.5px}
.tl{margin:10px 0 14px}
.rw{display:grid;grid-template-columns:64px 200px 1fr;gap:12px;padding:7px 0;border-top:1px solid var(--line)}
.rn{font-weight:600;color:var(--dim);font-variant-numeric:tabular-nums}
.bar{display:flex;height:9px;background:#eef1f6;border-radius:3px;overflow:hidden;margin-top:4px}
.bar span{display:block;height:100%}
.bar .in{background:var(--in)}.bar .out{background:var(--out)}.bar .llm{background:var(--llm)}.bar .tool{background:var(--tool)}
.fig{font-size:11.5px;color:var(--dim);font-variant-numeric:tabular-nums;white-space:nowrap}
.say{font-style:italic;color:#333b4a}
.call{margin:3px 0 5px;padding-left:10px;border-left:2px solid var(--line)}
.call .nm{font-weight:600}.call .args{display:inline;color:#374151}
.res{color:var(--dim);margin-top:2px;font-size:12.5px}
.call.notrun{opacity:.55}.call.notrun .nm,.call.notrun .args{text-decoration:line-through;text-decoration-color:var(--stop)}.res.err{color:var(--stop)}
.res pre{display:block;background:#f8f9fb;border-radius:4px;padding:3px 6px;color:#374151;max-height:9.5em;overflow:auto}
.res.err pre{background:#fdf1f0;color:#8a1c12;border-left:3px solid var(--stop)}.badge.r-err{color:#fff;background:var(--stop)}
.fire{margin:4px 0;padding:3px 8px;border-radius:5px;background:#fbf6e9;font-size:13px}
.fire.ends{background:#fdecea}.fire.alone{opacity:.7}
.fire .why{color:#39404d}
.user{margin-top:8px;padding:6px 10px;background:#f3effa;border-radius:6px}
.user b{color:#6a3fb5;font-size:12.5px}.user pre,pre.say{font-family:inherit;font-size:13.5px}
.turn{font-weight:600;color:#6a3fb5;margin-top:10px}
.stopline{border:2px solid var(--stop);border-radius:6px;padding:6px 10px;margin:6px 0;background:#fff5f5}
.stopline b{color:var(--stop)}
.cut{opacity:.45;background:repeating-linear-gradient(135deg,transparent 0 8px,#f1f2f5 8px 16px)}
.cut .rn::after{content:"\\A not run";white-space:pre;font-weight:400;font-size:10.5px}
.tag{font-size:11.5px;border-radius:3px;padding:0 4px;background:#eef1f6;color:var(--dim);margin:2px 4px 0 0;display:inline-block}
.rn .tag{display:block;width:max-content;margin:3px 0 0}
.tag.new{background:#fff3cd;color:var(--warn)}.tag.fin{background:#e6f4ea;color:var(--ok)}.tag.err{background:#fdecea;color:var(--stop)}
.gap{color:var(--faint);text-align:center;padding:6px;border-top:1px dashed var(--line)}
.legend{display:flex;flex-wrap:wrap;gap:14px;font-size:12.5px;color:var(--dim);margin:4px 0 10px}
.sw{display:inline-block;width:12px;height:9px;border-radius:2px;margin-right:4px;vertical-align:middle}
svg text{font:11.5px system-ui,sans-serif;fill:var(--dim)}svg text.pl{fill:var(--ink);font-weight:600}
.chart{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px;max-width:900px}.chart svg{width:100%;height:auto}
tr.best td{background:#eef8f0}
/* The sweep's table fits the window (1,280 pixels and less): titles wrap between words, settings anywhere; figures never */
#grid thead th{white-space:normal;vertical-align:bottom}#grid th,#grid td{padding:5px 7px}
ul.warnings{font-size:12.5px;color:var(--warn)}
"""

SCRIPT = """
(function () {
  "use strict";
  var sortable = function (table, sorted) {
    var body = table.tBodies[0];
    var order = Array.prototype.slice.call(body.rows);
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      var button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.getAttribute("data-sort") === "num";
        var keyed = order.map(function (row, index) {
          var cell = row.cells[column];
          var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
          var key = numeric ? parseFloat(raw) : raw.toLowerCase();
          return { row: row, index: index, key: key, none: numeric ? isNaN(key) : raw === "" };
        });
        keyed.sort(function (a, b) {
          if (a.none !== b.none) return a.none ? 1 : -1;
          if (!a.none && a.key !== b.key) return (a.key < b.key ? -1 : 1) * (ascending ? 1 : -1);
          return a.index - b.index;
        });
        keyed.forEach(function (item) { body.appendChild(item.row); });
        if (sorted) sorted(keyed.map(function (item) { return item.row; }));
      });
    });
  };
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (table.id !== "traces") sortable(table, null);
  });
  var table = document.getElementById("traces");
  if (table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var sections = Array.prototype.slice.call(document.querySelectorAll("[data-filtered]"));
    var guard = document.getElementById("f-guard");
    var outcome = document.getElementById("f-outcome");
    var shown = document.getElementById("shown");
    var matches = function (el) {
      var g = guard ? guard.value : "";
      var o = outcome ? outcome.value : "";
      var codes = (el.getAttribute("data-guards") || "").split(" ").filter(Boolean);
      if (g === "any" && !codes.length) return false;
      if (g === "none" && codes.length) return false;
      if (g === "stopped" && el.getAttribute("data-stopped") !== "1") return false;
      if (g.indexOf("code:") === 0 && codes.indexOf(g.slice(5)) < 0) return false;
      return !o || el.getAttribute("data-outcome") === o;
    };
    var apply = function () {
      var visible = 0;
      rows.forEach(function (row) { row.hidden = !matches(row); if (!row.hidden) visible++; });
      sections.forEach(function (section) { section.hidden = !matches(section); });
      if (shown) shown.textContent = visible + " of " + rows.length + " traces shown";
    };
    if (guard) guard.addEventListener("change", apply);
    if (outcome) outcome.addEventListener("change", apply);
    sortable(table, function (sorted) { rows = sorted; });
    apply();
  }
  var openTarget = function () {
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  };
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
"""


def page(title: str, body: str) -> str:
    """A whole page: ``body`` (HTML already escaped) with the style and the script, and a
    Content-Security-Policy that loads nothing and runs no script but this one."""
    head, tail = page_ends(title)
    return head + body + tail


def page_ends(title: str) -> tuple[str, str]:
    """What comes before a page's body and after it (see ``page``), for a writer that
    writes the body in pieces."""
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    head = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
    )
    return head, f"\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"


def badge(text: str, cls: str, title: str | None = None) -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="badge {cls}"{tip}>{esc(text)}</span>'


def sortable(title: str, kind: str = "text", right: bool = False, tip: str | None = None) -> str:
    """A header cell the script sorts by (``kind``: num or text)."""
    attrs = f' data-sort="{kind}"' + (' class="r"' if right else "") + (f' title="{esc(tip)}"' if tip else "")
    return f'<th{attrs}><button type="button">{esc(title)}</button></th>'


# --- policy words (as the terminal report says them) ----------------------------------


def page_notes(policy: PolicyRecord, turns: int) -> list[tuple[str, str]]:
    """The notes under a policy line, with their class: what the terminal prints."""
    return [(text, NOTE_CLASSES[kind]) for text, kind in policy_notes(policy, turns)]


def policy_line(policy: PolicyRecord, trace: TraceRecord) -> str:
    return esc(policy_headline(policy, trace) or "no stop")


def short_notes(policy: PolicyRecord, broken: int = 0) -> str:
    """The warnings about a policy, as short tags for a table cell."""
    tags = []
    if policy.possible_harm:
        tags.append(("err", "harm", policy.possible_harm))
    if any(stop.new_information for stop in policy.stops):
        tags.append(("new", "cut before new information", "the recorded run found new information in the rounds the policy cuts"))
    if policy.stale_blocks:
        tags.append(("new", count(policy.stale_blocks, "stale block"), "blocks that would have hidden a changed result (not counted as saved)"))
    if policy.outcome_change:
        tags.append(("", policy.outcome_change, "what the run would end with"))
    if broken:
        tags.append(("err", f"{count(broken, 'expectation')} broken", "expectations about the policy that this preset breaks"))
    if not tags:
        return ""
    return "<div>" + "".join(f'<span class="tag {c}" title="{esc(tip)}">{esc(text)}</span>' for c, text, tip in tags) + "</div>"


def saved_cells(policy: PolicyRecord, trace: TraceRecord) -> str:
    """The tokens and seconds a trace's policy saves, as two sortable cells."""
    saved = policy.saved
    acted = bool(policy.stops or policy.blocked_calls)
    if not acted:
        return '<td class="r" data-v="0">–</td><td class="r" data-v="0">–</td>'
    tokens = saved.tokens
    shown = ("costs " if tokens < 0 else "") + tokens_text(abs(tokens), saved.tokens_basis) + esc(pct(abs(tokens), trace.tokens))
    secs = saved.seconds
    if secs is None:
        time = "unknown"
    else:
        time = ("costs " if secs < 0 else "") + esc(f"{seconds(abs(secs))}{pct(abs(secs), trace.seconds)}")
    return f'<td class="r" data-v="{sort_value(tokens)}">{shown}</td><td class="r" data-v="{sort_value(secs)}">{time}</td>'


# --- the writer ---------------------------------------------------------------------


class HtmlWriter:
    """Collects the summary rows and the first timelines as traces stream in, and writes
    the page at the end (the totals lead it)."""

    def __init__(
        self, write: Callable[[str], Any], *, only_fires: bool = False, fired_timelines: int = FIRED_TIMELINES, quiet_timelines: int = QUIET_TIMELINES
    ) -> None:
        self.write = write
        self.only_fires = only_fires
        self.limits = {True: fired_timelines, False: quiet_timelines}
        self.seen = {True: 0, False: 0}  # traces listed, with and without fires
        self.drawn = {True: 0, False: 0}  # ... of which with a timeline
        self.header: HeaderRecord = {}
        self.presets: list[str] = []
        self.rows: list[str] = []
        self.sections: list[str] = []
        self.codes: dict[str, int] = {}  # guard code -> traces listed where it fired
        self.outcomes: dict[str, int] = {}
        self.unchecked: dict[str, int] = {}
        self.differing: list[str] = []

    def begin(self, header: HeaderRecord) -> None:
        self.header = header
        self.presets = header.presets or ()

    # -- one trace

    def trace(self, trace: TraceRecord) -> None:
        row_number = len(self.rows) + 1
        fired = bool(trace.fires) or any(run.fires for run in (trace.presets or {}).values())
        codes = sorted({fire.code for fire in trace.fires})
        for code in codes:
            self.codes[code] = self.codes.get(code, 0) + 1
        category, label = outcome_of(trace)
        self.outcomes[category] = self.outcomes.get(category, 0) + 1
        count_unchecked(self.unchecked, trace)
        self.seen[fired] += 1
        timeline = trace.timeline is not None and self.drawn[fired] < self.limits[fired]
        if timeline:
            self.drawn[fired] += 1
        stopped = bool(trace.policy.stops)
        attrs = f'data-guards="{esc(" ".join(codes))}" data-outcome="{esc(category)}" data-stopped="{int(stopped)}"'
        self.rows.append(self._row(row_number, trace, attrs, label, category, codes, timeline))
        if timeline:
            self.sections.append(self._section(row_number, trace, attrs, label, category, fired))

    def _row(self, row_number: int, trace: TraceRecord, attrs: str, label: str, category: str, codes: list[str], timeline: bool) -> str:
        place = location(trace)
        short = place_text(trace.file.replace("\\", "/").rsplit("/", 1)[-1], trace.line, trace.pointer)
        ident = shown_id(trace)
        # A trace named by its file and line: that name once, the full path on hover.
        name = esc(trace.id, 200) if ident is not None else f'<span title="{esc(place)}">{esc(short, 120)}</span>'
        link = f'<a href="#t{row_number}">{name}</a>' if timeline else name
        where = f'<div class="where" title="{esc(place)}">{esc(short, 120)}</div>' if ident is not None and short != trace.id else ""
        cells = [
            f'<td data-v="{esc(trace.id, 200)}">{link}{where}</td>',
            f'<td data-v="{esc(label)}">{badge(label, "o-" + category)}</td>',
            f'<td class="r" data-v="{trace.rounds}">{number(trace.rounds)}'
            + (f'<div class="where">{trace.turns} turns</div>' if trace.turns > 1 else "")
            + "</td>",
            f'<td class="r" data-v="{trace.tokens}">{tokens_text(trace.tokens, trace.tokens_basis)}</td>',
            f'<td class="r" data-v="{sort_value(trace.seconds)}">{seconds(trace.seconds)}</td>',
        ]
        fires_by_code: dict[str, int] = {}
        for fire in trace.fires:
            fires_by_code[fire.code] = fires_by_code.get(fire.code, 0) + 1
        fired = " ".join(
            badge(code + (f" ×{fires_by_code[code]}" if fires_by_code[code] > 1 else ""), "code") for code in codes
        )
        cells.append(f'<td data-v="{len(trace.fires)}">{fired or "–"}</td>')
        if self.presets:
            for run in trace.presets.values():
                policy = run.policy
                text = policy_line(policy, trace)
                extra = short_notes(policy, run.expectations_broken)
                cells.append(f'<td class="pol" data-v="{sort_value(policy.saved.tokens)}">{text}{extra}</td>')
        else:
            policy = trace.policy
            if policy.stops:
                first = policy.stops[0]
                text = esc(stops_text(policy, trace.turns))
                key = first.round
            elif policy.blocked_calls:
                text, key = esc(f"no stop; {count(policy.blocked_calls, 'call')} blocked"), 10**9
            else:
                text, key = ("no stop" if trace.fires else "–"), 10**9 + 1
            cells.append(f'<td class="pol" data-v="{key}">{text}{short_notes(policy)}</td>')
            cells.append(saved_cells(policy, trace))
        return f"<tr {attrs}>" + "".join(cells) + "</tr>"

    # -- one trace's timeline

    def _section(self, row_number: int, trace: TraceRecord, attrs: str, label: str, category: str, fired: bool) -> str:
        turns = trace.turns
        place = location(trace)
        facts = [count(turns, "turn")] if turns > 1 else []
        facts += [count(trace.rounds, "round"), count(trace.tool_calls, "tool call")]
        facts.append(f"{number(trace.tokens)} tokens{basis_note(trace)}")
        if trace.seconds is not None:
            facts.append(seconds(trace.seconds))
        if not trace.answered:
            facts.append("ended without an answer" + (f": {one_line(trace.error, 120)}" if trace.error else ""))
        codes = sorted({fire.code for fire in trace.fires})
        head = (
            f'<summary><h3>{esc(trace.id, 200)}</h3> {badge(label, "o-" + category)} '
            + " ".join(badge(code, "code") for code in codes)
            + f'<div class="where">{esc(place, 240)} · {esc(trace.format)} · {esc(" · ".join(facts))}</div></summary>'
        )
        parts = [head]
        others = [(k, v) for k, v in trace.labels.items() if k != "outcome"]
        if others:
            parts.append('<div class="labels">' + "<br>".join(f"{esc(k, 60)}: {esc(v, 240)}" for k, v in others) + "</div>")
        for item in trace.expectations:
            if item.met is False:
                said = item.message + (f" ({item.note})" if item.note else "")
                parts.append(f'<div class="bad">✗ expectation broken: {esc(said, 400)}</div>')
            elif item.unknown_guard:
                parts.append(f'<div class="warn">? expectation not checked: {esc(item.message, 400)}</div>')
        parts.append(self._policy_box(trace))
        comparison = trace.tokenizer_comparison
        if comparison and comparison.differs:
            runs = " · ".join(
                f"{r.tokenizer}: {'stop at round ' + str(r.fires_at) if r.fires_at else 'no stop'}" for r in comparison.runs
            )
            parts.append(f'<div class="note warn">P001 tokenizers differ: {esc(runs)}</div>')
        parts.append(self._timeline(trace))
        opened = " open" if fired else ""
        return f'<details class="trace" id="t{row_number}" data-filtered {attrs}{opened}>' + "\n".join(parts) + "</details>"

    def _policy_box(self, trace: TraceRecord) -> str:
        if self.presets:
            lines = []
            for name, run in trace.presets.items():
                notes = "".join(f'<div class="{c} note">{esc(t, 300)}</div>' for t, c in page_notes(run.policy, trace.turns))
                lines.append(f"<div><b>{esc(name)}</b>: {policy_line(run.policy, trace)}{notes}</div>")
            first = esc(self.presets[0])
            return (
                '<div class="policy">' + "".join(lines)
                + f'<div class="note">the timeline shows the fires and stops of {first}, the first preset</div></div>'
            )
        policy = trace.policy
        if not trace.fires:
            return '<div class="policy none good">no guard fired</div>'
        cls = "policy" if policy.stops else "policy none"
        notes = "".join(f'<div class="{c} note">{esc(t, 300)}</div>' for t, c in page_notes(policy, trace.turns))
        return f'<div class="{cls}"><b>policy:</b> {policy_line(policy, trace)}{notes}</div>'

    def _timeline(self, trace: TraceRecord) -> str:
        timeline = trace.timeline
        rows = [row for row in timeline.rows if isinstance(row, RoundRecord)]
        turns = trace.turns
        policy = trace.policy
        last_of_turn = {span.turn: span.last_round for span in trace.turn_rounds}
        cut: set[int] = set()
        not_run: set[int] = set()
        stop_at: dict[int, StopRecord] = {}
        for stop in policy.stops:
            end = trace.rounds if stop.action == "abort" else last_of_turn.get(stop.turn, trace.rounds)
            cut.update(range(stop.round + 1, end + 1))
            if stop.phase == "before_tools":
                not_run.add(stop.round)
            stop_at[stop.round] = stop
        news = {stop.new_information.round: stop.new_information.what for stop in policy.stops if stop.new_information}
        fires_at: dict[int, list[FireRecord]] = {}
        for fire in trace.fires:
            fires_at.setdefault(fire.round, []).append(fire)
        # The fires that are the policy's stops: their stop line says what they cut.
        points = {(s.turn, s.round, s.phase, s.code) for s in policy.stops}
        policy_stops = {id(f) for f in trace.fires if f.action in ("stop", "abort") and (f.turn, f.round, f.phase, f.code) in points}
        alone = after_policy_stop(trace)  # fires after the policy left their turn

        most_tokens = max([r.input_tokens + r.output_tokens for r in rows] + [1])
        most_seconds = max([(r.llm_seconds or 0) + (r.tool_seconds or 0) for r in rows] + [0.001])
        out = ['<div class="tl">']
        turn_shown = 0
        for row in timeline.rows:
            if isinstance(row, GapRecord):
                out.append(f'<div class="gap">… {count(row.gap, "round")} not shown (a long trace keeps its start, its end and the rounds around each fire) …</div>')
                continue
            opens = turns > 1 and row.turn != turn_shown
            turn_shown = row.turn
            if row.user is not None:
                said = f"turn {row.turn} · user" if opens else "user"
                out.append(f'<div class="user"><b>{said}</b><pre>{esc_lines(row.user)}</pre></div>')
            elif opens:
                out.append(f'<div class="turn">turn {row.turn}</div>')
            out.append(self._round(row, fires_at.get(row.round, []), alone, policy_stops, row.round in cut, row.round in not_run, news.get(row.round), most_tokens, most_seconds, turns))
            stop = stop_at.get(row.round)
            if stop is not None:
                out.append(self._stop_line(stop, trace, turns))
        for text in timeline.user_after:
            out.append(f'<div class="user"><b>user</b> (after the last round)<pre>{esc_lines(text)}</pre></div>')
        out.append("</div>")
        return "\n".join(out)

    @staticmethod
    def _stop_line(stop: StopRecord, trace: TraceRecord, turns: int) -> str:
        saved = stop.saved
        scope = "what follows in the run" if stop.action == "abort" or turns == 1 else f"what follows in turn {stop.turn}"
        how = {
            "before_tools": f"before the tools of {where_text(stop, turns)}",
            "after_tools": f"after the tools of {where_text(stop, turns)}",
            "final": f"at the reply of {where_text(stop, turns)}",
        }[stop.phase]
        text = f"<b>policy {esc(stop.action.upper())} ({esc(stop.code)})</b> {esc(how)}: "
        text += "the recorded run was stopped here too" if stop.already_stopped else f"{esc(scope)} would not have run"
        if stop.action == "stop" and saved and saved.forced_answer_tokens is not None:
            text += f"; one forced answer instead (~{saved.forced_answer_tokens:,} tokens, estimate)"
        if saved:
            text += f" → {esc(effect(saved, trace.recorded))}"
        found = stop.new_information
        if found:
            text += f'<div class="warn">the recorded run found new information at round {found.round} ({esc(one_line(found.what, 200))})</div>'
        return f'<div class="stopline">{text}</div>'

    @staticmethod
    def _fire(fire: FireRecord, alone: bool, turns: int, policy_stop: bool = False) -> str:
        action = fire.action
        ends = action in ("stop", "abort")
        classes = "fire" + (" ends" if ends else "") + (" alone" if alone else "")
        text = (
            f'<div class="{classes}">{badge(fire.code, "code", fire.name)} {badge(action.upper(), "a-" + action)} '
            f'<span class="fig">{esc(PHASES[fire.phase])}</span> '
        )
        if alone:
            text += '<span class="fig">(alone, after the policy\'s stop)</span> '
        if fire.stale:
            text += '<span class="warn">stale: the call\'s recorded result changed; the block would have hidden it</span> '
        text += f'<span class="why">{esc(one_line(fire.reason, 400))}</span>'
        found = fire.new_information
        if found and not policy_stop:
            text += f'<div class="warn">the recorded run found new information at round {found.round} ({esc(one_line(found.what, 200))})</div>'
        return text + "</div>"

    def _round(self, row: RoundRecord, fires, alone, policy_stops: set[int], cut: bool, not_run: bool, news: str | None, most_tokens: int, most_seconds: float, turns: int) -> str:
        tokens_in, tokens_out = row.input_tokens, row.output_tokens
        basis = row.basis
        mark = "" if basis == "measured" else "~"
        tip = "measured" if basis == "measured" else BASIS_NOTES.get(basis, basis).strip(" ()")
        bar = (
            f'<div class="bar" title="tokens: {esc(tip)}"><span class="in" style="width:{100 * tokens_in / most_tokens:.1f}%"></span>'
            f'<span class="out" style="width:{100 * tokens_out / most_tokens:.1f}%"></span></div>'
        )
        fig = f'<div class="fig">{mark}{tokens_in:,} in · {mark}{tokens_out:,} out</div>'
        llm, tool = row.llm_seconds, row.tool_seconds
        if llm is None and tool is None:
            time = '<div class="fig">time unknown</div>'
        else:
            time = (
                f'<div class="bar"><span class="llm" style="width:{100 * (llm or 0) / most_seconds:.1f}%"></span>'
                f'<span class="tool" style="width:{100 * (tool or 0) / most_seconds:.1f}%"></span></div>'
                f'<div class="fig">model {seconds(llm) if llm is not None else "?"} · tools {seconds(tool) if tool is not None else ("–" if not row.calls else "?")}</div>'
            )
        body: list[str] = []
        by_phase: dict[str, list[FireRecord]] = {}
        for fire in fires:
            by_phase.setdefault(fire.phase, []).append(fire)
        shown = {call.id for call in row.calls}
        # A block is drawn on the call it refuses; the other fires by their phase.
        blocks: dict[str, list[FireRecord]] = {}
        for fire in fires:
            call_id = single_line(fire.call_id, CALL_ID_CHARS) if fire.call_id is not None else None
            if fire.action == "block" and call_id in shown:
                blocks.setdefault(call_id, []).append(fire)
        placed = {id(fire) for group in blocks.values() for fire in group}

        def marks(phase: str) -> list[str]:
            return [self._fire(f, alone(f), turns, id(f) in policy_stops) for f in by_phase.get(phase, []) if id(f) not in placed]

        body += marks("before_tools")
        if row.text:
            body.append(f'<pre class="say">{esc_lines(row.text)}</pre>')
        for call in row.calls:
            body.append(self._call(call, blocks.get(call.id, []), not_run, turns, alone))
        if row.more_calls:
            body.append(f'<div class="note">… and {count(row.more_calls, "more call")}</div>')
        body += marks("after_tools")
        body += marks("final")
        tags = []
        if row.final:
            tags.append('<span class="tag fin">reply</span>')
        if news is not None:
            tags.append(f'<span class="tag new" title="the recorded run found new information here: {esc(news)}">new info</span>')
        return (
            f'<div class="rw{" cut" if cut else ""}" data-round="{row.round}">'
            f'<div class="rn">{row.round}{"".join(tags)}</div>'
            f"<div>{bar}{fig}{time}</div>"
            f'<div>{"".join(body)}</div></div>'
        )

    def _call(self, call: CallRecord, blocks: list[FireRecord], not_run: bool, turns: int, alone) -> str:
        size = f' <span class="fig">(of {call.args_chars:,} characters)</span>' if call.args_chars is not None else ""
        head = f'<span class="nm mono">{esc(call.name)}</span> <pre class="args">{esc_lines(call.args)}</pre>{size}'
        if call.blocked:
            head += '<span class="tag" title="a guard refused this call in the recorded (live) run">blocked live</span>'
        if not_run:
            head += '<span class="tag err">not run: the policy stopped before the tools</span>'
        lines = [f'<div class="call{" notrun" if not_run else ""}">{head}']
        lines += [self._fire(block, alone(block), turns) for block in blocks]
        if call.result is None:
            lines.append('<div class="res warn">← no result recorded</div>')
        else:
            # An error as show marks it: in red, with the word; one the format does not flag
            # but whose text reads as a failure too, saying so in its tooltip.
            if call.error or call.failed:
                tip = None if call.error else "the format records no error flag: its text reads as a failure"
                state = ("err", badge("error", "r-err", tip))
            else:
                state = ("", "ok" if call.error is False else "")
            more = f" · {call.result_chars:,} characters" if call.result_chars else ""
            took = f" · {seconds(call.seconds)}" if call.seconds is not None else ""
            lines.append(
                f'<div class="res {state[0]}">← {state[1]}{esc(took)}{esc(more)}'
                + (f"<pre>{esc_lines(call.result)}</pre>" if call.result else " (empty)")
                + "</div>"
            )
        return "".join(lines) + "</div>"

    # -- the page

    def end(self, totals: TotalsRecord, warnings: list[dict[str, Any]]) -> None:
        header = self.header
        title = "tracecheck replay" + (f": presets {', '.join(self.presets)} side by side" if self.presets else "")
        guards = ", ".join(g.code for g in header.guards)
        settings = (f"preset {header.preset} · " if header.preset else "") + (f"guards {guards}" if guards else "no guard enabled")
        if self.presets:
            settings = f"the fires shown are those of {self.presets[0]}, the first preset ({guards or 'no guard enabled'})"
        body = [
            f"<h1>{esc(title)}</h1>",
            f'<p class="sub">{esc(count(totals.traces, "trace"))} · {esc(settings)} · tracecheck {esc(header.tool["version"])}</p>',
        ]
        body.append(self._totals(totals) if not self.presets else self._preset_totals(totals.by_preset))
        body.append(self._table())
        body.append(self._timelines())
        if warnings:
            body.append(f"<h2>Input warnings ({len(warnings):,})</h2><ul class=\"warnings\">")
            for item in warnings:
                place = item["file"] if item["line"] is None else f"{item['file']}:{item['line']}"
                body.append(f"<li>{esc(place, 240)}: {esc(item['reason'], 400)}</li>")
            body.append("</ul>")
        # The page is written piece by piece, never joined into one string: the table
        # has a row per trace, and the whole page in one string (made several times over
        # while it was put together) made the peak memory grow with the input.
        head, tail = page_ends(title)
        self.write(head)
        for number, part in enumerate(body):
            if number:
                self.write("\n")
            for piece in [part] if isinstance(part, str) else part:
                self.write(piece)
        self.write(tail)

    def _totals(self, totals: TotalsRecord) -> str:
        whole, saved = totals.whole, totals.saved
        flags = []
        if totals.possible_harm:
            flags.append(("bad", f"{totals.possible_harm} harmed (labelled a success, healthy or mixed, and stopped)"))
        if totals.expectations_broken:
            flags.append(("bad", f"{count(totals.expectations_broken, 'expectation')} broken"))
        if totals.stops_before_new_information:
            flags.append(("warn", f"{totals.stops_before_new_information} cut before new information"))
        if totals.stale_blocks:
            flags.append(("warn", count(totals.stale_blocks, "stale block")))
        if totals.no_answer_to_forced_answer:
            flags.append(("note", f"{totals.no_answer_to_forced_answer} no answer → forced answer"))

        def card(key: str, title: str, noun: str) -> str:
            part, total = getattr(saved, key), getattr(whole, key)
            note = ""
            if key == "tokens":
                note = basis_note(saved).strip(" ()")
            if key == "seconds":
                if total is None:
                    return f'<div class="card"><div class="k">{title}</div><div class="v">unknown</div><div class="n">no timestamps</div></div>'
                if part is None:
                    return f'<div class="card"><div class="k">{title}</div><div class="v">unknown</div><div class="n">of {seconds(total)} recorded</div></div>'
                value = seconds(abs(part))
                of = f"of {seconds(total)}"
            else:
                value, of = f"{abs(part):,}", f"of {total:,} {noun}"
            share = pct(abs(part), total).strip(" ()")
            if part < 0:
                value = f"costs {value} more"
            return (
                f'<div class="card"><div class="k">{title}</div><div class="v">{esc(value)}'
                + (f' <span class="n">{esc(share)}</span>' if share else "")
                + f'</div><div class="n">{esc(of)}{" · " + esc(note) if note else ""}</div></div>'
            )

        cards = (
            '<div class="cards">'
            + f'<div class="card"><div class="k">traces</div><div class="v">{totals.traces:,}</div>'
            + f'<div class="n">{totals.traces_with_fires:,} with fires · {totals.traces_stopped:,} stopped by the policy</div></div>'
            + card("llm_calls", "LLM calls saved", "LLM calls")
            + card("tool_calls", "tool calls saved", "tool calls")
            + card("tokens", "tokens saved", "tokens")
            + card("seconds", "time saved", "")
            + "</div>"
        )
        lines = [cards]
        heading, split = outcome_lines(totals)
        if heading:
            styles = {"failure": ' class="good"', "success": ' class="warn"'}
            lines.append(
                f'<p class="facts">{esc(heading[0].upper() + heading[1:])}{":" if split else ""}</p>'
                + (
                    '<ul class="outcomes">'
                    + "".join(f'<li><span{styles.get(b, "")}>{esc(title)}:</span> {esc(text)}</li>' for b, title, text in split)
                    + "</ul>"
                    if split
                    else ""
                )
            )
        if flags:
            lines.append('<p class="facts">' + "".join(f'<span class="{c}">{esc(t)}</span>' for c, t in flags) + "</p>")
        if totals.by_guard:
            lines.append(
                '<p class="note">fires: '
                + " · ".join(f"{esc(code)} {v.fires:,} in {esc(count(v.traces, 'trace'))}" for code, v in totals.by_guard.items())
                + "</p>"
            )
        if self.unchecked:
            lines.append(
                f'<p class="note warn">{esc(count(sum(self.unchecked.values()), "expectation"))} not checked: about '
                + esc(", ".join(sorted(self.unchecked)))
                + esc(f", which the settings do not run ({enable_hint(self.unchecked)}")
                + (f", or use {remedy})" if (remedy := unchecked_remedy(self.unchecked)) else ")")
                + "</p>"
            )
        lines.append(
            '<p class="note">Saved: the LLM calls, tool calls, tokens and time of what the recorded run did after each stop of the policy, in the '
            "same turn (an abort: the rest of the run), less one forced answer per stop (an estimate), and the calls it blocks. "
            "~ marks tokens that are not measured: estimated from text, or a measured run total shared out over the rounds.</p>"
        )
        return "\n".join(lines)

    def _preset_totals(self, by_preset: dict[str, TotalsRecord]) -> str:
        head = (
            "<table><thead><tr><th>preset</th><th class=r>stops</th><th class=r>harmed</th><th class=r>cut before new information</th>"
            "<th class=r>stale blocks</th><th class=r>LLM calls saved</th><th class=r>tool calls saved</th><th class=r>tokens saved</th><th class=r>time saved</th></tr></thead><tbody>"
        )
        rows = []
        for name, totals in by_preset.items():
            saved = totals.saved
            cells = [
                f"<td><b>{esc(name)}</b></td>",
                f'<td class="r">{totals.traces_stopped} of {totals.traces}</td>',
                f'<td class="r">{totals.possible_harm}</td>',
                f'<td class="r">{totals.stops_before_new_information}</td>',
                f'<td class="r">{totals.stale_blocks}</td>',
                f'<td class="r">{number(saved.llm_calls)}</td>',
                f'<td class="r">{number(saved.tool_calls)}</td>',
                f'<td class="r">{tokens_text(saved.tokens, saved.tokens_basis)}</td>',
                f'<td class="r">{seconds(saved.seconds)}</td>',
            ]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        whole = next(iter(by_preset.values())).whole
        recorded = f"as recorded: {recorded_text(whole)}"
        return "<h2>Presets side by side</h2>" + head + "".join(rows) + f'</tbody></table><p class="note">{esc(recorded)}; negative savings are forced answers dearer than what they replaced</p>'

    def _table(self) -> Iterator[str]:
        """The table of every trace, in pieces (one a row) that the page is written from."""
        guard_names = {g.code: g.name for g in self.header.guards}
        options = ['<option value="">all traces</option>', '<option value="any">any guard fired</option>', '<option value="none">no guard fired</option>']
        if not self.presets:
            options.append('<option value="stopped">stopped by the policy</option>')
        options += [
            f'<option value="code:{esc(code)}">{esc(code)} {esc(guard_names.get(code, ""))} ({n})</option>' for code, n in sorted(self.codes.items())
        ]
        outcomes = ['<option value="">any outcome</option>'] + [
            f'<option value="{esc(o)}">{esc(o)} ({self.outcomes[o]})</option>' for o in OUTCOMES if o in self.outcomes
        ]
        listed = len(self.rows)
        controls = (
            '<div class="controls">'
            f'<label>guard <select id="f-guard">{"".join(options)}</select></label>'
            f'<label>outcome <select id="f-outcome">{"".join(outcomes)}</select></label>'
            f'<span id="shown" class="note">{listed} of {listed} traces shown</span>'
            + ('<span class="note">(--only-fires: traces where no guard fired are not listed)</span>' if self.only_fires else "")
            + "</div>"
        )
        heads = [
            sortable("trace"),
            sortable("outcome"),
            sortable("rounds", "num", True),
            sortable("tokens", "num", True),
            sortable("time", "num", True),
            sortable("fired", "num", tip="guards that fired (the number of their fires)"),
        ]
        if self.presets:
            heads += [sortable(name, "num", tip="sorts by the tokens this preset saves") for name in self.presets]
        else:
            heads += [sortable("policy", "num", tip="sorts by the round of the first stop"), sortable("tokens saved", "num", True), sortable("time saved", "num", True)]
        yield "<h2>Traces</h2>" + controls + f'<table id="traces" class="sortable"><thead><tr>{"".join(heads)}</tr></thead><tbody>\n'
        for number, row in enumerate(self.rows):
            yield "\n" + row if number else row
        yield "\n</tbody></table>"

    def _timelines(self) -> Iterator[str]:
        """The timelines drawn, in pieces (one a trace) that the page is written from."""
        drawn = self.drawn[True] + self.drawn[False]
        if not drawn:
            return
        said = []
        for fired, words in ((True, "where a guard fired"), (False, "where none did")):
            if self.seen[fired] > self.drawn[fired]:
                said.append(f"the first {self.drawn[fired]:,} of the {self.seen[fired]:,} traces {words}")
        scope = (" — timelines for " + " and ".join(said) + "; the table lists every trace") if said else ""
        legend = (
            '<div class="legend">'
            '<span><span class="sw" style="background:var(--in)"></span>input tokens</span>'
            '<span><span class="sw" style="background:var(--out)"></span>output tokens</span>'
            '<span><span class="sw" style="background:var(--llm)"></span>model time</span>'
            '<span><span class="sw" style="background:var(--tool)"></span>tool time (sum of the calls)</span>'
            "<span>bars are scaled per trace · ~ not measured (hover for how it is known)</span>"
            '<span><span class="sw cut" style="background:#dde"></span>would not have run under the policy</span>'
            "</div>"
        )
        yield f"<h2>Round by round{esc(scope)}</h2>" + legend
        for number, section in enumerate(self.sections):
            yield "\n" + section if number else section
