"""Spec models: the custom resources (Benchmark, Rollout, JudgePanel) and the core types.

Everything here is pure data and validation; loading YAML/JSONL files lives in
:mod:`adhere.spec._load` and raises :class:`adhere.errors.SpecError` naming the file,
the field path and what was expected.
"""

from adhere.spec._config import RunConfig, load_run_config
from adhere.spec._crds import crd_manifests, render_crds
from adhere.spec._endpoint import ApiKind, Endpoint, Limits, SecretKeyRef, SecretSource
from adhere.spec._load import (
    format_location,
    iter_jsonl,
    load_instances,
    load_resources,
    parse_resource,
    validate_model,
)
from adhere.spec._resources import (
    API_VERSION,
    Benchmark,
    BenchmarkSource,
    BenchmarkSpec,
    BenchmarkStatus,
    Condition,
    Filters,
    Judge,
    JudgePanel,
    JudgePanelSpec,
    JudgePanelStatus,
    ModelSpec,
    ObjectMeta,
    Resource,
    Rollout,
    RolloutSpec,
    RolloutStatus,
    ScaffoldSpec,
    Summary,
    TrialCounts,
)

__all__ = [
    "API_VERSION",
    "ApiKind",
    "Benchmark",
    "BenchmarkSource",
    "BenchmarkSpec",
    "BenchmarkStatus",
    "Condition",
    "Endpoint",
    "Filters",
    "Judge",
    "JudgePanel",
    "JudgePanelSpec",
    "JudgePanelStatus",
    "Limits",
    "ModelSpec",
    "ObjectMeta",
    "Resource",
    "Rollout",
    "RolloutSpec",
    "RolloutStatus",
    "RunConfig",
    "ScaffoldSpec",
    "SecretKeyRef",
    "SecretSource",
    "Summary",
    "TrialCounts",
    "crd_manifests",
    "format_location",
    "iter_jsonl",
    "load_instances",
    "load_resources",
    "load_run_config",
    "parse_resource",
    "render_crds",
    "validate_model",
]
