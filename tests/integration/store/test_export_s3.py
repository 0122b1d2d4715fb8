"""``adhere export`` and ``adhere.results`` on a run kept in S3 (moto's server)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import boto3
import pandas as pd
import pytest

from adhere import results
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from tests.helpers import run_cli
from tests.integration.export_run import KEY_VAR, SECRET, expected_rows, write_run
from tests.integration.store._s3_parts import BUCKET, PLANTED_SECRET, MotoS3
from tests.unit.results.docs_tables import documented_columns


def stored_objects(moto: MotoS3, prefix: str) -> dict[str, bytes]:
    client = boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1")
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    return {
        item["Key"]: client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read()
        for page in pages
        for item in page.get("Contents", [])
    }


def test_export_of_an_s3_run(moto: MotoS3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, SECRET)
    prepared = prepare(load_run_config([write_run(tmp_path, storage=moto.uri("runs"))]))
    assert asyncio.run(execute(prepared)).ok == 6
    expected = expected_rows(stored_objects(moto, "runs/r/"))
    assert expected["trials"] == 6 and expected["checks"] > 30

    run = f"s3://{BUCKET}/runs/r?endpoint_url={moto.endpoint}"
    out = tmp_path / "tables"
    proc = run_cli("export", run, "--format", "parquet", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name, columns in documented_columns().items():
        df = pd.read_parquet(out / f"{name}.parquet")
        assert list(df.columns) == [column for column, _, _ in columns], name
        assert len(df) == expected[name], name
    for path in out.iterdir():
        body = path.read_bytes()
        assert SECRET.encode() not in body and PLANTED_SECRET.encode() not in body, path
    assert PLANTED_SECRET not in proc.stdout + proc.stderr

    monkeypatch.setenv("ADHERE_S3_ENDPOINT_URL", moto.endpoint)  # the settings from the env
    checks = results.checks(f"s3://{BUCKET}/runs/r")
    assert len(checks) == expected["checks"]
    assert set(checks[checks.final].rollout) == {"r"}


def test_an_s3_prefix_without_a_run_is_one_clear_error(moto: MotoS3) -> None:
    proc = run_cli("export", f"s3://{BUCKET}/runs/none?endpoint_url={moto.endpoint}")
    assert proc.returncode == 2
    assert "not a rollout" in proc.stderr and "Traceback" not in proc.stderr
