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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from adhere.core import Verdict

__all__ = [
    "FOLLOWED",
    "ConflictRun",
    "Followed",
    "conflict_of",
    "followed",
    "side_checks",
]

Followed = Literal["first", "second", "both", "neither", "undecided"]
FOLLOWED: tuple[Followed, ...] = ("first", "second", "both", "neither", "undecided")


@dataclass(frozen=True)
class ConflictRun:
    """One trial of a conflict instance."""

    keys: Mapping[str, Any]
    status: str
    conflict: Mapping[str, Any]
    """``{"scenario", "type", "sides": [{"source", "check"}, {"source", "check"}]}``."""
    verdicts: Sequence[Verdict]


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
