"""How a report's cells are written: rates, intervals and counts."""

from __future__ import annotations

from collections.abc import Sequence

from adhere.metrics import Interval, Rates, pct

__all__ = [
    "COUNT_COLUMNS",
    "INTERVAL_COLUMNS",
    "ISSUE_COLUMNS",
    "add_counts",
    "interval_cell",
    "joined",
    "rate_cell",
]

ISSUE_COLUMNS = ("wrong", "missing", "duplicate", "extra", "type_mismatch", "invalid")
"""Invalid-output and wrong-answer categories shown next to the rates (``invalid``: a
reply with no usable answer, e.g. GuideBench)."""

INTERVAL_COLUMNS = ("ISR 95% CI", "CSR 95% CI")
"""Each rate's 95% interval, clustered by instance (:func:`adhere.metrics.rate_intervals`)."""

COUNT_COLUMNS = ("scored", "incomplete", "undecided checks", "errored checks", "n/a checks")
"""What every rate rests on: scored trials, trials left out as incomplete, and the
checks with no verdict, with an ``error`` verdict, and ``n/a``."""

SEPARATOR = " / "
"""Between the judges' counts in one cell, in the judge order the rule line names."""


def rate_cell(r: Rates, value: float | None) -> str:
    """A rate as shown: a percentage, ``incomplete`` or an en dash.

    ``incomplete`` when the group has no complete trial but incomplete ones; an en
    dash when there is nothing to score at all.
    """
    if value is None and r.incomplete:
        return "incomplete"
    return pct(value)


def interval_cell(interval: Interval | None) -> str:
    """``low–high%`` of a 95% interval, or an en dash when there is none."""
    if interval is None:
        return "–"
    return f"{interval.low * 100:.1f}–{interval.high * 100:.1f}%"


def joined(values: Sequence[int | None]) -> str:
    """One count per judge: the count when every judge has the same, else ``a / b / c``.

    ``None``: the judge has no scoring of the group (shown ``–``).
    """
    cells = ["–" if v is None else str(v) for v in values]
    return cells[0] if len(set(cells)) == 1 else SEPARATOR.join(cells)


def _parts(cell: str) -> list[int | None]:
    return [None if p == "–" else int(p) for p in cell.split(SEPARATOR)]


def add_counts(*cells: str) -> str:
    """The sum of count cells, judge by judge (cells as :func:`joined` writes them)."""
    parts = [_parts(c) for c in cells]
    width = max(len(p) for p in parts)
    totals: list[int | None] = []
    for n in range(width):
        found = [p[n] if len(p) > 1 else p[0] for p in parts]
        totals.append(None if any(v is None for v in found) else sum(v or 0 for v in found))
    return joined(totals)
