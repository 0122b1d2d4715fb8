"""The 95 % interval of a rate averaged over judges (the paper's avg@k over a panel).

With a judge panel under the ``mean`` rule a group's ISR is ``mean_j ISR_j``: each
judge ``j`` scores the trials on its own verdicts, ``ISR_j = Σ_i s_ij / Σ_i n_ij``
over instances ``i`` (``s_ij`` the passes, ``n_ij`` the trials judge ``j`` could
score of instance ``i``), and the rate is the mean over the judges that scored
anything. Its interval resamples **instances** — the same units as
:func:`adhere.metrics.rate_intervals` — with every judge's sums and sizes of an
instance travelling together (``scipy.stats.bootstrap``, ``paired=True``,
percentile), so the judges' correlation on one instance is kept. A judge that could
not score any trial of a resample drops out of that resample's mean, as it drops out
of the rate.

One judge is :func:`adhere.metrics.rate_intervals` itself (Wilson for one pass/fail
trial an instance, else the cluster bootstrap). When the bootstrap collapses to a
point (every instance has the same value for every judge) the rate is 0 or 1 and the
interval is Wilson over the instances, as for one judge; fewer than two instances
give Wilson over one at 0 or 1 and otherwise no interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from adhere.metrics._intervals import (
    Interval,
    RateIntervals,
    rate_intervals,
    wilson_interval,
)
from adhere.metrics._rates import ScoredTrial, group_rates

__all__ = ["judge_rate_intervals", "judges_mean_interval"]

_TOLERANCE = 1e-12


def _mean_of_ratios(*arrays: Any, axis: int = -1) -> Any:
    """Mean over judges of ``Σ sums / Σ sizes`` (arrays: sums, sizes, sums, sizes …)."""
    import numpy as np

    ratios = []
    for sums, sizes in zip(arrays[::2], arrays[1::2], strict=True):
        total = sizes.sum(axis=axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios.append(np.where(total > 0, sums.sum(axis=axis) / total, np.nan))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample no judge scored
        return np.nanmean(np.stack(ratios), axis=0)


def judges_mean_interval(
    sums: Sequence[Sequence[float]],
    sizes: Sequence[Sequence[float]],
    *,
    confidence: float = 0.95,
    samples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Interval of ``mean_j (Σ_i sums[j][i] / Σ_i sizes[j][i])``, resampling instances.

    Args:
        sums: Per judge, per instance: the sum of the values of the trials it scored.
        sizes: Per judge, per instance: how many trials it scored (0: none).
        confidence: Coverage.
        samples: Bootstrap draws.
        seed: Seed of the generator (same inputs and seed: same interval).

    Returns:
        ``None`` when no judge scored anything, or when there is no variation to
        resample and the rate is strictly between 0 and 1.

    Raises:
        ValueError: Judges or instances differ in number between ``sums`` and
            ``sizes``, or a size is negative.
    """
    if len(sums) != len(sizes) or any(len(s) != len(n) for s, n in zip(sums, sizes, strict=True)):
        raise ValueError("sums and sizes need the same judges and instances")
    if any(n < 0 for row in sizes for n in row):
        raise ValueError("sizes are never negative")
    width = len(sums[0]) if sums else 0
    if any(len(row) != width for row in sums):
        raise ValueError("every judge needs a value for every instance")
    kept = [i for i in range(width) if any(row[i] > 0 for row in sizes)]
    if not kept:
        return None
    import numpy as np

    data = []
    for s_row, n_row in zip(sums, sizes, strict=True):
        data += [
            np.asarray([s_row[i] for i in kept], float),
            np.asarray([n_row[i] for i in kept], float),
        ]
    point = float(_mean_of_ratios(*(a[None, :] for a in data))[0])
    interval = None
    if len(kept) > 1:
        from scipy.stats import bootstrap

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a degenerate distribution is handled below
            result = bootstrap(
                tuple(data),
                _mean_of_ratios,
                paired=True,
                vectorized=True,
                method="percentile",
                n_resamples=samples,
                confidence_level=confidence,
                rng=np.random.default_rng(seed),
            )
        low, high = (float(v) for v in result.confidence_interval)
        if not (math.isnan(low) or math.isnan(high)) and high - low > _TOLERANCE:
            interval = Interval(low, high, confidence, "cluster bootstrap")
    if interval is not None:
        return interval
    for edge in (0, 1):
        if abs(point - edge) <= _TOLERANCE:
            return wilson_interval(edge * len(kept), len(kept), confidence)
    return None


def judge_rate_intervals(
    trials: Iterable[ScoredTrial],
    *,
    key: str = "judge",
    confidence: float = 0.95,
    samples: int = 2000,
    seed: int = 0,
) -> RateIntervals:
    """Intervals of the mean over judges of ISR and CSR of a group's scoring sets.

    ``trials`` hold every judge's scoring of every trial, the judge named under
    ``key`` (each judge's verdicts plus the deterministic ones); which trials a judge
    scored is decided by :func:`adhere.metrics.rates` per judge and instance. With
    one judge (or none named) this is :func:`adhere.metrics.rate_intervals`.
    ``instances`` and ``trials`` of the result count the instances some judge scored
    and the judge-trials scored.
    """
    trials = list(trials)
    judges = sorted({str(t.keys.get(key)) for t in trials})
    if len(judges) < 2:
        return rate_intervals(trials, confidence=confidence, samples=samples, seed=seed)
    cells = {tuple(map(str, k)): r for k, r in group_rates(trials, [key, "instance"]).items()}
    instances = sorted({k[1] for k in cells})
    sizes: list[list[float]] = []
    isr: list[list[float]] = []
    csr: list[list[float]] = []
    for judge in judges:
        found = [cells.get((judge, i)) for i in instances]
        sizes.append([float(r.scored) if r else 0.0 for r in found])
        isr.append([(r.isr or 0.0) * r.scored if r else 0.0 for r in found])
        csr.append([(r.csr or 0.0) * r.scored if r else 0.0 for r in found])
    options: dict[str, Any] = {"confidence": confidence, "samples": samples, "seed": seed}
    return RateIntervals(
        instances=sum(1 for i in range(len(instances)) if any(row[i] for row in sizes)),
        trials=round(sum(map(sum, sizes))),
        isr=judges_mean_interval(isr, sizes, **options),
        csr=judges_mean_interval(csr, sizes, **options),
    )
