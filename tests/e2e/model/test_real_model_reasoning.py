"""An endpoint with a reasoning setting, end to end against the real model server.

llama.cpp's ``llama-server`` accepts and ignores the reasoning fields of every shape it
speaks (``reasoning_effort``, ``reasoning``, ``thinking``) and reports no reasoning
tokens for a model that does not think (SmolLM2-135M-Instruct). One tiny call, shaped
as an Anthropic CLI sends it, through the recording proxy to the server's Chat
Completions API: the endpoint's effort reaches the server in that shape, the call is
answered, and no reasoning-token count is made up.
"""

from adhere.core import ChatMessage
from adhere.models import open_client
from adhere.observe import MemorySink, ProxyConfig, RecordingProxy
from adhere.runner._pairing import upstream_for
from adhere.spec import Endpoint, Reasoning
from adhere.wire import ChatRequest


async def test_a_reasoning_endpoint_is_accepted_through_the_proxy(model_server) -> None:
    endpoint = Endpoint(
        api="openai",
        base_url=model_server.url + "/v1",
        model="smollm2",
        reasoning=Reasoning(effort="low"),
    )
    upstream = upstream_for("local", endpoint, endpoint.base_url, None)
    config = ProxyConfig(upstreams={"local": upstream}, sink=MemorySink())
    async with RecordingProxy(config) as proxy:
        cli = Endpoint(
            api="anthropic",
            base_url=proxy.trial_base_url("t", "local"),
            model="smollm2",
            max_tokens=8,
            limits={"maxRetries": 0, "timeoutSeconds": 300},
        )
        async with open_client(cli) as client:
            reply = await client.complete(
                ChatRequest(messages=(ChatMessage(role="user", content="Say hi."),))
            )
        await proxy.settle("t")
    assert reply.message.content.strip() and 0 < reply.usage.output_tokens <= 8
    (call,) = config.sink.take("t")
    assert call.api == "anthropic" and call.upstream_call is not None
    assert call.upstream_call["api"] == "openai-chat" and call.upstream_call["status"] == 200
    assert call.upstream_call["request"]["reasoning_effort"] == "low"
    assert call.error is None and call.reasoning_tokens is None
