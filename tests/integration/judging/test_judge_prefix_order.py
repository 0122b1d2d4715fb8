"""Prefix ordering over real HTTP: what a prefix-caching server sees, and what the records say.

A small OpenAI-compatible server on 127.0.0.1 stands in for a server with a shared
prefix cache (vLLM's automatic prefix caching, hosted prompt caching): a prompt's
longest common prefix with any prompt it has *finished* is reported as
``usage.prompt_tokens_details.cached_tokens`` (one token per 4 characters). It records
when each request arrived and what was in flight. The judges ask through the scoring
pass's own ``JudgeAsks`` (the real OpenAI client), so the cached tokens travel through
the client's usage into the judge call records.

The scripted judge (a test double) then shows that verdicts are the same whichever
the ordering.
"""

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web

from adhere.core._types import Check, CheckKind, Source, Trajectory
from adhere.judging._panel import run_panel
from adhere.judging._prompt import END_TRANSCRIPT, read_checklist, read_transcript
from adhere.scoring import JudgeAsks
from adhere.spec import Endpoint, Judge, JudgePanel, JudgePanelSpec, Limits, ObjectMeta
from adhere.testing import PolicyServer, PolicyServerConfig

FIXTURES = Path(__file__).parent / "fixtures"
UNIT_FIXTURES = Path(__file__).parents[2] / "unit" / "judging" / "fixtures"
LIMITS = Limits(concurrency=32, max_retries=0, timeout_seconds=20)


@dataclass
class Arrival:
    index: int
    trial: str
    user: str
    in_flight: int  # requests of the same trial in flight when this one arrived
    finished: int  # requests of the same trial finished before it arrived
    cached: int = 0


@dataclass
class CachingServer:
    """Requests as they arrived, and the prompts finished so far (the cache)."""

    delay: float = 0.05
    arrivals: list[Arrival] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    in_flight: dict[str, int] = field(default_factory=dict)
    done: dict[str, int] = field(default_factory=dict)

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        system, user = (m["content"] for m in body["messages"])
        prompt = f"{system}\n{user}"
        trial = (read_transcript(user) or "")[:200]
        arrival = Arrival(
            len(self.arrivals),
            trial,
            user,
            self.in_flight.get(trial, 0),
            self.done.get(trial, 0),
            cached=max((_common(prompt, seen) for seen in self.finished), default=0) // 4,
        )
        self.arrivals.append(arrival)
        self.in_flight[trial] = self.in_flight.get(trial, 0) + 1
        await asyncio.sleep(self.delay)
        self.in_flight[trial] -= 1
        self.done[trial] = self.done.get(trial, 0) + 1
        self.finished.append(prompt)
        verdicts = [
            {"check_id": item.check_id, "result": "pass", "reasoning": "ok", "evidence": None}
            for item in read_checklist(user)
        ]
        return web.json_response(
            {
                "id": f"cmpl-{arrival.index}",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": json.dumps({"verdicts": verdicts}),
                        },
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": len(prompt) // 4,
                    "completion_tokens": 10,
                    "prompt_tokens_details": {"cached_tokens": arrival.cached},
                },
            }
        )


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@pytest.fixture
async def caching_server():
    state = CachingServer()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", state.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    yield state, f"http://{host}:{port}/v1"
    await runner.cleanup()


def trajectories() -> list[Trajectory]:
    return [
        Trajectory.model_validate_json((UNIT_FIXTURES / f"{name}.json").read_text())
        for name in ("droid_careless", "kilo_careful")
    ]


def checklist(n: int) -> list[Check]:
    sources = [Source.SYSTEM_PROMPT, Source.USER_QUERY, Source.AGENTS_MD, Source.TOOL_SCHEMA]
    return [
        Check(
            id=f"C{i:02d}",
            source=sources[i % 4],
            kind=CheckKind.COMPLIANCE,
            description=f"Check whether the assistant follows rule {i}.",
        )
        for i in range(n)
    ]


def panel(url: str, judges: int, prefix_concurrency: int | None = None) -> JudgePanel:
    limits = LIMITS.model_copy(update={"prefix_concurrency": prefix_concurrency})
    endpoint = Endpoint(base_url=url, model="judge-model", limits=limits)
    return JudgePanel(
        metadata=ObjectMeta(name="p"),
        spec=JudgePanelSpec(judges=[Judge(name=f"j{n}", endpoint=endpoint) for n in range(judges)]),
    )


