"""Runs against real, misbehaving model servers: no record lost, upstream faults apart.

The model server is ``tests/integration/slow_upstream`` (or the scripted policy server)
on 127.0.0.1; trials run through the real engine and recording proxy.
"""

import time
from pathlib import Path

import httpx
import pytest

from adhere.artifacts import RolloutStore
from adhere.core import Check, Instance, Source, Trial, Verdict
from adhere.observe import MemorySink, ProxyConfig, RecordingProxy, Upstream
from adhere.report._results import collect, report_for
from adhere.runner import Engine, ModelTarget, ProxyCalls, execute, prepare
from adhere.scaffolds import ScaffoldResult, TurnOutcome
from adhere.spec import load_run_config
from adhere.store import open_store
from tests.helpers import bench_yaml, model, rollout_yaml
from tests.integration.slow_upstream import serve_slow_upstream

FAST = ", limits: {maxRetries: 1, backoffBaseSeconds: 0.01, backoffMaxSeconds: 0.02}"


@pytest.fixture
async def slow():
    runner, url = await serve_slow_upstream()
    yield url
    await runner.cleanup()


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_no_record_is_lost_when_the_server_holds_every_stream_open(
    tmp_path: Path, write_specs, slow, api
) -> None:
    base = f"{slow}/v1" if api == "openai" else slow
    models = model("m", "hold", api=api, base=base, extra=", stream: true" + FAST)
    path = write_specs(bench_yaml(), rollout_yaml(models, parallelism=12, repeats=3))
    prepared = prepare(load_run_config([path]))
    began = time.monotonic()
    summary = await execute(prepared)
    assert time.monotonic() - began < 30  # no trial waited for a held stream to close
    assert (summary.ran, summary.ok, summary.failed, summary.faults) == (36, 36, 0, 0)
    for trial in prepared.trials:
        result = prepared.store.read_result(trial)
        assert result is not None and result.status == "ok", result
        assert result.calls == 1 and result.outcomes == {}
        [call] = prepared.store.read_calls(trial)
        assert call["error"] is None and call["outcome"] == "ok"
        assert call["usage"] == {"input_tokens": 7, "output_tokens": 3}


async def test_a_cut_stream_the_client_gave_up_on_is_an_upstream_fault(
    tmp_path: Path, write_specs, slow
) -> None:
    models = model("m", "cut", base=f"{slow}/v1", extra=", stream: true" + FAST)
    path = write_specs(bench_yaml(instructions="[3]", lengths="[3]"), rollout_yaml(models))
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared, retry_backoff_seconds=0.01)
    trials = len(prepared.trials)
    assert (summary.ok, summary.failed, summary.faults, summary.retried) == (
        0,
        0,
        trials,
        2 * trials,
    )
    for stored in prepared.store.iter_trials():
        result = stored.result
        assert result.status == "upstream_fault" and result.attempt == 3
        assert result.outcomes == {"cut": 2}  # the client's try and its one retry
        assert "the stream ended before its final event" in (result.error or "")
        assert stored.verdicts == []
    assert len(list((tmp_path / "runs").rglob("attempt-2/calls.jsonl"))) == trials


async def test_one_5xx_the_client_retried_is_recorded_but_not_a_fault(
    tmp_path: Path, write_specs
) -> None:
    flaky = model("flaky", "oracle:fail_first=1,fail_status=503,retry_after=0", extra=FAST)
    path = write_specs(bench_yaml(), rollout_yaml(flaky))
    prepared = prepare(load_run_config([path]))
    summary = await execute(prepared)
    assert (summary.ok, summary.faults) == (12, 0)
    collected = collect(prepared.store)
    assert all(t.status == "ok" and t.outcomes == {"server_error": 1} for t in collected.trials)
    calls = prepared.store.read_calls(prepared.trials[0])
    assert [c["outcome"] for c in calls] == ["server_error", "ok"]
    report = report_for(prepared.store)
    row = report.summary.rows[0]
    assert row[report.summary.header.index(report.isr_name)] == "100.0%"
    assert row[report.summary.header.index("upstream faults")] == "0"
    outcomes = next(t for t in report.breakdowns if t.title.startswith("Model-side outcomes"))
    assert outcomes.rows == [["flaky", "24", "0", "0", "0", "0", "12", "0"]]


