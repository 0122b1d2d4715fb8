"""``adhere feedback RUN``: feed failed checks back to the agent and run the trials again.

For every finished trial of the stored rollout ``RUN`` (its artifact directory, or its
``file://`` or ``s3://`` URI):

- **at least one failed check** → a *corrected* trial: the instance with the failed
  checks rendered as a ``<feedback>`` block (:mod:`adhere.judging._feedback`) and
  injected into its user query (after the first user query by default; as one more
  user turn with ``placement="new-turn"``), run with the same model, scaffold and
  repeat, then scored the same way (suite checks, bound verifiers, the rollout's
  judge panel with the verdict cache);
- **no failed check** (every check passed or was n/a, or the trial only has
  ``error`` verdicts, e.g. it failed to run) → *carried over*: its stored artifacts
  and verdicts are copied unchanged. There is nothing to feed back, and re-running it
  would only add run-to-run noise; carrying it keeps ΔISR / ΔCSR over exactly the
  same trials as the original run.

With ``placement="none"`` the same trials run again *without* feedback: a control
that measures how much re-running the failed trials changes them by chance (a
sampling model, a noisy judge; re-running only failures regresses to the mean).

The corrected run is a rollout of its own (default: ``<RUN>-feedback`` beside RUN, in
the same store when RUN is in S3,
``<RUN>-feedback-turn`` for new-turn feedback, ``<RUN>-rerun`` for the control). Its
trials keep RUN's model, scaffold, instance id and repeat, so
``trials/<model>/<scaffold>/<instance>/r<n>/`` mirrors RUN and the reports line up;
trial ids are the usual stable hashes under the new rollout name. Its snapshot
(``rollout.yaml``) is RUN's, renamed, with ``spec.baseline`` set to RUN and the
annotations ``adhere.dev/feedback-of`` and ``adhere.dev/feedback-placement``;
``instances.jsonl`` holds RUN's instances (the checks are the same), and each trial's
``feedback.json`` records what was fed back: the failed check ids, the block, and the
user turns as sent (``corrected: false`` for a carried trial).

Re-invoking continues: finished corrected trials are skipped, unfinished or failed
ones run (again), carried trials are copied again. A corrected trial whose feedback
no longer matches RUN's verdicts (RUN was re-scored since) is reported as stale, not
silently re-run; delete the corrected run to start over.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adhere.artifacts import (
    INSTANCES,
    SPECS,
    RolloutStore,
    feedback_run_name,
    open_rollout,
)
from adhere.core import Instance, Trial
from adhere.errors import SpecError
from adhere.judging import (
    FEEDBACK_FORMAT,
    Placement,
    feedback_items,
    inject_feedback,
    render_feedback,
)
from adhere.spec import Benchmark, JudgePanel, ObjectMeta, Rollout, RunConfig, parse_resource
from adhere.store import open_store

FEEDBACK_OF = "adhere.dev/feedback-of"
"""Annotation of a corrected run's Rollout: the rollout whose failures it fed back."""
FEEDBACK_PLACEMENT = "adhere.dev/feedback-placement"
"""Annotation of a corrected run's Rollout: where the feedback went."""


@dataclass(frozen=True)
class CorrectedTrial:
    """A trial to run again with its failures fed back."""

    source: Trial
    trial: Trial
    instance: Instance
    failed: tuple[str, ...]
    feedback: str


@dataclass(frozen=True)
class CarriedTrial:
    """A trial copied over unchanged (it failed no check)."""

    source: Trial
    trial: Trial


@dataclass(frozen=True)
class FeedbackPlan:
    """What ``adhere feedback`` will do: the source run, the corrected run, its trials."""

    source: RolloutStore
    target: RolloutStore
    config: RunConfig
    placement: Placement
    instances: dict[str, Instance]
    corrected: list[CorrectedTrial]
    carried: list[CarriedTrial]

    def record(self, item: CorrectedTrial | CarriedTrial) -> dict[str, Any]:
        """The ``feedback.json`` of one trial."""
        base: dict[str, Any] = {
            "format": FEEDBACK_FORMAT,
            "placement": self.placement,
            "source_rollout": self.source.rollout,
            "source_trial": item.source.id,
        }
        if isinstance(item, CarriedTrial):
            return {**base, "corrected": False, "failed_checks": [], "feedback": ""}
        return {
            **base,
            "corrected": True,
            "failed_checks": list(item.failed),
            "feedback": item.feedback,
            "turns": list(item.instance.turns),
        }


def _snapshot(store: RolloutStore) -> tuple[Rollout, Benchmark, JudgePanel | None]:
    where = store.where(SPECS)
    if not store.has_specs():
        raise SpecError(f"the rollout has no spec snapshot ({SPECS})", file=where)
    found: dict[str, Any] = {}
    for index, document in enumerate(store.read_specs()):
        resource = parse_resource(document, file=where, index=index)
        found.setdefault(resource.kind, resource)
    rollout, benchmark, panel = (
        found.get("Rollout"),
        found.get("Benchmark"),
        found.get("JudgePanel"),
    )
    if not isinstance(rollout, Rollout) or not isinstance(benchmark, Benchmark):
        raise SpecError("the snapshot needs a Rollout and its Benchmark", file=where)
    return rollout, benchmark, panel if isinstance(panel, JudgePanel) else None


def _default_target(source_dir: Path, rollout: str, placement: Placement) -> Path:
    name = feedback_run_name(rollout, placement)
    if len(name) > 63:
        raise SpecError(
            f"the default name {name!r} is longer than 63 characters; give --out",
            field="--out",
        )
    return (source_dir.parent / name).resolve()


