"""``adhere run``'s options for spending carefully: preflight, fail-fast, limits and filters."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import click

from adhere.cli._app import err_console

if TYPE_CHECKING:
    from adhere.runner import Prepared, RunSummary

F = TypeVar("F", bound=Callable[..., Any])


class ExecuteOptions(TypedDict):
    """``execute``'s keyword arguments the options set."""

    check_endpoints: bool
    fail_fast: bool


_OPTIONS = [
    click.option(
        "--no-preflight",
        "no_preflight",
        is_flag=True,
        help="Skip the one-call check of every model and judge endpoint before the first trial.",
    ),
    click.option(
        "--fail-fast",
        is_flag=True,
        help="Stop at the first trial that fails (trials in flight are cancelled; run the "
        "same command again to resume).",
    ),
    click.option(
        "--limit",
        type=click.IntRange(min=1),
        help="Run only the trials of the first N instances the plan runs.",
    ),
    click.option(
        "--model",
        "models",
        multiple=True,
        metavar="NAME",
        help="Run only this model's trials (repeatable).",
    ),
    click.option(
        "--scaffold",
        "scaffolds",
        multiple=True,
        metavar="NAME",
        help="Run only this scaffold's trials (repeatable).",
    ),
    click.option(
        "--prices",
        "prices_file",
        type=click.Path(exists=True, dir_okay=False),
        help="Price table (YAML; docs/prices.md) for the costs in the report.",
    ),
    click.option(
        "--parallelism",
        type=click.IntRange(min=1),
        help="Trials at once, instead of the Rollout's parallelism (results do not change).",
    ),
]


def _run_overrides(command: F) -> F:
    """Add the options above to ``adhere run``."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def _apply_overrides(
    prepared: Prepared, overrides: dict[str, Any]
) -> tuple[Prepared, ExecuteOptions]:
    """The prepared run narrowed by the options, and ``execute``'s keyword arguments."""
    from adhere.runner import load_prices, narrow

    if overrides["prices_file"] is not None:
        load_prices(overrides["prices_file"])  # a bad table is refused before anything runs
    before = len(prepared.trials)
    narrowed = narrow(
        prepared,
        limit=overrides["limit"],
        models=overrides["models"],
        scaffolds=overrides["scaffolds"],
        parallelism=overrides["parallelism"],
    )
    if len(narrowed.trials) != before:
        err_console.print(
            f"  running {len(narrowed.trials)} of the {before} planned trials "
            "(--limit/--model/--scaffold); the same command without them runs the rest",
            highlight=False,
        )
    options = ExecuteOptions(
        check_endpoints=not overrides["no_preflight"], fail_fast=overrides["fail_fast"]
    )
    return narrowed, options


def _print_stopped(summary: RunSummary) -> None:
    """Say that ``--fail-fast`` stopped the run, and at which trial."""
    if summary.stopped is None:
        return
    unstarted = summary.planned - summary.skipped - summary.ran - summary.cancelled
    err_console.print(
        f"[yellow]stopped (--fail-fast)[/] at the failed trial {summary.stopped}: "
        f"{summary.cancelled} trial(s) in flight cancelled, {max(unstarted, 0)} not started; "
        "run the same command again to resume.",
        highlight=False,
    )
