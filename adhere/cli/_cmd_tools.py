"""Tool commands: ``trajectory show``, ``validate``, ``plan`` and ``crds``.

The servers (``proxy``, ``serve-policy``, ``serve-model``) are :mod:`._cmd_serve`.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from adhere.cli._app import (
    format_option,
    main,
    out_console,
    print_json,
)


@main.group()
def trajectory() -> None:
    """Look at normalized trajectories."""


@trajectory.command("show")
@click.argument("run_ref", metavar="RUN")
@click.argument("trial_ref", metavar="TRIAL")
@click.option("--raw", is_flag=True, help="Print the stored JSON instead of the readable view.")
def trajectory_show(run_ref: str, trial_ref: str, raw: bool) -> None:
    """Show one trial's trajectory with its instruction-source tags.

    RUN is a rollout's artifact directory (e.g. runs/octobench-sample), its rollout
    YAML, or a store URI ending in the rollout (s3://bucket/runs/octobench-sample);
    TRIAL is a trial id, a unique prefix of one, or model/scaffold/instance[/rN].
    """
    from adhere.artifacts import find_trial
    from adhere.errors import SpecError
    from adhere.observe import render_trajectory
    from adhere.report import open_run

    store = open_run(run_ref)
    trial = find_trial(store, trial_ref)
    found = store.read_trajectory(trial)
    if found is None:
        raise SpecError(f"trial {trial.id} has no stored trajectory")
    if raw:
        out_console.print_json(found.model_dump_json())
        return
    out_console.print(
        f"trial {trial.id}: model {trial.model}, scaffold {trial.scaffold}, "
        f"instance {trial.instance}, repeat {trial.repeat}",
        highlight=False,
    )
    # Prose in boxes: off a terminal a readable 100 columns, not the tables' wide console.
    console = out_console if out_console.is_terminal else Console(width=100)
    for renderable in render_trajectory(found):
        console.print(renderable)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--no-secrets",
    is_flag=True,
    help="Do not check that the API keys a run reads are there (e.g. for a spec meant "
    "for a cluster, whose operator checks its Secrets).",
)
@click.option(
    "--cluster",
    is_flag=True,
    help="Check for a cluster run: instances whose workspace is only a container image "
    "are accepted, and API keys are not checked (the operator checks its Secrets).",
)
@format_option
def validate(files: tuple[str, ...], no_secrets: bool, cluster: bool, fmt: str) -> None:
    """Check spec, bindings and data files as `adhere run` would, and say what they hold.

    Every check a run makes before its first trial: suite options, generator
    parameters and datasets (the instances are loaded), bindings, filters, scaffold
    names, versions and options, the trial plan (`adhere plan` shows it), that every
    planned instance has a workspace a local run can copy, store URI, model providers
    and API shapes, and that each API key a run reads is there (named, never shown).
    For a Rollout, also says which API shape each scaffold × model pair speaks and
    whether the proxy translates. Exit status 2 at the first problem, with the file
    and the field or line. ``--format json``: what each file holds as one JSON
    document (docs/results.md); on a problem, nothing on stdout.
    """
    from adhere.runner import validate_files

    checked = validate_files(files, secrets=not (no_secrets or cluster), local=not cluster)
    if fmt == "json":
        from adhere.cli._json_docs import validate_json

        print_json(validate_json(checked))
        return
    for done in checked:
        for line in done.lines:
            out_console.print(line, highlight=False, soft_wrap=True, markup=False)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--rollout", "rollout_name", help="Which Rollout, when the files hold several.")
@click.option(
    "--cluster",
    is_flag=True,
    help="Plan for a cluster run: instances whose workspace is only a container image "
    "are not refused.",
)
@click.option(
    "--prices",
    "prices_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Price table (YAML, USD per million tokens; see docs/prices.md) for the cost estimate.",
)
@format_option
def plan(
    files: tuple[str, ...],
    rollout_name: str | None,
    cluster: bool,
    prices_file: str | None,
    fmt: str,
) -> None:
    """Print a Rollout's trial plan without running it.

    Trials per model × scaffold × version; where a scaffold runs another version than
    the one its instances name, and why; the instances no scaffold runs, and why;
    estimated tokens and cost per model (prices from ``--prices``; see docs/prices.md).
    The specs are checked as `adhere validate --no-secrets` does. Exit status 0; 2
    for invalid input, or (without --cluster) when a local run would refuse the
    plan: planned instances whose workspace is only a container image.
    ``--format json``: the plan and estimates as one JSON document (docs/results.md).
    """
    from adhere.errors import SpecError
    from adhere.runner import (
        check_run,
        describe_estimates,
        describe_plan,
        estimate_plan,
        image_only_problem,
        load_prices,
    )
    from adhere.spec import load_run_config

    config = load_run_config(files, rollout_name=rollout_name)
    prices = load_prices(prices_file) if prices_file else {}
    checked = check_run(config, secrets=False, local=False)
    estimates = estimate_plan(config.rollout, checked.trials, checked.instances, prices)
    if fmt == "json":
        from adhere.cli._json_docs import plan_json

        print_json(plan_json(config.rollout, checked.plan, estimates))
    else:
        lines = [*describe_plan(config.rollout, checked.plan), "", *describe_estimates(estimates)]
        for line in lines:
            out_console.print(line, highlight=False, soft_wrap=True, markup=False)
    problem = None if cluster else image_only_problem(checked.instances, checked.plan)
    if problem is not None:
        bench = config.files.get(f"Benchmark/{config.benchmark.metadata.name}") or None
        raise SpecError(f"a local run refuses this plan: {problem}", file=bench, field="workspace")


@main.command()
@click.option(
    "--out",
    "outs",
    multiple=True,
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory to write the CRD YAML into (repeatable), e.g. crds/ and charts/adhere/crds/.",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file is stale or missing.")
def crds(outs: tuple[Path, ...], check: bool) -> None:
    """Generate the Benchmark, Rollout and JudgePanel CRDs from the spec models."""
    from adhere.spec import render_crds

    stale = []
    for out in outs:
        for filename, text in render_crds().items():
            path = out / filename
            current = path.read_text(encoding="utf-8") if path.is_file() else None
            if current == text:
                continue
            if check:
                stale.append(str(path))
                continue
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            click.echo(f"wrote {path}")
    if stale:
        click.echo("stale or missing (run `adhere crds --out DIR`): " + ", ".join(stale), err=True)
        raise SystemExit(1)
