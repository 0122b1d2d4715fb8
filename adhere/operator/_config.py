"""The operator's settings: one typed model, documented field by field.

``adhere operator --config FILE`` reads them from YAML (the Helm chart mounts its
values there); a few fields also have command-line flags. Every field has a default
that works on a laptop against a local cluster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field
from pydantic.alias_generators import to_camel

from adhere import __version__
from adhere.core import SpecModel
from adhere.errors import SpecError
from adhere.spec import validate_model

ScoringMode = Literal["auto", "rayjob", "ray", "in-process"]


class Resources(SpecModel):
    """Requests and limits of one container (Kubernetes quantities)."""

    requests: dict[str, str] = Field(default_factory=dict)
    limits: dict[str, str] = Field(default_factory=dict)

    def manifest(self) -> dict[str, dict[str, str]]:
        """The ``resources`` block of a container."""
        return {"requests": dict(self.requests), "limits": dict(self.limits)}


class OperatorConfig(SpecModel):
    """Settings of the adhere operator (camelCase in YAML, like the chart's values)."""

    store_uri: str | None = Field(
        default=None,
        description="Store for Benchmarks' resolved instances, and for Rollouts that do not "
        "set spec.storage. None: Benchmarks are validated but not stored, and Rollouts use "
        "their spec.storage default.",
    )
    data_dir: str = Field(
        default=".",
        description="Directory against which relative Benchmark source paths are resolved.",
    )
    scaffold_image: str = Field(
        default="ghcr.io/adhere/scaffold-{scaffold}:{version}",
        description="Image of a trial's scaffold container; {scaffold} and {version} "
        "(adhere's version) are filled in.",
    )
    scaffold_images: dict[str, str] = Field(
        default_factory=dict, description="Scaffold name → image, overriding scaffoldImage."
    )
    proxy_image: str = Field(
        default="ghcr.io/adhere/proxy:{version}",
        description="Image of the recording proxy sidecar.",
    )
    version: str = Field(default=__version__, description="Fills {version} in image names.")
    image_pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    image_pull_secrets: list[str] = Field(
        default_factory=list, description="Names of Secrets to pull the images with."
    )
    service_account: str | None = Field(
        default=None,
        description="ServiceAccount of trial pods (its token is never mounted).",
    )
    run_as_user: int = Field(default=1000, ge=1, description="UID of every trial container.")
    run_as_group: int = Field(default=1000, ge=1, description="GID of every trial container.")
    proxy_port: int = Field(default=8766, ge=1, le=65535, description="Sidecar proxy port.")
    trial_resources: Resources = Field(
        default_factory=lambda: Resources(
            requests={"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
            limits={"cpu": "2", "memory": "4Gi", "ephemeral-storage": "4Gi"},
        ),
        description="Resources of the scaffold container.",
    )
    proxy_resources: Resources = Field(
        default_factory=lambda: Resources(
            requests={"cpu": "50m", "memory": "128Mi"},
            limits={"cpu": "500m", "memory": "512Mi"},
        ),
        description="Resources of the recording proxy sidecar.",
    )
    instance_images: bool = Field(
        default=True,
        description="Run a trial whose instance names a container image (OctoBench's "
        "published rows: image and workspace_abs_path) in that image, with the agent runtime "
        "copied in from the scaffold image. False: every trial runs in its scaffold's image, "
        "and one whose workspace is only an image fails there.",
    )
    instance_image_run_as_root: bool = Field(
        default=False,
        description="Run the containers of instance images (the workspace copy and the trial) "
        "as root with a writable root file system and baseline capabilities, for images whose "
        "workspace only root can read or write. The pod is then baseline, not restricted.",
    )
    workspace_size_limit: str = Field(
        default="2Gi", description="Size limit of the workspace emptyDir of a trial pod."
    )
    store_volume_claim: str | None = Field(
        default=None,
        description="PersistentVolumeClaim mounted at storeMountPath in the stage and upload "
        "containers of trial pods (never the trial container), for a file:// store shared "
        "with the operator (mounted at the same path there).",
    )
    store_mount_path: str = Field(default="/data", description="Where storeVolumeClaim goes.")
    store_secret: str | None = Field(
        default=None,
        description="Secret whose keys become environment variables (envFrom) of the stage "
        "and upload containers of trial pods (never of the trial container, which runs the "
        "agent) and of RayJob pods, e.g. AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for s3://.",
    )
    store_env: dict[str, str] = Field(
        default_factory=dict,
        description="Plain environment variables for store access in the stage and upload "
        "containers of trial pods and in RayJob pods (e.g. AWS_ENDPOINT_URL, AWS_REGION).",
    )
    deadline_slack_seconds: int = Field(
        default=600,
        ge=0,
        description="A trial Job's activeDeadlineSeconds is the scaffold's timeoutSeconds "
        "plus this (image pulls, workspace setup, writing results).",
    )
    interval_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Longest wait between two reconciles of a Rollout; changes of its Jobs "
        "and pods wake it up sooner.",
    )
    idle_interval_seconds: float = Field(
        default=300.0,
        gt=0,
        description="Longest wait between two reconciles of a Rollout that has Succeeded or "
        "Failed (its events still wake it up).",
    )
    secret_check_interval_seconds: float = Field(
        default=60.0, gt=0, description="How often a JudgePanel's Secrets are checked again."
    )
    retry_backoff_seconds: float = Field(
        default=10.0, ge=0, description="Delay before the first retry of a failed trial."
    )
    retry_backoff_max_seconds: float = Field(
        default=300.0, ge=0, description="Cap of the doubling retry delay."
    )
    scoring: ScoringMode = Field(
        default="auto",
        description="Where finished rollouts are scored: 'rayjob' (a KubeRay RayJob), 'ray' "
        "(the Ray cluster at rayAddress), 'in-process' (in the operator); 'auto' picks "
        "rayjob when the ray.io/v1 RayJob CRD is served, else ray when rayAddress is set, "
        "else in-process.",
    )
    ray_address: str | None = Field(
        default=None, description="Ray cluster for scoring='ray' (ray://HOST:10001 or auto)."
    )
    ray_image: str = Field(
        default="ghcr.io/adhere/ray-worker:{version}",
        description="Image of the RayJob's head and workers (adhere installed).",
    )
    ray_workers: int = Field(default=2, ge=0, description="Worker replicas of a RayJob.")
    ray_worker_resources: Resources = Field(
        default_factory=lambda: Resources(
            requests={"cpu": "1", "memory": "2Gi"}, limits={"cpu": "2", "memory": "4Gi"}
        ),
        description="Resources of each RayJob head and worker container.",
    )
    verify_actors: int = Field(default=2, ge=1, description="Verification actors on Ray.")
    judge_actors: int = Field(default=2, ge=1, description="Judge actors on Ray.")

    def image_for(self, scaffold: str) -> str:
        """The scaffold container image of ``scaffold``."""
        template = self.scaffold_images.get(scaffold, self.scaffold_image)
        return template.format(scaffold=scaffold, version=self.version)

    def proxy_image_name(self) -> str:
        """The recording proxy sidecar's image."""
        return self.proxy_image.format(version=self.version)

    def ray_image_name(self) -> str:
        """The RayJob head/worker image."""
        return self.ray_image.format(version=self.version)


def load_operator_config(path: str | Path | None, **overrides: Any) -> OperatorConfig:
    """Settings from a YAML file (or defaults), then non-None ``overrides`` on top."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except OSError as exc:
            raise SpecError(f"cannot read file: {exc.strerror}", file=str(path)) from None
        except yaml.YAMLError as exc:
            raise SpecError(f"malformed YAML: {exc}", file=str(path)) from None
        if not isinstance(loaded, dict):
            raise SpecError("expected a mapping of operator settings", file=str(path))
        data = loaded
    data.update({to_camel(k): v for k, v in overrides.items() if v is not None})
    return validate_model(OperatorConfig, data, file=str(path or "operator settings"))
