"""Reading Jobs, pods and custom resources back; settings; the scoring RayJob (plain data)."""

from pathlib import Path

import kubernetes_validate
import pytest

import adhere.operator
from adhere.errors import SpecError
from adhere.operator import (
    OperatorConfig,
    RolloutRef,
    build_rayjob,
    job_view,
    load_operator_config,
    pod_problem,
    rayjob_state,
)
from adhere.operator._validate import (
    check_cluster_rollout,
    missing_secrets,
    model_secret_refs,
    parse_body,
)
from adhere.spec import JudgePanel, Rollout

LABELS = {"adhere.dev/trial": "abc123", "adhere.dev/attempt": "2"}


def test_exports_are_sorted() -> None:
    assert adhere.operator.__all__ == sorted(adhere.operator.__all__)


def test_job_states_from_conditions_and_counters() -> None:
    meta = {"name": "j", "labels": LABELS}
    assert job_view({"metadata": meta}).state == "active"
    done = job_view(
        {
            "metadata": meta,
            "status": {
                "succeeded": 1,
                "completionTime": "2025-01-01T00:00:05Z",
                "conditions": [{"type": "Complete", "status": "True"}],
            },
        }
    )
    assert done is not None and done.state == "succeeded" and done.attempt == 2
    assert done.finished_at is not None and done.finished_at.second == 5
    failed = job_view(
        {
            "metadata": meta,
            "status": {
                "failed": 1,
                "conditions": [
                    {
                        "type": "Failed",
                        "status": "True",
                        "reason": "DeadlineExceeded",
                        "message": "Job was active longer than specified deadline",
                        "lastTransitionTime": "2025-01-01T00:10:00Z",
                    }
                ],
            },
        }
    )
    assert failed is not None and failed.state == "failed"
    assert failed.reason == "DeadlineExceeded" and failed.finished_at is not None
    assert job_view({"metadata": {"name": "other", "labels": {"app": "x"}}}) is None


def test_pod_problems_unschedulable_and_image_pulls() -> None:
    meta = {"name": "p", "labels": LABELS}
    unschedulable = pod_problem(
        {
            "metadata": meta,
            "status": {
                "phase": "Pending",
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "status": "False",
                        "reason": "Unschedulable",
                        "message": "0/3 nodes are available: 3 Insufficient memory.",
                    }
                ],
            },
        }
    )
    assert unschedulable is not None and unschedulable.reason == "Unschedulable"
    assert "Insufficient memory" in unschedulable.message
    pulling = pod_problem(
        {
            "metadata": meta,
            "status": {
                "phase": "Pending",
                "initContainerStatuses": [
                    {
                        "name": "proxy",
                        "state": {
                            "waiting": {
                                "reason": "ImagePullBackOff",
                                "message": "Back-off pulling image",
                            }
                        },
                    }
                ],
            },
        }
    )
    assert pulling is not None and pulling.reason == "ImagePullBackOff"
    assert pulling.message.startswith("container proxy")
    creating = pod_problem(
        {
            "metadata": meta,
            "status": {
                "phase": "Pending",
                "containerStatuses": [
                    {"name": "trial", "state": {"waiting": {"reason": "ContainerCreating"}}}
                ],
            },
        }
    )
    assert creating is None
    assert pod_problem({"metadata": meta, "status": {"phase": "Succeeded"}}) is None


def rollout_body(**spec: object) -> dict:
    return {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "Rollout",
        "metadata": {
            "name": "r",
            "namespace": "ns",
            "uid": "u1",
            "generation": 4,
            "finalizers": ["adhere.dev/cleanup"],
            "managedFields": [{"manager": "kubectl"}],
            "resourceVersion": "77",
            "creationTimestamp": "2025-01-01T00:00:00Z",
        },
        "spec": {
            "benchmark": "b",
            "models": [
                {
                    "name": "m",
                    "endpoint": {
                        "baseUrl": "https://api.example.com/v1",
                        "model": "x",
                        "apiKey": {"secretKeyRef": {"name": "keys", "key": "openai"}},
                    },
                }
            ],
            **spec,
        },
        "status": {"phase": "Running", "kopf": {"progress": {}}},
    }


