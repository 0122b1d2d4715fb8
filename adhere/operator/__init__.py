"""The Kubernetes operator: kopf handlers (thin) over pure reconcile functions.

It reconciles the three custom resources of ``adhere.dev/v1alpha1``: a Benchmark is
validated and its instances resolved into the store; a JudgePanel is validated and
its Secrets checked; a Rollout is planned into trials, each run by one batch/v1 Job
(the scaffold's image running ``adhere trial run``, or the instance's own image with the
agent injected when the instance names one; the recording proxy as a
sidecar), retried up to ``spec.maxRetries``, and scored when every trial finished.
An edge package: kopf and the Kubernetes client are imported only here, and the
pure modules (``_reconcile``, ``_status``, ``_jobs``, ``_instance_env``, ``_rayjob``, ``_observe``,
``_validate``, ``_config``, ``_names``) import neither (an import-linter contract).
"""

from adhere.operator._config import OperatorConfig, Resources, load_operator_config
from adhere.operator._jobs import RolloutRef, build_job
from adhere.operator._main import run_operator
from adhere.operator._observe import JobView, PodProblem, job_view, pod_problem
from adhere.operator._rayjob import build_rayjob, rayjob_state
from adhere.operator._reconcile import RetryPolicy, TrialDecision, reconcile_trials
from adhere.operator._sidecar import uses_sidecar
from adhere.operator._status import (
    PlanProblem,
    ScoringView,
    benchmark_status,
    judge_panel_status,
    rollout_status,
    scoring_view,
)

__all__ = [
    "JobView",
    "OperatorConfig",
    "PlanProblem",
    "PodProblem",
    "Resources",
    "RetryPolicy",
    "RolloutRef",
    "ScoringView",
    "TrialDecision",
    "benchmark_status",
    "build_job",
    "build_rayjob",
    "job_view",
    "judge_panel_status",
    "load_operator_config",
    "pod_problem",
    "rayjob_state",
    "reconcile_trials",
    "rollout_status",
    "run_operator",
    "scoring_view",
    "uses_sidecar",
]
