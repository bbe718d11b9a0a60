"""The sweep report as one self-contained HTML page (``sweep --format html``): the
verdict, the savings/harm frontier as an inline SVG chart drawn here (no library, no
network), and the table of every grid point with the figures the Markdown table has."""

from __future__ import annotations

import math
from typing import Any

from .html import esc, esc_lines, page, sortable
from .sweep_report import baseline_text, columns, graded, kind_text, outcome_legend
from .wording import figure, runs_text, sweep_figures, validation_text, value_text

HEADS = {
    "traces_stopped": "stopped",
    "llm_calls_saved": "LLM calls saved",
    "tokens_saved": "tokens saved",
    "tokens_saved_on_failure": "tokens saved on failed runs",
    "tokens_at_risk": "tokens at risk",
    "seconds_saved": "time saved",
    "harm": "harm",
    "harmed": "successes cut",
    "stale_blocks": "stale blocks",
    "cut_new_information": "cut before news",
    "recall": "recall",
    "precision": "precision",
}

TITLES = {  # what each column counts, for its header's tooltip
    "traces_stopped": "traces the policy stops",
    "llm_calls_saved": "LLM calls saved",
    "tokens_saved": "tokens saved (share of all tokens)",
    "tokens_saved_on_failure": "tokens saved on runs that failed anyway: bankable, the loop burned budget for nothing",
    "tokens_at_risk": "tokens saved on runs that succeeded: at risk, a stop may have cost the success",
    "seconds_saved": "seconds saved",
    "harm": "share of traces harmed: labelled a success, healthy or mixed, and stopped",
    "harmed": "traces harmed: labelled a success, healthy or mixed, and stopped",
    "stale_blocks": "blocks that would have hidden a changed result",
    "cut_new_information": "stops before the recorded run found something new",
    "recall": "labelled loops caught by the expected round",
    "precision": "loops caught among the traces of known kind the policy intervened in",
}


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _tick_text(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:g}"


def ranks(data: dict[str, Any]) -> dict[int, int]:
    """Each grid point's number → its rank in the table (1 for the first row): the
    points come sorted by the objective, and the page names a point by its rank."""
    return {point.number: rank for rank, point in enumerate(data["points"], 1)}


