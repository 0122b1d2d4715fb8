"""Intervals of rates: Wilson and the cluster bootstrap; avg@k with its spread.

The unit of independence in a rollout is the *instance*: repeats of one instance, and
the same instance under several scaffolds, share a prompt, a workspace and checks, so
their outcomes are correlated. Intervals therefore resample instances, not trials.

* :func:`wilson_interval` — the Wilson score interval of a binomial share
  (``scipy.stats.binomtest(…).proportion_ci(method="wilson")``). It stays inside
  [0, 1] and has sensible width at 0 / n and n / n, where a bootstrap collapses.
* :func:`cluster_bootstrap` — the percentile interval of ``Σ sums / Σ sizes`` with the
  clusters (instances) resampled with replacement: ``scipy.stats.bootstrap`` with
  ``paired=True`` draws one set of indices for both arrays, so a cluster's sum and size
  travel together — a cluster bootstrap of a ratio estimator. Percentile rather than
  BCa: BCa's acceleration is a jackknife over clusters, unstable with a handful of
  them and undefined for the two-valued distributions small rollouts give.
  ``None`` when there are fewer than two clusters or every cluster has the same mean
  (the bootstrap distribution is then a single point, not an interval).
* :func:`rate_interval` — the interval of ISR or CSR of a group: Wilson when every
  instance contributes one trial and the values are pass/fail (ISR of independent
  trials); otherwise the cluster bootstrap; when that collapses at 0 or 1 (every
  instance passed, or none did) Wilson over the instances, counting each instance as
  one trial (conservative: repeats are not taken as new evidence).
* :func:`avg_at_k` — ISR and CSR per repeat, then their mean, standard deviation
  (``ddof = 1``) and range across the k repeats.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from adhere.metrics._rates import ScoredTrial, group_rates, rates

__all__ = [
    "AvgAtK",
    "Interval",
    "RateIntervals",
    "Spread",
    "avg_at_k",
    "cluster_bootstrap",
    "rate_interval",
    "rate_intervals",
    "wilson_interval",
]

_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Interval:
    """A confidence interval.

    Attributes:
        low: Lower bound.
        high: Upper bound.
        confidence: Its nominal coverage (0.95 for a 95 % interval).
        method: ``wilson`` or ``cluster bootstrap``.
    """

    low: float
    high: float
    confidence: float
    method: Literal["wilson", "cluster bootstrap"]


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval of ``successes`` out of ``n`` independent trials.

    Raises:
        ValueError: ``n < 1`` or ``successes`` outside ``[0, n]``.
    """
    from scipy.stats import binomtest

    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 ≤ successes ≤ n and n ≥ 1, got {successes} of {n}")
    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Interval(float(ci.low), float(ci.high), confidence, "wilson")


def _ratio(sums: Any, sizes: Any, axis: int = -1) -> Any:
    return sums.sum(axis=axis) / sizes.sum(axis=axis)


