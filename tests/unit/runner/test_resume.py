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


def test_a_new_trial_after_archived_attempts_continues_their_numbering() -> None:
    """A run killed during an in-run retry left attempt-1/ and no result: run attempt 2."""
    assert resume(None, PLANNED, archived=[1]) == Resume("run", attempt=2)
    assert resume(None, PLANNED, archived=[3, 1, 2]) == Resume("run", attempt=4)


def test_files_of_an_unfinished_attempt_are_archived_before_the_next() -> None:
    """A killed run's leftovers (no marker) take the number after the archived ones."""
    assert resume(None, PLANNED, unfinished=True) == Resume("run", attempt=2, archive=1)
    assert resume(None, PLANNED, archived=[1], unfinished=True) == Resume(
        "run", attempt=3, archive=2
    )


def test_an_interrupted_attempt_is_archived_under_its_own_number() -> None:
    decision = resume(None, PLANNED, archived=[1, 2], unfinished=True, interrupted=3)
    assert decision == Resume("run", attempt=4, archive=3)
    # a marker naming a number already archived never overwrites it
    clash = resume(None, PLANNED, archived=[1, 2], unfinished=True, interrupted=2)
    assert clash == Resume("run", attempt=4, archive=3)


def test_a_stored_result_whose_number_is_archived_already_moves_past_it() -> None:
    """Before the fix a resumed trial restarted at 1; its result must not replace attempt-1/."""
    decision = resume(stored("upstream_fault", attempt=1), PLANNED, archived=[1])
    assert decision == Resume("retry", attempt=3, archive=2)
    assert resume(stored("error", attempt=5), PLANNED, archived=[1, 2]) == Resume(
        "retry", attempt=6, archive=5
    )


def test_archived_attempts_do_not_change_a_skip() -> None:
    assert resume(stored("ok", attempt=2), PLANNED, archived=[1], unfinished=True) == Resume("skip")


def test_attempt_numbers_across_a_sequence_of_restarts_never_repeat() -> None:
    """Simulate kills and retries: every archived number is new, and attempts grow."""
    archived: list[int] = []
    numbers = []
    previous = None
    unfinished = False
    for step in ("fault", "kill", "interrupt", "kill-with-files", "fault", "ok"):
        decision = resume(previous, PLANNED, archived=archived, unfinished=unfinished)
        assert decision.attempt is not None
        if decision.archive is not None:
            assert decision.archive not in archived
            archived.append(decision.archive)
        numbers.append(decision.attempt)
        previous, unfinished = None, False
        if step in ("fault", "ok"):
            previous = stored("upstream_fault" if step == "fault" else "ok", decision.attempt)
        elif step in ("interrupt", "kill-with-files"):
            unfinished = True
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers) - 1  # a kill
    # with no files reuses its number (nothing of it was stored)
    assert archived == sorted(archived) and len(set(archived)) == len(archived)
