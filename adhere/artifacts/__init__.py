"""What a rollout leaves in its store: the layout, typed records and their readers.

:class:`RolloutStore` is the one definition of where each artifact of a rollout lives
(spec snapshot, instances, per-trial call log, trajectory, result, verdicts, attempt
archives, judge calls, progress); report, exporter, operator and command line read
results only through it and the readers here (:func:`open_rollout_dir`,
:func:`find_trial`). The backends themselves (``file://``, ``s3://``) are
:mod:`adhere.store`. The layout is drawn in :mod:`adhere.artifacts._layout`;
the exporter's change-aware reading is :class:`CachedReader`.
"""

from adhere.artifacts._cache import StoreVerdictCache
from adhere.artifacts._calls import CALL_RECORD_FORMAT, ProxyCall
from adhere.artifacts._instances import decode_instances, encode_instances
from adhere.artifacts._layout import (
    FEEDBACK,
    INSTANCES,
    RESULT,
    SPECS,
    feedback_run_name,
    safe_segment,
)
from adhere.artifacts._readers import find_trial, open_rollout, open_rollout_dir
from adhere.artifacts._records import JudgeCallRecord, Phase, RunProgress
from adhere.artifacts._rollout_store import RolloutStore, StoredTrial, write_benchmark_instances
from adhere.artifacts._scan import CachedReader, TrialDir
from adhere.artifacts._telemetry import (
    append_judge_calls,
    read_judge_calls,
    read_progress,
    write_progress,
)

__all__ = [
    "CALL_RECORD_FORMAT",
    "CachedReader",
    "FEEDBACK",
    "INSTANCES",
    "JudgeCallRecord",
    "Phase",
    "ProxyCall",
    "RESULT",
    "RolloutStore",
    "RunProgress",
    "SPECS",
    "StoreVerdictCache",
    "StoredTrial",
    "TrialDir",
    "append_judge_calls",
    "decode_instances",
    "encode_instances",
    "feedback_run_name",
    "find_trial",
    "open_rollout",
    "open_rollout_dir",
    "read_judge_calls",
    "read_progress",
    "safe_segment",
    "write_benchmark_instances",
    "write_progress",
]
