"""Metrics: ISR/CSR over verdicts, grouped breakdowns, intervals and regression statistics."""

from adhere.metrics._conflict import (
    ConflictRun,
    Followed,
    conflict_of,
    followed,
    side_checks,
)
from adhere.metrics._delta import Delta, PairedTrial, delta, group_deltas, signed_points, split_pair
from adhere.metrics._intervals import (
    AvgAtK,
    Interval,
    RateIntervals,
    Spread,
    avg_at_k,
    cluster_bootstrap,
    rate_interval,
    rate_intervals,
    wilson_interval,
)
from adhere.metrics._pairing import ALL_SOURCES, Pair, paired_trials
from adhere.metrics._prices import Price, price_of
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
    MetricRegression,
    Regression,
    RegressionRow,
    RegressionSettings,
    compare_trials,
    regression,
)
from adhere.metrics._significance import (
    MIN_INSTANCES,
    adjust,
    mcnemar_exact,
    sample_rule,
    sign_flip_test,
    smallest_p,
)
from adhere.metrics._table import Table, pct
from adhere.metrics._vibe import vibe_correlation

__all__ = [
    "ALL_SOURCES",
    "AvgAtK",
    "ConflictRun",
    "Delta",
    "Followed",
    "Interval",
    "MIN_INSTANCES",
    "MetricRegression",
    "Pair",
    "PairedTrial",
    "Price",
    "RateIntervals",
    "Rates",
    "Regression",
    "RegressionRow",
    "RegressionSettings",
    "ScoredTrial",
    "Spread",
    "Table",
    "TrialScore",
    "adjust",
    "avg_at_k",
    "cluster_bootstrap",
    "compare_trials",
    "conflict_of",
    "delta",
    "followed",
    "group_deltas",
    "group_rates",
    "mcnemar_exact",
    "paired_trials",
    "pct",
    "price_of",
    "rate_interval",
    "rate_intervals",
    "rates",
    "regression",
    "sample_rule",
    "score_trial",
    "side_checks",
    "sign_flip_test",
    "signed_points",
    "smallest_p",
    "split_pair",
    "split_trial",
    "vibe_correlation",
    "wilson_interval",
]
