"""Runner overhead per trial against the scripted server, versus a bare HTTP round trip.

For concurrency 1, 8 and 32: the time per trial of the full runner path (scaffold,
model client with limiter and retries, call recording, PACIFIC scoring, atomic
writes of calls/trajectory/verdicts/result) against the time per request of bare
httpx POSTs of the same chat request to the same server at the same concurrency.
The server runs in its own thread, shared by both measurements.

Run: uv run python bench/bench_runner.py [--trials N]
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from adhere.models import open_client
from adhere.models.policy import PolicyServerConfig, ThreadedPolicyServer
from adhere.runner import Engine, InstanceAnswerKey, plan_trials
from adhere.runner._engine import _collect_call
from adhere.scaffolds import get_scaffold
from adhere.spec import Endpoint, Limits, Rollout
from adhere.store import FileStore, RolloutStore
from adhere.suites import get_suite
from adhere.suites.pacific import GeneratorParams, generate, sample_to_instance


async def bare(url: str, bodies: list[dict], concurrency: int) -> float:
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency)) as http:

        async def one(body: dict) -> None:
            async with sem:
                r = await http.post(f"{url}/v1/chat/completions", json=body)
                r.raise_for_status()

        t0 = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - t0


async def runner(url: str, instances, concurrency: int, root: Path) -> float:
    suite = get_suite("pacific")
    limits = Limits(concurrency=concurrency)
    endpoint = Endpoint(base_url=f"{url}/v1", model="oracle", limits=limits)
    rollout = Rollout.model_validate(
        {
            "metadata": {"name": f"bench-c{concurrency}"},
            "spec": {
                "benchmark": "b",
                "models": [{"name": "oracle", "endpoint": endpoint.model_dump()}],
                "parallelism": concurrency,
            },
        }
    )
    client = open_client(endpoint, on_call=_collect_call)
    engine = Engine(
        store=RolloutStore(FileStore(root), rollout.metadata.name),
        instances=instances,
        suite_for=lambda _n: suite,
        clients={"oracle": client},
        scaffolds={"chat": get_scaffold("chat")},
        parallelism=concurrency,
    )
    trials = plan_trials(rollout, instances)
    t0 = time.perf_counter()
    summary = await engine.run(trials)
    elapsed = time.perf_counter() - t0
    await client.aclose()
    assert summary.ok == len(trials), summary
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=300)
    args = parser.parse_args()
    params = GeneratorParams(
        instructions=(5,), lengths=(5,), per_language=args.trials // 3 + 1, seed=5
    )
    instances = [sample_to_instance(s) for s in generate(params)][: args.trials]
    bodies = [
        {
            "model": "oracle",
            "messages": [
                {"role": "system", "content": i.system_prompt},
                {"role": "user", "content": i.turns[0]},
            ],
        }
        for i in instances
    ]
    server = ThreadedPolicyServer(
        PolicyServerConfig(answer_key=InstanceAnswerKey(instances, get_suite))
    )
    url = server.start()
    try:
        print(f"{len(instances)} single-turn PACIFIC trials against the scripted server ({url})")
        for concurrency in (1, 8, 32):
            asyncio.run(bare(url, bodies[:20], concurrency))  # warm-up
            base = asyncio.run(bare(url, bodies, concurrency))
            # Under runs/ (git-ignored): /tmp can be a much slower file system here.
            scratch = Path(__file__).resolve().parents[1] / "runs"
            scratch.mkdir(exist_ok=True)
            with tempfile.TemporaryDirectory(dir=scratch, prefix=".bench-") as tmp:
                full = asyncio.run(runner(url, instances, concurrency, Path(tmp)))
            per_base = base / len(bodies) * 1000
            per_full = full / len(instances) * 1000
            print(
                f"concurrency {concurrency:>2}: bare round trip {per_base:.2f} ms/request, "
                f"runner {per_full:.2f} ms/trial, ratio {per_full / per_base:.2f}x"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
