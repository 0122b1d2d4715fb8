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
from adhere.operator._jobs import RolloutRef
from adhere.operator._kube import Kube
from adhere.operator._names import GROUP, VERSION
from adhere.operator._plan_inputs import current_plan, read_secrets
from adhere.operator._planning import (
    RolloutPlan,
    resolve_benchmark,
)
from adhere.operator._reconcile import (
    wait_after_problem,
    wait_after_reconcile,
)
from adhere.operator._scoring import ScoringPasses
from adhere.operator._status import (
    PlanProblem,
    ScoringView,
    benchmark_status,
    judge_panel_status,
    previous_status,
    rollout_status,
    status_changed,
    status_patch,
)
from adhere.operator._trial_jobs import apply_trials, delete_rollout_jobs
from adhere.operator._validate import (
    missing_secrets,
    panel_secret_refs,
    parse_body,
)
from adhere.spec import (
    Benchmark,
    BenchmarkStatus,
    JudgePanel,
    JudgePanelStatus,
    RolloutStatus,
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
            secrets = await read_secrets(self.kube, namespace, [r for _, r in refs])
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
        plan, rollout = await current_plan(self.kube, self.config, self.plans, body, ref)
        if plan.problem is not None or rollout is None or plan.store is None:
            problem = plan.problem or PlanProblem("InvalidSpec", "cannot be planned")
            status = rollout_status(
                previous, generation=generation, now=_stamp(now), problem=problem
            )
            await self._patch_status("rollouts", body, status_patch(status))
            return wait_after_problem(problem.permanent, self.config.idle_interval_seconds)
        decision = await apply_trials(self.kube, self.config, ref, rollout, plan, now)
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

    # --- cleanup -----------------------------------------------------------------

    async def cleanup_rollout(self, namespace: str, name: str, uid: str) -> int:
        """Delete a rollout's Jobs and scoring RayJobs, stop its scoring; how many Jobs went.

        Its artifacts stay in the store.
        """
        self.scoring.forget(uid)
        self.plans.pop(uid, None)
        self.progress.pop(name, None)
        deleted = await delete_rollout_jobs(self.kube, namespace, name)
        self.kicks.pop(("rollouts", namespace, name), None)
        return deleted

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
