"""The store collector on small hand-written stores, read through a fresh registry."""

import json
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry

import adhere.exporter
from adhere.errors import SpecError
from adhere.exporter import (
    ExporterSettings,
    Price,
    StoreCollector,
    TrialCounts,
    load_settings,
    start_metrics_server,
)
from adhere.exporter._families import bounded, histogram_buckets
from adhere.exporter._read import call_reason
from adhere.store import FileStore
from tests.unit.exporter.exporter_stores import write_rollout


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


def test_public_names() -> None:
    assert adhere.exporter.__all__ == sorted(adhere.exporter.__all__)
    assert {"StoreCollector", "start_metrics_server", "ExporterSettings"} <= set(
        adhere.exporter.__all__
    )


def test_rates_by_model_source_and_check_type(tmp_path: Path) -> None:
    write_rollout(tmp_path, "r", {"m": [("pass", "pass"), ("pass", "fail"), ("fail", "n/a")]})
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), registry=registry)
    base = {"rollout": "r", "benchmark": "bench", "suite": "octobench", "model": "m"}
    where = {**base, "scaffold": "chat"}
    # ISR: 1 of 3 trials all-pass; CSR: (1 + 1/2 + 0) / 3.
    assert sample(registry, "adhere_isr", **where) == pytest.approx(1 / 3)
    assert sample(registry, "adhere_csr", **where) == pytest.approx(0.5)
    assert sample(registry, "adhere_verdicts", **where, result="n/a") == 1
    assert sample(registry, "adhere_isr_by_source", **where, source="SP") == pytest.approx(2 / 3)
    assert sample(registry, "adhere_isr_by_source", **where, source="UserQuery") == 0.5
    assert sample(registry, "adhere_isr_by_check_type", **where, check_type="testing") == 0.5
    progress = {"rollout": "r", "benchmark": "bench", "suite": "octobench"}
    assert sample(registry, "adhere_trials", **progress, state="planned") == 3
    assert sample(registry, "adhere_trials", **progress, state="done") == 3
    assert sample(registry, "adhere_trials", **progress, state="running") == 0
    assert sample(registry, "adhere_rollout_last_progress_timestamp_seconds", **progress) == (
        1735689602.0
    )
    tokens = {**progress, "role": "agent", "model": "m", "direction": "input"}
    assert sample(registry, "adhere_tokens_total", **tokens) == 3000
    assert sample(registry, "adhere_cost_usd_total", **progress, role="agent", model="m") is None
    assert sample(registry, "adhere_proxy_calls_total", **progress, model="m") == 3
    bucket = {**progress, "model": "m", "le": "0.25"}
    assert sample(registry, "adhere_proxy_call_duration_seconds_bucket", **bucket) == 3
    assert sample(registry, "adhere_exporter_rollouts", state="exported") == 1


def test_models_beyond_the_bound_are_merged_as_other(tmp_path: Path) -> None:
    outcomes = {
        "big": [("pass", "pass")] * 4,
        "small": [("fail", "fail")] * 2,
        "tiny": [("pass", "pass")],
    }
    write_rollout(tmp_path, "r", outcomes)
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), ExporterSettings(max_models=1), registry=registry)
    where = {"rollout": "r", "benchmark": "bench", "suite": "octobench", "scaffold": "chat"}
    assert sample(registry, "adhere_isr", **where, model="big") == 1
    assert sample(registry, "adhere_isr", **where, model="other") == pytest.approx(1 / 3)
    assert sample(registry, "adhere_isr", **where, model="small") is None
    assert sample(registry, "adhere_scored_trials", **where, model="other") == 3


