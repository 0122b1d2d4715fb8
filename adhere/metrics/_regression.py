"""Regression between two rollouts: paired ΔISR / ΔCSR, tests, intervals and a flag.

A candidate rollout is compared with a baseline over the trials both ran
(:func:`adhere.metrics.paired_trials`); Δ is ``candidate − baseline`` (negative: worse),
the mean of the per-pair differences. The instance is the unit of independence.

Per metric of a row:

* **Δ with a 95 % interval**: the cluster bootstrap over instances
  (:func:`adhere.metrics.cluster_bootstrap`); each side's rate with its interval
  (:func:`adhere.metrics.rate_interval`).
* **The test** (two-sided): for ISR when every instance contributes exactly one pair,
  McNemar's exact test on the discordant pairs; otherwise — ISR with repeats or several
  scaffolds, and CSR always — the instance-level sign-flip permutation test (both in
  :mod:`adhere.metrics._significance`; the first is the special case of the second).
* **Minimum sample rule**: a row with too few instances for any test to reach alpha is
  *insufficient data*: no p-value, never flagged.
* **Correction**: the p-values of every tested (model, source, metric) of one
  comparison form one family, adjusted with Benjamini–Hochberg.

A metric is flagged as regressed when ``Δ ≤ −threshold`` and its adjusted p-value is
below alpha. :func:`compare_trials` is the one function behind ``adhere compare``,
``--fail-on-regression`` and the exporter's regression series and alert.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from adhere.metrics._intervals import Interval, cluster_bootstrap, rate_interval
from adhere.metrics._pairing import Pair, paired_trials
from adhere.metrics._rates import ScoredTrial, TrialScore
from adhere.metrics._significance import adjust, mcnemar_exact, sample_rule, sign_flip_test

__all__ = [
    "MetricRegression",
    "Regression",
    "RegressionRow",
    "RegressionSettings",
    "compare_trials",
    "regression",
]

_TOLERANCE = 1e-12
Metric = Literal["isr", "csr"]


@dataclass(frozen=True)
class RegressionSettings:
    """How a comparison is tested and when it is flagged.

    Attributes:
        threshold: Smallest drop (a share: 0.05 is 5 points) that can be flagged.
        alpha: A drop is flagged only when its adjusted p-value is below this.
        samples: Bootstrap draws; random sign patterns of the permutation test beyond
            12 instances.
        seed: Seed of both (same inputs, same seed: same intervals and p-values).
        confidence: Coverage of the intervals.
    """

    threshold: float = 0.05
    alpha: float = 0.05
    samples: int = 2000
    seed: int = 0
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if not 0 <= self.threshold <= 1:
            raise ValueError(f"threshold must be a share in [0, 1], got {self.threshold}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")


@dataclass(frozen=True)
class MetricRegression:
    """ISR or CSR of the baseline and the candidate over the same pairs, and the test.

    Attributes:
        metric: ``isr`` or ``csr``.
        baseline: The baseline's rate over the pairs.
        candidate: The candidate's rate over the pairs.
        baseline_ci: Its interval (``None`` when none can be given).
        candidate_ci: The candidate's.
        delta: ``candidate − baseline``.
        delta_ci: Cluster-bootstrap interval of Δ (``None``: fewer than two instances,
            or every instance changed by the same amount).
        test: ``mcnemar`` or ``permutation``.
        p_value: The test's p-value (``None`` with insufficient data).
        p_adjusted: After the Benjamini–Hochberg correction over the comparison.
        regressed: Δ ≤ −threshold with ``p_adjusted`` below alpha.
    """

    metric: Metric
    baseline: float
    candidate: float
    baseline_ci: Interval | None
    candidate_ci: Interval | None
    delta: float
    delta_ci: Interval | None
    test: Literal["mcnemar", "permutation"]
    p_value: float | None
    p_adjusted: float | None
    regressed: bool

    @property
    def p_mcnemar(self) -> float | None:
        """McNemar's exact p-value, when it is the test (ISR, one pair per instance)."""
        return self.p_value if self.test == "mcnemar" else None


@dataclass(frozen=True)
class Regression:
    """A comparison over one group of pairs.

    Attributes:
        pairs: Shared trials.
        clusters: Shared instances.
        worse: Pairs whose trial passed in the baseline and not in the candidate.
        better: Pairs whose trial passed in the candidate and not in the baseline.
        isr: ΔISR and its test.
        csr: ΔCSR and its test.
        insufficient: Why the row is not tested (the minimum sample rule), else ``None``.
    """

    pairs: int
    clusters: int
    worse: int
    better: int
    isr: MetricRegression
    csr: MetricRegression
    insufficient: str | None = None

    @property
    def regressed(self) -> bool:
        """Whether ISR or CSR is flagged."""
        return self.isr.regressed or self.csr.regressed


@dataclass(frozen=True)
class RegressionRow:
    """The comparison of one model over one instruction source (or ``all``)."""

    model: str
    source: str
    regression: Regression


