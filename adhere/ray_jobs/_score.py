"""The scoring pass on Ray: the same steps as the in-process pass, fanned out to actor pools.

For every trial that finished ``ok`` the driver reads the trajectory, sends it to a
verification actor (suite checks, then bound verifiers: :func:`decide_checks`; with
the cached panel replies to the suite's questions, e.g. GuideBench's ``parse: llm``), and
the checks left over to a judge actor (the JudgePanel: :func:`judge_checks`), with
the cached verdicts it read for them. It then writes ``verdicts.json`` and
``judge_verdicts.json`` (:func:`record_trial`) and the judges' new cache entries as
each trial finishes, so a crash loses only the trials in flight. Store I/O stays on
the driver: actors need neither the store nor its credentials.

Verdicts are those of the in-process pass (:func:`adhere.scoring._score.score_rollout`)
because both run the same pure functions on the same inputs. Results are gathered
with ``ray.wait`` (in a thread, so the driver's event loop — which may be serving the
scripted policy server the judges call — keeps running).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adhere.artifacts import JudgeCallRecord, RolloutStore, append_judge_calls
from adhere.core import Check, Instance, ModelAsk, Trajectory, Trial, Verdict
from adhere.errors import AdhereError, ClusterError
from adhere.judging import (
    ConflictQuestion,
    VerdictCache,
    cache_key,
    conflict_cache_key,
    needs_judge,
    served_at,
    trajectory_digest,
)
from adhere.ray_jobs._pools import Pools, start_pools
from adhere.ray_jobs._session import ray_session
from adhere.ray_jobs._workers import Judged, Verified
from adhere.scoring import (
    DecidedChecks,
    Scorer,
    ScoreSummary,
    ask_cache_key,
    conflict_question,
    count_attributions,
    ok_trials,
    record_trial,
    wants_evidence,
)
from adhere.spec import Endpoint, JudgePanel
from adhere.suites import Suite

__all__ = ["RayScoreSummary", "ray_scorer", "score_rollout_on_ray"]

_WAIT_SECONDS = 1.0
"""Longest single ``ray.wait``; the loop can stop between waits."""


@dataclass
class RayScoreSummary(ScoreSummary):
    """A :class:`ScoreSummary` plus what the actors did.

    Attributes:
        verify_actors: Verification actors used.
        judge_actors: Judge actors used.
        calls_per_judge_actor: Judge calls each judge actor made.
        limiters: Limiter actor name → its stats (leases granted, most held at once,
            grant times), one per judge endpoint.
    """

    verify_actors: int = 0
    judge_actors: int = 0
    calls_per_judge_actor: list[int] = field(default_factory=list)
    limiters: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class _Job:
    trial: Trial
    instance: Instance
    trajectory: Trajectory
    trajectory_ref: Any
    pool: str = "verify"
    member: int = 0
    decided: DecidedChecks | None = None
    question: ConflictQuestion | None = None


def _cached_entries(
    cache: VerdictCache | None,
    panel: JudgePanel,
    checks: list[Check],
    trajectory: Trajectory,
    question: ConflictQuestion | None = None,
) -> dict[str, Verdict]:
    """The cache entries the panel's judges will look up for these checks (and conflict)."""
    if cache is None:
        return {}
    digest = trajectory_digest(trajectory)
    found: dict[str, Verdict] = {}
    for judge in panel.spec.judges:
        if question is not None:
            key = conflict_cache_key(
                question, digest, judge.endpoint.model, judge_endpoint=served_at(judge.endpoint)
            )
            hit = cache.get(key)
            if hit is not None:
                found[key] = hit
        for check in checks:
            if not needs_judge(check):
                continue
            key = cache_key(
                check,
                digest,
                judge.endpoint.model,
                panel.spec.prompt_version,
                served_at(judge.endpoint),
            )
            verdict = cache.get(key)
            if verdict is not None:
                found[key] = verdict
    return found


def _cached_asks(
    cache: VerdictCache | None,
    panel: JudgePanel | None,
    suite: Suite,
    instance: Instance,
    trajectory: Trajectory,
) -> dict[str, Verdict]:
    """The cached panel replies a verification actor will look up for the suite's questions."""
    if cache is None or panel is None or not wants_evidence(suite):
        return {}
    requests = suite.evidence(instance, trajectory)  # type: ignore[attr-defined]
    asks = [r for r in requests if isinstance(r, ModelAsk)]
    found: dict[str, Verdict] = {}
    for judge in panel.spec.judges:
        for request in asks:
            key = ask_cache_key(judge.endpoint.model, served_at(judge.endpoint), request)
            hit = cache.get(key)
            if hit is not None:
                found[key] = hit
    return found


