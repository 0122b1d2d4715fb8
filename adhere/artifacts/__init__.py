"""Artifacts: the one definition of the store layout, its typed records and readers.

The layout (every file a run leaves in a store) is drawn in
:mod:`adhere.artifacts._layout`; everything else reads and writes results through
the names here.
"""

from adhere.artifacts._cache import StoreVerdictCache
from adhere.artifacts._layout import (
    FEEDBACK,
    INSTANCES,
    SPECS,
    RolloutStore,
    StoredTrial,
    feedback_run_name,
    safe_segment,
    write_benchmark_instances,
)
from adhere.artifacts._readers import find_trial, open_rollout_dir
from adhere.artifacts._records import JudgeCallRecord, Phase, RunProgress
from adhere.artifacts._scan import CachedReader, TrialDir
from adhere.artifacts._telemetry import (
    append_judge_calls,
    read_judge_calls,
    read_progress,
    write_progress,
)

__all__ = [
    "CachedReader",
    "FEEDBACK",
    "INSTANCES",
    "JudgeCallRecord",
    "Phase",
    "RolloutStore",
    "RunProgress",
    "SPECS",
    "StoreVerdictCache",
    "StoredTrial",
    "TrialDir",
    "append_judge_calls",
    "feedback_run_name",
    "find_trial",
    "open_rollout_dir",
    "read_judge_calls",
    "read_progress",
    "safe_segment",
    "write_benchmark_instances",
    "write_progress",
]
