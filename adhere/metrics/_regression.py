"""Regression between two rollouts: paired ΔISR / ΔCSR with p-values and a flag.

A candidate rollout is compared with a baseline rollout over the trials they share:
a trial of the candidate is paired with the baseline trial of the same model,
scaffold, instance and repeat. Only shared trials count, so a Δ never mixes
different instances. Δ is ``candidate − baseline`` (negative: worse).

Two tests, both two-sided:

* **Paired bootstrap** (ISR and CSR). The resampling unit is the instance (a
  *cluster*: all pairs of one instance, across scaffolds and repeats), so repeats of
  one instance are not counted as independent evidence. Each of ``samples`` draws
  takes as many clusters as there are, with replacement, from a seeded generator
  and computes Δ* over the drawn pairs. The p-value is the share of draws whose
  deviation from the observed Δ̂ is at least |Δ̂| — the bootstrap distribution moved
  to the null hypothesis Δ = 0 — with the usual +1 correction:
  ``p = (1 + #{|Δ* − Δ̂| ≥ |Δ̂|}) / (samples + 1)``. The confidence interval is the
  percentile interval of Δ*.
* **McNemar's exact test** (ISR only: pass/fail per pair). With ``worse`` pairs that
  passed in the baseline and failed in the candidate and ``better`` pairs the other
  way round, ``p = min(1, 2 · Σ_{k ≤ min(worse, better)} C(n, k) / 2ⁿ)`` with
  ``n = worse + better``; ``p = 1`` when no pair changed. It treats pairs as
  independent, which repeats of one instance are not quite.

A metric is flagged as regressed when ``Δ ≤ −threshold`` and its p-value (McNemar
for ISR, bootstrap for CSR) is below ``alpha``.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from adhere.metrics._rates import ScoredTrial, TrialScore, score_trial

__all__ = [
    "ALL_SOURCES",
    "BootstrapResult",
    "MetricRegression",
    "Pair",
    "Regression",
    "RegressionRow",
    "RegressionSettings",
    "compare_trials",
    "mcnemar_exact",
    "paired_bootstrap",
    "paired_trials",
    "regression",
]

ALL_SOURCES = "all"
"""The ``source`` of a comparison over every check of the trials."""

_MATCH = ("scaffold", "instance", "repeat")
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class RegressionSettings:
    """How a comparison is tested and when it is flagged.

    Attributes:
        threshold: Smallest drop (a share: 0.05 is 5 points) that can be flagged.
        alpha: A drop is flagged only when its p-value is below this.
        samples: Bootstrap draws.
        seed: Seed of the bootstrap's generator (same inputs, same seed: same p-value).
        confidence: Coverage of the bootstrap's percentile interval.
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
class Pair:
    """One trial scored in the baseline and in the candidate.

    Attributes:
        cluster: The bootstrap's resampling unit (the instance id).
        baseline: How the baseline trial did.
        candidate: How the candidate trial did.
    """

    cluster: str
    baseline: TrialScore
    candidate: TrialScore


@dataclass(frozen=True)
class BootstrapResult:
    """A paired bootstrap of a mean difference."""

    delta: float
    p_value: float
    ci_lower: float
    ci_upper: float
    samples: int


@dataclass(frozen=True)
class MetricRegression:
    """ISR or CSR of the baseline and the candidate over the same pairs, and the tests.

    Attributes:
        metric: ``isr`` or ``csr``.
        baseline: The baseline's rate over the pairs.
        candidate: The candidate's rate over the pairs.
        delta: ``candidate − baseline``.
        bootstrap: The paired bootstrap of Δ.
        p_mcnemar: McNemar's exact p-value (ISR only).
        regressed: Δ ≤ −threshold with :attr:`p_value` below alpha.
    """

    metric: Literal["isr", "csr"]
    baseline: float
    candidate: float
    delta: float
    bootstrap: BootstrapResult
    p_mcnemar: float | None
    regressed: bool

    @property
    def p_value(self) -> float:
        """The p-value the flag uses: McNemar's for ISR, the bootstrap's for CSR."""
        return self.p_mcnemar if self.p_mcnemar is not None else self.bootstrap.p_value