def _unwrap(exc: Exception) -> Exception:
    """A Ray task error as the exception the in-process pass would have raised."""
    from ray.exceptions import RayActorError, RayTaskError

    if isinstance(exc, RayTaskError):
        cause = exc.cause
        if isinstance(cause, AdhereError | ValueError | TypeError | KeyError):
            return cause
        return ClusterError(f"a scoring actor failed: {type(cause).__name__}: {cause}")
    if isinstance(exc, RayActorError):
        return ClusterError(f"a scoring actor died: {exc}")
    return exc


class _Pass:
    """One scoring pass: keeps up to ``in_flight`` trials moving through the pools."""

    def __init__(
        self,
        store: RolloutStore,
        instances: Mapping[str, Instance],
        suites: Mapping[str, Suite],
        panel: JudgePanel | None,
        cache: VerdictCache | None,
        pools: Pools,
        in_flight: int,
        summary: RayScoreSummary,
        on_trial: Callable[[Trial], None] | None,
    ) -> None:
        self.store = store
        self.instances = instances
        self.suites = suites
        self.panel = panel
        self.cache = cache
        self.pools = pools
        self.limit = max(1, in_flight)
        self.summary = summary
        self.on_trial = on_trial
        self.in_flight: dict[Any, _Job] = {}
        self.judge_records: list[JudgeCallRecord] = []

    async def run(self, trials: list[Trial]) -> None:
        import ray

        pending = list(reversed(trials))
        while pending or self.in_flight:
            while pending and len(self.in_flight) < self.limit:
                self._submit_verify(pending.pop())
            if not self.in_flight:
                continue
            ready, _ = await asyncio.to_thread(
                ray.wait, list(self.in_flight), num_returns=1, timeout=_WAIT_SECONDS
            )
            for ref in ready:
                job = self.in_flight.pop(ref)
                self.pools.done(job.pool, job.member)
                try:
                    value = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - translated, then raised
                    raise _unwrap(exc) from exc
                if job.pool == "verify":
                    self._verified(job, value)
                else:
                    self._judged(job, value)

    def _submit_verify(self, trial: Trial) -> None:
        import ray

        trajectory = self.store.read_trajectory(trial)
        if trajectory is None:
            self.summary.problems.append(f"{trial.id}: no trajectory stored")
            return
        instance = self.instances[trial.instance]
        job = _Job(trial, instance, trajectory, ray.put(trajectory))
        suite = self.suites[instance.suite]
        cached = _cached_asks(self.cache, self.panel, suite, instance, trajectory)
        job.member, actor = self.pools.take("verify")
        self.in_flight[actor.verify.remote(instance, job.trajectory_ref, cached)] = job

    def _verified(self, job: _Job, verified: Verified) -> None:
        decided = verified.decided
        if self.cache is not None:  # the panel's new replies to the suite's questions
            for key, verdict in verified.new_cache_entries.items():
                self.cache.put(key, verdict)
        if decided.calls:  # a suite's questions to the panel (GuideBench's parse: llm)
            self.judge_records.extend(decided.calls)
            append_judge_calls(self.store, list(decided.calls))
            self.summary.judge_calls += len(decided.calls)
        job.decided = decided
        job.question = conflict_question(job.instance)
        asks = decided.to_judge or job.question is not None
        if not asks or self.panel is None or not self.pools.judge:
            self._finish(job, None)
            return
        cached = _cached_entries(
            self.cache, self.panel, decided.to_judge, job.trajectory, job.question
        )
        job.pool = "judge"
        job.member, actor = self.pools.take("judge")
        ref = actor.judge.remote(decided.to_judge, job.trajectory_ref, cached, job.question)
        self.in_flight[ref] = job

    def _judged(self, job: _Job, judged: Judged) -> None:
        self.judge_records.extend(judged.calls)
        append_judge_calls(self.store, judged.calls)  # as they come: a kill keeps them
        if self.cache is not None:
            for key, verdict in judged.new_cache_entries.items():
                self.cache.put(key, verdict)
        self._finish(job, judged)

    def _finish(self, job: _Job, judged: Judged | None) -> None:
        assert job.decided is not None
        # A trial judged only for its conflict attribution had no check to judge: it
        # stores no per-judge verdicts, as the in-process pass does.
        result = judged.result if judged is not None and job.decided.to_judge else None
        record_trial(self.store, job.trial, job.instance, job.decided, result, self.summary)
        if job.question is not None:
            found = (judged.attributions if judged is not None else None) or {}
            self.store.write_conflict_verdicts(job.trial, found)
            count_attributions(self.summary, found)
        self.summary.trials += 1
        if self.on_trial is not None:
            self.on_trial(job.trial)


