import json

import httpx
import pytest

from adhere.core._chat import ChatMessage, ToolCall
from adhere.errors import ModelCallError
from adhere.models import open_client
from adhere.testing import (
    DictReplaySource,
    PolicyServerConfig,
    ThreadedPolicyServer,
    default_registry,
)
from adhere.wire import ChatRequest, Conversation, Reply

QUESTION = "What is 2+2 and the capital of France?"


def user(text):
    return ChatMessage(role="user", content=text)


async def ask(endpoint, text=QUESTION):
    client = open_client(endpoint)
    try:
        return await client.complete(ChatRequest(messages=(user(text),)))
    finally:
        await client.aclose()


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_oracle_and_noisy_answer_from_the_key(server, make_endpoint, api):
    right = await ask(make_endpoint(server.url, api, "oracle"))
    assert right.message.content == "<sum>4</sum> <capital>Paris</capital>"
    wrong = await ask(make_endpoint(server.url, api, "noisy:rate=1,seed=3"))
    assert wrong.message.content == "<sum>WRONG</sum> <capital>WRONG</capital>"
    garbled = await ask(make_endpoint(server.url, api, "noisy:rate=0,garble=1"))
    assert "<" not in garbled.message.content


async def test_unknown_conversation_is_a_clear_422(server, make_endpoint):
    with pytest.raises(ModelCallError) as caught:
        await ask(make_endpoint(server.url, "anthropic", "oracle"), "Who are you?")
    assert caught.value.status == 422
    assert "no instance starts with 'Who are you?'" in str(caught.value)
    assert "not retried" in str(caught.value)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_replay_from_a_dict(start_server, make_endpoint, api):
    recorded = Conversation(
        model="replay", policy="replay", options={}, system="", messages=(user("Name a prime."),)
    )
    tape = Reply(text="Checking.", tool_calls=(ToolCall(id="t1", name="calc", arguments={"n": 7}),))
    server = await start_server(replay=DictReplaySource({recorded.digest: tape}))
    response = await ask(make_endpoint(server.url, api, "replay"), "Name a prime.")
    assert response.message.content == "Checking."
    assert response.message.tool_calls == tape.tool_calls
    with pytest.raises(ModelCallError, match="no recorded reply") as caught:
        await ask(make_endpoint(server.url, api, "replay"), "Something else")
    assert caught.value.status == 422


async def test_health_models_and_stats(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        assert (await http.get("/healthz")).json() == {"status": "ok"}
        models = (await http.get("/v1/models")).json()
        ids = [entry["id"] for entry in models["data"]]
        policies = sorted(name for name in default_registry().names() if name != "script")
        assert {"agent", "judge", "noisy", "oracle", "replay"} <= set(policies)
        assert ids == [*policies, "script:agent", "script:hello"]
        body = {"model": "script:hello", "messages": [{"role": "user", "content": "hi"}]}
        for prefix in ("", "/t/trial-1", "/t/trial-1", "/t/trial-2"):
            reply = await http.post(prefix + "/v1/chat/completions", json=body)
            assert reply.status_code == 200
        anthropic = {**body, "max_tokens": 10}
        assert (await http.post("/t/trial-2/v1/messages", json=anthropic)).status_code == 200
        await http.post("/v1/messages", json=body)  # no max_tokens: 400
        stats = (await http.get("/_adhere/stats")).json()
    assert stats == server.stats
    assert stats["requests"] == 6
    assert stats["by_model"] == {"script:hello": 6}
    assert stats["by_status"] == {"200": 5, "400": 1}
    assert stats["by_api"] == {"openai": 4, "anthropic": 2}
    assert stats["by_trial"] == {"trial-1": 2, "trial-2": 2}


async def test_errors_in_each_apis_shape(server):
    async with httpx.AsyncClient(base_url=server.url) as http:
        bad_role = {"model": "oracle", "messages": [{"role": "robot", "content": "x"}]}
        reply = await http.post("/v1/chat/completions", json=bad_role)
        assert reply.status_code == 400
        error = reply.json()["error"]
        assert error["type"] == "invalid_request_error"
        assert error["param"] == "messages[0].role"
        assert "unsupported role 'robot'" in error["message"]

        reply = await http.post(
            "/v1/messages", json={"model": "oracle", "max_tokens": 5, "messages": "hi"}
        )
        assert reply.status_code == 400
        document = reply.json()
        assert document["type"] == "error"
        assert document["error"]["type"] == "invalid_request_error"
        assert document["error"]["message"].startswith("messages: expected an array")

        reply = await http.post(
            "/v1/messages",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )
        assert reply.status_code == 400 and "not valid JSON" in reply.text

        body = {
            "model": "claude-3",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "x"}],
        }
        reply = await http.post("/v1/messages", json=body)
        assert reply.status_code == 404
        assert reply.json()["error"]["type"] == "not_found_error"

        reply = await http.post(
            "/v1/chat/completions",
            json={"model": "oracle:bogus=1", "messages": [{"role": "user", "content": "x"}]},
        )
        assert reply.status_code == 400
        assert reply.json()["error"]["param"] == "model"
        assert "unknown option 'bogus'" in reply.json()["error"]["message"]

        assert (await http.get("/v1/chat/completions")).status_code == 405
        assert (await http.get("/nowhere")).status_code == 404


async def test_injected_failures_carry_retry_after(server):
    body = {
        "model": "script:hello,fail_first=1,fail_status=429,retry_after=2",
        "messages": [{"role": "user", "content": "x"}],
    }
    async with httpx.AsyncClient(base_url=server.url) as http:
        first = await http.post("/v1/chat/completions", json=body)
        second = await http.post("/v1/chat/completions", json=body)
    assert first.status_code == 429 and first.headers["retry-after"] == "2"
    assert first.json()["error"]["type"] == "requests"
    assert second.status_code == 200


async def test_openai_stream_is_sse_with_usage_and_done(server):
    body = {
        "model": "script:agent",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post("/v1/chat/completions", json=body)
    assert reply.headers["content-type"].startswith("text/event-stream")
    data = [line[6:] for line in reply.text.splitlines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(item) for item in data[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] > 0
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    calls = [c for c in chunks if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
    assert calls[0]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "read_file"
    assert len(calls) > 2  # arguments come in several fragments


async def test_anthropic_stream_event_sequence(server):
    body = {
        "model": "script:agent",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
    }
    async with httpx.AsyncClient(base_url=server.url) as http:
        reply = await http.post("/v1/messages", json=body)
    events = [line[7:] for line in reply.text.splitlines() if line.startswith("event: ")]
    assert events[:2] == ["message_start", "ping"]
    assert events[-2:] == ["message_delta", "message_stop"]
    starts = [
        json.loads(line[6:])["content_block"]["type"]
        for line in reply.text.splitlines()
        if line.startswith("data: ") and '"content_block_start"' in line
    ]
    assert starts == ["thinking", "text", "tool_use"]
    assert events.count("content_block_stop") == 3
    assert '"input_json_delta"' in reply.text


def test_threaded_server_for_sync_callers():
    config = PolicyServerConfig(scripts={"s": []})
    server = ThreadedPolicyServer(config)
    with server:
        url = server.url
        assert httpx.get(url + "/healthz").json() == {"status": "ok"}
        body = {"model": "script:s", "messages": [{"role": "user", "content": "x"}]}
        reply = httpx.post(url + "/v1/chat/completions", json=body)
        assert reply.status_code == 500  # an empty script is a broken policy
        assert server.stats["by_status"] == {"500": 1}
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/healthz")
