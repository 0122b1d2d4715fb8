"""Regression statistics against values computed by hand."""

import pytest

from adhere.core import Verdict
from adhere.metrics._rates import ScoredTrial, TrialScore
from adhere.metrics._regression import (
    ALL_SOURCES,
    Pair,
    RegressionSettings,
    compare_trials,
    mcnemar_exact,
    paired_bootstrap,
    paired_trials,
    regression,
)


@pytest.mark.parametrize(
    ("worse", "better", "expected"),
    [
        (0, 0, 1.0),
        (5, 0, 2 / 32),  # 2 · C(5,0) / 2^5
        (0, 5, 2 / 32),
        (6, 1, 2 * (1 + 7) / 128),  # 2 · (C(7,0) + C(7,1)) / 2^7
        (10, 2, 2 * (1 + 12 + 66) / 4096),
        (3, 3, 1.0),  # 2 · 42/64 > 1 → capped
        (1, 0, 1.0),
    ],
)
def test_mcnemar_exact_matches_the_binomial_tail(worse, better, expected) -> None:
    assert mcnemar_exact(worse, better) == pytest.approx(expected)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_bootstrap_of_no_change_has_p_one() -> None:
    result = paired_bootstrap([[(1.0, 1.0)], [(0.0, 0.0)], [(0.5, 0.5)]], samples=99)
    assert (result.delta, result.p_value, result.ci_lower, result.ci_upper) == (0, 1, 0, 0)


def test_bootstrap_of_a_constant_drop_has_the_smallest_p() -> None:
    result = paired_bootstrap([[(1.0, 0.0)]] * 4, samples=99)
    assert result.delta == -1.0
    assert result.p_value == pytest.approx(1 / 100)  # no draw is as far from Δ̂ as zero
    assert (result.ci_lower, result.ci_upper) == (-1.0, -1.0)


def test_bootstrap_of_two_pairs_matches_the_enumerated_distribution() -> None:
    # diffs [1, 0]: Δ̂ = 0.5; Δ* is 1 (¼), 0.5 (½) or 0 (¼); |Δ* − 0.5| ≥ 0.5 has prob ½.
    result = paired_bootstrap([[(0.0, 1.0)], [(1.0, 1.0)]], samples=20000, seed=3)
    assert result.delta == 0.5
    assert result.p_value == pytest.approx(0.5, abs=0.02)
    assert (result.ci_lower, result.ci_upper) == (0.0, 1.0)


def test_bootstrap_resamples_whole_clusters() -> None:
    # Cluster A: two pairs, each −1; cluster B: one pair, 0. Δ̂ = −2/3.
    # Draws: AA → −1 (¼), AB → −2/3 (½), BB → 0 (¼); only BB is ≥ 2/3 away from Δ̂.
    clusters = [[(1.0, 0.0), (1.0, 0.0)], [(0.0, 0.0)]]
    result = paired_bootstrap(clusters, samples=20000, seed=1)
    assert result.delta == pytest.approx(-2 / 3)
    assert result.p_value == pytest.approx(0.25, abs=0.02)


def test_bootstrap_is_seeded() -> None:
    clusters = [[(1.0, 0.0)], [(0.0, 0.0)], [(0.0, 1.0)], [(1.0, 0.0)], [(1.0, 1.0)]]
    first = paired_bootstrap(clusters, samples=500, seed=7)
    assert first == paired_bootstrap(clusters, samples=500, seed=7)
    assert first != paired_bootstrap(clusters, samples=500, seed=8)


def test_bootstrap_needs_clusters() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([])
    with pytest.raises(ValueError):
        paired_bootstrap([[]])


def score(passed: int, applicable: int) -> TrialScore:
    return TrialScore(passed=passed, applicable=applicable, errors=0)


