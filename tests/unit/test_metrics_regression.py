"""Regression rows: pairing, tests, the minimum sample rule, the correction and the flags.

Expected p-values are binomial tails written out by hand (math.comb) and
Benjamini–Hochberg done by hand; none is read off adhere's output.
"""

import math

import pytest

from adhere.core import Verdict
from adhere.metrics import (
    ALL_SOURCES,
    Pair,
    RegressionSettings,
    ScoredTrial,
    TrialScore,
    compare_trials,
    paired_trials,
    regression,
)


def score(passed: int, applicable: int) -> TrialScore:
    return TrialScore(passed=passed, applicable=applicable, errors=0)


def sign_test(worse: int, better: int) -> float:
    """Two-sided exact binomial p of ``worse`` out of ``worse + better`` at ½."""
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / 2**n)


def test_one_instance_with_four_paired_repeats_is_insufficient_data() -> None:
    # The measured case: one instance, four repeats, CSR 100 % → 50 %. A bootstrap over
    # one cluster has no variance; it used to report p < 0.001 and flag CSR.
    pairs = [Pair("i0", score(2, 2), score(1, 2)) for _ in range(4)]
    result = regression(pairs)
    assert (result.pairs, result.clusters) == (4, 1)
    assert result.insufficient is not None and "1 instance" in result.insufficient
    assert (result.isr.delta, result.csr.delta) == (-1.0, -0.5)
    for metric in (result.isr, result.csr):
        assert metric.p_value is None and metric.p_adjusted is None
        assert not metric.regressed
        assert metric.delta_ci is None  # no interval from one instance
    assert not result.regressed


def test_two_instances_are_insufficient_data() -> None:
    pairs = [Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(2)]
    result = regression(pairs)
    assert result.insufficient is not None and not result.regressed
    assert result.isr.p_mcnemar is None  # McNemar would say 0.5; no p-value is given


def test_all_equal_is_no_change_not_insufficient() -> None:
    pairs = [Pair(f"i{n}", score(n % 2, 1), score(n % 2, 1)) for n in range(8)]
    result = regression(pairs)
    assert result.insufficient is None and (result.worse, result.better) == (0, 0)
    for metric in (result.isr, result.csr):
        assert metric.delta == 0 and metric.p_value == 1.0 and not metric.regressed
        assert metric.delta_ci is None  # every instance changed by the same 0


def test_all_pass_to_all_fail_over_eight_instances() -> None:
    pairs = [Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(8)]
    result = regression(pairs)
    assert (result.worse, result.better) == (8, 0)
    assert result.isr.test == "mcnemar"
    assert result.isr.p_value == pytest.approx(sign_test(8, 0))  # 2/256
    assert result.csr.test == "permutation"
    assert result.csr.p_value == pytest.approx(2 / 2**8)  # one sign pattern in 2^8 each way
    # The family of two equal p-values: BH leaves them as they are.
    assert result.isr.p_adjusted == pytest.approx(2 / 256)
    assert result.isr.regressed and result.csr.regressed
    assert (result.isr.baseline, result.isr.candidate) == (1.0, 0.0)
    assert result.isr.baseline_ci is not None and result.isr.baseline_ci.method == "wilson"
    assert result.isr.baseline_ci.low < 1.0 == result.isr.baseline_ci.high


def test_no_discordant_pairs_leaves_isr_untested_by_mcnemar_but_csr_regresses() -> None:
    # Every trial fails ISR on both sides; CSR drops from 2/3 to 1/3 everywhere.
    pairs = [Pair(f"i{n}", score(2, 3), score(1, 3)) for n in range(8)]
    result = regression(pairs)
    assert (result.worse, result.better) == (0, 0)
    assert result.isr.p_value == 1.0 and not result.isr.regressed
    assert result.csr.delta == pytest.approx(-1 / 3)
    assert result.csr.p_value == pytest.approx(2 / 256)
    assert result.csr.regressed and result.regressed  # CSR alone is enough


def test_only_isr_regresses_and_the_row_is_regressed() -> None:
    # 20 checks; the candidate fails one of them on every instance: ISR −100 pp, CSR −5 pp.
    pairs = [Pair(f"i{n}", score(20, 20), score(19, 20)) for n in range(8)]
    result = regression(pairs, RegressionSettings(threshold=0.1))
    assert result.isr.regressed and not result.csr.regressed  # CSR's drop is below 10 pp
    assert result.regressed