def test_prices_and_progress_override(tmp_path: Path) -> None:
    write_rollout(tmp_path, "r", {"m": [("pass", "pass")] * 2})
    prices = {"id-*": Price(input_per_million=2, output_per_million=10)}
    registry = CollectorRegistry()
    StoreCollector(
        FileStore(tmp_path),
        ExporterSettings(prices=prices),
        registry=registry,
        progress=lambda name: TrialCounts(planned=10, running=4, done=2) if name == "r" else None,
    )
    labels = {"rollout": "r", "benchmark": "bench", "suite": "octobench"}
    cost = (2000 * 2 + 200 * 10) / 1e6
    assert sample(registry, "adhere_cost_usd_total", **labels, role="agent", model="m") == (
        pytest.approx(cost)
    )
    assert sample(registry, "adhere_trials", **labels, state="running") == 4
    assert sample(registry, "adhere_trials", **labels, state="planned") == 10


def test_regression_against_the_spec_baseline(tmp_path: Path) -> None:
    write_rollout(tmp_path, "old", {"m": [("pass", "pass")] * 6})
    write_rollout(
        tmp_path, "new", {"m": [("fail", "pass")] * 6}, baseline="old"
    )  # SP broke everywhere
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), registry=registry)
    where = {"rollout": "new", "baseline": "old", "model": "m", "metric": "isr"}
    assert sample(registry, "adhere_regression_delta", **where, source="SP") == -1
    assert sample(registry, "adhere_regression_delta", **where, source="UserQuery") == 0
    p = sample(registry, "adhere_regression_p_value", **where, source="SP", test="mcnemar")
    assert p == pytest.approx(2 / 64)
    # One family: ISR and CSR of `all`, SP (each 2/64) and UserQuery (each 1). BH: the
    # four smallest become 2/64 · 6/4.
    adjusted = sample(registry, "adhere_regression_p_adjusted", **where, source="SP")
    assert adjusted == pytest.approx(2 / 64 * 6 / 4)
    assert sample(registry, "adhere_regression_flag", **where, source="SP") == 1
    assert sample(registry, "adhere_regression_flag", **where, source="UserQuery") == 0
    assert sample(registry, "adhere_regression_pairs", **{**where, "source": "all"}) is None
    del where["metric"]
    assert sample(registry, "adhere_regression_pairs", **where, source="all") == 6
    assert sample(registry, "adhere_regression_instances", **where, source="all") == 6
    assert sample(registry, "adhere_regression_insufficient_data", **where, source="all") == 0
    # The CLI's --baseline (settings.baselines) names a baseline the spec does not.
    registry = CollectorRegistry()
    settings = ExporterSettings(baselines={"old": "new"}, regression_threshold=0.5)
    StoreCollector(FileStore(tmp_path), settings, registry=registry)
    where = {"rollout": "old", "baseline": "new", "model": "m", "metric": "isr", "source": "SP"}
    assert sample(registry, "adhere_regression_delta", **where) == 1
    assert sample(registry, "adhere_regression_flag", **where) == 0  # an improvement


def test_regression_of_one_instance_is_insufficient_data_not_a_flag(tmp_path: Path) -> None:
    # The same rule as `adhere compare`: one shared instance supports no test.
    write_rollout(tmp_path, "old", {"m": [("pass", "pass")]})
    write_rollout(tmp_path, "new", {"m": [("fail", "fail")]}, baseline="old")
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), registry=registry)
    where = {"rollout": "new", "baseline": "old", "model": "m", "source": "all"}
    assert sample(registry, "adhere_regression_insufficient_data", **where) == 1
    assert sample(registry, "adhere_regression_delta", **where, metric="isr") == -1
    assert sample(registry, "adhere_regression_flag", **where, metric="isr") == 0
    assert sample(registry, "adhere_regression_flag", **where, metric="csr") == 0
    for test in ("mcnemar", "permutation"):
        p = sample(registry, "adhere_regression_p_value", **where, metric="isr", test=test)
        assert p is None
    assert sample(registry, "adhere_regression_p_adjusted", **where, metric="isr") is None


