import asyncio
import time

import pytest

from adhere.core._chat import ChatMessage
from adhere.models import EndpointLimiter, open_client, shared_limiter
from adhere.spec._endpoint import Limits
from adhere.wire import ChatRequest


def requests(count):
    return [
        ChatRequest(messages=(ChatMessage(role="user", content=f"question {index}"),))
        for index in range(count)
    ]


@pytest.mark.parametrize("concurrency", [1, 3])
async def test_concurrency_limit_is_seen_by_the_server(server, make_endpoint, concurrency):
    limits = Limits(concurrency=concurrency, max_retries=0)
    client = open_client(make_endpoint(server.url, model="script:hello,delay=0.05", limits=limits))
    try:
        await asyncio.gather(*(client.complete(request) for request in requests(6)))
    finally:
        await client.aclose()
    stats = server.stats
    assert stats["requests"] == 6
    assert stats["max_in_flight"] == concurrency
    assert stats["in_flight"] == 0


@pytest.mark.parametrize("how", ["passed", "shared"])
async def test_clients_can_share_one_limiter(server, make_endpoint, how):
    limits = Limits(concurrency=2, max_retries=0)
    endpoint = make_endpoint(server.url, model="script:hello,delay=0.05", limits=limits)
    limiter = EndpointLimiter(limits) if how == "passed" else shared_limiter(server.url, limits)
    other = limiter if how == "passed" else shared_limiter(server.url, Limits(concurrency=2))
    clients = [open_client(endpoint, limiter=limiter), open_client(endpoint, limiter=other)]
    try:
        await asyncio.gather(
            *(clients[index % 2].complete(request) for index, request in enumerate(requests(6)))
        )
    finally:
        for client in clients:
            await client.aclose()
    assert server.stats["max_in_flight"] == 2


async def test_requests_per_second_spaces_calls(server, make_endpoint):
    limits = Limits(concurrency=8, requests_per_second=20.0, max_retries=0)
    client = open_client(make_endpoint(server.url, "anthropic", limits=limits))
    began = time.monotonic()
    try:
        await asyncio.gather(*(client.complete(request) for request in requests(5)))
    finally:
        await client.aclose()
    # Five calls at 20/s: the last may start 4 × 50 ms after the first.
    assert time.monotonic() - began >= 0.19


async def test_a_client_paced_below_the_server_limit_gets_no_429(server, make_endpoint):
    # The server's bucket holds one second's worth; drain it first, so that only
    # the client's pacing can keep it from answering 429.
    model = "script:hello,rps=40"
    drain = open_client(make_endpoint(server.url, model=model, limits=Limits(max_retries=0)))
    try:
        outcomes = await asyncio.gather(
            *(drain.complete(request) for request in requests(60)), return_exceptions=True
        )
    finally:
        await drain.aclose()
    assert any(isinstance(outcome, Exception) for outcome in outcomes)
    await asyncio.sleep(0.5)  # the bucket refills to half
    limits = Limits(concurrency=16, requests_per_second=40 * 0.98, max_retries=0)
    records = []
    client = open_client(
        make_endpoint(server.url, model=model, limits=limits), on_call=records.append
    )
    try:
        await asyncio.gather(*(client.complete(request) for request in requests(40)))
    finally:
        await client.aclose()
    assert [record.status for record in records] == [200] * 40
