"""A model server that misbehaves the way real, slow ones do (a test double on 127.0.0.1).

It streams OpenAI Chat, Anthropic Messages and Gemini replies; the model name picks
the behaviour (for Gemini the model in the path):

- ``ok``: a whole stream, then the connection closes;
- ``hold``: a whole stream (final event included), then the connection stays open for
  :data:`HOLD_SECONDS` (some servers keep it open after the last event);
- ``linger``: the same, but the connection closes after :data:`LINGER_SECONDS`;
- ``cut``: part of a reply, then the stream ends cleanly without its final event;
- ``stall``: part of a reply, then nothing for :data:`HOLD_SECONDS`;
- ``live``: a chunk every 0.1 s for :data:`LIVE_SECONDS`, then the end (a long but live
  stream).

Held handlers are cancelled when the server stops (fixture teardown), so it always
stops by itself.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

HOLD_SECONDS = 30.0
LINGER_SECONDS = 0.5
LIVE_SECONDS = 1.0
TEXT = ["The answer ", "is ", "42."]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


def _chat_events(model: str) -> tuple[list[bytes], list[bytes]]:
    """The reply's body events and its ending events."""

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({"id": "c1", "object": "chat.completion.chunk", "model": model,
                     "choices": [choice], **extra})  # fmt: skip

    body = [chunk({"role": "assistant", "content": ""})]
    body += [chunk({"content": text}) for text in TEXT]
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    end = [chunk({}, "stop"), _sse({"id": "c1", "object": "chat.completion.chunk",
                                    "model": model, "choices": [], "usage": usage})]  # fmt: skip
    return body, [*end, _sse("[DONE]")]


def _anthropic_events(model: str) -> tuple[list[bytes], list[bytes]]:
    start = {"type": "message_start", "message": {
        "id": "m1", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "usage": {"input_tokens": 7, "output_tokens": 0}}}  # fmt: skip
    body = [
        _sse(start, "message_start"),
        _sse(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        ),  # fmt: skip
    ]
    body += [
        _sse(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            "content_block_delta",
        )  # fmt: skip
        for text in TEXT
    ]
    end = [
        _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3},
            },
            "message_delta",
        ),  # fmt: skip
        _sse({"type": "message_stop"}, "message_stop"),
    ]
    return body, end


def _gemini_events(model: str) -> tuple[list[bytes], list[bytes]]:
    def part(text: str, **extra: Any) -> bytes:
        candidate = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
        return _sse({"candidates": [{**candidate, **extra}], "modelVersion": model})

    body = [part(text) for text in TEXT[:-1]]
    usage = {"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10}
    end = [
        _sse(
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": TEXT[-1]}]},
                        "finishReason": "STOP",
                        "index": 0,
                    }
                ],
                "usageMetadata": usage,
            }
        )  # fmt: skip
    ]
    return body, end


async def _stream(request: web.Request, behaviour: str, events: Any) -> web.StreamResponse:
    body, end = events
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    if behaviour == "live":
        for _ in range(int(LIVE_SECONDS / 0.1)):
            await response.write(body[-1])
            await asyncio.sleep(0.1)
    for event in body:
        await response.write(event)
    if behaviour == "stall":
        await asyncio.sleep(HOLD_SECONDS)
        return response
    if behaviour != "cut":
        for event in end:
            await response.write(event)
    if behaviour == "hold":
        await asyncio.sleep(HOLD_SECONDS)
    elif behaviour == "linger":
        await asyncio.sleep(LINGER_SECONDS)
    await response.write_eof()
    return response


async def _chat(request: web.Request) -> web.StreamResponse:
    model = (await request.json())["model"]
    return await _stream(request, model, _chat_events(model))


async def _messages(request: web.Request) -> web.StreamResponse:
    model = (await request.json())["model"]
    return await _stream(request, model, _anthropic_events(model))


async def _gemini(request: web.Request) -> web.StreamResponse:
    model = request.match_info["model"]
    return await _stream(request, model, _gemini_events(model))


def slow_upstream_app() -> web.Application:
    """The server's application (serve it on 127.0.0.1:0)."""
    app = web.Application()
    app.router.add_post("/v1/chat/completions", _chat)
    app.router.add_post("/v1/messages", _messages)
    app.router.add_post("/v1beta/models/{model}:streamGenerateContent", _gemini)
    return app


async def serve_slow_upstream() -> tuple[web.AppRunner, str]:
    """Start the server on 127.0.0.1:0; its runner (``await runner.cleanup()``) and URL."""
    runner = web.AppRunner(slow_upstream_app(), access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    return runner, f"http://{host}:{port}"
