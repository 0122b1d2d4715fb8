"""Breakdowns by instruction source, by check type, and avg@k over repeats.

Every rate rests on the report's scoring sets (:func:`adhere.report._judges.scoring_sets`):
under the ``mean`` rule each judge's own scoring, and a cell is the mean ± std across
judges; under ``majority`` (or without judges) the stored verdicts, plain rates.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from adhere.core import Instance
from adhere.judging import category_trials
from adhere.metrics import ScoredTrial, Spread, Table
from adhere.report._cells import INTERVAL_COLUMNS, interval_cell
from adhere.report._document import Report
from adhere.report._judges import across_judges
from adhere.report._plot import bar_svg
from adhere.report._summary import group_scores

__all__ = ["repeat_tables", "split_tables"]


def _group(sets: Sequence[ScoredTrial]) -> list[str]:
    scaffolds = {t.keys.get("scaffold") for t in sets}
    return ["model", "scaffold"] if len(scaffolds) > 1 else ["model"]


def repeat_tables(sets: Sequence[ScoredTrial], report: Report) -> list[Table]:
    """avg@k: ISR and CSR per repeat, then mean ± std and the range across the k repeats.

    A repeat's rate is the report's rate of that repeat's trials (the mean across
    judges under the ``mean`` rule); the std across repeats is the sample one.
    """
    repeats = {t.keys.get("repeat") for t in sets}
    if len(repeats) < 2:
        return []
    group = _group(sets)
    cells = across_judges(sets, (*group, "repeat"))
    per_group: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}
    for key, across in cells.items():
        per_group.setdefault(tuple(key[:-1]), []).append((key[-1], across))
    rows = []
    for keys in sorted(per_group, key=lambda k: tuple(map(str, k))):
        found = per_group[keys]
        rows.append(
            [
                *(str(k) for k in keys),
                str(len(found)),
                *(_spread([a.mean(m) for _, a in found]) for m in ("isr", "csr")),
            ]
        )
    return [
        Table(
            title=f"avg@k over {len(repeats)} repeats (mean ± std across repeats [range])",
            header=[*group, "k", report.isr_name, report.csr_name],
            rows=rows,
        )
    ]


def _spread(found: Sequence[float | None]) -> str:
    values = [v for v in found if v is not None]
    if not values:
        return "–"
    spread = Spread(
        values=tuple(values),
        mean=statistics.fmean(values),
        std=statistics.stdev(values) if len(values) > 1 else None,
        low=min(values),
        high=max(values),
    )
    middle = f"{spread.mean * 100:.1f}%"
    if spread.std is not None:
        middle += f" ± {spread.std * 100:.1f}"
    return f"{middle} [{spread.low * 100:.1f}–{spread.high * 100:.1f}%]"


def split_tables(
    sets: Sequence[ScoredTrial], instances: Mapping[str, Instance], report: Report
) -> list[Table]:
    """ISR/CSR per instruction source and per check type (each trial split by its checks).

    Per source, ISR is the share of trials whose checks from that source all passed,
    and CSR the mean share passed: the paper's per-category view.
    """
    group = _group(sets)
    tables = []
    for key, title, attribute in (
        ("source", "By instruction source", "source"),
        ("check type", "By check type", "kind"),
    ):
        split: list[ScoredTrial] = []
        for trial in sets:
            instance = instances.get(str(trial.keys.get("instance")))
            if instance is None:
                continue
            label_of = {c.id: getattr(c, attribute).value for c in instance.checks}
            split += category_trials(trial, label_of, key=key)
        labels = {t.keys[key] for t in split}
        if len(labels) < 2:
            continue
        header = [
            *group,
            key,
            "trials",
            report.isr_name,
            report.csr_name,
            *INTERVAL_COLUMNS,
            "scored",
            "incomplete",
            "items",
        ]
        scores = group_scores(split, [*group, key])
        rows = [
            [
                *(str(k) for k in keys),
                str(score.trials),
                score.across.cell("isr"),
                score.across.cell("csr"),
                interval_cell(score.interval("isr")),
                interval_cell(score.interval("csr")),
                score.count(lambda r: r.scored),
                score.count(lambda r: r.incomplete),
                score.count(lambda r: r.items),
            ]
            for keys, score in scores.items()
        ]
        tables.append(Table(title=title, header=header, rows=rows))
        if key == "source":
            bars: dict[str, dict[str, float | None]] = {}
            spans: dict[str, dict[str, tuple[float, float]]] = {}
            for keys, score in scores.items():
                isr = score.mean("isr")  # None (no scored trial): the bar says "n/a"
                series = " / ".join(map(str, keys[:-1]))
                bars.setdefault(str(keys[-1]), {})[series] = isr
                found = score.interval("isr")
                if found is not None:
                    spans.setdefault(str(keys[-1]), {})[series] = (found.low, found.high)
            plot_title = f"{report.isr_name} by instruction source (bars: 95% intervals)"
            report.plots["by_source.svg"] = (
                plot_title,
                bar_svg(bars, title=plot_title, y_label=report.isr_name, errors=spans),
            )
    return tables
