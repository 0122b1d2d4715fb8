"""Planning a Rollout in the cluster: its Benchmark and JudgePanel, trials, store snapshot.

A plan is identified by a hash of everything it depends on (the Rollout's,
Benchmark's and JudgePanel's specs and the store URI), so an edit of any of them
re-plans and an unchanged rollout is planned once per operator process. Planning
resolves the Benchmark's instances with its suite's loader, checks the scaffolds,
plans the trials (the runner's planning: stable trial ids), and writes the spec
snapshot and the instances to the rollout's store, where trial pods read them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adhere.artifacts import RolloutStore, write_benchmark_instances
from adhere.core import Instance, Trial
from adhere.errors import SpecError, StoreError
from adhere.operator._config import OperatorConfig
from adhere.operator._instance_env import InstanceEnvironment, instance_environments
from adhere.operator._jobs import HOME_DIR
from adhere.operator._status import PlanProblem
from adhere.runner import apply_filters, prepare_rollout
from adhere.spec import Benchmark, JudgePanel, Rollout, RunConfig, ScaffoldSpec
from adhere.store import open_store
from adhere.suites import get_suite


@dataclass
class RolloutPlan:
    """A planned rollout (or why it could not be planned).

    Attributes:
        plan_id: Hash of what the plan depends on.
        trials: The planned trials, in plan order.
        store: The rollout's store (None when planning failed).
        stored_done: Ids of trials whose stored result was ``ok`` when planned.
        note: The ``Planned`` condition's message.
        problem: Why planning failed.
        scaffolds: The settings of each planned scaffold (the Rollout entry it comes
            from, under its own name), by name.
        environments: Instance id → the image its trials run in, for the instances
            that name one (see :mod:`~adhere.operator._instance_env`).
    """

    plan_id: str
    trials: list[Trial] = field(default_factory=list)
    store: RolloutStore | None = None
    stored_done: frozenset[str] = frozenset()
    note: str = ""
    problem: PlanProblem | None = None
    scaffolds: dict[str, ScaffoldSpec] = field(default_factory=dict)
    environments: dict[str, InstanceEnvironment] = field(default_factory=dict)


def storage_for(rollout: Rollout, config: OperatorConfig) -> str:
    """The rollout's store: its ``spec.storage`` when set, else the operator's ``storeUri``."""
    if "storage" in rollout.spec.model_fields_set or config.store_uri is None:
        return rollout.spec.storage
    return config.store_uri


def plan_key(
    rollout: Rollout, benchmark: Benchmark, panel: JudgePanel | None, store_uri: str
) -> str:
    """The id of the plan these specs give."""
    parts = [
        rollout.metadata.name,
        rollout.spec.model_dump(mode="json"),
        benchmark.spec.model_dump(mode="json"),
        panel.spec.model_dump(mode="json") if panel is not None else None,
        store_uri,
    ]
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def decode_secret_values(data: Mapping[str, Any] | None, keys: list[str]) -> list[str]:
    """The decoded values of some keys of a Secret's ``data`` (for redaction)."""
    out = []
    for key in keys:
        raw = (data or {}).get(key)
        if isinstance(raw, str):
            try:
                value = base64.b64decode(raw, validate=True).decode("utf-8").strip()
            except (binascii.Error, UnicodeDecodeError):
                continue
            if value:
                out.append(value)
    return out


def plan_rollout(
    rollout: Rollout,
    benchmark: Benchmark,
    panel: JudgePanel | None,
    config: OperatorConfig,
    *,
    plan_id: str,
    secrets: list[str],
) -> RolloutPlan:
    """Resolve, plan and snapshot a rollout (blocking: suite loading and store writes).

    An invalid Benchmark (or suite options, or scaffold) is a permanent problem; a
    store that cannot be written is a temporary one.
    """
    where = f"{rollout.metadata.namespace or ''}/{rollout.metadata.name}"
    store_uri = storage_for(rollout, config)
    run_config = RunConfig(
        rollout=rollout,
        benchmark=benchmark,
        judge_panel=panel,
        base_dir=Path(config.data_dir).resolve(),
        files={
            f"Rollout/{rollout.metadata.name}": f"Rollout {where}",
            f"Benchmark/{benchmark.metadata.name}": (
                f"Benchmark {benchmark.metadata.namespace or ''}/{benchmark.metadata.name}"
            ),
        },
    )
    try:
        prepared = prepare_rollout(run_config, store_uri=store_uri, secrets=secrets)
        environments = instance_environments(
            prepared.instances,
            config,
            home=HOME_DIR,
            where=run_config.files[f"Benchmark/{benchmark.metadata.name}"],
        )
    except SpecError as exc:
        return RolloutPlan(plan_id, problem=PlanProblem("BenchmarkInvalid", str(exc)))
    except StoreError as exc:
        return RolloutPlan(plan_id, problem=PlanProblem("StoreUnavailable", str(exc)))
    try:
        done = frozenset(
            s.result.trial_id for s in prepared.store.iter_trials() if s.result.status == "ok"
        )
    except (StoreError, ValueError) as exc:
        return RolloutPlan(plan_id, problem=PlanProblem("StoreUnavailable", str(exc)))
    spec = rollout.spec
    planned = prepared.plan
    note = (
        f"{len(prepared.trials)} trials: {len(spec.models)} models × {len(planned.scaffolds)} "
        f"scaffolds × {len(planned.instances_run())} instances × {spec.repeats} repeats"
    )
    if planned.skipped:
        note += f" ({len(planned.skipped)} instances skipped: see `adhere plan`)"
    own_images = {t.instance for t in prepared.trials} & environments.keys()
    if own_images:
        note += f"; {len(own_images)} instances run in their own images"
    return RolloutPlan(
        plan_id,
        trials=prepared.trials,
        store=prepared.store,
        stored_done=done,
        note=note,
        scaffolds={name: p.spec for name, p in planned.scaffolds.items()},
        environments=environments,
    )


@dataclass(frozen=True)
class ResolvedBenchmark:
    """A Benchmark's instances, and where they were stored."""

    instances: int
    checks: int
    stored: str | None


def resolve_benchmark(benchmark: Benchmark, config: OperatorConfig) -> ResolvedBenchmark:
    """Load a Benchmark's instances with its suite, and store them (blocking).

    They go to ``<storeUri>/_benchmarks/<namespace>/<name>/instances.jsonl`` when the
    operator has a ``storeUri``.

    Raises:
        SpecError: The suite, its options, the source or the filters are invalid.
        StoreError: The store could not be written.
    """
    meta = benchmark.metadata
    where = f"Benchmark {meta.namespace or ''}/{meta.name}"
    try:
        suite = get_suite(benchmark.spec.suite, **benchmark.spec.options)
    except SpecError as exc:
        raise SpecError(str(exc).split(": ", 1)[-1], file=where, field=exc.field) from None
    instances: list[Instance] = suite.load(
        benchmark.spec, base_dir=Path(config.data_dir).resolve(), file=where
    )
    instances = apply_filters(instances, benchmark.spec.filters, file=where)
    stored = None
    if config.store_uri is not None:
        store = open_store(config.store_uri, base_dir=Path(config.data_dir).resolve())
        stored = write_benchmark_instances(store, meta.namespace or "default", meta.name, instances)
    return ResolvedBenchmark(len(instances), sum(len(i.checks) for i in instances), stored)
