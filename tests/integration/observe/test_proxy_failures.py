"""Failed calls are recorded too; streams are relayed as they arrive, cut ones stay cut."""

import asyncio
import json
import time

import httpx
import pytest
from aiohttp import web

from adhere.core._chat import ChatMessage
from adhere.errors import ModelCallError
from adhere.models import open_client
from adhere.observe._proxy_config import Upstream
from adhere.wire import ChatRequest

HI = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))


def chunk(text, finish=None):
    choice = {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}
    body = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps(body)}\n\n".encode()


def misbehaving_app():
    """Chat Completions streams that pause, break off, or never answer (by model name)."""

    async def handle(request):
        model = (await request.json())["model"]
        if model == "hang":
            await asyncio.sleep(5)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(chunk("first "))
        if model == "cut":
            await response.write(chunk("second "))
            request.transport.close()  # no terminating chunk: the stream breaks off
            return response
        if model == "pause":
            await asyncio.sleep(0.5)
        if model == "long":
            try:
                for _ in range(200):
                    await asyncio.sleep(0.01)
                    await response.write(chunk("more "))
            except ConnectionError:  # the proxy hung up
                return response
        await response.write(chunk("last", finish="stop"))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", handle)
    return app


@pytest.fixture
async def odd(serve_app):
    return await serve_app(misbehaving_app())


async def wait_for_records(sink, trial, count, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if trial in sink.trials():
            records = sink.take(trial)
            assert len(records) == count, records
            return records
        await asyncio.sleep(0.02)
    raise AssertionError(f"no records for {trial}")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_unreachable_upstream_is_a_502_and_recorded(
    start_proxy, make_endpoint, closed_port, api
):
    proxy = await start_proxy({"dead": f"http://127.0.0.1:{closed_port}"})
    base = proxy.trial_base_url("t", "dead")
    path = "/v1/chat/completions" if api == "openai" else "/v1/messages"
    async with httpx.AsyncClient() as http:
        answer = await http.post(base + path, json={"model": "x", "messages": []})
    assert answer.status_code == 502
    error = answer.json()["error"]
    assert "upstream unreachable" in error["message"]
    if api == "anthropic":
        assert answer.json()["type"] == "error" and error["type"] == "api_error"
    client = open_client(make_endpoint(base, api))  # 1 try + 2 retries
    try:
        with pytest.raises(ModelCallError, match="502"):
            await client.complete(HI)
    finally:
        await client.aclose()
    records = proxy.config.sink.take("t")
    assert [record["seq"] for record in records] == [0, 1, 2, 3]
    for record in records:
        assert record["status"] is None and record["response"] is None
        assert record["error"].startswith("upstream unreachable: ClientConnectorError")
        assert record["usage"] is None and record["ttfb_seconds"] is None
        assert record["request"] is not None


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_upstream_5xx_and_the_retry_are_two_records(policy, start_proxy, make_endpoint, api):
    proxy = await start_proxy({"m": policy.url})
    model = "script:hello,fail_first=1,fail_status=503,retry_after=0"
    client = open_client(make_endpoint(proxy.trial_base_url("t", "m"), api, model))
    try:
        response = await client.complete(HI)
    finally:
        await client.aclose()
    assert response.attempts == 2
    failed, retried = proxy.config.sink.take("t")
    assert (failed["seq"], failed["status"], retried["seq"], retried["status"]) == (0, 503, 1, 200)
    assert failed["error"].startswith("HTTP 503: ") and "injected failure" in failed["error"]
    assert "injected failure" in json.dumps(failed["response"])  # the upstream's error body
    assert failed["usage"] is None
    assert retried["error"] is None and retried["usage"] is not None


async def test_upstream_4xx_is_forwarded_as_is(policy, start_proxy):
    proxy = await start_proxy({"m": policy.url})
    body = {"model": "script:nope", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}
    async with httpx.AsyncClient() as http:
        direct = await http.post(policy.url + "/v1/messages", json=body)
        proxied = await http.post(proxy.trial_base_url("t", "m") + "/v1/messages", json=body)
    assert proxied.status_code == direct.status_code == 404
    assert proxied.json() == direct.json()
    [record] = proxy.config.sink.take("t")
    assert record["status"] == 404 and record["response"] == direct.json()
    assert record["error"].startswith("HTTP 404: not_found_error: ")


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/t/t1/nowhere/v1/messages", "unknown upstream 'nowhere' (known: m)"),
        ("/v1/messages", "expected a path /t/<trial-id>/<upstream>/<api-path>"),
        ("/t/t1/m", "expected a path /t/<trial-id>/<upstream>/<api-path>"),
        ("/t/..%2F/m/v1/chat/completions", "bad trial id"),
    ],
)
async def test_unroutable_requests_are_404_and_not_recorded(policy, start_proxy, path, problem):
    proxy = await start_proxy({"m": policy.url})
    async with httpx.AsyncClient() as http:
        answer = await http.post(proxy.url + path, json={"model": "script:hello"})
        health = await http.get(proxy.url + "/healthz")
    assert answer.status_code == 404
    assert problem in answer.json()["error"]["message"]
    assert health.json() == {"status": "ok"}
    assert proxy.config.sink.trials() == []


