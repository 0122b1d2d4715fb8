"""The local runner: plan a Rollout into trials, run them resumably, record everything."""

from adhere.runner._engine import (
    Engine,
    ModelTarget,
    NoProgress,
    Progress,
    RunSummary,
    error_verdicts,
)
from adhere.runner._pairing import Pairing, describe_pairings, pairings
from adhere.runner._plan import apply_filters, plan_trials
from adhere.runner._rescore import rescore
from adhere.runner._run import (
    Prepared,
    ProxyCalls,
    execute,
    judge_endpoints,
    prepare,
    resolve_scaffolds,
    rollout_scaffolds,
    run_services,
    suite_lookup,
)
from adhere.runner._trial import (
    open_rollout_uri,
    prepare_rollout,
    run_stored_trial,
    score_stored,
    stored_config,
)
from adhere.runner._workspace import default_work_root

__all__ = [
    "Engine",
    "ModelTarget",
    "NoProgress",
    "Pairing",
    "Prepared",
    "Progress",
    "ProxyCalls",
    "RunSummary",
    "apply_filters",
    "default_work_root",
    "describe_pairings",
    "error_verdicts",
    "execute",
    "judge_endpoints",
    "open_rollout_uri",
    "pairings",
    "plan_trials",
    "prepare",
    "prepare_rollout",
    "rescore",
    "resolve_scaffolds",
    "rollout_scaffolds",
    "run_services",
    "run_stored_trial",
    "score_stored",
    "stored_config",
    "suite_lookup",
]
