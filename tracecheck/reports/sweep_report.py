"""The sweep report: plain data (what ``--format json`` prints) and a writer per format.

Rows are sorted by the objective (ties: lower harm, then grid order); a row on the
Pareto front of savings against harm is marked ``*``, the best row under the
constraints ``>``. The report ends with a one-line verdict against the current settings
and the winning settings as TOML to paste into ``[tool.tracecheck]``.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from .. import __version__
from ..engine.grid import PRESET, Dimension
from ..engine.sweep import SweepResult
from ..text.textsafe import plain
from .records import SweepPointRecord
from .wording import count, figure, pct, ratio, csv_value, runs_text, sweep_figures, validation_text, value_text

SCHEMA_VERSION = 1


def _toml_value(value: Any) -> str:
    from .explain import toml_value

    return toml_value(value)


def winning_table(result: SweepResult) -> dict[str, Any]:
    """The best point's settings as config: {"preset": name?, "guards": {code: {option: value}}}."""
    if result.best is None:
        return {}
    point = result.points[result.best]
    table: dict[str, Any] = {}
    guards: dict[str, dict[str, Any]] = {}
    for key, value in point.values:
        if key == PRESET:
            table["preset"] = value
        else:
            code, option = key.split(".", 1)
            guards.setdefault(code, {})[option] = value
    if guards:
        table["guards"] = guards
    return table


def toml_snippet(table: dict[str, Any], pyproject: bool = True) -> str:
    prefix = "tool.tracecheck" if pyproject else ""
    lines = [f"[{prefix}]"] if prefix else []
    if "preset" in table:
        lines.append(f'preset = "{table["preset"]}"')
    for code, options in table.get("guards", {}).items():
        lines.append("")
        lines.append(f"[{prefix + '.' if prefix else ''}guards.{code}]")
        lines += [f"{option} = {_toml_value(value)}" for option, value in options.items()]
    return "\n".join(lines).strip() + "\n"


SIGN_WORDS = {"cut_new_information": "cut before new information", "stale_blocks": "stale blocks"}


def verdict(result: SweepResult) -> str:
    objective = result.objective
    asked = [c for c in result.constraints if not c.implicit]
    ceilings = [c for c in result.constraints if c.implicit]  # harm, then the signs that need no labels
    ceiling = ceilings[0] if ceilings else None
    # Rows that meet what the user asked for, but harm more than the current settings
    # (or show more signs of harm).
    harming = [k for k, row in enumerate(result.rows) if ceilings and not all(c.holds(row) for c in ceilings) and all(c.holds(row) for c in asked)]

    def allow(k: int) -> str:
        rule = ",".join([*(str(c) for c in asked), f"harm<={result.rows[k]['harm']:g}"])
        return f"--constraint '{rule}'"

    if result.best is None:
        if ceiling is None:
            return f"no grid point meets {', '.join(str(c) for c in asked)}"
        signs = ", ".join(f"{c.value:g} {SIGN_WORDS[c.metric]}" for c in ceilings[1:])
        text = f"no grid point harms no more than the current settings (harm {ceiling.value:.2f}{', ' + signs if signs else ''})" + (
            f" and meets {', '.join(str(c) for c in asked)}" if asked else ""
        )
        if harming:
            least = min(harming, key=lambda k: (result.rows[k]["harm"], k))
            text += f"; the least harm is {result.points[least].label} ({result.rows[least]['harm']:.2f}): allow it with {allow(least)}"
        return text + ", or keep the current settings"
    best = result.rows[result.best]
    label = result.points[result.best].label
    advice = result.recommendation
    if advice is not None and not advice.change:
        text = advice.why
    else:
        text = f"{label}: {objective} {figure(best.get(objective))} at harm {best['harm']:.2f}"
    if result.baseline is not None and (advice is None or advice.change):
        base = result.baseline
        b, c = best.get(objective), base.get(objective)
        if b is not None and c is not None:
            if b > c:
                text += f", against {figure(c)} at harm {base['harm']:.2f} with the current settings ({figure(b - c)} more)"
            elif b == c:
                text += f"; the current settings do as well ({figure(c)} at harm {base['harm']:.2f})"
            elif any(not constraint.holds(base) for constraint in asked):
                text += f"; the current settings do better on {objective} ({figure(c)}) but break a constraint"
            else:
                text += f"; the current settings, which are not in the grid, do better on {objective} ({figure(c)}): keep them"
    more = [k for k in harming if (result.rows[k].get(objective) or 0) > (best.get(objective) or 0)]
    if more:
        top = max(more, key=lambda k: (result.rows[k].get(objective) or 0, -k))
        row = result.rows[top]
        text += (f"; {result.points[top].label} saves more ({figure(row.get(objective))}) but harms more than the current "
                 f"settings (harm {row['harm']:.2f}): allow it with {allow(top)}")
    if advice is not None and advice.caveats:
        text += "; but " + "; ".join(advice.caveats)
    return text


