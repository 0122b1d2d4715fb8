"""The ``s3://`` store: objects in an S3 bucket (AWS, MinIO, Ceph RGW) through boto3.

What is durable when: S3 stores an object whole or not at all. A ``PUT`` that
returned has reached durable storage (so ``durable=True`` asks nothing more), a
``PUT`` that failed left the previous value, and a multipart upload becomes visible
only when its last step (``CompleteMultipartUpload``) succeeds. A reader therefore
never sees half an artifact. The runner writes ``result.json`` last, so an outage in
the middle of a trial leaves the trial unfinished and the next run redoes it,
overwriting the same keys (nothing is duplicated).

Every call runs with deliberate timeouts and a bounded number of attempts
(:class:`S3Settings`); when they are spent the error becomes
:class:`~adhere.errors.StoreUnavailable` (temporary) or
:class:`~adhere.errors.StoreError`, naming the object's ``s3://`` URI and never a
credential. boto3 and botocore are imported when a store is opened, not before.
"""

from __future__ import annotations

import io
import logging
import mimetypes
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from adhere.errors import SpecError, StoreError, StoreUnavailable
from adhere.store._s3_settings import S3Settings, parse_s3_uri

if TYPE_CHECKING:
    from boto3.s3.transfer import TransferConfig
    from types_boto3_s3.client import S3Client
    from types_boto3_s3.type_defs import CopySourceTypeDef

log = logging.getLogger(__name__)

T = TypeVar("T")

_NOT_FOUND = frozenset({"404", "NoSuchKey", "NotFound"})
_DENIED = frozenset(
    {
        "403",
        "AccessDenied",
        "AllAccessDisabled",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "InvalidToken",
    }
)
_BUSY = frozenset(
    {"SlowDown", "ServiceUnavailable", "RequestTimeout", "InternalError", "Throttling"}
)
_CONTENT_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".yaml": "application/yaml",
    ".md": "text/markdown; charset=utf-8",
}


def make_s3_client(settings: S3Settings) -> S3Client:
    """A boto3 S3 client with the settings' endpoint, region, timeouts and retries.

    Credentials come from boto3's standard chain (environment, shared credentials
    file, profile, web identity, instance metadata); nothing here reads or logs them.
    """
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError

    config = Config(
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        retries={"total_max_attempts": settings.max_attempts, "mode": "standard"},
        s3={"addressing_style": settings.addressing_style},
        max_pool_connections=max(10, 2 * settings.max_concurrency),
        user_agent_extra="adhere",
    )
    try:
        session = boto3.session.Session(profile_name=settings.profile, region_name=settings.region)
        return session.client(
            "s3", endpoint_url=settings.endpoint_url, verify=settings.verify, config=config
        )
    except BotoCoreError as exc:  # ProfileNotFound, an unknown region, a bad endpoint …
        raise SpecError(
            f"cannot set up the S3 client: {type(exc).__name__}: {exc}", field="storage"
        ) from None