async def score_rollout_on_ray(
    store: RolloutStore,
    instances: Mapping[str, Instance],
    suite_for: Callable[[str], Suite],
    *,
    panel: JudgePanel | None,
    judge_endpoints: Mapping[str, Endpoint] | None = None,
    cache: VerdictCache | None = None,
    parallelism: int = 8,
    on_trial: Callable[[Trial], None] | None = None,
    address: str | None = None,
    verify_actors: int = 2,
    judge_actors: int = 2,
    verify_cpus: float = 0.5,
) -> RayScoreSummary:
    """Score every trial of the rollout that finished ``ok``, on Ray actor pools.

    Takes the arguments of a :class:`~adhere.scoring.Scorer` and writes
    the same verdicts; the summary adds what the actors did.

    Args:
        store: The rollout's store.
        instances: Instances by id (the rollout's snapshot).
        suite_for: The suite of a suite name (suites are sent to the actors).
        panel: The JudgePanel, or ``None`` to leave judge-bound checks undecided.
        judge_endpoints: Judge name → endpoint, ``scripted`` resolved to a URL the
            actors can reach.
        cache: Verdict cache, read and written by the driver.
        parallelism: Trials one judge actor judges at once; the driver keeps
            ``parallelism × judge_actors`` trials in flight (with one judge actor, as
            many as the in-process pass).
        on_trial: Called on the driver after each trial's verdicts are written.
        address: ``None``/``"local"`` for a local Ray (unless this process is already
            connected), ``"auto"`` or ``"ray://HOST:PORT"`` for a cluster.
        verify_actors: Size of the verification pool.
        judge_actors: Size of the judge pool (with a panel).
        verify_cpus: CPUs each verification actor reserves (judge and limiter actors
            reserve none: they wait on the network).

    Raises:
        ClusterError: Ray cannot be reached, or an actor died.
        SpecError: Two judges on one endpoint disagree on its limits.
    """
    started = time.monotonic()
    summary = RayScoreSummary()
    trials = ok_trials(store, instances, summary)
    names = sorted({instances[t.instance].suite for t in trials})
    suites = {name: suite_for(name) for name in names}
    with ray_session(address):
        pools = start_pools(
            suites=suites,
            panel=panel,
            endpoints=judge_endpoints or {},
            verify_actors=verify_actors,
            judge_actors=judge_actors,
            trials_per_judge_actor=max(1, parallelism),
            verify_cpus=verify_cpus,
        )
        summary.verify_actors = len(pools.verify)
        summary.judge_actors = len(pools.judge)
        try:
            in_flight = max(1, parallelism) * max(1, len(pools.judge))
            scoring = _Pass(
                store, instances, suites, panel, cache, pools, in_flight, summary, on_trial
            )
            await scoring.run(trials)
        finally:
            try:
                summary.calls_per_judge_actor = pools.judge_calls()
                summary.judge_calls += sum(summary.calls_per_judge_actor)
                summary.limiters = pools.limiter_stats()
            except Exception:  # noqa: BLE001 - counters are lost when an actor died
                summary.problems.append("judge call counts unavailable: an actor died")
            pools.stop()
            summary.seconds = time.monotonic() - started
    return summary


_IS_A_SCORER: Scorer = score_rollout_on_ray
"""Where mypy checks that the Ray pass takes every argument of a :class:`Scorer`."""


def ray_scorer(
    *,
    address: str | None = None,
    verify_actors: int = 2,
    judge_actors: int = 2,
    verify_cpus: float = 0.5,
) -> Scorer:
    """:func:`score_rollout_on_ray` with these settings bound: a :class:`Scorer`."""
    return functools.partial(
        score_rollout_on_ray,
        address=address,
        verify_actors=verify_actors,
        judge_actors=judge_actors,
        verify_cpus=verify_cpus,
    )