@dataclass(frozen=True)
class Regression:
    """A comparison over one group of pairs.

    Attributes:
        pairs: Shared trials.
        clusters: Shared instances.
        worse: Pairs whose instance passed in the baseline and not in the candidate.
        better: Pairs whose instance passed in the candidate and not in the baseline.
        isr: ΔISR and its tests.
        csr: ΔCSR and its tests.
    """

    pairs: int
    clusters: int
    worse: int
    better: int
    isr: MetricRegression
    csr: MetricRegression

    @property
    def regressed(self) -> bool:
        """Whether ISR or CSR is flagged."""
        return self.isr.regressed or self.csr.regressed


@dataclass(frozen=True)
class RegressionRow:
    """The comparison of one model over one instruction source (or :data:`ALL_SOURCES`)."""

    model: str
    source: str
    regression: Regression


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts.

    Args:
        worse: Pairs that went from pass to fail.
        better: Pairs that went from fail to pass.
    """
    if worse < 0 or better < 0:
        raise ValueError("discordant counts must be non-negative")
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / float(2**n))


def paired_bootstrap(
    clusters: Sequence[Sequence[tuple[float, float]]],
    *,
    samples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> BootstrapResult:
    """Cluster-paired bootstrap of the mean of ``candidate − baseline``.

    Args:
        clusters: One entry per cluster, each a non-empty list of
            ``(baseline, candidate)`` values.
        samples: Draws.
        seed: Seed of the generator.
        confidence: Coverage of the percentile interval.

    Raises:
        ValueError: No clusters, or an empty cluster.
    """
    if not clusters or any(not c for c in clusters):
        raise ValueError("the bootstrap needs at least one cluster, none of them empty")
    sums = [sum(c - b for b, c in cluster) for cluster in clusters]
    sizes = [len(cluster) for cluster in clusters]
    delta = sum(sums) / sum(sizes)
    means = [s / n for s, n in zip(sums, sizes, strict=True)]
    if all(math.isclose(m, delta, abs_tol=_TOLERANCE) for m in means):
        # Every draw gives Δ̂ exactly (no draw is as far from it as zero, unless Δ̂ = 0).
        extreme = samples if abs(delta) <= _TOLERANCE else 0
        return BootstrapResult(delta, (1 + extreme) / (samples + 1), delta, delta, samples)
    rng = random.Random(seed)
    indices = range(len(clusters))
    draws = []
    for _ in range(samples):
        picked = rng.choices(indices, k=len(clusters))
        draws.append(sum(sums[i] for i in picked) / sum(sizes[i] for i in picked))
    extreme = sum(1 for d in draws if abs(d - delta) >= abs(delta) - _TOLERANCE)
    draws.sort()
    tail = (1 - confidence) / 2
    return BootstrapResult(
        delta=delta,
        p_value=(1 + extreme) / (samples + 1),
        ci_lower=_quantile(draws, tail),
        ci_upper=_quantile(draws, 1 - tail),
        samples=samples,
    )


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted values."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def regression(pairs: Sequence[Pair], settings: RegressionSettings | None = None) -> Regression:
    """ΔISR and ΔCSR over ``pairs`` with their tests and flags.

    Raises:
        ValueError: No pairs.
    """
    settings = settings or RegressionSettings()
    if not pairs:
        raise ValueError("a regression needs at least one pair")
    by_cluster: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_cluster[pair.cluster].append(pair)
    clusters = [by_cluster[c] for c in sorted(by_cluster)]
    worse = sum(1 for p in pairs if p.baseline.all_passed and not p.candidate.all_passed)
    better = sum(1 for p in pairs if p.candidate.all_passed and not p.baseline.all_passed)
    values = {
        "isr": [
            [(float(p.baseline.all_passed), float(p.candidate.all_passed)) for p in c]
            for c in clusters
        ],
        "csr": [[(p.baseline.rate, p.candidate.rate) for p in c] for c in clusters],
    }
    out: dict[str, MetricRegression] = {}
    for metric in ("isr", "csr"):
        boot = paired_bootstrap(
            values[metric],
            samples=settings.samples,
            seed=settings.seed,
            confidence=settings.confidence,
        )
        flat = [v for c in values[metric] for v in c]
        baseline = sum(b for b, _ in flat) / len(flat)
        candidate = sum(c for _, c in flat) / len(flat)
        p_mcnemar = mcnemar_exact(worse, better) if metric == "isr" else None
        p_value = p_mcnemar if p_mcnemar is not None else boot.p_value
        regressed = boot.delta <= -settings.threshold + _TOLERANCE and p_value < settings.alpha
        out[metric] = MetricRegression(
            metric="isr" if metric == "isr" else "csr",
            baseline=baseline,
            candidate=candidate,
            delta=boot.delta,
            bootstrap=boot,
            p_mcnemar=p_mcnemar,
            regressed=regressed,
        )
    return Regression(
        pairs=len(pairs),
        clusters=len(clusters),
        worse=worse,
        better=better,
        isr=out["isr"],
        csr=out["csr"],
    )


def paired_trials(
    baseline: Iterable[ScoredTrial],
    candidate: Iterable[ScoredTrial],
    *,
    by: Sequence[str] = ("model",),
    sources: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[tuple[Any, ...], list[Pair]]:
    """Pairs of shared trials per group of ``by`` keys, and per instruction source.

    Trials match on ``by`` plus scaffold, instance and repeat; the cluster is the
    instance. Groups are keyed ``(*by, source)``: ``source`` is :data:`ALL_SOURCES`
    for every check, and — when ``sources`` (instance id → check id → source) is
    given — each source, over that source's checks only. A pair enters a group only
    when both of its trials have an applicable item there.
    """
    match = [*by, *(k for k in _MATCH if k not in by)]
    base = {tuple(t.keys.get(k) for k in match): t for t in baseline}
    out: dict[tuple[Any, ...], list[Pair]] = defaultdict(list)
    for trial in candidate:
        key = tuple(trial.keys.get(k) for k in match)
        before = base.get(key)
        if before is None:
            continue
        group = key[: len(by)]
        cluster = str(trial.keys.get("instance"))
        for source, b, c in _split(before, trial, sources):
            if b.applicable and c.applicable:
                out[(*group, source)].append(Pair(cluster, b, c))
    return {k: out[k] for k in sorted(out, key=_group_order)}


def _group_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Groups in key order, the :data:`ALL_SOURCES` row of a group first."""
    return (*map(str, key[:-1]), key[-1] != ALL_SOURCES, str(key[-1]))


