"""ISR and CSR over verdicts, and grouped breakdowns.

For one trial with verdicts V, the applicable items are those not ``n/a`` (K_i);
``error`` verdicts are applicable and count as not passed.

* ISR (instance success rate) = share of trials whose applicable items all passed.
* CSR (check success rate) = mean over trials of (passed items / applicable items).

Trials with no applicable item are left out of both rates and counted apart. A trial
that failed to run (status ``error``) carries ``error`` verdicts for all its checks,
so it lowers both rates and is also counted in ``trial_errors``. A trial the model
service failed (status ``upstream_fault``) is not the agent's doing: it is left out
of both rates, whatever verdicts it has, and counted in ``upstream_faults``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adhere.core import Verdict


@dataclass(frozen=True)
class TrialScore:
    """How one trial did on its checks."""

    passed: int
    applicable: int
    errors: int

    @property
    def all_passed(self) -> bool:
        """Every applicable item passed (and there was at least one)."""
        return self.applicable > 0 and self.passed == self.applicable

    @property
    def rate(self) -> float:
        """Share of applicable items passed."""
        return self.passed / self.applicable if self.applicable else 0.0


def score_trial(verdicts: Iterable[Verdict]) -> TrialScore:
    """Count passed, applicable and undecidable items of one trial."""
    passed = applicable = errors = 0
    for verdict in verdicts:
        if verdict.result == "n/a":
            continue
        applicable += 1
        if verdict.result == "pass":
            passed += 1
        elif verdict.result == "error":
            errors += 1
    return TrialScore(passed=passed, applicable=applicable, errors=errors)


@dataclass(frozen=True)
class ScoredTrial:
    """A finished trial as metrics see it: grouping keys, status and verdicts."""

    keys: Mapping[str, Any]
    status: str
    verdicts: Sequence[Verdict]
    outcomes: Mapping[str, int] = field(default_factory=dict)
    """The trial's calls per outcome other than ``ok`` (``TrialResult.outcomes``)."""
    calls: int = 0
    """How many model calls the trial made."""


@dataclass
class Rates:
    """Aggregated rates of a group of trials."""

    trials: int = 0
    scored: int = 0
    isr: float | None = None
    csr: float | None = None
    trial_errors: int = 0
    upstream_faults: int = 0
    items: int = 0
    items_passed: int = 0
    categories: Counter[str] = field(default_factory=Counter)


def rates(trials: Iterable[ScoredTrial]) -> Rates:
    """ISR, CSR and counts over a group of trials."""
    out = Rates()
    all_passed = 0
    rate_sum = 0.0
    for trial in trials:
        out.trials += 1
        if trial.status == "upstream_fault":
            out.upstream_faults += 1
            continue
        if trial.status != "ok":
            out.trial_errors += 1
        score = score_trial(trial.verdicts)
        if score.applicable == 0:
            continue
        out.scored += 1
        out.items += score.applicable
        out.items_passed += score.passed
        all_passed += score.all_passed
        rate_sum += score.rate
        for verdict in trial.verdicts:
            category = verdict.details.get("category")
            if verdict.result == "error":
                out.categories["error"] += 1
            elif isinstance(category, str):
                out.categories[category] += 1
            extra = verdict.details.get("extra_tags")
            if extra:
                out.categories["extra"] += len(extra)
    if out.scored:
        out.isr = all_passed / out.scored
        out.csr = rate_sum / out.scored
    return out


def group_rates(trials: Iterable[ScoredTrial], by: Sequence[str]) -> dict[tuple[Any, ...], Rates]:
    """Rates per combination of the ``by`` keys, in sorted key order."""
    groups: dict[tuple[Any, ...], list[ScoredTrial]] = defaultdict(list)
    for trial in trials:
        groups[tuple(trial.keys.get(k) for k in by)].append(trial)
    return {key: rates(groups[key]) for key in sorted(groups, key=_sort_key)}


def _sort_key(key: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    return tuple((0, v) if isinstance(v, int | float) else (1, str(v)) for v in key)
