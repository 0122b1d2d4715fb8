"""Fixtures: moto's S3 server (a real HTTP server on 127.0.0.1) and stores of both kinds.

One server per test module; its state lives in this process and is reset between
tests (``POST /moto-api/reset``). Credentials are dummies set in the environment,
with a planted secret key that tests look for in everything the store produces.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adhere.store import FileStore, S3Store, Store, open_store
from tests.integration.store._s3_parts import (
    BUCKET,
    FAST,
    PLANTED_SECRET,
    MotoS3,
    SilentServer,
)


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Dummy credentials in the environment; nothing from this machine's ~/.aws."""
    for name in (
        "AWS_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "ADHERE_S3_ENDPOINT_URL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAADHERETESTKEY000")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", PLANTED_SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture(scope="module")
def moto_server() -> Iterator[MotoS3]:
    server = MotoS3()
    try:
        yield server
    finally:
        if server.server is not None:
            server.stop()


@pytest.fixture
def moto(moto_server: MotoS3, aws_env: None) -> MotoS3:
    """The module's server, emptied, with the test bucket created."""
    if moto_server.server is None:  # a test left it stopped
        moto_server.start()
    moto_server.reset()
    import boto3

    client = boto3.client("s3", endpoint_url=moto_server.endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    return moto_server


@pytest.fixture(params=["file", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """The same tests over both backends."""
    if request.param == "file":
        return FileStore(tmp_path / "store")
    server: MotoS3 = request.getfixturevalue("moto")
    opened = open_store(server.uri(), settings=FAST)
    assert isinstance(opened, S3Store)
    return opened


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    try:
        yield server
    finally:
        server.close()
