"""A pooled upstream connection the server has closed is not a failed call.

Found with the real local model server, which closes its connection right after a
streamed reply although it announced keep-alive: the proxy's pool handed the dead
connection to the next call, which failed at once as "upstream unreachable" before
the request ever reached the model.
"""

import asyncio
import json

from adhere.core._chat import ChatMessage
from adhere.models import open_client
from adhere.wire import ChatRequest

REPLY = {
    "id": "c",
    "object": "chat.completion",
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
}


class ClosingServer:
    """Answers the first request of each connection (with keep-alive), then hangs up."""

    def __init__(self) -> None:
        self.answered = 0
        self.dropped = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = True
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
            if not first:
                self.dropped += 1
                writer.close()
                return
            first = False
            self.answered += 1
            body = json.dumps(REPLY).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Keep-Alive: timeout=5, max=100\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()


async def test_a_closed_pooled_connection_is_retried_not_recorded_as_failed(
    start_proxy, make_endpoint
):
    upstream = ClosingServer()
    server = await asyncio.start_server(upstream.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        proxy = await start_proxy({"m": f"http://127.0.0.1:{port}"})
        endpoint = make_endpoint(proxy.trial_base_url("t", "m"), "openai", "m")
        ask = ChatRequest(messages=(ChatMessage(role="user", content="hi"),))
        for _ in range(3):
            async with open_client(endpoint) as client:
                reply = await client.complete(ask)
            assert reply.message.content == "Hi" and reply.attempts == 1
    finally:
        server.close()
        await server.wait_closed()
    records = proxy.config.sink.take("t")
    assert [(r["seq"], r["status"], r["error"]) for r in records] == [
        (0, 200, None),
        (1, 200, None),
        (2, 200, None),
    ]
    assert upstream.answered == 3 and upstream.dropped == 2