class S3Store:
    """A store kept in ``s3://bucket/prefix``: a key ``a/b.json`` is object ``prefix/a/b.json``.

    Objects of ``multipart_threshold`` bytes or more go up in parts through boto3's
    transfer manager; smaller ones in one ``PutObject``. ``list`` pages through
    ``ListObjectsV2``. ``rename`` is a copy then a delete (S3 has no rename): a crash
    in between leaves both copies, never neither. ``local_path`` is always None.
    """

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        settings: S3Settings | None = None,
        client: S3Client | None = None,
    ) -> None:
        """Open the store; with ``client`` given, its own timeouts and retries apply."""
        from boto3.s3.transfer import TransferConfig

        self.bucket = bucket
        self.prefix = "/".join(p for p in prefix.split("/") if p)
        self.settings = settings or S3Settings()
        self.uri = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"
        self._root = f"{self.prefix}/" if self.prefix else ""
        self.client: S3Client = client if client is not None else make_s3_client(self.settings)
        self._transfer: TransferConfig = TransferConfig(
            multipart_threshold=self.settings.multipart_threshold,
            multipart_chunksize=self.settings.multipart_chunksize,
            max_concurrency=self.settings.max_concurrency,
        )
        self._endpoint = self.client.meta.endpoint_url
        self._attempts = self.settings.max_attempts if client is None else None
        log.debug("S3 store %s (%s)", self.uri, self.settings.describe())

    def __repr__(self) -> str:
        return f"S3Store({self.uri!r}, endpoint={self._endpoint!r})"

    # --- keys --------------------------------------------------------------------

    def _key(self, key: str) -> str:
        parts = [p for p in key.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise StoreError(f"invalid store key {key!r}")
        return self._root + "/".join(parts)

    def _object_uri(self, full_key: str) -> str:
        return f"s3://{self.bucket}/{full_key}"

    # --- the Store interface -------------------------------------------------------

    def write_bytes(self, key: str, data: bytes, *, durable: bool = False) -> None:
        """Store ``data`` as one object, in parts when large; replaces any previous value.

        A returned ``PutObject`` / ``CompleteMultipartUpload`` is already durable, so
        ``durable`` changes nothing here.
        """
        full = self._key(key)
        suffix = Path(full).suffix
        content_type = _CONTENT_TYPES.get(suffix) or mimetypes.guess_type(full)[0]
        extra = {"ContentType": content_type or "application/octet-stream"}
        if len(data) >= self.settings.multipart_threshold:
            self._call(
                "write",
                full,
                lambda: self.client.upload_fileobj(
                    io.BytesIO(data), self.bucket, full, ExtraArgs=extra, Config=self._transfer
                ),
            )
        else:
            self._call(
                "write",
                full,
                lambda: self.client.put_object(
                    Bucket=self.bucket, Key=full, Body=data, ContentType=extra["ContentType"]
                ),
            )

    def read_bytes(self, key: str) -> bytes:
        """Read an object; StoreError if it is absent, StoreUnavailable if S3 is."""
        from botocore.exceptions import BotoCoreError

        full = self._key(key)
        attempt = 1
        while True:
            response = self._call(
                "read", full, lambda: self.client.get_object(Bucket=self.bucket, Key=full)
            )
            try:
                return response["Body"].read()
            except BotoCoreError as exc:  # the stream broke or stalled after the headers
                if attempt >= self.settings.max_attempts:
                    raise self._client_error("read", full, exc) from exc
                attempt += 1
                log.debug("retrying the read of %s: %s", self._object_uri(full), exc)

    def exists(self, key: str) -> bool:
        """Whether the object exists (a ``HeadObject``); errors other than 404 raise."""
        from botocore.exceptions import ClientError

        full = self._key(key)
        try:
            self.client.head_object(Bucket=self.bucket, Key=full)
        except ClientError as exc:
            if _code(exc) in _NOT_FOUND:
                return False
            raise self._client_error("look up", full, exc) from exc
        except Exception as exc:
            error = self._error("look up", full, exc)
            if error is None:
                raise
            raise error from exc
        return True

    def list(self, prefix: str = "") -> Iterator[str]:
        """Keys under ``prefix`` (a folder: ``a`` lists ``a/…``, not ``ab``), sorted.

        S3 lists keys in UTF-8 byte order, which is the order of Python's ``sorted``
        on the keys; pages are fetched as the caller iterates.
        """
        base = self._key(prefix) + "/" if prefix.strip("/") else self._root
        paginator = self.client.get_paginator("list_objects_v2")
        pages = paginator.paginate(
            Bucket=self.bucket,
            Prefix=base,
            PaginationConfig={"PageSize": self.settings.list_page_size},
        )
        try:
            for page in pages:
                for item in page.get("Contents", []):
                    name = item.get("Key", "")
                    if name.endswith("/"):  # a "folder" marker some consoles create
                        continue
                    yield name[len(self._root) :]
        except Exception as exc:
            error = self._error("list", base, exc)
            if error is None:
                raise
            raise error from exc

    def rename(self, key: str, new_key: str) -> None:
        """Copy to ``new_key``, then delete ``key`` (multipart copy for large objects)."""
        src, dst = self._key(key), self._key(new_key)
        source: CopySourceTypeDef = {"Bucket": self.bucket, "Key": src}
        self._call(
            "copy",
            src,
            lambda: self.client.copy(source, self.bucket, dst, Config=self._transfer),
        )
        self._call("delete", src, lambda: self.client.delete_object(Bucket=self.bucket, Key=src))

    def local_path(self, key: str) -> Path | None:
        """None: objects in S3 have no local path."""
        return None

    # --- errors --------------------------------------------------------------------

    def _call(self, action: str, full_key: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except Exception as exc:
            error = self._error(action, full_key, exc)
            if error is None:
                raise
            raise error from exc

    def _client_error(self, action: str, full_key: str, exc: Exception) -> StoreError:
        error = self._error(action, full_key, exc)
        assert error is not None, "only called with botocore errors"
        return error

    def _error(self, action: str, full_key: str, exc: Exception) -> StoreError | None:
        """The project error for a boto3/botocore failure, or None for anything else."""
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            HTTPClientError,
            NoCredentialsError,
            PartialCredentialsError,
        )
        from botocore.exceptions import ConnectionError as BotoConnectionError

        target = self._object_uri(full_key)
        where = f"cannot {action} {target}"
        endpoint = self._endpoint
        tried = f" after {self._attempts} attempts" if self._attempts else ""
        if isinstance(exc, ClientError):
            code = _code(exc)
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
            message = str(exc.response.get("Error", {}).get("Message", "")) or str(exc)
            if code in _NOT_FOUND:
                error: StoreError = StoreError(f"not found in store: {target}")
            elif code == "NoSuchBucket":
                error = StoreError(f"{where}: bucket {self.bucket!r} does not exist at {endpoint}")
            elif code in _DENIED or status == 403:
                error = StoreError(
                    f"{where}: access denied ({code}) at {endpoint}; check the S3 credentials "
                    "(AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_SHARED_CREDENTIALS_FILE, "
                    f"AWS_PROFILE) and that they may read, write and list {self.uri}"
                )
            elif code in _BUSY or status >= 500:
                error = StoreUnavailable(
                    f"{where}: {endpoint} answered {status} {code}{tried}: {message}"
                )
            else:
                error = StoreError(f"{where}: {code or status}: {message}")
        elif isinstance(exc, NoCredentialsError | PartialCredentialsError):
            error = StoreError(
                f"{where}: no usable S3 credentials ({type(exc).__name__}); set "
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (e.g. from a Kubernetes Secret), "
                "AWS_SHARED_CREDENTIALS_FILE or AWS_PROFILE"
            )
        elif isinstance(exc, BotoConnectionError | HTTPClientError):
            timeouts = f"{self.settings.connect_timeout:g}s connect / "
            timeouts += f"{self.settings.read_timeout:g}s read timeout"
            error = StoreUnavailable(
                f"{where}: {endpoint} did not answer{tried} ({timeouts}): "
                f"{type(exc).__name__}: {exc}"
            )
        elif isinstance(exc, BotoCoreError):
            error = StoreError(f"{where}: {type(exc).__name__}: {exc}")
        else:
            return None
        return type(error)(_redact(str(error)))


def _code(exc: Any) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with any secret of the environment's AWS credentials masked."""
    env = os.environ if environ is None else environ
    for name in ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        secret = env.get(name)
        if secret and len(secret) >= 8:
            text = text.replace(secret, "***")
    return text


def open_s3_store(
    uri: str,
    *,
    s3_client: S3Client | None = None,
    settings: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
) -> S3Store:
    """Open ``s3://bucket/prefix[?setting=value…]`` (see :mod:`adhere.store._s3_settings`).

    ``settings`` override the URI and the environment field by field; ``s3_client``
    injects a ready client (its own timeouts and retries then apply).
    """
    location = parse_s3_uri(
        uri, environ=os.environ if environ is None else environ, overrides=settings
    )
    return S3Store(location.bucket, location.prefix, settings=location.settings, client=s3_client)
