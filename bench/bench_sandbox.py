"""Sandbox throughput: runs/s of trivial asserts against a bare interpreter start.

For parallelism 1 and 2: runs per second of ``run_asserts`` on a one-line function
and one assert (temp directory, rlimits, namespaces or guard, harness, cleanup),
against the baseline measured in the same run — ``python -c pass`` started as a bare
asyncio subprocess with the same interpreter and parallelism. Prints the ratio
(sandbox cost per run in units of a bare interpreter start), for the default
isolation (``netns`` where ``unshare`` works) and for the ``guard``.

Run: uv run python bench/bench_sandbox.py [runs]
"""

import asyncio
import sys
import time

from adhere.sandbox import Limits, run_asserts, run_many, sandbox_info

CODE = "def inc(x):\n    return x + 1\n"
TESTS = ["assert inc(1) == 2"]


async def bare(parallelism: int, runs: int) -> float:
    gate = asyncio.Semaphore(parallelism)

    async def one() -> None:
        async with gate:
            process = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
            await process.wait()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(runs)))
    return runs / (time.perf_counter() - started)


async def sandboxed(parallelism: int, runs: int, limits: Limits) -> float:
    started = time.perf_counter()
    results = await run_many(
        [run_asserts(CODE, TESTS, limits=limits) for _ in range(runs)], parallelism=parallelism
    )
    elapsed = time.perf_counter() - started
    assert all(r.status == "pass" for r in results), results[0]
    return runs / elapsed


async def main(runs: int) -> None:
    info = sandbox_info()
    print(
        f"interpreter {info.python}; netns={info.netns} pidns={info.pidns} "
        f"root={info.root} drops_to={info.drops_to}; {runs} runs per figure"
    )
    await sandboxed(1, 2, Limits())  # warm up: probes, page cache
    for parallelism in (1, 2):
        base = await bare(parallelism, runs)
        for name, limits in (("default", Limits()), ("guard", Limits(isolation="guard"))):
            rate = await sandboxed(parallelism, runs, limits)
            print(
                f"parallelism {parallelism}, {name:7}: sandbox {rate:6.1f} runs/s; "
                f"bare `python -c pass` {base:6.1f} runs/s; ratio {base / rate:.2f}x"
            )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
