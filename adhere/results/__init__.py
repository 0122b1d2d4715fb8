"""A run's results as tables: trials, checks, calls and messages, for pandas and files.

:func:`trials`, :func:`checks`, :func:`calls` and :func:`messages` return a run's
tables as pandas DataFrames; :func:`export` writes them as Parquet, CSV or JSON Lines
(``adhere export``). A run is its artifact directory, a ``file://`` or ``s3://`` URI
of it, or its rollout YAML. The columns are :data:`TABLES`, documented field by field
in ``docs/results.md``.
"""

from adhere.results._frames import (
    FORMATS,
    Format,
    Run,
    calls,
    checks,
    export,
    frame,
    messages,
    open_run,
    table,
    trials,
)
from adhere.results._schema import DTYPES, TABLES, Column, ColumnType, TableName

__all__ = [
    "DTYPES",
    "FORMATS",
    "TABLES",
    "Column",
    "ColumnType",
    "Format",
    "Run",
    "TableName",
    "calls",
    "checks",
    "export",
    "frame",
    "messages",
    "open_run",
    "table",
    "trials",
]
