"""Status and conditions of Rollouts, Benchmarks and JudgePanels, from plain data."""

from adhere.operator import (
    PlanProblem,
    ScoringView,
    TrialDecision,
    benchmark_status,
    judge_panel_status,
    rollout_status,
    scoring_view,
)
from adhere.operator._observe import PodProblem
from adhere.operator._status import previous_status, status_patch
from adhere.spec import RolloutStatus, Summary, TrialCounts

T0, T1 = "2025-01-01T00:00:00Z", "2025-01-01T00:05:00Z"


def decision(planned=4, running=0, done=0, failed=0, retried=0, **kw) -> TrialDecision:
    counts = TrialCounts(
        planned=planned, running=running, done=done, failed=failed, retried=retried
    )
    return TrialDecision(counts=counts, finished=done + failed == planned, **kw)


def conditions(status: RolloutStatus) -> dict[str, tuple[str, str]]:
    return {c.type: (c.status, c.reason) for c in status.conditions}


def test_running_then_scoring_then_succeeded_with_scores() -> None:
    fresh = RolloutStatus()
    running = rollout_status(
        fresh, generation=3, now=T0, decision=decision(running=2, done=1), plan_note="4 trials"
    )
    assert running.phase == "Running" and running.observed_generation == 3
    assert conditions(running)["Planned"] == ("True", "Planned")
    assert conditions(running)["Running"] == ("True", "TrialsRunning")
    assert running.trials.running == 2
    scoring = rollout_status(
        running,
        generation=3,
        now=T1,
        decision=decision(done=4),
        scoring=ScoringView("running", "InProcess"),
    )
    assert scoring.phase == "Scoring"
    assert conditions(scoring)["Scoring"] == ("True", "InProcess")
    assert conditions(scoring)["Running"] == ("False", "TrialsFinished")
    done = rollout_status(
        scoring,
        generation=3,
        now=T1,
        decision=decision(done=4),
        scoring=ScoringView("succeeded", "InProcess", Summary(isr=0.75, csr=0.9)),
        artifacts="s3://b/runs/r",
    )
    assert done.phase == "Succeeded"
    assert (done.summary.isr, done.summary.csr) == (0.75, 0.9)
    assert conditions(done)["Succeeded"] == ("True", "Completed")
    assert conditions(done)["Failed"] == ("False", "NoFailure")
    assert done.artifacts == "s3://b/runs/r"


def test_transition_times_change_only_when_a_condition_flips() -> None:
    first = rollout_status(RolloutStatus(), generation=1, now=T0, decision=decision(running=1))
    second = rollout_status(first, generation=1, now=T1, decision=decision(running=1, done=1))
    times = {c.type: c.last_transition_time for c in second.conditions}
    assert times["Running"] == T0 and times["Planned"] == T0
    third = rollout_status(
        second,
        generation=1,
        now=T1,
        decision=decision(done=4),
        scoring=ScoringView("running", "RayJob"),
    )
    flipped = {c.type: c.last_transition_time for c in third.conditions}
    assert flipped["Running"] == T1 and flipped["Scoring"] == T1 and flipped["Planned"] == T0


def test_failed_trials_and_all_failed() -> None:
    some = rollout_status(
        RolloutStatus(),
        generation=1,
        now=T0,
        decision=decision(done=3, failed=1, failures=["m/chat/i0/r0: DeadlineExceeded"]),
        scoring=ScoringView("succeeded", "InProcess", Summary(isr=0.5, csr=0.6)),
    )
    assert some.phase == "Succeeded"
    status, reason = conditions(some)["Succeeded"]
    assert (status, reason) == ("True", "CompletedWithTrialErrors")
    assert "DeadlineExceeded" in next(c.message for c in some.conditions if c.type == "Succeeded")
    none = rollout_status(
        RolloutStatus(),
        generation=1,
        now=T0,
        decision=decision(failed=4, failures=["m/chat/i0/r0: BackoffLimitExceeded"]),
    )
    assert none.phase == "Failed"
    assert conditions(none)["Failed"] == ("True", "AllTrialsFailed")


