"""``adhere run`` and ``feedback``: running rollouts (``report``, ``score``: ``_cmd_score``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    out_console,
    print_json,
)
from adhere.cli._run_options import _apply_overrides, _print_stopped, _run_overrides


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--rollout", "rollout_name", help="Which Rollout, when the files hold several.")
@click.option("--report/--no-report", default=True, help="Print and write the report at the end.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--rerun-changed",
    is_flag=True,
    help="Run again the finished trials whose config changed (old attempts stay archived); "
    "without it such a run is refused.",
)
@_run_overrides
@allow_incomplete_option
@format_option
@_ray_options
def run(
    files: tuple[str, ...],
    rollout_name: str | None,
    report: bool,
    quiet: bool,
    rerun_changed: bool,
    allow_incomplete: bool,
    fmt: str,
    ray_address: str | None,
    verify_actors: int,
    judge_actors: int,
    **overrides: Any,
) -> None:
    """Run a Rollout locally (resumable: finished trials are skipped).

    Trials are scored in process, or on Ray actor pools with ``--ray``.

    A trial the model service failed (an upstream fault: unreachable, timed out, 5xx
    or a cut stream the agent did not recover from) is not scored, is retried up to
    the Rollout's maxRetries times, and is counted apart.

    Exit status: 0 when every trial finished and every check was decided, 1 when some
    trials failed or ended as upstream faults (they are recorded and retried by the
    next run), 2 for invalid input, 3 when checks were left undecided or
    errored (no judge panel for judge-bound checks, judge or verifier errors; see
    ``--allow-incomplete``), 130 when interrupted by Ctrl-C, 143 by SIGTERM, 129 by
    SIGHUP (each stops starting trials, ends the agents in flight and records their
    trials as interrupted).

    Before the first trial every model and judge endpoint gets one tiny call
    (``--no-preflight`` skips it); a failing endpoint stops the run with exit status 2.
    ``--limit``, ``--model`` and ``--scaffold`` run part of the plan (the same command
    without them runs the rest); ``--parallelism`` overrides the Rollout's.
    ``--format json`` prints the final summary (and the report) as one JSON document
    on stdout (docs/results.md); the exit status is the same.
    """
    from adhere.report import RichProgress
    from adhere.runner import Interrupted, execute, prepare, run_interruptible
    from adhere.spec import load_run_config

    config = load_run_config(files, rollout_name=rollout_name)
    prepared = prepare(config, rerun_changed=rerun_changed)
    from adhere.runner import describe_pairings, pairings, plan_summary

    err_console.print(
        f"rollout [bold]{config.rollout.metadata.name}[/]: "
        f"{escape(plan_summary(config.rollout, prepared.plan))} → {prepared.store.uri}",
        highlight=False,
    )
    for planned in prepared.plan.scaffolds.values():
        for note in planned.notes:
            err_console.print(f"  {planned.name}: {escape(note)}", highlight=False, soft_wrap=True)

    for line in describe_pairings(pairings(config.rollout, prepared.scaffolds)):
        err_console.print(f"  {line}", highlight=False, soft_wrap=True)
    _print_sandbox(prepared)
    prepared, options = _apply_overrides(prepared, overrides)
    reuse = prepared.reuse
    if reuse.changed:
        parts = "; ".join(
            f"{model} × {scaffold}: {', '.join(sorted(what))}"
            for (model, scaffold), what in sorted(reuse.what.items())
        )
        err_console.print(
            f"  [yellow]{reuse.changed} finished trial(s) ran under a changed config[/] "
            f"({parts}): running them again; their old attempts stay archived",
            highlight=False,
        )
    if reuse.legacy:
        err_console.print(
            f"  {reuse.legacy} finished result(s) predate config fingerprints: reused as they "
            "are (what they ran under is not recorded)",
            highlight=False,
        )
    scorer = _scorer(ray_address, verify_actors, judge_actors)
    try:
        if quiet:
            summary = run_interruptible(execute(prepared, scorer=scorer, **options))
        else:
            with RichProgress(err_console) as progress:
                summary = run_interruptible(
                    execute(prepared, progress=progress, scorer=scorer, **options)
                )
    except (KeyboardInterrupt, Interrupted) as stop:
        why = f" ({stop})" if isinstance(stop, Interrupted) else ""
        err_console.print(
            f"[yellow]interrupted[/]{why}: finished trials are saved; run the same command "
            "again to resume.",
            highlight=False,
        )
        raise SystemExit(stop.exit_status if isinstance(stop, Interrupted) else 130) from None
    faults = f", {summary.faults} upstream faults" if summary.faults else ""
    retried = f"; {summary.retried} retries of upstream faults" if summary.retried else ""
    err_console.print(
        f"done in {summary.seconds:.1f}s: {summary.ran} ran ({summary.ok} ok, "
        f"{summary.failed} failed{faults}), {summary.skipped} already done (same config), "
        f"{summary.planned} planned{retried}",
        highlight=False,
    )
    scoring = summary.scoring
    if scoring is not None and scoring.trials:
        err_console.print(f"scored {scoring.trials} trials: {scoring.describe()}", highlight=False)
        _print_limiters(scoring)
    for line in summary.errors[:5]:
        err_console.print(f"  [red]failed[/] {escape(line)}", highlight=False)
    complete = scoring is None or scoring.complete
    written = None
    if report:
        written = _write_report(
            prepared.store, prices_file=overrides["prices_file"], tables=fmt == "text"
        )
        complete = written.complete and complete
    if fmt == "json":
        from adhere.cli._json_docs import run_json

        print_json(run_json(prepared.store.uri, summary, written, complete))
    if summary.faults:
        err_console.print(
            f"[yellow]{summary.faults} trial(s) ended as upstream faults[/]: the model service "
            "failed them (after their retries); they are not scored and are counted apart. "
            "Run the same command again to retry them.",
            highlight=False,
        )
    if summary.failed:
        err_console.print(
            f"[yellow]{summary.failed} trial(s) failed[/]; they are recorded as errors. Run the "
            "same command again to retry them (finished trials are skipped).",
            highlight=False,
        )
    _print_stopped(summary)
    if summary.failed or summary.faults:
        raise SystemExit(1)
    exit_if_incomplete(complete, allow_incomplete, "checks were left undecided or errored")


def _print_sandbox(prepared: Any) -> None:
    """The agent sandbox line of the run header: a loud warning when it is off.

    Raises:
        SandboxUnavailable: It is on and cannot be made here (the run stops at start).
    """
    from adhere.runner import check_sandbox, unconfined

    loose = unconfined(prepared)
    if loose:
        err_console.print(
            "[bold red]WARNING: sandbox: off[/] — the agent CLIs "
            f"({escape(', '.join(loose))}) run unconfined: as this user, able to read and "
            "write whatever it can and to reach any network address. Use it only on a host "
            "that cannot make namespaces, with models you trust.",
            highlight=False,
            soft_wrap=True,
        )
    elif check_sandbox(prepared):
        from adhere.scaffolds import runs_in_sandbox

        if any(runs_in_sandbox(s) for s in prepared.scaffolds.values()):
            err_console.print(
                "  agent sandbox: bubblewrap (workspace and HOME writable, network only to "
                "the recording proxy)",
                highlight=False,
            )


@main.command()
@click.argument("run_ref", metavar="RUN")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of the corrected run (default: RUN-feedback beside RUN, in RUN's "
    "store when that is s3://).",
)
@click.option(
    "--append-turn",
    is_flag=True,
    help="Send the feedback as one more user turn instead of appending it to the first query.",
)
@click.option(
    "--control",
    is_flag=True,
    help="Re-run the same trials without feedback (chance alone; default out RUN-rerun).",
)
@click.option(
    "--scaffold",
    metavar="NAME",
    help="Re-run and report only this scaffold's trials (the paper's Table 5: claude-code).",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def feedback(
    run_ref: str,
    out: Path | None,
    append_turn: bool,
    control: bool,
    scaffold: str | None,
    quiet: bool,
) -> None:
    """Feed each trial's failed checks back to the agent, run it again, report ΔISR / ΔCSR.

    RUN is a rollout's artifact directory, its rollout YAML, or a store URI ending in
    the rollout (s3://bucket/runs/quickstart). Trials with no failed check (and, with
    --scaffold, other scaffolds' trials) are carried over unchanged. The report opens
    with the paper's Table 5: the partial-failure instances of RUN. Resumable: run
    the same command again to continue.
    """
    from adhere.judging import Placement
    from adhere.report import RichProgress, open_run
    from adhere.workflows import (
        feedback_report,
        plan_feedback,
        rich_tables,
        run_feedback,
        write_markdown,
    )

    if control and append_turn:
        raise click.UsageError("--control and --append-turn exclude each other")
    placement: Placement = "none" if control else "new-turn" if append_turn else "append"
    plan = plan_feedback(open_run(run_ref), out=out, placement=placement, scaffold=scaffold)
    err_console.print(
        f"feedback on [bold]{plan.source.rollout}[/]: {len(plan.corrected)} trials with failed "
        f"checks run again, {len(plan.carried)} carried over → {plan.target.uri}",
        highlight=False,
    )
    from adhere.runner import Interrupted, run_interruptible

    try:
        if quiet:
            summary = run_interruptible(run_feedback(plan))
        else:
            with RichProgress(err_console, "corrected trials") as progress:
                summary = run_interruptible(run_feedback(plan, progress=progress))
    except (KeyboardInterrupt, Interrupted) as stop:
        err_console.print("[yellow]interrupted[/]: run the same command again to resume.")
        raise SystemExit(stop.exit_status if isinstance(stop, Interrupted) else 130) from None
    run = summary.run
    err_console.print(
        f"done in {run.seconds:.1f}s: {run.ran} ran ({run.ok} ok, {run.failed} failed), "
        f"{run.skipped} already done; scored {summary.scoring.trials} "
        f"({summary.scoring.judge_calls} judge calls)",
        highlight=False,
    )
    for line in [*run.errors[:5], *summary.stale[:5]]:
        err_console.print(f"  [red]problem[/] {escape(line)}", highlight=False)
    if summary.stale:
        err_console.print(
            f"[yellow]{len(summary.stale)} stale trial(s)[/]: RUN's verdicts changed since they "
            "ran; delete the corrected run to start over.",
            highlight=False,
        )
    result = feedback_report(plan.source, plan.target, scaffold=scaffold)
    for table in rich_tables(result):
        out_console.print(table)
    for note in result.notes:
        out_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    err_console.print(f"report written to {write_markdown(result, plan.target)}", highlight=False)
    if run.failed or run.faults:
        raise SystemExit(1)
