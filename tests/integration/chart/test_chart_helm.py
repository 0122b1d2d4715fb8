"""The Helm chart, linted and installed with the real Helm library; every rendered manifest
validated against Kubernetes 1.30's schemas."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from adhere.exporter import ExporterSettings
from adhere.operator import OperatorConfig
from adhere.spec import crd_manifests
from tests.integration.chart._helm_parts import CHART, NAMESPACE, Cluster, HelmError, helm

KUBERNETES = "1.30.0"
OPERATOR_IMAGE = "ghcr.io/adhere/operator:0.1.0"
NOT_BUILT_IN = {"ServiceMonitor", "PrometheusRule"}  # Prometheus Operator kinds


async def lint(chart: Path) -> dict[str, Any]:
    result: dict[str, Any] = await helm("lint", str(chart))
    return result


def by_kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def one(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (doc,) = by_kind(docs, kind)
    return doc


def validate_all(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        if doc["kind"] in NOT_BUILT_IN:
            continue
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def rules(doc: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(group, resource, verbs) of each rule, one row per resource."""
    return sorted(
        (group, resource, tuple(rule["verbs"]))
        for rule in doc["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    )


OPERATOR_RULES = [
    ("", "events", ("create",)),
    ("", "pods", ("list", "watch")),
    ("", "secrets", ("get",)),
    ("adhere.dev", "benchmarks", ("get", "list", "watch", "patch")),
    ("adhere.dev", "benchmarks/status", ("patch",)),
    ("adhere.dev", "judgepanels", ("get", "list", "watch", "patch")),
    ("adhere.dev", "judgepanels/status", ("patch",)),
    ("adhere.dev", "rollouts", ("get", "list", "watch", "patch")),
    ("adhere.dev", "rollouts/finalizers", ("update",)),
    ("adhere.dev", "rollouts/status", ("patch",)),
    ("batch", "jobs", ("create", "list", "watch", "delete")),
]
OBSERVE_RULES = [
    ("", "namespaces", ("list", "watch")),
    ("apiextensions.k8s.io", "customresourcedefinitions", ("list", "watch")),
]


# --- lint -----------------------------------------------------------------------------


async def test_lint_passes() -> None:
    result = await lint(CHART)
    assert result["Errors"] is None
    # Severity 1 is INFO (a chart icon is recommended); 2 WARNING, 3 ERROR.
    assert [m["Path"] for m in result["Messages"] if m["Severity"] > 1] == []


async def test_lint_reports_a_broken_template_and_bad_defaults(tmp_path: Path) -> None:
    chart = tmp_path / "adhere"
    shutil.copytree(CHART, chart)
    service = chart / "templates" / "service.yaml"
    service.write_text(service.read_text().replace("{{- end }}", "", 1))
    values = chart / "values.yaml"
    values.write_text(values.read_text().replace("mode: in-process", "mode: bogus"))
    result = await lint(chart)
    failing = {m["Path"] for m in result["Messages"] if m["Severity"] == 3}
    # Helm-sdkpy's JSON loses the messages' text: Go errors serialize as {}.
    assert "values.yaml" in failing
    assert any(path.startswith("templates/") for path in failing), failing


# --- install into the emulator ----------------------------------------------------------


async def test_default_install(cluster: Cluster) -> None:
    docs = await cluster.install()
    validate_all(docs)
    kinds = sorted(d["kind"] for d in docs)
    for kind in ("ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment"):
        assert kind in kinds
    # No store configured: no exporter, so no metrics Service either.
    assert not {"Service", "ServiceMonitor", "Role"} & set(kinds)
    # Helm created the three CRDs from the chart's crds/ before the templates.
    created = [
        r.data["metadata"]["name"]
        for r in list(cluster.emulator)
        if r.method == "POST" and "customresourcedefinitions" in str(r.url)
    ]
    assert sorted(created) == sorted(crd["metadata"]["name"] for crd in crd_manifests().values())

    deployment = one(docs, "Deployment")
    assert deployment["metadata"]["namespace"] == NAMESPACE
    assert deployment["spec"]["replicas"] == 1
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["image"] == OPERATOR_IMAGE
    assert container["command"] == ["adhere"]
    assert container["args"] == [
        "-v",
        "operator",
        "--config=/etc/adhere/operator.yaml",
        "--liveness=http://0.0.0.0:8080/healthz",
    ]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    assert container["ports"] == [{"name": "health", "containerPort": 8080, "protocol": "TCP"}]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False
    assert security["readOnlyRootFilesystem"] is True
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert container["resources"]["limits"] and container["resources"]["requests"]
    assert pod["serviceAccountName"] == one(docs, "ServiceAccount")["metadata"]["name"]

    (role,) = by_kind(docs, "ClusterRole")
    assert rules(role) == sorted(OPERATOR_RULES + OBSERVE_RULES)
    secrets = [r for r in role["rules"] if r["resources"] == ["secrets"]]
    assert "resourceNames" not in secrets[0]

    config = yaml.safe_load(one(docs, "ConfigMap")["data"]["operator.yaml"])
    settings = OperatorConfig.model_validate(config)
    assert settings.scoring == "in-process" and settings.store_uri is None
    assert settings.image_for("claude-code") == "ghcr.io/adhere/scaffold-claude-code:0.1.0"
    assert settings.image_for("chat") == "ghcr.io/adhere/base:0.1.0"
    assert settings.image_for("my-own") == "ghcr.io/adhere/scaffold-my-own:0.1.0"
    assert settings.proxy_image_name() == "ghcr.io/adhere/proxy:0.1.0"
    assert settings.trial_resources.limits["cpu"] == "2"
    assert settings.instance_images is True and settings.instance_image_run_as_root is False
    assert settings.image_pull_secrets == [] and "imagePullSecrets" not in one(
        docs, "ServiceAccount"
    )


REPO = CHART.parents[1]


async def test_notes_point_at_an_example_that_uses_the_chart_s_store(cluster: Cluster) -> None:
    """NOTES tell a first user what to apply: an example that exists in the repository and
    whose Rollouts set no storage (so results go to the chart's store), and name
    Rollouts by their group (a bare "rollouts" may mean Argo Rollouts)."""
    await cluster.install({"store": {"uri": "s3://results/adhere"}})
    applied = [
        line.split("-f", 1)[1].strip()
        for line in cluster.notes.splitlines()
        if "kubectl apply -f" in line
    ]
    assert applied, cluster.notes
    for example in applied:
        docs = [d for d in yaml.safe_load_all((REPO / example).read_text()) if d]
        rollouts = [d for d in docs if d["kind"] == "Rollout"]
        assert rollouts and all("storage" not in d["spec"] for d in rollouts), example
    lines = [line.strip() for line in cluster.notes.splitlines()]
    commands = [line for line in lines if line.startswith("kubectl get")]
    assert commands and all("rollouts.adhere.dev" in c for c in commands), commands
    assert "configure one first" not in cluster.notes


async def test_notes_without_a_store_say_the_example_needs_one(cluster: Cluster) -> None:
    await cluster.install()
    assert "No store is configured" in cluster.notes and "configure one first" in cluster.notes


async def test_namespaced_install_uses_roles(cluster: Cluster) -> None:
    docs = await cluster.install({"watchNamespaces": ["team-a", "team-b"]})
    validate_all(docs)
    roles = by_kind(docs, "Role")
    assert sorted(r["metadata"]["namespace"] for r in roles) == ["team-a", "team-b"]
    for role in roles:
        assert rules(role) == sorted(OPERATOR_RULES)
    bindings = by_kind(docs, "RoleBinding")
    assert sorted(b["metadata"]["namespace"] for b in bindings) == ["team-a", "team-b"]
    for binding in bindings:
        assert binding["subjects"][0]["namespace"] == NAMESPACE
    # Cluster-wide, only kopf's read-only observation of namespaces and CRDs.
    assert rules(one(docs, "ClusterRole")) == sorted(OBSERVE_RULES)
    args = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[3:5] == ["--namespace=team-a", "--namespace=team-b"]


async def test_s3_kuberay_secrets_and_monitoring(cluster: Cluster) -> None:
    digest = "sha256:" + "a" * 64
    docs = await cluster.install(
        {
            "images": {
                "registry": "registry.example/adhere",
                "tag": "1.2.3",
                "pullSecrets": ["regcred"],
                "operator": {"repository": "operator", "digest": digest},
                "scaffolds": {"kilo": {"repository": "scaffold-kilo", "tag": "pinned"}},
            },
            "apiKeySecrets": ["openai-key", "judge-keys"],
            "store": {
                "s3": {
                    "bucket": "results",
                    "prefix": "/sweeps/",
                    "endpoint": "http://minio.minio:9000",
                    "region": "eu-west-1",
                    "addressingStyle": "path",
                    "credentialsSecret": "s3-credentials",
                }
            },
            "ray": {"mode": "kuberay", "workers": 4},
            "trials": {"resources": {"limits": {"cpu": 3, "memory": "8Gi"}}},
            "serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}},
            "operator": {"config": {"intervalSeconds": 5}, "verbosity": 2},
            "metrics": {"settings": {"ttlSeconds": 30}},
        }
    )
    validate_all(docs)
    role = one(docs, "ClusterRole")
    assert ("ray.io", "rayjobs", ("create", "get", "list", "delete")) in rules(role)
    (secrets,) = [r for r in role["rules"] if r["resources"] == ["secrets"]]
    assert secrets == {
        "apiGroups": [""],
        "resources": ["secrets"],
        "resourceNames": ["openai-key", "judge-keys"],
        "verbs": ["get"],
    }

    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    operator, exporter = pod["containers"]
    assert operator["image"] == f"registry.example/adhere/operator@{digest}"
    assert operator["args"][0] == "-vv"
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    for container in (operator, exporter):
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["ADHERE_S3_ENDPOINT_URL"] == "http://minio.minio:9000"
        assert env["AWS_REGION"] == "eu-west-1" and env["ADHERE_S3_ADDRESSING_STYLE"] == "path"
        assert container["envFrom"] == [{"secretRef": {"name": "s3-credentials"}}]
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert exporter["args"] == [
        "exporter",
        "--store=s3://results/sweeps",
        "--addr=0.0.0.0",
        "--port=9477",
        "--settings=/etc/adhere/exporter.yaml",
    ]
    assert exporter["ports"] == [{"name": "metrics", "containerPort": 9477, "protocol": "TCP"}]
    exporter_settings = yaml.safe_load(one(docs, "ConfigMap")["data"]["exporter.yaml"])
    assert ExporterSettings.model_validate(exporter_settings).ttl_seconds == 30

    settings = OperatorConfig.model_validate(
        yaml.safe_load(one(docs, "ConfigMap")["data"]["operator.yaml"])
    )
    assert settings.store_uri == "s3://results/sweeps"
    assert settings.store_secret == "s3-credentials"
    assert settings.store_env["ADHERE_S3_ENDPOINT_URL"] == "http://minio.minio:9000"
    assert settings.scoring == "rayjob" and settings.ray_workers == 4
    assert settings.ray_image_name() == "registry.example/adhere/ray-worker:1.2.3"
    assert settings.image_for("kilo") == "registry.example/adhere/scaffold-kilo:pinned"
    assert settings.image_pull_secrets == ["regcred"]
    assert settings.interval_seconds == 5
    assert settings.trial_resources.limits == {
        "cpu": "3",
        "memory": "8Gi",
        "ephemeral-storage": "4Gi",
    }

    monitor = one(docs, "ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    service = one(docs, "Service")
    assert monitor["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]
    assert service["spec"]["ports"][0]["name"] == "metrics"


async def test_ray_address_mode(cluster: Cluster) -> None:
    docs = await cluster.install({"ray": {"mode": "address", "address": "ray://head.ray:10001"}})
    settings = OperatorConfig.model_validate(
        yaml.safe_load(one(docs, "ConfigMap")["data"]["operator.yaml"])
    )
    assert (settings.scoring, settings.ray_address) == ("ray", "ray://head.ray:10001")
    assert all(r[1] != "rayjobs" for r in rules(one(docs, "ClusterRole")))


@pytest.mark.parametrize(
    ("values", "complaint"),
    [
        ({"ray": {"mode": "bogus"}}, "mode"),
        ({"ray": {"mode": "address"}}, "address"),
        ({"store": {"s3": {"endpoint": "minio:9000"}}}, "endpoint"),
        ({"watchNamespace": "typo"}, "watchNamespace"),
        ({"images": {"scaffolds": {"my-own": {"tag": "x"}}}}, "repository"),
    ],
)
async def test_values_schema_refuses_bad_values(
    cluster: Cluster, values: dict[str, Any], complaint: str
) -> None:
    with pytest.raises(HelmError) as info:
        await cluster.install(values)
    assert "schema" in str(info.value) and complaint in str(info.value)


async def test_instance_images_and_their_pull_secrets(cluster: Cluster) -> None:
    docs = await cluster.install(
        {
            "images": {"pullSecrets": ["regcred"]},
            "trials": {
                "imagePullSecrets": ["octo-registry", "regcred"],
                "instanceImages": {"runAsRoot": True},
            },
        }
    )
    validate_all(docs)
    settings = OperatorConfig.model_validate(
        yaml.safe_load(one(docs, "ConfigMap")["data"]["operator.yaml"])
    )
    assert settings.image_pull_secrets == ["regcred", "octo-registry"]  # each once
    assert settings.instance_images is True and settings.instance_image_run_as_root is True
    account = one(docs, "ServiceAccount")
    assert account["imagePullSecrets"] == [{"name": "regcred"}]
