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

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from adhere.metrics._report import Table, pct
from adhere.spec import Verdict

__all__ = [
    "FOLLOWED",
    "ConflictRun",
    "Followed",
    "conflict_of",
    "conflict_tables",
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


def conflict_tables(runs: Iterable[ConflictRun], group: Sequence[str]) -> list[Table]:
    """Shares of runs following each side: per conflict type and scenario, then per type.

    ``group`` names the keys rows are split by first (``model``, ``scaffold``).
    """
    runs = list(runs)
    if not runs:
        return []
    detailed: dict[tuple[Any, ...], Counter[Followed]] = defaultdict(Counter)
    by_type: dict[tuple[Any, ...], Counter[Followed]] = defaultdict(Counter)
    names: dict[str, tuple[str, ...]] = {}
    for run in runs:
        kind = str(run.conflict["type"])
        names[kind] = tuple(str(side["source"]) for side in run.conflict["sides"])
        outcome = followed(run)
        prefix = tuple(str(run.keys.get(k)) for k in group)
        detailed[(*prefix, kind, str(run.conflict["scenario"]))][outcome] += 1
        by_type[(*prefix, kind)][outcome] += 1
    header_tail = ["runs", "1st side followed", "2nd side followed", "both", "neither", "undecided"]
    return [
        Table(
            title="OctoBench-Conflict: side followed, per conflict type and scenario",
            header=[*group, "conflict type", "scenario", *header_tail],
            rows=[_row(key, counts, names[key[len(group)]]) for key, counts in _sorted(detailed)],
        ),
        Table(
            title="OctoBench-Conflict: side followed, per conflict type (all scenarios)",
            header=[*group, "conflict type", *header_tail],
            rows=[_row(key, counts, names[key[-1]]) for key, counts in _sorted(by_type)],
        ),
    ]


def _sorted(
    counts: Mapping[tuple[Any, ...], Counter[Followed]],
) -> list[tuple[tuple[Any, ...], Counter[Followed]]]:
    return sorted(counts.items(), key=lambda item: tuple(map(str, item[0])))


def _row(key: tuple[Any, ...], counts: Counter[Followed], sides: Sequence[str]) -> list[str]:
    runs = sum(counts.values())

    def share(outcome: Followed) -> str:
        return f"{pct(counts[outcome] / runs)} ({counts[outcome]})"

    return [
        *map(str, key),
        str(runs),
        f"{sides[0]}: {share('first')}",
        f"{sides[1]}: {share('second')}",
        share("both"),
        share("neither"),
        share("undecided"),
    ]