def frontier_svg(data: dict[str, Any], width: int = 760, height: int = 360) -> str:
    """Savings (the objective) against harm: every grid point, the Pareto front joined,
    the best point ringed, the current settings as a diamond; points named by their
    rank in the table (``#`` there)."""
    objective = data["objective"]
    rank = ranks(data)
    points = [p for p in data["points"] if p.metrics.get(objective) is not None]
    if not points:
        return '<p class="note">no grid point has a value for the objective: no chart</p>'
    baseline = data.get("baseline")
    marks = [(p.metrics["harm"], p.metrics[objective]) for p in points]
    if baseline is not None and baseline.get(objective) is not None:
        marks.append((baseline["harm"], baseline[objective]))
    left, right, top, bottom = 78, 20, 16, 46
    xs = _ticks(0.0, max(max(x for x, _ in marks), 0.05))
    low, high = min(y for _, y in marks), max(y for _, y in marks)
    pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    ys = _ticks(low - pad if low - pad > 0 or low < 0 else 0.0, high + pad)
    x0, x1, y0, y1 = xs[0], xs[-1], ys[0], ys[-1]

    def sx(value: float) -> float:
        return left + (value - x0) / (x1 - x0) * (width - left - right)

    def sy(value: float) -> float:
        return height - bottom - (value - y0) / (y1 - y0) * (height - top - bottom)

    out = [
        f'<svg id="frontier" role="img" aria-label="{esc(objective)} against harm" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}">'
    ]
    for value in xs:
        out.append(f'<line x1="{sx(value):.1f}" y1="{top}" x2="{sx(value):.1f}" y2="{height - bottom}" stroke="#e3e7ee"/>')
        out.append(f'<text x="{sx(value):.1f}" y="{height - bottom + 16}" text-anchor="middle">{esc(_tick_text(value))}</text>')
    for value in ys:
        out.append(f'<line x1="{left}" y1="{sy(value):.1f}" x2="{width - right}" y2="{sy(value):.1f}" stroke="#e3e7ee"/>')
        out.append(f'<text x="{left - 8}" y="{sy(value) + 4:.1f}" text-anchor="end">{esc(_tick_text(value))}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 8}" text-anchor="middle">harm (share of traces)</text>')
    out.append(f'<text transform="translate(14 {(top + height - bottom) / 2:.0f}) rotate(-90)" text-anchor="middle">{esc(objective)}</text>')
    front = sorted((p for p in points if p.pareto), key=lambda p: (p.metrics["harm"], p.metrics[objective]))
    if len(front) > 1:
        path = " ".join(f"{sx(p.metrics['harm']):.1f},{sy(p.metrics[objective]):.1f}" for p in front)
        out.append(f'<polyline points="{path}" fill="none" stroke="#2f63b5" stroke-width="1.5"/>')
    # Settings with the same figures are one mark (its tooltip lists them).
    groups: dict[tuple[float, float], list[dict[str, Any]]] = {}
    for point in points:
        groups.setdefault((point.metrics["harm"], point.metrics[objective]), []).append(point)

    def drawn_last(item):
        members = item[1]
        return (any(p.pareto for p in members), any(p.best for p in members))

    for (harm, value), members in sorted(groups.items(), key=drawn_last):  # the front and the best drawn on top
        x, y = sx(harm), sy(value)
        kind = "best" if any(p.best for p in members) else "front" if any(p.pareto for p in members) else "grid"
        named = "; ".join(f"#{rank[p.number]} {p.label}" for p in members[:8]) + (f"; and {len(members) - 8} more" if len(members) > 8 else "")
        tip = f"{objective} {figure(value)}, harm {harm:.2f}: {named}"
        style = {"best": 'r="7" fill="#2e7d32" stroke="#1b5e20"', "front": 'r="5.5" fill="#2f63b5"', "grid": 'r="4.5" fill="#aab2c0"'}[kind]
        out.append(f'<circle class="point {kind}" data-points="{len(members)}" cx="{x:.1f}" cy="{y:.1f}" {style}><title>{esc(tip)}</title></circle>')
        if kind != "grid":
            numbers = ", ".join(f"#{rank[p.number]}" for p in members[:3]) + ("…" if len(members) > 3 else "")
            anchor = "end" if x > width * 0.8 else "start"
            shift = -10 if anchor == "end" else 10
            out.append(f'<text x="{x + shift:.1f}" y="{y - 8:.1f}" text-anchor="{anchor}" class="pl">{esc(numbers)}</text>')
    if baseline is not None and baseline.get(objective) is not None:
        x, y = sx(baseline["harm"]), sy(baseline[objective])
        tip = f"current settings: {objective} {figure(baseline[objective])}, harm {baseline['harm']:.2f}"
        out.append(
            f'<path class="baseline" d="M{x:.1f},{y - 7:.1f} L{x + 7:.1f},{y:.1f} L{x:.1f},{y + 7:.1f} L{x - 7:.1f},{y:.1f} Z" '
            f'fill="none" stroke="#b26a00" stroke-width="2"><title>{esc(tip)}</title></path>'
        )
    out.append("</svg>")
    legend = (
        '<div class="legend"><span><span class="sw" style="background:#aab2c0"></span>grid point</span>'
        '<span><span class="sw" style="background:#2f63b5"></span>Pareto front (savings against harm)</span>'
        '<span><span class="sw" style="background:#2e7d32"></span>best under the constraints</span>'
        + ('<span><span class="sw" style="border:2px solid #b26a00"></span>current settings</span>' if baseline is not None else "")
        + "<span>hover a point for its settings</span></div>"
    )
    return "".join(out) + legend


