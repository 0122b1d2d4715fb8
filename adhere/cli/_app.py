"""The ``adhere`` command group, its consoles and the helpers commands share."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape

from adhere import __version__
from adhere.errors import AdhereError

if TYPE_CHECKING:
    from adhere.report import Report

WIDE: int = 400
"""Columns for output that is not a terminal (a CI log, a pipe, a file)."""


def _console(stderr: bool = False) -> Console:
    """A console; off a terminal, wide enough that tables keep whole cells.

    Rich falls back to 80 columns when it cannot ask a terminal, and squeezes tables to
    fit (``c… │ M… │ 0…``) — in CI logs, exactly where ``compare --fail-on-regression``
    runs. Tables take their natural width (never more), so a wide console only stops the
    cutting. ``COLUMNS`` set in the environment still wins.
    """
    console = Console(stderr=stderr)
    if console.is_terminal or "COLUMNS" in os.environ:
        return console
    return Console(stderr=stderr, width=WIDE)


err_console = _console(stderr=True)
out_console = _console()


def _fail(exc: AdhereError) -> None:
    # One line, however long: a message that names file and field is copied, not read wrapped.
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise SystemExit(2)


_GLOBAL_FLAGS = re.compile(r"-v+|--verbose")


def hoist_global_options(args: list[str]) -> list[str]:
    """``adhere run -v X`` as ``adhere -v run X``: global flags moved in front.

    ``-v``/``--verbose`` are taken from anywhere before a ``--`` and put first, where
    click expects them. No subcommand has an option of its own named ``-v``, and none
    takes a value that could be ``-v``.
    """
    cut = args.index("--") if "--" in args else len(args)
    flags = [a for a in args[:cut] if _GLOBAL_FLAGS.fullmatch(a)]
    rest = [a for a in args[:cut] if not _GLOBAL_FLAGS.fullmatch(a)]
    return [*flags, *rest, *args[cut:]]


class _Group(click.Group):
    """Turns project errors into one clear line and exit status 2.

    Global options may follow the subcommand.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_global_options(args))

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except AdhereError as exc:
            _fail(exc)
            return None


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="adhere")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def main(verbose: int) -> None:
    """adhere: measure how well LLM coding agents follow instructions."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


_RAY_ADDRESS = re.compile(r"(local|auto|[a-z]+://\S+|[\w.-]+:\d+)")


def _ray_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None or _RAY_ADDRESS.fullmatch(value):
        return value
    raise click.BadParameter(
        f"{value!r} is not a Ray address (local, auto, ray://HOST:PORT or HOST:PORT); "
        "write --ray=ADDRESS, or put a bare --ray after the other arguments"
    )


def _ray_options(command: Any) -> Any:
    """``--ray [ADDRESS]`` and the pool sizes, for the commands that score."""
    command = click.option(
        "--judge-actors",
        default=2,
        show_default=True,
        type=click.IntRange(min=1),
        help="Judge actors (with --ray).",
    )(command)
    command = click.option(
        "--verify-actors",
        default=2,
        show_default=True,
        type=click.IntRange(min=1),
        help="Verification actors (with --ray).",
    )(command)
    return click.option(
        "--ray",
        "ray_address",
        is_flag=False,
        flag_value="local",
        default=None,
        metavar="[ADDRESS]",
        callback=_ray_address,
        help="Score on Ray actor pools: a bare --ray starts a local Ray; --ray=auto or "
        "--ray=ray://HOST:PORT joins a cluster.",
    )(command)


def _scorer(ray_address: str | None, verify_actors: int, judge_actors: int) -> Any:
    """The in-process scoring pass, or the Ray one when ``--ray`` was given."""
    from adhere.scoring import score_rollout

    if ray_address is None:
        return score_rollout
    from adhere.ray_jobs import ray_scorer

    err_console.print(
        f"scoring on Ray ({ray_address}): {verify_actors} verification actors, "
        f"{judge_actors} judge actors, one limiter actor per judge endpoint",
        highlight=False,
    )
    return ray_scorer(address=ray_address, verify_actors=verify_actors, judge_actors=judge_actors)


def _print_limiters(summary: object) -> None:
    for name, stats in getattr(summary, "limiters", {}).items():
        err_console.print(
            f"  {name}: {stats['granted']} model calls, at most {stats['max_held']} at once "
            f"(concurrency {stats['concurrency']}, "
            f"requestsPerSecond {stats['requests_per_second'] or 'unlimited'})",
            highlight=False,
        )


format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: tables for people; json: one JSON document on stdout (docs/results.md), "
    "progress and messages on stderr.",
)


def print_json(document: Any) -> None:
    """One JSON document on stdout, whole (no wrapping, no markup, no colour)."""
    import json

    click.echo(json.dumps(document, ensure_ascii=False, indent=2))


INCOMPLETE_EXIT = 3
"""Exit status when checks are left undecided or errored (``--allow-incomplete``: 0)."""

allow_incomplete_option = click.option(
    "--allow-incomplete",
    is_flag=True,
    help="Exit 0 even when checks are undecided or errored (default: exit 3).",
)


def exit_if_incomplete(complete: bool, allow: bool, what: str) -> None:
    """Say so and exit with :data:`INCOMPLETE_EXIT` when ``complete`` is false."""
    if complete:
        return
    err_console.print(
        f"[yellow]incomplete[/]: {what}; ISR and CSR rest on the complete trials only "
        f"(exit {INCOMPLETE_EXIT}; --allow-incomplete accepts it).",
        highlight=False,
    )
    if not allow:
        raise SystemExit(INCOMPLETE_EXIT)


def _write_report(
    store: object,
    out: Path | None = None,
    human_labels: str | None = None,
    prices_file: str | None = None,
    aggregation: str | None = None,
    *,
    tables: bool = True,
) -> Report:
    from adhere.artifacts import RolloutStore
    from adhere.report import (
        ViewerSite,
        breakdown_tables,
        panel_tables,
        paper_console_tables,
        render_html,
        render_markdown,
        report_for,
        report_table,
    )

    assert isinstance(store, RolloutStore)
    prices = None
    if prices_file is not None:
        from adhere.runner import load_prices

        prices = load_prices(prices_file)
    assert aggregation in (None, "mean", "majority")
    result = report_for(
        store,
        human_labels=human_labels,
        prices=prices,
        aggregation=aggregation,  # type: ignore[arg-type]
    )
    if tables:  # (not with --format json: the caller prints the report as JSON)
        if result.rule:
            out_console.print(f"[bold]{escape(result.rule)}[/]", highlight=False)
        shown = [*breakdown_tables(result), *panel_tables(result), *paper_console_tables(result)]
        for table in shown:
            out_console.print(table)
        out_console.print(report_table(result))
        for note in result.notes:
            loud = note.startswith("WARNING")
            label = "[bold red]warning:[/]" if loud else "[yellow]note:[/]"
            text = note.removeprefix("WARNING: ") if loud else note
            out_console.print(f"{label} {escape(text)}", highlight=False)
    files = {"report.md": render_markdown(result), "report.html": render_html(result)}
    # The trial viewer: report.html gains its failed checks, linked to one page per trial.
    files.update(ViewerSite(store, result, files["report.html"]).files())
    if result.plot_svg:
        files["plot.svg"] = result.plot_svg
    files.update((name, svg) for name, (_title, svg) in result.plots.items())
    if out is None:
        local = store.report_dir()
        if local is None:  # an object store (s3://): the report goes beside the results
            where = [store.write_report(name, text) for name, text in files.items()]
            err_console.print(f"report written to {where[0]} and report.html", highlight=False)
            return result
        out = local
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    err_console.print(f"report written to {out}/report.md and report.html", highlight=False)
    return result
