"""The result tables as pandas DataFrames, and written to files (``adhere export``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from adhere.artifacts import RolloutStore, open_rollout
from adhere.errors import SpecError
from adhere.results._rows import (
    StoredRun,
    call_rows,
    check_rows,
    message_rows,
    read_run,
    trial_rows,
)
from adhere.results._schema import DTYPES, TABLES, TableName

__all__ = [
    "FORMATS",
    "Format",
    "Run",
    "calls",
    "checks",
    "export",
    "frame",
    "messages",
    "open_run",
    "table",
    "trials",
]

Run = str | Path | RolloutStore
"""A run: its artifact directory, a ``file://`` or ``s3://`` URI, its rollout YAML, or
an opened :class:`adhere.artifacts.RolloutStore`."""
Format = Literal["parquet", "csv", "jsonl"]
FORMATS: tuple[Format, ...] = ("parquet", "csv", "jsonl")

_ROWS: dict[TableName, Callable[[StoredRun], Iterator[dict[str, Any]]]] = {
    "trials": trial_rows,
    "checks": check_rows,
    "calls": call_rows,
    "messages": message_rows,
}


def open_run(run: Run) -> RolloutStore:
    """The store of a run given as a directory, URI, rollout YAML or store.

    Raises:
        SpecError: It names no stored rollout.
    """
    if isinstance(run, RolloutStore):
        return run
    path = Path(str(run))
    if "://" not in str(run) and path.is_file():
        from adhere.spec import load_run_config
        from adhere.store import open_store

        config = load_run_config([path])
        store = open_store(config.rollout.spec.storage, base_dir=config.base_dir)
        return RolloutStore(store, config.rollout.metadata.name)
    return open_rollout(run)


def frame(name: TableName, rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """A DataFrame of one table's rows: exactly its columns, in order, with their dtypes."""
    columns = TABLES[name]
    df = pd.DataFrame(list(rows), columns=[c.name for c in columns])
    return df.astype({c.name: DTYPES[c.type] for c in columns})


def table(name: TableName, run: Run | StoredRun) -> pd.DataFrame:
    """One result table of a run."""
    stored = run if isinstance(run, StoredRun) else read_run(open_run(run))
    return frame(name, _ROWS[name](stored))


def trials(run: Run) -> pd.DataFrame:
    """One row per finished trial (see ``docs/results.md``, "trials")."""
    return table("trials", run)


def checks(run: Run) -> pd.DataFrame:
    """One row per check × decider of every trial (``docs/results.md``, "checks")."""
    return table("checks", run)


def calls(run: Run) -> pd.DataFrame:
    """One row per recorded model call (``docs/results.md``, "calls")."""
    return table("calls", run)


def messages(run: Run) -> pd.DataFrame:
    """One row per message of every trajectory (``docs/results.md``, "messages")."""
    return table("messages", run)


def export(run: Run, out: str | Path, fmt: Format = "parquet") -> dict[TableName, Path]:
    """Write the four tables of a run into ``out`` as ``<table>.<fmt>``; return the paths.

    Raises:
        SpecError: The run names no stored rollout, or ``fmt`` is not a known format.
    """
    if fmt not in FORMATS:
        raise SpecError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    stored = read_run(open_run(run))
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[TableName, Path] = {}
    for name in TABLES:
        df = table(name, stored)
        path = folder / f"{name}.{fmt}"
        if fmt == "parquet":
            df.to_parquet(path, index=False)
        elif fmt == "csv":
            df.to_csv(path, index=False)
        else:
            df.to_json(path, orient="records", lines=True, force_ascii=False)
        written[name] = path
    return written
