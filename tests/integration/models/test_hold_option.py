"""The policy server's ``hold_after``/``release`` test options: stop a run at a known point."""

import asyncio

import httpx

from adhere.testing import PolicyServer, PolicyServerConfig, ScriptStep
from tests.helpers import wait_until_async


async def test_requests_after_the_first_n_wait_for_the_release_file(tmp_path) -> None:
    release = tmp_path / "go"
    config = PolicyServerConfig(scripts={"hi": [ScriptStep(text="hi")]})
    async with PolicyServer(config) as server, httpx.AsyncClient(timeout=30) as http:
        body = {
            "model": f"script:hi,hold_after=2,release={release}",
            "messages": [{"role": "user", "content": "x"}],
        }
        url = f"{server.url}/v1/chat/completions"
        for _ in range(2):
            assert (await http.post(url, json=body)).status_code == 200
        held = [asyncio.create_task(http.post(url, json=body)) for _ in range(2)]
        await wait_until_async(
            lambda: server.stats["in_flight"] == 2, "both later requests to reach the server"
        )
        assert not any(task.done() for task in held)  # held, not answered
        other = {**body, "model": "script:hi"}  # the hold belongs to its model string
        assert (await http.post(url, json=other)).status_code == 200
        release.touch()
        replies = await asyncio.wait_for(asyncio.gather(*held), timeout=30)
        assert [r.status_code for r in replies] == [200, 200]
        assert (await http.post(url, json=body)).status_code == 200  # released for good
        assert server.stats["by_model"][body["model"]] == 5