def test_scoring_failure_fails_the_rollout() -> None:
    status = rollout_status(
        RolloutStatus(),
        generation=1,
        now=T0,
        decision=decision(done=4),
        scoring=ScoringView("failed", "RayJob", None, "RayJob FAILED"),
    )
    assert status.phase == "Failed"
    assert conditions(status)["Failed"] == ("True", "ScoringFailed")


def test_planning_problems_name_their_reason() -> None:
    invalid = rollout_status(
        RolloutStatus(),
        generation=2,
        now=T0,
        problem=PlanProblem("InvalidSpec", "Rollout ns/r: spec.parallelism: must be ≥ 1"),
    )
    assert invalid.phase == "Failed"
    assert conditions(invalid)["Planned"] == ("False", "InvalidSpec")
    assert "spec.parallelism" in invalid.conditions[0].message
    missing = rollout_status(
        RolloutStatus(),
        generation=2,
        now=T0,
        problem=PlanProblem("BenchmarkNotFound", "spec.benchmark: Benchmark 'b' not found"),
    )
    assert missing.phase == "Pending"
    assert conditions(missing)["Failed"] == ("False", "NoFailure")


def test_scheduling_problems_surface_as_a_condition() -> None:
    problems = [
        PodProblem("t1", "r-t1-a1-xyz", "ImagePullBackOff", "container trial: back-off"),
        PodProblem("t2", "r-t2-a1-abc", "Unschedulable", "0/3 nodes available"),
    ]
    status = rollout_status(
        RolloutStatus(), generation=1, now=T0, decision=decision(running=2, problems=problems)
    )
    cond = next(c for c in status.conditions if c.type == "Schedulable")
    assert (cond.status, cond.reason) == ("False", "ImagePullBackOff")
    assert "r-t1-a1-xyz" in cond.message and "1 more pod" in cond.message
    assert status.phase == "Running"


def test_a_restarted_operator_does_not_score_a_succeeded_plan_again() -> None:
    before = RolloutStatus(phase="Succeeded", observed_generation=5, summary=Summary(isr=1.0))
    view = scoring_view(None, None, "plan-a", before, 5)
    assert view.state == "succeeded" and view.summary == Summary(isr=1.0)
    assert scoring_view(None, None, "plan-a", before, 6).state == "none"  # spec edited
    recorded = ScoringView("succeeded", "InProcess", Summary(isr=0.5))
    assert scoring_view(recorded, "plan-old", "plan-a", before, 5).state == "none"  # re-planned
    assert scoring_view(recorded, "plan-a", "plan-a", before, 5) is recorded


def test_stored_status_is_read_leniently_and_patched_in_camel_case() -> None:
    parsed = previous_status(
        RolloutStatus, {"phase": "Running", "kopf": {"x": 1}, "observedGeneration": 2}
    )
    assert parsed.phase == "Running" and parsed.observed_generation == 2
    assert previous_status(RolloutStatus, {"phase": "Exploded"}) == RolloutStatus()
    patch = status_patch(parsed)
    assert patch["observedGeneration"] == 2 and "trials" in patch


def test_benchmark_and_judge_panel_statuses() -> None:
    from adhere.spec import BenchmarkStatus, JudgePanelStatus

    ok = benchmark_status(
        BenchmarkStatus(),
        generation=1,
        now=T0,
        instances=12,
        checks=40,
        stored="file:///d/_benchmarks/ns/b/instances.jsonl",
    )
    assert (ok.phase, ok.instances, ok.checks) == ("Succeeded", 12, 40)
    bad = benchmark_status(
        ok,
        generation=2,
        now=T1,
        problem=PlanProblem("InvalidSpec", "spec.source: give exactly one"),
    )
    assert bad.phase == "Failed" and bad.conditions[0].reason == "InvalidSpec"
    panel = judge_panel_status(
        JudgePanelStatus(),
        generation=1,
        now=T0,
        missing=["spec.judges[0].endpoint.apiKey: Secret 'k' not found"],
    )
    assert panel.phase == "Pending"
    assert (
        panel.conditions[1].reason == "SecretNotFound"
        and "Secret 'k'" in panel.conditions[1].message
    )
    fine = judge_panel_status(panel, generation=1, now=T1)
    assert fine.phase == "Succeeded" and fine.conditions[1].status == "True"