def write_html(data: dict[str, Any]) -> str:
    """The whole page of a sweep (``sweep_data``)."""
    keys = [d["key"] for d in data["dimensions"]]
    objective = data["objective"]
    from .sweep_report import settings_on

    title = f"tracecheck sweep: {settings_on(data)}"
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="sub">sorted by {esc(objective)}'
        + (f" · constraints {esc(', '.join(data['constraints']))}" if data["constraints"] else "")
        + f" · tracecheck {esc(data['tool']['version'])}</p>",
        f'<div class="policy none"><b>verdict:</b> {esc(data["verdict"])}',
    ]
    if data.get("baseline") is not None:
        body.append(f'<div class="note">current settings: {esc(baseline_text(data))}</div>')
    if data.get("validation"):
        body.append(f'<div class="note">{esc(validation_text(data["validation"], data))}</div>')
    body.append("</div>")
    body.append(f"<h2>{esc(objective)} against harm</h2>")
    body.append(f'<div class="chart">{frontier_svg(data)}</div>')
    heads = [sortable("#", "num", True, "rank by the objective (hover a number for the grid point's own number)"), '<th title="&gt; best under the constraints, * on the Pareto front">mark</th>']
    heads += [sortable(key, "text") for key in keys]
    shown = columns(data)
    by_outcome = graded(data)
    heads += [sortable(HEADS[key], "num", True, TITLES.get(key)) for key, _ in shown]
    rows = []
    for rank, point in enumerate(data["points"], 1):
        row = point.metrics
        mark = (">" if point.best else "") + ("*" if point.pareto else "")
        # The rank in the order shown; the grid point's number (as in --format json and csv) in its tooltip.
        cells = [
            f'<td class="r" data-v="{rank}" data-grid="{point.number}" title="grid point #{point.number}">{rank}</td>',
            f"<td><b>{esc(mark)}</b></td>",
        ]
        cells += [f"<td>{esc(value_text(point.values[k]))}</td>" for k in keys]
        # The figures as the Markdown and terminal tables write them (281,628 (39%), 115.0s (21%)).
        for (key, _), text in zip(shown, sweep_figures(row, by_outcome)):
            value = row.get(key)
            cells.append(f'<td class="r" data-v="{"" if value is None else value}">{esc(text)}</td>')
        style = ' class="best"' if point.best else ""
        rows.append(f"<tr{style}>" + "".join(cells) + "</tr>")
    body.append(f"<h2>Every setting ({len(data['points'])})</h2>")
    body.append(
        '<table id="grid" class="sortable"><thead><tr>' + "".join(heads) + "</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"
    )
    body.append(
        '<p class="note">&gt; best under the constraints · * Pareto front (savings against harm) · harm: share of traces cut while '
        "labelled a success, with a stale block, or cut before new information · recall/precision: labelled loops caught in time "
        "(--format json or csv for every metric)" + esc(" · " + outcome_legend("tokens saved on failed runs", "tokens at risk", "tokens saved") if by_outcome else "") + "</p>"
    )
    if data.get("disagreements"):
        body.append("<h2>Where one setting alone changes the outcome</h2><ul>")
        for item in data["disagreements"]:
            context = " ".join(f"{k}={value_text(v)}" for k, v in item["with"].items())
            more = f" (and {item['groups'] - 1} more of {item['of']} such settings)" if item["groups"] > 1 else ""
            body.append(
                f"<li><b>{esc(item['dimension'])}</b> {esc(item['trace'], 200)} ({esc(kind_text(item))}): first stop or block "
                f"{esc(runs_text(item['first_round']))}" + (f' <span class="note">at {esc(context)}{esc(more)}</span>' if context else "") + "</li>"
            )
        body.append("</ul>")
    if data.get("toml"):
        body.append('<h2>The winning settings</h2><p class="note">paste into pyproject.toml (or use --write-config FILE):</p>')
        body.append(f'<pre class="toml">{esc_lines(data["toml"].rstrip())}</pre>')
    return page(title, "\n".join(body))

