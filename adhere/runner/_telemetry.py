"""Small per-rollout records the exporter reads: judge calls and run progress.

::

    <rollout>/
      judge_calls.jsonl   one record per judge call of every scoring pass (appended):
                          judge, model, started_at, seconds, input_tokens,
                          output_tokens, attempts, ok, error (exception type only)
      progress.json       the latest run's counts: planned, running, done, failed,
                          phase (running | scoring | finished), updated_at

Both are written at the edge (the runner), never by the pure judging code. A failure
to write them is logged and does not stop a run: they feed metrics, not results.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from adhere.errors import StoreError
from adhere.judging import JudgeCall
from adhere.models import ChatResponse
from adhere.runner._engine import NoProgress, Progress
from adhere.spec import Trial, TrialResult
from adhere.store import RolloutStore

__all__ = [
    "JUDGE_CALLS",
    "PROGRESS",
    "StoreProgress",
    "append_judge_calls",
    "judge_call_record",
    "read_judge_calls",
    "read_progress",
]

JUDGE_CALLS = "judge_calls.jsonl"
PROGRESS = "progress.json"

log = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def judge_call_record(
    call: JudgeCall,
    judge: str,
    seconds: float,
    response: ChatResponse | None = None,
    error: BaseException | None = None,
) -> dict[str, Any]:
    """The record of one judge call: who, how long, tokens, and whether it failed."""
    return {
        "judge": judge,
        "model": call.model,
        "started_at": (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(
            timespec="milliseconds"
        ),
        "seconds": round(seconds, 6),
        "input_tokens": response.usage.input_tokens if response is not None else 0,
        "output_tokens": response.usage.output_tokens if response is not None else 0,
        "attempts": response.attempts if response is not None else None,
        "ok": error is None,
        "error": type(error).__name__ if error is not None else None,
    }


def append_judge_calls(store: RolloutStore, records: Iterable[dict[str, Any]]) -> None:
    """Append judge call records to the rollout's ``judge_calls.jsonl``."""
    lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    if not lines:
        return
    key = store.key(JUDGE_CALLS)
    try:
        old = store.store.read_bytes(key) if store.store.exists(key) else b""
        store.store.write_bytes(key, old + lines.encode("utf-8"))
    except StoreError as exc:
        log.warning("judge call records not written: %s", exc)


def read_judge_calls(store: RolloutStore) -> list[dict[str, Any]]:
    """The rollout's judge call records (empty when none were recorded)."""
    key = store.key(JUDGE_CALLS)
    if not store.store.exists(key):
        return []
    text = store.store.read_bytes(key).decode("utf-8")
    out = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn line of an interrupted append: skip it
        if isinstance(record, dict):
            out.append(record)
    return out


def read_progress(store: RolloutStore) -> dict[str, Any] | None:
    """The latest run's ``progress.json``, or ``None``."""
    key = store.key(PROGRESS)
    if not store.store.exists(key):
        return None
    try:
        data = json.loads(store.store.read_bytes(key))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


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
        self.counts = {"planned": 0, "running": 0, "done": 0, "failed": 0}
        self._left = 0
        self._written = 0.0

    def start(self, total: int, skipped: int) -> None:
        """The run begins."""
        self.inner.start(total, skipped)
        self._left = total - skipped
        self.counts = {
            "planned": total,
            "running": min(self.parallelism, self._left),
            "done": skipped,
            "failed": 0,
        }
        self.write("running", force=True)

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """One trial finished."""
        self.inner.finished(trial, result)
        self._left -= 1
        self.counts["done" if result.status == "ok" else "failed"] += 1
        self.counts["running"] = min(self.parallelism, self._left)
        self.write("running", force=self._left == 0)

    def write(self, phase: str, *, force: bool = False) -> None:
        """Write ``progress.json`` (``phase``: running, scoring or finished)."""
        now = time.monotonic()
        if not force and now - self._written < self.interval:
            return
        self._written = now
        body = {**self.counts, "phase": phase, "updated_at": _now()}
        if phase != "running":
            body["running"] = 0
        try:
            self.store.store.write_bytes(
                self.store.key(PROGRESS), json.dumps(body, sort_keys=True).encode("utf-8")
            )
        except StoreError as exc:
            log.warning("progress not written: %s", exc)
