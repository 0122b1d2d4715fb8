"""A trial's records are all in before anything reads them: settling, final events, limits.

Against a real misbehaving model server on 127.0.0.1 (``tests/integration/slow_upstream``).
"""

import asyncio
import time

import httpx
import pytest

from adhere.core._chat import ChatMessage
from adhere.models import open_client
from adhere.observe._proxy_config import Upstream
from adhere.wire import ChatRequest
from tests.integration.slow_upstream import LINGER_SECONDS, LIVE_SECONDS, serve_slow_upstream

HI = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@pytest.fixture
async def slow():
    runner, url = await serve_slow_upstream()
    yield url
    await runner.cleanup()


def body(model, **extra):
    return {"model": model, "max_tokens": 50, "stream": True, "messages": [], **extra}


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_stream_held_open_after_its_last_event_ends_for_the_client_and_is_recorded(
    slow, start_proxy, make_endpoint, api
):
    proxy = await start_proxy({"slow": slow})
    client = open_client(make_endpoint(proxy.trial_base_url("t", "slow"), api, "hold", stream=True))
    began = time.monotonic()
    try:
        reply = await client.complete(HI)
    finally:
        await client.aclose()
    assert reply.message.content == "The answer is 42."
    settled = await proxy.settle("t", grace_seconds=5)
    assert time.monotonic() - began < 3  # neither the client nor the settle waited 30 s
    assert (settled.calls, settled.ended, settled.cut) == (1, 0, 0)
    [record] = proxy.config.sink.take("t")
    assert record["error"] is None and record["outcome"] == "ok"
    assert record["usage"] == {"input_tokens": 7, "output_tokens": 3}
    async with httpx.AsyncClient() as http:  # a raw client sees a clean end, not a cut
        async with http.stream("POST", proxy.trial_base_url("t", "slow") + PATHS[api],
                               json=body("hold")) as answer:  # fmt: skip
            received = b"".join([chunk async for chunk in answer.aiter_bytes()])
    assert (b"[DONE]" if api == "openai" else b"message_stop") in received


async def test_a_record_made_after_the_client_returned_is_waited_for(slow, start_proxy):
    proxy = await start_proxy({"slow": slow})
    url = proxy.trial_base_url("t", "slow") + "/v1beta/models/linger:streamGenerateContent"
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url + "?alt=sse", json={"contents": []}) as answer:
            async for line in answer.aiter_lines():
                if "finishReason" in line:
                    break  # the client has the whole reply and returns
    assert proxy.config.sink.take("t") == []  # the upstream has not ended the stream yet
    began = time.monotonic()
    settled = await proxy.settle("t", grace_seconds=5)
    assert time.monotonic() - began < LINGER_SECONDS + 1
    assert (settled.calls, settled.ended) == (1, 0)
    [record] = proxy.config.sink.take("t")
    assert record["error"] is None and record["outcome"] == "ok"
    assert record["response"]["candidates"][0]["finishReason"] == "STOP"


async def test_a_whole_reply_whose_stream_never_ends_is_complete_after_the_grace(slow, start_proxy):
    proxy = await start_proxy({"slow": slow})
    url = proxy.trial_base_url("t", "slow") + "/v1beta/models/hold:streamGenerateContent"
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url + "?alt=sse", json={"contents": []}) as answer:
            async for line in answer.aiter_lines():
                if "finishReason" in line:
                    break
    began = time.monotonic()
    settled = await proxy.settle("t", grace_seconds=0.3)
    assert 0.3 <= time.monotonic() - began < 2
    assert (settled.calls, settled.ended, settled.cut) == (1, 1, 0)
    [record] = proxy.config.sink.take("t")
    assert record["error"] is None and record["outcome"] == "ok"
    assert record["usage"] == {"input_tokens": 7, "output_tokens": 3}


async def test_a_reply_still_unfinished_after_the_grace_is_cut_with_an_error(slow, start_proxy):
    proxy = await start_proxy({"slow": slow})
    url = proxy.trial_base_url("t", "slow") + PATHS["anthropic"]
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url, json=body("stall")) as answer:
            async for chunk in answer.aiter_bytes():
                if b"42." in chunk:
                    break  # the client gives up (e.g. its scaffold timed out)
    settled = await proxy.settle("t", grace_seconds=0.2)
    assert (settled.calls, settled.ended, settled.cut) == (1, 1, 1)
    [record] = proxy.config.sink.take("t")
    assert record["error"].startswith("cut: still in flight 0.2s after the trial's scaffold")
    assert record["outcome"] == "cut"
    assert record["response"]["content"][0]["text"] == "The answer is 42."


