"""The exporter reading a store of either backend (the file store, moto's S3 server)."""

import json

from prometheus_client import CollectorRegistry

from adhere.exporter import ExporterSettings, StoreCollector
from adhere.store import Store, open_store
from tests.integration.store._s3_parts import FAST, MotoS3
from tests.unit.exporter.exporter_stores import write_rollout


def test_collector_reads_rollouts_and_regressions_from_the_store(store: Store) -> None:
    calls = [
        {"status": 200, "error": None, "duration_seconds": 0.2},
        {"status": 503, "error": "HTTP 503", "duration_seconds": 0.1},
    ]
    write_rollout(store, "old", {"m": [("pass", "pass")] * 6})
    write_rollout(store, "new", {"m": [("fail", "pass")] * 6}, baseline="old", calls=calls)
    now = [0.0]
    registry = CollectorRegistry()
    StoreCollector(store, ExporterSettings(ttl_seconds=5), registry=registry, clock=lambda: now[0])

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    where = {"rollout": "new", "benchmark": "bench", "suite": "octobench", "scaffold": "chat"}
    assert value("adhere_isr", **where, model="m") == 0
    assert value("adhere_csr", **where, model="m") == 0.5
    labels = {"rollout": "new", "benchmark": "bench", "suite": "octobench", "model": "m"}
    assert value("adhere_proxy_calls_total", **labels) == 12
    assert value("adhere_proxy_call_errors_total", **labels, reason="http_5xx") == 6
    regression = {"rollout": "new", "baseline": "old", "model": "m", "source": "SP"}
    assert value("adhere_regression_flag", **regression, metric="isr") == 1
    assert value("adhere_exporter_rollouts", state="found") == 2
    # A changed file is seen after the TTL, whatever the backend.
    store.write_bytes("new/progress.json", json.dumps({"running": 5}).encode())
    progress = {"rollout": "new", "benchmark": "bench", "suite": "octobench", "state": "running"}
    assert value("adhere_trials", **progress) == 0
    now[0] = 6.0
    assert value("adhere_trials", **progress) == 5
    assert value("adhere_exporter_refresh_errors_total") == 0


def test_collector_opens_an_s3_uri(moto: MotoS3) -> None:
    uri = moto.uri(**FAST)
    write_rollout(open_store(uri), "r", {"m": [("pass", "pass")]})
    registry = CollectorRegistry()
    StoreCollector(uri, registry=registry)  # opened by URI, as `adhere exporter` does
    where = {"rollout": "r", "benchmark": "bench", "suite": "octobench", "scaffold": "chat"}
    assert registry.get_sample_value("adhere_isr", {**where, "model": "m"}) == 1
