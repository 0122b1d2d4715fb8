"""The status of each resource, computed from what was observed (pure).

Status stays small: phase, conditions, counts, headline ISR/CSR, the artifacts URI
and ``observedGeneration``. Whole results live in the store.

Rollout conditions (every one is always present, so ``kubectl wait`` works):

==============  ==========================================================================
``Planned``     trials planned from the spec (False: ``InvalidSpec``, ``BenchmarkNotFound``,
                ``BenchmarkInvalid``, ``JudgePanelNotFound``, ``JudgePanelInvalid``,
                ``SecretNotFound``, ``StoreUnavailable``)
``Running``     trial Jobs are running (False: ``NotStarted`` or ``TrialsFinished``)
``Schedulable`` trial pods can be scheduled and started (False: ``Unschedulable``,
                ``ImagePullBackOff``, ``ErrImagePull``, ``CreateContainerConfigError`` …)
``Scoring``     the scoring pass runs (reason ``InProcess``, ``RayJob`` or ``RayCluster``)
``Succeeded``   scored (``Completed``, or ``CompletedWithTrialErrors`` when some trials
                failed for good: they count as not passed)
``Failed``      ``InvalidSpec``, ``BenchmarkInvalid``, ``JudgePanelInvalid``,
                ``AllTrialsFailed``, ``ScoringFailed``
==============  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from adhere.operator._reconcile import TrialDecision
from adhere.spec import (
    BenchmarkStatus,
    Condition,
    JudgePanelStatus,
    RolloutStatus,
    Summary,
    TrialCounts,
)

ROLLOUT_CONDITIONS = ("Planned", "Running", "Schedulable", "Scoring", "Succeeded", "Failed")
PERMANENT_REASONS = frozenset({"InvalidSpec", "BenchmarkInvalid", "JudgePanelInvalid"})
"""Planning failures that wait for a spec edit; the others are retried."""


@dataclass(frozen=True)
class PlanProblem:
    """Why a rollout could not be planned."""

    reason: str
    message: str

    @property
    def permanent(self) -> bool:
        """Whether only an edit of a spec can fix it."""
        return self.reason in PERMANENT_REASONS


def keeps_plan(problem: PlanProblem | None) -> bool:
    """Whether a planning outcome is kept until a spec changes.

    A plan, or a permanent problem (only a spec edit fixes it, and an edit changes
    the plan's key); a passing problem is planned again on the next look.
    """
    return problem is None or problem.permanent


@dataclass(frozen=True)
class ScoringView:
    """Where the scoring pass of the current plan stands.

    Attributes:
        state: ``none`` (not started), ``running``, ``succeeded`` or ``failed``.
        mode: ``InProcess``, ``RayJob`` or ``RayCluster``.
        summary: ISR/CSR once succeeded.
        message: A failure's message, or a note on the pass.
    """

    state: Literal["none", "running", "succeeded", "failed"] = "none"
    mode: str = ""
    summary: Summary | None = None
    message: str = ""


def previous_status(model: type[Any], raw: Any) -> Any:
    """Parse a resource's stored status leniently (unknown or broken: a fresh status)."""
    if isinstance(raw, Mapping):
        known = {k: v for k, v in raw.items() if k in _aliases(model)}
        try:
            return model.model_validate(known)
        except ValidationError:
            pass
    return model()


def _aliases(model: type[Any]) -> set[str]:
    fields = model.model_fields
    return {*fields, *(f.alias for f in fields.values() if f.alias)}


def condition(
    kind: str,
    ok: bool,
    reason: str,
    message: str,
    previous: Sequence[Condition],
    now: str,
) -> Condition:
    """A condition; its transition time is kept while its status does not change."""
    status: Literal["True", "False"] = "True" if ok else "False"
    before = next((c for c in previous if c.type == kind), None)
    since = before.last_transition_time if before and before.status == status else None
    return Condition(
        type=kind, status=status, reason=reason, message=message, last_transition_time=since or now
    )


def scoring_view(
    recorded: ScoringView | None,
    recorded_plan: str | None,
    plan_id: str,
    previous: RolloutStatus,
    generation: int | None,
) -> ScoringView:
    """The scoring state of ``plan_id``: from this process's record, else from the status.

    After a restart the operator has no record; a status that already says
    ``Succeeded`` for this generation means the plan was scored, so it is not
    scored again.
    """
    if recorded is not None and recorded_plan == plan_id:
        return recorded
    if (
        recorded is None
        and previous.phase == "Succeeded"
        and previous.observed_generation == generation
    ):
        return ScoringView("succeeded", "", previous.summary, "scored before a restart")
    return ScoringView()


def _progress(counts: TrialCounts) -> str:
    text = (
        f"{counts.done} done, {counts.running} running, {counts.failed} failed of {counts.planned}"
    )
    return text + (f" ({counts.retried} retries)" if counts.retried else "")


def _problem_text(decision: TrialDecision) -> tuple[str, str]:
    first = decision.problems[0]
    more = len(decision.problems) - 1
    extra = f" (and {more} more pod{'s' if more > 1 else ''})" if more else ""
    return first.reason, f"pod {first.pod}: {first.message}{extra}"[:1000]


def rollout_status(
    previous: RolloutStatus,
    *,
    generation: int | None,
    now: str,
    problem: PlanProblem | None = None,
    decision: TrialDecision | None = None,
    plan_note: str = "",
    scoring: ScoringView | None = None,
    artifacts: str | None = None,
) -> RolloutStatus:
    """The Rollout's status after a reconcile.

    Args:
        previous: The status before (transition times and last scores are kept).
        generation: ``metadata.generation`` the reconcile saw.
        now: RFC 3339 time of this reconcile.
        problem: Why planning failed (then ``decision`` is None).
        decision: What :func:`reconcile_trials` decided.
        plan_note: ``Planned`` condition message (e.g. the shape of the sweep).
        scoring: The scoring state of the current plan.
        artifacts: URI of the rollout's artifacts.
    """
    before = previous.conditions
    scoring = scoring or ScoringView()
    counts = decision.counts if decision is not None else previous.trials
    summary = scoring.summary if scoring.state == "succeeded" and scoring.summary else None

    def cond(kind: str, ok: bool, reason: str, message: str = "") -> Condition:
        return condition(kind, ok, reason, message, before, now)

    if problem is not None:
        phase: Any = "Failed" if problem.permanent else "Pending"
        conditions = [
            cond("Planned", False, problem.reason, problem.message),
            cond("Running", False, "NotStarted"),
            cond("Schedulable", True, "NoPods"),
            cond("Scoring", False, "NotStarted"),
            cond("Succeeded", False, "NotPlanned"),
            cond(
                "Failed",
                problem.permanent,
                problem.reason if problem.permanent else "NoFailure",
                problem.message if problem.permanent else "",
            ),
        ]
    else:
        assert decision is not None
        finished = decision.finished
        all_failed = finished and counts.done == 0
        if not finished:
            started = counts.running + counts.done + counts.failed > 0
            phase = "Running" if started else "Planned"
            running = cond(
                "Running", started, "TrialsRunning" if started else "NotStarted", _progress(counts)
            )
        else:
            running = cond("Running", False, "TrialsFinished", _progress(counts))
        if decision.problems:
            reason, message = _problem_text(decision)
            schedulable = cond("Schedulable", False, reason, message)
        else:
            schedulable = cond("Schedulable", True, "PodsStarting" if counts.running else "NoPods")
        succeeded = cond("Succeeded", False, "InProgress")
        failed = cond("Failed", False, "NoFailure")
        scoring_cond = cond("Scoring", False, "NotStarted")
        if all_failed:
            phase = "Failed"
            failed = cond("Failed", True, "AllTrialsFailed", "; ".join(decision.failures[:3]))
        elif finished:
            if scoring.state in ("none", "running"):
                phase = "Scoring"
                scoring_cond = cond("Scoring", True, scoring.mode or "Pending", scoring.message)
            elif scoring.state == "failed":
                phase = "Failed"
                scoring_cond = cond("Scoring", False, "ScoringFailed", scoring.message)
                failed = cond("Failed", True, "ScoringFailed", scoring.message)
            else:
                phase = "Succeeded"
                scoring_cond = cond("Scoring", False, "ScoringDone", scoring.message)
                if counts.failed:
                    note = (
                        f"{counts.failed} of {counts.planned} trials failed after their "
                        f"retries and count as not passed: " + "; ".join(decision.failures[:3])
                    )
                    succeeded = cond("Succeeded", True, "CompletedWithTrialErrors", note[:1000])
                else:
                    succeeded = cond("Succeeded", True, "Completed", _progress(counts))
        conditions = [
            cond("Planned", True, "Planned", plan_note),
            running,
            schedulable,
            scoring_cond,
            succeeded,
            failed,
        ]
    return RolloutStatus(
        phase=phase,
        conditions=conditions,
        trials=counts,
        summary=summary or previous.summary,
        artifacts=artifacts or previous.artifacts,
        observed_generation=generation,
    )


def benchmark_status(
    previous: BenchmarkStatus,
    *,
    generation: int | None,
    now: str,
    problem: PlanProblem | None = None,
    instances: int = 0,
    checks: int = 0,
    stored: str | None = None,
) -> BenchmarkStatus:
    """A Benchmark's status: valid and resolved (with counts), or why not."""
    before = previous.conditions
    if problem is not None:
        return BenchmarkStatus(
            phase="Failed" if problem.permanent else "Pending",
            instances=previous.instances,
            checks=previous.checks,
            conditions=[
                condition(
                    "Valid",
                    not problem.permanent,
                    "Valid" if not problem.permanent else problem.reason,
                    "" if not problem.permanent else problem.message,
                    before,
                    now,
                ),
                condition("Resolved", False, problem.reason, problem.message, before, now),
            ],
            observed_generation=generation,
        )
    where = f"; stored at {stored}" if stored else "; not stored (the operator has no storeUri)"
    return BenchmarkStatus(
        phase="Succeeded",
        instances=instances,
        checks=checks,
        conditions=[
            condition("Valid", True, "Valid", "", before, now),
            condition(
                "Resolved",
                True,
                "Resolved",
                f"{instances} instances, {checks} checks{where}",
                before,
                now,
            ),
        ],
        observed_generation=generation,
    )


def judge_panel_status(
    previous: JudgePanelStatus,
    *,
    generation: int | None,
    now: str,
    problem: PlanProblem | None = None,
    missing: Sequence[str] = (),
) -> JudgePanelStatus:
    """A JudgePanel's status: valid, and every referenced Secret key found."""
    before = previous.conditions
    if problem is not None:
        return JudgePanelStatus(
            phase="Failed",
            conditions=[
                condition("Valid", False, problem.reason, problem.message, before, now),
                condition("SecretsFound", False, "NotChecked", "", before, now),
            ],
            observed_generation=generation,
        )
    if missing:
        return JudgePanelStatus(
            phase="Pending",
            conditions=[
                condition("Valid", True, "Valid", "", before, now),
                condition(
                    "SecretsFound", False, "SecretNotFound", "; ".join(missing)[:1000], before, now
                ),
            ],
            observed_generation=generation,
        )
    return JudgePanelStatus(
        phase="Succeeded",
        conditions=[
            condition("Valid", True, "Valid", "", before, now),
            condition("SecretsFound", True, "SecretsFound", "", before, now),
        ],
        observed_generation=generation,
    )


def status_patch(status: Any) -> dict[str, Any]:
    """A status model as the JSON the API takes (camelCase)."""
    data: dict[str, Any] = status.model_dump(mode="json", by_alias=True)
    return data


def status_changed(current: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether patching ``new`` would change the stored status ``current``.

    Only the keys of ``new`` count: the API server may hold keys the patch leaves alone.
    """
    return any(current.get(key) != value for key, value in new.items())