def settings_on(data: dict[str, Any]) -> str:
    return f"{count(len(data['points']), 'setting')} on {count(data['traces'], 'trace')}"


def ordered(result: SweepResult) -> list[int]:
    """Row indices sorted by the objective (higher first), then harm, then grid order."""
    def key(k: int):
        value = result.rows[k].get(result.objective)
        return (-(value if value is not None else float("-inf")), result.rows[k]["harm"], k)

    return sorted(range(len(result.rows)), key=key)


def sweep_data(result: SweepResult, dimensions: list[Dimension]) -> dict[str, Any]:
    advice = result.recommendation
    # Only a recommended change is offered as settings to paste or write.
    table = winning_table(result) if advice is None or advice.change else {}
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "tracecheck", "version": __version__},
        "traces": result.traces,
        "objective": result.objective,
        "constraints": [str(c) for c in result.constraints if not c.implicit],
        # Without a limit on harm the choice harms no more than the current settings.
        "harm_ceiling": next((c.value for c in result.constraints if c.implicit), None),
        "dimensions": [{"key": d.key, "values": list(d.values)} for d in dimensions],
        "points": [
            SweepPointRecord(
                number=result.points[k].number,
                values=dict(result.points[k].values),
                label=result.points[k].label,
                pareto=result.pareto[k],
                best=k == result.best,
                metrics=result.rows[k],
            )
            for k in ordered(result)
        ],
        "best": result.points[result.best].number if result.best is not None else None,
        "baseline": result.baseline,
        "verdict": verdict(result),
        "recommendation": advice.to_json() if advice is not None else None,
        "config": table,
        "toml": toml_snippet(table) if table else None,
        "validation": result.validation,
        "disagreements": result.disagreements,
        "benchmark": benchmark_data(result),
    }


def benchmark_data(result: SweepResult) -> dict[str, Any] | None:
    """The hand-labelled runs scored per point, in grid order (the presets' order), and
    for the current settings; None without hand labels."""
    if result.benchmark is None:
        return None
    from ..engine.scoring import SLACK

    def scored(score) -> dict[str, Any]:
        return {**score.figures(), "summary": score.summary(), "verdicts": [run.as_dict() for run in score.runs]}

    return {
        "slack": SLACK,
        "points": [
            {"number": point.number, "values": dict(point.values), "label": point.label, **scored(score)}
            for point, score in zip(result.points, result.benchmark)
        ],
        "baseline": scored(result.baseline_benchmark) if result.baseline_benchmark is not None else None,
    }


# The benchmark's columns: (title, count, out of), figures of ``Score.figures``.
BENCHMARK_COLUMNS = (
    ("loops stopped in time", "loops_stopped_in_time", "loops"),
    ("loops stopped at all", "loops_stopped", "loops"),
    ("healthy runs cut", "healthy_cut", "healthy"),
    ("successful runs cut", "successes_cut", "successes"),
    ("mixed runs flagged", "mixed_flagged", "mixed"),
    ("mixed runs stopped", "mixed_stopped", "mixed"),
    ("runs not read", "unread", "runs"),
)


TERMINAL_BENCHMARK_TITLES = ("loops in time", "at all", "healthy cut", "succ. cut", "mix flag", "mix stop", "unread")


def benchmark_cells(figures: dict[str, Any]) -> list[str]:
    return [f"{figures[count]} of {figures[whole]}" for _, count, whole in BENCHMARK_COLUMNS]


def benchmark_heading(bench: dict[str, Any]) -> str:
    first = bench["points"][0] if bench["points"] else bench["baseline"]
    return (
        f"{first['runs']} labelled runs: {first['loops']} loops, {first['healthy']} healthy, {first['mixed']} mixed; "
        f"{first['successes']} successes (loops aside)"
    )


