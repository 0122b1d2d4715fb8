"""Regression rows at their edges: settings bounds and defaults, each side's rate, which test
and which interval each metric gets, a drop exactly at the threshold, results as values."""

import dataclasses
import math
import re

import pytest

from adhere.metrics import (
    Pair,
    RegressionRow,
    RegressionSettings,
    TrialScore,
    compare_trials,
    mcnemar_exact,
    regression,
)


def score(passed: int, applicable: int) -> TrialScore:
    return TrialScore(passed=passed, applicable=applicable, errors=0)


def test_the_defaults() -> None:
    assert RegressionSettings() == RegressionSettings(
        threshold=0.05, alpha=0.05, samples=2000, seed=0, confidence=0.95
    )


@pytest.mark.parametrize(
    "good",
    [
        {"threshold": 0.0},
        {"threshold": 1.0},
        {"alpha": 0.999},
        {"samples": 1},
        {"confidence": 0.001},
        {"confidence": 0.999},
    ],
)
def test_settings_at_the_edges_of_their_ranges_are_accepted(good) -> None:
    settings = RegressionSettings(**good)  # no error, and the value is kept as given
    assert {name: getattr(settings, name) for name in good} == good


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"threshold": 1.5}, "threshold must be a share in [0, 1], got 1.5"),
        ({"threshold": -0.1}, "threshold must be a share"),
        ({"alpha": -0.1}, "alpha must be in (0, 1), got -0.1"),
        ({"alpha": 1.5}, "alpha must be in (0, 1)"),
        ({"samples": 0}, "samples must be at least 1, got 0"),
        ({"confidence": 0.0}, "confidence must be in (0, 1), got 0.0"),
        ({"confidence": -0.5}, "confidence must be in (0, 1)"),
        ({"confidence": 1.5}, "confidence must be in (0, 1)"),
    ],
)
def test_settings_outside_their_ranges_are_refused(bad, words) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        RegressionSettings(**bad)


def test_each_side_s_rate_is_its_share_over_the_pairs() -> None:
    # ISR: baseline 3/4 pass, candidate 1/4; CSR: baseline (1 + 1 + 1 + 0.5) / 4.
    pairs = [
        Pair("i0", score(2, 2), score(2, 2)),
        Pair("i1", score(2, 2), score(1, 2)),
        Pair("i2", score(2, 2), score(0, 2)),
        Pair("i3", score(1, 2), score(1, 2)),
    ]
    result = regression(pairs)
    assert (result.isr.baseline, result.isr.candidate) == (0.75, 0.25)
    assert (result.csr.baseline, result.csr.candidate) == (0.875, 0.5)
    assert result.isr.delta == -0.5 and result.csr.delta == -0.375


def test_isr_of_one_pair_per_instance_is_mcnemar_with_wilson_intervals() -> None:
    """Exactly McNemar, also beyond the sign-flip test's exact range (14 instances)."""
    pairs = [Pair(f"i{n}", score(1, 1), score(0 if n < 11 else 1, 1)) for n in range(14)]
    result = regression(pairs)
    assert result.isr.test == "mcnemar"
    assert result.isr.p_value == mcnemar_exact(11, 0) == result.isr.p_mcnemar
    assert result.isr.baseline_ci is not None and result.isr.baseline_ci.method == "wilson"
    assert result.csr.test == "permutation" and result.csr.p_mcnemar is None
    assert result.csr.candidate_ci is not None
    assert result.csr.candidate_ci.method == "cluster bootstrap"


def test_a_drop_exactly_at_the_threshold_is_flagged() -> None:
    pairs = [Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(8)]  # Δ = −1
    flagged = regression(pairs, RegressionSettings(threshold=1.0))
    assert flagged.isr.delta == -1.0 and flagged.isr.regressed
    assert math.isclose(flagged.isr.p_adjusted or 1, 2 / 256)


def test_compare_trials_with_no_shared_trials_has_no_rows() -> None:
    assert compare_trials([], []) == []


def test_regression_results_are_values() -> None:
    result = regression([Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(6)])
    for value, field in (
        (RegressionSettings(), "alpha"),
        (result, "pairs"),
        (result.isr, "delta"),
        (RegressionRow("m", "all", result), "model"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, 0)
