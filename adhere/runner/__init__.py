"""The local runner: plan a Rollout into trials, run them resumably, record everything."""

from adhere.runner._answer_key import InstanceAnswerKey
from adhere.runner._config import RunConfig, load_run_config
from adhere.runner._engine import Engine, NoProgress, Progress, RunSummary, error_verdicts
from adhere.runner._plan import apply_filters, plan_trials
from adhere.runner._run import SCRIPTED, Prepared, execute, prepare

__all__ = [
    "SCRIPTED",
    "Engine",
    "InstanceAnswerKey",
    "NoProgress",
    "Prepared",
    "Progress",
    "RunConfig",
    "RunSummary",
    "apply_filters",
    "error_verdicts",
    "execute",
    "load_run_config",
    "plan_trials",
    "prepare",
]
