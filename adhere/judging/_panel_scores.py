"""Paper-style scores of a judge panel: ISR and CSR per judge, then mean ± std over judges.

A trial judged by a panel becomes one :class:`~adhere.metrics.ScoredTrial` per
scoring set (:meth:`~adhere.judging._panel.PanelResult.scoring_sets`: one per judge
under ``mean``, the single majority vote under ``majority``), each holding the
trial's deterministic verdicts plus that set's judge verdicts, with the set's name
under the ``judge`` key. :func:`panel_scores` then computes
:func:`adhere.metrics.rates` per group and judge and summarises across judges.

The spread is the sample standard deviation (n − 1) across the judges that scored the
group; it is ``None`` with fewer than two such judges (one judge has no spread, and
0.0 would read as perfect agreement).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adhere.core import Verdict
from adhere.judging._panel import PanelResult
from adhere.metrics import Rates, ScoredTrial, group_rates, split_trial

__all__ = [
    "JUDGE_KEY",
    "PanelScore",
    "category_trials",
    "judge_trials",
    "panel_scores",
    "scores_by_judge",
]

JUDGE_KEY = "judge"
"""The ``ScoredTrial.keys`` entry naming the judge (or ``majority``)."""


def judge_trials(
    keys: Mapping[str, Any],
    status: str,
    judged: PanelResult | Mapping[str, Sequence[Verdict]],
    fixed: Sequence[Verdict] = (),
    expected: Sequence[str] | None = None,
) -> list[ScoredTrial]:
    """One scored trial per scoring set of a panel result (or per judge of a mapping).

    Args:
        keys: The trial's grouping keys (``model``, ``scaffold``, ``instance``, …).
        status: The trial's status (``ok`` or ``error``).
        judged: A :class:`PanelResult`, or judge name → verdicts.
        fixed: Verdicts that do not depend on the judge (deterministic verifiers).
        expected: The trial's check ids: a check a judge left without a verdict makes
            that judge's trial incomplete. ``None``: only the verdicts present count.
    """
    sets = judged.scoring_sets() if isinstance(judged, PanelResult) else judged
    ids = None if expected is None else tuple(expected)
    return [
        ScoredTrial(
            keys={**keys, JUDGE_KEY: name},
            status=status,
            verdicts=[*fixed, *verdicts],
            expected=ids,
        )
        for name, verdicts in sets.items()
    ]


def category_trials(
    trial: ScoredTrial, category_of: Mapping[str, str], key: str = "category"
) -> list[ScoredTrial]:
    """``trial`` split by instruction category, for per-category ISR/CSR.

    Args:
        trial: A scored trial.
        category_of: Check id → category (e.g. ``check.source.value``) for this
            trial's instance; verdicts of ids not in it go under ``"other"``.
        key: The keys entry that names the category.
    """
    return split_trial(trial, lambda check_id: category_of.get(check_id, "other"), key)


@dataclass(frozen=True)
class PanelScore:
    """Scores of one group (e.g. one model) across the panel's judges.

    Attributes:
        judges: Judge name → that judge's rates over the group.
        isr_mean: Mean of the judges' ISR (``None`` when no judge could score).
        isr_std: Sample standard deviation of the judges' ISR (``None`` below 2).
        csr_mean: Mean of the judges' CSR.
        csr_std: Sample standard deviation of the judges' CSR.
    """

    judges: dict[str, Rates]
    isr_mean: float | None
    isr_std: float | None
    csr_mean: float | None
    csr_std: float | None


def _spread(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) if len(values) > 1 else None


def panel_scores(
    trials: Iterable[ScoredTrial], by: Sequence[str] = ("model",)
) -> dict[tuple[Any, ...], PanelScore]:
    """Per group of ``by`` keys: every judge's rates, and mean ± std across judges.

    ``trials`` come from :func:`judge_trials` (each carries the ``judge`` key). Use
    ``by=("model", "scaffold")`` for per-scaffold scores, and trials split with
    :func:`category_trials` with ``by=("model", "category")`` for per-category ones.
    """
    if JUDGE_KEY in by:
        raise ValueError(f"{JUDGE_KEY!r} is the panel's own key; do not group by it")
    per_group: dict[tuple[Any, ...], dict[str, Rates]] = {}
    for key, rates in group_rates(trials, [*by, JUDGE_KEY]).items():
        per_group.setdefault(key[:-1], {})[str(key[-1])] = rates
    out: dict[tuple[Any, ...], PanelScore] = {}
    for group, judges in per_group.items():
        isr_mean, isr_std = _spread([r.isr for r in judges.values() if r.isr is not None])
        csr_mean, csr_std = _spread([r.csr for r in judges.values() if r.csr is not None])
        out[group] = PanelScore(judges, isr_mean, isr_std, csr_mean, csr_std)
    return out


def scores_by_judge(
    scores: Mapping[tuple[Any, ...], PanelScore], metric: str = "isr"
) -> dict[str, dict[str, float]]:
    """Judge → group label → ``isr`` or ``csr``: the input of rank stability.

    Group keys of several parts are joined with ``/`` (``model/scaffold``).
    """
    if metric not in ("isr", "csr"):
        raise ValueError(f"metric must be 'isr' or 'csr', got {metric!r}")
    out: dict[str, dict[str, float]] = {}
    for group, score in scores.items():
        label = "/".join(str(part) for part in group)
        for judge, rates in score.judges.items():
            value = rates.isr if metric == "isr" else rates.csr
            if value is not None:
                out.setdefault(judge, {})[label] = value
    return out