def test_repeats_are_tested_per_instance_not_per_pair() -> None:
    # 6 instances × 5 repeats, all pass → all fail: McNemar over 30 "independent" pairs
    # would say 2/2^30; per instance the floor is 2/2^6.
    pairs = [Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(6) for _ in range(5)]
    result = regression(pairs)
    assert result.isr.test == "permutation" and result.isr.p_mcnemar is None
    assert result.isr.p_value == pytest.approx(2 / 2**6)


def test_one_instance_with_repeats_is_enough_to_leave_mcnemar() -> None:
    # Five instances with one pair and one with two: pairs are not all independent.
    pairs = [Pair(f"i{n}", score(1, 1), score(0, 1)) for n in range(6)]
    pairs.append(Pair("i0", score(1, 1), score(0, 1)))
    result = regression(pairs)
    assert result.isr.test == "permutation" and result.isr.p_value == pytest.approx(2 / 2**6)


def test_the_difference_interval_is_95_percent_by_default() -> None:
    # Three instances, one improved by a whole pair: Δ* = k/3 with k ~ Bin(3, 1/3).
    # P(Δ* = 1) = 1/27 lies between 2.5 % and 10 %: a 95 % interval reaches 1, an 80 %
    # one stops at 2/3 (enumerated in test_metrics_intervals.py).
    pairs = [Pair(f"i{n}", score(0, 1), score(1 if n == 2 else 0, 1)) for n in range(3)]
    result = regression(pairs, RegressionSettings(samples=10000))
    assert result.isr.delta_ci is not None and result.isr.delta_ci.confidence == 0.95
    assert (result.isr.delta_ci.low, result.isr.delta_ci.high) == pytest.approx((0.0, 1.0))
    eighty = regression(pairs, RegressionSettings(samples=10000, confidence=0.8)).isr.delta_ci
    assert eighty is not None and (eighty.low, eighty.high) == pytest.approx((0.0, 2 / 3))


def test_a_partial_drop_is_not_taken_for_a_constant_one() -> None:
    # Five of six instances dropped by one pair in two, one did not: p is the sign
    # test on five, 2/2^5 = 0.0625 — not the floor 2/2^6 a constant drop would give.
    pairs = [
        Pair(f"i{n}", score(1, 1), score(0 if n < 5 else 1, 1)) for n in range(6) for _ in range(2)
    ]
    result = regression(pairs)
    assert result.csr.p_value == pytest.approx(sign_test(5, 0))
    assert not result.csr.regressed


def test_a_drop_below_the_threshold_or_alpha_is_not_flagged() -> None:
    pairs = [Pair(f"i{n}", score(2, 2), score(1 if n < 6 else 2, 2)) for n in range(8)]
    result = regression(pairs)
    assert result.isr.delta == pytest.approx(-0.75)
    assert result.isr.p_value == pytest.approx(sign_test(6, 0))  # 2/64
    assert result.isr.regressed
    assert not regression(pairs, RegressionSettings(threshold=0.8)).isr.regressed
    assert regression(pairs, RegressionSettings(alpha=0.01)).insufficient is None
    assert not regression(pairs, RegressionSettings(alpha=0.01)).isr.regressed


def test_a_p_value_equal_to_alpha_is_not_below_it() -> None:
    # Seven instances, six pass → fail: p = 2/2^6 = 0.03125 for both metrics (adjusted
    # alike); flagged only when alpha is above it.
    pairs = [Pair(f"i{n}", score(1, 1), score(0 if n < 6 else 1, 1)) for n in range(7)]
    at = regression(pairs, RegressionSettings(alpha=2 / 64))
    assert at.insufficient is None and at.isr.p_adjusted == 2 / 64
    assert not at.regressed
    assert regression(pairs, RegressionSettings(alpha=2 / 64 + 1e-9)).regressed


def test_an_improvement_is_never_flagged() -> None:
    pairs = [Pair(f"i{n}", score(0, 1), score(1, 1)) for n in range(10)]
    result = regression(pairs)
    assert result.isr.delta == 1.0 and result.isr.p_value == pytest.approx(2 / 1024)
    assert not result.regressed


def test_regression_needs_pairs() -> None:
    with pytest.raises(ValueError, match="at least one pair"):
        regression([])


@pytest.mark.parametrize(
    "bad",
    [{"threshold": -0.1}, {"alpha": 0}, {"alpha": 1}, {"samples": 0}, {"confidence": 1}],
)
def test_settings_are_checked(bad) -> None:
    with pytest.raises(ValueError):
        RegressionSettings(**bad)


