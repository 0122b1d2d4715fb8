"""One judge endpoint's call budget, shared by every judge actor through one limiter actor.

:class:`LeaseLimiter` is the actor's body (plain asyncio, testable without Ray): a
lease is granted at the endpoint's ``requestsPerSecond`` (a leaky bucket, as
:class:`~adhere.models.RateLimiter`) and only while fewer than ``concurrency``
leases are held. As in the in-process :class:`~adhere.models.EndpointLimiter`, the
rate slot is taken before the concurrency slot.

:class:`RemoteLimiter` is what a judge actor's model client holds: an
:class:`~adhere.models.EndpointLimiter` whose ``slot()`` takes a lease from the
limiter actor for the duration of one HTTP attempt. A lease is named by its taker,
so a caller that gives up while waiting (cancelled) releases it by name and the
actor never grants it, or frees it if it already had.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from adhere.models import EndpointLimiter, RateLimiter
from adhere.spec import Endpoint, Limits

__all__ = ["LeaseLimiter", "RemoteLimiter", "limiter_key", "limiter_name"]

_GRANT_LOG = 10_000
"""Rate-slot and grant times kept for :meth:`LeaseLimiter.stats` (the most recent ones)."""


def limiter_key(endpoint: Endpoint) -> tuple[str, str, str]:
    """What makes two judges the same endpoint: API, base URL and model."""
    return endpoint.api, endpoint.base_url.rstrip("/"), endpoint.model


def limiter_name(endpoint: Endpoint) -> str:
    """The Ray actor name of an endpoint's limiter: ``adhere-limiter-<hash>``."""
    digest = hashlib.sha256(json.dumps(limiter_key(endpoint)).encode("utf-8")).hexdigest()
    return f"adhere-limiter-{digest[:16]}"


class LeaseLimiter:
    """An endpoint's rate and concurrency limits, granted as named leases.

    Args:
        limits: The endpoint's limits (``concurrency``, ``requests_per_second``).
        clock: Monotonic clock in seconds; injectable for tests.
        sleep: Async sleep until a rate slot; injectable for tests (with ``clock``).
    """

    def __init__(
        self,
        limits: Limits,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._waiting = 0
        rate = limits.requests_per_second
        self._rate = RateLimiter(rate, clock=clock) if rate is not None else None
        self._held: set[str] = set()
        self._given_up: set[str] = set()
        self._changed: asyncio.Condition | None = None
        self._granted = 0
        self._max_held = 0
        self._rate_times: list[float] = []
        self._grant_times: list[float] = []

    def _condition(self) -> asyncio.Condition:
        # Created on first use, inside the actor's event loop.
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def acquire(self, lease: str) -> bool:
        """Wait for a rate slot, then a concurrency slot; False if ``lease`` was given up."""
        if lease in self._given_up:
            self._given_up.discard(lease)
            return False
        now = self._clock()
        if self._rate is not None:
            wait = self._rate.reserve()
            _log(self._rate_times, now + wait)
            if wait > 0:
                await self._sleep(wait)
        else:
            _log(self._rate_times, now)
        changed = self._condition()
        async with changed:
            self._waiting += 1
            try:
                await changed.wait_for(
                    lambda: lease in self._given_up or len(self._held) < self.limits.concurrency
                )
            finally:
                self._waiting -= 1
            if lease in self._given_up:
                self._given_up.discard(lease)
                return False
            self._held.add(lease)
            self._granted += 1
            self._max_held = max(self._max_held, len(self._held))
            _log(self._grant_times, self._clock())
            return True

    async def release(self, lease: str) -> None:
        """Hand a lease back, or give up one still waiting (it will not be granted)."""
        changed = self._condition()
        async with changed:
            if lease in self._held:
                self._held.discard(lease)
            else:
                self._given_up.add(lease)
            changed.notify_all()

    def budget(self) -> tuple[int, float | None]:
        """``(concurrency, requests_per_second)`` this limiter enforces."""
        return self.limits.concurrency, self.limits.requests_per_second

    def stats(self) -> dict[str, Any]:
        """Leases granted, held, held at most, waiting; recent rate-slot and grant times.

        ``waiting`` counts callers past their rate slot waiting for a concurrency slot.

        A caller is given a send time by the rate limiter (``rate_times``, at least
        ``1 / requests_per_second`` apart), sleeps until then and waits for a
        concurrency slot (``grant_times``).
        """
        return {
            "concurrency": self.limits.concurrency,
            "requests_per_second": self.limits.requests_per_second,
            "granted": self._granted,
            "held": len(self._held),
            "max_held": self._max_held,
            "waiting": self._waiting,
            "rate_times": list(self._rate_times),
            "grant_times": list(self._grant_times),
        }


def _log(times: list[float], now: float) -> None:
    times.append(now)
    del times[:-_GRANT_LOG]


class RemoteLimiter(EndpointLimiter):
    """An endpoint limiter whose slots are leases from a limiter actor.

    Args:
        limits: The endpoint's limits (kept for ``repr``; the actor enforces them).
        actor: Handle of the endpoint's :class:`LeaseLimiter` actor.
    """

    def __init__(self, limits: Limits, actor: Any) -> None:
        super().__init__(limits)
        self._actor = actor

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a lease of the endpoint's shared budget for one HTTP attempt."""
        lease = uuid.uuid4().hex
        try:
            granted = await self._actor.acquire.remote(lease)
        except BaseException:
            # Cancelled (or the actor failed) while waiting: never leave the lease held.
            self._actor.release.remote(lease)
            raise
        if not granted:
            raise RuntimeError(f"limiter lease {lease} was given up before it was granted")
        try:
            yield
        finally:
            await self._actor.release.remote(lease)
