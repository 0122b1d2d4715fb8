"""The operator (kopf's runner) against kmock's Kubernetes emulator over HTTP.

There is no kubelet: each test plays the part of the trial pods itself — it runs a
Job's stage, trial and upload steps with the real entrypoints and the Job's own
arguments (the trial through a recording proxy holding the key, against the scripted
policy server) and then marks the Job complete in the emulator, as the Job controller
would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kmock import KubernetesEmulator

from adhere.runner._trial import open_rollout_uri
from adhere.suites import get_suite
from adhere.testing import InstanceAnswerKey, PolicyServer, PolicyServerConfig
from tests.integration.operator._operator_parts import (
    KEY,
    NS,
    arg,
    benchmark_body,
    container_command,
    play_pod,
    proxy_sidecar,
    rollout_body,
    scripted_model,
    wait_for,
)
from tests.integration.operator.conftest import create

pytestmark = pytest.mark.usefixtures("secret")

JOBS = "batch/v1/jobs"
ROLLOUTS = "adhere.dev/v1alpha1/rollouts"


def jobs(cluster: KubernetesEmulator) -> dict[str, dict[str, Any]]:
    """The Jobs in the emulator, by name."""
    resource = cluster.resource(JOBS)
    return {
        name: dict(cluster.objects[JOBS, ns, name].raw)
        for (res, ns, name) in list(cluster.objects)
        if res == resource and not cluster.objects[JOBS, ns, name].deleted
    }


def status(cluster: KubernetesEmulator, name: str = "sweep") -> dict[str, Any]:
    return dict(cluster.objects[ROLLOUTS, NS, name].raw.get("status") or {})


def condition(cluster: KubernetesEmulator, kind: str, name: str = "sweep") -> dict[str, Any]:
    found = [c for c in status(cluster, name).get("conditions", []) if c["type"] == kind]
    return found[0] if found else {}


def job_posts(cluster: KubernetesEmulator) -> int:
    return sum(1 for r in list(cluster) if r.method == "POST" and r.url.path.endswith("/jobs"))


async def mark(cluster: KubernetesEmulator, name: str, state: str) -> None:
    """Set a Job's status as the Job controller would (via the API: watchers see it)."""
    when = "2025-01-01T00:00:00Z"
    body = (
        {"succeeded": 1, "completionTime": when,
         "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": when}]}
        if state == "succeeded"
        else {"failed": 1, "conditions": [{"type": "Failed", "status": "True",
              "reason": "BackoffLimitExceeded", "lastTransitionTime": when}]}
    )  # fmt: skip
    path = f"/apis/batch/v1/namespaces/{NS}/jobs/{name}/status"
    async with cluster.patch(path, json={"status": body}) as response:
        assert response.status == 200, await response.text()


async def start_rollout(cluster: KubernetesEmulator, tmp_path: Path, **kwargs: Any) -> None:
    await create(cluster, "apis/adhere.dev/v1alpha1", "benchmarks", benchmark_body())
    body = rollout_body(storage=(tmp_path / "runs").as_uri(), **kwargs)
    await create(cluster, "apis/adhere.dev/v1alpha1", "rollouts", body)


class Pods:
    """Plays the trial pods: runs a Job's trial here, then marks the Job complete."""

    def __init__(self, cluster: KubernetesEmulator, tmp_path: Path) -> None:
        self.cluster = cluster
        self.tmp_path = tmp_path
        self.ran: set[str] = set()

    async def finish(self, names: list[str]) -> None:
        for name in names:
            job = jobs(self.cluster)[name]
            uri = arg(container_command(job, "stage"), "--rollout-uri")
            store = open_rollout_uri(uri)
            server = PolicyServer(
                PolicyServerConfig(
                    answer_key=InstanceAnswerKey(store.read_instances(), get_suite),
                    require_api_key=KEY,
                )
            )
            upstream = await server.start()
            calls = self.tmp_path / "calls" / name
            try:
                async with proxy_sidecar(upstream, job_model(job), calls) as url:
                    result = await play_pod(job, self.tmp_path / "pods" / name, url, calls)
            finally:
                await server.stop()
            assert result.status == "ok", result.error
            self.ran.add(name)
            await mark(self.cluster, name, "succeeded")


def job_model(job: dict[str, Any]) -> str:
    return str(job["metadata"]["annotations"]["adhere.dev/model"])


