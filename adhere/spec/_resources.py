"""The custom resources: Benchmark, Rollout and JudgePanel, with their status models.

These pydantic models are the single definition of the resources. The same YAML a
user gives ``adhere run`` is what they later ``kubectl apply``.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from pydantic import Field, field_validator, model_validator

from adhere.core import SpecModel
from adhere.spec._endpoint import Endpoint
from adhere.spec._read import check_path_text
from adhere.spec._sandbox import SandboxLimitsSpec

API_VERSION: Final = "adhere.dev/v1alpha1"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class ObjectMeta(SpecModel):
    """The subset of Kubernetes object metadata adhere reads."""

    name: str = Field(description="Object name: a DNS-1123 label.")
    namespace: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    generation: int | None = None
    uid: str | None = None
    resource_version: str | None = None
    creation_timestamp: str | None = None

    @field_validator("name")
    @classmethod
    def _dns_label(cls, name: str) -> str:
        if len(name) > 63 or not _DNS_LABEL.match(name):
            raise ValueError(
                "must be a DNS-1123 label: lower-case letters, digits and '-', "
                "starting and ending with a letter or digit, at most 63 characters"
            )
        return name


class Condition(SpecModel):
    """A Kubernetes-style status condition."""

    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None


Phase = Literal["Pending", "Planned", "Running", "Scoring", "Succeeded", "Failed"]


# --- Benchmark ------------------------------------------------------------------------


class BenchmarkSource(SpecModel):
    """Where instances come from: exactly one of a path/URI, or generator parameters."""

    path: str | None = Field(
        default=None, description="JSONL file or directory of instances (relative to the spec)."
    )
    uri: str | None = Field(default=None, description="s3:// or file:// URI of a JSONL file.")
    generate: dict[str, Any] | None = Field(
        default=None, description="Generator parameters, validated by the suite."
    )

    @field_validator("path")
    @classmethod
    def _usable_path(cls, value: str | None) -> str | None:
        return None if value is None else check_path_text(value)

    @model_validator(mode="after")
    def _exactly_one(self) -> BenchmarkSource:
        given = [n for n in ("path", "uri", "generate") if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of 'path', 'uri' or 'generate' (got {given})")
        return self


class Filters(SpecModel):
    """Optional narrowing of a benchmark's instances."""

    ids: list[str] | None = Field(default=None, description="Keep only these instance ids.")
    limit: int | None = Field(default=None, ge=1, description="Keep the first N instances.")
    metadata: dict[str, list[Any]] = Field(
        default_factory=dict, description="Keep instances whose metadata[key] is in the list."
    )


class BenchmarkSpec(SpecModel):
    """Which suite and which of its instances."""

    suite: str = Field(description="Registered suite name, e.g. 'pacific'.")
    source: BenchmarkSource
    filters: Filters = Field(default_factory=Filters)
    options: dict[str, Any] = Field(
        default_factory=dict, description="Suite-specific options, validated by the suite."
    )


class BenchmarkStatus(SpecModel):
    """Observed state of a Benchmark."""

    phase: Phase = "Pending"
    instances: int = 0
    checks: int = 0
    conditions: list[Condition] = Field(default_factory=list)
    observed_generation: int | None = None


class Benchmark(SpecModel):
    """A set of instances of one suite."""

    api_version: Literal["adhere.dev/v1alpha1"] = API_VERSION
    kind: Literal["Benchmark"] = "Benchmark"
    metadata: ObjectMeta
    spec: BenchmarkSpec
    status: BenchmarkStatus | None = None


# --- JudgePanel -----------------------------------------------------------------------


class Judge(SpecModel):
    """One judge model."""

    name: str
    endpoint: Endpoint


class JudgePanelSpec(SpecModel):
    """Judge models and how their verdicts are combined."""

    judges: list[Judge] = Field(min_length=1)
    aggregation: Literal["mean", "majority"] = "mean"
    prompt_version: str = "v1"

    @field_validator("judges")
    @classmethod
    def _unique_names(cls, judges: list[Judge]) -> list[Judge]:
        _require_unique([j.name for j in judges], "judge")
        return judges


class JudgePanelStatus(SpecModel):
    """Observed state of a JudgePanel."""

    phase: Phase = "Pending"
    conditions: list[Condition] = Field(default_factory=list)
    observed_generation: int | None = None


class JudgePanel(SpecModel):
    """A panel of LLM judges."""

    api_version: Literal["adhere.dev/v1alpha1"] = API_VERSION
    kind: Literal["JudgePanel"] = "JudgePanel"
    metadata: ObjectMeta
    spec: JudgePanelSpec
    status: JudgePanelStatus | None = None


# --- Rollout --------------------------------------------------------------------------


class ModelSpec(SpecModel):
    """One model of a sweep: a display name and its endpoint."""

    name: str = Field(description="Name used in reports and the artifact layout.")
    endpoint: Endpoint

    @field_validator("name")
    @classmethod
    def _safe(cls, name: str) -> str:
        return _path_safe(name)


FROM_INSTANCE: Final = "fromInstance"
"""``scaffolds: fromInstance`` (each instance under its own scaffold) and
``version: fromInstance`` (the version the instance names)."""

_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$")


