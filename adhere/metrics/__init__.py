"""Metrics: ISR/CSR over verdicts, grouped breakdowns and rollout reports."""

from adhere.metrics._conflict import (
    ConflictRun,
    Followed,
    conflict_of,
    conflict_tables,
    followed,
    side_checks,
)
from adhere.metrics._plot import line_plot_svg
from adhere.metrics._rates import Rates, ScoredTrial, TrialScore, group_rates, rates, score_trial
from adhere.metrics._regression import (
    ALL_SOURCES,
    Regression,
    RegressionRow,
    RegressionSettings,
    compare_trials,
    mcnemar_exact,
    paired_bootstrap,
)
from adhere.metrics._report import (
    Report,
    Table,
    build_report,
    pct,
    render_html,
    render_markdown,
)

__all__ = [
    "ALL_SOURCES",
    "ConflictRun",
    "Followed",
    "Rates",
    "Regression",
    "RegressionRow",
    "RegressionSettings",
    "Report",
    "ScoredTrial",
    "Table",
    "TrialScore",
    "build_report",
    "compare_trials",
    "conflict_of",
    "conflict_tables",
    "followed",
    "group_rates",
    "line_plot_svg",
    "mcnemar_exact",
    "paired_bootstrap",
    "pct",
    "rates",
    "render_html",
    "render_markdown",
    "score_trial",
    "side_checks",
]
