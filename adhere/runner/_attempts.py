"""Starting a trial's next attempt: decide from the store (:func:`resume`), archive, number.

The one place where the local engine and ``adhere trial run`` (a pod) read a trial's
stored state and move its earlier attempt aside, so both number attempts the same
way and neither overwrites an archived attempt.
"""

from __future__ import annotations

from adhere.artifacts import RolloutStore
from adhere.core import Trial
from adhere.runner._fingerprint import Fingerprint
from adhere.runner._resume import Resume, resume

__all__ = ["start_attempt"]


def start_attempt(store: RolloutStore, trial: Trial, planned: Fingerprint | None) -> Resume:
    """The decision for ``trial``; when it runs, its earlier attempt is archived first."""
    previous = store.read_result(trial)
    decision = resume(previous, planned)
    if decision.action == "skip":
        return decision
    archived = store.archived_attempts(trial)
    unfinished = previous is None and store.has_attempt_files(trial)
    decision = resume(
        previous,
        planned,
        archived=archived,
        unfinished=unfinished,
        interrupted=store.read_interrupted(trial) if unfinished else None,
    )
    if decision.archive is not None:
        store.archive_attempt(trial, decision.archive)
    return decision
