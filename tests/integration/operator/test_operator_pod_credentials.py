"""A trial pod whose agent holds no credential, replayed here container by container.

The operator's own Job manifest is played by :class:`PodReplay`: the proxy sidecar
(holding the model key from its Secret), the stage init container and the upload
sidecar (holding the store's credentials from theirs), and the trial container —
each a process with exactly the environment its manifest gives it, the volumes as
directories. The store is moto's S3 server; the model the scripted policy server,
which requires the key.

The agent (the reference scaffold driven by ``agent:run``) runs a probe: it dumps
the environment of every process from itself up to the trial runner (the trial
container's first process), plants symbolic links to ``/proc/self/environ`` and
``/proc/self`` in the spool where the trial's files are written, and — in the
SIGTERM test — waits for a file the test creates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest

from adhere.testing import PolicyServer, PolicyServerConfig
from tests.integration.operator._operator_parts import KEY, NS, wait_for
from tests.integration.operator._pod_replay import PodReplay, files_under
from tests.integration.operator._pod_trial import (
    ACCESS_KEY,
    STORE_SECRET,
    Setup,
    play,
)
from tests.integration.store._s3_parts import BUCKET, PLANTED_SECRET, MotoS3


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Any:
    """moto's S3 with the bucket; this process reaches it with the store's credentials."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": PLANTED_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": "/nonexistent/adhere-test",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/adhere-test",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "ADHERE_S3_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    server = MotoS3()
    server.reset()  # moto keeps state in-process: start from an empty S3
    client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def setup(tmp_path: Path, s3: MotoS3) -> Any:
    server = PolicyServer(PolicyServerConfig(require_api_key=KEY))
    upstream = await server.start()
    try:
        yield Setup(tmp_path, s3, upstream)
    finally:
        await server.stop()


async def test_the_agent_reads_no_credential_and_its_results_reach_the_store(setup: Setup) -> None:
    setup.go.touch()
    pod = setup.pod(1)
    # The manifest: only the store containers hold the store Secret, only the proxy the key.
    env_of = {name: pod.env(name) for name in pod.containers}
    assert env_of["stage"]["AWS_SECRET_ACCESS_KEY"] == PLANTED_SECRET
    assert env_of["upload"]["AWS_SECRET_ACCESS_KEY"] == PLANTED_SECRET
    assert env_of["proxy"]["ADHERE_UPSTREAM_KEY"] == KEY
    for secret in (PLANTED_SECRET, ACCESS_KEY, KEY):
        assert secret not in json.dumps(env_of["trial"])
    assert "state" not in {m["name"] for m in pod.containers["trial"]["volumeMounts"]}

    ended = await play(pod)
    assert ended == {"trial": 0, "upload": 0}, pod.log("trial")
    assert "attempt 1: ok" in pod.log("trial")

    # What the agent read: its environment and its parents', up to the trial runner.
    seen = "".join(p.read_text() for p in setup.seen.glob("*.env"))
    assert "REACHED THE TRIAL RUNNER" in seen
    assert f"ADHERE_WORK_DIR={pod.mounts('trial')['/work']}" in seen  # the runner's own env
    for secret in (PLANTED_SECRET, ACCESS_KEY, KEY, "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"):
        assert secret not in seen, secret

    # No file in any volume of the agent's container holds a credential.
    agent_files = files_under(pod.agent_volumes())
    assert any(p.name == "calls.jsonl" for p in agent_files)  # the proxy's log is among them
    for path in agent_files:
        data = path.read_bytes()
        for secret in (PLANTED_SECRET, ACCESS_KEY, KEY):
            assert secret.encode() not in data, (path, secret)

    # Everything the trial wrote reached the store, result last; the links did not.
    stored = setup.stored()
    assert set(stored) == {
        "calls.jsonl",
        "trajectory.json",
        "scaffold.json",
        "verdicts.json",
        "result.json",
    }
    result = json.loads(stored["result.json"])
    assert (result["status"], result["attempt"]) == ("ok", 1)
    assert b"probe done" in stored["calls.jsonl"]  # the agent's command ran, recorded
    for data in stored.values():
        for secret in (PLANTED_SECRET, ACCESS_KEY, KEY):
            assert secret.encode() not in data
    assert "not uploaded (not a regular file): leak.json" in pod.log("upload")
    assert "not uploaded (not a regular file): proc" in pod.log("upload")


