"""The local runner: plan a Rollout into trials, run them resumably, record everything."""

from adhere.runner._check import (
    Checked,
    check_benchmark,
    check_panel,
    check_run,
    plan_rollout,
    rollout_scaffolds,
    suite_lookup,
)
from adhere.runner._engine import Engine, ModelTarget, error_verdicts
from adhere.runner._estimate import (
    ModelEstimate,
    describe_estimates,
    estimate_plan,
    estimate_tokens,
    load_prices,
)
from adhere.runner._narrow import narrow
from adhere.runner._pairing import Pairing, describe_pairings, pairings
from adhere.runner._plan import (
    PlannedScaffold,
    Skipped,
    TrialPlan,
    apply_filters,
    image_only_problem,
    plan_trials,
)
from adhere.runner._plan_text import describe_plan, plan_summary
from adhere.runner._preflight import endpoint_probes, preflight
from adhere.runner._rescore import rescore
from adhere.runner._run import (
    Prepared,
    ProxyCalls,
    check_sandbox,
    execute,
    judge_endpoints,
    prepare,
    run_services,
    sandbox_limits,
    unconfined,
)
from adhere.runner._signals import STOP_SIGNALS, Interrupted, run_interruptible
from adhere.runner._spool import Spool, stage_trial
from adhere.runner._spooled_run import NOT_STORED, run_spooled_trial
from adhere.runner._summary import NoProgress, Progress, RunSummary
from adhere.runner._trial import (
    open_rollout_uri,
    prepare_rollout,
    run_stored_trial,
    score_stored,
    stored_config,
)
from adhere.runner._upload import UploadReport, upload_trial
from adhere.runner._validate import Validated, validate_files
from adhere.runner._workspace import copy_workspace, default_work_root

__all__ = [
    "Checked",
    "Engine",
    "Interrupted",
    "ModelEstimate",
    "ModelTarget",
    "NOT_STORED",
    "NoProgress",
    "Pairing",
    "PlannedScaffold",
    "Prepared",
    "Progress",
    "ProxyCalls",
    "RunSummary",
    "STOP_SIGNALS",
    "Skipped",
    "Spool",
    "TrialPlan",
    "UploadReport",
    "Validated",
    "apply_filters",
    "check_benchmark",
    "check_panel",
    "check_run",
    "check_sandbox",
    "copy_workspace",
    "default_work_root",
    "describe_estimates",
    "describe_pairings",
    "describe_plan",
    "endpoint_probes",
    "error_verdicts",
    "estimate_plan",
    "estimate_tokens",
    "execute",
    "image_only_problem",
    "judge_endpoints",
    "load_prices",
    "open_rollout_uri",
    "narrow",
    "pairings",
    "plan_rollout",
    "plan_summary",
    "plan_trials",
    "preflight",
    "prepare",
    "prepare_rollout",
    "rescore",
    "rollout_scaffolds",
    "run_interruptible",
    "run_services",
    "run_spooled_trial",
    "run_stored_trial",
    "sandbox_limits",
    "score_stored",
    "stage_trial",
    "stored_config",
    "suite_lookup",
    "unconfined",
    "upload_trial",
    "validate_files",
]
