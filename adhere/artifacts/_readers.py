"""Finding stored rollouts and trials: a rollout directory, a trial by id or by name."""

from __future__ import annotations

from pathlib import Path

from adhere.artifacts._layout import INSTANCES, RolloutStore
from adhere.core import Trial
from adhere.errors import SpecError
from adhere.store import open_store

__all__ = ["find_trial", "open_rollout_dir"]


def open_rollout_dir(path: str | Path) -> RolloutStore:
    """A rollout's store from the path of its artifact directory (``runs/<rollout>``)."""
    p = Path(path).resolve()
    if not (p / INSTANCES).is_file():
        raise SpecError(
            f"not a rollout directory (expected {INSTANCES} inside); give the rollout's "
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
