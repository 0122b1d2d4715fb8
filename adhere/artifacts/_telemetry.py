"""The small per-rollout records the exporter reads: judge calls and run progress.

Both are written at the edge (the scorers, the runner), never by the pure judging
code. A failure to write them is logged and does not stop a run: they feed metrics,
not results. See :mod:`adhere.artifacts._layout` for where they live and
:mod:`adhere.artifacts._records` for their fields.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from adhere.artifacts._layout import JUDGE_CALLS, PROGRESS
from adhere.artifacts._records import (
    JudgeCallRecord,
    RunProgress,
    decode_judge_calls,
    decode_progress,
    encode_judge_calls,
    encode_progress,
)
from adhere.artifacts._rollout_store import RolloutStore
from adhere.errors import StoreError
from adhere.store import FileStore

__all__ = ["append_judge_calls", "read_judge_calls", "read_progress", "write_progress"]

log = logging.getLogger(__name__)


def append_judge_calls(store: RolloutStore, records: Iterable[JudgeCallRecord]) -> None:
    """Append judge call records to the rollout's ``judge_calls.jsonl``.

    On a local store the lines are appended to the file in one ``write`` (a killed
    writer leaves whole lines; the reader skips a cut last one); elsewhere (S3, which
    cannot append) the object is read and written back.
    """
    lines = encode_judge_calls(records)
    if not lines:
        return
    key = store.key(JUDGE_CALLS)
    try:
        if isinstance(store.store, FileStore):
            store.store.append_bytes(key, lines)
            return
        old = store.store.read_bytes(key) if store.store.exists(key) else b""
        store.store.write_bytes(key, old + lines)
    except StoreError as exc:
        log.warning("judge call records not written: %s", exc)


def read_judge_calls(store: RolloutStore) -> list[JudgeCallRecord]:
    """The rollout's judge call records (empty when none were recorded)."""
    key = store.key(JUDGE_CALLS)
    if not store.store.exists(key):
        return []
    return decode_judge_calls(store.store.read_bytes(key))


def write_progress(store: RolloutStore, progress: RunProgress) -> None:
    """Replace the rollout's ``progress.json``."""
    try:
        store.store.write_bytes(store.key(PROGRESS), encode_progress(progress))
    except StoreError as exc:
        log.warning("progress not written: %s", exc)


def read_progress(store: RolloutStore) -> RunProgress | None:
    """The latest run's ``progress.json``, or ``None``."""
    key = store.key(PROGRESS)
    if not store.store.exists(key):
        return None
    try:
        return decode_progress(store.store.read_bytes(key))
    except ValueError:
        return None
