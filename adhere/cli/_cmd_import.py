"""``adhere import …``: another harness's call logs into an adhere store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from adhere.cli._app import err_console, main

if TYPE_CHECKING:
    from adhere.core import Instance


@main.group("import")
def import_() -> None:
    """Import another harness's call logs as a rollout (trajectories built)."""


def _benchmark_instances(file: str) -> tuple[dict[str, Instance], dict[str, object]]:
    """The instances of a Benchmark file by id, and the Benchmark as a spec document."""
    from adhere.errors import SpecError
    from adhere.spec import Benchmark, load_resources
    from adhere.suites import get_suite

    found = [r for r in load_resources(file) if isinstance(r, Benchmark)]
    if len(found) != 1:
        raise SpecError(f"expected exactly one Benchmark, found {len(found)}", file=file)
    benchmark = found[0]
    try:
        suite = get_suite(benchmark.spec.suite, **benchmark.spec.options)
    except SpecError as exc:
        raise SpecError(str(exc).split(": ", 1)[-1], file=file, field=exc.field) from None
    loaded = suite.load(benchmark.spec, base_dir=Path(file).resolve().parent, file=file)
    document = benchmark.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {i.id: i for i in loaded}, document


@import_.command("mini-vela")
@click.argument("source", metavar="DIR", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The rollout directory to create (e.g. runs/imported); it must be new or empty.",
)
@click.option(
    "--benchmark",
    "benchmark_file",
    type=click.Path(exists=True, dir_okay=False),
    help="The Benchmark the sessions ran (e.g. OctoBench): its instances are stored, "
    "trajectories get source tags, and `adhere score RUN --panel …` can judge them.",
)
@click.option("--scaffold", default="mini-vela", show_default=True, help="Scaffold name.")
@click.option("--model", help="Model name of every trial [default: the model each asked].")
def import_mini_vela(
    source: Path,
    out: Path,
    benchmark_file: str | None,
    scaffold: str,
    model: str | None,
) -> None:
    """Import mini-vela's raw logs (DIR: its results/trajectories, or one .jsonl file).

    One trial per session; each call's second copy (mini-vela logs every call twice)
    is dropped; calls are stored in adhere's record format and normalized, so
    `adhere trajectory show RUN TRIAL` works on the result.
    """
    from adhere.artifacts import RolloutStore
    from adhere.observe import import_minivela
    from adhere.store import open_store

    instances, specs = None, []
    if benchmark_file is not None:
        instances, document = _benchmark_instances(benchmark_file)
        specs = [document]
    out = out.resolve()
    store = RolloutStore(open_store(str(out.parent)), out.name)
    imported = import_minivela(
        source, store, scaffold=scaffold, model=model, instances=instances, specs=specs
    )
    for item in imported:
        err_console.print(
            f"{item.session}: {item.lines} lines, {item.dropped} duplicate copies dropped, "
            f"{item.calls} calls → trial {item.trial.id[:12]} ({item.trial.model}/"
            f"{item.trial.scaffold}), {item.messages} messages"
            + (f"; {item.unpaired} calls had no second copy" if item.unpaired else ""),
            highlight=False,
            markup=False,
        )
    err_console.print(
        f"imported {len(imported)} trials into {store.uri}; look at one with "
        f"`adhere trajectory show {out} TRIAL`",
        highlight=False,
        markup=False,
    )
