"""Artifacts."""

from adhere.artifacts._cache import StoreVerdictCache
from adhere.artifacts._calls import ProxyCall
from adhere.artifacts._layout import RolloutStore, StoredTrial, safe_segment
from adhere.artifacts._readers import find_trial, open_rollout_dir
from adhere.artifacts._telemetry import JUDGE_CALLS, PROGRESS, append_judge_calls

__all__ = [
    "JUDGE_CALLS",
    "PROGRESS",
    "ProxyCall",
    "RolloutStore",
    "StoreVerdictCache",
    "StoredTrial",
    "append_judge_calls",
    "find_trial",
    "open_rollout_dir",
    "safe_segment",
]
