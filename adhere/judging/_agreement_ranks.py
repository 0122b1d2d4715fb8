"""Rank stability: do the judges put the models in the same order?

Each judge ranks the models by a score (ISR or CSR; higher is better, rank 1 is best;
equal scores share the better rank, "1224" competition ranking). Only models every
judge scored are ranked, so the rankings are comparable. Reported:

* per model, its rank shift — the largest minus the smallest rank it got — and the
  panel's maximum shift (the paper: rankings moved at most one place);
* Kendall's τ-b between every two judges' scores (``scipy.stats.kendalltau``, tie-aware;
  ``None`` when one judge gives all models the same score, or with fewer than two models).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

__all__ = ["RankStability", "kendall_tau", "rank", "rank_stability"]


def rank(scores: Mapping[str, float]) -> dict[str, int]:
    """Competition ranks (1 = highest score; ties share the better rank)."""
    ordered = sorted(scores.values(), reverse=True)
    return {name: ordered.index(value) + 1 for name, value in scores.items()}


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b of two paired score lists (``scipy.stats.kendalltau``).

    ``None`` when undefined: fewer than two models, or one list holds a single value
    (every pair tied on one side, so τ-b's denominator is zero).
    """
    from scipy.stats import kendalltau

    if len(x) != len(y):
        raise ValueError(f"score lists differ in length: {len(x)} and {len(y)}")
    if len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(kendalltau(x, y, variant="b").statistic)


@dataclass(frozen=True)
class RankStability:
    """How the model ranking moves across judges.

    Attributes:
        models: The models ranked (scored by every judge), sorted.
        ranks: Judge → model → rank.
        shifts: Model → largest minus smallest rank across judges.
        max_shift: The largest shift (0 when the judges agree on the order).
        tau: ``(judge a, judge b)`` → Kendall's τ-b of their scores.
    """

    models: list[str]
    ranks: dict[str, dict[str, int]]
    shifts: dict[str, int]
    max_shift: int
    tau: dict[tuple[str, str], float | None]


def rank_stability(scores: Mapping[str, Mapping[str, float | None]]) -> RankStability:
    """Rank stability of models across judges, from judge → model → score."""
    judges = list(scores)
    models = sorted(
        set.intersection(*({m for m, s in scores[j].items() if s is not None} for j in judges))
        if judges
        else set()
    )
    table = {j: {m: float(scores[j][m] or 0.0) for m in models} for j in judges}
    ranks = {j: rank(table[j]) for j in judges}
    shifts = {
        m: max(ranks[j][m] for j in judges) - min(ranks[j][m] for j in judges) for m in models
    }
    tau = {
        (a, b): kendall_tau([table[a][m] for m in models], [table[b][m] for m in models])
        for a, b in combinations(judges, 2)
    }
    return RankStability(
        models=models,
        ranks=ranks,
        shifts=shifts,
        max_shift=max(shifts.values(), default=0),
        tau=tau,
    )
