"""The local engine: run a Rollout's trials with bounded concurrency, resumably.

For each trial: skip it if the store says it finished; otherwise run its scaffold
against the model client, settle its calls with the recording proxy (so every record
is in), score the trajectory with the suite, and write calls, trajectory, verdicts
and — last — the result record. A failing trial is recorded as an error (all its
checks ``error``) and the run goes on. A trial the model service failed (an upstream
fault, see :mod:`adhere.runner._faults`) is not scored and is run again, up to the
Rollout's ``maxRetries`` times. Ctrl-C or a crash loses at most the trials in flight,
which the next run re-runs: nothing finished is run twice. When the run is stopped
(cancelled: Ctrl-C, ``SIGTERM``, ``SIGHUP``), each trial in flight keeps the calls it
made as an interrupted attempt, archived by the next run (see
:mod:`adhere.runner._resume`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from adhere.artifacts import ProxyCall, RolloutStore
from adhere.core import Instance, Trajectory, Trial, TrialResult, Verdict, plain_text
from adhere.errors import AdhereError
from adhere.observe import Redactor, normalize, tag_sources
from adhere.runner._attempts import start_attempt
from adhere.runner._faults import (
    RETRY_BACKOFF_SECONDS,
    outcome_counts,
    reasoning_total,
    retry_delay,
    trial_fault,
)
from adhere.runner._fingerprint import Fingerprint, scaffold_version
from adhere.runner._interrupt import record_interrupted
from adhere.runner._summary import NoProgress, Progress, RunSummary
from adhere.runner._workspace import changed_files, layered, trial_workspace
from adhere.scaffolds import (
    DEFAULT_IGNORE_DIRS,
    ProxyEndpoint,
    SandboxLimits,
    Scaffold,
    ScaffoldResult,
    TrialContext,
    WireApi,
    collect_files,
)
from adhere.suites import Suite


class CallSource(Protocol):
    """Where the engine finds a trial's recorded calls (the recording proxy)."""

    def trial_base_url(self, trial_id: str, upstream: str) -> str:
        """Root URL through the proxy for this trial and upstream."""
        ...

    async def take(self, trial_id: str, grace: float | None = None) -> list[ProxyCall]:
        """Remove and return the trial's call records, in order, once all are recorded.

        Called when the trial's scaffold is done; waits for its calls still in flight
        (bounded: the proxy ends calls that outlive a grace period, ``grace`` seconds
        when given).
        """
        ...


@dataclass(frozen=True)
class ModelTarget:
    """A model as the scaffolds reach it: upstream name, model id and API shape."""

    upstream: str
    model: str
    api: WireApi
    stream: bool = False
    max_tokens: int | None = None
    temperature: float | None = None
    max_retries: int | None = None
    backoff_base_seconds: float | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _FailedFast(Exception):
    """A worker saw a failed trial and the run stops (``fail_fast``)."""


def error_verdicts(instance: Instance, message: str) -> list[Verdict]:
    """Verdicts of a trial that produced no trajectory: every check undecidable."""
    return [
        Verdict(check_id=c.id, result="error", decided_by="runner", reasoning=message)
        for c in instance.checks
    ]


