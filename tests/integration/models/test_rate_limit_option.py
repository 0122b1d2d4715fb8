"""The policy server's ``rps`` test option: a server-side rate limit answering 429."""

import asyncio

import httpx

from adhere.testing import PolicyServer, PolicyServerConfig, ScriptStep


async def test_requests_over_the_limit_get_429_with_retry_after() -> None:
    config = PolicyServerConfig(scripts={"hi": [ScriptStep(text="hi")]})
    async with PolicyServer(config) as server, httpx.AsyncClient() as http:
        body = {"model": "script:hi,rps=5", "messages": [{"role": "user", "content": "x"}]}
        replies = await asyncio.gather(
            *(http.post(f"{server.url}/v1/chat/completions", json=body) for _ in range(10))
        )
        codes = sorted(r.status_code for r in replies)
        assert codes == [200] * 5 + [429] * 5
        limited = next(r for r in replies if r.status_code == 429)
        assert 0 < float(limited.headers["retry-after"]) <= 0.2 + 1e-9
        assert "rate limit of 5" in limited.json()["error"]["message"]
        await asyncio.sleep(0.25)  # the bucket refills at 5 per second
        assert (await http.post(f"{server.url}/v1/chat/completions", json=body)).status_code == 200
        other = {**body, "model": "script:hi"}  # the limit belongs to its model string
        assert (await http.post(f"{server.url}/v1/chat/completions", json=other)).status_code == 200
