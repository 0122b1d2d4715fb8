"""The controller's decisions outside the trial plan: when to look again, what to cache,
when to patch, where a rollout's results go and what its plan depends on."""

import base64
from datetime import UTC, datetime, timedelta

from adhere.core import Trial
from adhere.operator import JobView, OperatorConfig, PlanProblem, RetryPolicy, reconcile_trials
from adhere.operator._planning import decode_secret_values, plan_key, storage_for
from adhere.operator._reconcile import RETRY_SECONDS, wait_after_problem, wait_after_reconcile
from adhere.operator._status import keeps_plan, status_changed
from adhere.spec import Benchmark, JudgePanel, Rollout

NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def test_a_passing_planning_problem_is_retried_soon_a_permanent_one_waits_idle() -> None:
    assert wait_after_problem(False, idle_interval=300.0) == RETRY_SECONDS == 5.0
    assert wait_after_problem(True, idle_interval=300.0) == 300.0


def test_a_running_rollout_is_looked_at_every_interval() -> None:
    assert wait_after_reconcile("Running", None, interval=10.0, idle_interval=300.0) == 10.0


def test_a_finished_rollout_is_looked_at_no_more_than_the_idle_interval() -> None:
    for phase in ("Succeeded", "Failed"):
        assert wait_after_reconcile(phase, None, interval=10.0, idle_interval=300.0) == 300.0
    # An idle interval shorter than the interval never makes a finished rollout busier.
    assert wait_after_reconcile("Succeeded", None, interval=10.0, idle_interval=2.0) == 10.0


def test_a_waiting_retry_brings_the_next_look_forward_to_just_after_its_backoff() -> None:
    assert wait_after_reconcile("Running", 3.0, interval=10.0, idle_interval=300.0) == 3.05
    assert wait_after_reconcile("Running", 30.0, interval=10.0, idle_interval=300.0) == 10.0
    assert wait_after_reconcile("Failed", 0.0, interval=10.0, idle_interval=300.0) == 0.05


def test_plans_and_permanent_problems_are_cached_passing_problems_are_not() -> None:
    assert keeps_plan(None)
    assert keeps_plan(PlanProblem("InvalidSpec", "x"))
    assert keeps_plan(PlanProblem("BenchmarkInvalid", "x"))
    assert not keeps_plan(PlanProblem("StoreUnavailable", "x"))
    assert not keeps_plan(PlanProblem("SecretNotFound", "x"))


def test_the_status_is_patched_only_when_a_patched_key_changes() -> None:
    current = {"phase": "Running", "trials": {"done": 1}, "observedGeneration": 3}
    assert not status_changed(current, {"phase": "Running", "trials": {"done": 1}})
    assert status_changed(current, {"phase": "Succeeded"})
    assert status_changed(current, {"trials": {"done": 2}})
    assert status_changed({}, {"phase": "Pending"})
    assert not status_changed(current, {})


def rollout(storage: str | None = None, model: str = "oracle") -> Rollout:
    spec = {
        "benchmark": "b",
        "models": [{"name": "m", "endpoint": {"baseUrl": "scripted", "model": model}}],
    }
    if storage is not None:
        spec["storage"] = storage
    return Rollout.model_validate(
        {"apiVersion": "adhere.dev/v1alpha1", "kind": "Rollout", "metadata": {"name": "r"},
         "spec": spec}
    )  # fmt: skip


BENCH = Benchmark.model_validate(
    {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "Benchmark",
        "metadata": {"name": "b"},
        "spec": {"suite": "pacific", "source": {"path": "x.jsonl"}},
    }
)
PANEL = JudgePanel.model_validate(
    {
        "apiVersion": "adhere.dev/v1alpha1",
        "kind": "JudgePanel",
        "metadata": {"name": "p"},
        "spec": {"judges": [{"name": "j", "endpoint": {"baseUrl": "scripted", "model": "judge"}}]},
    }
)


def test_a_rollout_stores_where_it_says_else_where_the_operator_says() -> None:
    operator = OperatorConfig(store_uri="s3://bucket/runs")
    assert storage_for(rollout(storage="s3://mine/x"), operator) == "s3://mine/x"
    assert storage_for(rollout(), operator) == "s3://bucket/runs"
    # Without an operator store, the rollout's own (default) storage.
    assert storage_for(rollout(), OperatorConfig()) == rollout().spec.storage


