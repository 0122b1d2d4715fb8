"""Cost of the recording proxy: added latency per call and streaming throughput.

What is measured, each time directly against the scripted policy server and through
the recording proxy in the same run (the direct figure is the baseline):

* latency: one call at a time (``--calls`` of each), OpenAI Chat Completions,
  non-streaming and streaming (a ~60-chunk stream read to its end); p50 and p99 of
  the per-call wall time, and the latency the proxy adds at those percentiles;
* throughput: ``--streams`` concurrent streaming calls (``--throughput-calls`` in
  all), calls per second.

The policy server runs in a thread of its own (``ThreadedPolicyServer``); the proxy
runs in a separate process (``serve_proxy``) writing real JSONL records to a
temporary directory, as the in-cluster sidecar does; the client is httpx in the
main thread. Every proxied call's record is counted at the end. All on 127.0.0.1,
on whatever cores the machine has (2 on the project's machines), so the figures
are ratios to read against the baseline, not absolute pass/fail numbers.

Run: uv run python bench/bench_proxy.py [--calls N] [--streams N] [--throughput-calls N]
"""

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from adhere.observe._proxy import serve_proxy
from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_sinks import JsonlDirSink
from adhere.testing import PolicyServerConfig, ScriptStep, ThreadedPolicyServer

REPLY = " ".join(f"word{index}" for index in range(180))  # ~60 stream chunks of 3 words
SCRIPTS = {"long": [ScriptStep(text=REPLY)]}
PROMPT = "Please write a long answer about the weather. " * 20


def run_proxy(upstream_url: str, directory: str, ready: multiprocessing.Queue) -> None:
    config = ProxyConfig(
        upstreams={"m": Upstream("m", upstream_url, "sk-bench-upstream-key")},
        sink=JsonlDirSink(directory),
    )
    serve_proxy(config, on_ready=ready.put)


def body(stream: bool) -> dict:
    return {
        "model": "script:long",
        "messages": [{"role": "user", "content": PROMPT}],
        "stream": stream,
        **({"stream_options": {"include_usage": True}} if stream else {}),
    }


async def one_call(http: httpx.AsyncClient, url: str, stream: bool) -> float:
    began = time.perf_counter()
    if stream:
        async with http.stream("POST", url, json=body(True)) as answer:
            answer.raise_for_status()
            async for _ in answer.aiter_bytes():
                pass
    else:
        answer = await http.post(url, json=body(False))
        answer.raise_for_status()
    return time.perf_counter() - began


async def latencies(base: str, stream: bool, calls: int) -> list[float]:
    url = f"{base}/v1/chat/completions"
    async with httpx.AsyncClient() as http:
        for _ in range(20):  # warm-up: connections, caches
            await one_call(http, url, stream)
        return [await one_call(http, url, stream) for _ in range(calls)]


async def throughput(base: str, streams: int, calls: int) -> float:
    url = f"{base}/v1/chat/completions"
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        await asyncio.gather(*(one_call(http, url, True) for _ in range(streams)))
        queue = list(range(calls))

        async def worker() -> None:
            while queue:
                queue.pop()
                await one_call(http, url, True)

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(streams)))
        return calls / (time.perf_counter() - began)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--throughput-calls", type=int, default=1024)
    args = parser.parse_args()

    context = multiprocessing.get_context("spawn")
    with (
        ThreadedPolicyServer(PolicyServerConfig(scripts=SCRIPTS)) as server,
        tempfile.TemporaryDirectory() as directory,
    ):
        ready = context.Queue()
        proxy = context.Process(target=run_proxy, args=(server.url, directory, ready))
        proxy.start()
        try:
            proxy_url = ready.get(timeout=30)
            through = f"{proxy_url}/t/bench/m"
            print(f"policy server {server.url}, proxy {proxy_url} (pid {proxy.pid})")
            print(f"\nlatency, one call at a time, {args.calls} calls each (ms)")
            print(f"{'mode':<8}{'':>4}{'direct':>10}{'proxy':>10}{'added':>10}{'ratio':>8}")
            proxied_calls = 0
            for stream in (False, True):
                direct = asyncio.run(latencies(server.url, stream, args.calls))
                proxied = asyncio.run(latencies(through, stream, args.calls))
                proxied_calls += 20 + args.calls
                mode = "stream" if stream else "plain"
                for name, fraction in (("p50", 0.5), ("p99", 0.99)):
                    base = percentile(direct, fraction) * 1000
                    mine = percentile(proxied, fraction) * 1000
                    print(
                        f"{mode:<8}{name:>4}{base:>10.2f}{mine:>10.2f}"
                        f"{mine - base:>10.2f}{mine / base:>8.2f}"
                    )
                print(
                    f"{mode:<8}{'mean':>4}{statistics.mean(direct) * 1000:>10.2f}"
                    f"{statistics.mean(proxied) * 1000:>10.2f}"
                )
            print(f"\nthroughput, {args.streams} concurrent streams, {args.throughput_calls} calls")
            direct_rate = asyncio.run(throughput(server.url, args.streams, args.throughput_calls))
            proxy_rate = asyncio.run(throughput(through, args.streams, args.throughput_calls))
            proxied_calls += args.streams + args.throughput_calls
            print(f"direct {direct_rate:8.1f} calls/s")
            print(f"proxy  {proxy_rate:8.1f} calls/s   ratio {proxy_rate / direct_rate:.2f}")
        finally:
            proxy.terminate()  # SIGTERM: serve_proxy stops cleanly
            proxy.join(30)
        lines = (Path(directory) / "bench" / "calls.jsonl").read_text().splitlines()
        print(f"\nrecords written: {len(lines)} of {proxied_calls} proxied calls")


if __name__ == "__main__":
    main()
