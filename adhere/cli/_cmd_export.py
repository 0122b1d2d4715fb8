"""``adhere export``: a run's result tables as Parquet, CSV or JSON Lines files."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click
from rich.markup import escape

from adhere.cli._app import err_console, main


@main.command("export")
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["parquet", "csv", "jsonl"]),
    default="parquet",
    show_default=True,
    help="File format of the tables.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write the tables into (default: ./<rollout>-export).",
)
def export_run(run_ref: str, fmt: str, out: Path | None) -> None:
    """Write a run's tables: trials, checks, calls and messages (see docs/results.md).

    RUN is a rollout's artifact directory (e.g. runs/quickstart), a file:// or s3://
    URI of it (s3://bucket/runs/quickstart), or its rollout YAML. One file per table,
    <table>.<format>, with the documented columns.
    """
    from adhere.results import Format, export, open_run

    store = open_run(run_ref)
    folder = out if out is not None else Path(f"{store.rollout}-export")
    written = export(store, folder, cast(Format, fmt))
    for name, path in written.items():
        err_console.print(f"{name}: {escape(str(path))}", highlight=False, soft_wrap=True)
