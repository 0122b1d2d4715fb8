"""Reading and writing one rollout's artifacts where :mod:`adhere.artifacts._layout` puts them.

:class:`RolloutStore` is the only code that turns the layout's names into store keys
for a rollout (rollout-level files, trial-level files, archived attempts);
:func:`write_benchmark_instances` stores a Benchmark's resolved instances at the
store level.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adhere.artifacts._instances import decode_instances, encode_instances
from adhere.artifacts._layout import (
    ATTEMPT,
    BENCHMARKS,
    CALLS,
    CONFLICT_VERDICTS,
    FEEDBACK,
    INSTANCES,
    INTERRUPTED,
    JUDGE_VERDICTS,
    REPORT,
    RESULT,
    SCAFFOLD,
    SPECS,
    TRAJECTORY,
    TRIALS,
    VERDICTS,
    attempt_dir,
    safe_segment,
)
from adhere.artifacts._records import (
    VERDICT_LIST,
    decode_judge_verdicts,
    encode_judge_verdicts,
    encode_verdicts,
)
from adhere.core import Instance, Trajectory, Trial, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.store import Store


def write_benchmark_instances(
    store: Store, namespace: str, name: str, instances: Iterable[Instance]
) -> str:
    """Store a Benchmark's resolved instances (the operator does); return their URI."""
    key = f"{BENCHMARKS}/{namespace}/{name}/{INSTANCES}"
    store.write_bytes(key, encode_instances(instances))
    return f"{store.uri.rstrip('/')}/{key}"


