"""``adhere feedback RUN``: feed failed checks back to the agent and run the trials again.

For every finished trial of the stored rollout ``RUN`` (its artifact directory):

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

The corrected run is a rollout of its own (default: ``<RUN>-feedback`` beside RUN,
``<RUN>-feedback-turn`` for new-turn feedback). Its trials keep RUN's model,
scaffold, instance id and repeat, so ``trials/<model>/<scaffold>/<instance>/r<n>/``
mirrors RUN and the reports line up; trial ids are the usual stable hashes under the
new rollout name. Its snapshot (``rollout.yaml``) is RUN's, renamed, with
``spec.baseline`` set to RUN and the annotations ``adhere.dev/feedback-of`` and
``adhere.dev/feedback-placement``; ``instances.jsonl`` holds RUN's instances (the
checks are the same), and each trial's ``feedback.json`` records what was fed back:
the failed check ids, the block, and the user turns as sent (``corrected: false``
for a carried trial).

Re-invoking continues: finished corrected trials are skipped, unfinished or failed
ones run (again), carried trials are copied again. A corrected trial whose feedback
no longer matches RUN's verdicts (RUN was re-scored since) is reported as stale, not
silently re-run; delete the corrected run to start over.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from adhere.errors import SpecError
from adhere.judging import PanelJudge
from adhere.judging._feedback import (
    FEEDBACK_FORMAT,
    Placement,
    feedback_items,
    inject_feedback,
    render_feedback,
)
from adhere.runner._config import RunConfig
from adhere.runner._engine import Engine, ModelTarget, NoProgress, Progress, RunSummary
from adhere.runner._results import open_rollout_dir
from adhere.runner._run import (
    Prepared,
    _ProxyCalls,
    _scaffolds,
    _services,
    judge_endpoints,
    suite_lookup,
)
from adhere.runner._scoring import JudgeAsks, ScoreSummary, score_trial
from adhere.runner._workspace import default_work_root
from adhere.scaffolds import default_cache_dir
from adhere.spec import (
    Benchmark,
    Instance,
    JudgePanel,
    ObjectMeta,
    Rollout,
    Trial,
    TrialResult,
    parse_resource,
)
from adhere.store import RolloutStore, StoreVerdictCache, open_store

FEEDBACK_OF = "adhere.dev/feedback-of"
"""Annotation of a corrected run's Rollout: the rollout whose failures it fed back."""
FEEDBACK_PLACEMENT = "adhere.dev/feedback-placement"
"""Annotation of a corrected run's Rollout: where the feedback went."""
FEEDBACK_FILE = "feedback.json"
"""Per-trial record of what was fed back (or that the trial was carried over)."""

_SUFFIX: Mapping[Placement, str] = {
    "append": "feedback",
    "prepend": "feedback-prepend",
    "new-turn": "feedback-turn",
}


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


@dataclass
class FeedbackSummary:
    """What a feedback run did."""

    corrected: int = 0
    carried: int = 0
    run: RunSummary = field(default_factory=RunSummary)
    scoring: ScoreSummary = field(default_factory=ScoreSummary)
    stale: list[str] = field(default_factory=list)
    """Corrected trials run with feedback that no longer matches the source's verdicts."""


def _snapshot(store: RolloutStore) -> tuple[Rollout, Benchmark, JudgePanel | None]:
    key = store.key("rollout.yaml")
    where = f"{store.uri}/rollout.yaml"
    if not store.store.exists(key):
        raise SpecError("the rollout has no spec snapshot (rollout.yaml)", file=where)
    text = store.store.read_bytes(key).decode("utf-8")
    found: dict[str, Any] = {}
    for index, document in enumerate(yaml.safe_load_all(text)):
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


def _target_store(source_dir: Path, rollout: str, out: Path | None, placement: Placement) -> Path:
    if out is None:
        name = f"{rollout}-{_SUFFIX[placement]}"
        if len(name) > 63:
            raise SpecError(
                f"the default name {name!r} is longer than 63 characters; give --out",
                field="--out",
            )
        return source_dir.parent / name
    return out


