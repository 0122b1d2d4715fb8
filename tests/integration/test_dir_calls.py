"""``adhere trial run`` in a pod: the sidecar's call log is read only once it is complete.

A real recording proxy writing ``<dir>/<trial>/calls.jsonl`` (as the sidecar does) in
front of the misbehaving model server of ``tests/integration/slow_upstream``.
"""

import time
from pathlib import Path

import httpx
import pytest
from aiohttp import web

from adhere.artifacts import ProxyCall
from adhere.observe import JsonlDirSink, ProxyConfig, RecordingProxy, Upstream
from adhere.runner._trial import DirCalls, run_stored_trial
from tests.integration.operator._operator_parts import proxy_sidecar, real_model, stored_rollout
from tests.integration.slow_upstream import LINGER_SECONDS, serve_slow_upstream


@pytest.fixture
async def slow():
    runner, url = await serve_slow_upstream()
    yield url
    await runner.cleanup()


@pytest.fixture
async def sidecar(slow, tmp_path):
    """A recording proxy logging to ``tmp_path/calls``, as a trial pod's sidecar."""
    config = ProxyConfig(
        upstreams={"m": Upstream("m", slow)}, sink=JsonlDirSink(tmp_path / "calls")
    )
    async with RecordingProxy(config) as proxy:
        yield proxy


async def gemini_call(proxy, trial, model):
    """A client that returns once it has the whole reply (its finish reason), or gives up
    after the first part of one that stalls."""
    url = proxy.trial_base_url(trial, "m") + f"/v1beta/models/{model}:streamGenerateContent"
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url + "?alt=sse", json={"contents": []}) as answer:
            async for line in answer.aiter_lines():
                if "finishReason" in line or (model == "stall" and line.startswith("data:")):
                    return


async def test_take_waits_for_a_call_still_in_flight(sidecar, tmp_path):
    await gemini_call(sidecar, "t1", "linger")
    assert JsonlDirSink(tmp_path / "calls").read("t1") == []  # not written yet
    began = time.monotonic()
    [record] = await DirCalls(sidecar.url, tmp_path / "calls", settle_seconds=5).take("t1")
    assert time.monotonic() - began < LINGER_SECONDS + 1
    assert record.error is None and record.outcome == "ok"


async def test_take_does_not_hang_on_a_call_that_never_ends(sidecar, tmp_path):
    await gemini_call(sidecar, "t1", "stall")
    began = time.monotonic()
    [record] = await DirCalls(sidecar.url, tmp_path / "calls", settle_seconds=0.3).take("t1")
    assert time.monotonic() - began < 3
    assert record.outcome == "cut" and record.error.startswith("cut: still in flight 0.3s")


def old_record(seq):
    """A record as a sidecar from before per-call outcomes wrote it."""
    return ProxyCall.from_json_dict(
        {"seq": seq, "trial": "t1", "upstream": "m", "api": "openai-chat", "method": "POST",
         "path": "/v1/chat/completions", "query": "", "stream": False, "request": None,
         "status": 200, "response": None, "sse_events": 0, "error": None,
         "started_at": "2025-01-01T00:00:00+00:00", "duration_seconds": 0.1,
         "ttfb_seconds": 0.1, "usage": None}
    )  # fmt: skip


async def test_an_older_sidecar_without_settling_gets_the_old_wait(tmp_path):
    sink = JsonlDirSink(tmp_path / "calls")
    sink.record("t1", old_record(1))
    sink.record("t1", old_record(0))
    app = web.Application()  # answers 404 to everything, like a proxy before settling
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        records = await DirCalls(f"http://{host}:{port}", tmp_path / "calls", read_seconds=1).take(
            "t1"
        )
    finally:
        await runner.cleanup()
    assert [r.seq for r in records] == [0, 1] and records[0].outcome is None


async def test_a_stored_trial_through_a_sidecar_whose_server_holds_streams_open(
    tmp_path: Path, slow
) -> None:
    held = real_model()
    held["endpoint"] = {**held["endpoint"], "model": "hold", "stream": True}
    store, trials = stored_rollout(tmp_path, models=[held])
    async with proxy_sidecar(slow, "gpt-x", tmp_path / "calls") as url:
        began = time.monotonic()
        result = await run_stored_trial(
            store.uri, trials[0].id, attempt=1, proxy_url=url, calls_dir=tmp_path / "calls"
        )
    assert time.monotonic() - began < 10
    assert result.status == "ok", result.error
    assert result.calls == 1
    [call] = store.read_calls(trials[0])
    assert call["error"] is None and call["outcome"] == "ok"
