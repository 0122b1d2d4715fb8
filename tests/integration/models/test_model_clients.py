from datetime import datetime

import pytest

from adhere.core._chat import ChatMessage, ToolSpec, Usage
from adhere.models import AnthropicClient, OpenAIClient, open_client
from adhere.wire import ChatRequest

APIS = ["openai", "anthropic"]
TOOLS = (
    ToolSpec(name="read_file", parameters={"type": "object", "properties": {"path": {}}}),
    ToolSpec(name="write_file"),
    ToolSpec(name="run"),
)


def user(text):
    return ChatMessage(role="user", content=text)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_text_reply(server, make_endpoint, api, stream):
    records = []
    client = open_client(make_endpoint(server.url, api, stream=stream), on_call=records.append)
    assert isinstance(client, OpenAIClient if api == "openai" else AnthropicClient)
    try:
        response = await client.complete(
            ChatRequest(messages=(user("Say hello please"),), system="You are kind.")
        )
    finally:
        await client.aclose()
    assert response.message.role == "assistant"
    assert response.message.content == "Hello there! How can I help you today?"
    assert response.message.tool_calls == ()
    # Whitespace words: 3 system + 3 user in, 8 out.
    assert response.usage == Usage(input_tokens=6, output_tokens=8)
    assert response.stop_reason == ("stop" if api == "openai" else "end_turn")
    assert response.model == "script:hello"
    assert response.attempts == 1
    assert response.latency_seconds > 0
    [record] = records
    assert record.api == api and record.status == 200 and record.error is None
    assert record.stream is stream and record.attempt == 1
    assert record.usage == response.usage
    assert record.request["stream"] is stream
    assert datetime.fromisoformat(record.started_at).utcoffset().total_seconds() == 0
    if api == "openai":
        assert record.url == server.url + "/v1/chat/completions"
        assert record.response["object"] == "chat.completion"
        assert record.response["choices"][0]["message"]["content"] == response.message.content
    else:
        assert record.url == server.url + "/v1/messages"
        assert record.response["type"] == "message"
        assert record.response["content"] == [{"type": "text", "text": response.message.content}]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_tool_driving_script(server, make_endpoint, api, stream):
    client = open_client(make_endpoint(server.url, api, "script:agent", stream=stream))
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
    first, second, third = replies
    assert first.message.content == "Reading the file."
    assert first.message.reasoning == "I need to see the file"
    assert [(c.name, c.arguments) for c in first.message.tool_calls] == [
        ("read_file", {"path": "src/app.py"})
    ]
    assert first.stop_reason == ("tool_calls" if api == "openai" else "tool_use")
    assert [c.name for c in second.message.tool_calls] == ["write_file", "run"]
    assert second.message.tool_calls[1].arguments == {"cmd": ["pytest", "-q"]}
    assert second.message.content == ""
    assert third.message.content == "All done: the tests pass."
    assert third.message.tool_calls == ()
    assert third.usage.input_tokens > first.usage.input_tokens
    assert server.stats["by_model"] == {"script:agent": 3}


async def test_streaming_and_plain_give_the_same_response(server, make_endpoint):
    for api in APIS:
        results = []
        for stream in (False, True):
            client = open_client(make_endpoint(server.url, api, "script:agent", stream=stream))
            try:
                response = await client.complete(ChatRequest(messages=(user("go"),), tools=TOOLS))
            finally:
                await client.aclose()
            results.append((response.message, response.usage, response.stop_reason))
        assert results[0] == results[1]


async def test_clients_share_a_caller_supplied_http_session(server, make_endpoint):
    import aiohttp

    async with aiohttp.ClientSession() as http:
        client = open_client(make_endpoint(server.url), http=http)
        response = await client.complete(ChatRequest(messages=(user("hi"),)))
        await client.aclose()
        assert not http.closed
    assert response.message.content.startswith("Hello")


async def test_scripted_placeholder_url_is_refused(make_endpoint):
    endpoint = make_endpoint("scripted", api="anthropic")  # the placeholder, unresolved
    with pytest.raises(ValueError, match="scripted"):
        open_client(endpoint)
