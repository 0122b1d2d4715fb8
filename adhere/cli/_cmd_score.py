"""``adhere report`` and ``score``: reporting and scoring stored rollouts again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click
from rich.markup import escape

from adhere.cli._app import (
    _print_limiters,
    _ray_options,
    _scorer,
    _write_report,
    allow_incomplete_option,
    err_console,
    exit_if_incomplete,
    format_option,
    main,
    print_json,
)


@main.command()
@click.argument("run_ref", metavar="RUN")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output directory.")
@click.option(
    "--human-labels",
    type=click.Path(exists=True, dir_okay=False),
    help="JSONL of human pass/fail/n/a labels; adds agreement of each judge with them.",
)
@click.option(
    "--prices",
    "prices_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Price table (YAML; docs/prices.md) for the costs in the spend table.",
)
@click.option(
    "--aggregation",
    type=click.Choice(["mean", "majority"]),
    help="How every table combines judges (default: the rollout's JudgePanel aggregation).",
)
@allow_incomplete_option
@format_option
def report(
    run_ref: str,
    out: Path | None,
    human_labels: str | None,
    prices_file: str | None,
    aggregation: str | None,
    allow_incomplete: bool,
    fmt: str,
) -> None:
    """Print and write the report of a run.

    RUN is a rollout's artifact directory (e.g. runs/quickstart), its rollout YAML, or
    a store URI ending in the rollout (s3://bucket/runs/quickstart, file:///…).
    Exit status 3 when some trial has undecided or errored checks (a run with no judge
    panel, a store whose scoring was cut short, judge errors) unless
    ``--allow-incomplete``; the report says so at the top. ``--format json`` prints the
    report as one JSON document instead of tables (docs/results.md).
    """
    from adhere.report import open_run, report_json

    store = open_run(run_ref)
    written = _write_report(
        store, out, human_labels, prices_file, aggregation, tables=fmt == "text"
    )
    if fmt == "json":
        print_json(report_json(written))
    totals = written.totals
    exit_if_incomplete(
        written.complete,
        allow_incomplete,
        f"{totals.incomplete} trial(s) have undecided or errored checks",
    )


@main.command()
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--panel",
    "panel_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Score with this JudgePanel instead of the one the rollout ran with.",
)
@click.option("--report/--no-report", default=True, help="Print and write the report after.")
@allow_incomplete_option
@format_option
@_ray_options
def score(
    run_ref: str,
    panel_file: str | None,
    report: bool,
    allow_incomplete: bool,
    fmt: str,
    ray_address: str | None,
    verify_actors: int,
    judge_actors: int,
) -> None:
    """Decide the checks of a stored rollout again.

    RUN is the rollout's artifact directory, its rollout YAML, or a store URI ending
    in the rollout (s3://bucket/runs/quickstart, file:///…); the verdicts are written
    back there.

    Suite checks and bound verifiers are re-run; judge verdicts come from the
    verdict cache when nothing changed, so an unchanged rollout costs no judge call.
    With ``--ray`` verification and judging run on Ray actor pools (same verdicts).
    Exit status 3 when checks are left undecided (no panel for judge-bound checks) or
    errored (a verifier or judge failed, every judge's own verdicts included) unless
    ``--allow-incomplete``. ``--format json``: the summary (and the report) as one JSON
    document on stdout.
    """
    from adhere.report import open_run
    from adhere.runner import rescore

    store = open_run(run_ref)
    scorer = _scorer(ray_address, verify_actors, judge_actors)
    summary = asyncio.run(rescore(store, panel_file=panel_file, scorer=scorer))
    err_console.print(
        f"scored {summary.trials} trials in {summary.seconds:.1f}s: {summary.describe()}",
        highlight=False,
    )
    for problem in summary.problems[:5]:
        err_console.print(f"  [red]problem[/] {escape(problem)}", highlight=False)
    _print_limiters(summary)
    complete = summary.complete
    written = None
    if report:
        written = _write_report(store, tables=fmt == "text")
        complete = written.complete and complete
    if fmt == "json":
        from adhere.cli._json_docs import score_json

        print_json(score_json(store.uri, summary, written, complete))
    exit_if_incomplete(complete, allow_incomplete, "checks were left undecided or errored")
