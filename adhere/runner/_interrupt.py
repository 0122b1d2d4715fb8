"""Recording a trial that a stopped run cut short: the calls it made, and that it stopped.

A trial in flight when the run is stopped (Ctrl-C, ``SIGTERM``, ``SIGHUP``) leaves no
result. What it did is kept anyway: its recorded model calls go to ``calls.jsonl`` —
they were paid for — and ``interrupted.json`` names the attempt, so the next run
archives both under ``attempt-<n>/`` and runs the next attempt (see
:mod:`adhere.runner._resume`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from adhere.artifacts import RolloutStore
from adhere.core import Trial
from adhere.errors import StoreError

if TYPE_CHECKING:
    from adhere.runner._engine import CallSource

__all__ = ["INTERRUPT_GRACE_SECONDS", "INTERRUPT_SETTLE_SECONDS", "record_interrupted"]

log = logging.getLogger(__name__)

INTERRUPT_GRACE_SECONDS = 0.5
"""How long the proxy lets a cut-short trial's calls in flight go on before it ends
(and records) them."""
INTERRUPT_SETTLE_SECONDS = 5.0
"""How long a stopping run waits for a cut-short trial's call records in all."""


async def record_interrupted(
    store: RolloutStore,
    calls: CallSource,
    trial: Trial,
    attempt: int,
    started_at: str,
    *,
    settle_seconds: float = INTERRUPT_SETTLE_SECONDS,
) -> None:
    """Write the calls ``trial`` made and ``interrupted.json`` (failures only logged)."""
    try:
        records = await asyncio.wait_for(
            calls.take(trial.id, grace=INTERRUPT_GRACE_SECONDS), settle_seconds
        )
    except Exception as exc:  # noqa: BLE001 - the run is stopping: record what can be
        log.warning("calls of interrupted trial %s not read: %s", trial.id, exc)
        records = []
    try:
        if records:
            store.write_calls(trial, (r.to_json_dict() for r in records))
        store.write_interrupted(
            trial,
            attempt,
            {
                "started_at": started_at,
                "interrupted_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "calls": len(records),
            },
        )
    except StoreError as exc:
        log.warning("interrupted trial %s not recorded: %s", trial.id, exc)
