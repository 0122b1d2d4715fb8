"""A stream whose body ends a moment after its last event is recorded whole, in time.

Found with the real local model server: it sends Anthropic's ``message_stop`` and ends
the body a moment later. A client that hung up at ``message_stop`` made the proxy
record a complete reply as cut off by its client — and only after the client had
returned, too late for the runner to collect it with its trial.
"""

import asyncio
import json

import pytest
from aiohttp import web

from adhere.core._chat import ChatMessage
from adhere.models import open_client
from adhere.wire import ChatRequest

HI = ChatRequest(messages=(ChatMessage(role="user", content="hi"),), stream=True)


def sse(data: dict, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


OPENAI = [
    sse({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hello"}}]}),
    sse({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    b"data: [DONE]\n\n",
]
ANTHROPIC = [
    sse(
        {
            "type": "message_start",
            "message": {
                "id": "m1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "usage": {"input_tokens": 3, "output_tokens": 0},
            },
        },
        "message_start",
    ),  # fmt: skip
    sse(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        "content_block_start",
    ),
    sse(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Hello"},
        },
        "content_block_delta",
    ),
    sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
    sse(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        "message_delta",
    ),
    sse({"type": "message_stop"}, "message_stop"),
]


def lingering_app() -> web.Application:
    """Both shapes stream a whole reply, then end the body 0.3 s after the last event."""

    async def handle(request: web.Request) -> web.StreamResponse:
        events = ANTHROPIC if request.path.endswith("/messages") else OPENAI
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(event)
        await asyncio.sleep(0.3)
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v1/chat/completions", handle)
    app.router.add_post("/v1/messages", handle)
    return app


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_the_record_is_whole_and_there_when_the_client_returns(
    serve_app, start_proxy, make_endpoint, api
):
    proxy = await start_proxy({"m": await serve_app(lingering_app())})
    client = open_client(make_endpoint(proxy.trial_base_url("t", "m"), api, "m", stream=True))
    try:
        reply = await client.complete(HI)
    finally:
        await client.aclose()
    assert reply.message.content == "Hello"
    records = proxy.config.sink.take("t")  # at once: no waiting for the proxy
    assert len(records) == 1
    assert records[0]["error"] is None and records[0]["status"] == 200
    assert records[0]["sse_events"] == (3 if api == "openai" else 6)