def test_api_objects_parse_without_server_metadata_and_errors_name_the_field() -> None:
    rollout = parse_body(Rollout, rollout_body())
    assert rollout.metadata.generation == 4 and rollout.spec.max_retries == 2
    with pytest.raises(SpecError) as raised:
        parse_body(Rollout, rollout_body(parallelism=0))
    assert raised.value.field == "spec.parallelism"
    assert "Rollout ns/r" in str(raised.value)


def test_model_keys_must_come_from_secrets_in_a_cluster() -> None:
    rollout = parse_body(Rollout, rollout_body())
    check_cluster_rollout(rollout, where="Rollout ns/r")
    refs = model_secret_refs(rollout)
    assert [(path, r.name, r.key) for path, r in refs] == [
        ("spec.models[0].endpoint.apiKey", "keys", "openai")
    ]
    assert missing_secrets(refs, {"keys": {"openai": "c2s="}}) == []
    assert missing_secrets(refs, {"keys": {"other": "x"}}) == [
        "spec.models[0].endpoint.apiKey: Secret 'keys' has no key 'openai'"
    ]
    assert missing_secrets(refs, {"keys": None}) == [
        "spec.models[0].endpoint.apiKey: Secret 'keys' not found"
    ]
    env_key = rollout_body()
    env_key["spec"]["models"][0]["endpoint"]["apiKey"] = {"env": "OPENAI_API_KEY"}
    with pytest.raises(SpecError) as raised:
        check_cluster_rollout(parse_body(Rollout, env_key), where="Rollout ns/r")
    assert raised.value.field == "spec.models[0].endpoint.apiKey"
    assert "secretKeyRef" in str(raised.value)


def test_settings_from_yaml_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "operator.yaml"
    path.write_text("storeUri: s3://results/runs\nintervalSeconds: 30\nscoring: in-process\n")
    config = load_operator_config(path, interval_seconds=0.5)
    assert config.store_uri == "s3://results/runs"
    assert config.interval_seconds == 0.5 and config.scoring == "in-process"
    assert config.image_for("kilo") == "ghcr.io/adhere/scaffold-kilo:0.1.0"
    path.write_text("scoring: sometimes\n")
    with pytest.raises(SpecError) as raised:
        load_operator_config(path)
    assert raised.value.field == "scoring"


def test_the_scoring_rayjob_gets_judge_keys_from_secrets() -> None:
    panel = JudgePanel.model_validate(
        {
            "metadata": {"name": "p"},
            "spec": {
                "judges": [
                    {
                        "name": "j",
                        "endpoint": {
                            "baseUrl": "https://api.example.com/v1",
                            "model": "judge",
                            "apiKey": {"secretKeyRef": {"name": "judge-keys", "key": "anthropic"}},
                        },
                    }
                ]
            },
        }
    )
    rayjob = build_rayjob(
        RolloutRef("r", "ns", "u1"),
        "abcdef0123456789",
        "s3://b/runs/r",
        panel,
        OperatorConfig(ray_workers=3),
    )
    assert (
        rayjob["apiVersion"] == "ray.io/v1" and rayjob["metadata"]["name"] == "r-score-abcdef0123"
    )
    assert rayjob["spec"]["entrypoint"].startswith(
        "adhere trial score --rollout-uri s3://b/runs/r --ray auto"
    )
    head = rayjob["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert {
        "name": "ADHERE_SECRET_JUDGE_KEYS_ANTHROPIC",
        "valueFrom": {"secretKeyRef": {"name": "judge-keys", "key": "anthropic"}},
    } in head["env"]
    assert rayjob["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] == 3
    assert rayjob["metadata"]["ownerReferences"][0]["kind"] == "Rollout"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "x"},
        **rayjob["spec"]["rayClusterSpec"]["headGroupSpec"]["template"],
    }
    kubernetes_validate.validate(pod, "1.33.0", strict=True)
    assert rayjob_state({"status": {"jobStatus": "SUCCEEDED"}})[0] == "succeeded"
    assert rayjob_state({"status": {"jobStatus": "FAILED", "message": "boom"}}) == (
        "failed",
        "boom",
    )
    assert rayjob_state({})[0] == "running"
