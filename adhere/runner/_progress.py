"""``progress.json`` kept current while a run goes: what `adhere exporter` reports as running."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from adhere.artifacts import Phase, RolloutStore, RunProgress, write_progress
from adhere.core import Trial, TrialResult
from adhere.runner._summary import NoProgress, Progress

__all__ = ["StoreProgress"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StoreProgress:
    """A :class:`Progress` that also keeps ``progress.json`` current in the store.

    The engine runs ``min(parallelism, to do)`` workers, each busy with one trial
    until the queue is empty, so trials in flight are ``min(parallelism, left)``.
    Writes are at most one per ``interval`` seconds, plus the last one.
    """

    def __init__(
        self,
        store: RolloutStore,
        parallelism: int,
        inner: Progress | None = None,
        *,
        interval: float = 0.5,
    ) -> None:
        self.store = store
        self.parallelism = parallelism
        self.inner = inner or NoProgress()
        self.interval = interval
        self.counts = RunProgress(planned=0, running=0, done=0, failed=0)
        self._left = 0
        self._written = 0.0

    def start(self, total: int, skipped: int) -> None:
        """The run begins."""
        self.inner.start(total, skipped)
        self._left = total - skipped
        self.counts = RunProgress(
            planned=total,
            running=min(self.parallelism, self._left),
            done=skipped,
            failed=0,
        )
        self.write("running", force=True)

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """One trial finished."""
        self.inner.finished(trial, result)
        self._left -= 1
        self.counts["done" if result.status == "ok" else "failed"] += 1
        self.counts["running"] = min(self.parallelism, self._left)
        self.write("running", force=self._left == 0)

    def write(
        self, phase: Phase, *, force: bool = False, interrupted: list[str] | None = None
    ) -> None:
        """Write ``progress.json`` (``phase``: running, scoring, finished or interrupted)."""
        now = time.monotonic()
        if not force and now - self._written < self.interval:
            return
        self._written = now
        body = RunProgress(**self.counts, phase=phase, updated_at=_now())
        if phase != "running":
            body["running"] = 0
        if interrupted is not None:
            body["interrupted"] = sorted(interrupted)
        write_progress(self.store, body)

    def interrupted(self, trial_ids: list[str]) -> None:
        """The run was stopped: nothing runs now; ``trial_ids`` were cut short."""
        self.write("interrupted", force=True, interrupted=trial_ids)
