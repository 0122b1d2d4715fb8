"""A Rollout's Jobs in the cluster: read them, reconcile, create and delete.

:func:`apply_trials` lists the rollout's Jobs and pods, asks the pure
:func:`~adhere.operator._reconcile.reconcile_trials` what to do and applies it (Jobs
built by :func:`~adhere.operator._jobs.build_job`, named from trial id and attempt so
none is created twice); :func:`delete_rollout_jobs` removes them when the Rollout goes.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from adhere.operator._config import OperatorConfig
from adhere.operator._jobs import RolloutRef, build_job
from adhere.operator._kube import Kube
from adhere.operator._names import LABEL_ROLLOUT
from adhere.operator._observe import job_view, pod_problem
from adhere.operator._planning import RolloutPlan
from adhere.operator._rayjob import RAY_GROUP, RAY_PLURAL, RAY_VERSION
from adhere.operator._reconcile import RetryPolicy, TrialDecision, reconcile_trials
from adhere.operator._sidecar import uses_sidecar
from adhere.spec import Rollout

log = logging.getLogger(__name__)


async def apply_trials(
    kube: Kube,
    config: OperatorConfig,
    ref: RolloutRef,
    rollout: Rollout,
    plan: RolloutPlan,
    now: datetime,
) -> TrialDecision:
    """Read the rollout's Jobs and pods, decide, delete and create Jobs; return the decision."""
    labels = {LABEL_ROLLOUT: ref.name}
    jobs, pods = await asyncio.gather(
        asyncio.to_thread(kube.list, "batch", "v1", "jobs", ref.namespace, labels),
        asyncio.to_thread(kube.list, "", "v1", "pods", ref.namespace, labels),
    )
    views = [v for v in map(job_view, jobs) if v is not None]
    problems = [p for p in map(pod_problem, pods) if p is not None]
    policy = RetryPolicy(
        parallelism=rollout.spec.parallelism,
        max_retries=rollout.spec.max_retries,
        backoff_seconds=config.retry_backoff_seconds,
        backoff_max_seconds=config.retry_backoff_max_seconds,
    )
    decision = reconcile_trials(
        plan.trials,
        views,
        policy,
        now,
        stored_done=plan.stored_done,
        pod_problems=problems,
    )
    assert plan.store is not None
    models = {m.name: m for m in rollout.spec.models}
    scaffolds = plan.scaffolds
    for name in decision.delete:
        log.info("deleting Job %s/%s: its trial is no longer planned", ref.namespace, name)
        await asyncio.to_thread(kube.delete, "batch", "v1", "jobs", ref.namespace, name)
    for trial, attempt in decision.create:
        job = build_job(
            ref,
            trial,
            attempt,
            models[trial.model],
            scaffolds[trial.scaffold],
            plan.store.uri,
            config,
            sidecar=uses_sidecar(models[trial.model]),
            environment=plan.environments.get(trial.instance),
        )
        created = await asyncio.to_thread(kube.create, job, "jobs")
        log.info(
            "Job %s/%s %s (trial %s attempt %d)",
            ref.namespace,
            job["metadata"]["name"],
            "created" if created else "exists already",
            trial.id,
            attempt,
        )
    return decision


async def delete_rollout_jobs(kube: Kube, namespace: str, name: str) -> int:
    """Delete a rollout's Jobs and (where the API serves them) its RayJobs; how many Jobs went."""
    labels = {LABEL_ROLLOUT: name}
    jobs = await asyncio.to_thread(kube.list, "batch", "v1", "jobs", namespace, labels)
    for job in jobs:
        await asyncio.to_thread(
            kube.delete, "batch", "v1", "jobs", namespace, job["metadata"]["name"]
        )
    if await asyncio.to_thread(kube.serves, RAY_GROUP, RAY_VERSION, RAY_PLURAL):
        for rayjob in await asyncio.to_thread(
            kube.list, RAY_GROUP, RAY_VERSION, RAY_PLURAL, namespace, labels
        ):
            await asyncio.to_thread(
                kube.delete,
                RAY_GROUP,
                RAY_VERSION,
                RAY_PLURAL,
                namespace,
                rayjob["metadata"]["name"],
            )
    return len(jobs)
