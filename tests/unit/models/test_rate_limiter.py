import asyncio

import pytest

from adhere.models import EndpointLimiter, LimiterRegistry, RateLimiter, shared_limiter
from adhere.spec._endpoint import Limits


class FakeClock:
    """A clock that only moves when someone sleeps on it."""

    def __init__(self):
        self.now = 100.0
        self.sleeps = []

    def __call__(self):
        return self.now

    async def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


async def test_requests_are_spaced_at_the_rate():
    clock = FakeClock()
    limiter = RateLimiter(4.0, clock=clock, sleep=clock.sleep)
    sent = []
    for _ in range(5):
        await limiter.acquire()
        sent.append(clock.now - 100.0)
    assert sent == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


async def test_idle_time_is_not_banked_beyond_the_burst():
    clock = FakeClock()
    limiter = RateLimiter(2.0, burst=3, clock=clock, sleep=clock.sleep)
    clock.now += 60.0
    waits = [limiter.reserve() for _ in range(5)]
    assert waits == pytest.approx([0.0, 0.0, 0.0, 0.5, 1.0])


async def test_concurrent_waiters_get_consecutive_slots():
    clock = FakeClock()
    limiter = RateLimiter(10.0, clock=clock, sleep=clock.sleep)
    waits = [limiter.reserve() for _ in range(4)]
    assert waits == pytest.approx([0.0, 0.1, 0.2, 0.3])


def test_rate_limiter_rejects_nonsense():
    with pytest.raises(ValueError):
        RateLimiter(0)
    with pytest.raises(ValueError):
        RateLimiter(1.0, burst=0)


async def test_endpoint_limiter_caps_calls_in_flight():
    limiter = EndpointLimiter(Limits(concurrency=2))
    in_flight = peak = 0

    async def call():
        nonlocal in_flight, peak
        async with limiter.slot():
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1

    await asyncio.gather(*(call() for _ in range(6)))
    assert peak == 2


async def test_endpoint_limiter_applies_the_rate_inside_the_slot():
    clock = FakeClock()
    limiter = EndpointLimiter(
        Limits(concurrency=3, requests_per_second=5.0), clock=clock, sleep=clock.sleep
    )
    for _ in range(3):
        async with limiter.slot():
            pass
    assert clock.sleeps == pytest.approx([0.2, 0.2])


async def test_registries_share_per_key_and_refuse_conflicts():
    registry = LimiterRegistry()
    limits = Limits(concurrency=3)
    assert registry.get("a", limits) is registry.get("a", Limits(concurrency=3))
    assert registry.get("a", limits) is not registry.get("b", limits)
    with pytest.raises(ValueError, match="already exists"):
        registry.get("a", Limits(concurrency=4))
    assert shared_limiter("ep", limits) is shared_limiter("ep", limits)