def _split(
    before: ScoredTrial, after: ScoredTrial, sources: Mapping[str, Mapping[str, str]] | None
) -> list[tuple[str, TrialScore, TrialScore]]:
    out = [(ALL_SOURCES, score_trial(before.verdicts), score_trial(after.verdicts))]
    if sources is None:
        return out
    source_of = sources.get(str(after.keys.get("instance")), {})
    both = (*before.verdicts, *after.verdicts)
    for name in sorted({source_of.get(v.check_id, "other") for v in both}):
        b = [v for v in before.verdicts if source_of.get(v.check_id, "other") == name]
        c = [v for v in after.verdicts if source_of.get(v.check_id, "other") == name]
        out.append((name, score_trial(b), score_trial(c)))
    return out


def compare_trials(
    baseline: Iterable[ScoredTrial],
    candidate: Iterable[ScoredTrial],
    *,
    sources: Mapping[str, Mapping[str, str]] | None = None,
    settings: RegressionSettings | None = None,
) -> list[RegressionRow]:
    """The regression of every model, over all checks and per instruction source."""
    groups = paired_trials(baseline, candidate, by=("model",), sources=sources)
    return [
        RegressionRow(model=str(model), source=str(source), regression=regression(pairs, settings))
        for (model, source), pairs in groups.items()
    ]
