"""Resuming a run: what to do with each planned trial given what the store holds (pure).

The inputs: the trial's stored result (``result.json``, if any), the numbers of its
archived attempts (``attempt-<n>/``), whether it has other files of an attempt that
never finished (a run killed or stopped mid-trial; ``interrupted.json`` names that
attempt's number when the run was stopped cleanly), and the config it is planned
under. Then:

- a stored ``ok`` result under the same config (or one written before fingerprints,
  or with no planned fingerprint to compare) → skip it;
- a stored ``ok`` result under another config (only reached with ``--rerun-changed``;
  without it :func:`~adhere.runner._reuse.check_reuse` refuses first) → archive that
  attempt and run the next one;
- a stored result that is not ``ok`` (the trial failed, or the model service did) →
  archive that attempt and run the next one;
- no stored result but files of an unfinished attempt → archive them as that attempt
  and run the next one;
- nothing stored → run the attempt after the last archived one (1 for a new trial).

Attempts are numbered from 1 and never reused, also across restarts: an attempt is
archived under its own number, or under the first number after every archived one
when that is higher, and the next attempt gets the number after it. So no archived
attempt is ever overwritten, whatever the run that was killed had done.
"""

from __future__ import annotations

from collections.abc import Collection
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
        archive: The number to archive the trial's current files under first (``None``:
            nothing to archive).
    """

    action: Literal["skip", "run", "rerun", "retry"]
    attempt: int | None = None
    archive: int | None = None


def resume(
    previous: TrialResult | None,
    planned: Fingerprint | None,
    *,
    archived: Collection[int] = (),
    unfinished: bool = False,
    interrupted: int | None = None,
) -> Resume:
    """The decision for one trial (see the module doc).

    Args:
        previous: Its stored result.
        planned: The config it is planned under.
        archived: The numbers of its archived attempts.
        unfinished: Whether it has files of an attempt that left no result.
        interrupted: The attempt number ``interrupted.json`` names, if any.
    """
    after = max(archived, default=0) + 1
    if previous is not None:
        if previous.status == "ok":
            if planned is None or not changed_parts(previous.fingerprint_parts, planned):
                return Resume("skip")
            action: Literal["rerun", "retry"] = "rerun"
        else:
            action = "retry"
        number = max(previous.attempt, after)
        return Resume(action, attempt=number + 1, archive=number)
    if unfinished:
        number = max(interrupted or 0, after)
        return Resume("run", attempt=number + 1, archive=number)
    return Resume("run", attempt=after)