def test_regression_of_six_broken_instances_out_of_eight() -> None:
    # Baseline passes both checks everywhere; the candidate fails one of two on 6 of 8.
    pairs = [Pair(f"i{n}", score(2, 2), score(1 if n < 6 else 2, 2)) for n in range(8)]
    result = regression(pairs, RegressionSettings(samples=2000))
    assert (result.pairs, result.clusters, result.worse, result.better) == (8, 8, 6, 0)
    assert (result.isr.baseline, result.isr.candidate) == (1.0, 0.25)
    assert result.isr.delta == pytest.approx(-0.75)
    assert result.isr.p_mcnemar == pytest.approx(2 / 64)
    assert result.isr.p_value == result.isr.p_mcnemar
    assert result.isr.regressed
    # CSR: 6 trials at ½ and 2 at 1 → 5/8; Δ = −3/8. Δ* ≥ 0 needs all 8 draws from the
    # two unchanged instances ((2/8)^8 ≈ 1.5e-5) and Δ* ≤ −0.75 is impossible.
    assert result.csr.candidate == pytest.approx(5 / 8)
    assert result.csr.delta == pytest.approx(-3 / 8)
    assert result.csr.p_mcnemar is None
    assert result.csr.p_value == pytest.approx(1 / 2001)
    assert result.csr.regressed and result.regressed
    assert not regression(pairs, RegressionSettings(threshold=0.8)).isr.regressed
    assert not regression(pairs, RegressionSettings(alpha=0.01)).isr.regressed  # p = 0.03125


def test_an_improvement_is_never_flagged() -> None:
    pairs = [Pair(f"i{n}", score(0, 1), score(1, 1)) for n in range(10)]
    result = regression(pairs)
    assert result.isr.delta == 1.0 and result.isr.p_value == pytest.approx(2 / 1024)
    assert not result.regressed


def test_regression_needs_pairs() -> None:
    with pytest.raises(ValueError):
        regression([])


@pytest.mark.parametrize(
    "bad",
    [{"threshold": -0.1}, {"alpha": 0}, {"alpha": 1}, {"samples": 0}, {"confidence": 1}],
)
def test_settings_are_checked(bad) -> None:
    with pytest.raises(ValueError):
        RegressionSettings(**bad)


def trial(model: str, instance: str, results: dict[str, str], *, repeat: int = 0) -> ScoredTrial:
    verdicts = [Verdict(check_id=c, result=r, decided_by="t") for c, r in results.items()]  # type: ignore[arg-type]
    keys = {"model": model, "scaffold": "chat", "instance": instance, "repeat": repeat}
    return ScoredTrial(keys=keys, status="ok", verdicts=verdicts)


SOURCES = {"i1": {"a": "SP", "b": "UserQuery"}, "i2": {"a": "SP", "b": "UserQuery"}}


def test_pairs_match_shared_trials_and_split_by_source() -> None:
    baseline = [
        trial("m", "i1", {"a": "pass", "b": "pass"}),
        trial("m", "i2", {"a": "pass", "b": "n/a"}),
        trial("m", "i3", {"a": "pass"}),  # not in the candidate
    ]
    candidate = [
        trial("m", "i1", {"a": "fail", "b": "pass"}),
        trial("m", "i2", {"a": "pass", "b": "pass"}),
        trial("m", "i1", {"a": "pass", "b": "pass"}, repeat=1),  # not in the baseline
        trial("other", "i1", {"a": "pass", "b": "pass"}),
    ]
    groups = paired_trials(baseline, candidate, sources=SOURCES)
    assert list(groups) == [("m", ALL_SOURCES), ("m", "SP"), ("m", "UserQuery")]
    assert [p.cluster for p in groups[("m", ALL_SOURCES)]] == ["i1", "i2"]
    assert [(p.baseline.passed, p.candidate.passed) for p in groups[("m", "SP")]] == [
        (1, 0),
        (1, 1),
    ]
    # i2's UserQuery item is n/a in the baseline: that pair has no UserQuery comparison.
    assert [p.cluster for p in groups[("m", "UserQuery")]] == ["i1"]


def test_compare_trials_gives_one_row_per_model_and_source() -> None:
    baseline = [trial("m", "i1", {"a": "pass", "b": "pass"})]
    candidate = [trial("m", "i1", {"a": "fail", "b": "pass"})]
    rows = compare_trials(baseline, candidate, sources=SOURCES)
    assert [(r.model, r.source) for r in rows] == [
        ("m", ALL_SOURCES),
        ("m", "SP"),
        ("m", "UserQuery"),
    ]
    assert [r.regression.isr.delta for r in rows] == [-1.0, -1.0, 0.0]
    assert [r.regression.csr.delta for r in rows] == [-0.5, -1.0, 0.0]
    assert compare_trials(baseline, candidate)[0].source == ALL_SOURCES
