"""ΔISR and ΔCSR between two scorings of the same trials (feedback correction).

A :class:`PairedTrial` holds one trial as it was first scored (``before``) and as it
was scored after a change (``after``): for feedback correction, the re-run with the
failed checks fed back, or the original carried over unchanged. Rates of both sides
are computed over the same pairs, so a Δ never mixes different sets of trials.

Δ is ``after − before`` (positive: better after). ``fixed`` counts items that went
from ``fail`` to ``pass``, ``broken`` items from ``pass`` to ``fail``; items that were
or became ``error`` or ``n/a`` are in neither count. A pair with an incomplete side
(an undecided check: no verdict, or ``error``) has no Δ: it is left out of both
sides' rates, so they still rest on the same pairs, and counted in ``incomplete``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adhere.core import Verdict
from adhere.metrics._rates import Rates, ScoredTrial, rates

__all__ = [
    "Delta",
    "PairedTrial",
    "delta",
    "group_deltas",
    "is_partial_failure",
    "partial_failure_pairs",
    "signed_points",
    "split_pair",
]


@dataclass(frozen=True)
class PairedTrial:
    """One trial scored twice.

    Attributes:
        before: The first scoring (grouping keys are read from it).
        after: The second scoring of the same model × scaffold × instance × repeat.
        changed: Whether the trial was run again (``False``: carried over as it was).
    """

    before: ScoredTrial
    after: ScoredTrial
    changed: bool = True


@dataclass(frozen=True)
class Delta:
    """Rates of a group of paired trials before and after, and how items moved."""

    pairs: int
    changed: int
    before: Rates
    after: Rates
    fixed: int
    broken: int
    incomplete: int = 0
    """Pairs left out of both sides' rates: a check undecided on either side."""

    @property
    def isr(self) -> float | None:
        """ΔISR (``None`` when either side has no scored trial)."""
        return _minus(self.after.isr, self.before.isr)

    @property
    def csr(self) -> float | None:
        """ΔCSR (``None`` when either side has no scored trial)."""
        return _minus(self.after.csr, self.before.csr)


def _minus(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else after - before


def _flips(before: Sequence[Verdict], after: Sequence[Verdict]) -> tuple[int, int]:
    was = {v.check_id: v.result for v in before}
    fixed = broken = 0
    for verdict in after:
        old = was.get(verdict.check_id)
        fixed += old == "fail" and verdict.result == "pass"
        broken += old == "pass" and verdict.result == "fail"
    return fixed, broken


def delta(pairs: Iterable[PairedTrial]) -> Delta:
    """Rates before and after over the same pairs, with the item flips."""
    items = list(pairs)
    fixed = broken = 0
    for pair in items:
        f, b = _flips(pair.before.verdicts, pair.after.verdicts)
        fixed += f
        broken += b
    whole = [p for p in items if _complete(p.before) and _complete(p.after)]
    return Delta(
        pairs=len(items),
        changed=sum(1 for p in items if p.changed),
        before=rates(p.before for p in whole),
        after=rates(p.after for p in whole),
        fixed=fixed,
        broken=broken,
        incomplete=len(items) - len(whole),
    )


def is_partial_failure(trial: ScoredTrial) -> bool:
    """A trial that ran (``ok``), has every check decided, and failed some checks but not all.

    At least one applicable check failed and at least one passed: the paper's
    partial failure (its §4.3.2). A trial that passed everything, failed every
    applicable check, failed to run or has an undecided check is not one.
    """
    if trial.status != "ok":
        return False
    score = trial.score()
    return score.complete and 0 < score.passed < score.applicable


def partial_failure_pairs(pairs: Iterable[PairedTrial]) -> list[PairedTrial]:
    """The pairs of the partial-failure instances of the base run (paper Table 5's subset).

    An instance is a partial failure for a model × scaffold when at least one of its
    base-run trials (``before``) is a partial-failure trial (:func:`is_partial_failure`);
    every paired trial of that model × scaffold × instance is kept (its other repeats
    too, so the base ISR over the subset is not 0 by construction when repeats differ).
    """
    items = list(pairs)

    def instance(pair: PairedTrial) -> tuple[str, ...]:
        return tuple(str(pair.before.keys.get(k)) for k in ("model", "scaffold", "instance"))

    chosen = {instance(p) for p in items if is_partial_failure(p.before)}
    return [p for p in items if instance(p) in chosen]


def _complete(trial: ScoredTrial) -> bool:
    return trial.status != "ok" or trial.score().complete


def group_deltas(pairs: Iterable[PairedTrial], by: Sequence[str]) -> dict[tuple[Any, ...], Delta]:
    """:func:`delta` per combination of the ``by`` keys (read from ``before``), sorted."""
    groups: dict[tuple[Any, ...], list[PairedTrial]] = defaultdict(list)
    for pair in pairs:
        groups[tuple(pair.before.keys.get(k) for k in by)].append(pair)
    return {key: delta(groups[key]) for key in sorted(groups, key=lambda k: tuple(map(str, k)))}


def split_pair(
    pair: PairedTrial, category_of: Mapping[str, str] | Callable[[str], str], key: str
) -> list[PairedTrial]:
    """``pair`` split by category of its checks (e.g. instruction source), one pair each.

    Args:
        pair: A paired trial.
        category_of: Check id → category; ids it lacks go under ``"other"``.
        key: The keys entry naming the category in the split pairs.
    """
    lookup = category_of if callable(category_of) else (lambda c: category_of.get(c, "other"))
    sides: list[dict[str, list[Verdict]]] = [{}, {}]
    for side, trial in zip(sides, (pair.before, pair.after), strict=True):
        for verdict in trial.verdicts:
            side.setdefault(lookup(verdict.check_id), []).append(verdict)
    out = []
    for category in sorted(set(sides[0]) | set(sides[1])):
        before, after = (
            ScoredTrial(
                keys={**trial.keys, key: category},
                status=trial.status,
                verdicts=side.get(category, []),
            )
            for side, trial in zip(sides, (pair.before, pair.after), strict=True)
        )
        out.append(PairedTrial(before=before, after=after, changed=pair.changed))
    return out


def signed_points(value: float | None) -> str:
    """A Δ of shares in percentage points with its sign (``+12.5 pp``), or ``–``."""
    if value is None:
        return "–"
    points = round(value * 100, 1)
    return f"{points:+.1f} pp" if points else "0.0 pp"
