"""Reading a rollout's finished trials back for metrics and reports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adhere.errors import SpecError
from adhere.metrics import Report, ScoredTrial, build_report
from adhere.spec import Instance, Trial
from adhere.store import RolloutStore, open_store
from adhere.suites import get_suite


@dataclass(frozen=True)
class Collected:
    """Scored trials of a rollout and the instances they ran."""

    rollout: str
    suite: str
    instances: dict[str, Instance]
    trials: list[ScoredTrial]


def collect(store: RolloutStore) -> Collected:
    """Every finished trial with its grouping keys (model, scaffold, instance metadata)."""
    if not store.has_instances():
        raise SpecError(f"no rollout results at {store.uri} (instances.jsonl is missing)")
    instances = {i.id: i for i in store.read_instances()}
    suites = {i.suite for i in instances.values()}
    trials = []
    for stored in store.iter_trials():
        trial = stored.result.trial
        instance = instances.get(trial.instance)
        metadata = {k: v for k, v in (instance.metadata if instance else {}).items() if _scalar(v)}
        keys = {
            **metadata,
            "model": trial.model,
            "scaffold": trial.scaffold,
            "instance": trial.instance,
            "repeat": trial.repeat,
        }
        trials.append(ScoredTrial(keys=keys, status=stored.result.status, verdicts=stored.verdicts))
    return Collected(
        rollout=store.rollout,
        suite=", ".join(sorted(suites)),
        instances=instances,
        trials=trials,
    )


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool)


def report_for(store: RolloutStore) -> Report:
    """Build the report of a rollout from its store."""
    collected = collect(store)
    names = collected.suite.split(", ")
    suite = get_suite(names[0]) if len(names) == 1 else None
    return build_report(
        rollout=collected.rollout,
        suite=collected.suite,
        metric_names=suite.metric_names() if suite else ("ISR", "CSR"),
        trials=collected.trials,
        breakdowns=list(suite.breakdowns()) if suite else [],
    )


def open_rollout_dir(path: str | Path) -> RolloutStore:
    """A rollout's store from the path of its artifact directory (``runs/<rollout>``)."""
    p = Path(path).resolve()
    if not (p / "instances.jsonl").is_file():
        raise SpecError(
            "not a rollout directory (expected instances.jsonl inside); give the rollout's "
            "artifact directory, e.g. runs/quickstart, or its rollout YAML",
            file=str(path),
        )
    return RolloutStore(open_store(str(p.parent)), p.name)


def find_trial(store: RolloutStore, ref: str) -> Trial:
    """A finished trial by id (or a unique id prefix) or by ``model/scaffold/instance[/rN]``."""
    trials = [stored.result.trial for stored in store.iter_trials()]
    parts = ref.strip("/").split("/")
    if len(parts) >= 3:
        model, scaffold, instance = parts[:3]
        repeat = (
            int(parts[3].lstrip("r")) if len(parts) > 3 and parts[3].lstrip("r").isdigit() else 0
        )
        matches = [
            t
            for t in trials
            if (t.model, t.scaffold, t.instance, t.repeat) == (model, scaffold, instance, repeat)
        ]
    else:
        matches = [t for t in trials if t.id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SpecError(
            f"no finished trial {ref!r} in {store.uri}; give a trial id (or a unique prefix) "
            "or model/scaffold/instance[/rN]"
        )
    raise SpecError(f"{len(matches)} trials match {ref!r}; give more of the id")