async def test_a_rollout_runs_as_jobs_within_parallelism_then_is_scored(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await start_rollout(cluster, tmp_path, parallelism=2)
    pods = Pods(cluster, tmp_path)
    async with operator():
        first = await wait_for(lambda: len(jobs(cluster)) >= 2 and jobs(cluster), what="2 Jobs")
        await wait_for(lambda: status(cluster).get("phase") == "Running", what="Running")
        assert len(jobs(cluster)) == 2  # parallelism 2 of 3 trials
        job = next(iter(first.values()))
        pod = job["spec"]["template"]["spec"]
        assert pod["containers"][0]["image"] == "ghcr.io/adhere/scaffold-chat:0.1.0"
        proxy = pod["initContainers"][0]
        assert proxy["env"][0]["valueFrom"] == {
            "secretKeyRef": {"name": "model-keys", "key": "openai"}
        }
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert all(
            c["securityContext"]["allowPrivilegeEscalation"] is False
            and c["securityContext"]["capabilities"] == {"drop": ["ALL"]}
            for c in [*pod["containers"], proxy]
        )
        owner = job["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["uid"]) == ("Rollout", "sweep", "uid-sweep")
        assert job["metadata"]["labels"]["adhere.dev/rollout"] == "sweep"
        counts = status(cluster)["trials"]
        assert (counts["planned"], counts["running"]) == (3, 2)
        assert condition(cluster, "Planned")["status"] == "True"

        await pods.finish(sorted(first))
        await wait_for(lambda: len(jobs(cluster)) == 3, what="the third Job")
        await pods.finish([n for n in jobs(cluster) if n not in pods.ran])
        await wait_for(
            lambda: status(cluster).get("phase") == "Succeeded", timeout=30, what="Succeeded"
        )
    final = status(cluster)
    assert final["summary"] == {"isr": 1.0, "csr": 1.0}  # the oracle follows everything
    assert final["trials"]["done"] == 3 and final["trials"]["failed"] == 0
    assert final["artifacts"] == f"{(tmp_path / 'runs').as_uri()}/sweep"
    assert final["observedGeneration"] == 1
    assert condition(cluster, "Succeeded")["reason"] == "Completed"
    assert job_posts(cluster) == 3  # one Job per trial, none twice
    stored = tmp_path / "runs" / "sweep"
    assert len(list(stored.rglob("verdicts.json"))) == 3
    assert not any(KEY in p.read_text() for p in stored.rglob("*") if p.is_file())


async def test_a_restarted_operator_creates_no_duplicates_and_deletion_cleans_up(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await start_rollout(cluster, tmp_path, parallelism=2)
    async with operator():
        await wait_for(lambda: len(jobs(cluster)) == 2, what="2 Jobs")
    before = dict(jobs(cluster))
    pods = Pods(cluster, tmp_path)
    await pods.finish([sorted(before)[0]])  # a Job finishes while no operator runs
    lists = sum(1 for r in list(cluster) if r.method == "GET" and r.url.path.endswith("/jobs"))
    async with operator():
        await wait_for(lambda: len(jobs(cluster)) == 3, what="the third Job")
        # Let the new operator reconcile a few more times: it must not create more.
        await wait_for(
            lambda: sum(
                1 for r in list(cluster) if r.method == "GET" and r.url.path.endswith("/jobs")
            )
            > lists + 2,
            what="more reconciles",
        )
        assert job_posts(cluster) == 3 and len(jobs(cluster)) == 3
        assert set(before) < set(jobs(cluster))
        async with cluster.delete(f"/apis/adhere.dev/v1alpha1/namespaces/{NS}/rollouts/sweep"):
            pass
        await wait_for(lambda: not jobs(cluster), what="Jobs deleted by the finalizer")
        await wait_for(
            lambda: cluster.objects[ROLLOUTS, NS, "sweep"].deleted, what="the Rollout gone"
        )
    # The results stay in the store.
    assert len(list((tmp_path / "runs" / "sweep").rglob("result.json"))) == 1


async def test_failed_jobs_are_retried_with_backoff_then_fail_for_good(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await start_rollout(cluster, tmp_path, parallelism=3, max_retries=1)
    async with operator():
        first = await wait_for(lambda: len(jobs(cluster)) == 3 and jobs(cluster), what="Jobs")
        for name in first:
            await mark(cluster, name, "failed")
        retries = await wait_for(
            lambda: len(a2 := [n for n in jobs(cluster) if n.endswith("-a2")]) == 3 and a2,
            what="retries",
        )
        await wait_for(lambda: status(cluster)["trials"]["retried"] == 3, what="retried: 3")
        for name in retries:
            await mark(cluster, name, "failed")
        await wait_for(lambda: status(cluster).get("phase") == "Failed", what="Failed")
    assert condition(cluster, "Failed")["reason"] == "AllTrialsFailed"
    assert "BackoffLimitExceeded" in condition(cluster, "Failed")["message"]
    assert status(cluster)["trials"]["failed"] == 3 and len(jobs(cluster)) == 6


async def test_image_pull_and_scheduling_problems_show_as_conditions(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await start_rollout(cluster, tmp_path, parallelism=1)
    async with operator():
        first = await wait_for(lambda: jobs(cluster), what="a Job")
        name, job = next(iter(first.items()))
        labels = job["spec"]["template"]["metadata"]["labels"]
        waiting = {
            "reason": "ImagePullBackOff",
            "message": 'Back-off pulling image "ghcr.io/adhere/scaffold-chat"',
        }
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{name}-x7k2p",
                "namespace": NS,
                "uid": "uid-pod",
                "resourceVersion": "1",
                "labels": {**labels, "job-name": name},
            },
            "status": {
                "phase": "Pending",
                "containerStatuses": [{"name": "trial", "state": {"waiting": waiting}}],
            },
        }
        await create(cluster, "api/v1", "pods", pod)
        problem = await wait_for(
            lambda: condition(cluster, "Schedulable").get("status") == "False"
            and condition(cluster, "Schedulable"),
            timeout=5,
            what="the Schedulable condition",
        )
    assert problem["reason"] == "ImagePullBackOff"
    assert f"{name}-x7k2p" in problem["message"] and "scaffold-chat" in problem["message"]


async def test_a_spec_edit_replans(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await start_rollout(cluster, tmp_path, parallelism=1)
    async with operator():
        first = await wait_for(lambda: jobs(cluster), what="a Job")
        edit = {
            "metadata": {"generation": 2},
            "spec": {"models": [scripted_model()], "parallelism": 3},
        }
        path = f"/apis/adhere.dev/v1alpha1/namespaces/{NS}/rollouts/sweep"
        async with cluster.patch(path, json=edit) as response:
            assert response.status == 200
        await wait_for(lambda: status(cluster).get("observedGeneration") == 2, what="re-plan")
        now = await wait_for(lambda: len(jobs(cluster)) == 3 and jobs(cluster), what="new Jobs")
    assert not set(first) & set(now)  # the dropped model's active Job was deleted
    assert all(j["metadata"]["labels"]["adhere.dev/model"] == "oracle" for j in now.values())
    scripted_pod = next(iter(now.values()))["spec"]["template"]["spec"]
    # The scripted test double runs in-process: no proxy sidecar, only the store steps.
    assert [c["name"] for c in scripted_pod["initContainers"]] == ["stage", "upload"]
    assert status(cluster)["trials"]["planned"] == 3


async def test_invalid_specs_and_missing_secrets_are_reported_in_conditions(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    await create(cluster, "apis/adhere.dev/v1alpha1", "benchmarks", benchmark_body())
    bad = rollout_body("bad", storage=(tmp_path / "runs").as_uri(), parallelism=0)
    await create(cluster, "apis/adhere.dev/v1alpha1", "rollouts", bad)
    model = scripted_model() | {"name": "keyed"}
    model["endpoint"] = {
        "baseUrl": "https://api.example.com/v1",
        "model": "m",
        "apiKey": {"secretKeyRef": {"name": "absent", "key": "k"}},
    }
    nokey = rollout_body("nokey", storage=(tmp_path / "runs").as_uri(), models=[model])
    await create(cluster, "apis/adhere.dev/v1alpha1", "rollouts", nokey)
    panel = {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "JudgePanel",
        "metadata": {"name": "judges", "namespace": NS, "uid": "uid-panel", "resourceVersion": "1"},
        "spec": {"judges": [{"name": "j", "endpoint": model["endpoint"]}]},
    }
    await create(cluster, "apis/adhere.dev/v1alpha1", "judgepanels", panel)
    async with operator():
        await wait_for(lambda: status(cluster, "bad").get("phase") == "Failed", what="bad")
        await wait_for(lambda: condition(cluster, "Planned", "nokey"), what="nokey")
        await wait_for(
            lambda: cluster.objects["adhere.dev/v1alpha1/judgepanels", NS, "judges"].raw.get(
                "status"
            ),
            what="the JudgePanel's status",
        )
        await wait_for(
            lambda: cluster.objects["adhere.dev/v1alpha1/benchmarks", NS, "bench"]
            .raw.get("status", {})
            .get("instances"),
            what="the Benchmark's status",
        )
    invalid = condition(cluster, "Planned", "bad")
    assert invalid["reason"] == "InvalidSpec" and "spec.parallelism" in invalid["message"]
    missing = condition(cluster, "Planned", "nokey")
    assert (
        missing["reason"] == "SecretNotFound" and "Secret 'absent' not found" in missing["message"]
    )
    assert status(cluster, "nokey")["phase"] == "Pending"
    panel_status = cluster.objects["adhere.dev/v1alpha1/judgepanels", NS, "judges"].raw["status"]
    assert panel_status["phase"] == "Pending"
    assert panel_status["conditions"][1]["reason"] == "SecretNotFound"
    bench = cluster.objects["adhere.dev/v1alpha1/benchmarks", NS, "bench"].raw["status"]
    assert (bench["phase"], bench["instances"]) == ("Succeeded", 3)
    assert not jobs(cluster)
    resolved = bench["conditions"][1]
    assert (resolved["type"], resolved["status"]) == ("Resolved", "True")
    assert resolved["message"].startswith("3 instances, 9 checks")


async def test_with_kuberay_installed_scoring_runs_as_a_rayjob(
    cluster: KubernetesEmulator, operator: Any, tmp_path: Path
) -> None:
    cluster.resources["ray.io/v1/rayjobs"] = {
        "kind": "RayJob",
        "namespaced": True,
        "verbs": ["get", "list", "watch", "create", "delete", "patch"],
        "subresources": ["status"],
    }
    await start_rollout(cluster, tmp_path, parallelism=3)
    pods = Pods(cluster, tmp_path)
    async with operator(scoring="auto"):
        first = await wait_for(lambda: len(jobs(cluster)) == 3 and jobs(cluster), what="Jobs")
        await pods.finish(sorted(first))
        rayjobs = "ray.io/v1/rayjobs"
        resource = cluster.resource(rayjobs)
        name = await wait_for(
            lambda: next((n for (r, _, n) in list(cluster.objects) if r == resource), None),
            what="the scoring RayJob",
        )
        await wait_for(lambda: status(cluster).get("phase") == "Scoring", what="Scoring")
        assert condition(cluster, "Scoring")["reason"] == "RayJob"
        rayjob = dict(cluster.objects[rayjobs, NS, name].raw)
        assert rayjob["spec"]["entrypoint"].startswith("adhere trial score --rollout-uri ")
        assert rayjob["metadata"]["ownerReferences"][0]["name"] == "sweep"
        path = f"/apis/ray.io/v1/namespaces/{NS}/rayjobs/{name}/status"
        done = {"status": {"jobStatus": "SUCCEEDED", "jobDeploymentStatus": "Complete"}}
        async with cluster.patch(path, json=done) as response:
            assert response.status == 200
        await wait_for(lambda: status(cluster).get("phase") == "Succeeded", what="Succeeded")
    # The trials' own verdicts are in the store (the RayJob would add judged ones).
    assert status(cluster)["summary"] == {"isr": 1.0, "csr": 1.0}
    assert condition(cluster, "Scoring")["reason"] == "ScoringDone"


async def test_the_api_client_speaks_plain_json_and_translates_errors(
    cluster: KubernetesEmulator,
) -> None:
    import asyncio

    from adhere.errors import KubeError
    from adhere.operator._kube import Kube

    kube = Kube.from_environment()  # the kubeconfig pointing at the emulator
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j1", "namespace": NS, "labels": {"adhere.dev/rollout": "r"}},
        "spec": {"template": {"spec": {"containers": []}}},
    }
    try:
        assert await asyncio.to_thread(kube.create, job, "jobs") is True
        assert await asyncio.to_thread(kube.create, job, "jobs") is False  # 409: exists
        found = await asyncio.to_thread(
            kube.list, "batch", "v1", "jobs", NS, {"adhere.dev/rollout": "r"}
        )
        assert [j["metadata"]["name"] for j in found] == ["j1"]
        other = await asyncio.to_thread(
            kube.list, "batch", "v1", "jobs", NS, {"adhere.dev/rollout": "x"}
        )
        assert other == []  # selectors also applied here (the emulator ignores them)
        assert await asyncio.to_thread(kube.get, "batch", "v1", "jobs", NS, "nope") is None
        assert await asyncio.to_thread(kube.secret_data, NS, "model-keys") == {
            "openai": "c2stbGl2ZS0wMTIzNDU2Nzg5YWJjZGVm"
        }
        assert await asyncio.to_thread(kube.serves, "ray.io", "v1", "rayjobs") is False
        assert await asyncio.to_thread(kube.delete, "batch", "v1", "jobs", NS, "j1") is True
        assert await asyncio.to_thread(kube.delete, "batch", "v1", "jobs", NS, "j1") is False
        with pytest.raises(KubeError) as raised:
            await asyncio.to_thread(kube.list, "nothing.example", "v1", "things", NS)
        assert raised.value.status == 404
    finally:
        kube.close()
