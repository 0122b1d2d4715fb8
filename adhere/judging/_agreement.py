"""Agreement between judges: exact match, Cohen's κ per pair, Fleiss' κ for the panel.

Labels are ``pass``, ``fail`` and ``n/a``; an ``error`` verdict is not a label (the
judge did not decide), so items a judge left in error are left out of that judge's
comparisons. Items are keyed by ``(trial id, check id)``.

Degenerate cases. κ = (p_o − p_e) / (1 − p_e) is undefined when p_e = 1, which happens
exactly when every rating uses one and the same label (both raters always said
``pass``, say): there is no variation to agree beyond chance on. The functions then
return ``None`` rather than 1.0 or 0.0, and reports should show "undefined". Empty
inputs also give ``None``.

Why hand-written: scipy has no κ; the libraries that have one would bring a
data-frame or machine-learning stack into the pure core for two formulas of a few
lines. Both are pinned by tests to textbook worked examples (Cohen's κ = 0.4 on
the 2×2 table 20/5/10/15; Fleiss' 1971 table of 10 items × 14 raters, κ = 0.210).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from adhere.core import Verdict

__all__ = [
    "ItemKey",
    "PairAgreement",
    "PanelAgreement",
    "cohen_kappa",
    "exact_match",
    "fleiss_kappa",
    "panel_agreement",
    "verdict_labels",
]

ItemKey = tuple[str, str]
"""``(trial id, check id)``."""
_EPSILON = 1e-12


def exact_match(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Share of positions where ``a`` and ``b`` hold the same label (``None`` when empty)."""
    _same_length(a, b)
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's κ of two raters over the same items (``None`` when empty or undefined)."""
    _same_length(a, b)
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if expected >= 1 - _EPSILON:
        return None
    return (observed - expected) / (1 - expected)


def fleiss_kappa(ratings: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' κ: one entry per item, each the labels of the same number (≥ 2) of raters.

    Returns ``None`` when there are no items or when chance agreement is 1.

    Raises:
        ValueError: Items have different numbers of ratings, or fewer than two.
    """
    if not ratings:
        return None
    raters = len(ratings[0])
    if raters < 2 or any(len(item) != raters for item in ratings):
        raise ValueError("Fleiss' kappa needs the same number (at least 2) of ratings per item")
    items = len(ratings)
    totals: Counter[str] = Counter()
    agreement = 0.0
    for item in ratings:
        counts = Counter(item)
        totals.update(counts)
        agreement += (sum(c * c for c in counts.values()) - raters) / (raters * (raters - 1))
    observed = agreement / items
    expected = sum((count / (items * raters)) ** 2 for count in totals.values())
    if expected >= 1 - _EPSILON:
        return None
    return (observed - expected) / (1 - expected)


def verdict_labels(trial_id: str, verdicts: Iterable[Verdict]) -> dict[ItemKey, str]:
    """``(trial id, check id) → label`` for the decided verdicts (``error`` left out)."""
    return {(trial_id, v.check_id): v.result for v in verdicts if v.result != "error"}


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two judges over the items both decided."""

    judge_a: str
    judge_b: str
    items: int
    exact_match: float | None
    kappa: float | None


@dataclass(frozen=True)
class PanelAgreement:
    """Agreement of a whole panel.

    Attributes:
        pairs: Cohen's κ and exact match for every pair of judges.
        fleiss_kappa: Fleiss' κ over the items every judge decided.
        fleiss_items: How many items that is.
        mean_pairwise_kappa: Mean of the defined pairwise κ values.
    """

    pairs: list[PairAgreement]
    fleiss_kappa: float | None
    fleiss_items: int
    mean_pairwise_kappa: float | None


def _paired(a: Mapping[ItemKey, str], b: Mapping[ItemKey, str]) -> tuple[list[str], list[str]]:
    common = sorted(a.keys() & b.keys())
    return [a[k] for k in common], [b[k] for k in common]


def panel_agreement(labels: Mapping[str, Mapping[ItemKey, str]]) -> PanelAgreement:
    """Pairwise and panel-wide agreement of judges, from judge → item → label."""
    pairs = []
    for judge_a, judge_b in combinations(labels, 2):
        left, right = _paired(labels[judge_a], labels[judge_b])
        pairs.append(
            PairAgreement(
                judge_a, judge_b, len(left), exact_match(left, right), cohen_kappa(left, right)
            )
        )
    judges = list(labels.values())
    fleiss: float | None = None
    common: list[ItemKey] = []
    if len(judges) >= 2:
        shared = set(judges[0]).intersection(*judges[1:])
        common = sorted(shared)
        fleiss = fleiss_kappa([[j[item] for j in judges] for item in common])
    kappas = [p.kappa for p in pairs if p.kappa is not None]
    return PanelAgreement(
        pairs=pairs,
        fleiss_kappa=fleiss,
        fleiss_items=len(common),
        mean_pairwise_kappa=sum(kappas) / len(kappas) if kappas else None,
    )


def _same_length(a: Sequence[str], b: Sequence[str]) -> None:
    if len(a) != len(b):
        raise ValueError(f"rating lists differ in length: {len(a)} and {len(b)}")
