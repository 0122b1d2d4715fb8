"""Running a feedback plan: carry trials over, run the corrected ones, score them.

See :mod:`adhere.workflows._feedback` for what is corrected and what is carried over.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from adhere.artifacts import StoreVerdictCache
from adhere.core import Trial, TrialResult
from adhere.models import Served
from adhere.runner import (
    Engine,
    ModelTarget,
    NoProgress,
    Prepared,
    Progress,
    ProxyCalls,
    RunSummary,
    check_sandbox,
    default_work_root,
    judge_endpoints,
    plan_rollout,
    run_services,
    sandbox_limits,
    suite_lookup,
)
from adhere.scaffolds import default_cache_dir
from adhere.scoring import JudgeAsks, ScoreSummary, judge_call_log, score_trial
from adhere.workflows._feedback import (
    CarriedTrial,
    CorrectedTrial,
    FeedbackPlan,
    read_record,
)


@dataclass
class FeedbackSummary:
    """What a feedback run did."""

    corrected: int = 0
    carried: int = 0
    run: RunSummary = field(default_factory=RunSummary)
    scoring: ScoreSummary = field(default_factory=ScoreSummary)
    stale: list[str] = field(default_factory=list)
    """Corrected trials run with feedback that no longer matches the source's verdicts."""


def carry_over(plan: FeedbackPlan, item: CarriedTrial) -> bool:
    """Copy one trial's artifacts into the corrected run (``False``: left as it was).

    A trial the corrected run already ran with feedback is left alone (it is stale).
    """
    target, source = plan.target, plan.source
    existing = read_record(target, item.trial)
    if existing is not None and existing.get("corrected"):
        return False
    target.copy_trial(source, item.source, item.trial)
    target.write_feedback(item.trial, plan.record(item))
    result = source.read_result(item.source)
    assert result is not None
    target.write_result(result.model_copy(update={"trial": item.trial, "trial_id": item.trial.id}))
    return True


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
        existing = read_record(plan.target, item.trial)
        done = plan.target.is_done(item.trial)
        if done and existing is not None and existing.get("feedback") != item.feedback:
            summary.stale.append(f"{item.trial.id} (its source's failed checks changed)")
            continue
        if not done:
            plan.target.write_feedback(item.trial, plan.record(item))
        todo.append(item)
    shown = progress or NoProgress()
    shown.start(len(plan.corrected), sum(plan.target.is_done(i.trial) for i in plan.corrected))
    trial_plan, scaffolds = plan_rollout(plan.config, list(plan.instances.values()))
    prepared = Prepared(
        config=plan.config,
        suite=suite_lookup(plan.config),
        # the scripted policy server's answer key places requests by their text
        instances=[*plan.instances.values(), *(i.instance for i in plan.corrected)],
        trials=[i.trial for i in todo],
        store=plan.target,
        scaffolds=scaffolds,
        plan=trial_plan,
    )
    cache_dir = default_cache_dir()
    for scaffold in prepared.scaffolds.values():
        await scaffold.install(cache_dir)
    async with run_services(prepared) as (calls, targets):
        summary.run = await _run_groups(prepared, todo, calls, targets, cache_dir, _Shared(shown))
        for item in todo:  # a retried trial's earlier attempt took its record along
            plan.target.write_feedback(item.trial, plan.record(item))
        summary.scoring = await _score(prepared, todo, calls.served)
    return summary


async def _run_groups(
    prepared: Prepared,
    todo: Sequence[CorrectedTrial],
    calls: ProxyCalls,
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
    work_root = Path(os.environ.get("ADHERE_WORK_DIR") or default_work_root())
    sandboxed, limits = check_sandbox(prepared), sandbox_limits(prepared)

    async def one(items: list[CorrectedTrial]) -> RunSummary:
        async with gate:
            engine = Engine(
                store=prepared.store,
                instances=[i.instance for i in items],
                suite_for=lambda _name: prepared.suite,
                scaffolds=prepared.scaffolds,
                timeouts=prepared.plan.timeouts(),
                models=targets,
                calls=calls,
                work_root=work_root,
                cache_dir=cache_dir,
                parallelism=max(1, parallelism // at_once),
                progress=progress,
                secrets=calls.secrets,
                sandbox=sandboxed,
                sandbox_limits=limits,
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
    prepared: Prepared, todo: Sequence[CorrectedTrial], served: Served
) -> ScoreSummary:
    """Score the finished corrected trials (carried trials keep their verdicts)."""
    summary = ScoreSummary()
    panel = prepared.config.judge_panel
    store = prepared.store
    async with AsyncExitStack() as stack:
        asks = (
            JudgeAsks(judge_endpoints(panel, served), on_record=judge_call_log(store))
            if panel is not None
            else None
        )
        if asks is not None:
            stack.push_async_callback(asks.aclose)
        judges = asks.judges(panel) if panel is not None and asks is not None else []
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