def cluster_bootstrap(
    sums: Sequence[float],
    sizes: Sequence[float],
    *,
    confidence: float = 0.95,
    samples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Percentile interval of ``Σ sums / Σ sizes``, resampling whole clusters.

    Args:
        sums: Per cluster, the sum of its values.
        sizes: Per cluster, how many values (positive).
        confidence: Coverage of the interval.
        samples: Bootstrap draws.
        seed: Seed of the generator (same inputs and seed: same interval).

    Returns:
        ``None`` with fewer than two clusters or no variation between cluster means.

    Raises:
        ValueError: ``sums`` and ``sizes`` differ in length, or a size is not positive.
    """
    if len(sums) != len(sizes):
        raise ValueError(f"sums and sizes differ in length: {len(sums)} and {len(sizes)}")
    if any(n <= 0 for n in sizes):
        raise ValueError("every cluster needs a positive size")
    means = [s / n for s, n in zip(sums, sizes, strict=True)]
    if len(means) < 2 or max(means) - min(means) <= _TOLERANCE:
        return None
    import numpy as np
    from scipy.stats import bootstrap

    result = bootstrap(
        (np.asarray(sums, dtype=float), np.asarray(sizes, dtype=float)),
        _ratio,
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=samples,
        confidence_level=confidence,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Interval(float(ci.low), float(ci.high), confidence, "cluster bootstrap")


def rate_interval(
    sums: Sequence[float],
    sizes: Sequence[int],
    *,
    binary: bool,
    confidence: float = 0.95,
    samples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Interval of ``Σ sums / Σ sizes`` over instances (see the module docstring).

    Args:
        sums: Per instance, the sum of its trials' values (each value in [0, 1]).
        sizes: Per instance, how many trials.
        binary: Values are pass (1) / fail (0), as for ISR.
        confidence: Coverage.
        samples: Bootstrap draws.
        seed: Bootstrap seed.

    Returns:
        ``None`` without trials, or when the instances all have the same rate strictly
        between 0 and 1 (no variation to resample, no count for Wilson).
    """
    kept = [(s, n) for s, n in zip(sums, sizes, strict=True) if n > 0]
    if not kept:
        return None
    k = len(kept)
    if binary and all(n == 1 for _, n in kept):
        return wilson_interval(round(math.fsum(s for s, _ in kept)), k, confidence)
    interval = cluster_bootstrap(
        [s for s, _ in kept],
        [float(n) for _, n in kept],
        confidence=confidence,
        samples=samples,
        seed=seed,
    )
    if interval is not None:
        return interval
    rate = math.fsum(s for s, _ in kept) / sum(n for _, n in kept)
    for edge in (0, 1):
        if abs(rate - edge) <= _TOLERANCE:
            return wilson_interval(edge * k, k, confidence)
    return None


@dataclass(frozen=True)
class RateIntervals:
    """ISR and CSR intervals of a group of trials.

    Attributes:
        instances: Instances with at least one scored trial (the clusters).
        trials: Scored trials.
        isr: Interval of ISR (``None``: see :func:`rate_interval`).
        csr: Interval of CSR.
    """

    instances: int
    trials: int
    isr: Interval | None
    csr: Interval | None


def rate_intervals(
    trials: Iterable[ScoredTrial],
    *,
    confidence: float = 0.95,
    samples: int = 2000,
    seed: int = 0,
) -> RateIntervals:
    """Intervals of the ISR and CSR that :func:`adhere.metrics.rates` gives these trials.

    Trials are clustered by their ``instance`` key; which trials count (scored, not an
    upstream fault) is decided by :func:`adhere.metrics.rates` on each instance.
    """
    groups = [r for r in group_rates(trials, ["instance"]).values() if r.scored]
    sizes = [r.scored for r in groups]
    isr = [(r.isr or 0.0) * r.scored for r in groups]
    csr = [(r.csr or 0.0) * r.scored for r in groups]
    return RateIntervals(
        instances=len(groups),
        trials=sum(sizes),
        isr=rate_interval(
            isr, sizes, binary=True, confidence=confidence, samples=samples, seed=seed
        ),
        csr=rate_interval(
            csr, sizes, binary=False, confidence=confidence, samples=samples, seed=seed
        ),
    )


@dataclass(frozen=True)
class Spread:
    """How a rate varies across repeats.

    Attributes:
        values: The rate of each repeat, in repeat order.
        mean: Their mean (avg@k).
        std: Their sample standard deviation (``None`` with one repeat).
        low: The smallest.
        high: The largest.
    """

    values: tuple[float, ...]
    mean: float
    std: float | None
    low: float
    high: float


@dataclass(frozen=True)
class AvgAtK:
    """avg@k: ISR and CSR of each of k repeats, and their spread."""

    k: int
    isr: Spread | None
    csr: Spread | None


def _spread(values: Sequence[float]) -> Spread | None:
    import statistics

    if not values:
        return None
    return Spread(
        values=tuple(values),
        mean=statistics.fmean(values),
        std=statistics.stdev(values) if len(values) > 1 else None,
        low=min(values),
        high=max(values),
    )


def avg_at_k(trials: Iterable[ScoredTrial]) -> AvgAtK:
    """ISR and CSR per ``repeat`` key (:func:`adhere.metrics.rates`), then their spread."""
    by_repeat: dict[Any, list[ScoredTrial]] = defaultdict(list)
    for trial in trials:
        by_repeat[trial.keys.get("repeat")].append(trial)
    order = sorted(by_repeat, key=lambda r: (0, r, "") if isinstance(r, int) else (1, 0, str(r)))
    per_repeat = [rates(by_repeat[r]) for r in order]
    return AvgAtK(
        k=len(per_repeat),
        isr=_spread([r.isr for r in per_repeat if r.isr is not None]),
        csr=_spread([r.csr for r in per_repeat if r.csr is not None]),
    )
