import dataclasses
import json
import logging

import pytest
from aiohttp import web

from adhere.core._chat import ChatMessage
from adhere.errors import ModelCallError
from adhere.models import open_client
from adhere.spec._endpoint import Limits
from adhere.wire import ChatRequest

KEY = "sk-test-9f8e7d6c5b4a-SECRET"
REQUEST = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))
ENV = {"POLICY_KEY": KEY, "WRONG_KEY": "sk-wrong-000"}


@pytest.fixture
async def keyed_server(start_server):
    return await start_server(require_api_key=KEY)


def leaks(text):
    return KEY in text


@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_right_key_works_and_never_leaks(keyed_server, make_endpoint, caplog, api, stream):
    caplog.set_level(logging.DEBUG)
    records = []
    endpoint = make_endpoint(
        keyed_server.url,
        api,
        "script:hello,fail_first=1",
        key_env="POLICY_KEY",
        stream=stream,
    )
    client = open_client(endpoint, on_call=records.append, env=ENV)
    try:
        response = await client.complete(REQUEST)
        assert not leaks(repr(client))
    finally:
        await client.aclose()
    assert response.attempts == 2  # one retry went through the debug log
    assert any("retrying" in record.getMessage() for record in caplog.records)
    assert not leaks(caplog.text)
    assert not leaks(json.dumps([dataclasses.asdict(record) for record in records], default=str))
    assert not leaks(repr(records))


@pytest.mark.parametrize("key_env", [None, "WRONG_KEY"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_missing_or_wrong_key_is_401(keyed_server, make_endpoint, caplog, api, key_env):
    caplog.set_level(logging.DEBUG)
    client = open_client(make_endpoint(keyed_server.url, api, key_env=key_env), env=ENV)
    try:
        with pytest.raises(ModelCallError) as caught:
            await client.complete(REQUEST)
    finally:
        await client.aclose()
    assert caught.value.status == 401
    message = str(caught.value)
    assert ("missing API key" if key_env is None else "invalid API key") in message
    assert not leaks(message) and "sk-wrong" not in message
    assert not leaks(caplog.text)


async def test_open_endpoints_need_no_key(server, make_endpoint):
    client = open_client(make_endpoint(server.url))
    try:
        assert (await client.complete(REQUEST)).attempts == 1
    finally:
        await client.aclose()


@pytest.fixture
async def echoing_server():
    """A misbehaving endpoint that echoes the caller's credentials in a 500 error."""

    async def handler(request):
        echoed = request.headers.get("authorization", "")
        return web.json_response({"error": {"message": f"bad: {echoed}"}}, status=500)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}"
    await runner.cleanup()


async def test_echoed_keys_are_redacted(echoing_server, make_endpoint, caplog):
    caplog.set_level(logging.DEBUG)
    limits = Limits(max_retries=1, backoff_base_seconds=0.0, backoff_max_seconds=0.0)
    records = []
    client = open_client(
        make_endpoint(echoing_server, key_env="POLICY_KEY", limits=limits),
        on_call=records.append,
        env=ENV,
    )
    try:
        with pytest.raises(ModelCallError) as caught:
            await client.complete(REQUEST)
    finally:
        await client.aclose()
    assert "[redacted]" in str(caught.value)
    assert not leaks(str(caught.value))
    assert not leaks(caplog.text)
    assert not leaks(repr(records))
    assert records[0].response == {"error": {"message": "bad: Bearer [redacted]"}}
