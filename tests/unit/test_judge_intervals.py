"""The 95% interval of a rate averaged over judges: a bootstrap over instances."""

import random

import pytest

from adhere.core import Verdict
from adhere.metrics import (
    ScoredTrial,
    judge_rate_intervals,
    judges_mean_interval,
    rate_intervals,
)


def by_hand(sums, sizes, draws=4000, seed=3):
    """Percentile bootstrap of mean_j(Σ sums / Σ sizes), instances drawn with replacement."""
    rng = random.Random(seed)
    n = len(sums[0])
    stats = []
    for _ in range(draws):
        picks = [rng.randrange(n) for _ in range(n)]
        rates = []
        for s_row, n_row in zip(sums, sizes, strict=True):
            total = sum(n_row[i] for i in picks)
            if total:
                rates.append(sum(s_row[i] for i in picks) / total)
        stats.append(sum(rates) / len(rates))
    stats.sort()
    return stats[int(0.025 * draws)], stats[int(0.975 * draws) - 1]


def test_the_interval_is_of_the_mean_across_judges():
    rng = random.Random(1)
    sizes = [[rng.choice([1, 2, 3]) for _ in range(12)] for _ in range(3)]
    sizes[2][0] = 0  # the third judge could not score instance 0
    sums = [[sum(rng.random() < p for _ in range(n)) for n in row] for p, row in
            zip((0.3, 0.5, 0.7), sizes, strict=True)]  # fmt: skip
    found = judges_mean_interval(sums, sizes, samples=4000)
    low, high = by_hand(sums, sizes)
    assert found is not None and found.method == "cluster bootstrap"
    assert found.low == pytest.approx(low, abs=0.03)
    assert found.high == pytest.approx(high, abs=0.03)
    point = sum(sum(s) / sum(n) for s, n in zip(sums, sizes, strict=True)) / 3
    assert found.low < point < found.high


def test_no_variation_at_an_edge_is_wilson_over_instances_and_none_inside():
    every = judges_mean_interval([[1, 1, 1], [2, 2, 2]], [[1, 1, 1], [2, 2, 2]])
    assert every is not None and every.method == "wilson" and every.high == 1.0
    assert judges_mean_interval([[0, 0], [0, 0]], [[1, 1], [1, 1]]).low == 0.0
    # the same rate strictly between 0 and 1 in every instance, for every judge: no interval
    assert judges_mean_interval([[1, 1], [1, 1]], [[2, 2], [2, 2]]) is None
    assert judges_mean_interval([[0, 0]], [[0, 0]]) is None
    with pytest.raises(ValueError):
        judges_mean_interval([[1]], [[1, 1]])


def trial(judge, instance, passed):
    return ScoredTrial(
        keys={"judge": judge, "instance": instance},
        status="ok",
        verdicts=[Verdict(check_id="c", result="pass" if passed else "fail", decided_by="x")],
    )


def test_one_judge_is_the_plain_rate_interval():
    trials = [trial("a", f"i{n}", n % 3 != 0) for n in range(9)]
    assert judge_rate_intervals(trials) == rate_intervals(trials)


def test_judge_rate_intervals_feed_each_judges_sums_per_instance():
    outcomes = {"a": [1, 1, 0, 1, 0, 1], "b": [1, 0, 0, 1, 1, 1]}
    trials = [trial(j, f"i{n}", bool(v)) for j, vs in outcomes.items() for n, v in enumerate(vs)]
    found = judge_rate_intervals(trials)
    sums = [outcomes["a"], outcomes["b"]]
    expected = judges_mean_interval(sums, [[1] * 6, [1] * 6])
    assert found.isr == expected and found.instances == 6 and found.trials == 12
