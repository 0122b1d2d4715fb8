"""Cost of API translation in the recording proxy: added latency per call and throughput.

Two upstreams of one proxy point at the same scripted policy server: ``native``
forwards calls as they came, ``translated`` is declared an Anthropic Messages
endpoint, so the client's Chat Completions calls are decoded, re-encoded as Messages,
answered in Messages and translated back. The baseline is the untranslated proxy in
the same run; the figures are what translation adds on top of proxying:

* latency: one call at a time (``--calls`` each), non-streaming and streaming (a
  ~60-chunk stream read to its end); p50 and p99, and the difference at each;
* throughput: ``--streams`` concurrent streaming calls (``--throughput-calls`` in
  all), calls per second, translated / untranslated; ``--rounds`` rounds of the two
  in turn (the machine's load drifts between runs), each round's ratio and the median.

Set-up as in bench_proxy.py: the policy server in a thread, the proxy in its own
process writing real JSONL records, httpx in the main thread, all on 127.0.0.1.

Run: uv run python bench/bench_translate.py [--calls N] [--streams N] [--throughput-calls N]
     [--rounds N]
"""

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
from pathlib import Path

from bench_proxy import SCRIPTS, latencies, percentile, throughput

from adhere.observe._proxy import serve_proxy
from adhere.observe._proxy_config import ProxyConfig, Upstream
from adhere.observe._proxy_sinks import JsonlDirSink
from adhere.testing import PolicyServerConfig, ThreadedPolicyServer


def run_proxy(upstream_url: str, directory: str, ready: multiprocessing.Queue) -> None:
    config = ProxyConfig(
        upstreams={
            "native": Upstream("native", upstream_url),
            "translated": Upstream("translated", upstream_url, api="anthropic"),
        },
        sink=JsonlDirSink(directory),
    )
    serve_proxy(config, on_ready=ready.put)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--throughput-calls", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
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
            url = ready.get(timeout=30)
            native, translated = f"{url}/t/native/native", f"{url}/t/translated/translated"
            print(f"policy server {server.url}, proxy {url} (pid {proxy.pid})")
            print(f"\nlatency, one call at a time, {args.calls} calls each (ms)")
            print(f"{'mode':<8}{'':>4}{'native':>10}{'transl.':>10}{'added':>10}{'ratio':>8}")
            for stream in (False, True):
                base = asyncio.run(latencies(native, stream, args.calls))
                mine = asyncio.run(latencies(translated, stream, args.calls))
                mode = "stream" if stream else "plain"
                for name, fraction in (("p50", 0.5), ("p99", 0.99)):
                    b, m = percentile(base, fraction) * 1000, percentile(mine, fraction) * 1000
                    print(f"{mode:<8}{name:>4}{b:>10.2f}{m:>10.2f}{m - b:>10.2f}{m / b:>8.2f}")
            print(
                f"\nthroughput, {args.streams} concurrent streams, {args.throughput_calls} calls "
                f"a run; {args.rounds} rounds, untranslated and translated in turn (calls/s)"
            )
            ratios = []
            for round_ in range(1, args.rounds + 1):
                base_rate = asyncio.run(throughput(native, args.streams, args.throughput_calls))
                rate = asyncio.run(throughput(translated, args.streams, args.throughput_calls))
                ratios.append(rate / base_rate)
                print(
                    f"round {round_}: untranslated {base_rate:7.1f}   translated {rate:7.1f}   "
                    f"ratio {rate / base_rate:.2f}"
                )
            print(f"median ratio {statistics.median(ratios):.2f} (min {min(ratios):.2f})")
        finally:
            proxy.terminate()
            proxy.join(30)
        for trial in ("native", "translated"):
            lines = (Path(directory) / trial / "calls.jsonl").read_text().splitlines()
            print(f"records written for {trial}: {len(lines)}")


if __name__ == "__main__":
    main()
