"""The batch/v1 Job of one attempt of one trial, built as plain data (pure).

Pod layout::

    initContainers:
      proxy   the recording proxy as a native sidecar (restartPolicy: Always), bound to
              127.0.0.1 only; the only container that sees the model's API key
              (env valueFrom.secretKeyRef); writes /calls/<trial>/calls.jsonl
      stage   holds the store credentials: archives an earlier attempt in the store,
              stages the rollout's snapshot in /spool (``adhere trial stage``)
      upload  a native sidecar holding the store credentials: copies the trial's files
              from /spool to the store once the trial is over (``adhere trial upload``)
    containers:
      trial   the scaffold image running ``adhere trial run --spool /spool``: runs the
              scaffold against the proxy, writes the trial's artifacts into the spool;
              no credential in its environment or volumes

See :mod:`~adhere.operator._store_access` for the two store containers.

A model whose provider is served in the trial process (``baseUrl: scripted``, the
scripted policy server, a test double) needs no key and no sidecar: ``adhere trial run``
starts the provider and the recording proxy in its own process, as ``adhere run`` does.
The caller decides (:func:`~adhere.operator._sidecar.uses_sidecar` asks the provider)
and passes ``sidecar``; this module stays pure.

A trial whose instance names an environment image runs in that image instead, the
agent runtime copied in by two more init containers (see
:mod:`~adhere.operator._instance_env`); without one the layout above is unchanged.

Every container runs as a non-root user with no privilege escalation, all
capabilities dropped, a read-only root file system and the RuntimeDefault seccomp
profile (the ``restricted`` Pod Security Standard); writable paths are emptyDirs:
the workspace (/work), HOME (/home/adhere), /tmp, the call log (/calls), the spool
(/spool) and the upload's state (/adhere-state, not mounted in the trial container).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from adhere.core import Trial
from adhere.operator._config import OperatorConfig
from adhere.operator._instance_env import (
    InstanceEnvironment,
    in_instance_image,
    pod_security,
    runtime_container,
    runtime_volume,
    workspace_container,
)
from adhere.operator._names import (
    ANNOTATION_INSTANCE,
    ANNOTATION_MODEL,
    ANNOTATION_REPEAT,
    ANNOTATION_ROLLOUT_URI,
    API_VERSION,
    LABEL_ATTEMPT,
    LABEL_COMPONENT,
    LABEL_MANAGED_BY,
    LABEL_MODEL,
    LABEL_ROLLOUT,
    LABEL_SCAFFOLD,
    LABEL_TRIAL,
    MANAGED_BY,
    job_name,
    label_value,
)
from adhere.operator._store_access import (
    IRSA_SKIP_ANNOTATION,
    NO_STORE_CONTAINERS,
    SPOOL_DIR,
    TERMINATION_GRACE_SECONDS,
    stage_container,
    store_volumes,
    upload_container,
)
from adhere.spec import Endpoint, ModelSpec, ScaffoldSpec

PROXY_KEY_ENV: Final = "ADHERE_UPSTREAM_KEY"
"""The sidecar's environment variable holding the model's API key."""
WORK_DIR: Final = "/work"
HOME_DIR: Final = "/home/adhere"
CALLS_DIR: Final = "/calls"


@dataclass(frozen=True)
class RolloutRef:
    """The Rollout that owns what the operator creates."""

    name: str
    namespace: str
    uid: str


def owner_reference(rollout: RolloutRef) -> dict[str, Any]:
    """The controller owner reference to the Rollout (garbage collection, ``kubectl tree``)."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Rollout",
        "name": rollout.name,
        "uid": rollout.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def container_security(config: OperatorConfig) -> dict[str, Any]:
    """The ``restricted`` container security context."""
    return {
        "runAsNonRoot": True,
        "runAsUser": config.run_as_user,
        "runAsGroup": config.run_as_group,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def trial_labels(rollout: str, trial: Trial, attempt: int) -> dict[str, str]:
    """Labels of a trial's Job and pod."""
    return {
        LABEL_MANAGED_BY: MANAGED_BY,
        LABEL_COMPONENT: "trial",
        LABEL_ROLLOUT: rollout,
        LABEL_TRIAL: trial.id,
        LABEL_ATTEMPT: str(attempt),
        LABEL_MODEL: label_value(trial.model),
        LABEL_SCAFFOLD: label_value(trial.scaffold),
    }


def _proxy_container(model: ModelSpec, config: OperatorConfig) -> dict[str, Any]:
    upstream = f"{model.name}={model.endpoint.base_url}" + "".join(
        f",{key}={value}" for key, value in upstream_options(model.endpoint)
    )
    env: list[dict[str, Any]] = []
    source = model.endpoint.api_key
    if source is not None and source.secret_key_ref is not None:
        upstream += f",key-env={PROXY_KEY_ENV}"
        ref = source.secret_key_ref
        env.append(
            {
                "name": PROXY_KEY_ENV,
                "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.key}},
            }
        )
    return {
        "name": "proxy",
        "image": config.proxy_image_name(),
        "imagePullPolicy": config.image_pull_policy,
        # A native sidecar: started before the trial container, stopped after it.
        "restartPolicy": "Always",
        "command": [
            "adhere",
            "proxy",
            "--host",
            "127.0.0.1",
            "--port",
            str(config.proxy_port),
            "--upstream",
            upstream,
            "--log-dir",
            CALLS_DIR,
        ],
        "env": [*env, {"name": "HOME", "value": "/tmp"}],
        "resources": config.proxy_resources.manifest(),
        "securityContext": container_security(config),
        "volumeMounts": [
            {"name": "calls", "mountPath": CALLS_DIR},
            {"name": "tmp", "mountPath": "/tmp", "subPath": "proxy"},
        ],
    }


def upstream_options(endpoint: Endpoint) -> list[tuple[str, str]]:
    """The sidecar proxy's ``--upstream`` options for ``endpoint`` (shape, model, controls)."""
    options = [("api", endpoint.wire_api)]
    if "," not in endpoint.model:
        options.append(("model", endpoint.model))
    controls = endpoint.scaffold_controls
    for key, value in (
        ("max-output-tokens", controls.max_output_tokens),
        ("temperature", controls.temperature),
        ("reasoning-effort", controls.reasoning_effort),
        ("thinking-budget", controls.thinking_budget),
    ):
        if value is not None:
            options.append((key, f"{value:g}" if isinstance(value, float) else str(value)))
    return options


def _trial_container(trial: Trial, sidecar: bool, config: OperatorConfig) -> dict[str, Any]:
    """The container that runs the agent: no store credential, no key, only the spool."""
    # --no-sandbox: the pod is the agent's sandbox (docs/kubernetes.md)
    command = ["adhere", "trial", "run", "--spool", SPOOL_DIR, "--trial", trial.id, "--no-sandbox"]
    mounts: list[dict[str, Any]] = [
        {"name": "work", "mountPath": WORK_DIR},
        {"name": "home", "mountPath": HOME_DIR},
        {"name": "tmp", "mountPath": "/tmp", "subPath": "trial"},
        {"name": "spool", "mountPath": SPOOL_DIR},
    ]
    if sidecar:
        command += [
            "--proxy-url",
            f"http://127.0.0.1:{config.proxy_port}",
            "--calls-dir",
            CALLS_DIR,
        ]
        mounts.append({"name": "calls", "mountPath": CALLS_DIR, "readOnly": True})
    env = [
        {"name": "HOME", "value": HOME_DIR},
        {"name": "ADHERE_WORK_DIR", "value": WORK_DIR},
        {"name": "TMPDIR", "value": "/tmp"},
    ]
    return {
        "name": "trial",
        "image": config.image_for(trial.scaffold),
        "imagePullPolicy": config.image_pull_policy,
        "command": command,
        "env": env,
        "resources": config.trial_resources.manifest(),
        "securityContext": container_security(config),
        "volumeMounts": mounts,
    }


def build_job(
    rollout: RolloutRef,
    trial: Trial,
    attempt: int,
    model: ModelSpec,
    scaffold: ScaffoldSpec,
    rollout_uri: str,
    config: OperatorConfig,
    *,
    sidecar: bool,
    environment: InstanceEnvironment | None = None,
) -> dict[str, Any]:
    """The Job running attempt ``attempt`` of ``trial`` (retries are the operator's).

    ``sidecar`` says whether the model's calls go through a recording-proxy sidecar
    (see :func:`~adhere.operator.uses_sidecar`); without one the trial process serves
    the model itself. ``environment``: the instance's own image, which the trial then
    runs in (see :mod:`~adhere.operator._instance_env`).
    """
    labels = trial_labels(rollout.name, trial, attempt)
    annotations = {
        ANNOTATION_MODEL: trial.model,
        ANNOTATION_INSTANCE: trial.instance,
        ANNOTATION_REPEAT: str(trial.repeat),
        ANNOTATION_ROLLOUT_URI: rollout_uri,
    }
    volumes: list[dict[str, Any]] = [
        {"name": "work", "emptyDir": {"sizeLimit": config.workspace_size_limit}},
        {"name": "home", "emptyDir": {}},
        {"name": "tmp", "emptyDir": {}},
    ]
    if sidecar:
        volumes.append({"name": "calls", "emptyDir": {}})
    volumes += store_volumes(config)
    container = _trial_container(trial, sidecar, config)
    restricted = container_security(config)
    init = [_proxy_container(model, config)] if sidecar else []
    init.append(stage_container(trial, attempt, rollout_uri, config, restricted))
    root = environment is not None and config.instance_image_run_as_root
    if environment is not None:
        init += [
            runtime_container(container["image"], restricted, config),
            workspace_container(environment, config),
        ]
        container = in_instance_image(container, environment, config, work_dir=WORK_DIR)
        volumes.append(runtime_volume())
    init.append(upload_container(trial, rollout_uri, config, restricted))
    pod: dict[str, Any] = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": TERMINATION_GRACE_SECONDS,
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": pod_security(config, root=root),
        "containers": [container],
        "volumes": volumes,
    }
    pod["initContainers"] = init
    if config.service_account:
        pod["serviceAccountName"] = config.service_account
    if config.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": n} for n in config.image_pull_secrets]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": job_name(rollout.name, trial.id, attempt),
            "namespace": rollout.namespace,
            "labels": labels,
            "annotations": annotations,
            "ownerReferences": [owner_reference(rollout)],
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": int(scaffold.timeout_seconds) + config.deadline_slack_seconds,
            "template": {
                "metadata": {
                    "labels": labels,
                    "annotations": {**annotations, IRSA_SKIP_ANNOTATION: NO_STORE_CONTAINERS},
                },
                "spec": pod,
            },
        },
    }