async def test_settling_over_http_says_how_many_calls_and_restarts_the_numbering(slow, start_proxy):
    proxy = await start_proxy({"slow": slow})
    url = proxy.trial_base_url("t", "slow") + PATHS["openai"]
    async with httpx.AsyncClient() as http:
        for _ in range(3):
            await http.post(url, json=body("ok"))
        answer = await http.post(proxy.url + "/trials/t/settle", params={"grace": "1"})
        assert answer.status_code == 200
        assert answer.json() == {"trial": "t", "calls": 3, "ended": 0, "cut": 0}
        idle = await http.post(proxy.url + "/trials/other/settle")
        assert idle.json() == {"trial": "other", "calls": 0, "ended": 0, "cut": 0}
        for bad in ("t/settle?grace=-1", "t/settle?grace=x", "..%2F/settle"):
            refused = await http.post(f"{proxy.url}/trials/{bad}")
            assert refused.status_code == 400, bad
        assert [r["seq"] for r in proxy.config.sink.take("t")] == [0, 1, 2]
        await http.post(url, json=body("ok"))  # the trial's next attempt
    assert [r["seq"] for r in proxy.config.sink.take("t")] == [0]


async def test_many_trials_settle_at_once_with_every_record_in(slow, start_proxy):
    proxy = await start_proxy({"slow": slow})

    async def trial(n):
        trial_id = f"t{n}"
        url = proxy.trial_base_url(trial_id, "slow") + PATHS["openai"]
        async with httpx.AsyncClient() as http:
            for model in ("hold", "linger", "ok"):
                async with http.stream("POST", url, json=body(model)) as answer:
                    async for line in answer.aiter_lines():
                        if line == "data: [DONE]":
                            break
        settled = await proxy.settle(trial_id, grace_seconds=5)
        return settled.calls, proxy.config.sink.take(trial_id)

    results = await asyncio.gather(*(trial(n) for n in range(24)))
    for calls, records in results:
        assert calls == 3 and [r["seq"] for r in records] == [0, 1, 2]
        assert all(r["error"] is None for r in records)


async def test_a_long_stream_that_keeps_sending_outlives_the_idle_limit(slow, start_proxy):
    limits = Upstream("slow", slow, idle_timeout_seconds=0.4, timeout_seconds=30)
    proxy = await start_proxy({"slow": limits})
    url = proxy.trial_base_url("t", "slow") + PATHS["openai"]
    async with httpx.AsyncClient(timeout=10) as http:
        live = await http.post(url, json=body("live"))
        with pytest.raises(httpx.RemoteProtocolError):  # the stream is cut for the client
            await http.post(url, json=body("stall"))
    assert live.status_code == 200 and "[DONE]" in live.text
    live_record, stall_record = proxy.config.sink.take("t")
    assert live_record["error"] is None and live_record["duration_seconds"] >= LIVE_SECONDS
    assert stall_record["error"] == "upstream timed out after 0.4s without data"
    assert stall_record["outcome"] == "timeout"


async def test_a_whole_call_limit_still_applies(slow, start_proxy):
    limits = Upstream("slow", slow, idle_timeout_seconds=5, timeout_seconds=0.5)
    proxy = await start_proxy({"slow": limits})
    async with httpx.AsyncClient(timeout=10) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post(proxy.trial_base_url("t", "slow") + PATHS["openai"], json=body("live"))
    [record] = proxy.config.sink.take("t")
    assert record["error"] == "upstream timed out after 0.5s" and record["outcome"] == "timeout"


def test_the_default_limits_fit_slow_reasoning_models():
    upstream = Upstream("m", "http://127.0.0.1:1")
    assert upstream.connect_timeout_seconds == 30
    assert upstream.idle_timeout_seconds >= 600  # minutes of thinking before a first token
    assert upstream.timeout_seconds >= 3600
    with pytest.raises(ValueError, match="idle_timeout_seconds must be positive"):
        Upstream("m", "http://127.0.0.1:1", idle_timeout_seconds=0)
