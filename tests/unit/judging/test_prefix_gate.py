"""PrefixGate: first call alone, then at most ``width`` at once; a failed first is replaced."""

import asyncio

import pytest

from adhere.judging._prefix import PrefixGate


class Trace:
    """Calls through a gate: when each started and ended (in event order), and peak overlap."""

    def __init__(self):
        self.events = []
        self.in_flight = 0
        self.peak = 0

    async def call(self, gate, name, *, fail=False, hold=None):
        async with gate.call():
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.events.append(("start", name, self.in_flight))
            try:
                if hold is not None:
                    await hold.wait()
                await asyncio.sleep(0.01)
                if fail:
                    raise RuntimeError(f"{name} failed")
            finally:
                self.in_flight -= 1
                self.events.append(("end", name, self.in_flight))

    def started_alone(self):
        return [name for kind, name, count in self.events if kind == "start" and count == 1]


async def run(trace, gate, names, **options):
    return await asyncio.gather(
        *(trace.call(gate, name, **options.get(name, {})) for name in names),
        return_exceptions=True,
    )


async def test_first_call_goes_alone_then_the_rest_at_once():
    trace, gate = Trace(), PrefixGate()
    await run(trace, gate, ["a", "b", "c", "d"])
    assert trace.events[:2] == [("start", "a", 1), ("end", "a", 0)]
    assert [e[1] for e in trace.events[2:6]] == ["b", "c", "d", "b"]  # b, c, d overlap
    assert trace.peak == 3
    assert gate.warm


async def test_width_bounds_the_fan_out():
    for width in (1, 2):
        trace, gate = Trace(), PrefixGate(width=width)
        await run(trace, gate, [f"c{n}" for n in range(6)])
        assert trace.events[:2] == [("start", "c0", 1), ("end", "c0", 0)]
        assert trace.peak == width


async def test_a_failed_first_call_is_replaced_by_the_next_one_alone():
    trace, gate = Trace(), PrefixGate()
    results = await run(trace, gate, ["a", "b", "c"], a={"fail": True}, b={"fail": True})
    assert [type(r).__name__ for r in results] == ["RuntimeError", "RuntimeError", "NoneType"]
    # a fails alone, b goes alone in its place and fails too, c goes alone and warms it.
    assert trace.events == [
        ("start", "a", 1),
        ("end", "a", 0),
        ("start", "b", 1),
        ("end", "b", 0),
        ("start", "c", 1),
        ("end", "c", 0),
    ]
    assert gate.warm


async def test_a_cancelled_first_call_leaves_the_gate_cold():
    trace, gate = Trace(), PrefixGate()
    hold = asyncio.Event()
    first = asyncio.create_task(trace.call(gate, "a", hold=hold))
    second = asyncio.create_task(trace.call(gate, "b"))
    await asyncio.sleep(0.01)
    assert trace.started_alone() == ["a"] and trace.in_flight == 1  # b waits
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    await second
    assert trace.started_alone() == ["a", "b"]
    assert gate.warm


async def test_concurrent_ordering_holds_nothing_back():
    trace, gate = Trace(), PrefixGate.for_ordering("concurrent", width=1)
    await run(trace, gate, ["a", "b", "c"])
    assert [e[0] for e in trace.events[:3]] == ["start"] * 3
    assert trace.peak == 3
    assert PrefixGate.for_ordering("prefix", 2).width == 2


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="width must be at least 1"):
        PrefixGate(width=0)
    with pytest.raises(ValueError, match="ordering must be one of prefix, concurrent"):
        PrefixGate.for_ordering("random")  # type: ignore[arg-type]