def test_the_plan_key_changes_with_everything_the_plan_depends_on() -> None:
    base = plan_key(rollout(), BENCH, None, "s3://b/r")
    assert base == plan_key(rollout(), BENCH, None, "s3://b/r")
    assert len(base) == 16
    other_bench = BENCH.model_copy(
        update={"spec": BENCH.spec.model_copy(update={"options": {"mode": "chat"}})}
    )
    variants = [
        plan_key(rollout(model="noisy"), BENCH, None, "s3://b/r"),
        plan_key(rollout(), other_bench, None, "s3://b/r"),
        plan_key(rollout(), BENCH, PANEL, "s3://b/r"),
        plan_key(rollout(), BENCH, None, "s3://b/other"),
        plan_key(
            rollout().model_copy(update={"metadata": BENCH.metadata}), BENCH, None, "s3://b/r"
        ),
    ]
    assert len({base, *variants}) == 1 + len(variants)


def test_secret_values_are_decoded_for_redaction_and_bad_ones_skipped() -> None:
    data = {
        "key": base64.b64encode(b"sk-real\n").decode(),
        "blank": base64.b64encode(b"  ").decode(),
        "garbage": "not base64!",
        "binary": base64.b64encode(b"\xff\xfe").decode(),
        "number": 7,
    }
    wanted = ["key", "blank", "garbage", "binary", "number", "absent"]
    assert decode_secret_values(data, wanted) == ["sk-real"]
    assert decode_secret_values(None, ["key"]) == []


def _trials(n: int) -> list[Trial]:
    return [
        Trial(rollout="r", model="m", scaffold="chat", instance=f"i{k}", repeat=0) for k in range(n)
    ]


def _job(trial: Trial, attempt: int, state: str, finished=None) -> JobView:
    return JobView(f"j-{trial.instance}-{attempt}", trial.id, attempt, state, finished, "Failed")


def test_more_running_jobs_than_parallelism_start_nothing_new() -> None:
    """After parallelism is lowered, no Job is created until the running ones drop below it."""
    plan = _trials(4)
    running = [_job(t, 1, "active") for t in plan[:3]]
    decision = reconcile_trials(plan, running, RetryPolicy(parallelism=2, max_retries=0), NOW)
    assert decision.create == [] and decision.counts.running == 3 and not decision.finished


def test_the_next_look_waits_for_the_earliest_retry() -> None:
    plan = _trials(2)
    policy = RetryPolicy(parallelism=4, max_retries=3, backoff_seconds=10, backoff_max_seconds=60)
    jobs = [
        _job(plan[0], 1, "failed", NOW - timedelta(seconds=2)),  # ready in 8 s
        _job(plan[1], 2, "failed", NOW - timedelta(seconds=5)),  # ready in 15 s
    ]
    decision = reconcile_trials(plan, jobs, policy, NOW)
    assert decision.create == [] and decision.requeue_after == 8.0
    assert decision.counts.retried == 1  # trial 1 is on its second attempt


def test_retries_are_counted_once_created() -> None:
    plan = _trials(2)
    jobs = [_job(plan[0], 2, "failed", NOW - timedelta(hours=1)), _job(plan[1], 1, "succeeded")]
    policy = RetryPolicy(parallelism=1, max_retries=3)
    decision = reconcile_trials(plan, jobs, policy, NOW)
    assert decision.create == [(plan[0], 3)]
    # One earlier retry (attempt 2 ran) and the one created now.
    assert decision.counts.retried == 2 and decision.counts.running == 1
    assert decision.counts.done == 1 and not decision.finished


def test_a_failure_message_is_part_of_the_failure_named() -> None:
    plan = _trials(1)
    failed = JobView("j", plan[0].id, 1, "failed", NOW, "DeadlineExceeded", "ran 1800 s")
    decision = reconcile_trials(plan, [failed], RetryPolicy(parallelism=1, max_retries=0), NOW)
    assert decision.failures == ["m/chat/i0/r0: DeadlineExceeded: ran 1800 s"]
    assert decision.finished and decision.counts.failed == 1
    unnamed = JobView("j", plan[0].id, 1, "failed", NOW, "", "")
    decision = reconcile_trials(plan, [unnamed], RetryPolicy(parallelism=1, max_retries=0), NOW)
    assert decision.failures == ["m/chat/i0/r0: failed"]
