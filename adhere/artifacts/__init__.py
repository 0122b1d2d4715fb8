"""What a rollout leaves in its store: the layout, typed records and their readers.

:class:`RolloutStore` is the one definition of where each artifact of a rollout lives
(spec snapshot, instances, per-trial call log, trajectory, result, verdicts, attempt
archives, judge calls, progress); report, exporter, operator and command line read
results only through it and the readers here (:func:`open_rollout_dir`,
:func:`find_trial`). The backends themselves (``file://``, ``s3://``) are
:mod:`adhere.store`.
"""

from adhere.artifacts._cache import StoreVerdictCache
from adhere.artifacts._layout import RolloutStore, StoredTrial, safe_segment
from adhere.artifacts._readers import find_trial, open_rollout_dir
from adhere.artifacts._telemetry import JUDGE_CALLS, PROGRESS, append_judge_calls

__all__ = [
    "JUDGE_CALLS",
    "PROGRESS",
    "RolloutStore",
    "StoreVerdictCache",
    "StoredTrial",
    "append_judge_calls",
    "find_trial",
    "open_rollout_dir",
    "safe_segment",
]
