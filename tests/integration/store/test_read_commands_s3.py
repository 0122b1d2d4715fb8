"""Every command that reads a run takes an s3:// run (moto's server), as report and export do.

``score``, ``feedback``, ``trajectory show``, ``report``, ``compare`` and ``generate
checklist`` (and, for its refusal, ``analyze vibe-correlation``) on the rollout
URI ``s3://bucket/runs/r?endpoint_url=…``: each reads (and ``score`` and ``feedback``
write) the objects in S3, with no local copy.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import boto3
import pytest

from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.helpers import run_cli
from tests.integration.export_run import KEY_VAR, SECRET, trial_dirs, write_run
from tests.integration.store._s3_parts import BUCKET, PLANTED_SECRET, MotoS3
from tests.integration.store.test_export_s3 import stored_objects


@pytest.fixture
def s3_run(moto: MotoS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A scored six-trial run kept in S3; returns its rollout URI."""
    monkeypatch.setenv(KEY_VAR, SECRET)
    prepared = prepare(load_run_config([write_run(tmp_path, storage=moto.uri("runs"))]))
    assert asyncio.run(execute(prepared)).ok == 6
    return f"s3://{BUCKET}/runs/r?endpoint_url={moto.endpoint}"


def _client(moto: MotoS3) -> object:
    return boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1")


def _clean(proc: object) -> None:
    text = proc.stdout + proc.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in text and PLANTED_SECRET not in text


def test_score_rewrites_the_verdicts_in_s3(moto: MotoS3, s3_run: str) -> None:
    files = stored_objects(moto, "runs/r/")
    first = trial_dirs(files)[0]
    key = first + "verdicts.json"
    before = json.loads(files[key])
    _client(moto).delete_object(Bucket=BUCKET, Key=key)  # type: ignore[attr-defined]

    proc = run_cli("score", s3_run, "--no-report", "--allow-incomplete")
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert "scored 6 trials" in proc.stderr
    after = json.loads(stored_objects(moto, first)[key])
    assert [v["check_id"] for v in after] == [v["check_id"] for v in before]


def test_trajectory_show_reads_an_s3_trial(moto: MotoS3, s3_run: str) -> None:
    proc = run_cli("trajectory", "show", s3_run, "emoji/reference/i1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert "model emoji, scaffold reference, instance i1, repeat 0" in proc.stdout
    assert "README.md" in proc.stdout  # the agent's tool call, read from S3


def test_report_and_compare_read_s3_runs(moto: MotoS3, s3_run: str, tmp_path: Path) -> None:
    proc = run_cli("report", s3_run, "--out", str(tmp_path / "rep"), "--allow-incomplete")
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert "emoji" in (tmp_path / "rep" / "report.md").read_text()

    proc = run_cli("compare", s3_run, s3_run)
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert "REGRESSED" not in proc.stdout and "emoji" in proc.stdout


def test_feedback_runs_beside_an_s3_run_in_its_store(moto: MotoS3, s3_run: str) -> None:
    proc = run_cli("feedback", s3_run, "--quiet", env={KEY_VAR: SECRET})
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert f"s3://{BUCKET}/runs/r-feedback" in proc.stderr
    written = stored_objects(moto, "runs/r-feedback/")
    assert len(trial_dirs(written)) == 6  # corrected and carried trials, all in S3
    assert "runs/r-feedback/report/feedback.md" in written
    records = [json.loads(written[d + "feedback.json"]) for d in trial_dirs(written)]
    assert any(r["corrected"] for r in records)  # the emoji agent failed SP_no_emoji


def test_generate_checklist_reads_s3_rollouts(s3_run: str, tmp_path: Path) -> None:
    out = tmp_path / "i0.yaml"
    proc = run_cli(
        "generate", "checklist", s3_run, "--instance", "i0",
        "--model", "checkgen:seed=1", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    _clean(proc)
    assert "[1/1] i0: 2 rollouts" in proc.stderr  # the two models' trials, read from S3
    assert "# Checklist for instance i0" in out.read_text()


def test_a_missing_s3_run_is_one_clear_error_for_each_command(moto: MotoS3) -> None:
    missing = f"s3://{BUCKET}/runs/none?endpoint_url={moto.endpoint}"
    for args in (
        ("score", missing),
        ("feedback", missing),
        ("trajectory", "show", missing, "x"),
        ("compare", missing, missing),
        ("generate", "checklist", missing, "--all-instances", "--model", "m", "--out", "x"),
        ("analyze", "vibe-correlation", missing, "--elo", "pyproject.toml"),
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2, args
        assert "not a rollout" in proc.stderr, args
        _clean(proc)
