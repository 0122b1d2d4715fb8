"""Metrics: ISR/CSR over verdicts, grouped breakdowns and rollout reports."""

from adhere.metrics._plot import line_plot_svg
from adhere.metrics._rates import Rates, ScoredTrial, TrialScore, group_rates, rates, score_trial
from adhere.metrics._report import (
    Report,
    Table,
    build_report,
    pct,
    render_html,
    render_markdown,
)

__all__ = [
    "Rates",
    "Report",
    "ScoredTrial",
    "Table",
    "TrialScore",
    "build_report",
    "group_rates",
    "line_plot_svg",
    "pct",
    "rates",
    "render_html",
    "render_markdown",
    "score_trial",
]
