"""Sandbox throughput: runs/s of trivial asserts against a bare interpreter start.

For parallelism 1 and 2: runs per second of ``run_asserts`` on a one-line function
and one assert (temp directory, rlimits, namespaces or guard, harness, cleanup),
against the baseline measured in the same run — ``python -c pass`` started as a bare
asyncio subprocess with the same interpreter and parallelism. Prints the ratio
(sandbox cost per run in units of a bare interpreter start), for the default
isolation (``netns`` where a network namespace can be made) and for the ``guard``. Figures are the
best of interleaved rounds: on a shared machine load drifts between measurements.
CPU per run (children's and the evaluator's, from ``getrusage``) is printed too: it is
steadier than wall time under load, but misses kernel waits such as namespace teardown.

Run: uv run python bench/bench_sandbox.py [runs]
"""

import asyncio
import resource
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


def cpu_seconds() -> tuple[float, float]:
    """CPU used so far by reaped children, and by this process."""
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return child.ru_utime + child.ru_stime, own.ru_utime + own.ru_stime


async def cpu_per_run(job, runs: int) -> tuple[float, float]:
    """Milliseconds of CPU per run: (children, evaluator)."""
    child0, own0 = cpu_seconds()
    await job(1, runs)
    child1, own1 = cpu_seconds()
    return (child1 - child0) / runs * 1000, (own1 - own0) / runs * 1000


async def main(runs: int, rounds: int = 3) -> None:
    info = sandbox_info()
    print(
        f"interpreter {info.python}; bwrap={info.bwrap} netns={info.netns} pidns={info.pidns} "
        f"root={info.root} drops_to={info.drops_to}; best of {rounds} rounds of {runs} runs"
    )
    await sandboxed(1, 2, Limits())  # warm up: probes, page cache
    variants = {"default": Limits(), "guard": Limits(isolation="guard")}
    for parallelism in (1, 2):
        best = dict.fromkeys(["bare", *variants], 0.0)
        for _ in range(rounds):  # interleaved, so load drift hits every figure alike
            best["bare"] = max(best["bare"], await bare(parallelism, runs))
            for name, limits in variants.items():
                best[name] = max(best[name], await sandboxed(parallelism, runs, limits))
        for name in variants:
            print(
                f"parallelism {parallelism}, {name:7}: sandbox {best[name]:6.1f} runs/s; "
                f"bare `python -c pass` {best['bare']:6.1f} runs/s; "
                f"ratio {best['bare'] / best[name]:.2f}x"
            )
    # CPU per run is steadier than wall time on a loaded machine
    base_child, base_own = await cpu_per_run(bare, runs)
    print(f"CPU per run, bare `python -c pass`: {base_child:.1f} ms child + {base_own:.1f} ms here")
    for name, limits in variants.items():
        child, own = await cpu_per_run(
            lambda parallelism, n, limits=limits: sandboxed(parallelism, n, limits), runs
        )
        ratio = (child + own) / (base_child + base_own)
        print(
            f"CPU per run, sandbox {name:7}: {child:.1f} ms child + {own:.1f} ms here; "
            f"ratio {ratio:.2f}x"
        )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
