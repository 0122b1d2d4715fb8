"""Trial Jobs of instances that name an image: the instance's image, the agent injected."""

import kubernetes_validate
import pytest

from adhere.core import Check, CheckKind, Instance, Source, Trial, Workspace
from adhere.errors import SpecError
from adhere.operator import OperatorConfig, RolloutRef, build_job, uses_sidecar
from adhere.operator._instance_env import (
    InstanceEnvironment,
    instance_environment,
    instance_environments,
)
from adhere.spec import ModelSpec, ScaffoldSpec

ROLLOUT = RolloutRef(name="octo", namespace="research", uid="uid-octo")
URI = "s3://results/runs/octo"
IMAGE = "registry.example.org/octo/feedfeed:emoji_test"
ENV = InstanceEnvironment(image=IMAGE, workdir="/app")


def model(scripted: bool = False) -> ModelSpec:
    endpoint = (
        {"baseUrl": "scripted", "model": "oracle"}
        if scripted
        else {
            "api": "openai",
            "baseUrl": "https://api.example.com/v1",
            "model": "gpt-x-2025",
            "apiKey": {"secretKeyRef": {"name": "model-keys", "key": "openai"}},
        }
    )
    return ModelSpec.model_validate({"name": "gpt-x", "endpoint": endpoint})


def trial() -> Trial:
    return Trial(rollout="octo", model="gpt-x", scaffold="claude-code", instance="i-1", repeat=0)


def job(
    environment: InstanceEnvironment | None = ENV, *, scripted: bool = False, **config: object
) -> dict:
    spec = model(scripted)
    return build_job(
        ROLLOUT,
        trial(),
        1,
        spec,
        ScaffoldSpec(name="claude-code", timeout_seconds=900),
        URI,
        OperatorConfig.model_validate(config),
        sidecar=uses_sidecar(spec),
        environment=environment,
    )


def pod(manifest: dict) -> dict:
    return manifest["spec"]["template"]["spec"]


def by_name(items: list[dict]) -> dict[str, dict]:
    return {item["name"]: item for item in items}


def instance(**metadata: object) -> Instance:
    return Instance(
        id="i-1",
        suite="octobench",
        workspace=Workspace(image=IMAGE),
        turns=["do it"],
        checks=[
            Check(id="c1", source=Source.USER_QUERY, kind=CheckKind.COMPLIANCE, description="x")
        ],
        metadata=metadata,
    )


def test_the_trial_runs_the_instance_image_in_its_workspace_with_the_runtime_injected() -> None:
    spec = pod(job())
    trial_container = spec["containers"][0]
    assert trial_container["image"] == IMAGE
    assert trial_container["workingDir"] == "/app"
    assert trial_container["command"][:3] == ["/adhere-runtime/venv/bin/adhere", "trial", "run"]
    assert trial_container["command"][3:7] == ["--spool", "/spool", "--trial", trial().id]
    assert "--proxy-url" in trial_container["command"]
    env = {e["name"]: e["value"] for e in trial_container["env"]}
    assert env["ADHERE_WORKSPACE_DIR"] == "/app"
    assert env["ADHERE_SCAFFOLD_CACHE"] == "/adhere-runtime/scaffolds"
    assert env["PATH"].split(":")[:2] == ["/adhere-runtime/venv/bin", "/adhere-runtime/node/bin"]
    assert env["HOME"] == "/home/adhere"
    assert not env["ADHERE_WORK_DIR"].startswith("/app")
    mounts = {m["mountPath"]: m for m in trial_container["volumeMounts"]}
    assert mounts["/app"]["name"] == "work"
    assert mounts["/adhere-runtime"] == {
        "name": "runtime",
        "mountPath": "/adhere-runtime",
        "readOnly": True,
    }
    assert "/work" not in mounts
    assert mounts["/calls"]["readOnly"] is True


def test_init_containers_copy_the_runtime_then_the_workspace_beside_the_proxy() -> None:
    spec = pod(job())
    init = spec["initContainers"]
    assert [c["name"] for c in init] == ["proxy", "stage", "runtime", "workspace", "upload"]
    runtime, workspace = init[2], init[3]
    assert runtime["image"] == "ghcr.io/adhere/scaffold-claude-code:0.1.0"
    assert runtime["command"] == ["cp", "-a", "/adhere-runtime/.", "/adhere-runtime-copy/"]
    assert runtime["volumeMounts"] == [{"name": "runtime", "mountPath": "/adhere-runtime-copy"}]
    assert "restartPolicy" not in runtime and "restartPolicy" not in workspace  # run to the end
    assert workspace["image"] == IMAGE
    assert workspace["command"] == [
        "/adhere-runtime/venv/bin/adhere",
        "trial",
        "copy-workspace",
        "--from",
        "/app",
        "--to",
        "/adhere-workspace",
    ]
    mounts = {m["mountPath"]: m for m in workspace["volumeMounts"]}
    assert mounts["/adhere-workspace"]["name"] == "work"
    assert mounts["/adhere-runtime"]["readOnly"] is True
    volumes = by_name(spec["volumes"])
    assert volumes["runtime"] == {"name": "runtime", "emptyDir": {}}
    assert volumes["work"]["emptyDir"] == {"sizeLimit": "2Gi"}
    proxy = init[0]
    assert proxy["restartPolicy"] == "Always"
    assert proxy["image"] == "ghcr.io/adhere/proxy:0.1.0"
    key_holders = [c["name"] for c in [*init, *spec["containers"]] if "valueFrom" in str(c)]
    assert key_holders == ["proxy"]


