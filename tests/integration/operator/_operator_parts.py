"""Shared parts of the operator's integration tests: specs, stored rollouts, trials run here."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from adhere.artifacts import RolloutStore
from adhere.core import TrialResult
from adhere.observe import JsonlDirSink, ProxyConfig, RecordingProxy, Upstream
from adhere.runner._trial import prepare_rollout, run_stored_trial
from adhere.spec import Benchmark, Rollout, RunConfig
from tests.helpers import ROOT

NS = "research"
KEY = "sk-live-0123456789abcdef"
"""A planted API key: it must reach the model endpoint and never the store."""


def benchmark_body(name: str = "bench", uid: str = "uid-bench") -> dict[str, Any]:
    return {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "Benchmark",
        "metadata": {"name": name, "namespace": NS, "uid": uid, "resourceVersion": "1"},
        "spec": {
            "suite": "pacific",
            "source": {
                "generate": {
                    "instructions": [3],
                    "lengths": [3],
                    "perLanguage": 1,
                    "seed": 7,
                    "mode": "prompt",
                }
            },
        },
    }


def rollout_body(
    name: str = "sweep",
    *,
    storage: str,
    models: list[dict[str, Any]] | None = None,
    parallelism: int = 2,
    max_retries: int = 1,
    generation: int = 1,
) -> dict[str, Any]:
    return {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "Rollout",
        "metadata": {
            "name": name,
            "namespace": NS,
            "uid": f"uid-{name}",
            "generation": generation,
            "resourceVersion": "1",
        },
        "spec": {
            "benchmark": "bench",
            "models": models or [real_model()],
            "scaffolds": ["chat"],
            "parallelism": parallelism,
            "maxRetries": max_retries,
            "storage": storage,
        },
    }


def real_model(name: str = "gpt-x", *, retries: int = 0) -> dict[str, Any]:
    """A model behind a real-looking endpoint whose key is in a Secret."""
    return {
        "name": name,
        "endpoint": {
            "api": "openai",
            "baseUrl": "https://api.example.com/v1",
            "model": "oracle",
            "apiKey": {"secretKeyRef": {"name": "model-keys", "key": "openai"}},
            "limits": {"maxRetries": retries, "backoffBaseSeconds": 0.01},
        },
    }


def scripted_model(name: str = "oracle") -> dict[str, Any]:
    return {"name": name, "endpoint": {"api": "openai", "baseUrl": "scripted", "model": "oracle"}}


def stored_rollout(tmp_path: Path, **kwargs: Any) -> tuple[RolloutStore, list[Any]]:
    """Plan a rollout and write its snapshot as the operator does; its store and trials."""
    body = rollout_body(storage=(tmp_path / "runs").as_uri(), **kwargs)
    rollout = Rollout.model_validate(
        {k: body[k] for k in ("apiVersion", "kind", "metadata", "spec")}
    )
    benchmark = Benchmark.model_validate(benchmark_body())
    config = RunConfig(rollout=rollout, benchmark=benchmark, judge_panel=None, base_dir=tmp_path)
    prepared = prepare_rollout(config, store_uri=rollout.spec.storage, secrets=[KEY])
    return prepared.store, prepared.trials


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_proxy_sidecar(
    upstream: str, model: str, calls_dir: Path, *, key: str = KEY
) -> tuple[subprocess.Popen[bytes], str]:
    """``adhere proxy`` as the trial pod's sidecar runs it (key from its environment)."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "adhere.cli", "proxy", "--host", "127.0.0.1",
            "--port", str(port), "--upstream", f"{model}={upstream},key-env=ADHERE_UPSTREAM_KEY",
            "--log-dir", str(calls_dir),
        ],
        cwd=ROOT,
        env={**os.environ, "ADHERE_UPSTREAM_KEY": key},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    return proc, f"http://127.0.0.1:{port}"


@asynccontextmanager
async def proxy_sidecar(
    upstream: str, model: str, calls_dir: Path, *, key: str = KEY
) -> AsyncIterator[str]:
    """The sidecar's recording proxy, in this process (faster than ``adhere proxy``)."""
    proxy = RecordingProxy(
        ProxyConfig(
            upstreams={model: Upstream(name=model, base_url=upstream, api_key=key)},
            sink=JsonlDirSink(calls_dir),
            secrets=[key],
        )
    )
    url = await proxy.start()
    try:
        yield url
    finally:
        await proxy.stop()


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()


async def run_trials_like_pods(
    store: RolloutStore, trial_ids: list[str], proxy_url: str | None, calls_dir: Path | None
) -> None:
    """What each trial Job's container does, run here against real local servers."""
    for trial_id in trial_ids:
        result = await run_stored_trial(
            store.uri, trial_id, proxy_url=proxy_url, calls_dir=calls_dir
        )
        assert result.status == "ok", result.error


def container_command(job: dict[str, Any], name: str) -> list[str]:
    """The command of the container ``name`` of a trial Job's pod."""
    pod = job["spec"]["template"]["spec"]
    found = {c["name"]: c for c in [*pod.get("initContainers", []), *pod["containers"]]}
    return list(found[name]["command"])


def arg(command: list[str], option: str) -> str:
    return command[command.index(option) + 1]


def open_trials(uri: str) -> list[Any]:
    from adhere.runner import open_rollout_uri, plan_rollout, stored_config

    store = open_rollout_uri(uri)
    plan, _ = plan_rollout(stored_config(store), store.read_instances())
    return list(plan.trials)


async def play_pod(
    job: dict[str, Any], pod_dir: Path, proxy_url: str | None, calls_dir: Path | None
) -> TrialResult:
    """A trial pod's three steps with the Job's own arguments, in this process.

    ``stage`` (store credentials) fills the spool, the trial runs against the spool
    only, and ``upload`` (store credentials) copies its files to the store once the
    trial said it is done. (``test_operator_pod_credentials`` plays the same steps
    as separate processes with each container's own environment.)
    """
    import threading

    from adhere.runner import Spool, stage_trial, upload_trial

    stage = container_command(job, "stage")
    trial = container_command(job, "trial")
    spool, state = pod_dir / "spool", pod_dir / "state"
    uri, trial_id = arg(stage, "--rollout-uri"), arg(stage, "--trial")
    stage_trial(uri, trial_id, attempt=int(arg(stage, "--attempt")), spool=spool, state=state)
    assert arg(trial, "--spool") == "/spool" and arg(trial, "--trial") == trial_id
    where = Spool(spool)
    # The agent's container sees its own instance only, not the others' checks.
    staged = where.store(where.what_to_run()["rollout"]).read_instances()
    (planned,) = [t for t in open_trials(uri) if t.id == trial_id]
    assert [i.id for i in staged] == [planned.instance]
    lock = where.hold()
    try:
        result = await run_stored_trial(
            where.rollout_uri(),
            trial_id,
            attempt=where.attempt(),
            proxy_url=proxy_url if "--proxy-url" in trial else None,
            calls_dir=calls_dir if "--proxy-url" in trial else None,
        )
        done = where.finish(result.status, 0 if result.status == "ok" else 1)
    finally:
        os.close(lock)
    stopped = threading.Event()
    stopped.set()  # the trial is over: the upload syncs once and acknowledges
    await asyncio.to_thread(upload_trial, uri, trial_id, spool=spool, state=state, stop=stopped)
    answer = {"ok": True, "files": 5, "error": None, "done": done["nonce"]}
    assert where.acknowledgement() == answer
    return result


async def wait_for(predicate: Any, timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` without blocking the event loop (the emulator shares it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
