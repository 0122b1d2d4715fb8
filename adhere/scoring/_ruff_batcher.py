"""The default Ruff executor: concurrent requests collected and checked in batches.

Requests from every trial being scored are collected for a few milliseconds (or until
``max_batch``) and handed to :func:`adhere.scoring._ruff_batch.check_requests` in a
worker thread; see that module for how a batch becomes a few Ruff processes.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from adhere.core import Evidence, RuffRun
from adhere.judging.verifiers import check_files
from adhere.scoring._ruff_batch import GroupChecker, check_requests, errors_for

__all__ = ["BatchSettings", "RuffBatcher", "batched_ruff"]


@dataclass(frozen=True)
class BatchSettings:
    """How requests are batched.

    Attributes:
        window: Seconds to wait for more requests after the first of a batch.
        max_batch: Requests that start a batch at once, without waiting.
        parallel: Batches checked at the same time (each is one or a few processes).
        timeout: Seconds before one Ruff process is stopped.
    """

    window: float = 0.01
    max_batch: int = 2000
    parallel: int = 2
    timeout: float = 120.0


class RuffBatcher:
    """An executor of :class:`RuffRun` requests that batches concurrent calls.

    Bound to one event loop (futures are); :func:`batched_ruff` keeps one per loop.
    """

    def __init__(
        self, settings: BatchSettings | None = None, *, checker: GroupChecker = check_files
    ) -> None:
        self.settings = settings or BatchSettings()
        self.checker = checker
        self.batches = 0
        self.requests = 0
        self._pending: list[tuple[RuffRun, asyncio.Future[Evidence]]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._slots = asyncio.Semaphore(self.settings.parallel)
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, requests: Sequence[RuffRun]) -> dict[str, Evidence]:
        """Evidence for ``requests`` (ids unique within the call), checked in a batch."""
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[Evidence]] = []
        for request in requests:
            future: asyncio.Future[Evidence] = loop.create_future()
            self._pending.append((request, future))
            futures.append(future)
        if len(self._pending) >= self.settings.max_batch:
            self._flush()
        elif self._timer is None and self._pending:
            self._timer = loop.call_later(self.settings.window, self._flush)
        results = await asyncio.gather(*futures)
        return {r.id: e for r, e in zip(requests, results, strict=True)}

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        if not batch:
            return
        task = asyncio.get_running_loop().create_task(self._check(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check(self, batch: list[tuple[RuffRun, asyncio.Future[Evidence]]]) -> None:
        requests = [r for r, _ in batch]
        async with self._slots:
            self.batches += 1
            self.requests += len(requests)
            try:
                found = await asyncio.to_thread(
                    check_requests, requests, checker=self.checker, timeout=self.settings.timeout
                )
            except Exception as exc:  # report, never pass: every request gets error evidence
                found = errors_for(requests, exc)
        for (_, future), evidence in zip(batch, found, strict=True):
            if not future.done():
                future.set_result(evidence)


_BATCHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RuffBatcher] = (
    weakref.WeakKeyDictionary()
)


async def batched_ruff(requests: Sequence[RuffRun]) -> dict[str, Evidence]:
    """The default Ruff executor: this event loop's :class:`RuffBatcher`."""
    loop = asyncio.get_running_loop()
    batcher = _BATCHERS.get(loop)
    if batcher is None:
        batcher = _BATCHERS[loop] = RuffBatcher()
    return await batcher(requests)