def trial(
    model: str,
    instance: str,
    results: dict[str, str],
    *,
    repeat: int = 0,
    scaffold: str = "chat",
) -> ScoredTrial:
    verdicts = [Verdict(check_id=c, result=r, decided_by="t") for c, r in results.items()]  # type: ignore[arg-type]
    keys = {"model": model, "scaffold": scaffold, "instance": instance, "repeat": repeat}
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


def test_pairing_keeps_two_scaffolds_apart() -> None:
    # Same instance and repeat under two scaffolds; each scaffold did the same in both
    # rollouts (A passes, B fails). Pairing A with B would invent a change.
    baseline = [
        trial("m", "i1", {"a": "pass"}, scaffold="A"),
        trial("m", "i1", {"a": "fail"}, scaffold="B"),
    ]
    candidate = [
        trial("m", "i1", {"a": "pass"}, scaffold="A"),
        trial("m", "i1", {"a": "fail"}, scaffold="B"),
    ]
    pairs = paired_trials(baseline, candidate)[("m", ALL_SOURCES)]
    assert sorted((p.baseline.passed, p.candidate.passed) for p in pairs) == [(0, 0), (1, 1)]
    assert {p.cluster for p in pairs} == {"i1"}  # one instance: one cluster of two pairs
    rows = compare_trials(baseline, candidate)
    assert rows[0].regression.isr.delta == 0 and rows[0].regression.csr.delta == 0
    assert (rows[0].regression.worse, rows[0].regression.better) == (0, 0)


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
    assert all(r.regression.insufficient and not r.regression.regressed for r in rows)
    assert compare_trials(baseline, candidate)[0].source == ALL_SOURCES


def six_instances(model: str, result: str) -> list[ScoredTrial]:
    return [trial(model, f"i{n}", {"a": result}) for n in range(6)]


def test_the_flag_is_corrected_over_every_row_of_the_comparison() -> None:
    # Model "drop": 6 instances pass → fail, raw p = 2/64 for ISR and for CSR.
    alone = compare_trials(six_instances("drop", "pass"), six_instances("drop", "fail"))
    assert [r.regression.isr.p_value for r in alone] == [pytest.approx(2 / 64)]
    assert alone[0].regression.isr.p_adjusted == pytest.approx(2 / 64)  # family of 2 equal ps
    assert alone[0].regression.regressed
    # With an unchanged second model the family is {2/64, 2/64, 1, 1}: BH gives the two
    # smallest 2/64 · 4/2 = 0.0625 ≥ 0.05, so the same drop is no longer flagged.
    baseline = six_instances("drop", "pass") + six_instances("same", "pass")
    candidate = six_instances("drop", "fail") + six_instances("same", "pass")
    rows = {r.model: r.regression for r in compare_trials(baseline, candidate)}
    assert rows["drop"].isr.p_value == pytest.approx(2 / 64)
    assert rows["drop"].isr.p_adjusted == pytest.approx(2 / 64 * 4 / 2)
    assert rows["same"].isr.p_adjusted == pytest.approx(1.0)
    assert not rows["drop"].regressed and not rows["same"].regressed


def test_a_trial_with_an_undecided_check_is_not_paired() -> None:
    """An errored or missing check has no score: such a trial cannot regress (nor
    improve), so its pair is left out — it used to count as a fail and could flag a
    regression made of judge errors."""

    def trial(instance: str, *results: str, expected=None) -> ScoredTrial:
        verdicts = [
            Verdict(check_id=f"c{n}", result=r, decided_by="t")  # type: ignore[arg-type]
            for n, r in enumerate(results)
        ]
        keys = {"model": "m", "scaffold": "s", "instance": instance, "repeat": 0}
        return ScoredTrial(keys, "ok", verdicts, expected=expected)

    baseline = [trial("a", "pass", "pass"), trial("b", "pass", "pass"), trial("c", "pass")]
    candidate = [
        trial("a", "pass", "error"),  # the judge failed: undecided
        trial("b", "pass", "pass", expected=("c0", "c1", "c2")),  # c2 never decided
        trial("c", "fail"),
    ]
    pairs = paired_trials(baseline, candidate)[("m", ALL_SOURCES)]
    assert [p.cluster for p in pairs] == ["c"]
    failed_run = ScoredTrial(candidate[0].keys, "error", [], expected=("c0", "c1"))
    (pair,) = paired_trials(baseline[:1], [failed_run])[("m", ALL_SOURCES)]
    assert (pair.candidate.passed, pair.candidate.applicable) == (0, 2)  # a failed run fails
