"""The runner against the real model server: records kept, and generation throughput.

One real model server (llama.cpp with SmolLM2-135M-Instruct, 4 slots; installed by
``bash scripts/install-model-server.sh``) serves both measurements, in one run:

* baseline — a bare client loop: every trial's request (the PACIFIC instance's system
  prompt and first turn), streamed, ``--max-tokens`` each, 4 at a time, straight to
  the server with httpx;
* ``adhere run`` — the same instances through the runner: the ``chat`` scaffold, its
  model client, the recording proxy, normalization, stored artifacts, at parallelism 4
  (scoring is not timed: the window is the trials' first start to last finish).

Both print the server-side generation throughput: output tokens the server reported
(``usage``), per second of wall time. They take turns in ``--rounds`` rounds, each on
its share of the calls (bare loop, then ``adhere run`` of the same trials), so load
from elsewhere on the machine falls on both alike; the median of the rounds' ratios
is the figure. Then the records: every trial's ``calls.jsonl``
must hold the calls its result counts, and their total must be the number of streamed
calls made (``--trials``, default 200): any difference is a lost record.

Run: uv run python bench/bench_real_model.py [--trials N] [--max-tokens N] [--rounds N]
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import httpx

from adhere.models import ModelServer, ModelServerSettings
from adhere.runner import execute, prepare
from adhere.spec import load_run_config
from adhere.suites.pacific import GeneratorParams, generate, sample_to_instance

SEED, STEPS, LENGTH = 11, 3, 3


async def bare_loop(url: str, bodies: list[dict], concurrency: int) -> tuple[float, int]:
    """Seconds and output tokens of streaming every body, ``concurrency`` at a time."""
    sem = asyncio.Semaphore(concurrency)
    tokens = 0
    # The server closes a connection after a streamed reply while announcing
    # keep-alive: a fresh connection per call (the proxy resends on a closed one).
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=600, limits=limits) as http:

        async def one(body: dict) -> None:
            nonlocal tokens
            async with sem, http.stream("POST", f"{url}/v1/chat/completions", json=body) as r:
                r.raise_for_status()
                async for line in r.aiter_lines():
                    if line.startswith("data: {"):
                        usage = json.loads(line[6:]).get("usage")
                        if usage:
                            tokens += usage["completion_tokens"]

        began = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - began, tokens


def write_specs(root: Path, url: str, per_language: int, repeats: int, max_tokens: int) -> Path:
    (root / "benchmark.yaml").write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Benchmark\nmetadata: {name: b}\n"
        "spec: {suite: pacific, source: {generate: "
        f"{{instructions: [{STEPS}], lengths: [{LENGTH}], perLanguage: {per_language}, "
        f"seed: {SEED}}}}}}}\n"
    )
    path = root / "rollout.yaml"
    path.write_text(
        "apiVersion: adhere.dev/v1alpha1\nkind: Rollout\nmetadata: {name: real}\n"
        "spec:\n  benchmark: b\n  models:\n"
        f"    - name: smollm2\n      endpoint: {{api: openai, baseUrl: '{url}/v1', "
        f"model: smollm2, stream: true, maxTokens: {max_tokens}, temperature: 0}}\n"
        f"  scaffolds: [chat]\n  repeats: {repeats}\n  parallelism: 4\n"
        "  storage: file://./runs\n"
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    per_language, repeats = 4, max(1, -(-args.trials // 12))
    params = GeneratorParams(
        instructions=(STEPS,), lengths=(LENGTH,), per_language=per_language, seed=SEED
    )
    instances = [sample_to_instance(s) for s in generate(params)]
    bodies = [
        {
            "model": "smollm2",
            "messages": [
                {"role": "system", "content": i.system_prompt},
                {"role": "user", "content": i.turns[0]},
            ],
            "max_tokens": args.max_tokens,
            "temperature": 0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        for i in instances
        for _ in range(repeats)
    ]
    server = ModelServer(ModelServerSettings.from_env(slots=4))
    url = asyncio.run(server.start())
    try:
        print(
            f"real model server {url}: {len(bodies)} streamed calls, {args.max_tokens} tokens, "
            f"{args.rounds} rounds of bare loop then adhere run on the same share of the calls"
        )
        asyncio.run(bare_loop(url, bodies[:8], 4))  # warm-up: the prompts' shared prefix
        with tempfile.TemporaryDirectory(prefix="adhere-bench-real-") as tmp:
            spec = write_specs(Path(tmp), url, per_language, repeats, args.max_tokens)
            prepared = prepare(load_run_config([spec]))
            trials = prepared.trials
            ratios, ok, failed = [], 0, 0
            totals = [0.0, 0, 0.0, 0]  # bare seconds, bare tokens, run seconds, run tokens
            for n in range(args.rounds):
                share = slice(n * len(trials) // args.rounds, (n + 1) * len(trials) // args.rounds)
                seconds, tokens = asyncio.run(bare_loop(url, bodies[share], 4))
                summary = asyncio.run(execute(replace(prepared, trials=trials[share])))
                ok, failed = ok + summary.ok, failed + summary.failed
                done = [r for r in (prepared.store.read_result(t) for t in trials[share]) if r]
                first = min(datetime.fromisoformat(r.started_at) for r in done)
                last = max(datetime.fromisoformat(r.finished_at) for r in done)
                window = (last - first).total_seconds()
                run_tokens = sum(r.output_tokens for r in done)
                base, rate = tokens / seconds, run_tokens / window
                ratios.append(rate / base)
                totals = [
                    totals[0] + seconds,
                    totals[1] + tokens,
                    totals[2] + window,
                    totals[3] + run_tokens,
                ]
                print(
                    f"round {n + 1}: bare loop {tokens} tokens in {seconds:.1f}s = {base:.1f} "
                    f"tok/s; adhere run {run_tokens} tokens in {window:.1f}s = {rate:.1f} tok/s; "
                    f"ratio {rate / base:.2f}"
                )
            print(
                f"all rounds: bare loop {totals[1] / totals[0]:.1f} tok/s, adhere run "
                f"{totals[3] / totals[2]:.1f} tok/s; median ratio "
                f"{statistics.median(ratios):.2f} ({ok} ok, {failed} failed)"
            )
            store = prepared.store
            results = [store.read_result(t) for t in trials]
            calls = {t.id: store.read_calls(t) for t in trials}
            stored = sum(len(c) for c in calls.values())
            streamed = sum(1 for c in calls.values() for call in c if call["stream"])
            empty = sum(1 for c in calls.values() if not c)
            mismatched = sum(
                1
                for t, r in zip(trials, results, strict=True)
                if r is None or r.calls != len(calls[t.id])
            )
            print(
                f"records: {len(trials)} trials (one call each), {stored} stored "
                f"({streamed} streamed); trials without a record: {empty}; results whose "
                f"call count differs from the stored records: {mismatched}"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
