"""API translation in the recording proxy: every client shape against every upstream shape.

The scripted policy server speaks all four shapes and answers a conversation the same
whatever the shape (its tool-call ids come from the conversation's content), so a
three-turn agent conversation driven in shape X straight to the server must look,
decoded, exactly as the same conversation driven in shape X through the proxy to an
upstream that speaks shape Y.
"""

import httpx
import pytest

from adhere.core._chat import ChatMessage, ToolSpec
from adhere.observe._proxy_config import Upstream
from adhere.wire import Controls, read_answer
from adhere.wire._decode import _DECODERS
from adhere.wire.anthropic._client import encode_anthropic_messages, encode_anthropic_tools
from adhere.wire.gemini._client import encode_gemini_contents, encode_gemini_tools
from adhere.wire.openai_chat._client import encode_openai_messages, encode_openai_tools
from adhere.wire.openai_responses._client import encode_responses_input, encode_responses_tools

SHAPES = ["anthropic", "openai-chat", "openai-responses", "gemini"]
MODEL = "script:agent"
SYSTEM = "You are a careful coding agent."
TOOLS = (
    ToolSpec(
        name="read_file",
        description="Read a file.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    ),
    ToolSpec(name="write_file", description="Write a file."),
    ToolSpec(name="run", description="Run a command."),
)


def request_for(api, messages, stream, max_tokens=256):
    """(path, body) of one chat call in ``api``'s shape."""
    if api == "anthropic":
        body = {
            "model": MODEL,
            "max_tokens": max_tokens,
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "messages": encode_anthropic_messages(messages),
            "tools": encode_anthropic_tools(TOOLS),
            "stream": stream,
        }
        return "/v1/messages", body
    if api == "openai-chat":
        body = {
            "model": MODEL,
            "max_tokens": max_tokens,
            "messages": encode_openai_messages(SYSTEM, messages),
            "tools": encode_openai_tools(TOOLS),
            "stream": stream,
        }
        if stream:
            body["stream_options"] = {"include_usage": True}
        return "/v1/chat/completions", body
    if api == "openai-responses":
        body = {
            "model": MODEL,
            "instructions": SYSTEM,
            "input": encode_responses_input(messages, TOOLS),
            "tools": encode_responses_tools(TOOLS),
            "max_output_tokens": max_tokens,
            "stream": stream,
        }
        return "/v1/responses", body
    body = {
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "contents": encode_gemini_contents(messages),
        "tools": encode_gemini_tools(TOOLS),
        "generationConfig": {"maxOutputTokens": max_tokens},
    }
    action = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"/v1beta/models/{MODEL}:{action}", body


async def call(client, base, api, messages, stream):
    """One call; the reply decoded from the client's side, with status and the raw answer."""
    path, body = request_for(api, messages, stream)
    response = await client.post(base + path, json=body)
    answer = read_answer(
        api, response.status_code, response.headers["content-type"], response.content
    )
    assert answer.error is None, answer.error
    *_, reply = _DECODERS[api](body, answer.response)
    return reply, answer


async def drive(client, base, api, stream):
    """The ``agent`` script's three turns; the replies as (text, calls, reasoning) and usage."""
    messages = [ChatMessage(role="user", content="Fix src/app.py")]
    seen = []
    for _ in range(3):
        reply, answer = await call(client, base, api, messages, stream)
        seen.append(
            (
                reply.content,
                [(c.id, c.name, c.arguments) for c in reply.tool_calls],
                reply.reasoning,
            )
        )
        messages.append(reply)
        messages.extend(
            ChatMessage(role="tool", tool_call_id=c.id, content=f"ran {c.name}")
            for c in reply.tool_calls
        )
    return seen


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("upstream_api", SHAPES)
@pytest.mark.parametrize("client_api", SHAPES)
async def test_every_client_shape_works_against_every_upstream_shape(
    policy, start_proxy, client_api, upstream_api, stream
):
    proxy = await start_proxy({"m": Upstream("m", policy.url, api=upstream_api)})
    async with httpx.AsyncClient(timeout=30) as client:
        direct = await drive(client, policy.url, client_api, stream)
        through = await drive(client, proxy.trial_base_url("t1", "m"), client_api, stream)
    assert through == direct
    assert [len(calls) for _, calls, _ in through] == [1, 2, 0]  # the script's shape
    assert through[-1][0] == "All done: the tests pass."
    records = proxy.config.sink.take("t1")
    assert len(records) == 3
    for record in records:
        assert record["api"] == client_api and record["error"] is None
        side = record.get("upstream_call")
        if client_api == upstream_api:
            assert side is None
            continue
        assert side["api"] == upstream_api and side["status"] == 200 and side["error"] is None
        assert side["usage"]["output_tokens"] > 0
        # The scaffold's side holds the translated reply, with the upstream's usage.
        assert record["usage"] == side["usage"]
        assert (side["sse_events"] > 0) == stream


async def test_the_system_prompt_and_tools_reach_the_upstream_in_its_shape(policy, start_proxy):
    proxy = await start_proxy({"m": Upstream("m", policy.url, api="openai-chat")})
    async with httpx.AsyncClient(timeout=30) as client:
        await call(
            client,
            proxy.trial_base_url("t", "m"),
            "anthropic",
            [ChatMessage(role="user", content="hi")],
            False,
        )
    (record,) = proxy.config.sink.take("t")
    sent = record["upstream_call"]["request"]
    assert record["upstream_call"]["path"] == "/v1/chat/completions"
    assert sent["messages"][0] == {"role": "system", "content": SYSTEM}
    assert [t["function"]["name"] for t in sent["tools"]] == ["read_file", "write_file", "run"]
    assert sent["max_tokens"] == 256 and sent["model"] == MODEL


@pytest.mark.parametrize("upstream_api", ["anthropic", "openai-responses", "gemini"])
async def test_upstream_errors_reach_the_client_in_its_own_shape(
    start_policy, start_proxy, upstream_api
):
    policy = await start_policy(require_api_key="the-real-key")  # the proxy sends none: 401
    proxy = await start_proxy({"m": Upstream("m", policy.url, api=upstream_api)})
    path, body = request_for("openai-chat", [ChatMessage(role="user", content="hi")], False)
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(proxy.trial_base_url("t", "m") + path, json=body)
    assert response.status_code == 401
    error = response.json()["error"]  # OpenAI's error document, not the upstream's
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"].startswith(f"upstream ({upstream_api}):")
    (record,) = proxy.config.sink.take("t")
    assert record["status"] == 401 and record["error"].startswith("HTTP 401")
    assert record["upstream_call"]["status"] == 401


async def test_a_request_that_cannot_be_carried_is_a_400_naming_the_part(policy, start_proxy):
    proxy = await start_proxy({"m": Upstream("m", policy.url, api="openai-chat")})
    body = {
        "model": MODEL,
        "max_tokens": 10,
        "messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}],
    }
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(proxy.trial_base_url("t", "m") + "/v1/messages", json=body)
    assert response.status_code == 400
    assert response.json()["type"] == "error"  # Anthropic's error document
    message = response.json()["error"]["message"]
    assert "into openai-chat" in message and "messages[0].content[0]" in message
    (record,) = proxy.config.sink.take("t")
    assert record["status"] == 400 and "cannot translate" in record["error"]


async def test_token_counting_and_model_lists_are_answered_without_the_upstream(
    policy, start_proxy
):
    proxy = await start_proxy({"m": Upstream("m", policy.url, api="openai-chat", model="m1")})
    base = proxy.trial_base_url("t", "m")
    async with httpx.AsyncClient(timeout=30) as client:
        counted = await client.post(
            base + "/v1/messages/count_tokens",
            json={"model": MODEL, "messages": [{"role": "user", "content": "x" * 400}]},
        )
        listed = await client.get(base + "/v1/models", headers={"x-api-key": "dummy"})
    assert counted.status_code == 200 and counted.json()["input_tokens"] >= 100
    assert [m["id"] for m in listed.json()["data"]] == ["m1"]
    records = proxy.config.sink.take("t")
    assert [r.get("upstream_call") for r in records] == [None, None]


@pytest.mark.parametrize("client_api", SHAPES)
async def test_the_output_cap_and_temperature_are_imposed_on_every_call(
    policy, start_proxy, client_api
):
    controls = Controls(max_output_tokens=32, temperature=0.3, reasoning_effort="low")
    upstreams = {
        "native": Upstream("native", policy.url, controls=controls),
        "translated": Upstream(
            "translated",
            policy.url,
            controls=controls,
            api="openai-chat" if client_api != "openai-chat" else "anthropic",
        ),
    }
    proxy = await start_proxy(upstreams)
    async with httpx.AsyncClient(timeout=30) as client:
        for name in upstreams:
            path, body = request_for(
                client_api, [ChatMessage(role="user", content="hi")], False, max_tokens=4000
            )
            response = await client.post(proxy.trial_base_url(name, name) + path, json=body)
            assert response.status_code == 200, response.text
    (native,) = proxy.config.sink.take("native")
    (translated,) = proxy.config.sink.take("translated")
    sent = native["request"]
    cap = {
        "anthropic": sent.get("max_tokens"),
        "openai-chat": sent.get("max_tokens"),
        "openai-responses": sent.get("max_output_tokens"),
        "gemini": sent.get("generationConfig", {}).get("maxOutputTokens"),
    }[client_api]
    assert cap == 32
    upstream = translated["upstream_call"]["request"]
    if translated["upstream_call"]["api"] == "openai-chat":
        assert upstream["max_tokens"] == 32 and upstream["temperature"] == 0.3
        assert upstream["reasoning_effort"] == "low"
    else:
        assert upstream["max_tokens"] == 32 and upstream["temperature"] == 0.3
        assert "thinking" not in upstream  # a 1,024-token budget cannot fit under 32