async def test_streams_are_relayed_as_they_arrive(odd, start_proxy):
    proxy = await start_proxy({"odd": odd})
    url = proxy.trial_base_url("t", "odd") + "/v1/chat/completions"
    body = {"model": "pause", "messages": [], "stream": True}
    async with httpx.AsyncClient() as http:
        began = time.monotonic()
        async with http.stream("POST", url, json=body) as answer:
            first_at = None
            async for line in answer.aiter_lines():
                if line.startswith("data:") and first_at is None:
                    first_at = time.monotonic() - began
                    assert "first" in line
        ended_at = time.monotonic() - began
    assert ended_at >= 0.5
    assert first_at < ended_at - 0.3, (first_at, ended_at)
    [record] = proxy.config.sink.take("t")
    assert record["ttfb_seconds"] < 0.3 and record["duration_seconds"] >= 0.5
    assert record["response"]["choices"][0]["message"]["content"] == "first last"
    assert record["sse_events"] == 3 and record["error"] is None


async def test_a_stream_cut_upstream_is_cut_for_the_client_and_recorded(odd, start_proxy):
    proxy = await start_proxy({"odd": odd})
    url = proxy.trial_base_url("t", "odd") + "/v1/chat/completions"
    received = []
    async with httpx.AsyncClient() as http:
        with pytest.raises(httpx.RemoteProtocolError):
            async with http.stream("POST", url, json={"model": "cut", "stream": True}) as answer:
                async for data in answer.aiter_bytes():
                    received.append(data)
    assert b"second" in b"".join(received)
    [record] = proxy.config.sink.take("t")
    assert record["status"] == 200
    assert record["error"].startswith("the upstream reply broke off: ClientPayloadError")
    assert record["response"]["choices"][0]["message"]["content"] == "first second "
    assert record["response"]["choices"][0]["finish_reason"] is None


async def test_a_slow_upstream_times_out_as_504(odd, start_proxy):
    proxy = await start_proxy({"odd": Upstream("odd", odd, timeout_seconds=0.3)})
    url = proxy.trial_base_url("t", "odd") + "/v1/chat/completions"
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json={"model": "hang", "stream": True})
    assert answer.status_code == 504
    assert answer.json()["error"]["type"] == "timeout_error"
    [record] = proxy.config.sink.take("t")
    assert record["status"] is None and record["error"] == "upstream timed out after 0.3s"
    assert 0.3 <= record["duration_seconds"] < 2


async def test_a_client_that_leaves_mid_stream_is_recorded(odd, start_proxy):
    proxy = await start_proxy({"odd": odd})
    url = proxy.trial_base_url("t", "odd") + "/v1/chat/completions"
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url, json={"model": "long", "stream": True}) as answer:
            async for data in answer.aiter_bytes():
                assert b"first" in data
                break
    [record] = await wait_for_records(proxy.config.sink, "t", 1)
    assert record["status"] == 200
    assert record["error"].startswith("the client went away")
    assert record["response"]["choices"][0]["message"]["content"].startswith("first")


async def test_calls_cut_by_stopping_the_proxy_are_recorded(odd, start_proxy):
    proxy = await start_proxy({"odd": odd})
    url = proxy.trial_base_url("t", "odd") + "/v1/chat/completions"
    async with httpx.AsyncClient() as http:
        async with http.stream("POST", url, json={"model": "long", "stream": True}) as answer:
            async for data in answer.aiter_bytes():
                assert b"first" in data
                break
            await proxy.stop()
    [record] = proxy.config.sink.take("t")
    assert record["error"] == "cancelled: the proxy stopped before the call ended"
    assert record["status"] == 200 and record["sse_events"] > 1
