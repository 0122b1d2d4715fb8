"""The Summary's and the breakdowns' rows, computed by the report's judge rule.

A group's rows rest on the rule's scoring sets (:func:`adhere.report._judges.scoring_sets`):
one set (no judges, or the ``majority`` rule) gives plain rates, counts and the
intervals of :func:`adhere.metrics.rate_intervals`; several judges (the ``mean``
rule) give each rate as the mean ± std across judges, its 95% interval from
:func:`adhere.metrics.judge_rate_intervals` (a bootstrap over instances of the
mean), and every count per judge (:func:`adhere.report._cells.joined`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adhere.metrics import (
    Interval,
    RateIntervals,
    Rates,
    ScoredTrial,
    group_rates,
    judge_rate_intervals,
)
from adhere.report._cells import ISSUE_COLUMNS, interval_cell, joined
from adhere.report._judges import JUDGE, Across

__all__ = ["GroupScore", "group_scores", "set_rows"]


class GroupScore:
    """One group's scoring sets: each judge's rates, their mean, intervals and counts."""

    def __init__(self, judges: Sequence[str], rates: dict[str, Rates], trials: list[ScoredTrial]):
        self.judges = list(judges)
        self.rates = rates
        self.across = Across(rates, len(judges))
        self._trials = trials
        self._intervals: RateIntervals | None = None

    @property
    def trials(self) -> int:
        """Trials of the group (each is scored once per judge)."""
        return max((r.trials for r in self.rates.values()), default=0)

    def mean(self, metric: str) -> float | None:
        """The group's ``isr`` or ``csr``: one set's rate, or the mean across judges."""
        return self.across.mean(metric)

    def intervals(self) -> RateIntervals:
        """95% intervals of the group's ISR and CSR (computed once)."""
        if self._intervals is None:
            self._intervals = judge_rate_intervals(self._trials, key=JUDGE)
        return self._intervals

    def interval(self, metric: str) -> Interval | None:
        """The 95% interval of ``isr`` or ``csr``."""
        found: Interval | None = getattr(self.intervals(), metric)
        return found

    def count(self, read: Any) -> str:
        """A count per judge (``read(rates)``), once when every judge has the same."""
        return joined([read(self.rates[j]) if j in self.rates else None for j in self.judges])

    def counts(self) -> list[str]:
        """The count columns (:data:`adhere.report._cells.COUNT_COLUMNS`)."""
        return [
            self.count(lambda r: r.scored),
            self.count(lambda r: r.incomplete),
            self.count(lambda r: r.undecided),
            self.count(lambda r: r.errored),
            self.count(lambda r: r.not_applicable),
        ]


def group_scores(
    sets: Sequence[ScoredTrial], by: Sequence[str]
) -> dict[tuple[Any, ...], GroupScore]:
    """Per group of ``by`` keys (sorted as :func:`adhere.metrics.group_rates` sorts)."""
    judges = sorted({str(t.keys.get(JUDGE)) for t in sets})
    members: dict[tuple[Any, ...], list[ScoredTrial]] = {}
    for trial in sets:
        members.setdefault(tuple(trial.keys.get(k) for k in by), []).append(trial)
    per: dict[tuple[Any, ...], dict[str, Rates]] = {}
    for key, r in group_rates(sets, [*by, JUDGE]).items():
        per.setdefault(tuple(key[:-1]), {})[str(key[-1])] = r
    return {key: GroupScore(judges, per[key], members[key]) for key in per}


def set_rows(sets: Sequence[ScoredTrial], by: Sequence[str]) -> list[list[str]]:
    """Summary rows: keys, trials, ISR, CSR, intervals, counts, issues, errors, faults."""
    rows = []
    for key, score in group_scores(sets, by).items():
        rows.append(
            [
                *(str(label) for label in key),
                str(score.trials),
                score.across.cell("isr"),
                score.across.cell("csr"),
                interval_cell(score.interval("isr")),
                interval_cell(score.interval("csr")),
                *score.counts(),
                *(score.count(lambda r, c=c: r.categories.get(c, 0)) for c in ISSUE_COLUMNS),
                score.count(lambda r: r.trial_errors),
                score.count(lambda r: r.upstream_faults),
            ]
        )
    return rows
