"""``adhere trial run --spool``: the trial container's side of a trial pod's hand-over.

See :mod:`adhere.runner._spool` for the pod and the spool. The trial runs against
the spool's ``file://`` store, holding the spool's lock; then it says it is done
(``done.json``, with a nonce) and waits for the uploader's answer to that nonce.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from adhere.core import TrialResult
from adhere.errors import SpecError
from adhere.runner._signals import Interrupted, run_interruptible
from adhere.runner._spool import TRIAL_FILE, Spool
from adhere.runner._trial import run_stored_trial

__all__ = ["NOT_STORED", "UPLOAD_WAIT_SECONDS", "SpooledRun", "run_spooled_trial"]

UPLOAD_WAIT_SECONDS: Final = 600.0
"""How long ``trial run --spool`` waits for the uploader's acknowledgement."""
NOT_STORED: Final = 3
"""``trial run --spool``'s exit status when its files did not reach the store."""


@dataclass(frozen=True)
class SpooledRun:
    """How ``trial run --spool`` ended.

    Attributes:
        result: The trial's result.
        stored: Whether the uploader acknowledged that the files reached the store.
        error: Why not, when they did not.
    """

    result: TrialResult
    stored: bool
    error: str | None = None


def run_spooled_trial(
    spool: Path,
    trial_id: str,
    *,
    proxy_url: str | None = None,
    calls_dir: Path | None = None,
    upload_wait: float = UPLOAD_WAIT_SECONDS,
    poll_seconds: float = 0.2,
    sandbox: bool | None = None,
) -> SpooledRun:
    """Run the trial ``stage`` put in ``spool``, then wait for the uploader.

    ``sandbox``: as :func:`run_stored_trial`'s (the operator's pods pass false: the
    pod is the agent's sandbox).

    The trial holds the spool's lock while it runs and writes ``done.json`` when every
    file is written (also when a signal stopped it: then :class:`Interrupted` is
    raised after, and nothing waits for the uploader, whose own stop signal follows).

    Raises:
        Interrupted: A stop signal cut the trial short (recorded in the spool).
        SpecError: The spool holds no staged trial, or another one.
    """
    where = Spool(spool)
    staged = where.what_to_run()
    if staged["trial"] != trial_id:
        raise SpecError(
            f"the spool holds trial {staged['trial']}, not {trial_id}",
            file=str(where.path(TRIAL_FILE)),
            field="--trial",
        )
    lock = where.hold()
    try:
        try:
            result = run_interruptible(
                run_stored_trial(
                    where.rollout_uri(),
                    trial_id,
                    attempt=where.attempt(),
                    proxy_url=proxy_url,
                    calls_dir=calls_dir,
                    sandbox=sandbox,
                )
            )
        except Interrupted as stop:
            where.finish("interrupted", stop.exit_status)
            raise
        done = where.finish(result.status, 0 if result.status == "ok" else 1)
    finally:
        os.close(lock)
    deadline = time.monotonic() + upload_wait
    while (answer := where.acknowledgement()) is None or answer.get("done") != done["nonce"]:
        if time.monotonic() >= deadline:
            return SpooledRun(result, False, f"no answer from the uploader in {upload_wait:.0f}s")
        time.sleep(poll_seconds)
    if answer.get("ok") is True:
        return SpooledRun(result, True)
    return SpooledRun(result, False, str(answer.get("error") or "the uploader failed"))
