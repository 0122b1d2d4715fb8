"""The columns of the four result tables: name, type and whether a cell may be null.

``docs/results.md`` documents every column with its meaning; a test reads that page's
tables and compares them with these, so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

__all__ = ["DTYPES", "TABLES", "Column", "ColumnType", "TableName"]

ColumnType = Literal["string", "integer", "float", "boolean"]
TableName = Literal["trials", "checks", "calls", "messages"]

DTYPES: dict[ColumnType, str] = {
    "string": "string",
    "integer": "Int64",
    "float": "Float64",
    "boolean": "boolean",
}
"""Column type → the pandas dtype of its DataFrame column (nullable dtypes throughout)."""


@dataclass(frozen=True)
class Column:
    """One column of a result table."""

    name: str
    type: ColumnType
    nullable: bool = False


def _cols(spec: str) -> tuple[Column, ...]:
    """Columns from ``name:type[?]`` words (``?`` marks a nullable column)."""
    out = []
    for word in spec.split():
        name, _, kind = word.partition(":")
        nullable = kind.endswith("?")
        out.append(Column(name, cast(ColumnType, kind.rstrip("?")), nullable))
    return tuple(out)


_TRIAL_KEYS = "rollout:string trial_id:string model:string scaffold:string instance_id:string "
_TRIAL_KEYS += "repeat:integer"

TABLES: dict[TableName, tuple[Column, ...]] = {
    "trials": _cols(
        _TRIAL_KEYS + " suite:string? category:string? status:string error:string? attempt:integer"
        " started_at:string finished_at:string duration_seconds:float calls:integer"
        " input_tokens:integer output_tokens:integer scaffold_version:string?"
        " checks:integer passed:integer failed:integer not_applicable:integer"
        " errored:integer undecided:integer"
    ),
    "checks": _cols(
        _TRIAL_KEYS + " check_id:string source:string? check_type:string? description:string?"
        " condition:string? judge:string? final:boolean verdict:string decider:string?"
        " reasoning:string? evidence:integer?"
    ),
    "calls": _cols(
        _TRIAL_KEYS + " seq:integer api:string upstream_api:string? translated:boolean"
        " requested_model:string? stream:boolean status:integer? outcome:string?"
        " error:string? started_at:string duration_seconds:float ttfb_seconds:float?"
        " input_tokens:integer? output_tokens:integer? cached_input_tokens:integer?"
        " reasoning_tokens:integer?"
    ),
    "messages": _cols(
        _TRIAL_KEYS + " index:integer role:string sources:string? text:string? reasoning:string?"
        " tool_calls:string? tool_call_id:string? name:string?"
    ),
}
"""Each table's columns, in order."""
