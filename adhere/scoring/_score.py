"""Scoring a rollout's finished trials: suite checks, verifiers, then the judge panel.

For every trial that finished ``ok``:

1. the suite decides its own checks (PACIFIC answers, …);
2. checks bound to a deterministic verifier are decided by it;
3. the remaining checks go to the rollout's JudgePanel (if any): every judge sees
   the trajectory and the checklist; verdicts are cached by content, so re-scoring
   an unchanged rollout makes no judge call.

``verdicts.json`` holds one verdict per check (judge-decided checks by majority
vote); ``judge_verdicts.json`` holds each judge's own verdicts, from which
``mean`` panels compute scores per judge; for a conflict instance
``conflict_verdicts.json`` holds each judge's attribution of the side the run
followed (:mod:`adhere.scoring._conflict`). Checks left undecided (no verifier, no
panel) have no verdict and the report says so.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from adhere.artifacts import JudgeCallRecord, RolloutStore
from adhere.core import Check, Evidence, Instance, Trajectory, Trial, Verdict
from adhere.judging import (
    PanelJudge,
    PanelResult,
    VerdictCache,
    VerifyContext,
    needs_judge,
    run_check,
    run_panel,
)
from adhere.scoring._conflict import judge_conflict_trial
from adhere.scoring._evidence import gather_evidence
from adhere.scoring._judge_asks import JudgeAsks
from adhere.scoring._judge_calls import judge_call_log
from adhere.spec import Endpoint, JudgePanel
from adhere.suites import Suite


@dataclass
class ScoreSummary:
    """What a scoring pass did."""

    trials: int = 0
    suite_verdicts: int = 0
    verifier_verdicts: int = 0
    judged_checks: int = 0
    undecided_checks: int = 0
    judge_calls: int = 0
    errors: int = 0
    """``error`` verdicts among the stored ones (suite, verifier or the panel's vote)."""
    stale: int = 0
    """Stored trials of instances the benchmark no longer holds (not scored)."""
    judge_errors: dict[str, int] = field(default_factory=dict)
    """Per judge, its own ``error`` verdicts (a ``mean`` panel scores each judge's)."""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    attributions: int = 0
    """Judge attributions of conflict trials (which side a run followed)."""
    attribution_errors: int = 0
    """Of them, those with no usable answer (the run is undecided in Table 4, never a side)."""

    @property
    def complete(self) -> bool:
        """Every check of every scored trial was decided, by every judge."""
        return (
            self.undecided_checks == 0
            and self.errors == 0
            and not any(self.judge_errors.values())
            and not self.problems
        )

    def describe(self) -> str:
        """One line: what decided the checks, and what is left undecided or errored."""
        judges = ", ".join(f"{name} {n}" for name, n in sorted(self.judge_errors.items()) if n)
        return (
            f"{self.suite_verdicts} suite verdicts, {self.verifier_verdicts} by verifiers, "
            f"{self.judged_checks} judged ({self.judge_calls} judge calls), "
            f"{self.undecided_checks} undecided, {self.errors} errored"
            + (f"; judges' own errored verdicts: {judges}" if judges else "")
            + (
                f"; {self.attributions} conflict attributions ({self.attribution_errors} errored)"
                if self.attributions
                else ""
            )
            + (
                f"; {self.stale} stored trial(s) of instances no longer in the benchmark not scored"
                if self.stale
                else ""
            )
        )


@dataclass(frozen=True)
class DecidedChecks:
    """What a trial's suite and verifiers decided, and the checks left for the judges.

    Attributes:
        verdicts: Check id → verdict, for the checks decided so far.
        suite_verdicts: How many of them the suite decided.
        verifier_verdicts: How many of them a deterministic verifier decided.
        to_judge: The remaining checks, in the instance's order.
        calls: Records of the judge-panel calls a suite's evidence requests made (the Ray
            verification actors send them back; in process they are logged as made).
    """

    verdicts: dict[str, Verdict]
    suite_verdicts: int
    verifier_verdicts: int
    to_judge: list[Check]
    calls: tuple[JudgeCallRecord, ...] = ()


def decide_checks(
    instance: Instance,
    trajectory: Trajectory,
    suite: Suite,
    evidence: Mapping[str, Evidence] | None = None,
) -> DecidedChecks:
    """Run the suite's own scoring, then every bound deterministic verifier (pure).

    ``evidence``: what :func:`~adhere.scoring._evidence.gather_evidence` collected for
    a suite that asks for it (sandboxed test runs, Ruff diagnostics).
    """
    scored = (
        suite.score(instance, trajectory)
        if evidence is None
        else suite.score(instance, trajectory, evidence=evidence)  # type: ignore[call-arg]
    )
    verdicts: dict[str, Verdict] = {v.check_id: v for v in scored}
    suite_count = len(verdicts)
    context = VerifyContext.build(instance, trajectory)
    verified = 0
    for check in instance.checks:
        if check.id not in verdicts and not needs_judge(check):
            verdicts[check.id] = run_check(check, context)
            verified += 1
    to_judge = [c for c in instance.checks if c.id not in verdicts]
    return DecidedChecks(verdicts, suite_count, verified, to_judge)


async def judge_checks(
    judges: Sequence[PanelJudge],
    checks: Sequence[Check],
    trajectory: Trajectory,
    panel: JudgePanel,
    cache: VerdictCache | None,
) -> PanelResult:
    """Run the panel over the checks left for the judges (options from the JudgePanel)."""
    return await run_panel(
        judges,
        checks,
        trajectory,
        aggregation=panel.spec.aggregation,
        cache=cache,
        prompt_version=panel.spec.prompt_version,
    )


def record_trial(
    store: RolloutStore,
    trial: Trial,
    instance: Instance,
    decided: DecidedChecks,
    judged: PanelResult | None,
    summary: ScoreSummary,
) -> None:
    """Count a scored trial in ``summary`` and write its verdicts (``None``: not judged)."""
    verdicts = dict(decided.verdicts)
    summary.suite_verdicts += decided.suite_verdicts
    summary.verifier_verdicts += decided.verifier_verdicts
    per_judge: Mapping[str, Sequence[Verdict]] = {}
    if judged is not None:
        for verdict in judged.majority:
            verdicts[verdict.check_id] = verdict
        per_judge = judged.per_judge
        summary.judged_checks += len(decided.to_judge)
        for name, found in per_judge.items():
            errored = sum(1 for v in found if v.result == "error")
            summary.judge_errors[name] = summary.judge_errors.get(name, 0) + errored
    else:
        summary.undecided_checks += len(decided.to_judge)
    ordered = [verdicts[c.id] for c in instance.checks if c.id in verdicts]
    summary.errors += sum(1 for v in ordered if v.result == "error")
    store.write_verdicts(trial, ordered)
    store.write_judge_verdicts(trial, per_judge)


async def score_trial(
    trial: Trial,
    instance: Instance,
    store: RolloutStore,
    suite: Suite,
    judges: Sequence[PanelJudge],
    panel: JudgePanel | None,
    cache: VerdictCache | None,
    summary: ScoreSummary,
) -> None:
    """Decide every check of one finished trial and store the verdicts."""
    trajectory = store.read_trajectory(trial)
    if trajectory is None:
        summary.problems.append(f"{trial.id}: no trajectory stored")
        return
    evidence = await gather_evidence(suite, instance, trajectory, judges if panel else None, cache)
    decided = decide_checks(instance, trajectory, suite, evidence)
    judged = None
    if decided.to_judge and judges and panel is not None:
        judged = await judge_checks(judges, decided.to_judge, trajectory, panel, cache)
    record_trial(store, trial, instance, decided, judged, summary)
    attributions = await judge_conflict_trial(
        store, trial, instance, trajectory, judges if panel is not None else [], cache
    )
    count_attributions(summary, attributions)


def count_attributions(summary: ScoreSummary, found: Mapping[str, Verdict] | None) -> None:
    """Count a trial's conflict attributions (``None``: not a conflict trial) in ``summary``."""
    for verdict in (found or {}).values():
        summary.attributions += 1
        summary.attribution_errors += verdict.result == "error"


def ok_trials(
    store: RolloutStore,
    instances: Mapping[str, Instance] | None = None,
    summary: ScoreSummary | None = None,
) -> list[Trial]:
    """The trials a scoring pass scores: every one that finished ``ok``.

    With ``instances``, only trials of those instances: a trial of an instance the
    benchmark no longer holds (stored by an earlier config) is not scored, and is
    counted in ``summary.stale``.
    """
    found = [s.result.trial for s in store.iter_trials() if s.result.status == "ok"]
    if instances is None:
        return found
    kept = [t for t in found if t.instance in instances]
    if summary is not None:
        summary.stale += len(found) - len(kept)
    return kept


class Scorer(Protocol):
    """A scoring pass: the one signature the runner, ``adhere score`` and the operator call.

    Implementations: :func:`score_rollout` (in process) and
    :func:`adhere.ray_jobs.score_rollout_on_ray` with its Ray settings bound
    (:func:`adhere.ray_jobs.ray_scorer`). Both write the same verdicts.

    Args:
        store: The rollout's store (trajectories in, verdicts out).
        instances: Instances by id (the rollout's snapshot).
        suite_for: The suite of a suite name.
        panel: The JudgePanel, or ``None`` to leave judge-bound checks undecided.
        judge_endpoints: Judge name → endpoint, ``scripted`` resolved to a URL.
        cache: Verdict cache (judge verdicts by content).
        parallelism: Trials scored at once.
        on_trial: Called after each trial's verdicts are written.
    """

    async def __call__(
        self,
        store: RolloutStore,
        instances: Mapping[str, Instance],
        suite_for: Callable[[str], Suite],
        *,
        panel: JudgePanel | None,
        judge_endpoints: Mapping[str, Endpoint] | None = None,
        cache: VerdictCache | None = None,
        parallelism: int = 8,
        on_trial: Callable[[Trial], None] | None = None,
    ) -> ScoreSummary:
        """Score every trial of the rollout that finished ``ok``."""
        ...


async def score_rollout(
    store: RolloutStore,
    instances: Mapping[str, Instance],
    suite_for: Callable[[str], Suite],
    *,
    panel: JudgePanel | None,
    judge_endpoints: Mapping[str, Endpoint] | None = None,
    cache: VerdictCache | None = None,
    parallelism: int = 8,
    on_trial: Callable[[Trial], None] | None = None,
) -> ScoreSummary:
    """Score every trial of the rollout that finished ``ok`` (a :class:`Scorer`)."""
    started = time.monotonic()
    summary = ScoreSummary()
    trials = ok_trials(store, instances, summary)
    asks = (
        JudgeAsks(judge_endpoints or {}, on_record=judge_call_log(store))
        if panel is not None
        else None
    )
    judges = asks.judges(panel) if panel is not None and asks is not None else []
    semaphore = asyncio.Semaphore(parallelism)

    async def one(trial: Trial) -> None:
        async with semaphore:
            instance = instances[trial.instance]
            await score_trial(
                trial, instance, store, suite_for(instance.suite), judges, panel, cache, summary
            )
            summary.trials += 1
            if on_trial is not None:
                on_trial(trial)

    try:
        await asyncio.gather(*(one(t) for t in trials))
    finally:
        if asks is not None:
            summary.judge_calls = asks.calls
            await asks.aclose()
        summary.seconds = time.monotonic() - started
    return summary
