"""OctoBench-Conflict tables: the share of runs that followed each side of a contradiction."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adhere.metrics import ConflictRun, Followed, Table, followed, pct

__all__ = ["conflict_tables"]


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
