"""The ``adhere`` command line."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from adhere import __version__
from adhere.errors import AdhereError

err_console = Console(stderr=True)
out_console = Console()


def _fail(exc: AdhereError) -> None:
    err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
    raise SystemExit(2)


class _Group(click.Group):
    """Turns project errors into one clear line and exit status 2."""

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
    from adhere.runner._scoring import score_rollout

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


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--rollout", "rollout_name", help="Which Rollout, when the files hold several.")
@click.option("--report/--no-report", default=True, help="Print and write the report at the end.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@_ray_options
def run(
    files: tuple[str, ...],
    rollout_name: str | None,
    report: bool,
    quiet: bool,
    ray_address: str | None,
    verify_actors: int,
    judge_actors: int,
) -> None:
    """Run a Rollout locally (resumable: finished trials are skipped).

    Trials are scored in process, or on Ray actor pools with ``--ray``.

    Exit status: 0 when every trial finished, 1 when some failed (they are recorded
    and retried by the next run), 2 for invalid input, 130 when interrupted.
    """
    from adhere.runner import execute, load_run_config, prepare
    from adhere.runner._console import RichProgress

    config = load_run_config(files, rollout_name=rollout_name)
    prepared = prepare(config)
    err_console.print(
        f"rollout [bold]{config.rollout.metadata.name}[/]: {len(prepared.instances)} instances × "
        f"{len(config.rollout.spec.models)} models × {len(config.rollout.spec.scaffolds)} "
        f"scaffolds × {config.rollout.spec.repeats} repeats = {len(prepared.trials)} trials "
        f"→ {prepared.store.uri}",
        highlight=False,
    )
    scorer = _scorer(ray_address, verify_actors, judge_actors)
    try:
        if quiet:
            summary = asyncio.run(execute(prepared, scorer=scorer))
        else:
            with RichProgress(err_console) as progress:
                summary = asyncio.run(execute(prepared, progress=progress, scorer=scorer))
    except KeyboardInterrupt:
        err_console.print(
            "[yellow]interrupted[/]: finished trials are saved; run the same command again "
            "to resume."
        )
        raise SystemExit(130) from None
    err_console.print(
        f"done in {summary.seconds:.1f}s: {summary.ran} ran ({summary.ok} ok, "
        f"{summary.failed} failed), {summary.skipped} already done, {summary.planned} planned",
        highlight=False,
    )
    scoring = summary.scoring
    if scoring is not None and (scoring.verifier_verdicts or scoring.judged_checks):
        err_console.print(
            f"scored: {scoring.verifier_verdicts} checks by verifiers, {scoring.judged_checks} "
            f"by the judge panel ({scoring.judge_calls} judge calls), "
            f"{scoring.undecided_checks} undecided, {scoring.errors} errors",
            highlight=False,
        )
        _print_limiters(scoring)
    for line in summary.errors[:5]:
        err_console.print(f"  [red]failed[/] {line}", highlight=False)
    if report:
        _write_report(prepared.store)
    if summary.failed:
        err_console.print(
            f"[yellow]{summary.failed} trial(s) failed[/]; they are recorded as errors. Run the "
            "same command again to retry them (finished trials are skipped).",
            highlight=False,
        )
        raise SystemExit(1)


def _write_report(store: object, out: Path | None = None, human_labels: str | None = None) -> None:
    from adhere.metrics import render_html, render_markdown
    from adhere.runner._console import (
        breakdown_tables,
        panel_tables,
        paper_console_tables,
        report_table,
    )
    from adhere.runner._results import report_for
    from adhere.store import RolloutStore

    assert isinstance(store, RolloutStore)
    result = report_for(store, human_labels=human_labels)
    tables = [*breakdown_tables(result), *panel_tables(result), *paper_console_tables(result)]
    for table in tables:
        out_console.print(table)
    out_console.print(report_table(result))
    for note in result.notes:
        out_console.print(f"[yellow]note:[/] {note}", highlight=False)
    files = {"report.md": render_markdown(result), "report.html": render_html(result)}
    if result.plot_svg:
        files["plot.svg"] = result.plot_svg
    files.update((name, svg) for name, (_title, svg) in result.plots.items())
    if out is None:
        local = store.store.local_path(store.key("report", "report.md"))
        if local is None:  # an object store (s3://): the report goes beside the results
            for name, text in files.items():
                store.store.write_bytes(store.key("report", name), text.encode("utf-8"))
            where = f"{store.uri}/report/report.md"
            err_console.print(f"report written to {where} and report.html", highlight=False)
            return
        out = local.parent
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    err_console.print(f"report written to {out}/report.md and report.html", highlight=False)


@main.command()
@click.argument("run_ref", metavar="RUN", type=click.Path(exists=True))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Output directory.")
@click.option(
    "--human-labels",
    type=click.Path(exists=True, dir_okay=False),
    help="JSONL of human pass/fail/n/a labels; adds agreement of each judge with them.",
)
def report(run_ref: str, out: Path | None, human_labels: str | None) -> None:
    """Print and write the report of a run.

    RUN is a rollout's artifact directory (e.g. runs/quickstart) or its rollout YAML.
    """
    from adhere.runner import load_run_config
    from adhere.runner._results import open_rollout_dir
    from adhere.store import RolloutStore, open_store

    path = Path(run_ref)
    if path.is_file():
        config = load_run_config([path])
        store = RolloutStore(
            open_store(config.rollout.spec.storage, base_dir=config.base_dir),
            config.rollout.metadata.name,
        )
    else:
        store = open_rollout_dir(path)
    _write_report(store, out, human_labels)


@main.command("proxy")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8766, show_default=True, type=int)
@click.option(
    "--upstream",
    "upstreams",
    multiple=True,
    required=True,
    metavar="NAME=URL[,key-env=VAR]",
    help="An upstream API root; its key is read from the env var VAR (never given inline).",
)
@click.option(
    "--log-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Records go to LOG_DIR/<trial-id>/calls.jsonl.",
)
@click.option("--secret-env", multiple=True, help="Env var whose value is redacted everywhere.")
def proxy(
    host: str, port: int, upstreams: tuple[str, ...], log_dir: Path, secret_env: tuple[str, ...]
) -> None:
    """Run the recording proxy: forwards /t/<trial>/<upstream>/<api-path> and records every call."""
    from adhere.errors import SecretError, SpecError
    from adhere.observe import JsonlDirSink, ProxyConfig, Upstream, serve_proxy

    parsed: dict[str, Upstream] = {}
    secrets: list[str] = []
    for item in upstreams:
        head, _, tail = item.partition(",")
        name, _, url = head.partition("=")
        key = None
        if tail:
            option, _, var = tail.partition("=")
            if option != "key-env" or not var:
                raise SpecError(
                    f"expected NAME=URL[,key-env=VAR], got {item!r}", field="--upstream"
                )
            key = os.environ.get(var)
            if not key:
                raise SecretError(f"environment variable {var} is not set or empty")
            secrets.append(key)
        try:
            parsed[name] = Upstream(name=name, base_url=url, api_key=key)
        except ValueError as exc:
            raise SpecError(str(exc), field="--upstream") from None
    for var in secret_env:
        value = os.environ.get(var)
        if value:
            secrets.append(value)
    config = ProxyConfig(
        upstreams=parsed, sink=JsonlDirSink(log_dir), secrets=secrets, host=host, port=port
    )
    serve_proxy(
        config,
        on_ready=lambda url: err_console.print(
            f"recording proxy on {url}: send calls to {url}/t/<trial-id>/<upstream>/…; "
            f"records in {log_dir}/<trial-id>/calls.jsonl",
            highlight=False,
        ),
    )


@main.group()
def trajectory() -> None:
    """Look at normalized trajectories."""


@trajectory.command("show")
@click.argument("run_ref", metavar="RUN", type=click.Path(exists=True, file_okay=False))
@click.argument("trial_ref", metavar="TRIAL")
@click.option("--raw", is_flag=True, help="Print the stored JSON instead of the readable view.")
def trajectory_show(run_ref: str, trial_ref: str, raw: bool) -> None:
    """Show one trial's trajectory with its instruction-source tags.

    RUN is a rollout's artifact directory (e.g. runs/octobench-sample); TRIAL is a
    trial id, a unique prefix of one, or model/scaffold/instance[/rN].
    """
    from adhere.errors import SpecError
    from adhere.observe import render_trajectory
    from adhere.runner._results import find_trial, open_rollout_dir

    store = open_rollout_dir(run_ref)
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
    for renderable in render_trajectory(found):
        out_console.print(renderable)


@main.command()
@click.argument("run_ref", metavar="RUN", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--panel",
    "panel_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Score with this JudgePanel instead of the one the rollout ran with.",
)
@click.option("--report/--no-report", default=True, help="Print and write the report after.")
@_ray_options
def score(
    run_ref: str,
    panel_file: str | None,
    report: bool,
    ray_address: str | None,
    verify_actors: int,
    judge_actors: int,
) -> None:
    """Decide the checks of a stored rollout again (RUN: its artifact directory).

    Suite checks and bound verifiers are re-run; judge verdicts come from the
    verdict cache when nothing changed, so an unchanged rollout costs no judge call.
    With ``--ray`` verification and judging run on Ray actor pools (same verdicts).
    """
    from adhere.runner._rescore import rescore
    from adhere.runner._results import open_rollout_dir

    scorer = _scorer(ray_address, verify_actors, judge_actors)
    summary = asyncio.run(rescore(run_ref, panel_file=panel_file, scorer=scorer))
    err_console.print(
        f"scored {summary.trials} trials in {summary.seconds:.1f}s: "
        f"{summary.suite_verdicts} suite verdicts, {summary.verifier_verdicts} by verifiers, "
        f"{summary.judged_checks} judged ({summary.judge_calls} judge calls), "
        f"{summary.undecided_checks} undecided, {summary.errors} errors",
        highlight=False,
    )
    _print_limiters(summary)
    if report:
        _write_report(open_rollout_dir(run_ref))


@main.command()
@click.argument("run_ref", metavar="RUN", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of the corrected run (default: RUN-feedback beside RUN).",
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
@click.option("--quiet", is_flag=True, help="No progress bar.")
def feedback(run_ref: str, out: Path | None, append_turn: bool, control: bool, quiet: bool) -> None:
    """Feed each trial's failed checks back to the agent, run it again, report ΔISR / ΔCSR.

    RUN is a rollout's artifact directory. Trials with no failed check are carried
    over unchanged. Resumable: run the same command again to continue.
    """
    from adhere.judging._feedback import Placement
    from adhere.runner._console import RichProgress
    from adhere.runner._feedback import plan_feedback
    from adhere.runner._feedback_report import feedback_report, rich_tables, write_markdown
    from adhere.runner._feedback_run import run_feedback

    if control and append_turn:
        raise click.UsageError("--control and --append-turn exclude each other")
    placement: Placement = "none" if control else "new-turn" if append_turn else "append"
    plan = plan_feedback(run_ref, out=out, placement=placement)
    err_console.print(
        f"feedback on [bold]{plan.source.rollout}[/]: {len(plan.corrected)} trials with failed "
        f"checks run again, {len(plan.carried)} carried over → {plan.target.uri}",
        highlight=False,
    )
    try:
        if quiet:
            summary = asyncio.run(run_feedback(plan))
        else:
            with RichProgress(err_console, "corrected trials") as progress:
                summary = asyncio.run(run_feedback(plan, progress=progress))
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/]: run the same command again to resume.")
        raise SystemExit(130) from None
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
    result = feedback_report(plan.source, plan.target)
    for table in rich_tables(result):
        out_console.print(table)
    for note in result.notes:
        out_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    err_console.print(f"report written to {write_markdown(result, plan.target)}", highlight=False)
    if run.failed:
        raise SystemExit(1)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def validate(files: tuple[str, ...]) -> None:
    """Check spec files and say what they hold."""
    from adhere.spec import load_resources

    for name in files:
        for resource in load_resources(name):
            out_console.print(
                f"{name}: {resource.kind} {resource.metadata.name} ok", highlight=False
            )


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


@main.group()
def generate() -> None:
    """Generate benchmark data."""


def _int_list(_ctx: click.Context, _param: click.Parameter, value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None


@generate.command("pacific")
@click.option(
    "--instructions", default="3", callback=_int_list, help="Steps per sample (e.g. 3,5,8)."
)
@click.option("--length", default="5", callback=_int_list, help="Target output length(s).")
@click.option("--per-language", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--mode", type=click.Choice(["prompt", "chat"]), default="prompt", show_default=True)
@click.option("--kind", type=click.Choice(["code", "nl"]), default="code", show_default=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_pacific(
    instructions: list[int],
    length: list[int],
    per_language: int,
    seed: int,
    mode: str,
    kind: str,
    out: Path,
) -> None:
    """Write PACIFIC samples (one JSON object a line), reproducible by seed."""
    from adhere.suites.pacific import GeneratorParams
    from adhere.suites.pacific import generate as gen

    params = GeneratorParams(
        instructions=tuple(instructions),
        lengths=tuple(length),
        per_language=per_language,
        seed=seed,
        mode=mode,  # type: ignore[arg-type]
        kind=kind,  # type: ignore[arg-type]
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    tmp = out.with_name(f".{out.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for sample in gen(params):
            handle.write(sample.model_dump_json() + "\n")
            count += 1
    os.replace(tmp, out)
    err_console.print(f"wrote {count} samples to {out}", highlight=False)


@generate.command("guidebench-coupons")
@click.option("--n", "count", default=20, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_guidebench_coupons(count: int, seed: int, out: Path) -> None:
    """Write fresh GuideBench coupon-math tasks (a JSON list), answers solved exactly."""
    import json

    from adhere.suites.guidebench import CouponParams, generate_coupon_tasks

    tasks = generate_coupon_tasks(CouponParams(n=count, seed=seed))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(tasks, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    err_console.print(f"wrote {len(tasks)} coupon tasks to {out}", highlight=False)


@generate.command("vericode")
@click.option(
    "--tasks",
    "tasks_from",
    default="builtin",
    show_default=True,
    help="Task file (native YAML/JSONL, BigCodeBench- or LiveCodeBench-style JSONL), or "
    "'builtin' for the tasks written by this project.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "native", "bigcodebench", "livecodebench"]),
    default="auto",
    show_default=True,
)
@click.option(
    "--selector",
    default="deterministic",
    show_default=True,
    metavar="deterministic|ENDPOINT_OR_MODEL",
    help="'deterministic' (seeded, rule-based), an endpoint YAML file, or a scripted model "
    "string (e.g. vericode-selector:seed=1; starts the scripted policy server, a test double).",
)
@click.option("--k", default=5, show_default=True, type=click.IntRange(1, 30))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N tasks.")
@click.option("--parallelism", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_vericode(
    tasks_from: str,
    fmt: str,
    selector: str,
    k: int,
    seed: int,
    limit: int | None,
    parallelism: int,
    out: Path,
) -> None:
    """Choose each task's VeriCode instructions and write a selections file (JSONL).

    The file is a VeriCode Benchmark's source (``path:``). A model selector sees the
    task and a seeded permutation of the 30 instructions; its picks are kept when
    relevant and not conflicting, parameters validated by rule.
    """
    from adhere.runner._vericode import select_instructions, write_selections
    from adhere.suites.vericode import builtin_tasks, load_tasks

    tasks = builtin_tasks() if tasks_from == "builtin" else load_tasks(tasks_from, fmt)  # type: ignore[arg-type]
    tasks = tasks[:limit] if limit else tasks
    selections = asyncio.run(
        select_instructions(tasks, selector=selector, k=k, seed=seed, parallelism=parallelism)
    )
    write_selections(selections, out)
    noted = sum(1 for s in selections if s.notes)
    err_console.print(
        f"wrote {len(selections)} selections ({selector}, k={k}, seed={seed}) to {out}"
        + (f"; {noted} with notes (parameters reset or dropped, picks filled)" if noted else ""),
        highlight=False,
    )


@generate.command("manyih")
@click.option(
    "--problems",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Problem set for new samples: a ManyIH coding file or MBPP-style JSON/JSONL.",
)
@click.option(
    "--variant-of",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead: write tier variants (--tiers) and/or perturbations (--perturb) of a file.",
)
@click.option("--n", "count", type=click.IntRange(min=1), help="Problems to use (default: all).")
@click.option("--groups", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--instructions", default=12, show_default=True, type=click.IntRange(min=1))
@click.option(
    "--tiers",
    type=click.IntRange(min=1),
    help="Distinct privilege levels (default: one per instruction); with --variant-of, "
    "the tier variant to write (6, 8 …).",
)
@click.option("--conflicts", default="7-11", show_default=True, help="Conflicting pairs, LOW-HIGH.")
@click.option("--winners", default=6, show_default=True, type=click.IntRange(min=1))
@click.option("--perturb", default=0, type=click.IntRange(min=0), help="Scalar perturbations each.")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path))
def generate_manyih(
    problems: Path | None,
    variant_of: Path | None,
    count: int | None,
    groups: int,
    instructions: int,
    tiers: int | None,
    conflicts: str,
    winners: int,
    perturb: int,
    seed: int,
    out: Path,
) -> None:
    """Write ManyIH coding samples: new ones from a problem set, or variants of a file."""
    import json

    from adhere.suites.manyih import (
        GenerateParams,
        generate,
        load_coding,
        load_problems,
        variant_document,
    )

    if (problems is None) == (variant_of is None):
        raise click.UsageError("give exactly one of --problems and --variant-of")
    if variant_of is not None:
        document = variant_document(
            load_coding(variant_of), tiers=tiers, perturbations=perturb, seed=seed
        )
    else:
        low, _, high = conflicts.partition("-")
        if not (low.isdigit() and high.isdigit()):
            raise click.BadParameter(
                f"expected LOW-HIGH, got {conflicts!r}", param_hint="--conflicts"
            )
        params = GenerateParams(
            n=count,
            groups=groups,
            instructions=instructions,
            tiers=tiers,
            conflicts=(int(low), int(high)),
            winners=winners,
            seed=seed,
        )
        made = generate(load_problems(problems), params)  # type: ignore[arg-type]
        document = made.document(params)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    skipped = document["statistics"].get("skipped_problems", [])
    note = f" ({len(skipped)} problems skipped: no draw met the knobs)" if skipped else ""
    err_console.print(f"wrote {len(document['data'])} samples to {out}{note}", highlight=False)


@generate.command("checklist")
@click.argument(
    "run_dirs", metavar="RUN_DIR...", nargs=-1, required=True, type=click.Path(exists=True)
)
@click.option("--instance", "instances", multiple=True, help="Instance id (repeatable).")
@click.option("--all-instances", is_flag=True, help="Every instance of the runs.")
@click.option(
    "--model",
    required=True,
    metavar="ENDPOINT_OR_MODEL",
    help="Endpoint YAML file (as a judge's endpoint), or a scripted model string "
    "(e.g. checkgen:seed=1; starts the scripted policy server, a test double).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path),
    help="Checklist file; a directory when several instances are generated.",
)
@click.option("--max", "max_rollouts", type=click.IntRange(min=1), help="Rollouts per instance.")
@click.option(
    "--min-support",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Keep checks proposed in at least this many rollouts.",
)
@click.option(
    "--similarity",
    default=0.8,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True),
    help="Merge checks whose normalized word sets overlap at least this much (Jaccard).",
)
@click.option("--attempts", default=3, show_default=True, type=click.IntRange(min=1))
@click.option("--parallelism", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--force", is_flag=True, help="Overwrite existing checklist files.")
def generate_checklist(
    run_dirs: tuple[str, ...],
    instances: tuple[str, ...],
    all_instances: bool,
    model: str,
    out: Path,
    max_rollouts: int | None,
    min_support: int,
    similarity: float,
    attempts: int,
    parallelism: int,
    force: bool,
) -> None:
    """Write reviewable checklists from stored reference rollouts (OctoBench shape).

    For each instance, a model proposes atomic checks from each reference rollout's
    instructions (grouped by source) and turns; the lists are deduplicated and
    harmonized into one YAML checklist with support counts. Exit status 1 when some
    instance got no checklist.
    """
    from adhere.errors import SpecError
    from adhere.runner._checkgen import CheckgenSettings, InstanceOutcome, generate_checklists

    if all_instances == bool(instances):
        raise SpecError("give --instance ID (repeatable) or --all-instances", field="--instance")
    done = 0
    total = 0

    def progress(outcome: InstanceOutcome) -> None:
        nonlocal done
        done += 1
        head = f"[{done}/{total}] {outcome.instance}"
        if outcome.error is not None:
            err_console.print(f"{escape(head)}: [red]failed[/] {escape(outcome.error)}")
            return
        found = outcome.checklist
        assert found is not None
        counts = ", ".join(f"{k} {len(v)}" for k, v in found.by_category().items())
        err_console.print(
            escape(
                f"{head}: {outcome.rollouts} rollouts, {found.proposed} checks proposed → "
                f"{len(found.checks)} ({counts}) → {outcome.path}"
            ),
            highlight=False,
        )

    if instances:
        total = len(instances)
    else:
        from adhere.runner._results import open_rollout_dir

        total = len({i.id for d in run_dirs for i in open_rollout_dir(d).read_instances()})
    outcomes = asyncio.run(
        generate_checklists(
            run_dirs,
            model=model,
            out=out,
            instances=list(instances) if instances else None,
            settings=CheckgenSettings(
                max_rollouts=max_rollouts,
                threshold=similarity,
                min_support=min_support,
                max_attempts=attempts,
                parallelism=parallelism,
                force=force,
            ),
            on_instance=progress,
        )
    )
    failed = sum(1 for o in outcomes if o.error is not None)
    err_console.print(
        f"{len(outcomes) - failed} checklist(s) written, {failed} failed", highlight=False
    )
    if failed:
        raise SystemExit(1)


@main.group()
def analyze() -> None:
    """Analyses across rollouts."""


@analyze.command("vibe-correlation")
@click.argument("run_refs", metavar="[RUN]...", nargs=-1, type=click.Path(exists=True))
@click.option(
    "--elo",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Human-preference Elo per model: CSV (model,elo) or a YAML/JSON mapping.",
)
@click.option(
    "--scores",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="CSV model,if,func (shares or percentages) instead of VeriCode rollouts.",
)
@click.option("--protocol", type=click.Choice(["single", "multi"]), default="single")
@click.option(
    "--if-metric",
    type=click.Choice(["task", "instruction"]),
    default="task",
    show_default=True,
    help="IF_task or IF_instruction at the largest k.",
)
@click.option("--step", default=0.1, show_default=True, type=click.FloatRange(0, 1, min_open=True))
def analyze_vibe_correlation(
    run_refs: tuple[str, ...],
    elo: Path,
    scores: Path | None,
    protocol: str,
    if_metric: str,
    step: float,
) -> None:
    """Correlate α·IF + (1−α)·Func with an Elo table (Pearson, Spearman, best α).

    IF and Func (pass@1) come from VeriCode rollout directories (at the largest k of
    the protocol) or from --scores.
    """
    from rich.table import Table as RichTable

    from adhere.errors import SpecError
    from adhere.metrics._vibe import vibe_correlation
    from adhere.runner._results import collect, open_rollout_dir
    from adhere.runner._vericode import load_elo, load_scores
    from adhere.suites.vericode import model_scores

    if bool(run_refs) == (scores is not None):
        raise SpecError("give VeriCode rollout directories or --scores (not both)", field="RUN")
    found: dict[str, tuple[float, float]] = {}
    if scores is not None:
        found = load_scores(scores)
    for ref in run_refs:
        trials = collect(open_rollout_dir(ref)).trials
        found.update(model_scores(trials, protocol=protocol, if_metric=if_metric))
    result = vibe_correlation(found, load_elo(elo), step=step)
    out_console.print(f"models compared: {', '.join(result.models) or 'none'}", highlight=False)
    table = RichTable(title="α·IF + (1−α)·Func vs Elo")
    for column in ("α", "Pearson r", "Spearman ρ"):
        table.add_column(column, justify="right")
    for point in result.points:
        table.add_row(
            f"{point.alpha:.2f}",
            "–" if point.pearson is None else f"{point.pearson:.3f}",
            "–" if point.spearman is None else f"{point.spearman:.3f}",
        )
    out_console.print(table)
    for label, best, attribute in (
        ("Pearson", result.best_pearson, "pearson"),
        ("Spearman", result.best_spearman, "spearman"),
    ):
        if best is None:
            out_console.print(f"best α by {label}: undefined (fewer than 3 models or no variance)")
        else:
            out_console.print(
                f"best α by {label}: {best.alpha:.2f} ({getattr(best, attribute):.3f})",
                highlight=False,
            )
    if result.missing:
        err_console.print(
            f"left out (in only one input): {', '.join(result.missing)}", highlight=False
        )


def _rollout_pairs(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    pairs = {}
    for value in values:
        candidate, sep, baseline = value.partition("=")
        if not sep or not candidate or not baseline:
            raise click.BadParameter(f"{value!r}: expected CANDIDATE=BASELINE (rollout names)")
        pairs[candidate] = baseline
    return pairs


@main.command()
@click.argument("baseline_ref", metavar="RUN_A", type=click.Path(exists=True))
@click.argument("candidate_ref", metavar="RUN_B", type=click.Path(exists=True))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Markdown report.")
@click.option(
    "--threshold",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1),
    help="Smallest drop (a share) flagged as a regression.",
)
@click.option(
    "--alpha",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Flag only with a p-value below this.",
)
@click.option(
    "--samples",
    default=2000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Paired bootstrap draws.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Bootstrap seed.")
@click.option("--fail-on-regression", is_flag=True, help="Exit with status 1 when flagged.")
def compare(
    baseline_ref: str,
    candidate_ref: str,
    out: Path | None,
    threshold: float,
    alpha: float,
    samples: int,
    seed: int,
    fail_on_regression: bool,
) -> None:
    """Compare run RUN_B (candidate) with RUN_A (baseline): ΔISR / ΔCSR with p-values.

    Each RUN is a rollout's artifact directory or its rollout YAML. Trials are paired
    by model, scaffold, instance and repeat; see docs/observability.md.
    """
    from rich.table import Table as RichTable

    from adhere.metrics import RegressionSettings
    from adhere.runner._compare import (
        compare_stores,
        comparison_notes,
        comparison_table,
        open_run,
        render_comparison,
    )

    settings = RegressionSettings(threshold=threshold, alpha=alpha, samples=samples, seed=seed)
    result = compare_stores(open_run(baseline_ref), open_run(candidate_ref), settings)
    table = comparison_table(result)
    view = RichTable(title=table.title)
    for n, column in enumerate(table.header):
        view.add_column(column, justify="left" if n < 2 or n == len(table.header) - 1 else "right")
    for row in table.rows:
        view.add_row(*row, style="bold red" if row[-1] else None)
    out_console.print(view)
    for note in comparison_notes(result):
        out_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_comparison(result), encoding="utf-8")
        err_console.print(f"comparison written to {out}", highlight=False)
    if fail_on_regression and result.regressed:
        raise SystemExit(1)


@main.command()
@click.option("--store", "store_uri", required=True, help="Store URI or path (e.g. runs).")
@click.option("--port", default=9477, show_default=True, type=click.IntRange(0, 65535))
@click.option("--addr", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    callback=_rollout_pairs,
    metavar="CANDIDATE=BASELINE",
    help="Compare rollout CANDIDATE with BASELINE (overrides the Rollout's spec.baseline).",
)
@click.option("--rollout", "rollouts", multiple=True, help="Export only these rollouts.")
@click.option(
    "--settings",
    "settings_file",
    type=click.Path(exists=True, dir_okay=False),
    help="YAML of exporter settings (prices, bounds, TTL, regression test).",
)
@click.option("--ttl", type=click.FloatRange(min=0), help="Seconds a refresh is reused.")
@click.option("--threshold", type=click.FloatRange(0, 1), help="Regression drop to flag.")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Regression p-value to flag.",
)
@click.option("--stop-after", type=click.FloatRange(min=0), help="Stop after N seconds.")
def exporter(
    store_uri: str,
    port: int,
    addr: str,
    baselines: dict[str, str],
    rollouts: tuple[str, ...],
    settings_file: str | None,
    ttl: float | None,
    threshold: float | None,
    alpha: float | None,
    stop_after: float | None,
) -> None:
    """Serve Prometheus metrics of the rollouts in a store on /metrics.

    Compliance (ISR/CSR by model, scaffold, source, check type, judge), progress,
    tokens and cost, proxy and judge calls, and regressions against a baseline.
    """
    from adhere.exporter import load_settings, serve_store

    settings = load_settings(
        settings_file,
        ttl_seconds=ttl,
        regression_threshold=threshold,
        regression_alpha=alpha,
        rollouts=list(rollouts) or None,
    )
    if baselines:
        settings = settings.model_copy(update={"baselines": {**settings.baselines, **baselines}})
    serve_store(
        store_uri,
        settings,
        port=port,
        addr=addr,
        stop_after=stop_after,
        on_start=lambda server: err_console.print(
            f"serving {server.url} for {store_uri} (Ctrl-C stops)", highlight=False
        ),
    )


@main.command("serve-policy")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int)
@click.option(
    "--benchmark",
    "bench_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="YAML with a Benchmark whose instances the oracle/noisy policies answer.",
)
@click.option(
    "--replay",
    "replay_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Rollout artifact directory whose recorded replies the replay policy serves.",
)
@click.option(
    "--script",
    "scripts",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML script for the script:NAME policy (NAME = file stem).",
)
@click.option("--require-key-env", help="Require the API key held in this env var.")
def serve_policy(
    host: str,
    port: int,
    bench_files: tuple[str, ...],
    replay_dirs: tuple[str, ...],
    scripts: tuple[Path, ...],
    require_key_env: str | None,
) -> None:
    """Serve the scripted policy server: a TEST DOUBLE that stands in for real models.

    It speaks the OpenAI Chat Completions and Anthropic Messages APIs (streaming and
    not) and answers deterministically: the request's model names the policy —
    oracle, noisy:rate=R,seed=S, replay, script:NAME (see docs/policy-server.md).
    No real model is involved.
    """
    from adhere.runner._serve import serve

    serve(
        host=host,
        port=port,
        bench_files=list(bench_files),
        replay_dirs=list(replay_dirs),
        scripts=list(scripts),
        require_key_env=require_key_env,
        console=err_console,
    )


@main.group()
def trial() -> None:
    """One trial, or the scoring pass, of a rollout stored at a URI (the operator's pods)."""


@trial.command("run")
@click.option(
    "--rollout-uri",
    required=True,
    help="<store URI>/<rollout>, where the rollout's spec snapshot and instances are.",
)
@click.option("--trial", "trial_id", required=True, help="The trial's id.")
@click.option("--attempt", type=click.IntRange(min=1), help="Attempt number (default: next).")
@click.option(
    "--proxy-url",
    help="A recording proxy already running (the pod's sidecar); default: start one here.",
)
@click.option(
    "--calls-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where that proxy writes <trial>/calls.jsonl (with --proxy-url).",
)
def trial_run(
    rollout_uri: str,
    trial_id: str,
    attempt: int | None,
    proxy_url: str | None,
    calls_dir: Path | None,
) -> None:
    """Run exactly one trial and write its artifacts to the store (result last).

    A trial already finished ``ok`` is not run again; an earlier attempt's files move
    to ``attempt-<n>/``. Exit status: 0 when the trial finished ok, 1 when it ended in
    an error (recorded in the store), 2 for invalid input.
    """
    from adhere.runner._trial import run_stored_trial

    result = asyncio.run(
        run_stored_trial(
            rollout_uri, trial_id, attempt=attempt, proxy_url=proxy_url, calls_dir=calls_dir
        )
    )
    t = result.trial
    err_console.print(
        f"trial {result.trial_id} ({t.model}/{t.scaffold}/{t.instance}/r{t.repeat}) "
        f"attempt {result.attempt}: {result.status}"
        + (f" — {result.error}" if result.error else ""),
        highlight=False,
    )
    if result.status != "ok":
        raise SystemExit(1)


@trial.command("score")
@click.option("--rollout-uri", required=True, help="<store URI>/<rollout> to score.")
@_ray_options
def trial_score(
    rollout_uri: str, ray_address: str | None, verify_actors: int, judge_actors: int
) -> None:
    """Score the finished trials of a stored rollout (the operator's RayJob runs this)."""
    from adhere.runner._trial import open_rollout_uri, score_stored

    scorer = _scorer(ray_address, verify_actors, judge_actors)
    summary = asyncio.run(score_stored(open_rollout_uri(rollout_uri), scorer=scorer))
    err_console.print(
        f"scored {summary.trials} trials in {summary.seconds:.1f}s: "
        f"{summary.verifier_verdicts} by verifiers, {summary.judged_checks} judged, "
        f"{summary.undecided_checks} undecided, {summary.errors} errors",
        highlight=False,
    )


@main.command("operator")
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False),
    help="YAML of operator settings (docs/kubernetes.md lists them).",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Watch only this namespace (repeatable); default: cluster-wide.",
)
@click.option("--store", "store_uri", help="Default store URI (overrides storeUri).")
@click.option("--interval", type=click.FloatRange(min=0.05), help="Reconcile interval, seconds.")
@click.option("--liveness", help="Serve kopf's liveness probe, e.g. http://0.0.0.0:8080/healthz.")
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    help="Also serve /metrics (adhere.exporter) for the rollouts in the store, on this port.",
)
@click.option("--metrics-addr", default="0.0.0.0", show_default=True, help="Address of /metrics.")
@click.option(
    "--metrics-settings",
    type=click.Path(exists=True, dir_okay=False),
    help="Exporter settings YAML (TTL, label bounds, prices).",
)
def operator_command(
    config_file: str | None,
    namespaces: tuple[str, ...],
    store_uri: str | None,
    interval: float | None,
    liveness: str | None,
    metrics_port: int | None,
    metrics_addr: str,
    metrics_settings: str | None,
) -> None:
    """Run the Kubernetes operator (kopf): Benchmarks, JudgePanels and Rollouts.

    Each Rollout's trials run as Jobs (one per trial and attempt), retried up to
    spec.maxRetries, then scored (KubeRay RayJob, a Ray cluster, or in process).
    """
    from adhere.operator import load_operator_config
    from adhere.operator._main import run_operator

    config = load_operator_config(config_file, store_uri=store_uri, interval_seconds=interval)
    run_operator(
        config,
        namespaces=namespaces,
        liveness_endpoint=liveness,
        metrics_port=metrics_port,
        metrics_addr=metrics_addr,
        metrics_settings=metrics_settings,
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
