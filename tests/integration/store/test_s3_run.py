"""Whole ``adhere run`` / ``adhere report`` commands with ``storage: s3://…`` on moto.

The commands run as subprocesses (as a user runs them); moto's S3 server runs in the
test process, and the planted AWS secret key is in their environment.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import boto3

from tests.helpers import ROOT, bench_yaml, model, rollout_yaml, run_cli
from tests.integration.store._s3_parts import BUCKET, PLANTED_SECRET, MotoS3, wait_until


def client_for(moto: MotoS3):
    return boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1")


def keys(moto: MotoS3, prefix: str) -> list[str]:
    pages = client_for(moto).get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def objects(moto: MotoS3, prefix: str, *, only_results: bool = False) -> dict[str, bytes]:
    client = client_for(moto)
    return {
        key: client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        for key in keys(moto, prefix)
        if not only_results or is_result(key)
    }


def is_result(key: str) -> bool:
    return key.endswith("/result.json") and "/attempt-" not in key


def results(moto: MotoS3, prefix: str) -> dict[str, bytes]:
    return objects(moto, prefix, only_results=True)


def test_run_and_report_from_s3_leak_no_secret(moto: MotoS3, write_specs) -> None:
    models = model("oracle", "oracle") + model("noisy", "noisy:rate=0.4,seed=3")
    path = write_specs(bench_yaml(), rollout_yaml(models, storage=moto.uri("runs")))
    run = run_cli("run", str(path))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "→ s3://adhere-test/runs/r" in run.stderr
    assert "report written to s3://adhere-test/runs/r/report/report.md" in run.stderr
    stored = objects(moto, "runs/r/")
    assert len(results(moto, "runs/r/")) == 24
    assert {"runs/r/rollout.yaml", "runs/r/instances.jsonl", "runs/r/report/report.md"} <= set(
        stored
    )
    assert b"| oracle |" in stored["runs/r/report/report.md"]

    report = run_cli("-vv", "report", str(path))
    assert report.returncode == 0, report.stderr[-3000:]
    oracle = [line for line in report.stdout.splitlines() if line.startswith("│ oracle ")][-1]
    assert oracle.count("100.0%") == 2
    noisy = [line for line in report.stdout.splitlines() if line.startswith("│ noisy ")][-1]
    assert noisy.count("100.0%") < 2
    assert "botocore" in report.stderr  # -vv: the debug log, boto's included, was on

    for text in (run.stdout, run.stderr, report.stdout, report.stderr):
        assert PLANTED_SECRET not in text
    for key, body in objects(moto, "").items():
        assert PLANTED_SECRET.encode() not in body, key


def test_kill_mid_run_then_resume_from_s3(moto: MotoS3, write_specs) -> None:
    models = model("slow", "oracle:delay=0.15")
    path = write_specs(
        bench_yaml(instructions="[3, 5, 8]", lengths="[3, 5]", per_language=2),
        rollout_yaml(models, parallelism=2, storage=moto.uri("runs")),
    )
    cmd = [sys.executable, "-m", "adhere.cli", "run", str(path), "--quiet", "--no-report"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: sum(map(is_result, keys(moto, "runs/r/trials/"))) >= 6, 90)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    time.sleep(0.2)  # a PUT the kill interrupted is refused by the server, never half-stored
    before = results(moto, "runs/r/trials/")
    assert 6 <= len(before) < 36, "the kill must land mid-run"

    again = run_cli("run", str(path), "--quiet", "--no-report")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{len(before)} already done" in again.stderr
    assert f"{36 - len(before)} ran" in again.stderr
    after = results(moto, "runs/r/trials/")
    assert len(after) == 36
    assert all(after[k] == v for k, v in before.items())  # not run again
    parsed = [json.loads(v) for v in after.values()]
    assert len({r["trial_id"] for r in parsed}) == 36
    assert all(r["status"] == "ok" and r["attempt"] == 1 for r in parsed)
    folders = {k.rsplit("/", 1)[0] for k in objects(moto, "runs/r/trials/")}
    assert len(folders) == 36  # no stray trial folder, nothing under attempt-<n>/


def test_a_run_against_an_unreachable_store_fails_clearly(tmp_path: Path, write_specs) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    storage = f"s3://{BUCKET}/runs?endpoint_url=http://127.0.0.1:{port}&max_attempts=2"
    path = write_specs(bench_yaml(), rollout_yaml(model("oracle", "oracle"), storage=storage))
    started = time.monotonic()
    proc = run_cli("run", str(path), "--quiet")
    assert proc.returncode == 2
    assert time.monotonic() - started < 60
    # The first thing a run touches is the stored result of its first trial (is it
    # finished, and under which config?), before it writes the spec snapshot.
    assert f"cannot look up s3://{BUCKET}/runs/r/trials/oracle/chat/" in proc.stderr
    assert f"http://127.0.0.1:{port} did not answer after 2 attempts" in proc.stderr
    assert PLANTED_SECRET not in proc.stderr and "Traceback" not in proc.stderr
