"""Reading a rollout's finished trials back as metrics see them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from adhere.artifacts import INSTANCES, RolloutStore, StoredTrial
from adhere.core import Instance
from adhere.errors import SpecError
from adhere.metrics import ConflictRun, ScoredTrial, conflict_of, side_checks

__all__ = ["Collected", "collect", "scored_trial"]


@dataclass(frozen=True)
class Collected:
    """Scored trials of a rollout and the instances they ran."""

    rollout: str
    suite: str
    instances: dict[str, Instance]
    trials: list[ScoredTrial]
    conflicts: list[ConflictRun]
    """Trials of conflict instances, with their side checks' verdicts and the judges'
    attributions."""
    stale: int = 0
    """Stored trials of instances the rollout's benchmark no longer holds (left out)."""


def collect(store: RolloutStore) -> Collected:
    """Every finished trial with its grouping keys (model, scaffold, instance metadata)."""
    if not store.has_instances():
        raise SpecError(f"no rollout results at {store.uri} ({INSTANCES} is missing)")
    instances = {i.id: i for i in store.read_instances()}
    suites = {i.suite for i in instances.values()}
    trials = []
    conflicts = []
    stale = 0
    for stored in store.iter_trials():
        if stored.result.trial.instance not in instances:
            stale += 1  # stored by an earlier config whose benchmark held that instance
            continue
        scored, conflict = scored_trial(stored, instances)
        trials.append(scored)
        if conflict is not None:
            attributions = store.read_conflict_verdicts(stored.result.trial)
            conflicts.append(replace(conflict, attributions=attributions))
    return Collected(
        rollout=store.rollout,
        suite=", ".join(sorted(suites)),
        instances=instances,
        trials=trials,
        conflicts=conflicts,
        stale=stale,
    )


def scored_trial(
    stored: StoredTrial, instances: Mapping[str, Instance]
) -> tuple[ScoredTrial, ConflictRun | None]:
    """A finished trial as metrics see it, and its conflict run when it has one.

    Keys: the instance's scalar metadata, model, scaffold, instance, repeat, trial, and
    the scaffold version that ran (``scaffold_version``, when the result records it).
    The instance's checks are the trial's expected ones (a check without a verdict is
    undecided). A conflict instance's two side checks are left out of both.
    """
    trial = stored.result.trial
    instance = instances.get(trial.instance)
    full = instance.metadata if instance else {}
    metadata = {k: v for k, v in full.items() if _scalar(v)}
    keys = {
        **metadata,
        "model": trial.model,
        "scaffold": trial.scaffold,
        "instance": trial.instance,
        "repeat": trial.repeat,
        "trial": trial.id,
    }
    if stored.result.scaffold_version is not None:
        keys["scaffold_version"] = stored.result.scaffold_version
    verdicts = stored.verdicts
    expected = [c.id for c in instance.checks] if instance else None
    conflict = conflict_of(full)
    run = None
    if conflict is not None:
        run = ConflictRun(keys, stored.result.status, conflict, verdicts)
        sides = side_checks(full)
        verdicts = [v for v in verdicts if v.check_id not in sides]
        expected = [c for c in expected or () if c not in sides]
    result = stored.result
    scored = ScoredTrial(
        keys=keys,
        status=result.status,
        verdicts=verdicts,
        outcomes=result.outcomes,
        calls=result.calls,
        expected=None if expected is None else tuple(expected),
    )
    return scored, run


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool)
