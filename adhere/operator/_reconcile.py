"""Deciding what to do about a Rollout's trials (pure: plain data in, a decision out).

Given the planned trials, the trial Jobs that exist and what the store says is
finished, :func:`reconcile_trials` decides which Jobs to create (the next attempt of
each trial that needs one, never more active Jobs than ``spec.parallelism``), which
to delete (active Jobs of trials no longer planned, after a spec edit), the trial
counts, and when to look again (a retry waiting out its backoff).

A trial's state follows from its Jobs alone (one Job per attempt, named from the
trial id and the attempt), so the decision is the same after an operator restart:

- a Job of it succeeded, or its stored result is ``ok`` → done;
- its latest Job is active → running;
- its latest Job failed and ``attempt ≤ maxRetries`` → retried with attempt + 1 once
  ``backoff(attempt)`` has passed since the failure;
- its latest Job failed and ``attempt > maxRetries`` → failed for good;
- no Job → attempt 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from adhere.core import Trial
from adhere.operator._observe import JobView, PodProblem
from adhere.spec import TrialCounts


@dataclass(frozen=True)
class RetryPolicy:
    """How many trials run at once and how failed trials are retried."""

    parallelism: int
    max_retries: int
    backoff_seconds: float = 10.0
    backoff_max_seconds: float = 300.0

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after attempt ``attempt`` failed: doubling, capped."""
        return float(min(self.backoff_seconds * 2 ** (attempt - 1), self.backoff_max_seconds))


@dataclass
class TrialDecision:
    """What to do about a rollout's trials now.

    Attributes:
        create: ``(trial, attempt)`` of each Job to create, in plan order.
        delete: Names of Jobs to delete (still active, but their trial is no longer planned).
        counts: Trial counts after the creations.
        finished: Every planned trial is done or failed for good.
        requeue_after: Seconds until a waiting retry may start (None: none waits).
        problems: Scheduling or start-up problems of the pods of running trials.
        failures: ``model/scaffold/instance/rN: reason`` of trials failed for good.
    """

    create: list[tuple[Trial, int]] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    counts: TrialCounts = field(default_factory=TrialCounts)
    finished: bool = False
    requeue_after: float | None = None
    problems: list[PodProblem] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def _describe(trial: Trial) -> str:
    return f"{trial.model}/{trial.scaffold}/{trial.instance}/r{trial.repeat}"


def reconcile_trials(
    trials: Sequence[Trial],
    jobs: Sequence[JobView],
    policy: RetryPolicy,
    now: datetime,
    *,
    stored_done: Collection[str] = (),
    pod_problems: Sequence[PodProblem] = (),
) -> TrialDecision:
    """Decide the Jobs to create and delete, and count the trials (see the module doc)."""
    planned = {t.id for t in trials}
    by_trial: dict[str, list[JobView]] = defaultdict(list)
    for job in jobs:
        by_trial[job.trial_id].append(job)
    decision = TrialDecision()
    decision.delete.extend(
        sorted(j.name for j in jobs if j.trial_id not in planned and j.state == "active")
    )
    counts = decision.counts
    counts.planned = len(trials)
    candidates: list[tuple[Trial, int]] = []
    waits: list[float] = []
    running_ids: set[str] = set()
    for trial in trials:
        history = sorted(by_trial.get(trial.id, []), key=lambda j: j.attempt)
        latest = history[-1] if history else None
        counts.retried += max(0, latest.attempt - 1) if latest else 0
        if trial.id in stored_done or any(j.state == "succeeded" for j in history):
            counts.done += 1
        elif latest is None:
            candidates.append((trial, 1))
        elif latest.state == "active":
            counts.running += 1
            running_ids.add(trial.id)
        elif latest.attempt > policy.max_retries:
            counts.failed += 1
            reason = latest.reason + (f": {latest.message}" if latest.message else "")
            decision.failures.append(f"{_describe(trial)}: {reason or 'failed'}")
        else:
            ready = (  # an unknown failure time (no condition timestamp): retry now
                latest.finished_at + timedelta(seconds=policy.backoff(latest.attempt))
                if latest.finished_at is not None
                else now
            )
            if ready <= now:
                candidates.append((trial, latest.attempt + 1))
            else:
                waits.append((ready - now).total_seconds())
    free = max(0, policy.parallelism - counts.running)
    decision.create.extend(candidates[:free])
    counts.running += len(decision.create)
    counts.retried += sum(1 for _, attempt in decision.create if attempt > 1)
    decision.finished = counts.done + counts.failed == counts.planned
    if waits:
        decision.requeue_after = min(waits)
    decision.problems.extend(p for p in pod_problems if p.trial_id in running_ids)
    return decision


RETRY_SECONDS = 5.0
"""How soon a passing problem (a store outage, an API error) is retried."""

_REQUEUE_SLACK = 0.05
"""Looked at again this long after a retry's backoff ends, so the retry is due by then."""


def wait_after_problem(permanent: bool, idle_interval: float) -> float:
    """Seconds until a rollout that could not be planned is looked at again.

    A permanent problem waits for a spec edit (which kicks the rollout anyway): the
    idle interval; a passing one is retried soon.
    """
    return idle_interval if permanent else RETRY_SECONDS


def wait_after_reconcile(
    phase: str, requeue_after: float | None, *, interval: float, idle_interval: float
) -> float:
    """Seconds until a planned rollout is looked at again.

    The interval; at least the idle interval once the rollout ``Succeeded`` or
    ``Failed``; at most until a waiting retry's backoff has passed.
    """
    wait = interval
    if phase in ("Succeeded", "Failed"):
        wait = max(wait, idle_interval)
    if requeue_after is not None:
        wait = min(wait, requeue_after + _REQUEUE_SLACK)
    return wait
