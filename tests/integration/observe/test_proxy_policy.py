"""The proxy between the model clients and the scripted policy server (Anthropic, Chat)."""

import gzip
import json
from datetime import datetime

import httpx
import pytest

from adhere.core._chat import ChatMessage, ToolSpec
from adhere.models import open_client
from adhere.observe._proxy_config import Upstream
from adhere.wire import ChatRequest

APIS = ["openai", "anthropic"]
RECORDED_API = {"openai": "openai-chat", "anthropic": "anthropic"}
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
TOOLS = (
    ToolSpec(name="read_file", parameters={"type": "object", "properties": {"path": {}}}),
    ToolSpec(name="write_file"),
    ToolSpec(name="run"),
)


def user(text):
    return ChatMessage(role="user", content=text)


async def drive_agent(make_endpoint, base_url, api, stream):
    """Three turns of the ``agent`` script: tool call, two tool calls, final text."""
    client = open_client(make_endpoint(base_url, api, "script:agent", stream=stream))
    messages = [user("Fix src/app.py")]
    replies = []
    try:
        for _ in range(3):
            response = await client.complete(ChatRequest(messages=tuple(messages), tools=TOOLS))
            replies.append(response)
            messages.append(response.message)
            messages.extend(
                ChatMessage(role="tool", tool_call_id=call.id, content=f"ran {call.name}")
                for call in response.message.tool_calls
            )
    finally:
        await client.aclose()
    return replies


def reply_text(api, response):
    """The assistant's text, tool calls and reasoning from a recorded response document."""
    if api == "openai":
        message = response["choices"][0]["message"]
        calls = [
            (call["function"]["name"], json.loads(call["function"]["arguments"]))
            for call in message.get("tool_calls", [])
        ]
        return message["content"] or "", calls, message.get("reasoning_content", "")
    blocks = response["content"]
    text = "".join(block["text"] for block in blocks if block["type"] == "text")
    calls = [(block["name"], block["input"]) for block in blocks if block["type"] == "tool_use"]
    thinking = "".join(block["thinking"] for block in blocks if block["type"] == "thinking")
    return text, calls, thinking


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_agent_through_the_proxy_matches_direct(
    policy, start_proxy, make_endpoint, api, stream
):
    proxy = await start_proxy({"m1": policy.url})
    direct = await drive_agent(make_endpoint, policy.url, api, stream)
    proxied = await drive_agent(make_endpoint, proxy.trial_base_url("trial-a", "m1"), api, stream)
    for mine, theirs in zip(proxied, direct, strict=True):
        assert mine.message == theirs.message
        assert mine.usage == theirs.usage
        assert mine.stop_reason == theirs.stop_reason
        assert mine.attempts == 1

    records = proxy.config.sink.take("trial-a")
    assert [record["seq"] for record in records] == [0, 1, 2]
    for record, reply in zip(records, proxied, strict=True):
        assert record["trial"] == "trial-a" and record["upstream"] == "m1"
        assert record["api"] == RECORDED_API[api]
        assert (record["method"], record["path"], record["query"]) == ("POST", PATHS[api], "")
        assert record["stream"] is stream and record["request"]["stream"] is stream
        assert record["status"] == 200 and record["error"] is None
        assert (record["sse_events"] > 5) is stream
        usage = {
            "input_tokens": reply.usage.input_tokens,
            "output_tokens": reply.usage.output_tokens,
        }
        if reply.usage.reasoning_tokens is not None:  # the shape reports them
            usage["reasoning_tokens"] = reply.usage.reasoning_tokens
        assert record["usage"] == usage
        text, calls, reasoning = reply_text(api, record["response"])
        assert text == reply.message.content
        assert calls == [(call.name, call.arguments) for call in reply.message.tool_calls]
        assert reasoning == reply.message.reasoning
        assert datetime.fromisoformat(record["started_at"]).utcoffset().total_seconds() == 0
        assert 0 < record["ttfb_seconds"] <= record["duration_seconds"] < 5
        json.dumps(record)  # serialisable as it is
    # The requests are recorded as sent: the tools and the growing conversation.
    assert [len(record["request"]["messages"]) for record in records][0] >= 1
    assert "read_file" in json.dumps(records[0]["request"]["tools"])
    assert "ran read_file" in json.dumps(records[1]["request"]["messages"])
    assert proxy.config.sink.take("trial-a") == []


@pytest.mark.parametrize("api", APIS)
async def test_stream_and_plain_records_hold_the_same_response(
    policy, start_proxy, make_endpoint, api
):
    proxy = await start_proxy({"m1": policy.url})
    for stream in (False, True):
        await drive_agent(make_endpoint, proxy.trial_base_url(f"t-{stream}", "m1"), api, stream)
    plain = proxy.config.sink.take("t-False")
    streamed = proxy.config.sink.take("t-True")
    for one, other in zip(plain, streamed, strict=True):
        assert reply_text(api, one["response"]) == reply_text(api, other["response"])
        assert one["usage"] == other["usage"]
        if api == "anthropic":
            assert one["response"]["stop_reason"] == other["response"]["stop_reason"]
            assert one["response"]["content"] == other["response"]["content"]
        else:
            first, second = one["response"]["choices"][0], other["response"]["choices"][0]
            assert first["finish_reason"] == second["finish_reason"]
            assert first["message"] == second["message"]


async def test_upstream_names_route_to_their_own_servers(start_policy, start_proxy, make_endpoint):
    one, two = await start_policy(), await start_policy()
    proxy = await start_proxy({"one": one.url, "two": two.url})
    for name in ("one", "two", "two"):
        client = open_client(make_endpoint(proxy.trial_base_url("t", name), "anthropic"))
        try:
            await client.complete(ChatRequest(messages=(user("hi"),)))
        finally:
            await client.aclose()
    assert one.stats["requests"] == 1 and two.stats["requests"] == 2
    assert [r["upstream"] for r in proxy.config.sink.take("t")] == ["one", "two", "two"]


async def test_real_key_is_injected_and_the_dummy_key_dropped(
    start_policy, start_proxy, make_endpoint
):
    keyed = await start_policy(require_api_key="sk-real-upstream-key-0001")
    proxy = await start_proxy({"m": Upstream("m", keyed.url + "/v1", "sk-real-upstream-key-0001")})
    env = {"DUMMY": "sk-dummy-client-key-42"}
    for api in APIS:
        config = make_endpoint(proxy.trial_base_url("t", "m"), api, key_env="DUMMY")
        client = open_client(config, env=env)
        try:
            response = await client.complete(ChatRequest(messages=(user("hi"),)))
        finally:
            await client.aclose()
        assert response.message.content.startswith("Hello")
    records = proxy.config.sink.take("t")
    assert [record["status"] for record in records] == [200, 200]


async def test_compressed_request_bodies_are_forwarded_and_recorded(policy, start_proxy):
    proxy = await start_proxy({"m1": policy.url})
    body = {"model": "script:hello", "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            proxy.trial_base_url("t", "m1") + "/v1/chat/completions",
            content=gzip.compress(json.dumps(body).encode()),
            headers={"content-type": "application/json", "content-encoding": "gzip"},
        )
    assert answer.status_code == 200, answer.text
    [record] = proxy.config.sink.take("t")
    assert record["request"] == body and record["status"] == 200
