"""The operator against kmock's KubernetesEmulator over HTTP, run by kopf's own runner.

The emulator is a real aiohttp server in the test's event loop; the operator runs in
``kopf.testing.KopfRunner``'s thread with its own loop and reaches the emulator
through a kubeconfig file, as it would reach a cluster. The operator runs
cluster-wide (``-A``): in namespaced mode kopf lists ``/api/v1/namespaces``, which
kmock 0.8's path parser answers with a 500.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from kmock import KubernetesEmulator
from kopf.testing import KopfRunner

from adhere.operator import OperatorConfig
from adhere.operator._handlers import build_registry, operator_settings
from tests.integration.operator._operator_parts import NS

VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"]
KINDS = {"rollouts": "Rollout", "benchmarks": "Benchmark", "judgepanels": "JudgePanel"}


@pytest.fixture
def cluster(kmock: KubernetesEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The emulator with built-in and adhere.dev resources, and a kubeconfig pointing at it."""
    with warnings.catch_warnings():  # kmock 0.8 reads its bundle with a deprecated call
        warnings.simplefilter("ignore", DeprecationWarning)
        kmock.resources.load_bundled()  # batch/v1 jobs, v1 pods, secrets, namespaces, events …
    for plural, kind in KINDS.items():
        kmock.resources[f"adhere.dev/v1alpha1/{plural}"] = {
            "kind": kind,
            "singular": kind.lower(),
            "namespaced": True,
            "verbs": VERBS,
            "subresources": ["status"],
        }
    server = str(kmock.url).rstrip("/")
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "kmock", "cluster": {"server": server}}],
        "users": [{"name": "test", "user": {"token": "dummy-token"}}],
        "contexts": [{"name": "kmock", "context": {"cluster": "kmock", "user": "test"}}],
        "current-context": "kmock",
    }
    path = tmp_path / "kubeconfig.yaml"
    path.write_text(yaml.safe_dump(config))
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    return kmock


@pytest.fixture
def operator(
    cluster: KubernetesEmulator, tmp_path: Path
) -> Callable[..., AbstractAsyncContextManager[KopfRunner]]:
    """``async with operator(**settings):`` runs the adhere operator until the block ends."""

    @asynccontextmanager
    async def run(**settings: Any) -> AsyncIterator[KopfRunner]:
        config = OperatorConfig.model_validate(
            {
                "intervalSeconds": 0.5,
                "retryBackoffSeconds": 0.2,
                "scoring": "in-process",
                "dataDir": str(tmp_path),
                **settings,
            }
        )
        runner = KopfRunner(
            ["run", "--standalone", "-A"],
            registry=build_registry(config),
            settings=operator_settings(),
            timeout=30,
        )
        # The emulator serves from this loop: enter and exit the runner in a thread.
        await asyncio.to_thread(runner.__enter__)
        try:
            yield runner
        finally:
            await asyncio.to_thread(runner.__exit__, None, None, None)

    return run


@pytest.fixture
async def secret(cluster: KubernetesEmulator) -> None:
    """The Secret holding the model key, in the test namespace."""
    from tests.integration.operator._operator_parts import KEY

    await create(
        cluster,
        "api/v1",
        "secrets",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {
                "name": "model-keys",
                "namespace": NS,
                "uid": "uid-secret",
                "resourceVersion": "1",
            },
            "stringData": {"openai": KEY},
        },
    )


async def create(cluster: KubernetesEmulator, root: str, plural: str, body: dict) -> None:
    """POST an object, as ``kubectl apply`` would create it (watchers see it)."""
    async with cluster.post(f"/{root}/namespaces/{NS}/{plural}", json=body) as response:
        assert response.status in (200, 201), await response.text()
