"""Trial pods' NetworkPolicy, rendered by a real ``helm install`` and evaluated.

Each rendered policy is validated against Kubernetes' schema, checked to select the
pods the operator builds (and not the operator's own), and then asked what it lets
through: :func:`allows` evaluates a NetworkPolicy's egress rules for a destination
(an address, or a pod's labels and namespace) and a port, as the API documents them.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

import pytest

from adhere.core import Trial
from adhere.operator._jobs import trial_labels
from tests.integration.chart._helm_parts import Cluster, HelmError
from tests.integration.chart.test_chart_helm import by_kind, one, validate_all


@dataclass(frozen=True)
class Destination:
    """Where a trial pod connects: an address, or a pod (labels in a namespace)."""

    port: int
    protocol: str = "TCP"
    ip: str | None = None
    namespace: str | None = None
    namespace_labels: dict[str, str] = field(default_factory=dict)
    pod_labels: dict[str, str] = field(default_factory=dict)


def _matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    assert set(selector) <= {"matchLabels"}, selector  # what the chart writes
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def _peer_allows(peer: dict[str, Any], to: Destination, policy_namespace: str) -> bool:
    if "ipBlock" in peer:
        if to.ip is None:
            return False
        address = ipaddress.ip_address(to.ip)
        block = ipaddress.ip_network(peer["ipBlock"]["cidr"])
        if address.version != block.version or address not in block:
            return False
        return not any(
            address in ipaddress.ip_network(e)
            for e in peer["ipBlock"].get("except", [])
            if ipaddress.ip_network(e).version == address.version
        )
    if to.namespace is None:
        return False
    if "namespaceSelector" in peer:
        labels = {"kubernetes.io/metadata.name": to.namespace, **to.namespace_labels}
        if not _matches(peer["namespaceSelector"], labels):
            return False
    elif to.namespace != policy_namespace:
        return False
    return "podSelector" not in peer or _matches(peer["podSelector"], to.pod_labels)


def allows(policy: dict[str, Any], to: Destination) -> bool:
    """Whether ``policy`` lets a pod it selects connect to ``to``."""
    spec = policy["spec"]
    assert "Egress" in spec["policyTypes"]
    for rule in spec.get("egress", []):
        ports = rule.get("ports")
        if ports and not any(
            p.get("protocol", "TCP") == to.protocol and p.get("port") in (None, to.port)
            for p in ports
        ):
            continue
        peers = rule.get("to")
        if not peers or any(_peer_allows(p, to, policy["metadata"]["namespace"]) for p in peers):
            return True
    return False


KUBE_DNS = Destination(
    port=53, protocol="UDP", namespace="kube-system", pod_labels={"k8s-app": "kube-dns"}
)
PUBLIC_HTTPS = Destination(port=443, ip="52.216.0.1")  # a hosted API, an S3 endpoint
BLOCKED = {
    "cloud metadata (IPv4)": Destination(port=80, ip="169.254.169.254"),
    "cloud metadata on 443": Destination(port=443, ip="169.254.169.254"),
    "cloud metadata (IPv6)": Destination(port=80, ip="fd00:ec2::254"),
    "a cluster address": Destination(port=443, ip="10.96.0.1"),
    "the API server's pod": Destination(port=443, namespace="default"),
    "another pod's port": Destination(port=8080, namespace="research"),
    "public, not HTTPS": Destination(port=80, ip="52.216.0.1"),
    "DNS elsewhere": Destination(port=53, protocol="UDP", ip="8.8.8.8"),
    "loopback (IPv6)": Destination(port=443, ip="::1"),
}


def trial_pod_labels() -> dict[str, str]:
    trial = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
    return trial_labels("r", trial, 1)


async def test_trial_pods_reach_dns_models_and_store_only(cluster: Cluster) -> None:
    docs = await cluster.install({"watchNamespaces": ["research", "team-b"]})
    validate_all(docs)  # NetworkPolicy against Kubernetes 1.30's schema
    policies = by_kind(docs, "NetworkPolicy")
    assert sorted(p["metadata"]["namespace"] for p in policies) == ["research", "team-b"]
    operator_labels = one(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    for policy in policies:
        spec = policy["spec"]
        assert _matches(spec["podSelector"], trial_pod_labels())
        assert not _matches(spec["podSelector"], operator_labels)
        assert spec["policyTypes"] == ["Ingress", "Egress"] and spec["ingress"] == []
        assert allows(policy, KUBE_DNS)
        assert allows(policy, PUBLIC_HTTPS)
        assert allows(policy, Destination(port=443, ip="2600:1f18::1"))  # public IPv6
        for what, where in BLOCKED.items():
            assert not allows(policy, where), what


async def test_an_in_cluster_store_and_model_server_are_allowed_as_configured(
    cluster: Cluster,
) -> None:
    minio = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "minio"}}}]
    values = {
        "store": {"s3": {"bucket": "results", "endpoint": "http://minio.minio:9000"}},
        "trials": {
            "networkPolicy": {
                "namespaces": ["research"],
                "store": {"to": minio, "ports": [{"protocol": "TCP", "port": 9000}]},
                "extraEgress": [
                    {
                        "to": [{"podSelector": {"matchLabels": {"app": "vllm"}}}],
                        "ports": [{"protocol": "TCP", "port": 8000}],
                    }
                ],
            }
        },
    }
    docs = await cluster.install(values)
    validate_all(docs)
    policy = one(docs, "NetworkPolicy")
    assert policy["metadata"]["namespace"] == "research"
    assert allows(policy, Destination(port=9000, namespace="minio"))
    assert not allows(policy, Destination(port=9000, namespace="research"))
    vllm = Destination(port=8000, namespace="research", pod_labels={"app": "vllm"})
    assert allows(policy, vllm)
    assert not allows(policy, Destination(port=8000, namespace="other", pod_labels={"app": "vllm"}))
    assert "add\nit there" not in cluster.notes and "cannot\nupload" not in cluster.notes


async def test_the_notes_say_when_the_store_endpoint_may_be_blocked(cluster: Cluster) -> None:
    await cluster.install(
        {
            "watchNamespaces": ["research"],
            "store": {"s3": {"bucket": "results", "endpoint": "http://minio.minio:9000"}},
        }
    )
    assert "store.s3.endpoint" in cluster.notes and "http://minio.minio:9000" in cluster.notes
    assert "trials.networkPolicy.store" in cluster.notes


async def test_an_empty_rule_is_left_out_not_opened_to_everything(cluster: Cluster) -> None:
    docs = await cluster.install(
        {"trials": {"networkPolicy": {"namespaces": ["research"], "models": {"to": []},
                                      "store": {"to": []}}}}
    )  # fmt: skip
    policy = one(docs, "NetworkPolicy")
    assert allows(policy, KUBE_DNS)
    assert not allows(policy, PUBLIC_HTTPS)
    assert len(policy["spec"]["egress"]) == 1


async def test_no_policy_when_the_namespaces_are_unknown(cluster: Cluster) -> None:
    docs = await cluster.install()
    assert not by_kind(docs, "NetworkPolicy")
    assert "No NetworkPolicy for trial pods was created" in cluster.notes


async def test_no_policy_when_off(cluster: Cluster) -> None:
    docs = await cluster.install(
        {"watchNamespaces": ["research"], "trials": {"networkPolicy": {"enabled": False}}}
    )
    assert not by_kind(docs, "NetworkPolicy")
    assert "NetworkPolicy" not in cluster.notes


@pytest.mark.parametrize(
    "bad",
    [
        {"models": {"ports": [{"protocol": "HTTP", "port": 443}]}},
        {"dns": {"peers": []}},
        {"namespaces": ["Research"]},
    ],
    ids=["protocol", "unknown-key", "namespace-name"],
)
async def test_the_schema_refuses_bad_policy_values(cluster: Cluster, bad: dict) -> None:
    with pytest.raises(HelmError, match="networkPolicy"):
        await cluster.install({"trials": {"networkPolicy": bad}})
