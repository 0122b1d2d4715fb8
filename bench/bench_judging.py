"""Judging performance, as ratios against baselines measured in the same run.

1. Judge throughput against a scripted judge endpoint with 300 ms latency and a
   server-side limit of 50 requests/s (429 above it): judged items/s and requests/s
   at concurrency 1, 16 and 64, as a share of the limit, with the number of 429s. The
   client paces itself with the endpoint's ``requestsPerSecond``.
2. Verification throughput: checks/s of the deterministic verifiers over recorded
   trajectories, against a bare regex scan of the same replies.
3. Judge prompt tokens per checklist item when judging per item, per category and
   per whole checklist (ratios against per-checklist).

Run: uv run python bench/bench_judging.py [--quick]
"""

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from adhere.judging import JudgeCall, VerifyContext, judge_trial, prompt_tokens, run_checks
from adhere.models import ChatRequest, open_client
from adhere.spec import (
    ChatMessage,
    Check,
    CheckKind,
    Endpoint,
    Instance,
    Limits,
    Source,
    Trajectory,
    VerifierRef,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "unit" / "judging" / "fixtures"
LIMIT = 50.0


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


async def judge_throughput(
    url: str, concurrency: int, trials: int, items: int
) -> tuple[float, int]:
    endpoint = Endpoint(
        base_url=f"{url}/v1",
        model=f"judge:seed=1,delay=0.3,rps={LIMIT:g}",
        limits=Limits(
            concurrency=concurrency,
            requests_per_second=LIMIT * 0.97,
            max_retries=5,
            backoff_base_seconds=0.05,
        ),
    )
    client = open_client(endpoint)

    async def ask(call: JudgeCall) -> str:
        reply = await client.complete(
            ChatRequest(
                messages=(ChatMessage(role="user", content=call.user),),
                system=call.system,
                max_tokens=call.max_tokens,
            )
        )
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

    t0 = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(trials)))
    elapsed = time.perf_counter() - t0
    await client.aclose()
    return elapsed, trials


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
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
    _wait(url)
    items = 10
    print(
        f"1. judge throughput: scripted judge, 300 ms latency, limit {LIMIT:g} req/s, "
        f"{items} items per call"
    )
    try:
        for concurrency in (1, 16, 64):
            before = dict(_stats(url).get("by_status", {}))
            trials = (10 if args.quick else 30) if concurrency == 1 else (60 if args.quick else 250)
            elapsed, calls = asyncio.run(judge_throughput(url, concurrency, trials, items))
            after = _stats(url).get("by_status", {})
            rejected = int(after.get("429", 0)) - int(before.get("429", 0))
            rate = calls / elapsed
            print(
                f"   concurrency {concurrency:>2}: {rate * items:7.1f} items/s, {rate:5.1f} req/s "
                f"= {rate / LIMIT:6.1%} of the limit; 429 answers: {rejected}"
            )
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
