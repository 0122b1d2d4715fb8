"""Reading every rollout of a store again and again, re-parsing only what changed.

A :class:`CachedReader` (the exporter keeps one per store) keeps decoded files
between reads. A file is decoded again only when its version changes: on a local
store the version is the file's modification time and size; on a remote store small
mutable files (``result.json``, ``verdicts.json``, …) are read again every time and
the large call logs (``calls.jsonl``) are decoded once per trial attempt — they
never change after the attempt's ``result.json`` is written.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

import yaml

from adhere.artifacts._instances import decode_instances
from adhere.artifacts._layout import (
    ATTEMPT,
    CALLS,
    INSTANCES,
    JUDGE_CALLS,
    JUDGE_VERDICTS,
    PROGRESS,
    RESULT,
    SPECS,
    TRIALS,
    VERDICTS,
)
from adhere.artifacts._records import (
    VERDICT_LIST,
    JudgeCallRecord,
    RunProgress,
    decode_judge_calls,
    decode_judge_verdicts,
    decode_progress,
)
from adhere.core import Instance, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.store import Store

__all__ = ["CachedReader", "TrialDir"]

log = logging.getLogger(__name__)

_ATTEMPT = re.compile(rf"^{ATTEMPT}\d+$")
_REPEAT = re.compile(r"^r\d+$")
T = TypeVar("T")


@dataclass(frozen=True)
class TrialDir:
    """One attempt of a trial as listed in the store: its directory and file names.

    Attributes:
        prefix: Key prefix of the directory (ends with ``/``).
        archived: Whether it is an earlier attempt moved aside (``attempt-<n>/``).
        files: Names of the files in it.
    """

    prefix: str
    archived: bool
    files: frozenset[str]

    @property
    def finished(self) -> bool:
        """Whether the attempt's ``result.json`` was written."""
        return RESULT in self.files


class CachedReader:
    """Reads the rollouts of a store; keeps decoded files until they change."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[Hashable, Any]] = {}
        self._seen: set[str] = set()

    def rollouts(self) -> list[str]:
        """Names of the rollouts in the store (directories holding ``instances.jsonl``)."""
        root = self.store.local_path(INSTANCES)
        if root is not None:
            base = root.parent
            if not base.is_dir():
                return []
            return sorted(p.name for p in base.iterdir() if (p / INSTANCES).is_file())
        names = set()
        for key in self.store.list(""):
            parts = key.split("/")
            if len(parts) == 2 and parts[1] == INSTANCES:
                names.add(parts[0])
        return sorted(names)

    def forget_unseen(self) -> None:
        """Drop cached files not read since the last call (deleted or moved)."""
        for key in set(self._cache) - self._seen:
            del self._cache[key]
        self._seen = set()

    # --- rollout-level files -----------------------------------------------------

    def instances(self, rollout: str) -> dict[str, Instance]:
        """A rollout's instances by id (raises when they cannot be read)."""
        return self._get(f"{rollout}/{INSTANCES}", _instances)

    def specs(self, rollout: str) -> list[dict[str, Any]]:
        """The documents of a rollout's spec snapshot (empty when unreadable)."""
        return self._optional(f"{rollout}/{SPECS}", _yaml_documents, [])

    def progress(self, rollout: str) -> RunProgress | None:
        """A rollout's ``progress.json``, or ``None``."""
        return self._optional(f"{rollout}/{PROGRESS}", decode_progress, None)

    def judge_calls(self, rollout: str) -> list[JudgeCallRecord]:
        """A rollout's judge call records."""
        return self._optional(f"{rollout}/{JUDGE_CALLS}", decode_judge_calls, [])

    def trial_dirs(self, rollout: str) -> list[TrialDir]:
        """Every attempt directory of a rollout's trials, by trial then attempt."""
        dirs: dict[str, dict[str, set[str]]] = {}
        for key in self.store.list(f"{rollout}/{TRIALS}"):
            head, _, file = key.rpartition("/")
            parts = head.split("/")
            attempt = ""
            if parts and _ATTEMPT.match(parts[-1]):
                attempt = parts.pop()
            if len(parts) < 2 or not _REPEAT.match(parts[-1]):
                continue
            dirs.setdefault("/".join(parts), {}).setdefault(attempt, set()).add(file)
        return [
            TrialDir(
                prefix=f"{trial_dir}/{attempt}/" if attempt else f"{trial_dir}/",
                archived=bool(attempt),
                files=frozenset(files),
            )
            for trial_dir, attempts in sorted(dirs.items())
            for attempt, files in sorted(attempts.items())
        ]

    # --- trial-level files -------------------------------------------------------

    def result(self, trial: TrialDir) -> TrialResult:
        """An attempt's result record (raises when it cannot be read)."""
        return self._get(trial.prefix + RESULT, TrialResult.model_validate_json)

    def calls(
        self, trial: TrialDir, result: TrialResult, summarize: Callable[[list[dict[str, Any]]], T]
    ) -> T | None:
        """``summarize`` of an attempt's call records (``None`` without a call log).

        ``result`` is the attempt's: on a remote store the log is decoded once per
        attempt and finish time.
        """
        if CALLS not in trial.files:
            return None
        token = (result.attempt, result.finished_at)
        return self._optional(trial.prefix + CALLS, lambda raw: summarize(_jsonl(raw)), None, token)

    def verdicts(self, trial: TrialDir) -> list[Verdict]:
        """An attempt's verdicts (empty when none were stored)."""
        if VERDICTS not in trial.files:
            return []
        return self._optional(trial.prefix + VERDICTS, VERDICT_LIST.validate_json, [])

    def judge_verdicts(self, trial: TrialDir) -> dict[str, list[Verdict]]:
        """Judge name → that judge's verdicts of an attempt (empty when none)."""
        if JUDGE_VERDICTS not in trial.files:
            return {}
        return self._optional(trial.prefix + JUDGE_VERDICTS, decode_judge_verdicts, {})

    # --- cache ---------------------------------------------------------------------

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
            log.warning("skipping unreadable %s: %s", key, exc)
            return default


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
    return {i.id: i for i in decode_instances(raw, where=INSTANCES)}