def test_a_scripted_model_has_no_sidecar_but_the_same_injection() -> None:
    spec = pod(job(scripted=True))
    assert [c["name"] for c in spec["initContainers"]] == [
        "stage",
        "runtime",
        "workspace",
        "upload",
    ]
    assert "--proxy-url" not in spec["containers"][0]["command"]


def test_every_container_stays_restricted_by_default() -> None:
    spec = pod(job())
    assert spec["securityContext"]["runAsNonRoot"] is True
    for container in [*spec["initContainers"], *spec["containers"]]:
        security = container["securityContext"]
        assert security["runAsNonRoot"] is True and security["runAsUser"] == 1000
        assert security["allowPrivilegeEscalation"] is False
        assert security["readOnlyRootFilesystem"] is True
        assert security["capabilities"] == {"drop": ["ALL"]}


def test_root_images_are_an_explicit_setting_for_the_instance_containers_only() -> None:
    spec = pod(job(instanceImageRunAsRoot=True))
    containers = by_name([*spec["initContainers"], *spec["containers"]])
    for name in ("workspace", "trial"):
        security = containers[name]["securityContext"]
        assert security["runAsUser"] == 0 and security["runAsNonRoot"] is False
        assert security["allowPrivilegeEscalation"] is False and security["privileged"] is False
        assert security["capabilities"]["drop"] == ["ALL"]
        assert "SYS_ADMIN" not in security["capabilities"]["add"]
    for name in ("proxy", "stage", "runtime", "upload"):
        assert containers[name]["securityContext"]["runAsNonRoot"] is True
    assert "runAsNonRoot" not in spec["securityContext"]
    # The setting leaves trials without an instance image restricted.
    plain = pod(job(None, instanceImageRunAsRoot=True))
    assert plain["securityContext"]["runAsNonRoot"] is True
    assert plain["containers"][0]["securityContext"]["runAsUser"] == 1000


def test_without_an_instance_image_the_layout_is_todays() -> None:
    assert job(None) == job(None, instanceImages=False)
    spec = pod(job(None))
    assert [c["name"] for c in spec["initContainers"]] == ["proxy", "stage", "upload"]
    trial_container = spec["containers"][0]
    assert trial_container["image"] == "ghcr.io/adhere/scaffold-claude-code:0.1.0"
    assert trial_container["command"][:3] == ["adhere", "trial", "run"]
    assert "workingDir" not in trial_container
    assert "runtime" not in by_name(spec["volumes"])


def test_pull_secrets_reach_the_pod_that_pulls_the_instance_image() -> None:
    spec = pod(job(imagePullSecrets=["octo-registry"], imagePullPolicy="Always"))
    assert spec["imagePullSecrets"] == [{"name": "octo-registry"}]
    for container in [*spec["initContainers"], *spec["containers"]]:
        assert container["imagePullPolicy"] == "Always"


@pytest.mark.parametrize(
    "settings", [{}, {"instanceImageRunAsRoot": True}], ids=["restricted", "root"]
)
@pytest.mark.parametrize("scripted", [False, True], ids=["sidecar", "scripted"])
def test_the_job_is_a_valid_kubernetes_object(settings: dict, scripted: bool) -> None:
    kubernetes_validate.validate(job(scripted=scripted, **settings), "1.33.0", strict=True)


def test_an_instance_environment_comes_from_its_image_and_workspace_path() -> None:
    config = OperatorConfig()
    found = instance_environment(
        instance(workspace_abs_path="/workspace/jsbeeb"), config, home="/home/adhere", where="b"
    )
    assert found == InstanceEnvironment(image=IMAGE, workdir="/workspace/jsbeeb")
    off = OperatorConfig(instance_images=False)
    assert (
        instance_environment(instance(workspace_abs_path="/app"), off, home="/h", where="b") is None
    )
    no_image = instance(workspace_abs_path="/app").model_copy(update={"workspace": Workspace()})
    assert instance_environments([no_image], config, home="/h", where="b") == {}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (None, "names no workspace_abs_path"),
        ("app", "normalized absolute directory"),
        ("/app/../etc", "normalized absolute directory"),
        ("/", "normalized absolute directory"),
        ("/tmp/work", "overlaps /tmp"),
        ("/home", "overlaps /home/adhere"),
        ("/adhere-runtime", "overlaps /adhere-runtime"),
    ],
)
def test_a_workspace_path_the_pod_cannot_use_is_refused_naming_the_instance(
    path: str | None, expected: str
) -> None:
    with pytest.raises(SpecError, match=expected) as caught:
        instance_environment(
            instance(workspace_abs_path=path), OperatorConfig(), home="/home/adhere", where="B"
        )
    assert caught.value.field == "instances[i-1].workspace_abs_path"
    assert "i-1" in str(caught.value) and "B" in str(caught.value)
