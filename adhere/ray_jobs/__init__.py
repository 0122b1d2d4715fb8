"""Scoring on Ray: verification and judging fanned out to actor pools.

:func:`score_rollout_on_ray` runs the in-process scoring pass's pure steps in
actors — a pool of verification actors (suite checks, deterministic verifiers), a
pool of judge actors (the JudgePanel, each with its own model clients), and one
limiter actor per judge endpoint (``adhere-limiter-<hash>``) that every judge actor
takes a lease from before each model call — on a local Ray (the embedded default)
or a cluster. Verdicts are identical to the in-process pass; the driver keeps the
store and the verdict cache.
"""

from adhere.ray_jobs._limiter import LeaseLimiter, RemoteLimiter, limiter_name
from adhere.ray_jobs._score import RayScoreSummary, ray_scorer, score_rollout_on_ray
from adhere.ray_jobs._session import LOCAL, ray_session

__all__ = [
    "LOCAL",
    "LeaseLimiter",
    "RayScoreSummary",
    "RemoteLimiter",
    "limiter_name",
    "ray_scorer",
    "ray_session",
    "score_rollout_on_ray",
]
