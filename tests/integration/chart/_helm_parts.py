"""Helm (helm-sdkpy, run in a subprocess) and an emulated cluster for the chart tests."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import kmock
import yaml

ROOT = Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "adhere"
HELM_SDKPY = Path(os.environ.get("ADHERE_HELM_SDKPY", "~/.cache/adhere/helm-sdkpy")).expanduser()
NAMESPACE = "adhere"
_RUNNER = Path(__file__).with_name("_helm_run.py")


class HelmError(Exception):
    """Helm refused: the message is Helm's."""


async def helm(*args: str) -> Any:
    """Run ``_helm_run.py ARGS`` with helm-sdkpy on the path; its result, or HelmError."""
    env = {**os.environ, "HELM_DRIVER": "memory", "PYTHONPATH": str(HELM_SDKPY)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(_RUNNER),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=180)
    if process.returncode != 0:
        raise AssertionError(f"helm-sdkpy failed (exit {process.returncode}):\n{err.decode()}")
    output = json.loads(out)
    if "error" in output:
        raise HelmError(f"{output['error']}: {output['message']}")
    return output["result"]


class Emulator(kmock.KubernetesEmulator):
    """kmock 0.8's emulator, answering core-group discovery as Kubernetes does.

    kmock 0.8 serves ``GET /api/v1`` with ``groupVersion: "/v1"``; Go's client (Helm)
    then finds no kind of the core group. A real API server says ``"v1"``. It also
    reports a fixed Kubernetes 1.26 at ``/version``; the chart needs 1.29 (native
    sidecars), so the emulator reports 1.30 here.
    """

    async def _serve_server_version(self, request: Any) -> Any:
        body = dict(await super()._serve_server_version(request))
        body.update({"major": "1", "minor": "30", "gitVersion": "v1.30.0"})
        return body

    async def _serve_version(self, request: Any) -> Any:
        body = await super()._serve_version(request)
        if isinstance(body, dict) and str(body.get("groupVersion", "")).startswith("/"):
            body["groupVersion"] = body["groupVersion"][1:]
        return body


def kubeconfig(server: str) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "emulator", "cluster": {"server": server}}],
            "users": [{"name": "test", "user": {"token": "not-a-secret"}}],
            "contexts": [
                {
                    "name": "emulator",
                    "context": {"cluster": "emulator", "user": "test", "namespace": NAMESPACE},
                }
            ],
            "current-context": "emulator",
        }
    )


class Cluster:
    """``helm install`` of the chart into the emulator; returns the rendered manifests."""

    def __init__(self, emulator: kmock.KubernetesEmulator) -> None:
        self.emulator = emulator
        self._count = 0
        self.notes = ""
        """The NOTES Helm printed after the last install."""

    async def install(self, values: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        self._count += 1
        release = "adhere" if self._count == 1 else f"adhere-{self._count}"
        result = await helm(
            "install",
            str(CHART),
            NAMESPACE,
            release,
            kubeconfig(str(self.emulator.url)),
            json.dumps(values or {}),
        )
        assert result["info"]["status"] == "deployed", result["info"]
        self.notes = result["info"].get("notes", "")
        return [doc for doc in yaml.safe_load_all(result["manifest"]) if doc]
