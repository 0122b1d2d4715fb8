"""Paired tests, the minimum sample rule and the correction, against values computed by hand.

Expected p-values come from binomial tails (math.comb) or from enumerating every sign
pattern in the test itself, never from adhere's code.
"""

import itertools
import math

import pytest

from adhere.metrics import (
    MIN_INSTANCES,
    adjust,
    mcnemar_exact,
    sample_rule,
    sign_flip_test,
    smallest_p,
)


def enumerated_sign_flip(differences: list[float]) -> float:
    """Exact two-sided p: share of the 2^k sign patterns with |Σ ± d| ≥ |Σ d|."""
    observed = abs(sum(differences))
    patterns = list(itertools.product((1, -1), repeat=len(differences)))
    extreme = sum(
        1
        for signs in patterns
        if abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed - 1e-9
    )
    return extreme / len(patterns)


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
        (8, 0, 2 / 256),
    ],
)
def test_mcnemar_exact_matches_the_binomial_tail(worse, better, expected) -> None:
    assert mcnemar_exact(worse, better) == pytest.approx(expected)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 2)


@pytest.mark.parametrize(
    "differences",
    [
        [-1.0] * 6,  # zero variance: every instance dropped alike → 2/2^6
        [-2.0, 1.0, -1.0, -1.0, -1.0, -1.0],
        [-1.0, -1.0, -1.0, -1.0, -1.0, 0.0],  # a drop on five of six instances
        [-0.5, -0.25, 0.0, 0.25, -1.0, -0.75, -0.5],
        [3.0, -1.0],  # n = 2
    ],
)
def test_sign_flip_test_matches_the_enumerated_distribution(differences) -> None:
    assert sign_flip_test(differences) == pytest.approx(enumerated_sign_flip(differences))


def test_sign_flip_of_a_constant_drop_is_the_smallest_p_the_instances_allow() -> None:
    for k in range(2, 9):
        assert sign_flip_test([-1.0] * k) == pytest.approx(2 / 2**k)
        assert smallest_p(k) == pytest.approx(2 / 2**k)


def test_sign_flip_of_no_change_is_one() -> None:
    assert sign_flip_test([0.0, 0.0, 0.0]) == 1.0


def test_sign_flip_with_one_pass_fail_pair_per_instance_is_mcnemar() -> None:
    # 5 instances worse, 1 better, 4 unchanged: the sign test on the 6 discordant pairs.
    differences = [-1.0] * 5 + [1.0] + [0.0] * 4
    assert sign_flip_test(differences) == pytest.approx(2 * (1 + 6) / 64)
    assert mcnemar_exact(5, 1) == pytest.approx(2 * (1 + 6) / 64)


def test_sign_flip_beyond_the_exact_range_draws_random_patterns() -> None:
    # 14 instances, 9 worse and 5 better by one: exact p = 2·P(Bin(14, ½) ≤ 5).
    differences = [-1.0] * 9 + [1.0] * 5
    exact = 2 * sum(math.comb(14, j) for j in range(6)) / 2**14
    assert sign_flip_test(differences, samples=20000, seed=1) == pytest.approx(exact, abs=0.02)
    assert sign_flip_test(differences, samples=500, seed=4) == sign_flip_test(
        differences, samples=500, seed=4
    )


def test_sign_flip_needs_two_instances() -> None:
    with pytest.raises(ValueError, match="two instances"):
        sign_flip_test([-1.0])


@pytest.mark.parametrize(
    ("instances", "alpha", "insufficient"),
    [
        (0, 0.05, True),
        (1, 0.05, True),
        (2, 0.05, True),
        (4, 0.5, True),  # the floor 1/8 would allow it: below MIN_INSTANCES all the same
        (5, 0.05, True),  # 2/32 = 0.0625 ≥ 0.05: no p-value could get below alpha
        (5, 0.0625, True),  # the floor equal to alpha is not below it
        (5, 0.0626, False),
        (5, 0.1, False),
        (6, 0.05, False),  # 2/64 = 0.031
        (7, 0.01, True),  # 2/128 = 0.0156 ≥ 0.01
        (8, 0.01, False),
    ],
)
def test_the_minimum_sample_rule(instances, alpha, insufficient) -> None:
    assert MIN_INSTANCES == 5
    reason = sample_rule(instances, alpha)
    assert (reason is not None) == insufficient
    if reason is not None:
        assert reason.startswith("insufficient data") and str(instances) in reason


def test_benjamini_hochberg_by_hand() -> None:
    # Sorted 0.01, 0.03, 0.04, 0.5 (m = 4): p·m/rank = 0.04, 0.06, 0.0533, 0.5; then the
    # running minimum from the top: 0.04, 0.0533, 0.0533, 0.5 (Holm would give 0.06).
    assert adjust([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.5])
    assert adjust([0.2]) == [0.2]
    assert adjust([]) == []


def test_up_to_twelve_instances_every_sign_pattern_is_counted() -> None:
    """Exact: the p-value is the enumerated one, whatever the sample count or seed."""
    twelve = [5.0, 4.0, -3.0, 3.0, 2.0, -2.0, 2.0, 1.0, 1.0, -1.0, 1.0, 1.0]
    exact = enumerated_sign_flip(twelve)
    assert sign_flip_test(twelve) == exact
    assert sign_flip_test(twelve, samples=10, seed=3) == exact
    assert sign_flip_test([-1.0] * 12) == 2 / 2**12
    eleven = twelve[:11]  # 2^11 patterns, more than the 2000 samples drawn beyond twelve
    assert sign_flip_test(eleven) == enumerated_sign_flip(eleven)


def test_beyond_twelve_instances_patterns_are_drawn_2000_times_with_seed_0() -> None:
    thirteen = [5.0, 4.0, -3.0, 3.0, 2.0, -2.0, 2.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0]
    drawn = sign_flip_test(thirteen)
    assert drawn != enumerated_sign_flip(thirteen)  # sampled, not enumerated
    assert drawn == sign_flip_test(thirteen, samples=2000, seed=0)
    assert drawn != sign_flip_test(thirteen, samples=2000, seed=1)
    assert drawn != sign_flip_test(thirteen, samples=1999, seed=0)
    # a constant drop: no drawn pattern but the observed one is as extreme
    assert sign_flip_test([-1.0] * 13) == pytest.approx(2 / 2001)


def test_negative_counts_are_refused_on_either_side() -> None:
    with pytest.raises(ValueError, match="non-negative, got 2 and -1"):
        mcnemar_exact(2, -1)


def test_no_instance_allows_any_p_below_one() -> None:
    assert smallest_p(0) == 1.0 and smallest_p(1) == 1.0
