"""Reading a store's rollouts for the exporter, re-parsing only what changed.

One :class:`StoreReader` per store keeps parsed files between refreshes. A file is
parsed again only when its version changes: on a local store the version is the
file's modification time and size; on a remote store small mutable files
(``result.json``, ``verdicts.json``, …) are re-read on every refresh and the large
call logs (``calls.jsonl``) are parsed once per trial attempt — they never change
after the attempt's ``result.json`` is written.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import yaml
from pydantic import TypeAdapter

from adhere.artifacts import JUDGE_CALLS, PROGRESS, StoredTrial
from adhere.core import Instance, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.metrics import ScoredTrial
from adhere.report import scored_trial
from adhere.store import Store

__all__ = ["AttemptFacts", "CallFacts", "RolloutData", "StoreReader", "TrialFacts", "call_reason"]

log = logging.getLogger(__name__)

_VERDICTS = TypeAdapter(list[Verdict])
_ATTEMPT = re.compile(r"^attempt-\d+$")
_REPEAT = re.compile(r"^r\d+$")
T = TypeVar("T")


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
    judge_calls: list[dict[str, Any]] = field(default_factory=list)
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
    """Reads a store's rollouts; keeps parsed files until they change."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[Hashable, Any]] = {}
        self._seen: set[str] = set()

    def rollouts(self) -> list[str]:
        """Names of the rollouts in the store (directories holding ``instances.jsonl``)."""
        root = self.store.local_path("instances.jsonl")
        if root is not None:
            base = root.parent
            if not base.is_dir():
                return []
            return sorted(p.name for p in base.iterdir() if (p / "instances.jsonl").is_file())
        names = set()
        for key in self.store.list(""):
            parts = key.split("/")
            if len(parts) == 2 and parts[1] == "instances.jsonl":
                names.add(parts[0])
        return sorted(names)

    def _version(self, key: str, token: Hashable | None) -> Hashable | None:
        local = self.store.local_path(key)
        if local is not None:
            try:
                stat = local.stat()
            except OSError:
                return None
            return (stat.st_mtime_ns, stat.st_size)
        return token

    def _get(self, key: str, parse: Callable[[bytes], T], token: Hashable | None = None) -> T:
        """``parse`` of the key's bytes, from the cache when its version is unchanged."""
        self._seen.add(key)
        version = self._version(key, token)
        hit = self._cache.get(key)
        if version is not None and hit is not None and hit[0] == version:
            return hit[1]  # type: ignore[no-any-return]
        value = parse(self.store.read_bytes(key))
        if version is not None:
            self._cache[key] = (version, value)
        return value

    def _optional(
        self, key: str, parse: Callable[[bytes], T], default: T, token: Hashable | None = None
    ) -> T:
        if not self.store.exists(key):
            return default
        try:
            return self._get(key, parse, token)
        except (StoreError, ValueError) as exc:
            log.warning("exporter: skipping unreadable %s: %s", key, exc)
            return default

    def read(self, name: str) -> RolloutData:
        """One rollout's data."""
        data = RolloutData(name=name)
        self._specs(data)
        data.instances = self._get(f"{name}/instances.jsonl", _instances)
        repeats_models = data.planned  # models × scaffolds × repeats from the specs
        data.planned = repeats_models * len(data.instances)
        progress = self._optional(f"{name}/{PROGRESS}", _json, None)
        if isinstance(progress, dict):
            if isinstance(progress.get("planned"), int) and progress["planned"] > 0:
                data.planned = progress["planned"]
            if isinstance(progress.get("running"), int):
                data.running = progress["running"]
            data.last_activity = _timestamp(progress.get("updated_at"))
        data.judge_calls = self._optional(f"{name}/{JUDGE_CALLS}", _jsonl, [])
        self._trials(data)
        return data

    def forget_unseen(self) -> None:
        """Drop cached files not read since the last call (deleted or moved)."""
        for key in set(self._cache) - self._seen:
            del self._cache[key]
        self._seen = set()

    def _specs(self, data: RolloutData) -> None:
        documents: list[dict[str, Any]] = self._optional(
            f"{data.name}/rollout.yaml", _yaml_documents, []
        )
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
        dirs: dict[str, dict[str, set[str]]] = {}
        for key in self.store.list(f"{data.name}/trials"):
            head, _, file = key.rpartition("/")
            parts = head.split("/")
            attempt = ""
            if parts and _ATTEMPT.match(parts[-1]):
                attempt = parts.pop()
            if len(parts) < 2 or not _REPEAT.match(parts[-1]):
                continue
            dirs.setdefault("/".join(parts), {}).setdefault(attempt, set()).add(file)
        latest = data.last_activity
        for trial_dir, attempts in sorted(dirs.items()):
            for attempt, files in sorted(attempts.items()):
                if "result.json" not in files:
                    continue  # in progress, or an attempt moved aside half-way
                prefix = f"{trial_dir}/{attempt}/" if attempt else f"{trial_dir}/"
                facts = self._attempt(prefix, files)
                if facts is None:
                    continue
                finished = _timestamp(facts.result.finished_at)
                if finished is not None and (latest is None or finished > latest):
                    latest = finished
                if attempt:
                    data.archived.append(facts)
                else:
                    data.trials.append(self._trial(prefix, files, facts, data))
        data.last_activity = latest

    def _attempt(self, prefix: str, files: set[str]) -> AttemptFacts | None:
        try:
            result = self._get(prefix + "result.json", TrialResult.model_validate_json)
        except (StoreError, ValueError) as exc:
            log.warning("exporter: skipping %sresult.json: %s", prefix, exc)
            return None
        calls: tuple[CallFacts, ...] = ()
        if "calls.jsonl" in files:
            token = (result.attempt, result.finished_at)
            calls = self._optional(prefix + "calls.jsonl", _calls, (), token)
        return AttemptFacts(result=result, calls=calls)

    def _trial(
        self, prefix: str, files: set[str], facts: AttemptFacts, data: RolloutData
    ) -> TrialFacts:
        verdicts: list[Verdict] = []
        if "verdicts.json" in files:
            verdicts = self._optional(prefix + "verdicts.json", _VERDICTS.validate_json, [])
        scored, _conflict = scored_trial(StoredTrial(facts.result, verdicts), data.instances)
        judged: dict[str, list[Verdict]] = {}
        if "judge_verdicts.json" in files and facts.result.status == "ok":
            raw: dict[str, list[Verdict]] = self._optional(
                prefix + "judge_verdicts.json", _judged, {}
            )
            kept = {v.check_id for v in scored.verdicts}
            judged = {name: [v for v in found if v.check_id in kept] for name, found in raw.items()}
            judged = {name: found for name, found in judged.items() if found}
        return TrialFacts(attempt=facts, scored=scored, judged=judged)


def _json(raw: bytes) -> Any:
    return json.loads(raw)


def _jsonl(raw: bytes) -> list[dict[str, Any]]:
    out = []
    for line in raw.decode("utf-8").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _yaml_documents(raw: bytes) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(raw.decode("utf-8")) if isinstance(d, dict)]


def _instances(raw: bytes) -> dict[str, Instance]:
    out = {}
    for line in raw.decode("utf-8").splitlines():
        if line.strip():
            instance = Instance.model_validate_json(line)
            out[instance.id] = instance
    return out


def _calls(raw: bytes) -> tuple[CallFacts, ...]:
    out = []
    for record in _jsonl(raw):
        seconds = record.get("duration_seconds")
        out.append(
            CallFacts(
                reason=call_reason(record),
                seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
            )
        )
    return tuple(out)


def _judged(raw: bytes) -> dict[str, list[Verdict]]:
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("expected an object of judge name → verdicts")
    return {str(name): _VERDICTS.validate_python(found) for name, found in data.items()}
