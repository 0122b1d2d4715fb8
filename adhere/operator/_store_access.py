"""The containers of a trial pod that reach the store, and the volumes they share (pure).

The trial container runs the agent, which runs model-written commands, so it holds
no credential: no Secret in its environment (``env``/``envFrom``) and none in its
volumes. Store access lives in two other containers of the same pod, which share
with it only the **spool**, an emptyDir without credentials
(see :mod:`adhere.runner._spool`)::

    initContainers:
      stage    adhere trial stage: archives the trial's earlier attempt in the store,
               decides the attempt, stages the spec snapshot and instances in /spool
               and the upload's destination in /adhere-state
      upload   a native sidecar: adhere trial upload copies the trial's files from
               /spool to the store once the trial is over (result.json last) and
               acknowledges; on SIGTERM it uploads what changed since (an interrupted
               attempt)

Both run the proxy image (adhere's base image) with the store's credentials
(``storeSecret`` as ``envFrom``, ``storeEnv``, or the ``storeVolumeClaim`` mount);
``/adhere-state`` (what the upload trusts) is mounted in these two only. Containers
of a pod share no environment and no process namespace (``shareProcessNamespace``
stays unset), so the agent cannot read theirs.
"""

from __future__ import annotations

from typing import Any, Final

from adhere.core import Trial
from adhere.operator._config import OperatorConfig

SPOOL_DIR: Final = "/spool"
"""The emptyDir shared by stage, trial and upload: staged snapshot, the trial's files."""
STATE_DIR: Final = "/adhere-state"
"""The emptyDir of stage and upload only: where the trial's files go."""
STATE_SIZE: Final = "16Mi"
STOP_WAIT_SECONDS: Final = 30
"""How long the uploader waits, on SIGTERM, for a trial recording its interruption."""
TERMINATION_GRACE_SECONDS: Final = 90
"""The trial pod's grace: the trial records an interruption, then the upload copies it."""
IRSA_SKIP_ANNOTATION: Final = "eks.amazonaws.com/skip-containers"
"""The EKS pod identity webhook injects no web identity token into the containers named."""
NO_STORE_CONTAINERS: Final = "trial,runtime,workspace"
"""Containers of a trial pod that never get store credentials (the IRSA webhook's list)."""


def _store_access(
    container: dict[str, Any], config: OperatorConfig, mounts: list[dict[str, Any]]
) -> dict[str, Any]:
    env = [{"name": "HOME", "value": "/tmp"}]
    env += [{"name": k, "value": v} for k, v in sorted(config.store_env.items())]
    if config.store_volume_claim:
        mounts.append({"name": "store", "mountPath": config.store_mount_path})
    container = {
        **container,
        "imagePullPolicy": config.image_pull_policy,
        "env": env,
        "resources": config.proxy_resources.manifest(),
        "volumeMounts": mounts,
    }
    if config.store_secret:
        container["envFrom"] = [{"secretRef": {"name": config.store_secret}}]
    return container


def stage_container(
    trial: Trial,
    attempt: int,
    rollout_uri: str,
    config: OperatorConfig,
    security: dict[str, Any],
) -> dict[str, Any]:
    """The init container that prepares the spool (it holds the store credentials)."""
    command = [
        "adhere",
        "trial",
        "stage",
        "--rollout-uri",
        rollout_uri,
        "--trial",
        trial.id,
        "--attempt",
        str(attempt),
        "--spool",
        SPOOL_DIR,
        "--state",
        STATE_DIR,
    ]
    mounts = [
        {"name": "spool", "mountPath": SPOOL_DIR},
        {"name": "state", "mountPath": STATE_DIR},
        {"name": "tmp", "mountPath": "/tmp", "subPath": "stage"},
    ]
    base = {
        "name": "stage",
        "image": config.proxy_image_name(),
        "command": command,
        "securityContext": security,
    }
    return _store_access(base, config, mounts)


def upload_container(
    trial: Trial, rollout_uri: str, config: OperatorConfig, security: dict[str, Any]
) -> dict[str, Any]:
    """The native sidecar that copies the trial's files to the store."""
    command = [
        "adhere",
        "trial",
        "upload",
        "--rollout-uri",
        rollout_uri,
        "--trial",
        trial.id,
        "--spool",
        SPOOL_DIR,
        "--state",
        STATE_DIR,
        "--stop-wait",
        str(STOP_WAIT_SECONDS),
    ]
    mounts = [
        {"name": "spool", "mountPath": SPOOL_DIR},
        {"name": "state", "mountPath": STATE_DIR},
        {"name": "tmp", "mountPath": "/tmp", "subPath": "upload"},
    ]
    base = {
        "name": "upload",
        "image": config.proxy_image_name(),
        # A native sidecar: runs beside the trial, stopped (SIGTERM) after it.
        "restartPolicy": "Always",
        "command": command,
        "securityContext": security,
    }
    return _store_access(base, config, mounts)


def store_volumes(config: OperatorConfig) -> list[dict[str, Any]]:
    """The spool, the state directory and (for a ``file://`` store) its claim."""
    volumes: list[dict[str, Any]] = [
        {"name": "spool", "emptyDir": {"sizeLimit": config.workspace_size_limit}},
        {"name": "state", "emptyDir": {"sizeLimit": STATE_SIZE}},
    ]
    if config.store_volume_claim:
        volumes.append(
            {"name": "store", "persistentVolumeClaim": {"claimName": config.store_volume_claim}}
        )
    return volumes