class ToleratingAgent:
    """An agent like a CLI that exits 0 whatever its calls got.

    It sends one call per ``+``-separated model name of its endpoint (each picks the
    slow server's behaviour) and ignores every failure.
    """

    name = "tolerant"
    api = "openai-chat"

    async def install(self, cache_dir: Path) -> None:
        """Nothing to install."""

    async def run(self, ctx) -> ScaffoldResult:
        url = ctx.endpoint.base_url + "/v1/chat/completions"
        async with httpx.AsyncClient(timeout=10) as http:
            for name in ctx.endpoint.model.split("+"):
                body = {
                    "model": name,
                    "stream": True,
                    "messages": [{"role": "user", "content": "hi"}],
                }
                try:
                    async with http.stream("POST", url, json=body) as answer:
                        async for _ in answer.aiter_bytes():
                            pass
                except httpx.HTTPError:
                    pass
        return ScaffoldResult(
            turns=(TurnOutcome(exit_code=0, final_text="done"),), final_text="done"
        )


class PassingSuite:
    """Every check passes (the rule under test is the runner's, not a suite's)."""

    name = "passing"

    def score(self, instance, trajectory):
        return [Verdict(check_id=c.id, result="pass", decided_by="suite") for c in instance.checks]


@pytest.mark.parametrize(
    ("calls", "status", "outcomes"),
    [
        ("cut", "upstream_fault", {"cut": 1}),  # the last call failed: exit 0 does not help
        ("ok+cut", "upstream_fault", {"cut": 1}),
        ("cut+ok", "ok", {"cut": 1}),  # recovered: the agent went on and finished
        ("stall+ok", "ok", {"timeout": 1}),
        ("ok", "ok", {}),
    ],
)
async def test_an_agent_exiting_0_is_a_fault_unless_it_recovered(
    tmp_path: Path, slow, calls, status, outcomes
) -> None:
    upstream = Upstream("m", slow, idle_timeout_seconds=0.3)
    sink = MemorySink()
    instance = Instance(
        id="i1",
        suite="passing",
        turns=["hi"],
        checks=[Check(id="c1", source=Source.USER_QUERY, description="anything")],
    )
    trial = Trial(rollout="r", model="m", scaffold="tolerant", instance="i1", repeat=0)
    store = RolloutStore(open_store(str(tmp_path / "runs")), "r")
    async with RecordingProxy(ProxyConfig(upstreams={"m": upstream}, sink=sink)) as proxy:
        engine = Engine(
            store=store,
            instances=[instance],
            suite_for=lambda name: PassingSuite(),
            scaffolds={"tolerant": ToleratingAgent()},
            timeouts={"tolerant": 30},
            models={"m": ModelTarget(upstream="m", model=calls, api="openai-chat")},
            calls=ProxyCalls(proxy, sink, [], served=None, settle_seconds=2),
            work_root=tmp_path / "work",
            cache_dir=tmp_path / "cache",
            parallelism=1,
            max_retries=1,
            retry_backoff_seconds=0.01,
        )
        summary = await engine.run([trial])
    result = store.read_result(trial)
    assert result is not None and result.status == status and result.outcomes == outcomes
    verdicts = store.read_verdicts(trial)
    if status == "ok":
        assert result.attempt == 1 and [v.result for v in verdicts] == ["pass"]
    else:
        assert result.attempt == 2 and summary.retried == 1 and verdicts == []
        assert result.error is not None and result.error.startswith("upstream fault: the last")
        assert len(list((tmp_path / "runs").rglob("attempt-1/result.json"))) == 1
