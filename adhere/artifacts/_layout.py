"""The store layout: the one place that names every artifact a run leaves behind.

::

    <store>/
      _cache/verdicts/<key[:2]>/<key>.json   judge verdicts by content hash, shared by
                                             every rollout of the store (StoreVerdictCache)
      _benchmarks/<namespace>/<name>/
        instances.jsonl                      a Benchmark's instances as the operator resolved them
      <rollout>/
        rollout.yaml                         the Rollout, Benchmark (and JudgePanel) specs as run
        instances.jsonl                      the resolved instances, one a line under the
                                             documented names (adhere.artifacts._instances)
        progress.json                        the latest run's counts (RunProgress)
        judge_calls.jsonl                    one JudgeCallRecord per judge call of every
                                             scoring pass (appended)
        report/                              report.md, report.html, *.svg (``adhere report``);
                                             feedback.md (``adhere feedback``)
        trials/<model>/<scaffold>/<instance>/r<repeat>/
          calls.jsonl                        raw model calls as the recording proxy saw them,
                                             one record a line (secrets redacted before writing)
          trajectory.json                    normalized Trajectory with instruction-source tags
          scaffold.json                      the scaffold's per-turn exit codes, output tails, files
          verdicts.json                      list of Verdict, one per decided check
          judge_verdicts.json                judge name → that judge's verdicts
          conflict_verdicts.json             conflict instances: judge name → [its attribution]
          feedback.json                      (corrected runs) what was fed back to the agent
          result.json                        TrialResult — written last: its presence means
                                             "finished"
          interrupted.json                   (a stopped run) the attempt cut short; calls.jsonl
                                             then holds the calls it had made
          attempt-<n>/                       earlier attempts (failed, interrupted or killed),
                                             moved aside before the next; never overwritten
      <rollout>-feedback/ (-feedback-prepend, -feedback-turn, -rerun)
                                             corrected runs of ``adhere feedback``: rollouts of
                                             their own with the same layout

A trial is done when ``result.json`` exists with status ``ok``; a re-run skips it.
Trials that ended in ``error`` are retried by the next run, keeping the failed
attempt's files under ``attempt-<n>/``. Path segments are :func:`safe_segment` of the
names they stand for. :class:`~adhere.artifacts._rollout_store.RolloutStore` reads
and writes them.
"""

from __future__ import annotations

import hashlib
import re

# Rollout-level names.
SPECS = "rollout.yaml"
INSTANCES = "instances.jsonl"
PROGRESS = "progress.json"
JUDGE_CALLS = "judge_calls.jsonl"
REPORT = "report"
TRIALS = "trials"
# Trial-level names.
CALLS = "calls.jsonl"
TRAJECTORY = "trajectory.json"
SCAFFOLD = "scaffold.json"
VERDICTS = "verdicts.json"
JUDGE_VERDICTS = "judge_verdicts.json"
CONFLICT_VERDICTS = "conflict_verdicts.json"
FEEDBACK = "feedback.json"
RESULT = "result.json"
INTERRUPTED = "interrupted.json"
ATTEMPT = "attempt-"
"""Prefix of an archived attempt's directory: ``attempt-<n>``."""
# Store-level names.
VERDICT_CACHE = "_cache/verdicts"
BENCHMARKS = "_benchmarks"
FEEDBACK_RUNS = {
    "append": "feedback",
    "prepend": "feedback-prepend",
    "new-turn": "feedback-turn",
    "none": "rerun",
}
"""Feedback placement → suffix of the corrected run's name (``<rollout>-<suffix>``)."""

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_segment(name: str) -> str:
    """A path segment for ``name``: unchanged when already safe, else cleaned plus a hash."""
    cleaned = _SAFE.sub("_", name).strip(".") or "_"
    if cleaned == name and len(name) <= 120:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[:100]}-{digest}"


def attempt_dir(attempt: int) -> str:
    """Directory name of an archived attempt (``attempt-<n>``)."""
    return f"{ATTEMPT}{attempt}"


def feedback_run_name(rollout: str, placement: str) -> str:
    """Default name of a corrected run of ``rollout`` (see :data:`FEEDBACK_RUNS`)."""
    return f"{rollout}-{FEEDBACK_RUNS[placement]}"
