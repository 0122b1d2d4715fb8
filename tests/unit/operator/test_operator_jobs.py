"""Trial Job manifests, built as plain data: images, keys from Secrets, security, ownership."""

import json

import kubernetes_validate
import pytest

from adhere.core import Trial
from adhere.observe import parse_upstream
from adhere.operator import OperatorConfig, RolloutRef, build_job, uses_sidecar
from adhere.operator._names import job_name, label_value
from adhere.spec import ModelSpec, ScaffoldSpec

ROLLOUT = RolloutRef(name="sweep", namespace="research", uid="0b8f-uid")
URI = "s3://results/runs/sweep"


def real_model() -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "name": "gpt-x",
            "endpoint": {
                "api": "openai",
                "baseUrl": "https://api.example.com/v1",
                "model": "gpt-x-2025",
                "apiKey": {"secretKeyRef": {"name": "openai", "key": "api-key"}},
            },
        }
    )


def scripted_model() -> ModelSpec:
    return ModelSpec.model_validate(
        {"name": "oracle", "endpoint": {"baseUrl": "scripted", "model": "oracle"}}
    )


def trial(model: str = "gpt-x", scaffold: str = "claude-code") -> Trial:
    return Trial(rollout="sweep", model=model, scaffold=scaffold, instance="i-1", repeat=0)


def job(model: ModelSpec | None = None, attempt: int = 1, **config: object) -> dict:
    model = model or real_model()
    return build_job(
        ROLLOUT,
        trial(model.name),
        attempt,
        model,
        ScaffoldSpec(name="claude-code", timeout_seconds=900),
        URI,
        OperatorConfig.model_validate(config),
        sidecar=uses_sidecar(model),
    )


def containers(manifest: dict) -> dict[str, dict]:
    pod = manifest["spec"]["template"]["spec"]
    return {c["name"]: c for c in [*pod.get("initContainers", []), *pod["containers"]]}