def plan_feedback(
    run: str | Path | RolloutStore,
    *,
    out: str | Path | None = None,
    placement: Placement = "append",
    max_reason: int = 300,
    scaffold: str | None = None,
) -> FeedbackPlan:
    """Read the stored run and decide which trials are corrected and which carried over.

    ``scaffold``: only that scaffold's trials are corrected; the others are carried
    over (a scaffold no trial ran under is an error). Writes the corrected run's
    snapshot and instances (nothing else).
    """
    source = run if isinstance(run, RolloutStore) else open_rollout(run)
    rollout, benchmark, panel = _snapshot(source)
    source_dir = source.store.local_path(source.rollout)
    if source_dir is None and out is None:
        # An object store (s3://): the corrected run goes beside RUN in the same store.
        target_name = feedback_run_name(source.rollout, placement)
        target = RolloutStore(source.store, target_name)  # a name too long fails below
        storage, base_dir = source.store.uri, Path.cwd()
    else:
        base = source_dir.resolve() if source_dir is not None else None
        if out is not None:
            out_dir = Path(out).resolve()
        else:
            assert base is not None  # the object-store case is above
            out_dir = _default_target(base, source.rollout, placement)
        if out_dir == base:
            raise SpecError("the corrected run needs its own directory", field="--out")
        target_name = out_dir.name
        target = RolloutStore(open_store(str(out_dir.parent)), target_name)
        storage = out_dir.parent.as_uri()
        base_dir = base.parent if base is not None else Path.cwd()
    name = target_name
    annotations = {
        **rollout.metadata.annotations,
        FEEDBACK_OF: rollout.metadata.name,
        FEEDBACK_PLACEMENT: placement,
    }
    try:
        metadata = ObjectMeta(name=name, labels=rollout.metadata.labels, annotations=annotations)
    except ValueError:
        raise SpecError(
            f"{name!r} cannot name a rollout: it must be a DNS-1123 label (lower-case letters, "
            "digits and '-', at most 63 characters)",
            file=target.uri,
            field="--out",
        ) from None
    spec = rollout.spec.model_copy(update={"baseline": rollout.metadata.name, "storage": storage})
    new_rollout = rollout.model_copy(update={"metadata": metadata, "spec": spec, "status": None})
    _check_target(target, rollout.metadata.name, placement)
    instances = {i.id: i for i in source.read_instances()}
    stored_trials = sorted(source.iter_trials(), key=lambda s: _order(s.result.trial))
    ran_under = sorted({s.result.trial.scaffold for s in stored_trials})
    if scaffold is not None and scaffold not in ran_under:
        raise SpecError(
            f"no trial of {source.rollout} ran under the scaffold {scaffold!r} "
            f"(its scaffolds: {', '.join(ran_under) or 'none'})",
            field="--scaffold",
        )
    config = RunConfig(
        rollout=new_rollout,
        benchmark=benchmark,
        judge_panel=panel,
        base_dir=base_dir,
    )
    corrected: list[CorrectedTrial] = []
    carried: list[CarriedTrial] = []
    for stored in stored_trials:
        old = stored.result.trial
        trial = old.model_copy(update={"rollout": name})
        instance = instances.get(old.instance)
        if instance is None:
            raise SpecError(
                f"trial {old.id} names instance {old.instance!r}, which {INSTANCES} lacks",
                file=source.where(INSTANCES),
            )
        items = feedback_items(instance, stored.verdicts)
        other = scaffold is not None and old.scaffold != scaffold
        if stored.result.status != "ok" or not items or other:
            carried.append(CarriedTrial(source=old, trial=trial))
            continue
        block = render_feedback(items, max_reason=max_reason)
        corrected.append(
            CorrectedTrial(
                source=old,
                trial=trial,
                instance=inject_feedback(instance, block, placement=placement),
                failed=tuple(i.check_id for i in items),
                feedback=block,
            )
        )
    documents = [
        r.model_dump(mode="json", by_alias=True, exclude_none=True)
        for r in (new_rollout, benchmark, panel)
        if r is not None
    ]
    target.write_specs(documents)
    target.write_instances(instances.values())
    return FeedbackPlan(
        source=source,
        target=target,
        config=config,
        placement=placement,
        instances=instances,
        corrected=corrected,
        carried=carried,
    )


def _order(trial: Trial) -> tuple[str, str, str, int]:
    return (trial.model, trial.scaffold, trial.instance, trial.repeat)


def _check_target(target: RolloutStore, source: str, placement: Placement) -> None:
    """A corrected run may only be continued by the same source and placement."""
    if not target.has_specs():
        if not target.is_empty():
            raise SpecError(
                "the directory exists and is not a corrected run; choose another --out",
                file=target.uri,
            )
        return
    rollout, _, _ = _snapshot(target)
    annotations = rollout.metadata.annotations
    if annotations.get(FEEDBACK_OF) != source:
        raise SpecError(
            f"this is not a corrected run of {source!r} (it holds "
            f"{annotations.get(FEEDBACK_OF) or 'another rollout'}); choose another --out",
            file=target.uri,
        )
    if annotations.get(FEEDBACK_PLACEMENT) != placement:
        raise SpecError(
            f"this corrected run put its feedback {annotations.get(FEEDBACK_PLACEMENT)!r}, not "
            f"{placement!r}; choose another --out",
            file=target.uri,
        )


def read_record(store: RolloutStore, trial: Trial) -> dict[str, Any] | None:
    """A trial's ``feedback.json``, or ``None`` when it has none."""
    return store.read_feedback(trial)
