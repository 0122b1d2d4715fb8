"""Judging performance, as ratios against baselines measured in the same run.

1. Judge throughput against a scripted judge endpoint with 300 ms latency and a
   server-side limit of 50 requests/s (a token bucket of one second's worth; 429
   above it): judged items/s and requests/s at concurrency 1, 16 and 64, as a share
   of the limit, with the number of 429 answers the server sent (and the client saw).
   The client paces itself with the endpoint's ``requestsPerSecond`` set to
   ``--pace`` times the limit. Rates are steady-state rates: replies from the end of
   a warm-up (the first tenth of the replies: the pipeline's fill of one latency, new
   connections, first calls) to the last reply; the whole-run rate, fill included,
   is printed beside them. At
   concurrency 1 no client can pass 1 / 300 ms = 3.3 requests/s, so that row also
   gives the share of that ceiling. A control run without pacing shows that a client
   over the limit does get 429s, so the zeros above it mean something.
2. Verification throughput: checks/s of the deterministic verifiers over recorded
   trajectories, against a bare regex scan of the same replies.
3. Judge prompt tokens per checklist item when judging per item, per category and
   per whole checklist (ratios against per-checklist).

Run: uv run python bench/bench_judging.py [--quick] [--pace 0.98]
"""

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from adhere.core import ChatMessage, Check, CheckKind, Instance, Source, Trajectory, VerifierRef
from adhere.judging import JudgeCall, VerifyContext, judge_trial, prompt_tokens, run_checks
from adhere.models import CallRecord, open_client
from adhere.spec import Endpoint, Limits
from adhere.wire import ChatRequest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "unit" / "judging" / "fixtures"
LIMIT = 50.0  # the scripted judge's limit (its ``rps=`` option), requests/s
LATENCY = 0.3  # the scripted judge's latency (its ``delay=`` option), seconds
PACE = 0.98  # default client pace, as a share of LIMIT


def trajectory() -> Trajectory:
    return Trajectory.model_validate_json(
        (ROOT / "tests/integration/judging/fixtures/claude_code_trajectory.json").read_text()
    )


def checklist(n: int) -> list[Check]:
    sources = [Source.SYSTEM_PROMPT, Source.USER_QUERY, Source.AGENTS_MD, Source.TOOL_SCHEMA]
    return [
        Check(
            id=f"C{i:03d}",
            source=sources[i % 4],
            kind=CheckKind.COMPLIANCE,
            description=f"Check whether the assistant follows rule number {i} of its instructions.",
        )
        for i in range(n)
    ]


@dataclass
class Throughput:
    """One throughput run: calls made, their reply times and the 429s the client saw."""

    calls: int
    elapsed: float  # first call started → last reply, seconds
    replies: list[float]  # seconds after the start at which each call got its reply
    rejected: int  # 429 answers among the client's HTTP attempts
    cpu: float  # client process CPU seconds over the run
    latency: float  # mean seconds per call, limiter waits included

    @property
    def whole(self) -> float:
        """Calls per second over the whole run, the pipeline's fill included."""
        return self.calls / self.elapsed

    @property
    def steady(self) -> float:
        """Calls per second from the reply that ends the warm-up to the last reply.

        The warm-up is the first tenth of the replies: the pipeline's fill (one
        latency), new connections and the first, slower calls of both processes.
        """
        first = len(self.replies) // 10
        span = self.replies[-1] - self.replies[first]
        return (len(self.replies) - 1 - first) / span if span > 0 else self.whole


async def judge_throughput(
    url: str, concurrency: int, trials: int, items: int, pace: float | None
) -> Throughput:
    """Judge ``trials`` trials of ``items`` checks each, one call per trial.

    ``pace`` is the client's ``requestsPerSecond`` as a share of the limit; ``None``
    leaves the client unpaced (the control run).
    """
    endpoint = Endpoint(
        base_url=f"{url}/v1",
        model=f"judge:seed=1,delay={LATENCY:g},rps={LIMIT:g}",
        limits=Limits(
            concurrency=concurrency,
            requests_per_second=LIMIT * pace if pace is not None else None,
            max_retries=5 if pace is not None else 50,
            backoff_base_seconds=0.05,
        ),
    )
    records: list[CallRecord] = []
    client = open_client(endpoint, on_call=records.append)
    replies: list[float] = []
    latencies: list[float] = []

    async def ask(call: JudgeCall) -> str:
        reply = await client.complete(
            ChatRequest(
                messages=(ChatMessage(role="user", content=call.user),),
                system=call.system,
                max_tokens=call.max_tokens,
            )
        )
        replies.append(time.perf_counter() - t0)
        latencies.append(reply.latency_seconds)
        return reply.message.content

    # A short transcript: the scripted judge (one process) must not be the bottleneck.
    traj = Trajectory(
        system="You are a coding agent.",
        messages=[
            ChatMessage(role="user", content="Fix the bug in app.py."),
            ChatMessage(role="assistant", content="I fixed it and ran the tests."),
        ],
    )
    checks = checklist(items)
    sem = asyncio.Semaphore(concurrency)

    async def one(n: int) -> None:
        async with sem:
            # vary the transcript so the scripted judge sees distinct trials
            t = traj.model_copy(
                update={"meta": {**traj.meta, "n": n}, "system": f"{traj.system}\n#{n}"}
            )
            verdicts = await judge_trial(
                ask, checks, t, judge_name="j", model="judge", batch_size=items
            )
            assert len(verdicts) == items
            assert all(v.result != "error" for v in verdicts), "a judge call failed"

    cpu = time.process_time()
    t0 = time.perf_counter()
    try:
        await asyncio.gather(*(one(n) for n in range(trials)))
        elapsed = time.perf_counter() - t0
    finally:
        await client.aclose()
    return Throughput(
        calls=len(replies),
        elapsed=elapsed,
        replies=sorted(replies),
        rejected=sum(1 for r in records if r.status == 429),
        cpu=time.process_time() - cpu,
        latency=sum(latencies) / len(latencies),
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str) -> None:
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the scripted policy server did not start")


