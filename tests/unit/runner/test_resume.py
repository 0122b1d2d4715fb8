"""Resuming a run: which trials are skipped, rerun or retried, what is archived, attempt numbers."""

from adhere.core import Trial, TrialResult
from adhere.runner._fingerprint import Fingerprint
from adhere.runner._resume import Resume, resume

TRIAL = Trial(rollout="r", model="m", scaffold="chat", instance="i", repeat=0)
PLANNED = Fingerprint({"endpoint": "e1", "scaffold": "s1", "instance": "i1", "suite": "u1"})


def stored(status: str, attempt: int = 1, parts: dict[str, str] | None = None) -> TrialResult:
    return TrialResult(
        trial=TRIAL,
        trial_id=TRIAL.id,
        status=status,
        attempt=attempt,
        started_at="2025-01-01T00:00:00+00:00",
        finished_at="2025-01-01T00:00:01+00:00",
        duration_seconds=1.0,
        fingerprint_parts=dict(PLANNED.parts) if parts is None else parts,
    )


def test_a_trial_with_no_stored_result_runs_as_attempt_1() -> None:
    assert resume(None, PLANNED) == Resume("run", attempt=1, archive=None)
    assert resume(None, None) == Resume("run", attempt=1)


def test_a_finished_trial_under_the_same_config_is_skipped() -> None:
    assert resume(stored("ok", attempt=3), PLANNED) == Resume("skip")


def test_a_finished_trial_with_nothing_to_compare_is_skipped() -> None:
    """Results from before fingerprints, or a run without planned fingerprints, are reused."""
    assert resume(stored("ok", parts={}), PLANNED) == Resume("skip")
    assert resume(stored("ok"), None) == Resume("skip")


def test_a_finished_trial_under_another_config_is_archived_and_run_again() -> None:
    changed = dict(PLANNED.parts, endpoint="e2")
    decision = resume(stored("ok", attempt=2, parts=changed), PLANNED)
    assert decision == Resume("rerun", attempt=3, archive=2)


def test_a_failed_or_faulted_trial_is_archived_and_retried_with_the_next_attempt() -> None:
    """Whatever its fingerprint, a result that is not ok never counts as finished."""
    assert resume(stored("error", attempt=1), PLANNED) == Resume("retry", attempt=2, archive=1)
    faulted = stored("upstream_fault", attempt=4, parts={"endpoint": "other"})
    assert resume(faulted, PLANNED) == Resume("retry", attempt=5, archive=4)
