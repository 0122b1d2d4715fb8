"""Finding stored rollouts and trials: a rollout directory or URI, a trial by id or by name."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse, urlunparse

from adhere.artifacts._layout import INSTANCES
from adhere.artifacts._rollout_store import RolloutStore
from adhere.core import Trial
from adhere.errors import SpecError
from adhere.store import open_store

__all__ = ["find_trial", "open_rollout", "open_rollout_dir"]


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


def open_rollout(ref: str | Path) -> RolloutStore:
    """A rollout's store from its directory, ``file://`` URI or ``s3://`` URI.

    The last path segment names the rollout; what comes before is the store
    (``s3://bucket/runs/quickstart?endpoint_url=…`` is rollout ``quickstart`` of the
    store ``s3://bucket/runs?endpoint_url=…``).

    Raises:
        SpecError: The reference names no rollout, or (``file://``, a path) a
            directory without ``instances.jsonl``, or (``s3://``) a prefix without it.
    """
    text = str(ref)
    parsed = urlparse(text)
    if parsed.scheme == "file":
        return open_rollout_dir(text[len("file://") :])
    if parsed.scheme != "s3":
        return open_rollout_dir(text)
    parent, _, rollout = parsed.path.rstrip("/").rpartition("/")
    if not rollout or not parsed.netloc:
        raise SpecError(
            "an s3:// run names its bucket, store prefix and rollout, e.g. "
            "s3://bucket/runs/quickstart",
            file=text,
        )
    store = RolloutStore(open_store(urlunparse(parsed._replace(path=parent))), rollout)
    if not store.has_instances():
        raise SpecError(
            f"not a rollout (expected {INSTANCES} under it); give the rollout's prefix, "
            "e.g. s3://bucket/runs/quickstart",
            file=store.uri,
        )
    return store


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
