"""Cost of the agent sandbox per CLI turn: the same command with and without it.

Each sample is one "turn" as :class:`~adhere.scaffolds._cli.CliScaffold` runs it —
``run_process`` (guard included, both ways) of a command that makes one HTTP request
to a local server standing in for the recording proxy:

- ``plain``: ``curl http://127.0.0.1:PORT/`` as it is;
- ``sandboxed``: the same command inside the agent sandbox (bubblewrap namespaces and
  mounts, socat listening inside, the Unix-socket bridge outside).

The two kinds alternate, so both see the same machine load; the figures are the
medians (p50) and the 90th percentiles, the added milliseconds and the ratio. A
second pair does the same with ``true`` (no request: the sandbox's set-up alone).

    uv run python bench/bench_agent_sandbox.py [--samples 40]

Target: at most 50 ms added at p50.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from adhere.scaffolds import SandboxLimits
from adhere.scaffolds._process import run_process
from adhere.scaffolds._sandbox import sandbox_argv
from adhere.scaffolds._sandbox_host import ProxyBridge, host_layout


async def _serve() -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _one(argv: Sequence[str], root: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = await run_process(
        argv, cwd=root / "work", env=env, timeout=60, log_prefix=root / "logs" / "turn"
    )
    took = (time.perf_counter() - started) * 1000
    if done.outcome.exit_code != 0:
        raise SystemExit(f"{argv[-1]!r} failed: {done.outcome.stderr_tail}")
    return took


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(samples: int) -> None:
    """Measure and print the table."""
    layout = host_layout()
    server, port = await _serve()
    root = Path(tempfile.mkdtemp(prefix="adhere-bench-sandbox-"))
    for name in ("work", "home", "install"):
        (root / name).mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home"), "LANG": "C.UTF-8"}
    curl = ["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"]
    try:
        async with ProxyBridge("127.0.0.1", port) as bridge:

            def boxed(command: list[str]) -> list[str]:
                return sandbox_argv(
                    layout,
                    SandboxLimits(),
                    command,
                    workdir=str(root / "work"),
                    home=str(root / "home"),
                    install_dir=str(root / "install"),
                    bridge_dir=str(bridge.directory),
                    port=port,
                )

            pairs = {
                "curl": (curl, boxed(curl)),
                "true": (["true"], boxed(["true"])),
            }
            times: dict[str, dict[str, list[float]]] = {
                k: {"plain": [], "sandboxed": []} for k in pairs
            }
            for plain, sandboxed in pairs.values():  # warm up
                await _one(plain, root, env)
                await _one(sandboxed, root, env)
            for _ in range(samples):
                for what, (plain, sandboxed) in pairs.items():
                    times[what]["plain"].append(await _one(plain, root, env))
                    times[what]["sandboxed"].append(await _one(sandboxed, root, env))
    finally:
        server.close()
        await server.wait_closed()
        shutil.rmtree(root, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"agent sandbox cost per turn ({samples} samples each, alternating; load {load:.1f})")
    print(
        f"{'command':8} {'plain p50':>10} {'sandbox p50':>12} {'added p50':>10} {'ratio':>6} "
        f"{'plain p90':>10} {'sandbox p90':>12}"
    )
    for what, kinds in times.items():
        plain, sandboxed = kinds["plain"], kinds["sandboxed"]
        p50, s50 = statistics.median(plain), statistics.median(sandboxed)
        print(
            f"{what:8} {p50:8.1f}ms {s50:10.1f}ms {s50 - p50:8.1f}ms {s50 / p50:6.2f} "
            f"{_p(plain, 0.9):8.1f}ms {_p(sandboxed, 0.9):10.1f}ms"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("the agent sandbox needs Linux")
    asyncio.run(main(args.samples))
