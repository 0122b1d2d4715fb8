"""Scoring."""

from adhere.scoring._evidence import gather_evidence
from adhere.scoring._score import (
    DecidedChecks,
    JudgeAsks,
    Scorer,
    ScoreSummary,
    decide_checks,
    judge_checks,
    ok_trials,
    record_trial,
    score_rollout,
    score_trial,
)

__all__ = [
    "DecidedChecks",
    "JudgeAsks",
    "ScoreSummary",
    "Scorer",
    "decide_checks",
    "gather_evidence",
    "judge_checks",
    "ok_trials",
    "record_trial",
    "score_rollout",
    "score_trial",
]
