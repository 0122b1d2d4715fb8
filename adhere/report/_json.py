"""``--format json``: the documents the main commands print instead of their tables.

Each document is built from the objects the tables are made of (a :class:`Report`, a
:class:`Comparison`, a table of the metrics' :class:`~adhere.metrics.Table`, summaries
as dataclasses), never from printed text. Every document is a JSON object whose
``kind`` names the command; the shapes are documented in docs/results.md
("Command output as JSON"). Pure: the command line prints what these return.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from adhere.metrics import Table
from adhere.report._compare import Comparison, comparison_notes, comparison_table
from adhere.report._document import Report

__all__ = ["JSON_FORMAT", "comparison_json", "jsonable", "report_json", "table_json"]

JSON_FORMAT = 1
"""Version of the documents' shape (``format`` in each); raised when a field changes."""


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses and pydantic models as objects.

    Mappings keep their keys (as strings), tuples and sets become lists, a float that
    is not finite becomes ``null``, and properties are not included.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return jsonable(dump(mode="json"))
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return [jsonable(v) for v in items]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def table_json(table: Table) -> dict[str, Any]:
    """A table: its title, its columns and one object per row (column → cell text)."""
    return {
        "title": table.title,
        "columns": list(table.header),
        "rows": [dict(zip(table.header, row, strict=False)) for row in table.rows],
    }


def report_json(report: Report) -> dict[str, Any]:
    """The report of a rollout (``kind: report``): totals as numbers, every table."""
    totals = jsonable(report.totals)
    return {
        "format": JSON_FORMAT,
        "kind": "report",
        "rollout": report.rollout,
        "suite": report.suite,
        "metrics": {"isr": report.isr_name, "csr": report.csr_name},
        "rule": report.rule,
        "complete": report.complete,
        "totals": totals,
        "summary": table_json(report.summary),
        "breakdowns": [table_json(t) for t in report.breakdowns],
        "panel": [table_json(t) for t in report.panel],
        "paper": [table_json(t) for t in report.paper],
        "notes": list(report.notes),
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """A candidate compared with a baseline (``kind: compare``): rows as numbers and text."""
    return {
        "format": JSON_FORMAT,
        "kind": "compare",
        "baseline": comparison.baseline,
        "candidate": comparison.candidate,
        "settings": jsonable(comparison.settings),
        "trials": dict(comparison.trials),
        "unpaired": dict(comparison.unpaired),
        "judged": comparison.judged,
        "regressed": bool(comparison.regressed),
        "rows": [
            {
                "model": row.model,
                "source": row.source,
                "regressed": row.regression.regressed,
                **jsonable(row.regression),
            }
            for row in comparison.rows
        ],
        "table": table_json(comparison_table(comparison)),
        "notes": comparison_notes(comparison),
    }