def test_the_scaffold_image_runs_one_trial_against_the_proxy_sidecar() -> None:
    manifest = job(attempt=2)
    found = containers(manifest)
    assert found["trial"]["image"] == "ghcr.io/adhere/scaffold-claude-code:0.1.0"
    assert found["trial"]["command"] == [
        "adhere",
        "trial",
        "run",
        "--spool",
        "/spool",
        "--trial",
        trial().id,
        "--no-sandbox",
        "--proxy-url",
        "http://127.0.0.1:8766",
        "--calls-dir",
        "/calls",
    ]
    # The stage init container reads the rollout from the store and decides the attempt.
    assert found["stage"]["command"] == [
        "adhere",
        "trial",
        "stage",
        "--rollout-uri",
        URI,
        "--trial",
        trial().id,
        "--attempt",
        "2",
        "--spool",
        "/spool",
        "--state",
        "/adhere-state",
    ]
    upload = found["upload"]
    assert upload["restartPolicy"] == "Always"  # a native sidecar, stopped after the trial
    assert upload["command"][:7] == [
        "adhere",
        "trial",
        "upload",
        "--rollout-uri",
        URI,
        "--trial",
        trial().id,
    ]
    assert upload["image"] == found["stage"]["image"] == "ghcr.io/adhere/proxy:0.1.0"
    pod = manifest["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["proxy", "stage", "upload"]
    proxy = found["proxy"]
    assert proxy["image"] == "ghcr.io/adhere/proxy:0.1.0"
    assert proxy["restartPolicy"] == "Always"  # a native sidecar: the Job still completes
    assert proxy["command"][:6] == ["adhere", "proxy", "--host", "127.0.0.1", "--port", "8766"]
    given = proxy["command"][proxy["command"].index("--upstream") + 1]
    # The sidecar reads back what the operator wrote: URL, key variable, shape, model.
    upstream, key_env = parse_upstream(given)
    assert key_env == "ADHERE_UPSTREAM_KEY"
    assert (upstream.name, upstream.base_url) == ("gpt-x", "https://api.example.com")
    assert (upstream.api, upstream.model) == ("openai-chat", "gpt-x-2025")
    assert upstream.api_key is None  # only the variable's name travels


def test_the_api_key_comes_from_the_secret_and_only_the_proxy_sees_it() -> None:
    found = containers(job())
    key_env = [e for e in found["proxy"]["env"] if "valueFrom" in e]
    assert key_env == [
        {
            "name": "ADHERE_UPSTREAM_KEY",
            "valueFrom": {"secretKeyRef": {"name": "openai", "key": "api-key"}},
        }
    ]
    assert "secretKeyRef" not in json.dumps(found["trial"])
    assert all("value" in e for e in found["trial"]["env"])  # no key, no valueFrom


STORE = {
    "storeSecret": "s3-credentials",
    "storeEnv": {"ADHERE_S3_ENDPOINT_URL": "http://minio:9000"},
    "storeVolumeClaim": "results",
}


RESTRICTED_VOLUMES = {"emptyDir", "persistentVolumeClaim", "configMap", "secret", "projected"}


@pytest.mark.parametrize("store", [False, True], ids=["default", "store-settings"])
def test_every_container_is_restricted_with_writable_emptydirs(store: bool) -> None:
    manifest = job(**(STORE if store else {}))
    pod = manifest["spec"]["template"]["spec"]
    # The restricted standard's volume types only; no host paths, no host namespaces.
    assert all(set(v) - {"name"} <= RESTRICTED_VOLUMES for v in pod["volumes"])
    assert not {"hostNetwork", "hostPID", "hostIPC"} & set(pod)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    for container in containers(manifest).values():
        security = container["securityContext"]
        assert security["allowPrivilegeEscalation"] is False
        assert security["capabilities"] == {"drop": ["ALL"]}
        assert security["readOnlyRootFilesystem"] is True
        assert security["runAsNonRoot"] is True
        assert container["resources"]["limits"]["memory"]
        assert container["resources"]["requests"]["cpu"]
    mounts = {m["mountPath"]: m["name"] for m in containers(manifest)["trial"]["volumeMounts"]}
    assert mounts["/work"] == "work" and mounts["/home/adhere"] == "home"
    assert mounts["/tmp"] == "tmp"
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert all("emptyDir" in volumes[n] for n in ("work", "home", "tmp", "calls"))
    env = {e["name"]: e["value"] for e in containers(manifest)["trial"]["env"]}
    assert env["HOME"] == "/home/adhere" and env["ADHERE_WORK_DIR"] == "/work"


def test_labels_owner_and_retries_belong_to_the_operator() -> None:
    manifest = job(attempt=3)
    meta = manifest["metadata"]
    assert meta["name"] == job_name("sweep", trial().id, 3)
    assert meta["namespace"] == "research"
    assert meta["labels"]["adhere.dev/rollout"] == "sweep"
    assert meta["labels"]["adhere.dev/trial"] == trial().id
    assert meta["labels"]["adhere.dev/attempt"] == "3"
    assert meta["labels"]["adhere.dev/model"] == "gpt-x"
    assert meta["labels"]["adhere.dev/scaffold"] == "claude-code"
    assert manifest["spec"]["template"]["metadata"]["labels"] == meta["labels"]
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "name": "sweep",
            "uid": "0b8f-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert manifest["spec"]["backoffLimit"] == 0
    assert manifest["spec"]["activeDeadlineSeconds"] == 900 + 600
    assert manifest["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_a_scripted_model_runs_in_process_without_a_sidecar() -> None:
    manifest = job(scripted_model())
    pod = manifest["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["stage", "upload"]
    command = pod["containers"][0]["command"]
    assert "--proxy-url" not in command and command[:3] == ["adhere", "trial", "run"]
    assert "calls" not in {v["name"] for v in pod["volumes"]}


def test_settings_choose_images_store_access_and_pull_secrets() -> None:
    manifest = job(
        scaffoldImages={"claude-code": "registry.local/cc:{version}"},
        version="9.9",
        storeSecret="s3-credentials",
        storeEnv={"AWS_ENDPOINT_URL": "http://minio:9000"},
        storeVolumeClaim="results",
        imagePullSecrets=["regcred"],
        serviceAccount="trials",
    )
    pod = manifest["spec"]["template"]["spec"]
    found = containers(manifest)
    assert found["trial"]["image"] == "registry.local/cc:9.9"
    # Store access is the stage's and the upload's, never the trial container's.
    for name in ("stage", "upload"):
        assert found[name]["envFrom"] == [{"secretRef": {"name": "s3-credentials"}}]
        assert {"name": "AWS_ENDPOINT_URL", "value": "http://minio:9000"} in found[name]["env"]
        assert {"name": "store", "mountPath": "/data"} in found[name]["volumeMounts"]
    trial_container = found["trial"]
    assert "envFrom" not in trial_container
    assert "AWS_ENDPOINT_URL" not in {e["name"] for e in trial_container["env"]}
    assert "store" not in {m["name"] for m in trial_container["volumeMounts"]}
    assert {"name": "store", "persistentVolumeClaim": {"claimName": "results"}} in pod["volumes"]
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    assert pod["serviceAccountName"] == "trials"


@pytest.mark.parametrize("model", [real_model(), scripted_model()], ids=["sidecar", "scripted"])
def test_the_agent_container_holds_no_credential(model: ModelSpec) -> None:
    """No Secret reaches the trial container: not as env, envFrom or a volume."""
    manifest = job(model, **STORE)
    pod = manifest["spec"]["template"]["spec"]
    trial_container = containers(manifest)["trial"]
    assert "envFrom" not in trial_container
    assert all(set(e) == {"name", "value"} for e in trial_container["env"])  # no valueFrom
    assert not any("AWS" in e["name"] or "S3" in e["name"] for e in trial_container["env"])
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounted = {m["name"] for m in trial_container["volumeMounts"]}
    assert all(set(volumes[name]) == {"name", "emptyDir"} for name in mounted)
    assert "state" not in mounted  # what the upload trusts is out of the agent's reach
    # No Secret is a volume of the pod at all, and containers keep their processes apart.
    assert not any("secret" in v or "projected" in v for v in volumes.values())
    assert not pod.get("shareProcessNamespace")
    holders = {n for n, c in containers(manifest).items() if "secretRef" in str(c)}
    assert holders == {"stage", "upload"}
    # The spool the agent can write holds nothing the store credentials could read back.
    spool_users = {n for n, c in containers(manifest).items() if "spool" in str(c["volumeMounts"])}
    assert spool_users == {"stage", "trial", "upload"}
    # The EKS identity webhook skips the containers that must hold no credential.
    annotations = manifest["spec"]["template"]["metadata"]["annotations"]
    assert annotations["eks.amazonaws.com/skip-containers"] == "trial,runtime,workspace"
    assert pod["terminationGracePeriodSeconds"] >= 60


@pytest.mark.parametrize("model", [real_model(), scripted_model()], ids=["sidecar", "scripted"])
def test_the_job_is_a_valid_kubernetes_object(model: ModelSpec) -> None:
    # validate raises on any schema error; it returns the schema version it checked against.
    assert kubernetes_validate.validate(job(model), "1.33.0", strict=True) == "1.33"
    assert kubernetes_validate.validate(job(model, **STORE), "1.33.0", strict=True) == "1.33"


def test_names_and_label_values_fit_kubernetes_limits() -> None:
    long_rollout = "r" * 63
    name = job_name(long_rollout, "a" * 20, 12)
    assert len(name) <= 63 and name.endswith("-a12")
    assert label_value("gpt-x") == "gpt-x"
    cleaned = label_value("org/model:latest with spaces" + "x" * 80)
    assert len(cleaned) <= 63 and cleaned[0].isalnum() and cleaned[-1].isalnum()
    assert label_value("org/a") != label_value("org:a")  # the hash keeps them apart
