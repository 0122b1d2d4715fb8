"""OctoBench-Conflict: which side of a contradiction a run followed.

A conflict instance holds exactly one contradiction between two instruction sources
(system prompt, user query, project doc) in one scenario (language, emoji,
verbosity, safety, identity …). Each side has a check that passes when the run did
what that side asked. A run is then classed as following the *first* side (its
check passed, the other's did not), the *second*, *both* (the checks could both
pass: the contradiction did not bite), *neither*, or *undecided* (a side's verdict
is missing, ``n/a`` or ``error``, or the trial failed) — undecided runs are counted
and shown, never read as following a side.

The two side checks cannot both be met by design, so they are kept out of ISR and
CSR (:func:`side_checks`) and reported here instead.

The paper decides the side by an LLM judge, not by side checks: each judge of the
panel attributes the run to a side (:data:`ConflictRun.attributions`, one verdict per
judge, see :mod:`adhere.judging._conflict_judge`). :func:`attributed` reads one such
verdict as ``first``, ``second`` or ``undecided`` (the judge said both, neither or
unclear, or gave no usable answer), and :func:`side_tally` counts a group's runs per
judge. The side-check classification (:func:`followed`) stays as a deterministic
cross-check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from adhere.core import Verdict

__all__ = [
    "FOLLOWED",
    "Attributed",
    "ConflictRun",
    "Followed",
    "SideTally",
    "attributed",
    "conflict_of",
    "followed",
    "majority_side",
    "side_checks",
    "side_tally",
]

MAJORITY_VOTE = "majority vote"
"""The one tally's name under the ``majority`` rule (:func:`side_tally`)."""

Followed = Literal["first", "second", "both", "neither", "undecided"]
FOLLOWED: tuple[Followed, ...] = ("first", "second", "both", "neither", "undecided")
Attributed = Literal["first", "second", "undecided"]


@dataclass(frozen=True)
class ConflictRun:
    """One trial of a conflict instance."""

    keys: Mapping[str, Any]
    status: str
    conflict: Mapping[str, Any]
    """``{"scenario", "type", "sides": [{"source", "check"}, {"source", "check"}]}``."""
    verdicts: Sequence[Verdict]
    attributions: Mapping[str, Verdict] = field(default_factory=dict)
    """Judge name → that judge's attribution verdict (empty: no judge was asked)."""


def conflict_of(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The instance's conflict description, when it is a conflict instance."""
    conflict = metadata.get("conflict")
    if isinstance(conflict, Mapping) and len(conflict.get("sides", ())) == 2:
        return conflict
    return None


def side_checks(metadata: Mapping[str, Any]) -> set[str]:
    """Ids of the checks that decide a conflict's sides (none for other instances)."""
    conflict = conflict_of(metadata)
    return {str(side["check"]) for side in conflict["sides"]} if conflict else set()


def followed(run: ConflictRun) -> Followed:
    """Which side the run followed (see the module docstring)."""
    if run.status != "ok":
        return "undecided"
    by_id = {v.check_id: v.result for v in run.verdicts}
    first, second = (by_id.get(str(side["check"])) for side in run.conflict["sides"])
    if first not in ("pass", "fail") or second not in ("pass", "fail"):
        return "undecided"
    if first == "pass":
        return "both" if second == "pass" else "first"
    return "second" if second == "pass" else "neither"


def attributed(verdict: Verdict | None) -> Attributed:
    """The side one judge's attribution names: ``A`` → first, ``B`` → second.

    ``both``, ``neither``, ``unclear``, an ``error`` verdict (no usable answer) and a
    missing attribution are ``undecided`` — never read as a side.
    """
    if verdict is None or verdict.result == "error":
        return "undecided"
    answer = verdict.details.get("followed")
    return "first" if answer == "A" else "second" if answer == "B" else "undecided"


@dataclass
class SideTally:
    """One judge's attributions of a group of runs."""

    first: int = 0
    second: int = 0
    undecided: int = 0

    @property
    def runs(self) -> int:
        """All runs of the group, undecided included."""
        return self.first + self.second + self.undecided

    @property
    def decided(self) -> int:
        """Runs attributed to a side: the denominator of the shares."""
        return self.first + self.second

    def share(self, side: Literal["first", "second"]) -> float | None:
        """Share of the decided runs that followed ``side`` (``None``: none decided)."""
        if not self.decided:
            return None
        return (self.first if side == "first" else self.second) / self.decided


def majority_side(run: ConflictRun) -> Attributed:
    """The side the panel's majority attributes a run to (the ``majority`` rule).

    As the check vote (:func:`adhere.judging.majority_vote`): an ``error``
    attribution abstains; the most frequent of first / second / undecided (both,
    neither, unclear) wins; a tie, every judge abstaining, no attribution and a trial
    that did not finish ``ok`` are ``undecided`` — a run is read as following a side
    only when that is the panel's clear view.
    """
    if run.status != "ok":
        return "undecided"
    votes = [attributed(v) for v in run.attributions.values() if v.result != "error"]
    if not votes:
        return "undecided"
    sides: tuple[Attributed, ...] = ("first", "second", "undecided")
    counts = {side: votes.count(side) for side in sides}
    top = max(counts.values())
    winners = [side for side in sides if counts[side] == top]
    return winners[0] if len(winners) == 1 else "undecided"


def side_tally(
    runs: Iterable[ConflictRun], group: Sequence[str], *, majority: bool = False
) -> dict[tuple[str, ...], dict[str, SideTally]]:
    """Per group key (``group`` keys, then the conflict type): judge → its tally.

    A run counts for every judge of the panel that scored the rollout (the union of
    the judges found on any run): a judge that has no attribution of a run counts it
    undecided. A trial that did not finish ``ok`` is undecided for every judge.
    ``majority``: one tally, :data:`MAJORITY_VOTE`, of :func:`majority_side`.
    """
    runs = list(runs)
    judges = sorted({name for run in runs for name in run.attributions})
    if majority:
        judges = [MAJORITY_VOTE]
    out: dict[tuple[str, ...], dict[str, SideTally]] = {}
    for run in runs:
        key = (*(str(run.keys.get(k)) for k in group), str(run.conflict["type"]))
        tallies = out.setdefault(key, {name: SideTally() for name in judges})
        for name in judges:
            if majority:
                side = majority_side(run)
            else:
                side = attributed(run.attributions.get(name) if run.status == "ok" else None)
            setattr(tallies[name], side, getattr(tallies[name], side) + 1)
    return out
