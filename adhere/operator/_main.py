"""Running the operator: ``adhere operator``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import kopf

from adhere.errors import SpecError
from adhere.operator._config import OperatorConfig
from adhere.operator._handlers import build_registry, operator_settings
from adhere.spec import TrialCounts

if TYPE_CHECKING:
    from adhere.exporter import MetricsServer

log = logging.getLogger(__name__)


def run_operator(
    config: OperatorConfig,
    *,
    namespaces: Sequence[str] = (),
    liveness_endpoint: str | None = None,
    metrics_port: int | None = None,
    metrics_addr: str = "0.0.0.0",
    metrics_settings: str | None = None,
) -> None:
    """Run the operator until interrupted (cluster-wide unless ``namespaces`` are given).

    It runs standalone (no kopf peering): deploy one replica. With ``metrics_port``
    it also serves ``/metrics`` (:mod:`adhere.exporter`) for the rollouts in its
    ``storeUri``, with trial counts from its own reconciles.
    """
    progress: dict[str, TrialCounts] = {}
    server = None
    if metrics_port is not None:
        server = _start_metrics(config, progress, metrics_port, metrics_addr, metrics_settings)
    log.info(
        "adhere operator starting (%s)",
        "namespaces " + ", ".join(namespaces) if namespaces else "cluster-wide",
    )
    try:
        kopf.run(
            registry=build_registry(config, progress=progress),
            settings=operator_settings(),
            standalone=True,
            clusterwide=not namespaces,
            namespaces=list(namespaces),
            liveness_endpoint=liveness_endpoint,
        )
    finally:
        if server is not None:
            server.stop()


def _start_metrics(
    config: OperatorConfig,
    progress: dict[str, TrialCounts],
    port: int,
    addr: str,
    settings_file: str | None,
) -> MetricsServer:
    from prometheus_client import CollectorRegistry

    from adhere.exporter import StoreCollector, load_settings, start_metrics_server
    from adhere.exporter import TrialCounts as ExportedCounts

    if config.store_uri is None:
        raise SpecError(
            "serving metrics needs the store the rollouts write to: set storeUri",
            field="--metrics-port",
        )

    def counts(rollout: str) -> ExportedCounts | None:
        found = progress.get(rollout)
        if found is None:
            return None
        return ExportedCounts(
            planned=found.planned,
            running=found.running,
            done=found.done,
            failed=found.failed,
            retried=found.retried,
        )

    registry = CollectorRegistry()
    StoreCollector(
        config.store_uri, load_settings(settings_file), registry=registry, progress=counts
    )
    server = start_metrics_server(registry, port, addr)
    log.info("metrics on %s", server.url)
    return server
