"""The real Helm library (helm-sdkpy) and a Kubernetes API to install the chart into.

helm-sdkpy bundles Helm's Go library. It declares Python >= 3.12, so it cannot be in
uv.lock; scripts/test.sh installs it (``--ignore-requires-python``) into
``~/.cache/adhere/helm-sdkpy`` or ``$ADHERE_HELM_SDKPY``, and the tests run it from
there (in a subprocess: see _helm_run.py). Missing, they fail and say how to install it.

Helm has no offline ``template`` here, so the chart is rendered by a real
``helm install`` into kmock's KubernetesEmulator (an HTTP server speaking the
Kubernetes API): Helm renders with the given values, checks them against
values.schema.json, creates the CRDs and the objects, and returns the manifest.
"""

from __future__ import annotations

import gzip
import importlib.resources
from collections.abc import AsyncIterator

import kmock
import pytest

from tests.integration.chart._helm_parts import HELM_SDKPY, Cluster, Emulator


@pytest.fixture(autouse=True, scope="session")
def _helm_sdkpy_installed() -> None:
    if not (HELM_SDKPY / "helm_sdkpy" / "__init__.py").is_file():
        pytest.fail(
            f"helm-sdkpy is not installed in {HELM_SDKPY}: run scripts/install-helm-sdkpy.sh "
            "(scripts/test.sh does); ADHERE_HELM_SDKPY selects another directory"
        )


@pytest.fixture()
async def cluster() -> AsyncIterator[Cluster]:
    emulator = Emulator()
    # The built-in resources, read from kmock's bundled file (kmock's load_bundled() uses
    # a deprecated importlib call, and warnings fail the tests) …
    bundled = importlib.resources.files("kmock._internal").joinpath("resources.json.gz")
    emulator.resources.load_data(gzip.decompress(bundled.read_bytes()))
    # … and the Prometheus Operator's kinds the chart may create.
    monitoring = (("servicemonitors", "ServiceMonitor"), ("prometheusrules", "PrometheusRule"))
    for plural, kind in monitoring:
        emulator.resources[f"monitoring.coreos.com/v1/{plural}"] = kmock.ResourceInfo(
            kind=kind, namespaced=True, verbs={"get", "list", "watch", "create", "patch", "delete"}
        )
    async with emulator, kmock.Server(emulator):
        yield Cluster(emulator)
