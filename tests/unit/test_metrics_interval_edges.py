"""Interval helpers at their edges: bad inputs, defaults (2000 draws, seed 0), zero-size
instances, instances whose CSR is 0, two repeats, repeats without a number."""

import dataclasses

import pytest

from adhere.core import Verdict
from adhere.metrics import (
    ScoredTrial,
    avg_at_k,
    cluster_bootstrap,
    rate_interval,
    rate_intervals,
    wilson_interval,
)

# Thirty clusters of varied means: enough atoms that the interval moves with the draws.
SUMS = [(n * 37 % 11) / 10 for n in range(30)]
SIZES = [float(1 + n % 3) for n in range(30)]


def trial(instance: str, results: list[str], repeat=0) -> ScoredTrial:
    verdicts = [
        Verdict(check_id=f"c{n}", result=r, decided_by="t")  # type: ignore[arg-type]
        for n, r in enumerate(results)
    ]
    return ScoredTrial({"instance": instance, "repeat": repeat}, "ok", verdicts)


def test_a_negative_count_of_successes_is_refused() -> None:
    with pytest.raises(ValueError, match="need 0 ≤ successes ≤ n and n ≥ 1, got -1 of 3"):
        wilson_interval(-1, 3)


def test_cluster_bootstrap_refuses_mismatched_or_non_positive_sizes() -> None:
    with pytest.raises(ValueError, match="sums and sizes differ in length: 3 and 2"):
        cluster_bootstrap([1.0, 2.0, 3.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="every cluster needs a positive size"):
        cluster_bootstrap([1.0, 2.0], [1.0, -1.0])


def test_the_defaults_are_2000_draws_and_seed_0() -> None:
    default = cluster_bootstrap(SUMS, SIZES)
    assert default == cluster_bootstrap(SUMS, SIZES, samples=2000, seed=0)
    assert default != cluster_bootstrap(SUMS, SIZES, samples=2000, seed=1)
    assert default != cluster_bootstrap(SUMS, SIZES, samples=1999, seed=0)
    sizes = [int(s) for s in SIZES]
    by_rate = rate_interval(SUMS, sizes, binary=False)
    assert by_rate == rate_interval(SUMS, sizes, binary=False, samples=2000, seed=0)
    assert by_rate != rate_interval(SUMS, sizes, binary=False, seed=1)
    assert by_rate != rate_interval(SUMS, sizes, binary=False, samples=1999)


def varied_trials() -> list[ScoredTrial]:
    """Thirty instances of 3 to 7 checks, two repeats each: CSRs of many values."""
    out = []
    for n in range(30):
        checks = 3 + n % 5
        for repeat in (0, 1):
            passed = (n * 7 + repeat * (n % 4)) % (checks + 1)
            out.append(trial(f"i{n}", ["pass"] * passed + ["fail"] * (checks - passed), repeat))
    return out


def test_rate_intervals_use_2000_draws_and_seed_0_by_default() -> None:
    default = rate_intervals(varied_trials())
    assert default == rate_intervals(varied_trials(), samples=2000, seed=0)
    assert default.csr != rate_intervals(varied_trials(), seed=1).csr
    assert default.csr != rate_intervals(varied_trials(), samples=1999).csr


def test_instances_without_trials_are_left_out() -> None:
    assert rate_interval([1.0, 0.0], [1, 0], binary=True) == wilson_interval(1, 1)
    with pytest.raises(ValueError):
        rate_interval([1.0, 0.0], [1], binary=True)


def test_an_instance_whose_csr_is_zero_adds_nothing_passed() -> None:
    """CSR 0 is a rate, not a missing one: it counts as zero passed items."""
    trials = [trial("i0", ["fail", "fail"], r) for r in (0, 1)]
    trials += [trial("i1", ["pass", "fail"], r) for r in (0, 1)]
    trials += [trial("i2", ["pass", "pass"], r) for r in (0, 1)]
    result = rate_intervals(trials)
    # per instance: CSR sums 0, 1, 2 over 2 trials each
    assert result.csr == rate_interval([0.0, 1.0, 2.0], [2, 2, 2], binary=False)
    assert result.csr is not None and 0.0 <= result.csr.low <= result.csr.high <= 1.0


def test_two_repeats_have_a_spread() -> None:
    result = avg_at_k([trial("i", ["pass"], 0), trial("i", ["fail"], 1)])
    assert result.isr is not None and result.isr.std == pytest.approx(2**0.5 / 2)


def test_repeats_without_a_number_come_after_the_numbered_ones() -> None:
    trials = [trial("i", ["fail"], None), trial("i", ["pass"], 1), trial("i", ["pass"], 0)]
    trials[1] = trial("i", ["pass", "fail"], 1)
    result = avg_at_k(trials)
    assert result.csr is not None and result.csr.values == (1.0, 0.5, 0.0)


def test_intervals_and_spreads_are_values() -> None:
    interval = wilson_interval(1, 2)
    spread = avg_at_k([trial("i", ["pass"], 0)])
    intervals = rate_intervals([trial("i", ["pass"], 0)])
    for value, field in (
        (interval, "low"),
        (spread, "k"),
        (spread.isr, "mean"),
        (intervals, "trials"),
    ):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, 0)
