"""S3 store URIs and settings: parsing, precedence and refusals (no network)."""

import pytest

from adhere.errors import SpecError
from adhere.store import S3Settings
from adhere.store._s3_settings import parse_s3_uri, parse_size, redact_url


def test_bucket_prefix_and_defaults() -> None:
    loc = parse_s3_uri("s3://adhere-results/runs//nightly/", environ={})
    assert (loc.bucket, loc.prefix) == ("adhere-results", "runs/nightly")
    assert loc.settings == S3Settings()
    assert parse_s3_uri("s3://adhere-results", environ={}).prefix == ""


def test_query_env_and_code_in_order_of_precedence() -> None:
    env = {
        "ADHERE_S3_ENDPOINT_URL": "http://minio:9000",
        "ADHERE_S3_READ_TIMEOUT": "12",
        "ADHERE_S3_MAX_ATTEMPTS": "6",
        "AWS_REGION": "eu-west-1",
        "AWS_DEFAULT_REGION": "us-east-2",
    }
    loc = parse_s3_uri("s3://b-1/p?read_timeout=9&multipart_threshold=64MiB", environ=env)
    s = loc.settings
    assert s.endpoint_url == "http://minio:9000" and s.region == "eu-west-1"
    assert (s.read_timeout, s.max_attempts, s.multipart_threshold) == (9.0, 6, 64 << 20)
    loc = parse_s3_uri("s3://b-1/p?read_timeout=9", environ=env, overrides={"read_timeout": 1.5})
    assert loc.settings.read_timeout == 1.5
    assert parse_s3_uri("s3://b-1", environ={"AWS_DEFAULT_REGION": "x-1"}).settings.region == "x-1"
    assert parse_s3_uri("s3://b-1?region=y-2", environ=env).settings.region == "y-2"
    s = parse_s3_uri(
        "s3://b-1?addressing-style=path&verify=false&connect_timeout=0.5", environ={}
    ).settings
    assert (s.addressing_style, s.verify, s.connect_timeout) == ("path", False, 0.5)
    assert parse_s3_uri("s3://b-1?verify=/etc/ca.pem", environ={}).settings.verify == "/etc/ca.pem"


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("s3://ab/p", "invalid S3 bucket name 'ab'"),
        ("s3://bad_bucket_/p", "invalid S3 bucket name"),
        ("s3:///p", "invalid S3 bucket name ''"),
        ("s3://bucket/a/../b", "invalid key prefix"),
        ("s3://bucket/p?timeout=3", "unknown S3 store setting 'timeout'.*read_timeout"),
        ("s3://bucket/p?read_timeout=soon", "storage URI setting 'read_timeout'"),
        ("s3://bucket/p?read_timeout=0", "timeouts must be positive"),
        ("s3://bucket/p?max_attempts=0", "max_attempts, max_concurrency and list_page_size"),
        ("s3://bucket/p?multipart_chunksize=1MiB", "at least 5 MiB"),
        ("s3://bucket/p?multipart_threshold=lots", "expected a size"),
        ("s3://bucket/p?addressing_style=sideways", "auto, path or virtual"),
        ("s3://bucket/p?endpoint_url=minio:9000", "must be an http"),
    ],
)
def test_bad_uris_are_spec_errors_on_the_storage_field(uri: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as info:
        parse_s3_uri(uri, environ={})
    assert info.value.field == "storage"


def test_credentials_never_ride_in_the_uri() -> None:
    for uri in (
        "s3://bucket/p?aws_secret_access_key=SUPERSECRET",
        "s3://bucket/p?Secret-Key=SUPERSECRET",
        "s3://bucket/p?endpoint_url=http://user:SUPERSECRET@minio:9000",
    ):
        with pytest.raises(SpecError, match="credentials") as info:
            parse_s3_uri(uri, environ={})
        assert "SUPERSECRET" not in str(info.value)
    with pytest.raises(SpecError) as info:
        parse_s3_uri("s3://bucket?endpoint_url=ftp://u:SUPERSECRET@h", environ={})
    assert "SUPERSECRET" not in str(info.value)
    assert redact_url("http://u:pw@minio:9000/x") == "http://***@minio:9000/x"


def test_sizes() -> None:
    assert parse_size("8388608") == 8 << 20
    assert parse_size("8MiB") == parse_size("8m") == parse_size("8 MB") == 8 << 20
    assert parse_size("512KiB") == 512 << 10 and parse_size("1G") == 1 << 30
    with pytest.raises(ValueError, match="expected a size"):
        parse_size("8 potatoes")


def test_describe_names_no_credentials() -> None:
    text = S3Settings(endpoint_url="http://minio:9000", region="us-east-1").describe()
    assert text == (
        "endpoint http://minio:9000, region us-east-1, timeouts 5s connect / 30s read, 4 attempts"
    )


def test_store_package_exports_and_imports_boto3_only_when_opened() -> None:
    import subprocess
    import sys

    import adhere.store

    assert adhere.store.__all__ == [
        "FileStore",
        "S3Settings",
        "S3Store",
        "Store",
        "check_store_uri",
        "open_store",
    ]
    code = "import sys, adhere.store; print('boto3' in sys.modules, 'botocore' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
