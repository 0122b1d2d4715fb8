"""The ``file://`` store: a directory tree on local disk with atomic writes."""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from adhere.errors import StoreError

_TEMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-[^.]+\.tmp")
"""A write's temporary file: ``.<name>.<writer pid>-<random>.tmp``."""
OLD_TEMP_SECONDS = 3600.0
"""A temporary file with no writer pid in its name is stale after this long."""


def _writer_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


class FileStore:
    """A store rooted at a local directory.

    Each write goes to a temporary file in the target directory, then is renamed over
    the target (``os.replace`` is atomic on POSIX), so a crashed or killed process
    never leaves a partial file. ``durable=True`` writes are also fsynced before the
    rename; the runner uses them for the record that marks a trial finished.

    A killed writer can leave its temporary file behind (``.<name>.<pid>-<random>.tmp``,
    skipped by :meth:`list`); :meth:`remove_stale_temp_files` removes those whose
    writer is gone.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.uri = root.as_uri()
        self._dirs: set[Path] = set()

    def _path(self, key: str) -> Path:
        parts = [p for p in key.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            raise StoreError(f"invalid store key {key!r}")
        return self.root.joinpath(*parts)

    def write_bytes(self, key: str, data: bytes, *, durable: bool = False) -> None:
        """Write atomically; with ``durable``, also fsync before the rename."""
        path = self._path(key)
        try:
            if path.parent not in self._dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._dirs.add(path.parent)
            fd, tmp = tempfile.mkstemp(
                prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent
            )
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    if durable:
                        handle.flush()
                        os.fsync(handle.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise StoreError(f"cannot write {path}: {exc.strerror}") from exc

    def append_bytes(self, key: str, data: bytes) -> None:
        """Append ``data`` to a file (created if missing) in one ``write`` call."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreError(f"cannot append to {path}: {exc.strerror}") from exc

    def read_bytes(self, key: str) -> bytes:
        """Read a value."""
        path = self._path(key)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"not found in store: {path}") from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror}") from exc

    def exists(self, key: str) -> bool:
        """Whether the key holds a value."""
        return self._path(key).is_file()

    def list(self, prefix: str = "") -> Iterator[str]:
        """Keys under a prefix, sorted; temporary files of writes in progress are skipped."""
        base = self._path(prefix) if prefix.strip("/") else self.root
        if not base.is_dir():
            return
        found = []
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                if name.startswith(".") and name.endswith(".tmp"):
                    continue
                full = Path(dirpath) / name
                found.append(full.relative_to(self.root).as_posix())
        yield from sorted(found)

    def remove_stale_temp_files(self, prefix: str = "") -> tuple[str, ...]:
        """Remove the temporary files of writes whose writer died; their paths.

        A temporary file whose writer pid (in its name) is no live process on this
        machine is stale; one without a pid (an older version's) is stale once it is
        :data:`OLD_TEMP_SECONDS` old. A live writer's files are left alone, so a run
        may call this while another writes to the same store.
        """
        base = self._path(prefix) if prefix.strip("/") else self.root
        removed: set[str] = set()
        if not base.is_dir():
            return ()
        now = time.time()
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                if not (name.startswith(".") and name.endswith(".tmp")):
                    continue
                path = Path(dirpath) / name
                match = _TEMP.fullmatch(name)
                try:
                    if match is not None:
                        stale = not _writer_alive(int(match["pid"]))
                    else:
                        stale = now - path.stat().st_mtime > OLD_TEMP_SECONDS
                    if stale:
                        path.unlink()
                        removed.add(str(path))
                except OSError:  # gone meanwhile (its writer finished), or not ours
                    continue
        return tuple(sorted(removed))

    def rename(self, key: str, new_key: str) -> None:
        """Move a value."""
        src, dst = self._path(key), self._path(new_key)
        try:
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
            self._dirs.discard(src.parent)  # the directory may now be emptied by callers
        except OSError as exc:
            raise StoreError(f"cannot move {src} to {dst}: {exc.strerror}") from exc

    def local_path(self, key: str) -> Path | None:
        """The file path of a key."""
        return self._path(key)
