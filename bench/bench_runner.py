"""Runner overhead per trial against the scripted server, versus a bare HTTP round trip.

For concurrency 1, 8 and 32: the time per trial of the full local path — planning,
the trial workspace, the ``chat`` scaffold and its model client, the recording proxy,
normalization and source tagging, PACIFIC scoring and the atomic writes of calls,
trajectory, verdicts and result — against the time per request of bare httpx POSTs
of the same chat request to the same scripted server at the same concurrency. The
server runs in its own thread and is shared by both measurements.

Run: uv run python bench/bench_runner.py [--trials N]
"""

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.suites import get_suite
from adhere.suites.pacific import GeneratorParams, generate, sample_to_instance
from adhere.testing import InstanceAnswerKey, PolicyServerConfig, ThreadedPolicyServer

SEED, STEPS, LENGTH = 5, 5, 5


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


def write_specs(root: Path, url: str, per_language: int, concurrency: int) -> Path:
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: pacific, source: {generate: "
        f"{{instructions: {STEPS}, lengths: {LENGTH}, perLanguage: {per_language}, "
        f"seed: {SEED}}}}}}}\n"
    )
    path = root / "rollout.yaml"
    path.write_text(
        f"apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {{name: c{concurrency}}}\n"
        "spec:\n  benchmark: b\n  models:\n"
        f"    - name: oracle\n      endpoint: {{baseUrl: '{url}/v1', model: oracle, "
        f"limits: {{concurrency: {concurrency}}}}}\n"
        f"  parallelism: {concurrency}\n  storage: file://./runs\n"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=300)
    args = parser.parse_args()
    per_language = max(1, args.trials // 3)
    params = GeneratorParams(
        instructions=(STEPS,), lengths=(LENGTH,), per_language=per_language, seed=SEED
    )
    instances = [sample_to_instance(s) for s in generate(params)]
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
            with tempfile.TemporaryDirectory(prefix="adhere-bench-runner-") as tmp:
                prepared = prepare(
                    load_run_config([write_specs(Path(tmp), url, per_language, concurrency)])
                )
                t0 = time.perf_counter()
                summary = asyncio.run(execute(prepared))
                full = time.perf_counter() - t0
                assert summary.ok == len(instances), summary
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
