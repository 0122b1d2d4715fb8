"""Before a run: which finished results may be reused (same config) and which may not.

Every planned trial gets a :class:`~adhere.runner._fingerprint.Fingerprint`. A trial
whose stored ``ok`` result has different fingerprint parts ran under another config:
reusing it would print old numbers under the new spec. The run refuses, naming what
changed (read against the spec snapshot the store kept from the earlier run), unless
the user asks for ``--rerun-changed``: those trials are run again and their old
attempts archived (``attempts/``), never deleted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adhere.artifacts import RolloutStore
from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.runner._fingerprint import (
    Fingerprint,
    changed_parts,
    describe_change,
    endpoint_digest,
    endpoint_view,
    instance_digest,
    scaffold_digest,
    scaffold_view,
    suite_digest,
    suite_view,
)
from adhere.scaffolds import Scaffold
from adhere.spec import BenchmarkSpec, Endpoint, RunConfig, ScaffoldSpec

__all__ = ["ReuseCheck", "check_reuse", "plan_fingerprints", "scaffold_version"]


def scaffold_version(scaffold: Scaffold) -> str:
    """The pinned CLI version of a scaffold, ``builtin`` for the in-process ones."""
    tool = getattr(scaffold, "tool", None)
    version = getattr(tool, "version", None)
    return str(version) if version else "builtin"


def plan_fingerprints(
    config: RunConfig,
    instances: Sequence[Instance],
    trials: Sequence[Trial],
    scaffolds: Mapping[str, Scaffold],
) -> dict[str, Fingerprint]:
    """Trial id → the fingerprint of the config it is planned under."""
    spec = config.rollout.spec
    endpoints = {m.name: endpoint_digest(m.endpoint) for m in spec.models}
    kinds = {
        s.name: scaffold_digest(s, scaffold_version(scaffolds[s.name])) for s in spec.scaffolds
    }
    contents = {i.id: instance_digest(i) for i in instances}  # each instance hashed once
    suite = suite_digest(config.benchmark.spec)
    return {
        trial.id: Fingerprint(
            {
                "endpoint": endpoints[trial.model],
                "scaffold": kinds[trial.scaffold],
                "instance": contents[trial.instance],
                "suite": suite,
            }
        )
        for trial in trials
    }


@dataclass
class ReuseCheck:
    """What the stored results amount to for this run.

    Attributes:
        changed: Finished trials whose config changed (run again with ``rerun_changed``).
        legacy: Finished trials with no fingerprint (written before fingerprints:
            reused as they are, since what they ran under is unknown).
        what: ``(model, scaffold)`` → the fingerprint parts that changed.
    """

    changed: int = 0
    legacy: int = 0
    what: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def check_reuse(
    store: RolloutStore,
    config: RunConfig,
    trials: Sequence[Trial],
    fingerprints: Mapping[str, Fingerprint],
    *,
    rerun_changed: bool,
) -> ReuseCheck:
    """Compare stored results with the planned fingerprints; refuse a changed config.

    Call before the run overwrites the store's spec snapshot (it names the old values).

    Raises:
        SpecError: Finished trials ran under another config and ``rerun_changed`` is
            false; the message names the rollout file, what changed and the choices.
    """
    check = ReuseCheck()
    what: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for trial in trials:
        previous = store.read_result(trial)
        if previous is None or previous.status != "ok":
            continue
        if not previous.fingerprint_parts:
            check.legacy += 1
            continue
        parts = changed_parts(previous.fingerprint_parts, fingerprints[trial.id])
        if parts:
            check.changed += 1
            what[(trial.model, trial.scaffold)].update(parts)
    check.what = dict(what)
    if check.changed and not rerun_changed:
        rollout = config.rollout.metadata.name
        raise SpecError(
            f"{check.changed} finished trial(s) of rollout {rollout!r} ran under a different "
            f"config — {_explain(check.what, store, config)}. Their results would be reused "
            "under the new spec. Either give the rollout a new name (metadata.name) to keep "
            "both, or run with --rerun-changed to run those trials again (the old attempts "
            "stay archived in the store).",
            file=config.files.get(f"Rollout/{rollout}", ""),
        )
    return check


def _explain(
    what: Mapping[tuple[str, str], set[str]], store: RolloutStore, config: RunConfig
) -> str:
    old = _old_specs(store)
    notes = []
    for (model, scaffold), parts in sorted(what.items()):
        details = []
        for part in sorted(parts):
            details.append(part + _detail(part, model, scaffold, old, config))
        notes.append(f"model {model!r} × scaffold {scaffold!r}: " + ", ".join(details))
    return "; ".join(notes)


def _old_specs(store: RolloutStore) -> dict[str, dict[str, Any]]:
    try:
        documents = store.read_specs() if store.has_specs() else []
    except Exception:  # noqa: BLE001 - the snapshot only adds detail to the message
        return {}
    return {
        str(doc.get("kind")): doc.get("spec") or {}
        for doc in documents
        if isinstance(doc, dict) and isinstance(doc.get("spec"), dict)
    }


def _detail(
    part: str, model: str, scaffold: str, old: Mapping[str, dict[str, Any]], config: RunConfig
) -> str:
    """`` (key: old → new, …)`` from the old spec snapshot, or ``""`` when unknown."""
    try:
        if part == "endpoint":
            before = next(m for m in old["Rollout"]["models"] if m.get("name") == model)
            now = next(m for m in config.rollout.spec.models if m.name == model)
            lines = describe_change(
                endpoint_view(Endpoint.model_validate(before["endpoint"])),
                endpoint_view(now.endpoint),
            )
        elif part == "scaffold":
            raw = [{"name": s} if isinstance(s, str) else s for s in old["Rollout"]["scaffolds"]]
            before_spec = ScaffoldSpec.model_validate(next(s for s in raw if s["name"] == scaffold))
            now_spec = next(s for s in config.rollout.spec.scaffolds if s.name == scaffold)
            lines = describe_change(scaffold_view(before_spec, ""), scaffold_view(now_spec, ""))
            lines = lines or ["the scaffold's CLI version"]
        elif part == "suite":
            lines = describe_change(
                suite_view(BenchmarkSpec.model_validate(old["Benchmark"])),
                suite_view(config.benchmark.spec),
            )
        else:
            return " (the instance's prompt, turns or workspace)"
    except (KeyError, StopIteration, ValueError, TypeError):
        return ""
    return f" ({'; '.join(lines)})" if lines else ""