async def test_a_deleted_pod_keeps_its_attempt_and_the_next_pod_runs_the_next(
    setup: Setup,
) -> None:
    first = setup.pod(1)
    ended = await play(first, interrupt=True)
    assert ended == {"trial": 143, "upload": 0}, first.log("trial")
    stored = setup.stored()
    assert "result.json" not in stored
    assert json.loads(stored["interrupted.json"])["attempt"] == 1
    assert "calls.jsonl" in stored  # the calls made before the stop are kept

    # The operator retries: attempt 2 in a fresh pod; stage archives attempt 1 first.
    setup.go.touch()
    (setup.seen / "waiting").unlink()
    second = setup.pod(2)
    ended = await play(second)
    assert ended == {"trial": 0, "upload": 0}, second.log("trial")
    stored = setup.stored()
    assert json.loads(stored["result.json"])["attempt"] == 2
    assert json.loads(stored["attempt-1/interrupted.json"])["attempt"] == 1
    assert "attempt-1/calls.jsonl" in stored and "interrupted.json" not in stored

    # A third pod (a retried Job of a trial already ok) runs nothing and uploads nothing.
    before = setup.stored()
    third = setup.pod(3)
    ended = await play(third)
    assert ended == {"trial": 0, "upload": 0}, third.log("trial")
    assert "already ok" in third.log("stage") and setup.stored() == before


async def test_the_operator_s_job_over_the_emulator_plays_out_with_no_credential_in_the_agent(
    setup: Setup,
    cluster: Any,
    operator: Any,
    secret: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """kopf against kmock builds the Job; the Job, replayed, stores the trial; the rollout
    counts it done."""
    import kubernetes_validate

    from tests.integration.operator.conftest import create
    from tests.integration.operator.test_operator_cluster import jobs, mark, status

    setup.go.touch()
    monkeypatch.setenv("ADHERE_S3_ENDPOINT_URL", setup.s3.endpoint)  # the operator's store
    await create(
        cluster,
        "apis/adhere.dev/v1alpha1",
        "benchmarks",
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Benchmark",
            "metadata": {"name": "b", "namespace": NS, "uid": "uid-b", "resourceVersion": "1"},
            "spec": {"suite": "octobench", "source": {"path": "instances.jsonl"}},
        },
    )
    await create(
        cluster,
        "apis/adhere.dev/v1alpha1",
        "rollouts",
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "metadata": {
                "name": "pods",
                "namespace": NS,
                "uid": "uid-pods",
                "generation": 1,
                "resourceVersion": "1",
            },
            "spec": {
                "benchmark": "b",
                "models": [setup.model.model_dump(mode="json", by_alias=True, exclude_none=True)],
                "scaffolds": ["reference"],
                "storage": setup.store_uri,
            },
        },
    )
    settings = {
        "proxyPort": setup.config.proxy_port,
        "storeSecret": STORE_SECRET,
        "storeEnv": setup.config.store_env,
    }
    async with operator(**settings):
        found = await wait_for(lambda: jobs(cluster), what="the trial's Job")
        ((name, job),) = found.items()
        kubernetes_validate.validate(job, "1.33.0", strict=True)
        pod = PodReplay(job, setup.pods / "via-operator", setup.secrets)
        trial_env = json.dumps(pod.env("trial"))
        assert PLANTED_SECRET not in trial_env and KEY not in trial_env
        assert set(pod.containers) == {"proxy", "stage", "upload", "trial"}
        ended = await play(pod)
        assert ended == {"trial": 0, "upload": 0}, pod.log("trial")
        await mark(cluster, name, "succeeded")
        await wait_for(
            lambda: (status(cluster, "pods").get("trials") or {}).get("done") == 1,
            timeout=60,
            what="the trial counted done",
        )
    result = json.loads(setup.stored()["result.json"])
    assert result["status"] == "ok" and result["trial_id"] == setup.trial.id
    seen = "".join(p.read_text() for p in setup.seen.glob("*.env"))
    assert "REACHED THE TRIAL RUNNER" in seen and PLANTED_SECRET not in seen and KEY not in seen


def test_the_replay_runs_the_manifests_commands() -> None:
    """The harness itself: paths under a mount become the volume's directory."""
    job = {
        "spec": {
            "template": {
                "spec": {
                    "volumes": [{"name": "spool", "emptyDir": {}}],
                    "containers": [
                        {
                            "name": "c",
                            "command": ["adhere", "x", "--spool", "/spool", "/spooled"],
                            "env": [{"name": "A", "value": "/spool/b"}],
                            "volumeMounts": [{"name": "spool", "mountPath": "/spool"}],
                        }
                    ],
                }
            }
        }
    }
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        pod = PodReplay(job, Path(tmp), {})
        spool = str(pod.volumes["spool"])
        assert pod.command("c")[-3:] == ["--spool", spool, "/spooled"]
        assert pod.env("c")["A"] == f"{spool}/b"
