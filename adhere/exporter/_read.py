"""Reading a store's rollouts for the exporter, re-parsing only what changed.

One :class:`StoreReader` per store assembles each rollout's data from the files
:class:`adhere.artifacts.CachedReader` reads; that reader keeps decoded files between
refreshes and decodes a file again only when it changed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adhere.artifacts import CachedReader, JudgeCallRecord, StoredTrial, TrialDir
from adhere.core import Instance, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.metrics import ScoredTrial
from adhere.report import scored_trial
from adhere.store import Store

__all__ = ["AttemptFacts", "CallFacts", "RolloutData", "StoreReader", "TrialFacts", "call_reason"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallFacts:
    """One proxied model call: its outcome class and duration."""

    reason: str
    """``ok`` or the error class (see :func:`call_reason`)."""
    seconds: float


@dataclass(frozen=True)
class AttemptFacts:
    """One attempt of a trial: its result record and its calls."""

    result: TrialResult
    calls: tuple[CallFacts, ...]


@dataclass(frozen=True)
class TrialFacts:
    """A trial's latest attempt with its scored verdicts and per-judge verdicts."""

    attempt: AttemptFacts
    scored: ScoredTrial
    judged: dict[str, list[Verdict]]


@dataclass
class RolloutData:
    """Everything the exporter computes a rollout's metrics from."""

    name: str
    benchmark: str = ""
    suite: str = ""
    baseline: str | None = None
    model_ids: dict[str, str] = field(default_factory=dict)
    """Model name → the endpoint's model id (for prices)."""
    judge_ids: dict[str, str] = field(default_factory=dict)
    """Judge name → the endpoint's model id."""
    planned: int = 0
    running: int = 0
    instances: dict[str, Instance] = field(default_factory=dict)
    trials: list[TrialFacts] = field(default_factory=list)
    archived: list[AttemptFacts] = field(default_factory=list)
    """Earlier failed attempts (moved aside before a retry)."""
    judge_calls: list[JudgeCallRecord] = field(default_factory=list)
    stale: int = 0
    """Finished trials of instances the rollout's benchmark no longer holds (left out)."""
    last_activity: float | None = None
    """Unix time of the latest finished trial or progress update."""


def call_reason(record: dict[str, Any]) -> str:
    """How a recorded call ended: ``ok`` or the class of its error.

    Classes: ``transport`` (no HTTP status: unreachable, timed out), ``http_429``,
    ``http_4xx``, ``http_5xx``, ``stream`` (a 2xx whose body was cut or carried an
    error) and ``http_other``.
    """
    status, error = record.get("status"), record.get("error")
    if not isinstance(status, int):
        return "transport" if error or status is None else "http_other"
    if 200 <= status < 300:
        return "stream" if error else "ok"
    if status == 429:
        return "http_429"
    if 400 <= status < 500:
        return "http_4xx"
    if status >= 500:
        return "http_5xx"
    return "http_other"


def _timestamp(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


class StoreReader:
    """Reads a store's rollouts; keeps decoded files until they change."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._files = CachedReader(store)

    def rollouts(self) -> list[str]:
        """Names of the rollouts in the store (directories holding ``instances.jsonl``)."""
        return self._files.rollouts()

    def read(self, name: str) -> RolloutData:
        """One rollout's data."""
        data = RolloutData(name=name)
        self._specs(data)
        data.instances = self._files.instances(name)
        repeats_models = data.planned  # models × scaffolds × repeats from the specs
        data.planned = repeats_models * len(data.instances)
        progress = self._files.progress(name)
        if progress is not None:
            planned = progress.get("planned")
            if isinstance(planned, int) and planned > 0:
                data.planned = planned
            running = progress.get("running")
            if isinstance(running, int):
                data.running = running
            data.last_activity = _timestamp(progress.get("updated_at"))
        data.judge_calls = self._files.judge_calls(name)
        self._trials(data)
        return data

    def forget_unseen(self) -> None:
        """Drop cached files not read since the last call (deleted or moved)."""
        self._files.forget_unseen()

    def _specs(self, data: RolloutData) -> None:
        documents = self._files.specs(data.name)
        multiplier = 0
        for doc in documents:
            kind, spec = doc.get("kind"), doc.get("spec") or {}
            if kind == "Rollout":
                models = spec.get("models") or []
                data.model_ids = {
                    str(m.get("name")): str((m.get("endpoint") or {}).get("model", ""))
                    for m in models
                    if isinstance(m, dict)
                }
                scaffolds = spec.get("scaffolds") or ["chat"]
                repeats = spec.get("repeats") or 1
                multiplier = len(models) * len(scaffolds) * int(repeats)
                data.benchmark = str(spec.get("benchmark") or "")
                baseline = spec.get("baseline")
                data.baseline = str(baseline) if baseline else None
            elif kind == "JudgePanel":
                data.judge_ids = {
                    str(j.get("name")): str((j.get("endpoint") or {}).get("model", ""))
                    for j in spec.get("judges") or []
                    if isinstance(j, dict)
                }
        data.planned = multiplier

    def _trials(self, data: RolloutData) -> None:
        suites = sorted({i.suite for i in data.instances.values()})
        data.suite = ", ".join(suites)
        latest = data.last_activity
        for trial_dir in self._files.trial_dirs(data.name):
            if not trial_dir.finished:
                continue  # in progress, or an attempt moved aside half-way
            facts = self._attempt(trial_dir)
            if facts is None:
                continue
            finished = _timestamp(facts.result.finished_at)
            if finished is not None and (latest is None or finished > latest):
                latest = finished
            if trial_dir.archived:
                data.archived.append(facts)
            elif data.instances and facts.result.trial.instance not in data.instances:
                data.stale += 1  # an earlier config's instance: not in this rollout's rates
            else:
                data.trials.append(self._trial(trial_dir, facts, data))
        data.last_activity = latest

    def _attempt(self, trial_dir: TrialDir) -> AttemptFacts | None:
        try:
            result = self._files.result(trial_dir)
        except (StoreError, ValueError) as exc:
            log.warning("exporter: skipping the attempt at %s: %s", trial_dir.prefix, exc)
            return None
        calls = self._files.calls(trial_dir, result, _calls) or ()
        return AttemptFacts(result=result, calls=calls)

    def _trial(self, trial_dir: TrialDir, facts: AttemptFacts, data: RolloutData) -> TrialFacts:
        verdicts = self._files.verdicts(trial_dir)
        scored, _conflict = scored_trial(StoredTrial(facts.result, verdicts), data.instances)
        judged: dict[str, list[Verdict]] = {}
        if facts.result.status == "ok":
            raw = self._files.judge_verdicts(trial_dir)
            kept = {v.check_id for v in scored.verdicts}
            judged = {name: [v for v in found if v.check_id in kept] for name, found in raw.items()}
            judged = {name: found for name, found in judged.items() if found}
        return TrialFacts(attempt=facts, scored=scored, judged=judged)


def _calls(records: list[dict[str, Any]]) -> tuple[CallFacts, ...]:
    out = []
    for record in records:
        seconds = record.get("duration_seconds")
        out.append(
            CallFacts(
                reason=call_reason(record),
                seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
            )
        )
    return tuple(out)