BENCHMARK_NOTE = (
    "in time: stopped by the labelled round, {slack} round of slack · at all: any stop · cut: any stop · successful: "
    "labelled a success (loops aside) · flagged: any fire, a hint too, by the labelled round, {slack} round of slack · "
    "mixed stopped: any stop, which cuts the recovery (cut, successful cut and mixed stopped are harm: README, What harm is)"
)


def benchmark_markdown(bench: dict[str, Any]) -> str:
    """The benchmark as a Markdown table, one row per point in grid order."""
    from .markdown import md

    lines = [
        "| settings | " + " | ".join(title for title, _, _ in BENCHMARK_COLUMNS) + " |",
        "|---|" + "--:|" * len(BENCHMARK_COLUMNS),
    ]
    for point in bench["points"]:
        name = point["values"]["preset"] if set(point["values"]) == {"preset"} else point["label"]
        lines.append(f"| `{md(name)}` | " + " | ".join(benchmark_cells(point)) + " |")
    return "\n".join(lines) + "\n"


# --- writers -----------------------------------------------------------------------

COLUMNS = (
    ("traces_stopped", "stopped"),
    ("llm_calls_saved", "LLM calls"),
    ("tokens_saved", "tokens"),
    ("seconds_saved", "seconds"),
    ("harm", "harm"),
    ("harmed", "harmed"),
    ("stale_blocks", "stale"),
    ("cut_new_information", "cut news"),
    ("recall", "recall"),
    ("precision", "precision"),
)


def write_csv(data: dict[str, Any]) -> str:
    out = io.StringIO()
    keys = [d["key"] for d in data["dimensions"]]
    metrics = [k for k, _ in COLUMNS] + ["tool_calls_saved", "traces_intervened", "rounds_cut_on_success", "harm_labelled", "loops", "caught"]
    metrics += [*OUTCOME_METRICS, "tool_calls_saved_on_failure", "seconds_saved_on_failure", "llm_calls_at_risk"]
    writer = csv.writer(out, lineterminator="\n")
    bench = {p["number"]: p for p in (data.get("benchmark") or {}).get("points", [])}
    figures = [*dict.fromkeys(f for _, count, whole in BENCHMARK_COLUMNS for f in (count, whole))] if bench else []
    writer.writerow(["number", *keys, *metrics, "pareto", "best", *(f"labelled.{f}" for f in figures)])
    for point in data["points"]:
        row = point.metrics
        scored = [bench[point.number][f] for f in figures] if bench else []
        writer.writerow([point.number, *(csv_value(point.values[k]) for k in keys), *(csv_value(row.get(m)) for m in metrics), point.pareto, point.best, *scored])
    return out.getvalue()


# Where traces are graded, the tables lead their savings with those on runs that failed
# anyway (bankable), then those on runs that succeeded (at risk), before the total.
OUTCOME_METRICS = ("tokens_saved_on_failure", "tokens_at_risk")


def outcome_legend(failed: str, at_risk: str, total: str) -> str:
    """What the columns of the savings by outcome count, by their titles in a format."""
    return (
        f"{failed}: saved on runs that failed anyway (bankable: the loop burned budget for nothing) · "
        f"{at_risk}: saved on runs that succeeded (a stop may have cost the success) · {total}: every run, ungraded ones too"
    )


def graded(data: dict[str, Any]) -> bool:
    """Whether any trace of the sweep is graded (success or failure): only then do the
    reports split the savings by outcome."""
    rows = [p.metrics for p in data["points"]] + ([data["baseline"]] if data.get("baseline") else [])
    return any(row.get("saved_by_outcome", {}).get(g, {}).get("traces") for row in rows for g in ("failure", "success"))