def plan_feedback(
    run_dir: str | Path,
    *,
    out: str | Path | None = None,
    placement: Placement = "append",
    max_reason: int = 300,
) -> FeedbackPlan:
    """Read the stored run and decide which trials are corrected and which carried over.

    Writes the corrected run's snapshot and instances (nothing else).
    """
    source = open_rollout_dir(run_dir)
    source_dir = Path(run_dir).resolve()
    rollout, benchmark, panel = _snapshot(source)
    out_dir = _target_store(source_dir, source.rollout, Path(out) if out else None, placement)
    out_dir = out_dir.resolve()
    if out_dir == source_dir:
        raise SpecError("the corrected run needs its own directory", field="--out")
    name = out_dir.name
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
            file=str(out_dir),
            field="--out",
        ) from None
    spec = rollout.spec.model_copy(
        update={"baseline": rollout.metadata.name, "storage": out_dir.parent.as_uri()}
    )
    new_rollout = rollout.model_copy(update={"metadata": metadata, "spec": spec, "status": None})
    target = RolloutStore(open_store(str(out_dir.parent)), name)
    _check_target(target, rollout.metadata.name, placement)
    instances = {i.id: i for i in source.read_instances()}
    config = RunConfig(
        rollout=new_rollout,
        benchmark=benchmark,
        judge_panel=panel,
        base_dir=source_dir.parent,
    )
    corrected: list[CorrectedTrial] = []
    carried: list[CarriedTrial] = []
    for stored in sorted(source.iter_trials(), key=lambda s: _order(s.result.trial)):
        old = stored.result.trial
        trial = old.model_copy(update={"rollout": name})
        instance = instances.get(old.instance)
        if instance is None:
            raise SpecError(
                f"trial {old.id} names instance {old.instance!r}, which instances.jsonl lacks",
                file=f"{source.uri}/instances.jsonl",
            )
        items = feedback_items(instance, stored.verdicts)
        if stored.result.status != "ok" or not items:
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
    key = target.key("rollout.yaml")
    if not target.store.exists(key):
        if any(True for _ in target.store.list(target.key(""))):
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


def carry_over(plan: FeedbackPlan, item: CarriedTrial) -> bool:
    """Copy one trial's artifacts into the corrected run (``False``: left as it was).

    A trial the corrected run already ran with feedback is left alone (it is stale).
    """
    target, source = plan.target, plan.source
    existing = _record(target, item.trial)
    if existing is not None and existing.get("corrected"):
        return False
    prefix = source.trial_key(item.source, "")
    for key in source.store.list(prefix):
        rest = key[len(prefix) :]
        if "/" in rest or rest == "result.json":
            continue
        target.store.write_bytes(target.trial_key(item.trial, rest), source.store.read_bytes(key))
    target.write_json(item.trial, FEEDBACK_FILE, plan.record(item))
    result = source.read_result(item.source)
    assert result is not None
    target.write_result(result.model_copy(update={"trial": item.trial, "trial_id": item.trial.id}))
    return True


def _record(store: RolloutStore, trial: Trial) -> dict[str, Any] | None:
    if not store.store.exists(store.trial_key(trial, FEEDBACK_FILE)):
        return None
    data = store.read_json(trial, FEEDBACK_FILE)
    return data if isinstance(data, dict) else None


