"""The local engine: run a Rollout's trials with bounded concurrency, resumably.

For each trial: skip it if the store says it finished; otherwise run its scaffold
against the model client, score the trajectory with the suite, and write calls,
trajectory, verdicts and — last — the result record. A failing trial is recorded as
an error (all its checks ``error``) and the run goes on. Ctrl-C or a crash loses at
most the trials in flight, which the next run re-runs: nothing finished is run twice.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from adhere.errors import AdhereError
from adhere.models import CallRecord, ModelClient, open_client
from adhere.scaffolds import Scaffold, get_scaffold
from adhere.spec import Instance, Trial, TrialResult, Verdict
from adhere.store import RolloutStore
from adhere.suites import Suite

_CALLS: contextvars.ContextVar[list[CallRecord] | None] = contextvars.ContextVar(
    "adhere_trial_calls", default=None
)


def _collect_call(record: CallRecord) -> None:
    calls = _CALLS.get()
    if calls is not None:
        calls.append(record)


def call_to_json(record: CallRecord) -> dict[str, Any]:
    """A call record as stored in ``calls.jsonl``."""
    data = dataclasses.asdict(record)
    data["usage"] = record.usage.model_dump() if record.usage is not None else None
    return data


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Progress(Protocol):
    """What the engine reports progress to (a rich bar in the CLI, nothing in tests)."""

    def start(self, total: int, skipped: int) -> None:
        """The run begins: ``total`` trials, ``skipped`` of them already done."""

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """One trial finished (ok or error)."""


class NoProgress:
    """A progress sink that shows nothing."""

    def start(self, total: int, skipped: int) -> None:
        """Ignore."""

    def finished(self, trial: Trial, result: TrialResult) -> None:
        """Ignore."""


@dataclass
class RunSummary:
    """What a run did."""

    planned: int = 0
    skipped: int = 0
    ran: int = 0
    ok: int = 0
    failed: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def error_verdicts(instance: Instance, message: str) -> list[Verdict]:
    """Verdicts of a trial that produced no trajectory: every check undecidable."""
    return [
        Verdict(check_id=c.id, result="error", decided_by="runner", reasoning=message)
        for c in instance.checks
    ]


class Engine:
    """Runs planned trials against model clients and writes results to the store."""

    def __init__(
        self,
        *,
        store: RolloutStore,
        instances: Sequence[Instance],
        suite_for: Callable[[str], Suite],
        clients: dict[str, ModelClient],
        scaffolds: dict[str, Scaffold],
        parallelism: int,
        progress: Progress | None = None,
    ) -> None:
        self.store = store
        self.instances = {i.id: i for i in instances}
        self.suite_for = suite_for
        self.clients = clients
        self.scaffolds = scaffolds
        self.parallelism = parallelism
        self.progress = progress or NoProgress()

    async def run(self, trials: Sequence[Trial]) -> RunSummary:
        """Run every trial not already finished; return counts."""
        started = time.monotonic()
        summary = RunSummary(planned=len(trials))
        todo: list[tuple[Trial, int]] = []
        for trial in trials:
            previous = self.store.read_result(trial)
            if previous is not None and previous.status == "ok":
                summary.skipped += 1
                continue
            attempt = 1
            if previous is not None:
                self.store.archive_attempt(trial, previous.attempt)
                attempt = previous.attempt + 1
            todo.append((trial, attempt))
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
                summary.ran += 1
                if result.status == "ok":
                    summary.ok += 1
                else:
                    summary.failed += 1
                    if len(summary.errors) < 20:
                        summary.errors.append(f"{trial.model}/{trial.instance}: {result.error}")
                self.progress.finished(trial, result)

        workers = [asyncio.create_task(worker()) for _ in range(min(self.parallelism, len(todo)))]
        try:
            await asyncio.gather(*workers)
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            summary.seconds = time.monotonic() - started
        return summary

    async def run_trial(self, trial: Trial, attempt: int = 1) -> TrialResult:
        """Run one trial and persist everything about it (result last)."""
        instance = self.instances[trial.instance]
        calls: list[CallRecord] = []
        token = _CALLS.set(calls)
        started_at, t0 = _now(), time.monotonic()
        error: str | None = None
        try:
            trajectory = await self.scaffolds[trial.scaffold].run(
                instance, self.clients[trial.model]
            )
            trajectory.meta.update(
                {"trial_id": trial.id, "repeat": trial.repeat, "model_name": trial.model}
            )
            verdicts = self.suite_for(instance.suite).score(instance, trajectory)
        except AdhereError as exc:
            error = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # a scaffold or suite bug must not stop the run
            error = f"unexpected {type(exc).__name__}: {exc}"
        finally:
            _CALLS.reset(token)
        self.store.write_calls(trial, (call_to_json(c) for c in calls))
        if error is None:
            self.store.write_trajectory(trial, trajectory)
        else:
            verdicts = error_verdicts(instance, error)
        self.store.write_verdicts(trial, verdicts)
        usage_in = sum(c.usage.input_tokens for c in calls if c.usage is not None)
        usage_out = sum(c.usage.output_tokens for c in calls if c.usage is not None)
        result = TrialResult(
            trial=trial,
            trial_id=trial.id,
            status="ok" if error is None else "error",
            error=error,
            attempt=attempt,
            started_at=started_at,
            finished_at=_now(),
            duration_seconds=time.monotonic() - t0,
            calls=len(calls),
            input_tokens=usage_in,
            output_tokens=usage_out,
        )
        self.store.write_result(result)
        return result


def build_clients(
    models: dict[str, Any], *, on_call: Callable[[CallRecord], None] = _collect_call
) -> dict[str, ModelClient]:
    """One client per model (its limiter shared by all the model's trials)."""
    return {name: open_client(endpoint, on_call=on_call) for name, endpoint in models.items()}


def build_scaffolds(specs: Sequence[Any]) -> dict[str, Scaffold]:
    """Instantiate the rollout's scaffolds."""
    return {spec.name: get_scaffold(spec.name, **spec.options) for spec in specs}
