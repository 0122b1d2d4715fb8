"""The verdict cache: a judge's decided verdict, keyed by everything that could change it.

A key is the SHA-256 of canonical JSON (sorted keys, no whitespace, UTF-8) over:

* the check — id, description, kind, source and explicit condition (an inferred
  condition is a function of the description, so it is covered);
* :func:`trajectory_digest` — what the judge sees of the trajectory;
* the judge's model, where it is served (API shape and the spec's base URL, so the
  same model name at another endpoint is another judge) and the prompt version.

Re-judging with all of these unchanged finds every verdict in the cache and makes no
model call. Only decided verdicts (pass, fail, n/a) are stored: an ``error`` is
retried on the next run. The cache is keyed by the judge's *model*, not its panel
name, so two panel entries on the same model share entries; a hit is re-stamped with
the asking judge's name.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol

from adhere.core import Check, Trajectory, Verdict

__all__ = ["MemoryVerdictCache", "VerdictCache", "cache_key", "trajectory_digest"]


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8"
    )


def _judged_view(trajectory: Trajectory) -> dict[str, Any]:
    """The parts of a trajectory a judge prompt shows (``meta`` only for deleted files)."""
    deleted = trajectory.meta.get("deleted_files")
    return {
        "system": trajectory.system,
        "tools": [tool.model_dump(mode="json") for tool in trajectory.tools],
        "messages": [message.model_dump(mode="json") for message in trajectory.messages],
        "sources": [span.model_dump(mode="json") for span in trajectory.sources],
        "files": trajectory.files,
        "deleted_files": deleted if isinstance(deleted, list) else [],
        "subagents": [_judged_view(sub) for sub in trajectory.subagents],
    }


def trajectory_digest(trajectory: Trajectory) -> str:
    """SHA-256 (hex) of the canonical JSON of what the judge sees of ``trajectory``.

    Timing, ids and other ``meta`` fields are left out, so a re-run that produced the
    same conversation and files has the same digest.
    """
    return hashlib.sha256(_canonical(_judged_view(trajectory))).hexdigest()


def cache_key(
    check: Check,
    trajectory_digest: str,
    judge_model: str,
    prompt_version: str,
    judge_endpoint: str = "",
) -> str:
    """The cache key (64 hex digits) of ``check`` judged by ``judge_model`` on a trajectory.

    ``judge_endpoint`` names where the model is served (API shape and the spec's base
    URL): the same model name at another endpoint is another judge. Empty (callers
    that do not know it) leaves it out of the key.
    """
    payload: dict[str, object] = {
        "check": {
            "id": check.id,
            "description": check.description,
            "kind": check.kind.value,
            "source": check.source.value,
            "condition": check.condition,
        },
        "trajectory": trajectory_digest,
        "judge_model": judge_model,
        "prompt_version": prompt_version,
    }
    if judge_endpoint:
        payload["judge_endpoint"] = judge_endpoint
    return hashlib.sha256(_canonical(payload)).hexdigest()


class VerdictCache(Protocol):
    """Where decided judge verdicts are kept between runs."""

    def get(self, key: str) -> Verdict | None:
        """The verdict stored under ``key``, or ``None``."""
        ...

    def put(self, key: str, verdict: Verdict) -> None:
        """Store ``verdict`` under ``key`` (replacing any earlier one)."""
        ...


class MemoryVerdictCache:
    """A :class:`VerdictCache` in a dict, counting hits and misses (tests, one process)."""

    def __init__(self) -> None:
        self._verdicts: dict[str, Verdict] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Verdict | None:
        """The verdict stored under ``key``, or ``None``."""
        verdict = self._verdicts.get(key)
        if verdict is None:
            self.misses += 1
        else:
            self.hits += 1
        return verdict

    def put(self, key: str, verdict: Verdict) -> None:
        """Store ``verdict`` under ``key``."""
        self._verdicts[key] = verdict

    def __len__(self) -> int:
        return len(self._verdicts)