async def judge(url: str, ordering: str, *, prefix_concurrency: int | None = None) -> JudgeAsks:
    """Judge two trials at once with a 3-judge panel on one endpoint (4 batches each)."""
    spec = panel(url, 3, prefix_concurrency)
    asks = JudgeAsks({j.name: j.endpoint for j in spec.spec.judges})
    try:
        judges = asks.judges(spec)
        await asyncio.gather(
            *(
                run_panel(judges, checklist(70), trajectory, ordering=ordering)  # type: ignore[arg-type]
                for trajectory in trajectories()
            )
        )
    finally:
        await asks.aclose()
    return asks


def cached_share(asks: JudgeAsks) -> float:
    records = asks.records
    assert all(r["ok"] for r in records)
    return sum(r["cached_input_tokens"] for r in records) / sum(r["input_tokens"] for r in records)


async def test_the_first_call_of_a_trial_goes_alone_and_the_rest_reuse_its_prefix(caching_server):
    server, url = caching_server
    asks = await judge(url, "prefix")
    assert len(server.arrivals) == 2 * 3 * 4
    for trial in {a.trial for a in server.arrivals}:
        mine = [a for a in server.arrivals if a.trial == trial]
        first, rest = mine[0], mine[1:]
        assert (first.in_flight, first.finished) == (0, 0)
        # Nothing else of the trial arrived until the first call was answered, …
        assert all(a.finished >= 1 for a in rest)
        # … then the other 11 went at once, each served the transcript from the cache.
        assert max(a.in_flight for a in rest) >= 5
        transcript_end = len(first.user[: first.user.index(END_TRANSCRIPT)])
        assert all(a.cached * 4 >= transcript_end for a in rest)
    # The records carry the server's cached-token counts.
    assert [r["cached_input_tokens"] for r in asks.records] != [0] * len(asks.records)
    assert cached_share(asks) > 0.7  # 11 of 12 calls; the checklists are not cached


async def test_concurrent_ordering_recomputes_the_prefix_of_every_call(caching_server):
    server, url = caching_server
    asks = await judge(url, "concurrent")
    for trial in {a.trial for a in server.arrivals}:
        mine = [a for a in server.arrivals if a.trial == trial]
        assert all(a.finished == 0 for a in mine)  # all twelve sent before any answer
    assert cached_share(asks) < 0.2


async def test_prefix_concurrency_keeps_one_call_of_a_trial_in_flight(caching_server):
    server, url = caching_server
    asks = await judge(url, "prefix", prefix_concurrency=1)
    assert max(a.in_flight for a in server.arrivals) == 0
    assert {a.finished for a in server.arrivals} == set(range(12))
    # The two trials still ran side by side: their calls interleave.
    order = [a.trial for a in server.arrivals]
    first, second = order[0], next(t for t in order if t != order[0])
    assert order.index(second) < len(order) - 1 - order[::-1].index(first)
    assert cached_share(asks) > 0.7


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_the_scripted_judge_gives_the_same_verdicts_in_either_order(api):
    trajectory = Trajectory.model_validate_json(
        (FIXTURES / "claude_code_trajectory.json").read_text(encoding="utf-8")
    )
    checks = checklist(70)
    found = {}
    async with PolicyServer(PolicyServerConfig()) as server:
        for ordering in ("prefix", "concurrent"):
            base = f"{server.url}/v1" if api == "openai" else server.url
            judges = [
                Judge(
                    name=f"j{seed}",
                    endpoint=Endpoint(
                        api=api,
                        base_url=base,
                        model=f"judge:seed={seed},garble=0.3,drop=0.1",
                        limits=LIMITS,
                    ),
                )
                for seed in (1, 2, 3)
            ]
            spec = JudgePanel(metadata=ObjectMeta(name="p"), spec=JudgePanelSpec(judges=judges))
            asks = JudgeAsks({j.name: j.endpoint for j in judges})
            try:
                result = await run_panel(
                    asks.judges(spec), checks, trajectory, ordering=ordering, max_attempts=4
                )
            finally:
                await asks.aclose()
            found[ordering] = (
                {n: [v.model_dump() for v in vs] for n, vs in result.per_judge.items()},
                [v.model_dump() for v in result.majority],
                asks.calls,
            )
    assert found["prefix"] == found["concurrent"]
    per_judge, _, calls = found["prefix"]
    assert calls > 3 * 4  # garbled and dropped items were re-asked
    decided = [v["result"] != "error" for vs in per_judge.values() for v in vs]
    assert sum(decided) > 0.9 * len(decided)
