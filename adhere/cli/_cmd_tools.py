"""Tool commands: ``proxy``, ``trajectory show``, ``validate``, ``crds`` and two servers.

``serve-policy`` runs the scripted test double; ``serve-model`` a real, tiny local model.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click
from rich.console import Console

from adhere.cli._app import (
    err_console,
    format_option,
    main,
    out_console,
    print_json,
)


@main.command("proxy")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8766, show_default=True, type=int)
@click.option(
    "--upstream",
    "upstreams",
    multiple=True,
    required=True,
    metavar="NAME=URL[,OPTION=VALUE…]",
    help="An upstream API root. Options: key-env=VAR (its key is read from the env var "
    "VAR, never given inline); api=SHAPE (anthropic, openai-chat, openai-responses, gemini: "
    "calls in other shapes are translated); model=M (asked upstream on translated calls); "
    "timeout=SECONDS; max-output-tokens=N, temperature=T, reasoning-effort=E, "
    "thinking-budget=N (imposed on every call).",
)
@click.option(
    "--log-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Records go to LOG_DIR/<trial-id>/calls.jsonl.",
)
@click.option("--secret-env", multiple=True, help="Env var whose value is redacted everywhere.")
@click.option(
    "--connect-timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds to connect to an upstream.  [default: 30]",
)
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds an upstream may stay silent (before its first bytes, between chunks).  "
    "[default: 900]",
)
@click.option(
    "--total-timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds one whole call may take.  [default: 10800]",
)
def proxy(
    host: str,
    port: int,
    upstreams: tuple[str, ...],
    log_dir: Path,
    secret_env: tuple[str, ...],
    connect_timeout: float | None,
    idle_timeout: float | None,
    total_timeout: float | None,
) -> None:
    """Run the recording proxy: forwards /t/<trial>/<upstream>/<api-path> and records every call.

    POST /trials/<trial>/settle?grace=S waits until the trial has no call in flight and
    answers how many calls it started (see docs/proxy.md).
    """
    from adhere.errors import SecretError, SpecError
    from adhere.observe import JsonlDirSink, ProxyConfig, Upstream, parse_upstream, serve_proxy

    parsed: dict[str, Upstream] = {}
    secrets: list[str] = []
    for item in upstreams:
        try:
            upstream, key_env = parse_upstream(item)
            upstream = dataclasses.replace(
                upstream,
                connect_timeout_seconds=connect_timeout or upstream.connect_timeout_seconds,
                idle_timeout_seconds=idle_timeout or upstream.idle_timeout_seconds,
                timeout_seconds=total_timeout or upstream.timeout_seconds,
            )
        except ValueError as exc:
            raise SpecError(str(exc), field="--upstream") from None
        if key_env is not None:
            key = os.environ.get(key_env)
            if not key:
                raise SecretError(f"environment variable {key_env} is not set or empty")
            secrets.append(key)
            upstream = dataclasses.replace(upstream, api_key=key)
        parsed[upstream.name] = upstream
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
    from adhere.testing import serve

    serve(
        host=host,
        port=port,
        bench_files=list(bench_files),
        replay_dirs=list(replay_dirs),
        scripts=list(scripts),
        require_key_env=require_key_env,
        console=err_console,
    )


@main.command("serve-model")
@click.option("--port", default=8767, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--slots",
    type=click.IntRange(min=1),
    help="Requests served at once  [default: $ADHERE_MODEL_SERVER_SLOTS or 4]",
)
@click.option(
    "--ctx",
    type=click.IntRange(min=512),
    help="Total context in tokens, shared by the slots  "
    "[default: $ADHERE_MODEL_SERVER_CTX or 32768]",
)
@click.option(
    "--stop-after",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Stop by itself after this many seconds (default: run until Ctrl-C or SIGTERM).",
)
def serve_model(port: int, slots: int | None, ctx: int | None, stop_after: float | None) -> None:
    """Serve the real local model (what `baseUrl: local-model` starts) on 127.0.0.1.

    llama.cpp's server with SmolLM2-135M-Instruct, built once by `bash
    scripts/install-model-server.sh`. It speaks Anthropic Messages (URL/v1/messages)
    and OpenAI Chat Completions and Responses (URL/v1); it needs no key. The base URL
    is printed on stdout. A real, tiny, weak model: for exercising the pipeline with
    real unscripted output, never for scores (docs/real-model.md). --port 0 picks a
    free port.
    """
    import asyncio
    import signal

    from adhere.models import ModelServer, ModelServerSettings

    settings = ModelServerSettings.from_env(slots=slots, ctx=ctx, port=port)

    async def serve() -> None:
        done = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, done.set)
        server = ModelServer(settings)
        try:
            url = await server.start()
            click.echo(url)
            err_console.print(
                f"local model server (llama-server, SmolLM2-135M-Instruct; pid {server.pid}, "
                f"{settings.slots} slots, context {settings.ctx}) on {url} — Anthropic: "
                f"{url}/v1/messages, OpenAI: {url}/v1; "
                + (f"stops after {stop_after:g} s" if stop_after else "Ctrl-C stops it"),
                highlight=False,
            )
            try:
                await asyncio.wait_for(done.wait(), stop_after)
            except TimeoutError:
                pass
        finally:
            await server.aclose()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    err_console.print("local model server stopped", highlight=False)
