"""What only the S3 backend has: URIs and settings, multipart, paging, timeouts, errors."""

from __future__ import annotations

import logging
import os
import time

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError

from adhere.artifacts import RolloutStore
from adhere.errors import SpecError, StoreError, StoreUnavailable
from adhere.store import S3Store, open_store
from tests.integration.store._s3_parts import (
    BUCKET,
    FAST,
    PLANTED_SECRET,
    CuttingProxy,
    MotoS3,
    SilentServer,
)

MiB = 1024 * 1024


def client_for(moto: MotoS3):
    return boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1")


def test_open_store_parses_the_uri_and_keeps_settings_out_of_its_name(moto: MotoS3) -> None:
    store = open_store(moto.uri("runs/nightly/", read_timeout=7, max_attempts=3))
    assert isinstance(store, S3Store)
    assert (store.bucket, store.prefix, store.uri) == (
        BUCKET,
        "runs/nightly",
        f"s3://{BUCKET}/runs/nightly",
    )
    assert RolloutStore(store, "r").uri == f"s3://{BUCKET}/runs/nightly/r"
    config = store.client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (5.0, 7.0)
    assert config.retries == {"total_max_attempts": 3, "mode": "standard"}
    assert store.client.meta.endpoint_url == moto.endpoint
    store.write_bytes("r/x.json", b"{}")
    objects = client_for(moto).list_objects_v2(Bucket=BUCKET)["Contents"]
    assert [o["Key"] for o in objects] == ["runs/nightly/r/x.json"]
    bucket_root = open_store(f"s3://{BUCKET}?endpoint_url={moto.endpoint}")
    assert bucket_root.uri == f"s3://{BUCKET}" and list(bucket_root.list()) == [
        "runs/nightly/r/x.json"
    ]


