"""Scoring a rollout's finished trials: decide → verify → judge → record.

For each finished trial: the suite decides its own checks (with evidence fulfilled
at the edge: sandboxed code runs, batched Ruff — :func:`gather_evidence`),
deterministic verifiers decide the bound checks, the judge panel decides the rest
(cached by content), and the verdicts are recorded in the store. For a conflict
instance the panel also says which side the run followed (:func:`judge_conflict_trial`).
:func:`score_rollout` is the one in-process scorer; the Ray actors
(:mod:`adhere.ray_jobs`) call the same pieces (:func:`decide_checks`,
:func:`judge_checks`, :func:`record_trial`), so both paths give identical verdicts.
"""

from adhere.scoring._conflict import conflict_question, judge_conflict_trial
from adhere.scoring._evidence import (
    gather_evidence,
    register_environment,
    sandbox_environments,
    sandbox_evidence,
    wants_evidence,
)
from adhere.scoring._judge_asks import JudgeAsks
from adhere.scoring._judge_calls import judge_call_log
from adhere.scoring._model_ask import ask_cache_key
from adhere.scoring._score import (
    DecidedChecks,
    Scorer,
    ScoreSummary,
    count_attributions,
    decide_checks,
    judge_checks,
    ok_trials,
    record_trial,
    score_rollout,
    score_trial,
)

__all__ = [
    "ask_cache_key",
    "conflict_question",
    "count_attributions",
    "judge_conflict_trial",
    "DecidedChecks",
    "JudgeAsks",
    "ScoreSummary",
    "Scorer",
    "decide_checks",
    "gather_evidence",
    "judge_call_log",
    "judge_checks",
    "ok_trials",
    "record_trial",
    "register_environment",
    "sandbox_environments",
    "sandbox_evidence",
    "score_rollout",
    "score_trial",
    "wants_evidence",
]
