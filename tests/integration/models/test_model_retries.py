import asyncio
import socket
import time

import pytest
from aiohttp import web

from adhere.core._chat import ChatMessage, Usage
from adhere.errors import ModelCallError, ModelReplyError
from adhere.models import open_client
from adhere.spec._endpoint import Limits
from adhere.wire import ChatRequest, Outgoing, Reply
from adhere.wire.anthropic import AnthropicCodec

REQUEST = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))
TINY = Limits(max_retries=2, timeout_seconds=5, backoff_base_seconds=0.01, backoff_max_seconds=0.02)


async def call(endpoint, request=REQUEST):
    records = []
    client = open_client(endpoint, on_call=records.append)
    try:
        return await client.complete(request), records
    finally:
        await client.aclose()


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_429_with_retry_after_then_success(server, make_endpoint, api):
    model = "script:hello,fail_first=2,fail_status=429,retry_after=0.2"
    # The cap keeps the server's 0.2 s request down to 0.05 s.
    limits = Limits(max_retries=3, backoff_base_seconds=0.01, backoff_max_seconds=0.05)
    began = time.monotonic()
    response, records = await call(make_endpoint(server.url, api, model, limits=limits))
    assert time.monotonic() - began < 0.5
    assert response.attempts == 3
    assert response.message.content.startswith("Hello")
    assert [record.status for record in records] == [429, 429, 200]
    assert [record.attempt for record in records] == [1, 2, 3]
    assert "injected failure 1 of 2" in records[0].error
    assert records[0].response is not None  # the error body is kept
    assert server.stats["by_status"] == {"429": 2, "200": 1}


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_503_then_success_when_streaming(server, make_endpoint, api):
    model = "script:agent,fail_first=1"
    response, records = await call(make_endpoint(server.url, api, model, stream=True))
    assert response.attempts == 2
    assert [record.status for record in records] == [503, 200]
    assert response.message.tool_calls[0].name == "read_file"


async def test_retries_are_counted_per_conversation(server, make_endpoint):
    endpoint = make_endpoint(server.url, model="script:hello,fail_first=1")
    first, _ = await call(endpoint)
    again, _ = await call(endpoint)
    other, _ = await call(
        endpoint, ChatRequest(messages=(ChatMessage(role="user", content="another"),))
    )
    assert (first.attempts, again.attempts, other.attempts) == (2, 1, 2)


async def test_exhausted_retries_raise_with_status(server, make_endpoint):
    endpoint = make_endpoint(server.url, "anthropic", "script:hello,fail_first=9", limits=TINY)
    with pytest.raises(ModelCallError) as caught:
        await call(endpoint)
    error = caught.value
    assert error.status == 503
    assert error.endpoint == server.url
    assert "after 3 attempts" in str(error)
    assert "injected failure 3 of 9" in str(error)
    assert server.stats["requests"] == 3


@pytest.mark.parametrize(
    ("model", "status", "fragment"),
    [
        ("noisy:rate=lots", 400, "option 'rate' of policy 'noisy' must be a number"),
        ("gpt-5", 404, "unknown policy 'gpt-5'"),
        ("script:hello,fail_first=5,fail_status=418", 418, "injected failure"),
    ],
)
async def test_client_errors_are_not_retried(server, make_endpoint, model, status, fragment):
    with pytest.raises(ModelCallError) as caught:
        await call(make_endpoint(server.url, model=model))
    assert caught.value.status == status
    assert fragment in str(caught.value)
    assert "not retried" in str(caught.value)
    assert server.stats["requests"] == 1


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_closed_port_fails_after_retries(make_endpoint):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelCallError) as caught:
        await call(make_endpoint(url, limits=TINY))
    assert caught.value.status is None
    assert "after 3 attempts" in str(caught.value)
    assert "Cannot connect to host 127.0.0.1" in str(caught.value)


async def test_attempts_time_out_and_are_retried(server, make_endpoint):
    limits = Limits(
        max_retries=1, timeout_seconds=0.1, backoff_base_seconds=0.0, backoff_max_seconds=0.0
    )
    records = []
    client = open_client(
        make_endpoint(server.url, model="script:hello,delay=0.5", limits=limits),
        on_call=records.append,
    )
    try:
        with pytest.raises(ModelCallError, match=r"timed out after 0\.1s") as caught:
            await client.complete(REQUEST)
    finally:
        await client.aclose()
    assert caught.value.status is None
    assert [record.error for record in records] == ["timed out after 0.1s"] * 2


@pytest.fixture
async def flaky_stream_server():
    """A server whose first Anthropic stream breaks off mid-way; the second is whole."""
    codec = AnthropicCodec()
    calls = []

    async def messages(request):
        calls.append(await request.json())
        outgoing = Outgoing(
            reply=Reply(text="one two three four five six seven"),
            model="flaky",
            ident="x",
            created=0,
            usage=Usage(input_tokens=1, output_tokens=7),
        )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        events = list(codec.reply_events(outgoing, True))
        if len(calls) == 1:
            events = events[:4]
        for event in events:
            await response.write(event)
        await response.write_eof()
        return response

    async def garbage(request):
        return web.Response(text="<html>not json</html>", content_type="text/html")

    app = web.Application()
    app.router.add_post("/v1/messages", messages)
    app.router.add_post("/garbage/v1/messages", garbage)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}", calls
    await runner.cleanup()


async def test_broken_stream_is_retried_as_a_whole(flaky_stream_server, make_endpoint):
    url, calls = flaky_stream_server
    response, records = await call(make_endpoint(url, "anthropic", "flaky", stream=True))
    assert response.attempts == 2 and len(calls) == 2
    assert response.message.content == "one two three four five six seven"
    assert records[0].error == "the stream ended before the reply was complete"
    assert records[0].status == 200


async def test_unparseable_reply_is_a_reply_error_not_retried(flaky_stream_server, make_endpoint):
    url, _ = flaky_stream_server
    records = []
    client = open_client(make_endpoint(url + "/garbage", "anthropic", "x"), on_call=records.append)
    try:
        with pytest.raises(ModelReplyError, match="not valid JSON") as caught:
            await client.complete(REQUEST)
    finally:
        await client.aclose()
    assert caught.value.status == 200
    assert len(records) == 1


async def test_concurrent_callers_all_retry_independently(server, make_endpoint):
    client = open_client(make_endpoint(server.url, model="script:hello,fail_first=1"))
    requests = [
        ChatRequest(messages=(ChatMessage(role="user", content=f"q{index}"),)) for index in range(5)
    ]
    try:
        responses = await asyncio.gather(*(client.complete(r) for r in requests))
    finally:
        await client.aclose()
    assert [response.attempts for response in responses] == [2] * 5
