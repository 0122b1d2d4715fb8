"""Vibe correlation: how well α·IF + (1−α)·Func tracks a human-preference Elo table. Pure.

For each α on a grid from 0 to 1, every model's composite score is
``α · IF + (1 − α) · Func`` (IF: instruction following, Func: functional
correctness, both shares in [0, 1]); its Pearson and Spearman correlations with the
models' Elo ratings are computed, and the α with the highest of each is reported.
Spearman uses average ranks for ties. A correlation is undefined (``None``) when
either side has no variance or fewer than three models are compared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["AlphaPoint", "VibeResult", "pearson", "ranks", "spearman", "vibe_correlation"]

_MIN_MODELS = 3


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long sequences (``None`` when undefined)."""
    if len(xs) != len(ys):
        raise ValueError(f"sequences differ in length ({len(xs)} vs {len(ys)})")
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the average of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            out[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's ρ: Pearson's r of the (average) ranks."""
    return pearson(ranks(xs), ranks(ys))


@dataclass(frozen=True)
class AlphaPoint:
    """Correlations of the composite at one α."""

    alpha: float
    pearson: float | None
    spearman: float | None


@dataclass(frozen=True)
class VibeResult:
    """The sweep over α and its best points.

    Attributes:
        models: The models compared (those in both the scores and the Elo table).
        points: One point per α, in increasing α.
        best_pearson: The point with the highest Pearson r (``None``: all undefined).
        best_spearman: The point with the highest Spearman ρ.
        missing: Models of either input that the other lacks (left out).
    """

    models: tuple[str, ...]
    points: tuple[AlphaPoint, ...]
    best_pearson: AlphaPoint | None
    best_spearman: AlphaPoint | None
    missing: tuple[str, ...]


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
            )
        )
    return VibeResult(
        models=models,
        points=tuple(points),
        best_pearson=_best(points, "pearson"),
        best_spearman=_best(points, "spearman"),
        missing=missing,
    )
