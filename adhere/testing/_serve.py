"""``adhere serve-policy``: run the scripted policy server (a test double) in the foreground."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from rich.console import Console

from adhere.errors import SecretError
from adhere.spec import Benchmark, load_resources
from adhere.suites import get_suite
from adhere.testing._answer_key import InstanceAnswerKey
from adhere.testing._app import PolicyServerConfig
from adhere.testing._replay import RecordedRun, RecordedRuns
from adhere.testing._scripts import load_scripts
from adhere.testing._server import PolicyServer


def build_config(
    *,
    bench_files: list[str],
    replay_dirs: list[str],
    scripts: list[Path],
    require_key_env: str | None,
) -> PolicyServerConfig:
    """Server configuration from CLI arguments."""
    instances = []
    for name in bench_files:
        for resource in load_resources(name):
            if isinstance(resource, Benchmark):
                suite = get_suite(resource.spec.suite, **resource.spec.options)
                instances += suite.load(
                    resource.spec, base_dir=Path(name).resolve().parent, file=name
                )
    key = None
    if require_key_env:
        key = os.environ.get(require_key_env)
        if not key:
            raise SecretError(f"environment variable {require_key_env} is not set or empty")
    return PolicyServerConfig(
        answer_key=InstanceAnswerKey(instances, get_suite) if instances else None,
        replay=RecordedRuns({d: RecordedRun(d) for d in replay_dirs}) if replay_dirs else None,
        scripts=load_scripts(scripts),
        require_api_key=key,
    )


def serve(
    *,
    host: str,
    port: int,
    bench_files: list[str],
    replay_dirs: list[str],
    scripts: list[Path],
    require_key_env: str | None,
    console: Console,
) -> None:
    """Serve until interrupted."""
    config = build_config(
        bench_files=bench_files,
        replay_dirs=replay_dirs,
        scripts=scripts,
        require_key_env=require_key_env,
    )

    async def main() -> None:
        server = PolicyServer(config, host=host, port=port)
        url = await server.start()
        console.print(
            f"scripted policy server (a test double, not a model) on {url} — "
            f"OpenAI: {url}/v1/chat/completions, Anthropic: {url}/v1/messages; Ctrl-C stops it",
            highlight=False,
        )
        try:
            await asyncio.Event().wait()
        finally:
            await server.stop()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        console.print("stopped")
