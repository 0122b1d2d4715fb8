"""Building a rollout report from scored trials and rendering it as Markdown and HTML.

Everything here is pure: it turns data into strings; the CLI prints and writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from html import escape
from typing import Any

from adhere.metrics import Interval, Rates, ScoredTrial, Table, rates
from adhere.observe import MODEL_OUTCOMES, UPSTREAM_FAULTS
from adhere.report._cells import (
    COUNT_COLUMNS,
    INTERVAL_COLUMNS,
    ISSUE_COLUMNS,
    interval_cell,
    rate_cell,
)
from adhere.report._judges import JUDGE, STORED
from adhere.report._plot import Span, line_plot_svg, scatter_svg
from adhere.report._summary import group_scores, set_rows

__all__ = [
    "COUNT_COLUMNS",
    "INTERVAL_COLUMNS",
    "ISSUE_COLUMNS",
    "Report",
    "build_report",
    "completeness_notes",
    "grouped",
    "interval_cell",
    "rate_cell",
    "render_html",
    "render_markdown",
]


@dataclass
class Report:
    """Everything a report shows."""

    rollout: str
    suite: str
    isr_name: str
    csr_name: str
    summary: Table
    breakdowns: list[Table] = field(default_factory=list)
    paper: list[Table] = field(default_factory=list)
    """The suite's paper tables (OctoBench: Tables 2, 3, 13–15, Figure 3's data)."""
    rule: str = ""
    """How judges are combined in every table (stated at the top of the report)."""
    panel: list[Table] = field(default_factory=list)
    """Judge-panel tables: scores per judge with mean ± std, agreement."""
    plot_svg: str | None = None
    plots: dict[str, tuple[str, str]] = field(default_factory=dict)
    """More plots: file name → (title, SVG)."""
    notes: list[str] = field(default_factory=list)
    totals: Rates = field(default_factory=Rates)
    """Counts over every trial of the rollout (what the exit status is decided on)."""

    @property
    def complete(self) -> bool:
        """Every trial that ran had every check decided."""
        return self.totals.complete


def grouped(
    trials: Sequence[ScoredTrial], by: Sequence[str]
) -> dict[tuple[Any, ...], list[ScoredTrial]]:
    """Trials per combination of the ``by`` keys (the groups of :func:`group_rates`)."""
    out: dict[tuple[Any, ...], list[ScoredTrial]] = {}
    for trial in trials:
        out.setdefault(tuple(trial.keys.get(k) for k in by), []).append(trial)
    return out


def completeness_notes(totals: Rates, isr_name: str, csr_name: str) -> list[str]:
    """What the top of a report says when checks are undecided or errored (else nothing)."""
    if totals.incomplete == 0:
        return []
    ran = totals.trials - totals.upstream_faults - totals.trial_errors
    who = ", ".join(f"{name} {n}" for name, n in sorted(totals.errored_by.items()))
    return [
        f"INCOMPLETE: {totals.incomplete} of {ran} trials that ran have undecided checks "
        f"({totals.undecided} without a verdict, {totals.errored} errored"
        + (f": {who}" if who else "")
        + f"). They are left out of {isr_name} and {csr_name}, which rest on the "
        f"{totals.scored} complete trials only"
        + (" (none: the rates are undefined)" if totals.scored == 0 else "")
        + ". Decide the rest with `adhere score RUN` (a judge panel decides checks "
        "without a verifier; errored ones are asked again)."
    ]


def build_report(
    *,
    rollout: str,
    suite: str,
    metric_names: tuple[str, str],
    trials: Sequence[ScoredTrial],
    breakdowns: Sequence[str],
    sets: Sequence[ScoredTrial] | None = None,
) -> Report:
    """Per-model summary, per-key breakdowns and (when the data has it) the accuracy plot.

    ``sets``: the scoring sets every rate rests on, each naming its judge under
    ``judge`` (:func:`adhere.report._judges.scoring_sets`); ``None``: the trials'
    stored verdicts. ``trials`` give the totals (the INCOMPLETE line and the exit
    status follow the stored verdicts) and the model-side outcomes.
    """
    isr_name, csr_name = metric_names
    if sets is None:
        sets = [replace(t, keys={**t.keys, JUDGE: STORED}) for t in trials]
    scaffolds = {t.keys.get("scaffold") for t in trials}
    group = ["model", "scaffold"] if len(scaffolds) > 1 else ["model"]
    tail = [
        isr_name,
        csr_name,
        *INTERVAL_COLUMNS,
        *COUNT_COLUMNS,
        *ISSUE_COLUMNS,
        "trial errors",
        "upstream faults",
    ]
    summary = Table(
        title="Summary",
        header=[*group, "trials", *tail],
        rows=set_rows(sets, group),
    )
    totals = rates(trials)
    report = Report(
        rollout=rollout,
        suite=suite,
        isr_name=isr_name,
        csr_name=csr_name,
        summary=summary,
        totals=totals,
        notes=completeness_notes(totals, isr_name, csr_name),
    )
    for key in breakdowns:
        if not any(key in t.keys for t in trials):
            continue
        report.breakdowns.append(
            Table(
                title=f"By {key}",
                header=[*group, key, "trials", *tail],
                rows=set_rows(sets, [*group, key]),
            )
        )
    if any(isinstance(t.keys.get("instructions"), int) for t in trials):
        report.plot_svg = _plot(sets, isr_name)
    finished = [t for t in trials if t.status == "ok"]  # faults and errors have other notes
    if finished and not any(t.verdicts for t in finished):
        report.notes.append(
            "No check of these trials was decided yet: their checklists need deterministic "
            "verifiers or a judge panel. Calls and trajectories are recorded in the store."
        )
    report.plots.update(_summary_plots(sets, group, isr_name, csr_name))
    errors = sum(1 for t in trials if t.status == "error")
    if errors:
        report.notes.append(
            f"{errors} trial(s) failed to run; their checks count as errors (not passes) "
            "and are listed under 'trial errors', apart from wrong answers."
        )
    faults = sum(1 for t in trials if t.status == "upstream_fault")
    if faults:
        report.notes.append(
            f"{faults} trial(s) ended as upstream faults (the model service failed a call "
            "the agent did not recover from: unreachable, timed out, 429/5xx, cut stream); "
            "they are not scored, left out of the rates and listed under 'upstream faults'."
        )
    outcomes = outcome_table(trials, group)
    if outcomes is not None:
        report.breakdowns.append(outcomes)
    return report


def outcome_table(trials: Sequence[ScoredTrial], group: list[str]) -> Table | None:
    """Model calls per outcome: model-side ones, and calls the model service failed.

    ``None`` when no call of any trial ended other than in a plain answer (or the
    results predate per-call outcomes).
    """
    if not any(t.outcomes for t in trials):
        return None
    rows: dict[tuple[str, ...], list[int]] = {}
    for trial in trials:
        key = tuple(str(trial.keys.get(k)) for k in group)
        row = rows.setdefault(key, [0] * (len(MODEL_OUTCOMES) + 3))
        row[0] += trial.calls
        for n, outcome in enumerate(MODEL_OUTCOMES, start=1):
            row[n] += trial.outcomes.get(outcome, 0)
        row[-2] += sum(trial.outcomes.get(fault, 0) for fault in UPSTREAM_FAULTS)
        row[-1] += trial.status == "upstream_fault"
    return Table(
        title="Model-side outcomes and upstream faults (model calls)",
        header=[
            *group,
            "calls",
            *(o.replace("_", " ") for o in MODEL_OUTCOMES),
            "calls failed upstream",
            "upstream-fault trials",
        ],
        rows=[[*key, *map(str, row)] for key, row in sorted(rows.items())],
    )


def _summary_plots(
    sets: Sequence[ScoredTrial], group: list[str], isr_name: str, csr_name: str
) -> dict[str, tuple[str, str]]:
    """ISR against CSR per model (ISR by interaction turns is the paper's Figure 3)."""
    plots: dict[str, tuple[str, str]] = {}
    points: dict[str, tuple[float, float]] = {}
    spans: dict[str, tuple[Span | None, Span | None]] = {}
    for key, score in group_scores(sets, group).items():
        isr, csr = score.mean("isr"), score.mean("csr")
        if isr is None or csr is None:
            continue
        label = " / ".join(str(k) for k in key)
        points[label] = (csr, isr)
        spans[label] = (_span(score.interval("csr")), _span(score.interval("isr")))
    if points:
        title = f"{isr_name} against {csr_name} (bars: 95% intervals)"
        plots["isr_vs_csr.svg"] = (
            title,
            scatter_svg(points, title=title, x_label=csr_name, y_label=isr_name, errors=spans),
        )
    return plots


def _span(interval: Interval | None) -> Span | None:
    return None if interval is None else (interval.low, interval.high)


def _isr_series(
    sets: Sequence[ScoredTrial], by: list[str], label_of: Callable[[tuple[Any, ...]], str]
) -> tuple[dict[str, list[tuple[float, float]]], dict[str, dict[float, Span]]]:
    """ISR per group along the last ``by`` key (numeric), and each point's 95% interval."""
    series: dict[str, list[tuple[float, float]]] = {}
    errors: dict[str, dict[float, Span]] = {}
    for key, score in group_scores(sets, by).items():
        isr = score.mean("isr")
        if isr is None or not isinstance(key[-1], int | float):
            continue
        label, x = label_of(key), float(key[-1])
        series.setdefault(label, []).append((x, isr))
        span = _span(score.interval("isr"))
        if span is not None:
            errors.setdefault(label, {})[x] = span
    return series, errors


def _plot(sets: Sequence[ScoredTrial], isr_name: str) -> str:
    has_length = any("length" in t.keys for t in sets)
    by = ["model"] + (["length"] if has_length else []) + ["instructions"]
    series, errors = _isr_series(
        sets,
        by,
        lambda key: f"{key[0]}, length {key[1]}" if has_length else str(key[0]),
    )
    return line_plot_svg(
        series,
        title=f"{isr_name} by number of instructions (bars: 95% intervals)",
        x_label="instructions per sample",
        y_label=isr_name,
        errors=errors,
    )


def render_markdown(report: Report, *, plot_file: str | None = "plot.svg") -> str:
    """The report as Markdown (the plot is referenced as a separate SVG file)."""
    out = [f"# Rollout `{report.rollout}` — {report.suite}", ""]
    if report.rule:
        out += [f"**{report.rule}**", ""]
    out += [f"- {n}" for n in report.notes]
    if report.notes:
        out.append("")
    for table in [report.summary, *report.paper, *report.breakdowns, *report.panel]:
        out += [f"## {table.title}", ""]
        out.append("| " + " | ".join(table.header) + " |")
        out.append("|" + "|".join("---" for _ in table.header) + "|")
        out += ["| " + " | ".join(row) + " |" for row in table.rows]
        out.append("")
    if report.plot_svg and plot_file:
        out += ["## Accuracy against instruction count", "", f"![plot]({plot_file})", ""]
    for name, (title, _svg) in report.plots.items():
        out += [f"## {title}", "", f"![{title}]({name})", ""]
    return "\n".join(out)


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (plot inlined)."""
    body = [f"<h1>Rollout <code>{escape(report.rollout)}</code> — {escape(report.suite)}</h1>"]
    if report.rule:
        body.append(f"<p><strong>{escape(report.rule)}</strong></p>")
    body += [f"<p>{escape(n)}</p>" for n in report.notes]
    for table in [report.summary, *report.paper, *report.breakdowns, *report.panel]:
        body.append(f"<h2>{escape(table.title)}</h2><table>")
        body.append("<tr>" + "".join(f"<th>{escape(h)}</th>" for h in table.header) + "</tr>")
        for row in table.rows:
            body.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
        body.append("</table>")
    if report.plot_svg:
        body += ["<h2>Accuracy against instruction count</h2>", report.plot_svg]
    for title, svg in report.plots.values():
        body += [f"<h2>{escape(title)}</h2>", svg]
    style = (
        "body{font-family:sans-serif;margin:2em;max-width:1100px}"
        "table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "th{background:#f4f4f4}"
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>adhere report: {escape(report.rollout)}</title><style>{style}</style></head>"
        f"<body>{''.join(body)}</body></html>"
    )
