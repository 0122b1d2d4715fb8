"""Resuming a run: what to do with each planned trial given its stored result (pure).

- no stored result → run it, attempt 1;
- a stored ``ok`` result under the same config (or one written before fingerprints,
  or with no planned fingerprint to compare) → skip it;
- a stored ``ok`` result under another config (only reached with ``--rerun-changed``;
  without it :func:`~adhere.runner._reuse.check_reuse` refuses first) → archive that
  attempt and run the next one;
- a stored result that is not ``ok`` (the trial failed, or the model service did) →
  archive that attempt and run the next one.

Attempts are numbered from 1 and never reused: the stored attempt ``n`` is archived
before attempt ``n + 1`` runs, so every attempt's record is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from adhere.core import TrialResult
from adhere.runner._fingerprint import Fingerprint, changed_parts

__all__ = ["Resume", "resume"]


@dataclass(frozen=True)
class Resume:
    """What to do with one planned trial.

    Attributes:
        action: ``skip`` (finished under this config), ``run`` (never finished),
            ``rerun`` (finished under another config) or ``retry`` (ended in error or as
            an upstream fault).
        attempt: The attempt to run (``None`` when skipped).
        archive: The stored attempt to archive first (``None``: nothing stored).
    """

    action: Literal["skip", "run", "rerun", "retry"]
    attempt: int | None = None
    archive: int | None = None


def resume(previous: TrialResult | None, planned: Fingerprint | None) -> Resume:
    """The decision for a trial whose stored result is ``previous`` (see the module doc)."""
    if previous is None:
        return Resume("run", attempt=1)
    if previous.status == "ok":
        if planned is None or not changed_parts(previous.fingerprint_parts, planned):
            return Resume("skip")
        return Resume("rerun", attempt=previous.attempt + 1, archive=previous.attempt)
    return Resume("retry", attempt=previous.attempt + 1, archive=previous.attempt)
