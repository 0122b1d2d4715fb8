"""The store interface and how a store is chosen from a URI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlparse

from adhere.errors import SpecError


@runtime_checkable
class Store(Protocol):
    """A flat key-value store of artifacts; keys are '/'-separated relative paths.

    Writes are atomic: a reader sees either the old value or the new one, never a
    partial file, so a crash mid-write cannot corrupt a finished result.
    """

    uri: str

    def write_bytes(self, key: str, data: bytes, *, durable: bool = False) -> None:
        """Write ``data`` under ``key`` atomically, replacing any previous value.

        ``durable`` asks for the data to reach stable storage before the call returns.
        """
        ...

    def read_bytes(self, key: str) -> bytes:
        """Read a value; StoreError if absent or unreadable."""
        ...

    def exists(self, key: str) -> bool:
        """Whether ``key`` holds a value."""
        ...

    def list(self, prefix: str = "") -> Iterator[str]:
        """Keys under ``prefix`` (recursively), in sorted order."""
        ...

    def rename(self, key: str, new_key: str) -> None:
        """Move a value to a new key."""
        ...

    def local_path(self, key: str) -> Path | None:
        """A local file path for ``key`` when the store is on local disk, else None."""
        ...


def open_store(uri: str, *, base_dir: str | Path | None = None, **options: Any) -> Store:
    """Open a store by URI: ``file://path``, a plain path, or ``s3://bucket/prefix``.

    Relative paths are resolved against ``base_dir`` (the directory of the spec that
    named the store) or the working directory. An ``s3://`` URI may carry settings in
    its query (``?endpoint_url=…&region=…``); ``options`` go to
    :func:`adhere.store._s3.open_s3_store` (``s3_client=``, ``settings=``, ``environ=``).
    """
    from adhere.store._file import FileStore

    parsed = urlparse(uri)
    if parsed.scheme == "s3":
        from adhere.store._s3 import open_s3_store

        return open_s3_store(uri, **options)
    if parsed.scheme in ("", "file"):
        raw = uri[len("file://") :] if parsed.scheme == "file" else uri
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = Path(base_dir or Path.cwd()) / path
        return FileStore(path.resolve())
    raise SpecError(
        f"unsupported store URI scheme {parsed.scheme!r}; expected file://, s3:// or a path",
        field="storage",
    )


def check_store_uri(uri: str, *, base_dir: str | Path | None = None) -> None:
    """Refuse a store URI :func:`open_store` would refuse, without opening anything.

    An ``s3://`` URI's bucket, prefix and settings are checked (no connection is
    made); a local path must not be an existing file.

    Raises:
        SpecError: With ``field="storage"``.
    """
    import os

    if "\x00" in uri:
        raise SpecError("the store URI holds a NUL character", field="storage")
    try:
        parsed = urlparse(uri)
    except ValueError as exc:
        raise SpecError(f"invalid store URI {uri!r}: {exc}", field="storage") from None
    if parsed.scheme == "s3":
        from adhere.store._s3_settings import parse_s3_uri

        parse_s3_uri(uri, environ=os.environ)
        return
    if parsed.scheme not in ("", "file"):
        raise SpecError(
            f"unsupported store URI scheme {parsed.scheme!r}; expected file://, s3:// or a path",
            field="storage",
        )
    raw = uri[len("file://") :] if parsed.scheme == "file" else uri
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path(base_dir or Path.cwd()) / path
    try:
        is_file = path.is_file()
    except OSError as exc:
        raise SpecError(f"not a usable directory path: {exc.strerror}", field="storage") from None
    if is_file:
        raise SpecError(f"{path} is a file; the store needs a directory", field="storage")