def _rate_interval(
    sums: Sequence[float], sizes: Sequence[int], binary: bool, settings: RegressionSettings
) -> Interval | None:
    return rate_interval(
        sums,
        sizes,
        binary=binary,
        confidence=settings.confidence,
        samples=settings.samples,
        seed=settings.seed,
    )


def _metric(
    metric: Metric,
    clusters: Sequence[Sequence[Pair]],
    settings: RegressionSettings,
    insufficient: str | None,
    worse: int,
    better: int,
) -> MetricRegression:
    def value(score: TrialScore) -> float:
        return float(score.all_passed) if metric == "isr" else score.rate

    sizes = [len(c) for c in clusters]
    base = [sum(value(p.baseline) for p in c) for c in clusters]
    cand = [sum(value(p.candidate) for p in c) for c in clusters]
    diffs = [c - b for b, c in zip(base, cand, strict=True)]
    n = sum(sizes)
    test: Literal["mcnemar", "permutation"] = (
        "mcnemar" if metric == "isr" and all(s == 1 for s in sizes) else "permutation"
    )
    p_value: float | None = None
    if insufficient is None:
        p_value = (
            mcnemar_exact(worse, better)
            if test == "mcnemar"
            else sign_flip_test(diffs, samples=settings.samples, seed=settings.seed)
        )
    binary = metric == "isr"
    return MetricRegression(
        metric=metric,
        baseline=sum(base) / n,
        candidate=sum(cand) / n,
        baseline_ci=_rate_interval(base, sizes, binary, settings),
        candidate_ci=_rate_interval(cand, sizes, binary, settings),
        delta=sum(diffs) / n,
        delta_ci=cluster_bootstrap(
            diffs,
            [float(s) for s in sizes],
            confidence=settings.confidence,
            samples=settings.samples,
            seed=settings.seed,
        ),
        test=test,
        p_value=p_value,
        p_adjusted=None,
        regressed=False,
    )


def _tested(pairs: Sequence[Pair], settings: RegressionSettings) -> Regression:
    """ΔISR and ΔCSR with their unadjusted tests; nothing flagged yet."""
    if not pairs:
        raise ValueError("a regression needs at least one pair")
    by_cluster: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_cluster[pair.cluster].append(pair)
    clusters = [by_cluster[c] for c in sorted(by_cluster)]
    worse = sum(1 for p in pairs if p.baseline.all_passed and not p.candidate.all_passed)
    better = sum(1 for p in pairs if p.candidate.all_passed and not p.baseline.all_passed)
    insufficient = sample_rule(len(clusters), settings.alpha)
    return Regression(
        pairs=len(pairs),
        clusters=len(clusters),
        worse=worse,
        better=better,
        isr=_metric("isr", clusters, settings, insufficient, worse, better),
        csr=_metric("csr", clusters, settings, insufficient, worse, better),
        insufficient=insufficient,
    )


def _flagged(tested: Sequence[Regression], settings: RegressionSettings) -> list[Regression]:
    """Adjust every p-value of ``tested`` as one family and set the flags."""
    family = [
        (i, result)
        for i, r in enumerate(tested)
        for result in (r.isr, r.csr)
        if result.p_value is not None
    ]
    adjusted = adjust([result.p_value for _, result in family if result.p_value is not None])
    p_of = {(i, result.metric): p for (i, result), p in zip(family, adjusted, strict=True)}

    def flag(i: int, result: MetricRegression) -> MetricRegression:
        p = p_of.get((i, result.metric))
        drop = result.delta <= -settings.threshold + _TOLERANCE
        regressed = p is not None and p < settings.alpha and drop
        return replace(result, p_adjusted=p, regressed=regressed)

    return [replace(r, isr=flag(i, r.isr), csr=flag(i, r.csr)) for i, r in enumerate(tested)]


def regression(pairs: Sequence[Pair], settings: RegressionSettings | None = None) -> Regression:
    """ΔISR and ΔCSR over one group of ``pairs``, its two tests corrected as one family.

    Raises:
        ValueError: No pairs.
    """
    settings = settings or RegressionSettings()
    return _flagged([_tested(pairs, settings)], settings)[0]


def compare_trials(
    baseline: Iterable[ScoredTrial],
    candidate: Iterable[ScoredTrial],
    *,
    sources: Mapping[str, Mapping[str, str]] | None = None,
    settings: RegressionSettings | None = None,
) -> list[RegressionRow]:
    """Every model's regression, over all checks and per instruction source.

    The tests of all rows (model × source × metric) are corrected as one family.
    """
    settings = settings or RegressionSettings()
    groups = paired_trials(baseline, candidate, by=("model",), sources=sources)
    tested = [_tested(pairs, settings) for pairs in groups.values()]
    return [
        RegressionRow(model=str(model), source=str(source), regression=r)
        for (model, source), r in zip(groups, _flagged(tested, settings), strict=True)
    ]
