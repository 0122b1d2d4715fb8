"""Paired tests of a difference between two rollouts, the minimum-sample rule, the correction.

All p-values are two-sided and come from scipy:

* :func:`mcnemar_exact` — McNemar's exact test: under "no change", each of the
  ``worse + better`` discordant pairs is worse with probability ½, so
  ``p = binomtest(worse, worse + better, ½)``. Valid when pairs are independent — one
  pair per instance. Its floor is ``2 / 2ⁿ`` for ``n`` discordant pairs.
* :func:`sign_flip_test` — the paired permutation test at the instance level: under
  "no change" the baseline and candidate labels of an instance are exchangeable, so the
  sign of each instance's summed difference is a fair coin. ``scipy.stats.
  permutation_test`` with ``permutation_type="samples"`` on one sample flips the signs;
  every one of the 2ᵏ patterns is enumerated for up to :data:`EXACT_UP_TO` instances,
  otherwise ``samples`` random patterns are drawn. With one pair per instance and
  pass/fail values it *is* McNemar's exact test; with repeats it does not count the
  repeats of one instance as independent evidence.
* :func:`adjust` — Benjamini–Hochberg (``scipy.stats.false_discovery_control``) over a
  family of p-values.

**Minimum sample rule** (:func:`sample_rule`). With k instances no instance-level test
can give a two-sided p below ``2 / 2ᵏ`` (all k differences of one sign). A comparison is
*insufficient data* — no p-value, never flagged — when it has fewer than
:data:`MIN_INSTANCES` instances, or when ``2 / 2ᵏ`` is not below alpha (so at alpha
0.05 it needs 6 instances). Zero variance needs no rule of its own: the sign-flip test
of k identical non-zero differences gives exactly ``2 / 2ᵏ``, of k zeros 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "EXACT_UP_TO",
    "MIN_INSTANCES",
    "adjust",
    "mcnemar_exact",
    "sample_rule",
    "sign_flip_test",
    "smallest_p",
]

MIN_INSTANCES = 5
"""Fewer shared instances than this: insufficient data, whatever alpha is."""

EXACT_UP_TO = 12
"""Up to this many instances the sign-flip test enumerates all 2ᵏ sign patterns."""


def mcnemar_exact(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts (1 when both are 0).

    Args:
        worse: Pairs that went from pass to fail.
        better: Pairs that went from fail to pass.

    Raises:
        ValueError: A negative count.
    """
    from scipy.stats import binomtest

    if worse < 0 or better < 0:
        raise ValueError(f"discordant counts must be non-negative, got {worse} and {better}")
    if worse + better == 0:
        return 1.0
    return float(binomtest(worse, worse + better, 0.5).pvalue)


def _total(x: Any, axis: int = -1) -> Any:
    return x.sum(axis=axis)


def sign_flip_test(differences: Sequence[float], *, samples: int = 2000, seed: int = 0) -> float:
    """Two-sided p-value of "no change" from per-instance summed differences.

    Args:
        differences: One value per instance: the sum over its pairs of
            ``candidate − baseline``.
        samples: Random sign patterns when there are more than :data:`EXACT_UP_TO`
            instances.
        seed: Seed of those draws.

    Raises:
        ValueError: Fewer than two instances.
    """
    import numpy as np
    from scipy.stats import permutation_test

    if len(differences) < 2:
        raise ValueError("the sign-flip test needs at least two instances")
    data = np.asarray(differences, dtype=float)
    if not np.any(data):
        return 1.0
    k = len(differences)
    result = permutation_test(
        (data,),
        _total,
        permutation_type="samples",
        vectorized=True,
        n_resamples=2**k if k <= EXACT_UP_TO else samples,
        rng=np.random.default_rng(seed),
    )
    return min(1.0, float(result.pvalue))


def smallest_p(instances: int) -> float:
    """The smallest two-sided p-value an instance-level test can give: ``2 / 2ᵏ`` (≤ 1)."""
    return min(1.0, 2.0 ** (1 - instances))


def sample_rule(instances: int, alpha: float) -> str | None:
    """Why ``instances`` shared instances cannot support a test at ``alpha`` (else ``None``)."""
    if instances < MIN_INSTANCES:
        return f"insufficient data: {instances} instance(s), a test needs at least {MIN_INSTANCES}"
    floor = smallest_p(instances)
    if floor >= alpha:
        return (
            f"insufficient data: with {instances} instances no p-value can be below "
            f"{floor:.3g}, not below alpha {alpha:g}"
        )
    return None


def adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values, in the order given (empty in, empty out)."""
    if not p_values:
        return []
    from scipy.stats import false_discovery_control

    adjusted = false_discovery_control(list(p_values), method="bh")
    return [float(p) for p in adjusted]
