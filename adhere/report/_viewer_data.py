"""What the trial viewer shows, read from a rollout's store: the trial index and one trial."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adhere.artifacts import RolloutStore, StoredTrial
from adhere.core import Instance, Trajectory, TrialResult, Verdict
from adhere.errors import StoreError
from adhere.metrics import ScoredTrial

CALLS = "calls.jsonl"
SCAFFOLD = "scaffold.json"

__all__ = ["TrialData", "calls_text", "disagreements", "index_entry", "load_trial", "trial_verdict"]


@dataclass
class TrialData:
    """One finished trial with everything its page shows."""

    result: TrialResult
    verdicts: list[Verdict]
    judged: dict[str, list[Verdict]]
    instance: Instance | None
    trajectory: Trajectory | None
    scaffold: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] | None = None
    """The raw call log; ``None`` when none is stored."""
    problems: list[str] = field(default_factory=list)
    """Artifacts that could not be read (shown on the page, never a crash)."""


def load_trial(
    store: RolloutStore, stored: StoredTrial, instances: Mapping[str, Instance]
) -> TrialData:
    """Read one trial's artifacts; an unreadable one is named in ``problems``."""
    trial = stored.result.trial
    data = TrialData(
        result=stored.result,
        verdicts=stored.verdicts,
        judged={},
        instance=instances.get(trial.instance),
        trajectory=None,
    )
    readers: dict[str, Any] = {
        "judge_verdicts.json": lambda: store.read_judge_verdicts(trial),
        "trajectory.json": lambda: store.read_trajectory(trial),
        SCAFFOLD: lambda: _optional(
            store, stored, SCAFFOLD, lambda: store.read_json(trial, SCAFFOLD)
        ),
        CALLS: lambda: _optional(store, stored, CALLS, lambda: store.read_calls(trial)),
    }
    for name, read in readers.items():
        try:
            value = read()
        except (StoreError, ValueError, OSError) as exc:
            data.problems.append(f"{name}: {exc}")
            continue
        if name == "judge_verdicts.json":
            data.judged = value
        elif name == "trajectory.json":
            data.trajectory = value
        elif name == SCAFFOLD:
            data.scaffold = value if isinstance(value, dict) else {}
        else:
            data.calls = value
    return data


def _optional(store: RolloutStore, stored: StoredTrial, name: str, read: Any) -> Any:
    if not store.store.exists(store.trial_key(stored.result.trial, name)):
        return None
    return read()


def trial_verdict(trial: ScoredTrial) -> str:
    """One word for the list: ``pass``, ``fail``, ``incomplete``, ``error`` or ``upstream_fault``.

    ``pass`` only when every expected check is decided and none applicable failed; a
    trial with an undecided (missing or ``error``) check is ``incomplete`` — never a pass.
    """
    if trial.status != "ok":
        return trial.status
    results = {v.check_id: v.result for v in trial.verdicts}
    expected = trial.expected if trial.expected is not None else tuple(results)
    if any(results.get(c) in (None, "error") for c in expected):
        return "incomplete"
    return "fail" if any(results[c] == "fail" for c in expected) else "pass"


def disagreements(judged: Mapping[str, Sequence[Verdict]]) -> set[str]:
    """Checks on which the judges that decided them gave different results."""
    seen: dict[str, set[str]] = {}
    for verdicts in judged.values():
        for v in verdicts:
            if v.result != "error":
                seen.setdefault(v.check_id, set()).add(v.result)
    return {check for check, results in seen.items() if len(results) > 1}


def index_entry(
    trial: ScoredTrial,
    instance: Instance | None,
    judged: Mapping[str, Sequence[Verdict]],
) -> dict[str, Any]:
    """One row of the trial list's index: the trial's keys and what the filters read.

    Scalar keys (model, scaffold, instance metadata such as ``category``) are strings;
    ``source`` and ``check type`` list the values of the trial's checks (a row of a
    per-source table lists the trials with a check of that source).
    """
    entry: dict[str, Any] = {k: str(v) for k, v in trial.keys.items()}
    entry["verdict"] = trial_verdict(trial)
    disagree = disagreements(judged)
    entry["judges disagree"] = "yes" if disagree else "no"
    entry["failed"] = sorted(v.check_id for v in trial.verdicts if v.result == "fail")
    entry["disagreed"] = sorted(disagree)
    checks = instance.checks if instance else []
    entry["source"] = sorted({c.source.value for c in checks})
    entry["check type"] = sorted({c.kind.value for c in checks})
    return entry


def calls_text(calls: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each raw call record pretty-printed (keys sorted)."""
    return [json.dumps(c, ensure_ascii=False, indent=1, sort_keys=True) for c in calls]
