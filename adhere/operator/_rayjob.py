"""The KubeRay RayJob that scores a finished rollout, and reading its state back (pure).

The RayJob brings up a Ray cluster (head + workers, the ray worker image with adhere
installed), runs ``adhere trial score --rollout-uri URI --ray auto`` as its driver on
the head, and tears the cluster down afterwards. The driver reads trajectories from
the store and writes verdicts back; judge actors read their API keys from the
variables :attr:`~adhere.spec.SecretKeyRef.env_name`, set here from the Secrets.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any, Final, Literal

from adhere.operator._config import OperatorConfig
from adhere.operator._jobs import RolloutRef, container_security, owner_reference
from adhere.operator._names import (
    LABEL_COMPONENT,
    LABEL_MANAGED_BY,
    LABEL_ROLLOUT,
    MANAGED_BY,
    rayjob_name,
)
from adhere.operator._validate import panel_secret_refs
from adhere.spec import JudgePanel

RAY_GROUP: Final = "ray.io"
RAY_VERSION: Final = "v1"
RAY_PLURAL: Final = "rayjobs"


def _pod_template(name: str, panel: JudgePanel | None, config: OperatorConfig) -> dict[str, Any]:
    env: list[dict[str, Any]] = [{"name": "HOME", "value": "/tmp"}]
    seen: set[str] = set()
    for _path, ref in panel_secret_refs(panel) if panel is not None else []:
        if ref.env_name not in seen:
            seen.add(ref.env_name)
            env.append(
                {
                    "name": ref.env_name,
                    "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.key}},
                }
            )
    env += [{"name": k, "value": v} for k, v in sorted(config.store_env.items())]
    mounts: list[dict[str, Any]] = [{"name": "tmp", "mountPath": "/tmp"}]
    volumes: list[dict[str, Any]] = [{"name": "tmp", "emptyDir": {}}]
    if config.store_volume_claim:
        mounts.append({"name": "store", "mountPath": config.store_mount_path})
        volumes.append(
            {"name": "store", "persistentVolumeClaim": {"claimName": config.store_volume_claim}}
        )
    security = container_security(config)
    security["readOnlyRootFilesystem"] = False  # Ray writes session files under its root
    container: dict[str, Any] = {
        "name": name,
        "image": config.ray_image_name(),
        "imagePullPolicy": config.image_pull_policy,
        "env": env,
        "resources": config.ray_worker_resources.manifest(),
        "securityContext": security,
        "volumeMounts": mounts,
    }
    if config.store_secret:
        container["envFrom"] = [{"secretRef": {"name": config.store_secret}}]
    spec: dict[str, Any] = {
        "containers": [container],
        "volumes": volumes,
        "automountServiceAccountToken": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": config.run_as_user,
            "fsGroup": config.run_as_group,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    if config.image_pull_secrets:
        spec["imagePullSecrets"] = [{"name": n} for n in config.image_pull_secrets]
    return {"spec": spec}


def build_rayjob(
    rollout: RolloutRef,
    plan_id: str,
    rollout_uri: str,
    panel: JudgePanel | None,
    config: OperatorConfig,
) -> dict[str, Any]:
    """The RayJob scoring the plan ``plan_id`` of a rollout."""
    entrypoint = shlex.join(
        [
            "adhere",
            "trial",
            "score",
            "--rollout-uri",
            rollout_uri,
            "--ray",
            "auto",
            "--verify-actors",
            str(config.verify_actors),
            "--judge-actors",
            str(config.judge_actors),
        ]
    )
    labels = {
        LABEL_MANAGED_BY: MANAGED_BY,
        LABEL_COMPONENT: "scoring",
        LABEL_ROLLOUT: rollout.name,
    }
    workers = config.ray_workers
    return {
        "apiVersion": f"{RAY_GROUP}/{RAY_VERSION}",
        "kind": "RayJob",
        "metadata": {
            "name": rayjob_name(rollout.name, plan_id),
            "namespace": rollout.namespace,
            "labels": labels,
            "ownerReferences": [owner_reference(rollout)],
        },
        "spec": {
            "entrypoint": entrypoint,
            "shutdownAfterJobFinishes": True,
            "ttlSecondsAfterFinished": 300,
            "rayClusterSpec": {
                "headGroupSpec": {
                    "rayStartParams": {"num-cpus": "0"},
                    "template": _pod_template("ray-head", panel, config),
                },
                "workerGroupSpecs": [
                    {
                        "groupName": "workers",
                        "replicas": workers,
                        "minReplicas": workers,
                        "maxReplicas": workers,
                        "rayStartParams": {},
                        "template": _pod_template("ray-worker", panel, config),
                    }
                ],
            },
        },
    }


def rayjob_state(
    rayjob: Mapping[str, Any],
) -> tuple[Literal["running", "succeeded", "failed"], str]:
    """The state of a scoring RayJob and its message."""
    status = rayjob.get("status") or {}
    job = str(status.get("jobStatus") or "")
    deployment = str(status.get("jobDeploymentStatus") or "")
    message = str(status.get("message") or "")
    if job == "SUCCEEDED":
        return "succeeded", message
    if job in ("FAILED", "STOPPED") or deployment in ("Failed", "ValidationFailed"):
        return "failed", message or f"RayJob {job or deployment}"
    return "running", message or f"RayJob {job or deployment or 'submitted'}"