class ScaffoldSpec(SpecModel):
    """A scaffold the instances are run through, with scaffold-specific options.

    ``name`` is a registered scaffold, or ``fromInstance``: every instance under the
    scaffold it names itself (``scaffolds: fromInstance`` is shorthand for that one
    entry). An entry with ``instances: own`` runs only the instances that name it;
    ``all`` (the default) crosses every instance with it.
    """

    name: str
    options: dict[str, Any] = Field(default_factory=dict)
    timeout_seconds: float = Field(
        default=1800, gt=0, description="Wall-clock budget of one trial (all its turns)."
    )
    version: str | None = Field(
        default=None,
        description=(
            "CLI version to install and run: an exact version, or 'fromInstance' (the "
            "version each instance names, where adhere can install it). Unset: the "
            "scaffold's pinned version (for the fromInstance entry: 'fromInstance')."
        ),
    )
    instances: Literal["all", "own"] = Field(
        default="all",
        description=(
            "'all': every instance runs under this scaffold; 'own': only the instances "
            "that name it."
        ),
    )

    @field_validator("version")
    @classmethod
    def _version_text(cls, value: str | None) -> str | None:
        if value is not None and value != FROM_INSTANCE and not _VERSION.match(value):
            raise ValueError(
                f"expected a version such as '2.0.69' or 'fromInstance', got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _from_instance_entry(self) -> ScaffoldSpec:
        if self.name == FROM_INSTANCE:
            if self.options:
                raise ValueError(
                    "the fromInstance entry takes no options (they differ per scaffold); "
                    "list the scaffold by name with 'instances: own' to give it options"
                )
            if self.instances != "all":
                raise ValueError("the fromInstance entry has no 'instances' setting")
            if self.version not in (None, FROM_INSTANCE):
                raise ValueError(
                    "the fromInstance entry runs several scaffolds: its version is "
                    "'fromInstance'; list a scaffold by name with 'instances: own' to pin it"
                )
        return self

    @property
    def bound(self) -> bool:
        """Whether the entry runs only the instances that name its scaffold."""
        return self.name == FROM_INSTANCE or self.instances == "own"


class RolloutSpec(SpecModel):
    """What to run: benchmark × models × scaffolds × repeats."""

    benchmark: str = Field(description="Name of the Benchmark resource.")
    models: list[ModelSpec] = Field(min_length=1, description="The sweep: one entry a model.")
    scaffolds: list[ScaffoldSpec] = Field(
        default_factory=lambda: [ScaffoldSpec(name="chat")],
        min_length=1,
        description=(
            "The scaffolds to run: a list (each crosses every instance unless it says "
            "'instances: own'), or 'fromInstance': each instance under its own scaffold."
        ),
    )
    repeats: int = Field(default=1, ge=1, le=100)
    parallelism: int = Field(default=8, ge=1, le=1024, description="Trials in flight at once.")
    max_retries: int = Field(default=2, ge=0, description="Retries of a failed trial.")
    judge_panel: str | None = Field(default=None, description="Name of the JudgePanel.")
    storage: str = Field(default="file://./runs", description="Result store URI.")
    baseline: str | None = Field(default=None, description="Rollout name to compare against.")
    sandbox: Literal["on", "off"] = Field(
        default="on",
        description=(
            "Run each agent CLI turn in the agent sandbox (bubblewrap: only the workspace "
            "and a throwaway HOME writable, network only to the recording proxy). 'off' "
            "runs the CLIs unconfined, for hosts that cannot make namespaces; the run and "
            'its report then say so. Quote it in YAML: "off". In a cluster each trial\'s pod '
            "is its sandbox and this setting is not used."
        ),
    )

    sandbox_limits: SandboxLimitsSpec = Field(
        default_factory=SandboxLimitsSpec,
        description="Size limits of the agent sandbox (disk: /tmp, one file, workspace growth).",
    )

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox_switch(cls, value: Any) -> Any:
        # YAML 1.1 reads a bare on/off as a boolean
        if isinstance(value, bool):
            return "on" if value else "off"
        return value

    @field_validator("scaffolds", mode="before")
    @classmethod
    def _scaffold_shorthand(cls, value: Any) -> Any:
        if value == FROM_INSTANCE:
            return [{"name": FROM_INSTANCE}]
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("storage")
    @classmethod
    def _store_uri(cls, value: str) -> str:
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if not value.strip() or scheme not in ("", "file", "s3"):
            raise ValueError(f"expected a file:// or s3:// URI or a directory path, got {value!r}")
        return value

    @field_validator("models")
    @classmethod
    def _unique_models(cls, models: list[ModelSpec]) -> list[ModelSpec]:
        _require_unique([m.name for m in models], "model")
        return models

    @field_validator("scaffolds")
    @classmethod
    def _unique_scaffolds(cls, scaffolds: list[ScaffoldSpec]) -> list[ScaffoldSpec]:
        _require_unique([s.name for s in scaffolds], "scaffold")
        return scaffolds


class TrialCounts(SpecModel):
    """Trial counts of a rollout."""

    planned: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0
    retried: int = 0


class Summary(SpecModel):
    """Headline scores (small; full results live in the store)."""

    isr: float | None = None
    csr: float | None = None


class RolloutStatus(SpecModel):
    """Observed state of a Rollout: small, never whole results."""

    phase: Phase = "Pending"
    conditions: list[Condition] = Field(default_factory=list)
    trials: TrialCounts = Field(default_factory=TrialCounts)
    summary: Summary = Field(default_factory=Summary)
    artifacts: str | None = Field(default=None, description="URI of the rollout's artifacts.")
    observed_generation: int | None = None


class Rollout(SpecModel):
    """A sweep of models over a benchmark."""

    api_version: Literal["adhere.dev/v1alpha1"] = API_VERSION
    kind: Literal["Rollout"] = "Rollout"
    metadata: ObjectMeta
    spec: RolloutSpec
    status: RolloutStatus | None = None


Resource = Benchmark | Rollout | JudgePanel


def _require_unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"duplicate {what} name {name!r}")
        seen.add(name)


_PATH_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _path_safe(name: str) -> str:
    if len(name) > 100 or not _PATH_SAFE.match(name):
        raise ValueError(
            "must start with a letter or digit and use only letters, digits, '.', '_' or '-' "
            "(it names a directory in the artifact layout)"
        )
    return name
