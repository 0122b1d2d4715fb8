"""Running the operator: ``adhere operator``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import kopf

from adhere.operator._config import OperatorConfig
from adhere.operator._handlers import build_registry, operator_settings

log = logging.getLogger(__name__)


def run_operator(
    config: OperatorConfig,
    *,
    namespaces: Sequence[str] = (),
    liveness_endpoint: str | None = None,
) -> None:
    """Run the operator until interrupted (cluster-wide unless ``namespaces`` are given).

    It runs standalone (no kopf peering): deploy one replica.
    """
    log.info(
        "adhere operator starting (%s)",
        "namespaces " + ", ".join(namespaces) if namespaces else "cluster-wide",
    )
    kopf.run(
        registry=build_registry(config),
        settings=operator_settings(),
        standalone=True,
        clusterwide=not namespaces,
        namespaces=list(namespaces),
        liveness_endpoint=liveness_endpoint,
    )
