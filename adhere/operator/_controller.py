"""The operator's I/O around the pure reconcile functions (no kopf here).

:class:`Controller` reconciles one resource at a time: it reads the object and what
it owns from the API, asks the pure functions what to do, applies that through
:class:`~adhere.operator._kube.Kube`, and patches a small status. Everything it keeps
in memory (plans, scoring passes) can be rebuilt from the cluster and the store, so
a restarted operator picks up where the last one stopped: Jobs are found by label
and named from trial id and attempt, so none is created twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from adhere.errors import KubeError, SpecError, StoreError
from adhere.operator._config import OperatorConfig
from adhere.operator._jobs import RolloutRef, build_job
from adhere.operator._kube import Kube
from adhere.operator._names import GROUP, LABEL_ROLLOUT, VERSION
from adhere.operator._observe import job_view, pod_problem
from adhere.operator._planning import (
    RolloutPlan,
    decode_secret_values,
    plan_key,
    plan_rollout,
    resolve_benchmark,
    storage_for,
)
from adhere.operator._rayjob import RAY_GROUP, RAY_PLURAL, RAY_VERSION
from adhere.operator._reconcile import (
    RetryPolicy,
    TrialDecision,
    reconcile_trials,
    wait_after_problem,
    wait_after_reconcile,
)
from adhere.operator._scoring import ScoringPasses
from adhere.operator._sidecar import uses_sidecar
from adhere.operator._status import (
    PlanProblem,
    ScoringView,
    benchmark_status,
    judge_panel_status,
    keeps_plan,
    previous_status,
    rollout_status,
    status_changed,
    status_patch,
)
from adhere.operator._validate import (
    check_cluster_rollout,
    describe,
    missing_secrets,
    model_secret_refs,
    panel_secret_refs,
    parse_body,
)
from adhere.spec import (
    Benchmark,
    BenchmarkStatus,
    JudgePanel,
    JudgePanelStatus,
    Rollout,
    RolloutStatus,
    SecretKeyRef,
    TrialCounts,
)

log = logging.getLogger(__name__)

"""Wait after an API or store failure before reconciling again."""


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


class Controller:
    """Reconciles Benchmarks, JudgePanels and Rollouts against one cluster.

    Args:
        kube: The API client.
        config: The operator's settings.
    """

    def __init__(
        self,
        kube: Kube,
        config: OperatorConfig,
        *,
        progress: dict[str, TrialCounts] | None = None,
    ) -> None:
        self.kube = kube
        self.config = config
        self.progress = progress if progress is not None else {}
        """Rollout name → its latest trial counts (read by the metrics exporter)."""
        self.plans: dict[str, RolloutPlan] = {}
        """Rollout uid → its current plan."""
        self.scoring = ScoringPasses(kube, config, self.kick)
        self.kicks: dict[tuple[str, str, str], asyncio.Event] = {}
        self.closed = False

    def close(self) -> None:
        """Stop scoring passes in flight and release the API client (the operator exits)."""
        self.closed = True
        self.scoring.close()
        for event in self.kicks.values():
            event.set()
        self.kube.close()

    # --- waking rollouts up ------------------------------------------------------

    def kick(self, namespace: str, name: str, *, kind: str = "rollouts") -> None:
        """Reconcile a resource now (e.g. a Job or pod of a rollout changed)."""
        event = self.kicks.get((kind, namespace, name))
        if event is not None:
            event.set()

    def kick_namespace(self, namespace: str, *, kind: str = "rollouts") -> None:
        """Reconcile every rollout of a namespace now (a Benchmark or JudgePanel changed)."""
        for (k, ns, _name), event in self.kicks.items():
            if k == kind and ns == namespace:
                event.set()

    async def wait(self, kind: str, namespace: str, name: str, seconds: float) -> None:
        """Sleep up to ``seconds``, or until the resource is kicked or the operator stops."""
        if self.closed:
            return
        event = self.kicks.setdefault((kind, namespace, name), asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), timeout=max(0.0, seconds))
        except TimeoutError:
            pass
        event.clear()

    # --- Benchmark and JudgePanel ------------------------------------------------

    async def reconcile_benchmark(self, namespace: str, name: str) -> None:
        """Validate a Benchmark, resolve and store its instances, patch its status."""
        body = await asyncio.to_thread(self.kube.get, GROUP, VERSION, "benchmarks", namespace, name)
        if body is None:
            return
        previous = previous_status(BenchmarkStatus, body.get("status"))
        generation = (body.get("metadata") or {}).get("generation")
        now = _stamp(_now())
        try:
            benchmark = parse_body(Benchmark, body)
            resolved = await asyncio.to_thread(resolve_benchmark, benchmark, self.config)
            status = benchmark_status(
                previous,
                generation=generation,
                now=now,
                instances=resolved.instances,
                checks=resolved.checks,
                stored=resolved.stored,
            )
        except SpecError as exc:
            problem = PlanProblem("InvalidSpec", str(exc))
            status = benchmark_status(previous, generation=generation, now=now, problem=problem)
        except StoreError as exc:
            problem = PlanProblem("StoreUnavailable", str(exc))
            status = benchmark_status(previous, generation=generation, now=now, problem=problem)
        await self._patch_status("benchmarks", body, status_patch(status))
        self.kick_namespace(namespace)

    async def reconcile_judge_panel(self, namespace: str, name: str) -> None:
        """Validate a JudgePanel and check its Secrets, patch its status."""
        body = await asyncio.to_thread(
            self.kube.get, GROUP, VERSION, "judgepanels", namespace, name
        )
        if body is None:
            return
        previous = previous_status(JudgePanelStatus, body.get("status"))
        generation = (body.get("metadata") or {}).get("generation")
        now = _stamp(_now())
        try:
            panel = parse_body(JudgePanel, body)
        except SpecError as exc:
            status = judge_panel_status(
                previous,
                generation=generation,
                now=now,
                problem=PlanProblem("InvalidSpec", str(exc)),
            )
        else:
            refs = panel_secret_refs(panel)
            secrets = await self._secrets(namespace, [r for _, r in refs])
            missing = missing_secrets(refs, secrets)
            status = judge_panel_status(previous, generation=generation, now=now, missing=missing)
        await self._patch_status("judgepanels", body, status_patch(status))

    # --- Rollout -----------------------------------------------------------------

    async def reconcile_rollout(self, namespace: str, name: str) -> float:
        """One reconcile of a Rollout; returns how long to wait before the next."""
        body = await asyncio.to_thread(self.kube.get, GROUP, VERSION, "rollouts", namespace, name)
        meta = (body or {}).get("metadata") or {}
        if body is None or meta.get("deletionTimestamp"):
            return self.config.interval_seconds
        ref = RolloutRef(name=name, namespace=namespace, uid=str(meta.get("uid", "")))
        previous = previous_status(RolloutStatus, body.get("status"))
        generation = meta.get("generation")
        now = _now()
        plan, rollout = await self._plan(body, ref)
        if plan.problem is not None or rollout is None or plan.store is None:
            problem = plan.problem or PlanProblem("InvalidSpec", "cannot be planned")
            status = rollout_status(
                previous, generation=generation, now=_stamp(now), problem=problem
            )
            await self._patch_status("rollouts", body, status_patch(status))
            return wait_after_problem(problem.permanent, self.config.idle_interval_seconds)
        decision = await self._apply_trials(ref, rollout, plan, now)
        scoring = ScoringView()
        if decision.finished and decision.counts.done:
            scoring = await self.scoring.view(ref, plan, previous, generation)
        status = rollout_status(
            previous,
            generation=generation,
            now=_stamp(now),
            decision=decision,
            plan_note=plan.note,
            scoring=scoring,
            artifacts=plan.store.uri,
        )
        self.progress[name] = status.trials
        await self._patch_status("rollouts", body, status_patch(status))
        return wait_after_reconcile(
            status.phase,
            decision.requeue_after,
            interval=self.config.interval_seconds,
            idle_interval=self.config.idle_interval_seconds,
        )

    async def _plan(
        self, body: Mapping[str, Any], ref: RolloutRef
    ) -> tuple[RolloutPlan, Rollout | None]:
        """The rollout's current plan: cached while nothing it depends on changed."""
        try:
            rollout = parse_body(Rollout, body)
            check_cluster_rollout(rollout, where=describe(body))
        except SpecError as exc:
            return RolloutPlan("", problem=PlanProblem("InvalidSpec", str(exc))), None
        bench_body = await asyncio.to_thread(
            self.kube.get, GROUP, VERSION, "benchmarks", ref.namespace, rollout.spec.benchmark
        )
        if bench_body is None:
            message = f"spec.benchmark: Benchmark {rollout.spec.benchmark!r} not found"
            return RolloutPlan("", problem=PlanProblem("BenchmarkNotFound", message)), None
        try:
            benchmark = parse_body(Benchmark, bench_body)
        except SpecError as exc:
            return RolloutPlan("", problem=PlanProblem("BenchmarkInvalid", str(exc))), None
        panel = None
        if rollout.spec.judge_panel:
            panel_body = await asyncio.to_thread(
                self.kube.get,
                GROUP,
                VERSION,
                "judgepanels",
                ref.namespace,
                rollout.spec.judge_panel,
            )
            if panel_body is None:
                message = f"spec.judgePanel: JudgePanel {rollout.spec.judge_panel!r} not found"
                return RolloutPlan("", problem=PlanProblem("JudgePanelNotFound", message)), None
            try:
                panel = parse_body(JudgePanel, panel_body)
            except SpecError as exc:
                return RolloutPlan("", problem=PlanProblem("JudgePanelInvalid", str(exc))), None
        refs = model_secret_refs(rollout) + (panel_secret_refs(panel) if panel else [])
        secrets = await self._secrets(ref.namespace, [r for _, r in refs])
        missing = missing_secrets(refs, secrets)
        if missing:
            return RolloutPlan("", problem=PlanProblem("SecretNotFound", "; ".join(missing))), None
        key = plan_key(rollout, benchmark, panel, storage_for(rollout, self.config))
        cached = self.plans.get(ref.uid)
        if cached is not None and cached.plan_id == key:
            return cached, rollout
        values = [
            v
            for _, r in model_secret_refs(rollout)
            for v in decode_secret_values(secrets.get(r.name), [r.key])
        ]
        plan = await asyncio.to_thread(
            plan_rollout, rollout, benchmark, panel, self.config, plan_id=key, secrets=values
        )
        if keeps_plan(plan.problem):
            self.plans[ref.uid] = plan
            log.info("rollout %s/%s planned: %s", ref.namespace, ref.name, plan.note)
        return plan, rollout

    async def _secrets(
        self, namespace: str, refs: list[SecretKeyRef]
    ) -> dict[str, dict[str, Any] | None]:
        names = sorted({r.name for r in refs})
        found = await asyncio.gather(
            *(asyncio.to_thread(self.kube.secret_data, namespace, n) for n in names)
        )
        return dict(zip(names, found, strict=True))

    async def _apply_trials(
        self, ref: RolloutRef, rollout: Rollout, plan: RolloutPlan, now: datetime
    ) -> TrialDecision:
        labels = {LABEL_ROLLOUT: ref.name}
        jobs, pods = await asyncio.gather(
            asyncio.to_thread(self.kube.list, "batch", "v1", "jobs", ref.namespace, labels),
            asyncio.to_thread(self.kube.list, "", "v1", "pods", ref.namespace, labels),
        )
        views = [v for v in map(job_view, jobs) if v is not None]
        problems = [p for p in map(pod_problem, pods) if p is not None]
        policy = RetryPolicy(
            parallelism=rollout.spec.parallelism,
            max_retries=rollout.spec.max_retries,
            backoff_seconds=self.config.retry_backoff_seconds,
            backoff_max_seconds=self.config.retry_backoff_max_seconds,
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
            await asyncio.to_thread(self.kube.delete, "batch", "v1", "jobs", ref.namespace, name)
        for trial, attempt in decision.create:
            job = build_job(
                ref,
                trial,
                attempt,
                models[trial.model],
                scaffolds[trial.scaffold],
                plan.store.uri,
                self.config,
                sidecar=uses_sidecar(models[trial.model]),
                environment=plan.environments.get(trial.instance),
            )
            created = await asyncio.to_thread(self.kube.create, job, "jobs")
            log.info(
                "Job %s/%s %s (trial %s attempt %d)",
                ref.namespace,
                job["metadata"]["name"],
                "created" if created else "exists already",
                trial.id,
                attempt,
            )
        return decision

    # --- cleanup -----------------------------------------------------------------

    async def cleanup_rollout(self, namespace: str, name: str, uid: str) -> int:
        """Delete a rollout's Jobs and scoring RayJobs, stop its scoring; how many Jobs went.

        Its artifacts stay in the store.
        """
        self.scoring.forget(uid)
        self.plans.pop(uid, None)
        self.progress.pop(name, None)
        labels = {LABEL_ROLLOUT: name}
        jobs = await asyncio.to_thread(self.kube.list, "batch", "v1", "jobs", namespace, labels)
        for job in jobs:
            await asyncio.to_thread(
                self.kube.delete, "batch", "v1", "jobs", namespace, job["metadata"]["name"]
            )
        if await asyncio.to_thread(self.kube.serves, RAY_GROUP, RAY_VERSION, RAY_PLURAL):
            for rayjob in await asyncio.to_thread(
                self.kube.list, RAY_GROUP, RAY_VERSION, RAY_PLURAL, namespace, labels
            ):
                await asyncio.to_thread(
                    self.kube.delete,
                    RAY_GROUP,
                    RAY_VERSION,
                    RAY_PLURAL,
                    namespace,
                    rayjob["metadata"]["name"],
                )
        self.kicks.pop(("rollouts", namespace, name), None)
        return len(jobs)

    async def _patch_status(
        self, plural: str, body: Mapping[str, Any], status: dict[str, Any]
    ) -> None:
        """Patch the status when it changed."""
        if not status_changed(body.get("status") or {}, status):
            return
        meta = body.get("metadata") or {}
        try:
            await asyncio.to_thread(
                self.kube.patch_status,
                GROUP,
                VERSION,
                plural,
                meta.get("namespace"),
                str(meta.get("name")),
                status,
            )
        except KubeError as exc:
            if exc.status != 404:  # deleted meanwhile: nothing to report on
                raise
