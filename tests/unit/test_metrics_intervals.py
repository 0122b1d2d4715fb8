"""Intervals of rates and avg@k, against values computed by hand in the test.

Bootstrap expectations come from enumerating every resample of a few clusters and
taking the quantiles of that exact distribution; they sit far from its jumps, so a
Monte Carlo percentile of 10,000 draws lands on the same atom.
"""

import itertools
import math
from statistics import NormalDist

import pytest

from adhere.core import Verdict
from adhere.metrics import (
    RegressionSettings,
    ScoredTrial,
    avg_at_k,
    cluster_bootstrap,
    rate_interval,
    rate_intervals,
    wilson_interval,
)


def wilson_by_hand(x: int, n: int, confidence: float) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def resample_quantiles(
    sums: list[float], sizes: list[float], confidence: float
) -> tuple[float, float]:
    """Exact percentile interval of Σ sums / Σ sizes over every equally likely resample."""
    k = len(sums)
    values = sorted(
        sum(sums[i] for i in draw) / sum(sizes[i] for i in draw)
        for draw in itertools.product(range(k), repeat=k)
    )
    tail = (1 - confidence) / 2

    def quantile(q: float) -> float:
        return values[math.ceil(q * len(values)) - 1]

    return quantile(tail), quantile(1 - tail)


@pytest.mark.parametrize(("x", "n"), [(3, 10), (0, 10), (10, 10), (1, 1), (1, 2), (37, 40)])
def test_wilson_interval_matches_the_formula(x, n) -> None:
    interval = wilson_interval(x, n)
    assert (interval.low, interval.high) == pytest.approx(wilson_by_hand(x, n, 0.95))
    assert (interval.confidence, interval.method) == (0.95, "wilson")
    narrower = wilson_interval(x, n, confidence=0.8)
    assert (narrower.low, narrower.high) == pytest.approx(wilson_by_hand(x, n, 0.8))


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(3, 2)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(0, 0)


def test_a_95_percent_interval_is_not_an_80_percent_one() -> None:
    # Three instances, one changed: the resampled mean is k/3, k ~ Bin(3, 1/3);
    # P(1) = 1/27 > 2.5 % but < 10 %: the 95 % interval reaches 1, the 80 % one 2/3.
    sums, sizes = [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]
    wide = resample_quantiles(sums, sizes, 0.95)
    narrow = resample_quantiles(sums, sizes, 0.80)
    assert wide == (0.0, 1.0) and narrow == (0.0, pytest.approx(2 / 3))
    default = cluster_bootstrap(sums, sizes, samples=10000)
    assert default is not None and default.confidence == 0.95
    assert (default.low, default.high) == pytest.approx(wide)
    eighty = cluster_bootstrap(sums, sizes, samples=10000, confidence=0.8)
    assert eighty is not None and (eighty.low, eighty.high) == pytest.approx(narrow)
    assert RegressionSettings().confidence == 0.95


def test_the_bootstrap_resamples_whole_instances() -> None:
    # Instance A: two trials at −1 each (sum −2); B: one at 0. Resampling instances:
    # AA → −1 (¼), AB → −2/3 (½), BB → 0 (¼), so the 80 % interval is [−1, 0];
    # resampling the three trials instead would give [−1, −1/3].
    sums, sizes = [-2.0, 0.0], [2.0, 1.0]
    expected = resample_quantiles(sums, sizes, 0.8)
    assert expected == (-1.0, 0.0)
    interval = cluster_bootstrap(sums, sizes, samples=10000, confidence=0.8)
    assert interval is not None and (interval.low, interval.high) == pytest.approx(expected)
    assert interval.method == "cluster bootstrap"


def test_the_bootstrap_is_seeded() -> None:
    sums, sizes = [0.2, 0.9, 0.4, 0.7, 0.1], [1.0] * 5
    first = cluster_bootstrap(sums, sizes, samples=300, seed=7)
    assert first == cluster_bootstrap(sums, sizes, samples=300, seed=7)
    assert first != cluster_bootstrap(sums, sizes, samples=300, seed=8)