def _stats(url: str) -> dict:
    return httpx.get(f"{url}/_adhere/stats").json()


def _rejected(url: str) -> int:
    """429 answers the scripted server has sent so far (its own count)."""
    return int(_stats(url).get("by_status", {}).get("429", 0))


def _throughput_rows(url: str, quick: bool, pace: float) -> None:
    items = 10
    print(
        f"1. judge throughput: scripted judge, {LATENCY * 1000:.0f} ms latency, "
        f"limit {LIMIT:g} req/s (429 above); client paced at {LIMIT * pace:g} req/s "
        f"({pace:.0%} of the limit); {items} items per call"
    )
    for concurrency in (1, 16, 64):
        trials = (10 if quick else 30) if concurrency == 1 else (60 if quick else 300)
        before = _rejected(url)
        run = asyncio.run(judge_throughput(url, concurrency, trials, items, pace))
        rejected = _rejected(url) - before
        ceiling = min(LIMIT, concurrency / LATENCY)
        reach = f" ({run.steady / ceiling:.0%} of the {ceiling:.1f} req/s one caller can reach)"
        print(
            f"   concurrency {concurrency:>2}: {run.steady * items:6.1f} items/s, "
            f"{run.steady:5.1f} req/s = {run.steady / LIMIT:6.1%} of the limit"
            f"{reach if ceiling < LIMIT else ''}; 429 answers: {rejected} "
            f"(client saw {run.rejected})\n"
            f"{'':>19}whole run, fill included: {run.whole:5.1f} req/s = "
            f"{run.whole / LIMIT:6.1%}; mean call {run.latency * 1000:.0f} ms; "
            f"client CPU {run.cpu / run.calls * 1000:.1f} ms/call"
        )
    before = _rejected(url)
    control = asyncio.run(judge_throughput(url, 64, 100 if quick else 200, items, None))
    print(
        f"   control, unpaced at concurrency 64: {control.calls} calls in "
        f"{control.elapsed:.1f} s; 429 answers: {_rejected(url) - before} "
        f"(client saw {control.rejected})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--pace",
        type=float,
        default=PACE,
        help=f"client requestsPerSecond as a share of the limit (default {PACE})",
    )
    args = parser.parse_args()
    # The scripted judge runs in its own process, as a real endpoint would, so the
    # client's measurement does not share a GIL with the server.
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "adhere.cli", "serve-policy", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(url)
        _throughput_rows(url, args.quick, args.pace)
    finally:
        server.terminate()
        server.wait(timeout=10)

    print("2. verification throughput")
    instance = Instance.model_validate_json(
        (FIXTURES / "instance_claude_md_tests.json").read_text()
    )
    verifiers = [
        ("no_emoji", {}),
        ("reply_language", {"language": "en"}),
        ("length_limit", {"max_words": 200}),
        ("command_executed", {"pattern": r"git\s+reset\s+--hard"}),
        ("read_before_edit", {}),
        ("tool_args_valid", {}),
        ("no_invented_results", {}),
        ("tests_run", {}),
        ("file_rules", {"forbidden_globs": ["*.lock"]}),
        ("memory_updated", {"expect": "absent"}),
        ("code_rules", {"no_print": True, "max_nesting": 4}),
    ]
    checks = [
        Check(
            id=f"v{i}",
            source=Source.SYSTEM_PROMPT,
            description=name,
            verifier=VerifierRef(name=name, params=params),
        )
        for i, (name, params) in enumerate(verifiers)
    ]
    trajectories = [
        Trajectory.model_validate_json(p.read_text()) for p in sorted(FIXTURES.glob("*_care*.json"))
    ]
    contexts = [VerifyContext.build(instance, t) for t in trajectories]
    rounds = 20 if args.quick else 100
    t0 = time.perf_counter()
    for _ in range(rounds):
        for ctx in contexts:
            run_checks(checks, ctx)
    verify = time.perf_counter() - t0
    emoji = re.compile("[\U0001f300-\U0001faff]")
    t0 = time.perf_counter()
    for _ in range(rounds):
        for ctx in contexts:
            for _check in checks:
                for m in ctx.trajectory.messages:
                    emoji.search(m.content)
    scan = time.perf_counter() - t0
    n = rounds * len(contexts) * len(checks)
    print(
        f"   {n / verify:,.0f} checks/s ({len(verifiers)} verifiers); "
        "baseline regex scan per check "
        f"{n / scan:,.0f}/s; verifying costs {verify / scan:.1f}x a bare scan"
    )

    print("3. judge prompt tokens per checklist item")
    traj = trajectory()
    full = checklist(34)  # OctoBench's median checklist length
    per = {g: prompt_tokens(full, traj, grouping=g) for g in ("item", "category", "checklist")}
    base = per["checklist"].prompt_tokens_per_item
    for grouping, est in per.items():
        print(
            f"   per {grouping:<9}: {est.calls:>3} calls, "
            f"{est.prompt_tokens_per_item:8.0f} prompt tokens/item "
            f"({est.prompt_tokens_per_item / base:5.1f}x per-checklist)"
        )


if __name__ == "__main__":
    main()
