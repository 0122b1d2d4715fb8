"""A published OctoBench instance on the emulated cluster: its Job runs the instance's image.

The Benchmark is one row of the published data (its workspace is a private image
and a ``workspace_abs_path``); the operator (kopf's runner, against kmock's
emulator over HTTP) plans the Rollout and creates the trial's Job, which must run
that image in that directory with the agent runtime copied in from the scaffold
image, and be a valid Kubernetes object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from kmock import KubernetesEmulator

from tests.helpers import shared_data
from tests.integration.operator._operator_parts import NS, real_model, wait_for
from tests.integration.operator.conftest import create
from tests.integration.operator.test_operator_cluster import condition, jobs, status

pytestmark = pytest.mark.usefixtures("secret")

PUBLISHED = shared_data("octocodingbench", "octocodingbench.jsonl")


def published_row() -> dict[str, Any]:
    """The first published row made under Claude Code whose workspace is not /app."""
    for line in PUBLISHED.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["scaffold"]["name"] == "claudecode" and row["workspace_abs_path"] != "/app":
            return dict(row)
    raise AssertionError("no such row")


async def apply(cluster: KubernetesEmulator, tmp_path: Path, row: dict[str, Any]) -> None:
    bench = tmp_path / "octo"
    bench.mkdir()
    (bench / "instances.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    meta = {"namespace": NS, "resourceVersion": "1"}
    await create(
        cluster,
        "apis/adhere.dev/v1alpha1",
        "benchmarks",
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Benchmark",
            "metadata": {"name": "octo", "uid": "uid-octo-bench", **meta},
            "spec": {"suite": "octobench", "source": {"path": "octo/instances.jsonl"}},
        },
    )
    await create(
        cluster,
        "apis/adhere.dev/v1alpha1",
        "rollouts",
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "octo", "uid": "uid-octo", "generation": 1, **meta},
            "spec": {
                "benchmark": "octo",
                "models": [real_model()],
                "scaffolds": "fromInstance",
                "storage": (tmp_path / "runs").as_uri(),
            },
        },
    )


async def test_the_job_of_a_published_instance_runs_its_image_with_the_agent_injected(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    row = published_row()
    await apply(cluster, tmp_path, row)
    async with operator(imagePullSecrets=["octo-registry"]):
        found = await wait_for(lambda: jobs(cluster), what="the trial's Job")
        await wait_for(lambda: status(cluster, "octo").get("phase") == "Running", what="Running")
    assert len(found) == 1
    job = next(iter(found.values()))
    kubernetes_validate.validate(job, "1.33.0", strict=True)
    pod = job["spec"]["template"]["spec"]
    init = {c["name"]: c for c in pod["initContainers"]}
    trial = pod["containers"][0]
    # The instance's own image, in its own workspace directory …
    assert trial["image"] == row["image"]
    assert trial["workingDir"] == row["workspace_abs_path"]
    mounts = {m["mountPath"]: m["name"] for m in trial["volumeMounts"]}
    assert mounts[row["workspace_abs_path"]] == "work"
    env = {e["name"]: e.get("value") for e in trial["env"]}
    assert env["ADHERE_WORKSPACE_DIR"] == row["workspace_abs_path"]
    # … filled from the image by the workspace init container …
    assert init["workspace"]["image"] == row["image"]
    command = init["workspace"]["command"]
    assert command[command.index("--from") + 1] == row["workspace_abs_path"]
    # … with the agent runtime copied in from the scaffold the row names.
    assert init["runtime"]["image"] == "ghcr.io/adhere/scaffold-claude-code:0.1.0"
    assert mounts["/adhere-runtime"] == "runtime"
    assert trial["command"][:3] == ["/adhere-runtime/venv/bin/adhere", "trial", "run"]
    assert job["metadata"]["annotations"]["adhere.dev/instance"] == row["instance_id"]
    assert job["metadata"]["labels"]["adhere.dev/scaffold"] == "claude-code"
    # The key stays with the proxy sidecar; the private image is pulled with the Secret.
    assert init["proxy"]["restartPolicy"] == "Always"
    assert init["proxy"]["env"][0]["valueFrom"]["secretKeyRef"]["name"] == "model-keys"
    assert "secretKeyRef" not in json.dumps([trial, init["runtime"], init["workspace"]])
    assert pod["imagePullSecrets"] == [{"name": "octo-registry"}]
    assert all(
        c["securityContext"]["runAsNonRoot"] is True for c in [*pod["initContainers"], trial]
    )
    assert "run in their own images" in condition(cluster, "Planned", "octo")["message"]


async def test_a_workspace_path_the_pod_cannot_mount_fails_the_plan_naming_it(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    row = {**published_row(), "workspace_abs_path": "/tmp/project"}
    await apply(cluster, tmp_path, row)
    async with operator():
        await wait_for(
            lambda: condition(cluster, "Planned", "octo").get("reason") == "BenchmarkInvalid",
            what="the plan refused",
        )
    message = condition(cluster, "Planned", "octo")["message"]
    assert "workspace_abs_path '/tmp/project'" in message and row["instance_id"] in message
    assert not jobs(cluster)
