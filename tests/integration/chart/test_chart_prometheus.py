"""The chart's PrometheusRule and Grafana dashboards ConfigMap, rendered by a real
``helm install`` into the emulator (see conftest.py)."""

from __future__ import annotations

import json
from typing import Any

import kubernetes_validate
import yaml

from tests.integration.chart._helm_parts import CHART, NAMESPACE, Cluster

RULE_FILES = sorted((CHART / "rules").glob("*.yaml"))
DASHBOARDS = sorted((CHART / "dashboards").glob("*.json"))


def kinds(docs: list[dict[str, Any]]) -> list[str]:
    return [d["kind"] for d in docs]


async def test_rules_and_dashboards_are_off_by_default(cluster: Cluster) -> None:
    docs = await cluster.install()
    assert "PrometheusRule" not in kinds(docs)
    assert not [d for d in docs if "grafana_dashboard" in d.get("metadata", {}).get("labels", {})]


async def test_prometheus_rule_and_dashboards(cluster: Cluster) -> None:
    docs = await cluster.install(
        {
            "prometheusRule": {"enabled": True, "labels": {"release": "prometheus"}},
            "grafana": {"dashboards": {"enabled": True, "labels": {"team": "evals"}}},
        }
    )
    (rule,) = [d for d in docs if d["kind"] == "PrometheusRule"]
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    assert rule["metadata"]["namespace"] == NAMESPACE
    assert rule["metadata"]["labels"]["release"] == "prometheus"
    expected = [g for path in RULE_FILES for g in yaml.safe_load(path.read_text())["groups"]]
    assert rule["spec"]["groups"] == expected  # included unchanged ({{ $labels.x }} kept)
    alerts = {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"]}
    assert "AdhereComplianceRegression" in alerts and "AdhereRolloutStalled" in alerts

    (config,) = [
        d
        for d in docs
        if d["kind"] == "ConfigMap"
        and d["metadata"].get("labels", {}).get("grafana_dashboard") == "1"
    ]
    kubernetes_validate.validate(config, "1.30.0", strict=True)
    assert config["metadata"]["labels"]["team"] == "evals"
    assert config["metadata"]["annotations"]["grafana_folder"] == "adhere"
    assert sorted(config["data"]) == [p.name for p in DASHBOARDS]
    for path in DASHBOARDS:
        assert json.loads(config["data"][path.name]) == json.loads(path.read_text())


async def test_dashboard_sidecar_label_and_namespace_are_configurable(cluster: Cluster) -> None:
    docs = await cluster.install(
        {
            "grafana": {
                "dashboards": {
                    "enabled": True,
                    "label": "dashboards.example/grafana",
                    "labelValue": "adhere",
                    "folder": "",
                    "namespace": "monitoring",
                }
            }
        }
    )
    (config,) = [d for d in docs if "dashboards.example/grafana" in d["metadata"].get("labels", {})]
    assert config["metadata"]["labels"]["dashboards.example/grafana"] == "adhere"
    assert config["metadata"]["namespace"] == "monitoring"
    assert "grafana_folder" not in config["metadata"].get("annotations", {})
