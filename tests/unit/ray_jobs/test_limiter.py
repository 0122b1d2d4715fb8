"""The limiter actor's body and the judge-side limiter, without Ray."""

import asyncio
import time

import adhere.ray_jobs
from adhere.ray_jobs import LeaseLimiter, RemoteLimiter, limiter_name
from adhere.spec import Endpoint, Limits


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


async def test_no_more_leases_than_the_concurrency() -> None:
    limiter = LeaseLimiter(Limits(concurrency=2))
    waiting = [asyncio.create_task(limiter.acquire(f"l{n}")) for n in range(5)]
    await asyncio.sleep(0.05)
    assert sum(t.done() for t in waiting) == 2
    await limiter.release("l0")
    await asyncio.sleep(0.05)
    assert sum(t.done() for t in waiting) == 3
    for n in range(1, 5):
        await limiter.release(f"l{n}")
        await asyncio.sleep(0.01)
    assert all(await asyncio.gather(*waiting))
    stats = limiter.stats()
    assert stats["granted"] == 5 and stats["held"] == 0 and stats["max_held"] == 2


async def test_leases_pass_at_the_rate() -> None:
    limiter = LeaseLimiter(Limits(concurrency=10, requests_per_second=50))
    started = time.monotonic()
    for n in range(6):
        assert await limiter.acquire(f"l{n}")
    assert time.monotonic() - started >= 5 / 50 - 0.01
    times = limiter.stats()["rate_times"]
    assert all(b - a >= 1 / 50 - 1e-3 for a, b in zip(times, times[1:], strict=False))


async def test_a_lease_given_up_while_waiting_is_never_granted() -> None:
    limiter = LeaseLimiter(Limits(concurrency=1))
    assert await limiter.acquire("first")
    waiting = asyncio.create_task(limiter.acquire("second"))
    await asyncio.sleep(0.01)
    await limiter.release("second")  # the caller gave up
    assert await waiting is False
    await limiter.release("early")  # given up before it even asked
    assert await limiter.acquire("early") is False
    await limiter.release("first")
    assert await limiter.acquire("third")
    assert limiter.stats()["held"] == 1


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
    body = LeaseLimiter(Limits(concurrency=1))
    limiter = RemoteLimiter(Limits(concurrency=1), Handle(body))
    async with limiter.slot():
        assert body.stats()["held"] == 1
        blocked = asyncio.create_task(limiter.slot().__aenter__())
        await asyncio.sleep(0.02)
        assert not blocked.done()
        blocked.cancel()  # a cancelled waiter gives its lease up
    await asyncio.sleep(0.02)
    assert body.stats()["held"] == 0
    async with limiter.slot():
        assert body.stats()["held"] == 1
    assert body.stats()["granted"] == 2
