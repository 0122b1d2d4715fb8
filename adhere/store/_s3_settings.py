"""Settings of the ``s3://`` store, read from the store URI's query and the environment.

A store URI names a bucket and an optional key prefix; its query may set any field of
:class:`S3Settings` by name::

    s3://adhere-results/runs
    s3://adhere-results/runs?endpoint_url=http://minio.minio:9000&region=us-east-1
    s3://adhere-results/runs?read_timeout=60&max_attempts=8&multipart_threshold=64MiB

Each field can also come from an environment variable ``ADHERE_S3_<FIELD>``
(``ADHERE_S3_ENDPOINT_URL``, ``ADHERE_S3_READ_TIMEOUT`` …); the region also from
``AWS_REGION`` or ``AWS_DEFAULT_REGION``. The URI wins over the environment, and
settings passed in code win over both. Credentials never come from here: boto3's
standard chain finds them (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY``, a shared
credentials file such as one mounted from a Kubernetes Secret, a profile, a web
identity token, instance metadata), and a URI that carries one is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Literal
from urllib.parse import parse_qsl, urlparse, urlunparse

from adhere.errors import SpecError

MiB = 1024 * 1024
MIN_PART = 5 * MiB
"""S3's smallest multipart part (every part but the last)."""

ENV_PREFIX = "ADHERE_S3_"

_CREDENTIAL_KEYS = frozenset(
    {
        "access_key",
        "access_key_id",
        "aws_access_key_id",
        "secret",
        "secret_key",
        "secret_access_key",
        "aws_secret_access_key",
        "session_token",
        "aws_session_token",
        "token",
        "password",
    }
)
_SIZE = re.compile(r"(\d+)\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)", re.IGNORECASE)
_BUCKET = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]")


@dataclass(frozen=True)
class S3Settings:
    """How the S3 store reaches its bucket. Every field has a deliberate default."""

    endpoint_url: str | None = None
    """S3 API root for MinIO, Ceph RGW or another S3-compatible service, e.g.
    ``http://minio.minio:9000``. None: AWS (or boto3's ``AWS_ENDPOINT_URL_S3``)."""

    region: str | None = None
    """Region to sign for. None: ``AWS_REGION``, ``AWS_DEFAULT_REGION`` or the profile's."""

    profile: str | None = None
    """Named profile of the shared credentials/config files. None: ``AWS_PROFILE`` or
    the default chain."""

    addressing_style: Literal["auto", "path", "virtual"] = "auto"
    """``path`` (``host/bucket/key``) suits most MinIO and Ceph installs; ``auto`` lets
    botocore choose (path style whenever ``endpoint_url`` is set)."""

    verify: bool | str = True
    """TLS verification: True, False (never outside a test), or a CA bundle path."""

    connect_timeout: float = 5.0
    """Seconds to open a connection before the attempt counts as failed."""

    read_timeout: float = 30.0
    """Seconds to wait for each read from the socket (not the whole transfer)."""

    max_attempts: int = 4
    """Attempts per request in total, first one included (botocore ``standard`` retry
    mode: connection errors, timeouts, throttling and 5xx are retried with jittered
    exponential backoff). A server that accepts connections but never answers fails a
    call after about ``max_attempts × read_timeout`` seconds plus the backoff, and one
    more second per attempt for a write (botocore waits 1 s for ``100 Continue``)."""

    multipart_threshold: int = 16 * MiB
    """Objects of at least this many bytes are uploaded in parts."""

    multipart_chunksize: int = 8 * MiB
    """Size of each part of a multipart upload (at least 5 MiB, S3's minimum)."""

    max_concurrency: int = 4
    """Parts of one multipart upload sent at once."""

    list_page_size: int = 1000
    """Keys per ``ListObjectsV2`` page (1000 is S3's maximum)."""

    def __post_init__(self) -> None:
        """Reject settings S3 or botocore would only trip over later."""
        if self.connect_timeout <= 0 or self.read_timeout <= 0:
            raise SpecError("S3 timeouts must be positive seconds", field="storage")
        if min(self.max_attempts, self.max_concurrency, self.list_page_size) < 1:
            raise SpecError(
                "max_attempts, max_concurrency and list_page_size must be at least 1",
                field="storage",
            )
        if self.multipart_chunksize < MIN_PART:
            raise SpecError(
                f"multipart_chunksize must be at least 5 MiB ({MIN_PART} bytes), "
                f"got {self.multipart_chunksize}",
                field="storage",
            )
        if self.multipart_threshold < 1:
            raise SpecError("multipart_threshold must be at least 1 byte", field="storage")
        if self.addressing_style not in ("auto", "path", "virtual"):
            raise SpecError(
                f"addressing_style must be auto, path or virtual, got {self.addressing_style!r}",
                field="storage",
            )
        if self.endpoint_url is not None:
            parsed = urlparse(self.endpoint_url)
            if parsed.scheme not in ("http", "https") or not parsed.hostname:
                raise SpecError(
                    f"endpoint_url must be an http(s) URL, got {redact_url(self.endpoint_url)!r}",
                    field="storage",
                )
            if parsed.username or parsed.password:
                raise SpecError(
                    "endpoint_url must not carry credentials; give them through "
                    "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or a credentials file",
                    field="storage",
                )

    def describe(self) -> str:
        """A one-line summary for logs and errors (holds no credentials)."""
        return (
            f"endpoint {self.endpoint_url or 'AWS'}, region {self.region or 'default'}, "
            f"timeouts {self.connect_timeout:g}s connect / {self.read_timeout:g}s read, "
            f"{self.max_attempts} attempts"
        )


