"""Deciding which trial Jobs to create and delete, with plain data."""

from datetime import UTC, datetime, timedelta

from adhere.core import Trial
from adhere.operator import JobView, PodProblem, RetryPolicy, reconcile_trials

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
POLICY = RetryPolicy(parallelism=2, max_retries=2, backoff_seconds=10, backoff_max_seconds=25)


def trials(n: int, rollout: str = "r") -> list[Trial]:
    return [
        Trial(rollout=rollout, model="m", scaffold="chat", instance=f"i{k}", repeat=0)
        for k in range(n)
    ]


def job(trial: Trial, attempt: int, state: str, finished: datetime | None = None) -> JobView:
    return JobView(
        f"r-{trial.id[:12]}-a{attempt}",
        trial.id,
        attempt,
        state,
        finished,  # type: ignore[arg-type]
        "BackoffLimitExceeded" if state == "failed" else "",
    )


def test_never_more_active_jobs_than_parallelism() -> None:
    plan = trials(5)
    first = reconcile_trials(plan, [], POLICY, NOW)
    assert first.create == [(plan[0], 1), (plan[1], 1)]
    assert first.counts.planned == 5 and first.counts.running == 2
    running = [job(plan[0], 1, "active"), job(plan[1], 1, "active")]
    assert reconcile_trials(plan, running, POLICY, NOW).create == []
    one_done = [job(plan[0], 1, "succeeded", NOW), job(plan[1], 1, "active")]
    again = reconcile_trials(plan, one_done, POLICY, NOW)
    assert again.create == [(plan[2], 1)]
    assert (again.counts.done, again.counts.running) == (1, 2)


def test_the_same_observations_give_the_same_decision_after_a_restart() -> None:
    plan = trials(3)
    jobs = [job(plan[0], 1, "active")]
    decisions = [reconcile_trials(plan, jobs, POLICY, NOW) for _ in range(2)]
    assert decisions[0].create == decisions[1].create == [(plan[1], 1)]
    # Once that Job exists, nothing more is created for it.
    jobs.append(job(plan[1], 1, "active"))
    assert reconcile_trials(plan, jobs, POLICY, NOW).create == []


def test_a_failed_trial_is_retried_after_a_doubling_backoff() -> None:
    plan = trials(1)
    failed = [job(plan[0], 1, "failed", NOW - timedelta(seconds=4))]
    waiting = reconcile_trials(plan, failed, POLICY, NOW)
    assert waiting.create == [] and not waiting.finished
    assert waiting.requeue_after == 6.0
    later = reconcile_trials(plan, failed, POLICY, NOW + timedelta(seconds=6))
    assert later.create == [(plan[0], 2)] and later.counts.retried == 1
    second = failed + [job(plan[0], 2, "failed", NOW)]
    assert reconcile_trials(plan, second, POLICY, NOW + timedelta(seconds=19)).create == []
    assert reconcile_trials(plan, second, POLICY, NOW + timedelta(seconds=20)).create == [
        (plan[0], 3)
    ]
    assert POLICY.backoff(3) == 25  # capped


def test_a_trial_fails_for_good_after_max_retries() -> None:
    plan = trials(2)
    jobs = [job(plan[0], a, "failed", NOW - timedelta(hours=1)) for a in (1, 2, 3)]
    jobs.append(job(plan[1], 1, "succeeded", NOW))
    decision = reconcile_trials(plan, jobs, POLICY, NOW)
    assert decision.create == []
    assert (decision.counts.done, decision.counts.failed, decision.counts.retried) == (1, 1, 2)
    assert decision.finished
    assert decision.failures == ["m/chat/i0/r0: BackoffLimitExceeded"]


def test_a_failure_without_a_timestamp_is_retried_at_once() -> None:
    plan = trials(1)
    decision = reconcile_trials(plan, [job(plan[0], 1, "failed")], POLICY, NOW)
    assert decision.create == [(plan[0], 2)]


def test_a_spec_edit_replans_deleting_active_jobs_of_dropped_trials_only() -> None:
    old, new = trials(3), trials(2, rollout="r2")
    jobs = [job(old[0], 1, "succeeded", NOW), job(old[1], 1, "active"), job(new[0], 1, "active")]
    decision = reconcile_trials(new, jobs, POLICY, NOW)
    assert decision.delete == [jobs[1].name]
    assert decision.create == [(new[1], 1)]
    assert decision.counts.planned == 2 and decision.counts.done == 0


def test_stored_results_count_as_done_without_a_job() -> None:
    plan = trials(2)
    decision = reconcile_trials(plan, [], POLICY, NOW, stored_done={plan[0].id})
    assert decision.create == [(plan[1], 1)] and decision.counts.done == 1


def test_pod_problems_are_reported_for_running_trials_only() -> None:
    plan = trials(2)
    jobs = [job(plan[0], 1, "active"), job(plan[1], 1, "succeeded", NOW)]
    problems = [
        PodProblem(plan[0].id, "p0", "ImagePullBackOff", "no such image"),
        PodProblem(plan[1].id, "p1", "Unschedulable", "0/3 nodes"),
    ]
    decision = reconcile_trials(plan, jobs, POLICY, NOW, pod_problems=problems)
    assert [p.pod for p in decision.problems] == ["p0"]
