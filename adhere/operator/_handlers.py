"""The kopf handlers: thin glue between kopf's events and the :class:`Controller`.

==================  ===========================================================================
Rollout             one daemon per Rollout: reconcile, then sleep until kicked or
                    ``intervalSeconds`` passed (level-triggered: each pass reads the
                    Rollout, its Jobs and pods afresh); on delete (a finalizer): delete
                    its Jobs and scoring RayJobs
Job, Pod            labelled ``adhere.dev/rollout``: any event kicks that Rollout's daemon,
                    so completions and scheduling problems show within moments
Benchmark           on create, update and resume: validate, resolve and store the
                    instances, count them
JudgePanel          one daemon per JudgePanel, woken by its events and every
                    ``secretCheckIntervalSeconds``: validate, check its Secrets
==================  ===========================================================================

Handlers are registered into a registry given to :func:`build_registry`, so tests
run the operator with a fresh registry through ``kopf.testing.KopfRunner``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

import kopf

from adhere.errors import AdhereError, KubeError
from adhere.operator._config import OperatorConfig
from adhere.operator._controller import Controller
from adhere.operator._kube import Kube
from adhere.operator._names import FINALIZER, GROUP, LABEL_ROLLOUT, VERSION
from adhere.operator._reconcile import RETRY_SECONDS
from adhere.spec import TrialCounts

log = logging.getLogger(__name__)


def operator_settings() -> kopf.OperatorSettings:
    """Kopf settings for adhere: its own finalizer and annotations, warnings as Events."""
    settings = kopf.OperatorSettings()
    settings.persistence.finalizer = FINALIZER
    settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix="adhere.dev")
    settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix="adhere.dev", key="last-handled-configuration"
    )
    settings.posting.level = logging.WARNING
    return settings


def build_registry(
    config: OperatorConfig,
    *,
    kube_factory: Callable[[], Kube] = Kube.from_environment,
    progress: dict[str, TrialCounts] | None = None,
) -> kopf.OperatorRegistry:
    """A kopf registry with the adhere operator's handlers.

    Args:
        config: The operator's settings.
        kube_factory: Makes the API client at startup (reads the kubeconfig then).
        progress: Filled with each rollout's latest trial counts (for metrics).
    """
    registry = kopf.OperatorRegistry()
    holder: dict[str, Controller] = {}

    def controller() -> Controller:
        return holder["controller"]

    @kopf.on.login(registry=registry)
    def login(**kwargs: Any) -> kopf.ConnectionInfo | None:
        return kopf.login_with_service_account(**kwargs) or kopf.login_with_kubeconfig(**kwargs)

    @kopf.on.startup(registry=registry)
    async def startup(**_: Any) -> None:
        holder["controller"] = Controller(kube_factory(), config, progress=progress)

    @kopf.on.cleanup(registry=registry)
    async def cleanup(**_: Any) -> None:
        ctl = holder.get("controller")
        if ctl is not None:
            ctl.close()

    async def keep_reconciling(
        kind: str,
        namespace: str | None,
        name: str,
        stopped: kopf.DaemonStopped,
        once: Callable[[Controller, str], Awaitable[float]],
    ) -> None:
        """Reconcile, then sleep until kicked, the wait is over or kopf stops the daemon."""
        ctl, ns = holder.get("controller"), namespace or "default"
        if ctl is None:  # spawned while the operator stops
            return
        while not stopped and not ctl.closed:
            try:
                wait = await once(ctl, ns)
            except AdhereError as exc:  # the API or the store: try again shortly
                log.warning("%s %s/%s: %s; retrying", kind, ns, name, exc)
                wait = RETRY_SECONDS
            except Exception:  # keep reconciling: one bad pass must not stop the resource
                log.exception("%s %s/%s: reconcile failed; retrying", kind, ns, name)
                wait = RETRY_SECONDS
            sleeper = asyncio.ensure_future(ctl.wait(kind, ns, name, wait))
            stopper = asyncio.ensure_future(cast(Awaitable[Any], stopped.wait()))
            try:
                await asyncio.wait({sleeper, stopper}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                stopper.cancel()

    # --- Rollouts ----------------------------------------------------------------

    @kopf.daemon(GROUP, VERSION, "rollouts", registry=registry, cancellation_timeout=10.0)
    async def rollout_daemon(
        *, name: str, namespace: str | None, stopped: kopf.DaemonStopped, **_: Any
    ) -> None:
        async def once(ctl: Controller, ns: str) -> float:
            return await ctl.reconcile_rollout(ns, name)

        await keep_reconciling("rollouts", namespace, name, stopped, once)

    @kopf.on.event(GROUP, VERSION, "rollouts", registry=registry)
    def rollout_event(*, name: str, namespace: str | None, **_: Any) -> None:
        if "controller" in holder and namespace:
            controller().kick(namespace, name)

    @kopf.on.delete(GROUP, VERSION, "rollouts", registry=registry)
    async def rollout_deleted(*, name: str, namespace: str | None, uid: str, **_: Any) -> None:
        ns = namespace or "default"
        try:
            deleted = await controller().cleanup_rollout(ns, name, uid)
        except KubeError as exc:
            raise kopf.TemporaryError(str(exc), delay=RETRY_SECONDS) from exc
        log.info("rollout %s/%s deleted: %d Jobs deleted", ns, name, deleted)

    def kick_owner(namespace: str | None, labels: Mapping[str, str]) -> None:
        rollout = labels.get(LABEL_ROLLOUT)
        if rollout and namespace and "controller" in holder:
            controller().kick(namespace, rollout)

    @kopf.on.event("batch", "v1", "jobs", labels={LABEL_ROLLOUT: kopf.PRESENT}, registry=registry)
    def job_event(*, namespace: str | None, labels: Mapping[str, str], **_: Any) -> None:
        kick_owner(namespace, labels)

    @kopf.on.event("", "v1", "pods", labels={LABEL_ROLLOUT: kopf.PRESENT}, registry=registry)
    def pod_event(*, namespace: str | None, labels: Mapping[str, str], **_: Any) -> None:
        kick_owner(namespace, labels)

    # --- Benchmarks and JudgePanels ---------------------------------------------

    async def benchmark(name: str, namespace: str | None) -> None:
        try:
            await controller().reconcile_benchmark(namespace or "default", name)
        except KubeError as exc:
            raise kopf.TemporaryError(str(exc), delay=RETRY_SECONDS) from exc

    @kopf.on.resume(GROUP, VERSION, "benchmarks", registry=registry)
    async def benchmark_resumed(*, name: str, namespace: str | None, **_: Any) -> None:
        await benchmark(name, namespace)

    @kopf.on.create(GROUP, VERSION, "benchmarks", registry=registry)
    async def benchmark_created(*, name: str, namespace: str | None, **_: Any) -> None:
        await benchmark(name, namespace)

    @kopf.on.update(GROUP, VERSION, "benchmarks", registry=registry)
    async def benchmark_updated(*, name: str, namespace: str | None, **_: Any) -> None:
        await benchmark(name, namespace)

    @kopf.daemon(GROUP, VERSION, "judgepanels", registry=registry, cancellation_timeout=10.0)
    async def judge_panel_daemon(
        *, name: str, namespace: str | None, stopped: kopf.DaemonStopped, **_: Any
    ) -> None:
        async def once(ctl: Controller, ns: str) -> float:
            await ctl.reconcile_judge_panel(ns, name)
            ctl.kick_namespace(ns)  # rollouts waiting for its Secrets look again
            return config.secret_check_interval_seconds

        await keep_reconciling("judgepanels", namespace, name, stopped, once)

    @kopf.on.event(GROUP, VERSION, "judgepanels", registry=registry)
    def judge_panel_event(*, name: str, namespace: str | None, **_: Any) -> None:
        if "controller" in holder and namespace:
            controller().kick(namespace, name, kind="judgepanels")

    return registry
