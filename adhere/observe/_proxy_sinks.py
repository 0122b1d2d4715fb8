"""Record sinks of the recording proxy: in memory, and JSON lines per trial on disk."""

from __future__ import annotations

import threading
from pathlib import Path

from adhere.artifacts import ProxyCall
from adhere.observe._proxy_config import NAME_PATTERN

__all__ = ["JsonlDirSink", "MemorySink"]


class MemorySink:
    """Keeps records in memory, per trial, until :meth:`take` collects them.

    Thread-safe, so a proxy running in another thread can fill it.
    """

    def __init__(self) -> None:
        self._records: dict[str, list[ProxyCall]] = {}
        self._lock = threading.Lock()

    def record(self, trial_id: str, record: ProxyCall) -> None:
        """Keep one record for ``trial_id``."""
        with self._lock:
            self._records.setdefault(trial_id, []).append(record)

    def take(self, trial_id: str) -> list[ProxyCall]:
        """Remove and return the trial's records in ``seq`` order (empty when none)."""
        with self._lock:
            records = self._records.pop(trial_id, [])
        return sorted(records, key=lambda record: record.seq)

    def trials(self) -> list[str]:
        """The trials that have records waiting, sorted."""
        with self._lock:
            return sorted(self._records)


class JsonlDirSink:
    """Appends each record as one JSON line to ``<directory>/<trial-id>/calls.jsonl``.

    Every record is written with one ``write`` and the file is closed (so flushed)
    after it; lines are in order of completion, which under concurrency within one
    trial may differ from ``seq`` order. Thread-safe.

    Args:
        directory: Root directory; trial directories are created as needed.
    """

    FILENAME = "calls.jsonl"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()

    def path(self, trial_id: str) -> Path:
        """The file holding ``trial_id``'s records.

        Raises:
            ValueError: ``trial_id`` is not a safe directory name.
        """
        if not NAME_PATTERN.fullmatch(trial_id):
            raise ValueError(f"trial id {trial_id!r} is not a safe directory name")
        return self.directory / trial_id / self.FILENAME

    def record(self, trial_id: str, record: ProxyCall) -> None:
        """Append one record for ``trial_id``."""
        path = self.path(trial_id)
        line = record.to_json_line() + "\n"
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line)

    def read(self, trial_id: str) -> list[ProxyCall]:
        """The trial's records so far, in ``seq`` order (empty when none).

        Raises:
            SpecError: A line is not a valid record (the error names the file, line
                and field).
        """
        path = self.path(trial_id)
        if not path.exists():
            return []
        lines = path.read_text(encoding="utf-8").splitlines()
        records = [
            ProxyCall.from_json_line(line, where=f"{path}:{number}")
            for number, line in enumerate(lines, start=1)
            if line.strip()
        ]
        return sorted(records, key=lambda record: record.seq)
