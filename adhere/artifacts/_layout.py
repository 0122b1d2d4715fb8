"""The artifact layout of a rollout in a store.

::

    <rollout>/
      rollout.yaml                 the Rollout, Benchmark (and JudgePanel) specs as run
      instances.jsonl              the resolved instances (one Instance a line)
      trials/<model>/<scaffold>/<instance>/r<repeat>/
        calls.jsonl                raw model calls as the recording proxy saw them, one
                                   record a line (secrets redacted before writing)
        trajectory.json            normalized Trajectory with instruction-source tags
        scaffold.json              the scaffold's per-turn exit codes, output tails, files
        verdicts.json              list of Verdict
        result.json                TrialResult — written last: its presence means "finished"
        attempt-<n>/               earlier failed attempts, moved aside before a retry

A trial is done when ``result.json`` exists with status ``ok``; a re-run skips it.
Trials that ended in ``error`` are retried by the next run, keeping the failed
attempt's files under ``attempt-<n>/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from adhere.core import Instance, Trajectory, Trial, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.store import Store

_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_VERDICTS = TypeAdapter(list[Verdict])


def safe_segment(name: str) -> str:
    """A path segment for ``name``: unchanged when already safe, else cleaned plus a hash."""
    cleaned = _SAFE.sub("_", name).strip(".") or "_"
    if cleaned == name and len(name) <= 120:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[:100]}-{digest}"


@dataclass(frozen=True)
class StoredTrial:
    """A finished trial read back from the store."""

    result: TrialResult
    verdicts: list[Verdict]


class RolloutStore:
    """Reads and writes one rollout's artifacts in a :class:`Store`."""

    def __init__(self, store: Store, rollout: str) -> None:
        self.store = store
        self.rollout = safe_segment(rollout)

    @property
    def uri(self) -> str:
        """URI of the rollout's artifact root."""
        return f"{self.store.uri.rstrip('/')}/{self.rollout}"

    def key(self, *parts: str) -> str:
        """Key of a file under the rollout root."""
        return "/".join((self.rollout, *parts))

    def trial_key(self, trial: Trial, name: str) -> str:
        """Key of one artifact of a trial."""
        return self.key(
            "trials",
            safe_segment(trial.model),
            safe_segment(trial.scaffold),
            safe_segment(trial.instance),
            f"r{trial.repeat}",
            name,
        )

    # --- rollout-level files -----------------------------------------------------

    def write_specs(self, documents: Sequence[dict[str, Any]]) -> None:
        """Snapshot the specs the rollout ran with (they never contain secrets)."""
        import yaml

        text = yaml.safe_dump_all(list(documents), sort_keys=False)
        self.store.write_bytes(self.key("rollout.yaml"), text.encode("utf-8"))

    def write_instances(self, instances: Iterable[Instance]) -> None:
        """Store the resolved instances."""
        lines = [inst.model_dump_json() for inst in instances]
        self.store.write_bytes(self.key("instances.jsonl"), ("\n".join(lines) + "\n").encode())

    def has_instances(self) -> bool:
        """Whether the instances were stored."""
        return self.store.exists(self.key("instances.jsonl"))

    def read_instances(self) -> list[Instance]:
        """The stored instances."""
        text = self.store.read_bytes(self.key("instances.jsonl")).decode("utf-8")
        out = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    out.append(Instance.model_validate_json(line))
                except ValueError as exc:
                    raise StoreError(f"{self.key('instances.jsonl')}:{number}: {exc}") from exc
        return out

    # --- trial-level files -------------------------------------------------------

    def write_calls(self, trial: Trial, records: Iterable[dict[str, Any]]) -> None:
        """Store the raw call log of a trial (JSONL)."""
        body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        self.store.write_bytes(self.trial_key(trial, "calls.jsonl"), body.encode("utf-8"))

    def read_calls(self, trial: Trial) -> list[dict[str, Any]]:
        """The raw call log of a trial."""
        text = self.store.read_bytes(self.trial_key(trial, "calls.jsonl")).decode("utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def write_trajectory(self, trial: Trial, trajectory: Trajectory) -> None:
        """Store a trial's normalized trajectory."""
        data = trajectory.model_dump_json(indent=1).encode("utf-8")
        self.store.write_bytes(self.trial_key(trial, "trajectory.json"), data)

    def read_trajectory(self, trial: Trial) -> Trajectory | None:
        """A trial's trajectory, or None if it has none (e.g. the trial failed)."""
        key = self.trial_key(trial, "trajectory.json")
        if not self.store.exists(key):
            return None
        return Trajectory.model_validate_json(self.store.read_bytes(key))

    def write_json(self, trial: Trial, name: str, data: Any) -> None:
        """Store another JSON artifact of a trial (e.g. ``scaffold.json``)."""
        body = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        self.store.write_bytes(self.trial_key(trial, name), body)

    def read_json(self, trial: Trial, name: str) -> Any:
        """Read a JSON artifact of a trial."""
        return json.loads(self.store.read_bytes(self.trial_key(trial, name)))

    def write_verdicts(self, trial: Trial, verdicts: Sequence[Verdict]) -> None:
        """Store a trial's verdicts."""
        data = _VERDICTS.dump_json(list(verdicts), indent=1)
        self.store.write_bytes(self.trial_key(trial, "verdicts.json"), data)

    def read_verdicts(self, trial: Trial) -> list[Verdict]:
        """A trial's verdicts."""
        return _VERDICTS.validate_json(
            self.store.read_bytes(self.trial_key(trial, "verdicts.json"))
        )

    def write_result(self, result: TrialResult) -> None:
        """Mark a trial finished. Call last, after every other artifact is written."""
        data = result.model_dump_json(indent=1).encode("utf-8")
        self.store.write_bytes(self.trial_key(result.trial, "result.json"), data, durable=True)

    def read_result(self, trial: Trial) -> TrialResult | None:
        """The trial's result record, or None if the trial has not finished."""
        key = self.trial_key(trial, "result.json")
        if not self.store.exists(key):
            return None
        return TrialResult.model_validate_json(self.store.read_bytes(key))

    def is_done(self, trial: Trial) -> bool:
        """Whether the trial finished successfully (a re-run skips it)."""
        result = self.read_result(trial)
        return result is not None and result.status == "ok"

    def archive_attempt(self, trial: Trial, attempt: int) -> None:
        """Move a failed attempt's files under ``attempt-<n>/`` before retrying."""
        prefix = self.trial_key(trial, "")
        for key in list(self.store.list(prefix)):
            rest = key[len(prefix) :]
            if "/" in rest:  # already-archived attempts
                continue
            self.store.rename(key, f"{prefix}attempt-{attempt}/{rest}")

    def iter_trials(self) -> Iterator[StoredTrial]:
        """Every finished trial (ok or error) with its verdicts."""
        for key in self.store.list(self.key("trials")):
            if not key.endswith("/result.json") or "/attempt-" in key:
                continue
            result = TrialResult.model_validate_json(self.store.read_bytes(key))
            verdict_key = key[: -len("result.json")] + "verdicts.json"
            verdicts = (
                _VERDICTS.validate_json(self.store.read_bytes(verdict_key))
                if self.store.exists(verdict_key)
                else []
            )
            yield StoredTrial(result=result, verdicts=verdicts)