class _Shared:
    """One progress display for several engines (each reports its own trials)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def start(self, total: int, skipped: int) -> None:
        """Ignore: the feedback run announces the whole total once."""

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """Forward."""
        self.progress.finished(trial, result)


async def run_feedback(plan: FeedbackPlan, *, progress: Progress | None = None) -> FeedbackSummary:
    """Carry over, run the corrected trials not yet finished, score them."""
    summary = FeedbackSummary(corrected=len(plan.corrected))
    for carried in plan.carried:
        if carry_over(plan, carried):
            summary.carried += 1
        else:
            summary.stale.append(f"{carried.trial.id} (its source now fails no check)")
    todo: list[CorrectedTrial] = []
    for item in plan.corrected:
        existing = _record(plan.target, item.trial)
        done = plan.target.is_done(item.trial)
        if done and existing is not None and existing.get("feedback") != item.feedback:
            summary.stale.append(f"{item.trial.id} (its source's failed checks changed)")
            continue
        if not done:
            plan.target.write_json(item.trial, FEEDBACK_FILE, plan.record(item))
        todo.append(item)
    shown = progress or NoProgress()
    shown.start(len(plan.corrected), sum(plan.target.is_done(i.trial) for i in plan.corrected))
    prepared = Prepared(
        config=plan.config,
        suite=suite_lookup(plan.config),
        instances=list(plan.instances.values()),
        trials=[i.trial for i in todo],
        store=plan.target,
        scaffolds=_scaffolds(plan.config),
    )
    cache_dir = default_cache_dir()
    for scaffold in prepared.scaffolds.values():
        await scaffold.install(cache_dir)
    async with _services(prepared) as (calls, targets):
        summary.run = await _run_groups(prepared, todo, calls, targets, cache_dir, _Shared(shown))
        for item in todo:  # a retried trial's earlier attempt took its record along
            plan.target.write_json(item.trial, FEEDBACK_FILE, plan.record(item))
        summary.scoring = await _score(prepared, todo, calls.scripted_url)
    return summary


async def _run_groups(
    prepared: Prepared,
    todo: Sequence[CorrectedTrial],
    calls: _ProxyCalls,
    targets: Mapping[str, ModelTarget],
    cache_dir: Path,
    progress: Progress,
) -> RunSummary:
    """Run the corrected trials: one engine per model × scaffold × repeat.

    An engine looks instances up by id, and the same instance carries different
    feedback for each model, scaffold and repeat; within one such group every id has
    one corrected instance. At most ``parallelism`` trials are in flight overall.
    """
    groups: dict[tuple[str, str, int], list[CorrectedTrial]] = defaultdict(list)
    for item in todo:
        groups[(item.trial.model, item.trial.scaffold, item.trial.repeat)].append(item)
    total = RunSummary(planned=len(todo))
    if not groups:
        return total
    parallelism = prepared.config.rollout.spec.parallelism
    at_once = min(len(groups), parallelism)
    gate = asyncio.Semaphore(at_once)
    spec = prepared.config.rollout.spec
    work_root = Path(os.environ.get("ADHERE_WORK_DIR") or default_work_root())

    async def one(items: list[CorrectedTrial]) -> RunSummary:
        async with gate:
            engine = Engine(
                store=prepared.store,
                instances=[i.instance for i in items],
                suite_for=lambda _name: prepared.suite,
                scaffolds=prepared.scaffolds,
                timeouts={s.name: s.timeout_seconds for s in spec.scaffolds},
                models=targets,
                calls=calls,
                work_root=work_root,
                cache_dir=cache_dir,
                parallelism=max(1, parallelism // at_once),
                progress=progress,
                secrets=calls.secrets,
            )
            return await engine.run([i.trial for i in items])

    for part in await asyncio.gather(*(one(items) for _, items in sorted(groups.items()))):
        total.skipped += part.skipped
        total.ran += part.ran
        total.ok += part.ok
        total.failed += part.failed
        total.seconds = max(total.seconds, part.seconds)
        total.errors += part.errors[: max(0, 20 - len(total.errors))]
    return total


async def _score(
    prepared: Prepared, todo: Sequence[CorrectedTrial], scripted_url: str | None
) -> ScoreSummary:
    """Score the finished corrected trials (carried trials keep their verdicts)."""
    summary = ScoreSummary()
    panel = prepared.config.judge_panel
    store = prepared.store
    async with AsyncExitStack() as stack:
        asks = JudgeAsks(judge_endpoints(panel, scripted_url)) if panel is not None else None
        if asks is not None:
            stack.push_async_callback(asks.aclose)
        judges = (
            [PanelJudge(j.name, j.endpoint.model, asks.ask_for(j.name)) for j in panel.spec.judges]
            if panel is not None and asks is not None
            else []
        )
        cache = StoreVerdictCache(store.store)
        gate = asyncio.Semaphore(prepared.config.rollout.spec.parallelism)

        async def one(item: CorrectedTrial) -> None:
            async with gate:
                await score_trial(
                    item.trial, item.instance, store, prepared.suite, judges, panel, cache, summary
                )
                summary.trials += 1

        await asyncio.gather(*(one(i) for i in todo if store.is_done(i.trial)))
        summary.judge_calls = asks.calls if asks is not None else 0
    return summary
