"""Metrics: ISR/CSR over verdicts, grouped breakdowns and rollout reports."""

from adhere.metrics._conflict import (
    ConflictRun,
    Followed,
    conflict_of,
    followed,
    side_checks,
)
from adhere.metrics._delta import Delta, PairedTrial, delta, group_deltas, signed_points, split_pair
from adhere.metrics._rates import (
    Rates,
    ScoredTrial,
    TrialScore,
    group_rates,
    rates,
    score_trial,
    split_trial,
)
from adhere.metrics._regression import (
    ALL_SOURCES,
    Regression,
    RegressionRow,
    RegressionSettings,
    compare_trials,
    mcnemar_exact,
    paired_bootstrap,
)
from adhere.metrics._table import Table, pct
from adhere.metrics._vibe import vibe_correlation

__all__ = [
    "ALL_SOURCES",
    "ConflictRun",
    "Delta",
    "Followed",
    "PairedTrial",
    "Rates",
    "Regression",
    "RegressionRow",
    "RegressionSettings",
    "ScoredTrial",
    "Table",
    "TrialScore",
    "compare_trials",
    "conflict_of",
    "delta",
    "followed",
    "group_deltas",
    "group_rates",
    "mcnemar_exact",
    "paired_bootstrap",
    "pct",
    "rates",
    "score_trial",
    "side_checks",
    "signed_points",
    "split_pair",
    "split_trial",
    "vibe_correlation",
]
