"""The limiter actor's body and the judge-side limiter, without Ray."""

import asyncio

import pytest

import adhere.ray_jobs
from adhere.ray_jobs import LeaseLimiter, RemoteLimiter, limiter_name
from adhere.spec import Endpoint, Limits
from tests.helpers import wait_until_async


def test_exported_names() -> None:
    assert adhere.ray_jobs.__all__ == [
        "LOCAL",
        "LeaseLimiter",
        "RayScoreSummary",
        "RemoteLimiter",
        "limiter_name",
        "ray_scorer",
        "ray_session",
        "score_rollout_on_ray",
    ]


def test_one_name_per_endpoint_and_model() -> None:
    a = Endpoint(base_url="http://h/v1", model="m")
    assert limiter_name(a) == limiter_name(a.model_copy(update={"base_url": "http://h/v1/"}))
    assert limiter_name(a) == limiter_name(a.model_copy(update={"limits": Limits(concurrency=1)}))
    assert limiter_name(a) != limiter_name(a.model_copy(update={"model": "n"}))
    assert limiter_name(a).startswith("adhere-limiter-") and len(limiter_name(a)) == 31


class FakeClock:
    """A clock the test moves: ``sleep`` records the wait and advances time by it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def settled(limiter: LeaseLimiter, callers: int):
    """Every caller either holds its lease or waits for a concurrency slot."""
    return lambda: limiter.stats()["held"] + limiter.stats()["waiting"] == callers


async def test_no_more_leases_than_the_concurrency() -> None:
    """With concurrency 2, five callers get two leases; each release lets one more in."""
    limiter = LeaseLimiter(Limits(concurrency=2))
    waiting = [asyncio.create_task(limiter.acquire(f"l{n}")) for n in range(5)]
    await wait_until_async(settled(limiter, 5), "all 5 callers to hold or wait")
    assert sum(t.done() for t in waiting) == 2
    assert limiter.stats()["waiting"] == 3
    released: set[int] = set()
    for granted in (3, 4, 5):
        # Hand back one lease held now: exactly one more caller gets in.
        held = next(n for n, t in enumerate(waiting) if t.done() and n not in released)
        await limiter.release(f"l{held}")
        released.add(held)
        await wait_until_async(lambda g=granted: sum(t.done() for t in waiting) == g, "a lease")
        await wait_until_async(settled(limiter, 5 - len(released)), "the callers to settle")
        assert limiter.stats()["held"] == min(2, 5 - len(released))
    assert all(t.result() for t in waiting)
    for n in set(range(5)) - released:
        await limiter.release(f"l{n}")
    stats = limiter.stats()
    assert stats["granted"] == 5 and stats["held"] == 0 and stats["max_held"] == 2
    assert stats["waiting"] == 0


async def test_leases_pass_at_the_rate() -> None:
    """At 50 requests/s, back-to-back callers are given send times 20 ms apart."""
    clock = FakeClock()
    limiter = LeaseLimiter(
        Limits(concurrency=10, requests_per_second=50), clock=clock, sleep=clock.sleep
    )
    for n in range(6):
        assert await limiter.acquire(f"l{n}")
    # The first goes at once; each later one waits for its slot, 1/50 s after the last.
    assert clock.sleeps == pytest.approx([1 / 50] * 5)
    assert clock.now == pytest.approx(100.0 + 5 / 50)
    times = limiter.stats()["rate_times"]
    assert times == pytest.approx([100.0 + n / 50 for n in range(6)])
    assert limiter.stats()["grant_times"] == pytest.approx(times)


async def test_a_lease_given_up_while_waiting_is_never_granted() -> None:
    """A lease released while waiting (or before asking) is refused, not granted later."""
    limiter = LeaseLimiter(Limits(concurrency=1))
    assert await limiter.acquire("first")
    waiting = asyncio.create_task(limiter.acquire("second"))
    await wait_until_async(lambda: limiter.stats()["waiting"] == 1, "'second' to wait")
    await limiter.release("second")  # the caller gave up
    assert await asyncio.wait_for(waiting, timeout=10) is False
    await limiter.release("early")  # given up before it even asked
    assert await limiter.acquire("early") is False
    await limiter.release("first")
    assert await limiter.acquire("third")
    assert limiter.stats()["held"] == 1 and limiter.stats()["granted"] == 2


class Handle:
    """What a Ray actor handle offers the judge side: ``method.remote(...)`` awaitables."""

    class _Method:
        def __init__(self, call) -> None:
            self.call = call

        def remote(self, *args):
            return asyncio.ensure_future(self.call(*args))

    def __init__(self, limiter: LeaseLimiter) -> None:
        self.acquire = self._Method(limiter.acquire)
        self.release = self._Method(limiter.release)


async def test_a_remote_slot_holds_a_lease_for_one_attempt() -> None:
    """A slot holds one lease while open; a caller cancelled while waiting leaves none held."""
    body = LeaseLimiter(Limits(concurrency=1))
    limiter = RemoteLimiter(Limits(concurrency=1), Handle(body))
    async with limiter.slot():
        assert body.stats()["held"] == 1
        blocked = asyncio.create_task(limiter.slot().__aenter__())
        await wait_until_async(lambda: body.stats()["waiting"] == 1, "the second slot to wait")
        assert not blocked.done()
        blocked.cancel()  # a cancelled waiter gives its lease up
        await wait_until_async(lambda: body.stats()["waiting"] == 0, "the waiter to give up")
    assert body.stats()["held"] == 0
    async with limiter.slot():
        assert body.stats()["held"] == 1
    assert body.stats()["granted"] == 2
