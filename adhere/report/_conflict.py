"""OctoBench-Conflict tables: which source each run followed (paper Table 4), and a cross-check.

Table 4 as the paper defines it (§4.3.1, Appendix E.3): per model and conflict type,
the percentage of runs that followed each of the two sources, the source decided by
an LLM judge. Every judge of the panel attributes each run
(:func:`adhere.metrics.side_tally`). Under the report's ``mean`` rule a judge's share
is taken over the runs it attributed to a side, and the cell is the mean across
judges (± the population std across judges when there are several); under
``majority`` each run takes the side the judges' majority names
(:func:`adhere.metrics.majority_side`: a tie is undecided) and the cell is a plain
share. Runs left undecided (both, neither, unclear, no usable answer, a tie under
``majority``, or a trial that did not finish) are counted in the *undecided* column
and never read as a side.

The deterministic side checks stay as a cross-check: their classification
(first, second, both, neither, undecided) per conflict type and scenario, and how
often each judge agrees with them on the runs both attributed to a side (agreement
and Cohen's κ).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adhere.judging import cohen_kappa
from adhere.metrics import (
    ConflictRun,
    Followed,
    SideTally,
    Table,
    attributed,
    followed,
    pct,
    side_tally,
)

__all__ = ["TABLE4_TITLE", "conflict_tables"]

TABLE4_TITLE = "Table 4: conflict resolution rates (source followed, decided by the judges)"
"""The title of Table 4 (its rule, mean or majority, is stated at the report's top)."""
_TYPE_ORDER = ("SP vs UserQuery", "SP vs AgentsMd", "UserQuery vs AgentsMd")


def conflict_tables(
    runs: Iterable[ConflictRun], group: Sequence[str], aggregation: str = "mean"
) -> list[Table]:
    """Table 4 (judges), per judge, the side-check cross-check and the judges' agreement.

    ``group`` names the keys rows are split by first (``model``, ``scaffold``);
    ``aggregation``: the report's judge rule for Table 4 (``mean`` or ``majority``).
    Without any judge attribution (no panel), only the side-check tables.
    """
    runs = list(runs)
    if not runs:
        return []
    tables: list[Table] = []
    if any(run.attributions for run in runs):
        tally = side_tally(runs, group)
        names = _side_names(runs)
        table4 = side_tally(runs, group, majority=aggregation == "majority")
        tables += [_table4(table4, names, group), _per_judge(tally, names, group)]
        tables.append(_agreement(runs))
    return tables + _side_check_tables(runs, group)


def _side_names(runs: Sequence[ConflictRun]) -> dict[str, tuple[str, str]]:
    names = {}
    for run in runs:
        first, second = (str(side["source"]) for side in run.conflict["sides"])
        names[str(run.conflict["type"])] = (first, second)
    return names


def _types(names: Mapping[str, Any]) -> list[str]:
    known = [t for t in _TYPE_ORDER if t in names]
    return known + sorted(t for t in names if t not in _TYPE_ORDER)


def _mean_std(values: Sequence[float]) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return pct(values[0])
    return f"{pct(statistics.fmean(values))} ± {statistics.pstdev(values) * 100:.1f}"


def _table4(
    tally: Mapping[tuple[str, ...], Mapping[str, SideTally]],
    names: Mapping[str, tuple[str, str]],
    group: Sequence[str],
) -> Table:
    types = _types(names)
    header = [*group]
    for kind in types:
        first, second = names[kind]
        header += [f"{kind}: {first}%", f"{kind}: {second}%", f"{kind}: undecided"]
    rows = []
    for prefix in sorted({key[:-1] for key in tally}):
        row = list(prefix)
        for kind in types:
            judges = tally.get((*prefix, kind))
            if judges is None:
                row += ["–", "–", "–"]
                continue
            for side in ("first", "second"):
                shares = [s for t in judges.values() if (s := t.share(side)) is not None]
                row.append(_mean_std(shares))
            undecided = sum(t.undecided for t in judges.values())
            row.append(f"{undecided} of {sum(t.runs for t in judges.values())}")
        rows.append(row)
    return Table(title=TABLE4_TITLE, header=header, rows=rows)


def _per_judge(
    tally: Mapping[tuple[str, ...], Mapping[str, SideTally]],
    names: Mapping[str, tuple[str, str]],
    group: Sequence[str],
) -> Table:
    rows = []
    for key, judges in sorted(tally.items()):
        first, second = names[key[-1]]
        for judge, t in sorted(judges.items()):
            rows.append(
                [
                    *key,
                    judge,
                    str(t.runs),
                    f"{first}: {pct(t.share('first'))} ({t.first})",
                    f"{second}: {pct(t.share('second'))} ({t.second})",
                    str(t.undecided),
                ]
            )
    return Table(
        title="OctoBench-Conflict: source followed per judge (shares of the runs it attributed)",
        header=[*group, "conflict type", "judge", "runs", "1st source", "2nd source", "undecided"],
        rows=rows,
    )


def _agreement(runs: Sequence[ConflictRun]) -> Table:
    """Each judge against the side checks, on the runs both attributed to a side."""
    judges = sorted({name for run in runs for name in run.attributions})
    rows = []
    for judge in judges:
        left: list[str] = []
        right: list[str] = []
        for run in runs:
            by_judge = attributed(run.attributions.get(judge) if run.status == "ok" else None)
            by_checks = followed(run)
            if by_judge != "undecided" and by_checks in ("first", "second"):
                left.append(by_judge)
                right.append(by_checks)
        agree = sum(a == b for a, b in zip(left, right, strict=True))
        kappa = cohen_kappa(left, right)
        rows.append(
            [
                judge,
                str(len(runs)),
                str(len(left)),
                f"{pct(agree / len(left)) if left else '–'} ({agree})",
                "–" if kappa is None else f"{kappa:.3f}",
            ]
        )
    return Table(
        title="OctoBench-Conflict: judges against the side checks (runs both attribute to a side)",
        header=["judge", "runs", "compared", "agreement", "Cohen's κ"],
        rows=rows,
    )


def _side_check_tables(runs: Sequence[ConflictRun], group: Sequence[str]) -> list[Table]:
    detailed: dict[tuple[Any, ...], Counter[Followed]] = defaultdict(Counter)
    by_type: dict[tuple[Any, ...], Counter[Followed]] = defaultdict(Counter)
    names = _side_names(runs)
    for run in runs:
        kind = str(run.conflict["type"])
        outcome = followed(run)
        prefix = tuple(str(run.keys.get(k)) for k in group)
        detailed[(*prefix, kind, str(run.conflict["scenario"]))][outcome] += 1
        by_type[(*prefix, kind)][outcome] += 1
    header_tail = ["runs", "1st side followed", "2nd side followed", "both", "neither", "undecided"]
    return [
        Table(
            title="OctoBench-Conflict cross-check: side checks, per conflict type and scenario",
            header=[*group, "conflict type", "scenario", *header_tail],
            rows=[_row(key, counts, names[key[len(group)]]) for key, counts in _sorted(detailed)],
        ),
        Table(
            title="OctoBench-Conflict cross-check: side checks, per conflict type (all scenarios)",
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