def test_defaults_are_deliberate_and_env_configures_the_endpoint(
    moto: MotoS3, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADHERE_S3_ENDPOINT_URL", moto.endpoint)
    store = open_store(f"s3://{BUCKET}/runs")
    assert isinstance(store, S3Store)
    config = store.client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (5.0, 30.0)
    assert config.retries == {"total_max_attempts": 4, "mode": "standard"}
    store.write_bytes("k", b"v")
    assert store.read_bytes("k") == b"v"


def test_an_injected_client_is_used(moto: MotoS3) -> None:
    client = client_for(moto)
    store = open_store(f"s3://{BUCKET}/p", s3_client=client)
    assert isinstance(store, S3Store) and store.client is client
    store.write_bytes("a", b"1")
    assert client.get_object(Bucket=BUCKET, Key="p/a")["Body"].read() == b"1"


def test_a_20_mib_artifact_goes_up_in_parts_and_comes_back_whole(moto: MotoS3) -> None:
    store = open_store(moto.uri(), settings={"multipart_threshold": 8 * MiB})
    assert isinstance(store, S3Store)
    data = os.urandom(20 * MiB)
    store.write_bytes("r/trials/m/big/calls.jsonl", data)
    head = client_for(moto).head_object(Bucket=BUCKET, Key="runs/r/trials/m/big/calls.jsonl")
    assert head["ETag"].strip('"').endswith("-3")  # 8 + 8 + 4 MiB parts
    assert head["ContentLength"] == len(data)
    assert head["ContentType"] == "application/x-ndjson"
    assert store.read_bytes("r/trials/m/big/calls.jsonl") == data
    assert client_for(moto).list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []
    store.rename("r/trials/m/big/calls.jsonl", "r/trials/m/big/attempt-1/calls.jsonl")
    assert list(store.list("r")) == ["r/trials/m/big/attempt-1/calls.jsonl"]
    assert store.read_bytes("r/trials/m/big/attempt-1/calls.jsonl") == data


def test_small_objects_go_up_in_one_put(moto: MotoS3) -> None:
    store = open_store(moto.uri())
    store.write_bytes("r/result.json", b"{}" * 1000)
    head = client_for(moto).head_object(Bucket=BUCKET, Key="runs/r/result.json")
    assert "-" not in head["ETag"] and head["ContentType"] == "application/json"


def test_listing_pages_through_every_key(moto: MotoS3) -> None:
    store = open_store(moto.uri(), settings={"list_page_size": 2})
    assert isinstance(store, S3Store)
    keys = [f"r/trials/m{n}/result.json" for n in range(7)]
    for key in reversed(keys):
        store.write_bytes(key, b"{}")
    store.write_bytes("other/x", b"")
    requests: list[tuple[str, int, bool]] = []

    def seen(params, **_):
        requests.append((params["Prefix"], params["MaxKeys"], "ContinuationToken" in params))

    store.client.meta.events.register("before-parameter-build.s3.ListObjectsV2", seen)
    assert list(store.list("r/trials")) == keys
    assert requests == [("runs/r/trials/", 2, False)] + [("runs/r/trials/", 2, True)] * 3


def test_a_missing_bucket_is_a_clear_error_not_an_outage(moto: MotoS3) -> None:
    store = open_store(f"s3://no-such-bucket/p?endpoint_url={moto.endpoint}", settings=FAST)
    with pytest.raises(StoreError, match="bucket 'no-such-bucket' does not exist") as info:
        store.write_bytes("r/result.json", b"{}")
    assert not isinstance(info.value, StoreUnavailable)
    assert "s3://no-such-bucket/p/r/result.json" in str(info.value)


def test_a_server_that_never_answers_times_out_within_the_settings(
    silent_server: SilentServer,
) -> None:
    settings = {"connect_timeout": 0.5, "read_timeout": 0.5, "max_attempts": 2}
    store = open_store(
        f"s3://{BUCKET}/runs?endpoint_url=http://127.0.0.1:{silent_server.port}", settings=settings
    )
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as info:
        store.write_bytes("r/trials/m/c/i/r0/result.json", b"{}")
    elapsed = time.monotonic() - started
    # 2 attempts × (0.5 s read timeout + the 1 s botocore waits for "100 Continue" on a
    # PUT) + at most 1 s of backoff; botocore's defaults would take 3 minutes.
    assert 1.0 <= elapsed < 5.0, elapsed
    assert isinstance(info.value.__cause__, ReadTimeoutError)
    assert len(silent_server.accepted) == 2
    message = str(info.value)
    assert f"s3://{BUCKET}/runs/r/trials/m/c/i/r0/result.json" in message
    assert "after 2 attempts" in message and "0.5s read timeout" in message
    assert PLANTED_SECRET not in message


def test_a_stopped_server_fails_fast_and_exists_does_not_pretend(moto: MotoS3) -> None:
    store = open_store(moto.uri(), settings=FAST)
    store.write_bytes("r/a", b"1")
    moto.stop()
    try:
        started = time.monotonic()
        for call in (
            lambda: store.exists("r/a"),
            lambda: store.read_bytes("r/a"),
            lambda: list(store.list("r")),
            lambda: store.write_bytes("r/b", b"2"),
            lambda: store.rename("r/a", "r/c"),
        ):
            with pytest.raises(StoreUnavailable) as info:
                call()
            assert isinstance(info.value.__cause__, EndpointConnectionError)
            assert moto.endpoint in str(info.value) and PLANTED_SECRET not in str(info.value)
        assert time.monotonic() - started < 15
    finally:
        moto.start()
    assert list(store.list("r")) == ["r/a"]


def test_an_outage_in_the_middle_of_a_multipart_upload_leaves_no_object(moto: MotoS3) -> None:
    proxy = CuttingProxy(moto.port)
    try:
        store = open_store(
            f"s3://{BUCKET}/runs?endpoint_url=http://127.0.0.1:{proxy.port}",
            settings={**FAST, "multipart_threshold": 8 * MiB},
        )
        data = os.urandom(20 * MiB)
        proxy.cut_after(12 * MiB)
        with pytest.raises(StoreUnavailable) as info:
            store.write_bytes("r/big.bin", data)
        assert proxy.down
        assert f"s3://{BUCKET}/runs/r/big.bin" in str(info.value)
        proxy.heal()
        assert not store.exists("r/big.bin") and list(store.list()) == []  # nothing half-written
        store.write_bytes("r/big.bin", data)
        assert store.read_bytes("r/big.bin") == data
    finally:
        proxy.close()


def test_no_credential_reaches_a_log_line_or_an_error(
    moto: MotoS3, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store = open_store(moto.uri(), settings=FAST)
    store.write_bytes("r/a.json", b"{}")
    store.read_bytes("r/a.json")
    list(store.list())
    errors = []
    for call in (
        lambda: store.read_bytes("r/missing"),
        lambda: open_store("s3://x", settings=FAST),
    ):
        try:
            call()
        except (StoreError, SpecError) as exc:
            errors.append(str(exc))
    assert len(errors) == 2
    text = caplog.text + "\n".join(errors)
    assert "botocore" in caplog.text  # botocore's debug output was captured
    assert PLANTED_SECRET not in text
    for obj in client_for(moto).list_objects_v2(Bucket=BUCKET)["Contents"]:
        assert (
            PLANTED_SECRET.encode()
            not in client_for(moto).get_object(Bucket=BUCKET, Key=obj["Key"])["Body"].read()
        )
