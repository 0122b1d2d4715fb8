"""Trial pods that run in their instance's own image, the agent injected (pure).

An instance whose workspace names a container image (OctoBench's published rows:
``image`` and ``workspace_abs_path``) runs in that image: the workspace, its tools
and its libraries are the image's. The agent runtime comes from the scaffold image,
which holds it under :data:`RUNTIME_DIR` (a standalone Python with adhere installed,
Node with npm, the scaffold's CLI; see ``images/``). Pod layout::

    initContainers:
      proxy      the recording proxy sidecar, unchanged (it alone holds the key)
      runtime    the scaffold image: copies /adhere-runtime into the emptyDir
                 "runtime" (cp -a: links, modes)
      workspace  the instance image: adhere's Python from that volume copies
                 <workspace_abs_path> into the emptyDir "work", mounted at
                 /adhere-workspace here (adhere trial copy-workspace)
    containers:
      trial      the instance image, workingDir <workspace_abs_path>, "work" mounted
                 there and "runtime" at /adhere-runtime (read-only):
                 /adhere-runtime/venv/bin/adhere trial run --spool … with
                 ADHERE_WORKSPACE_DIR=<workspace_abs_path> (the trial works in place)

Why the workspace is copied rather than used where the image has it: the image's
files are usually owned by root and the root file system stays read-only, so the
trial user could not write there; an emptyDir is writable by the pod's ``fsGroup``
and bounded by ``workspaceSizeLimit``. The copy runs adhere's own Python (no
``cp``/``tar`` of the image is relied on). The runtime lives at the same path in the
scaffold image and in the pod, so nothing in it needs relocating.

Security: every container stays ``restricted`` unless the operator setting
``instanceImageRunAsRoot`` is on; then the two containers that run the instance
image (the workspace copy and the trial) run as UID 0 with a writable root file
system and the ``baseline`` capabilities a root build environment uses (CHOWN,
DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID), never privileged and never with
privilege escalation, and the pod is ``baseline``, not ``restricted``. The proxy
sidecar and the runtime copy stay restricted either way.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from adhere.core import Instance
from adhere.errors import SpecError
from adhere.operator._config import OperatorConfig
from adhere.operator._store_access import SPOOL_DIR, STATE_DIR

RUNTIME_DIR: Final = "/adhere-runtime"
"""Where the scaffold image holds the agent runtime, and where the trial mounts it."""
RUNTIME_COPY_DIR: Final = "/adhere-runtime-copy"
"""Where the runtime volume is mounted while the scaffold image copies into it."""
WORKSPACE_COPY_DIR: Final = "/adhere-workspace"
"""Where the workspace volume is mounted while the instance image copies into it."""
RUNTIME_ADHERE: Final = f"{RUNTIME_DIR}/venv/bin/adhere"
RUNTIME_PATH: Final = (
    f"{RUNTIME_DIR}/venv/bin:{RUNTIME_DIR}/node/bin:"
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)
"""``PATH`` of the trial runner in an instance image (the agent gets its own, see
:func:`adhere.scaffolds.search_path`): the runtime's ``adhere`` and ``node`` first."""
ROOT_CAPABILITIES: Final = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID")
"""Capabilities the root trial container keeps (all within the ``baseline`` standard)."""
WORKSPACE_FIELD: Final = "workspace_abs_path"
"""The instance metadata naming the workspace's directory in the image."""


@dataclass(frozen=True)
class InstanceEnvironment:
    """The image a trial runs in, and where its workspace is inside it."""

    image: str
    workdir: str


def _reserved(config: OperatorConfig, home: str) -> list[str]:
    return [
        RUNTIME_DIR,
        RUNTIME_COPY_DIR,
        WORKSPACE_COPY_DIR,
        home,
        "/tmp",
        "/calls",
        SPOOL_DIR,
        STATE_DIR,
        "/proc",
        "/dev",
        "/sys",
        config.store_mount_path,
    ]


def instance_environment(
    instance: Instance, config: OperatorConfig, *, home: str, where: str
) -> InstanceEnvironment | None:
    """The environment image of ``instance`` (None: it names none, or they are off).

    Raises:
        SpecError: Naming ``where`` and the instance: the image names no workspace
            directory, or one that is not absolute, not normalized, the root, or a path
            the pod uses itself.
    """
    image = instance.workspace.image
    if not config.instance_images or not image:
        return None
    field = f"instances[{instance.id}].{WORKSPACE_FIELD}"
    raw = instance.metadata.get(WORKSPACE_FIELD)
    if not isinstance(raw, str) or not raw.strip():
        raise SpecError(
            f"instance {instance.id!r} runs in image {image} but names no {WORKSPACE_FIELD}: "
            "expected the absolute path of its workspace inside the image",
            file=where,
            field=field,
        )
    path = raw.strip()
    if not path.startswith("/") or posixpath.normpath(path) != path or path == "/":
        raise SpecError(
            f"{WORKSPACE_FIELD} {raw!r} of instance {instance.id!r}: expected a normalized "
            "absolute directory other than /, e.g. /app",
            file=where,
            field=field,
        )
    for taken in _reserved(config, home):
        if path == taken or path.startswith(taken + "/") or taken.startswith(path + "/"):
            raise SpecError(
                f"{WORKSPACE_FIELD} {path!r} of instance {instance.id!r} overlaps {taken}, "
                "which the trial pod mounts itself",
                file=where,
                field=field,
            )
    return InstanceEnvironment(image=image, workdir=path)