def redact_url(url: str) -> str:
    """``url`` without any user:password part."""
    parsed = urlparse(url)
    if parsed.username is None and parsed.password is None:
        return url
    host = parsed.hostname or ""
    netloc = f"***@{host}" + (f":{parsed.port}" if parsed.port else "")
    return urlunparse(parsed._replace(netloc=netloc))


def parse_size(text: str) -> int:
    """Bytes from ``8388608``, ``8MiB``, ``8M`` or ``512KiB`` (binary units)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"expected a size such as 8388608, 8MiB or 512KiB, got {text!r}")
    number, unit = int(match.group(1)), match.group(2).lower()[:1]
    return number * {"": 1, "b": 1, "k": 1024, "m": MiB, "g": 1024 * MiB}[unit]


def _convert(name: str, text: str) -> object:
    kind = {f.name: f.type for f in fields(S3Settings)}[name]
    if name in ("multipart_threshold", "multipart_chunksize"):
        return parse_size(text)
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if name == "verify":
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        return text
    return text or None


@dataclass(frozen=True)
class S3Location:
    """Bucket and key prefix of an ``s3://`` URI, and the settings it asked for."""

    bucket: str
    prefix: str
    settings: S3Settings


def parse_s3_uri(
    uri: str,
    *,
    environ: Mapping[str, str],
    overrides: Mapping[str, object] | None = None,
) -> S3Location:
    """Split ``s3://bucket/prefix?setting=value`` and resolve its settings.

    Precedence per field: ``overrides`` (code), then the URI query, then
    ``ADHERE_S3_<FIELD>`` (and ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` for the region),
    then the field's default.
    """
    parsed = urlparse(uri)
    if parsed.scheme != "s3":
        raise SpecError(f"expected an s3:// URI, got {uri.split('?')[0]!r}", field="storage")
    bucket = parsed.netloc
    if not _BUCKET.fullmatch(bucket):
        raise SpecError(
            f"invalid S3 bucket name {bucket!r} in {uri.split('?')[0]!r}: expected 3 to 255 "
            "letters, digits, '.', '-' or '_' (AWS: 3 to 63, lower case)",
            field="storage",
        )
    parts = [p for p in parsed.path.split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise SpecError(f"invalid key prefix in {uri.split('?')[0]!r}", field="storage")
    names = {f.name for f in fields(S3Settings)}
    values: dict[str, object] = {}
    for name in sorted(names):
        env_value = environ.get(ENV_PREFIX + name.upper())
        if env_value:
            values[name] = _checked(name, env_value, ENV_PREFIX + name.upper())
    if "region" not in values:
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION")
        if region:
            values["region"] = region
    for name, text in parse_qsl(parsed.query, keep_blank_values=True):
        key = name.lower().replace("-", "_")
        if key in _CREDENTIAL_KEYS:
            raise SpecError(
                f"the storage URI must not carry credentials ({name!r}): give them through "
                "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (e.g. from a Kubernetes Secret), "
                "AWS_SHARED_CREDENTIALS_FILE or AWS_PROFILE",
                field="storage",
            )
        if key not in names:
            raise SpecError(
                f"unknown S3 store setting {name!r} in the storage URI; known: "
                + ", ".join(sorted(names)),
                field="storage",
            )
        values[key] = _checked(key, text, f"storage URI setting {name!r}")
    values.update(overrides or {})
    try:
        settings = S3Settings(**values)  # type: ignore[arg-type]
    except TypeError as exc:
        raise SpecError(f"invalid S3 store settings: {exc}", field="storage") from None
    return S3Location(bucket=bucket, prefix="/".join(parts), settings=settings)


def _checked(name: str, text: str, where: str) -> object:
    try:
        return _convert(name, text)
    except ValueError as exc:
        raise SpecError(f"{where}: {exc}", field="storage") from None