def columns(data: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The metrics of the Markdown and HTML tables, (key, title): ``COLUMNS``, with the
    savings by outcome after the stops where traces are graded."""
    if not graded(data):
        return COLUMNS
    return (COLUMNS[0], ("tokens_saved_on_failure", "tokens saved on failed runs"), ("tokens_at_risk", "tokens at risk"), *COLUMNS[1:])


def baseline_text(data: dict[str, Any]) -> str:
    """What the current settings do, in words (terminal, Markdown and HTML)."""
    baseline = data["baseline"]
    text = f"{baseline['traces_stopped']} stopped · "
    if graded(data):
        text += (
            f"{figure(baseline['tokens_saved_on_failure'])} tokens saved on runs that failed anyway · "
            f"{figure(baseline['tokens_at_risk'])} at risk on runs that succeeded · "
            f"{figure(baseline['tokens_saved'])} in all"
        )
    else:
        text += f"{figure(baseline['tokens_saved'])} tokens saved"
    text += f"{pct(baseline['tokens_saved'], baseline['whole']['tokens'])} · harm {baseline['harm']:.2f}"
    return text + (f" · recall {baseline['recall']:.2f}" if baseline.get("recall") is not None else "")


# The Markdown table: the terminal's columns and figures, and the other savings and
# harms, which a page has room for.
MARKDOWN_COLUMNS = (
    "stops",
    "LLM calls saved",
    "tokens saved",
    "time saved",
    "harm",
    "harmed",
    "stale blocks",
    "cut before new information",
    "recall",
    "prec.",
)


def write_markdown(data: dict[str, Any]) -> str:
    from .markdown import md

    keys = [d["key"] for d in data["dimensions"]]
    by_outcome = graded(data)
    titles = [MARKDOWN_COLUMNS[0], *(("tokens saved on failed runs", "tokens at risk") if by_outcome else ()), *MARKDOWN_COLUMNS[1:]]
    head = ["", *(md(k) for k in keys), *titles]
    lines = [
        f"# tracecheck sweep: {settings_on(data)}, sorted by {md(data['objective'])}",
        "",
        "| " + " | ".join(head) + " |",
        "|---|" + "---|" * len(keys) + "--:|" * len(titles),
    ]
    for point in data["points"]:
        mark = (">" if point.best else "") + ("\\*" if point.pareto else "")
        cells = [mark, *(md(value_text(point.values[k])) for k in keys), *sweep_figures(point.metrics, by_outcome)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "`>` best under the constraints · `*` Pareto front (savings against harm) · harm: share of traces harmed (labelled a "
        "success, healthy or mixed, and stopped; README, What harm is) · harmed: how many · "
        "recall/prec.: labelled loops caught in time"
        + (" · " + outcome_legend("tokens saved on failed runs", "tokens at risk", "tokens saved") if by_outcome else ""),
    ]
    bench = data.get("benchmark")
    if bench:
        lines += ["", f"**Labelled runs** ({md(benchmark_heading(bench))}):", "", benchmark_markdown(bench).rstrip("\n"), "", md(BENCHMARK_NOTE.format(slack=bench["slack"]))]
    disagreements = data.get("disagreements") or []
    if disagreements:
        lines += ["", "**Where one setting alone changes the outcome** (first stop or block; - = none):", ""]
        for item in disagreements:
            context = " ".join(f"{k}={value_text(v)}" for k, v in item["with"].items())
            text = f"- {md(item['dimension'])} {md(item['trace'])} ({kind_text(item)}): {md(runs_text(item['first_round']))}"
            if context:
                text += f" at {md(context)}" + (f" (and {item['groups'] - 1} more of {item['of']} such settings)" if item["groups"] > 1 else "")
            lines.append(text)
    baseline = data.get("baseline")
    if baseline is not None:
        lines += ["", f"Current settings: {baseline_text(data)}"]
    lines += ["", f"**Verdict:** {md(data['verdict'])}"]
    if data.get("validation"):
        lines += ["", md(validation_text(data["validation"], data))]
    if data["toml"]:
        lines += ["", "Paste into pyproject.toml (or use `--write-config FILE`):", "", "```toml", data["toml"].rstrip(), "```"]
    return "\n".join(lines) + "\n"


TERMINAL_COLUMNS = (
    ("traces_stopped", "stops"),
    ("tokens_saved_on_failure", "tokens\non failed"),
    ("tokens_at_risk", "\nat risk"),
    ("tokens_saved", "\nall"),
    ("harm", "harm"),
    ("recall", "recall"),
    ("precision", "prec."),
)


def _short_keys(keys: list[str]) -> list[str]:
    """Column titles: the option alone when every dimension is one guard's."""
    guards = {k.split(".", 1)[0] for k in keys if "." in k}
    return [k.split(".", 1)[1] if "." in k and len(guards) == 1 else k for k in keys]


def write_terminal(console, data: dict[str, Any], chart: str | None = None, quiet: bool = False) -> None:
    """The sweep for a terminal: the table of grid points, its legend, the benchmark and
    disagreements, the chart, then the verdict; ``quiet``: the verdict part alone."""
    if quiet:
        _verdict(console, data)
        return
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    keys = [d["key"] for d in data["dimensions"]]
    # The marks lead the first column: a narrow screen shortens settings from the right.
    titles = _short_keys(keys)
    titles[0] = "   " + titles[0]
    least = [7 if k == 0 else 4 for k in range(len(titles))]  # the marks and a few characters stay

    def layout(by_outcome: bool):
        """(figure titles, rows, figure widths, room left for the settings). Graded traces:
        the tokens saved on runs that failed anyway lead, then those at risk on runs that
        succeeded, then all of them (ungraded runs too)."""
        figure_titles = [
            title for key, title in TERMINAL_COLUMNS if by_outcome or key in ("traces_stopped", "tokens_saved", "harm", "recall", "precision")
        ]
        if not by_outcome:
            figure_titles[1] = "tokens saved"
        rows = []
        for point in data["points"]:
            row = point.metrics
            mark = (">" if point.best else " ") + ("*" if point.pareto else " ")
            # Its share of all tokens where there is room: not beside the split, which is wide.
            tokens = figure(row["tokens_saved"]) + ("" if by_outcome else pct(row["tokens_saved"], row["whole"]["tokens"]))
            split = [figure(row["tokens_saved_on_failure"]), figure(row["tokens_at_risk"])] if by_outcome else []
            figures = [str(row["traces_stopped"]), *split, tokens, f"{row['harm']:.2f}", ratio(row["recall"]), ratio(row["precision"])]
            rows.append((point, mark, [value_text(point.values[k]) for k in keys], figures))
        widths = [max([*map(len, title.split("\n")), *(len(r[3][k]) for r in rows)]) for k, title in enumerate(figure_titles)]
        return figure_titles, rows, widths, console.width - sum(widths) - 2 * (len(titles) + len(widths) - 1)

    by_outcome = graded(data)
    figure_titles, rows, figure_widths, room = layout(by_outcome)
    squeezed = by_outcome and room < sum(least)
    if squeezed:  # too narrow for the split: the total alone, and the legend says where the split is
        by_outcome = False
        figure_titles, rows, figure_widths, room = layout(False)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    # Settings may be cut short with an ellipsis on a narrow screen; figures never are.
    # Rich, left to itself, takes the shortfall from every column evenly and then gives
    # the figures back their width, a column past the screen's edge: the settings'
    # columns are narrowed here, the widest first, so that the table fits.
    setting_widths = [
        max([cell_len(title), *(cell_len((f"{r[1]} " if k == 0 else "") + r[2][k]) for r in rows)]) for k, title in enumerate(titles)
    ]
    while sum(setting_widths) > room:
        narrowable = [k for k, w in enumerate(setting_widths) if w > least[k]]
        if not narrowable:
            break
        setting_widths[max(narrowable, key=lambda k: setting_widths[k])] -= 1
    for title, widest in zip(titles, setting_widths):
        table.add_column(title, no_wrap=True, overflow="ellipsis", max_width=widest)
    for widest, title in zip(figure_widths, figure_titles):
        table.add_column(title, justify="right", no_wrap=True, min_width=widest)
    for point, mark, values, figures in rows:
        table.add_row(f"{mark} {values[0]}", *values[1:], *figures, style="bold green" if point.best else "")
    console.print(Text(f"{settings_on(data)}, sorted by {data['objective']}", style="bold underline"))
    from .terminal import emit, print_table

    print_table(console, table)
    emit(
        console,
        Text(
            "> best under the constraints · * Pareto front (savings against harm) · harm: share of traces harmed (labelled a "
            "success, healthy or mixed, and stopped) · recall/prec.: labelled loops caught in time "
            "(--format json or csv for every metric)"
            + (" · " + outcome_legend("tokens on failed", "at risk", "all") if by_outcome else "")
            + (" · tokens saved on failed runs and at risk on successful ones: a wider terminal, or --format json" if squeezed else ""),
            style="dim",
        ),
        2,
    )
    _benchmark(console, data)
    _disagreements(console, data)
    if chart:
        for row in chart.splitlines():  # without the spaces plotext pads its lines with
            shown = Text.from_ansi(row) if "\x1b" in row else Text(row)
            shown.rstrip()
            console.print(shown)
    _verdict(console, data)


def _verdict(console, data: dict[str, Any]) -> None:
    """The current settings, the verdict, its validation and the settings to paste."""
    from rich.text import Text

    from .terminal import emit

    if data.get("baseline") is not None:
        emit(console, Text(f"current settings: {baseline_text(data)}"), 2)
    line = Text("verdict: ", style="bold")
    line.append_text(plain(data["verdict"]))
    emit(console, line, 2)
    validation = data.get("validation")
    if validation:
        emit(console, Text(validation_text(validation, data), style="cyan"), 2)
    if data["toml"]:
        console.print(Text("paste into pyproject.toml (or use --write-config FILE):", style="dim"))
        console.print(Text(data["toml"].rstrip()))


def _benchmark(console, data: dict[str, Any]) -> None:
    """The hand-labelled runs: the six figures per point, in grid order."""
    bench = data.get("benchmark")
    if not bench:
        return
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from .terminal import emit, print_table

    console.print()
    console.print(Text(benchmark_heading(bench), style="bold underline"))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    names = [point["values"]["preset"] if set(point["values"]) == {"preset"} else point["label"] for point in bench["points"]]
    table.add_column("settings", no_wrap=True, overflow="ellipsis", min_width=min(12, max(map(len, names), default=8)))
    # Short titles and n/N cells: the six figures fit an 80-column terminal.
    for title in TERMINAL_BENCHMARK_TITLES:
        table.add_column(title, justify="right", no_wrap=True, min_width=len(title))
    for name, point in zip(names, bench["points"]):
        table.add_row(name, *(f"{point[count]}/{point[whole]}" for _, count, whole in BENCHMARK_COLUMNS))
    print_table(console, table)
    emit(console, Text(BENCHMARK_NOTE.format(slack=bench["slack"]), style="dim"), 2)


def _disagreements(console, data: dict[str, Any]) -> None:
    """Traces on which one dimension alone changes what happens."""
    from rich.text import Text

    from .terminal import emit

    items = data.get("disagreements") or []
    if not items:
        return
    emit(console, Text("Where one setting alone changes the outcome (first stop or block; - = none):", style="bold"), 2)
    for item in items:
        context = " ".join(f"{k}={value_text(v)}" for k, v in item["with"].items())
        line = Text(f"  {item['dimension']}  ")
        line.append_text(plain(item["trace"], "cyan"))
        line.append(f" ({kind_text(item)})  {runs_text(item['first_round'])}")
        if context:
            line.append(f"  at {context}" + (f" (and {item['groups'] - 1} more of {item['of']} such settings)" if item["groups"] > 1 else ""), style="dim")
        emit(console, line, 4)


def kind_text(item: dict[str, Any]) -> str:
    """What a disagreement's trace is: its loop label (loop, healthy), else its graded
    outcome — a run a grader scored is labelled for the reader, as the savings by
    outcome count it — and only a run with neither is unlabelled."""
    outcome = item.get("outcome", "unknown")
    if item["kind"] == "unlabelled" and outcome != "unknown":
        return f"graded {outcome}"
    return item["kind"]


def frontier_chart(data: dict[str, Any], width: int = 72, height: int = 16) -> str | None:
    """The savings/harm frontier as a terminal scatter plot (plotext), or None without it."""
    try:
        import plotext as plt
    except ImportError:
        return None
    objective = data["objective"]
    points = [p for p in data["points"] if p.metrics.get(objective) is not None]
    if not points:
        return None
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    rest = [p for p in points if not p.pareto]
    front = sorted((p for p in points if p.pareto), key=lambda p: p.metrics["harm"])
    if rest:
        plt.scatter([p.metrics["harm"] for p in rest], [p.metrics[objective] for p in rest], marker="dot", label="grid point")
    plt.plot([p.metrics["harm"] for p in front], [p.metrics[objective] for p in front], marker="*", label="Pareto front")
    plt.xlabel("harm (share of traces)")
    plt.ylabel(objective)
    # The savings axis written as the table writes them (281,628, not 281628.0).
    values = [p.metrics[objective] for p in points]
    low, high = min(values), max(values)
    ticks = [low + (high - low) * i / 4 for i in range(5)] if high > low else [low]
    if objective in ("recall", "precision"):
        labels = [f"{t:.2f}" for t in ticks]
    elif objective.startswith("seconds_saved"):
        labels = [f"{t:,.1f}s" for t in ticks]
    else:
        labels = [f"{round(t):,}" for t in ticks]
    plt.yticks(ticks, labels)
    return plt.build()
