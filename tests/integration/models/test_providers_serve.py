"""Starting providers for a run: the scripted policy server, once, stopped with the stack."""

from contextlib import AsyncExitStack

import aiohttp

from adhere.models import serve_providers
from adhere.spec import Endpoint


def endpoint(base_url: str, model: str, api: str = "openai") -> Endpoint:
    return Endpoint.model_validate({"api": api, "baseUrl": base_url, "model": model})


async def test_scripted_endpoints_share_one_server_that_stops_with_the_stack() -> None:
    judge = endpoint("scripted", "judge:seed=1")
    model = endpoint("scripted", "oracle", api="anthropic")
    plain = endpoint("https://api.example.com/v1", "real")
    async with AsyncExitStack() as stack:
        served = await serve_providers(stack, models=[model, plain], judges=[judge])
        as_judge = served.resolve(judge, role="judge")
        as_model = served.resolve(model)
        assert served.resolve(plain) == plain
        assert as_judge.base_url == as_model.base_url + "/v1"
        async with aiohttp.ClientSession() as http, http.get(as_model.base_url + "/healthz") as r:
            assert r.status == 200
    async with aiohttp.ClientSession() as http:
        try:
            async with http.get(as_model.base_url + "/healthz") as r:
                stopped = False
        except aiohttp.ClientConnectionError:
            stopped = True
    assert stopped
