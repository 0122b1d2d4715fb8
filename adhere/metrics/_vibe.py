"""Vibe correlation: how well α·IF + (1−α)·Func tracks a human-preference Elo table. Pure.

For each α on a grid from 0 to 1, every model's composite score is
``α · IF + (1 − α) · Func`` (IF: instruction following, Func: functional
correctness, both shares in [0, 1]); its Pearson, Spearman and Kendall (τ-b)
correlations with the models' Elo ratings are computed (:mod:`scipy.stats`), and the α
with the highest of each is reported. A correlation is undefined (``None``) when
either side has no variance or fewer than three models are compared.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats

__all__ = ["AlphaPoint", "VibeResult", "kendall", "pearson", "spearman", "vibe_correlation"]

_MIN_MODELS = 3


def _statistic(test: Callable[..., Any], xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) != len(ys):
        raise ValueError(f"sequences differ in length ({len(xs)} vs {len(ys)})")
    if len(xs) < 2 or _flat(xs) or _flat(ys):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # near-constant input: scipy warns, we check below
        value = float(test(list(xs), list(ys)).statistic)
    return None if math.isnan(value) else value


def _flat(values: Sequence[float]) -> bool:
    """No variance, up to floating-point noise (composites such as 0.5·0.1 + 0.5·0.4)."""
    low, high = min(values), max(values)
    return high - low <= 1e-12 * max(1.0, abs(high), abs(low))


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long sequences (``None`` when undefined)."""
    return _statistic(stats.pearsonr, xs, ys)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's ρ (average ranks for ties; ``None`` when undefined)."""
    return _statistic(stats.spearmanr, xs, ys)


def kendall(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Kendall's τ-b (``None`` when undefined)."""
    return _statistic(stats.kendalltau, xs, ys)


@dataclass(frozen=True)
class AlphaPoint:
    """Correlations of the composite at one α."""

    alpha: float
    pearson: float | None
    spearman: float | None
    kendall: float | None = None


@dataclass(frozen=True)
class VibeResult:
    """The sweep over α and its best points.

    Attributes:
        models: The models compared (those in both the scores and the Elo table).
        points: One point per α, in increasing α.
        best_pearson: The point with the highest Pearson r (``None``: all undefined).
        best_spearman: The point with the highest Spearman ρ.
        best_kendall: The point with the highest Kendall τ.
        missing: Models of either input that the other lacks (left out).
    """

    models: tuple[str, ...]
    points: tuple[AlphaPoint, ...]
    best_pearson: AlphaPoint | None
    best_spearman: AlphaPoint | None
    missing: tuple[str, ...]
    best_kendall: AlphaPoint | None = None


def _best(points: Sequence[AlphaPoint], attribute: str) -> AlphaPoint | None:
    defined = [p for p in points if getattr(p, attribute) is not None]
    if not defined:
        return None
    # the highest correlation; on a tie, the smallest α (first in the sweep)
    return max(defined, key=lambda p: (getattr(p, attribute), -p.alpha))


def vibe_correlation(
    scores: Mapping[str, tuple[float, float]],
    elo: Mapping[str, float],
    *,
    step: float = 0.1,
) -> VibeResult:
    """Correlate α·IF + (1−α)·Func with Elo for α = 0, step, …, 1.

    Args:
        scores: Model → (IF, Func).
        elo: Model → Elo rating.
        step: Grid step of α (must divide into (0, 1]).

    Raises:
        ValueError: ``step`` is not in (0, 1].
    """
    if not 0 < step <= 1:
        raise ValueError(f"step must be in (0, 1], got {step}")
    models = tuple(sorted(set(scores) & set(elo)))
    missing = tuple(sorted(set(scores) ^ set(elo)))
    count = round(1 / step)
    alphas = [round(i * step, 10) for i in range(count + 1)]
    if alphas[-1] < 1:
        alphas.append(1.0)
    ratings = [float(elo[m]) for m in models]
    points = []
    for alpha in alphas:
        composite = [alpha * scores[m][0] + (1 - alpha) * scores[m][1] for m in models]
        enough = len(models) >= _MIN_MODELS
        points.append(
            AlphaPoint(
                alpha=alpha,
                pearson=pearson(composite, ratings) if enough else None,
                spearman=spearman(composite, ratings) if enough else None,
                kendall=kendall(composite, ratings) if enough else None,
            )
        )
    return VibeResult(
        models=models,
        points=tuple(points),
        best_pearson=_best(points, "pearson"),
        best_spearman=_best(points, "spearman"),
        missing=missing,
        best_kendall=_best(points, "kendall"),
    )