def instance_environments(
    instances: Iterable[Instance], config: OperatorConfig, *, home: str, where: str
) -> dict[str, InstanceEnvironment]:
    """Instance id → its environment, for the instances that name an image."""
    found = {}
    for instance in instances:
        env = instance_environment(instance, config, home=home, where=where)
        if env is not None:
            found[instance.id] = env
    return found


def instance_security(config: OperatorConfig) -> dict[str, Any]:
    """The security context of a container running the instance image."""
    if not config.instance_image_run_as_root:
        return {
            "runAsNonRoot": True,
            "runAsUser": config.run_as_user,
            "runAsGroup": config.run_as_group,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        }
    return {
        "runAsNonRoot": False,
        "runAsUser": 0,
        "runAsGroup": 0,
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": False,
        "capabilities": {"drop": ["ALL"], "add": list(ROOT_CAPABILITIES)},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def pod_security(config: OperatorConfig, *, root: bool) -> dict[str, Any]:
    """The pod's security context: ``restricted``, or ``baseline`` when ``root``."""
    context: dict[str, Any] = {
        "runAsNonRoot": True,
        "runAsUser": config.run_as_user,
        "runAsGroup": config.run_as_group,
        "fsGroup": config.run_as_group,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if root:
        del context["runAsNonRoot"]  # the containers say it, each for itself
    return context


def runtime_container(
    scaffold_image: str, security: dict[str, Any], config: OperatorConfig
) -> dict[str, Any]:
    """The init container copying the agent runtime out of the scaffold image."""
    return {
        "name": "runtime",
        "image": scaffold_image,
        "imagePullPolicy": config.image_pull_policy,
        "command": ["cp", "-a", f"{RUNTIME_DIR}/.", f"{RUNTIME_COPY_DIR}/"],
        "resources": config.proxy_resources.manifest(),
        "securityContext": security,
        "volumeMounts": [{"name": "runtime", "mountPath": RUNTIME_COPY_DIR}],
    }


def workspace_container(env: InstanceEnvironment, config: OperatorConfig) -> dict[str, Any]:
    """The init container copying the instance image's workspace into its volume."""
    return {
        "name": "workspace",
        "image": env.image,
        "imagePullPolicy": config.image_pull_policy,
        "command": [
            RUNTIME_ADHERE,
            "trial",
            "copy-workspace",
            "--from",
            env.workdir,
            "--to",
            WORKSPACE_COPY_DIR,
        ],
        "env": [{"name": "PATH", "value": RUNTIME_PATH}, {"name": "HOME", "value": "/tmp"}],
        "resources": config.trial_resources.manifest(),
        "securityContext": instance_security(config),
        "volumeMounts": [
            {"name": "work", "mountPath": WORKSPACE_COPY_DIR},
            {"name": "runtime", "mountPath": RUNTIME_DIR, "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp", "subPath": "workspace"},
        ],
    }


def in_instance_image(
    trial: dict[str, Any], env: InstanceEnvironment, config: OperatorConfig, *, work_dir: str
) -> dict[str, Any]:
    """The trial container of today's layout, moved into the instance's image.

    Same arguments and mounts (no store access: that is the stage and upload
    containers'), except that the workspace volume is
    mounted at the instance's directory, which is the working directory, and the
    runtime volume at :data:`RUNTIME_DIR`.
    """
    command = [RUNTIME_ADHERE, *trial["command"][1:]]
    mounts = [
        {**m, "mountPath": env.workdir} if m["mountPath"] == work_dir else m
        for m in trial["volumeMounts"]
    ]
    mounts.append({"name": "runtime", "mountPath": RUNTIME_DIR, "readOnly": True})
    replaced = {"ADHERE_WORK_DIR", "PATH", "ADHERE_WORKSPACE_DIR", "ADHERE_SCAFFOLD_CACHE"}
    env_vars = [e for e in trial["env"] if e["name"] not in replaced]
    env_vars += [
        {"name": "PATH", "value": RUNTIME_PATH},
        {"name": "ADHERE_WORK_DIR", "value": "/tmp/adhere-work"},
        {"name": "ADHERE_WORKSPACE_DIR", "value": env.workdir},
        {"name": "ADHERE_SCAFFOLD_CACHE", "value": f"{RUNTIME_DIR}/scaffolds"},
        {"name": "SSL_CERT_FILE", "value": f"{RUNTIME_DIR}/ca-certificates.crt"},
        {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
    ]
    return {
        **trial,
        "image": env.image,
        "command": command,
        "workingDir": env.workdir,
        "env": env_vars,
        "securityContext": instance_security(config),
        "volumeMounts": mounts,
    }


def runtime_volume() -> dict[str, Any]:
    """The emptyDir the runtime is copied into."""
    return {"name": "runtime", "emptyDir": {}}
