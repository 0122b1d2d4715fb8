"""The rollout, model and probe agent of the pod-credentials tests, and the kubelet's part.

See ``test_operator_pod_credentials.py``. The probe is the agent's one command: it dumps
the environment of every process from itself up to the trial runner (the trial
container's first process), plants symbolic links to ``/proc/self/environ`` and
``/proc/self`` in the spool where the trial's files are written, then waits for the
file ``go``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from adhere.core import Trial
from adhere.operator import OperatorConfig, RolloutRef, build_job
from adhere.runner import prepare_rollout
from adhere.spec import Benchmark, ModelSpec, Rollout, RunConfig, ScaffoldSpec
from adhere.store import open_store
from tests.helpers import wait_until
from tests.integration.operator._operator_parts import KEY, NS, free_port
from tests.integration.operator._pod_replay import PodReplay, stop
from tests.integration.store._s3_parts import BUCKET, PLANTED_SECRET, MotoS3

ACCESS_KEY = "AKIAADHEREPODTEST000"
STORE_SECRET = "adhere-s3"
PROBE = """\
#!/bin/bash
# What an agent's command can read of its container: its own environment and that of
# every process above it, up to the trial runner.
out={seen}/$$.env
p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do
  cmd=$(tr '\\0' ' ' < /proc/$p/cmdline)
  echo "== process $p: $cmd" >> "$out"
  tr '\\0' '\\n' < /proc/$p/environ >> "$out"
  case "$cmd" in *"trial run"*)
    echo "REACHED THE TRIAL RUNNER" >> "$out"
    spool=$(echo "$cmd" | sed -nE 's/.*--spool ([^ ]*).*/\\1/p')
    break;;
  esac
  p=$(awk '{{print $4}}' /proc/$p/stat)
done
# Links for the uploader, which holds the store credentials, to follow.
for rollout in "$spool"/store/*/; do
  trial_dir="$rollout/trials/gpt-x/reference/probe/r0"
done
mkdir -p "$trial_dir"
ln -s /proc/self/environ "$trial_dir/leak.json"
ln -s /proc/self "$trial_dir/proc"
touch {seen}/waiting
until [ -e {go} ]; do sleep 0.05; done
echo "probe done: $(grep -c . "$out") lines seen"
"""


class Setup:
    """The rollout in S3, the model behind the policy server, and how to build a Job."""

    def __init__(self, tmp_path: Path, s3: MotoS3, upstream: str) -> None:
        self.tmp_path = tmp_path
        self.s3 = s3
        self.seen = tmp_path / "seen"
        self.seen.mkdir()
        self.go = tmp_path / "go"
        (tmp_path / "ws").mkdir()
        (tmp_path / "ws" / "README.md").write_text("# demo\n")
        probe = tmp_path / "probe.sh"
        self.pods = tmp_path / "pods"
        probe.write_text(PROBE.format(seen=self.seen, go=self.go))
        row = {
            "instance_id": "probe",
            "user_query": ["Run the script."],
            "system_prompt": "",
            "category": "SP",
            "workspace": ["ws"],
            "checklist": {
                "SP": {
                    "description": "",
                    "checks": [
                        {"check_id": "SP_1", "description": "d", "check_type": "compliance"}
                    ],
                }
            },
        }
        (tmp_path / "instances.jsonl").write_text(json.dumps(row) + "\n")
        self.model = ModelSpec.model_validate(
            {
                "name": "gpt-x",
                "endpoint": {
                    "api": "openai",
                    "baseUrl": f"{upstream}/v1",
                    "model": f"agent:run,command=bash {probe}",
                    "apiKey": {"secretKeyRef": {"name": "model-keys", "key": "openai"}},
                },
            }
        )
        meta = {"namespace": NS}
        self.store_uri = f"s3://{BUCKET}/runs"
        rollout = Rollout.model_validate(
            {
                "apiVersion": "adhere.dev/v1alpha1",
                "kind": "Rollout",
                "metadata": {"name": "pods", **meta},
                "spec": {
                    "benchmark": "b",
                    "models": [self.model.model_dump(mode="json", by_alias=True)],
                    "scaffolds": ["reference"],
                    "storage": self.store_uri,
                },
            }
        )
        benchmark = Benchmark.model_validate(
            {
                "apiVersion": "adhere.dev/v1alpha1",
                "kind": "Benchmark",
                "metadata": {"name": "b", **meta},
                "spec": {"suite": "octobench", "source": {"path": "instances.jsonl"}},
            }
        )
        config = RunConfig(
            rollout=rollout, benchmark=benchmark, judge_panel=None, base_dir=tmp_path
        )
        # The operator's part: the snapshot and the instances go to the store.
        prepared = prepare_rollout(
            config, store_uri=f"{self.store_uri}?endpoint_url={s3.endpoint}", secrets=[KEY]
        )
        self.trial: Trial = prepared.trials[0]
        self.config = OperatorConfig(
            proxy_port=free_port(),
            store_secret=STORE_SECRET,
            store_env={"ADHERE_S3_ENDPOINT_URL": s3.endpoint, "AWS_REGION": "us-east-1"},
        )
        self.secrets = {
            STORE_SECRET: {
                "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": PLANTED_SECRET,
            },
            "model-keys": {"openai": KEY},
        }
        self.store = open_store(f"{self.store_uri}?endpoint_url={s3.endpoint}")

    def pod(self, attempt: int) -> PodReplay:
        job = build_job(
            RolloutRef(name="pods", namespace=NS, uid="uid-pods"),
            self.trial,
            attempt,
            self.model,
            ScaffoldSpec(name="reference", timeout_seconds=120),
            f"{self.store_uri}/pods",
            self.config,
            sidecar=True,
        )
        return PodReplay(job, self.pods / f"a{attempt}", self.secrets)

    def trial_key(self, name: str) -> str:
        t = self.trial
        return f"pods/trials/{t.model}/{t.scaffold}/{t.instance}/r{t.repeat}/{name}"

    def stored(self) -> dict[str, bytes]:
        """Every object under the rollout, by key below its trial directory."""
        prefix = self.trial_key("")
        return {
            key[len(prefix) :]: self.store.read_bytes(key)
            for key in self.store.list("pods/")
            if key.startswith(prefix)
        }


async def play(pod: PodReplay, *, interrupt: bool = False) -> dict[str, Any]:
    """The kubelet's part: sidecars, init, the trial, then the sidecars stopped."""
    proxy = pod.start("proxy")
    try:
        assert await asyncio.to_thread(pod.run, "stage") == 0, pod.log("stage")
        upload = pod.start("upload")
        try:
            trial = pod.start("trial")
            if interrupt:  # the pod is deleted while the agent's command runs
                waiting = pod.root.parent.parent / "seen" / "waiting"
                await asyncio.to_thread(wait_until, waiting.exists, "the probe waiting")
                trial_status = await asyncio.to_thread(stop, trial)
            else:
                trial_status = await asyncio.to_thread(trial.wait, 300)
        finally:
            upload_status = await asyncio.to_thread(stop, upload)  # after the trial, as 1.29+
    finally:
        await asyncio.to_thread(stop, proxy)
    return {"trial": trial_status, "upload": upload_status}
