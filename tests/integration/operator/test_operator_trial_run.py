"""``adhere trial run``: one stored trial, as a trial Job's container runs it.

Against real local servers: the scripted policy server (a test double for the model
endpoint) and ``adhere proxy`` started as the pod's sidecar starts it.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from adhere.cli import main
from adhere.runner._trial import run_stored_trial
from adhere.suites import get_suite
from adhere.testing import InstanceAnswerKey, PolicyServer, PolicyServerConfig
from tests.helpers import run_cli
from tests.integration.operator._operator_parts import (
    KEY,
    proxy_sidecar,
    scripted_model,
    start_proxy_sidecar,
    stop,
    stored_rollout,
)


async def test_one_trial_through_the_sidecar_proxy_with_the_key_from_its_env(
    tmp_path: Path,
) -> None:
    store, trials = stored_rollout(tmp_path)
    instances = store.read_instances()
    server = PolicyServer(
        PolicyServerConfig(answer_key=InstanceAnswerKey(instances, get_suite), require_api_key=KEY)
    )
    upstream = await server.start()
    calls_dir = tmp_path / "calls"
    proxy, url = start_proxy_sidecar(upstream, "gpt-x", calls_dir)
    try:
        result = await run_stored_trial(
            store.uri, trials[0].id, attempt=1, proxy_url=url, calls_dir=calls_dir
        )
    finally:
        stop(proxy)
        await server.stop()
    assert result.status == "ok", result.error
    assert result.calls >= 1 and result.attempt == 1
    # A pod's result records the config it ran under, as a local run's does.
    assert result.fingerprint and set(result.fingerprint_parts) == {
        "endpoint",
        "scaffold",
        "instance",
        "suite",
    }
    calls = store.read_calls(trials[0])
    assert calls and all(c["status"] == 200 for c in calls)  # the key reached the endpoint
    verdicts = store.read_verdicts(trials[0])
    assert verdicts and all(v.result == "pass" for v in verdicts)  # the oracle follows all
    root = tmp_path / "runs"
    assert not any(KEY in p.read_text() for p in root.rglob("*") if p.is_file())
    # Other trials are untouched: one Job runs one trial.
    assert store.read_result(trials[1]) is None


def test_the_cli_runs_a_scripted_trial_in_process_and_skips_it_when_done(
    tmp_path: Path,
) -> None:
    store, trials = stored_rollout(tmp_path, models=[scripted_model()])
    args = ("trial", "run", "--rollout-uri", store.uri, "--trial", trials[0].id)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert f"trial {trials[0].id}" in first.stderr and "attempt 1: ok" in first.stderr
    result_file = tmp_path / "runs" / "sweep" / "trials" / "oracle" / "chat"
    stored = next(result_file.rglob("result.json")).read_bytes()
    again = CliRunner().invoke(main, [*args, "--attempt", "2"])
    assert again.exit_code == 0 and "attempt 1: ok" in again.output
    assert next(result_file.rglob("result.json")).read_bytes() == stored  # not run twice
    unknown = CliRunner().invoke(main, [*args[:-1], "nope"])
    assert unknown.exit_code == 2 and "no planned trial has id 'nope'" in unknown.output


async def test_a_retry_keeps_the_failed_attempts_files(tmp_path: Path) -> None:
    store, trials = stored_rollout(tmp_path)
    server = PolicyServer(
        PolicyServerConfig(
            answer_key=InstanceAnswerKey(store.read_instances(), get_suite), require_api_key=KEY
        )
    )
    upstream = await server.start()
    try:
        # Attempt 1: the Secret held a wrong key, so the endpoint answers 401.
        async with proxy_sidecar(upstream, "gpt-x", tmp_path / "c1", key="sk-wrong") as url:
            failed = await run_stored_trial(
                store.uri, trials[0].id, attempt=1, proxy_url=url, calls_dir=tmp_path / "c1"
            )
        assert failed.status == "error" and "401" in (failed.error or "")
        # Attempt 2, in a fresh pod (a fresh calls directory), with the right key.
        async with proxy_sidecar(upstream, "gpt-x", tmp_path / "c2") as url:
            ok = await run_stored_trial(
                store.uri, trials[0].id, attempt=2, proxy_url=url, calls_dir=tmp_path / "c2"
            )
    finally:
        await server.stop()
    assert ok.status == "ok" and ok.attempt == 2
    trial_dir = next((tmp_path / "runs" / "sweep" / "trials").rglob("r0"))
    archived = json.loads((trial_dir / "attempt-1" / "result.json").read_text())
    assert archived["status"] == "error" and archived["attempt"] == 1
    assert (trial_dir / "attempt-1" / "calls.jsonl").is_file()
    assert json.loads((trial_dir / "result.json").read_text())["attempt"] == 2


def test_a_benchmark_resolves_into_the_operators_store(tmp_path: Path) -> None:
    from adhere.operator import OperatorConfig
    from adhere.operator._planning import resolve_benchmark
    from adhere.spec import Benchmark
    from tests.integration.operator._operator_parts import benchmark_body

    config = OperatorConfig(store_uri=(tmp_path / "store").as_uri(), data_dir=str(tmp_path))
    resolved = resolve_benchmark(Benchmark.model_validate(benchmark_body()), config)
    assert (resolved.instances, resolved.checks) == (3, 9)
    path = tmp_path / "store" / "_benchmarks" / "research" / "bench" / "instances.jsonl"
    assert resolved.stored == path.as_uri()
    assert len(path.read_text().splitlines()) == 3


async def test_a_pod_in_the_instance_image_copies_its_workspace_and_works_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The instance-image pod's steps, played here: copy-workspace, then trial run in place."""
    import os
    import subprocess

    from adhere.runner._trial import prepare_rollout
    from adhere.spec import Benchmark, Rollout, RunConfig

    image_app = tmp_path / "image" / "app"  # the workspace directory inside the image
    image_app.mkdir(parents=True)
    (image_app / "notes.md").write_text("first\n")
    (image_app / "logo.png").write_bytes(b"\x89PNG\x00\x01binary")
    (image_app / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (image_app / "run.sh").chmod(0o755)
    os.symlink("notes.md", image_app / "NOTES")
    subprocess.run(["git", "init", "-q"], cwd=image_app, check=True)
    row = {
        "instance_id": "edit",
        "user_query": ["Add a line to notes.md."],
        "system_prompt": "",
        "category": "SP",
        "image": "registry.example.org/octo/edit:1",
        "workspace_abs_path": "/app",
        "checklist": {
            "SP": {
                "description": "",
                "checks": [{"check_id": "SP_1", "description": "d", "check_type": "compliance"}],
            }
        },
    }
    (tmp_path / "instances.jsonl").write_text(json.dumps(row) + "\n")
    meta = {"namespace": "research"}
    rollout = Rollout.model_validate(
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "octo", **meta},
            "spec": {
                "benchmark": "b",
                "models": [{"name": "m", "endpoint": {"api": "anthropic", "baseUrl": "scripted",
                                                      "model": "agent:edit"}}],
                "scaffolds": ["reference"],
                "storage": (tmp_path / "runs").as_uri(),
            },
        }
    )  # fmt: skip
    benchmark = Benchmark.model_validate(
        {
            "apiVersion": "adhere.dev/v1alpha1",
            "kind": "Benchmark",
            "metadata": {"name": "b", **meta},
            "spec": {"suite": "octobench", "source": {"path": "instances.jsonl"}},
        }
    )
    config = RunConfig(rollout=rollout, benchmark=benchmark, judge_panel=None, base_dir=tmp_path)
    prepared = prepare_rollout(config, store_uri=rollout.spec.storage, secrets=[])
    store, trial = prepared.store, prepared.trials[0]
    monkeypatch.setenv("ADHERE_WORK_DIR", str(tmp_path / "scratch"))

    # A pod without the image's workspace has no files to start from.
    refused = await run_stored_trial(store.uri, trial.id, attempt=1)
    assert refused.status == "error" and "only as an image" in (refused.error or "")

    # The workspace init container: the image's directory into the (empty) volume.
    volume = tmp_path / "volume"
    volume.mkdir()
    copied = run_cli("trial", "copy-workspace", "--from", str(image_app), "--to", str(volume))
    assert copied.returncode == 0, copied.stderr
    assert (volume / "logo.png").read_bytes() == (image_app / "logo.png").read_bytes()
    assert os.access(volume / "run.sh", os.X_OK) and (volume / ".git" / "HEAD").is_file()
    assert (volume / "NOTES").is_symlink() and os.readlink(volume / "NOTES") == "notes.md"
    missing = run_cli("trial", "copy-workspace", "--from", str(tmp_path / "nope"), "--to", "x")
    assert missing.returncode == 2 and "has no directory" in missing.stderr

    # The trial container: works in the volume where the image had its workspace.
    monkeypatch.setenv("ADHERE_WORKSPACE_DIR", str(volume))
    result = await run_stored_trial(store.uri, trial.id, attempt=2)
    assert result.status == "ok", result.error
    traj = store.read_trajectory(trial)
    assert traj is not None and traj.meta["workspace"] == str(volume)
    assert set(traj.files) == {"notes.md"}  # the binary, the link and .git are not changes
    assert (volume / "notes.md").read_text() != "first\n"  # edited in place, and kept
    assert not (tmp_path / "scratch" / trial.id).exists()  # the trial's HOME is removed
