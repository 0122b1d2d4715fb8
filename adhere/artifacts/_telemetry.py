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
from collections.abc import Iterable
from typing import Any

from adhere.artifacts._layout import RolloutStore
from adhere.errors import StoreError

__all__ = [
    "JUDGE_CALLS",
    "PROGRESS",
    "append_judge_calls",
    "read_judge_calls",
    "read_progress",
]

JUDGE_CALLS = "judge_calls.jsonl"
PROGRESS = "progress.json"

log = logging.getLogger(__name__)


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