def _json_bytes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")


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

    def where(self, *parts: str) -> str:
        """URI of a file under the rollout root (for messages)."""
        return "/".join((self.uri, *parts))

    def key(self, *parts: str) -> str:
        """Key of a file under the rollout root."""
        return "/".join((self.rollout, *parts))

    def trial_key(self, trial: Trial, name: str) -> str:
        """Key of one artifact of a trial."""
        return self.key(
            TRIALS,
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
        self.store.write_bytes(self.key(SPECS), text.encode("utf-8"))

    def is_empty(self) -> bool:
        """Whether the rollout's directory holds no file at all."""
        return not any(True for _ in self.store.list(self.key("")))

    def has_specs(self) -> bool:
        """Whether the spec snapshot was stored."""
        return self.store.exists(self.key(SPECS))

    def read_specs(self) -> list[Any]:
        """The spec snapshot's YAML documents, in order.

        Raises:
            StoreError: There is no snapshot, or it cannot be read.
        """
        import yaml

        text = self.store.read_bytes(self.key(SPECS)).decode("utf-8")
        return list(yaml.safe_load_all(text))

    def write_instances(self, instances: Iterable[Instance]) -> None:
        """Store the resolved instances."""
        self.store.write_bytes(self.key(INSTANCES), encode_instances(instances))

    def has_instances(self) -> bool:
        """Whether the instances were stored."""
        return self.store.exists(self.key(INSTANCES))

    def read_instances(self) -> list[Instance]:
        """The stored instances (under the documented names or, from older stores, the old).

        Raises:
            StoreError: A line is not a stored instance (the line and field are named).
        """
        raw = self.store.read_bytes(self.key(INSTANCES))
        return decode_instances(raw, where=self.where(INSTANCES))

    def report_dir(self) -> Path | None:
        """The local directory of the rollout's report files (``None`` on an object store)."""
        return self.store.local_path(self.key(REPORT))

    def write_report(self, name: str, text: str) -> str:
        """Write one report file under ``report/``; return its local path or URI."""
        key = self.key(REPORT, name)
        self.store.write_bytes(key, text.encode("utf-8"))
        local = self.store.local_path(key)
        return str(local) if local is not None else self.where(REPORT, name)

    # --- trial-level files -------------------------------------------------------

    def write_calls(self, trial: Trial, records: Iterable[dict[str, Any]]) -> None:
        """Store the raw call log of a trial (JSONL)."""
        body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        self.store.write_bytes(self.trial_key(trial, CALLS), body.encode("utf-8"))

    def has_calls(self, trial: Trial) -> bool:
        """Whether the trial's call log was stored."""
        return self.store.exists(self.trial_key(trial, CALLS))

    def read_calls(self, trial: Trial) -> list[dict[str, Any]]:
        """The raw call log of a trial.

        Raises:
            StoreError: A line is not JSON (the file and line are named).
        """
        key = self.trial_key(trial, CALLS)
        out = []
        for number, line in enumerate(self.store.read_bytes(key).decode("utf-8").splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError as exc:
                    where = f"{self.store.uri.rstrip('/')}/{key}:{number}"
                    raise StoreError(f"{where}: not JSON ({exc})") from None
        return out

    def write_trajectory(self, trial: Trial, trajectory: Trajectory) -> None:
        """Store a trial's normalized trajectory."""
        data = trajectory.model_dump_json(indent=1).encode("utf-8")
        self.store.write_bytes(self.trial_key(trial, TRAJECTORY), data)

    def read_trajectory(self, trial: Trial) -> Trajectory | None:
        """A trial's trajectory, or None if it has none (e.g. the trial failed)."""
        key = self.trial_key(trial, TRAJECTORY)
        if not self.store.exists(key):
            return None
        try:
            return Trajectory.model_validate_json(self.store.read_bytes(key))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first.get("loc", ())) or "(top level)"
            raise StoreError(
                f"{self.where(key)}: not a stored trajectory: {where}: {first['msg']}"
            ) from None

    def write_json(self, trial: Trial, name: str, data: Any) -> None:
        """Store another JSON artifact of a trial (e.g. ``scaffold.json``)."""
        self.store.write_bytes(self.trial_key(trial, name), _json_bytes(data))

    def read_json(self, trial: Trial, name: str) -> Any:
        """Read a JSON artifact of a trial."""
        return json.loads(self.store.read_bytes(self.trial_key(trial, name)))

    def write_scaffold(self, trial: Trial, outcome: Mapping[str, Any]) -> None:
        """Store what the scaffold did (``scaffold.json``)."""
        self.write_json(trial, SCAFFOLD, outcome)

    def write_feedback(self, trial: Trial, record: Mapping[str, Any]) -> None:
        """Store what was fed back to a corrected trial (``feedback.json``)."""
        self.write_json(trial, FEEDBACK, record)

    def read_feedback(self, trial: Trial) -> dict[str, Any] | None:
        """A trial's ``feedback.json``, or ``None`` when it has none."""
        if not self.store.exists(self.trial_key(trial, FEEDBACK)):
            return None
        data = self.read_json(trial, FEEDBACK)
        return data if isinstance(data, dict) else None

    def write_verdicts(self, trial: Trial, verdicts: Sequence[Verdict]) -> None:
        """Store a trial's verdicts."""
        self.store.write_bytes(self.trial_key(trial, VERDICTS), encode_verdicts(verdicts))

    def read_verdicts(self, trial: Trial) -> list[Verdict]:
        """A trial's verdicts."""
        return VERDICT_LIST.validate_json(self.store.read_bytes(self.trial_key(trial, VERDICTS)))

    def write_judge_verdicts(
        self, trial: Trial, per_judge: Mapping[str, Sequence[Verdict]]
    ) -> None:
        """Store each judge's own verdicts of a trial (``{}`` when no judge ran)."""
        self.store.write_bytes(
            self.trial_key(trial, JUDGE_VERDICTS), encode_judge_verdicts(per_judge)
        )

    def read_judge_verdicts(self, trial: Trial) -> dict[str, list[Verdict]]:
        """Judge name → that judge's verdicts of a trial (empty when none were stored)."""
        key = self.trial_key(trial, JUDGE_VERDICTS)
        if not self.store.exists(key):
            return {}
        return decode_judge_verdicts(self.store.read_bytes(key))

    def write_conflict_verdicts(self, trial: Trial, per_judge: Mapping[str, Verdict]) -> None:
        """Store each judge's conflict attribution of a trial (``{}`` when no judge ran)."""
        self.store.write_bytes(
            self.trial_key(trial, CONFLICT_VERDICTS),
            encode_judge_verdicts({name: [v] for name, v in per_judge.items()}),
        )

    def read_conflict_verdicts(self, trial: Trial) -> dict[str, Verdict]:
        """Judge name → its conflict attribution of a trial (empty when none were stored)."""
        key = self.trial_key(trial, CONFLICT_VERDICTS)
        if not self.store.exists(key):
            return {}
        found = decode_judge_verdicts(self.store.read_bytes(key))
        return {name: vs[0] for name, vs in found.items() if vs}

    def write_result(self, result: TrialResult) -> None:
        """Mark a trial finished. Call last, after every other artifact is written."""
        data = result.model_dump_json(indent=1).encode("utf-8")
        self.store.write_bytes(self.trial_key(result.trial, RESULT), data, durable=True)

    def read_result(self, trial: Trial) -> TrialResult | None:
        """The trial's result record, or None if the trial has not finished."""
        key = self.trial_key(trial, RESULT)
        if not self.store.exists(key):
            return None
        return TrialResult.model_validate_json(self.store.read_bytes(key))

    def is_done(self, trial: Trial) -> bool:
        """Whether the trial finished successfully (a re-run skips it)."""
        result = self.read_result(trial)
        return result is not None and result.status == "ok"

    # --- attempts ----------------------------------------------------------------

    def _current_files(self, trial: Trial) -> Iterator[tuple[str, str]]:
        """(key, name) of the trial's files outside ``attempt-<n>/``."""
        prefix = self.trial_key(trial, "")
        for key in list(self.store.list(prefix)):
            rest = key[len(prefix) :]
            if "/" not in rest:  # not in an archived attempt
                yield key, rest

    def has_files(self, trial: Trial) -> bool:
        """Whether the trial has files of an attempt not archived (e.g. a killed pod's)."""
        return any(True for _ in self._current_files(trial))

    def has_attempt_files(self, trial: Trial) -> bool:
        """Whether an attempt left files (``feedback.json``, written before one, is none)."""
        return any(name != FEEDBACK for _, name in self._current_files(trial))

    def archived_attempts(self, trial: Trial) -> list[int]:
        """The numbers of the trial's archived attempts (``attempt-<n>/``), sorted."""
        prefix = self.trial_key(trial, "")
        found = set()
        for key in self.store.list(prefix):
            folder, slash, _ = key[len(prefix) :].partition("/")
            number = folder[len(ATTEMPT) :]
            if slash and folder.startswith(ATTEMPT) and number.isdigit():
                found.add(int(number))
        return sorted(found)

    def archive_attempt(self, trial: Trial, attempt: int) -> int:
        """Move an attempt's files under ``attempt-<n>/`` before the next; return ``n``.

        ``n`` is ``attempt``, or the first higher number whose directory is free: an
        archived attempt is never overwritten.
        """
        taken = set(self.archived_attempts(trial))
        while attempt in taken:
            attempt += 1
        for key, name in self._current_files(trial):
            self.store.rename(key, self.trial_key(trial, f"{attempt_dir(attempt)}/{name}"))
        return attempt

    def write_interrupted(self, trial: Trial, attempt: int, info: Mapping[str, Any]) -> None:
        """Mark the trial's current files as an attempt cut short (a stopped run)."""
        body = {"attempt": attempt, **info}
        self.store.write_bytes(self.trial_key(trial, INTERRUPTED), _json_bytes(body))

    def read_interrupted(self, trial: Trial) -> int | None:
        """The attempt an ``interrupted.json`` names (``None``: none, or unreadable)."""
        key = self.trial_key(trial, INTERRUPTED)
        if not self.store.exists(key):
            return None
        try:
            attempt = json.loads(self.store.read_bytes(key)).get("attempt")
        except (ValueError, AttributeError):
            return None
        return attempt if isinstance(attempt, int) and attempt > 0 else None

    def copy_trial(self, source: RolloutStore, source_trial: Trial, trial: Trial) -> None:
        """Copy a trial's current files from ``source``, all but its ``result.json``."""
        for key, name in source._current_files(source_trial):
            if name != RESULT:
                self.store.write_bytes(self.trial_key(trial, name), source.store.read_bytes(key))

    def iter_trials(self) -> Iterator[StoredTrial]:
        """Every finished trial (ok or error) with its verdicts."""
        for key in self.store.list(self.key(TRIALS)):
            if not key.endswith(f"/{RESULT}") or f"/{ATTEMPT}" in key:
                continue
            result = TrialResult.model_validate_json(self.store.read_bytes(key))
            verdict_key = key[: -len(RESULT)] + VERDICTS
            verdicts = (
                VERDICT_LIST.validate_json(self.store.read_bytes(verdict_key))
                if self.store.exists(verdict_key)
                else []
            )
            yield StoredTrial(result=result, verdicts=verdicts)
