"""Server commands: ``proxy`` (the recording proxy) and two model servers.

``serve-policy`` runs the scripted test double; ``serve-model`` a real, tiny local model.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click

from adhere.cli._app import err_console, main


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
