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
JudgePanel          a timer (``secretCheckIntervalSeconds``) and on update: validate,
                    check its Secrets
==================  ===========================================================================

Handlers are registered into a registry given to :func:`build_registry`, so tests
run the operator with a fresh registry through ``kopf.testing.KopfRunner``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import kopf

from adhere.errors import AdhereError, KubeError
from adhere.operator._config import OperatorConfig
from adhere.operator._controller import RETRY_SECONDS, Controller
from adhere.operator._kube import Kube
from adhere.operator._names import FINALIZER, GROUP, LABEL_ROLLOUT, VERSION

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
) -> kopf.OperatorRegistry:
    """A kopf registry with the adhere operator's handlers.

    Args:
        config: The operator's settings.
        kube_factory: Makes the API client at startup (reads the kubeconfig then).
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
        holder["controller"] = Controller(kube_factory(), config)

    @kopf.on.cleanup(registry=registry)
    async def cleanup(**_: Any) -> None:
        ctl = holder.pop("controller", None)
        if ctl is not None:
            for record in ctl.scoring.values():
                if record.task is not None:
                    record.task.cancel()
            ctl.kube.close()

    # --- Rollouts ----------------------------------------------------------------

    @kopf.daemon(GROUP, VERSION, "rollouts", registry=registry, cancellation_timeout=10.0)
    async def rollout_daemon(
        *, name: str, namespace: str | None, stopped: kopf.DaemonStopped, **_: Any
    ) -> None:
        ctl, ns = controller(), namespace or "default"
        while not stopped:
            try:
                wait = await ctl.reconcile_rollout(ns, name)
            except AdhereError as exc:  # the API or the store: try again shortly
                log.warning("rollout %s/%s: %s; retrying", ns, name, exc)
                wait = RETRY_SECONDS
            except Exception:  # keep reconciling: one bad pass must not stop the rollout
                log.exception("rollout %s/%s: reconcile failed; retrying", ns, name)
                wait = RETRY_SECONDS
            await ctl.wait(ns, name, wait)

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

    async def judge_panel(name: str, namespace: str | None) -> None:
        ns = namespace or "default"
        try:
            await controller().reconcile_judge_panel(ns, name)
        except KubeError as exc:
            raise kopf.TemporaryError(str(exc), delay=RETRY_SECONDS) from exc
        controller().kick_namespace(ns)

    @kopf.timer(
        GROUP,
        VERSION,
        "judgepanels",
        registry=registry,
        interval=config.secret_check_interval_seconds,
    )
    async def judge_panel_timer(*, name: str, namespace: str | None, **_: Any) -> None:
        await judge_panel(name, namespace)

    @kopf.on.update(GROUP, VERSION, "judgepanels", registry=registry)
    async def judge_panel_updated(*, name: str, namespace: str | None, **_: Any) -> None:
        await judge_panel(name, namespace)

    return registry