def test_refresh_is_cached_for_the_ttl(tmp_path: Path) -> None:
    store = write_rollout(tmp_path, "r", {"m": [("pass", "pass")]})
    now = [0.0]
    registry = CollectorRegistry()
    StoreCollector(
        FileStore(tmp_path),
        ExporterSettings(ttl_seconds=10),
        registry=registry,
        clock=lambda: now[0],
    )
    where = {"rollout": "r", "benchmark": "bench", "suite": "octobench", "state": "running"}
    assert sample(registry, "adhere_trials", **where) == 0
    store.store.write_bytes("r/progress.json", json.dumps({"running": 2}).encode())
    now[0] = 9.0
    assert sample(registry, "adhere_trials", **where) == 0  # cached
    now[0] = 10.5
    assert sample(registry, "adhere_trials", **where) == 2


def test_an_unreadable_rollout_is_skipped_and_counted(tmp_path: Path) -> None:
    store = write_rollout(tmp_path, "r", {"m": [("pass", "pass")]})
    registry = CollectorRegistry()
    StoreCollector(FileStore(tmp_path), ExporterSettings(ttl_seconds=0), registry=registry)
    where = {"rollout": "r", "benchmark": "bench", "suite": "octobench", "scaffold": "chat"}
    assert sample(registry, "adhere_isr", **where, model="m") == 1
    store.store.write_bytes("r/instances.jsonl", b"{not json\n")
    assert sample(registry, "adhere_isr", **where, model="m") is None  # the rollout is skipped
    errors = sample(registry, "adhere_exporter_refresh_errors_total")
    assert errors is not None and errors >= 1  # one per refresh that could not read it


def test_metrics_server_serves_the_registry(tmp_path: Path) -> None:
    write_rollout(tmp_path, "r", {"m": [("pass", "pass")]})
    registry = CollectorRegistry()
    StoreCollector(str(tmp_path), registry=registry)
    server = start_metrics_server(registry, 0)
    try:
        text = httpx.get(server.url, timeout=5).text
    finally:
        server.stop()
    assert server.url.startswith("http://127.0.0.1:")
    assert 'adhere_isr{benchmark="bench",model="m",rollout="r",scaffold="chat"' in text


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"status": 200, "error": None}, "ok"),
        ({"status": 200, "error": "stream cut"}, "stream"),
        ({"status": None, "error": "upstream unreachable"}, "transport"),
        ({"status": 429, "error": "HTTP 429"}, "http_429"),
        ({"status": 404, "error": "HTTP 404"}, "http_4xx"),
        ({"status": 503, "error": "HTTP 503"}, "http_5xx"),
        ({"status": 302, "error": "HTTP 302"}, "http_other"),
    ],
)
def test_call_reasons(record: dict, reason: str) -> None:
    assert call_reason(record) == reason


def test_bounded_labels_and_buckets() -> None:
    from collections import Counter

    labels = bounded(Counter({"b": 2, "a": 2, "c": 1}), 2)
    assert labels == {"a": "a", "b": "b", "c": "other"}
    buckets, total = histogram_buckets([0.1, 0.3, 2.0], (0.25, 1.0))
    assert buckets == [("0.25", 1.0), ("1.0", 2.0), ("+Inf", 3.0)] and total == 2.4


def test_settings_prices_and_file(tmp_path: Path) -> None:
    settings = ExporterSettings(
        prices={
            "gpt-*": Price(input_per_million=1, output_per_million=1),
            "gpt-x": Price(input_per_million=5, output_per_million=5),
        }
    )
    assert settings.price_of("gpt-x") == Price(input_per_million=5, output_per_million=5)
    assert settings.price_of("unknown", "gpt-y") == Price(input_per_million=1, output_per_million=1)
    assert settings.price_of("unknown") is None
    path = tmp_path / "exporter.yaml"
    path.write_text("ttlSeconds: 3\nprices: {m: {inputPerMillion: 1, outputPerMillion: 2}}\n")
    loaded = load_settings(path, ttl_seconds=None, regression_alpha=0.01)
    assert loaded.ttl_seconds == 3 and loaded.regression_alpha == 0.01
    assert loaded.regression().alpha == 0.01
    path.write_text("maxModels: 0\n")
    with pytest.raises(SpecError, match="maxModels|max_models"):
        load_settings(path)
    with pytest.raises(ValueError):
        ExporterSettings(duration_buckets=(1.0, 0.5))