def test_a_degenerate_bootstrap_gives_no_interval() -> None:
    assert cluster_bootstrap([1.0], [1.0]) is None  # one instance
    assert cluster_bootstrap([0.5, 1.0, 1.5], [1.0, 2.0, 3.0]) is None  # all equal means
    with pytest.raises(ValueError, match="differ in length"):
        cluster_bootstrap([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive size"):
        cluster_bootstrap([1.0, 0.0], [1.0, 0.0])


def test_isr_of_independent_trials_uses_wilson() -> None:
    interval = rate_interval([1, 0, 1, 1], [1, 1, 1, 1], binary=True)
    assert interval is not None and interval.method == "wilson"
    assert (interval.low, interval.high) == pytest.approx(wilson_by_hand(3, 4, 0.95))


def test_all_pass_or_all_fail_with_repeats_counts_instances_once() -> None:
    # Four instances, three repeats each, every trial passed: Wilson for 4 of 4, not 12.
    passed = rate_interval([3, 3, 3, 3], [3, 3, 3, 3], binary=True)
    assert passed is not None and passed.method == "wilson"
    assert (passed.low, passed.high) == pytest.approx(wilson_by_hand(4, 4, 0.95))
    failed = rate_interval([0, 0, 0, 0], [3, 3, 3, 3], binary=False)
    assert failed is not None
    assert (failed.low, failed.high) == pytest.approx(wilson_by_hand(0, 4, 0.95))


def test_repeats_with_variation_use_the_cluster_bootstrap() -> None:
    interval = rate_interval([0, 0, 2], [2, 2, 2], binary=True, samples=10000)
    assert interval is not None and interval.method == "cluster bootstrap"
    expected = resample_quantiles([0.0, 0.0, 2.0], [2.0, 2.0, 2.0], 0.95)
    assert (interval.low, interval.high) == pytest.approx(expected)


def test_no_interval_without_data_or_variation_inside_the_range() -> None:
    assert rate_interval([], [], binary=True) is None
    assert rate_interval([1, 1], [2, 2], binary=True) is None  # both instances at ½


def trial(instance: str, results: list[str], *, repeat: int = 0, status: str = "ok"):
    verdicts = [
        Verdict(check_id=f"c{n}", result=r, decided_by="t")  # type: ignore[arg-type]
        for n, r in enumerate(results)
    ]
    keys = {"model": "m", "scaffold": "chat", "instance": instance, "repeat": repeat}
    return ScoredTrial(keys=keys, status=status, verdicts=verdicts)


def test_rate_intervals_of_one_instance() -> None:
    result = rate_intervals([trial("i0", ["pass", "pass"])])
    assert (result.instances, result.trials) == (1, 1)
    assert result.isr is not None and result.csr is not None
    assert (result.isr.low, result.isr.high) == pytest.approx(wilson_by_hand(1, 1, 0.95))
    assert (result.csr.low, result.csr.high) == pytest.approx(wilson_by_hand(1, 1, 0.95))


def test_rate_intervals_of_two_trials() -> None:
    result = rate_intervals([trial("i0", ["pass", "pass"]), trial("i1", ["pass", "fail"])])
    assert (result.instances, result.trials) == (2, 2)
    assert result.isr is not None
    assert (result.isr.low, result.isr.high) == pytest.approx(wilson_by_hand(1, 2, 0.95))
    # CSR 1 and ½: two instances, resampled: 1 (¼), ¾ (½), ½ (¼) → 95 % interval [½, 1].
    assert result.csr is not None and (result.csr.low, result.csr.high) == (0.5, 1.0)


def test_rate_intervals_cluster_repeats_and_skip_what_rates_skip() -> None:
    trials = [
        trial("i0", ["pass"], repeat=0),
        trial("i0", ["pass"], repeat=1),
        trial("i1", ["fail"], repeat=0),
        trial("i1", ["fail"], repeat=1),
        trial("i2", ["pass"], status="upstream_fault"),  # left out, as rates() does
        trial("i3", ["n/a"]),  # no applicable check
    ]
    result = rate_intervals(trials, samples=10000)
    assert (result.instances, result.trials) == (2, 4)
    assert result.isr is not None and result.isr.method == "cluster bootstrap"
    assert (result.isr.low, result.isr.high) == resample_quantiles([2.0, 0.0], [2.0, 2.0], 0.95)


def test_avg_at_k_is_the_spread_across_repeats() -> None:
    # Repeat 0: ISR 1 (both pass); repeat 1: ½; repeat 2: 0; repeat 10 (numeric order): 1.
    trials = [
        trial("i0", ["pass"], repeat=0),
        trial("i1", ["pass"], repeat=0),
        trial("i0", ["pass"], repeat=1),
        trial("i1", ["fail"], repeat=1),
        trial("i0", ["fail"], repeat=2),
        trial("i1", ["fail"], repeat=2),
        trial("i0", ["pass", "pass"], repeat=10),
        trial("i1", ["pass", "pass"], repeat=10),
    ]
    result = avg_at_k(trials)
    assert result.k == 4 and result.isr is not None and result.csr is not None
    assert result.isr.values == (1.0, 0.5, 0.0, 1.0)
    assert result.isr.mean == pytest.approx(0.625)
    mean = 0.625
    std = math.sqrt(sum((v - mean) ** 2 for v in (1.0, 0.5, 0.0, 1.0)) / 3)
    assert result.isr.std == pytest.approx(std)
    assert (result.isr.low, result.isr.high) == (0.0, 1.0)
    single = avg_at_k(trials[:2])
    assert single.k == 1 and single.isr is not None and single.isr.std is None
    assert avg_at_k([]).isr is None
