"""ISR and CSR over verdicts, and grouped breakdowns.

For one trial, every check of its instance is either **decided** — a verdict
``pass``, ``fail`` or ``n/a`` — or **undecided**: no verdict at all (no verifier and
no judge panel, or scoring has not reached it yet) or an ``error`` verdict (its
verifier or every judge failed). The applicable items are the decided ones that are
not ``n/a``.

A trial is **complete** when none of its checks is undecided. Only complete trials
have a score:

* ISR (instance success rate) = share of complete trials whose applicable items all
  passed.
* CSR (check success rate) = mean over complete trials of (passed / applicable items).

A trial with an undecided check is **incomplete**: it is left out of both rates and
counted apart (``incomplete``), with its undecided checks (``undecided``: no verdict;
``errored``: an ``error`` verdict, by who failed in ``errored_by``). Nothing undecided
ever counts as a pass — nor as a fail: an incomplete trial has no score. Complete
trials with no applicable item are left out of both rates too (``no_applicable``).

A trial that failed to run (status ``error``) carries ``error`` verdicts for all its
checks: the agent's run did not finish, so it is scored as failed — it lowers both
rates — and counted in ``trial_errors``. A trial the model service failed (status
``upstream_fault``) is not the agent's doing: it is left out of both rates, whatever
verdicts it has, and counted in ``upstream_faults``.

The checks a trial should have are :attr:`ScoredTrial.expected`; ``None`` (callers
that do not know the checklist) counts only the verdicts present.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from adhere.core import Verdict


@dataclass(frozen=True)
class TrialScore:
    """How one trial did on its checks.

    Attributes:
        passed: Decided ``pass``.
        applicable: Decided and not ``n/a`` (``pass`` or ``fail``), plus ``error``
            verdicts of a trial that failed to run (scored as failed).
        errors: ``error`` verdicts (undecided, unless the trial failed to run).
        missing: Checks of the instance with no verdict (undecided).
        not_applicable: Decided ``n/a``.
    """

    passed: int
    applicable: int
    errors: int
    missing: int = 0
    not_applicable: int = 0

    @property
    def undecided(self) -> int:
        """Checks with no decision: no verdict, or an ``error`` verdict."""
        return self.missing + self.errors

    @property
    def complete(self) -> bool:
        """Every check was decided (``pass``, ``fail`` or ``n/a``)."""
        return self.undecided == 0

    @property
    def all_passed(self) -> bool:
        """Complete, and every applicable item passed (at least one)."""
        return self.complete and self.applicable > 0 and self.passed == self.applicable

    @property
    def rate(self) -> float:
        """Share of applicable items passed (0 without any)."""
        return self.passed / self.applicable if self.applicable else 0.0


def score_trial(verdicts: Iterable[Verdict], expected: Iterable[str] | None = None) -> TrialScore:
    """Count passed, applicable, errored, missing and n/a items of one trial.

    ``expected``: the check ids the trial should have verdicts for; those without a
    verdict are ``missing``. ``None`` counts only the verdicts given. ``error``
    verdicts count in ``errors`` (undecided), not in ``applicable``.
    """
    passed = applicable = errors = not_applicable = 0
    seen: set[str] = set()
    for verdict in verdicts:
        seen.add(verdict.check_id)
        if verdict.result == "n/a":
            not_applicable += 1
        elif verdict.result == "error":
            errors += 1
        else:
            applicable += 1
            passed += verdict.result == "pass"
    missing = 0 if expected is None else len(set(expected) - seen)
    return TrialScore(
        passed=passed,
        applicable=applicable,
        errors=errors,
        missing=missing,
        not_applicable=not_applicable,
    )


def failed_run_score(verdicts: Sequence[Verdict], expected: Iterable[str] | None) -> TrialScore:
    """The score of a trial that failed to run: every check not ``n/a`` counts as failed."""
    ids = {v.check_id for v in verdicts} | set(expected or ())
    not_applicable = sum(1 for v in verdicts if v.result == "n/a")
    return TrialScore(
        passed=0, applicable=len(ids) - not_applicable, errors=0, not_applicable=not_applicable
    )


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
    expected: tuple[str, ...] | None = None
    """The check ids the trial should have verdicts for; ``None``: only those present."""

    def score(self) -> TrialScore:
        """The trial's :class:`TrialScore` (a failed run's checks count as failed)."""
        if self.status == "error":
            return failed_run_score(self.verdicts, self.expected)
        return score_trial(self.verdicts, self.expected)


@dataclass
class Rates:
    """Aggregated rates of a group of trials, and what they rest on.

    Attributes:
        trials: Trials in the group, whatever their state.
        scored: Trials the rates rest on (complete, at least one applicable item;
            failed runs included).
        isr: ISR over ``scored``; ``None`` when no trial is scored.
        csr: CSR over ``scored``; ``None`` when no trial is scored.
        incomplete: Trials left out because a check is undecided.
        no_applicable: Complete trials left out because every check was ``n/a``.
        trial_errors: Trials that failed to run (scored as failed).
        upstream_faults: Trials the model service failed (left out).
        items: Applicable items of the scored trials.
        items_passed: Those that passed.
        undecided: Checks with no verdict, in trials that ran (``ok``).
        errored: Checks whose verifier or judges failed (``error`` verdicts), in
            trials that ran.
        errored_by: ``errored`` by who failed (``decided_by``: ``judge:<name>``,
            ``panel:majority``, a verifier's name).
        not_applicable: ``n/a`` verdicts in trials that ran.
        categories: Wrong-answer categories of the scored trials' verdicts.
    """

    trials: int = 0
    scored: int = 0
    isr: float | None = None
    csr: float | None = None
    incomplete: int = 0
    no_applicable: int = 0
    trial_errors: int = 0
    upstream_faults: int = 0
    items: int = 0
    items_passed: int = 0
    undecided: int = 0
    errored: int = 0
    errored_by: Counter[str] = field(default_factory=Counter)
    not_applicable: int = 0
    categories: Counter[str] = field(default_factory=Counter)

    @property
    def checks(self) -> int:
        """Checks of the trials that ran: decided, undecided or errored."""
        return self.items + self.not_applicable + self.undecided + self.errored

    @property
    def complete(self) -> bool:
        """No trial of the group is incomplete."""
        return self.incomplete == 0


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
        score = trial.score()
        if trial.status != "ok":
            out.trial_errors += 1
        else:
            out.undecided += score.missing
            out.errored += score.errors
            out.not_applicable += score.not_applicable
            for verdict in trial.verdicts:
                if verdict.result == "error":
                    out.errored_by[verdict.decided_by or "unknown"] += 1
        if not score.complete:
            out.incomplete += 1
            continue
        if score.applicable == 0:
            out.no_applicable += 1
            continue
        out.scored += 1
        out.items += score.applicable
        out.items_passed += score.passed
        all_passed += score.all_passed
        rate_sum += score.rate
        _categories(out.categories, trial.verdicts)
    if out.scored:
        out.isr = all_passed / out.scored
        out.csr = rate_sum / out.scored
    return out


def _categories(counts: Counter[str], verdicts: Iterable[Verdict]) -> None:
    for verdict in verdicts:
        category = verdict.details.get("category")
        if verdict.result == "error":
            counts["error"] += 1
        elif isinstance(category, str):
            counts[category] += 1
        extra = verdict.details.get("extra_tags")
        if extra:
            counts["extra"] += len(extra)


def split_trial(
    trial: ScoredTrial, category_of: Callable[[str], str], key: str
) -> list[ScoredTrial]:
    """``trial`` split by the category of its checks, one scored trial per category.

    Verdicts and expected check ids go with their category (``category_of(check_id)``),
    so a category whose check has no verdict is incomplete in its own split too.
    """
    verdicts: dict[str, list[Verdict]] = {}
    expected: dict[str, list[str]] = {}
    for verdict in trial.verdicts:
        verdicts.setdefault(category_of(verdict.check_id), []).append(verdict)
    for check_id in trial.expected or ():
        expected.setdefault(category_of(check_id), []).append(check_id)
    categories = list(verdicts) + [c for c in expected if c not in verdicts]
    return [
        replace(
            trial,
            keys={**trial.keys, key: category},
            verdicts=verdicts.get(category, []),
            expected=None if trial.expected is None else tuple(expected.get(category, ())),
        )
        for category in categories
    ]


def group_rates(trials: Iterable[ScoredTrial], by: Sequence[str]) -> dict[tuple[Any, ...], Rates]:
    """Rates per combination of the ``by`` keys, in sorted key order."""
    groups: dict[tuple[Any, ...], list[ScoredTrial]] = defaultdict(list)
    for trial in trials:
        groups[tuple(trial.keys.get(k) for k in by)].append(trial)
    return {key: rates(groups[key]) for key in sorted(groups, key=_sort_key)}


def _sort_key(key: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    return tuple((0, v) if isinstance(v, int | float) else (1, str(v)) for v in key)
