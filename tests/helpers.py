import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shared_data(*parts: str) -> Path:
    """A file of the shared benchmark data (``shared/data`` beside the checkout or above).

    The main checkout sits beside ``shared/``; a git worktree may sit a level deeper.
    The first ancestor holding ``shared/data`` wins; without one, the path beside the
    checkout (which then does not exist).
    """
    for parent in ROOT.parents:
        if (parent / "shared" / "data").is_dir():
            return parent.joinpath("shared", "data", *parts)
    return ROOT.parent.joinpath("shared", "data", *parts)


def bench_yaml(
    *, instructions="[3, 5]", lengths="[3, 5]", per_language=1, mode="prompt", seed=7
) -> str:
    return f"""\
apiVersion: adhere.dev/v1alpha1
kind: Benchmark
metadata: {{name: bench}}
spec:
  suite: pacific
  source:
    generate:
      instructions: {instructions}
      lengths: {lengths}
      perLanguage: {per_language}
      seed: {seed}
      mode: {mode}
"""


def rollout_yaml(
    models: str, *, name="r", parallelism=4, repeats=1, storage="file://./runs", max_retries=2
) -> str:
    return f"""\
apiVersion: adhere.dev/v1alpha1
kind: Rollout
metadata: {{name: {name}}}
spec:
  benchmark: bench
  models:
{models}
  parallelism: {parallelism}
  repeats: {repeats}
  maxRetries: {max_retries}
  storage: {storage}
"""


def model(name: str, model_string: str, *, api="openai", base="scripted", extra="") -> str:
    endpoint = f'{{api: {api}, baseUrl: "{base}", model: "{model_string}"{extra}}}'
    return f"    - name: {name}\n      endpoint: {endpoint}\n"


@pytest.fixture
def write_specs(tmp_path: Path):
    def write(bench: str, rollout: str) -> Path:
        (tmp_path / "benchmark.yaml").write_text(bench)
        path = tmp_path / "rollout.yaml"
        path.write_text(rollout)
        return path

    return write


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "adhere.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=full_env,
        cwd=ROOT,
        check=False,
    )


def wait_until(condition: Callable[[], bool], what: str, *, timeout: float = 60.0) -> None:
    """Poll ``condition`` (every 20 ms) until it holds; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.02)


async def wait_until_async(
    condition: Callable[[], bool], what: str, *, timeout: float = 10.0
) -> None:
    """As :func:`wait_until`, yielding to the event loop between polls."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.001)