class Engine:
    """Runs planned trials through scaffolds and the recording proxy; writes the results."""

    def __init__(
        self,
        *,
        store: RolloutStore,
        instances: Sequence[Instance],
        suite_for: Callable[[str], Suite],
        scaffolds: Mapping[str, Scaffold],
        timeouts: Mapping[str, float],
        models: Mapping[str, ModelTarget],
        calls: CallSource,
        work_root: Path,
        cache_dir: Path,
        parallelism: int,
        progress: Progress | None = None,
        secrets: Sequence[str] = (),
        max_retries: int = 0,
        retry_backoff_seconds: float = RETRY_BACKOFF_SECONDS,
        fingerprints: Mapping[str, Fingerprint] | None = None,
        workspace_dir: Path | None = None,
        fail_fast: bool = False,
        sandbox: bool = True,
        sandbox_limits: SandboxLimits | None = None,
    ) -> None:
        self.store = store
        self.sandbox = sandbox
        """Agent CLI turns run in the agent sandbox (the Rollout's ``sandbox``; off in a
        cluster pod, which is the sandbox there)."""
        self.sandbox_limits = sandbox_limits or SandboxLimits()
        self.workspace_dir = workspace_dir
        """The workspace already in place (a cluster pod in its instance's image), used
        as it is instead of a copy per trial; None: each trial gets its own copy."""
        self.fail_fast = fail_fast
        """Stop the run at the first trial that does not end ``ok`` (after its retries);
        the trials in flight are cancelled, as by Ctrl-C, and the next run resumes."""
        self.fingerprints = fingerprints or {}
        """Trial id → the config it runs under; a finished trial is skipped only when
        its stored result has the same (or none: written before fingerprints)."""
        # The proxy redacts what it records; this covers what the runner writes itself
        # (scaffold output tails, final texts, changed files, error messages).
        self.redactor = Redactor(secrets)
        self.instances = {i.id: i for i in instances}
        self.suite_for = suite_for
        self.scaffolds = scaffolds
        self.timeouts = timeouts
        self.models = models
        self.calls = calls
        self.work_root = work_root
        self.cache_dir = cache_dir
        self.parallelism = parallelism
        self.progress = progress or NoProgress()
        self.max_retries = max_retries
        """In-run retries of a trial that ended as an upstream fault."""
        self.retry_backoff_seconds = retry_backoff_seconds
        self.interrupted: list[str] = []
        """Ids of the trials a stopped run cut short."""
        self.workspaces: dict[str, str] = {}
        """Trial id → its workdir path while it runs (recorded in trajectory meta)."""
        self.initial: dict[str, dict[str, str]] = {}
        """Trial id → its copied workspace's files before the scaffold ran (as the
        scaffold lists them after), for workspaces copied from directories."""

    async def run(self, trials: Sequence[Trial]) -> RunSummary:
        """Run every trial not already finished; return counts."""
        started = time.monotonic()
        summary = RunSummary(planned=len(trials))
        todo: list[tuple[Trial, int]] = []
        for trial in trials:
            decision = start_attempt(self.store, trial, self.fingerprints.get(trial.id))
            if decision.action == "skip":
                summary.skipped += 1
                continue
            summary.rerun_changed += decision.action == "rerun"
            assert decision.attempt is not None
            todo.append((trial, decision.attempt))
        self.progress.start(len(trials), summary.skipped)
        queue: asyncio.Queue[tuple[Trial, int]] = asyncio.Queue()
        for item in todo:
            queue.put_nowait(item)

        async def worker() -> None:
            while True:
                try:
                    trial, attempt = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                result = await self.run_trial(trial, attempt)
                for retry in range(1, self.max_retries + 1):
                    if result.status != "upstream_fault":
                        break
                    await asyncio.sleep(retry_delay(retry, self.retry_backoff_seconds))
                    archived = self.store.archive_attempt(trial, result.attempt)
                    result = await self.run_trial(trial, archived + 1)
                    summary.retried += 1
                summary.ran += 1
                if result.status == "ok":
                    summary.ok += 1
                else:
                    if result.status == "upstream_fault":
                        summary.faults += 1
                    else:
                        summary.failed += 1
                    if len(summary.errors) < 20:
                        summary.errors.append(
                            f"{trial.model}/{trial.scaffold}/{trial.instance}: {result.error}"
                        )
                self.progress.finished(trial, result)
                if self.fail_fast and result.status != "ok" and summary.stopped is None:
                    summary.stopped = f"{trial.model}/{trial.scaffold}/{trial.instance}"
                    raise _FailedFast

        workers = [asyncio.create_task(worker()) for _ in range(min(self.parallelism, len(todo)))]
        try:
            await asyncio.gather(*workers)
        except _FailedFast:
            summary.cancelled = sum(not task.done() for task in workers)
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            summary.seconds = time.monotonic() - started
        return summary

    async def _drive(
        self, trial: Trial, instance: Instance
    ) -> tuple[ScaffoldResult | None, dict[str, str], str | None]:
        target = self.models[trial.model]
        try:
            async with trial_workspace(
                self.work_root, trial.id, instance, self.redactor, in_place=self.workspace_dir
            ) as (workdir, home):
                ctx = TrialContext(
                    trial_id=trial.id,
                    instance=instance,
                    workdir=workdir,
                    home=home,
                    endpoint=ProxyEndpoint(
                        base_url=self.calls.trial_base_url(trial.id, target.upstream),
                        model=target.model,
                        api=target.api,
                        stream=target.stream,
                        max_tokens=target.max_tokens,
                        temperature=target.temperature,
                        max_retries=target.max_retries,
                        backoff_base_seconds=target.backoff_base_seconds,
                    ),
                    timeout_seconds=self.timeouts[trial.scaffold],
                    cache_dir=self.cache_dir,
                    sandbox=self.sandbox,
                    sandbox_limits=self.sandbox_limits,
                )
                self.workspaces[trial.id] = str(workdir)
                scaffold = self.scaffolds[trial.scaffold]
                # binaries and all: compare like with like
                if layered(instance) or self.workspace_dir is not None:
                    ignore = DEFAULT_IGNORE_DIRS | getattr(scaffold, "ignore_dirs", frozenset())
                    self.initial[trial.id] = collect_files(workdir, ignore_dirs=ignore)
                outcome = await scaffold.run(ctx)
        except AdhereError as exc:
            return None, {}, f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a scaffold bug must not stop the run
            return None, {}, f"unexpected {type(exc).__name__}: {exc}"
        error = None if outcome.ok else _describe_failure(outcome)
        return outcome, dict(outcome.files), error

    async def run_trial(self, trial: Trial, attempt: int = 1) -> TrialResult:
        """Run one trial and persist everything about it (result last)."""
        instance = self.instances[trial.instance]
        started_at, t0 = _now(), time.monotonic()
        try:
            outcome, final_files, error = await self._drive(trial, instance)
        except asyncio.CancelledError:  # a stopped run: keep the calls made, and say so
            self.interrupted.append(trial.id)
            await record_interrupted(self.store, self.calls, trial, attempt, started_at)
            raise
        records = await self.calls.take(trial.id)
        trajectory = self._trajectory(trial, instance, records, outcome, final_files)
        fault = trial_fault(records, scaffold_failed=error is not None)
        if fault is not None and error is not None:
            fault = f"{fault}; the scaffold: {error}"
        if error is None and not records:
            error = "the scaffold made no model call"
        verdicts: list[Verdict] = []
        if error is None and fault is None:
            try:
                verdicts = self.suite_for(instance.suite).score(instance, trajectory)
            except AdhereError as exc:
                error = f"scoring failed: {type(exc).__name__}: {exc}"
        if fault is not None:
            error = plain_text(self.redactor.text(fault))[:1000]  # not scored: no verdicts
        elif error is not None:
            error = plain_text(self.redactor.text(error))
            verdicts = error_verdicts(instance, error)
        self.store.write_calls(trial, (r.to_json_dict() for r in records))
        self.store.write_trajectory(
            trial,
            Trajectory.model_validate(self.redactor.value(trajectory.model_dump(mode="json"))),
        )
        if outcome is not None:
            self.store.write_scaffold(trial, self.redactor.value(_outcome_json(outcome)))
        self.store.write_verdicts(trial, verdicts)
        usage = [r.usage or {} for r in records]
        result = TrialResult(
            trial=trial,
            trial_id=trial.id,
            status="ok" if error is None else "upstream_fault" if fault else "error",
            error=error,
            attempt=attempt,
            started_at=started_at,
            finished_at=_now(),
            duration_seconds=time.monotonic() - t0,
            calls=len(records),
            input_tokens=sum(int(u.get("input_tokens", 0)) for u in usage),
            output_tokens=sum(int(u.get("output_tokens", 0)) for u in usage),
            reasoning_tokens=reasoning_total(records),
            outcomes=outcome_counts(records),
            scaffold_version=scaffold_version(self.scaffolds[trial.scaffold]),
        )
        planned = self.fingerprints.get(trial.id)
        if planned is not None:
            result = result.model_copy(
                update={"fingerprint": planned.digest, "fingerprint_parts": dict(planned.parts)}
            )
        self.store.write_result(result)
        return result

    def _trajectory(
        self,
        trial: Trial,
        instance: Instance,
        records: list[ProxyCall],
        outcome: ScaffoldResult | None,
        final_files: dict[str, str],
    ) -> Trajectory:
        trajectory = normalize(
            records,
            first_user_turn=instance.turns[0],
            meta={
                "trial_id": trial.id,
                "model": trial.model,
                "scaffold": trial.scaffold,
                "instance": instance.id,
                "repeat": trial.repeat,
                "workspace": self.workspaces.pop(trial.id, ""),
                "final_text": outcome.final_text if outcome else "",
            },
        )
        trajectory.sources = tag_sources(trajectory, instance, instance.workspace.files)
        initial = self.initial.pop(trial.id, instance.workspace.files)
        if outcome is not None and final_files:
            changed, deleted = changed_files(initial, final_files)
            trajectory.files = changed
            trajectory.meta["deleted_files"] = deleted
        return trajectory


def _describe_failure(outcome: ScaffoldResult) -> str:
    for number, turn in enumerate(outcome.turns, start=1):
        if turn.timed_out:
            return f"turn {number} timed out after {turn.seconds:.0f}s"
        if turn.exit_code != 0:
            tail = plain_text(turn.stderr_tail or turn.stdout_tail).strip().splitlines()[-3:]
            return f"turn {number} exited with {turn.exit_code}: {' / '.join(tail)}"[:500]
    return "the scaffold failed"


def _outcome_json(outcome: ScaffoldResult) -> dict[str, Any]:
    return {
        "ok": outcome.ok,
        "final_text": outcome.final_text,
        "turns": [
            {
                "exit_code": t.exit_code,
                "timed_out": t.timed_out,
                "seconds": round(t.seconds, 3),
                "stdout_tail": plain_text(t.stdout_tail),
                "stderr_tail": plain_text(t.stderr_tail),
            }
            for t in outcome.turns
        ],
        "files": sorted(outcome.files),
    }
